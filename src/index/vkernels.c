/*
 * index/vkernels.c - distance kernels of the vector indexes: portable scalar
 * versions and AVX2+FMA versions (compiled with __attribute__((target))
 * so the rest of the library needs no -mavx2), picked once at run time from
 * the CPU's feature bits.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "index/vindex_int.h"

/* ------------------------------------------------------------- scalar */

static float s_l2(const float *a, const float *b, size_t d)
{
	float acc[4] = {0, 0, 0, 0};
	size_t i = 0;
	for (; i + 4 <= d; i += 4) {
		float t0 = a[i] - b[i], t1 = a[i + 1] - b[i + 1], t2 = a[i + 2] - b[i + 2], t3 = a[i + 3] - b[i + 3];
		acc[0] += t0 * t0;
		acc[1] += t1 * t1;
		acc[2] += t2 * t2;
		acc[3] += t3 * t3;
	}
	for (; i < d; i++) {
		float t = a[i] - b[i];
		acc[0] += t * t;
	}
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static float s_dot(const float *a, const float *b, size_t d)
{
	float acc[4] = {0, 0, 0, 0};
	size_t i = 0;
	for (; i + 4 <= d; i += 4) {
		acc[0] += a[i] * b[i];
		acc[1] += a[i + 1] * b[i + 1];
		acc[2] += a[i + 2] * b[i + 2];
		acc[3] += a[i + 3] * b[i + 3];
	}
	for (; i < d; i++)
		acc[0] += a[i] * b[i];
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static void s_dot_many(const float *x, const float *c, size_t nc, size_t d, float *out)
{
	size_t j;
	for (j = 0; j < nc; j++)
		out[j] = s_dot(x, c + j * d, d);
}

static void s_sq_l2(const float *p, const float *scale, const uint8_t *codes, size_t rows, size_t d, float *out)
{
	size_t dim, l;
	for (l = 0; l < rows; l++)
		out[l] = 0;
	for (dim = 0; dim < d; dim++) {
		const uint8_t *col = codes + dim * rows;
		float pv = p[dim], sc = scale[dim];
		for (l = 0; l < rows; l++) {
			float t = pv - (float)col[l] * sc;
			out[l] += t * t;
		}
	}
}

static void s_sq_dot(const float *q, const float *base, const float *scale, const uint8_t *codes, size_t rows,
		     size_t d, float *dot, float *norm)
{
	size_t dim, l;
	for (l = 0; l < rows; l++) {
		dot[l] = 0;
		if (norm)
			norm[l] = 0;
	}
	for (dim = 0; dim < d; dim++) {
		const uint8_t *col = codes + dim * rows;
		for (l = 0; l < rows; l++) {
			float v = base[dim] + (float)col[l] * scale[dim];
			dot[l] += q[dim] * v;
			if (norm)
				norm[l] += v * v;
		}
	}
}

static void s_l2_many_t(const float *x, const float *ct, size_t nc, size_t d, float *out)
{
	size_t j, t;
	for (j = 0; j < nc; j++)
		out[j] = 0;
	for (t = 0; t < d; t++) {
		const float *row = ct + t * nc;
		float xv = x[t];
		for (j = 0; j < nc; j++) {
			float e = xv - row[j];
			out[j] += e * e;
		}
	}
}

static size_t s_l2_argmin_t(const float *x, const float *ct, size_t nc, size_t d, float *best)
{
	size_t j, t, bj = 0;
	float b = FLT_MAX;
	for (j = 0; j < nc; j++) {
		float a = 0;
		for (t = 0; t < d; t++) {
			float e = x[t] - ct[t * nc + j];
			a += e * e;
		}
		if (a < b) {
			b = a;
			bj = j;
		}
	}
	*best = b;
	return bj;
}

static void s_dot_many_t(const float *x, const float *ct, size_t nc, size_t d, float *out)
{
	size_t j, t;
	for (j = 0; j < nc; j++)
		out[j] = 0;
	for (t = 0; t < d; t++) {
		const float *row = ct + t * nc;
		float xv = x[t];
		for (j = 0; j < nc; j++)
			out[j] += xv * row[j];
	}
}

/* row-major codes (codes[i*m + sub]); four codes per pass, each summed in
 * subquantizer order (the AVX2 table uses the same function: gathers are
 * slower than scalar loads on the CPUs we measured) */
static void s_pq_scan8(const float *lut, const uint8_t *codes, size_t cnt, size_t m, float *out)
{
	size_t i = 0, s;
	for (; i + 4 <= cnt; i += 4) {
		const uint8_t *c0 = codes + i * m, *c1 = c0 + m, *c2 = c1 + m, *c3 = c2 + m;
		const float *row = lut;
		float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
		for (s = 0; s < m; s++, row += 256) {
			a0 += row[c0[s]];
			a1 += row[c1[s]];
			a2 += row[c2[s]];
			a3 += row[c3[s]];
		}
		out[i] = a0;
		out[i + 1] = a1;
		out[i + 2] = a2;
		out[i + 3] = a3;
	}
	for (; i < cnt; i++) {
		const uint8_t *c0 = codes + i * m;
		const float *row = lut;
		float a0 = 0;
		for (s = 0; s < m; s++, row += 256)
			a0 += row[c0[s]];
		out[i] = a0;
	}
}

static void s_l2_ny(const float *q, const float *x, size_t ny, size_t d, float *out)
{
	size_t j;
	for (j = 0; j < ny; j++)
		out[j] = s_l2(q, x + j * d, d);
}

static void s_dot_ny(const float *q, const float *x, size_t ny, size_t d, float *out)
{
	size_t j;
	for (j = 0; j < ny; j++)
		out[j] = s_dot(q, x + j * d, d);
}

static void s_l2_tile(const float *const *qs, size_t nqs, const float *x, size_t ny, size_t d, float *out)
{
	size_t i;
	for (i = 0; i < nqs; i++)
		s_l2_ny(qs[i], x, ny, d, out + i * ny);
}

static void s_dot_tile(const float *const *qs, size_t nqs, const float *x, size_t ny, size_t d, float *out)
{
	size_t i;
	for (i = 0; i < nqs; i++)
		s_dot_ny(qs[i], x, ny, d, out + i * ny);
}

static void s_dot_block(const float *x, size_t np, const float *c, size_t nc, size_t d, float *out)
{
	size_t i;
	for (i = 0; i < np; i++)
		s_dot_many(x + i * d, c, nc, d, out + i * nc);
}

/* panels of 16 points transposed: cp[(p*d + t)*16 + lane] = c[(16p + lane)*d + t],
 * zero past nc; out[i*nc + j] = x_i . c_j summed in t order */
void pm_vpack16(const float *c, size_t nc, size_t d, float *cp)
{
	size_t p, t, lane, npan = (nc + 15) / 16;
	for (p = 0; p < npan; p++)
		for (t = 0; t < d; t++)
			for (lane = 0; lane < 16; lane++) {
				size_t j = p * 16 + lane;
				cp[(p * d + t) * 16 + lane] = j < nc ? c[j * d + t] : 0.0f;
			}
}

static void s_dot_packed(const float *x, size_t np, const float *cp, size_t nc, size_t d, float *out)
{
	size_t i, j, t;
	for (i = 0; i < np; i++)
		for (j = 0; j < nc; j++) {
			const float *col = cp + (j / 16) * d * 16 + (j % 16);
			float a = 0;
			for (t = 0; t < d; t++)
				a += x[i * d + t] * col[t * 16];
			out[i * nc + j] = a;
		}
}

static size_t s_argmin_bias(const float *cn, const float *dots, size_t k, float *best)
{
	size_t j, bj = 0;
	float b = FLT_MAX;
	for (j = 0; j < k; j++) {
		float dd = cn[j] - 2.0f * dots[j];
		if (dd < b) {
			b = dd;
			bj = j;
		}
	}
	*best = b;
	return bj;
}

static void s_l2_argmin_t4(const float *const *xs, const float *ct, size_t nc, size_t d, size_t *idx, float *best)
{
	int p;
	for (p = 0; p < 4; p++)
		idx[p] = s_l2_argmin_t(xs[p], ct, nc, d, &best[p]);
}

static const pm_vkern scalar_kern = {s_l2,	  s_dot,	s_dot_many, s_sq_l2,	 s_sq_dot,   s_l2_many_t,
				     s_dot_many_t, s_l2_argmin_t, s_pq_scan8, s_dot_block, s_l2_ny,    s_dot_ny,
				     s_l2_tile,	  s_dot_tile,	s_dot_packed, s_argmin_bias, s_l2_argmin_t4, "scalar"};

const pm_vkern *pm_vkern_scalar(void)
{
	return &scalar_kern;
}

/* --------------------------------------------------------------- AVX2 */

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define PM_VK_X86 1
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))

