/*
 * index/ftenvelope.c - the PFTIDX01 envelope validator (see ftenvelope.h).
 */
#include "index/ftenvelope.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int pm_ft_envelope_prefix(const uint8_t *prefix, uint64_t file_size, const char *path, uint32_t *header_len)
{
	uint32_t v, h;
	*header_len = 0;
	if (file_size < PM_FT_PREFIX_LEN)
		return pm_err(PAIMON_ECORRUPT, "full-text index file '%s' has %llu bytes, less than the 16-byte "
			      "PFTIDX01 prefix", path, (unsigned long long)file_size);
	if (memcmp(prefix, PM_FT_MAGIC, 8) != 0)
		return pm_err(PAIMON_ECORRUPT, "full-text index file '%s' does not start with the magic PFTIDX01", path);
	if ((v = be32(prefix + 8)) != PM_FT_VERSION)
		return pm_err(PAIMON_ECORRUPT, "full-text index file '%s' has envelope version %u (only 1 is known)",
			      path, (unsigned)v);
	h = be32(prefix + 12);
	if (h > PM_FT_MAX_HEADER)
		return pm_err(PAIMON_ECORRUPT, "full-text index file '%s' declares a %u-byte header (at most 16 MiB)",
			      path, (unsigned)h);
	if ((uint64_t)h > file_size - PM_FT_PREFIX_LEN)
		return pm_err(PAIMON_ECORRUPT, "full-text index file '%s' declares a %u-byte header, but has only %llu "
			      "bytes after its prefix", path, (unsigned)h,
			      (unsigned long long)(file_size - PM_FT_PREFIX_LEN));
	*header_len = h;
	return 0;
}

typedef struct ft_range {
	uint64_t start, end;
	const char *name;
} ft_range;

static int cmp_range(const void *x, const void *y)
{
	const ft_range *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int cmp_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A plain file name, as the engine requires (one normal path component). */
static int plain_name(const char *s, size_t n)
{
	if (n == 0 || memchr(s, '/', n) || memchr(s, '\0', n))
		return 0;
	return !(n == 1 && s[0] == '.') && !(n == 2 && s[0] == '.' && s[1] == '.');
}

int pm_ft_envelope_header(const char *json, size_t len, uint64_t body_size, const char *path)
{
	json_error_t jerr;
	json_t *root, *files;
	ft_range *r = NULL;
	size_t n, i;
	int rc = 0;
	root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return pm_err(PAIMON_ECORRUPT, "full-text index file '%s': header is not valid JSON (%s at byte %d)", path,
			      jerr.text, jerr.position);
	if (!json_is_object(root)) {
		rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': header is not a JSON object", path);
		goto out;
	}
	files = json_object_get(root, "files");
	if (!files || !json_is_array(files) || (n = json_array_size(files)) == 0) {
		rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': header has no 'files' table (a non-empty array)",
			    path);
		goto out;
	}
	if (!(r = pm_calloc(n, sizeof *r))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		json_t *e = json_array_get(files, i), *jn, *jo, *jl;
		json_int_t off, ln;
		if (!json_is_object(e)) {
			rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': files[%zu] is not an object", path, i);
			goto out;
		}
		jn = json_object_get(e, "name");
		jo = json_object_get(e, "offset");
		jl = json_object_get(e, "length");
		if (!json_is_string(jn) || !plain_name(json_string_value(jn), json_string_length(jn))) {
			rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': files[%zu] has no plain file name", path, i);
			goto out;
		}
		r[i].name = json_string_value(jn);
		if (!json_is_integer(jo) || !json_is_integer(jl) || (off = json_integer_value(jo)) < 0 ||
		    (ln = json_integer_value(jl)) < 0) {
			rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': archive file '%s' has no non-negative "
				    "integer offset and length", path, r[i].name);
			goto out;
		}
		if ((uint64_t)off > body_size || (uint64_t)ln > body_size - (uint64_t)off) {
			rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': archive file '%s' (offset %lld, %lld bytes) "
				    "lies outside the %llu-byte body", path, r[i].name, (long long)off, (long long)ln,
				    (unsigned long long)body_size);
			goto out;
		}
		r[i].start = (uint64_t)off;
		r[i].end = (uint64_t)off + (uint64_t)ln;
	}
	/* unique names (n is bounded by the 16 MiB header; sort a copy) */
	{
		const char **names = pm_malloc(n * sizeof *names);
		if (!names) {
			rc = PAIMON_ENOMEM;
			goto out;
		}
		for (i = 0; i < n; i++)
			names[i] = r[i].name;
		qsort(names, n, sizeof *names, cmp_name);
		for (i = 1; i < n && !rc; i++)
			if (!strcmp(names[i - 1], names[i]))
				rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': archive file '%s' is listed twice",
					    path, names[i]);
		pm_free(names);
		if (rc)
			goto out;
	}
	qsort(r, n, sizeof *r, cmp_range);
	{
		size_t far = 0; /* the range reaching furthest so far */
		for (i = 1; i < n; i++) {
			if (r[i].start < r[far].end) {
				rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': archive files '%s' [%llu, %llu) and "
					    "'%s' [%llu, %llu) overlap", path, r[far].name, (unsigned long long)r[far].start,
					    (unsigned long long)r[far].end, r[i].name, (unsigned long long)r[i].start,
					    (unsigned long long)r[i].end);
				goto out;
			}
			if (r[i].end >= r[far].end)
				far = i;
		}
	}
	{
		json_t *md = json_object_get(root, "metadata");
		if (md && !json_is_object(md))
			rc = pm_err(PAIMON_ECORRUPT, "full-text index file '%s': header 'metadata' is not an object", path);
	}
out:
	pm_free(r);
	json_decref(root);
	return rc;
}

int pm_ft_envelope_check(const void *data, size_t n, const char *path)
{
	uint32_t h;
	int rc;
	if ((rc = pm_ft_envelope_prefix(data, n, path, &h)) != 0)
		return rc;
	return pm_ft_envelope_header((const char *)data + PM_FT_PREFIX_LEN, h, n - PM_FT_PREFIX_LEN - h, path);
}
