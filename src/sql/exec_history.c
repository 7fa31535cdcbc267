/*
 * exec_history.c - DESCRIBE HISTORY: one row per commit, newest first, in
 * the columns Spark's Delta shows, read from each commit's commitInfo.
 *
 * Commits made by other writers may lack any field; a missing one is
 * null. Only the commits still in the log are listed (after log cleanup
 * the oldest are gone, as in Spark).
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "delta/log.h"
#include "delta/txn.h"
#include "sql/exec.h"
#include "util/time.h"

enum {
    H_VERSION, H_TIMESTAMP, H_USER_ID, H_USER_NAME, H_OPERATION, H_PARAMS, H_JOB, H_NOTEBOOK,
    H_CLUSTER, H_READ_VERSION, H_ISOLATION, H_BLIND, H_METRICS, H_USER_META, H_ENGINE, H_N
};

typedef struct history_rows {
    col_builder *cols[H_N];
    const char *raw;     /* commitInfo JSON of the commit being read */
    arena *scratch;
} history_rows;

static silt_status history_schema(arena *a, const col_type **out, silt_error *err)
{
    static const char *const names[H_N] = {
        "version", "timestamp", "userId", "userName", "operation", "operationParameters", "job",
        "notebook", "clusterId", "readVersion", "isolationLevel", "isBlindAppend",
        "operationMetrics", "userMetadata", "engineInfo"};
    static const char *const job_names[] = {"jobId", "jobName", "jobRunId", "runId",
                                            "jobOwnerId", "triggerType"};
    const col_type *str = col_type_primitive(COL_STRING);
    const col_type *map = col_type_map(a, str, str, 1);
    col_field *fields = arena_calloc(a, H_N, sizeof(col_field));
    col_field *job = arena_calloc(a, 6, sizeof(col_field));
    col_field *nb = arena_calloc(a, 1, sizeof(col_field));
    size_t idx;
    if (map == NULL || fields == NULL || job == NULL || nb == NULL)
        return err_nomem(err);
    for (idx = 0; idx < 6; idx++) {
        job[idx].name = job_names[idx];
        job[idx].type = str;
        job[idx].nullable = 1;
        job[idx].field_id = -1;
    }
    nb[0].name = "notebookId";
    nb[0].type = str;
    nb[0].nullable = 1;
    nb[0].field_id = -1;
    for (idx = 0; idx < H_N; idx++) {
        fields[idx].name = names[idx];
        fields[idx].type = str;
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
    }
    fields[H_VERSION].type = col_type_primitive(COL_LONG);
    fields[H_TIMESTAMP].type = col_type_primitive(COL_TIMESTAMP);
    fields[H_READ_VERSION].type = col_type_primitive(COL_LONG);
    fields[H_BLIND].type = col_type_primitive(COL_BOOLEAN);
    fields[H_PARAMS].type = map;
    fields[H_METRICS].type = map;
    fields[H_JOB].type = col_type_struct(a, 6, job);
    fields[H_NOTEBOOK].type = col_type_struct(a, 1, nb);
    if (fields[H_JOB].type == NULL || fields[H_NOTEBOOK].type == NULL)
        return err_nomem(err);
    *out = col_type_struct(a, H_N, fields);
    return *out ? SILT_OK : err_nomem(err);
}

static silt_status put_string(col_builder *b, const cJSON *v, silt_error *err)
{
    if (cJSON_IsString(v))
        return col_builder_append_bytes(b, v->valuestring, strlen(v->valuestring), err);
    if (v != NULL && !cJSON_IsNull(v)) {
        char *text = cJSON_PrintUnformatted(v);
        silt_status rc;
        if (text == NULL)
            return err_nomem(err);
        rc = col_builder_append_bytes(b, text, strlen(text), err);
        cJSON_free(text);
        return rc;
    }
    return col_builder_append_null(b, err);
}

/* A JSON object as map<string,string>: strings as they are, other values as JSON text. */
static silt_status put_map(col_builder *b, const cJSON *obj, silt_error *err)
{
    const cJSON *it;
    int64_t n = 0;
    if (!cJSON_IsObject(obj))
        return col_builder_append_null(b, err);
    for (it = obj->child; it != NULL; it = it->next) {
        SILT_RETURN_IF_ERROR(col_builder_append_bytes(col_builder_child(b, 0), it->string,
                                                      strlen(it->string), err));
        SILT_RETURN_IF_ERROR(put_string(col_builder_child(b, 1), it, err));
        n++;
    }
    return col_builder_append_list(b, n, err);
}

