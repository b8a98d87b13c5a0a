/*
 * read/evolve.c - Arrow column conversions used when a data file was
 * written under an older schema: widening casts, all-null columns for
 * added fields and assembling struct batches from columns.
 *
 * Arrays made here own their buffers through a small private block
 * (oa) released by oa_release; children whose release is NULL (moved out
 * by a consumer) are skipped, as the C Data Interface requires.
 */
#include "read/read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"

typedef struct oa {
	void *bufs[3];
	const void *ptrs[3];
	struct ArrowArray *kids;
	struct ArrowArray **kidp;
	int64_t nk;
} oa;

static void oa_release(struct ArrowArray *a)
{
	oa *o;
	int64_t i;
	if (!a || !a->release)
		return;
	o = a->private_data;
	for (i = 0; i < o->nk; i++)
		if (o->kids[i].release)
			o->kids[i].release(&o->kids[i]);
	for (i = 0; i < 3; i++)
		pm_free(o->bufs[i]);
	pm_free(o->kids);
	pm_free(o->kidp);
	pm_free(o);
	a->release = NULL;
}

/* Sets up *out with nbuf buffers (filled in by the caller through
 * o->bufs / o->ptrs) and nk zeroed children. */
static int oa_init(struct ArrowArray *out, int64_t length, int64_t null_count, int nbuf, int64_t nk, oa **po)
{
	oa *o = pm_calloc(1, sizeof *o);
	int64_t i;
	memset(out, 0, sizeof *out);
	if (!o)
		return PAIMON_ENOMEM;
	if (nk) {
		o->kids = pm_calloc((size_t)nk, sizeof *o->kids);
		o->kidp = pm_calloc((size_t)nk, sizeof *o->kidp);
		if (!o->kids || !o->kidp) {
			pm_free(o->kids);
			pm_free(o->kidp);
			pm_free(o);
			return PAIMON_ENOMEM;
		}
		for (i = 0; i < nk; i++)
			o->kidp[i] = &o->kids[i];
	}
	o->nk = nk;
	out->length = length;
	out->null_count = null_count;
	out->n_buffers = nbuf;
	out->n_children = nk;
	out->buffers = o->ptrs;
	out->children = nk ? o->kidp : NULL;
	out->private_data = o;
	out->release = oa_release;
	*po = o;
	return 0;
}

static void *oa_buf(oa *o, int i, size_t n)
{
	o->bufs[i] = pm_calloc(1, n ? n : 1);
	o->ptrs[i] = o->bufs[i];
	return o->bufs[i];
}

/* Bytes per value of a fixed-width format, 0 for others. */
static int fixed_width(const char *f)
{
	if (!f[1]) {
		switch (f[0]) {
		case 'c': case 'C': return 1;
		case 's': case 'S': case 'e': return 2;
		case 'i': case 'I': case 'f': return 4;
		case 'l': case 'L': case 'g': return 8;
		default: return 0;
		}
	}
	if (!strcmp(f, "tdD") || !strcmp(f, "tts") || !strcmp(f, "ttm"))
		return 4;
	if (!strcmp(f, "tdm") || !strcmp(f, "ttu") || !strcmp(f, "ttn") || !strncmp(f, "ts", 2) ||
	    (f[0] == 't' && f[1] == 'D'))
		return 8;
	if (!strncmp(f, "d:", 2)) {
		int p, s, bw = 128;
		if (sscanf(f + 2, "%d,%d,%d", &p, &s, &bw) < 2)
			return 0;
		return bw / 8;
	}
	if (!strncmp(f, "w:", 2))
		return atoi(f + 2);
	return 0;
}

static int decimal_ps(const char *f, int *p, int *s, int *bw)
{
	*bw = 128;
	return strncmp(f, "d:", 2) == 0 && sscanf(f + 2, "%d,%d,%d", p, s, bw) >= 2;
}

