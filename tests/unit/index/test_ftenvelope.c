/*
 * tests/unit/index/test_ftenvelope.c - the PFTIDX01 envelope validator
 * (index/ftenvelope.h), without the engine: a well-formed envelope passes;
 * every kind of damage (short file, magic, version, header length, header
 * past the end, JSON, file table, names, ranges, overlaps) is
 * PAIMON_ECORRUPT naming the file and the fault.
 */
#include "test.h"

#include "core/buf.h"
#include "core/error.h"
#include "index/ftenvelope.h"

#define PATH "/idx/full-text-1.index"

/* An envelope: the prefix (version, header length as given; -1 = the
 * real length), the header text and body_len body bytes. */
static void envelope(pm_buf *b, uint32_t version, int64_t hlen, const char *header, size_t body_len)
{
	uint8_t p[16];
	uint32_t h = hlen < 0 ? (uint32_t)strlen(header) : (uint32_t)hlen;
	size_t i;
	memcpy(p, "PFTIDX01", 8);
	p[8] = (uint8_t)(version >> 24);
	p[9] = (uint8_t)(version >> 16);
	p[10] = (uint8_t)(version >> 8);
	p[11] = (uint8_t)version;
	p[12] = (uint8_t)(h >> 24);
	p[13] = (uint8_t)(h >> 16);
	p[14] = (uint8_t)(h >> 8);
	p[15] = (uint8_t)h;
	pm_buf_clear(b);
	CHECK_OK(pm_buf_append(b, p, 16));
	CHECK_OK(pm_buf_append(b, header, strlen(header)));
	for (i = 0; i < body_len; i++)
		CHECK_OK(pm_buf_putc(b, (char)('a' + i % 26)));
}

static const char *GOOD = "{\"metadata\":{\"config\":{\"row_id_field\":\"row_id\",\"text_fields\":[\"text\"]},"
			  "\"document_count\":3,\"tantivy_version\":\"0.22.0\"},"
			  "\"files\":[{\"name\":\"meta.json\",\"offset\":0,\"length\":10},"
			  "{\"name\":\"a.idx\",\"offset\":10,\"length\":20},{\"name\":\"b.store\",\"offset\":30,\"length\":0}]}";

static void expect_corrupt(const pm_buf *b, const char *sub)
{
	paimon_error_clear();
	CHECK_RC(pm_ft_envelope_check(b->data, b->len, PATH), PAIMON_ECORRUPT);
	CHECK_MSG(PATH);
	CHECK_MSG(sub);
}

static void test_good(void)
{
	pm_buf b = PM_BUF_INIT;
	envelope(&b, 1, -1, GOOD, 30);
	CHECK_OK(pm_ft_envelope_check(b.data, b.len, PATH));
	/* trailing bytes after the last file are allowed (the body is larger) */
	envelope(&b, 1, -1, GOOD, 64);
	CHECK_OK(pm_ft_envelope_check(b.data, b.len, PATH));
	/* the prefix alone */
	{
		uint32_t h = 0;
		CHECK_OK(pm_ft_envelope_prefix((const uint8_t *)b.data, b.len, PATH, &h));
		CHECK(h == strlen(GOOD));
	}
	pm_buf_dispose(&b);
}

static void test_prefix_damage(void)
{
	pm_buf b = PM_BUF_INIT;
	envelope(&b, 1, -1, GOOD, 30);
	CHECK_RC(pm_ft_envelope_check(b.data, 15, PATH), PAIMON_ECORRUPT);
	CHECK_MSG("less than the 16-byte");
	CHECK_RC(pm_ft_envelope_check(b.data, 0, PATH), PAIMON_ECORRUPT);
	b.data[3] = 'X';
	expect_corrupt(&b, "magic");
	envelope(&b, 2, -1, GOOD, 30);
	expect_corrupt(&b, "version 2");
	envelope(&b, 0, -1, GOOD, 30);
	expect_corrupt(&b, "version 0");
	envelope(&b, 1, ((int64_t)16 << 20) + 1, GOOD, 30);
	expect_corrupt(&b, "at most 16 MiB");
	envelope(&b, 1, 0xFFFFFFFFu, GOOD, 30);
	expect_corrupt(&b, "at most 16 MiB");
	/* a header longer than what follows the prefix */
	envelope(&b, 1, (int64_t)strlen(GOOD) + 31, GOOD, 30);
	expect_corrupt(&b, "bytes after its prefix");
	pm_buf_dispose(&b);
}

static void test_header_damage(void)
{
	static const struct {
		const char *json;
		const char *msg;
	} cases[] = {
		{"{\"files\":[", "not valid JSON"},
		{"[1,2]", "not a JSON object"},
		{"{\"metadata\":{}}", "no 'files' table"},
		{"{\"files\":[]}", "no 'files' table"},
		{"{\"files\":{}}", "no 'files' table"},
		{"{\"files\":[3]}", "files[0] is not an object"},
		{"{\"files\":[{\"offset\":0,\"length\":1}]}", "no plain file name"},
		{"{\"files\":[{\"name\":\"\",\"offset\":0,\"length\":1}]}", "no plain file name"},
		{"{\"files\":[{\"name\":\"a/b\",\"offset\":0,\"length\":1}]}", "no plain file name"},
		{"{\"files\":[{\"name\":\"..\",\"offset\":0,\"length\":1}]}", "no plain file name"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":-1,\"length\":1}]}", "non-negative integer"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":0,\"length\":1.5}]}", "non-negative integer"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":\"0\",\"length\":1}]}", "non-negative integer"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":0}]}", "non-negative integer"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":25,\"length\":6}]}", "outside the 30-byte body"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":31,\"length\":0}]}", "outside the 30-byte body"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":1,\"length\":9223372036854775807}]}", "outside the 30-byte body"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":0,\"length\":5},{\"name\":\"a\",\"offset\":5,\"length\":5}]}",
		 "'a' is listed twice"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":0,\"length\":6},{\"name\":\"b\",\"offset\":5,\"length\":5}]}",
		 "overlap"},
		{"{\"files\":[{\"name\":\"b\",\"offset\":10,\"length\":10},{\"name\":\"a\",\"offset\":0,\"length\":11}]}",
		 "overlap"},
		{"{\"metadata\":7,\"files\":[{\"name\":\"a\",\"offset\":0,\"length\":1}]}", "'metadata' is not an object"},
		{"{\"files\":[{\"name\":\"a\",\"offset\":0,\"length\":1}],\"files\":[]}", "not valid JSON"},
	};
	pm_buf b = PM_BUF_INIT;
	size_t i;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		envelope(&b, 1, -1, cases[i].json, 30);
		expect_corrupt(&b, cases[i].msg);
		/* the same through the header check alone */
		paimon_error_clear();
		CHECK_RC(pm_ft_envelope_header(cases[i].json, strlen(cases[i].json), 30, PATH), PAIMON_ECORRUPT);
		CHECK_MSG(cases[i].msg);
	}
	/* zero-length files may share an offset; adjacent files touch */
	{
		const char *ok = "{\"files\":[{\"name\":\"a\",\"offset\":5,\"length\":0},{\"name\":\"b\",\"offset\":5,"
				 "\"length\":0},{\"name\":\"c\",\"offset\":0,\"length\":5},{\"name\":\"d\",\"offset\":5,"
				 "\"length\":25}]}";
		envelope(&b, 1, -1, ok, 30);
		CHECK_OK(pm_ft_envelope_check(b.data, b.len, PATH));
	}
	pm_buf_dispose(&b);
}

TEST_MAIN(T(test_good), T(test_prefix_damage), T(test_header_damage))
