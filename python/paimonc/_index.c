/*
 * _index.c - paimonc._native functions for global indexes and search
 * (paimonc/index.h; the Python API is in paimonc/index.py) and for
 * compaction (Table.compact in paimonc/table.py): the long table jobs that
 * report progress. Native work runs without the GIL (the progress callback
 * takes it back briefly).
 */
#include "_native.h"

#include <stdlib.h>
#include <string.h>

#include "paimonc/paimonc.h"
#include "paimonc/index.h"

#define CALL_NOGIL(stmt)               \
	do {                           \
		Py_BEGIN_ALLOW_THREADS \
		stmt;                  \
		Py_END_ALLOW_THREADS   \
	} while (0)

static int opts_arg(PyObject *d, const char *what, paimon_options **out)
{
	int rc;
	*out = NULL;
	if (d == NULL || d == Py_None)
		return 0;
	if (!PyDict_Check(d)) {
		PyErr_Format(PyExc_TypeError, "%s must be a dict", what);
		return -1;
	}
	if ((rc = paimon_options_new(out)) != 0) {
		pm_py_raise_last(rc);
		return -1;
	}
	if (pm_py_options_from_dict(d, *out, what) == 0)
		return 0;
	paimon_options_free(*out);
	*out = NULL;
	return -1;
}

static int pred_arg(PyObject *o, paimon_predicate **out)
{
	*out = NULL;
	if (o == NULL || o == Py_None)
		return 0;
	*out = pm_py_predicate_handle(o);
	return *out ? 0 : -1;
}

/* a result as (bytes of int64 row ids, bytes of float32 scores) */
static PyObject *result_tuple(const paimon_search_result *r)
{
	size_t n = paimon_search_result_count(r);
	const char *ids = n ? (const char *)paimon_search_result_row_ids(r) : "";
	const char *sc = n ? (const char *)paimon_search_result_scores(r) : "";
	return Py_BuildValue("(y#y#)", ids, (Py_ssize_t)(n * 8), sc, (Py_ssize_t)(n * 4));
}

typedef struct progress {
	PyObject *fn;
	int failed;
} progress;

static void progress_cb(void *ctx, int64_t done, int64_t total)
{
	progress *p = ctx;
	PyGILState_STATE st;
	PyObject *r;
	if (!p->fn || p->failed)
		return;
	st = PyGILState_Ensure();
	r = PyObject_CallFunction(p->fn, "LL", (long long)done, (long long)total);
	if (!r) {
		p->failed = 1; /* further calls are skipped; the build goes on */
		PyErr_WriteUnraisable(p->fn);
	}
	Py_XDECREF(r);
	PyGILState_Release(st);
}

/* table_create_global_index(table, column, type, options|None, progress|None,
 * partition predicate|None) -> files */
static PyObject *mod_create(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o, *prog, *part_o = Py_None;
	const char *col, *type;
	paimon_options *opts = NULL;
	paimon_predicate *part = NULL;
	progress p = {NULL, 0};
	int64_t n = 0;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OssOO|O:table_create_global_index", &table, &col, &type, &opts_o, &prog, &part_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (!t || pred_arg(part_o, &part) < 0 || opts_arg(opts_o, "index options", &opts) < 0)
		return NULL;
	if (prog != Py_None)
		p.fn = prog;
	CALL_NOGIL(rc = paimon_table_create_global_index_in(t, col, type, part, opts, p.fn ? progress_cb : NULL, &p,
							    &n));
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return PyLong_FromLongLong((long long)n);
}

/* table_compact(table, options|None, progress|None, partition predicate|None,
 * dry_run) -> dict of paimon_compact_result */
