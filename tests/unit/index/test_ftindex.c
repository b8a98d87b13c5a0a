/*
 * tests/unit/index/test_ftindex.c - the full-text engine binding
 * (index/ftindex.h) against the real libpaimon_ftindex_ffi.so: an index of
 * random documents (fixed seed, null values) written through our FileIO
 * and searched back with match / match_phrase / boolean queries, plain
 * strings, Roaring64 filters; hits are checked against the documents
 * themselves (which ids hold the terms), scores descend. Envelope damage is
 * refused by our validator, naming the file, before the engine sees it.
 *
 * The library: $PAIMONC_FTINDEX_LIB, else the paimon_ftindex package of
 * the source tree's .venv. Without it the test exits 77 (CTest: skipped),
 * unless PAIMONC_REQUIRE_FTINDEX=1 (CI), when it fails.
 */
#include "test.h"

#include <jansson.h>
#include <roaring/roaring.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/strs.h"
#include "index/ftindex.h"
#include "io/fileio.h"

#define NDOCS 300
static const char *VOCAB[] = {"apple", "banana", "cherry", "delta", "echo", "fig", "grape", "hotel",
			      "india", "juliet", "kilo", "lima"};
#define NVOCAB (sizeof VOCAB / sizeof VOCAB[0])

static pm_fileio *g_io;
static char *g_dir;
static char g_path[4200];
static int64_t g_size;
/* documents: word indexes, -1 terminated; null docs have nwords -1 */
static int g_words[NDOCS][16];
static int g_nwords[NDOCS];

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return g_rng;
}

static int has_word(int d, int w)
{
	int i;
	for (i = 0; i < g_nwords[d]; i++)
		if (g_words[d][i] == w)
			return 1;
	return 0;
}

static int has_pair(int d, int a, int b)
{
	int i;
	for (i = 0; i + 1 < g_nwords[d]; i++)
		if (g_words[d][i] == a && g_words[d][i + 1] == b)
			return 1;
	return 0;
}

static int word(const char *s)
{
	size_t i;
	for (i = 0; i < NVOCAB; i++)
		if (!strcmp(VOCAB[i], s))
			return (int)i;
	return -1;
}

static int build_index(void)
{
	pm_ft_writer *w = NULL;
	pm_out_stream *out = NULL;
	pm_buf text = PM_BUF_INIT;
	int d, i, rc;
	for (d = 0; d < NDOCS; d++) {
		if (rnd() % 10 == 0) {
			g_nwords[d] = -1;
			continue;
		}
		g_nwords[d] = 1 + (int)(rnd() % 12);
		for (i = 0; i < g_nwords[d]; i++)
			g_words[d][i] = (int)(rnd() % NVOCAB);
	}
	snprintf(g_path, sizeof g_path, "%s/full-text-test.index", g_dir);
	if ((rc = pm_ft_writer_new(NULL, &w)) != 0)
		return rc;
	for (d = 0; d < NDOCS && !rc; d++) {
		if (g_nwords[d] < 0) {
			rc = pm_ft_writer_add(w, d, NULL, 0);
			continue;
		}
		pm_buf_clear(&text);
		for (i = 0; i < g_nwords[d]; i++)
			pm_buf_printf(&text, "%s%s", i ? (rnd() % 3 ? " " : ", ") : "",
				      i % 5 == 0 ? (g_words[d][i] % 2 ? "Apple" : VOCAB[g_words[d][i]]) : VOCAB[g_words[d][i]]);
		/* one capitalised "Apple" stands for apple: fix the record */
		for (i = 0; i < g_nwords[d]; i++)
			if (i % 5 == 0 && g_words[d][i] % 2)
				g_words[d][i] = 0;
		rc = pm_ft_writer_add(w, d, text.data, text.len);
	}
	if (!rc && !(rc = pm_fileio_open_write(g_io, g_path, &out))) {
		rc = pm_ft_writer_finish(w, out, g_path, &g_size);
		if (!rc)
			rc = pm_out_close(out);
		else
			pm_out_abort(out);
	}
	pm_ft_writer_free(w);
	pm_buf_dispose(&text);
	return rc;
}

