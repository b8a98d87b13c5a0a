/*
 * paimonc/common.h - error model, version and small shared declarations.
 *
 * Every fallible function of libpaimonc returns an int: 0 (PAIMON_OK) on
 * success, a negative paimon_error_code on failure. The failing call also
 * leaves a one-line, human-readable message in thread-local storage; read it
 * with paimon_error_message(). The message names the thing at fault (a file,
 * a table, an option) so it can be shown to a user as is.
 */
#ifndef PAIMONC_COMMON_H
#define PAIMONC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PAIMON_EXTERN(type) __attribute__((visibility("default"))) type
#else
#define PAIMON_EXTERN(type) type
#endif

/* Marks an old name kept for one release so that existing code still
 * compiles (with a warning naming the new one). */
#if defined(__GNUC__) || defined(__clang__)
#define PAIMON_DEPRECATED(msg) __attribute__((deprecated(msg)))
#elif defined(_MSC_VER)
#define PAIMON_DEPRECATED(msg) __declspec(deprecated(msg))
#else
#define PAIMON_DEPRECATED(msg)
#endif

#define PAIMONC_VERSION_MAJOR 0
#define PAIMONC_VERSION_MINOR 1
#define PAIMONC_VERSION_PATCH 0
#define PAIMONC_VERSION "0.1.0"

/** Return codes. Values are stable; new codes are only appended. */
typedef enum paimon_error_code {
	PAIMON_OK = 0,
	PAIMON_ERROR = -1,        /**< generic failure */
	PAIMON_ENOMEM = -2,       /**< allocation failed */
	PAIMON_EIO = -3,          /**< an operating-system I/O call failed */
	PAIMON_ENOTFOUND = -4,    /**< database, table, file, snapshot... does not exist */
	PAIMON_EEXISTS = -5,      /**< the object to create already exists */
	PAIMON_EINVAL = -6,       /**< bad argument: name, option, type string, schema change */
	PAIMON_ECORRUPT = -7,     /**< a file's content is malformed */
	PAIMON_EUNSUPPORTED = -8, /**< valid but not implemented by paimonc */
	PAIMON_ECONFLICT = -9,    /**< lost a race with a concurrent writer */
} paimon_error_code;

/** Message of the last failure on this thread; never NULL ("" if none). */
PAIMON_EXTERN(const char *) paimon_error_message(void);

/** Code of the last failure on this thread (PAIMON_OK if none). */
PAIMON_EXTERN(int) paimon_error_code_last(void);

/** Forget the last failure on this thread. */
PAIMON_EXTERN(void) paimon_error_clear(void);

/** Short constant name of a code, e.g. "ENOTFOUND". */
PAIMON_EXTERN(const char *) paimon_error_name(int code);

/** Library version string, e.g. "0.1.0". */
PAIMON_EXTERN(const char *) paimon_version(void);

/** Frees memory that a paimon_ function documents as "free with paimon_free". */
PAIMON_EXTERN(void) paimon_free(void *p);

#ifdef __cplusplus
}
#endif
/* Progress of a long call: done of total units (rows for index builds,
 * files for compaction), called from the thread doing the work. */
typedef void (*paimon_progress_fn)(void *ctx, int64_t done, int64_t total);

#endif
