/*
 * paimonc/table.h - writing, committing, planning and reading append
 * tables (pypaimon's batch write/read shapes, in C).
 *
 *   write:  paimon_table_write_new -> paimon_table_write_arrow (any number
 *           of batches) -> paimon_table_write_prepare_commit -> messages
 *   commit: paimon_table_commit_new -> [set_overwrite] -> paimon_table_commit_apply
 *   read:   paimon_read_builder_new -> with_projection / with_filter /
 *           with_limit / with_option -> paimon_read_builder_plan -> splits
 *           -> paimon_read_builder_read(splits) -> ArrowArrayStream
 *
 * Commit messages and splits serialize to bytes so that a distributed job
 * can write or read on many workers and commit on one.
 *
 * Conventions: the API conventions in paimonc/paimonc.h (as in catalog.h):
 * 0 or a negative paimon_error_code with paimon_error_message() set;
 * objects returned through **out belong to the caller and are freed with
 * their _free function.
 */
#ifndef PAIMONC_TABLE_H
#define PAIMONC_TABLE_H

#include "paimonc/common.h"
#include "paimonc/arrow_c.h"
#include "paimonc/catalog.h"
#include "paimonc/predicate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_table_write paimon_table_write;
typedef struct paimon_table_update paimon_table_update;
typedef struct paimon_commit_message paimon_commit_message;
typedef struct paimon_table_commit paimon_table_commit;
typedef struct paimon_predicate paimon_predicate;
typedef struct paimon_read_builder paimon_read_builder;
typedef struct paimon_plan paimon_plan;
typedef struct paimon_split paimon_split;

/* ------------------------------------------------------------------ write */

/**
 * A writer for table t (t must outlive it). opts (may be NULL) override
 * table options for this write, e.g. "target-file-size", "file.compression",
 * "metadata.stats-mode". Only append tables (no primary key) are supported
 * (PAIMON_EUNSUPPORTED otherwise).
 */
PAIMON_EXTERN(int) paimon_table_write_new(paimon_table_write **out, paimon_table *t, const paimon_options *opts);
/**
 * Writes one batch: a struct array whose children are the table's columns
 * by name (any order; missing nullable columns are written as nulls; extra
 * columns are an error naming them). Arrow types must map to the column
 * types as pypaimon maps them (also accepted: narrower ints/floats widen,
 * utf8 <-> large_utf8, binary <-> large_binary, any timestamp unit). Rows
 * are routed to their partition and bucket; files roll at target-file-size.
 * The batch is not retained (the caller still releases it).
 */
PAIMON_EXTERN(int) paimon_table_write_arrow(paimon_table_write *w, const struct ArrowArray *batch,
					    const struct ArrowSchema *schema);
/**
 * Writes every batch of the stream, as paimon_table_write_arrow does.
 * The stream is consumed: this function releases it before returning, on
 * success and on failure alike (stream->release is NULL afterwards), as a
 * consumer of the Arrow C stream interface does. The caller must not use
 * or release it again. A NULL or already released stream is PAIMON_EINVAL.
 */
PAIMON_EXTERN(int) paimon_table_write_arrow_stream(paimon_table_write *w, struct ArrowArrayStream *stream);
/**
 * Partial-column writes of data-evolution tables (pypaimon's
 * with_write_type): the writer's files hold only these columns (their
 * manifest entries list them as _WRITE_COLS), batches carry only them, and
 * the rows get fresh row ids at commit, their other columns reading as
 * null. Partition columns must be among them. n = 0 (or every column in
 * table order) is a plain write. Before the first write only.
 */
PAIMON_EXTERN(int) paimon_table_write_with_write_type(paimon_table_write *w, const char *const *columns, size_t n);
/** Rows written so far. */
PAIMON_EXTERN(int64_t) paimon_table_write_row_count(const paimon_table_write *w);
/**
 * Streamed BLOB inputs: the source of BLOB values whose bytes are not in the
 * batch. A BLOB value that is a serialized BlobDescriptor whose URI starts
 * with "paimonc-stream:" (any suffix naming the value, e.g.
 * "paimonc-stream:42") is read while it is written: fn(ctx, uri, buf, cap,
 * &got) is called until it stores got = 0, each call filling buf with
 * 1..cap bytes (cap is at most 1 MiB), so a value of any size passes in
 * chunks and is never held whole in memory. With a descriptor length >= 0
 * exactly that many bytes are read (a shorter stream is an error); with -1,
 * to the stream's end. The offset must be 0. A nonzero return from fn fails
 * the write with PAIMON_EIO naming the column, input row and URI (the
 * caller keeps its own error detail, e.g. a Python exception); abort the
 * writer then. fn is called on the thread calling paimon_table_write_arrow.
 * fn NULL removes the source (stream URIs are then refused). ctx is
 * borrowed and must outlive the writes. Top-level BLOB columns of appends
 * only (not ARRAY<BLOB> elements, not updates).
 */
typedef int (*paimon_blob_stream_fn)(void *ctx, const char *uri, void *buf, size_t cap, size_t *got);
PAIMON_EXTERN(int) paimon_table_write_set_blob_stream(paimon_table_write *w, paimon_blob_stream_fn fn, void *ctx);

