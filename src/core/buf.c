#include "core/buf.h"
#include "core/mem.h"

#include <stdio.h>
#include <string.h>

int pm_buf_reserve(pm_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;
	if (extra > SIZE_MAX - b->len - 1)
		return pm_err_nomem(SIZE_MAX);
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = pm_realloc(b->data, cap);
	if (!p)
		return PAIMON_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int pm_buf_append(pm_buf *b, const void *p, size_t n)
{
	if (pm_buf_reserve(b, n))
		return PAIMON_ENOMEM;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int pm_buf_puts(pm_buf *b, const char *s)
{
	return pm_buf_append(b, s, strlen(s));
}

int pm_buf_putc(pm_buf *b, char c)
{
	return pm_buf_append(b, &c, 1);
}

int pm_buf_vprintf(pm_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return pm_err(PAIMON_ERROR, "bad format string");
	if (pm_buf_reserve(b, (size_t)n))
		return PAIMON_ENOMEM;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int pm_buf_printf(pm_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = pm_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void pm_buf_clear(pm_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void pm_buf_dispose(pm_buf *b)
{
	pm_free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

const char *pm_buf_cstr(const pm_buf *b)
{
	return b->data ? b->data : "";
}

char *pm_buf_detach(pm_buf *b)
{
	char *p = b->data;
	if (!p)
		p = pm_strdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}
