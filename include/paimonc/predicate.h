/*
 * paimonc/predicate.h - the predicate operators shared by the table read
 * filters (paimon_predicate_leaf, include/paimonc/table.h) and the Parquet
 * pruning filters (paimon_parquet_filter_new*, include/paimonc/parquet.h).
 * Values are stable.
 */
#ifndef PAIMONC_PREDICATE_H
#define PAIMONC_PREDICATE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum paimon_predicate_op {
	PAIMON_PRED_EQUAL = 0,
	PAIMON_PRED_NOT_EQUAL,
	PAIMON_PRED_LESS_THAN,
	PAIMON_PRED_LESS_OR_EQUAL,
	PAIMON_PRED_GREATER_THAN,
	PAIMON_PRED_GREATER_OR_EQUAL,
	PAIMON_PRED_IN,
	PAIMON_PRED_NOT_IN,
	PAIMON_PRED_IS_NULL,
	PAIMON_PRED_IS_NOT_NULL,
	PAIMON_PRED_STARTS_WITH,
	PAIMON_PRED_ENDS_WITH,   /**< table predicates only */
	PAIMON_PRED_CONTAINS     /**< table predicates only */
} paimon_predicate_op;

/* Deprecated: the Parquet filter API's former operator names (the same
 * values); use the PAIMON_PRED_ names. */
#define paimon_parquet_filter_op paimon_predicate_op
#define PAIMON_PQ_EQ PAIMON_PRED_EQUAL
#define PAIMON_PQ_NE PAIMON_PRED_NOT_EQUAL
#define PAIMON_PQ_LT PAIMON_PRED_LESS_THAN
#define PAIMON_PQ_LE PAIMON_PRED_LESS_OR_EQUAL
#define PAIMON_PQ_GT PAIMON_PRED_GREATER_THAN
#define PAIMON_PQ_GE PAIMON_PRED_GREATER_OR_EQUAL
#define PAIMON_PQ_IN PAIMON_PRED_IN
#define PAIMON_PQ_NOT_IN PAIMON_PRED_NOT_IN
#define PAIMON_PQ_IS_NULL PAIMON_PRED_IS_NULL
#define PAIMON_PQ_IS_NOT_NULL PAIMON_PRED_IS_NOT_NULL
#define PAIMON_PQ_STARTS_WITH PAIMON_PRED_STARTS_WITH

#ifdef __cplusplus
}
#endif
#endif
