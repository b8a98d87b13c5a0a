/*
 * paimonc/_native.c - CPython binding of the public libpaimonc C API
 * (include/paimonc/catalog.h). This layer is deliberately thin: it converts
 * arguments, releases the GIL around every call that may touch files, maps
 * error codes to the exception classes defined in paimonc/errors.py, and
 * returns plain Python values (str, int, tuples, lists). The pypaimon-shaped
 * object model lives in Python (paimonc/catalog.py, paimonc/schema.py ...).
 *
 * Native objects:
 *   Catalog(options: dict[str, str])    owns a paimon_catalog
 *   Table                               owns a paimon_table (from Catalog.get_table)
 *   Schema                              a paimon_schema, owned or borrowed from a Table
 * Snapshots are converted to dicts at once and freed.
 *
 * Locking: a libpaimonc object is not documented as safe for concurrent use,
 * so every Catalog and Table carries a lock taken (with the GIL released)
 * around each native call on it. Error messages are thread-local in the C
 * library; they are read on the same OS thread right after the call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdlib.h>
#include <string.h>

#include "paimonc/paimonc.h"
#include "_native.h"

/* ------------------------------------------------------------------ errors */

/* code (int) -> exception class; filled by _register_errors() from Python. */
static PyObject *error_map = NULL;
static PyObject *base_error = NULL;

static PyObject *error_class(int code)
{
	if (error_map != NULL) {
		PyObject *key = PyLong_FromLong(code);
		if (key == NULL)
			return NULL;
		PyObject *cls = PyDict_GetItemWithError(error_map, key);
		Py_DECREF(key);
		if (cls != NULL)
			return cls;
		if (PyErr_Occurred())
			return NULL;
	}
	if (code == PAIMON_ENOMEM)
		return PyExc_MemoryError;
	return base_error != NULL ? base_error : PyExc_RuntimeError;
}

/* Raises the exception for a failed libpaimonc call; returns NULL. */
static PyObject *raise_code(int rc, const char *msg)
{
	PyObject *cls = error_class(rc);
	if (cls == NULL)
		return NULL;
	if (msg == NULL || msg[0] == '\0')
		msg = paimon_error_name(rc);
	PyObject *text = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "replace");
	if (text == NULL)
		return NULL;
	PyObject *exc = PyObject_CallOneArg(cls, text);
	Py_DECREF(text);
	if (exc == NULL)
		return NULL;
	/* Attach the numeric code and its name for programmatic use. */
	PyObject *code = PyLong_FromLong(rc);
	if (code != NULL) {
		if (PyObject_SetAttrString(exc, "code", code) < 0)
			PyErr_Clear();
		Py_DECREF(code);
	}
	PyObject *name = PyUnicode_FromString(paimon_error_name(rc));
	if (name != NULL) {
		if (PyObject_SetAttrString(exc, "code_name", name) < 0)
			PyErr_Clear();
		Py_DECREF(name);
	}
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
	return NULL;
}

static PyObject *raise_last(int rc)
{
	return raise_code(rc, paimon_error_message());
}

PyObject *pm_py_raise_last(int rc)
{
	return raise_last(rc);
}

/* Raises InvalidArgumentError (EINVAL class) with a formatted message. */
static PyObject *raise_einval(const char *fmt, const char *what)
{
	char buf[512];
	snprintf(buf, sizeof buf, fmt, what);
	return raise_code(PAIMON_EINVAL, buf);
}

/*
 * UTF-8 view of a str argument. Embedded NUL characters are rejected with
 * InvalidArgumentError (rather than the generic ValueError of "s" parsing),
 * because they are an invalid *name*, which is what the caller is told.
 * The buffer belongs to `o` and lives as long as `o` does.
 */
int pm_py_as_cstr(PyObject *o, const char *what, const char **out)
{
	Py_ssize_t n = 0;
	if (!PyUnicode_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be str, not %.100s", what, Py_TYPE(o)->tp_name);
		return -1;
	}
	const char *s = PyUnicode_AsUTF8AndSize(o, &n);
	if (s == NULL)
		return -1;
	if ((size_t)n != strlen(s)) {
		raise_einval("%s must not contain a NUL character", what);
		return -1;
	}
	*out = s;
	return 0;
}

/* As as_cstr, but None gives NULL. */
static int as_cstr_or_null(PyObject *o, const char *what, const char **out)
{
	if (o == NULL || o == Py_None) {
		*out = NULL;
		return 0;
	}
	return pm_py_as_cstr(o, what, out);
}

static PyObject *str_or_none(const char *s)
{
	if (s == NULL)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

static PyObject *string_list(char **names, size_t count)
{
	PyObject *list = PyList_New((Py_ssize_t)count);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		PyObject *s = str_or_none(names[i]);
		if (s == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, s);
	}
	return list;
}

static PyObject *id_list(const int64_t *ids, size_t count)
{
	PyObject *list = PyList_New((Py_ssize_t)count);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		PyObject *v = PyLong_FromLongLong(ids[i]);
		if (v == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, v);
	}
	return list;
}

#define NATIVE_CALL(lk, stmt) PM_PY_CALL_LOCKED(lk, stmt)

/* ------------------------------------------------------------- schema */

typedef struct {
	PyObject_HEAD
	paimon_schema *owned;      /* NULL when borrowed */
	const paimon_schema *s;
	PyObject *owner;           /* Table keeping a borrowed schema alive */
} SchemaObject;

static PyTypeObject SchemaType;

static PyObject *schema_wrap(paimon_schema *owned, const paimon_schema *borrowed, PyObject *owner)
{
	SchemaObject *o = PyObject_New(SchemaObject, &SchemaType);
	if (o == NULL) {
		if (owned != NULL)
			paimon_schema_free(owned);
		return NULL;
	}
	o->owned = owned;
	o->s = owned != NULL ? owned : borrowed;
	o->owner = owner;
	Py_XINCREF(owner);
	return (PyObject *)o;
}

static void schema_dealloc(SchemaObject *o)
{
	if (o->owned != NULL)
		paimon_schema_free(o->owned);
	Py_XDECREF(o->owner);
	PyObject_Free(o);
}

