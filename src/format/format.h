/*
 * format/format.h - the file-format interface: how the table layers read,
 * write and take statistics of data files without naming a format.
 *
 * A format (pm_format) is a table of functions, found by its `file.format`
 * name ("parquet") or by a data file's extension (".parquet"). Parquet is
 * behind it today; `.blob` files, `.vector.parquet` companions and index
 * files plug in here next. A name or extension no format claims gives
 * PAIMON_EUNSUPPORTED "unsupported file format 'orc' (data file ...)",
 * never "corrupt".
 *
 * Everything above this layer (scan/, read/, write/, commit/) talks to data
 * files only through this header; format/parquet/ stays below it and knows
 * nothing of tables.
 *
 * Ownership: pm_format values are static (never freed). Readers and
 * writers are owned by the caller and freed with their _free function; the
 * FileIO passed at open must outlive them.
 */
#ifndef PM_FORMAT_FORMAT_H
#define PM_FORMAT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/strs.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_filter.h"
#include "io/fileio.h"
#include "paimonc/arrow_c.h"
#include "types/datatype.h"

typedef struct pm_format pm_format;
typedef struct pm_format_reader pm_format_reader;
typedef struct pm_format_writer pm_format_writer;

/* What a reader reads of one file. */
typedef struct pm_format_read_options {
	/* Top-level columns by name; they come out in file order, as
	 * pm_pq_read_options selects them. NULL / 0 = all. */
	const char *const *columns;
	size_t n_columns;
	int64_t batch_rows;        /* <= 0: the format's default */
	/* Row ranges [start, end) in file row positions, ascending and
	 * disjoint; NULL = all rows. */
	const int64_t *row_ranges; /* 2 * n_row_ranges values */
	size_t n_row_ranges;
	/* Pruning predicate over file column names (bound at open; it must
	 * stay valid during open only). Rows are NOT filtered exactly: the
	 * caller does that. Formats without statistics ignore it. */
	pm_pq_filter *filter;
	int threads;               /* <= 1: decode on the calling thread */
	/* The Paimon fields of the file's schema (matched by name), for
	 * formats whose files cannot tell every Paimon type apart (Avro
	 * writes TINYINT as int, VECTOR as array): the columns come out as
	 * pm_field_to_arrow types them. NULL: the file's own types. Borrowed
	 * during open only; Parquet ignores it. */
	const pm_field *fields;
	size_t n_fields;
} pm_format_read_options;

/* A format's parsed writer options (opaque; see write_options below). */
typedef struct pm_format_wopts pm_format_wopts;

/* What a finished file tells its statistics extractor (the table layer
 * turns it into Paimon's SimpleStats). Today the Parquet footer; a format
 * without one leaves it NULL and the extractor records no value stats. */
typedef struct pm_format_file_stats {
	/* The format's footer, for extractors that need more (may be NULL). */
	const pm_pq_file_meta *parquet_meta;
	int64_t row_count;
} pm_format_file_stats;

struct pm_format {
	const char *name;          /* `file.format` value: "parquet" */
	const char *extension;     /* data file extension with the dot: ".parquet" */

	/* Reading: opens path through io; *out owned by the caller. */
	int (*reader_open)(pm_fileio *io, const char *path, const pm_format_read_options *opt,
			   pm_format_reader **out);

	/* Parses the writer options this format knows from table options
	 * (`file.compression`, `file.compression.zstd-level`, `parquet.*`),
	 * once per table writer; PAIMON_EINVAL names the option at fault.
	 * *out owned by the caller, freed with write_options_free. */
	int (*write_options)(const pm_strmap *table_options, pm_format_wopts **out);
	void (*write_options_free)(pm_format_wopts *o);
	/* Fits parsed options to the table writer's rolling target: the
	 * writer rolls when bytes_written reaches target_file_size, so a
	 * format that buffers (Parquet: bytes_written moves only when a row
	 * group is flushed) keeps its buffer no larger than the target.
	 * Parquet: row groups of `parquet.block.size` (default 128 MiB)
	 * capped at the target; PAIMON_EINVAL names the option. NULL: the
	 * format needs nothing. */
	int (*write_options_target)(pm_format_wopts *o, const pm_strmap *table_options,
				    int64_t target_file_size);

	/* Writing rows of type `row` (a ROW type with field ids) into a new
	 * file at path; opt from write_options (NULL: defaults). */
	int (*writer_open)(pm_fileio *io, const char *path, const pm_type *row,
			   const pm_format_wopts *opt, pm_format_writer **out);
};

/* The reader of any format: a struct-typed stream of Arrow batches. */
struct pm_format_reader {
	const pm_format *format;
	/* The struct schema ("+s") of the batches; *out owned by the caller. */
	int (*schema)(pm_format_reader *r, struct ArrowSchema *out);
	/* Next batch; at the end *eof = 1 and out->release is NULL. */
	int (*next)(pm_format_reader *r, struct ArrowArray *out, int *eof);
	/* Rows the reader will produce in total (after range selection). */
	int64_t (*num_rows)(const pm_format_reader *r);
	void (*free)(pm_format_reader *r);
};

/* The writer of any format. */
struct pm_format_writer {
	const pm_format *format;
	/* Appends a struct batch of the row type given at open. */
	int (*write)(pm_format_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema);
	/* Bytes in the file so far (the rolling decision uses it). */
	uint64_t (*bytes_written)(const pm_format_writer *w);
	/* Finishes the file (footer, sync as the FileIO decides). */
	int (*close)(pm_format_writer *w);
	/* Statistics of a closed file (valid until free). */
	int (*stats)(const pm_format_writer *w, pm_format_file_stats *out);
	/* Frees; an unclosed file is removed. NULL is a no-op. */
	void (*free)(pm_format_writer *w);
};

/* The format named by a `file.format` value (case-insensitive); NULL and
 * PAIMON_EUNSUPPORTED ("unsupported file format 'orc'") when none is. */
int pm_format_by_name(const char *name, const pm_format **out);
/* The format of a data file by its extension; NULL and
 * PAIMON_EUNSUPPORTED naming the file and the extension when none is. */
int pm_format_for_file(const char *file_name, const pm_format **out);

static inline void pm_format_reader_free(pm_format_reader *r) { if (r) r->free(r); }
static inline void pm_format_writer_free(pm_format_writer *w) { if (w) w->free(w); }

#endif