/* ---------------------------------------------------------- update by row id */

/**
 * An update by row id of a data-evolution table (row-tracking.enabled and
 * data-evolution.enabled; pypaimon's new_update().with_update_type(cols)
 * .update_by_arrow_with_row_id): new values of `columns` for the rows
 * named by _ROW_ID. Planned on the table's latest snapshot when made. Each
 * touched file group gets one new data file holding only these columns for
 * the group's whole row range (unchanged rows keep their current values);
 * nothing else is rewritten. Refused with an error naming the table and
 * column: unknown, partition, system or BLOB columns, tables without data
 * evolution. opts (may be NULL) override table options (file.compression,
 * ...). t must outlive the update.
 */
PAIMON_EXTERN(int) paimon_table_update_new(paimon_table_update **out, paimon_table *t, const char *const *columns,
					   size_t n, const paimon_options *opts);
/**
 * Adds input rows: a struct batch with _ROW_ID (int64, no nulls) and every
 * update column (by name, any order, nothing else) in the Arrow types a
 * read returns. The batch is moved: the update releases it (also on
 * failure); the schema is borrowed for the call. A _ROW_ID that is no row
 * of the planned snapshot, or that appears twice, is PAIMON_EINVAL naming
 * it.
 */
PAIMON_EXTERN(int) paimon_table_update_write_arrow(paimon_table_update *u, struct ArrowArray *batch,
						   const struct ArrowSchema *schema);
/** Adds every batch of the stream; the stream is consumed (released) on every path. */
PAIMON_EXTERN(int) paimon_table_update_write_arrow_stream(paimon_table_update *u, struct ArrowArrayStream *stream);
/** The snapshot the update was planned on (-1: the table had none). */
PAIMON_EXTERN(int64_t) paimon_table_update_base_snapshot(const paimon_table_update *u);
/**
 * Writes the update files and returns them as one commit message, to be
 * committed with paimon_table_commit_apply. Once only.
 */
PAIMON_EXTERN(int) paimon_table_update_prepare_commit(paimon_table_update *u, paimon_commit_message **out);
/** Frees; files written but not returned by prepare_commit are deleted. */
PAIMON_EXTERN(void) paimon_table_update_free(paimon_table_update *u);

/**
 * PAIMON_EINVAL naming the option and the table when opts (dynamic options
 * of a read, write, update, delete or commit) would change an immutable
 * table option (Java CoreOptions @Immutable: row-tracking.enabled,
 * data-evolution.enabled, bucket-key, ...); writes, updates, deletes,
 * commits and read-builder options check this themselves.
 */
PAIMON_EXTERN(int) paimon_table_check_dynamic_options(const paimon_table *t, const paimon_options *opts);

/* ------------------------------------------------- deletes (deletion vectors) */

/**
 * Deletes rows by _ROW_ID from a data-evolution table with deletion
 * vectors (row-tracking.enabled, data-evolution.enabled and
 * deletion-vectors.enabled; pypaimon's new_update().delete_by_row_id),
 * planned on the latest snapshot: the rows are marked in the deletion
 * vector of their row-id group; per touched (partition, bucket) one new
 * DELETION_VECTORS index file replaces the old ones. No data file is
 * written. Row ids are deduplicated; one that is no row of the snapshot is
 * PAIMON_EINVAL naming it; rows deleted already are not an error. *out
 * gets one commit message (empty when nothing changed) to be committed with
 * paimon_table_commit_apply: an OVERWRITE commit, refused with
 * PAIMON_ECONFLICT when another commit changed the same deletion vectors
 * since. opts (may be NULL) override table options
 * (deletion-vectors.bitmap64).
 */
PAIMON_EXTERN(int) paimon_table_delete_by_row_id(paimon_table *t, const int64_t *row_ids, size_t n,
						 const paimon_options *opts, paimon_commit_message **out);
/**
 * Deletes the rows matching pred (NULL: every row) at the latest snapshot,
 * as paimon_table_delete_by_row_id does (pypaimon's delete_by_predicate).
 */
PAIMON_EXTERN(int) paimon_table_delete_by_predicate(paimon_table *t, const paimon_predicate *pred,
						    const paimon_options *opts, paimon_commit_message **out);
/**
 * Closes all open data files and returns what was written since the last
 * call as one commit message (possibly empty). The writer stays usable.
 */
PAIMON_EXTERN(int) paimon_table_write_prepare_commit(paimon_table_write *w, paimon_commit_message **out);
/** Frees; data files written but not yet returned by prepare_commit are deleted. */
PAIMON_EXTERN(void) paimon_table_write_free(paimon_table_write *w);

