/*
 * python/paimonc/_table.c - binding of include/paimonc/table.h: writing,
 * committing, predicates, planning and reading. The pypaimon-shaped classes
 * live in paimonc/write.py, read.py and predicate.py; this file only wraps
 * the handles.
 *
 * Native types (all created by module functions, not by calling the type):
 *   TableWrite     paimon_table_write, keeps its Table alive
 *   CommitMessage  paimon_commit_message (owned)
 *   TableCommit    paimon_table_commit, keeps its Table alive
 *   Predicate      paimon_predicate (owned, immutable)
 *   ReadBuilder    paimon_read_builder, keeps its Table alive
 *   Plan           paimon_plan, keeps its ReadBuilder alive
 *   Split          a split borrowed from a Plan (kept alive) or owned
 *
 * Locking: every handle with mutable state carries its own lock, taken with
 * the GIL released around each native call on it (the calls may do I/O).
 * Objects made from one Table do not share its lock: libpaimonc's table is
 * only read by them (path, schema, file I/O handle).
 *
 * Arrow: input batches arrive as PyCapsules of the Arrow PyCapsule interface
 * ("arrow_schema" + "arrow_array", or "arrow_array_stream", zero copy); a
 * read returns an "arrow_array_stream" capsule whose stream keeps the
 * ReadBuilder alive until the consumer releases it.
 */
#include "_native.h"

#include <pythread.h>
#include <stdlib.h>
#include <string.h>

#include "paimonc/paimonc.h"

#define CALL_LOCKED(lk, stmt) PM_PY_CALL_LOCKED(lk, stmt)

#define CALL_NOGIL(stmt)               \
	do {                           \
		Py_BEGIN_ALLOW_THREADS \
		stmt;                  \
		Py_END_ALLOW_THREADS   \
	} while (0)

/* dict[str, str] (or None) -> paimon_options (NULL for None/empty). */
static int options_from(PyObject *d, const char *what, paimon_options **out)
{
	*out = NULL;
	if (d == NULL || d == Py_None)
		return 0;
	if (!PyDict_Check(d)) {
		PyErr_Format(PyExc_TypeError, "%s must be a dict", what);
		return -1;
	}
	if (PyDict_GET_SIZE(d) == 0)
		return 0;
	int rc = paimon_options_new(out);
	if (rc != 0) {
		pm_py_raise_last(rc);
		return -1;
	}
	if (pm_py_options_from_dict(d, *out, what) == 0)
		return 0;
	paimon_options_free(*out);
	*out = NULL;
	return -1;
}

static PyObject *bytes_from_native(void *bytes, size_t len)
{
	PyObject *r = PyBytes_FromStringAndSize(bytes, (Py_ssize_t)len);
	paimon_free(bytes);
	return r;
}

static PyThread_type_lock new_lock(void)
{
	PyThread_type_lock l = PyThread_allocate_lock();
	if (l == NULL)
		PyErr_NoMemory();
	return l;
}

/* ============================================================ commit message */

typedef struct {
	PyObject_HEAD
	paimon_commit_message *m;
} MessageObject;

static PyTypeObject MessageType;

static PyObject *message_wrap(paimon_commit_message *m)
{
	MessageObject *o = PyObject_New(MessageObject, &MessageType);
	if (o == NULL) {
		paimon_commit_message_free(m);
		return NULL;
	}
	o->m = m;
	return (PyObject *)o;
}

PyObject *pm_py_message_wrap(struct paimon_commit_message *m)
{
	return message_wrap(m);
}

static void message_dealloc(MessageObject *o)
{
	paimon_commit_message_free(o->m);
	PyObject_Free(o);
}

static PyObject *message_file_count(MessageObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromSize_t(paimon_commit_message_file_count(o->m));
}

static PyObject *message_index_count(MessageObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromSize_t(paimon_commit_message_index_count(o->m));
}

static PyObject *message_row_count(MessageObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLongLong(paimon_commit_message_row_count(o->m));
}

static PyObject *message_serialize(MessageObject *o, PyObject *unused)
{
	void *bytes = NULL;
	size_t len = 0;
	(void)unused;
	int rc = paimon_commit_message_serialize(o->m, &bytes, &len);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return bytes_from_native(bytes, len);
}

static PyMethodDef message_methods[] = {
	{"file_count", (PyCFunction)message_file_count, METH_NOARGS, NULL},
	{"index_count", (PyCFunction)message_index_count, METH_NOARGS, NULL},
	{"row_count", (PyCFunction)message_row_count, METH_NOARGS, NULL},
	{"serialize", (PyCFunction)message_serialize, METH_NOARGS, "versioned bytes"},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject MessageType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.CommitMessage",
	.tp_basicsize = sizeof(MessageObject),
	.tp_dealloc = (destructor)message_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Data files written by a TableWrite, to be committed.",
	.tp_methods = message_methods,
};

static PyObject *mod_message_deserialize(PyObject *m, PyObject *arg)
{
	Py_buffer view;
	paimon_commit_message *msg = NULL;
	int rc;
	(void)m;
	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
		return NULL;
	rc = paimon_commit_message_deserialize(&msg, view.buf, (size_t)view.len);
	PyBuffer_Release(&view);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return message_wrap(msg);
}

/* Sequence of CommitMessage -> borrowed handle array (PyMem_Free it). */
static int message_array(PyObject *seq, PyObject **fast_out, paimon_commit_message ***out, size_t *n)
{
	PyObject *fast = PySequence_Fast(seq, "commit messages must be a sequence");
	if (fast == NULL)
		return -1;
	Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
	paimon_commit_message **arr = PyMem_Calloc((size_t)count + 1, sizeof *arr);
	if (arr == NULL) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < count; i++) {
		PyObject *it = PySequence_Fast_GET_ITEM(fast, i);
		if (!PyObject_TypeCheck(it, &MessageType)) {
			PyErr_Format(PyExc_TypeError, "commit messages must be CommitMessage objects, not %.100s",
				     Py_TYPE(it)->tp_name);
			PyMem_Free(arr);
			Py_DECREF(fast);
			return -1;
		}
		arr[i] = ((MessageObject *)it)->m;
	}
	*fast_out = fast;
	*out = arr;
	*n = (size_t)count;
	return 0;
}

/* ================================================================ table write */

typedef struct {
	PyObject_HEAD
	paimon_table_write *w;
	PyObject *table;
	PyThread_type_lock lock;
	PyObject *stream_cb;  /* (uri, memoryview) -> int: streamed BLOB values */
	PyObject *stream_exc; /* what stream_cb raised during the current write */
} WriteObject;

static PyTypeObject WriteType;

static void write_dealloc(WriteObject *o)
{
	if (o->w != NULL) {
		paimon_table_write *w = o->w;
		o->w = NULL;
		CALL_NOGIL(paimon_table_write_free(w));
	}
	if (o->lock != NULL)
		PyThread_free_lock(o->lock);
	Py_XDECREF(o->table);
	Py_XDECREF(o->stream_cb);
	Py_XDECREF(o->stream_exc);
	PyObject_Free(o);
}

