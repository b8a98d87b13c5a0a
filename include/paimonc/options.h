/*
 * paimonc/options.h - paimon_options, the one way string settings are
 * passed to libpaimonc: catalog options, table-write and commit options,
 * overwrite partitions, Parquet writer options.
 *
 *   paimon_options *o;
 *   if (paimon_options_new(&o) == 0 && paimon_options_set(o, "compression", "snappy") == 0)
 *           rc = paimon_parquet_writer_open(&w, "/data/f.parquet", &schema, o);
 *   paimon_options_free(o);
 *
 * Functions that take a `const paimon_options *` copy what they need:
 * the options may be freed as soon as the call returns. NULL means "none".
 */
#ifndef PAIMONC_OPTIONS_H
#define PAIMONC_OPTIONS_H

#include "paimonc/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_options paimon_options;

/** A string -> string map, insertion ordered; setting a key again replaces
 *  its value. Keys and values are copied; neither may be NULL. */
PAIMON_EXTERN(int) paimon_options_new(paimon_options **out);
PAIMON_EXTERN(int) paimon_options_set(paimon_options *o, const char *key, const char *value);
/** Borrowed value or NULL. */
PAIMON_EXTERN(const char *) paimon_options_get(const paimon_options *o, const char *key);
PAIMON_EXTERN(size_t) paimon_options_count(const paimon_options *o);
PAIMON_EXTERN(const char *) paimon_options_key(const paimon_options *o, size_t i);
PAIMON_EXTERN(const char *) paimon_options_value(const paimon_options *o, size_t i);
PAIMON_EXTERN(void) paimon_options_free(paimon_options *o);

#ifdef __cplusplus
}
#endif
#endif
