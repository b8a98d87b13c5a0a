/*
 * arrow/arrow_builder.c - array builders and their ArrowArray export.
 */
#include <stdio.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"

static int is_offsets_kind(pm_ab_kind k)
{
	return k == PM_AB_BINARY || k == PM_AB_LARGE_BINARY || k == PM_AB_LIST || k == PM_AB_LARGE_LIST ||
	       k == PM_AB_MAP;
}

static int is_large(pm_ab_kind k)
{
	return k == PM_AB_LARGE_BINARY || k == PM_AB_LARGE_LIST;
}

static pm_array_builder *new_node(pm_ab_kind kind, const char *format)
{
	pm_array_builder *ab = pm_calloc(1, sizeof *ab);
	if (!ab)
		return NULL;
	ab->kind = kind;
	ab->nullable = 1;
	if (!(ab->format = pm_strdup(format))) {
		pm_free(ab);
		return NULL;
	}
	return ab;
}

void pm_ab_free(pm_array_builder *ab)
{
	int64_t i;
	if (!ab)
		return;
	for (i = 0; i < ab->n_children; i++)
		pm_ab_free(ab->children[i]);
	pm_free(ab->children);
	pm_bitmap_dispose(&ab->validity);
	pm_abuf_dispose(&ab->values);
	pm_abuf_dispose(&ab->offsets);
	pm_free(ab->format);
	pm_free(ab->name);
	pm_free(ab);
}

int pm_ab_set_name(pm_array_builder *ab, const char *name, int nullable)
{
	char *n = pm_strdup(name ? name : "");
	if (!n)
		return PAIMON_ENOMEM;
	pm_free(ab->name);
	ab->name = n;
	ab->nullable = nullable;
	return 0;
}

pm_array_builder *pm_ab_new_fixed(const char *format, int32_t width)
{
	pm_array_builder *ab;
	char fmt[24];
	if (width <= 0) {
		pm_err(PAIMON_EINVAL, "fixed-width builder needs a positive width, got %d", (int)width);
		return NULL;
	}
	if (!format) {
		snprintf(fmt, sizeof fmt, "w:%d", (int)width);
		format = fmt;
	}
	if ((ab = new_node(PM_AB_FIXED, format)))
		ab->width = width;
	return ab;
}

pm_array_builder *pm_ab_new_bool(void)
{
	return new_node(PM_AB_BOOL, "b");
}

pm_array_builder *pm_ab_new_binary(const char *format, int large)
{
	return new_node(large ? PM_AB_LARGE_BINARY : PM_AB_BINARY, format ? format : large ? "Z" : "z");
}

static pm_array_builder *adopt(pm_array_builder *ab, pm_array_builder **ch, int64_t n)
{
	int64_t i;
	if (ab && n > 0 && !(ab->children = pm_calloc((size_t)n, sizeof *ab->children))) {
		pm_ab_free(ab);
		ab = NULL;
	}
	if (!ab) {
		for (i = 0; i < n; i++)
			pm_ab_free(ch[i]);
		return NULL;
	}
	for (i = 0; i < n; i++)
		ab->children[i] = ch[i];
	ab->n_children = n;
	return ab;
}

pm_array_builder *pm_ab_new_list(pm_array_builder *child, int large)
{
	if (!child)
		return NULL;
	if (!child->name && pm_ab_set_name(child, "item", child->nullable)) {
		pm_ab_free(child);
		return NULL;
	}
	return adopt(new_node(large ? PM_AB_LARGE_LIST : PM_AB_LIST, large ? "+L" : "+l"), &child, 1);
}

pm_array_builder *pm_ab_new_fixed_list(pm_array_builder *child, int32_t size)
{
	char fmt[24];
	pm_array_builder *ab;
	if (!child)
		return NULL;
	if (size < 0) {
		pm_ab_free(child);
		pm_err(PAIMON_EINVAL, "fixed_size_list size %d is negative", (int)size);
		return NULL;
	}
	if (!child->name && pm_ab_set_name(child, "item", child->nullable)) {
		pm_ab_free(child);
		return NULL;
	}
	snprintf(fmt, sizeof fmt, "+w:%d", (int)size);
	ab = adopt(new_node(PM_AB_FIXED_LIST, fmt), &child, 1);
	if (ab)
		ab->width = size;
	return ab;
}

