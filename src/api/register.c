/*
 * register.c - silt_conn_register_arrow (include/silt/stmt.h): a caller's
 * Arrow C stream queried as a table by name.
 *
 * The stream is bound to the session with sql_session_bind_scans, so that
 * every `FROM name` gets a scan of its own: the first scan that pulls rows
 * claims the stream; any other scan fails naming it (a stream is read
 * once; see the header for why this rather than keeping the rows). Batches
 * are imported (copied) in pieces of at most ENGINE_BATCH_ROWS rows and
 * released at once; the stream is released when read to its end.
 *
 * A registration lives until it is unregistered and no statement holds a
 * scan of it: each scan counts as a reference, dropped by a cleanup of
 * the statement's arena, so a result still being pulled never sees it
 * freed. Connections are used by one thread at a time, so the count is a
 * plain integer.
 */
#include <string.h>

#include "api/conn.h"
#include "engine/engine.h"
#include "formats/arrow.h"
#include "silt/stmt.h"
#include "sql/session.h"
#include "util/mem.h"

typedef struct api_registered {
    arena *a; /* this struct, the name, the imported schema */
    char *name;
    struct ArrowArrayStream stream; /* release NULL once released */
    struct ArrowSchema schema;      /* release NULL when none */
    const col_type *type;
    struct ArrowArray array;        /* the batch being copied; release != NULL while held */
    int64_t pos;                    /* next row of array */
    int64_t n_batches;
    int claimed;                    /* a scan has started reading */
    int done;
    int refs;                       /* the registration itself and each scan */
    struct api_registered *next;
} api_registered;

typedef struct reg_scan {
    api_registered *r;
    int owner; /* this scan claimed the stream */
} reg_scan;

static void release_array(api_registered *r)
{
    if (r->array.release != NULL)
        r->array.release(&r->array);
    memset(&r->array, 0, sizeof(r->array));
}

static void release_stream(api_registered *r)
{
    release_array(r);
    if (r->stream.release != NULL)
        r->stream.release(&r->stream);
    memset(&r->stream, 0, sizeof(r->stream));
}

static void unref(void *payload)
{
    api_registered *r = payload;
    if (--r->refs > 0)
        return;
    release_stream(r);
    if (r->schema.release != NULL)
        r->schema.release(&r->schema);
    arena_free(r->a);
}

static silt_status stream_error(api_registered *r, int code, silt_error *err)
{
    const char *msg = r->stream.get_last_error ? r->stream.get_last_error(&r->stream) : NULL;
    return err_set(err, SILT_IO, "could not read the next record batch of the Arrow stream "
                   "registered as `%s`: %s (error %d)", r->name,
                   msg != NULL ? msg : "the producer gave no message", code);
}

/* Pulls the next array of the stream into r->array; r->done at the end. */
static silt_status pull_array(api_registered *r, silt_error *err)
{
    int code;
    release_array(r);
    code = r->stream.get_next(&r->stream, &r->array);
    if (code != 0) {
        /* after an error the array is uninitialized (C stream interface): never release it */
        memset(&r->array, 0, sizeof(r->array));
        r->done = 1;
        return stream_error(r, code, err);
    }
    if (r->array.release == NULL) {
        r->done = 1;
        release_stream(r); /* the producer can let go as soon as it is read */
        return SILT_OK;
    }
    r->n_batches++;
    r->pos = 0;
    if (r->array.length < 0)
        return err_set(err, SILT_INVALID, "record batch %lld of the Arrow stream `%s` has a "
                       "negative length %lld", (long long)r->n_batches, r->name,
                       (long long)r->array.length);
    return SILT_OK;
}

static silt_status claim(reg_scan *sc, silt_error *err)
{
    api_registered *r = sc->r;
    if (sc->owner)
        return SILT_OK;
    if (r->claimed)
        return err_set(err, SILT_INVALID, "the Arrow stream registered as `%s` was read by an "
                       "earlier scan: a stream is read once; register a new stream to query "
                       "the rows again, or copy them into a table first (CREATE TABLE ... AS "
                       "SELECT * FROM %s)", r->name, r->name);
    r->claimed = 1;
    sc->owner = 1;
    return SILT_OK;
}

/* sql_batch_fn of a scan: the next piece of the stream's rows, copied into batch_arena. */
static silt_status scan_next(void *payload, arena *batch_arena, col_batch **out,
                             silt_error *err)
{
    reg_scan *sc = payload;
    api_registered *r = sc->r;
    *out = NULL;
    SILT_RETURN_IF_ERROR(claim(sc, err));
    while (!r->done) {
        if (r->array.release != NULL && r->pos < r->array.length) {
            int64_t n = r->array.length - r->pos;
            silt_status rc;
            if (n > ENGINE_BATCH_ROWS)
                n = ENGINE_BATCH_ROWS;
            rc = arrow_import_batch(out, batch_arena, r->type, &r->schema, &r->array, r->pos, n,
                                    err);
            if (rc != SILT_OK)
                return err_context(err, "while reading record batch %lld of the Arrow stream "
                                   "`%s`", (long long)r->n_batches, r->name);
            r->pos += n;
            return SILT_OK;
        }
        SILT_RETURN_IF_ERROR(pull_array(r, err));
    }
    return SILT_OK;
}