/*
 * The paimon_blob_stream_fn of a TableWrite: called by the native writer
 * (GIL released) for every chunk of a streamed BLOB value; calls
 * stream_cb(uri, memoryview over buf) with the GIL. An exception is kept in
 * stream_exc (the first one) and becomes the cause of the write's error.
 */
static int write_stream_source(void *ctx, const char *uri, void *buf, size_t cap, size_t *got)
{
	WriteObject *o = ctx;
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *mv, *res = NULL, *rel;
	int rc = -1;
	*got = 0;
	mv = PyMemoryView_FromMemory(buf, (Py_ssize_t)cap, PyBUF_WRITE);
	if (mv) {
		PyObject *et, *ev, *etb;
		res = PyObject_CallFunction(o->stream_cb, "sO", uri, mv);
		/* the buffer is the writer's: no view of it may outlive the call */
		PyErr_Fetch(&et, &ev, &etb);
		rel = PyObject_CallMethod(mv, "release", NULL);
		if (!rel && res) {
			Py_CLEAR(res); /* BufferError: the callback kept a view */
		}
		if (et) {
			if (!rel)
				PyErr_Clear();
			PyErr_Restore(et, ev, etb);
		}
		Py_XDECREF(rel);
		Py_DECREF(mv);
	}
	if (res) {
		Py_ssize_t n = PyLong_AsSsize_t(res);
		if (n >= 0 && (size_t)n <= cap) {
			*got = (size_t)n;
			rc = 0;
		} else if (!PyErr_Occurred()) {
			PyErr_Format(PyExc_ValueError, "blob stream %s: the reader returned %zd for a buffer of %zu bytes",
				     uri, n, cap);
		}
		Py_DECREF(res);
	}
	if (rc) {
		PyObject *t, *v, *tb;
		PyErr_Fetch(&t, &v, &tb);
		if (!o->stream_exc && t) {
			PyErr_NormalizeException(&t, &v, &tb);
			if (v && tb)
				PyException_SetTraceback(v, tb);
			o->stream_exc = v;
			v = NULL;
		}
		Py_XDECREF(t);
		Py_XDECREF(v);
		Py_XDECREF(tb);
	}
	PyGILState_Release(g);
	return rc;
}

/* The write's error, with what the blob stream raised as its __cause__. */
static PyObject *write_raise(WriteObject *o, int rc)
{
	PyObject *cause = o->stream_exc;
	o->stream_exc = NULL;
	pm_py_raise_last(rc);
	if (cause) {
		PyObject *t, *v, *tb;
		PyErr_Fetch(&t, &v, &tb);
		PyErr_NormalizeException(&t, &v, &tb);
		if (v)
			PyException_SetCause(v, cause); /* steals cause */
		else
			Py_DECREF(cause);
		PyErr_Restore(t, v, tb);
	}
	return NULL;
}

/* set_blob_stream(callable | None): the source of streamed BLOB values. */
static PyObject *write_set_blob_stream(WriteObject *o, PyObject *cb)
{
	int rc;
	if (o->w == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "the table write is closed");
		return NULL;
	}
	if (cb != Py_None && !PyCallable_Check(cb)) {
		PyErr_SetString(PyExc_TypeError, "set_blob_stream expects a callable or None");
		return NULL;
	}
	Py_XDECREF(o->stream_cb);
	o->stream_cb = cb == Py_None ? NULL : cb;
	Py_XINCREF(o->stream_cb);
	rc = paimon_table_write_set_blob_stream(o->w, o->stream_cb ? write_stream_source : NULL, o);
	if (rc != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static int write_ready(WriteObject *o)
{
	if (o->w == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "the table write is closed");
		return -1;
	}
	return 0;
}

/* write_batch(schema_capsule, array_capsule): one struct array. */
static PyObject *write_batch(WriteObject *o, PyObject *args)
{
	PyObject *scap, *acap;
	int rc;
	if (!PyArg_ParseTuple(args, "OO:write_batch", &scap, &acap) || write_ready(o) < 0)
		return NULL;
	if (!PyCapsule_IsValid(scap, "arrow_schema") || !PyCapsule_IsValid(acap, "arrow_array")) {
		PyErr_SetString(PyExc_TypeError, "expected PyCapsules 'arrow_schema' and 'arrow_array'");
		return NULL;
	}
	struct ArrowSchema *s = PyCapsule_GetPointer(scap, "arrow_schema");
	struct ArrowArray *a = PyCapsule_GetPointer(acap, "arrow_array");
	if (s == NULL || a == NULL || s->release == NULL || a->release == NULL) {
		PyErr_SetString(PyExc_ValueError, "Arrow capsule was already consumed");
		return NULL;
	}
	CALL_LOCKED(o->lock, rc = paimon_table_write_arrow(o->w, a, s));
	if (rc != 0)
		return write_raise(o, rc);
	Py_RETURN_NONE;
}

/* write_stream(stream_capsule): the stream is moved out of the capsule. */
static PyObject *write_stream(WriteObject *o, PyObject *cap)
{
	int rc;
	if (write_ready(o) < 0)
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
	src->release = NULL; /* moved: the capsule's destructor leaves it alone */
	CALL_LOCKED(o->lock, rc = paimon_table_write_arrow_stream(o->w, &st));
	if (rc != 0)
		return write_raise(o, rc);
	Py_RETURN_NONE;
}

