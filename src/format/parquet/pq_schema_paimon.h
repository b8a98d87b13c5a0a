/*
 * format/parquet/pm_pq_schema_paimon.h - a Paimon row type as the Parquet
 * schema Java Paimon's ParquetSchemaConverter builds (spec parquet.md
 * §1.2-1.4): root "paimon_schema", 3-level LIST (list/element), MAP
 * (key_value with MAP_KEY_VALUE, key required), field ids including the
 * SpecialFields ids of array elements and map keys/values.
 *
 * Besides the flat SchemaElement list, every leaf column gets the walk that
 * takes a row of Arrow data to it ("steps"), with the definition and
 * repetition levels to emit at each step; the writer shreds with it.
 */
#ifndef PM_FORMAT_PARQUET_PQ_SCHEMA_PAIMON_H
#define PM_FORMAT_PARQUET_PQ_SCHEMA_PAIMON_H

#include <stddef.h>
#include <stdint.h>

#include "format/parquet/parquet_meta.h"
#include "types/datatype.h"

#define PQ_FIELD_ID_BASE 536870911 /* Integer.MAX_VALUE / 4 */
#define PQ_FIELD_ID_DEPTH 1024

/* SpecialFields ids, in Java's wrapping 32-bit arithmetic. */
int32_t pm_pq_array_element_id(int32_t field_id, int depth);
int32_t pm_pq_map_key_id(int32_t field_id, int depth);
int32_t pm_pq_map_value_id(int32_t field_id, int depth);

/* Byte width Java uses for FIXED_LEN_BYTE_ARRAY decimals of precision p. */
int pm_pq_decimal_flba_len(int precision);

typedef enum pm_pq_step_kind {
	PQ_STEP_LEAF,   /* a primitive value */
	PQ_STEP_STRUCT, /* ROW / VARIANT: go into child `child` */
	PQ_STEP_LIST,   /* ARRAY / VECTOR: go into the elements */
	PQ_STEP_MAP     /* MAP / MULTISET: go into entries, then key (child 0) or value (child 1) */
} pm_pq_step_kind;

/* Stats ordering of a leaf (parquet-java SortOrder). */
typedef enum pm_pq_sort { PQ_SORT_NONE, PQ_SORT_SIGNED, PQ_SORT_UNSIGNED } pm_pq_sort;

typedef struct pm_pq_step {
	int kind;             /* pm_pq_step_kind */
	int child;            /* STRUCT/MAP: which child the path continues into */
	int nullable;         /* optional in Parquet: a null here emits def_null */
	int16_t def_null;     /* def level emitted when this node is null */
	int16_t def_present;  /* def level once the node is present (= def_null + nullable);
	                         LIST/MAP: emitted for an empty collection */
	int16_t rep_elem;     /* LIST/MAP: rep level of the 2nd.. element */
	const pm_type *type;  /* Paimon type of the node */
	const char *name;     /* field name ("element", "key", ... inside collections) */
} pm_pq_step;

typedef struct pm_pq_wcol {
	char *dotted;          /* path joined with '.', for messages */
	const char **path;     /* names below the root */
	size_t n_path;
	int ptype;             /* pm_pq_type */
	int32_t type_len;      /* FIXED_LEN_BYTE_ARRAY */
	int16_t max_def, max_rep;
	int sort;              /* pm_pq_sort */
	const pm_type *type;   /* leaf Paimon type */
	pm_pq_step *steps;        /* from the top-level field (steps[0]) to the leaf */
	size_t n_steps;
	size_t schema_index;   /* in the SchemaElement list */
	size_t top;            /* index of the top-level field holding the column */
} pm_pq_wcol;

typedef struct pm_pq_wschema {
	pm_type *row;                 /* owned copy of the row type */
	pm_pq_schema_element *elems;  /* flat, depth-first, elems[0] the root */
	size_t n_elems;
	pm_pq_wcol *cols;
	size_t n_cols;
} pm_pq_wschema;

/* row must be a ROW type; nested ROW fields need ids (pm_type_assign_ids).
 * PAIMON_EUNSUPPORTED for GEOMETRY/GEOGRAPHY. */
int pm_pq_wschema_build(const pm_type *row, pm_pq_wschema **out);
void pm_pq_wschema_free(pm_pq_wschema *s);

#endif
