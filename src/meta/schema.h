/*
 * meta/schema.h - table schema files (<table>/schema/schema-N), spec
 * core-format §2: reading (Java and pypaimon forms), writing exactly as Java
 * writes, creation from a spec, and evolution (ALTER) keeping field ids and
 * highestFieldId as Java's SchemaManager does.
 *
 * Ownership: pm_table_schema* returned through out-parameters belong to the
 * caller; free with pm_schema_free.
 */
#ifndef PM_META_SCHEMA_H
#define PM_META_SCHEMA_H

#include <stdint.h>
#include "core/strs.h"
#include "io/fileio.h"
#include "types/datatype.h"

#define PM_SCHEMA_VERSION 3
/* Field ids at or above this are reserved for system fields (_ROW_ID...). */
#define PM_SYSTEM_FIELD_ID_START 1073741823

typedef struct pm_table_schema {
	int version;
	int64_t id;
	pm_field *fields;
	size_t nfields;
	int32_t highest_field_id;
	pm_strlist partition_keys;
	pm_strlist primary_keys;
	pm_strmap options;
	char *comment;            /* NULL when absent */
	int64_t time_millis;
} pm_table_schema;

/* What a user asks for when creating a table (Java's Schema). Field ids may
 * be -1 (assigned at creation). */
typedef struct pm_schema_spec {
	pm_field *fields;
	size_t nfields;
	size_t cap;
	pm_strlist partition_keys;
	pm_strlist primary_keys;
	pm_strmap options;
	char *comment;
} pm_schema_spec;

void pm_schema_spec_dispose(pm_schema_spec *s);
/* Appends a field (takes ownership of type on success only). */
int pm_schema_spec_add_field(pm_schema_spec *s, const char *name, pm_type *type, const char *description);
/* Parses Java Schema JSON ({"fields", "partitionKeys", "primaryKeys", "options", "comment"}). */
int pm_schema_spec_from_json(const char *what, const char *text, size_t len, pm_schema_spec *out);
/* Parses "a INT NOT NULL, b STRING COMMENT 'text', c ROW<x INT, y STRING>". */
int pm_schema_spec_parse_columns(const char *text, pm_schema_spec *out);

void pm_schema_free(pm_table_schema *s);
int pm_schema_copy(const pm_table_schema *src, pm_table_schema **out);
/* A copy whose options are src's with overrides (may be NULL) set over
 * them (the dynamic options of a writer, committer or maintenance run). */
int pm_schema_copy_with(const pm_table_schema *src, const pm_strmap *overrides, pm_table_schema **out);
/* 1 if equal in every attribute (options compared as unordered maps). */
int pm_schema_equal(const pm_table_schema *a, const pm_table_schema *b);
/* Index of the top-level field named name, or -1. */
long pm_schema_field_index(const pm_table_schema *s, const char *name);

/*
 * Builds schema 0 from a spec, validating as Java does: at least one column,
 * unique names, partition and primary keys name existing columns, no
 * duplicates among them; "partition"/"primary-key" options moved into the
 * key lists; primary-key columns made NOT NULL (unless primary-key.nullable);
 * field ids assigned (top-level first-come, nested as ReassignFieldId);
 * version 3, id 0, timeMillis now. PAIMON_EINVAL naming the column at fault.
 */
int pm_schema_from_spec(const pm_schema_spec *spec, pm_table_schema **out);

/* Reads a schema file's text (Java's or pypaimon's form; version <= 1 adds
 * bucket=1, version <= 2 adds file.format=orc when missing). `what` names the
 * file in errors. */
int pm_schema_from_json(const char *what, const char *text, size_t len, pm_table_schema **out);
/* Writes the schema file text exactly as Java writes it (appends to out). */
int pm_schema_to_json(const pm_table_schema *s, pm_buf *out);

/* ------------------------------------------------------------- evolution */

typedef enum pm_schema_change_kind {
	PM_SC_ADD_COLUMN,
	PM_SC_RENAME_COLUMN,
	PM_SC_DROP_COLUMN,
	PM_SC_UPDATE_COLUMN_COMMENT,
	PM_SC_UPDATE_COLUMN_TYPE,
	PM_SC_UPDATE_COMMENT,
	PM_SC_SET_OPTION,
	PM_SC_REMOVE_OPTION,
} pm_schema_change_kind;

typedef enum pm_move {
	PM_MOVE_NONE = 0,
	PM_MOVE_FIRST,
	PM_MOVE_AFTER,
	PM_MOVE_BEFORE,
	PM_MOVE_LAST,
} pm_move;

typedef struct pm_schema_change {
	pm_schema_change_kind kind;
	char *name;        /* column, or option key */
	char *new_name;    /* rename */
	pm_type *type;     /* add column / update type */
	char *text;        /* comment / description / option value (may be NULL) */
	pm_move move;
	char *reference;   /* AFTER/BEFORE reference column */
} pm_schema_change;

void pm_schema_change_dispose(pm_schema_change *c);

/*
 * Applies changes to old, producing schema old->id + 1 (version 3, new
 * timeMillis, highestFieldId carried over/increased). has_snapshots = 1
 * forbids changing immutable options. All-or-nothing: on error *out is
 * untouched and the message names the change and column at fault.
 */
int pm_schema_apply(const pm_table_schema *old, const pm_schema_change *changes, size_t n,
		    int has_snapshots, pm_table_schema **out);

/* -------------------------------------------------------- schema manager */

/* Schema ids found in <table>/schema/ (names schema-<digits> only), ascending.
 * *ids: free with pm_free. A missing directory yields count 0. */
int pm_schema_list_ids(pm_fileio *io, const char *table_path, int64_t **ids, size_t *count);
int pm_schema_load(pm_fileio *io, const char *table_path, int64_t id, pm_table_schema **out);
/* Latest = largest id listed. PAIMON_ENOTFOUND when there is none. */
int pm_schema_load_latest(pm_fileio *io, const char *table_path, pm_table_schema **out);
/* Publishes schema-<s->id> with no-overwrite; PAIMON_EEXISTS if taken. */
int pm_schema_commit(pm_fileio *io, const char *table_path, const pm_table_schema *s);

/* A boolean table option as Java reads it (Boolean.parseBoolean: "true"
 * in any case): from override (may be NULL; empty values ignored), else
 * the schema's options; absent = false. */
int pm_schema_option_true(const pm_table_schema *s, const pm_strmap *override, const char *key);

/* 1 for an option that cannot change once the table has snapshots (Java's
 * CoreOptions @Immutable: bucket-key, row-tracking.enabled,
 * data-evolution.enabled, ...), neither by ALTER nor as a dynamic option. */
int pm_schema_option_is_immutable(const char *key);

/* 1 if column `name` is listed in the table option blob-descriptor-field
 * (or its fallback key blob.stored-descriptor-fields): a BLOB column stored
 * inline as serialized BlobDescriptors. */
int pm_schema_is_descriptor_field(const pm_table_schema *s, const char *name);
/* The same over an option map (table options merged with read options). */
int pm_options_is_descriptor_field(const pm_strmap *opts, const char *name);

#endif
