/*
 * silt_module.c - silt._silt, the C extension under the Python package
 * (docs/python.md). Stable ABI only (Py_LIMITED_API, an abi3 wheel).
 *
 * It is thin on purpose: a database, a connection, prepared statements and
 * result streams over the public C API, rows converted from Arrow batches,
 * and the Arrow PyCapsule export (the engine's own stream, forwarded
 * without copying a buffer). Everything else is Python in python/silt/.
 *
 * Threads: a silt_conn is used by one thread at a time (docs/api.md), so
 * each Connection has a lock held around every call into the engine, which
 * runs with the GIL released. Ctrl-C: while the main thread waits in the
 * engine, SIGINT calls silt_conn_interrupt (the only thing the handler
 * does, and the API allows it from a signal handler) and the call then
 * raises KeyboardInterrupt.
 */
#include <Python.h>

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "silt.h"

/* Set once by silt/_native.py at import (set_hooks): callables the rows and errors need. */
static PyObject *g_error_factory; /* (status, class, message, text) -> exception instance */
static PyObject *g_date_fn;       /* days since 1970-01-01 -> datetime.date */
static PyObject *g_ts_fn;         /* micros since the epoch, UTC -> datetime */
static PyObject *g_ntz_fn;        /* micros, no time zone -> naive datetime */
static PyObject *g_decimal_fn;    /* "123.45" -> decimal.Decimal */
static unsigned long g_main_thread;

static PyObject *new_ref(PyObject *o)
{
    Py_INCREF(o);
    return o;
}

static void set_ref(PyObject **slot, PyObject *o)
{
    PyObject *old = *slot;
    *slot = new_ref(o);
    Py_XDECREF(old);
}

/* ---- errors ------------------------------------------------------------------- */

static PyObject *raise_parts(silt_status st, const char *cls, const char *msg, const char *text)
{
    if (g_error_factory == NULL) {
        PyErr_SetString(PyExc_RuntimeError, text);
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(g_error_factory, "ssss", silt_status_name(st), cls,
                                          msg, text);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

static PyObject *raise_conn(silt_conn *conn, silt_status st)
{
    return raise_parts(st, silt_conn_error_class(conn), silt_conn_error_message(conn),
                       silt_conn_errmsg(conn));
}

/* ---- Ctrl-C ------------------------------------------------------------------- */

static silt_conn *volatile g_sig_conn;
static volatile sig_atomic_t g_sig_hit;

static void on_sigint(int sig)
{
    (void)sig;
    g_sig_hit = 1;
    silt_conn *c = g_sig_conn;
    if (c != NULL)
        silt_conn_interrupt(c);
}

typedef struct sig_guard {
    int active;
    struct sigaction old;
} sig_guard;

/* Called with the GIL held. Only the main thread takes SIGINT over, and only
 * when Python handles it (not when the program ignores it). */
static void guard_begin(sig_guard *g, silt_conn *conn)
{
    g->active = 0;
    if (PyThread_get_thread_ident() != g_main_thread || g_sig_conn != NULL)
        return;
    struct sigaction now;
    if (sigaction(SIGINT, NULL, &now) != 0 || now.sa_handler == SIG_IGN)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    g_sig_hit = 0;
    g_sig_conn = conn;
    if (sigaction(SIGINT, &sa, &g->old) != 0) {
        g_sig_conn = NULL;
        return;
    }
    g->active = 1;
}

/* Returns 1 when SIGINT came during the call (KeyboardInterrupt is then set). */
static int guard_end(sig_guard *g)
{
    if (!g->active)
        return 0;
    sigaction(SIGINT, &g->old, NULL);
    g_sig_conn = NULL;
    if (!g_sig_hit)
        return 0;
    g_sig_hit = 0;
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    return 1;
}

/* ---- Database ----------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    silt_db *db;
} DbObject;

static PyObject *g_db_type, *g_conn_type, *g_stream_type, *g_stmt_type;

static int db_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    DbObject *self = (DbObject *)self_;
    static char *names[] = {"warehouse", "threads", NULL};
    const char *warehouse = NULL;
    int threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zi", names, &warehouse, &threads))
        return -1;
    if (self->db != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Database already open");
        return -1;
    }
    if (threads < 0) {
        PyErr_SetString(PyExc_ValueError, "threads must be 0 or more");
        return -1;
    }
    silt_db_options o = SILT_DB_OPTIONS_INIT;
    o.n_threads = threads;
    silt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = silt_db_open(&self->db, warehouse, &o);
    Py_END_ALLOW_THREADS
    if (st != SILT_OK) {
        if (self->db == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        raise_parts(st, silt_db_error_class(self->db), silt_db_error_message(self->db),
                    silt_db_errmsg(self->db));
        silt_db_close(self->db);
        self->db = NULL;
        return -1;
    }
    return 0;
}

static void db_dealloc(PyObject *self_)
{
    DbObject *self = (DbObject *)self_;
    PyTypeObject *tp = Py_TYPE(self_);
    silt_db_close(self->db);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self_);
    Py_DECREF(tp);
}

static PyType_Slot db_slots[] = {
    {Py_tp_init, (void *)db_init},
    {Py_tp_dealloc, (void *)db_dealloc},
    {Py_tp_doc, (void *)"An open warehouse (silt_db)."},
    {0, NULL}};
static PyType_Spec db_spec = {"silt._silt.Database", sizeof(DbObject), 0, Py_TPFLAGS_DEFAULT,
                              db_slots};

/* ---- Connection --------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    silt_conn *conn;
    PyObject *db; /* keeps the silt_db open while the connection lives */
    PyThread_type_lock lock;
    int closed; /* close() was called; the handle goes when the last stream does */
} ConnObject;

static int conn_usable(ConnObject *c)
{
    if (c->conn == NULL || c->closed) {
        raise_parts(SILT_INVALID, "", "the connection is closed", "the connection is closed");
        return 0;
    }
    return 1;
}

static int conn_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    ConnObject *self = (ConnObject *)self_;
    PyObject *db;
    if (!PyArg_ParseTuple(args, "O!", (PyTypeObject *)g_db_type, &db))
        return -1;
    if (self->conn != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Connection already open");
        return -1;
    }
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    silt_status st = silt_conn_open(&self->conn, ((DbObject *)db)->db);
    if (st != SILT_OK) {
        silt_db *d = ((DbObject *)db)->db;
        raise_parts(st, silt_db_error_class(d), silt_db_error_message(d), silt_db_errmsg(d));
        return -1;
    }
    Py_INCREF(db);
    self->db = db;
    return 0;
}

