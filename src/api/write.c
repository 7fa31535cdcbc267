/*
 * write.c - include/silt/write.h: a caller's Arrow stream written into a
 * Delta table.
 *
 * There is one writer in silt, the SQL one. The stream is bound to the
 * connection's session as a source named INPUT_NAME (sql_session_bind_source),
 * and the write is the SQL statement a Spark user would expect the
 * DataFrameWriter call to mean:
 *
 *   new table, or ERROR_IF_EXISTS  CREATE TABLE t USING DELTA [PARTITIONED BY] AS SELECT *
 *   IGNORE                         CREATE TABLE IF NOT EXISTS t ... AS SELECT *
 *   APPEND                         INSERT [WITH SCHEMA EVOLUTION] INTO t BY NAME SELECT *
 *   OVERWRITE                      INSERT [...] OVERWRITE t BY NAME SELECT *
 *     with replace_where           INSERT [...] INTO t BY NAME REPLACE WHERE pred SELECT *
 *     with overwrite_schema        CREATE OR REPLACE TABLE t ... AS SELECT *
 *
 * History names follow Spark's DataFrameWriter, not the SQL above: a path
 * target is save(path), which records a new table (any mode) and an
 * overwriteSchema replace as WRITE {mode: ErrorIfExists|Append|Overwrite|
 * Ignore, partitionBy}; a table name is saveAsTable, which records CREATE
 * TABLE AS SELECT / CREATE OR REPLACE TABLE AS SELECT as the SQL does. The
 * statement runs with the session setting SQL_SETTING_SAVE_MODE for that,
 * and user_metadata as spark.databricks.delta.commitInfo.userMetadata
 * (both restored afterwards).
 *
 * so schema enforcement, casts, evolution, partitioning, commit and history
 * are SQL's, messages included. The generated text is parsed first and
 * must be exactly one statement, so that replace_where cannot smuggle in
 * another one. Whether the table exists (APPEND and OVERWRITE create it
 * when it does not, as Spark does) and its partition columns come from
 * DESCRIBE DETAIL.
 *
 * Ownership of the stream: released exactly once, at the end of the call,
 * whatever happens; each array it hands out is released as soon as its
 * rows are copied (arrow_import_batch copies), the schema at the end.
 */
#include <stddef.h>
#include <string.h>

#include "api/conn.h"
#include "api/options.h"
#include "engine/engine.h"
#include "formats/arrow.h"
#include "silt/write.h"
#include "sql/parser.h"
#include "util/mem.h"

#define INPUT_NAME "__silt_write_input"

/* The stream being read, batch by batch, in pieces of at most ENGINE_BATCH_ROWS rows. */
typedef struct input {
    struct ArrowArrayStream *stream;
    struct ArrowSchema schema;  /* release != NULL once received */
    const col_type *type;
    struct ArrowArray array;    /* the batch being copied; release != NULL while held */
    int64_t pos;                /* next row of array */
    int64_t n_batches;
    int done;
} input;

static silt_status stream_error(input *in, int code, const char *what, silt_error *err)
{
    const char *msg = in->stream->get_last_error ? in->stream->get_last_error(in->stream) : NULL;
    return err_set(err, SILT_IO, "could not read %s of the Arrow stream: %s (error %d)", what,
                   msg != NULL ? msg : "the producer gave no message", code);
}

static void release_array(input *in)
{
    if (in->array.release != NULL)
        in->array.release(&in->array);
    memset(&in->array, 0, sizeof(in->array));
}

