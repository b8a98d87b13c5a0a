/*
 * tests/unit/test.h - a minimal test harness: each test file defines
 * test functions registered in a TESTS table and calls TEST_MAIN.
 * CHECK* macros report file:line and the failing expression, count the
 * failure, and continue; the program exits 1 if anything failed.
 */
#ifndef PM_TEST_H
#define PM_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "paimonc/common.h"

static int test_failures;
static const char *test_current;

#define CHECK(cond) do { if (!(cond)) { test_failures++; \
	fprintf(stderr, "%s:%d: [%s] CHECK(%s) failed (last error: %s)\n", __FILE__, __LINE__, \
		test_current, #cond, paimon_error_message()); } } while (0)
#define CHECK_OK(expr) do { int rc_ = (expr); if (rc_ != 0) { test_failures++; \
	fprintf(stderr, "%s:%d: [%s] %s returned %d (%s): %s\n", __FILE__, __LINE__, test_current, \
		#expr, rc_, paimon_error_name(rc_), paimon_error_message()); } } while (0)
#define CHECK_RC(expr, want) do { int rc_ = (expr); if (rc_ != (want)) { test_failures++; \
	fprintf(stderr, "%s:%d: [%s] %s returned %d (%s), want %d (%s); message: %s\n", __FILE__, __LINE__, \
		test_current, #expr, rc_, paimon_error_name(rc_), (want), paimon_error_name(want), \
		paimon_error_message()); } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_) != 0) { test_failures++; \
	fprintf(stderr, "%s:%d: [%s] %s != %s\n  got:  %s\n  want: %s\n", __FILE__, __LINE__, \
		test_current, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } } while (0)
/* The last error message must contain the substring. */
#define CHECK_MSG(sub) do { if (!strstr(paimon_error_message(), (sub))) { test_failures++; \
	fprintf(stderr, "%s:%d: [%s] error message lacks \"%s\": %s\n", __FILE__, __LINE__, \
		test_current, (sub), paimon_error_message()); } } while (0)

typedef struct test_case {
	const char *name;
	void (*fn)(void);
} test_case;

#define TEST_MAIN(...) \
	int main(int argc, char **argv) { \
		static const test_case cases[] = {__VA_ARGS__}; \
		size_t i; \
		for (i = 0; i < sizeof cases / sizeof cases[0]; i++) { \
			int before = test_failures; \
			if (argc > 1 && !strstr(cases[i].name, argv[1])) continue; \
			test_current = cases[i].name; \
			cases[i].fn(); \
			printf("%s %s\n", test_failures == before ? "ok  " : "FAIL", cases[i].name); \
		} \
		return test_failures ? 1 : 0; \
	}
#define T(fn) {#fn, fn}

/* A fresh empty directory under $TMPDIR (or /tmp); caller frees the string. */
static inline char *test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *p = malloc(4096);
	if (!p)
		abort();
	snprintf(p, 4096, "%s/paimonc-test-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(p))
		abort();
	return p;
}

#endif