static void conn_dealloc(PyObject *self_)
{
    ConnObject *self = (ConnObject *)self_;
    PyTypeObject *tp = Py_TYPE(self_);
    silt_conn_close(self->conn);
    if (self->lock != NULL)
        PyThread_free_lock(self->lock);
    Py_XDECREF(self->db);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self_);
    Py_DECREF(tp);
}

static void conn_lock(ConnObject *c) { PyThread_acquire_lock(c->lock, WAIT_LOCK); }

/* The lock taken by a thread that holds the GIL: it waits without the GIL,
 * since the holder of the lock may need the GIL (a format callback) first. */
static void conn_lock_gil(ConnObject *c)
{
    if (PyThread_acquire_lock(c->lock, NOWAIT_LOCK))
        return;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(c->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}
static void conn_unlock(ConnObject *c) { PyThread_release_lock(c->lock); }

/* ---- Arrow types and rows ----------------------------------------------------- */

/* A column's type, parsed once from its ArrowSchema format. */
typedef struct ctype {
    char kind; /* n b c s i l f g d u z D T N S L M */
    int precision, scale;
    int64_t n_children;
    struct ctype *children;
    PyObject *name; /* the field name (str) */
} ctype;

static void ctype_free(ctype *t)
{
    if (t == NULL)
        return;
    for (int64_t i = 0; i < t->n_children; i++) {
        ctype_free(&t->children[i]);
    }
    PyMem_Free(t->children);
    t->children = NULL;
    Py_CLEAR(t->name);
}

static int ctype_parse(ctype *t, const struct ArrowSchema *s)
{
    memset(t, 0, sizeof *t);
    const char *f = s->format;
    t->name = PyUnicode_FromString(s->name != NULL ? s->name : "");
    if (t->name == NULL)
        return -1;
    if (strlen(f) == 1 && strchr("nbcsilfguz", f[0]) != NULL)
        t->kind = f[0];
    else if (strncmp(f, "d:", 2) == 0) {
        t->kind = 'd';
        if (sscanf(f, "d:%d,%d", &t->precision, &t->scale) != 2) {
            PyErr_Format(PyExc_TypeError, "silt: bad decimal format \"%s\"", f);
            return -1;
        }
    } else if (strcmp(f, "tdD") == 0)
        t->kind = 'D';
    else if (strncmp(f, "tsu:", 4) == 0)
        t->kind = f[4] == '\0' ? 'N' : 'T';
    else if (strcmp(f, "+s") == 0)
        t->kind = 'S';
    else if (strcmp(f, "+l") == 0)
        t->kind = 'L';
    else if (strcmp(f, "+m") == 0)
        t->kind = 'M';
    else {
        PyErr_Format(PyExc_TypeError, "silt: unexpected Arrow format \"%s\" in a result", f);
        return -1;
    }
    if (s->n_children > 0) {
        t->children = PyMem_Calloc((size_t)s->n_children, sizeof(ctype));
        if (t->children == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->n_children = s->n_children;
        for (int64_t i = 0; i < s->n_children; i++) {
            if (ctype_parse(&t->children[i], s->children[i]) != 0)
                return -1;
        }
    }
    return 0;
}

static int bit_at(const void *bits, int64_t i)
{
    return (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1;
}

/* An unscaled 128-bit two's complement value (little endian) as "-123.45". */
static PyObject *decimal_value(const uint8_t *p, int scale)
{
    uint64_t lo, hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    int neg = (hi >> 63) != 0;
    if (neg) { /* negate: invert and add one */
        lo = ~lo;
        hi = ~hi;
        lo += 1;
        if (lo == 0)
            hi += 1;
    }
    char digits[64];
    int n = 0;
    /* Divide the 128-bit magnitude by 10 until zero, using 32-bit limbs. */
    uint32_t limb[4] = {(uint32_t)(hi >> 32), (uint32_t)hi, (uint32_t)(lo >> 32), (uint32_t)lo};
    for (;;) {
        uint64_t rem = 0;
        int nonzero = 0;
        for (int k = 0; k < 4; k++) {
            uint64_t cur = (rem << 32) | limb[k];
            limb[k] = (uint32_t)(cur / 10);
            rem = cur % 10;
            nonzero |= limb[k] != 0;
        }
        digits[n++] = (char)('0' + rem);
        if (!nonzero)
            break;
    }
    while (n <= scale)
        digits[n++] = '0';
    char text[80];
    int w = 0;
    if (neg)
        text[w++] = '-';
    for (int k = n - 1; k >= 0; k--) {
        text[w++] = digits[k];
        if (k == scale && scale > 0)
            text[w++] = '.';
    }
    text[w] = '\0';
    return PyObject_CallFunction(g_decimal_fn, "s", text);
}

static PyObject *value_at(const ctype *t, const struct ArrowArray *a, int64_t i);

static PyObject *list_value(const ctype *t, const struct ArrowArray *a, int64_t j)
{
    const int32_t *off = a->buffers[1];
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (int32_t k = off[j]; k < off[j + 1]; k++) {
        PyObject *v = value_at(&t->children[0], a->children[0], k);
        if (v == NULL || PyList_Append(out, v) != 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(v);
    }
    return out;
}

static PyObject *map_value(const ctype *t, const struct ArrowArray *a, int64_t j)
{
    const int32_t *off = a->buffers[1];
    const ctype *entry = &t->children[0];
    const struct ArrowArray *ea = a->children[0];
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    for (int32_t k = off[j]; k < off[j + 1]; k++) {
        int64_t e = k + ea->offset;
        PyObject *key = value_at(&entry->children[0], ea->children[0], e);
        PyObject *val = key != NULL ? value_at(&entry->children[1], ea->children[1], e) : NULL;
        if (val == NULL || PyDict_SetItem(out, key, val) != 0) {
            Py_XDECREF(key);
            Py_XDECREF(val);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(key);
        Py_DECREF(val);
    }
    return out;
}

static PyObject *struct_value(const ctype *t, const struct ArrowArray *a, int64_t j)
{
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    for (int64_t k = 0; k < t->n_children; k++) {
        PyObject *v = value_at(&t->children[k], a->children[k], j);
        if (v == NULL || PyDict_SetItem(out, t->children[k].name, v) != 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(v);
    }
    return out;
}

/* The value at logical index i of a (a's own offset is added here). */
static PyObject *value_at(const ctype *t, const struct ArrowArray *a, int64_t i)
{
    int64_t j = i + a->offset;
    if (t->kind == 'n' || (a->null_count != 0 && a->buffers[0] != NULL && !bit_at(a->buffers[0], j)))
        Py_RETURN_NONE;
    const void *b = a->n_buffers > 1 ? a->buffers[1] : NULL;
    switch (t->kind) {
    case 'b': return PyBool_FromLong(bit_at(b, j));
    case 'c': return PyLong_FromLong(((const int8_t *)b)[j]);
    case 's': return PyLong_FromLong(((const int16_t *)b)[j]);
    case 'i': return PyLong_FromLong(((const int32_t *)b)[j]);
    case 'l': return PyLong_FromLongLong(((const int64_t *)b)[j]);
    case 'f': return PyFloat_FromDouble(((const float *)b)[j]);
    case 'g': return PyFloat_FromDouble(((const double *)b)[j]);
    case 'd': return decimal_value((const uint8_t *)b + 16 * j, t->scale);
    case 'u':
    case 'z': {
        const int32_t *off = b;
        const char *data = a->buffers[2];
        if (t->kind == 'u')
            return PyUnicode_DecodeUTF8(data + off[j], off[j + 1] - off[j], "surrogateescape");
        return PyBytes_FromStringAndSize(data + off[j], off[j + 1] - off[j]);
    }
    case 'D': return PyObject_CallFunction(g_date_fn, "i", ((const int32_t *)b)[j]);
    case 'T': return PyObject_CallFunction(g_ts_fn, "L", (long long)((const int64_t *)b)[j]);
    case 'N': return PyObject_CallFunction(g_ntz_fn, "L", (long long)((const int64_t *)b)[j]);
    case 'S': return struct_value(t, a, j);
    case 'L': return list_value(t, a, j);
    case 'M': return map_value(t, a, j);
    default: break;
    }
    PyErr_SetString(PyExc_TypeError, "silt: unexpected column kind");
    return NULL;
}

/* ---- Stream: one result ------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    ConnObject *conn;
    struct ArrowArrayStream stream; /* release NULL once exported or finished */
    ctype type;                     /* the row struct; kind 0 until parsed */
    struct ArrowArray batch;        /* the batch rows are read from (release NULL: none) */
    int64_t pos;                    /* next row of batch */
    int started;                    /* a batch was pulled: the stream can no longer be exported */
} StreamObject;

static PyObject *stream_new(ConnObject *conn, struct ArrowArrayStream *s)
{
    StreamObject *o = PyObject_New(StreamObject, (PyTypeObject *)g_stream_type);
    if (o == NULL) {
        s->release(s);
        return NULL;
    }
    Py_INCREF(conn);
    o->conn = conn;
    o->stream = *s;
    s->release = NULL;
    memset(&o->type, 0, sizeof o->type);
    memset(&o->batch, 0, sizeof o->batch);
    o->pos = 0;
    o->started = 0;
    return (PyObject *)o;
}

static void stream_finish(StreamObject *o)
{
    if (o->batch.release != NULL)
        o->batch.release(&o->batch);
    if (o->stream.release != NULL) {
        conn_lock_gil(o->conn);
        o->stream.release(&o->stream);
        conn_unlock(o->conn);
    }
}

static void stream_dealloc(PyObject *self_)
{
    StreamObject *o = (StreamObject *)self_;
    PyTypeObject *tp = Py_TYPE(self_);
    stream_finish(o);
    ctype_free(&o->type);
    Py_XDECREF(o->conn);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self_);
    Py_DECREF(tp);
}

/* A failure while rows are pulled: the stream gives its text only, so the
 * error class is read from its "[CLASS]" prefix and the status follows from
 * it: a classed error there is a run-time error on the data (Spark's ANSI
 * errors), cancellation and memory have their own; one without a class is
 * the store's (SILT_IO). */
static PyObject *stream_error(StreamObject *o, int rc)
{
    const char *why = o->stream.get_last_error != NULL ? o->stream.get_last_error(&o->stream) : NULL;
    if (why == NULL)
        why = "the result stream failed";
    char cls[128] = "";
    const char *end = why[0] == '[' ? strchr(why, ']') : NULL;
    if (end != NULL && (size_t)(end - why - 1) < sizeof cls) {
        memcpy(cls, why + 1, (size_t)(end - why - 1));
        cls[end - why - 1] = '\0';
    }
    silt_status st = cls[0] ? SILT_RUNTIME : SILT_IO;
    if (rc == 12 || strcmp(cls, "OUT_OF_MEMORY") == 0)
        st = SILT_NOMEM;
    else if (strcmp(cls, "OPERATION_CANCELED") == 0)
        st = SILT_INTERRUPTED;
    const char *nl = strchr(why, '\n');
    PyObject *first = PyUnicode_FromStringAndSize(why, nl != NULL ? nl - why : (Py_ssize_t)strlen(why));
    if (first == NULL)
        return NULL;
    PyObject *exc = PyObject_CallFunction(g_error_factory, "ssOs", silt_status_name(st), cls, first,
                                          why);
    Py_DECREF(first);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

static int stream_parse_schema(StreamObject *o)
{
    if (o->type.kind != 0)
        return 0;
    if (o->stream.release == NULL) {
        raise_parts(SILT_INVALID, "", "the result was already consumed",
                    "the result was already consumed");
        return -1;
    }
    struct ArrowSchema s;
    memset(&s, 0, sizeof s);
    int rc = o->stream.get_schema(&o->stream, &s);
    if (rc != 0) {
        stream_error(o, rc);
        return -1;
    }
    int err = ctype_parse(&o->type, &s);
    s.release(&s);
    if (err != 0) {
        ctype_free(&o->type);
        o->type.kind = 0;
    }
    return err;
}

/* Describes a type for Python: (name, kind, precision, scale, children). */
static PyObject *describe(const ctype *t)
{
    PyObject *kids = PyList_New(0);
    if (kids == NULL)
        return NULL;
    for (int64_t i = 0; i < t->n_children; i++) {
        PyObject *k = describe(&t->children[i]);
        if (k == NULL || PyList_Append(kids, k) != 0) {
            Py_XDECREF(k);
            Py_DECREF(kids);
            return NULL;
        }
        Py_DECREF(k);
    }
    char kind[2] = {t->kind, '\0'};
    PyObject *out = Py_BuildValue("(OsiiN)", t->name, kind, t->precision, t->scale, kids);
    return out;
}

static PyObject *stream_schema(PyObject *self_, PyObject *unused)
{
    StreamObject *o = (StreamObject *)self_;
    if (stream_parse_schema(o) != 0)
        return NULL;
    return describe(&o->type);
}

/* Pulls the next batch into o->batch; 0 = got one, 1 = end, -1 = error set. */
static int stream_pull(StreamObject *o)
{
    if (o->batch.release != NULL)
        o->batch.release(&o->batch);
    o->pos = 0;
    o->started = 1;
    if (o->stream.release == NULL)
        return 1;
    int rc;
    sig_guard g;
    guard_begin(&g, o->conn->conn);
    Py_BEGIN_ALLOW_THREADS
    conn_lock(o->conn);
    rc = o->stream.get_next(&o->stream, &o->batch);
    conn_unlock(o->conn);
    Py_END_ALLOW_THREADS
    int interrupted = guard_end(&g);
    if (interrupted || rc != 0) {
        if (!interrupted)
            stream_error(o, rc);
        if (o->batch.release != NULL)
            o->batch.release(&o->batch);
        stream_finish(o);
        return -1;
    }
    if (o->batch.release == NULL) {
        stream_finish(o);
        return 1;
    }
    return 0;
}

/* fetch(n): up to n rows (n < 0: all) as a list of tuples. */
static PyObject *stream_fetch(PyObject *self_, PyObject *args)
{
    StreamObject *o = (StreamObject *)self_;
    long long n = -1;
    if (!PyArg_ParseTuple(args, "|L", &n))
        return NULL;
    if (stream_parse_schema(o) != 0 && o->type.kind == 0) {
        if (o->started) { /* consumed to its end already: no more rows */
            PyErr_Clear();
            return PyList_New(0);
        }
        return NULL;
    }
    PyObject *rows = PyList_New(0);
    if (rows == NULL)
        return NULL;
    while (n < 0 || PyList_Size(rows) < n) {
        if (o->batch.release == NULL || o->pos >= o->batch.length) {
            int r = stream_pull(o);
            if (r < 0) {
                Py_DECREF(rows);
                return NULL;
            }
            if (r == 1)
                break;
            continue;
        }
        const struct ArrowArray *b = &o->batch;
        int64_t ncol = o->type.n_children;
        PyObject *row = PyTuple_New((Py_ssize_t)ncol);
        if (row == NULL) {
            Py_DECREF(rows);
            return NULL;
        }
        for (int64_t c = 0; c < ncol; c++) {
            PyObject *v = value_at(&o->type.children[c], b->children[c], o->pos + b->offset);
            if (v == NULL) {
                Py_DECREF(row);
                Py_DECREF(rows);
                return NULL;
            }
            PyTuple_SetItem(row, (Py_ssize_t)c, v);
        }
        o->pos++;
        int err = PyList_Append(rows, row);
        Py_DECREF(row);
        if (err != 0) {
            Py_DECREF(rows);
            return NULL;
        }
    }
    return rows;
}

/* ---- the PyCapsule export: silt's stream behind a thin forwarder --------------- */

/* The forwarder holds the connection alive (and locked around each call)
 * while a consumer reads; the arrays it hands over are silt's own. */
typedef struct fwd {
    struct ArrowArrayStream inner;
    ConnObject *conn;
} fwd;

static int fwd_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    fwd *f = s->private_data;
    conn_lock(f->conn);
    int rc = f->inner.get_schema(&f->inner, out);
    conn_unlock(f->conn);
    return rc;
}

static int fwd_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    fwd *f = s->private_data;
    conn_lock(f->conn);
    int rc = f->inner.get_next(&f->inner, out);
    conn_unlock(f->conn);
    return rc;
}

static const char *fwd_get_last_error(struct ArrowArrayStream *s)
{
    fwd *f = s->private_data;
    return f->inner.get_last_error != NULL ? f->inner.get_last_error(&f->inner) : NULL;
}

static void fwd_release(struct ArrowArrayStream *s)
{
    fwd *f = s->private_data;
    conn_lock(f->conn);
    if (f->inner.release != NULL)
        f->inner.release(&f->inner);
    conn_unlock(f->conn);
    PyGILState_STATE gs = PyGILState_Ensure();
    Py_DECREF(f->conn);
    PyGILState_Release(gs);
    free(f);
    s->release = NULL;
}

static void capsule_free(PyObject *cap)
{
    struct ArrowArrayStream *s = PyCapsule_GetPointer(cap, "arrow_array_stream");
    if (s == NULL) {
        PyErr_Clear();
        return;
    }
    if (s->release != NULL)
        s->release(s);
    free(s);
}

static PyObject *stream_export(PyObject *self_, PyObject *args, PyObject *kw)
{
    StreamObject *o = (StreamObject *)self_;
    static char *names[] = {"requested_schema", NULL};
    PyObject *requested = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", names, &requested))
        return NULL;
    if (o->started || o->stream.release == NULL)
        return raise_parts(SILT_INVALID, "", "the result was already read; run the query again",
                           "the result was already read; run the query again");
    struct ArrowArrayStream *s = malloc(sizeof *s);
    fwd *f = malloc(sizeof *f);
    if (s == NULL || f == NULL) {
        free(s);
        free(f);
        return PyErr_NoMemory();
    }
    f->inner = o->stream;
    o->stream.release = NULL;
    o->started = 1;
    Py_INCREF(o->conn);
    f->conn = o->conn;
    s->get_schema = fwd_get_schema;
    s->get_next = fwd_get_next;
    s->get_last_error = fwd_get_last_error;
    s->release = fwd_release;
    s->private_data = f;
    PyObject *cap = PyCapsule_New(s, "arrow_array_stream", capsule_free);
    if (cap == NULL) {
        s->release(s);
        free(s);
    }
    return cap;
}

static PyMethodDef stream_methods[] = {
    {"schema", stream_schema, METH_NOARGS, "The result's type: (name, kind, precision, scale, children)."},
    {"fetch", stream_fetch, METH_VARARGS, "fetch(n=-1): up to n rows (all when n < 0)."},
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))stream_export,
     METH_VARARGS | METH_KEYWORDS, "The Arrow PyCapsule stream (once; moves the result)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot stream_slots[] = {
    {Py_tp_dealloc, (void *)stream_dealloc},
    {Py_tp_methods, stream_methods},
    {Py_tp_doc, (void *)"The result of a statement (an Arrow C stream)."},
    {0, NULL}};
static PyType_Spec stream_spec = {"silt._silt.Stream", sizeof(StreamObject), 0,
                                  Py_TPFLAGS_DEFAULT, stream_slots};

/* ---- Connection methods ------------------------------------------------------- */

static PyObject *conn_exec(PyObject *self_, PyObject *args)
{
    ConnObject *self = (ConnObject *)self_;
    const char *sql;
    if (!PyArg_ParseTuple(args, "s", &sql) || !conn_usable(self))
        return NULL;
    struct ArrowArrayStream s;
    memset(&s, 0, sizeof s);
    silt_status st;
    sig_guard g;
    guard_begin(&g, self->conn);
    Py_BEGIN_ALLOW_THREADS
    conn_lock(self);
    st = silt_conn_exec(self->conn, sql, &s);
    conn_unlock(self);
    Py_END_ALLOW_THREADS
    if (guard_end(&g)) {
        if (st == SILT_OK)
            s.release(&s);
        return NULL;
    }
    if (st != SILT_OK)
        return raise_conn(self->conn, st);
    return stream_new(self, &s);
}

typedef struct text_sink {
    PyObject *fn; /* called with each piece (str); an exception stops the call */
    int failed;
} text_sink;

static int sink_write(void *payload, const char *text, size_t len)
{
    text_sink *k = payload;
    PyGILState_STATE gs = PyGILState_Ensure();
    PyObject *piece = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "surrogateescape");
    PyObject *r = piece != NULL ? PyObject_CallFunctionObjArgs(k->fn, piece, NULL) : NULL;
    Py_XDECREF(piece);
    Py_XDECREF(r);
    if (r == NULL)
        k->failed = 1;
    PyGILState_Release(gs);
    return r == NULL;
}