int pm_evolve_same_layout(const struct ArrowSchema *a, const struct ArrowSchema *b)
{
	const char *fa = a->format, *fb = b->format;
	int64_t i;
	int pa, sa, ba, pb, sb, bb;
	if (strcmp(fa, fb) != 0) {
		if (!strncmp(fa, "ts", 2) && !strncmp(fb, "ts", 2) && fa[2] == fb[2])
			; /* time zone only */
		else if (decimal_ps(fa, &pa, &sa, &ba) && decimal_ps(fb, &pb, &sb, &bb) && sa == sb && ba == bb)
			; /* precision only */
		else
			return 0;
	}
	if (a->n_children != b->n_children)
		return 0;
	for (i = 0; i < a->n_children; i++)
		if (!pm_evolve_same_layout(a->children[i], b->children[i]))
			return 0;
	return 1;
}

/* ------------------------------------------------------------ null arrays */

int pm_evolve_null_array(const struct ArrowSchema *s, int64_t length, struct ArrowArray *out)
{
	const char *f = s->format;
	size_t vbytes = (size_t)(length + 7) / 8;
	int w = fixed_width(f), rc;
	oa *o;
	int64_t i;
	memset(out, 0, sizeof *out);
	if (!strcmp(f, "n"))
		return oa_init(out, length, length, 0, 0, &o);
	if (!strcmp(f, "b") || w > 0) {
		size_t n = !strcmp(f, "b") ? vbytes : (size_t)length * (size_t)w;
		if ((rc = oa_init(out, length, length, 2, 0, &o)) != 0)
			return rc;
		if (!oa_buf(o, 0, vbytes) || !oa_buf(o, 1, n))
			goto nomem;
		return 0;
	}
	if (!strcmp(f, "u") || !strcmp(f, "z") || !strcmp(f, "U") || !strcmp(f, "Z")) {
		size_t ow = (f[0] == 'U' || f[0] == 'Z') ? 8 : 4;
		if ((rc = oa_init(out, length, length, 3, 0, &o)) != 0)
			return rc;
		if (!oa_buf(o, 0, vbytes) || !oa_buf(o, 1, ow * (size_t)(length + 1)) || !oa_buf(o, 2, 1))
			goto nomem;
		return 0;
	}
	if (!strcmp(f, "+l") || !strcmp(f, "+L") || !strcmp(f, "+m")) {
		size_t ow = f[1] == 'L' ? 8 : 4;
		if (s->n_children != 1)
			return pm_err(PAIMON_EINVAL, "list type '%s' without exactly one child", f);
		if ((rc = oa_init(out, length, length, 2, 1, &o)) != 0)
			return rc;
		if (!oa_buf(o, 0, vbytes) || !oa_buf(o, 1, ow * (size_t)(length + 1)))
			goto nomem;
		if ((rc = pm_evolve_null_array(s->children[0], 0, &o->kids[0])) != 0) {
			out->release(out);
			return rc;
		}
		return 0;
	}
	if (!strncmp(f, "+w:", 3) || !strcmp(f, "+s")) {
		int64_t per = f[1] == 'w' ? atoi(f + 3) : 1;
		if ((rc = oa_init(out, length, length, 1, s->n_children, &o)) != 0)
			return rc;
		if (!oa_buf(o, 0, vbytes))
			goto nomem;
		for (i = 0; i < s->n_children; i++)
			if ((rc = pm_evolve_null_array(s->children[i], length * per, &o->kids[i])) != 0) {
				out->release(out);
				return rc;
			}
		return 0;
	}
	return pm_err(PAIMON_EUNSUPPORTED, "cannot make a null column of Arrow type '%s' (column '%s')", f,
		      s->name ? s->name : "");
nomem:
	out->release(out);
	return PAIMON_ENOMEM;
}

/* ---------------------------------------------------------------- structs */