/** New data files in the message / rows in them. */
PAIMON_EXTERN(size_t) paimon_commit_message_file_count(const paimon_commit_message *m);
/** Index-file changes (ADD and DELETE entries: deletion vectors of a delete). */
PAIMON_EXTERN(size_t) paimon_commit_message_index_count(const paimon_commit_message *m);
/** Rows of the message's data files (not counting .blob / vector-store companions, which hold the same rows). */
PAIMON_EXTERN(int64_t) paimon_commit_message_row_count(const paimon_commit_message *m);
/** Bytes (versioned) for shipping to the committer. *bytes: paimon_free. */
PAIMON_EXTERN(int) paimon_commit_message_serialize(const paimon_commit_message *m, void **bytes, size_t *len);
PAIMON_EXTERN(int) paimon_commit_message_deserialize(paimon_commit_message **out, const void *bytes, size_t len);
PAIMON_EXTERN(void) paimon_commit_message_free(paimon_commit_message *m);

/* ----------------------------------------------------------------- commit */

/**
 * A committer for t (t must outlive it). opts (may be NULL):
 * "commit.user" (default: a random UUID), "commit.max-retries" (10),
 * "commit.timeout" (ms, unlimited),
 * "commit.min-retry-wait" / "commit.max-retry-wait" (ms, 10 / 10000),
 * "commit.sync-data-files" (true: the new data files are synced to stable
 * storage before the snapshot that references them is published; false
 * skips that, as Java and pypaimon do, and is faster when a commit writes
 * into many partitions). Also settable as a table option.
 */
PAIMON_EXTERN(int) paimon_table_commit_new(paimon_table_commit **out, paimon_table *t, const paimon_options *opts);
/**
 * Makes the next commit an INSERT OVERWRITE, with the rules of Java Paimon
 * (BatchWriteBuilder.withOverwrite) and pypaimon (write_builder.overwrite):
 *
 * - Partitioned table, table option "dynamic-partition-overwrite" = true
 *   (the default; also settable in the committer's opts): dynamic
 *   overwrite. Only the partitions the committed files lie in are replaced;
 *   other partitions keep their rows. `partition` is ignored (as in Java),
 *   though its keys and values are still checked. Committing no files then
 *   changes nothing and creates no snapshot (snapshot id -1).
 * - "dynamic-partition-overwrite" = false, or an unpartitioned table:
 *   static overwrite. partition = NULL or empty replaces the whole table;
 *   otherwise every partition matching the spec is replaced. The spec may
 *   name only some of the partition keys (e.g. {dt: 2024-05-14} of
 *   (dt, hr) replaces every hour of that day). Committed files outside
 *   the spec -> PAIMON_EINVAL, nothing committed. An OVERWRITE snapshot is
 *   created even with no files (this deletes the matching partitions).
 *
 * partition: key -> value as canonical text of the key's type (see the
 * predicate literals below); the table's partition.default-name
 * ("__DEFAULT_PARTITION__") stands for null. A key that is not a
 * partition key, or a value that does not parse -> PAIMON_EINVAL.
 * The setting applies to the next paimon_table_commit_apply only.
 */
PAIMON_EXTERN(int) paimon_table_commit_set_overwrite(paimon_table_commit *c, const paimon_options *partition);
/**
 * TRUNCATE TABLE (Java BatchTableCommit.truncateTable, pypaimon
 * truncate_table): commits an OVERWRITE snapshot (identifier INT64_MAX)
 * that deletes every row, whatever "dynamic-partition-overwrite" says;
 * like Java it commits even when the table is already empty.
 * *snapshot_id (may be NULL): the new snapshot.
 */
PAIMON_EXTERN(int) paimon_table_commit_truncate(paimon_table_commit *c, int64_t *snapshot_id);
/**
 * Commits the messages as one snapshot (kind APPEND, or OVERWRITE after
 * set_overwrite) with the given identifier (INT64_MAX for batch jobs).
 * Retries on lost races; an identical (commit user, identifier) already
 * committed is not committed again. *snapshot_id (may be NULL) = the new
 * snapshot id, or -1 when nothing was committed (no files, and no
 * overwrite or a dynamic overwrite). Files whose data vanished ->
 * PAIMON_ENOTFOUND naming them, nothing committed.
 */
PAIMON_EXTERN(int) paimon_table_commit_apply(paimon_table_commit *c, paimon_commit_message *const *msgs, size_t n,
					     int64_t commit_identifier, int64_t *snapshot_id);
/** The old name of paimon_table_commit_apply (kept until 1.0). */
PAIMON_DEPRECATED("renamed paimon_table_commit_apply")
static inline int paimon_table_commit_commit(paimon_table_commit *c, paimon_commit_message *const *msgs, size_t n,
					     int64_t commit_identifier, int64_t *snapshot_id)
{
	return paimon_table_commit_apply(c, msgs, n, commit_identifier, snapshot_id);
}
/** Deletes the data files of messages that will not be committed. */
/**
 * After a commit call that published a new snapshot, the commit runs the
 * table's maintenance as Java does (unless option write-only is true):
 * consumer files older than consumer.expiration-time are deleted, then
 * snapshots expire by the snapshot.* options (see
 * paimon_table_expire_snapshots). A maintenance failure never fails or
 * undoes the commit; its message is kept here until the next commit call
 * (NULL when it succeeded or did not run). Borrowed.
 */
