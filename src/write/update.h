/*
 * write/update.h - updates of data-evolution tables by row id (pypaimon's
 * TableUpdateByRowId, spec ai-format §3.3, §3.5): new values for some
 * columns of some rows, named by _ROW_ID, written as one new data file per
 * touched file group holding only the updated columns for the group's
 * whole row range (unchanged rows carry their current values), with the
 * group's first_row_id preset. Nothing else is rewritten; the read merges
 * per column the newest file of the group.
 *
 * Planning is done once, on the latest snapshot, when the updater is made:
 * the groups are the normal data files (not .blob, not .vector.*) merged
 * by overlapping row-id ranges, per partition. Input rows carry _ROW_ID
 * (BIGINT, no nulls) and the update columns, in the Arrow types a read
 * gives them (pm_type_to_arrow). Rows are routed to their group by binary
 * search; a row id outside every group of the snapshot, or the same row
 * id twice in one update, is PAIMON_EINVAL naming it and the table. A
 * group every row of which is updated is written from the input alone;
 * otherwise the current values of the update columns are read (a
 * data-evolution read of that group) and the new values spliced in.
 *
 * BLOB columns (also ARRAY<BLOB> / MAP<K, BLOB>) become .blob delta files
 * (docs/blob-layout.md §4.1, §9.2); a value that is a serialized
 * BlobDescriptor has the bytes it references copied. VECTOR columns of a
 * dedicated vector store (vector.file.format) go to one whole-group
 * .vector.* file per touched group, the only file when no other data
 * column is updated; it always holds every VECTOR column of the table (the
 * ones not updated keep their current values), so the group's vector files
 * keep one set of write columns (§9.3).
 *
 * Refused (PAIMON_EINVAL naming the table and column): tables without
 * row-tracking.enabled and data-evolution.enabled, primary-key tables,
 * unknown columns, partition columns, _ROW_ID / _SEQUENCE_NUMBER; nested
 * BLOB types that cannot be written (PAIMON_EUNSUPPORTED).
 *
 * Ownership: the schema and options are copied; batches given to
 * pm_row_id_update_add are moved into the updater (released by it).
 */
#ifndef PM_WRITE_UPDATE_H
#define PM_WRITE_UPDATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/strs.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "paimonc/arrow_c.h"

/* ------------------------------------------------------- row-id groups */

/* A row-id group: normal data files with the same row-id range. */
typedef struct pm_rowid_group {
	int64_t start, count;            /* rows [start, start + count) */
	pm_manifest_entry_list files;    /* its normal data files (copies) */
	pm_manifest_entry_list companions; /* its .blob / .vector. files (copies) */
} pm_rowid_group;

typedef struct pm_rowid_groups {
	pm_rowid_group *items;           /* ascending by start, disjoint */
	size_t len;
	int64_t snapshot_id;             /* planned snapshot, -1: empty table */
	char *index_manifest;            /* its index manifest or NULL */
} pm_rowid_groups;

/* The groups of snapshot snapshot_id (-1: the latest) of a row-tracking
 * table (BLOB and
 * vector companions left out). `what` starts the messages ("update",
 * "delete"). Files without a first row id -> PAIMON_EINVAL, normal files
 * that overlap with different ranges -> PAIMON_ECORRUPT. out is filled
 * (dispose with pm_rowid_groups_dispose, also after a failure). */
int pm_rowid_groups_plan(pm_fileio *io, const char *table_path, const pm_table_schema *schema,
			 int64_t snapshot_id, const char *what, pm_rowid_groups *out);
/* Index of the group holding row id rid, -1 when none (binary search). */
long pm_rowid_groups_find(const pm_rowid_groups *g, int64_t rid);
void pm_rowid_groups_dispose(pm_rowid_groups *g);

/* ------------------------------------------------------------ updates */

typedef struct pm_row_id_update pm_row_id_update;

/* cols: the update columns (at least one; no duplicates). opts: writer
 * options over the table's (may be NULL). */
int pm_row_id_update_new(pm_fileio *io, const char *table_path, const pm_table_schema *s, const pm_strmap *opts,
			 const pm_strlist *cols, pm_row_id_update **out);

/* The snapshot the update was planned on (-1: empty table). */
int64_t pm_row_id_update_base_snapshot(const pm_row_id_update *u);

/* Takes a struct batch (moved: *batch is released by the updater, also
 * on failure; the schema is copied) with _ROW_ID and every update column
 * (any order, matched by name, nothing else). */
int pm_row_id_update_add(pm_row_id_update *u, struct ArrowArray *batch, const struct ArrowSchema *schema);

/* Rows given so far. */
int64_t pm_row_id_update_row_count(const pm_row_id_update *u);

/* Writes the update files and appends their ADD entries to out. Once
 * only. Files are deleted by free unless this succeeded. */
int pm_row_id_update_finish(pm_row_id_update *u, pm_manifest_entry_list *out);

void pm_row_id_update_free(pm_row_id_update *u);

#endif
