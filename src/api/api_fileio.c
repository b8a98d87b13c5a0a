/*
 * api/api_fileio.c - the plug-in point for user storage
 * (paimon_catalog_open_with_fileio, paimonc/sys/fileio.h): a catalog keeps a
 * checked copy of the caller's methods and makes each of its FileIOs (its
 * own, and one per table it opens, since tables outlive their catalog) an
 * io/fileio_user.c adapter over them.
 */
#include "api/handles.h"
#include "core/error.h"
#include "core/mem.h"
#include "io/fileio_user.h"

#include <string.h>

int paimon_catalog_open_with_fileio(paimon_catalog **out, const paimon_options *opts,
				    const paimon_fileio_methods *methods, void *ctx)
{
	int rc;
	if (!out)
		return pm_err(PAIMON_EINVAL, "paimon_catalog_open_with_fileio: out is NULL");
	*out = NULL;
	if (!methods)
		return pm_err(PAIMON_EINVAL, "paimon_catalog_open_with_fileio: methods is NULL");
	if ((rc = pm_fileio_user_check(methods)))
		return rc;
	return pm_catalog_open(out, opts, methods, ctx);
}

int pm_catalog_set_fileio(paimon_catalog *c, const paimon_fileio_methods *user_io, void *user_ctx)
{
	int rc;
	if (!user_io)
		return 0;
	if ((rc = pm_fileio_user_check(user_io)))
		return rc;
	if (!(c->user_io = pm_malloc(sizeof *c->user_io)))
		return PAIMON_ENOMEM;
	memcpy(c->user_io, user_io, sizeof *c->user_io);
	c->user_ctx = user_ctx;
	return 0;
}

int pm_catalog_fileio_new(const paimon_catalog *c, pm_fileio **out)
{
	if (c->user_io)
		return pm_fileio_user_new(c->user_io, c->user_ctx, out);
	return pm_fileio_default_new(out);
}

char *pm_catalog_uri_warehouse(const char *wh)
{
	char *r = pm_strdup(wh);
	size_t n;
	if (!r)
		return NULL;
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/' && !(n >= 3 && r[n - 2] == '/' && r[n - 3] == ':'))
		r[--n] = '\0';
	return r;
}