PAIMON_EXTERN(const char *) paimon_table_commit_maintenance_error(const paimon_table_commit *c);
PAIMON_EXTERN(int) paimon_table_commit_abort(paimon_table_commit *c, paimon_commit_message *const *msgs, size_t n);
PAIMON_EXTERN(void) paimon_table_commit_free(paimon_table_commit *c);

/* ------------------------------------------------------------- predicates */

/* paimon_predicate_op: include/paimonc/predicate.h (shared with the Parquet filters). */

/**
 * A leaf on column `column`. Literals are text in the canonical form of
 * the column's type: integers and decimals as "-12.34", floats as strtod
 * text, "true"/"false", DATE "2024-05-14", TIME "01:02:03.5", TIMESTAMP
 * "2024-05-14 01:02:03.123456", strings and bytes as they are (lens[i]
 * bytes; lens may be NULL for NUL-terminated text). One literal for
 * comparisons and string ops, none for IS (NOT) NULL, any number for
 * (NOT) IN (a NULL literal pointer is SQL NULL). Checked when used
 * against a table (PAIMON_EINVAL naming the column or literal).
 */
PAIMON_EXTERN(int) paimon_predicate_leaf(paimon_predicate **out, const char *column, paimon_predicate_op op,
					 const char *const *literals, const size_t *lens, size_t n);
/** AND / OR of n >= 1 predicates; takes ownership of them (also on failure). */
PAIMON_EXTERN(int) paimon_predicate_and(paimon_predicate **out, paimon_predicate **kids, size_t n);
PAIMON_EXTERN(int) paimon_predicate_or(paimon_predicate **out, paimon_predicate **kids, size_t n);
/** NOT p; takes ownership of p (also on failure). */
PAIMON_EXTERN(int) paimon_predicate_not(paimon_predicate **out, paimon_predicate *p);
/** SQL-like text: "a > 3 AND (s = 'x' OR d IS NULL) AND c IN (1, 2)", LIKE 'pre%', BETWEEN. */
PAIMON_EXTERN(int) paimon_predicate_parse(paimon_predicate **out, const char *text);
/** The same syntax back. *out: paimon_free. */
PAIMON_EXTERN(int) paimon_predicate_to_string(const paimon_predicate *p, char **out);
PAIMON_EXTERN(int) paimon_predicate_serialize(const paimon_predicate *p, void **bytes, size_t *len);
PAIMON_EXTERN(int) paimon_predicate_deserialize(paimon_predicate **out, const void *bytes, size_t len);
PAIMON_EXTERN(void) paimon_predicate_free(paimon_predicate *p);

/* ------------------------------------------------------------------- read */

/** A read builder over t (t must outlive it and everything made from it). */
PAIMON_EXTERN(int) paimon_read_builder_new(paimon_read_builder **out, paimon_table *t);
/** Columns to read, by name, in this order (NULL/0: all the table's own
 * columns). On tables with 'row-tracking.enabled' = 'true' the system
 * columns "_ROW_ID" and "_SEQUENCE_NUMBER" (BIGINT NOT NULL) may be named
 * here and in filters; elsewhere naming them is PAIMON_EINVAL naming the
 * option. */
PAIMON_EXTERN(int) paimon_read_builder_with_projection(paimon_read_builder *rb, const char *const *columns, size_t n);
/**
 * Reads only the rows whose _ROW_ID lies in one of n inclusive ranges
 * pairs[2i] .. pairs[2i + 1] (any order, overlaps allowed; copied, sorted
 * and merged). Manifests, files and pages outside them are never read;
 * the ranges travel in the splits. Intersected with the ranges _ROW_ID
 * filter leaves imply (=, IN, <, <=, >, >=, BETWEEN, AND / OR of those).
 * pairs NULL (n 0) removes them; n 0 with pairs set selects no row.
 * PAIMON_EINVAL on a table without row tracking or for from > to / < 0.
 */
PAIMON_EXTERN(int) paimon_read_builder_with_row_ranges(paimon_read_builder *rb, const int64_t *pairs, size_t n);
/** Rows must satisfy p (copied): used to prune partitions, files, row
 * groups and pages, then applied exactly to every row. */
PAIMON_EXTERN(int) paimon_read_builder_with_filter(paimon_read_builder *rb, const paimon_predicate *p);
/** At most `limit` rows in total (< 0: no limit). */
PAIMON_EXTERN(int) paimon_read_builder_with_limit(paimon_read_builder *rb, int64_t limit);
/**
 * Scan options: "scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis",
 * "scan.timestamp" ('yyyy-MM-dd HH:mm:ss[.SSS]', local time),
 * "source.split.target-size" (default 128 MiB), "source.split.open-file-cost"
 * (4 MiB), "read.batch-size" (rows per Arrow batch, default 65536).
 * At most one of the scan.* time-travel options; value NULL removes one.
 *
 * Time travel (these options here or in the table's options) reads with
 * the schema of the snapshot it resolves to, as Java and pypaimon do:
 * columns added later are absent, renamed columns have their old names,
 * dropped columns are back. Projection and filter names are resolved
 * against that schema, whichever is called first: setting a time-travel
 * option fails (PAIMON_EINVAL naming the column; the option is not set)
 * when the projection or filter names a column that schema lacks. A
 * snapshot that cannot be resolved (no such id or tag) keeps the current
 * schema and is reported by paimon_read_builder_plan.
 */
