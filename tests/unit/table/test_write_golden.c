/*
 * tests/unit/table/test_write_golden.c - the table writer's output is
 * byte-stable: a fixed dataset (fixed-seed generator) written under
 * several option sets (partitions + pending buffer, buckets, rolling by
 * rows and by size, nested columns through the generic split, narrower
 * Arrow types, a missing nullable column, compression and dictionary
 * options, stats modes) must give data files with exactly the SHA-256
 * and the DataFileMeta recorded in fixtures/write_golden.tsv.
 *
 * The fixture was produced by the writer before it went through the
 * file-format interface and the rolling file writer (issue 10), so this
 * test pins "same bytes as before". File names hold random UUIDs, so a
 * file is identified by its directory and its counter, and the encoded
 * ADD entries are compared with file names replaced by that identity and
 * creation_time zeroed.
 *
 * PAIMONC_WRITE_GOLDEN_REGEN=1 rewrites the fixture (only when the file
 * bytes are meant to change).
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "api/handles.h"
#include "table/partition.h"
#include "write/write.h"

#include <stdint.h>

/* ------------------------------------------------------------ SHA-256 */

typedef struct sha256 {
	uint32_t h[8];
	uint8_t buf[64];
	uint64_t len;
	size_t n;
} sha256;

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

static void sha_block(sha256 *s, const uint8_t *p)
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

static void sha_init(sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memset(s, 0, sizeof *s);
	memcpy(s->h, iv, sizeof iv);
}

static void sha_update(sha256 *s, const void *data, size_t n)
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

static void sha_hex(sha256 *s, char out[65])
{
	uint64_t bits = s->len * 8;
	uint8_t pad[72] = { 0x80 };
	size_t np = (s->n < 56 ? 56 : 120) - s->n;
	int i;
	for (i = 0; i < 8; i++)
		pad[np + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	sha_update(s, pad, np + 8);
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", (unsigned)(s->h[i / 4] >> (24 - 8 * (i % 4))) & 0xff);
}

static void sha_selftest(void)
{
	sha256 s;
	char hex[65];
	sha_init(&s);
	sha_update(&s, "abc", 3);
	sha_hex(&s, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha_init(&s);
	sha_update(&s, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	sha_hex(&s, hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* ---------------------------------------------------------- dataset */

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33);
}

/* Columns given (by name): id "i", k "s" (BIGINT from int16), name "u"
 * (some nulls), v "g", flag "b", d "tdD", arr "+l" of "i" (nested: the
 * generic split path when the batch spans groups; only with_nested),
 * dt "u" (one of nparts). Column "note" (STRING) is never given. */
static void make_batch(int64_t n, int nparts, int with_nested, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[8], *st, *item = NULL;
	int64_t i;
	int nc = with_nested ? 8 : 7;
	char buf[64];
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_fixed("s", 2);
	ch[2] = pm_ab_new_binary("u", 0);
	ch[3] = pm_ab_new_fixed("g", 8);
	ch[4] = pm_ab_new_bool();
	ch[5] = pm_ab_new_fixed("tdD", 4);
	ch[6] = pm_ab_new_binary("u", 0);
	if (with_nested) {
		item = pm_ab_new_fixed("i", 4);
		pm_ab_set_name(item, "element", 1);
		ch[7] = pm_ab_new_list(item, 0);
	}
	pm_ab_set_name(ch[0], "id", 0);
	pm_ab_set_name(ch[1], "k", 1);
	pm_ab_set_name(ch[2], "name", 1);
	pm_ab_set_name(ch[3], "v", 1);
	pm_ab_set_name(ch[4], "flag", 1);
	pm_ab_set_name(ch[5], "d", 1);
	pm_ab_set_name(ch[6], "dt", 1);
	if (with_nested)
		pm_ab_set_name(ch[7], "arr", 1);
	for (i = 0; i < n; i++) {
		int32_t id = (int32_t)(rnd() % 1000000);
		int16_t k = (int16_t)(rnd() % 2000 - 1000);
		double v = (double)(rnd() % 100000) / 7.0;
		uint8_t flag = rnd() & 1;
		int32_t d = 18000 + (int32_t)(rnd() % 400);
		uint32_t r = rnd();
		CHECK_OK(pm_ab_append_fixed(ch[0], &id, 1));
		CHECK_OK(pm_ab_append_fixed(ch[1], &k, 1));
		if (r % 11 == 0) {
			CHECK_OK(pm_ab_append_nulls(ch[2], 1));
		} else {
			/* low cardinality with a long tail: dictionary then fallback */
			snprintf(buf, sizeof buf, "name-%u", r % 13 ? r % 50 : r);
			CHECK_OK(pm_ab_append_binary(ch[2], buf, strlen(buf)));
		}
		CHECK_OK(pm_ab_append_fixed(ch[3], &v, 1));
		CHECK_OK(pm_ab_append_bools(ch[4], &flag, 1));
		CHECK_OK(pm_ab_append_fixed(ch[5], &d, 1));
		snprintf(buf, sizeof buf, "p%u", nparts > 1 ? rnd() % (uint32_t)nparts : 0);
		CHECK_OK(pm_ab_append_binary(ch[6], buf, strlen(buf)));
		if (with_nested) {
			int32_t m = (int32_t)(rnd() % 4), j;
			for (j = 0; j < m; j++) {
				int32_t x = (int32_t)(rnd() % 100);
				CHECK_OK(pm_ab_append_fixed(item, &x, 1));
			}
			CHECK_OK(pm_ab_append_list(ch[7], m));
		}
	}
	st = pm_ab_new_struct(ch, nc);
	CHECK_OK(pm_ab_append_valid(st, n));
	CHECK_OK(pm_ab_schema(st, s));
	CHECK_OK(pm_ab_finish(st, a));
	pm_ab_free(st);
}

static paimon_table *make_table(const char *dir, const char *const *kv)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	paimon_table *t = NULL;
	const char *part = "dt";
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT NOT NULL, k BIGINT, name STRING, v DOUBLE, "
						   "flag BOOLEAN, d DATE, arr ARRAY<INT>, note STRING, dt STRING"));
	CHECK_OK(paimon_schema_spec_set_partition_keys(s, &part, 1));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
}