static PyObject *schema_id(SchemaObject *o, PyObject *unused)
{
	return PyLong_FromLongLong(paimon_schema_id(o->s));
}

static PyObject *schema_highest_field_id(SchemaObject *o, PyObject *unused)
{
	return PyLong_FromLong(paimon_schema_highest_field_id(o->s));
}

static PyObject *schema_time_millis(SchemaObject *o, PyObject *unused)
{
	return PyLong_FromLongLong(paimon_schema_time_millis(o->s));
}

/* [(id, name, type_string, type_json, description_or_None), ...] */
static PyObject *schema_fields(SchemaObject *o, PyObject *unused)
{
	size_t n = paimon_schema_field_count(o->s);
	PyObject *list = PyList_New((Py_ssize_t)n);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		PyObject *name = str_or_none(paimon_schema_field_name(o->s, i));
		PyObject *type = str_or_none(paimon_schema_field_type(o->s, i));
		PyObject *tjson = str_or_none(paimon_schema_field_type_json(o->s, i));
		PyObject *desc = str_or_none(paimon_schema_field_description(o->s, i));
		PyObject *t = NULL;
		if (name && type && tjson && desc)
			t = Py_BuildValue("(lOOOO)", (long)paimon_schema_field_id(o->s, i), name, type, tjson, desc);
		Py_XDECREF(name);
		Py_XDECREF(type);
		Py_XDECREF(tjson);
		Py_XDECREF(desc);
		if (t == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	return list;
}

static PyObject *schema_partition_keys(SchemaObject *o, PyObject *unused)
{
	size_t n = paimon_schema_partition_key_count(o->s);
	PyObject *list = PyList_New((Py_ssize_t)n);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		PyObject *s = str_or_none(paimon_schema_partition_key(o->s, i));
		if (s == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, s);
	}
	return list;
}

static PyObject *schema_primary_keys(SchemaObject *o, PyObject *unused)
{
	size_t n = paimon_schema_primary_key_count(o->s);
	PyObject *list = PyList_New((Py_ssize_t)n);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		PyObject *s = str_or_none(paimon_schema_primary_key(o->s, i));
		if (s == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, s);
	}
	return list;
}

/* [(key, value), ...] in the schema's order. */
static PyObject *schema_options(SchemaObject *o, PyObject *unused)
{
	size_t n = paimon_schema_option_count(o->s);
	PyObject *list = PyList_New((Py_ssize_t)n);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		PyObject *k = str_or_none(paimon_schema_option_key(o->s, i));
		PyObject *v = str_or_none(paimon_schema_option_value(o->s, i));
		PyObject *t = (k && v) ? PyTuple_Pack(2, k, v) : NULL;
		Py_XDECREF(k);
		Py_XDECREF(v);
		if (t == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	return list;
}

static PyObject *schema_comment(SchemaObject *o, PyObject *unused)
{
	return str_or_none(paimon_schema_comment(o->s));
}

static PyObject *schema_to_json(SchemaObject *o, PyObject *unused)
{
	char *text = NULL;
	int rc = paimon_schema_to_json(o->s, &text);
	if (rc != 0)
		return raise_last(rc);
	PyObject *r = str_or_none(text);
	paimon_free(text);
	return r;
}

static void arrow_schema_capsule_free(PyObject *capsule)
{
	struct ArrowSchema *s = PyCapsule_GetPointer(capsule, "arrow_schema");
	if (s == NULL) {
		PyErr_Clear();
		return;
	}
	if (s->release != NULL)
		s->release(s);
	PyMem_RawFree(s);
}

/* Arrow PyCapsule interface: a capsule "arrow_schema" holding the row type. */
static PyObject *schema_to_arrow_capsule(SchemaObject *o, PyObject *unused)
{
	struct ArrowSchema *s = PyMem_RawCalloc(1, sizeof *s);
	if (s == NULL)
		return PyErr_NoMemory();
	int rc = paimon_schema_to_arrow(o->s, s);
	if (rc != 0) {
		PyMem_RawFree(s);
		return raise_last(rc);
	}
	PyObject *cap = PyCapsule_New(s, "arrow_schema", arrow_schema_capsule_free);
	if (cap == NULL) {
		if (s->release != NULL)
			s->release(s);
		PyMem_RawFree(s);
	}
	return cap;
}

static PyMethodDef schema_methods[] = {
	{"id", (PyCFunction)schema_id, METH_NOARGS, "Schema id (schema-N)."},
	{"highest_field_id", (PyCFunction)schema_highest_field_id, METH_NOARGS, NULL},
	{"time_millis", (PyCFunction)schema_time_millis, METH_NOARGS, NULL},
	{"fields", (PyCFunction)schema_fields, METH_NOARGS,
	 "[(id, name, type_string, type_json, description)]"},
	{"partition_keys", (PyCFunction)schema_partition_keys, METH_NOARGS, NULL},
	{"primary_keys", (PyCFunction)schema_primary_keys, METH_NOARGS, NULL},
	{"options", (PyCFunction)schema_options, METH_NOARGS, "[(key, value)]"},
	{"comment", (PyCFunction)schema_comment, METH_NOARGS, NULL},
	{"to_json", (PyCFunction)schema_to_json, METH_NOARGS, "Schema file text as Java writes it."},
	{"to_arrow_capsule", (PyCFunction)schema_to_arrow_capsule, METH_NOARGS,
	 "PyCapsule 'arrow_schema' with the row type."},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject SchemaType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.Schema",
	.tp_basicsize = sizeof(SchemaObject),
	.tp_dealloc = (destructor)schema_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A table schema version (read-only).",
	.tp_methods = schema_methods,
};

/* ------------------------------------------------------------- snapshot */

static int dict_put(PyObject *d, const char *k, PyObject *v)
{
	if (v == NULL)
		return -1;
	int r = PyDict_SetItemString(d, k, v);
	Py_DECREF(v);
	return r;
}

/* Converts and frees a snapshot; NULL snapshot gives None. */
static PyObject *snapshot_to_dict(paimon_snapshot *s)
{
	if (s == NULL)
		Py_RETURN_NONE;
	PyObject *d = PyDict_New();
	char *json = NULL;
	int rc = 0;
	if (d == NULL)
		goto fail;
	if (dict_put(d, "id", PyLong_FromLongLong(paimon_snapshot_id(s))) < 0 ||
	    dict_put(d, "schema_id", PyLong_FromLongLong(paimon_snapshot_schema_id(s))) < 0 ||
	    dict_put(d, "time_millis", PyLong_FromLongLong(paimon_snapshot_time_millis(s))) < 0 ||
	    dict_put(d, "commit_kind", str_or_none(paimon_snapshot_commit_kind(s))) < 0 ||
	    dict_put(d, "commit_user", str_or_none(paimon_snapshot_commit_user(s))) < 0 ||
	    dict_put(d, "commit_identifier", PyLong_FromLongLong(paimon_snapshot_commit_identifier(s))) < 0 ||
	    dict_put(d, "total_record_count", PyLong_FromLongLong(paimon_snapshot_total_record_count(s))) < 0 ||
	    dict_put(d, "delta_record_count", PyLong_FromLongLong(paimon_snapshot_delta_record_count(s))) < 0 ||
	    dict_put(d, "base_manifest_list", str_or_none(paimon_snapshot_base_manifest_list(s))) < 0 ||
	    dict_put(d, "delta_manifest_list", str_or_none(paimon_snapshot_delta_manifest_list(s))) < 0)
		goto fail;
	rc = paimon_snapshot_to_json(s, &json);
	if (rc != 0) {
		raise_last(rc);
		goto fail;
	}
	if (dict_put(d, "json", str_or_none(json)) < 0)
		goto fail;
	paimon_free(json);
	paimon_snapshot_free(s);
	return d;
fail:
	paimon_free(json);
	paimon_snapshot_free(s);
	Py_XDECREF(d);
	return NULL;
}

/* ---------------------------------------------------------------- table */

typedef struct {
	PyObject_HEAD
	paimon_table *t;
	PyThread_type_lock lock;
} TableObject;

static PyTypeObject TableType;

static PyObject *table_wrap(paimon_table *t)
{
	TableObject *o = PyObject_New(TableObject, &TableType);
	if (o == NULL) {
		paimon_table_free(t);
		return NULL;
	}
	o->t = t;
	o->lock = PyThread_allocate_lock();
	if (o->lock == NULL) {
		o->t = NULL;
		Py_DECREF(o);
		paimon_table_free(t);
		return PyErr_NoMemory();
	}
	return (PyObject *)o;
}

static void table_dealloc(TableObject *o)
{
	if (o->t != NULL)
		paimon_table_free(o->t);
	if (o->lock != NULL)
		PyThread_free_lock(o->lock);
	PyObject_Free(o);
}

paimon_table *pm_py_table_handle(PyObject *o)
{
	if (!PyObject_TypeCheck(o, &TableType) || ((TableObject *)o)->t == NULL) {
		PyErr_Format(PyExc_TypeError, "expected a paimonc._native.Table, not %.100s", Py_TYPE(o)->tp_name);
		return NULL;
	}
	return ((TableObject *)o)->t;
}

static PyObject *table_identifier(TableObject *o, PyObject *unused)
{
	return str_or_none(paimon_table_identifier(o->t));
}

static PyObject *table_path(TableObject *o, PyObject *unused)
{
	return str_or_none(paimon_table_path(o->t));
}

static PyObject *table_schema(TableObject *o, PyObject *unused)
{
	const paimon_schema *s = paimon_table_schema(o->t);
	if (s == NULL)
		return raise_code(PAIMON_ERROR, "table has no schema");
	return schema_wrap(NULL, s, (PyObject *)o);
}

static PyObject *table_schema_ids(TableObject *o, PyObject *unused)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_schema_ids(o->t, &ids, &n));
	if (rc != 0)
		return raise_last(rc);
	PyObject *r = id_list(ids, n);
	paimon_free(ids);
	return r;
}

