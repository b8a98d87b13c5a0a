/*
 * api/api_expire.h - the maintenance a commit runs once it has published a
 * new snapshot (Java TableCommitImpl.maintain): unless option write-only is
 * true, partitions expire by the partition.expiration-* options
 * (maint/partition_expire.h) when Java's commit would check them (a check
 * interval of 0, or end-input.check-partition-expire on a batch commit:
 * identifier INT64_MAX; a fresh Java committer otherwise waits for the
 * interval), then consumer files older than consumer.expiration-time are
 * deleted, then snapshots expire by the snapshot.* options
 * (maint/expire.h).
 * s: the committer's schema (table options with the commit's overrides).
 * A failure here never undoes the commit: callers report it separately.
 */
#ifndef PM_API_EXPIRE_H
#define PM_API_EXPIRE_H

#include "io/fileio.h"
#include "meta/schema.h"

int pm_api_maintain(pm_fileio *io, const char *table_path, const pm_table_schema *s, int64_t identifier);

#endif
