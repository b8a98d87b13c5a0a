/*
 * orphan/orphan.h - finding and removing orphan files: files under a table
 * directory that no snapshot, tag or schema references, left behind by
 * crashed or failed writes and commits (as Java's RemoveOrphanFiles action).
 *
 * Referenced: every file reachable from any snapshot still present
 * (snapshot/snapshot-N) or any tag (tag/tag-NAME): its base, delta and
 * changelog manifest lists, the manifests they name, the data files (and
 * their extra files) of every entry of those manifests, the index manifest
 * and the index files it names, statistics files. Never orphans, whatever
 * their age: the schema files and tags (in schema/ and tag/ only hidden
 * temporaries ".<name>.<random>.tmp" of a crashed publish are candidates),
 * snapshot/snapshot-N, snapshot/EARLIEST|LATEST, anything under branch/,
 * consumer/ or service/.
 * Candidates: every other regular file in the table directory tree
 * (data directories, manifest/, index/, statistics/, hidden temporaries
 * such as snapshot/.snapshot-7.<random>.tmp) that is not referenced and whose
 * modification time is strictly older than older_than_ms (epoch millis).
 * That guard protects files a running writer has written but not yet
 * committed: callers pass now - 1 day by default (Java's default).
 *
 * If any snapshot, tag, manifest list or manifest cannot be read, nothing
 * is reported or deleted: the error names the file (a half-read reference
 * set would make live files look orphaned).
 */
#ifndef PM_TABLE_ORPHAN_H
#define PM_TABLE_ORPHAN_H

#include <stdint.h>
#include "core/strs.h"
#include "io/fileio.h"

typedef struct pm_orphan_list {
	pm_strlist paths; /* absolute paths, sorted */
	uint64_t bytes;   /* total size of the files listed */
} pm_orphan_list;

void pm_orphan_list_dispose(pm_orphan_list *l);

/* Fills out (initialised by the caller to zero) with the orphan candidates
 * of the table at table_path. Deletes nothing. */
int pm_table_find_orphans(pm_fileio *io, const char *table_path, int64_t older_than_ms, pm_orphan_list *out);

/* Finds the orphans as above and deletes them unless dry_run (then directories
 * left empty by the deletion under data partitions are removed too). out (may
 * be NULL) receives what was (or would be) deleted. A failed delete stops
 * and names the file; what was deleted before stays deleted. */
int pm_table_remove_orphans(pm_fileio *io, const char *table_path, int64_t older_than_ms, int dry_run,
			    pm_orphan_list *out);

/* The names of the files that some snapshot, tag or changelog needs (its
 * manifest lists and manifests, the data files live in it with their extra
 * files, its changelog files, index manifest and index files, statistics)
 * but that exist nowhere under the table directory, sorted into
 * missing (appended). A consistency check: a healthy table has none. A
 * manifest list or manifest that cannot be read fails with its name. */
int pm_table_find_missing(pm_fileio *io, const char *table_path, pm_strlist *missing);

#endif