PAIMON_EXTERN(int) paimon_read_builder_with_option(paimon_read_builder *rb, const char *key, const char *value);
/** Arrow struct schema of what the reads produce (the time-travel schema's
 * columns when time travelling). */
PAIMON_EXTERN(int) paimon_read_builder_read_schema(paimon_read_builder *rb, struct ArrowSchema *out);
/** Id of the table schema reads use: the time-travel snapshot's schema id,
 * else the table's (paimon_table_load_schema gives its fields). */
PAIMON_EXTERN(int64_t) paimon_read_builder_schema_id(const paimon_read_builder *rb);

/**
 * Plans the scan: resolves the snapshot, reads the manifests, prunes by
 * partition and statistics and groups the files into splits. A table
 * without snapshots has an empty plan.
 */
PAIMON_EXTERN(int) paimon_read_builder_plan(paimon_read_builder *rb, paimon_plan **out);
/** Snapshot the plan reads (-1 when the table has none). */
PAIMON_EXTERN(int64_t) paimon_plan_snapshot_id(const paimon_plan *p);
PAIMON_EXTERN(size_t) paimon_plan_split_count(const paimon_plan *p);
/** Borrowed; lives as long as the plan. */
PAIMON_EXTERN(const paimon_split *) paimon_plan_split(const paimon_plan *p, size_t i);
/** Files the plan's snapshot holds / files left after pruning. */
PAIMON_EXTERN(int64_t) paimon_plan_files_total(const paimon_plan *p);
PAIMON_EXTERN(int64_t) paimon_plan_files_selected(const paimon_plan *p);
PAIMON_EXTERN(void) paimon_plan_free(paimon_plan *p);

PAIMON_EXTERN(int64_t) paimon_split_row_count(const paimon_split *s);
PAIMON_EXTERN(size_t) paimon_split_file_count(const paimon_split *s);
/** Snapshot the split was planned from. */
PAIMON_EXTERN(int64_t) paimon_split_snapshot_id(const paimon_split *s);
/** Bucket of the split's files (-2: postponed bucket). */
PAIMON_EXTERN(int32_t) paimon_split_bucket(const paimon_split *s);
/** File i (< file_count) of the split: its name (borrowed, lives as long
 * as the split; NULL when i is out of range), size in bytes and rows (-1
 * when out of range) and the id of the schema it was written with. */
PAIMON_EXTERN(const char *) paimon_split_file_name(const paimon_split *s, size_t i);
PAIMON_EXTERN(int64_t) paimon_split_file_size(const paimon_split *s, size_t i);
PAIMON_EXTERN(int64_t) paimon_split_file_rows(const paimon_split *s, size_t i);
PAIMON_EXTERN(int64_t) paimon_split_file_schema_id(const paimon_split *s, size_t i);
/**
 * Path of file i of a split of table t (the split's own table): its
 * external path when it has one, else
 * <table>/[data-file.path-directory/]<partition dirs>/bucket-N/<name>,
 * the directory a reader opens (pypaimon's partition directory style when
 * only that one exists). *out: paimon_free.
 */
PAIMON_EXTERN(int) paimon_split_file_path(const paimon_split *s, const paimon_table *t, size_t i, char **out);
/**
 * The split's partition, decoded with t's partition keys: *keys / *values
 * (*n entries, the table's partition keys in order; both arrays freed with
 * paimon_string_list_free(x, *n)) with values in the canonical text of
 * the key's type (as predicate literals take them) and NULL for a null
 * value. Unpartitioned: *n = 0 and NULL arrays. PAIMON_ECORRUPT when the
 * split's partition does not fit t's keys (a split of another table).
 */
PAIMON_EXTERN(int) paimon_split_partition(const paimon_split *s, const paimon_table *t, char ***keys,
					  char ***values, size_t *n);
/** Bytes (versioned) for shipping to a reader. *bytes: paimon_free. */
PAIMON_EXTERN(int) paimon_split_serialize(const paimon_split *s, void **bytes, size_t *len);
PAIMON_EXTERN(int) paimon_split_deserialize(paimon_split **out, const void *bytes, size_t len);
/** Frees a deserialized split (never one borrowed from a plan). */
PAIMON_EXTERN(void) paimon_split_free(paimon_split *s);

/**
 * Reads the splits as one stream of batches with the builder's projection,
 * filter and limit; files written under older schemas are mapped to the
 * current one (renamed, added, dropped and widened columns). The splits
 * are copied: they may be freed once this returns. Errors during the
 * stream (a missing or corrupt data file) come from get_next, naming the
 * file.
 */
PAIMON_EXTERN(int) paimon_read_builder_read(paimon_read_builder *rb, const paimon_split *const *splits, size_t n,
					    struct ArrowArrayStream *out);
PAIMON_EXTERN(void) paimon_read_builder_free(paimon_read_builder *rb);