static PyObject *table_load_schema(TableObject *o, PyObject *arg)
{
	long long id = PyLong_AsLongLong(arg);
	if (id == -1 && PyErr_Occurred())
		return NULL;
	paimon_schema *s = NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_load_schema(o->t, (int64_t)id, &s));
	if (rc != 0)
		return raise_last(rc);
	return schema_wrap(s, NULL, NULL);
}

static PyObject *table_latest_snapshot(TableObject *o, PyObject *unused)
{
	paimon_snapshot *s = NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_latest_snapshot(o->t, &s));
	if (rc != 0)
		return raise_last(rc);
	return snapshot_to_dict(s);
}

static PyObject *table_earliest_snapshot(TableObject *o, PyObject *unused)
{
	paimon_snapshot *s = NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_earliest_snapshot(o->t, &s));
	if (rc != 0)
		return raise_last(rc);
	return snapshot_to_dict(s);
}

static PyObject *table_snapshot(TableObject *o, PyObject *arg)
{
	long long id = PyLong_AsLongLong(arg);
	if (id == -1 && PyErr_Occurred())
		return NULL;
	paimon_snapshot *s = NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_snapshot(o->t, (int64_t)id, &s));
	if (rc != 0)
		return raise_last(rc);
	return snapshot_to_dict(s);
}

static PyObject *table_snapshot_ids(TableObject *o, PyObject *unused)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_snapshot_ids(o->t, &ids, &n));
	if (rc != 0)
		return raise_last(rc);
	PyObject *r = id_list(ids, n);
	paimon_free(ids);
	return r;
}

static PyObject *table_create_tag(TableObject *o, PyObject *args)
{
	PyObject *name_o;
	long long snapshot_id = 0;
	int ignore = 0;
	const char *name;
	if (!PyArg_ParseTuple(args, "OLp:create_tag", &name_o, &snapshot_id, &ignore))
		return NULL;
	if (pm_py_as_cstr(name_o, "tag name", &name) < 0)
		return NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_create_tag(o->t, name, (int64_t)snapshot_id, ignore));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *table_delete_tag(TableObject *o, PyObject *args)
{
	PyObject *name_o;
	int ignore = 0;
	const char *name;
	if (!PyArg_ParseTuple(args, "Op:delete_tag", &name_o, &ignore))
		return NULL;
	if (pm_py_as_cstr(name_o, "tag name", &name) < 0)
		return NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_delete_tag(o->t, name, ignore));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *table_list_tags(TableObject *o, PyObject *unused)
{
	char **names = NULL;
	size_t n = 0;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_list_tags(o->t, &names, &n));
	if (rc != 0)
		return raise_last(rc);
	PyObject *r = string_list(names, n);
	paimon_string_list_free(names, n);
	return r;
}

