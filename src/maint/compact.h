/*
 * maint/compact.h - compaction of append tables as Java Paimon 1.4.2's
 * compact procedures do it: small files of a partition / bucket merged
 * into larger ones, committed as one COMPACT snapshot.
 *
 * Which files (the plan):
 *  - unaware-bucket tables (bucket -1; Java AppendCompactCoordinator in
 *    batch mode): the live files smaller than compaction file size
 *    (target-file-size / 10 * 7; target-file-size defaults to 256 MiB),
 *    at most compaction.file-num-limit (100,000) of them in manifest
 *    order, grouped by partition. Per partition they are sorted by file
 *    size (ties by name) and packed into bins: each file adds its size +
 *    source.split.open-file-cost (4 MiB); a bin of >= 2 files whose total
 *    reaches 2 * target-file-size is one task; what is left is one more
 *    task when it has >= compaction.min.file-num (5) files.
 *  - fixed-bucket tables (bucket N > 0; Java BucketedAppendCompactManager
 *    full compaction): per (partition, bucket) the files in sequence
 *    number order; leading files of at least compaction file size are
 *    left alone; the rest is one task when compaction.force-rewrite-all-
 *    files is true, or when it has >= 3 files and more small than large
 *    ones.
 *  - data-evolution tables (Java 1.4.2 DataEvolutionCompactCoordinator,
 *    as its Spark compact procedure runs it: no blob or vector-file
 *    compaction): per partition, files chained by touching row-id ranges;
 *    in a chain, row-id groups packed in row-id order while their weight
 *    (sum of max(size, open cost)) stays within target-file-size, a
 *    heavier group alone; a pack of >= compaction.min.file-num files is a
 *    task. It reads the merged rows of its groups (the columns not in
 *    .blob / .vector.* files) and writes ONE file from the pack's first
 *    row id (row ids kept; _WRITE_COLS those columns, or none when that is
 *    all of them), sequence numbers the inputs' min and max, file source
 *    APPEND as Java 1.4.2 writes it. .blob and vector files stay. The
 *    commit also fails (PAIMON_ECONFLICT) when a concurrent update left
 *    a row-id group with files of different ranges (Java
 *    checkRowIdRangeConflicts).
 * An append task's files are read in that order (schema evolution applied: the
 * new files have the current schema) and written through the table
 * writer into files rolled at target-file-size in the same partition and
 * bucket, with file source COMPACT and sequence numbers counted from the
 * first input file's minimum, as Java's compactRewrite does. All tasks
 * commit together: the inputs as DELETE entries and the outputs as ADD
 * entries of one COMPACT snapshot, which fails with PAIMON_ECONFLICT when
 * a concurrent commit removed an input (the outputs are then deleted).
 *
 * Crash safety: nothing a reader sees changes before the snapshot is
 * published; a crash leaves only unreferenced new files (for
 * remove-orphan-files), and a rerun plans and compacts again.
 *
 * Not yet (PAIMON_EUNSUPPORTED naming the table and the reason):
 * primary-key tables, tables with row tracking but no data evolution
 * (Java writes _ROW_ID / _SEQUENCE_NUMBER into compacted files) and
 * tables with deletion vectors. Java plans data-evolution tables in
 * batches of 100,000 files with a commit each; this plans all at once.
 */
#ifndef PM_MAINT_COMPACT_H
#define PM_MAINT_COMPACT_H

#include <stddef.h>
#include <stdint.h>
#include "core/strs.h"
#include "io/fileio.h"
#include "meta/schema.h"

typedef struct pm_compact_opts {
	/* Option overrides over the table's (compaction.*, target-file-size,
	 * source.split.open-file-cost, file.* writer options, commit.*);
	 * may be NULL. */
	const pm_strmap *options;
	/* Only partitions this selects are compacted (NULL: all): 1 yes,
	 * 0 no, < 0 an error (returned). p: the serialized partition. */
	int (*partition_selected)(void *ctx, const uint8_t *p, size_t n);
	void *partition_ctx;
	int dry_run;                      /* plan only */
	int want_plan;                    /* fill pm_compact_result.plan_* */
	int threads;                      /* tasks rewritten at once; <= 0: 1 */
	/* Progress (may be NULL): input files rewritten so far of all planned,
	 * from the thread that finished a task. */
	void (*progress)(void *ctx, int64_t done, int64_t total);
	void *progress_ctx;
} pm_compact_opts;

typedef struct pm_compact_result {
	int64_t snapshot_id;              /* the COMPACT snapshot; -1: none */
	int64_t base_snapshot;            /* the snapshot planned on; -1: empty table */
	int64_t tasks;
	int64_t files_before, files_after; /* inputs deleted, outputs added */
	int64_t bytes_before, bytes_after;
	int64_t rows;                     /* rows rewritten */
	/* The plan, when pm_compact_opts.want_plan: the input file names task
	 * by task, in reading order (owned), and the task of each (pm_free). */
	pm_strlist plan_files;
	int64_t *plan_tasks;
} pm_compact_result;

void pm_compact_result_dispose(pm_compact_result *r);

/*
 * Plans and (unless dry_run) runs a compaction of the table at table_path
 * with current schema s (borrowed). *out is filled also for a dry run
 * (files_after 0). Nothing to compact: snapshot_id -1 and success.
 */
int pm_table_compact(pm_fileio *io, const char *table_path, const pm_table_schema *s, const pm_compact_opts *o,
		     pm_compact_result *out);

#endif
