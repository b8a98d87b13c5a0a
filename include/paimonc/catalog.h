/*
 * paimonc/catalog.h - filesystem catalog, tables, schemas, snapshots, tags.
 *
 * Conventions: see the API conventions in paimonc/paimonc.h (return codes,
 * parameter order, options, ownership). In short: functions return 0 or a
 * negative paimon_error_code and set paimon_error_message(); a constructor
 * takes its `**out` first, any other function the handle it acts on first
 * and its out-parameters last. An object returned through `**out` belongs
 * to the caller and is released with its type's _free function. A
 * `const char *` returned directly is borrowed from the object it was read
 * from and lives as long as that object.
 *
 * Identifiers are "db.table". Names must be non-empty and must not contain
 * '/', NUL, or be "." / ".."; table names must not contain '$' (system
 * tables) and database names must not end in ".db".
 */
#ifndef PAIMONC_CATALOG_H
#define PAIMONC_CATALOG_H

#include "paimonc/common.h"
#include "paimonc/arrow_c.h"
#include "paimonc/options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_catalog paimon_catalog;
typedef struct paimon_table paimon_table;
typedef struct paimon_schema paimon_schema;
typedef struct paimon_schema_spec paimon_schema_spec;
typedef struct paimon_schema_change paimon_schema_change;
typedef struct paimon_snapshot paimon_snapshot;

/* paimon_options (a string -> string map): paimonc/options.h */

/** Frees a list of strings returned by a list function (NULL is fine). */
PAIMON_EXTERN(void) paimon_string_list_free(char **list, size_t count);

/* ---------------------------------------------------------------- catalog */

/**
 * Opens a filesystem catalog. Options: "warehouse" (required: a local path,
 * or a file:// URI), "metastore" (only "filesystem"). The warehouse need not
 * exist yet: creating a database creates it; reading from a missing warehouse
 * fails with PAIMON_ENOTFOUND naming it.
 */
PAIMON_EXTERN(int) paimon_catalog_open(paimon_catalog **out, const paimon_options *opts);
typedef struct paimon_fileio_methods paimon_fileio_methods;
/**
 * As paimon_catalog_open, but every file the catalog and its tables touch
 * goes through the caller's storage callbacks (see paimonc/sys/fileio.h).
 * methods is copied; ctx is passed to every callback and must outlive the
 * catalog and everything opened from it. The warehouse may then be a URI of
 * any scheme ("mem://wh"), handed to the callbacks as written. A methods
 * version the library does not know (0, or newer than
 * PAIMON_FILEIO_VERSION) or a missing required callback -> PAIMON_EINVAL.
 */
PAIMON_EXTERN(int) paimon_catalog_open_with_fileio(paimon_catalog **out, const paimon_options *opts,
						    const paimon_fileio_methods *methods, void *ctx);
PAIMON_EXTERN(void) paimon_catalog_free(paimon_catalog *c);
/** Absolute warehouse path (borrowed). */
PAIMON_EXTERN(const char *) paimon_catalog_warehouse(const paimon_catalog *c);

PAIMON_EXTERN(int) paimon_catalog_create_database(paimon_catalog *c, const char *name, int ignore_if_exists);
/** cascade = 0 refuses to drop a database that still holds tables (PAIMON_EINVAL). */
PAIMON_EXTERN(int) paimon_catalog_drop_database(paimon_catalog *c, const char *name, int ignore_if_not_exists, int cascade);
PAIMON_EXTERN(int) paimon_catalog_database_exists(paimon_catalog *c, const char *name, int *exists);
/** Sorted names; free with paimon_string_list_free. */
PAIMON_EXTERN(int) paimon_catalog_list_databases(paimon_catalog *c, char ***names, size_t *count);
PAIMON_EXTERN(int) paimon_catalog_list_tables(paimon_catalog *c, const char *database, char ***names, size_t *count);

