/*
 * python/paimonc/_native.h - what the C files of the paimonc._native
 * extension share. _native.c is the module (catalog, tables, schemas); each
 * further file adds one area's functions to the module at init.
 */
#ifndef PAIMONC_PY_NATIVE_H
#define PAIMONC_PY_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pythread.h>

struct paimon_options;

/* Raises the paimonc exception class for rc with paimon_error_message(); returns NULL. */
PyObject *pm_py_raise_last(int rc);

/* UTF-8 view of a str argument (borrowed from o): TypeError for a non-str,
 * InvalidArgumentError (a ValueError) for an embedded NUL. 0 or -1. */
int pm_py_as_cstr(PyObject *o, const char *what, const char **out);
/* Adds the items of a dict[str, str] to opts (TypeError for a non-dict). 0 or -1. */
int pm_py_options_from_dict(PyObject *d, struct paimon_options *opts, const char *what);

/* Runs `stmt` with the GIL released while holding `lk` (a PyThread lock of
 * the object the call works on). */
#define PM_PY_CALL_LOCKED(lk, stmt)                     \
	do {                                            \
		Py_BEGIN_ALLOW_THREADS                  \
		PyThread_acquire_lock((lk), WAIT_LOCK); \
		stmt;                                   \
		PyThread_release_lock((lk));            \
		Py_END_ALLOW_THREADS                    \
	} while (0)

/* Area initialisers, called from PyInit__native; return 0 or -1 with an exception. */
int pm_py_add_parquet_reader(PyObject *m); /* _pq_read.c: paimonc.parquet reading */
int pm_py_add_parquet_writer(PyObject *m); /* _pq_write.c: paimonc.parquet writing */
int pm_py_add_table_api(PyObject *m);      /* _table.c: write, commit, predicates, read */

int pm_py_add_update_api(PyObject *m);     /* _update.c: update by row id */
int pm_py_add_index_api(PyObject *m);      /* _index.c: global indexes and search */
struct paimon_predicate *pm_py_predicate_handle(PyObject *o); /* _table.c */

struct paimon_commit_message;
/* A _native.CommitMessage owning m (freed on failure too). */
PyObject *pm_py_message_wrap(struct paimon_commit_message *m);

struct paimon_table;
/* The paimon_table of a _native.Table (borrowed, lives as long as the object);
 * NULL with TypeError for anything else. */
struct paimon_table *pm_py_table_handle(PyObject *o);

#endif
