/*
 * python/paimonc/_pq_read.c - Parquet reading for paimonc.parquet.
 *
 *   _native.parquet_open_stream(path, columns=None, batch_rows=0, filter=None, metrics=False)
 *       -> PyCapsule "arrow_array_stream" (Arrow PyCapsule interface), or
 *          (capsule, dict of the reader's pruning counters) when metrics
 *   filter: a tree of tuples ("and", [node, ...]) / ("or", [node, ...]) /
 *       ("not", node) / ("leaf", column, op, [bytes, ...]) with op a
 *       paimon_predicate_op and the literals as paimon_parquet_filter
 *       parses them (the row groups / pages pruned; rows are not filtered)
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

/* Builds a paimon_parquet_filter from the tuple tree; NULL + exception. */
static paimon_parquet_filter *build_filter(PyObject *node, int depth)
{
	const char *kind;
	paimon_parquet_filter *f = NULL;
	if (depth > 200) {
		PyErr_SetString(PyExc_ValueError, "filter nested too deeply");
		return NULL;
	}
	if (!PyTuple_Check(node) || PyTuple_GET_SIZE(node) < 2 || !PyUnicode_Check(PyTuple_GET_ITEM(node, 0)) ||
	    !(kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(node, 0)))) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "bad filter node");
		return NULL;
	}
	if (!strcmp(kind, "not")) {
		paimon_parquet_filter *a = build_filter(PyTuple_GET_ITEM(node, 1), depth + 1);
		if (!a)
			return NULL;
		int rc = paimon_parquet_filter_not(&f, a);
		if (rc)
			return (paimon_parquet_filter *)pm_py_raise_last(rc);
		return f;
	}
	if (!strcmp(kind, "and") || !strcmp(kind, "or")) {
		PyObject *seq = PySequence_Fast(PyTuple_GET_ITEM(node, 1), "filter operands must be a sequence");
		Py_ssize_t i;
		if (!seq)
			return NULL;
		if (PySequence_Fast_GET_SIZE(seq) == 0) {
			Py_DECREF(seq);
			PyErr_SetString(PyExc_ValueError, "empty AND/OR in filter");
			return NULL;
		}
		for (i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
			paimon_parquet_filter *k = build_filter(PySequence_Fast_GET_ITEM(seq, i), depth + 1), *c;
			int rc;
			if (!k) {
				paimon_parquet_filter_free(f);
				Py_DECREF(seq);
				return NULL;
			}
			if (!f) {
				f = k;
				continue;
			}
			rc = kind[0] == 'a' ? paimon_parquet_filter_and(&c, f, k) : paimon_parquet_filter_or(&c, f, k);
			if (rc) {
				Py_DECREF(seq);
				return (paimon_parquet_filter *)pm_py_raise_last(rc);
			}
			f = c;
		}
		Py_DECREF(seq);
		return f;
	}
	if (!strcmp(kind, "leaf") && PyTuple_GET_SIZE(node) == 4) {
		const char *col = PyUnicode_Check(PyTuple_GET_ITEM(node, 1)) ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(node, 1)) : NULL;
		long op = PyLong_AsLong(PyTuple_GET_ITEM(node, 2));
		PyObject *seq;
		const void **vals;
		size_t *lens;
		Py_ssize_t n, i;
		int rc;
		if (!col || (op == -1 && PyErr_Occurred())) {
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_TypeError, "filter leaf: column must be a str");
			return NULL;
		}
		if (!(seq = PySequence_Fast(PyTuple_GET_ITEM(node, 3), "filter leaf values must be a sequence of bytes")))
			return NULL;
		n = PySequence_Fast_GET_SIZE(seq);
		vals = calloc((size_t)n + 1, sizeof *vals);
		lens = calloc((size_t)n + 1, sizeof *lens);
		if (!vals || !lens) {
			free(vals);
			free(lens);
			Py_DECREF(seq);
			PyErr_NoMemory();
			return NULL;
		}
		for (i = 0; i < n; i++) {
			PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
			if (!PyBytes_Check(o)) {
				free(vals);
				free(lens);
				Py_DECREF(seq);
				PyErr_SetString(PyExc_TypeError, "filter leaf values must be bytes");
				return NULL;
			}
			vals[i] = PyBytes_AS_STRING(o);
			lens[i] = (size_t)PyBytes_GET_SIZE(o);
		}
		rc = paimon_parquet_filter_new(&f, col, (int)op, vals, lens, (size_t)n);
		free(vals);
		free(lens);
		Py_DECREF(seq);
		if (rc)
			return (paimon_parquet_filter *)pm_py_raise_last(rc);
		return f;
	}
	PyErr_SetString(PyExc_TypeError, "bad filter node");
	return NULL;
}