pm_array_builder *pm_ab_new_struct(pm_array_builder **children, int64_t n)
{
	int64_t i;
	for (i = 0; i < n; i++) {
		if (!children[i]) {
			int64_t j;
			for (j = 0; j < n; j++)
				pm_ab_free(children[j]);
			return NULL;
		}
	}
	return adopt(new_node(PM_AB_STRUCT, "+s"), children, n);
}

pm_array_builder *pm_ab_new_map(pm_array_builder *key, pm_array_builder *value, int keys_sorted)
{
	pm_array_builder *kv[2], *entries, *ab;
	kv[0] = key;
	kv[1] = value;
	if (!key || !value) {
		pm_ab_free(key);
		pm_ab_free(value);
		return NULL;
	}
	if ((!key->name && pm_ab_set_name(key, "key", 0)) || (!value->name && pm_ab_set_name(value, "value", 1))) {
		pm_ab_free(key);
		pm_ab_free(value);
		return NULL;
	}
	key->nullable = 0;
	if (!(entries = pm_ab_new_struct(kv, 2)))
		return NULL;
	if (pm_ab_set_name(entries, "entries", 0)) {
		pm_ab_free(entries);
		return NULL;
	}
	ab = adopt(new_node(PM_AB_MAP, "+m"), &entries, 1);
	if (ab)
		ab->width = keys_sorted ? 1 : 0;
	return ab;
}

/* ---------------------------------------------------------------- offsets */

/* The first offset (0) exists once anything touches the offsets. */
static int offsets_init(pm_array_builder *ab)
{
	if (ab->offsets.len == 0) {
		size_t w = is_large(ab->kind) ? 8 : 4;
		void *p = pm_abuf_grow(&ab->offsets, w);
		if (!p)
			return PAIMON_ENOMEM;
		memset(p, 0, w);
	}
	return 0;
}

static int64_t last_offset(const pm_array_builder *ab)
{
	if (ab->offsets.len == 0)
		return 0;
	if (is_large(ab->kind))
		return ((const int64_t *)(const void *)ab->offsets.data)[ab->offsets.len / 8 - 1];
	return ((const int32_t *)(const void *)ab->offsets.data)[ab->offsets.len / 4 - 1];
}

void *pm_ab_offsets_grow(pm_array_builder *ab, int64_t n)
{
	size_t w = is_large(ab->kind) ? 8 : 4;
	if (!is_offsets_kind(ab->kind)) {
		pm_err(PAIMON_EINVAL, "builder '%s' has no offsets", ab->format);
		return NULL;
	}
	if (n < 0 || (uint64_t)n > SIZE_MAX / 16) {
		pm_err(PAIMON_EINVAL, "bad offsets count %lld", (long long)n);
		return NULL;
	}
	if (offsets_init(ab))
		return NULL;
	return pm_abuf_grow(&ab->offsets, (size_t)n * w);
}

void *pm_ab_values_grow(pm_array_builder *ab, size_t nbytes)
{
	return pm_abuf_grow(&ab->values, nbytes);
}

/* Appends n offsets all equal to v. */
static int push_offsets(pm_array_builder *ab, int64_t n, int64_t v)
{
	void *p = pm_ab_offsets_grow(ab, n);
	int64_t i;
	if (!p)
		return pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
	if (is_large(ab->kind)) {
		int64_t *o = p;
		for (i = 0; i < n; i++)
			o[i] = v;
	} else {
		int32_t *o = p;
		for (i = 0; i < n; i++)
			o[i] = (int32_t)v;
	}
	return 0;
}

/* ---------------------------------------------------------------- appends */