static silt_status put_long(col_builder *b, const cJSON *v, silt_error *err)
{
    if (cJSON_IsNumber(v))
        return col_builder_append_int(b, (int64_t)v->valuedouble, err);
    return col_builder_append_null(b, err);
}

/*
 * The commit's time as Spark shows it and as TIMESTAMP AS OF finds it: the
 * inCommitTimestamp when the table has them, else the commit file's
 * modification time in milliseconds made monotonic (time_ms,
 * dlog_listing_commit_times; not commitInfo.timestamp, which the writer
 * took before the file existed).
 */
static silt_status add_row(history_rows *h, const dlog_file *f, int64_t time_ms, const cJSON *ci,
                           silt_error *err)
{
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ci, "inCommitTimestamp");
    const cJSON *blind = cJSON_GetObjectItemCaseSensitive(ci, "isBlindAppend");
    int64_t micros = time_ms * 1000;
    if (cJSON_IsNumber(ts))
        micros = (int64_t)ts->valuedouble * 1000;
    SILT_RETURN_IF_ERROR(col_builder_append_int(h->cols[H_VERSION], f->version, err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(h->cols[H_TIMESTAMP], micros, err));
    SILT_RETURN_IF_ERROR(put_string(h->cols[H_USER_ID], cJSON_GetObjectItem(ci, "userId"), err));
    SILT_RETURN_IF_ERROR(put_string(h->cols[H_USER_NAME], cJSON_GetObjectItem(ci, "userName"),
                                    err));
    SILT_RETURN_IF_ERROR(put_string(h->cols[H_OPERATION], cJSON_GetObjectItem(ci, "operation"),
                                    err));
    SILT_RETURN_IF_ERROR(put_map(h->cols[H_PARAMS],
                                 cJSON_GetObjectItem(ci, "operationParameters"), err));
    SILT_RETURN_IF_ERROR(col_builder_append_null(h->cols[H_JOB], err));
    SILT_RETURN_IF_ERROR(col_builder_append_null(h->cols[H_NOTEBOOK], err));
    SILT_RETURN_IF_ERROR(put_string(h->cols[H_CLUSTER], cJSON_GetObjectItem(ci, "clusterId"),
                                    err));
    SILT_RETURN_IF_ERROR(put_long(h->cols[H_READ_VERSION], cJSON_GetObjectItem(ci, "readVersion"),
                                  err));
    SILT_RETURN_IF_ERROR(put_string(h->cols[H_ISOLATION],
                                    cJSON_GetObjectItem(ci, "isolationLevel"), err));
    if (cJSON_IsBool(blind))
        SILT_RETURN_IF_ERROR(col_builder_append_bool(h->cols[H_BLIND], cJSON_IsTrue(blind), err));
    else
        SILT_RETURN_IF_ERROR(col_builder_append_null(h->cols[H_BLIND], err));
    SILT_RETURN_IF_ERROR(put_map(h->cols[H_METRICS], cJSON_GetObjectItem(ci, "operationMetrics"),
                                 err));
    SILT_RETURN_IF_ERROR(put_string(h->cols[H_USER_META], cJSON_GetObjectItem(ci, "userMetadata"),
                                    err));
    return put_string(h->cols[H_ENGINE], cJSON_GetObjectItem(ci, "engineInfo"), err);
}

static silt_status find_commit_info(const dlog_action *action, void *payload, silt_error *err)
{
    history_rows *h = payload;
    (void)err;
    if (action->type == DLOG_COMMIT_INFO && h->raw == NULL)
        h->raw = action->u.commit_info.raw_json;
    return SILT_OK;
}

static silt_status read_commit(binder *b, io_store *store, const dlog_file *f, int64_t time_ms,
                               history_rows *h, silt_error *err)
{
    cJSON *ci;
    silt_status rc;
    (void)b;
    arena_reset(h->scratch);
    h->raw = NULL;
    rc = dlog_read_json_file(store, f->key, h->scratch, find_commit_info, h, err);
    if (rc != SILT_OK)
        return err_context(err, "while reading the history of commit %lld", (long long)f->version);
    ci = h->raw ? cJSON_Parse(h->raw) : NULL;
    rc = add_row(h, f, time_ms, ci, err);
    cJSON_Delete(ci);
    return rc;
}

