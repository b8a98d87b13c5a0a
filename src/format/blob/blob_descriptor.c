/*
 * format/blob/blob_descriptor.c - BlobDescriptor and BlobViewStruct
 * serialized forms (see blob_descriptor.h).
 */
#include "format/blob/blob_descriptor.h"

#include <inttypes.h>
#include <string.h>

#include "core/endian.h"
#include "core/error.h"
#include "core/mem.h"

/* Strict UTF-8 (as Python's decoder: no overlong forms, no surrogates,
 * nothing above U+10FFFF): the length of the valid prefix. */
static size_t utf8_valid_prefix(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = s[i];
		size_t k;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			k = 1;
			cp = c & 0x1f;
			min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2;
			cp = c & 0x0f;
			min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3;
			cp = c & 0x07;
			min = 0x10000;
		} else {
			return i;
		}
		if (n - i <= k)
			return i;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += k + 1;
	}
	return n;
}

/* ---------------------------------------------------------------- BlobDescriptor */

int pm_blob_descriptor_encode(const char *uri, size_t uri_len, int64_t offset, int64_t length,
			      pm_buf *out)
{
	uint8_t h[13], t[16];
	int rc;
	if (uri_len > (size_t)INT32_MAX)
		return pm_err(PAIMON_EINVAL, "BlobDescriptor: URI of %zu bytes is too long", uri_len);
	if (utf8_valid_prefix((const uint8_t *)uri, uri_len) != uri_len)
		return pm_err(PAIMON_EINVAL, "BlobDescriptor: URI is not valid UTF-8");
	if (offset < 0 || length < -1)
		return pm_err(PAIMON_EINVAL, "BlobDescriptor: bad offset %" PRId64 " / length %" PRId64
			      " (offset >= 0, length >= -1)", offset, length);
	h[0] = PM_BLOB_DESC_VERSION;
	pm_le64_put(h + 1, PM_BLOB_DESC_MAGIC);
	pm_le32_put(h + 9, (uint32_t)uri_len);
	pm_le64_put(t, (uint64_t)offset);
	pm_le64_put(t + 8, (uint64_t)length);
	if ((rc = pm_buf_reserve(out, sizeof h + uri_len + sizeof t)))
		return rc;
	if ((rc = pm_buf_append(out, h, sizeof h)) || (rc = pm_buf_append(out, uri, uri_len)) ||
	    (rc = pm_buf_append(out, t, sizeof t)))
		return rc;
	return 0;
}

int pm_blob_descriptor_decode(const void *data, size_t len, int allow_trailing, pm_blob_descriptor *out)
{
	const uint8_t *p = data;
	size_t pos = 1;
	uint32_t ulen;
	memset(out, 0, sizeof *out);
	if (len < 1)
		return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: empty input");
	if (p[0] != 1 && p[0] != 2)
		return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: unsupported version %u (expected 1 or 2)", p[0]);
	if (p[0] == 2) {
		if (len < 9)
			return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: %zu bytes, too short for the magic", len);
		if (pm_le64_get(p + 1) != PM_BLOB_DESC_MAGIC)
			return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: missing magic header (found 0x%016" PRIx64 ")",
				      pm_le64_get(p + 1));
		pos = 9;
	}
	if (len - pos < 4)
		return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: %zu bytes, too short for the URI length", len);
	ulen = pm_le32_get(p + pos);
	pos += 4;
	if (ulen > (uint32_t)INT32_MAX)
		return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: negative URI length %" PRId32, (int32_t)ulen);
	if (ulen > len - pos || len - pos - ulen < 16)
		return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: URI length %" PRIu32 " leaves no room for offset and"
			      " length in %zu bytes", ulen, len);
	if (!allow_trailing && len - pos - ulen != 16)
		return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: %zu trailing bytes", len - pos - ulen - 16);
	if (utf8_valid_prefix(p + pos, ulen) != ulen)
		return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: URI is not valid UTF-8 (byte %zu)",
			      utf8_valid_prefix(p + pos, ulen));
	out->offset = (int64_t)pm_le64_get(p + pos + ulen);
	out->length = (int64_t)pm_le64_get(p + pos + ulen + 8);
	if (out->offset < 0 || out->length < -1) {
		int64_t o = out->offset, l = out->length;
		memset(out, 0, sizeof *out);
		return pm_err(PAIMON_ECORRUPT, "BlobDescriptor: bad offset %" PRId64 " / length %" PRId64, o, l);
	}
	if (!(out->uri = pm_strndup((const char *)p + pos, ulen))) {
		memset(out, 0, sizeof *out);
		return PAIMON_ENOMEM;
	}
	out->uri_len = ulen;
	out->version = p[0];
	return 0;
}

