/*
 * maint/expire.h - snapshot expiration as Java Paimon 1.4 does it
 * (ExpireSnapshotsImpl, SnapshotDeletion, FileDeletionBase; spec
 * core-format §8.3), and the consumer files it honours.
 *
 * Which snapshots expire: with latest L and earliest E,
 *   min          = max(L - retain_max + 1, E)
 *   max_excl     = min(L - retain_min + 1, min consumer nextSnapshot,
 *                      E + max_deletes)
 * and the first snapshot in [min, max_excl) whose timeMillis is not older
 * than now - time_retained ends the range early (Java 1.4.2 tests the
 * snapshot itself; later Java versions test its successor). Snapshots
 * [E, end) expire and end becomes the earliest.
 *
 * What is deleted, in this order (each step only after the previous one,
 * so that a crash at any point leaves every retained snapshot and tag
 * readable and a rerun finishes the job):
 *  1. data files (and their extra files) DELETEd by the delta of each
 *     snapshot in (E, end] and not re-ADDed in it, unless the newest tag
 *     older than that snapshot still holds them (same partition, bucket,
 *     name). A snapshot whose delta cannot be read deletes nothing.
 *  2. files ADDed by the changelog manifests of the expiring snapshots.
 *  3. empty bucket/partition directories (snapshot.clean-empty-directories).
 *  4. the manifest lists, manifests, index manifests, index files and
 *     statistics files of the expiring snapshots, except those of snapshot
 *     end and of the tags in [the tag at or before E, the tag before end)
 *     (snapshot end gone: steps 4-6 are skipped).
 *  5. snapshot/snapshot-<id> of the expiring snapshots, ascending.
 *  6. snapshot/EARLIEST = end. Nothing to expire: EARLIEST is written
 *     when it is missing.
 * Decoupled changelog lifecycles (changelog.num-retained.* or
 * changelog.time-retained longer than the snapshot ones) are refused.
 */
#ifndef PM_MAINT_EXPIRE_H
#define PM_MAINT_EXPIRE_H

#include <stdint.h>
#include "core/strs.h"
#include "io/fileio.h"
#include "meta/schema.h"

typedef struct pm_expire_config {
	int32_t retain_min;       /* snapshot.num-retained.min (10), >= 1 */
	int32_t retain_max;       /* snapshot.num-retained.max (INT32_MAX), >= retain_min */
	int64_t time_retained_ms; /* snapshot.time-retained (1 h) */
	int32_t max_deletes;      /* snapshot.expire.limit (50), >= 1 */
	int clean_empty_dirs;     /* snapshot.clean-empty-directories (false) */
	int consumer_changelog_only; /* consumer.changelog-only (false): consumers do not hold snapshots */
} pm_expire_config;

/* Java's defaults, then the options (may be NULL). PAIMON_EINVAL names a bad
 * option or a decoupled changelog lifecycle. */
int pm_expire_config_from_options(const pm_strmap *opts, pm_expire_config *out);

typedef struct pm_expire_result {
	int64_t latest;           /* -1: no snapshot */
	int64_t earliest_before;  /* -1: no snapshot */
	int64_t earliest_after;   /* the new earliest (= earliest_before when none expired) */
	int64_t expired;          /* snapshots expired (would be, in a dry run) */
	pm_strlist deleted;       /* absolute paths of the files deleted (would be), in order */
	uint64_t bytes;           /* their total size */
} pm_expire_result;

void pm_expire_result_dispose(pm_expire_result *r);

/*
 * Expires snapshots of the table whose data files, manifests and index
 * files live under table_path and whose snapshot/, tag/ and consumer/
 * directories live under meta_path (the same path for the main branch,
 * <table>/branch/branch-<b> for a branch). schema: the table's latest
 * schema (partition keys and data-file options). now_ms: the current
 * time (epoch millis). dry_run: nothing is deleted or written; out tells
 * what would be. out (zeroed by the caller) receives the result.
 */
int pm_table_expire_snapshots(pm_fileio *io, const char *table_path, const char *meta_path,
			      const pm_table_schema *schema, const pm_expire_config *cfg, int64_t now_ms, int dry_run,
			      pm_expire_result *out);

/*
 * Deletes tag `name` as Java's TagManager.deleteTag does: when its snapshot
 * still exists only the tag file goes; otherwise (and when no other tag
 * names the same snapshot) the files only the tag kept alive are deleted
 * too: its live data files, manifest lists, manifests, index files and
 * statistics, except what the left neighbour tag and the nearer of the
 * earliest snapshot and the right neighbour tag use. out (zeroed, may not
 * be NULL) receives the files deleted. PAIMON_ENOTFOUND when the tag does
 * not exist, unless ignore_if_not_exists.
 */
int pm_table_delete_tag(pm_fileio *io, const char *table_path, const char *meta_path, const pm_table_schema *schema,
			const char *name, int ignore_if_not_exists, pm_expire_result *out);

/* ------------------------------------------------------------ consumers */

/* The smallest nextSnapshot of the consumer files <meta>/consumer/consumer-<id>
 * (Java ConsumerManager.minNextSnapshot); *found = 0 when there are none.
 * A consumer file that is not valid JSON with a nextSnapshot -> PAIMON_ECORRUPT
 * naming it. */
int pm_consumer_min_next_snapshot(pm_fileio *io, const char *meta_path, int64_t *next, int *found);
/* Writes <meta>/consumer/consumer-<id> = {"nextSnapshot" : next} as Java does. */
int pm_consumer_write(pm_fileio *io, const char *meta_path, const char *consumer_id, int64_t next);
/* Reads one consumer; *found = 0 when it does not exist. */
int pm_consumer_read(pm_fileio *io, const char *meta_path, const char *consumer_id, int64_t *next, int *found);
/* Deletes consumer files last modified before older_than_ms (Java
 * ConsumerManager.expire, option consumer.expiration-time). */
int pm_consumer_expire(pm_fileio *io, const char *meta_path, int64_t older_than_ms);

#endif