int pm_evolve_struct(struct ArrowArray *kids, int64_t n, int64_t length, struct ArrowArray *out)
{
	oa *o;
	int64_t i;
	int rc = oa_init(out, length, 0, 1, n, &o);
	if (rc) {
		for (i = 0; i < n; i++)
			if (kids[i].release)
				kids[i].release(&kids[i]);
		return rc;
	}
	for (i = 0; i < n; i++) {
		o->kids[i] = kids[i];
		memset(&kids[i], 0, sizeof kids[i]);
	}
	return 0;
}

/* ------------------------------------------------------------------ casts */

static int int_width(const char *f)
{
	if (f[0] && !f[1])
		switch (f[0]) {
		case 'c': return 1;
		case 's': return 2;
		case 'i': return 4;
		case 'l': return 8;
		}
	return 0;
}

static int64_t read_int(const void *v, int w, int64_t i)
{
	switch (w) {
	case 1: return ((const int8_t *)v)[i];
	case 2: return ((const int16_t *)v)[i];
	case 4: return ((const int32_t *)v)[i];
	default: return ((const int64_t *)v)[i];
	}
}

static int64_t ts_per_sec(char u)
{
	return u == 's' ? 1 : u == 'm' ? 1000 : u == 'u' ? 1000000 : 1000000000;
}

/* Copies the validity of in (offset applied) into o->bufs[0]. */
static int copy_validity(const struct ArrowArray *in, oa *o, struct ArrowArray *out)
{
	const uint8_t *v = in->n_buffers > 0 ? in->buffers[0] : NULL;
	if (!v || in->null_count == 0) {
		o->ptrs[0] = NULL;
		out->null_count = 0;
		return 0;
	}
	if (!oa_buf(o, 0, (size_t)(in->length + 7) / 8))
		return PAIMON_ENOMEM;
	pm_bits_copy(o->bufs[0], 0, v, in->offset, in->length);
	out->null_count = in->length - pm_bits_count(o->bufs[0], 0, in->length);
	return 0;
}

typedef __int128 i128;

/* A nested array whose children were cast: the original parent (its
 * buffers: validity, offsets) is kept alive, the new children replace the
 * moved-out old ones. */
typedef struct nested_hold {
	struct ArrowArray parent;
	struct ArrowArray *kids;
	struct ArrowArray **kidp;
	int64_t n;
} nested_hold;

static void nested_release(struct ArrowArray *a)
{
	nested_hold *h = a->private_data;
	int64_t k;
	for (k = 0; k < h->n; k++)
		if (h->kids[k].release)
			h->kids[k].release(&h->kids[k]);
	if (h->parent.release)
		h->parent.release(&h->parent);
	pm_free(h->kids);
	pm_free(h->kidp);
	pm_free(h);
	a->release = NULL;
}

/* Same nested kind (list, large list, fixed-size list, struct, map) with
 * children that need a cast (e.g. a timestamp unit inside a MAP value). */
static int cast_nested(const char *column, const struct ArrowSchema *from, struct ArrowArray *in,
		       const struct ArrowSchema *to, struct ArrowArray *out)
{
	int64_t n = from->n_children, k;
	int rc = 0;
	nested_hold *h = pm_calloc(1, sizeof *h);
	if (h) {
		h->kids = pm_calloc((size_t)(n ? n : 1), sizeof *h->kids);
		h->kidp = pm_calloc((size_t)(n ? n : 1), sizeof *h->kidp);
	}
	if (!h || !h->kids || !h->kidp) {
		if (h) {
			pm_free(h->kids);
			pm_free(h->kidp);
			pm_free(h);
		}
		if (in->release)
			in->release(in);
		return PAIMON_ENOMEM;
	}
	h->n = n;
	h->parent = *in;
	memset(in, 0, sizeof *in);
	for (k = 0; k < n; k++) {
		struct ArrowArray tmp = *h->parent.children[k];
		h->parent.children[k]->release = NULL; /* moved out */
		h->kidp[k] = &h->kids[k];
		if (!rc)
			rc = pm_evolve_cast(column, from->children[k], &tmp, to->children[k], &h->kids[k]);
		else if (tmp.release)
			tmp.release(&tmp);
	}
	memset(out, 0, sizeof *out);
	out->length = h->parent.length;
	out->null_count = h->parent.null_count;
	out->offset = h->parent.offset;
	out->n_buffers = h->parent.n_buffers;
	out->buffers = h->parent.buffers;
	out->n_children = n;
	out->children = h->kidp;
	out->private_data = h;
	out->release = nested_release;
	if (rc) {
		out->release(out);
		memset(out, 0, sizeof *out);
	}
	return rc;
}

