/*
 * core/buf.h - growable byte buffer, always NUL-terminated when non-empty
 * so text can be used as a C string. Zero-initialise (PM_BUF_INIT) before use;
 * release with pm_buf_dispose. Functions return 0 or PAIMON_ENOMEM.
 */
#ifndef PM_CORE_BUF_H
#define PM_CORE_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include "core/error.h"

typedef struct pm_buf {
	char *data;
	size_t len;
	size_t cap;
} pm_buf;

#define PM_BUF_INIT {NULL, 0, 0}

int pm_buf_reserve(pm_buf *b, size_t extra);
int pm_buf_append(pm_buf *b, const void *p, size_t n);
int pm_buf_puts(pm_buf *b, const char *s);
int pm_buf_putc(pm_buf *b, char c);
int pm_buf_printf(pm_buf *b, const char *fmt, ...) PM_PRINTF(2, 3);
int pm_buf_vprintf(pm_buf *b, const char *fmt, va_list ap);
void pm_buf_clear(pm_buf *b);
void pm_buf_dispose(pm_buf *b);
/* The text ("" when empty); valid until the next modification. */
const char *pm_buf_cstr(const pm_buf *b);
/* Hands the storage to the caller (free with pm_free); the buffer is reset. */
char *pm_buf_detach(pm_buf *b);

#endif