/* sql_batch_fn: the next piece of the stream's rows, copied into batch_arena. */
static silt_status input_next(void *payload, arena *batch_arena, col_batch **out,
                              silt_error *err)
{
    input *in = payload;
    *out = NULL;
    while (!in->done) {
        int code;
        if (in->array.release != NULL && in->pos < in->array.length) {
            int64_t n = in->array.length - in->pos;
            silt_status rc;
            if (n > ENGINE_BATCH_ROWS)
                n = ENGINE_BATCH_ROWS;
            rc = arrow_import_batch(out, batch_arena, in->type, &in->schema, &in->array, in->pos,
                                    n, err);
            if (rc != SILT_OK)
                return err_context(err, "while reading record batch %lld of the Arrow stream",
                                   (long long)in->n_batches);
            in->pos += n;
            return SILT_OK;
        }
        release_array(in);
        code = in->stream->get_next(in->stream, &in->array);
        if (code != 0) {
            /* After an error the array is uninitialized (C stream interface): never release. */
            memset(&in->array, 0, sizeof(in->array));
            in->done = 1;
            return stream_error(in, code, "the next record batch", err);
        }
        if (in->array.release == NULL) {
            in->done = 1;
            break;
        }
        in->n_batches++;
        in->pos = 0;
        if (in->array.length < 0)
            return err_set(err, SILT_INVALID, "record batch %lld of the Arrow stream has a "
                           "negative length %lld", (long long)in->n_batches,
                           (long long)in->array.length);
    }
    return SILT_OK;
}

/* ---------------------------------------------------------------- target and statement */

static silt_status append_quoted(buf *out, const char *text, size_t len, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '`', err));
    for (idx = 0; idx < len; idx++) {
        if (text[idx] == '`')
            SILT_RETURN_IF_ERROR(buf_append_char(out, '`', err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, text[idx], err));
    }
    return buf_append_char(out, '`', err);
}

/* The target as SQL: delta.`path` or `db`.`t` (see silt/write.h for the rules). */
/* A path (Spark's save(path)) rather than a table name (saveAsTable); see target_sql. */
static int is_path_target(const char *target)
{
    size_t len = strlen(target);
    return (len > 8 && util_str_ncasecmp(target, "delta.`", 7) == 0 && target[len - 1] == '`') ||
           target[0] == '/' || strstr(target, "://") != NULL;
}

static silt_status target_sql(buf *out, const char *target, silt_error *err)
{
    size_t len = strlen(target);
    const char *dot;
    if (len > 8 && util_str_ncasecmp(target, "delta.`", 7) == 0 && target[len - 1] == '`')
        return buf_append_str(out, target, err);
    if (target[0] == '/' || strstr(target, "://") != NULL) {
        SILT_RETURN_IF_ERROR(buf_append_str(out, "delta.", err));
        return append_quoted(out, target, len, err);
    }
    dot = strchr(target, '.');
    if (len == 0 || target[0] == '.' || target[len - 1] == '.' ||
        (dot != NULL && strchr(dot + 1, '.') != NULL))
        return err_set(err, SILT_INVALID, "write target \"%s\" is neither a path (/..., "
                       "scheme://..., delta.`...`) nor a table name (t or db.t)", target);
    if (dot != NULL) {
        SILT_RETURN_IF_ERROR(append_quoted(out, target, (size_t)(dot - target), err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '.', err));
        target = dot + 1;
    }
    return append_quoted(out, target, strlen(target), err);
}

