/*
 * fuzz/fuzz_ftenvelope.c - feeds arbitrary bytes to the PFTIDX01 envelope
 * validator of full-text index files (index/ftenvelope.h), without the
 * engine: the input is the whole file.
 *
 * Invariants: the whole-file check agrees with the prefix check followed by
 * the header check; an accepted file has a prefix whose header fits in it;
 * a failure leaves an error code and a message naming the file. Errors are
 * fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "index/ftenvelope.h"

#define PATH "fuzz.index"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t h = 0;
	int whole = pm_ft_envelope_check(data, size, PATH), part;
	if (whole != 0 && (pm_err_code() != whole || !strstr(paimon_error_message(), PATH)))
		fail("an error without its code or the file name");
	part = pm_ft_envelope_prefix(data, size, PATH, &h);
	if (part == 0) {
		if ((uint64_t)PM_FT_PREFIX_LEN + h > size || h > PM_FT_MAX_HEADER)
			fail("an accepted prefix whose header does not fit");
		part = pm_ft_envelope_header((const char *)data + PM_FT_PREFIX_LEN, h, size - PM_FT_PREFIX_LEN - h, PATH);
	}
	if ((whole == 0) != (part == 0))
		fail("the whole-file check disagrees with its parts");
	if (whole != 0 && whole != PAIMON_ECORRUPT && whole != PAIMON_ENOMEM)
		fail("an error other than ECORRUPT / ENOMEM");
	return 0;
}
