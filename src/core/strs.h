/*
 * core/strs.h - owned string list and ordered string map (insertion order
 * kept, keys unique). Both own copies of their strings. Zero-initialise;
 * release with *_dispose. Mutators return 0 or PAIMON_ENOMEM.
 */
#ifndef PM_CORE_STRS_H
#define PM_CORE_STRS_H

#include <stddef.h>
#include <stdint.h>

typedef struct pm_strlist {
	char **items;
	size_t len;
	size_t cap;
} pm_strlist;

int pm_strlist_push(pm_strlist *l, const char *s);
int pm_strlist_push_n(pm_strlist *l, const char *s, size_t n);
/* Index of s, or -1. */
long pm_strlist_find(const pm_strlist *l, const char *s);
int pm_strlist_copy(pm_strlist *dst, const pm_strlist *src);
void pm_strlist_sort(pm_strlist *l);
void pm_strlist_dispose(pm_strlist *l);

typedef struct pm_strmap {
	char **keys;
	char **vals;
	size_t len;
	size_t cap;
} pm_strmap;

/* Sets key to val (replacing an existing value, keeping its position). */
int pm_strmap_set(pm_strmap *m, const char *key, const char *val);
/* Value or NULL (borrowed). */
const char *pm_strmap_get(const pm_strmap *m, const char *key);
/* Removes key; returns 1 if it was present, 0 otherwise. */
int pm_strmap_remove(pm_strmap *m, const char *key);
int pm_strmap_copy(pm_strmap *dst, const pm_strmap *src);
void pm_strmap_dispose(pm_strmap *m);

/* Helpers for whole-string parsing. Return 0 on success, PAIMON_EINVAL otherwise
 * (without setting the error message; callers name the thing at fault). */
int pm_parse_i64(const char *s, long long *out);
int pm_parse_bool(const char *s, int *out);
/* A memory size as Java's MemorySize writes it ("256 mb", "128MB", "1024",
 * "1 kb"; units b/bytes, k/kb/kib/kibibytes, m.., g.., t/tb/tib) into bytes.
 * PAIMON_EINVAL "option '<key>': invalid size '<v>'" otherwise. */
int pm_parse_memory_size(const char *key, const char *v, int64_t *out);
/* A duration as Java's TimeUtils.parseDuration reads it ("1 h", "30min",
 * "500", "2 days"; an integer then an optional unit: ms (default), s, min/m,
 * h, d, and their long forms; us and ns round down to millis) into millis.
 * PAIMON_EINVAL "option '<key>': invalid duration '<v>'" otherwise. */
int pm_parse_duration_ms(const char *key, const char *v, int64_t *out);

/* A set of strings (open addressing, owned copies). Zero-initialise. */
typedef struct pm_strset {
	char **slots;
	size_t cap; /* power of two or 0 */
	size_t len;
} pm_strset;

int pm_strset_has(const pm_strset *s, const char *str);
/* Adds a copy of str; *added (may be NULL) = 1 when it was not present. */
int pm_strset_add(pm_strset *s, const char *str, int *added);
void pm_strset_dispose(pm_strset *s);

/* The value of one hex digit (either case), or -1. */
static inline int pm_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Comma-separated option lists ("a, b,c"): the next item of *cursor (a
 * NUL-terminated list, NULL allowed), spaces around it trimmed, in
 * (*item, *len); 0 when the list is exhausted. Empty items are given too. */
int pm_csv_next(const char **cursor, const char **item, size_t *len);
/* 1 if list (may be NULL) has an item equal to name. */
int pm_csv_contains(const char *list, const char *name);

#endif
