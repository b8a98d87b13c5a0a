/*
 * fuzz/fuzz_table_bytes.c - the byte forms a distributed job ships between
 * processes: commit messages, splits and predicates (include/paimonc/table.h
 * *_deserialize). The first input byte picks the decoder.
 *
 * Split seeds cover the byte versions: 1 (append splits, what we still
 * write for them), 2 (a trailing split kind: data-evolution, primary-key;
 * version 2 append bytes re-serialize as version 1) and 4 (deletion
 * vectors: the index manifest name, with and without row ranges); a
 * commit message seed holds the index changes of a delete.
 *
 * Invariant: whatever decodes re-serializes, and the re-serialization
 * decodes and serializes to the same bytes. Errors are fine; crashes,
 * leaks and undefined behaviour are not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paimonc/paimonc.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

static void same(const void *a, size_t an, const void *b, size_t bn, const char *what)
{
	if (an != bn || (an && memcmp(a, b, an) != 0))
		fail(what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *b1 = NULL, *b2 = NULL;
	size_t n1 = 0, n2 = 0;
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0: {
		paimon_commit_message *m = NULL, *m2 = NULL;
		if (paimon_commit_message_deserialize(&m, data + 1, size - 1) == 0) {
			if (paimon_commit_message_serialize(m, &b1, &n1))
				fail("message does not serialize");
			if (paimon_commit_message_deserialize(&m2, b1, n1) || paimon_commit_message_serialize(m2, &b2, &n2))
				fail("message round trip");
			same(b1, n1, b2, n2, "message bytes not stable");
			(void)paimon_commit_message_file_count(m);
			(void)paimon_commit_message_row_count(m);
		}
		paimon_commit_message_free(m);
		paimon_commit_message_free(m2);
		break;
	}
	case 1: {
		paimon_split *s = NULL, *s2 = NULL;
		if (paimon_split_deserialize(&s, data + 1, size - 1) == 0) {
			if (paimon_split_serialize(s, &b1, &n1))
				fail("split does not serialize");
			if (paimon_split_deserialize(&s2, b1, n1) || paimon_split_serialize(s2, &b2, &n2))
				fail("split round trip");
			same(b1, n1, b2, n2, "split bytes not stable");
			(void)paimon_split_row_count(s);
			(void)paimon_split_file_count(s);
		}
		paimon_split_free(s);
		paimon_split_free(s2);
		break;
	}
	default: {
		paimon_predicate *p = NULL, *p2 = NULL;
		if (paimon_predicate_deserialize(&p, data + 1, size - 1) == 0) {
			char *text = NULL;
			if (paimon_predicate_serialize(p, &b1, &n1))
				fail("predicate does not serialize");
			if (paimon_predicate_deserialize(&p2, b1, n1) || paimon_predicate_serialize(p2, &b2, &n2))
				fail("predicate round trip");
			same(b1, n1, b2, n2, "predicate bytes not stable");
			if (paimon_predicate_to_string(p, &text) == 0)
				paimon_free(text);
		}
		paimon_predicate_free(p);
		paimon_predicate_free(p2);
		break;
	}
	}
	paimon_free(b1);
	paimon_free(b2);
	return 0;
}