/* Runs q; checks scores descend and hits are unique. */
static int search(const char *q, int limit, const pm_rb64 *f, int64_t **ids, float **sc, size_t *n)
{
	pm_ft_reader *r = NULL;
	int rc = pm_ft_reader_open(g_io, g_path, g_size, &r);
	size_t i, j;
	*ids = NULL;
	*sc = NULL;
	*n = 0;
	if (rc)
		return rc;
	rc = pm_ft_search(r, q, limit, f, ids, sc, n);
	pm_ft_reader_free(r);
	for (i = 1; !rc && i < *n; i++) {
		CHECK((*sc)[i - 1] >= (*sc)[i]);
		for (j = 0; j < i; j++)
			CHECK((*ids)[j] != (*ids)[i]);
	}
	return rc;
}

/* Hits of q (limit NDOCS) must be exactly the documents `want` accepts. */
static void expect(const char *q, int (*want)(int d), const char *what)
{
	int64_t *ids = NULL;
	float *sc = NULL;
	size_t n = 0, i;
	int d, cnt = 0;
	CHECK_OK(search(q, NDOCS, NULL, &ids, &sc, &n));
	for (d = 0; d < NDOCS; d++)
		cnt += g_nwords[d] >= 0 && want(d);
	if ((size_t)cnt != n)
		fprintf(stderr, "%s: %zu hits, %d documents match\n", what, n, cnt);
	CHECK((size_t)cnt == n);
	CHECK(cnt > 0);
	for (i = 0; i < n; i++) {
		CHECK(ids[i] >= 0 && ids[i] < NDOCS);
		if (ids[i] >= 0 && ids[i] < NDOCS)
			CHECK(g_nwords[ids[i]] >= 0 && want((int)ids[i]));
		CHECK(sc[i] > 0);
	}
	pm_free(ids);
	pm_free(sc);
}

static int w_cherry(int d) { return has_word(d, word("cherry")); }
static int w_apple(int d) { return has_word(d, word("apple")); }
static int w_echo_or_fig(int d) { return has_word(d, word("echo")) || has_word(d, word("fig")); }
static int w_echo_and_fig(int d) { return has_word(d, word("echo")) && has_word(d, word("fig")); }
static int w_pair(int d) { return has_pair(d, word("grape"), word("hotel")); }
static int w_bool(int d) { return has_word(d, word("india")) && !has_word(d, word("kilo")); }

static void test_missing_library(void)
{
	/* a path that does not load: unavailable, calls refused with a hint */
	pm_ft_writer *w = NULL;
	CHECK_OK(pm_ftindex_set_library_path("/nonexistent/libpaimon_ftindex_ffi.so"));
	CHECK(!pm_ftindex_available());
	CHECK_RC(pm_ft_writer_new(NULL, &w), PAIMON_EUNSUPPORTED);
	CHECK_MSG("paimon-ftindex");
	CHECK(w == NULL);
}

static void test_match(void)
{
	expect("cherry", w_cherry, "plain cherry");
	expect("  APPLE", w_apple, "plain APPLE (lower-cased; capitalised documents)");
	expect("{\"match\":{\"query\":\"echo fig\"}}", w_echo_or_fig, "match or");
	expect("{\"match\":{\"terms\":\"echo fig\",\"operator\":\"and\",\"column\":\"text\"}}", w_echo_and_fig,
	       "match and");
}

static void test_phrase_and_boolean(void)
{
	expect("{\"match_phrase\":{\"query\":\"grape hotel\"}}", w_pair, "phrase");
	expect("{\"boolean\":{\"must\":[{\"match\":{\"query\":\"india\"}}],\"must_not\":[{\"match\":{\"query\":\"kilo\"}}]}}",
	       w_bool, "boolean");
}

static void test_plain_equals_match_json(void)
{
	int64_t *a = NULL, *b = NULL;
	float *sa = NULL, *sb = NULL;
	size_t na = 0, nb = 0, i;
	CHECK_OK(search("delta echo", 20, NULL, &a, &sa, &na));
	CHECK_OK(search("{\"match\":{\"query\":\"delta echo\"}}", 20, NULL, &b, &sb, &nb));
	CHECK(na == nb && na == 20);
	for (i = 0; i < na && i < nb; i++)
		CHECK(a[i] == b[i] && sa[i] == sb[i]);
	pm_free(a);
	pm_free(b);
	pm_free(sa);
	pm_free(sb);
}

