#include <string.h>

#include "test.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/strs.h"
#include "serde/json/jsonw.h"
#include "serde/json/jsonr.h"

static void error_model(void)
{
	pm_err_state st;
	paimon_error_clear();
	CHECK(paimon_error_code_last() == 0);
	CHECK_STR(paimon_error_message(), "");
	CHECK(pm_err(PAIMON_ENOTFOUND, "table '%s' does not exist", "db.t") == PAIMON_ENOTFOUND);
	CHECK_STR(paimon_error_message(), "table 'db.t' does not exist");
	pm_err_wrap("loading %s", "x");
	CHECK_STR(paimon_error_message(), "loading x: table 'db.t' does not exist");
	CHECK(paimon_error_code_last() == PAIMON_ENOTFOUND);
	pm_err_save(&st);
	pm_err(PAIMON_EIO, "other");
	pm_err_restore(&st);
	CHECK_STR(paimon_error_message(), "loading x: table 'db.t' does not exist");
	CHECK_STR(paimon_error_name(PAIMON_ECORRUPT), "ECORRUPT");
}

static void buffers_and_maps(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_strmap m = {0};
	pm_strlist l = {0};
	int i;
	for (i = 0; i < 1000; i++)
		CHECK_OK(pm_buf_printf(&b, "%d,", i));
	CHECK(b.len == 3890);
	CHECK(strncmp(b.data, "0,1,2,", 6) == 0);
	pm_buf_dispose(&b);
	CHECK_OK(pm_strmap_set(&m, "b", "1"));
	CHECK_OK(pm_strmap_set(&m, "a", "2"));
	CHECK_OK(pm_strmap_set(&m, "b", "3"));
	CHECK(m.len == 2);
	CHECK_STR(m.keys[0], "b");
	CHECK_STR(pm_strmap_get(&m, "b"), "3");
	CHECK(pm_strmap_remove(&m, "b") == 1);
	CHECK(pm_strmap_get(&m, "b") == NULL);
	pm_strmap_dispose(&m);
	CHECK_OK(pm_strlist_push(&l, "z"));
	CHECK_OK(pm_strlist_push(&l, "a"));
	pm_strlist_sort(&l);
	CHECK_STR(l.items[0], "a");
	CHECK(pm_strlist_find(&l, "z") == 1);
	pm_strlist_dispose(&l);
}

static void alloc_failure_is_reported(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_mem_fail_at(1);
	CHECK_RC(pm_buf_puts(&b, "hello"), PAIMON_ENOMEM);
	CHECK_MSG("out of memory");
	pm_mem_fail_at(0);
	CHECK_OK(pm_buf_puts(&b, "hello"));
	pm_buf_dispose(&b);
}

/* Output must match Jackson's DefaultPrettyPrinter byte for byte. */
static void json_writer_matches_jackson(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_jw w;
	pm_jw_init(&w, &b, 0);
	pm_jw_obj_begin(&w);
	pm_jw_ki64(&w, "version", 3);
	pm_jw_key(&w, "fields");
	pm_jw_arr_begin(&w);
	pm_jw_obj_begin(&w);
	pm_jw_ki64(&w, "id", 0);
	pm_jw_kstr(&w, "name", "a\"b\n\x01");
	pm_jw_obj_end(&w);
	pm_jw_obj_begin(&w);
	pm_jw_ki64(&w, "id", 1);
	pm_jw_obj_end(&w);
	pm_jw_arr_end(&w);
	pm_jw_key(&w, "keys");
	pm_jw_arr_begin(&w);
	pm_jw_str(&w, "dt");
	pm_jw_str(&w, "hr");
	pm_jw_arr_end(&w);
	pm_jw_key(&w, "empty");
	pm_jw_arr_begin(&w);
	pm_jw_arr_end(&w);
	pm_jw_key(&w, "opts");
	pm_jw_obj_begin(&w);
	pm_jw_obj_end(&w);
	pm_jw_obj_end(&w);
	CHECK_OK(pm_jw_finish(&w));
	CHECK_STR(pm_buf_cstr(&b),
		  "{\n  \"version\" : 3,\n  \"fields\" : [ {\n    \"id\" : 0,\n    \"name\" : \"a\\\"b\\n\\u0001\"\n"
		  "  }, {\n    \"id\" : 1\n  } ],\n  \"keys\" : [ \"dt\", \"hr\" ],\n  \"empty\" : [ ],\n  \"opts\" : { }\n}");
	pm_buf_dispose(&b);
}