/* with_write_type(list[str] | None): partial-column writes. */
static PyObject *write_with_write_type(WriteObject *o, PyObject *cols)
{
	const char **names = NULL;
	Py_ssize_t n = 0, i;
	PyObject *fast = NULL;
	int rc;
	if (write_ready(o) < 0)
		return NULL;
	if (cols != Py_None) {
		if (!(fast = PySequence_Fast(cols, "with_write_type expects a list of column names")))
			return NULL;
		n = PySequence_Fast_GET_SIZE(fast);
		if (!(names = PyMem_Calloc((size_t)n + 1, sizeof *names))) {
			Py_DECREF(fast);
			return PyErr_NoMemory();
		}
		for (i = 0; i < n; i++)
			if (pm_py_as_cstr(PySequence_Fast_GET_ITEM(fast, i), "column name", &names[i]) < 0) {
				PyMem_Free(names);
				Py_DECREF(fast);
				return NULL;
			}
	}
	CALL_LOCKED(o->lock, rc = paimon_table_write_with_write_type(o->w, names, (size_t)n));
	PyMem_Free(names);
	Py_XDECREF(fast);
	if (rc != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *write_row_count(WriteObject *o, PyObject *unused)
{
	int64_t n;
	(void)unused;
	if (write_ready(o) < 0)
		return NULL;
	CALL_LOCKED(o->lock, n = paimon_table_write_row_count(o->w));
	return PyLong_FromLongLong(n);
}

static PyObject *write_prepare_commit(WriteObject *o, PyObject *unused)
{
	paimon_commit_message *m = NULL;
	int rc;
	(void)unused;
	if (write_ready(o) < 0)
		return NULL;
	CALL_LOCKED(o->lock, rc = paimon_table_write_prepare_commit(o->w, &m));
	if (rc != 0)
		return pm_py_raise_last(rc);
	return message_wrap(m);
}

/* close(): frees the writer (files not yet prepared are deleted). Idempotent. */
static PyObject *write_close(WriteObject *o, PyObject *unused)
{
	(void)unused;
	if (o->w != NULL) {
		paimon_table_write *w = o->w;
		o->w = NULL;
		CALL_LOCKED(o->lock, paimon_table_write_free(w));
	}
	Py_RETURN_NONE;
}

static PyMethodDef write_methods[] = {
	{"write_batch", (PyCFunction)write_batch, METH_VARARGS, "(schema_capsule, array_capsule)"},
	{"write_stream", (PyCFunction)write_stream, METH_O, "(stream_capsule); consumes the stream"},
	{"with_write_type", (PyCFunction)write_with_write_type, METH_O, "(list[str] | None)"},
	{"set_blob_stream", (PyCFunction)write_set_blob_stream, METH_O,
	 "(callable(uri, memoryview) -> int | None): source of 'paimonc-stream:' BLOB values"},
	{"row_count", (PyCFunction)write_row_count, METH_NOARGS, NULL},
	{"prepare_commit", (PyCFunction)write_prepare_commit, METH_NOARGS, "-> CommitMessage"},
	{"close", (PyCFunction)write_close, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject WriteType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.TableWrite",
	.tp_basicsize = sizeof(WriteObject),
	.tp_dealloc = (destructor)write_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = write_methods,
};

/* table_write_new(table, options: dict|None) -> TableWrite */
static PyObject *mod_table_write_new(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o;
	paimon_options *opts = NULL;
	paimon_table_write *w = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OO:table_write_new", &table, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL || options_from(opts_o, "write options", &opts) < 0)
		return NULL;
	WriteObject *o = PyObject_New(WriteObject, &WriteType);
	if (o == NULL) {
		paimon_options_free(opts);
		return NULL;
	}
	o->w = NULL;
	o->table = table;
	o->stream_cb = NULL;
	o->stream_exc = NULL;
	Py_INCREF(table);
	o->lock = new_lock();
	if (o->lock == NULL) {
		paimon_options_free(opts);
		Py_DECREF(o);
		return NULL;
	}
	CALL_NOGIL(rc = paimon_table_write_new(&w, t, opts));
	paimon_options_free(opts);
	if (rc != 0) {
		Py_DECREF(o);
		return pm_py_raise_last(rc);
	}
	o->w = w;
	return (PyObject *)o;
}

/* =============================================================== table commit */

typedef struct {
	PyObject_HEAD
	paimon_table_commit *c;
	PyObject *table;
	PyThread_type_lock lock;
} CommitObject;

static PyTypeObject CommitType;

static void commit_dealloc(CommitObject *o)
{
	if (o->c != NULL)
		paimon_table_commit_free(o->c);
	if (o->lock != NULL)
		PyThread_free_lock(o->lock);
	Py_XDECREF(o->table);
	PyObject_Free(o);
}

static int commit_ready(CommitObject *o)
{
	if (o->c == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "the table commit is closed");
		return -1;
	}
	return 0;
}

/* set_overwrite(partition: dict|None) */
static PyObject *commit_set_overwrite(CommitObject *o, PyObject *arg)
{
	paimon_options *part = NULL;
	int rc;
	if (commit_ready(o) < 0 || options_from(arg, "overwrite partition", &part) < 0)
		return NULL;
	CALL_LOCKED(o->lock, rc = paimon_table_commit_set_overwrite(o->c, part));
	paimon_options_free(part);
	if (rc != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

/* commit(messages, identifier) -> snapshot id or -1 */
static PyObject *commit_commit(CommitObject *o, PyObject *args)
{
	PyObject *seq, *fast = NULL;
	long long ident;
	paimon_commit_message **arr = NULL;
	size_t n = 0;
	int64_t sid = -1;
	int rc;
	if (!PyArg_ParseTuple(args, "OL:commit", &seq, &ident) || commit_ready(o) < 0)
		return NULL;
	if (message_array(seq, &fast, &arr, &n) < 0)
		return NULL;
	CALL_LOCKED(o->lock, rc = paimon_table_commit_apply(o->c, arr, n, (int64_t)ident, &sid));
	PyMem_Free(arr);
	Py_DECREF(fast);
	if (rc != 0)
		return pm_py_raise_last(rc);
	/* committed; the snapshot expiration after it failed: say so, the
	 * commit stands */
	const char *maint = paimon_table_commit_maintenance_error(o->c);
	if (maint != NULL &&
	    PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "snapshot %lld committed, but the maintenance after it "
			     "(snapshot expiration) failed: %s", (long long)sid, maint) < 0)
		return NULL;
	return PyLong_FromLongLong(sid);
}

static PyObject *commit_abort(CommitObject *o, PyObject *seq)
{
	PyObject *fast = NULL;
	paimon_commit_message **arr = NULL;
	size_t n = 0;
	int rc;
	if (commit_ready(o) < 0 || message_array(seq, &fast, &arr, &n) < 0)
		return NULL;
	CALL_LOCKED(o->lock, rc = paimon_table_commit_abort(o->c, arr, n));
	PyMem_Free(arr);
	Py_DECREF(fast);
	if (rc != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyObject *commit_close(CommitObject *o, PyObject *unused)
{
	(void)unused;
	if (o->c != NULL) {
		paimon_table_commit *c = o->c;
		o->c = NULL;
		CALL_LOCKED(o->lock, paimon_table_commit_free(c));
	}
	Py_RETURN_NONE;
}

static PyMethodDef commit_methods[] = {
	{"set_overwrite", (PyCFunction)commit_set_overwrite, METH_O, "(partition dict or None)"},
	{"commit", (PyCFunction)commit_commit, METH_VARARGS, "(messages, identifier) -> snapshot id or -1"},
	{"abort", (PyCFunction)commit_abort, METH_O, "(messages)"},
	{"close", (PyCFunction)commit_close, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject CommitType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.TableCommit",
	.tp_basicsize = sizeof(CommitObject),
	.tp_dealloc = (destructor)commit_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = commit_methods,
};

/* table_commit_new(table, options: dict|None) -> TableCommit */
static PyObject *mod_table_commit_new(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o;
	paimon_options *opts = NULL;
	paimon_table_commit *c = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OO:table_commit_new", &table, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL || options_from(opts_o, "commit options", &opts) < 0)
		return NULL;
	CommitObject *o = PyObject_New(CommitObject, &CommitType);
	if (o == NULL) {
		paimon_options_free(opts);
		return NULL;
	}
	o->c = NULL;
	o->table = table;
	Py_INCREF(table);
	o->lock = new_lock();
	if (o->lock == NULL) {
		paimon_options_free(opts);
		Py_DECREF(o);
		return NULL;
	}
	CALL_NOGIL(rc = paimon_table_commit_new(&c, t, opts));
	paimon_options_free(opts);
	if (rc != 0) {
		Py_DECREF(o);
		return pm_py_raise_last(rc);
	}
	o->c = c;
	return (PyObject *)o;
}

/* ================================================================= predicate */

typedef struct {
	PyObject_HEAD
	paimon_predicate *p;
} PredObject;

static PyTypeObject PredType;

static PyObject *pred_wrap(paimon_predicate *p)
{
	PredObject *o = PyObject_New(PredObject, &PredType);
	if (o == NULL) {
		paimon_predicate_free(p);
		return NULL;
	}
	o->p = p;
	return (PyObject *)o;
}

static void pred_dealloc(PredObject *o)
{
	paimon_predicate_free(o->p);
	PyObject_Free(o);
}

static PyObject *pred_to_string(PredObject *o, PyObject *unused)
{
	char *text = NULL;
	(void)unused;
	int rc = paimon_predicate_to_string(o->p, &text);
	if (rc != 0)
		return pm_py_raise_last(rc);
	PyObject *r = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "surrogateescape");
	paimon_free(text);
	return r;
}

static PyObject *pred_serialize(PredObject *o, PyObject *unused)
{
	void *bytes = NULL;
	size_t len = 0;
	(void)unused;
	int rc = paimon_predicate_serialize(o->p, &bytes, &len);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return bytes_from_native(bytes, len);
}

static PyMethodDef pred_methods[] = {
	{"to_string", (PyCFunction)pred_to_string, METH_NOARGS, "SQL-like text"},
	{"serialize", (PyCFunction)pred_serialize, METH_NOARGS, "versioned bytes"},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject PredType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.Predicate",
	.tp_basicsize = sizeof(PredObject),
	.tp_dealloc = (destructor)pred_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = pred_methods,
};

/* A fresh copy of a native predicate (and/or/not take ownership). */
static paimon_predicate *pred_copy(const paimon_predicate *p)
{
	void *bytes = NULL;
	size_t len = 0;
	paimon_predicate *c = NULL;
	int rc = paimon_predicate_serialize(p, &bytes, &len);
	if (rc == 0) {
		rc = paimon_predicate_deserialize(&c, bytes, len);
		paimon_free(bytes);
	}
	if (rc != 0) {
		pm_py_raise_last(rc);
		return NULL;
	}
	return c;
}

/*
 * Builds a predicate from a tuple tree:
 *   ("leaf", column, op, [bytes or None, ...])   op: paimon_predicate_op
 *   ("and", [node, ...])  ("or", [node, ...])  ("not", node)
 *   ("native", Predicate)                        a copy of that predicate
 * NULL with an exception on failure.
 */
static paimon_predicate *pred_build(PyObject *node, int depth)
{
	const char *kind;
	paimon_predicate *p = NULL;
	int rc;
	if (depth > 256) {
		PyErr_SetString(PyExc_ValueError, "predicate nested too deeply");
		return NULL;
	}
	if (!PyTuple_Check(node) || PyTuple_GET_SIZE(node) < 2 || !PyUnicode_Check(PyTuple_GET_ITEM(node, 0)) ||
	    (kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(node, 0))) == NULL) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "bad predicate node");
		return NULL;
	}
	if (strcmp(kind, "native") == 0) {
		PyObject *x = PyTuple_GET_ITEM(node, 1);
		if (!PyObject_TypeCheck(x, &PredType)) {
			PyErr_SetString(PyExc_TypeError, "bad native predicate node");
			return NULL;
		}
		return pred_copy(((PredObject *)x)->p);
	}
	if (strcmp(kind, "not") == 0) {
		paimon_predicate *a = pred_build(PyTuple_GET_ITEM(node, 1), depth + 1);
		if (a == NULL)
			return NULL;
		rc = paimon_predicate_not(&p, a);
		if (rc != 0)
			return (paimon_predicate *)pm_py_raise_last(rc);
		return p;
	}
	if (strcmp(kind, "and") == 0 || strcmp(kind, "or") == 0) {
		PyObject *seq = PySequence_Fast(PyTuple_GET_ITEM(node, 1), "predicate operands must be a sequence");
		if (seq == NULL)
			return NULL;
		Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
		if (n == 0) {
			Py_DECREF(seq);
			PyErr_SetString(PyExc_ValueError, "AND/OR of no predicates");
			return NULL;
		}
		paimon_predicate **kids = PyMem_Calloc((size_t)n, sizeof *kids);
		if (kids == NULL) {
			Py_DECREF(seq);
			PyErr_NoMemory();
			return NULL;
		}
		for (Py_ssize_t i = 0; i < n; i++) {
			kids[i] = pred_build(PySequence_Fast_GET_ITEM(seq, i), depth + 1);
			if (kids[i] == NULL) {
				for (Py_ssize_t j = 0; j < i; j++)
					paimon_predicate_free(kids[j]);
				PyMem_Free(kids);
				Py_DECREF(seq);
				return NULL;
			}
		}
		Py_DECREF(seq);
		rc = kind[0] == 'a' ? paimon_predicate_and(&p, kids, (size_t)n) : paimon_predicate_or(&p, kids, (size_t)n);
		PyMem_Free(kids);
		if (rc != 0)
			return (paimon_predicate *)pm_py_raise_last(rc);
		return p;
	}
	if (strcmp(kind, "leaf") == 0 && PyTuple_GET_SIZE(node) == 4) {
		const char *col;
		long op = PyLong_AsLong(PyTuple_GET_ITEM(node, 2));
		if (op == -1 && PyErr_Occurred())
			return NULL;
		if (pm_py_as_cstr(PyTuple_GET_ITEM(node, 1), "predicate column", &col) < 0)
			return NULL;
		PyObject *seq = PySequence_Fast(PyTuple_GET_ITEM(node, 3), "predicate literals must be a sequence");
		if (seq == NULL)
			return NULL;
		Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
		const char **lits = PyMem_Calloc((size_t)n + 1, sizeof *lits);
		size_t *lens = PyMem_Calloc((size_t)n + 1, sizeof *lens);
		if (lits == NULL || lens == NULL) {
			PyMem_Free(lits);
			PyMem_Free(lens);
			Py_DECREF(seq);
			PyErr_NoMemory();
			return NULL;
		}
		for (Py_ssize_t i = 0; i < n; i++) {
			PyObject *v = PySequence_Fast_GET_ITEM(seq, i);
			if (v == Py_None)
				continue;
			if (!PyBytes_Check(v)) {
				PyErr_SetString(PyExc_TypeError, "predicate literals must be bytes or None");
				PyMem_Free(lits);
				PyMem_Free(lens);
				Py_DECREF(seq);
				return NULL;
			}
			lits[i] = PyBytes_AS_STRING(v);
			lens[i] = (size_t)PyBytes_GET_SIZE(v);
		}
		rc = paimon_predicate_leaf(&p, col, (paimon_predicate_op)op, lits, lens, (size_t)n);
		PyMem_Free(lits);
		PyMem_Free(lens);
		Py_DECREF(seq);
		if (rc != 0)
			return (paimon_predicate *)pm_py_raise_last(rc);
		return p;
	}
	PyErr_Format(PyExc_TypeError, "bad predicate node '%s'", kind);
	return NULL;
}

static PyObject *mod_predicate_build(PyObject *m, PyObject *tree)
{
	(void)m;
	paimon_predicate *p = pred_build(tree, 0);
	return p == NULL ? NULL : pred_wrap(p);
}

static PyObject *mod_predicate_parse(PyObject *m, PyObject *arg)
{
	const char *text;
	paimon_predicate *p = NULL;
	(void)m;
	if (pm_py_as_cstr(arg, "predicate text", &text) < 0)
		return NULL;
	int rc = paimon_predicate_parse(&p, text);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return pred_wrap(p);
}

static PyObject *mod_predicate_deserialize(PyObject *m, PyObject *arg)
{
	Py_buffer view;
	paimon_predicate *p = NULL;
	(void)m;
	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
		return NULL;
	int rc = paimon_predicate_deserialize(&p, view.buf, (size_t)view.len);
	PyBuffer_Release(&view);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return pred_wrap(p);
}

/* =================================================================== splits */

typedef struct {
	PyObject_HEAD
	paimon_split *owned; /* NULL when borrowed from a plan */
	const paimon_split *s;
	PyObject *owner; /* the Plan of a borrowed split */
} SplitObject;

static PyTypeObject SplitType;

static PyObject *split_wrap(paimon_split *owned, const paimon_split *borrowed, PyObject *owner)
{
	SplitObject *o = PyObject_New(SplitObject, &SplitType);
	if (o == NULL) {
		if (owned != NULL)
			paimon_split_free(owned);
		return NULL;
	}
	o->owned = owned;
	o->s = owned != NULL ? owned : borrowed;
	o->owner = owner;
	Py_XINCREF(owner);
	return (PyObject *)o;
}

static void split_dealloc(SplitObject *o)
{
	if (o->owned != NULL)
		paimon_split_free(o->owned);
	Py_XDECREF(o->owner);
	PyObject_Free(o);
}

static PyObject *split_row_count(SplitObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLongLong(paimon_split_row_count(o->s));
}

static PyObject *split_file_count(SplitObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromSize_t(paimon_split_file_count(o->s));
}

static PyObject *split_serialize(SplitObject *o, PyObject *unused)
{
	void *bytes = NULL;
	size_t len = 0;
	(void)unused;
	int rc = paimon_split_serialize(o->s, &bytes, &len);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return bytes_from_native(bytes, len);
}

static PyObject *split_bucket(SplitObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLong((long)paimon_split_bucket(o->s));
}

static PyObject *split_snapshot_id(SplitObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLongLong(paimon_split_snapshot_id(o->s));
}

/* files() -> [(name, size, rows, schema_id)] */
static PyObject *split_files(SplitObject *o, PyObject *unused)
{
	(void)unused;
	size_t n = paimon_split_file_count(o->s);
	PyObject *list = PyList_New((Py_ssize_t)n);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		PyObject *t = Py_BuildValue("(sLLL)", paimon_split_file_name(o->s, i),
					    (long long)paimon_split_file_size(o->s, i),
					    (long long)paimon_split_file_rows(o->s, i),
					    (long long)paimon_split_file_schema_id(o->s, i));
		if (t == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	return list;
}

/* file_paths(table) -> [str] (the paths a read opens) */
static PyObject *split_file_paths(SplitObject *o, PyObject *table)
{
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL)
		return NULL;
	size_t n = paimon_split_file_count(o->s);
	PyObject *list = PyList_New((Py_ssize_t)n);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char *path = NULL;
		int rc;
		CALL_NOGIL(rc = paimon_split_file_path(o->s, t, i, &path));
		if (rc != 0) {
			Py_DECREF(list);
			return pm_py_raise_last(rc);
		}
		PyObject *str = PyUnicode_DecodeFSDefault(path);
		paimon_free(path);
		if (str == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, str);
	}
	return list;
}

/* partition(table) -> [(key, canonical text as bytes | None)] */
static PyObject *split_partition(SplitObject *o, PyObject *table)
{
	paimon_table *t = pm_py_table_handle(table);
	char **keys = NULL, **vals = NULL;
	size_t n = 0;
	int rc;
	if (t == NULL)
		return NULL;
	rc = paimon_split_partition(o->s, t, &keys, &vals, &n);
	if (rc != 0)
		return pm_py_raise_last(rc);
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list != NULL && i < n; i++) {
		PyObject *item;
		if (vals[i] != NULL)
			item = Py_BuildValue("(sy)", keys[i], vals[i]);
		else
			item = Py_BuildValue("(sO)", keys[i], Py_None);
		if (item == NULL) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, item);
	}
	paimon_string_list_free(keys, n);
	paimon_string_list_free(vals, n);
	return list;
}