/* Portable Roaring64 bytes of the ids d with keep(d). */
static void portable(int (*keep)(int), pm_buf *out)
{
	roaring_bitmap_t *b = roaring_bitmap_create();
	uint64_t one = 1;
	uint32_t hi = 0;
	size_t sz;
	int d;
	for (d = 0; d < NDOCS; d++)
		if (keep(d))
			roaring_bitmap_add(b, (uint32_t)d);
	pm_buf_clear(out);
	CHECK_OK(pm_buf_append(out, &one, 8)); /* little-endian hosts only, as our CI */
	CHECK_OK(pm_buf_append(out, &hi, 4));
	sz = roaring_bitmap_portable_size_in_bytes(b);
	CHECK_OK(pm_buf_reserve(out, sz));
	roaring_bitmap_portable_serialize(b, out->data + out->len);
	out->len += sz;
	roaring_bitmap_free(b);
}

static int even(int d) { return d % 2 == 0; }
static int none(int d) { (void)d; return 0; }

static void test_filter(void)
{
	pm_ft_reader *r = NULL;
	pm_buf f = PM_BUF_INIT;
	int64_t *ids = NULL;
	float *sc = NULL;
	size_t n = 0, i;
	int d, cnt = 0;
	CHECK_OK(pm_ft_reader_open(g_io, g_path, g_size, &r));
	portable(even, &f);
	CHECK_OK(pm_ft_search_portable(r, "cherry", NDOCS, f.data, f.len, &ids, &sc, &n));
	for (d = 0; d < NDOCS; d++)
		cnt += g_nwords[d] >= 0 && w_cherry(d) && even(d);
	CHECK((size_t)cnt == n && cnt > 0);
	for (i = 0; i < n; i++)
		CHECK(ids[i] % 2 == 0 && w_cherry((int)ids[i]));
	pm_free(ids);
	pm_free(sc);
	portable(none, &f);
	CHECK_OK(pm_ft_search_portable(r, "cherry", 5, f.data, f.len, &ids, &sc, &n));
	CHECK(n == 0);
	pm_free(ids);
	pm_free(sc);
	/* bytes that are no bitmap */
	CHECK_RC(pm_ft_search_portable(r, "cherry", 5, "\x05\x00", 2, &ids, &sc, &n), PAIMON_EINVAL);
	CHECK(ids == NULL && n == 0);
	pm_ft_reader_free(r);
	pm_buf_dispose(&f);
}

static void test_bad_queries(void)
{
	pm_ft_reader *r = NULL;
	int64_t *ids = NULL;
	float *sc = NULL;
	size_t n = 0;
	CHECK_OK(pm_ft_reader_open(g_io, g_path, g_size, &r));
	CHECK_RC(pm_ft_search(r, "{\"nope\":{}}", 5, NULL, &ids, &sc, &n), PAIMON_EINVAL);
	CHECK_MSG("full-text search of");
	CHECK_RC(pm_ft_search(r, "{\"match\":{\"query\":\"a\",\"column\":\"other\"}}", 5, NULL, &ids, &sc, &n),
		 PAIMON_EINVAL);
	CHECK_MSG("other");
	CHECK_RC(pm_ft_search(r, "cherry", 0, NULL, &ids, &sc, &n), PAIMON_EINVAL);
	CHECK_RC(pm_ft_search(r, "\xff\xfe", 5, NULL, &ids, &sc, &n), PAIMON_EINVAL);
	CHECK_MSG("UTF-8");
	CHECK(ids == NULL && sc == NULL && n == 0);
	/* the reader still works */
	CHECK_OK(pm_ft_search(r, "cherry", 3, NULL, &ids, &sc, &n));
	CHECK(n == 3);
	pm_free(ids);
	pm_free(sc);
	pm_ft_reader_free(r);
}