/* sql_scan_open_fn: one scan per `FROM name`, holding the registration while the statement lives. */
static silt_status scan_open(void *payload, arena *a, sql_batch_fn *fn, void **scan_payload,
                             silt_error *err)
{
    api_registered *r = payload;
    reg_scan *sc = arena_calloc(a, 1, sizeof(*sc));
    if (sc == NULL || arena_on_cleanup(a, unref, r) == 0)
        return err_nomem(err);
    r->refs++;
    sc->r = r;
    *fn = scan_next;
    *scan_payload = sc;
    return SILT_OK;
}

static silt_status take_schema(api_registered *r, silt_error *err)
{
    int code = r->stream.get_schema(&r->stream, &r->schema);
    if (code != 0) {
        const char *msg = r->stream.get_last_error ? r->stream.get_last_error(&r->stream) : NULL;
        memset(&r->schema, 0, sizeof(r->schema));
        return err_set(err, SILT_IO, "could not read the schema of the Arrow stream `%s`: %s "
                       "(error %d)", r->name, msg != NULL ? msg : "the producer gave no message",
                       code);
    }
    return arrow_import_schema(&r->type, r->a, &r->schema, err);
}

static silt_status register_stream(silt_conn *conn, const char *name, api_registered *r,
                                   silt_error *err)
{
    api_registered *it;
    if (name[0] == '\0')
        return err_set(err, SILT_INVALID, "a registered Arrow stream needs a name");
    for (it = conn->registered; it != NULL; it = it->next)
        if (util_str_casecmp(it->name, name) == 0)
            return err_set(err, SILT_EXISTS, "an Arrow stream is already registered as `%s`; "
                           "unregister it first", name);
    SILT_RETURN_IF_ERROR(take_schema(r, err));
    return sql_session_bind_scans(conn->session, r->name, r->type, scan_open, r, err);
}

SILT_API silt_status silt_conn_register_arrow(silt_conn *conn, const char *name,
                                              struct ArrowArrayStream *stream)
{
    silt_error err = SILT_ERROR_INIT;
    arena *a;
    api_registered *r;
    silt_status rc;
    struct ArrowArrayStream taken;
    if (stream == NULL || stream->release == NULL)
        return conn ? api_conn_error(conn, err_set(&err, SILT_INVALID, "the Arrow "
                                     "stream to register is NULL or released"), &err)
                    : SILT_INVALID;
    /* moved in first: whatever happens below, silt releases it */
    taken = *stream;
    stream->release = NULL;
    a = conn != NULL && name != NULL ? arena_new(NULL, "registered arrow stream") : NULL;
    r = a != NULL ? arena_calloc(a, 1, sizeof(*r)) : NULL;
    if (r == NULL || (r->name = arena_strdup(a, name)) == NULL) {
        taken.release(&taken);
        arena_free(a);
        if (conn == NULL || name == NULL)
            return conn ? api_conn_error(conn, err_set(&err, SILT_INVALID, "a "
                                         "registered Arrow stream needs a name"), &err)
                        : SILT_INVALID;
        return api_conn_error(conn, err_nomem(&err), &err);
    }
    r->a = a;
    r->stream = taken;
    r->refs = 1;
    rc = register_stream(conn, name, r, &err);
    if (rc != SILT_OK) {
        unref(r);
        return api_conn_error(conn, rc, &err);
    }
    r->next = conn->registered;
    conn->registered = r;
    return api_conn_error(conn, SILT_OK, &err);
}

SILT_API silt_status silt_conn_unregister(silt_conn *conn, const char *name)
{
    silt_error err = SILT_ERROR_INIT;
    api_registered **slot;
    if (conn == NULL || name == NULL)
        return SILT_INVALID;
    for (slot = &conn->registered; *slot != NULL; slot = &(*slot)->next) {
        api_registered *r = *slot;
        if (util_str_casecmp(r->name, name) != 0)
            continue;
        *slot = r->next;
        sql_session_unbind_source(conn->session, r->name);
        /* a result still reading it holds a reference: the stream goes with the last one */
        unref(r);
        return api_conn_error(conn, SILT_OK, &err);
    }
    return api_conn_error(conn, err_set(&err, SILT_NOTFOUND, "no Arrow stream is "
                          "registered as `%s`", name), &err);
}

void api_conn_free_registered(silt_conn *conn)
{
    while (conn->registered != NULL) {
        api_registered *r = conn->registered;
        conn->registered = r->next;
        unref(r);
    }
}
