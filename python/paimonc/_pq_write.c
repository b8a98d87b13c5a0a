/*
 * python/paimonc/_pq_write.c - Parquet writing for paimonc.parquet:
 * _native._parquet_write_stream(capsule, path, keys, values) writes an
 * Arrow C stream (PyCapsule "arrow_array_stream") with the GIL released;
 * _native._parquet_write_array(schema_capsule, array_capsule, path, keys,
 * values) writes one batch.
 */
#include "_native.h"

#include <stdlib.h>
#include <string.h>

#include "paimonc/parquet_writer.h"

/* keys/values: sequences of str of equal length -> arrays of UTF-8 pointers
 * borrowed from the (kept alive) sequences' items. */
static int opt_arrays(PyObject *keys, PyObject *values, const char ***k, const char ***v, Py_ssize_t *n)
{
	Py_ssize_t i;
	*k = *v = NULL;
	*n = 0;
	if (!PyList_Check(keys) || !PyList_Check(values) || PyList_GET_SIZE(keys) != PyList_GET_SIZE(values)) {
		PyErr_SetString(PyExc_TypeError, "option keys and values must be lists of equal length");
		return -1;
	}
	*n = PyList_GET_SIZE(keys);
	*k = calloc((size_t)*n + 1, sizeof **k);
	*v = calloc((size_t)*n + 1, sizeof **v);
	if (!*k || !*v) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < *n; i++) {
		(*k)[i] = PyUnicode_AsUTF8(PyList_GET_ITEM(keys, i));
		(*v)[i] = PyUnicode_AsUTF8(PyList_GET_ITEM(values, i));
		if (!(*k)[i] || !(*v)[i])
			return -1;
	}
	return 0;
}

static PyObject *py_write_stream(PyObject *self, PyObject *args)
{
	PyObject *cap, *keys, *values;
	const char *path;
	const char **k = NULL, **v = NULL;
	Py_ssize_t n;
	struct ArrowArrayStream *st;
	int rc;
	(void)self;
	if (!PyArg_ParseTuple(args, "OsOO", &cap, &path, &keys, &values))
		return NULL;
	if (!PyCapsule_IsValid(cap, "arrow_array_stream")) {
		PyErr_SetString(PyExc_TypeError, "expected a PyCapsule named 'arrow_array_stream'");
		return NULL;
	}
	st = PyCapsule_GetPointer(cap, "arrow_array_stream");
	if (!st || !st->release) {
		PyErr_SetString(PyExc_ValueError, "Arrow stream capsule was already consumed");
		return NULL;
	}
	if (opt_arrays(keys, values, &k, &v, &n)) {
		free(k);
		free(v);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_parquet_write_stream(path, st, k, v, (size_t)n);
	Py_END_ALLOW_THREADS
	free(k);
	free(v);
	if (rc)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *py_write_array(PyObject *self, PyObject *args)
{
	PyObject *scap, *acap, *keys, *values;
	const char *path;
	const char **k = NULL, **v = NULL;
	Py_ssize_t n;
	struct ArrowSchema *s;
	struct ArrowArray *a;
	paimon_parquet_writer *w = NULL;
	int rc;
	(void)self;
	if (!PyArg_ParseTuple(args, "OOsOO", &scap, &acap, &path, &keys, &values))
		return NULL;
	if (!PyCapsule_IsValid(scap, "arrow_schema") || !PyCapsule_IsValid(acap, "arrow_array")) {
		PyErr_SetString(PyExc_TypeError, "expected PyCapsules 'arrow_schema' and 'arrow_array'");
		return NULL;
	}
	s = PyCapsule_GetPointer(scap, "arrow_schema");
	a = PyCapsule_GetPointer(acap, "arrow_array");
	if (!s || !s->release || !a || !a->release) {
		PyErr_SetString(PyExc_ValueError, "Arrow capsule was already consumed");
		return NULL;
	}
	if (opt_arrays(keys, values, &k, &v, &n)) {
		free(k);
		free(v);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_parquet_writer_open(path, s, k, v, (size_t)n, &w);
	if (!rc)
		rc = paimon_parquet_writer_write(w, a);
	if (!rc)
		rc = paimon_parquet_writer_close(w);
	paimon_parquet_writer_free(w);
	Py_END_ALLOW_THREADS
	free(k);
	free(v);
	if (rc)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyMethodDef writer_methods[] = {
	{"_parquet_write_stream", py_write_stream, METH_VARARGS,
	 "(stream_capsule, path, keys, values): write an Arrow C stream as a Parquet file"},
	{"_parquet_write_array", py_write_array, METH_VARARGS,
	 "(schema_capsule, array_capsule, path, keys, values): write one struct array as a Parquet file"},
	{NULL, NULL, 0, NULL}};

int pm_py_add_parquet_writer(PyObject *m)
{
	return PyModule_AddFunctions(m, writer_methods);
}