static PyMethodDef split_methods[] = {
	{"row_count", (PyCFunction)split_row_count, METH_NOARGS, NULL},
	{"file_count", (PyCFunction)split_file_count, METH_NOARGS, NULL},
	{"bucket", (PyCFunction)split_bucket, METH_NOARGS, NULL},
	{"snapshot_id", (PyCFunction)split_snapshot_id, METH_NOARGS, NULL},
	{"files", (PyCFunction)split_files, METH_NOARGS, "-> [(name, size, rows, schema_id)]"},
	{"file_paths", (PyCFunction)split_file_paths, METH_O, "(table) -> [path]"},
	{"partition", (PyCFunction)split_partition, METH_O, "(table) -> [(key, canonical bytes | None)]"},
	{"serialize", (PyCFunction)split_serialize, METH_NOARGS, "versioned bytes"},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject SplitType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.Split",
	.tp_basicsize = sizeof(SplitObject),
	.tp_dealloc = (destructor)split_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = split_methods,
};

static PyObject *mod_split_deserialize(PyObject *m, PyObject *arg)
{
	Py_buffer view;
	paimon_split *s = NULL;
	(void)m;
	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
		return NULL;
	int rc = paimon_split_deserialize(&s, view.buf, (size_t)view.len);
	PyBuffer_Release(&view);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return split_wrap(s, NULL, NULL);
}