static PyObject *table_tag_snapshot(TableObject *o, PyObject *name_o)
{
	const char *name;
	if (pm_py_as_cstr(name_o, "tag name", &name) < 0)
		return NULL;
	paimon_snapshot *s = NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_table_tag_snapshot(o->t, name, &s));
	if (rc != 0)
		return raise_last(rc);
	return snapshot_to_dict(s);
}

/* branches: create_branch(name, tag|None, snapshot_id, ignore_if_exists) */
static PyObject *table_create_branch(TableObject *o, PyObject *args)
{
	const char *name, *tag = NULL;
	long long sid = 0;
	int ignore = 0, rc;
	if (!PyArg_ParseTuple(args, "szLp:create_branch", &name, &tag, &sid, &ignore))
		return NULL;
	NATIVE_CALL(o->lock, rc = paimon_table_create_branch(o->t, name, tag, (int64_t)sid, ignore));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *table_drop_branch(TableObject *o, PyObject *args)
{
	const char *name;
	int ignore = 0, rc;
	if (!PyArg_ParseTuple(args, "sp:drop_branch", &name, &ignore))
		return NULL;
	NATIVE_CALL(o->lock, rc = paimon_table_drop_branch(o->t, name, ignore));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *table_rename_branch(TableObject *o, PyObject *args)
{
	const char *a, *b;
	int rc;
	if (!PyArg_ParseTuple(args, "ss:rename_branch", &a, &b))
		return NULL;
	NATIVE_CALL(o->lock, rc = paimon_table_rename_branch(o->t, a, b));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *table_fast_forward(TableObject *o, PyObject *args)
{
	const char *name;
	int rc;
	if (!PyArg_ParseTuple(args, "s:fast_forward", &name))
		return NULL;
	NATIVE_CALL(o->lock, rc = paimon_table_fast_forward(o->t, name));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *table_list_branches(TableObject *o, PyObject *unused)
{
	char **names = NULL;
	size_t n = 0;
	int rc;
	(void)unused;
	NATIVE_CALL(o->lock, rc = paimon_table_list_branches(o->t, &names, &n));
	if (rc != 0)
		return raise_last(rc);
	PyObject *r = string_list(names, n);
	paimon_string_list_free(names, n);
	return r;
}

static PyMethodDef table_methods[] = {
	{"create_branch", (PyCFunction)table_create_branch, METH_VARARGS, "(name, tag|None, snapshot_id, ignore)"},
	{"drop_branch", (PyCFunction)table_drop_branch, METH_VARARGS, "(name, ignore_if_not_exists)"},
	{"rename_branch", (PyCFunction)table_rename_branch, METH_VARARGS, "(from, to)"},
	{"fast_forward", (PyCFunction)table_fast_forward, METH_VARARGS, "(name)"},
	{"list_branches", (PyCFunction)table_list_branches, METH_NOARGS, NULL},
	{"identifier", (PyCFunction)table_identifier, METH_NOARGS, NULL},
	{"path", (PyCFunction)table_path, METH_NOARGS, NULL},
	{"schema", (PyCFunction)table_schema, METH_NOARGS, "Latest schema when loaded."},
	{"schema_ids", (PyCFunction)table_schema_ids, METH_NOARGS, NULL},
	{"load_schema", (PyCFunction)table_load_schema, METH_O, NULL},
	{"latest_snapshot", (PyCFunction)table_latest_snapshot, METH_NOARGS, "dict or None"},
	{"earliest_snapshot", (PyCFunction)table_earliest_snapshot, METH_NOARGS, "dict or None"},
	{"snapshot", (PyCFunction)table_snapshot, METH_O, NULL},
	{"snapshot_ids", (PyCFunction)table_snapshot_ids, METH_NOARGS, NULL},
	{"create_tag", (PyCFunction)table_create_tag, METH_VARARGS, "(name, snapshot_id, ignore_if_exists)"},
	{"delete_tag", (PyCFunction)table_delete_tag, METH_VARARGS, "(name, ignore_if_not_exists)"},
	{"list_tags", (PyCFunction)table_list_tags, METH_NOARGS, NULL},
	{"tag_snapshot", (PyCFunction)table_tag_snapshot, METH_O, NULL},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject TableType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.Table",
	.tp_basicsize = sizeof(TableObject),
	.tp_dealloc = (destructor)table_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A loaded table.",
	.tp_methods = table_methods,
};

/* -------------------------------------------------------------- catalog */

typedef struct {
	PyObject_HEAD
	paimon_catalog *c;
	PyThread_type_lock lock;
} CatalogObject;

/* Fills a paimon_options from a dict[str, str]. */
int pm_py_options_from_dict(PyObject *d, paimon_options *opts, const char *what)
{
	PyObject *k, *v;
	Py_ssize_t pos = 0;
	if (!PyDict_Check(d)) {
		PyErr_Format(PyExc_TypeError, "%s must be a dict", what);
		return -1;
	}
	while (PyDict_Next(d, &pos, &k, &v)) {
		const char *ks, *vs;
		if (pm_py_as_cstr(k, "option key", &ks) < 0 || pm_py_as_cstr(v, "option value", &vs) < 0)
			return -1;
		int rc = paimon_options_set(opts, ks, vs);
		if (rc != 0) {
			raise_last(rc);
			return -1;
		}
	}
	return 0;
}

static int catalog_init(CatalogObject *self, PyObject *args, PyObject *kwds)
{
	PyObject *d;
	if (!PyArg_ParseTuple(args, "O!:Catalog", &PyDict_Type, &d))
		return -1;
	if (self->c != NULL) {
		PyErr_SetString(PyExc_RuntimeError, "Catalog already initialised");
		return -1;
	}
	paimon_options *opts = NULL;
	int rc = paimon_options_new(&opts);
	if (rc != 0) {
		raise_last(rc);
		return -1;
	}
	if (pm_py_options_from_dict(d, opts, "catalog options") < 0) {
		paimon_options_free(opts);
		return -1;
	}
	if (self->lock == NULL) {
		self->lock = PyThread_allocate_lock();
		if (self->lock == NULL) {
			paimon_options_free(opts);
			PyErr_NoMemory();
			return -1;
		}
	}
	paimon_catalog *c = NULL;
	NATIVE_CALL(self->lock, rc = paimon_catalog_open(&c, opts));
	paimon_options_free(opts);
	if (rc != 0) {
		raise_last(rc);
		return -1;
	}
	self->c = c;
	return 0;
}

static void catalog_dealloc(CatalogObject *o)
{
	if (o->c != NULL)
		paimon_catalog_free(o->c);
	if (o->lock != NULL)
		PyThread_free_lock(o->lock);
	Py_TYPE(o)->tp_free((PyObject *)o);
}

static int catalog_ready(CatalogObject *o)
{
	if (o->c == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "Catalog is not initialised");
		return -1;
	}
	return 0;
}

static PyObject *catalog_warehouse(CatalogObject *o, PyObject *unused)
{
	if (catalog_ready(o) < 0)
		return NULL;
	return str_or_none(paimon_catalog_warehouse(o->c));
}

static PyObject *catalog_create_database(CatalogObject *o, PyObject *args)
{
	PyObject *name_o;
	int ignore = 0;
	const char *name;
	if (catalog_ready(o) < 0 || !PyArg_ParseTuple(args, "Op:create_database", &name_o, &ignore))
		return NULL;
	if (pm_py_as_cstr(name_o, "database name", &name) < 0)
		return NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_create_database(o->c, name, ignore));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *catalog_drop_database(CatalogObject *o, PyObject *args)
{
	PyObject *name_o;
	int ignore = 0, cascade = 0;
	const char *name;
	if (catalog_ready(o) < 0 || !PyArg_ParseTuple(args, "Opp:drop_database", &name_o, &ignore, &cascade))
		return NULL;
	if (pm_py_as_cstr(name_o, "database name", &name) < 0)
		return NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_drop_database(o->c, name, ignore, cascade));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *catalog_database_exists(CatalogObject *o, PyObject *name_o)
{
	const char *name;
	if (catalog_ready(o) < 0 || pm_py_as_cstr(name_o, "database name", &name) < 0)
		return NULL;
	int rc, exists = 0;
	NATIVE_CALL(o->lock, rc = paimon_catalog_database_exists(o->c, name, &exists));
	if (rc != 0)
		return raise_last(rc);
	return PyBool_FromLong(exists);
}

static PyObject *catalog_list_databases(CatalogObject *o, PyObject *unused)
{
	if (catalog_ready(o) < 0)
		return NULL;
	char **names = NULL;
	size_t n = 0;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_list_databases(o->c, &names, &n));
	if (rc != 0)
		return raise_last(rc);
	PyObject *r = string_list(names, n);
	paimon_string_list_free(names, n);
	return r;
}

static PyObject *catalog_list_tables(CatalogObject *o, PyObject *name_o)
{
	const char *name;
	if (catalog_ready(o) < 0 || pm_py_as_cstr(name_o, "database name", &name) < 0)
		return NULL;
	char **names = NULL;
	size_t n = 0;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_list_tables(o->c, name, &names, &n));
	if (rc != 0)
		return raise_last(rc);
	PyObject *r = string_list(names, n);
	paimon_string_list_free(names, n);
	return r;
}

/* A Python sequence of str -> C array of borrowed UTF-8 pointers. */
static int str_array(PyObject *seq, const char *what, PyObject **fast_out, const char ***out, size_t *count)
{
	PyObject *fast = PySequence_Fast(seq, what);
	if (fast == NULL)
		return -1;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	const char **arr = PyMem_Calloc((size_t)n + 1, sizeof *arr);
	if (arr == NULL) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		if (pm_py_as_cstr(PySequence_Fast_GET_ITEM(fast, i), what, &arr[i]) < 0) {
			PyMem_Free(arr);
			Py_DECREF(fast);
			return -1;
		}
	}
	*fast_out = fast;
	*out = arr;
	*count = (size_t)n;
	return 0;
}