AVX2 static inline float hsum8(__m256 v)
{
	__m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
	__m128 s = _mm_add_ps(lo, hi);
	s = _mm_add_ps(s, _mm_movehl_ps(s, s));
	s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 0x55));
	return _mm_cvtss_f32(s);
}

/* (minimum lane value, lowest lane index among the lanes holding it): what
 * a scan of the 8 (value, index) pairs in order with "<, or == and lower
 * index" gives, without the data-dependent branches */
AVX2 static inline void argmin_reduce(__m256 bv, __m256i bi, float *b, size_t *bj)
{
	__m256 m = _mm256_min_ps(bv, _mm256_permute2f128_ps(bv, bv, 1));
	__m256i big = _mm256_set1_epi32(0x7fffffff), ix, ixm;
	__m128i i4;
	m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
	m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
	ix = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(big), _mm256_castsi256_ps(bi),
						  _mm256_cmp_ps(bv, m, _CMP_EQ_OQ)));
	ixm = _mm256_min_epi32(ix, _mm256_permute2x128_si256(ix, ix, 1));
	ixm = _mm256_min_epi32(ixm, _mm256_shuffle_epi32(ixm, _MM_SHUFFLE(1, 0, 3, 2)));
	ixm = _mm256_min_epi32(ixm, _mm256_shuffle_epi32(ixm, _MM_SHUFFLE(2, 3, 0, 1)));
	i4 = _mm256_castsi256_si128(ixm);
	*b = _mm256_cvtss_f32(m);
	*bj = (size_t)(uint32_t)_mm_cvtsi128_si32(i4);
}