/* ============================================================= read builder */

typedef struct {
	PyObject_HEAD
	paimon_read_builder *rb;
	PyObject *table;
	PyThread_type_lock lock;
} RBObject;

static PyTypeObject RBType;

static void rb_dealloc(RBObject *o)
{
	if (o->rb != NULL)
		paimon_read_builder_free(o->rb);
	if (o->lock != NULL)
		PyThread_free_lock(o->lock);
	Py_XDECREF(o->table);
	PyObject_Free(o);
}

typedef struct {
	PyObject_HEAD
	paimon_plan *p;
	PyObject *rb;
} PlanObject;

static PyTypeObject PlanType;

static void plan_dealloc(PlanObject *o)
{
	if (o->p != NULL)
		paimon_plan_free(o->p);
	Py_XDECREF(o->rb);
	PyObject_Free(o);
}

static PyObject *plan_snapshot_id(PlanObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLongLong(paimon_plan_snapshot_id(o->p));
}

static PyObject *plan_files_total(PlanObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLongLong(paimon_plan_files_total(o->p));
}

static PyObject *plan_files_selected(PlanObject *o, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLongLong(paimon_plan_files_selected(o->p));
}

/* splits() -> [Split] borrowed from this plan (which they keep alive). */
static PyObject *plan_splits(PlanObject *o, PyObject *unused)
{
	(void)unused;
	size_t n = paimon_plan_split_count(o->p);
	PyObject *list = PyList_New((Py_ssize_t)n);
	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		PyObject *s = split_wrap(NULL, paimon_plan_split(o->p, i), (PyObject *)o);
		if (s == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, s);
	}
	return list;
}