/* ----------------------------------------------------------- cases */

typedef struct gcase {
	const char *name;
	const char *opts[16];      /* table options, NULL-terminated pairs */
	int nparts;
	int with_nested;
} gcase;

static const gcase gcases[] = {
	{ "default", { NULL }, 1, 0 },
	{ "partitions", { "write-buffer-size", "64 kb", NULL }, 4, 0 },
	{ "nested-split", { "target-file-row-num", "700", NULL }, 3, 1 },
	{ "buckets", { "bucket", "3", "bucket-key", "id", "target-file-size", "24 kb", NULL }, 2, 0 },
	{ "roll-size", { "target-file-size", "16 kb", "parquet.page.size", "4 kb", NULL }, 1, 1 },
	{ "codecs", { "file.compression", "snappy", "parquet.enable.dictionary", "false",
		      "file.suffix.include.compression", "true", "metadata.stats-mode", "full",
		      "fields.name.stats-mode", "none", NULL }, 2, 0 },
	{ "zstd-level", { "file.compression", "zstd", "file.compression.zstd-level", "5",
			  "metadata.stats-mode", "truncate(3)", "data-file.prefix", "part-",
			  "parquet.block.size", "8 kb", NULL }, 1, 0 },
	{ "counts", { "metadata.stats-mode", "counts", "metadata.stats-dense-store", "false",
		      "target-file-row-num", "1000", NULL }, 3, 1 },
};

static void read_all(const char *path, pm_buf *out)
{
	FILE *f = fopen(path, "rb");
	char tmp[65536];
	size_t n;
	pm_buf_clear(out);
	CHECK(f != NULL);
	if (!f)
		return;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		CHECK_OK(pm_buf_append(out, tmp, n));
	fclose(f);
}

/* Appends the case's lines: one per file (in prepare_commit order) and
 * one for the canonical encoded entries. */
