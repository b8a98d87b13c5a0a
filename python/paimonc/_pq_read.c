/*
 * python/paimonc/_pq_read.c - Parquet reading for paimonc.parquet.
 *
 *   _native.parquet_open_stream(path, columns=None, batch_rows=0)
 *       -> PyCapsule "arrow_array_stream" (Arrow PyCapsule interface)
 *   _native.parquet_meta_json(path, pages=False) -> str
 *
 * The footer is read with the GIL released; batches are decoded when the
 * consumer pulls them (pyarrow's read_all releases the GIL while it does).
 */
#include "_native.h"

#include <stdlib.h>
#include <string.h>

#include "paimonc/paimonc.h"

static void stream_capsule_free(PyObject *capsule)
{
	struct ArrowArrayStream *s = PyCapsule_GetPointer(capsule, "arrow_array_stream");
	if (!s)
		return;
	if (s->release)
		s->release(s);
	free(s);
}

static PyObject *parquet_open_stream(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"path", "columns", "batch_rows", NULL};
	const char *path;
	PyObject *columns = Py_None, *seq = NULL, *cap;
	long long batch_rows = 0;
	const char **cols = NULL;
	Py_ssize_t n = 0, i;
	paimon_parquet_reader *r = NULL;
	struct ArrowArrayStream *st;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|OL", kwlist, &path, &columns, &batch_rows))
		return NULL;
	if (columns != Py_None) {
		if (!(seq = PySequence_Fast(columns, "columns must be a sequence of str")))
			return NULL;
		n = PySequence_Fast_GET_SIZE(seq);
		if (!(cols = calloc((size_t)n + 1, sizeof *cols))) {
			Py_DECREF(seq);
			return PyErr_NoMemory();
		}
		for (i = 0; i < n; i++) {
			PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
			if (!PyUnicode_Check(o) || !(cols[i] = PyUnicode_AsUTF8(o))) {
				if (!PyErr_Occurred())
					PyErr_SetString(PyExc_TypeError, "columns must be a sequence of str");
				free(cols);
				Py_DECREF(seq);
				return NULL;
			}
		}
	}
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_parquet_reader_open(&r, path, cols, (size_t)n, (int64_t)batch_rows);
	Py_END_ALLOW_THREADS
	free(cols);
	Py_XDECREF(seq);
	if (rc)
		return pm_py_raise_last(rc);
	if (!(st = calloc(1, sizeof *st))) {
		paimon_parquet_reader_free(r);
		return PyErr_NoMemory();
	}
	if ((rc = paimon_parquet_reader_stream(r, st))) {
		free(st);
		return pm_py_raise_last(rc);
	}
	if (!(cap = PyCapsule_New(st, "arrow_array_stream", stream_capsule_free))) {
		st->release(st);
		free(st);
		return NULL;
	}
	return cap;
}

static PyObject *parquet_meta_json(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"path", "pages", NULL};
	const char *path;
	int pages = 0, rc;
	char *out = NULL;
	PyObject *res;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|p", kwlist, &path, &pages))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_parquet_file_meta_json(path, pages, &out);
	Py_END_ALLOW_THREADS
	if (rc)
		return pm_py_raise_last(rc);
	res = PyUnicode_FromString(out);
	paimon_free(out);
	return res;
}

static PyMethodDef pq_read_methods[] = {
	{"parquet_open_stream", (PyCFunction)(void (*)(void))parquet_open_stream, METH_VARARGS | METH_KEYWORDS,
	 "parquet_open_stream(path, columns=None, batch_rows=0) -> PyCapsule 'arrow_array_stream'"},
	{"parquet_meta_json", (PyCFunction)(void (*)(void))parquet_meta_json, METH_VARARGS | METH_KEYWORDS,
	 "parquet_meta_json(path, pages=False) -> JSON text describing the file's metadata"},
	{NULL, NULL, 0, NULL},
};

int pm_py_add_parquet_reader(PyObject *m)
{
	return PyModule_AddFunctions(m, pq_read_methods);
}