/*
 * Builds a schema spec from:
 *   arrow    - a PyCapsule "arrow_schema" (struct ArrowSchema*, format "+s") or None
 *   columns  - sequence of (name, type_string, description_or_None), appended after arrow
 *   partition_keys, primary_keys - sequences of str
 *   options  - sequence of (key, value) pairs (order kept)
 *   comment  - str or None
 */
static int build_spec(PyObject *arrow, PyObject *columns, PyObject *pkeys, PyObject *prkeys,
		      PyObject *options, PyObject *comment, paimon_schema_spec **out)
{
	paimon_schema_spec *spec = NULL;
	PyObject *fast = NULL;
	const char **arr = NULL;
	size_t n = 0;
	int rc = paimon_schema_spec_new(&spec);
	if (rc != 0) {
		raise_last(rc);
		return -1;
	}
	if (arrow != Py_None) {
		if (!PyCapsule_IsValid(arrow, "arrow_schema")) {
			PyErr_SetString(PyExc_TypeError, "expected a PyCapsule named 'arrow_schema'");
			goto fail;
		}
		const struct ArrowSchema *as = PyCapsule_GetPointer(arrow, "arrow_schema");
		if (as == NULL)
			goto fail;
		if (as->release == NULL) {
			PyErr_SetString(PyExc_ValueError, "Arrow schema capsule was already released");
			goto fail;
		}
		rc = paimon_schema_spec_add_arrow(spec, as);
		if (rc != 0) {
			raise_last(rc);
			goto fail;
		}
	}
	if (columns != Py_None) {
		fast = PySequence_Fast(columns, "columns must be a sequence");
		if (fast == NULL)
			goto fail;
		for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
			PyObject *col = PySequence_Fast_GET_ITEM(fast, i);
			PyObject *cn, *ct, *cd = Py_None;
			const char *name, *type, *desc;
			if (!PyArg_ParseTuple(col, "OO|O:column", &cn, &ct, &cd))
				goto fail;
			if (pm_py_as_cstr(cn, "column name", &name) < 0 || pm_py_as_cstr(ct, "column type", &type) < 0 ||
			    as_cstr_or_null(cd, "column comment", &desc) < 0)
				goto fail;
			rc = paimon_schema_spec_add_column(spec, name, type, desc);
			if (rc != 0) {
				raise_last(rc);
				goto fail;
			}
		}
		Py_CLEAR(fast);
	}
	if (pkeys != Py_None) {
		if (str_array(pkeys, "partition keys", &fast, &arr, &n) < 0)
			goto fail;
		rc = paimon_schema_spec_set_partition_keys(spec, arr, n);
		PyMem_Free(arr);
		arr = NULL;
		Py_CLEAR(fast);
		if (rc != 0) {
			raise_last(rc);
			goto fail;
		}
	}
	if (prkeys != Py_None) {
		if (str_array(prkeys, "primary keys", &fast, &arr, &n) < 0)
			goto fail;
		rc = paimon_schema_spec_set_primary_keys(spec, arr, n);
		PyMem_Free(arr);
		arr = NULL;
		Py_CLEAR(fast);
		if (rc != 0) {
			raise_last(rc);
			goto fail;
		}
	}
	if (options != Py_None) {
		fast = PySequence_Fast(options, "options must be a sequence of (key, value)");
		if (fast == NULL)
			goto fail;
		for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
			PyObject *k, *v;
			const char *ks, *vs;
			if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "OO:option", &k, &v))
				goto fail;
			if (pm_py_as_cstr(k, "option key", &ks) < 0 || pm_py_as_cstr(v, "option value", &vs) < 0)
				goto fail;
			rc = paimon_schema_spec_set_option(spec, ks, vs);
			if (rc != 0) {
				raise_last(rc);
				goto fail;
			}
		}
		Py_CLEAR(fast);
	}
	if (comment != Py_None) {
		const char *cs;
		if (pm_py_as_cstr(comment, "table comment", &cs) < 0)
			goto fail;
		rc = paimon_schema_spec_set_comment(spec, cs);
		if (rc != 0) {
			raise_last(rc);
			goto fail;
		}
	}
	*out = spec;
	return 0;
