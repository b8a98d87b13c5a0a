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

/*
 * What one commit carries (all borrowed by the calls below):
 *  - adds: new data files (kind ADD). On row-tracking tables a file whose
 *    first_row_id is preset (an update of existing rows) keeps it; the
 *    others get row ids at commit (see pm_row_tracking_assign);
 *  - index: index-file changes (kind ADD or DELETE), e.g. the
 *    DELETION_VECTORS index file a delete writes (ADD) and the one it
 *    replaces (DELETE);
 *  - check_from_snapshot: the snapshot an update or delete was planned on
 *    (Java rowIdCheckConflict, pypaimon CommitMessage.check_from_snapshot);
 *    -1: none. Conflicts with what was committed since are checked.
 */
typedef struct pm_commit_batch {
	const pm_manifest_entry *adds;
	size_t n_adds;
	const pm_index_manifest_entry *index;
	size_t n_index;
	int64_t check_from_snapshot;
	/* A compaction (Java CompactIncrement): `deletes` are the live files
	 * compacted (compactBefore; their entries as the latest snapshot lists
	 * them, any kind: they are written as DELETE), `adds` the files
	 * written from them (compactAfter, file source COMPACT). The snapshot
	 * is a COMPACT one; every file of `deletes` must still be live in the
	 * latest snapshot at each attempt, else PAIMON_ECONFLICT "File
	 * deletion conflicts detected" and nothing is committed (no retry, as
	 * Java's compaction jobs fail). compact = 0: deletes must be empty. */
	int compact;
	const pm_manifest_entry *deletes;
	size_t n_deletes;
} pm_commit_batch;

/*
 * Commit message bytes: "PMCM", u32 LE version, then
 *  version 1: pm_manifest_entries_encode of the ADD entries;
 *  version 2: i64 LE check_from_snapshot (-1 none), u64 LE length + the
 *             pm_manifest_entries_encode of the ADD entries, u64 LE length +
 *             pm_index_manifest_entries_encode of the index changes, nothing
 *             after.
 * A message with no index changes and no check_from_snapshot is written as
 * version 1 (what older paimonc versions read); both versions are decoded.
 */
#define PM_COMMIT_MESSAGE_VERSION 2
int pm_commit_message_encode(const pm_manifest_entry *entries, size_t n, pm_buf *out);
int pm_commit_message_encode_batch(const pm_commit_batch *b, pm_buf *out);
/* Appends the decoded entries to out; PAIMON_ECORRUPT for bad bytes and
 * for a message with index changes or a base snapshot (use
 * pm_commit_message_decode_batch for those). */
int pm_commit_message_decode(const void *data, size_t len, pm_manifest_entry_list *out);
/* Appends the data files to adds and the index changes to index (both
 * owned by the caller; on failure nothing is appended); *check_from gets
 * the base snapshot (-1 none). PAIMON_ECORRUPT for bad bytes: data entries
 * must be ADDs of named files, index entries ADD/DELETE with a type and a
 * name, check_from >= -1. */
int pm_commit_message_decode_batch(const void *data, size_t len, pm_manifest_entry_list *adds,
				   pm_index_manifest_entry_list *index, int64_t *check_from);

/* ------------------------------------------------------- row tracking */

/*
 * Java RowTrackingCommitUtils.assignRowTracking over the delta entries l of
 * snapshot snapshot_id (spec ai-format §2.3), in place:
 *  0. group_by_partition (option row-tracking.partition-group-on-commit,
 *     default true): entries are regrouped by partition, partitions in
 *     order of first appearance (as pypaimon), entries in order inside one;
 *  1. sequence numbers: min_seq == 0 -> min = max = snapshot_id; else
 *     max_seq == 0 -> max = snapshot_id; else kept;
 *  2. row ids, for entries with file_source APPEND, no first_row_id and
 *     _WRITE_COLS without _ROW_ID: a normal file gets `start` (then start +=
 *     rows, blob starts reset); a blob file (name ends in .blob, field =
 *     _WRITE_COLS[0]) gets that field's blob start (default: the last normal
 *     file's start), which must be < start; a vector file (name contains
 *     ".vector.") gets the vector start (never reset), which must be < start.
 *     Other entries are left alone.
 * *next_row_id: start after the walk. PAIMON_EINVAL naming the file for an
 * entry without file source, a blob file without _WRITE_COLS, or a blob or
 * vector file not preceded by the normal file it belongs to.
 */
int pm_row_tracking_assign(pm_manifest_entry_list *l, int group_by_partition, int64_t snapshot_id,
			   int64_t first_row_id_start, int64_t *next_row_id);
/* File classes of spec ai-format §1.6: pm_file_is_blob / pm_file_is_vector (meta/manifest.h). */

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
/* The schema the committer uses: the table's, with the override options
 * merged in (borrowed; lives as long as c). */
const pm_table_schema *pm_table_committer_schema(const pm_table_committer *c);
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
 * Java FileStoreCommit.dropPartitions: one OVERWRITE snapshot deleting every
 * live file (and index file) of exactly the serialized partitions
 * parts[0..n) (borrowed); committed even when none of them holds a file.
 * n == 0: nothing (snapshot -1).
 */
int pm_table_committer_drop_partitions(pm_table_committer *c, const pm_bytes *parts, size_t n, int64_t identifier,
				       int64_t *snapshot_id);
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
 * Same as pm_table_committer_commit_batch with no index changes and no base
 * snapshot.
 */
int pm_table_committer_commit(pm_table_committer *c, const pm_manifest_entry *adds, size_t n,
			      int64_t identifier, int64_t *snapshot_id);
/*
 * Commits a batch (borrowed). Beyond pm_table_committer_commit:
 *  - commit kind (Java FileStoreCommitImpl.commit / pypaimon commit): OVERWRITE
 *    when set_overwrite/truncate was called or the batch changes a
 *    DELETION_VECTORS index file (a delete), else APPEND (an update by row
 *    id is an APPEND). deltaRecordCount = rows of the added files (all of
 *    them: blob, vector and update files count) - rows of deleted files; a
 *    delete (index changes only) has 0;
 *  - index changes: the new snapshot's index manifest = the latest one's
 *    entries minus the DELETEd files plus the ADDed ones (Java
 *    IndexManifestFileHandler; an OVERWRITE also deletes every index file of
 *    the partitions it replaces, as Java's OverwriteChangesProvider);
 *    without changes the latest index manifest is carried over. An ADDed
 *    index file must exist (PAIMON_ENOTFOUND);
 *  - conflict detection (Java ConflictDetection/DataEvolutionConflictDetection)
 *    against the latest snapshot on every attempt, when the commit is an
 *    OVERWRITE, has a base snapshot or adds a global index: a file already
 *    live, deletion-vector changes raced by another commit, a row-id file
 *    whose range no longer exists, concurrent writes of the same columns
 *    of the same rows since check_from_snapshot... -> PAIMON_ECONFLICT with
 *    the reason, nothing committed (no retry: the update must be planned
 *    again, as Java). A lost race for the snapshot id is retried as before,
 *    with the checks run again against the new latest snapshot.
 */
int pm_table_committer_commit_batch(pm_table_committer *c, const pm_commit_batch *b, int64_t identifier,
				    int64_t *snapshot_id);
/* Deletes the data files and ADDed index files of a batch that will not be
 * committed. */
int pm_table_committer_abort_batch(pm_table_committer *c, const pm_commit_batch *b);
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