/* Whether the target is a Delta table, and its partition columns (in arena a). */
static silt_status table_info(silt_conn *conn, const char *name, arena *a, int *exists,
                              const char ***parts_out, size_t *n_parts_out, silt_error *err)
{
    buf text = BUF_INIT;
    sql_result *res = NULL;
    col_batch *batch = NULL;
    const col_type *schema;
    silt_status rc;
    size_t col;
    *exists = 0;
    *n_parts_out = 0;
    *parts_out = NULL;
    rc = buf_printf(&text, err, "DESCRIBE DETAIL %s", name);
    if (rc == SILT_OK)
        rc = sql_execute(conn->session, buf_cstr(&text), &res, err);
    buf_clear(&text);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        return SILT_OK;
    }
    if (rc == SILT_OK)
        rc = sql_result_next(res, &batch, err);
    if (rc == SILT_OK && (batch == NULL || batch->n_rows != 1))
        rc = err_set(err, SILT_CORRUPT, "DESCRIBE DETAIL of %s gave no row", name);
    schema = rc == SILT_OK ? sql_result_schema(res) : NULL;
    for (col = 0; rc == SILT_OK && col < schema->n_fields; col++) {
        const col_vec *v, *names;
        int64_t idx;
        if (strcmp(schema->fields[col].name, "partitionColumns") != 0)
            continue;
        v = batch->cols[col];
        if (v->type->id != COL_ARRAY || col_vec_is_null(v, 0))
            break;
        names = v->children[0];
        *n_parts_out = (size_t)(v->offsets[1] - v->offsets[0]);
        *parts_out = arena_calloc(a, *n_parts_out + 1, sizeof(char *));
        if (*parts_out == NULL)
            rc = err_nomem(err);
        for (idx = 0; rc == SILT_OK && idx < (int64_t)*n_parts_out; idx++) {
            int32_t len;
            const char *s = col_vec_str(names, v->offsets[0] + idx, &len);
            if (((*parts_out)[idx] = arena_strndup(a, s, (size_t)len)) == NULL)
                rc = err_nomem(err);
        }
    }
    sql_result_free(res);
    if (rc == SILT_OK)
        *exists = 1;
    return rc;
}

static silt_status partition_clause(buf *out, const silt_write_options *o, silt_error *err)
{
    size_t idx;
    if (o->n_partition_by == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(buf_append_str(out, " PARTITIONED BY (", err));
    for (idx = 0; idx < o->n_partition_by; idx++) {
        const char *col = o->partition_by[idx];
        if (idx > 0)
            SILT_RETURN_IF_ERROR(buf_append_str(out, ", ", err));
        SILT_RETURN_IF_ERROR(append_quoted(out, col, strlen(col), err));
    }
    return buf_append_char(out, ')', err);
}

static silt_status list_text(buf *out, const char *const *items, size_t n, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '[', err));
    for (idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s`%s`", idx ? ", " : "", items[idx]));
    return buf_append_char(out, ']', err);
}

/* An existing table keeps its partitioning unless its schema is overwritten (Delta's rule). */
static silt_status check_partitioning(const silt_write_options *o, const char *target,
                                      const char **parts, size_t n_parts, silt_error *err)
{
    buf given = BUF_INIT, table = BUF_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    int same = o->n_partition_by == n_parts;
    if (o->n_partition_by == 0 || (o->mode == SILT_SAVE_OVERWRITE && o->overwrite_schema))
        return SILT_OK;
    for (idx = 0; same && idx < n_parts; idx++)
        same = util_str_casecmp(o->partition_by[idx], parts[idx]) == 0;
    if (same)
        return SILT_OK;
    rc = list_text(&given, o->partition_by, o->n_partition_by, err);
    if (rc == SILT_OK)
        rc = list_text(&table, parts, n_parts, err);
    if (rc == SILT_OK)
        rc = err_set(err, SILT_INVALID, "Partition columns do not match the partition columns "
                     "of the table %s. Given: %s Table: %s", target, buf_cstr(&given),
                     buf_cstr(&table));
    buf_clear(&given);
    buf_clear(&table);
    return rc;
}

/* 1 when the write creates or replaces the table through CTAS (statement_text). */
static int creates_table(const silt_write_options *o, int exists)
{
    return !exists || o->mode == SILT_SAVE_ERROR_IF_EXISTS || o->mode == SILT_SAVE_IGNORE ||
           (o->mode == SILT_SAVE_OVERWRITE && o->overwrite_schema);
}

