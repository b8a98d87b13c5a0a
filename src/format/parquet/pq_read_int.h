/*
 * format/parquet/pm_pq_read_int.h - internals shared by the pm_pq_read*.c files.
 */
#ifndef PM_FORMAT_PARQUET_PQ_READ_INT_H
#define PM_FORMAT_PARQUET_PQ_READ_INT_H

#include <stdbool.h>

#include "arrow/arrow_builder.h"
#include "format/parquet/reader.h"

/* Leaf kinds and physical -> Arrow conversions. */
enum { PQ_K_FIXED, PQ_K_BOOL, PQ_K_BINARY, PQ_K_NULL };
enum {
	PQ_CV_COPY,     /* same bytes (int32, int64, float, double, FLBA, dates, times, timestamps) */
	PQ_CV_I32_I8,   /* INT32 -> 1 byte */
	PQ_CV_I32_I16,  /* INT32 -> 2 bytes */
	PQ_CV_INT96,    /* INT96 -> timestamp[ns] */
	PQ_CV_DEC_I32,  /* INT32 -> decimal128/256 */
	PQ_CV_DEC_I64,
	PQ_CV_DEC_FLBA, /* big-endian two's complement */
	PQ_CV_DEC_BA
};

typedef struct pm_pq_leaf_type {
	int kind;
	int width;  /* Arrow bytes per value (PQ_K_FIXED) */
	int conv;
	char format[48];
} pm_pq_leaf_type;

void pm_pq_map_leaf(const pm_pq_schema_element *e, pm_pq_leaf_type *t);

enum { PQ_A_LEAF, PQ_A_STRUCT, PQ_A_LIST, PQ_A_MAP };

typedef struct pm_pq_anode {
	int kind;
	pm_array_builder *ab;        /* owned by the reader's root builder */
	const pm_pq_schema_node *pnode;
	int16_t def;                 /* non-null when def level >= def */
	int16_t rep;                 /* slots: levels with rep <= rep ... */
	int16_t rad;                 /* ... and def >= rad */
	int16_t elem_def, elem_rep;  /* LIST/MAP: a child entry exists when def >= elem_def */
	bool nullable;
	bool owned;                  /* ab belongs to a parent builder */
	int leaf;                    /* LEAF: leaf column index in the file */
	pm_pq_leaf_type type;
	struct pm_pq_anode **children;
	int n_children;
	struct pm_pq_anode *next_all;   /* every node, for freeing */
} pm_pq_anode;

typedef struct pm_pq_build {
	uint8_t *sel;   /* per file leaf: selected */
	pm_pq_anode *all;
	int depth;
} pm_pq_build;

/* pm_pq_read_footer_file (the footer through an open handle) is in parquet_meta.h. */

int pm_pq_build_tree(pm_pq_build *b, const pm_pq_schema *s, pm_pq_anode ***tops, int *n_tops);
int pm_pq_first_leaf(const pm_pq_anode *a);

#endif