PAIMON_EXTERN(int) paimon_catalog_create_table(paimon_catalog *c, const char *identifier, const paimon_schema_spec *spec, int ignore_if_exists);
PAIMON_EXTERN(int) paimon_catalog_drop_table(paimon_catalog *c, const char *identifier, int ignore_if_not_exists);
PAIMON_EXTERN(int) paimon_catalog_rename_table(paimon_catalog *c, const char *from, const char *to);
PAIMON_EXTERN(int) paimon_catalog_get_table(paimon_catalog *c, const char *identifier, paimon_table **out);
/** Applies all changes as one new schema version (schema-N+1), or none of them. */
PAIMON_EXTERN(int) paimon_catalog_alter_table(paimon_catalog *c, const char *identifier,
					       paimon_schema_change *const *changes, size_t count, int ignore_if_not_exists);

/* ------------------------------------------------------------ schema spec */

/** What create_table takes: columns, keys, options, comment (pypaimon's Schema). */
PAIMON_EXTERN(int) paimon_schema_spec_new(paimon_schema_spec **out);
/** type: Paimon type string, e.g. "DECIMAL(10, 2) NOT NULL", "ARRAY<INT>", "ROW<a INT, b STRING>". */
PAIMON_EXTERN(int) paimon_schema_spec_add_column(paimon_schema_spec *s, const char *name, const char *type, const char *description);
/** Columns from a compact list: "id BIGINT NOT NULL, label STRING COMMENT 'x', img BLOB". */
PAIMON_EXTERN(int) paimon_schema_spec_add_columns(paimon_schema_spec *s, const char *column_list);
/** Columns from an Arrow struct schema (format "+s"), mapped as pypaimon maps them. */
PAIMON_EXTERN(int) paimon_schema_spec_add_arrow(paimon_schema_spec *s, const struct ArrowSchema *schema);
/**
 * Whole spec from JSON as Java's Schema serializes it:
 * {"fields":[{"id":0,"name":"a","type":"INT"}...], "partitionKeys":[...],
 *  "primaryKeys":[...], "options":{...}, "comment":"..."} ("id"s optional).
 */
PAIMON_EXTERN(int) paimon_schema_spec_from_json(paimon_schema_spec **out, const char *json);
PAIMON_EXTERN(int) paimon_schema_spec_set_partition_keys(paimon_schema_spec *s, const char *const *keys, size_t count);
PAIMON_EXTERN(int) paimon_schema_spec_set_primary_keys(paimon_schema_spec *s, const char *const *keys, size_t count);
PAIMON_EXTERN(int) paimon_schema_spec_set_option(paimon_schema_spec *s, const char *key, const char *value);
PAIMON_EXTERN(int) paimon_schema_spec_set_comment(paimon_schema_spec *s, const char *comment);
PAIMON_EXTERN(void) paimon_schema_spec_free(paimon_schema_spec *s);

/* ------------------------------------------------------------------ types */

/**
 * Normalizes a Paimon type given in either text form -- the SQL string
 * ("ARRAY<INT NOT NULL>") or the schema-file JSON (starting with '{' or '"')
 * -- into Java's SQL string form (what DataType.toString() prints).
 * *out: free with paimon_free. PAIMON_EINVAL names the bad type.
 */
PAIMON_EXTERN(int) paimon_type_to_sql(const char *type, char **out);
/** The same, into the compact schema-file JSON form. */
PAIMON_EXTERN(int) paimon_type_to_json(const char *type, char **out);
/** The Paimon type (SQL string) of one Arrow field, mapped as pypaimon maps it
 * (large_binary -> BLOB, fixed_size_list<float> -> VECTOR...). */
PAIMON_EXTERN(int) paimon_type_from_arrow(const struct ArrowSchema *field, char **out);

/* ----------------------------------------------------------------- schema */