static PyObject *mod_compact(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o, *prog, *part_o;
	paimon_options *opts = NULL;
	paimon_predicate *part = NULL;
	paimon_compact_result r;
	progress p = {NULL, 0};
	int dry = 0, rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OOOOp:table_compact", &table, &opts_o, &prog, &part_o, &dry))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (!t || pred_arg(part_o, &part) < 0 || opts_arg(opts_o, "compact options", &opts) < 0)
		return NULL;
	if (prog != Py_None)
		p.fn = prog;
	CALL_NOGIL(rc = paimon_table_compact(t, part, opts, dry, p.fn ? progress_cb : NULL, &p, &r));
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "snapshot_id", (long long)r.snapshot_id,
			     "base_snapshot", (long long)r.base_snapshot, "tasks", (long long)r.tasks, "files_before",
			     (long long)r.files_before, "files_after", (long long)r.files_after, "bytes_before",
			     (long long)r.bytes_before, "bytes_after", (long long)r.bytes_after, "rows",
			     (long long)r.rows);
}

/* table_compact_plan(table, options|None, partition predicate|None)
 * -> [[input file names of a task]] */
static PyObject *mod_compact_plan(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o, *part_o, *out = NULL, *cur = NULL;
	paimon_options *opts = NULL;
	paimon_predicate *part = NULL;
	char **files = NULL;
	int64_t *tasks = NULL, last = -1;
	size_t n = 0, i;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OOO:table_compact_plan", &table, &opts_o, &part_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (!t || pred_arg(part_o, &part) < 0 || opts_arg(opts_o, "compact options", &opts) < 0)
		return NULL;
	CALL_NOGIL(rc = paimon_table_compact_plan(t, part, opts, &files, &tasks, &n));
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	if (!(out = PyList_New(0)))
		goto fail;
	for (i = 0; i < n; i++) {
		PyObject *name;
		if (tasks[i] != last) {
			if (!(cur = PyList_New(0)) || PyList_Append(out, cur) < 0) {
				Py_XDECREF(cur);
				goto fail;
			}
			Py_DECREF(cur); /* out holds it */
			last = tasks[i];
		}
		if (!(name = PyUnicode_FromString(files[i])) || PyList_Append(cur, name) < 0) {
			Py_XDECREF(name);
			goto fail;
		}
		Py_DECREF(name);
	}
	paimon_string_list_free(files, n);
	paimon_free(tasks);
	return out;
fail:
	Py_XDECREF(out);
	paimon_string_list_free(files, n);
	paimon_free(tasks);
	return NULL;
}

/* table_drop_global_index(table, column, type|None, dry_run, partition
 * predicate|None) -> files */
static PyObject *mod_drop(PyObject *m, PyObject *args)
{
	PyObject *table, *part_o = Py_None;
	const char *col, *type = NULL;
	paimon_predicate *part = NULL;
	int dry = 0, rc;
	int64_t n = 0;
	(void)m;
	if (!PyArg_ParseTuple(args, "Osz|pO:table_drop_global_index", &table, &col, &type, &dry, &part_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (!t || pred_arg(part_o, &part) < 0)
		return NULL;
	CALL_NOGIL(rc = paimon_table_drop_global_index_in(t, col, type, part, dry, &n));
	if (rc != 0)
		return pm_py_raise_last(rc);
	return PyLong_FromLongLong((long long)n);
}

/* table_list_global_indexes(table, snapshot_id) -> [dict] */
static PyObject *mod_list(PyObject *m, PyObject *args)
{
	PyObject *table, *list;
	long long snap = -1;
	paimon_index_list *l = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "O|L:table_list_global_indexes", &table, &snap))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (!t)
		return NULL;
	CALL_NOGIL(rc = paimon_table_list_global_indexes(t, (int64_t)snap, &l));
	if (rc != 0)
		return pm_py_raise_last(rc);
	list = PyList_New(0);
	for (size_t i = 0; list && i < paimon_index_list_count(l); i++) {
		paimon_index_info info;
		PyObject *d;
		paimon_index_list_get(l, i, &info);
		d = Py_BuildValue("{s:s,s:s,s:s,s:i,s:L,s:L,s:L,s:L}", "index_type", info.index_type, "file_name",
				  info.file_name, "index_field_name", info.column, "index_field_id", (int)info.field_id,
				  "file_size", (long long)info.file_size, "row_count", (long long)info.row_count,
				  "row_range_start", (long long)info.row_range_start, "row_range_end",
				  (long long)info.row_range_end);
		if (!d || PyList_Append(list, d) < 0) {
			Py_XDECREF(d);
			Py_CLEAR(list);
			break;
		}
		Py_DECREF(d);
	}
	paimon_index_list_free(l);
	return list;
}