fail:
	Py_XDECREF(fast);
	paimon_schema_spec_free(spec);
	return -1;
}

static PyObject *catalog_create_table(CatalogObject *o, PyObject *args)
{
	PyObject *ident_o, *arrow, *columns, *pkeys, *prkeys, *options, *comment;
	int ignore = 0;
	const char *ident;
	if (catalog_ready(o) < 0 ||
	    !PyArg_ParseTuple(args, "OOOOOOOp:create_table", &ident_o, &arrow, &columns, &pkeys, &prkeys,
			      &options, &comment, &ignore))
		return NULL;
	if (pm_py_as_cstr(ident_o, "table identifier", &ident) < 0)
		return NULL;
	paimon_schema_spec *spec = NULL;
	if (build_spec(arrow, columns, pkeys, prkeys, options, comment, &spec) < 0)
		return NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_create_table(o->c, ident, spec, ignore));
	paimon_schema_spec_free(spec);
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *catalog_create_table_json(CatalogObject *o, PyObject *args)
{
	PyObject *ident_o, *json_o;
	int ignore = 0;
	const char *ident, *json;
	if (catalog_ready(o) < 0 || !PyArg_ParseTuple(args, "OOp:create_table_json", &ident_o, &json_o, &ignore))
		return NULL;
	if (pm_py_as_cstr(ident_o, "table identifier", &ident) < 0 || pm_py_as_cstr(json_o, "schema JSON", &json) < 0)
		return NULL;
	paimon_schema_spec *spec = NULL;
	int rc = paimon_schema_spec_from_json(&spec, json);
	if (rc != 0)
		return raise_last(rc);
	NATIVE_CALL(o->lock, rc = paimon_catalog_create_table(o->c, ident, spec, ignore));
	paimon_schema_spec_free(spec);
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *catalog_drop_table(CatalogObject *o, PyObject *args)
{
	PyObject *ident_o;
	int ignore = 0;
	const char *ident;
	if (catalog_ready(o) < 0 || !PyArg_ParseTuple(args, "Op:drop_table", &ident_o, &ignore))
		return NULL;
	if (pm_py_as_cstr(ident_o, "table identifier", &ident) < 0)
		return NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_drop_table(o->c, ident, ignore));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *catalog_rename_table(CatalogObject *o, PyObject *args)
{
	PyObject *from_o, *to_o;
	const char *from, *to;
	if (catalog_ready(o) < 0 || !PyArg_ParseTuple(args, "OO:rename_table", &from_o, &to_o))
		return NULL;
	if (pm_py_as_cstr(from_o, "table identifier", &from) < 0 || pm_py_as_cstr(to_o, "table identifier", &to) < 0)
		return NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_rename_table(o->c, from, to));
	if (rc != 0)
		return raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *catalog_get_table(CatalogObject *o, PyObject *ident_o)
{
	const char *ident;
	if (catalog_ready(o) < 0 || pm_py_as_cstr(ident_o, "table identifier", &ident) < 0)
		return NULL;
	paimon_table *t = NULL;
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_get_table(o->c, ident, &t));
	if (rc != 0)
		return raise_last(rc);
	return table_wrap(t);
}

static paimon_column_move move_kind(const char *m)
{
	if (m == NULL || strcmp(m, "none") == 0)
		return PAIMON_MOVE_NONE;
	if (strcmp(m, "first") == 0)
		return PAIMON_MOVE_FIRST;
	if (strcmp(m, "after") == 0)
		return PAIMON_MOVE_AFTER;
	if (strcmp(m, "before") == 0)
		return PAIMON_MOVE_BEFORE;
	if (strcmp(m, "last") == 0)
		return PAIMON_MOVE_LAST;
	return (paimon_column_move)-1;
}

/*
 * One change from a tuple:
 *   ("add_column", name, type, comment|None, move|None, reference|None)
 *       move: "first" | "after" | "before" | "last"
 *   ("rename_column", name, new_name)      ("drop_column", name)
 *   ("update_column_comment", name, comment)
 *   ("update_column_type", name, type)     ("update_comment", comment|None)
 *   ("set_option", key, value)             ("remove_option", key)
 */