/* ------------------------------------------------------- orphan files */

/**
 * Orphan-file clean-up (Java's RemoveOrphanFiles): deletes the files under
 * the table directory that no snapshot, tag or changelog references (data
 * files, manifests, manifest lists, index and statistics files, hidden
 * temporaries left by crashed or failed writes and commits) and whose
 * modification time is strictly older than older_than_ms (epoch millis;
 * pass now - 1 day, Java's default, so that files a running writer has not
 * committed yet survive). schema/, snapshot-N, the EARLIEST/LATEST hints,
 * tag/, branch/, consumer/ and service/ are never touched. Data directories
 * the deletion leaves empty are removed too. dry_run != 0: nothing is
 * deleted, the files that would be are reported.
 *
 * If any snapshot, tag, manifest list or manifest cannot be read, nothing
 * is deleted and the error names that file. A failed delete stops at that
 * file (named in the error); files deleted before it stay deleted.
 *
 * Out-parameters may each be NULL. *paths / *count: the absolute paths
 * deleted (or that would be), sorted; free with
 * paimon_string_list_free(*paths, *count) (*paths is NULL when *count is
 * 0). *bytes: their total size. On failure *paths = NULL, *count = 0.
 */
PAIMON_EXTERN(int) paimon_table_remove_orphan_files(paimon_table *t, int64_t older_than_ms, int dry_run,
						    char ***paths, size_t *count, uint64_t *bytes);

/**
 * A consistency check: the names of the files some snapshot, tag or
 * changelog of t references (manifest lists, manifests, data and extra
 * files, index manifests and index files, statistics) that exist nowhere
 * under the table directory. A healthy table has none. *names / *count
 * (each may be NULL): sorted names, free with paimon_string_list_free. A
 * snapshot, tag, manifest list or manifest that cannot be read fails
 * naming it.
 */
PAIMON_EXTERN(int) paimon_table_find_missing_files(paimon_table *t, char ***names, size_t *count);

/* --------------------------------------------------- snapshot expiration */

/**
 * Expires old snapshots as Java Paimon's ExpireSnapshots does (spec
 * core-format §8.3): with latest L and earliest E, the snapshots from E up
 * to (not including) the first of min(L - snapshot.num-retained.min + 1,
 * the smallest nextSnapshot of the consumers, E + snapshot.expire.limit)
 * expire, stopping early at the first snapshot (from
 * L - snapshot.num-retained.max + 1 on) not older than
 * snapshot.time-retained. Their data files, manifests, manifest lists,
 * index and statistics files are deleted when no retained snapshot and no
 * tag still uses them; then the snapshot files; then snapshot/EARLIEST is
 * rewritten. A crash at any step leaves every retained snapshot and tag
 * readable; a rerun finishes the job.
 *
 * Options: the table's, overridden by opts (may be NULL):
 * snapshot.num-retained.min (10, >= 1), snapshot.num-retained.max
 * (unlimited), snapshot.time-retained (1 h; Java durations such as
 * "30 min", "2 h", "1 d"), snapshot.expire.limit (50),
 * snapshot.clean-empty-directories (false), consumer.changelog-only.
 * A bad value -> PAIMON_EINVAL naming it.
 *
 * dry_run != 0: nothing is deleted or written; the outputs tell what would
 * be. Out-parameters may each be NULL: *expired the number of snapshots
 * expired, *paths / *count the absolute paths deleted in order (free with
 * paimon_string_list_free), *bytes their total size.
 */
PAIMON_EXTERN(int) paimon_table_expire_snapshots(paimon_table *t, const paimon_options *opts, int dry_run,
						 int64_t *expired, char ***paths, size_t *count, uint64_t *bytes);

/**
 * Expires partitions as Java Paimon 1.4.2's PartitionExpire (its
 * expire_partitions procedure): partition.expiration-time (required, here
 * or in the table's options), partition.expiration-strategy (values-time:
 * the time in the partition values through partition.timestamp-pattern /
 * partition.timestamp-formatter; update-time: the newest file's creation),
 * partition.expiration-max-num (100), partition.expiration-batch-size. Each
 * batch is one OVERWRITE snapshot dropping the partitions. opts (may be
 * NULL) override the table's. dry_run != 0 commits nothing. *partitions /
 * *count (may be NULL): "k=v/k2=v2" of each partition expired (would be),
 * free with paimon_string_list_free. Commits also run this, as Java's do,
 * when partition.expiration-check-interval is 0 (or with
 * end-input.check-partition-expire on batch commits).
 */
PAIMON_EXTERN(int) paimon_table_expire_partitions(paimon_table *t, const paimon_options *opts, int dry_run,
						  char ***partitions, size_t *count);

/**
 * Rolls t back as Java Paimon's rollbackTo / pypaimon's rollback_to: to
 * the tag named tag (non-NULL), else to snapshot snapshot_id (which must
 * exist, or be named by a tag: then as to that tag; else PAIMON_ENOTFOUND
 * "Rollback snapshot 'N' doesn't exist."). The snapshots after it and the
 * tags of those snapshots are deleted (the LATEST hint is rewritten first,
 * so a crash part-way leaves a readable table and a rerun finishes). A tag
 * whose snapshot has expired is written back as that snapshot. Their data
 * and manifest files stay, for paimon_table_remove_orphan_files (as Java).
 * dry_run != 0 changes nothing. *paths / *count (each may be NULL): the
 * files deleted (would be), free with paimon_string_list_free.
 */