/** A table schema version (schema-N), read-only. */
PAIMON_EXTERN(int64_t) paimon_schema_id(const paimon_schema *s);
PAIMON_EXTERN(int32_t) paimon_schema_highest_field_id(const paimon_schema *s);
PAIMON_EXTERN(int64_t) paimon_schema_time_millis(const paimon_schema *s);
PAIMON_EXTERN(size_t) paimon_schema_field_count(const paimon_schema *s);
PAIMON_EXTERN(int32_t) paimon_schema_field_id(const paimon_schema *s, size_t i);
PAIMON_EXTERN(const char *) paimon_schema_field_name(const paimon_schema *s, size_t i);
/** Type as Paimon's type string ("ARRAY<INT> NOT NULL"). */
PAIMON_EXTERN(const char *) paimon_schema_field_type(const paimon_schema *s, size_t i);
/** Type in the JSON form used in schema files (compact JSON text). */
PAIMON_EXTERN(const char *) paimon_schema_field_type_json(const paimon_schema *s, size_t i);
/** NULL when the field has no description. */
PAIMON_EXTERN(const char *) paimon_schema_field_description(const paimon_schema *s, size_t i);
PAIMON_EXTERN(size_t) paimon_schema_partition_key_count(const paimon_schema *s);
PAIMON_EXTERN(const char *) paimon_schema_partition_key(const paimon_schema *s, size_t i);
PAIMON_EXTERN(size_t) paimon_schema_primary_key_count(const paimon_schema *s);
PAIMON_EXTERN(const char *) paimon_schema_primary_key(const paimon_schema *s, size_t i);
PAIMON_EXTERN(size_t) paimon_schema_option_count(const paimon_schema *s);
PAIMON_EXTERN(const char *) paimon_schema_option_key(const paimon_schema *s, size_t i);
PAIMON_EXTERN(const char *) paimon_schema_option_value(const paimon_schema *s, size_t i);
PAIMON_EXTERN(const char *) paimon_schema_option(const paimon_schema *s, const char *key);
/** NULL when the table has no comment. */
PAIMON_EXTERN(const char *) paimon_schema_comment(const paimon_schema *s);
/** The schema file text exactly as Java writes it. *out: free with paimon_free. */
PAIMON_EXTERN(int) paimon_schema_to_json(const paimon_schema *s, char **out);
/** Arrow struct schema of the row type; caller releases *out. */
PAIMON_EXTERN(int) paimon_schema_to_arrow(const paimon_schema *s, struct ArrowSchema *out);
PAIMON_EXTERN(void) paimon_schema_free(paimon_schema *s);

/* --------------------------------------------------------- schema changes */

typedef enum paimon_column_move {
	PAIMON_MOVE_NONE = 0,   /**< append at the end */
	PAIMON_MOVE_FIRST,
	PAIMON_MOVE_AFTER,
	PAIMON_MOVE_BEFORE,
	PAIMON_MOVE_LAST,
} paimon_column_move;

PAIMON_EXTERN(int) paimon_schema_change_add_column(paimon_schema_change **out, const char *name, const char *type,
						   const char *description, paimon_column_move move, const char *reference);
PAIMON_EXTERN(int) paimon_schema_change_rename_column(paimon_schema_change **out, const char *name, const char *new_name);
PAIMON_EXTERN(int) paimon_schema_change_drop_column(paimon_schema_change **out, const char *name);
PAIMON_EXTERN(int) paimon_schema_change_update_column_comment(paimon_schema_change **out, const char *name, const char *comment);
PAIMON_EXTERN(int) paimon_schema_change_update_column_type(paimon_schema_change **out, const char *name, const char *type);
/** Table comment; NULL removes it. */
PAIMON_EXTERN(int) paimon_schema_change_update_comment(paimon_schema_change **out, const char *comment);
PAIMON_EXTERN(int) paimon_schema_change_set_option(paimon_schema_change **out, const char *key, const char *value);
PAIMON_EXTERN(int) paimon_schema_change_remove_option(paimon_schema_change **out, const char *key);
PAIMON_EXTERN(void) paimon_schema_change_free(paimon_schema_change *c);