/* format(sql, fn, max_rows=20, truncate=20, vertical=False): Spark's show() text into fn. */
static PyObject *conn_format(PyObject *self_, PyObject *args)
{
    ConnObject *self = (ConnObject *)self_;
    const char *sql;
    PyObject *fn;
    long long max_rows = 20;
    int truncate = 20, vertical = 0;
    if (!PyArg_ParseTuple(args, "sO|Lip", &sql, &fn, &max_rows, &truncate, &vertical) ||
        !conn_usable(self))
        return NULL;
    silt_output_options o = SILT_OUTPUT_OPTIONS_INIT;
    o.format = vertical ? SILT_OUTPUT_VERTICAL : SILT_OUTPUT_TABLE;
    o.max_rows = max_rows;
    o.truncate = truncate;
    text_sink k = {fn, 0};
    silt_status st;
    sig_guard g;
    guard_begin(&g, self->conn);
    Py_BEGIN_ALLOW_THREADS
    conn_lock(self);
    st = silt_conn_format(self->conn, sql, &o, sink_write, &k);
    conn_unlock(self);
    Py_END_ALLOW_THREADS
    if (guard_end(&g))
        return NULL;
    if (k.failed)
        return NULL;
    if (st != SILT_OK)
        return raise_conn(self->conn, st);
    Py_RETURN_NONE;
}