PAIMON_EXTERN(int) paimon_table_rollback_to(paimon_table *t, int64_t snapshot_id, const char *tag, int dry_run,
					    char ***paths, size_t *count);

/* -------------------------------------------------------------- branches */

/*
 * Branches as Java Paimon 1.4.2 keeps them: <table>/branch/branch-<name>/
 * with the branch's schema/, snapshot/ and tag/ files; manifests, index and
 * data files are shared with the table. A branch is read and written as
 * the table "db.t$branch_<name>" (also "db.t$branch_<name>$files" ...);
 * its commits never expire snapshots, and expiration, tag deletion and
 * orphan clean-up of the table keep every file a branch uses.
 * All of these take the main table (t opened as "db.t").
 */
/**
 * Creates branch `name` (not "main", not blank or only digits): from tag
 * `tag` (the tag, its snapshot, the schemas up to its schema: Java
 * createBranch(branch, tag)), else from snapshot snapshot_id > 0 (that
 * snapshot and its schemas), else empty with the table's schemas (Java
 * createBranch(branch)). An existing branch -> PAIMON_EEXISTS unless
 * ignore_if_exists.
 */
PAIMON_EXTERN(int) paimon_table_create_branch(paimon_table *t, const char *name, const char *tag, int64_t snapshot_id,
					      int ignore_if_exists);
/** Deletes the branch directory (Java dropBranch). */
PAIMON_EXTERN(int) paimon_table_drop_branch(paimon_table *t, const char *name, int ignore_if_not_exists);
/** Branch names, sorted; free with paimon_string_list_free. */
PAIMON_EXTERN(int) paimon_table_list_branches(paimon_table *t, char ***names, size_t *count);
PAIMON_EXTERN(int) paimon_table_rename_branch(paimon_table *t, const char *from, const char *to);
/**
 * Java fastForward: the table's snapshots and tags from the branch's
 * earliest snapshot on, its schemas from that snapshot's schema on and the
 * LATEST hint are deleted, then the branch's snapshot, schema and tag files
 * are copied over; the table then reads as the branch. A branch without a
 * snapshot -> PAIMON_EINVAL.
 */
PAIMON_EXTERN(int) paimon_table_fast_forward(paimon_table *t, const char *name);

/* ------------------------------------------------------------ compaction */

typedef struct paimon_compact_result {
	int64_t snapshot_id;        /* the COMPACT snapshot committed; -1: none */
	int64_t base_snapshot;      /* the snapshot planned on; -1: empty table */
	int64_t tasks;              /* groups of files merged (Java's compaction tasks) */
	int64_t files_before;       /* input files (replaced) */
	int64_t files_after;        /* files written (0 for a dry run) */
	int64_t bytes_before, bytes_after;
	int64_t rows;               /* rows rewritten */
} paimon_compact_result;

/**
 * Compacts an append table as Java Paimon 1.4's compact procedure does
 * (unaware-bucket tables: AppendCompactCoordinator's plan; fixed-bucket
 * tables: a full compaction of each bucket; data-evolution tables: see
 * below): small files of a partition /
 * bucket are rewritten into files of up to target-file-size, and one
 * COMPACT snapshot replaces them (the rows, their order within a task and
 * every other file stay). opts (may be NULL): options over the table's:
 * target-file-size, compaction.min.file-num, compaction.file-num-limit,
 * compaction.force-rewrite-all-files, source.split.open-file-cost, file.*
 * writer options, commit.* options, and "compaction.threads" (tasks
 * rewritten in parallel, default 1). partition_filter (may be NULL, borrowed):
 * a predicate on partition keys only; only the partitions it may match are
 * compacted. dry_run != 0 plans only. progress (may be NULL): input files
 * done of planned. Nothing to compact: success with snapshot_id -1. A
 * concurrent commit that removed an input -> PAIMON_ECONFLICT, nothing
 * committed. After a committed compaction the table's maintenance runs as
 * after any commit (snapshot expiration; its failure does not fail the
 * call). Data-evolution tables compact as Java 1.4.2's
 * DataEvolutionCompactCoordinator plans them: consecutive row-id groups
 * fold into one file each, row ids kept, .blob files untouched.
 * Primary-key tables, row-tracking tables without data evolution and
 * deletion-vector tables -> PAIMON_EUNSUPPORTED (not built yet).
 */
PAIMON_EXTERN(int) paimon_table_compact(paimon_table *t, const paimon_predicate *partition_filter,
					const paimon_options *opts, int dry_run, paimon_progress_fn progress,
					void *progress_ctx, paimon_compact_result *out);