static void json_reader_errors_name_the_file(void)
{
	json_t *j = NULL;
	int64_t v = 0;
	const char *s = NULL;
	char deep[2000];
	CHECK_RC(pm_json_parse("schema-3", "{\"a\":", 5, &j), PAIMON_ECORRUPT);
	CHECK_MSG("schema-3");
	CHECK_RC(pm_json_parse("snapshot-1", "", 0, &j), PAIMON_ECORRUPT);
	memset(deep, '[', sizeof deep);
	CHECK_RC(pm_json_parse("deep", deep, sizeof deep, &j), PAIMON_ECORRUPT);
	CHECK_MSG("deeper");
	CHECK_OK(pm_json_parse("f", "{\"a\":1,\"b\":\"x\",\"c\":null}", 24, &j));
	CHECK_OK(pm_json_i64("f", j, "a", 1, &v, NULL));
	CHECK(v == 1);
	CHECK_RC(pm_json_i64("f", j, "b", 1, &v, NULL), PAIMON_ECORRUPT);
	CHECK_RC(pm_json_i64("f", j, "c", 1, &v, NULL), PAIMON_ECORRUPT);
	CHECK_MSG("\"c\"");
	CHECK_OK(pm_json_str("f", j, "b", 1, &s));
	CHECK_STR(s, "x");
	json_decref(j);
}

/* The block cache: a given block comes back for a request it fits (the
 * smallest that fits), small or huge blocks are not kept, the byte budget
 * evicts the oldest, and a taken block is fully usable. */
static void block_cache(void)
{
	size_t cap = 0, i;
	void *a, *b, *c, *got;
	void *many[8];
	/* drain what earlier readers left */
	while ((got = pm_mem_cache_take(1, &cap)))
		pm_free(got);
	CHECK(pm_mem_cache_take(PM_MEM_CACHE_MIN, &cap) == NULL);
	a = pm_malloc(PM_MEM_CACHE_MIN);
	b = pm_malloc(4 * PM_MEM_CACHE_MIN);
	c = pm_malloc(16);
	CHECK(a && b && c);
	pm_mem_cache_give(a, PM_MEM_CACHE_MIN);
	pm_mem_cache_give(b, 4 * PM_MEM_CACHE_MIN);
	pm_mem_cache_give(c, 16); /* too small: freed */
	pm_mem_cache_give(NULL, 1 << 20);
	got = pm_mem_cache_take(2 * PM_MEM_CACHE_MIN, &cap);
	CHECK(got == b && cap == 4 * PM_MEM_CACHE_MIN);
	memset(got, 0x5a, cap);
	pm_free(got);
	got = pm_mem_cache_take(10, &cap);
	CHECK(got == a && cap == PM_MEM_CACHE_MIN);
	memset(got, 0xa5, cap);
	pm_free(got);
	CHECK(pm_mem_cache_take(10, &cap) == NULL);
	CHECK(pm_mem_cache_take(PM_MEM_CACHE_MAX + 1, &cap) == NULL);
	/* budget: 8 blocks of 8 MiB exceed 32 MiB; the newest are kept */
	for (i = 0; i < 8; i++) {
		many[i] = pm_malloc(PM_MEM_CACHE_MAX);
		CHECK(many[i] != NULL);
		pm_mem_cache_give(many[i], PM_MEM_CACHE_MAX);
	}
	for (i = 0; i < 8; i++) {
		got = pm_mem_cache_take(PM_MEM_CACHE_MAX, &cap);
		if (!got)
			break;
		CHECK(got == many[4] || got == many[5] || got == many[6] || got == many[7]);
		pm_free(got);
	}
	CHECK(i == PM_MEM_CACHE_TOTAL / PM_MEM_CACHE_MAX);
}

TEST_MAIN(T(error_model), T(buffers_and_maps), T(alloc_failure_is_reported), T(json_writer_matches_jackson),
	  T(json_reader_errors_name_the_file), T(block_cache))