static void test_writer_errors(void)
{
	pm_ft_writer *w = NULL;
	pm_strmap o = {0};
	CHECK_OK(pm_strmap_set(&o, "tokenizer", "no-such-tokenizer"));
	CHECK_RC(pm_ft_writer_new(&o, &w), PAIMON_EINVAL);
	CHECK_MSG("no-such-tokenizer");
	pm_strmap_dispose(&o);
	CHECK_OK(pm_ft_writer_new(NULL, &w));
	CHECK_RC(pm_ft_writer_add(w, -1, "a", 1), PAIMON_EINVAL);
	CHECK_RC(pm_ft_writer_add(w, 1, "a\0b", 3), PAIMON_EINVAL);
	CHECK_MSG("NUL");
	pm_ft_writer_free(w);
}

/* Writes bytes as a file of the test dir; returns its path (static). */
static const char *put(const char *name, const void *p, size_t n)
{
	static char path[4300];
	snprintf(path, sizeof path, "%s/%s", g_dir, name);
	CHECK_OK(pm_fileio_write_overwrite(g_io, path, p, n));
	return path;
}

static void expect_refused(const char *name, const pm_buf *b, const char *sub)
{
	pm_ft_reader *r = NULL;
	const char *p = put(name, b->data, b->len);
	paimon_error_clear();
	CHECK_RC(pm_ft_reader_open(g_io, p, (int64_t)b->len, &r), PAIMON_ECORRUPT);
	CHECK_MSG(name);
	CHECK_MSG(sub);
	CHECK(r == NULL);
}

static void test_envelope_damage(void)
{
	pm_buf f = PM_BUF_INIT, b = PM_BUF_INIT;
	pm_ft_reader *r = NULL;
	uint32_t h;
	json_t *root, *files, *e0, *e1;
	char *js;
	CHECK_OK(pm_fileio_read_all(g_io, g_path, &f));
	CHECK((int64_t)f.len == g_size && f.len > 16);
	h = (uint32_t)(uint8_t)f.data[12] << 24 | (uint32_t)(uint8_t)f.data[13] << 16 |
	    (uint32_t)(uint8_t)f.data[14] << 8 | (uint8_t)f.data[15];
	/* magic */
	pm_buf_clear(&b);
	pm_buf_append(&b, f.data, f.len);
	b.data[0] = 'Q';
	expect_refused("bad-magic.index", &b, "magic");
	/* version */
	memcpy(b.data, f.data, 16);
	b.data[11] = 2;
	expect_refused("bad-version.index", &b, "version 2");
	/* header cut off */
	pm_buf_clear(&b);
	pm_buf_append(&b, f.data, 16 + h / 2);
	expect_refused("cut.index", &b, "after its prefix");
	/* size in the index entry larger than the file */
	paimon_error_clear();
	CHECK_RC(pm_ft_reader_open(g_io, g_path, g_size + 1, &r), PAIMON_ECORRUPT);
	CHECK_MSG("index entry says");
	/* ... or smaller: the body is cut short */
	CHECK_RC(pm_ft_reader_open(g_io, g_path, g_size - 1, &r), PAIMON_ECORRUPT);
	CHECK_MSG("outside the");
	/* the file table rewritten: the second file over the first */
	root = json_loadb(f.data + 16, h, 0, NULL);
	CHECK(root != NULL);
	files = json_object_get(root, "files");
	CHECK(json_array_size(files) >= 2);
	e0 = json_array_get(files, 0);
	e1 = json_array_get(files, 1);
	{
		json_int_t len0 = json_integer_value(json_object_get(e0, "length"));
		json_object_set_new(e1, "offset", json_integer(json_integer_value(json_object_get(e0, "offset"))));
		json_object_set_new(e1, "length", json_integer(len0 > 0 ? len0 : 1));
		if (len0 == 0)
			json_object_set_new(e0, "length", json_integer(1));
	}
	js = json_dumps(root, JSON_COMPACT);
	{
		uint8_t p[16];
		size_t n = strlen(js);
		memcpy(p, f.data, 12);
		p[12] = (uint8_t)(n >> 24);
		p[13] = (uint8_t)(n >> 16);
		p[14] = (uint8_t)(n >> 8);
		p[15] = (uint8_t)n;
		pm_buf_clear(&b);
		pm_buf_append(&b, p, 16);
		pm_buf_append(&b, js, n);
		pm_buf_append(&b, f.data + 16 + h, f.len - 16 - h);
	}
	free(js);
	expect_refused("overlap.index", &b, "overlap");
	/* a duplicate name */
	json_object_set(e1, "name", json_object_get(e0, "name"));
	js = json_dumps(root, JSON_COMPACT);
	pm_buf_clear(&b);
	{
		uint8_t p[16];
		size_t n = strlen(js);
		memcpy(p, f.data, 12);
		p[12] = (uint8_t)(n >> 24);
		p[13] = (uint8_t)(n >> 16);
		p[14] = (uint8_t)(n >> 8);
		p[15] = (uint8_t)n;
		pm_buf_append(&b, p, 16);
		pm_buf_append(&b, js, n);
		pm_buf_append(&b, f.data + 16 + h, f.len - 16 - h);
	}
	free(js);
	json_decref(root);
	expect_refused("dup.index", &b, "listed twice");
	/* a valid envelope over a garbage body: the engine's error, no crash */
	pm_buf_clear(&b);
	pm_buf_append(&b, f.data, f.len);
	{
		size_t i;
		for (i = 16 + h; i < b.len; i++)
			b.data[i] = (char)(rnd() & 0xff);
	}
	{
		const char *p = put("garbage-body.index", b.data, b.len);
		int rc = pm_ft_reader_open(g_io, p, (int64_t)b.len, &r);
		if (rc == 0) {
			int64_t *ids = NULL;
			float *sc = NULL;
			size_t n = 0;
			rc = pm_ft_search(r, "cherry", 5, NULL, &ids, &sc, &n);
			pm_free(ids);
			pm_free(sc);
			pm_ft_reader_free(r);
			r = NULL;
		}
		CHECK(rc != 0);
		CHECK_MSG("garbage-body.index");
	}
	pm_buf_dispose(&f);
	pm_buf_dispose(&b);
}