/* The end of a cast: the input is consumed; on failure the output is
 * released and zeroed. Returns rc. */
static int cast_done(int rc, struct ArrowArray *in, struct ArrowArray *out)
{
	if (in->release)
		in->release(in);
	if (rc && out->release)
		out->release(out);
	if (rc)
		memset(out, 0, sizeof *out);
	return rc;
}

/* (large) list -> fixed-size list "+w:N" (VECTOR columns are stored as
 * Parquet lists). The child (a fixed-width element type without nulls) is
 * regathered so that entry k sits at k * N; null entries (stored as empty
 * lists) get N zeroed elements. */
static int list_to_fixed(const char *column, const struct ArrowSchema *from, struct ArrowArray *in,
			 const struct ArrowSchema *to, struct ArrowArray *out)
{
	int large = from->format[1] == 'L';
	long width = strtol(to->format + 3, NULL, 10);
	const uint8_t *valid = in->n_buffers > 0 ? in->buffers[0] : NULL;
	const struct ArrowArray *ch;
	const uint8_t *src;
	uint8_t *dst;
	int w, rc = 0;
	int64_t k, n = in->length;
	oa *o = NULL;
	struct ArrowArray child;
	memset(out, 0, sizeof *out);
	if (in->n_buffers < 2 || in->n_children != 1 || width <= 0 || (n > 0 && !in->buffers[1]))
		goto unsupported;
	ch = in->children[0];
	w = fixed_width(from->children[0]->format);
	if (w <= 0 || !pm_evolve_same_layout(from->children[0], to->children[0]) || ch->n_buffers < 2 ||
	    (ch->null_count != 0 && ch->n_buffers > 0 && ch->buffers[0]))
		goto unsupported;
	src = ch->buffers[1];
	for (k = 0; k < n; k++) {
		int64_t a = large ? ((const int64_t *)in->buffers[1])[in->offset + k]
				  : ((const int32_t *)in->buffers[1])[in->offset + k];
		int64_t b = large ? ((const int64_t *)in->buffers[1])[in->offset + k + 1]
				  : ((const int32_t *)in->buffers[1])[in->offset + k + 1];
		int is_null = valid && !((valid[(in->offset + k) >> 3] >> ((in->offset + k) & 7)) & 1);
		if (!is_null && b - a != width) {
			rc = pm_err(PAIMON_ECORRUPT, "column '%s': a VECTOR value with %lld elements (expected %ld)",
				    column, (long long)(b - a), width);
			goto done;
		}
		if (a < 0 || b < a || b + ch->offset > ch->length + ch->offset || (b > a && !src)) {
			rc = pm_err(PAIMON_ECORRUPT, "column '%s': list offsets outside the element array", column);
			goto done;
		}
	}
	if ((rc = oa_init(out, n, 0, 1, 1, &o)) != 0)
		goto done;
	if ((rc = copy_validity(in, o, out)) != 0)
		goto done;
	if (n > 0) {
		/* Every entry (null ones too) holding exactly `width` elements back
		 * to back: the element array is already laid out as the fixed-size
		 * list needs, so it is moved over (no copy), offset to the first
		 * entry. */
		int64_t a0 = large ? ((const int64_t *)in->buffers[1])[in->offset]
				   : ((const int32_t *)in->buffers[1])[in->offset];
		for (k = 1; k <= n; k++) {
			int64_t b = large ? ((const int64_t *)in->buffers[1])[in->offset + k]
					  : ((const int32_t *)in->buffers[1])[in->offset + k];
			if (b != a0 + k * width)
				break;
		}
		if (k > n) {
			o->kids[0] = *ch;
			in->children[0]->release = NULL;
			o->kids[0].offset = ch->offset + a0;
			o->kids[0].length = n * width;
			goto done;
		}
	}
	{
		oa *co;
		if ((rc = oa_init(&child, n * width, 0, 2, 0, &co)) != 0)
			goto done;
		child.buffers = co->ptrs;
		o->kids[0] = child;
		dst = oa_buf(co, 1, (size_t)(n * width) * (size_t)w);
		if (!dst) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		co->ptrs[0] = NULL;
		for (k = 0; k < n; k++) {
			int64_t a = large ? ((const int64_t *)in->buffers[1])[in->offset + k]
					  : ((const int32_t *)in->buffers[1])[in->offset + k];
			int64_t b = large ? ((const int64_t *)in->buffers[1])[in->offset + k + 1]
					  : ((const int32_t *)in->buffers[1])[in->offset + k + 1];
			if (b - a == width)
				memcpy(dst + (size_t)(k * width) * (size_t)w, src + (size_t)(ch->offset + a) * (size_t)w,
				       (size_t)width * (size_t)w);
		}
	}
	goto done;
unsupported:
	rc = pm_err(PAIMON_EUNSUPPORTED, "column '%s': cannot convert the file's Arrow type '%s' to '%s'", column,
		    from->format, to->format);
done:
	return cast_done(rc, in, out);
}

