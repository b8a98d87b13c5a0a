/*
 * python/paimonc/_update.c - binding of the update-by-row-id and delete
 * parts of include/paimonc/table.h. The pypaimon-shaped TableUpdate lives in
 * paimonc/update.py.
 *
 * Native type (made by table_update_new):
 *   TableUpdate  paimon_table_update, keeps its Table alive; its own lock,
 *                taken with the GIL released around each native call.
 */
#include "_native.h"

#include <string.h>

#include "paimonc/paimonc.h"

typedef struct {
	PyObject_HEAD
	paimon_table_update *u;
	PyObject *table;
	PyThread_type_lock lock;
} UpdateObject;

static PyTypeObject UpdateType;

static void update_dealloc(UpdateObject *o)
{
	if (o->u != NULL) {
		paimon_table_update *u = o->u;
		o->u = NULL;
		Py_BEGIN_ALLOW_THREADS
		paimon_table_update_free(u);
		Py_END_ALLOW_THREADS
	}
	if (o->lock != NULL)
		PyThread_free_lock(o->lock);
	Py_XDECREF(o->table);
	PyObject_Free(o);
}

static int update_ready(UpdateObject *o)
{
	if (o->u == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "the table update is closed");
		return -1;
	}
	return 0;
}

/* write_batch(schema_capsule, array_capsule): the array is moved out. */
static PyObject *update_write_batch(UpdateObject *o, PyObject *args)
{
	PyObject *scap, *acap;
	struct ArrowArray a;
	int rc;
	if (!PyArg_ParseTuple(args, "OO:write_batch", &scap, &acap) || update_ready(o) < 0)
		return NULL;
	if (!PyCapsule_IsValid(scap, "arrow_schema") || !PyCapsule_IsValid(acap, "arrow_array")) {
		PyErr_SetString(PyExc_TypeError, "expected PyCapsules 'arrow_schema' and 'arrow_array'");
		return NULL;
	}
	struct ArrowSchema *s = PyCapsule_GetPointer(scap, "arrow_schema");
	struct ArrowArray *src = PyCapsule_GetPointer(acap, "arrow_array");
	if (s == NULL || src == NULL || s->release == NULL || src->release == NULL) {
		PyErr_SetString(PyExc_ValueError, "Arrow capsule was already consumed");
		return NULL;
	}
	a = *src;
	src->release = NULL; /* moved */
	PM_PY_CALL_LOCKED(o->lock, rc = paimon_table_update_write_arrow(o->u, &a, s));
	if (rc != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

/* write_stream(stream_capsule): the stream is moved out of the capsule. */
static PyObject *update_write_stream(UpdateObject *o, PyObject *cap)
{
	int rc;
	if (update_ready(o) < 0)
		return NULL;
	if (!PyCapsule_IsValid(cap, "arrow_array_stream")) {
		PyErr_SetString(PyExc_TypeError, "expected a PyCapsule named 'arrow_array_stream'");
		return NULL;
	}
	struct ArrowArrayStream *src = PyCapsule_GetPointer(cap, "arrow_array_stream");
	if (src == NULL || src->release == NULL) {
		PyErr_SetString(PyExc_ValueError, "Arrow stream capsule was already consumed");
		return NULL;
	}
	struct ArrowArrayStream st = *src;
	src->release = NULL;
	PM_PY_CALL_LOCKED(o->lock, rc = paimon_table_update_write_arrow_stream(o->u, &st));
	if (rc != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *update_base_snapshot(UpdateObject *o, PyObject *unused)
{
	(void)unused;
	if (update_ready(o) < 0)
		return NULL;
	return PyLong_FromLongLong(paimon_table_update_base_snapshot(o->u));
}

static PyObject *update_prepare_commit(UpdateObject *o, PyObject *unused)
{
	paimon_commit_message *m = NULL;
	int rc;
	(void)unused;
	if (update_ready(o) < 0)
		return NULL;
	PM_PY_CALL_LOCKED(o->lock, rc = paimon_table_update_prepare_commit(o->u, &m));
	if (rc != 0)
		return pm_py_raise_last(rc);
	return pm_py_message_wrap(m);
}

static PyObject *update_close(UpdateObject *o, PyObject *unused)
{
	(void)unused;
	if (o->u != NULL) {
		paimon_table_update *u = o->u;
		o->u = NULL;
		PM_PY_CALL_LOCKED(o->lock, paimon_table_update_free(u));
	}
	Py_RETURN_NONE;
}

static PyMethodDef update_methods[] = {
	{"write_batch", (PyCFunction)update_write_batch, METH_VARARGS, "(schema_capsule, array_capsule); moves the array"},
	{"write_stream", (PyCFunction)update_write_stream, METH_O, "(stream_capsule); consumes the stream"},
	{"base_snapshot", (PyCFunction)update_base_snapshot, METH_NOARGS, NULL},
	{"prepare_commit", (PyCFunction)update_prepare_commit, METH_NOARGS, "-> CommitMessage"},
	{"close", (PyCFunction)update_close, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject UpdateType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.TableUpdate",
	.tp_basicsize = sizeof(UpdateObject),
	.tp_dealloc = (destructor)update_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = update_methods,
};

/* table_update_new(table, columns: list[str], options: dict|None) -> TableUpdate */
static PyObject *mod_table_update_new(PyObject *m, PyObject *args)
{
	PyObject *table, *cols, *opts_o, *fast;
	paimon_options *opts = NULL;
	paimon_table_update *u = NULL;
	const char **names;
	Py_ssize_t n, i;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OOO:table_update_new", &table, &cols, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL)
		return NULL;
	if (!(fast = PySequence_Fast(cols, "update columns must be a list of names")))
		return NULL;
	n = PySequence_Fast_GET_SIZE(fast);
	if (!(names = PyMem_Calloc((size_t)n + 1, sizeof *names))) {
		Py_DECREF(fast);
		return PyErr_NoMemory();
	}
	for (i = 0; i < n; i++)
		if (pm_py_as_cstr(PySequence_Fast_GET_ITEM(fast, i), "column name", &names[i]) < 0)
			goto fail;
	if (opts_o != Py_None) {
		if (paimon_options_new(&opts) != 0) {
			pm_py_raise_last(-1);
			goto fail;
		}
		if (pm_py_options_from_dict(opts_o, opts, "update options") < 0)
			goto fail;
	}
	UpdateObject *o = PyObject_New(UpdateObject, &UpdateType);
	if (o == NULL)
		goto fail;
	o->u = NULL;
	o->table = table;
	Py_INCREF(table);
	if ((o->lock = PyThread_allocate_lock()) == NULL) {
		Py_DECREF(o);
		PyErr_NoMemory();
		goto fail;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_table_update_new(&u, t, names, (size_t)n, opts);
	Py_END_ALLOW_THREADS
	paimon_options_free(opts);
	PyMem_Free(names);
	Py_DECREF(fast);
	if (rc != 0) {
		Py_DECREF(o);
		return pm_py_raise_last(rc);
	}
	o->u = u;
	return (PyObject *)o;
fail:
	paimon_options_free(opts);
	PyMem_Free(names);
	Py_DECREF(fast);
	return NULL;
}

/* Options dict (or None) -> *out (NULL for None); -1 with an exception. */
static int options_arg(PyObject *o, paimon_options **out, const char *what)
{
	*out = NULL;
	if (o == Py_None)
		return 0;
	if (paimon_options_new(out) != 0) {
		pm_py_raise_last(-1);
		return -1;
	}
	if (pm_py_options_from_dict(o, *out, what) < 0) {
		paimon_options_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* table_delete_by_row_id(table, ids: int64 buffer, options|None) -> CommitMessage */
static PyObject *mod_table_delete_by_row_id(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o;
	Py_buffer view;
	paimon_options *opts = NULL;
	paimon_commit_message *msg = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "Oy*O:table_delete_by_row_id", &table, &view, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t != NULL && view.len % 8 != 0)
		PyErr_SetString(PyExc_ValueError, "row ids must be a buffer of int64 values");
	if (t == NULL || view.len % 8 != 0 || options_arg(opts_o, &opts, "delete options") < 0) {
		PyBuffer_Release(&view);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_table_delete_by_row_id(t, (const int64_t *)view.buf, (size_t)view.len / 8, opts, &msg);
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&view);
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return pm_py_message_wrap(msg);
}

/* table_delete_by_predicate(table, predicate_bytes|None, options|None) -> CommitMessage */
static PyObject *mod_table_delete_by_predicate(PyObject *m, PyObject *args)
{
	PyObject *table, *pred_o, *opts_o;
	paimon_options *opts = NULL;
	paimon_predicate *pred = NULL;
	paimon_commit_message *msg = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OOO:table_delete_by_predicate", &table, &pred_o, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL)
		return NULL;
	if (pred_o != Py_None) {
		Py_buffer view;
		if (PyObject_GetBuffer(pred_o, &view, PyBUF_SIMPLE) < 0)
			return NULL;
		rc = paimon_predicate_deserialize(&pred, view.buf, (size_t)view.len);
		PyBuffer_Release(&view);
		if (rc != 0)
			return pm_py_raise_last(rc);
	}
	if (options_arg(opts_o, &opts, "delete options") < 0) {
		paimon_predicate_free(pred);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = paimon_table_delete_by_predicate(t, pred, opts, &msg);
	Py_END_ALLOW_THREADS
	paimon_predicate_free(pred);
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return pm_py_message_wrap(msg);
}

/* table_check_options(table, options dict) -> None; raises on an immutable change */
static PyObject *mod_table_check_options(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o;
	paimon_options *opts = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OO:table_check_options", &table, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL || options_arg(opts_o, &opts, "table options") < 0)
		return NULL;
	rc = paimon_table_check_dynamic_options(t, opts);
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyMethodDef update_api_methods[] = {
	{"table_check_options", mod_table_check_options, METH_VARARGS, "(table, options) -> None"},
	{"table_update_new", mod_table_update_new, METH_VARARGS, "(table, columns, options|None) -> TableUpdate"},
	{"table_delete_by_row_id", mod_table_delete_by_row_id, METH_VARARGS,
	 "(table, int64 buffer, options|None) -> CommitMessage"},
	{"table_delete_by_predicate", mod_table_delete_by_predicate, METH_VARARGS,
	 "(table, predicate bytes|None, options|None) -> CommitMessage"},
	{NULL, NULL, 0, NULL},
};

int pm_py_add_update_api(PyObject *m)
{
	if (PyType_Ready(&UpdateType) < 0)
		return -1;
	Py_INCREF(&UpdateType);
	if (PyModule_AddObject(m, "TableUpdate", (PyObject *)&UpdateType) < 0) {
		Py_DECREF(&UpdateType);
		return -1;
	}
	return PyModule_AddFunctions(m, update_api_methods);
}