static void test_missing_file(void)
{
	pm_ft_reader *r = NULL;
	char p[4300];
	snprintf(p, sizeof p, "%s/none.index", g_dir);
	CHECK_RC(pm_ft_reader_open(g_io, p, 100, &r), PAIMON_ENOTFOUND);
	CHECK(r == NULL);
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {T(test_match), T(test_phrase_and_boolean), T(test_plain_equals_match_json),
					  T(test_filter), T(test_bad_queries), T(test_writer_errors),
					  T(test_envelope_damage), T(test_missing_file)};
	const char *env = getenv("PAIMONC_FTINDEX_LIB"), *req = getenv("PAIMONC_REQUIRE_FTINDEX");
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char lib[4096] = "";
	size_t i;
	int rc;
	test_current = "test_missing_library";
	test_missing_library();
	printf("%s test_missing_library\n", test_failures ? "FAIL" : "ok  ");
	if (env && *env)
		snprintf(lib, sizeof lib, "%s", env);
	else if (src)
		snprintf(lib, sizeof lib, "%s/.venv/lib/python3.11/site-packages/paimon_ftindex", src);
	pm_ftindex_set_library_path(lib[0] ? lib : NULL);
	if (!pm_ftindex_available()) {
		if (req && !strcmp(req, "1")) {
			fprintf(stderr, "FAIL: PAIMONC_REQUIRE_FTINDEX=1 but the engine did not load from '%s'\n", lib);
			return 1;
		}
		printf("SKIP: libpaimon_ftindex_ffi.so not found (tried '%s'); set PAIMONC_FTINDEX_LIB\n", lib);
		return test_failures ? 1 : 77;
	}
	g_dir = test_tmpdir();
	if (pm_fileio_local_new(&g_io) || (rc = build_index()) != 0) {
		fprintf(stderr, "building the index failed: %s\n", paimon_error_message());
		return 1;
	}
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int before = test_failures;
		if (argc > 1 && !strstr(cases[i].name, argv[1]))
			continue;
		test_current = cases[i].name;
		cases[i].fn();
		printf("%s %s\n", test_failures == before ? "ok  " : "FAIL", cases[i].name);
	}
	pm_fileio_remove_all(g_io, g_dir);
	pm_fileio_close(g_io);
	free(g_dir);
	return test_failures ? 1 : 0;
}
