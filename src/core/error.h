/* core/error.h - thread-local error state behind paimon_error_message(). */
#ifndef PM_CORE_ERROR_H
#define PM_CORE_ERROR_H

#include "paimonc/common.h"

#if defined(__GNUC__)
#define PM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PM_PRINTF(f, a)
#endif

/* Sets the thread's error to code + formatted message; returns code. */
int pm_err(int code, const char *fmt, ...) PM_PRINTF(2, 3);

/* Like pm_err, appending ": <strerror(errnum)>". */
int pm_err_os(int code, int errnum, const char *fmt, ...) PM_PRINTF(3, 4);

/* Maps an errno value to a paimon code (ENOENT -> ENOTFOUND, EEXIST -> EEXISTS...). */
int pm_err_from_errno(int errnum);

/* Prefixes the current message with "<formatted>: ", keeping the code; returns it. */
int pm_err_wrap(const char *fmt, ...) PM_PRINTF(1, 2);

/* Records an allocation failure of n bytes; returns PAIMON_ENOMEM. */
int pm_err_nomem(size_t n);

/* Returns the thread's current code. */
int pm_err_code(void);

/* Save and restore, so clean-up code can run without clobbering the first error. */
typedef struct pm_err_state {
	int code;
	char msg[1024];
} pm_err_state;
void pm_err_save(pm_err_state *st);
void pm_err_restore(const pm_err_state *st);

#endif