static PyObject *conn_register(PyObject *self_, PyObject *args)
{
    ConnObject *self = (ConnObject *)self_;
    const char *name;
    PyObject *cap;
    if (!PyArg_ParseTuple(args, "sO", &name, &cap) || !conn_usable(self))
        return NULL;
    struct ArrowArrayStream *s;
    if (PyObject_TypeCheck(cap, (PyTypeObject *)g_stream_type)) {
        /* A result of this connection read by another statement on it
         * (Relation.show): the engine's stream itself, since the exported
         * forwarder would take the connection's lock the statement holds. */
        StreamObject *o = (StreamObject *)cap;
        if (o->conn != self || o->started || o->stream.release == NULL)
            return raise_parts(SILT_INVALID, "", "the result was already read or is another "
                               "connection's", "the result was already read or is another "
                               "connection's");
        o->started = 1;
        s = &o->stream;
    } else {
        s = PyCapsule_GetPointer(cap, "arrow_array_stream");
        if (s == NULL)
            return NULL;
    }
    silt_status st;
    Py_BEGIN_ALLOW_THREADS
    conn_lock(self);
    st = silt_conn_register_arrow(self->conn, name, s);
    conn_unlock(self);
    Py_END_ALLOW_THREADS
    if (st != SILT_OK)
        return raise_conn(self->conn, st);
    Py_RETURN_NONE;
}