AVX2 static float a_l2(const float *a, const float *b, size_t d)
{
	__m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
	size_t i = 0;
	float r;
	for (; i + 16 <= d; i += 16) {
		__m256 t0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
		__m256 t1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
		s0 = _mm256_fmadd_ps(t0, t0, s0);
		s1 = _mm256_fmadd_ps(t1, t1, s1);
	}
	for (; i + 8 <= d; i += 8) {
		__m256 t0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
		s0 = _mm256_fmadd_ps(t0, t0, s0);
	}
	r = hsum8(_mm256_add_ps(s0, s1));
	for (; i < d; i++) {
		float t = a[i] - b[i];
		r += t * t;
	}
	return r;
}

AVX2 static float a_dot(const float *a, const float *b, size_t d)
{
	__m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
	size_t i = 0;
	float r;
	for (; i + 16 <= d; i += 16) {
		s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
		s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
	}
	for (; i + 8 <= d; i += 8)
		s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
	r = hsum8(_mm256_add_ps(s0, s1));
	for (; i < d; i++)
		r += a[i] * b[i];
	return r;
}

/* Four centroids per pass: x is loaded once per 8 lanes for four FMAs. */
AVX2 static void a_dot_many(const float *x, const float *c, size_t nc, size_t d, float *out)
{
	size_t j = 0;
	if (d % 8 == 0) {
		for (; j + 4 <= nc; j += 4) {
			const float *c0 = c + j * d, *c1 = c0 + d, *c2 = c1 + d, *c3 = c2 + d;
			__m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
			       s3 = _mm256_setzero_ps();
			size_t i;
			for (i = 0; i < d; i += 8) {
				__m256 xv = _mm256_loadu_ps(x + i);
				s0 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(c0 + i), s0);
				s1 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(c1 + i), s1);
				s2 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(c2 + i), s2);
				s3 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(c3 + i), s3);
			}
			out[j] = hsum8(s0);
			out[j + 1] = hsum8(s1);
			out[j + 2] = hsum8(s2);
			out[j + 3] = hsum8(s3);
		}
	}
	for (; j < nc; j++)
		out[j] = a_dot(x, c + j * d, d);
}

/* 8 u8 codes -> 8 floats */
AVX2 static inline __m256 cvt8(const uint8_t *p)
{
	__m128i b = _mm_loadl_epi64((const __m128i *)(const void *)p);
	return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
}

AVX2 static void a_sq_l2(const float *p, const float *scale, const uint8_t *codes, size_t rows, size_t d,
			 float *out)
{
	if (rows != 32) {
		s_sq_l2(p, scale, codes, rows, d, out);
		return;
	}
	{
		__m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(),
		       a3 = _mm256_setzero_ps();
		size_t dim;
		for (dim = 0; dim < d; dim++) {
			const uint8_t *col = codes + dim * 32;
			__m256 pv = _mm256_set1_ps(p[dim]), sc = _mm256_set1_ps(scale[dim]);
			__m256 t0 = _mm256_fnmadd_ps(cvt8(col), sc, pv);
			__m256 t1 = _mm256_fnmadd_ps(cvt8(col + 8), sc, pv);
			__m256 t2 = _mm256_fnmadd_ps(cvt8(col + 16), sc, pv);
			__m256 t3 = _mm256_fnmadd_ps(cvt8(col + 24), sc, pv);
			a0 = _mm256_fmadd_ps(t0, t0, a0);
			a1 = _mm256_fmadd_ps(t1, t1, a1);
			a2 = _mm256_fmadd_ps(t2, t2, a2);
			a3 = _mm256_fmadd_ps(t3, t3, a3);
		}
		_mm256_storeu_ps(out, a0);
		_mm256_storeu_ps(out + 8, a1);
		_mm256_storeu_ps(out + 16, a2);
		_mm256_storeu_ps(out + 24, a3);
	}
}

