/*
 * read/rowtrack.c - materialising _ROW_ID and _SEQUENCE_NUMBER (ai-format
 * §2.5, as Java's DataFileRecordReader): the physical column when the file
 * holds it, its nulls (and files without it) filled with the derived
 * values _ROW_ID = first_row_id + position in file, _SEQUENCE_NUMBER = the
 * file's max sequence number. Positions come from a cursor over the row
 * selection the file reader was given (see split_reader.h).
 */
#include "read/split_reader.h"

#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"
#include "read/read.h"
#include "scan/rowid.h"

void pm_pos_cursor_init(pm_pos_cursor *c, const int64_t *ranges, size_t n, int64_t rows)
{
	memset(c, 0, sizeof *c);
	c->r = ranges;
	c->n = ranges ? n : 0;
	c->rows = rows;
	c->pos = ranges && n ? ranges[0] : 0;
}

int pm_pos_cursor_runs(pm_pos_cursor *c, int64_t n, int (*fn)(void *ctx, int64_t k, int64_t pos, int64_t m),
		       void *ctx)
{
	int64_t k = 0;
	while (k < n) {
		int64_t end, m;
		if (c->r) {
			if (c->i >= c->n)
				return pm_err(PAIMON_ECORRUPT, "file reader returned more rows than its row selection");
			end = c->r[2 * c->i + 1];
		} else {
			end = c->rows;
			if (c->pos >= end)
				return pm_err(PAIMON_ECORRUPT, "file reader returned more rows than the file has (%lld)",
					      (long long)c->rows);
		}
		m = end - c->pos;
		if (m > n - k)
			m = n - k;
		if (fn) {
			int rc = fn(ctx, k, c->pos, m);
			if (rc)
				return rc;
		}
		k += m;
		c->pos += m;
		if (c->r && c->pos >= end && ++c->i < c->n)
			c->pos = c->r[2 * c->i];
	}
	return 0;
}

typedef struct take_ctx {
	int64_t base, *out;
} take_ctx;

static int take_run(void *vc, int64_t k, int64_t pos, int64_t m)
{
	take_ctx *t = vc;
	int64_t j;
	for (j = 0; j < m; j++)
		t->out[k + j] = t->base + pos + j;
	return 0;
}

int pm_pos_cursor_take(pm_pos_cursor *c, int64_t n, int64_t base, int64_t *out)
{
	take_ctx t;
	t.base = base;
	t.out = out;
	return pm_pos_cursor_runs(c, n, out ? take_run : NULL, &t);
}

/* Fills *out (non-null int64) with n values: positions + base, or seq. */
static int derived(int32_t field_id, pm_pos_cursor *cur, int64_t n, int64_t base, int64_t seq,
		   struct ArrowArray *out, int64_t **vals)
{
	pm_array_builder *ab = pm_ab_new_fixed("l", 8);
	int64_t *v;
	int rc;
	*vals = NULL;
	if (!ab)
		return PAIMON_ENOMEM;
	if ((rc = pm_ab_reserve(ab, n, 0)) != 0)
		goto out;
	if (!(v = pm_ab_values_grow(ab, (size_t)n * 8))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if (field_id == PM_ROW_ID_FIELD_ID) {
		if ((rc = pm_pos_cursor_take(cur, n, base, v)) != 0)
			goto out;
	} else {
		int64_t j;
		for (j = 0; j < n; j++)
			v[j] = seq;
	}
	if ((rc = pm_bitmap_append_run(&ab->validity, 1, n)) != 0)
		goto out;
	rc = pm_ab_finish(ab, out);
	if (!rc)
		*vals = (int64_t *)out->buffers[1];
out:
	pm_ab_free(ab);
	return rc;
}

int pm_rowtrack_column(int32_t field_id, const pm_data_file_meta *f, const char *path, pm_pos_cursor *cur,
		       int64_t n, int64_t seq, const struct ArrowSchema *phys_schema, struct ArrowArray *phys,
		       struct ArrowArray *out)
{
	int64_t *v = NULL;
	int rc;
	memset(out, 0, sizeof *out);
	if (field_id == PM_ROW_ID_FIELD_ID && !f->has_first_row_id && !phys) {
		return pm_err(PAIMON_ECORRUPT, "data file %s has no first row id: cannot give _ROW_ID", path);
	}
	rc = derived(field_id, cur, n, f->has_first_row_id ? f->first_row_id : 0, seq, out, &v);
	if (rc || !phys) {
		if (phys && phys->release)
			phys->release(phys);
		return rc;
	}
	/* physical copy: its non-null values win */
	if (phys->length != n || strcmp(phys_schema->format, "l") != 0) {
		rc = pm_err(PAIMON_ECORRUPT, "data file %s: column '%s' is of type '%s' with %lld rows (expected int64, %lld)",
			    path, phys_schema->name ? phys_schema->name : "", phys_schema->format,
			    (long long)phys->length, (long long)n);
	} else {
		const uint8_t *valid = phys->null_count == 0 ? NULL : phys->buffers[0];
		const int64_t *pv = (const int64_t *)phys->buffers[1] + phys->offset;
		int64_t j;
		for (j = 0; j < n; j++) {
			int64_t b = phys->offset + j;
			if (!valid || (valid[b >> 3] >> (b & 7) & 1))
				v[j] = pv[j];
		}
	}
	phys->release(phys);
	if (rc)
		out->release(out);
	return rc;
}