static PyMethodDef plan_methods[] = {
	{"snapshot_id", (PyCFunction)plan_snapshot_id, METH_NOARGS, NULL},
	{"files_total", (PyCFunction)plan_files_total, METH_NOARGS, NULL},
	{"files_selected", (PyCFunction)plan_files_selected, METH_NOARGS, NULL},
	{"splits", (PyCFunction)plan_splits, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject PlanType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.Plan",
	.tp_basicsize = sizeof(PlanObject),
	.tp_dealloc = (destructor)plan_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = plan_methods,
};

static void schema_capsule_free(PyObject *capsule)
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

static PyObject *rb_read_schema(RBObject *o, PyObject *unused)
{
	int rc;
	(void)unused;
	struct ArrowSchema *s = PyMem_RawCalloc(1, sizeof *s);
	if (s == NULL)
		return PyErr_NoMemory();
	CALL_LOCKED(o->lock, rc = paimon_read_builder_read_schema(o->rb, s));
	if (rc != 0) {
		PyMem_RawFree(s);
		return pm_py_raise_last(rc);
	}
	PyObject *cap = PyCapsule_New(s, "arrow_schema", schema_capsule_free);
	if (cap == NULL) {
		s->release(s);
		PyMem_RawFree(s);
	}
	return cap;
}

static PyObject *rb_plan(RBObject *o, PyObject *unused)
{
	paimon_plan *p = NULL;
	int rc;
	(void)unused;
	CALL_LOCKED(o->lock, rc = paimon_read_builder_plan(o->rb, &p));
	if (rc != 0)
		return pm_py_raise_last(rc);
	PlanObject *po = PyObject_New(PlanObject, &PlanType);
	if (po == NULL) {
		paimon_plan_free(p);
		return NULL;
	}
	po->p = p;
	po->rb = (PyObject *)o;
	Py_INCREF(o);
	return (PyObject *)po;
}

/*
 * The stream handed to Python wraps the library's stream so that it holds a
 * reference to the ReadBuilder (which must outlive the stream); its release
 * may run on any thread, so it takes the GIL to drop the reference.
 */
typedef struct {
	struct ArrowArrayStream inner;
	PyObject *keep;
} KeepStream;

static int ks_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
	KeepStream *k = s->private_data;
	return k->inner.get_schema(&k->inner, out);
}

static int ks_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
	KeepStream *k = s->private_data;
	return k->inner.get_next(&k->inner, out);
}

static const char *ks_get_last_error(struct ArrowArrayStream *s)
{
	KeepStream *k = s->private_data;
	return k->inner.get_last_error(&k->inner);
}

static void ks_release(struct ArrowArrayStream *s)
{
	KeepStream *k = s->private_data;
	if (k != NULL) {
		if (k->inner.release != NULL)
			k->inner.release(&k->inner);
		if (k->keep != NULL && Py_IsInitialized()) {
			PyGILState_STATE g = PyGILState_Ensure();
			Py_DECREF(k->keep);
			PyGILState_Release(g);
		}
		free(k);
	}
	s->release = NULL;
	s->private_data = NULL;
}

static void stream_capsule_free(PyObject *capsule)
{
	struct ArrowArrayStream *s = PyCapsule_GetPointer(capsule, "arrow_array_stream");
	if (s == NULL) {
		PyErr_Clear();
		return;
	}
	if (s->release != NULL)
		s->release(s);
	free(s);
}

/* read(splits) -> PyCapsule "arrow_array_stream" */
static PyObject *rb_read(RBObject *o, PyObject *seq)
{
	PyObject *fast = PySequence_Fast(seq, "splits must be a sequence");
	int rc;
	if (fast == NULL)
		return NULL;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	const paimon_split **arr = PyMem_Calloc((size_t)n + 1, sizeof *arr);
	if (arr == NULL) {
		Py_DECREF(fast);
		return PyErr_NoMemory();
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *it = PySequence_Fast_GET_ITEM(fast, i);
		if (!PyObject_TypeCheck(it, &SplitType)) {
			PyErr_Format(PyExc_TypeError, "splits must be Split objects, not %.100s", Py_TYPE(it)->tp_name);
			PyMem_Free(arr);
			Py_DECREF(fast);
			return NULL;
		}
		arr[i] = ((SplitObject *)it)->s;
	}
	KeepStream *k = calloc(1, sizeof *k);
	struct ArrowArrayStream *out = calloc(1, sizeof *out);
	if (k == NULL || out == NULL) {
		free(k);
		free(out);
		PyMem_Free(arr);
		Py_DECREF(fast);
		return PyErr_NoMemory();
	}
	CALL_LOCKED(o->lock, rc = paimon_read_builder_read(o->rb, arr, (size_t)n, &k->inner));
	PyMem_Free(arr);
	Py_DECREF(fast);
	if (rc != 0) {
		free(k);
		free(out);
		return pm_py_raise_last(rc);
	}
	k->keep = (PyObject *)o;
	Py_INCREF(o);
	out->get_schema = ks_get_schema;
	out->get_next = ks_get_next;
	out->get_last_error = ks_get_last_error;
	out->release = ks_release;
	out->private_data = k;
	PyObject *cap = PyCapsule_New(out, "arrow_array_stream", stream_capsule_free);
	if (cap == NULL) {
		out->release(out);
		free(out);
	}
	return cap;
}

static PyObject *rb_schema_id(RBObject *o, PyObject *unused)
{
	int64_t id;
	(void)unused;
	CALL_LOCKED(o->lock, id = paimon_read_builder_schema_id(o->rb));
	return PyLong_FromLongLong(id);
}

/* with_row_ranges(list[(from, to)] | None): inclusive _ROW_ID ranges. */
static PyObject *rb_with_row_ranges(RBObject *o, PyObject *seq)
{
	int rc;
	if (seq == Py_None) {
		CALL_LOCKED(o->lock, rc = paimon_read_builder_with_row_ranges(o->rb, NULL, 0));
		if (rc != 0)
			return pm_py_raise_last(rc);
		Py_RETURN_NONE;
	}
	PyObject *fast = PySequence_Fast(seq, "row ranges must be a sequence of (from, to) pairs");
	if (fast == NULL)
		return NULL;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	int64_t *v = PyMem_Calloc(2 * (size_t)n + 2, sizeof *v);
	if (v == NULL) {
		Py_DECREF(fast);
		return PyErr_NoMemory();
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *it = PySequence_Fast_GET_ITEM(fast, i);
		long long a, b;
		if (!PyArg_ParseTuple(it, "LL", &a, &b)) {
			PyMem_Free(v);
			Py_DECREF(fast);
			return NULL;
		}
		v[2 * i] = a;
		v[2 * i + 1] = b;
	}
	Py_DECREF(fast);
	CALL_LOCKED(o->lock, rc = paimon_read_builder_with_row_ranges(o->rb, v, (size_t)n));
	PyMem_Free(v);
	if (rc != 0)
		return pm_py_raise_last(rc);
	Py_RETURN_NONE;
}