/* ------------------------------------------------------------------ table */

PAIMON_EXTERN(void) paimon_table_free(paimon_table *t);
/** "db.table" (borrowed). */
PAIMON_EXTERN(const char *) paimon_table_identifier(const paimon_table *t);
/** Table directory (borrowed). */
PAIMON_EXTERN(const char *) paimon_table_path(const paimon_table *t);
/** Latest schema when the table was loaded (borrowed). */
PAIMON_EXTERN(const paimon_schema *) paimon_table_schema(const paimon_table *t);
/** Ids of all schema versions, ascending. *ids: free with paimon_free. */
PAIMON_EXTERN(int) paimon_table_schema_ids(paimon_table *t, int64_t **ids, size_t *count);
PAIMON_EXTERN(int) paimon_table_load_schema(paimon_table *t, int64_t id, paimon_schema **out);

/* -------------------------------------------------------------- snapshots */

/** *out = NULL (and 0 returned) when the table has no snapshot yet. */
PAIMON_EXTERN(int) paimon_table_latest_snapshot(paimon_table *t, paimon_snapshot **out);
PAIMON_EXTERN(int) paimon_table_earliest_snapshot(paimon_table *t, paimon_snapshot **out);
/** PAIMON_ENOTFOUND naming the valid range when the snapshot does not exist. */
PAIMON_EXTERN(int) paimon_table_snapshot(paimon_table *t, int64_t id, paimon_snapshot **out);
/** Ids of existing snapshot files, ascending. *ids: free with paimon_free. */
PAIMON_EXTERN(int) paimon_table_snapshot_ids(paimon_table *t, int64_t **ids, size_t *count);

PAIMON_EXTERN(int64_t) paimon_snapshot_id(const paimon_snapshot *s);
PAIMON_EXTERN(int64_t) paimon_snapshot_schema_id(const paimon_snapshot *s);
PAIMON_EXTERN(int64_t) paimon_snapshot_time_millis(const paimon_snapshot *s);
/** "APPEND", "COMPACT", "OVERWRITE" or "ANALYZE". */
PAIMON_EXTERN(const char *) paimon_snapshot_commit_kind(const paimon_snapshot *s);
PAIMON_EXTERN(const char *) paimon_snapshot_commit_user(const paimon_snapshot *s);
PAIMON_EXTERN(int64_t) paimon_snapshot_commit_identifier(const paimon_snapshot *s);
PAIMON_EXTERN(int64_t) paimon_snapshot_total_record_count(const paimon_snapshot *s);
PAIMON_EXTERN(int64_t) paimon_snapshot_delta_record_count(const paimon_snapshot *s);
PAIMON_EXTERN(const char *) paimon_snapshot_base_manifest_list(const paimon_snapshot *s);
PAIMON_EXTERN(const char *) paimon_snapshot_delta_manifest_list(const paimon_snapshot *s);
/** The snapshot as Java writes it. *out: free with paimon_free. */
PAIMON_EXTERN(int) paimon_snapshot_to_json(const paimon_snapshot *s, char **out);
PAIMON_EXTERN(void) paimon_snapshot_free(paimon_snapshot *s);

/* ------------------------------------------------------------------- tags */

/** snapshot_id <= 0 tags the latest snapshot (PAIMON_ENOTFOUND if there is none). */
PAIMON_EXTERN(int) paimon_table_create_tag(paimon_table *t, const char *name, int64_t snapshot_id, int ignore_if_exists);
PAIMON_EXTERN(int) paimon_table_delete_tag(paimon_table *t, const char *name, int ignore_if_not_exists);
/** Sorted tag names; free with paimon_string_list_free. */
PAIMON_EXTERN(int) paimon_table_list_tags(paimon_table *t, char ***names, size_t *count);
PAIMON_EXTERN(int) paimon_table_tag_snapshot(paimon_table *t, const char *name, paimon_snapshot **out);

#ifdef __cplusplus
}
#endif
#endif
