/*
 * fuzz/fuzz_binrow.c - feeds arbitrary bytes to the BinaryRow decoder.
 *
 * Input: byte 0 = arity (mod 10), then one byte per field choosing its type,
 * then the row bytes (no arity prefix). A row that decodes must encode, and
 * decode(encode(x)) must encode to the same bytes again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "types/binrow.h"
#include "types/datatype.h"

static const struct { pm_type_root root; int32_t precision; } kinds[] = {
	{PM_BOOLEAN, 0}, {PM_TINYINT, 0}, {PM_SMALLINT, 0}, {PM_INT, 0}, {PM_BIGINT, 0},
	{PM_FLOAT, 0}, {PM_DOUBLE, 0}, {PM_DECIMAL, 10}, {PM_DECIMAL, 30}, {PM_VARCHAR, 0},
	{PM_VARBINARY, 0}, {PM_DATE, 0}, {PM_TIME, 0}, {PM_TIMESTAMP, 3}, {PM_TIMESTAMP, 6},
	{PM_TIMESTAMP_LTZ, 9}, {PM_ARRAY, 0}, {PM_ROW, 0},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_type *types[10] = {0};
	pm_binrow_datum v[10], v2[10];
	pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
	size_t arity, i;
	if (size < 1)
		return 0;
	arity = data[0] % 10;
	if (size < 1 + arity)
		return 0;
	for (i = 0; i < arity; i++) {
		size_t k = data[1 + i] % (sizeof kinds / sizeof kinds[0]);
		types[i] = pm_type_new(kinds[k].root);
		if (!types[i])
			abort();
		types[i]->precision = kinds[k].precision;
	}
	data += 1 + arity;
	size -= 1 + arity;
	if (pm_binrow_decode(data, size, (const pm_type *const *)types, arity, 0, v, NULL) == 0) {
		if (pm_binrow_encode((const pm_type *const *)types, v, arity, 0, 1, &a))
			abort();
		if (pm_binrow_decode((const uint8_t *)a.data, a.len, (const pm_type *const *)types, arity, 1, v2,
				     NULL))
			abort();
		if (pm_binrow_encode((const pm_type *const *)types, v2, arity, 0, 1, &b))
			abort();
		if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
			abort();
	}
	for (i = 0; i < arity; i++)
		pm_type_free(types[i]);
	pm_buf_dispose(&a);
	pm_buf_dispose(&b);
	return 0;
}