int pm_ab_reserve(pm_array_builder *ab, int64_t n, size_t nbytes)
{
	if (n < 0)
		return pm_err(PAIMON_EINVAL, "negative reserve");
	if (ab->validity.buf.data && pm_abuf_reserve(&ab->validity.buf, (size_t)(n + 7) / 8 + 1))
		return PAIMON_ENOMEM;
	switch (ab->kind) {
	case PM_AB_FIXED:
		return pm_abuf_reserve(&ab->values, (size_t)n * (size_t)ab->width);
	case PM_AB_BOOL:
		return pm_abuf_reserve(&ab->values, (size_t)(n + 7) / 8 + 1);
	case PM_AB_BINARY:
	case PM_AB_LARGE_BINARY:
		if (pm_abuf_reserve(&ab->values, nbytes))
			return PAIMON_ENOMEM;
		/* fall through */
	case PM_AB_LIST:
	case PM_AB_LARGE_LIST:
	case PM_AB_MAP:
		if (offsets_init(ab))
			return PAIMON_ENOMEM;
		return pm_abuf_reserve(&ab->offsets, (size_t)n * (is_large(ab->kind) ? 8 : 4));
	default:
		return 0;
	}
}

static int bool_append_zero(pm_array_builder *ab, int64_t n)
{
	size_t need = (size_t)((ab->nbits + n + 7) >> 3);
	if (need > ab->values.len) {
		void *p = pm_abuf_grow(&ab->values, need - ab->values.len);
		if (!p)
			return PAIMON_ENOMEM;
		memset(p, 0, need - (size_t)(((char *)p) - (char *)ab->values.data));
	}
	pm_bits_set_range(ab->values.data, ab->nbits, n, 0);
	ab->nbits += n;
	return 0;
}

int pm_ab_append_nulls(pm_array_builder *ab, int64_t n)
{
	int rc;
	int64_t i;
	if (n < 0)
		return pm_err(PAIMON_EINVAL, "negative null count %lld", (long long)n);
	if (n == 0)
		return 0;
	switch (ab->kind) {
	case PM_AB_FIXED: {
		void *p;
		if ((uint64_t)n > SIZE_MAX / 2 / (uint64_t)ab->width)
			return pm_err_nomem(SIZE_MAX);
		if (!(p = pm_abuf_grow(&ab->values, (size_t)n * (size_t)ab->width)))
			return PAIMON_ENOMEM;
		memset(p, 0, (size_t)n * (size_t)ab->width);
		break;
	}
	case PM_AB_BOOL:
		if ((rc = bool_append_zero(ab, n)))
			return rc;
		break;
	case PM_AB_BINARY:
	case PM_AB_LARGE_BINARY:
	case PM_AB_LIST:
	case PM_AB_LARGE_LIST:
	case PM_AB_MAP:
		if ((rc = push_offsets(ab, n, last_offset(ab))))
			return rc;
		break;
	case PM_AB_FIXED_LIST:
		if ((rc = pm_ab_append_nulls(ab->children[0], n * ab->width)))
			return rc;
		break;
	case PM_AB_STRUCT:
		for (i = 0; i < ab->n_children; i++)
			if ((rc = pm_ab_append_nulls(ab->children[i], n)))
				return rc;
		break;
	}
	return pm_bitmap_append_run(&ab->validity, 0, n);
}

int pm_ab_append_fixed(pm_array_builder *ab, const void *vals, int64_t n)
{
	if (ab->kind != PM_AB_FIXED || n < 0)
		return pm_err(PAIMON_EINVAL, "append_fixed on builder '%s'", ab->format);
	if ((uint64_t)n > SIZE_MAX / 2 / (uint64_t)ab->width)
		return pm_err_nomem(SIZE_MAX);
	if (pm_abuf_append(&ab->values, vals, (size_t)n * (size_t)ab->width))
		return PAIMON_ENOMEM;
	return pm_bitmap_append_run(&ab->validity, 1, n);
}