static PyMethodDef rb_methods[] = {
	{"with_row_ranges", (PyCFunction)rb_with_row_ranges, METH_O, "([(from, to)] | None) inclusive _ROW_ID ranges"},
	{"read_schema", (PyCFunction)rb_read_schema, METH_NOARGS, "-> PyCapsule 'arrow_schema'"},
	{"schema_id", (PyCFunction)rb_schema_id, METH_NOARGS, "-> id of the schema reads use"},
	{"plan", (PyCFunction)rb_plan, METH_NOARGS, "-> Plan"},
	{"read", (PyCFunction)rb_read, METH_O, "(splits) -> PyCapsule 'arrow_array_stream'"},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject RBType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "paimonc._native.ReadBuilder",
	.tp_basicsize = sizeof(RBObject),
	.tp_dealloc = (destructor)rb_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = rb_methods,
};

/*
 * read_builder_new(table, projection: list[str]|None, predicate: Predicate|None,
 *                  limit: int|None, options: dict|None) -> ReadBuilder
 */
static PyObject *mod_read_builder_new(PyObject *m, PyObject *args)
{
	PyObject *table, *proj, *pred, *limit_o, *opts_o, *fast = NULL;
	const char **cols = NULL;
	Py_ssize_t ncols = 0;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OOOOO:read_builder_new", &table, &proj, &pred, &limit_o, &opts_o))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL)
		return NULL;
	if (pred != Py_None && !PyObject_TypeCheck(pred, &PredType)) {
		PyErr_SetString(PyExc_TypeError, "predicate must be a native Predicate or None");
		return NULL;
	}
	if (opts_o != Py_None && !PyDict_Check(opts_o)) {
		PyErr_SetString(PyExc_TypeError, "read options must be a dict");
		return NULL;
	}
	long long limit = -1;
	if (limit_o != Py_None) {
		limit = PyLong_AsLongLong(limit_o);
		if (limit == -1 && PyErr_Occurred())
			return NULL;
	}
	RBObject *o = PyObject_New(RBObject, &RBType);
	if (o == NULL)
		return NULL;
	o->rb = NULL;
	o->table = table;
	Py_INCREF(table);
	o->lock = new_lock();
	if (o->lock == NULL)
		goto fail;
	CALL_NOGIL(rc = paimon_read_builder_new(&o->rb, t));
	if (rc != 0) {
		pm_py_raise_last(rc);
		goto fail;
	}
	/* options first: time travel decides the schema names resolve against */
	if (opts_o != Py_None) {
		PyObject *k, *v;
		Py_ssize_t pos = 0;
		while (PyDict_Next(opts_o, &pos, &k, &v)) {
			const char *ks, *vs;
			if (pm_py_as_cstr(k, "option key", &ks) < 0 || pm_py_as_cstr(v, "option value", &vs) < 0)
				goto fail;
			CALL_NOGIL(rc = paimon_read_builder_with_option(o->rb, ks, vs));
			if (rc != 0) {
				pm_py_raise_last(rc);
				goto fail;
			}
		}
	}
	if (proj != Py_None) {
		fast = PySequence_Fast(proj, "projection must be a sequence of str");
		if (fast == NULL)
			goto fail;
		ncols = PySequence_Fast_GET_SIZE(fast);
		cols = PyMem_Calloc((size_t)ncols + 1, sizeof *cols);
		if (cols == NULL) {
			PyErr_NoMemory();
			goto fail;
		}
		for (Py_ssize_t i = 0; i < ncols; i++)
			if (pm_py_as_cstr(PySequence_Fast_GET_ITEM(fast, i), "projected column", &cols[i]) < 0)
				goto fail;
		rc = paimon_read_builder_with_projection(o->rb, cols, (size_t)ncols);
		if (rc != 0) {
			pm_py_raise_last(rc);
			goto fail;
		}
	}
	if (pred != Py_None) {
		rc = paimon_read_builder_with_filter(o->rb, ((PredObject *)pred)->p);
		if (rc != 0) {
			pm_py_raise_last(rc);
			goto fail;
		}
	}
	if (limit_o != Py_None) {
		rc = paimon_read_builder_with_limit(o->rb, (int64_t)limit);
		if (rc != 0) {
			pm_py_raise_last(rc);
			goto fail;
		}
	}
	PyMem_Free(cols);
	Py_XDECREF(fast);
	return (PyObject *)o;
fail:
	PyMem_Free(cols);
	Py_XDECREF(fast);
	Py_DECREF(o);
	return NULL;
}

/* ==================================================================== module */

/* ============================================================== orphan files */

static PyObject *path_list(char **paths, size_t n)
{
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list != NULL && i < n; i++) {
		PyObject *str = PyUnicode_DecodeFSDefault(paths[i]);
		if (str == NULL) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, str);
	}
	paimon_string_list_free(paths, n);
	return list;
}

/* table_remove_orphan_files(table, older_than_ms: int, dry_run: bool)
 *   -> (list[str] paths, int bytes) */
static PyObject *mod_table_remove_orphan_files(PyObject *m, PyObject *args)
{
	PyObject *table;
	long long older = 0;
	int dry_run = 0, rc;
	char **paths = NULL;
	size_t n = 0;
	uint64_t bytes = 0;
	(void)m;
	if (!PyArg_ParseTuple(args, "OLp:table_remove_orphan_files", &table, &older, &dry_run))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL)
		return NULL;
	/* the table is only read (path, FileIO), as by writes and commits */
	CALL_NOGIL(rc = paimon_table_remove_orphan_files(t, (int64_t)older, dry_run, &paths, &n, &bytes));
	if (rc != 0)
		return pm_py_raise_last(rc);
	PyObject *list = path_list(paths, n);
	if (list == NULL)
		return NULL;
	return Py_BuildValue("(NK)", list, (unsigned long long)bytes);
}

/* table_expire_snapshots(table, options: dict|None, dry_run: bool)
 * -> (expired, [paths], bytes) */
static PyObject *mod_table_expire_snapshots(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o;
	paimon_options *opts = NULL;
	int dry_run = 0, rc;
	int64_t expired = 0;
	char **paths = NULL;
	size_t n = 0;
	uint64_t bytes = 0;
	(void)m;
	if (!PyArg_ParseTuple(args, "OOp:table_expire_snapshots", &table, &opts_o, &dry_run))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL || options_from(opts_o, "expire options", &opts) < 0)
		return NULL;
	CALL_NOGIL(rc = paimon_table_expire_snapshots(t, opts, dry_run, &expired, &paths, &n, &bytes));
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	PyObject *list = path_list(paths, n);
	if (list == NULL)
		return NULL;
	return Py_BuildValue("(LNK)", (long long)expired, list, (unsigned long long)bytes);
}

