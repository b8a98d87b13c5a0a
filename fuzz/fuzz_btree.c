/*
 * fuzz/fuzz_btree.c - feeds arbitrary bytes to the btree global index reader.
 * Input: byte 0 picks the key type (even: INT, odd: STRING), byte 1 = m, the
 * next m bytes are the file's _INDEX_META, the rest is the index file (read
 * through a memory FileIO). Every predicate is evaluated; errors are fine,
 * crashes, leaks and hangs are findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/rb64.h"
#include "index/sorted_index.h"
#include "io/fileio.h"
#include "types/datatype.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_type *t = NULL;
	pm_fileio *io = NULL;
	pm_sidx_reader *r = NULL;
	pm_sidx_file f;
	pm_binrow_datum lits[2];
	size_t m;
	int op;
	if (size < 2)
		return 0;
	m = data[1];
	if (size < 2 + m)
		return 0;
	if (pm_type_parse(data[0] & 1 ? "STRING" : "INT", &t))
		return 0;
	if (pm_fileio_mem_new(data + 2 + m, size - 2 - m, &io)) {
		pm_type_free(t);
		return 0;
	}
	f.path = "fuzz.index";
	f.size = (int64_t)(size - 2 - m);
	f.meta = data + 2;
	f.meta_len = m;
	memset(lits, 0, sizeof lits);
	if (data[0] & 1) {
		lits[0].bytes.p = (const uint8_t *)"ab";
		lits[0].bytes.n = 2;
		lits[1].bytes.p = (const uint8_t *)"";
		lits[1].bytes.n = 0;
	} else {
		lits[0].i = 7;
		lits[1].i = -3;
	}
	if (pm_sidx_reader_open(PM_SIDX_BTREE, io, &f, 1, t, 1000, NULL, &r) == 0) {
		for (op = PM_SIDX_EQ; op <= PM_SIDX_CONTAINS; op++) {
			pm_rb64 *res = NULL;
			size_t n = (op == PM_SIDX_IS_NULL || op == PM_SIDX_IS_NOT_NULL) ? 0 : 2;
			pm_sidx_query(r, (pm_sidx_op)op, lits, n, &res);
			pm_rb64_free(res);
		}
	}
	pm_sidx_reader_free(r);
	pm_fileio_close(io);
	pm_type_free(t);
	return 0;
}