int pm_ab_append_fixed_repeat(pm_array_builder *ab, const void *val, int64_t n)
{
	uint8_t *p;
	size_t w = (size_t)ab->width;
	int64_t i;
	if (ab->kind != PM_AB_FIXED || n < 0)
		return pm_err(PAIMON_EINVAL, "append_fixed_repeat on builder '%s'", ab->format);
	if ((uint64_t)n > SIZE_MAX / 2 / w)
		return pm_err_nomem(SIZE_MAX);
	if (!(p = pm_abuf_grow(&ab->values, (size_t)n * w)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n; i++)
		memcpy(p + (size_t)i * w, val, w);
	return pm_bitmap_append_run(&ab->validity, 1, n);
}

int pm_ab_append_bool_bits(pm_array_builder *ab, const uint8_t *bits, int64_t src_off, int64_t n)
{
	int rc;
	if (ab->kind != PM_AB_BOOL || n < 0)
		return pm_err(PAIMON_EINVAL, "append_bool on builder '%s'", ab->format);
	if ((rc = bool_append_zero(ab, n)))
		return rc;
	pm_bits_copy(ab->values.data, ab->nbits - n, bits, src_off, n);
	return pm_bitmap_append_run(&ab->validity, 1, n);
}

int pm_ab_append_bools(pm_array_builder *ab, const uint8_t *vals, int64_t n)
{
	int rc;
	int64_t i, base;
	if (ab->kind != PM_AB_BOOL || n < 0)
		return pm_err(PAIMON_EINVAL, "append_bool on builder '%s'", ab->format);
	base = ab->nbits;
	if ((rc = bool_append_zero(ab, n)))
		return rc;
	for (i = 0; i < n; i++)
		if (vals[i])
			ab->values.data[(base + i) >> 3] |= (uint8_t)(1u << ((base + i) & 7));
	return pm_bitmap_append_run(&ab->validity, 1, n);
}

int pm_ab_append_binary(pm_array_builder *ab, const void *p, size_t len)
{
	int64_t end;
	if (ab->kind != PM_AB_BINARY && ab->kind != PM_AB_LARGE_BINARY)
		return pm_err(PAIMON_EINVAL, "append_binary on builder '%s'", ab->format);
	end = (int64_t)ab->values.len + (int64_t)len;
	if (ab->kind == PM_AB_BINARY && (len > INT32_MAX || end > INT32_MAX))
		return pm_err(PAIMON_EINVAL,
			"binary array '%s' would exceed the int32 offset limit (%lld bytes); use a large type",
			ab->format, (long long)end);
	if (offsets_init(ab) || pm_abuf_append(&ab->values, p, len))
		return PAIMON_ENOMEM;
	if (push_offsets(ab, 1, end))
		return PAIMON_ENOMEM;
	return pm_bitmap_append_run(&ab->validity, 1, 1);
}

int pm_ab_append_list(pm_array_builder *ab, int64_t count)
{
	int64_t end;
	int rc;
	if (ab->kind != PM_AB_LIST && ab->kind != PM_AB_LARGE_LIST && ab->kind != PM_AB_MAP)
		return pm_err(PAIMON_EINVAL, "append_list on builder '%s'", ab->format);
	if (count < 0)
		return pm_err(PAIMON_EINVAL, "negative list length %lld", (long long)count);
	end = last_offset(ab) + count;
	if (!is_large(ab->kind) && end > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "list array '%s' would exceed the int32 offset limit (%lld entries)",
			ab->format, (long long)end);
	if ((rc = push_offsets(ab, 1, end)))
		return rc;
	return pm_bitmap_append_run(&ab->validity, 1, 1);
}

int pm_ab_append_valid(pm_array_builder *ab, int64_t n)
{
	if (ab->kind != PM_AB_FIXED_LIST && ab->kind != PM_AB_STRUCT)
		return pm_err(PAIMON_EINVAL, "append_valid on builder '%s'", ab->format);
	return pm_bitmap_append_run(&ab->validity, 1, n);
}

/* ---------------------------------------------------------------- validate */

int pm_ab_validate(const pm_array_builder *ab)
{
	int64_t n = pm_ab_length(ab), i;
	int rc;
	for (i = 0; i < ab->n_children; i++)
		if ((rc = pm_ab_validate(ab->children[i])))
			return rc;
	switch (ab->kind) {
	case PM_AB_FIXED:
		if (ab->values.len != (size_t)n * (size_t)ab->width)
			return pm_err(PAIMON_EINVAL, "array '%s': %zu value bytes for %lld entries of %d bytes",
				ab->format, ab->values.len, (long long)n, (int)ab->width);
		break;
	case PM_AB_BOOL:
		if (ab->nbits != n)
			return pm_err(PAIMON_EINVAL, "array 'b': %lld values for %lld entries", (long long)ab->nbits,
				(long long)n);
		break;
	case PM_AB_BINARY:
	case PM_AB_LARGE_BINARY:
	case PM_AB_LIST:
	case PM_AB_LARGE_LIST:
	case PM_AB_MAP: {
		size_t w = is_large(ab->kind) ? 8 : 4;
		int64_t want_end;
		if (ab->offsets.len != (n ? (size_t)(n + 1) * w : ab->offsets.len ? w : 0))
			return pm_err(PAIMON_EINVAL, "array '%s': %zu offset bytes for %lld entries", ab->format,
				ab->offsets.len, (long long)n);
		want_end = (ab->kind == PM_AB_BINARY || ab->kind == PM_AB_LARGE_BINARY)
			? (int64_t)ab->values.len : pm_ab_length(ab->children[0]);
		if (last_offset(ab) != want_end)
			return pm_err(PAIMON_EINVAL, "array '%s': last offset %lld, child/data length %lld", ab->format,
				(long long)last_offset(ab), (long long)want_end);
		break;
	}
	case PM_AB_FIXED_LIST:
		if (pm_ab_length(ab->children[0]) != n * ab->width)
			return pm_err(PAIMON_EINVAL, "fixed_size_list: child length %lld, want %lld",
				(long long)pm_ab_length(ab->children[0]), (long long)(n * ab->width));
		break;
	case PM_AB_STRUCT:
		for (i = 0; i < ab->n_children; i++)
			if (pm_ab_length(ab->children[i]) != n)
				return pm_err(PAIMON_EINVAL, "struct: child %lld has length %lld, struct %lld", (long long)i,
					(long long)pm_ab_length(ab->children[i]), (long long)n);
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------- finish */

/* One allocation per node: this header, buffer pointers, child pointers and child structs. */
typedef struct arr_priv {
	void *raw[3];
	const void *bufs[3];
	struct ArrowArray **children;
	struct ArrowArray *child_arrays;
	int64_t n_children;
	struct arr_priv **child_privs; /* only during finish */
} arr_priv;

static void release_array(struct ArrowArray *a)
{
	arr_priv *pd;
	int64_t i;
	if (!a || !a->release)
		return;
	pd = a->private_data;
	for (i = 0; i < pd->n_children; i++) {
		struct ArrowArray *c = pd->children[i];
		if (c && c->release)
			c->release(c);
	}
	for (i = 0; i < 3; i++)
		pm_abuf_raw_free(pd->raw[i]);
	pm_free(pd);
	a->release = NULL;
	a->private_data = NULL;
}

static void free_privs(arr_priv *pd)
{
	int64_t i;
	if (!pd)
		return;
	for (i = 0; i < pd->n_children; i++)
		free_privs(pd->child_privs[i]);
	pm_free(pd);
}

/* Pass 1: every allocation, so pass 2 cannot fail. */
static int alloc_privs(pm_array_builder *ab, arr_priv **out)
{
	int64_t n = ab->n_children, i;
	size_t sz = sizeof(arr_priv) + (size_t)n * (sizeof(struct ArrowArray *) + sizeof(struct ArrowArray) +
		sizeof(arr_priv *));
	arr_priv *pd = pm_calloc(1, sz);
	*out = pd;
	if (!pd)
		return PAIMON_ENOMEM;
	/* layout after the header: child arrays, child pointers, child privs */
	pd->child_arrays = (struct ArrowArray *)(void *)(pd + 1);
	pd->children = (struct ArrowArray **)(void *)(pd->child_arrays + n);
	pd->child_privs = (arr_priv **)(void *)(pd->children + n);
	for (i = 0; i < n; i++) {
		int rc = alloc_privs(ab->children[i], &pd->child_privs[i]);
		pd->n_children = i + 1;
		if (rc)
			return rc;
	}
	/* buffers that must exist even when empty */
	if (is_offsets_kind(ab->kind) && offsets_init(ab))
		return PAIMON_ENOMEM;
	if (ab->kind == PM_AB_FIXED || ab->kind == PM_AB_BOOL || ab->kind == PM_AB_BINARY ||
	    ab->kind == PM_AB_LARGE_BINARY)
		if (pm_abuf_reserve(&ab->values, 0))
			return PAIMON_ENOMEM;
	return 0;
}

/* Zeroes the bytes from len to the next 64-byte boundary. */
static void pad(pm_abuf *b)
{
	size_t end;
	if (!b->data)
		return;
	end = (b->len + PM_ARROW_ALIGN - 1) & ~(size_t)(PM_ARROW_ALIGN - 1);
	if (end > b->cap)
		end = b->cap;
	memset(b->data + b->len, 0, end - b->len);
}

static void take(pm_abuf *b, arr_priv *pd, int slot)
{
	pad(b);
	pd->raw[slot] = b->raw;
	pd->bufs[slot] = b->data;
	memset(b, 0, sizeof *b);
}

/* Pass 2: move buffers, recursively. */
static void fill(pm_array_builder *ab, arr_priv *pd, struct ArrowArray *out)
{
	int64_t i;
	memset(out, 0, sizeof *out);
	out->length = pm_ab_length(ab);
	out->null_count = ab->validity.null_count;
	out->buffers = pd->bufs;
	out->private_data = pd;
	out->release = release_array;
	if (ab->validity.null_count > 0)
		take(&ab->validity.buf, pd, 0);
	pm_bitmap_dispose(&ab->validity);
	switch (ab->kind) {
	case PM_AB_FIXED:
	case PM_AB_BOOL:
		take(&ab->values, pd, 1);
		ab->nbits = 0;
		out->n_buffers = 2;
		break;
	case PM_AB_BINARY:
	case PM_AB_LARGE_BINARY:
		take(&ab->offsets, pd, 1);
		take(&ab->values, pd, 2);
		out->n_buffers = 3;
		break;
	case PM_AB_LIST:
	case PM_AB_LARGE_LIST:
	case PM_AB_MAP:
		take(&ab->offsets, pd, 1);
		out->n_buffers = 2;
		break;
	case PM_AB_FIXED_LIST:
	case PM_AB_STRUCT:
		out->n_buffers = 1;
		break;
	}
	for (i = 0; i < ab->n_children; i++) {
		pd->children[i] = &pd->child_arrays[i];
		fill(ab->children[i], pd->child_privs[i], pd->children[i]);
	}
	pd->child_privs = NULL;
	pd->n_children = ab->n_children;
	out->n_children = ab->n_children;
	out->children = ab->n_children ? pd->children : NULL;
}

/* Children structs live inside the parent's allocation, so the parent's
 * private data must free only the top-level block; child privs are separate
 * allocations freed by each child's release. */
int pm_ab_finish(pm_array_builder *ab, struct ArrowArray *out)
{
	arr_priv *pd = NULL;
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = pm_ab_validate(ab)))
		return rc;
	if ((rc = alloc_privs(ab, &pd))) {
		free_privs(pd);
		return rc;
	}
	fill(ab, pd, out);
	return 0;
}

/* ---------------------------------------------------------------- schema */

static int schema_node(const pm_array_builder *ab, struct ArrowSchema *out)
{
	int64_t flags = ab->nullable ? ARROW_FLAG_NULLABLE : 0, i;
	int rc;
	if (ab->kind == PM_AB_MAP && ab->width)
		flags |= ARROW_FLAG_MAP_KEYS_SORTED;
	if ((rc = pm_aschema_init(out, ab->format, ab->name ? ab->name : "", flags, ab->n_children)))
		return rc;
	for (i = 0; i < ab->n_children; i++)
		if ((rc = schema_node(ab->children[i], out->children[i])))
			return rc;
	return 0;
}

int pm_ab_schema(const pm_array_builder *ab, struct ArrowSchema *out)
{
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = schema_node(ab, out)) && out->release)
		out->release(out);
	return rc;
}