int pm_evolve_cast(const char *column, const struct ArrowSchema *from, struct ArrowArray *in,
		   const struct ArrowSchema *to, struct ArrowArray *out)
{
	const char *ff = from->format, *tf = to->format;
	int64_t n = in->length, i, off = in->offset;
	int wf = int_width(ff), wt = int_width(tf), rc = 0;
	oa *o = NULL;

	memset(out, 0, sizeof *out);
	if (pm_evolve_same_layout(from, to)) {
		*out = *in;
		memset(in, 0, sizeof *in);
		return 0;
	}
	if (ff[0] == '+' && strcmp(ff, tf) == 0 && from->n_children == to->n_children &&
	    in->n_children == from->n_children && !in->dictionary)
		return cast_nested(column, from, in, to, out);
	if ((!strcmp(ff, "+l") || !strcmp(ff, "+L")) && !strncmp(tf, "+w:", 3) && from->n_children == 1 &&
	    to->n_children == 1)
		return list_to_fixed(column, from, in, to, out);
	if (in->n_buffers < 2 || (in->length > 0 && !in->buffers[1]))
		goto unsupported;
	if ((rc = oa_init(out, n, 0, 2, 0, &o)) != 0)
		goto done;
	if ((rc = copy_validity(in, o, out)) != 0)
		goto done;
	if (wf && (wt > wf || !strcmp(tf, "f") || !strcmp(tf, "g"))) {
		const void *v = in->buffers[1];
		int ow = wt ? wt : (tf[0] == 'f' ? 4 : 8);
		void *d = oa_buf(o, 1, (size_t)n * (size_t)ow);
		if (!d) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		for (i = 0; i < n; i++) {
			int64_t x = read_int(v, wf, off + i);
			switch (ow == 4 && tf[0] == 'f' ? 'f' : tf[0]) {
			case 's': ((int16_t *)d)[i] = (int16_t)x; break;
			case 'i': ((int32_t *)d)[i] = (int32_t)x; break;
			case 'l': ((int64_t *)d)[i] = x; break;
			case 'f': ((float *)d)[i] = (float)x; break;
			default: ((double *)d)[i] = (double)x; break;
			}
		}
	} else if (!strcmp(ff, "f") && !strcmp(tf, "g")) {
		const float *v = in->buffers[1];
		double *d = oa_buf(o, 1, (size_t)n * 8);
		if (!d) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		for (i = 0; i < n; i++)
			d[i] = v[off + i];
	} else if (!strncmp(ff, "ts", 2) && !strncmp(tf, "ts", 2) && strchr("smun", ff[2]) && strchr("smun", tf[2])) {
		const int64_t *v = in->buffers[1];
		int64_t *d = oa_buf(o, 1, (size_t)n * 8), a = ts_per_sec(ff[2]), b = ts_per_sec(tf[2]);
		if (!d) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		for (i = 0; i < n; i++) {
			int64_t x = v[off + i];
			if (b >= a) {
				d[i] = x * (b / a);
			} else {
				int64_t q = a / b, r = x / q;
				if (x % q < 0)
					r--; /* floor */
				d[i] = r;
			}
		}
	} else if ((!strcmp(ff, "u") || !strcmp(ff, "z") || !strcmp(ff, "U") || !strcmp(ff, "Z")) &&
		   (!strcmp(tf, "u") || !strcmp(tf, "z") || !strcmp(tf, "U") || !strcmp(tf, "Z")) &&
		   ((ff[0] == 'u' || ff[0] == 'U') == (tf[0] == 'u' || tf[0] == 'U') ||
		    tf[0] == 'z' || tf[0] == 'Z')) {
		int lf = ff[0] == 'U' || ff[0] == 'Z', lt = tf[0] == 'U' || tf[0] == 'Z';
		const uint8_t *data = in->n_buffers > 2 ? in->buffers[2] : NULL;
		int64_t first, last, k;
		void *offs;
		uint8_t *d;
		if (in->n_buffers < 3) {
			rc = pm_err(PAIMON_ECORRUPT, "column '%s': binary array without a data buffer", column);
			goto done;
		}
		first = lf ? ((const int64_t *)in->buffers[1])[off] : ((const int32_t *)in->buffers[1])[off];
		last = lf ? ((const int64_t *)in->buffers[1])[off + n] : ((const int32_t *)in->buffers[1])[off + n];
		if (last < first || (!lt && last - first > INT32_MAX)) {
			rc = pm_err(PAIMON_EUNSUPPORTED, "column '%s': %lld bytes do not fit 32-bit offsets", column,
				    (long long)(last - first));
			goto done;
		}
		out->n_buffers = 3;
		offs = oa_buf(o, 1, (size_t)(n + 1) * (lt ? 8 : 4));
		d = oa_buf(o, 2, (size_t)(last - first));
		if (!offs || !d) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		for (k = 0; k <= n; k++) {
			int64_t x = (lf ? ((const int64_t *)in->buffers[1])[off + k]
					: ((const int32_t *)in->buffers[1])[off + k]) - first;
			if (lt)
				((int64_t *)offs)[k] = x;
			else
				((int32_t *)offs)[k] = (int32_t)x;
		}
		if (last > first && data)
			memcpy(d, data + first, (size_t)(last - first));
	} else {
		int pf, sf, bf, pt, st, bt;
		if (decimal_ps(ff, &pf, &sf, &bf) && decimal_ps(tf, &pt, &st, &bt) && bf == 128 && bt == 128 &&
		    st >= sf && pt - st >= pf - sf) {
			const uint8_t *v = in->buffers[1];
			uint8_t *d = oa_buf(o, 1, (size_t)n * 16);
			i128 mul = 1;
			int k;
			if (!d) {
				rc = PAIMON_ENOMEM;
				goto done;
			}
			for (k = 0; k < st - sf; k++)
				mul *= 10;
			for (i = 0; i < n; i++) {
				i128 x;
				memcpy(&x, v + (size_t)(off + i) * 16, 16);
				x *= mul;
				memcpy(d + (size_t)i * 16, &x, 16);
			}
		} else {
			goto unsupported;
		}
	}
	goto done;
unsupported:
	rc = pm_err(PAIMON_EUNSUPPORTED, "column '%s': cannot convert the file's Arrow type '%s' to '%s'", column, ff,
		    tf);
done:
	return cast_done(rc, in, out);
}
