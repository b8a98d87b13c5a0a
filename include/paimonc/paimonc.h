/*
 * paimonc/paimonc.h - the whole public API of libpaimonc.
 *
 * API conventions (every public header follows them)
 * ---------------------------------------------------
 * Names. Every public symbol starts with paimon_ (macros with PAIMON_).
 *   A function is named paimon_<handle>_<verb>, <handle> being the type
 *   it acts on or makes: paimon_table_write_prepare_commit acts on a
 *   paimon_table_write, paimon_read_builder_new makes a
 *   paimon_read_builder. Every handle type T has one paimon_T_free
 *   (NULL is fine).
 *
 * Return codes. A function that can fail returns int: 0 (PAIMON_OK) or a
 *   negative paimon_error_code, and leaves a message naming the file,
 *   table, column or option at fault in paimon_error_message() (common.h,
 *   thread-local). Accessors that cannot fail return their value directly
 *   (a count, an id, a borrowed string).
 *
 * Parameter order. A constructor - a function that makes a new handle:
 *   paimon_T_new, _open, _deserialize, _from_json, and the makers of
 *   schema changes, predicates and filters (paimon_schema_change_add_column,
 *   paimon_predicate_and...) - takes the handle's out-parameter FIRST, then
 *   its inputs:
 *       paimon_catalog_open(&catalog, opts);
 *       paimon_parquet_writer_open(&writer, path, &schema, opts);
 *   Every other function takes the handle it acts on first, then its
 *   inputs, then its out-parameters last:
 *       paimon_catalog_get_table(catalog, "db.t", &table);
 *       paimon_read_builder_plan(rb, &plan);
 *   Read out-parameters only after a 0 return.
 *
 * Options. String settings - catalog options, table-write and commit
 *   options, an overwrite partition, Parquet writer options - are passed as
 *   one `const paimon_options *` (options.h; NULL = none / defaults); an
 *   unknown key or a bad value is PAIMON_EINVAL naming it. The callee copies
 *   what it keeps. Builders also set one option at a time with
 *   (key, value): paimon_read_builder_with_option,
 *   paimon_schema_spec_set_option, paimon_schema_change_set_option.
 *   Inputs that are not strings (column lists, row-group indexes, row
 *   ranges, a filter) are typed parameters, gathered in a zero-initialised
 *   struct where there are many (paimon_parquet_read_options).
 *
 * Who frees what.
 *   - A handle returned through `T **out` belongs to the caller: free it
 *     with paimon_T_free. A handle made from another handle (a table write
 *     or commit from a table, a plan or stream from a read builder) borrows
 *     from it: keep the parent alive until the child is freed. (A
 *     paimon_table does not need its catalog.)
 *   - Strings and arrays returned through out-parameters (char **,
 *     int64_t **, void ** bytes) are freed with paimon_free; string lists
 *     (char ***, size_t *count) with paimon_string_list_free.
 *   - A `const char *` (or const handle) returned directly is borrowed: it
 *     lives as long as the handle it came from.
 *   - Arguments are borrowed and copied if kept (const pointers, options,
 *     Arrow schemas and arrays passed in: the caller still releases them),
 *     except where the comment says the callee takes ownership; those
 *     functions take it also when they fail (paimon_predicate_and/or/not,
 *     paimon_parquet_filter_and/or/not, paimon_parquet_reader_stream).
 *   - Arrow structs filled by libpaimonc (struct ArrowSchema / ArrowArray /
 *     ArrowArrayStream *out) belong to the caller, who calls their release.
 *   - Arrow streams. A function that takes a `struct ArrowArrayStream *` to
 *     read from (paimon_table_write_arrow_stream, paimon_parquet_write_stream)
 *     consumes it, as a consumer of the Arrow C stream interface does: it
 *     releases the stream before returning, on success AND on failure, and
 *     its release member is NULL afterwards. The caller must not use or
 *     release it again. (A stream that is NULL or already released is
 *     PAIMON_EINVAL.)
 *
 * Deprecated names (PAIMON_DEPRECATED, kept until 1.0 as inline wrappers):
 *   paimon_table_commit_commit -> paimon_table_commit_apply.
 */
#ifndef PAIMONC_PAIMONC_H
#define PAIMONC_PAIMONC_H
#include "paimonc/common.h"
#include "paimonc/arrow_c.h"
#include "paimonc/options.h"
#include "paimonc/catalog.h"
#include "paimonc/parquet.h"
#include "paimonc/parquet_writer.h"
#include "paimonc/predicate.h"
#include "paimonc/table.h"
#endif