AVX2 static void a_sq_dot(const float *q, const float *base, const float *scale, const uint8_t *codes, size_t rows,
			  size_t d, float *dot, float *norm)
{
	if (rows != 32) {
		s_sq_dot(q, base, scale, codes, rows, d, dot, norm);
		return;
	}
	{
		__m256 a[4], nn[4];
		size_t dim;
		int t;
		for (t = 0; t < 4; t++)
			a[t] = nn[t] = _mm256_setzero_ps();
		for (dim = 0; dim < d; dim++) {
			const uint8_t *col = codes + dim * 32;
			__m256 bv = _mm256_set1_ps(base[dim]), sc = _mm256_set1_ps(scale[dim]), qv = _mm256_set1_ps(q[dim]);
			for (t = 0; t < 4; t++) {
				__m256 v = _mm256_fmadd_ps(cvt8(col + 8 * t), sc, bv);
				a[t] = _mm256_fmadd_ps(qv, v, a[t]);
				nn[t] = _mm256_fmadd_ps(v, v, nn[t]);
			}
		}
		for (t = 0; t < 4; t++) {
			_mm256_storeu_ps(dot + 8 * t, a[t]);
			if (norm)
				_mm256_storeu_ps(norm + 8 * t, nn[t]);
		}
	}
}

AVX2 static void a_l2_many_t(const float *x, const float *ct, size_t nc, size_t d, float *out)
{
	size_t j = 0, t;
	for (; j + 8 <= nc; j += 8) {
		__m256 acc = _mm256_setzero_ps();
		for (t = 0; t < d; t++) {
			__m256 e = _mm256_sub_ps(_mm256_set1_ps(x[t]), _mm256_loadu_ps(ct + t * nc + j));
			acc = _mm256_fmadd_ps(e, e, acc);
		}
		_mm256_storeu_ps(out + j, acc);
	}
	for (; j < nc; j++) {
		float a = 0;
		for (t = 0; t < d; t++) {
			float e = x[t] - ct[t * nc + j];
			a += e * e;
		}
		out[j] = a;
	}
}

AVX2 static size_t a_l2_argmin_t(const float *x, const float *ct, size_t nc, size_t d, float *best)
{
	size_t j = 0, t, bj = 0;
	float b = FLT_MAX;
	if (nc >= 8) {
		__m256 bv = _mm256_set1_ps(FLT_MAX);
		__m256i bi = _mm256_setzero_si256(), idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
			step = _mm256_set1_epi32(8);
		for (; j + 8 <= nc; j += 8) {
			__m256 acc = _mm256_setzero_ps(), lt;
			for (t = 0; t < d; t++) {
				__m256 e = _mm256_sub_ps(_mm256_set1_ps(x[t]), _mm256_loadu_ps(ct + t * nc + j));
				acc = _mm256_fmadd_ps(e, e, acc);
			}
			lt = _mm256_cmp_ps(acc, bv, _CMP_LT_OQ);
			bv = _mm256_blendv_ps(bv, acc, lt);
			bi = _mm256_castps_si256(
				_mm256_blendv_ps(_mm256_castsi256_ps(bi), _mm256_castsi256_ps(idx), lt));
			idx = _mm256_add_epi32(idx, step);
		}
		argmin_reduce(bv, bi, &b, &bj);
	}
	for (; j < nc; j++) {
		float a = 0;
		for (t = 0; t < d; t++) {
			float e = x[t] - ct[t * nc + j];
			a += e * e;
		}
		if (a < b) {
			b = a;
			bj = j;
		}
	}
	*best = b;
	return bj;
}

/* four points at once against the same transposed centroids (each centroid
 * row loaded once for the four): per point exactly a_l2_argmin_t's
 * arithmetic, so the same index and distance */
AVX2 static void a_l2_argmin_t4(const float *const *xs, const float *ct, size_t nc, size_t d, size_t *idx, float *best)
{
	size_t j = 0, t, bj[4] = {0, 0, 0, 0};
	float b[4] = {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX};
	const float *x0 = xs[0], *x1 = xs[1], *x2 = xs[2], *x3 = xs[3];
	int p;
	if (nc >= 8) {
		__m256 bv0 = _mm256_set1_ps(FLT_MAX), bv1 = bv0, bv2 = bv0, bv3 = bv0;
		__m256i bi0 = _mm256_setzero_si256(), bi1 = bi0, bi2 = bi0, bi3 = bi0,
			idxv = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), step = _mm256_set1_epi32(8);
		for (; j + 8 <= nc; j += 8) {
			__m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, lt;
			for (t = 0; t < d; t++) {
				__m256 row = _mm256_loadu_ps(ct + t * nc + j), e;
				e = _mm256_sub_ps(_mm256_set1_ps(x0[t]), row);
				a0 = _mm256_fmadd_ps(e, e, a0);
				e = _mm256_sub_ps(_mm256_set1_ps(x1[t]), row);
				a1 = _mm256_fmadd_ps(e, e, a1);
				e = _mm256_sub_ps(_mm256_set1_ps(x2[t]), row);
				a2 = _mm256_fmadd_ps(e, e, a2);
				e = _mm256_sub_ps(_mm256_set1_ps(x3[t]), row);
				a3 = _mm256_fmadd_ps(e, e, a3);
			}
#define PM_ARGMIN_STEP(A, BV, BI)                                                                                    \
	lt = _mm256_cmp_ps(A, BV, _CMP_LT_OQ);                                                                         \
	BV = _mm256_blendv_ps(BV, A, lt);                                                                              \
	BI = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(BI), _mm256_castsi256_ps(idxv), lt))
			PM_ARGMIN_STEP(a0, bv0, bi0);
			PM_ARGMIN_STEP(a1, bv1, bi1);
			PM_ARGMIN_STEP(a2, bv2, bi2);
			PM_ARGMIN_STEP(a3, bv3, bi3);
