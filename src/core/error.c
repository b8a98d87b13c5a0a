#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PM_ERR_MSG_MAX 1024

static _Thread_local int tl_code;
static _Thread_local char tl_msg[PM_ERR_MSG_MAX];

static void set_v(int code, const char *fmt, va_list ap)
{
	tl_code = code;
	vsnprintf(tl_msg, sizeof tl_msg, fmt, ap);
}

int pm_err(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_v(code, fmt, ap);
	va_end(ap);
	return code;
}

int pm_err_os(int code, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	va_start(ap, fmt);
	set_v(code, fmt, ap);
	va_end(ap);
	n = strlen(tl_msg);
	if (n < sizeof tl_msg)
		snprintf(tl_msg + n, sizeof tl_msg - n, ": %s", strerror(errnum));
	return code;
}

int pm_err_from_errno(int errnum)
{
	switch (errnum) {
	case ENOENT:
	case ENOTDIR:
		return PAIMON_ENOTFOUND;
	case EEXIST:
	case ENOTEMPTY:
		return PAIMON_EEXISTS;
	case ENOMEM:
		return PAIMON_ENOMEM;
	case EINVAL:
	case ENAMETOOLONG:
		return PAIMON_EINVAL;
	default:
		return PAIMON_EIO;
	}
}

int pm_err_wrap(const char *fmt, ...)
{
	char prefix[PM_ERR_MSG_MAX], old[PM_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	size_t pl;
	memcpy(old, tl_msg, sizeof old);
	pl = strlen(prefix);
	if (pl > sizeof tl_msg - 3)
		pl = sizeof tl_msg - 3;
	memcpy(tl_msg, prefix, pl);
	memcpy(tl_msg + pl, ": ", 2);
	memcpy(tl_msg + pl + 2, old, sizeof tl_msg - pl - 3);
	tl_msg[sizeof tl_msg - 1] = '\0';
	if (tl_code == 0)
		tl_code = PAIMON_ERROR;
	return tl_code;
}

int pm_err_nomem(size_t n)
{
	/* No allocation on this path. */
	tl_code = PAIMON_ENOMEM;
	snprintf(tl_msg, sizeof tl_msg, "out of memory allocating %zu bytes", n);
	return PAIMON_ENOMEM;
}

int pm_err_code(void)
{
	return tl_code;
}

void pm_err_save(pm_err_state *st)
{
	st->code = tl_code;
	memcpy(st->msg, tl_msg, sizeof st->msg);
}

void pm_err_restore(const pm_err_state *st)
{
	tl_code = st->code;
	memcpy(tl_msg, st->msg, sizeof st->msg);
}

const char *paimon_error_message(void)
{
	return tl_msg;
}

int paimon_error_code_last(void)
{
	return tl_code;
}

void paimon_error_clear(void)
{
	tl_code = 0;
	tl_msg[0] = '\0';
}

const char *paimon_error_name(int code)
{
	switch (code) {
	case PAIMON_OK: return "OK";
	case PAIMON_ERROR: return "ERROR";
	case PAIMON_ENOMEM: return "ENOMEM";
	case PAIMON_EIO: return "EIO";
	case PAIMON_ENOTFOUND: return "ENOTFOUND";
	case PAIMON_EEXISTS: return "EEXISTS";
	case PAIMON_EINVAL: return "EINVAL";
	case PAIMON_ECORRUPT: return "ECORRUPT";
	case PAIMON_EUNSUPPORTED: return "EUNSUPPORTED";
	case PAIMON_ECONFLICT: return "ECONFLICT";
	default: return "UNKNOWN";
	}
}

const char *paimon_version(void)
{
	return PAIMONC_VERSION;
}