static int change_from_tuple(PyObject *t, paimon_schema_change **out)
{
	if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 1) {
		PyErr_SetString(PyExc_TypeError, "schema change must be a non-empty tuple");
		return -1;
	}
	const char *kind;
	if (pm_py_as_cstr(PyTuple_GET_ITEM(t, 0), "schema change kind", &kind) < 0)
		return -1;
	Py_ssize_t n = PyTuple_GET_SIZE(t);
	const char *a[5] = {NULL, NULL, NULL, NULL, NULL};
	static const char *what[5] = {"column name", "second argument", "third argument", "move", "move reference"};
	for (Py_ssize_t i = 1; i < n && i <= 5; i++) {
		if (as_cstr_or_null(PyTuple_GET_ITEM(t, i), what[i - 1], &a[i - 1]) < 0)
			return -1;
	}
	int rc;
#define NEED(k)                                                                                    \
	if (n != (k) + 1) {                                                                        \
		PyErr_Format(PyExc_TypeError, "schema change '%s' takes %d arguments", kind, (k)); \
		return -1;                                                                         \
	}
	if (strcmp(kind, "add_column") == 0) {
		NEED(5);
		paimon_column_move mv = move_kind(a[3]);
		if ((int)mv < 0) {
			raise_einval("unknown column move '%s'", a[3]);
			return -1;
		}
		if (a[0] == NULL || a[1] == NULL) {
			PyErr_SetString(PyExc_TypeError, "add_column needs a name and a type");
			return -1;
		}
		rc = paimon_schema_change_add_column(out, a[0], a[1], a[2], mv, a[4]);
	} else if (strcmp(kind, "rename_column") == 0) {
		NEED(2);
		if (a[0] == NULL || a[1] == NULL) {
			PyErr_SetString(PyExc_TypeError, "rename_column needs two names");
			return -1;
		}
		rc = paimon_schema_change_rename_column(out, a[0], a[1]);
	} else if (strcmp(kind, "drop_column") == 0) {
		NEED(1);
		if (a[0] == NULL) {
			PyErr_SetString(PyExc_TypeError, "drop_column needs a name");
			return -1;
		}
		rc = paimon_schema_change_drop_column(out, a[0]);
	} else if (strcmp(kind, "update_column_comment") == 0) {
		NEED(2);
		if (a[0] == NULL) {
			PyErr_SetString(PyExc_TypeError, "update_column_comment needs a name");
			return -1;
		}
		rc = paimon_schema_change_update_column_comment(out, a[0], a[1]);
	} else if (strcmp(kind, "update_column_type") == 0) {
		NEED(2);
		if (a[0] == NULL || a[1] == NULL) {
			PyErr_SetString(PyExc_TypeError, "update_column_type needs a name and a type");
			return -1;
		}
		rc = paimon_schema_change_update_column_type(out, a[0], a[1]);
	} else if (strcmp(kind, "update_comment") == 0) {
		NEED(1);
		rc = paimon_schema_change_update_comment(out, a[0]);
	} else if (strcmp(kind, "set_option") == 0) {
		NEED(2);
		if (a[0] == NULL || a[1] == NULL) {
			PyErr_SetString(PyExc_TypeError, "set_option needs a key and a value");
			return -1;
		}
		rc = paimon_schema_change_set_option(out, a[0], a[1]);
	} else if (strcmp(kind, "remove_option") == 0) {
		NEED(1);
		if (a[0] == NULL) {
			PyErr_SetString(PyExc_TypeError, "remove_option needs a key");
			return -1;
		}
		rc = paimon_schema_change_remove_option(out, a[0]);
	} else {
		raise_einval("unknown schema change '%s'", kind);
		return -1;
	}
#undef NEED
	if (rc != 0) {
		raise_last(rc);
		return -1;
	}
	return 0;
}

static PyObject *catalog_alter_table(CatalogObject *o, PyObject *args)
{
	PyObject *ident_o, *changes_o;
	int ignore = 0;
	const char *ident;
	if (catalog_ready(o) < 0 || !PyArg_ParseTuple(args, "OOp:alter_table", &ident_o, &changes_o, &ignore))
		return NULL;
	if (pm_py_as_cstr(ident_o, "table identifier", &ident) < 0)
		return NULL;
	PyObject *fast = PySequence_Fast(changes_o, "changes must be a sequence");
	if (fast == NULL)
		return NULL;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	paimon_schema_change **ch = PyMem_Calloc((size_t)n + 1, sizeof *ch);
	PyObject *result = NULL;
	if (ch == NULL) {
		PyErr_NoMemory();
		goto done;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		if (change_from_tuple(PySequence_Fast_GET_ITEM(fast, i), &ch[i]) < 0)
			goto done;
	}
	int rc;
	NATIVE_CALL(o->lock, rc = paimon_catalog_alter_table(o->c, ident, ch, (size_t)n, ignore));
	if (rc != 0) {
		raise_last(rc);
		goto done;
	}
	result = Py_None;
	Py_INCREF(result);
done:
	if (ch != NULL) {
		for (Py_ssize_t i = 0; i < n; i++)
			if (ch[i] != NULL)
				paimon_schema_change_free(ch[i]);
		PyMem_Free(ch);
	}
	Py_DECREF(fast);
	return result;
}