#undef PM_ARGMIN_STEP
			idxv = _mm256_add_epi32(idxv, step);
		}
		argmin_reduce(bv0, bi0, &b[0], &bj[0]);
		argmin_reduce(bv1, bi1, &b[1], &bj[1]);
		argmin_reduce(bv2, bi2, &b[2], &bj[2]);
		argmin_reduce(bv3, bi3, &b[3], &bj[3]);
	}
	for (p = 0; p < 4; p++) {
		const float *x = xs[p];
		size_t jj;
		for (jj = j; jj < nc; jj++) {
			float a = 0;
			for (t = 0; t < d; t++) {
				float e = x[t] - ct[t * nc + jj];
				a += e * e;
			}
			if (a < b[p]) {
				b[p] = a;
				bj[p] = jj;
			}
		}
		idx[p] = bj[p];
		best[p] = b[p];
	}
}

AVX2 static void a_dot_many_t(const float *x, const float *ct, size_t nc, size_t d, float *out)
{
	size_t j = 0, t;
	for (; j + 8 <= nc; j += 8) {
		__m256 acc = _mm256_setzero_ps();
		for (t = 0; t < d; t++)
			acc = _mm256_fmadd_ps(_mm256_set1_ps(x[t]), _mm256_loadu_ps(ct + t * nc + j), acc);
		_mm256_storeu_ps(out + j, acc);
	}
	for (; j < nc; j++) {
		float a = 0;
		for (t = 0; t < d; t++)
			a += x[t] * ct[t * nc + j];
		out[j] = a;
	}
}

/*
 * The flat-scan kernels: every (query, vector) pair is summed the same way
 * (one 8-lane accumulator over d in steps of 8, a fixed horizontal sum, then
 * the d % 8 tail), so one query against a list (l2_ny) and a block of
 * queries against it (l2_tile, the batch path) give bit-identical distances.
 */
/* vectors prefetched ahead, past the end of a chunk too (prefetches never
 * fault; the address is formed as an integer): at 1M x 128 single-query,
 * none gave 75 QPS, 8 ahead ~105, 16 or 32 ahead no better */
#define PF_AHEAD 8

AVX2 static inline void prefetch_ahead(const float *x, size_t bytes)
{
	uintptr_t a = (uintptr_t)x, off;
	for (off = 0; off < bytes; off += 64)
		_mm_prefetch((const char *)(a + off), _MM_HINT_T0);
}

AVX2 static inline float tail_l2(float r, const float *q, const float *x, size_t i, size_t d)
{
	for (; i < d; i++) {
		float t = q[i] - x[i];
		r += t * t;
	}
	return r;
}

AVX2 static inline float tail_dot(float r, const float *q, const float *x, size_t i, size_t d)
{
	for (; i < d; i++)
		r += q[i] * x[i];
	return r;
}

/* one pair, the canonical order: 8-float block b goes to accumulator b % 4,
 * then hsum8((a0 + a1) + (a2 + a3)), then the d % 8 tail. One vector at a
 * time reads memory as one sequential stream (measured: ~14-16 GB/s on one
 * core against ~11-13 for four vectors side by side). */
#define PM_L2_STEP(acc, qp, xp)                                                                                     \
	do {                                                                                                       \
		__m256 e_ = _mm256_sub_ps(_mm256_loadu_ps(qp), _mm256_loadu_ps(xp));                               \
		acc = _mm256_fmadd_ps(e_, e_, acc);                                                                \
	} while (0)
#define PM_DOT_STEP(acc, qp, xp) acc = _mm256_fmadd_ps(_mm256_loadu_ps(qp), _mm256_loadu_ps(xp), acc)

#define PM_ONE(NAME, STEP, TAIL)                                                                                    \
	AVX2 static inline float NAME(const float *q, const float *x, size_t d)                                    \
	{                                                                                                          \
		__m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;                                        \
		size_t t = 0, d8 = d & ~(size_t)7;                                                                 \
		for (; t + 32 <= d8; t += 32) {                                                                    \
			STEP(a0, q + t, x + t);                                                                      \
			STEP(a1, q + t + 8, x + t + 8);                                                              \
			STEP(a2, q + t + 16, x + t + 16);                                                            \
			STEP(a3, q + t + 24, x + t + 24);                                                            \
		}                                                                                                  \
		if (t + 8 <= d8)                                                                                   \
			STEP(a0, q + t, x + t);                                                                      \
		if (t + 16 <= d8)                                                                                  \
			STEP(a1, q + t + 8, x + t + 8);                                                              \
		if (t + 24 <= d8)                                                                                  \
			STEP(a2, q + t + 16, x + t + 16);                                                            \
		return TAIL(hsum8(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3))), q, x, d8, d);     \
	}

