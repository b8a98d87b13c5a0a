/*
 * table/commit.h - the commit protocol of append tables (spec core-format
 * §6) and commit messages.
 *
 * One commit = one snapshot: APPEND (new files) or OVERWRITE (DELETE
 * entries for every live file of the whole table or of one partition,
 * plus the new files). Each attempt reads the latest snapshot, writes the
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
 * commit.max-retry-wait (ms), plus table option overrides.
 */
int pm_table_committer_new(pm_fileio *io, const char *table_path, const pm_table_schema *s,
			   const pm_strmap *opts, pm_table_committer **out);
const char *pm_table_committer_user(const pm_table_committer *c);
/* The next commit is an OVERWRITE of the whole table (partition NULL) or
 * of the partition given as key -> canonical text (all partition keys). */
int pm_table_committer_set_overwrite(pm_table_committer *c, const pm_strmap *partition);
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
} pm_commit_stats;
void pm_table_committer_last_stats(const pm_table_committer *c, pm_commit_stats *out);

#endif
