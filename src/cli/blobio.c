/*
 * blobio.c - BLOB helpers of the paimonc CLI: BlobDescriptor bytes, the
 * local-file policy, chunked range copies and SHA-256. See blobio.h.
 */
#include "blobio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 20)

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	int i;
	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int cli_blob_is_desc(const uint8_t *p, size_t n)
{
	return n >= 9 && p[0] == 2 && get_le64(p + 1) == CLI_BLOB_DESC_MAGIC;
}

int cli_blob_desc_decode(const uint8_t *p, size_t n, cli_blob_desc *d, char *err, size_t errsz)
{
	size_t pos = 1;
	uint32_t ulen;
	memset(d, 0, sizeof *d);
	if (n < 1 || (p[0] != 1 && p[0] != 2)) {
		snprintf(err, errsz, "not a BlobDescriptor (%s)", n < 1 ? "empty" : "unknown version byte");
		return -1;
	}
	if (p[0] == 2) {
		if (n < 9 || get_le64(p + 1) != CLI_BLOB_DESC_MAGIC) {
			snprintf(err, errsz, "not a BlobDescriptor (no magic after version 2)");
			return -1;
		}
		pos = 9;
	}
	if (n - pos < 4) {
		snprintf(err, errsz, "BlobDescriptor of %zu bytes is too short", n);
		return -1;
	}
	ulen = get_le32(p + pos);
	pos += 4;
	if (ulen > (uint32_t)INT32_MAX || ulen > n - pos || n - pos - ulen != 16) {
		snprintf(err, errsz, "BlobDescriptor: URI length %" PRIu32 " does not fit its %zu bytes", ulen, n);
		return -1;
	}
	if (memchr(p + pos, 0, ulen)) {
		snprintf(err, errsz, "BlobDescriptor: URI holds a NUL byte");
		return -1;
	}
	d->offset = (int64_t)get_le64(p + pos + ulen);
	d->length = (int64_t)get_le64(p + pos + ulen + 8);
	if (d->offset < 0 || d->length < -1) {
		snprintf(err, errsz, "BlobDescriptor: bad offset %" PRId64 " / length %" PRId64, d->offset, d->length);
		memset(d, 0, sizeof *d);
		return -1;
	}
	if (!(d->uri = malloc((size_t)ulen + 1))) {
		memset(d, 0, sizeof *d);
		err[0] = 0;
		return -2;
	}
	memcpy(d->uri, p + pos, ulen);
	d->uri[ulen] = 0;
	d->version = p[0];
	return 0;
}

void cli_blob_desc_dispose(cli_blob_desc *d)
{
	free(d->uri);
	memset(d, 0, sizeof *d);
}

int cli_blob_desc_encode(const char *uri, int64_t offset, int64_t length, uint8_t **out, size_t *outlen)
{
	size_t ulen = strlen(uri);
	uint8_t *b;
	if (ulen > (size_t)INT32_MAX || !(b = malloc(13 + ulen + 16)))
		return -1;
	b[0] = 2;
	put_le64(b + 1, CLI_BLOB_DESC_MAGIC);
	b[9] = (uint8_t)ulen;
	b[10] = (uint8_t)(ulen >> 8);
	b[11] = (uint8_t)(ulen >> 16);
	b[12] = (uint8_t)(ulen >> 24);
	memcpy(b + 13, uri, ulen);
	put_le64(b + 13 + ulen, (uint64_t)offset);
	put_le64(b + 13 + ulen + 8, (uint64_t)length);
	*out = b;
	*outlen = 13 + ulen + 16;
	return 0;
}

/* ---------------------------------------------------------------- policy */

/* "/abs" or "rel" from the URI forms accepted; NULL for other schemes. */
static const char *strip_scheme(const char *uri)
{
	const char *c;
	if (!strncmp(uri, "file://", 7))
		return uri[7] == '/' ? uri + 7 : NULL;
	if (!strncmp(uri, "file:", 5))
		return uri[5] == '/' ? uri + 5 : NULL;
	/* "s3://...", "oss:..." and the like: a scheme before any '/' */
	c = strchr(uri, ':');
	if (c && (!strchr(uri, '/') || c < strchr(uri, '/')))
		return NULL;
	return uri;
}

/* Absolute form of p (cwd prepended when relative), trailing '/' dropped. */
static char *absolute(const char *p)
{
	char cwd[PATH_MAX];
	size_t n;
	char *r;
	if (p[0] == '/') {
		r = strdup(p);
	} else {
		if (!getcwd(cwd, sizeof cwd))
			return NULL;
		n = strlen(cwd) + strlen(p) + 2;
		if ((r = malloc(n)))
			snprintf(r, n, "%s/%s", cwd, p);
	}
	if (!r)
		return NULL;
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		r[--n] = 0;
	return r;
}

