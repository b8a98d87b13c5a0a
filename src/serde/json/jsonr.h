/*
 * serde/json/jsonr.h - reading JSON metadata with jansson, with errors that
 * name the file ("what") and the key at fault. All return 0 or
 * PAIMON_ECORRUPT / PAIMON_ENOMEM with the message set.
 */
#ifndef PM_FORMAT_JSON_JSONR_H
#define PM_FORMAT_JSON_JSONR_H

#include <jansson.h>
#include <stdint.h>
#include "core/strs.h"

/* Parses text; *out is a new reference (json_decref it). Depth is bounded. */
int pm_json_parse(const char *what, const char *text, size_t len, json_t **out);

/* Optional keys: absent or JSON null leaves *out unchanged and sets *present=0
 * (present may be NULL). Required keys: absent/null is an error. */
int pm_json_i64(const char *what, json_t *obj, const char *key, int required, int64_t *out, int *present);
int pm_json_str(const char *what, json_t *obj, const char *key, int required, const char **out);
/* As pm_json_str, but *out is a pm_malloc'd copy (the caller frees it). */
int pm_json_strdup(const char *what, json_t *obj, const char *key, int required, char **out);
/* Array of strings -> list (appended). */
int pm_json_strlist(const char *what, json_t *obj, const char *key, int required, pm_strlist *out);
/* Object of string (or scalar) values -> map (appended). */
int pm_json_strmap(const char *what, json_t *obj, const char *key, int required, pm_strmap *out);

#endif