PM_ONE(l2_one, PM_L2_STEP, tail_l2)
PM_ONE(dot_one, PM_DOT_STEP, tail_dot)

/* one query against ny consecutive vectors, prefetching ahead */
#define PM_NY(NAME, ONE)                                                                                            \
	AVX2 static void NAME(const float *q, const float *x, size_t ny, size_t d, float *out)                     \
	{                                                                                                          \
		size_t j;                                                                                          \
		for (j = 0; j < ny; j++) {                                                                         \
			const float *x0 = x + j * d;                                                                 \
			prefetch_ahead((const float *)((uintptr_t)x0 + d * PF_AHEAD * sizeof(float)),                \
				       d * sizeof(float));                                                           \
			out[j] = ONE(q, x0, d);                                                                      \
		}                                                                                                  \
	}

PM_NY(a_l2_ny, l2_one)
PM_NY(a_dot_ny, dot_one)

/* Two queries x one vector per step, each pair in l2_one's order (8
 * accumulators; the vector's blocks are loaded once for both queries). The
 * batch path is compute-bound on L1-resident data, so the narrower tile
 * costs little there. */
#define PM_TILE2(NAME, STEP, ONE, TAIL)                                                                             \
	AVX2 static void NAME(const float *const *qs, size_t nqs, const float *x, size_t ny, size_t d, float *out)   \
	{                                                                                                          \
		size_t i = 0, j, t, d8 = d & ~(size_t)7;                                                           \
		for (; i + 2 <= nqs; i += 2) {                                                                     \
			const float *q0 = qs[i], *q1 = qs[i + 1];                                                    \
			for (j = 0; j < ny; j++) {                                                                   \
				const float *x0 = x + j * d;                                                         \
				__m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, \
				       b3 = a0;                                                                      \
				for (t = 0; t + 32 <= d8; t += 32) {                                                 \
					STEP(a0, q0 + t, x0 + t);                                                    \
					STEP(b0, q1 + t, x0 + t);                                                    \
					STEP(a1, q0 + t + 8, x0 + t + 8);                                            \
					STEP(b1, q1 + t + 8, x0 + t + 8);                                            \
					STEP(a2, q0 + t + 16, x0 + t + 16);                                          \
					STEP(b2, q1 + t + 16, x0 + t + 16);                                          \
					STEP(a3, q0 + t + 24, x0 + t + 24);                                          \
					STEP(b3, q1 + t + 24, x0 + t + 24);                                          \
				}                                                                                    \
				if (t + 8 <= d8) {                                                                   \
					STEP(a0, q0 + t, x0 + t);                                                    \
					STEP(b0, q1 + t, x0 + t);                                                    \
				}                                                                                    \
				if (t + 16 <= d8) {                                                                  \
					STEP(a1, q0 + t + 8, x0 + t + 8);                                            \
					STEP(b1, q1 + t + 8, x0 + t + 8);                                            \
				}                                                                                    \
				if (t + 24 <= d8) {                                                                  \
					STEP(a2, q0 + t + 16, x0 + t + 16);                                          \
					STEP(b2, q1 + t + 16, x0 + t + 16);                                          \
				}                                                                                    \
				out[i * ny + j] = TAIL(hsum8(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3))), \
						       q0, x0, d8, d);                                               \
				out[(i + 1) * ny + j] =                                                              \
					TAIL(hsum8(_mm256_add_ps(_mm256_add_ps(b0, b1), _mm256_add_ps(b2, b3))), q1, \
					     x0, d8, d);                                                             \
			}                                                                                            \
		}                                                                                                  \
		for (; i < nqs; i++)                                                                               \
			for (j = 0; j < ny; j++)                                                                     \
				out[i * ny + j] = ONE(qs[i], x + j * d, d);                                          \
	}

PM_TILE2(a_l2_tile, PM_L2_STEP, l2_one, tail_l2)
PM_TILE2(a_dot_tile, PM_DOT_STEP, dot_one, tail_dot)