/* table_vector_search(table, column, queries: buffer float32 (nq*dim), nq, dim, limit,
 *                     predicate|None, options|None) -> [(ids, scores)] per query */
static PyObject *mod_vsearch(PyObject *m, PyObject *args)
{
	PyObject *table, *pred_o, *opts_o, *list = NULL;
	const char *col;
	Py_buffer qb;
	Py_ssize_t nq, dim;
	long long limit;
	paimon_options *opts = NULL;
	paimon_predicate *pred = NULL;
	paimon_search_result **res = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "Osy*nnLOO:table_vector_search", &table, &col, &qb, &nq, &dim, &limit, &pred_o,
			      &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (!t || pred_arg(pred_o, &pred) < 0 || opts_arg(opts_o, "search options", &opts) < 0)
		goto out;
	if (nq <= 0 || dim <= 0 || qb.len != nq * dim * 4) {
		PyErr_SetString(PyExc_ValueError, "query vectors: buffer size does not match nq * dim float32");
		goto out;
	}
	if (!(res = calloc((size_t)nq, sizeof *res))) {
		PyErr_NoMemory();
		goto out;
	}
	CALL_NOGIL(rc = paimon_table_vector_search(t, col, (const float *)qb.buf, (size_t)nq, (size_t)dim,
						   (int64_t)limit, pred, opts, res));
	if (rc != 0) {
		pm_py_raise_last(rc);
		goto out;
	}
	list = PyList_New(nq);
	for (Py_ssize_t i = 0; list && i < nq; i++) {
		PyObject *tp = result_tuple(res[i]);
		if (!tp) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, i, tp);
	}
out:
	if (res)
		for (Py_ssize_t i = 0; i < nq; i++)
			paimon_search_result_free(res[i]);
	free(res);
	paimon_options_free(opts);
	PyBuffer_Release(&qb);
	return list;
}

/* table_full_text_search(table, column, query, limit, predicate|None, options|None) -> (ids, scores) */
static PyObject *mod_ftsearch(PyObject *m, PyObject *args)
{
	PyObject *table, *pred_o, *opts_o, *tp = NULL;
	const char *col, *query;
	long long limit;
	paimon_options *opts = NULL;
	paimon_predicate *pred = NULL;
	paimon_search_result *res = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OssLOO:table_full_text_search", &table, &col, &query, &limit, &pred_o, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (!t || pred_arg(pred_o, &pred) < 0 || opts_arg(opts_o, "search options", &opts) < 0)
		return NULL;
	CALL_NOGIL(rc = paimon_table_full_text_search(t, col, query, (int64_t)limit, pred, opts, &res));
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	tp = result_tuple(res);
	paimon_search_result_free(res);
	return tp;
}

/* table_index_filter(table, predicate, options|None) -> (ids, scores) | None */
static PyObject *mod_ifilter(PyObject *m, PyObject *args)
{
	PyObject *table, *pred_o, *opts_o, *tp;
	paimon_options *opts = NULL;
	paimon_predicate *pred = NULL;
	paimon_search_result *res = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OOO:table_index_filter", &table, &pred_o, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (!t || pred_arg(pred_o, &pred) < 0 || !pred || opts_arg(opts_o, "options", &opts) < 0) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "a predicate is required");
		return NULL;
	}
	CALL_NOGIL(rc = paimon_table_index_filter(t, pred, opts, &res));
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	if (!res)
		Py_RETURN_NONE;
	tp = result_tuple(res);
	paimon_search_result_free(res);
	return tp;
}