static int has_dot_segment(const char *p)
{
	while (*p) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

/* path under dir (dlen bytes, no trailing '/' except the root). */
static int under(const char *path, const char *dir, size_t dlen)
{
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	if (dlen == 1 && dir[0] == '/')
		return path[0] == '/';
	return dlen && !strncmp(path, dir, dlen) && path[dlen] == '/';
}

char *cli_blob_local_file(const char *uri, const char *warehouse, const char *prefixes, char *err, size_t errsz)
{
	const char *p = strip_scheme(uri), *v;
	char *path = NULL, *wh = NULL;
	int ok = 0;
	err[0] = 0;
	if (!p) {
		snprintf(err, errsz, "blob location '%s' is not a local path", uri);
		return NULL;
	}
	if (!(path = absolute(p)))
		goto oom;
	if (has_dot_segment(path)) {
		snprintf(err, errsz, "blob location '%s' has '.' or '..' components", uri);
		free(path);
		return NULL;
	}
	if (warehouse) {
		const char *w = strip_scheme(warehouse);
		if (w) {
			if (!(wh = absolute(w)))
				goto oom;
			ok = under(path, wh, strlen(wh));
		}
	}
	for (v = prefixes; !ok && v && *v;) {
		const char *e = strchr(v, ',');
		size_t len = e ? (size_t)(e - v) : strlen(v);
		const char *d = v;
		while (len && *d == ' ')
			d++, len--;
		while (len && d[len - 1] == ' ')
			len--;
		if (len >= 7 && !strncmp(d, "file://", 7))
			d += 7, len -= 7;
		else if (len >= 5 && !strncmp(d, "file:", 5))
			d += 5, len -= 5;
		if (len && d[0] == '/' && under(path, d, len))
			ok = 1;
		v = e ? e + 1 : NULL;
	}
	if (!ok) {
		snprintf(err, errsz,
			 "blob location '%s' lies outside the warehouse %s (allow other places with --allowed-prefixes)",
			 uri, wh ? wh : "(none)");
		free(wh);
		free(path);
		return NULL;
	}
	free(wh);
	return path;
oom:
	free(wh);
	free(path);
	err[0] = 0;
	return NULL;
}

/* ---------------------------------------------------------------- ranges */

int cli_blob_range_open(const cli_blob_desc *d, const char *path, cli_blob_range *r, char *err, size_t errsz)
{
	struct stat st;
	uint64_t size;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		snprintf(err, errsz, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(r->fd, &st) != 0) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "%s: not a regular file", path);
		goto fail;
	}
	size = (uint64_t)st.st_size;
	r->offset = (uint64_t)d->offset;
	if (r->offset > size) {
		snprintf(err, errsz, "%s: blob offset %" PRId64 " lies beyond the end of the file (%" PRIu64 " bytes)", path,
			 d->offset, size);
		goto fail;
	}
	r->length = d->length < 0 ? size - r->offset : (uint64_t)d->length;
	if (r->length > size - r->offset) {
		snprintf(err, errsz,
			 "%s: blob range %" PRId64 "+%" PRId64 " runs past the end of the file (%" PRIu64 " bytes)", path,
			 d->offset, d->length, size);
		goto fail;
	}
	return 0;
fail:
	close(r->fd);
	r->fd = -1;
	return -1;
}

void cli_blob_range_close(cli_blob_range *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* Calls fn on each chunk of the range. */
static int each_chunk(const cli_blob_range *r, const char *path, int (*fn)(void *, const void *, size_t), void *ud,
		      char *err, size_t errsz)
{
	uint64_t done = 0;
	char *buf;
	if (r->length == 0)
		return 0;
	if (!(buf = malloc(r->length < CHUNK ? (size_t)r->length : CHUNK))) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	while (done < r->length) {
		size_t want = r->length - done < CHUNK ? (size_t)(r->length - done) : CHUNK;
		ssize_t got = pread(r->fd, buf, want, (off_t)(r->offset + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			snprintf(err, errsz, "reading %s at %" PRIu64 ": %s", path, r->offset + done,
				 got < 0 ? strerror(errno) : "the file is shorter than the blob (truncated meanwhile?)");
			free(buf);
			return -1;
		}
		if (fn(ud, buf, (size_t)got) < 0) {
			free(buf);
			return -2;
		}
		done += (uint64_t)got;
	}
	free(buf);
	return 0;
}

static int to_file(void *ud, const void *p, size_t n)
{
	return fwrite(p, 1, n, (FILE *)ud) == n ? 0 : -1;
}

int cli_blob_range_copy(const cli_blob_range *r, const char *path, FILE *f, const char *outname, char *err,
			size_t errsz)
{
	int rc = each_chunk(r, path, to_file, f, err, errsz);
	if (rc == -2)
		snprintf(err, errsz, "writing %s: %s", outname, strerror(errno));
	return rc < 0 ? -1 : 0;
}

static int to_sha(void *ud, const void *p, size_t n)
{
	cli_sha256_update(ud, p, n);
	return 0;
}

int cli_blob_range_sha256(const cli_blob_range *r, const char *path, char out[65], char *err, size_t errsz)
{
	cli_sha256 s;
	cli_sha256_init(&s);
	if (each_chunk(r, path, to_sha, &s, err, errsz) < 0)
		return -1;
	cli_sha256_hex(&s, out);
	return 0;
}

/* ---------------------------------------------------------------- SHA-256 */

static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(cli_sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;
	int i;
	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
		       p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

void cli_sha256_init(cli_sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memset(s, 0, sizeof *s);
	memcpy(s->h, iv, sizeof iv);
}

void cli_sha256_update(cli_sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->len += n;
	while (n) {
		size_t k = 64 - s->n < n ? 64 - s->n : n;
		memcpy(s->buf + s->n, p, k);
		s->n += k, p += k, n -= k;
		if (s->n == 64) {
			sha_block(s, s->buf);
			s->n = 0;
		}
	}
}

void cli_sha256_hex(cli_sha256 *s, char out[65])
{
	uint64_t bits = s->len * 8;
	uint8_t pad[72] = {0x80};
	size_t np = (s->n < 56 ? 56 : 120) - s->n;
	int i;
	for (i = 0; i < 8; i++)
		pad[np + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	cli_sha256_update(s, pad, np + 8);
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", (unsigned)(s->h[i / 4] >> (24 - 8 * (i % 4))) & 0xff);
}
