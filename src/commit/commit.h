/*
 * commit/commit.h - the commit protocol of append tables (spec core-format
 * §6) and commit messages.
 *
 * One commit = one snapshot: APPEND (new files) or OVERWRITE (DELETE
 * entries for every live file of the partitions being replaced, plus the
 * new files; see pm_table_committer_set_overwrite). Each attempt reads the latest snapshot, writes the
 * delta manifest(s) and delta manifest list, merges the previous data
 * manifests (minor merge of §6.6) into the base manifest list, and
 * publishes snapshot-<latest+1> with no-overwrite. A lost race
 * (PAIMON_EEXISTS) is retried on top of the new latest with exponential
 * backoff (commit.min-retry-wait 10 ms .. commit.max-retry-wait 10 s,
 * +20 % jitter) up to commit.max-retries (10, as Java) / commit.timeout;
 * before each retry the snapshots committed since the previous attempt
 * are checked for this (commitUser, commitIdentifier, commitKind), so a
 * commit whose outcome was uncertain is never applied twice. Files written
 * by an attempt that certainly lost are deleted (the delta manifest of an
 * APPEND without row tracking is reused across attempts).
 *
 * With an explicit commit.user and an identifier other than INT64_MAX,
 * the first attempt also skips commits already made: if the latest
 * snapshot of that user has an identifier >= ours, nothing is committed
 * (Java's filterCommitted).
 */
#ifndef PM_TABLE_COMMIT_H
#define PM_TABLE_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"

#define PM_COMMIT_BATCH_IDENTIFIER INT64_MAX

/* ---------------------------------------------------------- messages */

/* Commit message bytes: "PMCM", u32 LE version (1), then
 * pm_manifest_entries_encode of the ADD entries. */
#define PM_COMMIT_MESSAGE_VERSION 1
int pm_commit_message_encode(const pm_manifest_entry *entries, size_t n, pm_buf *out);
/* Appends the decoded entries to out; PAIMON_ECORRUPT for bad bytes. */
int pm_commit_message_decode(const void *data, size_t len, pm_manifest_entry_list *out);

/* ---------------------------------------------------------- committer */

typedef struct pm_table_committer pm_table_committer;

/*
 * A committer for the table at table_path with schema s (copied; used for
 * partition keys and options). opts (may be NULL): commit.user,
 * commit.max-retries, commit.timeout (ms), commit.min-retry-wait,
 * commit.max-retry-wait (ms), commit.sync-data-files (paimonc's own,
 * default true: one FileIO sync before a snapshot references new data
 * files, so they survive a power cut; false trades that for speed as Java
 * and pypaimon do on local disks), plus table option overrides.
 */
int pm_table_committer_new(pm_fileio *io, const char *table_path, const pm_table_schema *s,
			   const pm_strmap *opts, pm_table_committer **out);
const char *pm_table_committer_user(const pm_table_committer *c);
/*
 * The next commit is an OVERWRITE (INSERT OVERWRITE), with Java
 * FileStoreCommitImpl.overwritePartition's rules (pypaimon's alike):
 *  - partitioned table and option dynamic-partition-overwrite true (the
 *    default): the static partition is ignored; exactly the partitions the
 *    new files lie in are replaced, the others are kept. No new files ->
 *    nothing is committed (snapshot -1).
 *  - otherwise (option false, or an unpartitioned table): the partitions
 *    matching the static spec are replaced - partition NULL or empty: the
 *    whole table; a spec may name only some of the partition keys (then
 *    every partition with those values). Each new file must lie inside the
 *    spec (PAIMON_EINVAL, nothing committed). An OVERWRITE snapshot is
 *    committed even without new files or matching old ones.
 * partition: key -> canonical text (types/datum.h), the table's
 * partition.default-name for null. Unknown keys / bad values ->
 * PAIMON_EINVAL here, in both modes.
 */
int pm_table_committer_set_overwrite(pm_table_committer *c, const pm_strmap *partition);
/*
 * TRUNCATE TABLE (Java truncateTable / pypaimon truncate_table): an
 * OVERWRITE snapshot deleting every live file, whatever the overwrite
 * mode; committed even for an empty table (as Java). Clears a pending
 * set_overwrite.
 */
int pm_table_committer_truncate(pm_table_committer *c, int64_t identifier, int64_t *snapshot_id);
/*
 * Commits the ADD entries. *snapshot_id (may be NULL): the new snapshot,
 * the snapshot that already holds this commit (dedup), or -1 when nothing
 * was committed. A data file that does not exist -> PAIMON_ENOTFOUND
 * naming it, nothing committed. Out of retries -> PAIMON_ECONFLICT.
 * The overwrite setting is consumed by the call.
 */
int pm_table_committer_commit(pm_table_committer *c, const pm_manifest_entry *adds, size_t n,
			      int64_t identifier, int64_t *snapshot_id);
/* Deletes the data files of entries that will not be committed. */
int pm_table_committer_abort(pm_table_committer *c, const pm_manifest_entry *files, size_t n);
void pm_table_committer_free(pm_table_committer *c);

/* Counters of the last commit call (tests, diagnostics). */
typedef struct pm_commit_stats {
	int attempts;              /* snapshot publish attempts */
	int deduplicated;          /* 1: found already committed */
	size_t manifests_merged;   /* manifests replaced by the minor merge */
	size_t files_deleted;      /* OVERWRITE: live files deleted by the last attempt */
	int overwrite_skipped;     /* 1: dynamic overwrite without new files (no-op) */
} pm_commit_stats;
void pm_table_committer_last_stats(const pm_table_committer *c, pm_commit_stats *out);

#endif