static PyObject *parquet_open_stream(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"path", "columns", "batch_rows", "filter", "metrics", "threads", NULL};
	const char *path;
	int threads = 1;
	PyObject *columns = Py_None, *seq = NULL, *cap, *filter = Py_None;
	int want_metrics = 0;
	paimon_parquet_filter *flt = NULL;
	paimon_parquet_read_options o;
	paimon_parquet_read_metrics met;
	long long batch_rows = 0;
	const char **cols = NULL;
	Py_ssize_t n = 0, i;
	paimon_parquet_reader *r = NULL;
	struct ArrowArrayStream *st;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|OLOpi", kwlist, &path, &columns, &batch_rows, &filter,
					 &want_metrics, &threads))
		return NULL;
	if (filter != Py_None && !(flt = build_filter(filter, 0)))
		return NULL;
	if (columns != Py_None) {
		if (!(seq = PySequence_Fast(columns, "columns must be a sequence of str"))) {
			paimon_parquet_filter_free(flt);
			return NULL;
		}
		n = PySequence_Fast_GET_SIZE(seq);
		if (!(cols = calloc((size_t)n + 1, sizeof *cols))) {
			Py_DECREF(seq);
			paimon_parquet_filter_free(flt);
			return PyErr_NoMemory();
		}
		for (i = 0; i < n; i++) {
			PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
			if (!PyUnicode_Check(o) || !(cols[i] = PyUnicode_AsUTF8(o))) {
				if (!PyErr_Occurred())
					PyErr_SetString(PyExc_TypeError, "columns must be a sequence of str");
				free(cols);
				Py_DECREF(seq);
				paimon_parquet_filter_free(flt);
				return NULL;
			}
		}
	}
	Py_BEGIN_ALLOW_THREADS
	memset(&o, 0, sizeof o);
	o.columns = cols;
	o.n_columns = (size_t)n;
	o.batch_rows = (int64_t)batch_rows;
	o.filter = flt;
	o.threads = threads;
	rc = paimon_parquet_reader_open_opts(&r, path, &o);
	Py_END_ALLOW_THREADS
	paimon_parquet_filter_free(flt);
	free(cols);
	Py_XDECREF(seq);
	if (rc)
		return pm_py_raise_last(rc);
	paimon_parquet_reader_metrics(r, &met);
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
	if (want_metrics) {
		PyObject *d = Py_BuildValue("{sLsLsLsLsL}", "row_groups_total", (long long)met.row_groups_total,
					    "row_groups_pruned", (long long)met.row_groups_pruned, "row_groups_pruned_pages",
					    (long long)met.row_groups_pruned_pages, "row_groups_read",
					    (long long)met.row_groups_selected, "rows_pruned_pages",
					    (long long)met.rows_pruned_pages);
		PyObject *t = d ? PyTuple_Pack(2, cap, d) : NULL;
		Py_DECREF(cap);
		Py_XDECREF(d);
		return t;
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

static PyMethodDef pm_pq_read_methods[] = {
	{"parquet_open_stream", (PyCFunction)(void (*)(void))parquet_open_stream, METH_VARARGS | METH_KEYWORDS,
	 "parquet_open_stream(path, columns=None, batch_rows=0, filter=None, metrics=False, threads=1) -> PyCapsule 'arrow_array_stream' (and a dict of pruning counters when metrics)"},
	{"parquet_meta_json", (PyCFunction)(void (*)(void))parquet_meta_json, METH_VARARGS | METH_KEYWORDS,
	 "parquet_meta_json(path, pages=False) -> JSON text describing the file's metadata"},
	{NULL, NULL, 0, NULL},
};

int pm_py_add_parquet_reader(PyObject *m)
{
	return PyModule_AddFunctions(m, pm_pq_read_methods);
}