/* 3 points x 4 centroids per tile: 7 loads feed 12 FMAs */
AVX2 static void a_dot_block(const float *x, size_t np, const float *c, size_t nc, size_t d, float *out)
{
	size_t i = 0;
	if (d % 8 == 0) {
		for (; i + 3 <= np; i += 3) {
			const float *x0 = x + i * d, *x1 = x0 + d, *x2 = x1 + d;
			size_t j = 0;
			for (; j + 4 <= nc; j += 4) {
				const float *c0 = c + j * d, *c1 = c0 + d, *c2 = c1 + d, *c3 = c2 + d;
				__m256 a00 = _mm256_setzero_ps(), a01 = a00, a02 = a00, a03 = a00, a10 = a00, a11 = a00,
				       a12 = a00, a13 = a00, a20 = a00, a21 = a00, a22 = a00, a23 = a00;
				size_t t;
				for (t = 0; t < d; t += 8) {
					__m256 v0 = _mm256_loadu_ps(x0 + t), v1 = _mm256_loadu_ps(x1 + t),
					       v2 = _mm256_loadu_ps(x2 + t), w;
					w = _mm256_loadu_ps(c0 + t);
					a00 = _mm256_fmadd_ps(v0, w, a00);
					a10 = _mm256_fmadd_ps(v1, w, a10);
					a20 = _mm256_fmadd_ps(v2, w, a20);
					w = _mm256_loadu_ps(c1 + t);
					a01 = _mm256_fmadd_ps(v0, w, a01);
					a11 = _mm256_fmadd_ps(v1, w, a11);
					a21 = _mm256_fmadd_ps(v2, w, a21);
					w = _mm256_loadu_ps(c2 + t);
					a02 = _mm256_fmadd_ps(v0, w, a02);
					a12 = _mm256_fmadd_ps(v1, w, a12);
					a22 = _mm256_fmadd_ps(v2, w, a22);
					w = _mm256_loadu_ps(c3 + t);
					a03 = _mm256_fmadd_ps(v0, w, a03);
					a13 = _mm256_fmadd_ps(v1, w, a13);
					a23 = _mm256_fmadd_ps(v2, w, a23);
				}
				out[i * nc + j] = hsum8(a00);
				out[i * nc + j + 1] = hsum8(a01);
				out[i * nc + j + 2] = hsum8(a02);
				out[i * nc + j + 3] = hsum8(a03);
				out[(i + 1) * nc + j] = hsum8(a10);
				out[(i + 1) * nc + j + 1] = hsum8(a11);
				out[(i + 1) * nc + j + 2] = hsum8(a12);
				out[(i + 1) * nc + j + 3] = hsum8(a13);
				out[(i + 2) * nc + j] = hsum8(a20);
				out[(i + 2) * nc + j + 1] = hsum8(a21);
				out[(i + 2) * nc + j + 2] = hsum8(a22);
				out[(i + 2) * nc + j + 3] = hsum8(a23);
			}
			for (; j < nc; j++) {
				out[i * nc + j] = a_dot(x0, c + j * d, d);
				out[(i + 1) * nc + j] = a_dot(x1, c + j * d, d);
				out[(i + 2) * nc + j] = a_dot(x2, c + j * d, d);
			}
		}
	}
	for (; i < np; i++)
		a_dot_many(x + i * d, c, nc, d, out + i * nc);
}

/* rows x 16 of the packed product (rows <= 6): per t, 2 panel loads and
 * `rows` broadcasts feed 2*rows FMAs; no horizontal sums */
AVX2 static inline void dp_store(float *o, __m256 lo, __m256 hi, size_t w)
{
	if (w == 16) {
		_mm256_storeu_ps(o, lo);
		_mm256_storeu_ps(o + 8, hi);
	} else {
		float tmp[16];
		_mm256_storeu_ps(tmp, lo);
		_mm256_storeu_ps(tmp + 8, hi);
		memcpy(o, tmp, w * sizeof(float));
	}
}

/* 6 x 16 of the packed product: per t, 2 panel loads and 6 broadcasts feed
 * 12 FMAs into 12 register accumulators; no horizontal sums */
AVX2 static void dp_tile6(const float *x, const float *pan, size_t d, float *o, size_t ldo, size_t w)
{
	const float *x0 = x, *x1 = x0 + d, *x2 = x1 + d, *x3 = x2 + d, *x4 = x3 + d, *x5 = x4 + d;
	__m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00,
	       a40 = a00, a41 = a00, a50 = a00, a51 = a00;
	size_t t;
	for (t = 0; t < d; t++) {
		__m256 b0 = _mm256_loadu_ps(pan + t * 16), b1 = _mm256_loadu_ps(pan + t * 16 + 8), xv;
		xv = _mm256_broadcast_ss(x0 + t);
		a00 = _mm256_fmadd_ps(xv, b0, a00);
		a01 = _mm256_fmadd_ps(xv, b1, a01);
		xv = _mm256_broadcast_ss(x1 + t);
		a10 = _mm256_fmadd_ps(xv, b0, a10);
		a11 = _mm256_fmadd_ps(xv, b1, a11);
		xv = _mm256_broadcast_ss(x2 + t);
		a20 = _mm256_fmadd_ps(xv, b0, a20);
		a21 = _mm256_fmadd_ps(xv, b1, a21);
		xv = _mm256_broadcast_ss(x3 + t);
		a30 = _mm256_fmadd_ps(xv, b0, a30);
		a31 = _mm256_fmadd_ps(xv, b1, a31);
		xv = _mm256_broadcast_ss(x4 + t);
		a40 = _mm256_fmadd_ps(xv, b0, a40);
		a41 = _mm256_fmadd_ps(xv, b1, a41);
		xv = _mm256_broadcast_ss(x5 + t);
		a50 = _mm256_fmadd_ps(xv, b0, a50);
		a51 = _mm256_fmadd_ps(xv, b1, a51);
	}
	dp_store(o, a00, a01, w);
	dp_store(o + ldo, a10, a11, w);
	dp_store(o + 2 * ldo, a20, a21, w);
	dp_store(o + 3 * ldo, a30, a31, w);
	dp_store(o + 4 * ldo, a40, a41, w);
	dp_store(o + 5 * ldo, a50, a51, w);
}

