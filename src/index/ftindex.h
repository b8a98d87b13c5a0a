/*
 * index/ftindex.h - the `full-text` global index through the Paimon
 * full-text engine's C ABI (libpaimon_ftindex_ffi.so from the paimon-ftindex
 * wheel, loaded at run time: the path given to pm_ftindex_set_library_path
 * (a binding that knows where the paimon_ftindex package is), else
 * PAIMONC_FTINDEX_LIB, else next to our library, else the system path), so
 * that the files are Java's and pypaimon's (the PFTIDX01 envelope of a
 * Tantivy index, ../shared/spec/global-index.md §5; validated by us first,
 * index/ftenvelope.h). Without the library every call is
 * PAIMON_EUNSUPPORTED with an install hint.
 *
 * Row ids are RELATIVE to the index entry's row range.
 */
#ifndef PM_INDEX_FTINDEX_H
#define PM_INDEX_FTINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "index/rb64.h"
#include "io/fileio.h"

/* 1 when the engine library loads (sets no error), 0 otherwise. */
int pm_ftindex_available(void);

/* Where to load the engine from (a file, or a directory holding
 * libpaimon_ftindex_ffi.so; copied), before PAIMONC_FTINDEX_LIB and the
 * default places: for bindings that know where the paimon_ftindex package
 * is (the Python one). Ignored once the library is loaded; after a failed
 * load the next call retries with it. NULL or "" clears it. */
int pm_ftindex_set_library_path(const char *path);

typedef struct pm_ft_writer pm_ft_writer;

/* opts: the user's full-text options with the `full-text.` prefix stripped
 * (tokenizer, with-position, ...), passed to the engine; NULL = defaults. */
int pm_ft_writer_new(const pm_strmap *opts, pm_ft_writer **out);
/* One document; text NULL = a null value (not indexed). */
int pm_ft_writer_add(pm_ft_writer *w, int64_t rel_row_id, const char *text, size_t len);
/* Writes the index file into out (borrowed; caller closes); path names it in
 * errors; *file_size the bytes written. */
int pm_ft_writer_finish(pm_ft_writer *w, pm_out_stream *out, const char *path, int64_t *file_size);
void pm_ft_writer_free(pm_ft_writer *w);

typedef struct pm_ft_reader pm_ft_reader;

/* Validates the PFTIDX01 envelope (magic, version, header length, JSON file
 * table inside the file) before handing it to the engine: corrupt ->
 * PAIMON_ECORRUPT naming path. */
int pm_ft_reader_open(pm_fileio *io, const char *path, int64_t size, pm_ft_reader **out);
void pm_ft_reader_free(pm_ft_reader *r);

/*
 * Runs a query of the engine's JSON DSL (match, match_phrase, boolean, ...)
 * or, when query does not start with '{', a plain string taken as a `match`
 * over the indexed text. Top `limit` hits by score descending: *ids and
 * *scores (owned by the caller, pm_free) with *n entries. filter (NULL =
 * all) restricts hits to those relative ids. A bad query -> PAIMON_EINVAL
 * with the engine's message.
 */
int pm_ft_search(pm_ft_reader *r, const char *query, int limit, const pm_rb64 *filter,
		 int64_t **ids, float **scores, size_t *n);

/* pm_ft_search with the filter as portable Roaring64 bytes (rb64.h's form,
 * the engine's RoaringTreemap; NULL = all); bytes it cannot parse ->
 * PAIMON_EINVAL with the engine's message. */
int pm_ft_search_portable(pm_ft_reader *r, const char *query, int limit, const void *filter, size_t filter_len,
			  int64_t **ids, float **scores, size_t *n);

#endif