static silt_status statement_text(buf *out, const char *name, const silt_write_options *o,
                                   int exists, silt_error *err)
{
    const char *evolve = o->merge_schema ? "WITH SCHEMA EVOLUTION " : "";
    const char *from = " SELECT * FROM " INPUT_NAME;
    if (creates_table(o, exists)) {
        const char *verb = "CREATE TABLE ";
        if (exists && o->mode == SILT_SAVE_OVERWRITE)
            verb = "CREATE OR REPLACE TABLE ";
        else if (o->mode == SILT_SAVE_IGNORE)
            verb = "CREATE TABLE IF NOT EXISTS ";
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s USING DELTA", verb, name));
        SILT_RETURN_IF_ERROR(partition_clause(out, o, err));
        return buf_printf(out, err, " AS%s", from);
    }
    if (o->mode == SILT_SAVE_APPEND)
        return buf_printf(out, err, "INSERT %sINTO %s BY NAME%s", evolve, name, from);
    if (o->replace_where != NULL)
        return buf_printf(out, err, "INSERT %sINTO %s BY NAME REPLACE WHERE %s\n%s", evolve,
                          name, o->replace_where, from);
    return buf_printf(out, err, "INSERT %sOVERWRITE %s BY NAME%s", evolve, name, from);
}

static silt_status check_options(const silt_write_options *o, silt_error *err)
{
    if ((int)o->mode < SILT_SAVE_ERROR_IF_EXISTS || (int)o->mode > SILT_SAVE_IGNORE)
        return err_set(err, SILT_INVALID, "write mode %d is not a save mode", (int)o->mode);
    if (o->mode != SILT_SAVE_OVERWRITE &&
        (o->replace_where != NULL || o->overwrite_schema || o->partition_overwrite_mode != NULL))
        return err_set(err, SILT_INVALID, "replaceWhere, overwriteSchema and "
                       "partitionOverwriteMode apply to mode overwrite only");
    if (o->overwrite_schema && (o->replace_where != NULL || o->partition_overwrite_mode != NULL))
        return err_set(err, SILT_INVALID, "overwriteSchema replaces the whole table: it cannot "
                       "be combined with replaceWhere or partitionOverwriteMode");
    if (o->replace_where != NULL && o->partition_overwrite_mode != NULL)
        return err_set(err, SILT_INVALID, "replaceWhere and partitionOverwriteMode cannot be "
                       "combined");
    if (o->partition_overwrite_mode != NULL &&
        util_str_casecmp(o->partition_overwrite_mode, "static") != 0 &&
        util_str_casecmp(o->partition_overwrite_mode, "dynamic") != 0)
        return err_set(err, SILT_INVALID, "partitionOverwriteMode is \"%s\"; expected static or "
                       "dynamic", o->partition_overwrite_mode);
    if (o->txn_app_id == NULL && o->txn_version != 0)
        return err_set(err, SILT_INVALID, "[DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS] Invalid "
                       "options for idempotent Dataframe writes: Both txnVersion and txnAppId "
                       "must be specified for idempotent data frame writes");
    if (o->n_partition_by > 0 && o->partition_by == NULL)
        return err_set(err, SILT_INVALID, "partition_by is NULL but n_partition_by is %zu",
                       o->n_partition_by);
    {
        size_t idx;
        for (idx = 0; idx < o->n_partition_by; idx++)
            if (o->partition_by[idx] == NULL || o->partition_by[idx][0] == '\0')
                return err_set(err, SILT_INVALID, "partition column %zu has no name", idx);
    }
    return SILT_OK;
}

/* The generated text must be one statement (replace_where is the caller's text). */
static silt_status check_one_statement(const char *text, silt_error *err)
{
    arena *a = arena_new(NULL, "write statement");
    sql_stmt_list *stmts;
    silt_status rc;
    if (a == NULL)
        return err_nomem(err);
    rc = sql_parse(a, text, &stmts, err);
    if (rc == SILT_OK && stmts->n != 1)
        rc = err_set(err, SILT_INVALID, "replaceWhere must be one predicate, not several "
                     "statements");
    if (rc != SILT_OK)
        err_context(err, "in the statement the write runs: %s", text);
    arena_free(a);
    return rc;
}