/**
 * The plan paimon_table_compact would run now (same arguments): the input
 * file names in reading order, *n of them, and the task (0-based group) of
 * each. *files: free with paimon_string_list_free; *tasks with
 * paimon_free. Nothing to compact: *n 0 and NULL arrays.
 */
PAIMON_EXTERN(int) paimon_table_compact_plan(paimon_table *t, const paimon_predicate *partition_filter,
					     const paimon_options *opts, char ***files, int64_t **tasks, size_t *n);

/* ------------------------------------------- row-id groups and data files */

/*
 * Row-id planning for batch backfills of row-tracking tables (the base of
 * pypaimon's process_row_id_ranges). The live data files of a snapshot
 * with a first row id are merged into row-id groups: files whose inclusive
 * ranges [first_row_id, first_row_id + row_count - 1] overlap,
 * transitively (a base file with its partial-column files and BLOB /
 * vector sidecars), form one group that must be processed as a whole.
 * Touching ranges (one ends at r, the next starts at r + 1) are separate
 * groups. Groups span all partitions (row ids are table-wide), sorted by
 * first row id.
 *
 * Batches: groups in row-id order are added to the pending batch until its
 * row count reaches rows_per_batch, which closes it; the rest forms a last
 * batch. A batch may thus exceed rows_per_batch (groups are never cut).
 * Each batch is the list of its groups' inclusive ranges (one range per
 * group, not merged), ready for paimon_read_builder_with_row_ranges.
 */
typedef struct paimon_row_id_plan paimon_row_id_plan;

/**
 * Plans snapshot snapshot_id of t (< 0: the latest) into row-id groups and
 * batches of about rows_per_batch rows. PAIMON_EINVAL naming the table
 * when it lacks 'row-tracking.enabled' = 'true', when rows_per_batch <= 0,
 * or naming the data file when one has no first row id or no rows. A table
 * without snapshots gives an empty plan (snapshot id -1). The plan is a
 * copy: t may be freed before it.
 */
PAIMON_EXTERN(int) paimon_table_plan_row_id_ranges(paimon_table *t, int64_t snapshot_id, int64_t rows_per_batch,
						   paimon_row_id_plan **out);
/**
 * Every live data file of snapshot snapshot_id of t (< 0: the latest),
 * grouped by row id where they have a first row id (any table; files
 * without one, or without rows, are listed after the groups, in no group).
 * The plan has no batches.
 */
PAIMON_EXTERN(int) paimon_table_list_data_files(paimon_table *t, int64_t snapshot_id, paimon_row_id_plan **out);
/** Snapshot planned (-1: the table had none). */
PAIMON_EXTERN(int64_t) paimon_row_id_plan_snapshot_id(const paimon_row_id_plan *p);
PAIMON_EXTERN(size_t) paimon_row_id_plan_group_count(const paimon_row_id_plan *p);
/**
 * Group i: inclusive row ids *from .. *to and its files, file indexes
 * *first_file .. *first_file + *n_files - 1 (any out-parameter may be
 * NULL). PAIMON_EINVAL when i is out of range.
 */
PAIMON_EXTERN(int) paimon_row_id_plan_group(const paimon_row_id_plan *p, size_t i, int64_t *from, int64_t *to,
					    size_t *first_file, size_t *n_files);
PAIMON_EXTERN(size_t) paimon_row_id_plan_batch_count(const paimon_row_id_plan *p);
/**
 * Batch b (< batch_count): returns its number of ranges and points *pairs
 * (borrowed, lives as long as the plan) at them: inclusive
 * (*pairs)[2k] .. (*pairs)[2k + 1], sorted. 0 (and *pairs NULL) when b is
 * out of range.
 */
PAIMON_EXTERN(size_t) paimon_row_id_plan_batch(const paimon_row_id_plan *p, size_t b, const int64_t **pairs);

/** What paimon_row_id_plan_file tells about a data file. */
typedef struct paimon_data_file_info {
	const char *name;           /* borrowed */
	const char *partition;      /* "k1=v1, k2=v2" (null values as null); "" unpartitioned; borrowed */
	int32_t bucket;
	int32_t level;
	int64_t group;              /* index of its row-id group, -1: none */
	int64_t first_row_id;       /* -1: none */
	int64_t row_count;
	int64_t file_size;          /* bytes */
	int64_t schema_id;
	int64_t min_sequence_number;
	int64_t max_sequence_number;
	int has_write_cols;         /* 0: the file holds every column of its schema */
	const char *const *write_cols; /* n_write_cols names, borrowed */
	size_t n_write_cols;
	const char *external_path;  /* NULL when none; borrowed */
} paimon_data_file_info;

PAIMON_EXTERN(size_t) paimon_row_id_plan_file_count(const paimon_row_id_plan *p);
/** File i (< file_count; the groups' files first, group by group):
 * fills *info (strings borrowed from the plan). PAIMON_EINVAL out of range. */
PAIMON_EXTERN(int) paimon_row_id_plan_file(const paimon_row_id_plan *p, size_t i, paimon_data_file_info *info);
PAIMON_EXTERN(void) paimon_row_id_plan_free(paimon_row_id_plan *p);

#ifdef __cplusplus
}
#endif
#endif
