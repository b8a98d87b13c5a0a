/*
 * arrow/arrow_filter.h - selecting rows and columns of Arrow C Data
 * Interface batches: filter by a selection vector (every type: primitive,
 * boolean, (large) binary/utf8, fixed-size binary, (large) list,
 * fixed-size list, struct, map, null, dictionary-free), head (limit), and
 * column projection of struct batches. Results own fresh buffers (no
 * sharing with the input), released through their release callbacks.
 */
#ifndef PM_ARROW_ARROW_FILTER_H
#define PM_ARROW_ARROW_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "paimonc/arrow_c.h"

/* Rows i with sel[i] != 0 (sel has in->length entries) into *out. */
int pm_arrow_filter(const struct ArrowSchema *s, const struct ArrowArray *in, const uint8_t *sel,
		    struct ArrowArray *out);
/* Number of selected rows. */
int64_t pm_arrow_sel_count(const uint8_t *sel, int64_t n);
/* The first n rows (n <= in->length). */
int pm_arrow_head(const struct ArrowSchema *s, const struct ArrowArray *in, int64_t n,
		  struct ArrowArray *out);

/*
 * Gathering rows of several arrays of one type (schema s, borrowed, must
 * outlive the gatherer) into one: ranges are appended in call order and
 * finish exports what was appended (fresh buffers) and starts over.
 */
typedef struct pm_arrow_gather pm_arrow_gather;
int pm_arrow_gather_new(const struct ArrowSchema *s, pm_arrow_gather **out);
/* Appends rows [start, start + n) of in (logical rows: in->offset applies). */
int pm_arrow_gather_range(pm_arrow_gather *g, const struct ArrowArray *in, int64_t start, int64_t n);
int pm_arrow_gather_finish(pm_arrow_gather *g, struct ArrowArray *out);
void pm_arrow_gather_free(pm_arrow_gather *g);

#endif