/* Session settings a write runs under, restored afterwards. */
enum { SET_POM, SET_SAVE_MODE, SET_USER_META, SET_CODEC, SET_TXN_APP, SET_TXN_VERSION,
       N_SETTINGS };
static const char *const setting_keys[N_SETTINGS] = {
    "spark.sql.sources.partitionOverwriteMode", SQL_SETTING_SAVE_MODE, SQL_SETTING_USER_METADATA,
    SQL_SETTING_PARQUET_CODEC, SQL_SETTING_TXN_APP_ID, SQL_SETTING_TXN_VERSION};

/* Spark's SaveMode names, as history shows them. */
static const char *save_mode_name(silt_save_mode mode)
{
    switch (mode) {
    case SILT_SAVE_APPEND: return "Append";
    case SILT_SAVE_OVERWRITE: return "Overwrite";
    case SILT_SAVE_IGNORE: return "Ignore";
    default: return "ErrorIfExists";
    }
}

/*
 * Runs text with the stream bound and the settings given (NULL = leave the
 * connection's), then puts the connection's values back. The old values stay
 * in the session arena, so the saved pointers are still good.
 */
static silt_status run_bound(silt_conn *conn, input *in, const char *text,
                             const char *const values[N_SETTINGS], silt_error *err)
{
    const char *saved[N_SETTINGS];
    silt_status rc = SILT_OK, rc2 = SILT_OK;
    int idx;
    SILT_RETURN_IF_ERROR(sql_session_bind_source(conn->session, INPUT_NAME, in->type,
                                                 input_next, in, err));
    for (idx = 0; idx < N_SETTINGS; idx++) {
        saved[idx] = sql_session_get(conn->session, setting_keys[idx]);
        if (rc == SILT_OK && values[idx] != NULL)
            rc = sql_session_set(conn->session, setting_keys[idx], values[idx], err);
    }
    if (rc == SILT_OK)
        rc = sql_execute(conn->session, text, NULL, err);
    sql_session_unbind_source(conn->session, INPUT_NAME);
    for (idx = 0; idx < N_SETTINGS; idx++) {
        silt_error scratch = SILT_ERROR_INIT;
        silt_status one;
        if (values[idx] == NULL)
            continue;
        one = sql_session_set(conn->session, setting_keys[idx], saved[idx],
                              rc == SILT_OK && rc2 == SILT_OK ? err : &scratch);
        if (rc2 == SILT_OK)
            rc2 = one;
    }
    return rc != SILT_OK ? rc : rc2;
}

static silt_status write_arrow(silt_conn *conn, const char *target, input *in,
                               const silt_write_options *o, silt_error *err)
{
    arena *a = arena_new(NULL, "arrow write");
    buf name = BUF_INIT, text = BUF_INIT;
    const char **parts = NULL;
    size_t n_parts = 0;
    int exists = 0, code;
    silt_status rc;
    if (a == NULL)
        return err_nomem(err);
    rc = check_options(o, err);
    if (rc == SILT_OK)
        rc = target_sql(&name, target, err);
    if (rc == SILT_OK && (code = in->stream->get_schema(in->stream, &in->schema)) != 0) {
        memset(&in->schema, 0, sizeof(in->schema));
        rc = stream_error(in, code, "the schema", err);
    }
    if (rc == SILT_OK && (rc = arrow_import_schema(&in->type, a, &in->schema, err)) != SILT_OK)
        err_context(err, "while reading the schema of the Arrow stream");
    if (rc == SILT_OK && (o->mode == SILT_SAVE_APPEND || o->mode == SILT_SAVE_OVERWRITE))
        rc = table_info(conn, buf_cstr(&name), a, &exists, &parts, &n_parts, err);
    if (rc == SILT_OK && exists)
        rc = check_partitioning(o, buf_cstr(&name), parts, n_parts, err);
    if (rc == SILT_OK)
        rc = statement_text(&text, buf_cstr(&name), o, exists, err);
    if (rc == SILT_OK)
        rc = check_one_statement(buf_cstr(&text), err);
    if (rc == SILT_OK) {
        const char *values[N_SETTINGS] = {NULL, NULL, NULL, NULL, NULL, NULL};
        values[SET_POM] = o->partition_overwrite_mode;
        /* save(path) of a new or schema-replaced table; saveAsTable keeps the SQL names. */
        if (is_path_target(target) && creates_table(o, exists))
            values[SET_SAVE_MODE] = save_mode_name(o->mode);
        values[SET_USER_META] = o->user_metadata;
        values[SET_CODEC] = o->compression;
        if (o->txn_app_id != NULL) { /* the options win over the connection's settings */
            values[SET_TXN_APP] = o->txn_app_id;
            values[SET_TXN_VERSION] = arena_sprintf(a, "%lld", (long long)o->txn_version);
            if (values[SET_TXN_VERSION] == NULL)
                rc = err_nomem(err);
        }
        if (rc == SILT_OK)
            rc = run_bound(conn, in, buf_cstr(&text), values, err);
    }
    if (rc != SILT_OK)
        err_context(err, "while writing the Arrow stream to %s", target);
    buf_clear(&name);
    buf_clear(&text);
    arena_free(a);
    return rc;
}