static PyObject *conn_unregister(PyObject *self_, PyObject *args)
{
    ConnObject *self = (ConnObject *)self_;
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name) || !conn_usable(self))
        return NULL;
    conn_lock_gil(self);
    silt_status st = silt_conn_unregister(self->conn, name);
    conn_unlock(self);
    if (st != SILT_OK)
        return raise_conn(self->conn, st);
    Py_RETURN_NONE;
}

static PyObject *conn_interrupt(PyObject *self_, PyObject *unused)
{
    ConnObject *self = (ConnObject *)self_;
    if (self->conn != NULL)
        silt_conn_interrupt(self->conn); /* no lock: callable while a statement runs */
    Py_RETURN_NONE;
}

static PyObject *conn_close(PyObject *self_, PyObject *unused)
{
    ((ConnObject *)self_)->closed = 1;
    Py_RETURN_NONE;
}

/* ---- Statement ---------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    ConnObject *conn;
    silt_stmt *stmt;
} StmtObject;

static PyObject *conn_prepare(PyObject *self_, PyObject *args)
{
    ConnObject *self = (ConnObject *)self_;
    const char *sql;
    if (!PyArg_ParseTuple(args, "s", &sql) || !conn_usable(self))
        return NULL;
    silt_stmt *stmt = NULL;
    silt_status st;
    Py_BEGIN_ALLOW_THREADS
    conn_lock(self);
    st = silt_stmt_prepare(self->conn, sql, &stmt);
    conn_unlock(self);
    Py_END_ALLOW_THREADS
    if (st != SILT_OK)
        return raise_conn(self->conn, st);
    StmtObject *o = PyObject_New(StmtObject, (PyTypeObject *)g_stmt_type);
    if (o == NULL) {
        silt_stmt_finalize(stmt);
        return NULL;
    }
    Py_INCREF(self);
    o->conn = self;
    o->stmt = stmt;
    return (PyObject *)o;
}

static void stmt_dealloc(PyObject *self_)
{
    StmtObject *o = (StmtObject *)self_;
    PyTypeObject *tp = Py_TYPE(self_);
    if (o->stmt != NULL && o->conn->conn != NULL) {
        conn_lock_gil(o->conn);
        silt_stmt_finalize(o->stmt);
        conn_unlock(o->conn);
    }
    Py_XDECREF(o->conn);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self_);
    Py_DECREF(tp);
}

static PyObject *stmt_param_names(PyObject *self_, PyObject *unused)
{
    StmtObject *o = (StmtObject *)self_;
    int n = silt_stmt_param_count(o->stmt);
    PyObject *out = PyList_New(0);
    for (int i = 1; out != NULL && i <= n; i++) {
        const char *name = silt_stmt_param_name(o->stmt, i);
        PyObject *v = name != NULL ? PyUnicode_FromString(name) : new_ref(Py_None);
        if (v == NULL || PyList_Append(out, v) != 0)
            Py_CLEAR(out);
        Py_XDECREF(v);
    }
    return out;
}

/* bind(index, kind, value): kind is one of "null bool int float str bytes date timestamp". */
static PyObject *stmt_bind(PyObject *self_, PyObject *args)
{
    StmtObject *o = (StmtObject *)self_;
    int index;
    const char *kind;
    PyObject *v;
    if (!PyArg_ParseTuple(args, "isO", &index, &kind, &v) || !conn_usable(o->conn))
        return NULL;
    silt_status st;
    if (strcmp(kind, "null") == 0)
        st = silt_stmt_bind_null(o->stmt, index);
    else if (strcmp(kind, "bool") == 0)
        st = silt_stmt_bind_bool(o->stmt, index, PyObject_IsTrue(v));
    else if (strcmp(kind, "int") == 0 || strcmp(kind, "date") == 0 ||
             strcmp(kind, "timestamp") == 0) {
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred())
            return NULL;
        if (kind[0] == 'i')
            st = silt_stmt_bind_int64(o->stmt, index, x);
        else if (kind[0] == 'd')
            st = silt_stmt_bind_date(o->stmt, index, (int32_t)x);
        else
            st = silt_stmt_bind_timestamp(o->stmt, index, x);
    } else if (strcmp(kind, "float") == 0) {
        double x = PyFloat_AsDouble(v);
        if (x == -1.0 && PyErr_Occurred())
            return NULL;
        st = silt_stmt_bind_double(o->stmt, index, x);
    } else if (strcmp(kind, "str") == 0) {
        PyObject *utf8 = PyUnicode_AsUTF8String(v);
        char *text;
        Py_ssize_t len;
        if (utf8 == NULL || PyBytes_AsStringAndSize(utf8, &text, &len) != 0) {
            Py_XDECREF(utf8);
            return NULL;
        }
        st = silt_stmt_bind_text(o->stmt, index, text, (int64_t)len);
        Py_DECREF(utf8);
    } else if (strcmp(kind, "bytes") == 0) {
        char *bytes;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(v, &bytes, &len) != 0)
            return NULL;
        st = silt_stmt_bind_blob(o->stmt, index, bytes, (size_t)len);
    } else {
        PyErr_Format(PyExc_ValueError, "unknown parameter kind %s", kind);
        return NULL;
    }
    if (st != SILT_OK)
        return raise_conn(o->conn->conn, st);
    Py_RETURN_NONE;
}

