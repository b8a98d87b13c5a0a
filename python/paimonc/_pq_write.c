/*
 * python/paimonc/_pq_write.c - Parquet writing for paimonc.parquet:
 * _native._parquet_write_stream(capsule, path, keys, values) writes an
 * Arrow C stream (PyCapsule "arrow_array_stream") with the GIL released;
 * _native._parquet_write_array(schema_capsule, array_capsule, path, keys,
 * values) writes one batch.
 */
#include "_native.h"

#include "paimonc/options.h"
#include "paimonc/parquet_writer.h"

/* keys/values: lists of str of equal length -> a new paimon_options (*out,
 * freed by the caller; NULL on failure). A key given twice keeps the later
 * value. 0, or -1 with an exception. */
static int opts_from_lists(PyObject *keys, PyObject *values, paimon_options **out)
{
	Py_ssize_t i, n;
	int rc;
	*out = NULL;
	if (!PyList_Check(keys) || !PyList_Check(values) || PyList_GET_SIZE(keys) != PyList_GET_SIZE(values)) {
		PyErr_SetString(PyExc_TypeError, "option keys and values must be lists of equal length");
		return -1;
	}
	if ((rc = paimon_options_new(out)) != 0) {
		pm_py_raise_last(rc);
		return -1;
	}
	n = PyList_GET_SIZE(keys);
	for (i = 0; i < n; i++) {
		const char *k = PyUnicode_AsUTF8(PyList_GET_ITEM(keys, i)), *v = NULL;
		if (!k || !(v = PyUnicode_AsUTF8(PyList_GET_ITEM(values, i))) ||
		    (rc = paimon_options_set(*out, k, v)) != 0) {
			if (k && v)
				pm_py_raise_last(rc);
			paimon_options_free(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

/* The stream is moved out of the capsule (whose destructor then leaves it
 * alone) and consumed by paimon_parquet_write_stream, also on failure. */
static PyObject *py_write_stream(PyObject *self, PyObject *args)
{
	PyObject *cap, *keys, *values;
	const char *path;
	paimon_options *opts = NULL;
	struct ArrowArrayStream *src, st;
	int rc;
	(void)self;
	if (!PyArg_ParseTuple(args, "OsOO", &cap, &path, &keys, &values))
		return NULL;
	if (!PyCapsule_IsValid(cap, "arrow_array_stream")) {
		PyErr_SetString(PyExc_TypeError, "expected a PyCapsule named 'arrow_array_stream'");
		return NULL;
	}
	src = PyCapsule_GetPointer(cap, "arrow_array_stream");
	if (!src || !src->release) {
		PyErr_SetString(PyExc_ValueError, "Arrow stream capsule was already consumed");
		return NULL;
	}
	if (opts_from_lists(keys, values, &opts))
		return NULL;
	st = *src;
	src->release = NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_parquet_write_stream(path, &st, opts);
	Py_END_ALLOW_THREADS
	paimon_options_free(opts);
	if (rc)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *py_write_array(PyObject *self, PyObject *args)
{
	PyObject *scap, *acap, *keys, *values;
	const char *path;
	paimon_options *opts = NULL;
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
	if (opts_from_lists(keys, values, &opts))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_parquet_writer_open(&w, path, s, opts);
	if (!rc)
		rc = paimon_parquet_writer_write(w, a);
	if (!rc)
		rc = paimon_parquet_writer_close(w);
	paimon_parquet_writer_free(w);
	Py_END_ALLOW_THREADS
	paimon_options_free(opts);
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