SILT_API silt_status silt_conn_write_arrow(silt_conn *conn, const char *target,
                                           struct ArrowArrayStream *stream,
                                           const silt_write_options *opts)
{
    static const silt_write_options defaults = SILT_WRITE_OPTIONS_INIT;
    static const size_t sizes[SILT_WRITE_OPTIONS_VERSION] = {
        offsetof(silt_write_options, user_metadata), offsetof(silt_write_options, compression),
        offsetof(silt_write_options, txn_app_id), sizeof(silt_write_options)};
    silt_error err = SILT_ERROR_INIT;
    silt_write_options o;
    input in;
    silt_status rc;
    int have_stream = stream != NULL && stream->release != NULL;
    memset(&in, 0, sizeof(in));
    in.stream = stream;
    if (conn == NULL)
        rc = SILT_INVALID;
    else if (!have_stream)
        rc = err_set(&err, SILT_INVALID, "the Arrow stream to write is NULL or already released");
    else if (target == NULL)
        rc = err_set(&err, SILT_INVALID, "the write has no target table");
    else if (stream->get_schema == NULL || stream->get_next == NULL)
        rc = err_set(&err, SILT_INVALID, "the Arrow stream has no get_schema or get_next");
    else if ((rc = api_options(&o, opts, &defaults, sizes, SILT_WRITE_OPTIONS_VERSION,
                               "write options", &err)) == SILT_OK)
        rc = write_arrow(conn, target, &in, &o, &err);
    if (have_stream) {
        release_array(&in);
        if (in.schema.release != NULL)
            in.schema.release(&in.schema);
        stream->release(stream);
    }
    return api_conn_error(conn, rc, &err);
}

SILT_API silt_status silt_save_mode_parse(const char *text, silt_save_mode *out)
{
    static const struct { const char *name; silt_save_mode mode; } modes[] = {
        {"append", SILT_SAVE_APPEND},       {"overwrite", SILT_SAVE_OVERWRITE},
        {"errorifexists", SILT_SAVE_ERROR_IF_EXISTS}, {"error", SILT_SAVE_ERROR_IF_EXISTS},
        {"default", SILT_SAVE_ERROR_IF_EXISTS},       {"ignore", SILT_SAVE_IGNORE}};
    size_t idx;
    if (text == NULL || out == NULL)
        return SILT_INVALID;
    for (idx = 0; idx < sizeof(modes) / sizeof(modes[0]); idx++) {
        if (util_str_casecmp(text, modes[idx].name) == 0) {
            *out = modes[idx].mode;
            return SILT_OK;
        }
    }
    return SILT_INVALID;
}
