/*
 * types/type_internal.h - helpers shared by the datatype implementation
 * files; not for use outside src/types.
 */
#ifndef PM_TYPES_TYPE_INTERNAL_H
#define PM_TYPES_TYPE_INTERNAL_H

#include "types/datatype.h"

/* 1 if `r` may be a VECTOR element (Java VectorType.isValidElementType). */
int pm_type__vector_element_ok(pm_type_root r);

/* Checks the names of a ROW's fields the way Java's RowType constructor does
 * (non-blank, unique). Returns NULL if fine, else the offending name and
 * sets *dup to 1 for a duplicate, 0 for a blank name. */
const char *pm_type__bad_field_name(const pm_field *fields, size_t n, int *dup);

/* Lower-case name of a GEOGRAPHY edge algorithm, or NULL if unknown
 * (Java EdgeAlgorithm.fromName: case-insensitive). */
const char *pm_type__edge_algorithm(const char *s, size_t n);

/* Offset of the first byte that is not part of valid UTF-8 in s[0..n), or n.
 * Names and comments end up in JSON files, which must be UTF-8. */
size_t pm_type__utf8_prefix(const char *s, size_t n);

/* pm_type_parse for text found at nesting level `depth` (1 = top). */
int pm_type__parse_at(const char *text, int depth, pm_type **out);

/* Java's GeometryType.DEFAULT_CRS / GeographyType.DEFAULT_ALGORITHM. */
#define PM_TYPE_DEFAULT_CRS "OGC:CRS84"
#define PM_TYPE_DEFAULT_ALGORITHM "spherical"

#endif