static PyMethodDef catalog_methods[] = {
	{"warehouse", (PyCFunction)catalog_warehouse, METH_NOARGS, NULL},
	{"create_database", (PyCFunction)catalog_create_database, METH_VARARGS, "(name, ignore_if_exists)"},
	{"drop_database", (PyCFunction)catalog_drop_database, METH_VARARGS,
	 "(name, ignore_if_not_exists, cascade)"},
	{"database_exists", (PyCFunction)catalog_database_exists, METH_O, NULL},
	{"list_databases", (PyCFunction)catalog_list_databases, METH_NOARGS, NULL},
	{"list_tables", (PyCFunction)catalog_list_tables, METH_O, NULL},
	{"create_table", (PyCFunction)catalog_create_table, METH_VARARGS,
	 "(identifier, arrow_capsule|None, columns|None, partition_keys|None, primary_keys|None, "
	 "options|None, comment|None, ignore_if_exists)"},
	{"create_table_json", (PyCFunction)catalog_create_table_json, METH_VARARGS,
	 "(identifier, schema_json, ignore_if_exists)"},
	{"drop_table", (PyCFunction)catalog_drop_table, METH_VARARGS, "(identifier, ignore_if_not_exists)"},
	{"rename_table", (PyCFunction)catalog_rename_table, METH_VARARGS, "(from, to)"},
	{"get_table", (PyCFunction)catalog_get_table, METH_O, NULL},
	{"alter_table", (PyCFunction)catalog_alter_table, METH_VARARGS,
	 "(identifier, [change tuples], ignore_if_not_exists)"},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject CatalogType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.Catalog",
	.tp_basicsize = sizeof(CatalogObject),
	.tp_dealloc = (destructor)catalog_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Catalog(options: dict[str, str]) - a libpaimonc filesystem catalog.",
	.tp_methods = catalog_methods,
	.tp_init = (initproc)catalog_init,
	.tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------ module */

static PyObject *mod_register_errors(PyObject *m, PyObject *args)
{
	PyObject *map, *base;
	if (!PyArg_ParseTuple(args, "O!O:_register_errors", &PyDict_Type, &map, &base))
		return NULL;
	Py_INCREF(map);
	Py_XSETREF(error_map, map);
	Py_INCREF(base);
	Py_XSETREF(base_error, base);
	Py_RETURN_NONE;
}

static PyObject *mod_version(PyObject *m, PyObject *unused)
{
	return PyUnicode_FromString(paimon_version());
}

/* type_to_sql(text) / type_to_json(text): either form in, Java's form out. */
static PyObject *convert_type(PyObject *arg, int (*fn)(const char *, char **))
{
	const char *text;
	Py_ssize_t n;
	char *out = NULL;
	PyObject *r;
	int rc;
	if (!(text = PyUnicode_AsUTF8AndSize(arg, &n)))
		return NULL;
	if ((Py_ssize_t)strlen(text) != n) {
		PyErr_SetString(PyExc_ValueError, "type text contains a NUL character");
		return NULL;
	}
	if ((rc = fn(text, &out)) != 0)
		return raise_last(rc);
	r = PyUnicode_FromString(out);
	paimon_free(out);
	return r;
}

static PyObject *mod_type_to_sql(PyObject *m, PyObject *arg)
{
	return convert_type(arg, paimon_type_to_sql);
}

static PyObject *mod_type_to_json(PyObject *m, PyObject *arg)
{
	return convert_type(arg, paimon_type_to_json);
}

/* type_from_arrow(capsule): a capsule "arrow_schema" holding one Arrow field
 * (or a struct whose single child is the field) -> Paimon type string. */
static PyObject *mod_type_from_arrow(PyObject *m, PyObject *arg)
{
	const struct ArrowSchema *as;
	char *out = NULL;
	PyObject *r;
	int rc;
	if (!PyCapsule_IsValid(arg, "arrow_schema")) {
		PyErr_SetString(PyExc_TypeError, "expected an 'arrow_schema' PyCapsule");
		return NULL;
	}
	as = PyCapsule_GetPointer(arg, "arrow_schema");
	if (as->format && strcmp(as->format, "+s") == 0 && as->n_children == 1)
		as = as->children[0];
	if ((rc = paimon_type_from_arrow(as, &out)) != 0)
		return raise_last(rc);
	r = PyUnicode_FromString(out);
	paimon_free(out);
	return r;
}

static PyObject *mod_error_name(PyObject *m, PyObject *arg)
{
	long code = PyLong_AsLong(arg);
	if (code == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(paimon_error_name((int)code));
}

static PyMethodDef module_methods[] = {
	{"_register_errors", mod_register_errors, METH_VARARGS, "(dict code->class, base class)"},
	{"version", mod_version, METH_NOARGS, "libpaimonc version string"},
	{"type_to_sql", mod_type_to_sql, METH_O, "Paimon type (SQL or JSON text) -> Java's SQL string"},
	{"type_to_json", mod_type_to_json, METH_O, "Paimon type (SQL or JSON text) -> schema-file JSON"},
	{"type_from_arrow", mod_type_from_arrow, METH_O, "arrow_schema capsule of one field -> Paimon type"},
	{"error_name", mod_error_name, METH_O, NULL},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "paimonc._native",
	.m_doc = "Thin binding of the libpaimonc C API.",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__native(void)
{
	if (PyType_Ready(&CatalogType) < 0 || PyType_Ready(&TableType) < 0 || PyType_Ready(&SchemaType) < 0)
		return NULL;
	PyObject *m = PyModule_Create(&native_module);
	if (m == NULL)
		return NULL;
	static const struct {
		const char *name;
		int value;
	} codes[] = {
		{"OK", PAIMON_OK},           {"ERROR", PAIMON_ERROR},
		{"ENOMEM", PAIMON_ENOMEM},   {"EIO", PAIMON_EIO},
		{"ENOTFOUND", PAIMON_ENOTFOUND}, {"EEXISTS", PAIMON_EEXISTS},
		{"EINVAL", PAIMON_EINVAL},   {"ECORRUPT", PAIMON_ECORRUPT},
		{"EUNSUPPORTED", PAIMON_EUNSUPPORTED}, {"ECONFLICT", PAIMON_ECONFLICT},
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		if (PyModule_AddIntConstant(m, codes[i].name, codes[i].value) < 0)
			goto fail;
	}
	Py_INCREF(&CatalogType);
	if (PyModule_AddObject(m, "Catalog", (PyObject *)&CatalogType) < 0) {
		Py_DECREF(&CatalogType);
		goto fail;
	}
	Py_INCREF(&TableType);
	if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0) {
		Py_DECREF(&TableType);
		goto fail;
	}
	Py_INCREF(&SchemaType);
	if (PyModule_AddObject(m, "Schema", (PyObject *)&SchemaType) < 0) {
		Py_DECREF(&SchemaType);
		goto fail;
	}
	if (pm_py_add_parquet_reader(m) < 0 || pm_py_add_parquet_writer(m) < 0 || pm_py_add_table_api(m) < 0 ||
	    pm_py_add_update_api(m) < 0 || pm_py_add_index_api(m) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