static PyObject *stmt_execute(PyObject *self_, PyObject *unused)
{
    StmtObject *o = (StmtObject *)self_;
    if (!conn_usable(o->conn))
        return NULL;
    struct ArrowArrayStream s;
    memset(&s, 0, sizeof s);
    silt_status st;
    sig_guard g;
    guard_begin(&g, o->conn->conn);
    Py_BEGIN_ALLOW_THREADS
    conn_lock(o->conn);
    st = silt_stmt_execute(o->stmt, &s);
    conn_unlock(o->conn);
    Py_END_ALLOW_THREADS
    if (guard_end(&g)) {
        if (st == SILT_OK)
            s.release(&s);
        return NULL;
    }
    if (st != SILT_OK)
        return raise_conn(o->conn->conn, st);
    return stream_new(o->conn, &s);
}

static PyMethodDef stmt_methods[] = {
    {"param_names", stmt_param_names, METH_NOARGS, "Names of the parameters (None for ?)."},
    {"bind", stmt_bind, METH_VARARGS, "bind(index, kind, value)."},
    {"execute", stmt_execute, METH_NOARGS, "Runs the statement: a Stream."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot stmt_slots[] = {
    {Py_tp_dealloc, (void *)stmt_dealloc},
    {Py_tp_methods, stmt_methods},
    {Py_tp_doc, (void *)"A prepared statement (silt_stmt)."},
    {0, NULL}};
static PyType_Spec stmt_spec = {"silt._silt.Statement", sizeof(StmtObject), 0,
                                Py_TPFLAGS_DEFAULT, stmt_slots};

/* ---- StreamingQuery ----------------------------------------------------------- */

/*
 * One silt_stream (include/silt/stream.h). The stream runs on its own
 * thread; the console sink's text and each batch's progress reach Python
 * callables there, under the GIL (PyGILState_Ensure). So every call that
 * waits for that thread (wait, stop-and-free in dealloc) releases the GIL
 * first, or the stream's thread could wait for the GIL forever.
 */
typedef struct {
    PyObject_HEAD
    silt_stream *stream;
    PyObject *conn;     /* the Connection: the stream runs on its database */
    PyObject *console;  /* callable(str) or None */
    PyObject *progress; /* callable(json, line) or None */
    int waited;
} QueryObject;

static PyObject *g_query_type;

static int query_console(void *payload, const char *text, size_t len)
{
    QueryObject *q = payload;
    int rc = 0;
    if (q->console == NULL)
        return 0;
    PyGILState_STATE gs = PyGILState_Ensure();
    PyObject *piece = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "surrogateescape");
    PyObject *r = piece != NULL ? PyObject_CallFunctionObjArgs(q->console, piece, NULL) : NULL;
    if (r == NULL) {
        PyErr_Print(); /* the stream's thread has no caller to raise to */
        rc = 1;        /* and the stream stops, as the API says */
    }
    Py_XDECREF(piece);
    Py_XDECREF(r);
    PyGILState_Release(gs);
    return rc;
}

static void query_progress(void *payload, const char *json, const char *line)
{
    QueryObject *q = payload;
    if (q->progress == NULL)
        return;
    PyGILState_STATE gs = PyGILState_Ensure();
    PyObject *r = PyObject_CallFunction(q->progress, "ss", json, line);
    if (r == NULL)
        PyErr_Print();
    Py_XDECREF(r);
    PyGILState_Release(gs);
}

static void query_dealloc(PyObject *self_)
{
    QueryObject *q = (QueryObject *)self_;
    PyTypeObject *tp = Py_TYPE(self_);
    if (q->stream != NULL) {
        silt_stream *s = q->stream;
        q->stream = NULL;
        Py_BEGIN_ALLOW_THREADS
        silt_stream_free(s);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(q->console);
    Py_XDECREF(q->progress);
    Py_XDECREF(q->conn);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self_);
    Py_DECREF(tp);
}

/* conn.stream(sql, trigger, checkpoint, output_mode, console, progress): a StreamingQuery. */
static PyObject *conn_stream(PyObject *self_, PyObject *args)
{
    ConnObject *self = (ConnObject *)self_;
    const char *sql, *trigger = NULL, *checkpoint = NULL, *mode = NULL;
    PyObject *console = Py_None, *progress = Py_None;
    if (!PyArg_ParseTuple(args, "s|zzzOO", &sql, &trigger, &checkpoint, &mode, &console,
                          &progress) || !conn_usable(self))
        return NULL;
    QueryObject *q = PyObject_New(QueryObject, (PyTypeObject *)g_query_type);
    if (q == NULL)
        return NULL;
    q->stream = NULL;
    q->waited = 0;
    Py_INCREF(self_);
    q->conn = self_;
    q->console = console != Py_None ? new_ref(console) : NULL;
    q->progress = progress != Py_None ? new_ref(progress) : NULL;
    silt_stream_options o = SILT_STREAM_OPTIONS_INIT;
    o.trigger = trigger;
    o.checkpoint = checkpoint;
    o.output_mode = mode;
    o.console = query_console;
    o.progress = query_progress;
    o.payload = q;
    silt_status st;
    Py_BEGIN_ALLOW_THREADS
    conn_lock(self);
    st = silt_stream_start(&q->stream, self->conn, sql, &o);
    conn_unlock(self);
    Py_END_ALLOW_THREADS
    if (st != SILT_OK) {
        PyObject *r = raise_conn(self->conn, st);
        Py_DECREF(q);
        return r;
    }
    return (PyObject *)q;
}

/* wait(): blocks (GIL released) until the stream ends; raises its error. */
static PyObject *query_wait(PyObject *self_, PyObject *unused)
{
    QueryObject *q = (QueryObject *)self_;
    silt_status st;
    if (q->stream == NULL)
        Py_RETURN_NONE;
    Py_BEGIN_ALLOW_THREADS
    st = silt_stream_wait(q->stream);
    Py_END_ALLOW_THREADS
    q->waited = 1;
    if (st == SILT_OK)
        Py_RETURN_NONE;
    const char *why = silt_stream_errmsg(q->stream);
    char cls[128] = "";
    const char *end = why[0] == '[' ? strchr(why, ']') : NULL;
    if (end != NULL && (size_t)(end - why - 1) < sizeof cls) {
        memcpy(cls, why + 1, (size_t)(end - why - 1));
        cls[end - why - 1] = '\0';
    }
    /* the primary line: the message up to its first newline */
    size_t n = strcspn(why, "\n");
    char *first = malloc(n + 1);
    if (first == NULL)
        return PyErr_NoMemory();
    memcpy(first, why, n);
    first[n] = '\0';
    raise_parts(st, cls, first, why);
    free(first);
    return NULL;
}

static PyObject *query_stop(PyObject *self_, PyObject *unused)
{
    QueryObject *q = (QueryObject *)self_;
    if (q->stream != NULL)
        silt_stream_stop(q->stream); /* async: the caller waits with wait() */
    Py_RETURN_NONE;
}

static int collect_text(void *payload, const char *text, size_t len)
{
    PyObject **out = payload;
    *out = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "surrogateescape");
    return *out == NULL;
}