/* table_expire_partitions(table, options: dict|None, dry_run) -> [partition specs] */
static PyObject *mod_table_expire_partitions(PyObject *m, PyObject *args)
{
	PyObject *table, *opts_o;
	paimon_options *opts = NULL;
	int dry_run = 0, rc;
	char **parts = NULL;
	size_t n = 0;
	(void)m;
	if (!PyArg_ParseTuple(args, "OOp:table_expire_partitions", &table, &opts_o, &dry_run))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL || options_from(opts_o, "partition expiration options", &opts) < 0)
		return NULL;
	CALL_NOGIL(rc = paimon_table_expire_partitions(t, opts, dry_run, &parts, &n));
	paimon_options_free(opts);
	if (rc != 0)
		return pm_py_raise_last(rc);
	return path_list(parts, n);
}

/* table_rollback_to(table, snapshot_id, tag|None, dry_run) -> [paths] */
static PyObject *mod_table_rollback_to(PyObject *m, PyObject *args)
{
	PyObject *table;
	long long sid = 0;
	const char *tag = NULL;
	int dry_run = 0, rc;
	char **paths = NULL;
	size_t n = 0;
	(void)m;
	if (!PyArg_ParseTuple(args, "OLzp:table_rollback_to", &table, &sid, &tag, &dry_run))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL)
		return NULL;
	CALL_NOGIL(rc = paimon_table_rollback_to(t, (int64_t)sid, tag, dry_run, &paths, &n));
	if (rc != 0)
		return pm_py_raise_last(rc);
	return path_list(paths, n);
}

/* table_find_missing_files(table) -> [names] */
static PyObject *mod_table_find_missing_files(PyObject *m, PyObject *table)
{
	char **names = NULL;
	size_t n = 0;
	int rc;
	(void)m;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL)
		return NULL;
	CALL_NOGIL(rc = paimon_table_find_missing_files(t, &names, &n));
	if (rc != 0)
		return pm_py_raise_last(rc);
	return path_list(names, n);
}

/* table_plan_row_id_ranges(table, rows_per_batch, snapshot_id) ->
 * (snapshot_id, [[(from, to), ...] per batch]) - inclusive ranges. */
static PyObject *mod_table_plan_row_id_ranges(PyObject *m, PyObject *args)
{
	PyObject *table;
	long long rows = 0, snap = -1;
	paimon_row_id_plan *p = NULL;
	int rc;
	(void)m;
	if (!PyArg_ParseTuple(args, "OLL:table_plan_row_id_ranges", &table, &rows, &snap))
		return NULL;
	paimon_table *t = pm_py_table_handle(table);
	if (t == NULL)
		return NULL;
	CALL_NOGIL(rc = paimon_table_plan_row_id_ranges(t, (int64_t)snap, (int64_t)rows, &p));
	if (rc != 0)
		return pm_py_raise_last(rc);
	size_t nb = paimon_row_id_plan_batch_count(p);
	PyObject *batches = PyList_New((Py_ssize_t)nb);
	for (size_t b = 0; batches != NULL && b < nb; b++) {
		const int64_t *pairs;
		size_t n = paimon_row_id_plan_batch(p, b, &pairs);
		PyObject *one = PyList_New((Py_ssize_t)n);
		for (size_t k = 0; one != NULL && k < n; k++) {
			PyObject *pr = Py_BuildValue("(LL)", (long long)pairs[2 * k], (long long)pairs[2 * k + 1]);
			if (pr == NULL) {
				Py_CLEAR(one);
				break;
			}
			PyList_SET_ITEM(one, (Py_ssize_t)k, pr);
		}
		if (one == NULL) {
			Py_CLEAR(batches);
			break;
		}
		PyList_SET_ITEM(batches, (Py_ssize_t)b, one);
	}
	long long sid = (long long)paimon_row_id_plan_snapshot_id(p);
	paimon_row_id_plan_free(p);
	if (batches == NULL)
		return NULL;
	return Py_BuildValue("(LN)", sid, batches);
}

static PyMethodDef table_api_methods[] = {
	{"table_write_new", mod_table_write_new, METH_VARARGS, "(table, options|None) -> TableWrite"},
	{"table_commit_new", mod_table_commit_new, METH_VARARGS, "(table, options|None) -> TableCommit"},
	{"table_remove_orphan_files", mod_table_remove_orphan_files, METH_VARARGS,
	 "(table, older_than_ms, dry_run) -> (paths, bytes)"},
	{"table_expire_partitions", mod_table_expire_partitions, METH_VARARGS,
	 "Expire partitions as Java's PartitionExpire (paimonc/table.h)."},
	{"table_expire_snapshots", mod_table_expire_snapshots, METH_VARARGS,
	 "(table, options|None, dry_run) -> (expired, paths, bytes)"},
	{"table_find_missing_files", mod_table_find_missing_files, METH_O, "(table) -> [file names]"},
	{"table_rollback_to", mod_table_rollback_to, METH_VARARGS, "(table, snapshot_id, tag|None, dry_run) -> [paths]"},
	{"commit_message_deserialize", mod_message_deserialize, METH_O, "(bytes) -> CommitMessage"},
	{"predicate_build", mod_predicate_build, METH_O, "(tuple tree) -> Predicate"},
	{"predicate_parse", mod_predicate_parse, METH_O, "(SQL-like text) -> Predicate"},
	{"predicate_deserialize", mod_predicate_deserialize, METH_O, "(bytes) -> Predicate"},
	{"split_deserialize", mod_split_deserialize, METH_O, "(bytes) -> Split"},
	{"read_builder_new", mod_read_builder_new, METH_VARARGS,
	 "(table, projection|None, predicate|None, limit|None, options|None) -> ReadBuilder"},
	{"table_plan_row_id_ranges", mod_table_plan_row_id_ranges, METH_VARARGS,
	 "(table, rows_per_batch, snapshot_id|-1) -> (snapshot_id, [[(from, to)] per batch])"},
	{NULL, NULL, 0, NULL},
};

int pm_py_add_table_api(PyObject *m)
{
	static PyTypeObject *types[] = {&MessageType, &WriteType, &CommitType, &PredType,
					&SplitType,   &RBType,    &PlanType};
	static const char *names[] = {"CommitMessage", "TableWrite", "TableCommit", "Predicate",
				      "Split",         "ReadBuilder", "Plan"};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		if (PyType_Ready(types[i]) < 0)
			return -1;
		Py_INCREF(types[i]);
		if (PyModule_AddObject(m, names[i], (PyObject *)types[i]) < 0) {
			Py_DECREF(types[i]);
			return -1;
		}
	}
	return PyModule_AddFunctions(m, table_api_methods);
}

/* _native.h: the paimon_predicate of a native Predicate (borrowed), NULL
 * with TypeError otherwise. */
paimon_predicate *pm_py_predicate_handle(PyObject *o)
{
	if (!PyObject_TypeCheck(o, &PredType)) {
		PyErr_SetString(PyExc_TypeError, "expected a native Predicate");
		return NULL;
	}
	return ((PredObject *)o)->p;
}
