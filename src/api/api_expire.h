/*
 * api/api_expire.h - the maintenance a commit runs once it has published a
 * new snapshot (Java TableCommitImpl.maintain): unless option write-only is
 * true, consumer files older than consumer.expiration-time are deleted,
 * then snapshots expire by the snapshot.* options (maint/expire.h).
 * s: the committer's schema (table options with the commit's overrides).
 * A failure here never undoes the commit: callers report it separately.
 */
#ifndef PM_API_EXPIRE_H
#define PM_API_EXPIRE_H

#include "io/fileio.h"
#include "meta/schema.h"

int pm_api_maintain(pm_fileio *io, const char *table_path, const pm_table_schema *s);

#endif