/* last_progress(): the last batch's StreamingQueryProgress JSON, or None. */
static PyObject *query_last_progress(PyObject *self_, PyObject *unused)
{
    QueryObject *q = (QueryObject *)self_;
    PyObject *out = NULL;
    if (q->stream == NULL)
        Py_RETURN_NONE;
    silt_status st = silt_stream_last_progress(q->stream, collect_text, &out);
    if (out == NULL && PyErr_Occurred())
        return NULL;
    if (st != SILT_OK && out == NULL)
        return raise_parts(st, "", "the stream's progress could not be read",
                           "the stream's progress could not be read");
    if (out == NULL)
        Py_RETURN_NONE;
    return out;
}

/* close(): frees the ended stream (its checkpoint lock goes with it). The
 * handle is taken under the GIL, which stop() and last_progress() hold for
 * their whole call, so neither sees it freed. */
static PyObject *query_close(PyObject *self_, PyObject *unused)
{
    QueryObject *q = (QueryObject *)self_;
    silt_stream *s = q->stream;
    q->stream = NULL;
    if (s != NULL) {
        Py_BEGIN_ALLOW_THREADS
        silt_stream_free(s);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}

static PyMethodDef query_methods[] = {
    {"close", query_close, METH_NOARGS, "Stops, waits for and frees the stream."},
    {"wait", query_wait, METH_NOARGS, "Waits until the stream ends; raises its error."},
    {"stop", query_stop, METH_NOARGS, "Asks the stream to stop after the batch in flight."},
    {"last_progress", query_last_progress, METH_NOARGS, "The last batch's progress JSON or None."},
    {NULL, NULL, 0, NULL}};
static PyType_Slot query_slots[] = {
    {Py_tp_dealloc, (void *)query_dealloc}, {Py_tp_methods, query_methods}, {0, NULL}};
static PyType_Spec query_spec = {"silt._silt.StreamingQuery", sizeof(QueryObject), 0,
                                 Py_TPFLAGS_DEFAULT, query_slots};

static PyMethodDef conn_methods[] = {
    {"stream", conn_stream, METH_VARARGS,
     "stream(sql, trigger, checkpoint, output_mode, console, progress): a StreamingQuery."},
    {"exec", conn_exec, METH_VARARGS, "exec(sql): runs every statement; the last one's Stream."},
    {"format", conn_format, METH_VARARGS, "format(sql, fn, max_rows, truncate, vertical)."},
    {"prepare", conn_prepare, METH_VARARGS, "prepare(sql): a Statement."},
    {"register", conn_register, METH_VARARGS, "register(name, capsule): an Arrow stream as a table."},
    {"unregister", conn_unregister, METH_VARARGS, "unregister(name)."},
    {"interrupt", conn_interrupt, METH_NOARGS, "Stops the running statement (any thread)."},
    {"close", conn_close, METH_NOARGS, "No more calls; the session ends with its last result."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot conn_slots[] = {
    {Py_tp_init, (void *)conn_init},
    {Py_tp_dealloc, (void *)conn_dealloc},
    {Py_tp_methods, conn_methods},
    {Py_tp_doc, (void *)"A session (silt_conn) on a Database."},
    {0, NULL}};
static PyType_Spec conn_spec = {"silt._silt.Connection", sizeof(ConnObject), 0, Py_TPFLAGS_DEFAULT,
                                conn_slots};

/* ---- test hook: buffer addresses seen by a consumer ---------------------------- */

/* The addresses of the value buffers of each batch's columns, in order, as
 * silt produced them: the zero-copy tests compare them with the consumer's. */
typedef struct spy {
    struct ArrowArrayStream inner;
    PyObject *seen; /* list of ints, appended with the GIL held */
} spy;

static int spy_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    spy *p = s->private_data;
    return p->inner.get_schema(&p->inner, out);
}

static int spy_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    spy *p = s->private_data;
    int rc = p->inner.get_next(&p->inner, out);
    if (rc != 0 || out->release == NULL)
        return rc;
    PyGILState_STATE gs = PyGILState_Ensure();
    for (int64_t c = 0; c < out->n_children; c++) {
        const struct ArrowArray *col = out->children[c];
        PyObject *addr = PyLong_FromVoidPtr((void *)(col->n_buffers > 1 ? col->buffers[1] : NULL));
        if (addr != NULL)
            PyList_Append(p->seen, addr);
        Py_XDECREF(addr);
    }
    PyErr_Clear();
    PyGILState_Release(gs);
    return 0;
}

static const char *spy_error(struct ArrowArrayStream *s)
{
    spy *p = s->private_data;
    return p->inner.get_last_error != NULL ? p->inner.get_last_error(&p->inner) : NULL;
}

static void spy_release(struct ArrowArrayStream *s)
{
    spy *p = s->private_data;
    if (p->inner.release != NULL)
        p->inner.release(&p->inner);
    PyGILState_STATE gs = PyGILState_Ensure();
    Py_DECREF(p->seen);
    PyGILState_Release(gs);
    free(p);
    s->release = NULL;
}

/* spy(capsule, list) -> capsule: the same stream, recording buffer addresses into list. */
static PyObject *mod_spy(PyObject *m, PyObject *args)
{
    PyObject *cap, *seen;
    if (!PyArg_ParseTuple(args, "OO!", &cap, &PyList_Type, &seen))
        return NULL;
    struct ArrowArrayStream *in = PyCapsule_GetPointer(cap, "arrow_array_stream");
    if (in == NULL)
        return NULL;
    struct ArrowArrayStream *s = malloc(sizeof *s);
    spy *p = malloc(sizeof *p);
    if (s == NULL || p == NULL) {
        free(s);
        free(p);
        return PyErr_NoMemory();
    }
    p->inner = *in;
    in->release = NULL;
    Py_INCREF(seen);
    p->seen = seen;
    s->get_schema = spy_schema;
    s->get_next = spy_next;
    s->get_last_error = spy_error;
    s->release = spy_release;
    s->private_data = p;
    PyObject *out = PyCapsule_New(s, "arrow_array_stream", capsule_free);
    if (out == NULL) {
        s->release(s);
        free(s);
    }
    return out;
}

/* ---- module ------------------------------------------------------------------- */

static PyObject *mod_set_hooks(PyObject *m, PyObject *args)
{
    PyObject *err, *date, *ts, *ntz, *dec;
    if (!PyArg_ParseTuple(args, "OOOOO", &err, &date, &ts, &ntz, &dec))
        return NULL;
    set_ref(&g_error_factory, err);
    set_ref(&g_date_fn, date);
    set_ref(&g_ts_fn, ts);
    set_ref(&g_ntz_fn, ntz);
    set_ref(&g_decimal_fn, dec);
    Py_RETURN_NONE;
}

static PyObject *mod_version(PyObject *m, PyObject *unused)
{
    return PyUnicode_FromString(silt_version());
}

static PyMethodDef mod_methods[] = {
    {"set_hooks", mod_set_hooks, METH_VARARGS, "set_hooks(error, date, ts, ntz, decimal)."},
    {"version", mod_version, METH_NOARGS, "The C library's version."},
    {"spy", mod_spy, METH_VARARGS, "Test hook: record a stream's value buffer addresses."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef mod_def = {PyModuleDef_HEAD_INIT, "_silt",
                                     "silt's C extension (docs/python.md).", -1, mod_methods,
                                     NULL, NULL, NULL, NULL};

static int add_type(PyObject *m, PyType_Spec *spec, PyObject **slot, const char *name)
{
    *slot = PyType_FromSpec(spec);
    if (*slot == NULL)
        return -1;
    Py_INCREF(*slot);
    if (PyModule_AddObject(m, name, *slot) != 0) {
        Py_DECREF(*slot);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__silt(void);
PyMODINIT_FUNC PyInit__silt(void)
{
    PyObject *m = PyModule_Create(&mod_def);
    if (m == NULL)
        return NULL;
    g_main_thread = PyThread_get_thread_ident();
    if (add_type(m, &db_spec, &g_db_type, "Database") != 0 ||
        add_type(m, &conn_spec, &g_conn_type, "Connection") != 0 ||
        add_type(m, &stream_spec, &g_stream_type, "Stream") != 0 ||
        add_type(m, &stmt_spec, &g_stmt_type, "Statement") != 0 ||
        add_type(m, &query_spec, &g_query_type, "StreamingQuery") != 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
