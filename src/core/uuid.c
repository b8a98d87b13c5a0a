/* core/uuid.c - v4 UUIDs, random numbers and clocks. */
#include "core/uuid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "paimonc/common.h"

static int fill_random(void *dst, size_t n)
{
	unsigned char *p = dst;
	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t pm_random_u64(void)
{
	uint64_t v;
	if (fill_random(&v, sizeof v) == 0)
		return v;
	static _Thread_local uint64_t state;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	state += 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
	return mix64(state);
}

int pm_uuid_v4(char out[PM_UUID_STR_LEN + 1])
{
	unsigned char b[16];
	if (fill_random(b, sizeof b) != 0) {
		uint64_t x = pm_random_u64(), y = pm_random_u64();
		memcpy(b, &x, 8);
		memcpy(b + 8, &y, 8);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 15];
	}
	out[o] = '\0';
	return 0;
}

int64_t pm_now_millis(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t pm_now_local_millis(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	time_t t = ts.tv_sec;
	struct tm lt;
	if (!localtime_r(&t, &lt))
		return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	return ((int64_t)ts.tv_sec + lt.tm_gmtoff) * 1000 + ts.tv_nsec / 1000000;
}

int64_t pm_monotonic_millis(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
