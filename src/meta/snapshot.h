/*
 * meta/snapshot.h - snapshot JSON files, LATEST/EARLIEST hints and tags
 * (spec core-format §3 and §8.2).
 *
 * Ownership: pm_snapshot* returned through out-parameters belong to the
 * caller; free with pm_snapshot_free.
 */
#ifndef PM_META_SNAPSHOT_H
#define PM_META_SNAPSHOT_H

#include <stdint.h>
#include "core/strs.h"
#include "io/fileio.h"

#define PM_SNAPSHOT_VERSION 3

typedef struct pm_snapshot {
	int version;
	char *uuid;                          /* NULL when absent */
	int64_t id;
	int64_t schema_id;
	char *base_manifest_list;
	int has_base_manifest_list_size;
	int64_t base_manifest_list_size;
	char *delta_manifest_list;
	int has_delta_manifest_list_size;
	int64_t delta_manifest_list_size;
	char *changelog_manifest_list;       /* NULL when absent */
	int has_changelog_manifest_list_size;
	int64_t changelog_manifest_list_size;
	char *index_manifest;                /* NULL when absent */
	char *commit_user;                   /* may be NULL (written as null) */
	char *writer_version;                /* NULL when absent */
	int64_t commit_identifier;
	char *commit_kind;                   /* APPEND, COMPACT, OVERWRITE, ANALYZE */
	int64_t time_millis;
	int64_t total_record_count;
	int64_t delta_record_count;
	int has_changelog_record_count;
	int64_t changelog_record_count;
	int has_watermark;
	int64_t watermark;
	char *statistics;                    /* NULL when absent */
	int has_properties;
	pm_strmap properties;
	int has_next_row_id;
	int64_t next_row_id;
	char *operation;                     /* NULL when absent */
	/* Tag files only: raw JSON of the two retention keys, kept verbatim. */
	char *tag_create_time_json;          /* NULL when absent */
	char *tag_time_retained_json;        /* NULL when absent */
} pm_snapshot;

void pm_snapshot_free(pm_snapshot *s);
int pm_snapshot_copy(const pm_snapshot *src, pm_snapshot **out);
/* 1 if equal in every field (properties in order). */
int pm_snapshot_equal(const pm_snapshot *a, const pm_snapshot *b);
/* Reads snapshot (or tag/changelog) JSON: unknown and legacy keys (logOffsets)
 * ignored, explicit nulls for optional keys tolerated. */
int pm_snapshot_from_json(const char *what, const char *text, size_t len, pm_snapshot **out);
/* Writes the JSON exactly as Java does (field order, omitted nulls). */
int pm_snapshot_to_json(const pm_snapshot *s, pm_buf *out);

/* ------------------------------------------------------ snapshot manager */

/* Path of <table>/snapshot/snapshot-<id> (free with pm_free). */
char *pm_snapshot_path(const char *table_path, int64_t id);
/* Existing snapshot ids (names snapshot-<digits>), ascending; *ids: pm_free. */
int pm_snapshot_list_ids(pm_fileio *io, const char *table_path, int64_t **ids, size_t *count);
/* Latest id: LATEST hint h is trusted when snapshot-h exists and snapshot-(h+1)
 * does not; otherwise the directory is listed. *found = 0 for no snapshots. */
int pm_snapshot_latest_id(pm_fileio *io, const char *table_path, int64_t *id, int *found);
/* Earliest id: EARLIEST hint if snapshot-e exists, else the listed minimum. */
int pm_snapshot_earliest_id(pm_fileio *io, const char *table_path, int64_t *id, int *found);
/* PAIMON_ENOTFOUND (naming the file) when missing, PAIMON_ECORRUPT when malformed. */
int pm_snapshot_load(pm_fileio *io, const char *table_path, int64_t id, pm_snapshot **out);
/* Publishes snapshot-<s->id> with no-overwrite (PAIMON_EEXISTS if another writer
 * won), then rewrites the LATEST hint (best effort: a hint failure is not an
 * error, the snapshot is committed). */
int pm_snapshot_commit(pm_fileio *io, const char *table_path, const pm_snapshot *s);
/* Writes a hint file ("LATEST" or "EARLIEST") with the decimal id, no newline. */
int pm_snapshot_write_hint(pm_fileio *io, const char *table_path, const char *hint, int64_t id);

/* ------------------------------------------------------------------ tags */

/* Tag names must be non-blank, contain no '/' or NUL and not be "." / "..". */
int pm_tag_validate_name(const char *name);
/* Writes <table>/tag/tag-<name> with the snapshot JSON. PAIMON_EEXISTS when the
 * tag exists and !ignore_if_exists. */
int pm_tag_create(pm_fileio *io, const char *table_path, const char *name, const pm_snapshot *s, int ignore_if_exists);
/* Deletes the tag file only (never data, as pypaimon). */
int pm_tag_delete(pm_fileio *io, const char *table_path, const char *name, int ignore_if_not_exists);
int pm_tag_exists(pm_fileio *io, const char *table_path, const char *name, int *exists);
/* Sorted names; names: free with pm_strlist_dispose. */
int pm_tag_list(pm_fileio *io, const char *table_path, pm_strlist *names);
int pm_tag_load(pm_fileio *io, const char *table_path, const char *name, pm_snapshot **out);

#endif
