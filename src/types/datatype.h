/*
 * types/datatype.h - Paimon data types: an owned tree, its two text forms
 * and the Arrow mapping.
 *
 *  - JSON form, as stored in schema files (spec core-format §2.3): atomic types
 *    are JSON strings ("DECIMAL(10, 2) NOT NULL"), ARRAY/MULTISET/MAP/ROW/VECTOR
 *    are objects. pm_type_to_json writes exactly what Java Paimon writes;
 *    pm_type_from_json reads Java's and pypaimon's forms (pypaimon's extra
 *    "nullable" key, its "MAP<K, V>" / "MULTISET<E>" type strings).
 *  - SQL string form, as printed by DataType.toString() in Java and str() in
 *    pypaimon: "ARRAY<INT NOT NULL> NOT NULL", "MAP<STRING, BIGINT>",
 *    "ROW<`a` INT, `b` STRING>", "VECTOR<FLOAT, 3>". pm_type_parse parses it
 *    (keywords case-insensitive, all accepted aliases of §2.3).
 *  - Arrow C Data Interface format strings, mapped as pypaimon maps them
 *    (large_binary <-> BLOB, fixed_size_list<float32> <-> VECTOR, ...).
 *
 * Ownership: every pm_type* returned by a constructor/parser is owned by the
 * caller and released with pm_type_free (which frees the whole subtree).
 */
#ifndef PM_TYPES_DATATYPE_H
#define PM_TYPES_DATATYPE_H

#include <stdint.h>
#include <jansson.h>
#include "core/buf.h"
#include "serde/json/jsonw.h"

struct ArrowSchema;

typedef enum pm_type_root {
	PM_BOOLEAN,
	PM_TINYINT,
	PM_SMALLINT,
	PM_INT,
	PM_BIGINT,
	PM_FLOAT,
	PM_DOUBLE,
	PM_DECIMAL,        /* precision 1..38, scale 0..precision */
	PM_CHAR,           /* length 1..2147483647 */
	PM_VARCHAR,        /* length; 2147483647 prints as STRING */
	PM_BINARY,
	PM_VARBINARY,      /* length; 2147483647 prints as BYTES */
	PM_DATE,
	PM_TIME,           /* precision 0..9, default 0 */
	PM_TIMESTAMP,      /* precision 0..9, default 6 */
	PM_TIMESTAMP_LTZ,  /* precision 0..9, default 6 */
	PM_VARIANT,
	PM_BLOB,
	PM_GEOMETRY,       /* srid text in `crs` */
	PM_GEOGRAPHY,      /* `crs` + `algorithm` */
	PM_ARRAY,          /* element */
	PM_MULTISET,       /* element */
	PM_MAP,            /* key, value */
	PM_ROW,            /* fields */
	PM_VECTOR,         /* element + length */
} pm_type_root;

#define PM_MAX_LENGTH 2147483647
#define PM_TYPE_MAX_DEPTH 64

typedef struct pm_type pm_type;

typedef struct pm_field {
	int32_t id;
	char *name;
	pm_type *type;
	char *description;   /* NULL when absent */
	char *default_value; /* NULL when absent */
} pm_field;

struct pm_type {
	pm_type_root root;
	int nullable;
	int32_t length;      /* CHAR/VARCHAR/BINARY/VARBINARY length; VECTOR length */
	int32_t precision;   /* DECIMAL/TIME/TIMESTAMP/TIMESTAMP_LTZ */
	int32_t scale;       /* DECIMAL */
	char *crs;           /* GEOMETRY/GEOGRAPHY */
	char *algorithm;     /* GEOGRAPHY */
	pm_type *element;    /* ARRAY/MULTISET/VECTOR */
	pm_type *key;        /* MAP */
	pm_type *value;      /* MAP */
	pm_field *fields;    /* ROW */
	size_t nfields;
};

/* Constructors (nullable = 1 by default). Return NULL on OOM. */
pm_type *pm_type_new(pm_type_root root);
pm_type *pm_type_copy(const pm_type *t);
void pm_type_free(pm_type *t);
void pm_field_dispose(pm_field *f);
int pm_field_copy(pm_field *dst, const pm_field *src);
/* 1 if equal in every attribute (field ids, names, descriptions included). */
int pm_type_equal(const pm_type *a, const pm_type *b);
/* 1 for ARRAY, MULTISET, MAP, ROW, VECTOR. */
int pm_type_is_nested(const pm_type *t);

/* SQL string form. parse: PAIMON_EINVAL with a message quoting the text and
 * the position on a bad string. ROW fields parsed from text get id -1 (assign
 * them with pm_type_assign_ids). Besides Java's syntax the parser reads
 * ARRAY<..>, MULTISET<..>, MAP<K, V> and ROW<name TYPE [COMMENT 'x' | 'x']
 * [DEFAULT expr], ...> (names plain or `quoted`), so that whatever
 * pm_type_to_string prints parses back. An empty COMMENT '' parses as no
 * description (Java does not print empty ones). */
int pm_type_parse(const char *text, pm_type **out);
int pm_type_to_string(const pm_type *t, pm_buf *out);

/* JSON form (schema files). `what` names the file for error messages; bad
 * input is PAIMON_ECORRUPT. Nested ROW fields must carry "id" in schema
 * files (ids_required = 1); otherwise a missing id reads as -1. to_json:
 * errors (ENOMEM, nesting) are left in w->rc, see pm_jw_finish. */
int pm_type_from_json(const char *what, json_t *j, int ids_required, pm_type **out);
void pm_type_to_json(const pm_type *t, pm_jw *w);
int pm_field_from_json(const char *what, json_t *j, int ids_required, pm_field *out);
void pm_field_to_json(const pm_field *f, pm_jw *w);

/* Assigns ids to every nested ROW field with id < 0, depth-first, children
 * before their parent field (Java ReassignFieldId), taking ++*highest.
 * Fields that already have an id keep it (Java renumbers all of them; when
 * every id is -1, as after pm_type_parse, the result is identical). */
void pm_type_assign_ids(pm_type *t, int32_t *highest);
/* Max field id inside t (nested ROW fields), or `floor` if none is larger. */
int32_t pm_type_max_field_id(const pm_type *t, int32_t floor);

/* Arrow. from_arrow: PAIMON_EUNSUPPORTED naming the format string for types
 * with no Paimon equivalent. to_arrow fills *out (caller calls out->release;
 * nothing to release on failure). Nullability comes from / goes to
 * ARROW_FLAG_NULLABLE of each node. Field names of ROW children come from
 * the Arrow child names; their ids are -1 (use pm_type_assign_ids).
 * The mapping is pypaimon's and not one-to-one (CHAR/VARCHAR -> utf8,
 * TIME(p) -> time32[ms] -> TIME(0), MAP keys NOT NULL...): see type_arrow.c. */
int pm_type_from_arrow(const struct ArrowSchema *s, pm_type **out);
int pm_type_to_arrow(const pm_type *t, const char *name, struct ArrowSchema *out);
/* Top-level fields as pypaimon converts them: like the type functions, plus
 * the field's description as the "description" metadata entry. from_arrow
 * sets id -1. */
int pm_field_from_arrow(const struct ArrowSchema *s, pm_field *out);
int pm_field_to_arrow(const pm_field *f, struct ArrowSchema *out);

/* 1 if t is BLOB or holds one (array element, map key/value, row field). */
int pm_type_has_blob(const pm_type *t);

#endif
