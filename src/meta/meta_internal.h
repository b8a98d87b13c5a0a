/*
 * meta/meta_internal.h - helpers shared by the schema, snapshot and tag code
 * (not part of the public API).
 */
#ifndef PM_META_INTERNAL_H
#define PM_META_INTERNAL_H

#include <stdint.h>
#include "meta/schema.h"

/* Wall-clock milliseconds since the epoch. */
int64_t pm_meta_now_millis(void);

/* Ids of <dir>/<prefix><digits> entries, ascending; hidden names (leading '.'
 * or '_') and non-numeric suffixes are skipped; a missing dir yields 0 ids. */
int pm_meta_list_versioned(pm_fileio *io, const char *dir, const char *prefix, int64_t **ids, size_t *count);
/* "<table_path>/<dir>/<prefix><id>", e.g. .../schema/schema-3 (free with pm_free; NULL on OOM). */
char *pm_meta_versioned_path(const char *table_path, const char *dir, const char *prefix, int64_t id);
/* pm_meta_list_versioned over "<table_path>/<dir>". */
int pm_meta_list_versioned_in(pm_fileio *io, const char *table_path, const char *dir, const char *prefix,
			      int64_t **ids, size_t *count);

/* Splits a comma-separated key list as Java's normalizeKeyList (trimmed,
 * empty parts dropped). */
int pm_meta_split_keys(const char *value, pm_strlist *out);

/*
 * Java's Schema constructor normalisation: "primary-key" / "partition"
 * options moved into the key lists (error if both forms are used), primary
 * key columns given the nullability selected by primary-key.nullable.
 */
int pm_schema_normalize(pm_field *fields, size_t nfields, pm_strlist *partition_keys,
			pm_strlist *primary_keys, pm_strmap *options);

/* The checks of Java's TableSchema constructor and SchemaValidation that do
 * not need other modules (PAIMON_EINVAL naming the column/option). */
int pm_schema_validate(const pm_table_schema *s);

/* Sets the id of every nested ROW field inside t to -1 (for reassignment). */
void pm_meta_reset_nested_ids(pm_type *t);

/* Java String.hashCode of a UTF-8 string (UTF-16 code units). */
int32_t pm_meta_java_hash(const char *s);
/* Order in which a java.util.HashMap built by copy-construction iterates the
 * map's entries (insertion order within a bucket). *order: pm_free. */
int pm_meta_hashmap_order(const pm_strmap *m, size_t **order);

#endif