void pm_blob_descriptor_dispose(pm_blob_descriptor *d)
{
	if (!d)
		return;
	pm_free(d->uri);
	memset(d, 0, sizeof *d);
}

int pm_blob_descriptor_is(const void *data, size_t len)
{
	const uint8_t *p = data;
	return len >= 9 && p[0] == PM_BLOB_DESC_VERSION && pm_le64_get(p + 1) == PM_BLOB_DESC_MAGIC;
}

/* ---------------------------------------------------------------- BlobViewStruct */

/* pypaimon Identifier.from_string: non-blank, and "db.object". */
static const char *identifier_problem(const char *id, size_t n)
{
	size_t i;
	int blank = 1;
	if (utf8_valid_prefix((const uint8_t *)id, n) != n)
		return "is not valid UTF-8";
	for (i = 0; i < n; i++)
		if (id[i] != ' ' && id[i] != '\t' && id[i] != '\n' && id[i] != '\r' && id[i] != '\f' && id[i] != '\v')
			blank = 0;
	if (blank)
		return "is empty";
	if (!memchr(id, '.', n))
		return "has no '.' between database and object";
	if (memchr(id, '\0', n))
		return "contains a NUL byte";
	return NULL;
}

int pm_blob_view_encode(const char *identifier, size_t identifier_len, int32_t field_id, int64_t row_id,
			pm_buf *out)
{
	uint8_t h[13], t[12];
	const char *why;
	int rc;
	if (identifier_len > (size_t)INT32_MAX)
		return pm_err(PAIMON_EINVAL, "BlobViewStruct: identifier of %zu bytes is too long", identifier_len);
	if ((why = identifier_problem(identifier, identifier_len)))
		return pm_err(PAIMON_EINVAL, "BlobViewStruct: identifier '%.*s' %s", (int)(identifier_len > 200 ? 200 : identifier_len),
			      identifier, why);
	h[0] = PM_BLOB_VIEW_VERSION;
	pm_le64_put(h + 1, PM_BLOB_VIEW_MAGIC);
	pm_le32_put(h + 9, (uint32_t)identifier_len);
	pm_le32_put(t, (uint32_t)field_id);
	pm_le64_put(t + 4, (uint64_t)row_id);
	if ((rc = pm_buf_reserve(out, sizeof h + identifier_len + sizeof t)))
		return rc;
	if ((rc = pm_buf_append(out, h, sizeof h)) || (rc = pm_buf_append(out, identifier, identifier_len)) ||
	    (rc = pm_buf_append(out, t, sizeof t)))
		return rc;
	return 0;
}

int pm_blob_view_decode(const void *data, size_t len, pm_blob_view *out)
{
	const uint8_t *p = data;
	uint32_t ilen;
	const char *why;
	memset(out, 0, sizeof *out);
	if (len < 25)
		return pm_err(PAIMON_ECORRUPT, "BlobViewStruct: %zu bytes, too short (at least 25)", len);
	if (p[0] != PM_BLOB_VIEW_VERSION)
		return pm_err(PAIMON_ECORRUPT, "BlobViewStruct: unsupported version %u (expected 1)", p[0]);
	if (pm_le64_get(p + 1) != PM_BLOB_VIEW_MAGIC)
		return pm_err(PAIMON_ECORRUPT, "BlobViewStruct: missing magic header (found 0x%016" PRIx64 ")",
			      pm_le64_get(p + 1));
	ilen = pm_le32_get(p + 9);
	if (ilen > len - 25)
		return pm_err(PAIMON_ECORRUPT, "BlobViewStruct: identifier length %" PRIu32 " exceeds the %zu bytes",
			      ilen, len);
	if (len - 25 != ilen)
		return pm_err(PAIMON_ECORRUPT, "BlobViewStruct: %zu trailing bytes", len - 25 - ilen);
	if ((why = identifier_problem((const char *)p + 13, ilen)))
		return pm_err(PAIMON_ECORRUPT, "BlobViewStruct: identifier %s", why);
	if (!(out->identifier = pm_strndup((const char *)p + 13, ilen)))
		return PAIMON_ENOMEM;
	out->identifier_len = ilen;
	out->field_id = (int32_t)pm_le32_get(p + 13 + ilen);
	out->row_id = (int64_t)pm_le64_get(p + 17 + ilen);
	return 0;
}

void pm_blob_view_dispose(pm_blob_view *v)
{
	if (!v)
		return;
	pm_free(v->identifier);
	memset(v, 0, sizeof *v);
}

int pm_blob_view_is(const void *data, size_t len)
{
	const uint8_t *p = data;
	return len >= 9 && p[0] == PM_BLOB_VIEW_VERSION && pm_le64_get(p + 1) == PM_BLOB_VIEW_MAGIC;
}
