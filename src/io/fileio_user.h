/*
 * io/fileio_user.h - a pm_fileio over a user's paimon_fileio_methods (the
 * public extension header paimonc/sys/fileio.h).
 */
#ifndef PM_IO_FILEIO_USER_H
#define PM_IO_FILEIO_USER_H

#include "io/fileio.h"
#include "paimonc/sys/fileio.h"

/* Checks a methods struct: version between 1 and PAIMON_FILEIO_VERSION and
 * every required callback set; PAIMON_EINVAL naming the version or the
 * callback otherwise. */
int pm_fileio_user_check(const paimon_fileio_methods *m);

/* A FileIO calling m's callbacks with ctx (m is checked, then copied; ctx is
 * borrowed and must outlive the FileIO). Free with pm_fileio_close (which
 * calls nothing of the user's). */
int pm_fileio_user_new(const paimon_fileio_methods *m, void *ctx, pm_fileio **out);

#endif