static silt_status history_limit(binder *b, const sql_expr *limit, int64_t *out, silt_error *err)
{
    *out = INT64_MAX;
    if (limit == NULL)
        return SILT_OK;
    if (limit->kind != SQL_EXPR_LITERAL ||
        (limit->u.lit.kind != SQL_LIT_INT && limit->u.lit.kind != SQL_LIT_LONG) ||
        limit->u.lit.i64 < 0)
        return sql_bind_error(b, err, limit->pos, SILT_BIND, "DESCRIBE HISTORY ... LIMIT needs a "
                          "non-negative integer");
    *out = limit->u.lit.i64;
    return SILT_OK;
}

silt_status sql_exec_describe_history(binder *b, const sql_stmt *stmt, exec_out *out,
                                  silt_error *err)
{
    const sql_name *n = &stmt->u.describe.name;
    exec_target t;
    history_rows h;
    dlog_listing listing = DLOG_LISTING_INIT;
    col_batch *batch;
    col_batch **list;
    int64_t limit, rows = 0, *times;
    size_t idx;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(history_limit(b, stmt->u.describe.limit, &limit, err));
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, n, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, n, &t, err));
    SILT_RETURN_IF_ERROR(history_schema(b->a, &out->schema, err));
    memset(&h, 0, sizeof(h));
    if ((h.scratch = arena_new(b->a, "history commit")) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < H_N; idx++)
        SILT_RETURN_IF_ERROR(col_builder_new(&h.cols[idx], b->a, out->schema->fields[idx].type,
                                             err));
    SILT_RETURN_IF_ERROR(dlog_list(&listing, t.store, -1, err));
    times = arena_calloc(b->a, listing.n_files + 1, sizeof(int64_t));
    if (times == NULL)
        rc = err_nomem(err);
    else
        dlog_listing_commit_times(&listing, times);
    for (idx = listing.n_files; rc == SILT_OK && idx > 0 && rows < limit; idx--) {
        const dlog_file *f = &listing.files[idx - 1];
        if (f->kind != DLOG_FILE_COMMIT || f->version > t.snap->version)
            continue;
        rc = read_commit(b, t.store, f, times[idx - 1], &h, err);
        rows++;
    }
    dlog_listing_clear(&listing);
    SILT_RETURN_IF_ERROR(rc);
    batch = arena_calloc(b->a, 1, sizeof(*batch));
    list = arena_calloc(b->a, 1, sizeof(*list));
    if (batch == NULL || list == NULL ||
        (batch->cols = arena_calloc(b->a, H_N, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < H_N; idx++)
        SILT_RETURN_IF_ERROR(col_builder_finish(h.cols[idx], &batch->cols[idx], err));
    batch->schema = out->schema;
    batch->n_rows = rows;
    batch->n_cols = H_N;
    list[0] = batch;
    return engine_op_values(&out->op, b->ctx, out->schema, list, 1, err);
}

silt_status sql_exec_commit_metrics(binder *b, io_store *store, int64_t version,
                                const char *const *keys, int64_t *values, size_t n,
                                silt_error *err)
{
    history_rows h;
    char key[64];
    cJSON *ci, *metrics;
    size_t idx;
    silt_status rc;
    memset(&h, 0, sizeof(h));
    if ((h.scratch = arena_new(b->a, "commit metrics")) == NULL)
        return err_nomem(err);
    delta_commit_key(version, key, sizeof(key));
    SILT_RETURN_IF_ERROR(dlog_read_json_file(store, key, h.scratch, find_commit_info, &h, err));
    ci = h.raw ? cJSON_Parse(h.raw) : NULL;
    metrics = cJSON_GetObjectItemCaseSensitive(ci, "operationMetrics");
    rc = SILT_OK;
    for (idx = 0; idx < n; idx++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(metrics, keys[idx]);
        values[idx] = 0;
        if (cJSON_IsString(v) && !util_str_to_int64(v->valuestring, strlen(v->valuestring),
                                               &values[idx]))
            rc = err_set(err, SILT_CORRUPT, "commit %lld has a metric \"%s\" that is not a "
                         "number", (long long)version, keys[idx]);
        else if (cJSON_IsNumber(v))
            values[idx] = (int64_t)v->valuedouble;
    }
    cJSON_Delete(ci);
    return rc;
}