/* one row: the same per-lane FMA sequence as a row of dp_tile6 */
AVX2 static void dp_tile1(const float *x, const float *pan, size_t d, float *o, size_t w)
{
	__m256 c0 = _mm256_setzero_ps(), c1 = c0;
	size_t t;
	for (t = 0; t < d; t++) {
		__m256 xv = _mm256_broadcast_ss(x + t);
		c0 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(pan + t * 16), c0);
		c1 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(pan + t * 16 + 8), c1);
	}
	dp_store(o, c0, c1, w);
}

AVX2 static void a_dot_packed(const float *x, size_t np, const float *cp, size_t nc, size_t d, float *out)
{
	size_t p, npan = (nc + 15) / 16, i;
	for (p = 0; p < npan; p++) {
		const float *pan = cp + p * d * 16;
		size_t w = nc - p * 16 < 16 ? nc - p * 16 : 16;
		for (i = 0; i + 6 <= np; i += 6)
			dp_tile6(x + i * d, pan, d, out + i * nc + p * 16, nc, w);
		for (; i < np; i++)
			dp_tile1(x + i * d, pan, d, out + i * nc + p * 16, w);
	}
}

/* 2*dots is exact, so cn - 2*dots rounds once, fused or not: the same
 * values as the scalar loop, and the same (lowest) index on ties */
AVX2 static size_t a_argmin_bias(const float *cn, const float *dots, size_t k, float *best)
{
	size_t j = 0, bj = 0;
	float b = FLT_MAX;
	if (k >= 8) {
		__m256 bv = _mm256_set1_ps(FLT_MAX), two = _mm256_set1_ps(2.0f);
		__m256i bi = _mm256_setzero_si256(), idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
			step = _mm256_set1_epi32(8);
		for (; j + 8 <= k; j += 8) {
			__m256 dd = _mm256_sub_ps(_mm256_loadu_ps(cn + j), _mm256_mul_ps(two, _mm256_loadu_ps(dots + j)));
			__m256 lt = _mm256_cmp_ps(dd, bv, _CMP_LT_OQ);
			bv = _mm256_blendv_ps(bv, dd, lt);
			bi = _mm256_castps_si256(
				_mm256_blendv_ps(_mm256_castsi256_ps(bi), _mm256_castsi256_ps(idx), lt));
			idx = _mm256_add_epi32(idx, step);
		}
		argmin_reduce(bv, bi, &b, &bj);
	}
	for (; j < k; j++) {
		float dd = cn[j] - 2.0f * dots[j];
		if (dd < b) {
			b = dd;
			bj = j;
		}
	}
	*best = b;
	return bj;
}

static const pm_vkern avx2_kern = {a_l2,	  a_dot,	a_dot_many, a_sq_l2,	 a_sq_dot,   a_l2_many_t,
				   a_dot_many_t, a_l2_argmin_t, s_pq_scan8, a_dot_block, a_l2_ny,    a_dot_ny,
				   a_l2_tile,	 a_dot_tile,	a_dot_packed, a_argmin_bias, a_l2_argmin_t4, "avx2"};
#endif

static const pm_vkern *chosen = &scalar_kern;
static pthread_once_t pick_once = PTHREAD_ONCE_INIT;

static void pick(void)
{
#ifdef PM_VK_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		chosen = &avx2_kern;
#endif
}

const pm_vkern *pm_vkern_get(void)
{
	pthread_once(&pick_once, pick);
	return chosen;
}

/* ------------------------------------------------------------ public */

float pm_vdist(pm_vmetric m, const float *a, const float *b, size_t dim)
{
	const pm_vkern *k = pm_vkern_get();
	switch (m) {
	case PM_VMETRIC_L2:
		return k->l2(a, b, dim);
	case PM_VMETRIC_IP:
		return -k->dot(a, b, dim);
	case PM_VMETRIC_COSINE:
	default:
		return 1.0f - k->dot(a, b, dim);
	}
}

void pm_vnormalize(float *v, size_t dim)
{
	double s = 0;
	size_t i;
	for (i = 0; i < dim; i++)
		s += (double)v[i] * v[i];
	if (s > 0) {
		float inv = (float)(1.0 / sqrt(s));
		for (i = 0; i < dim; i++)
			v[i] *= inv;
	}
}