static void run_case(const gcase *gc, pm_buf *lines)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, gc->opts);
	pm_table_writer *w = NULL;
	pm_manifest_entry_list entries = {0};
	pm_partition_info pi;
	pm_buf d = PM_BUF_INIT, data = PM_BUF_INIT, enc = PM_BUF_INIT;
	size_t i;
	int b;
	char hex[65];
	sha256 s;

	rng_state = 0x5eed0000u + (uint64_t)(gc - gcases);
	CHECK_OK(pm_partition_info_init(&pi, t->schema->schema));
	CHECK_OK(pm_table_writer_new(t->io, t->path, t->schema->schema, NULL, &w));
	if (w) {
		/* uneven batch sizes; alternate pass-through and routed batches */
		static const int64_t sizes[] = { 1000, 7, 2500, 1, 900, 3000 };
		for (b = 0; b < (int)(sizeof sizes / sizeof sizes[0]); b++) {
			struct ArrowArray a;
			struct ArrowSchema sc;
			make_batch(sizes[b], b == 1 || b == 3 ? 1 : gc->nparts, gc->with_nested, &a, &sc);
			CHECK_OK(pm_table_writer_write(w, &a, &sc));
			a.release(&a);
			sc.release(&sc);
			if (b == 3) /* a commit in the middle: files restart, sequences go on */
				CHECK_OK(pm_table_writer_prepare_commit(w, &entries));
		}
		CHECK_OK(pm_table_writer_prepare_commit(w, &entries));
	}
	for (i = 0; i < entries.len; i++) {
		pm_manifest_entry *e = &entries.items[i];
		const char *fn = e->file.file_name, *dash;
		char path[8192], id[512];
		CHECK_OK(pm_table_data_dir(t->path, NULL, &pi, e->partition.p, e->partition.n, e->bucket, &d));
		snprintf(path, sizeof path, "%s/%s", pm_buf_cstr(&d), fn);
		read_all(path, &data);
		sha_init(&s);
		sha_update(&s, data.data, data.len);
		sha_hex(&s, hex);
		CHECK(data.len == (size_t)e->file.file_size);
		/* identity: data dir relative to the table + prefix + counter + extension */
		/* "<prefix><uuid>-<n><ext>": the uuid is the 36 characters before the last '-' */
		dash = strrchr(fn, '-');
		CHECK(dash && dash - fn >= 36);
		if (!dash || dash - fn < 36)
			dash = fn + 36;
		snprintf(id, sizeof id, "%s/%.*s%s", pm_buf_cstr(&d) + strlen(t->path) + 1,
			 (int)(dash - fn - 36), fn, dash);
		CHECK_OK(pm_buf_printf(lines, "%s\tfile\t%s\t%lld\t%lld\t%lld\t%lld\t%s\n", gc->name, id,
				       (long long)e->file.file_size, (long long)e->file.row_count,
				       (long long)e->file.min_sequence_number,
				       (long long)e->file.max_sequence_number, hex));
		pm_free(e->file.file_name);
		CHECK((e->file.file_name = pm_strdup(id)) != NULL);
		e->file.creation_time = 0;
	}
	CHECK_OK(pm_manifest_entries_encode(entries.items, entries.len, &enc));
	sha_init(&s);
	sha_update(&s, enc.data, enc.len);
	sha_hex(&s, hex);
	CHECK_OK(pm_buf_printf(lines, "%s\tentries\t%zu\t%s\n", gc->name, entries.len, hex));
	pm_manifest_entry_list_dispose(&entries);
	pm_table_writer_free(w);
	pm_partition_info_dispose(&pi);
	pm_buf_dispose(&d);
	pm_buf_dispose(&data);
	pm_buf_dispose(&enc);
	paimon_table_free(t);
	free(dir);
}

static void golden(void)
{
	pm_buf lines = PM_BUF_INIT, want = PM_BUF_INIT;
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char fx[4096];
	size_t i;

	for (i = 0; i < sizeof gcases / sizeof gcases[0]; i++)
		run_case(&gcases[i], &lines);
	snprintf(fx, sizeof fx, "%s/tests/unit/table/fixtures/write_golden.tsv", src ? src : ".");
	if (getenv("PAIMONC_WRITE_GOLDEN_REGEN")) {
		FILE *f = fopen(fx, "wb");
		CHECK(f != NULL);
		if (f) {
			fwrite(lines.data, 1, lines.len, f);
			fclose(f);
		}
		printf("wrote %s\n", fx);
	} else {
		read_all(fx, &want);
		if (want.len != lines.len || memcmp(want.data, lines.data, lines.len)) {
			test_failures++;
			fprintf(stderr, "[golden] output differs from %s; got:\n%s\n", fx, pm_buf_cstr(&lines));
		}
	}
	pm_buf_dispose(&lines);
	pm_buf_dispose(&want);
}

TEST_MAIN(T(sha_selftest), T(golden))