/* search_fuse(ranker|None, [(ids, scores)], [weights], limit) -> (ids, scores) */
static PyObject *mod_fuse(PyObject *m, PyObject *args)
{
	PyObject *routes_o, *weights_o, *tp = NULL;
	const char *ranker = NULL;
	long long limit;
	paimon_search_result **rs = NULL, *out = NULL;
	double *w = NULL;
	Py_ssize_t n, i;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "zO!O!L:search_fuse", &ranker, &PyList_Type, &routes_o, &PyList_Type, &weights_o,
			      &limit))
		return NULL;
	n = PyList_GET_SIZE(routes_o);
	if (PyList_GET_SIZE(weights_o) != n) {
		PyErr_SetString(PyExc_ValueError, "one weight per route");
		return NULL;
	}
	rs = calloc((size_t)n + 1, sizeof *rs);
	w = calloc((size_t)n + 1, sizeof *w);
	if (!rs || !w) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++) {
		PyObject *r = PyList_GET_ITEM(routes_o, i);
		const char *ib, *sb;
		Py_ssize_t il, sl;
		if (!PyArg_ParseTuple(r, "y#y#", &ib, &il, &sb, &sl))
			goto out;
		if (il % 8 || sl * 2 != il) {
			PyErr_SetString(PyExc_ValueError, "route: ids and scores differ in length");
			goto out;
		}
		if ((rc = paimon_search_result_new((const int64_t *)ib, (const float *)sb, (size_t)(il / 8), &rs[i]))) {
			pm_py_raise_last(rc);
			goto out;
		}
		w[i] = PyFloat_AsDouble(PyList_GET_ITEM(weights_o, i));
		if (w[i] == -1.0 && PyErr_Occurred())
			goto out;
	}
	CALL_NOGIL(rc = paimon_search_result_fuse(ranker, (const paimon_search_result *const *)rs, w, (size_t)n,
						  (int64_t)limit, &out));
	if (rc != 0) {
		pm_py_raise_last(rc);
		goto out;
	}
	tp = result_tuple(out);
out:
	if (rs)
		for (i = 0; i < n; i++)
			paimon_search_result_free(rs[i]);
	free(rs);
	free(w);
	paimon_search_result_free(out);
	return tp;
}

/* set_engine_library(component, path) */
static PyObject *mod_set_engine(PyObject *m, PyObject *args)
{
	const char *comp, *path;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "ss:set_engine_library", &comp, &path))
		return NULL;
	if ((rc = paimon_set_engine_library(comp, path)) != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyMethodDef index_methods[] = {
	{"set_engine_library", mod_set_engine, METH_VARARGS, "(component, path): vindex / ftindex shared library"},
	{"table_compact", mod_compact, METH_VARARGS, "Compact an append table (paimonc/table.h paimon_table_compact)."},
	{"table_compact_plan", mod_compact_plan, METH_VARARGS, "The groups of files a compaction would merge."},
	{"table_create_global_index", mod_create, METH_VARARGS,
	 "(table, column, type, options|None, progress|None) -> files added"},
	{"table_drop_global_index", mod_drop, METH_VARARGS, "(table, column, type|None, dry_run) -> files"},
	{"table_list_global_indexes", mod_list, METH_VARARGS, "(table[, snapshot_id]) -> [dict]"},
	{"table_vector_search", mod_vsearch, METH_VARARGS,
	 "(table, column, queries, nq, dim, limit, predicate|None, options|None) -> [(ids, scores)]"},
	{"table_full_text_search", mod_ftsearch, METH_VARARGS,
	 "(table, column, query, limit, predicate|None, options|None) -> (ids, scores)"},
	{"table_index_filter", mod_ifilter, METH_VARARGS, "(table, predicate, options|None) -> (ids, scores)|None"},
	{"search_fuse", mod_fuse, METH_VARARGS, "(ranker|None, [(ids, scores)], [weights], limit) -> (ids, scores)"},
	{NULL, NULL, 0, NULL},
};

int pm_py_add_index_api(PyObject *m)
{
	return PyModule_AddFunctions(m, index_methods);
}
