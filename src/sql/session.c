/*
 * session.c - sessions, statement dispatch and results.
 *
 * Each statement gets its own query arena: the parse tree of the whole
 * text lives in a text arena, the plan, the sources and every batch of a
 * result in the statement's arena, which sql_result_free releases (the
 * sources' files and snapshots with it, through arena cleanups).
 *
 * Statements run here: queries, EXPLAIN, SET / RESET, CREATE [OR REPLACE]
 * TEMPORARY VIEW (AS query, or USING fmt OPTIONS (...)), DROP VIEW, USE,
 * DESCRIBE [TABLE] name and DESCRIBE QUERY, SHOW TABLES/VIEWS/DATABASES;
 * statements that write tables or the catalog go to exec_*.c (run_exec).
 * Anything else is SILT_UNSUPPORTED naming the statement.
 */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "sql/binder_int.h"
#include "sql/exec.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "sql/plan.h"
#include "sql/prepared.h"
#include "sql/settings.h"
#include "util/mem.h"
#include "util/time.h"

struct sql_result {
    arena *arena;
    engine_ctx ctx;
    engine_op *op;
    const col_type *schema;
    int has_rows;
    int is_text;
    int opened, finished;
    arena *out_arena; /* dense copies of chunks with a selection */
};

/* ---------------------------------------------------------------- sessions */

/* A table's folder as the session opens it (its S3 options): a merge's pending copies. */
static silt_status open_table_store(void *payload, const char *location, io_store **out,
                                    silt_error *err)
{
    return sql_session_store_open(payload, location, 0, out, err);
}

silt_status sql_session_new(sql_session **out, const sql_session_options *opts, silt_error *err)
{
    arena *a = arena_new(opts ? opts->parent : NULL, "sql session");
    sql_session *s;
    silt_status rc = SILT_OK;
    if (a == NULL)
        return err_nomem(err);
    s = arena_calloc(a, 1, sizeof(*s));
    if (s == NULL) {
        arena_free(a);
        return err_nomem(err);
    }
    s->arena = a;
    s->budget = arena_budget(a);
    if (s->budget == NULL) {
        s->own_budget = mem_budget_new(sql_settings_default_memory_limit());
        if (s->own_budget == NULL) {
            arena_free(a);
            return err_nomem(err);
        }
        s->budget = s->own_budget;
        arena_set_budget(a, s->own_budget);
    }
    s->database = arena_strdup(a, "default");
    s->pool = opts ? opts->pool : NULL;
    s->wrap_table_store = opts ? opts->wrap_table_store : NULL;
    s->wrap_payload = opts ? opts->wrap_payload : NULL;
    s->store_opts = opts ? opts->store : NULL;
    s->parent = opts ? opts->parent : NULL;
    atomic_init(&s->interrupt, 0);
    if (opts != NULL && opts->warehouse != NULL) {
        /* Spark qualifies the warehouse once and creates it when it is missing. */
        char *root = io_location_qualify(opts->warehouse, NULL);
        rc = root != NULL ? sql_session_store_open(s, root, 1, &s->warehouse, err) : err_nomem(err);
        mem_free(root);
        if (rc == SILT_OK)
            rc = catalog_open(&s->cat, s->warehouse, err);
        if (rc == SILT_OK)
            catalog_set_store_opener(s->cat, open_table_store, s);
        if (rc != SILT_OK)
            err_context(err, "while opening warehouse \"%s\"", opts->warehouse);
    }
    if (rc != SILT_OK) {
        sql_session_free(s);
        return rc;
    }
    *out = s;
    return SILT_OK;
}

void sql_session_free(sql_session *s)
{
    if (s == NULL)
        return;
    mem_budget *own = s->own_budget;
    catalog_free(s->cat);
    io_store_free(s->warehouse);
    sql_line_memo_clear(&s->line_memo);
    arena_free(s->arena);
    mem_budget_free(own);
}

mem_budget *sql_session_budget(const sql_session *s) { return s->budget; }

void sql_session_set_stream_runner(sql_session *s, sql_stream_fn fn, void *payload)
{
    s->stream_fn = fn;
    s->stream_payload = payload;
}

static silt_status session_set(sql_session *s, const char *key, const char *value,
                               silt_error *err);

/* Copies the settings list from the oldest setting on, so the copy lists them alike. */
static silt_status copy_settings(sql_session *t, const sql_setting *it, silt_error *err)
{
    if (it == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(copy_settings(t, it->next, err));
    return session_set(t, it->key, it->value, err);
}

silt_status sql_session_new_sibling(sql_session *s, sql_session **out, silt_error *err)
{
    sql_session_options o = SQL_SESSION_OPTIONS_INIT;
    sql_session *t = NULL;
    silt_status rc;
    o.warehouse = s->warehouse != NULL ? io_store_root(s->warehouse) : NULL;
    o.pool = s->pool;
    o.wrap_table_store = s->wrap_table_store;
    o.wrap_payload = s->wrap_payload;
    o.parent = s->parent;
    o.store = s->store_opts;
    rc = sql_session_new(&t, &o, err);
    if (rc == SILT_OK && (t->database = arena_strdup(t->arena, s->database)) == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK)
        rc = copy_settings(t, s->settings, err);
    if (rc != SILT_OK) {
        sql_session_free(t);
        return rc;
    }
    t->stream_fn = s->stream_fn;
    t->stream_payload = s->stream_payload;
    *out = t;
    return SILT_OK;
}

/* The object stores' keys (S3A, ABFS and GCS connector names), checked by io/. */
static int is_store_key(const char *key)
{
    static const char *const prefixes[] = {"fs.s3a.", "spark.hadoop.fs.s3a.", "fs.azure.",
                                           "spark.hadoop.fs.azure.", "fs.gs.",
                                           "spark.hadoop.fs.gs."};
    size_t idx;
    for (idx = 0; idx < sizeof(prefixes) / sizeof(prefixes[0]); idx++)
        if (util_str_starts_with(key, prefixes[idx]))
            return 1;
    return 0;
}

/* A SET value without the quotes SET keeps: 'http://host:9000' -> http://host:9000. */
static const char *unquoted(arena *a, const char *value)
{
    size_t len = strlen(value);
    if (len >= 2 && (value[0] == '\'' || value[0] == '"') && value[len - 1] == value[0])
        return arena_strndup(a, value + 1, len - 2);
    return value;
}

silt_status sql_session_store_open(sql_session *s, const char *location, int create_root,
                                   io_store **out, silt_error *err)
{
    const sql_setting *it;
    size_t n_db = s->store_opts ? s->store_opts->n : 0, n = n_db, idx;
    const char **keys, **values;
    io_store_options opts = IO_STORE_OPTIONS_INIT;
    silt_status rc;
    for (it = s->settings; it != NULL; it = it->next)
        n += is_store_key(it->key);
    if (n == 0)
        return io_store_open(out, location, create_root, err);
    keys = mem_calloc(n, sizeof(char *));
    values = mem_calloc(n, sizeof(char *));
    rc = keys && values ? SILT_OK : err_nomem(err);
    for (idx = 0; rc == SILT_OK && idx < n_db; idx++) {
        keys[idx] = s->store_opts->keys[idx];
        values[idx] = s->store_opts->values[idx];
    }
    /* The settings list is newest first: lay it out oldest first so the newest wins. */
    for (idx = n, it = s->settings; rc == SILT_OK && it != NULL; it = it->next) {
        if (!is_store_key(it->key))
            continue;
        idx--;
        keys[idx] = it->key;
        values[idx] = it->value;
    }
    opts.keys = keys;
    opts.values = values;
    opts.n = n;
    if (rc == SILT_OK)
        rc = io_store_open_with(out, location, create_root, &opts, err);
    mem_free(keys);
    mem_free(values);
    return rc;
}

const char *sql_session_get(const sql_session *s, const char *key)
{
    const sql_setting *it;
    for (it = s->settings; it != NULL; it = it->next)
        if (strcmp(it->key, key) == 0)
            return it->value;
    return NULL;
}

static silt_status session_set(sql_session *s, const char *key, const char *value,
                               silt_error *err)
{
    sql_setting *it;
    for (it = s->settings; it != NULL; it = it->next)
        if (strcmp(it->key, key) == 0)
            break;
    if (it == NULL) {
        it = arena_calloc(s->arena, 1, sizeof(*it));
        if (it == NULL || (it->key = arena_strdup(s->arena, key)) == NULL)
            return err_nomem(err);
        it->next = s->settings;
        s->settings = it;
    }
    /* Old values stay in the session arena: settings change rarely. */
    it->value = arena_strdup(s->arena, value);
    return it->value ? SILT_OK : err_nomem(err);
}

silt_status sql_session_set(sql_session *s, const char *key, const char *value,
                            silt_error *err)
{
    sql_setting **slot = &s->settings;
    s->settings_gen++;
    if (value != NULL)
        return session_set(s, key, value, err);
    while (*slot != NULL) {
        if (strcmp((*slot)->key, key) == 0)
            *slot = (*slot)->next;
        else
            slot = &(*slot)->next;
    }
    return SILT_OK;
}

void sql_session_interrupt(sql_session *s)
{
    atomic_store_explicit(&s->interrupt, 1, memory_order_relaxed);
}

void sql_session_clear_interrupt(sql_session *s)
{
    atomic_store_explicit(&s->interrupt, 0, memory_order_relaxed);
}

void sql_session_set_read_only(sql_session *s, int on)
{
    s->read_only = on != 0;
}

int64_t sql_session_rows_written(const sql_session *s)
{
    return s->rows_written;
}

silt_status sql_session_set_databases(sql_session *s, const char *const *names, size_t n,
                                      silt_error *err)
{
    char **copy = n ? arena_calloc(s->arena, n, sizeof(char *)) : NULL;
    if (n && copy == NULL)
        return err_nomem(err);
    for (size_t k = 0; k < n; k++)
        if ((copy[k] = arena_strdup(s->arena, names[k])) == NULL)
            return err_nomem(err);
    s->allowed_dbs = copy;
    s->n_allowed_dbs = n;
    return SILT_OK;
}

silt_status sql_session_check_database(const sql_session *s, const char *db, silt_error *err)
{
    if (s->n_allowed_dbs == 0 || db == NULL)
        return SILT_OK;
    for (size_t k = 0; k < s->n_allowed_dbs; k++)
        if (util_str_casecmp(s->allowed_dbs[k], db) == 0)
            return SILT_OK;
    return err_set(err, SILT_INVALID, "permission denied for database \"%s\"", db);
}

/* ---------------------------------------------------------------- results */

const col_type *sql_result_schema(const sql_result *res) { return res->schema; }
int sql_result_has_rows(const sql_result *res) { return res->has_rows; }
int sql_result_is_text(const sql_result *res) { return res->is_text; }
const time_zone *sql_result_zone(const sql_result *res) { return res->ctx.zone; }

void sql_result_free(sql_result *res)
{
    if (res == NULL)
        return;
    if (res->opened)
        engine_op_close(res->op);
    arena_free(res->arena);
}

static silt_status result_new(sql_result **out, sql_session *s, silt_error *err)
{
    arena *a = arena_new(s->arena, "sql statement");
    sql_result *res;
    const char *ansi;
    if (a == NULL)
        return err_nomem(err);
    res = arena_calloc(a, 1, sizeof(*res));
    if (res == NULL) {
        arena_free(a);
        return err_nomem(err);
    }
    res->arena = a;
    engine_ctx_init(&res->ctx, a);
    res->ctx.pool = s->pool;
    res->ctx.interrupt = &s->interrupt;
    ansi = sql_session_get(s, "spark.sql.ansi.enabled");
    if (ansi != NULL)
        res->ctx.ansi = util_str_casecmp(ansi, "false") != 0;
    res->ctx.zone = sql_session_zone(s);
    sql_settings_apply(&res->ctx, s->budget, sql_session_get(s, "temp_directory"));
    *out = res;
    return SILT_OK;
}

/* Every row of chunk (no selection) copied into arena a. */
static silt_status deep_copy(const engine_chunk *chunk, arena *a, col_batch *dense,
                             col_batch **out, silt_error *err)
{
    int64_t n = chunk->batch.n_rows, row;
    int64_t *rows = arena_alloc(a, sizeof(int64_t) * (size_t)(n ? n : 1));
    size_t idx;
    *dense = chunk->batch;
    dense->cols = arena_calloc(a, dense->n_cols + 1, sizeof(col_vec *));
    if (rows == NULL || dense->cols == NULL)
        return err_nomem(err);
    for (row = 0; row < n; row++)
        rows[row] = row;
    for (idx = 0; idx < dense->n_cols; idx++)
        SILT_RETURN_IF_ERROR(vec_gather(&dense->cols[idx], a, chunk->batch.cols[idx], rows, n,
                                        err));
    *out = dense;
    return SILT_OK;
}

/* The next chunk with live rows, or *out = NULL at the end. */
static silt_status next_chunk(sql_result *res, engine_chunk **out, silt_error *err)
{
    engine_chunk *chunk;
    *out = NULL;
    if (!res->has_rows || res->finished)
        return SILT_OK;
    if (!res->opened) {
        res->opened = 1;
        SILT_RETURN_IF_ERROR(engine_op_open(res->op, err));
    }
    for (;;) {
        SILT_RETURN_IF_ERROR(engine_op_next(res->op, &chunk, err));
        if (chunk == NULL) {
            res->finished = 1;
            return SILT_OK;
        }
        if (chunk->n_sel > 0)
            break;
    }
    *out = chunk;
    return SILT_OK;
}

/*
 * The live rows of chunk as a dense batch in arena a. With deep set every
 * column is copied (vec_compact passes a dense column through as it is).
 */
static silt_status dense_copy(const engine_chunk *chunk, arena *a, int deep, col_batch **out,
                              silt_error *err)
{
    col_batch *dense = arena_calloc(a, 1, sizeof(*dense));
    size_t idx;
    if (dense == NULL)
        return err_nomem(err);
    if (deep && chunk->sel == NULL)
        return deep_copy(chunk, a, dense, out, err);
    *dense = chunk->batch;
    dense->n_rows = chunk->n_sel;
    dense->cols = arena_calloc(a, dense->n_cols + 1, sizeof(col_vec *));
    if (dense->cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < dense->n_cols; idx++)
        SILT_RETURN_IF_ERROR(vec_compact(&dense->cols[idx], a, chunk->batch.cols[idx],
                                         chunk->sel, chunk->n_sel, err));
    *out = dense;
    return SILT_OK;
}

silt_status sql_result_next(sql_result *res, col_batch **out, silt_error *err)
{
    engine_chunk *chunk;
    *out = NULL;
    SILT_RETURN_IF_ERROR(next_chunk(res, &chunk, err));
    if (chunk == NULL)
        return SILT_OK;
    if (chunk->sel == NULL && chunk->batch.n_rows == chunk->n_sel) {
        *out = &chunk->batch;
        return SILT_OK;
    }
    if (res->out_arena == NULL && (res->out_arena = arena_new(res->arena, "result batch")) == NULL)
        return err_nomem(err);
    arena_reset(res->out_arena);
    return dense_copy(chunk, res->out_arena, 0, out, err);
}

/* Whether the vector and every buffer under it lives in arena a. */
static int vec_lives_in(const col_vec *v, const arena *a)
{
    size_t idx;
    if (v == NULL)
        return 1;
    if (!arena_owns(a, v) || v->dictionary != NULL ||
        (v->validity != NULL && !arena_owns(a, v->validity)) ||
        (v->values != NULL && !arena_owns(a, v->values)) ||
        (v->offsets != NULL && !arena_owns(a, v->offsets)) ||
        (v->data != NULL && !arena_owns(a, v->data)) ||
        (v->children != NULL && !arena_owns(a, v->children)))
        return 0;
    for (idx = 0; idx < v->n_children; idx++)
        if (!vec_lives_in(v->children[idx], a))
            return 0;
    return 1;
}

/*
 * A dense chunk made entirely in the root operator's batch arena (an
 * aggregate's, a sort's or a projection's output) leaves with that arena:
 * the operator gets a fresh one, the consumer's release frees this one.
 */
static arena *take_batch(sql_result *res, const engine_chunk *chunk)
{
    const arena *a = res->op->batch_arena;
    size_t idx;
    if (chunk->sel != NULL || chunk->batch.n_rows != chunk->n_sel || !arena_owns(a, chunk) ||
        !arena_owns(a, chunk->batch.cols))
        return NULL;
    for (idx = 0; idx < chunk->batch.n_cols; idx++)
        if (!vec_lives_in(chunk->batch.cols[idx], a))
            return NULL;
    return engine_op_take_batch_arena(res->op);
}

silt_status sql_result_next_owned(sql_result *res, col_batch **out, arena **owner_out,
                                  silt_error *err)
{
    engine_chunk *chunk;
    arena *owner;
    silt_status rc;
    *out = NULL;
    *owner_out = NULL;
    SILT_RETURN_IF_ERROR(next_chunk(res, &chunk, err));
    if (chunk == NULL)
        return SILT_OK;
    if ((owner = take_batch(res, chunk)) != NULL) {
        *out = &chunk->batch;
        *owner_out = owner;
        return SILT_OK;
    }
    /* Otherwise one copy of the live rows (the batch points into arenas
     * the operators reuse). */
    owner = arena_new(NULL, "exported batch");
    if (owner == NULL)
        return err_nomem(err);
    rc = dense_copy(chunk, owner, 1, out, err);
    if (rc != SILT_OK) {
        arena_free(owner);
        *out = NULL;
        return rc;
    }
    *owner_out = owner;
    return SILT_OK;
}

/* A result of string rows made in memory (SET, EXPLAIN). */
static silt_status string_result(sql_result *res, const char *const *names, size_t n_cols,
                                 const char *const *cells, size_t n_rows, silt_error *err)
{
    res->has_rows = 1;
    return sql_exec_strings_op(res->arena, &res->ctx, names, n_cols, cells, n_rows, &res->schema,
                               &res->op, err);
}

/* ---------------------------------------------------------------- statements */

static void binder_init(binder *b, sql_session *s, sql_result *res, const char *text, size_t len)
{
    memset(b, 0, sizeof(*b));
    b->s = s;
    b->a = res->arena;
    b->ctx = &res->ctx;
    b->text = text;
    b->text_len = len;
    b->line_memo = &s->line_memo;
    b->want_file_name = s->stmt_file_name;
}

/*
 * Whether the statement's own text calls input_file_name() or names
 * _metadata (binder.want_file_name): the text, not the tree, so a view's
 * text bound later finds the flag set; only the statement's span, so a
 * script of many statements is not read again for each.
 */
static int stmt_wants_file_name(const sql_stmt *stmt, const char *text, size_t len)
{
    size_t end = stmt->end > stmt->pos && stmt->end <= len ? stmt->end : len;
    for (size_t idx = stmt->pos; text != NULL && idx + 9 <= end; idx++)
        if ((idx + 15 <= end && util_str_ncasecmp(text + idx, "input_file_name", 15) == 0) ||
            util_str_ncasecmp(text + idx, "_metadata", 9) == 0)
            return 1;
    return 0;
}

static silt_status run_query(sql_session *s, sql_result *res, const sql_query *q,
                             const char *text, size_t len, silt_error *err)
{
    binder b;
    plan p;
    const lp_node *logical;
    binder_init(&b, s, res, text, len);
    b.defer_subqueries = 1;
    SILT_RETURN_IF_ERROR(sql_plan_statement_logical(&b, q, &p, &logical, err));
    res->op = p.op;
    res->schema = p.op->schema;
    res->has_rows = 1;
    return SILT_OK;
}

/* EXPLAIN ANALYZE: runs op to its end, counting, and closes it. */
static silt_status run_to_end(engine_op *op, explain_run *run, silt_error *err)
{
    int64_t start = time_monotonic_nanos();
    engine_chunk *chunk;
    silt_status rc = engine_op_open(op, err);
    while (rc == SILT_OK) {
        rc = engine_op_next(op, &chunk, err);
        if (rc != SILT_OK || chunk == NULL)
            break;
        run->rows += chunk->n_sel;
    }
    engine_op_close(op);
    run->nanos = time_monotonic_nanos() - start;
    return rc;
}

static silt_status run_explain(sql_session *s, sql_result *res, const sql_stmt *stmt,
                               const char *text, size_t len, silt_error *err)
{
    binder b;
    plan p;
    const lp_node *logical;
    buf out = BUF_INIT;
    const char *name = "plan";
    const char *cell;
    silt_status rc;
    if (stmt->u.explain.stmt->kind != SQL_STMT_QUERY)
        return err_set(err, SILT_UNSUPPORTED, "EXPLAIN of a statement other than a query is not "
                       "supported yet");
    binder_init(&b, s, res, text, len);
    b.defer_subqueries = 1;
    res->ctx.analyze = stmt->u.explain.mode == SQL_EXPLAIN_ANALYZE;
    SILT_RETURN_IF_ERROR(sql_plan_statement_logical(&b, stmt->u.explain.stmt->u.query, &p,
                                                    &logical, err));
    if (res->ctx.analyze) {
        explain_run run = {0, 0};
        SILT_RETURN_IF_ERROR(run_to_end(p.op, &run, err));
        rc = sql_explain_plan_analyzed(&b, &p, &run, &out, err);
        res->ctx.analyze = 0;
    } else {
        /* the optimized logical tree, then the operators one lowering of it gave */
        rc = logical != NULL ? sql_explain_logical(logical, &out, err) : SILT_OK;
        if (rc == SILT_OK)
            rc = sql_explain_plan(&b, &p, &out, err);
    }
    cell = rc == SILT_OK ? arena_strdup(res->arena, out.data ? buf_cstr(&out) : "") : NULL;
    buf_clear(&out);
    SILT_RETURN_IF_ERROR(rc);
    if (cell == NULL)
        return err_nomem(err);
    /* The plan was only described: the sources it opened close with the arena. */
    res->is_text = 1;
    return string_result(res, &name, 1, &cell, 1, err);
}

/*
 * SET -v: the settings silt knows (with their effective values, set or
 * not) and then the others set in this session, with what they mean.
 */
/*
 * What SET shows for key: memory_limit is the database's budget (any
 * session may have changed it), other keys what this session stored.
 */
static const char *shown_value(sql_session *s, const char *key, arena *a)
{
    if (strcmp(key, "memory_limit") == 0)
        return arena_sprintf(a, "%lld", (long long)mem_budget_limit(s->budget));
    return sql_session_get(s, key);
}

/* SET / RESET memory_limit act on the database's budget, for every session. */
static void apply_memory_limit(sql_session *s, const char *key, const char *value)
{
    int64_t bytes;
    if (key != NULL && strcmp(key, "memory_limit") != 0)
        return;
    if (value != NULL && sql_settings_parse_size(value, &bytes))
        mem_budget_set_limit(s->budget, bytes);
    else if (value == NULL)
        mem_budget_reset_limit(s->budget);
}

/*
 * Redaction of SET's output, as Spark's SQLConf.redactOptions: a value is
 * shown as REDACTED when its key or the value itself matches the session's
 * spark.sql.redaction.options.regex or Spark's spark.redaction.regex (a
 * core setting that SET cannot change, as in Spark). Spark writes them as
 * Java regexes; silt reads them as POSIX extended ones with Java's leading
 * "(?i)" flag, and SET refuses a pattern that does not compile.
 */
#define REDACTED "*********(redacted)"
#define REDACTION_OPTIONS_KEY "spark.sql.redaction.options.regex"
#define REDACTION_SECRETS_KEY "spark.redaction.regex"
#define REDACTION_OPTIONS_DEFAULT "(?i)url"
#define REDACTION_SECRETS_DEFAULT "(?i)secret|password|token|access[.]?key"

static int redaction_compile(const char *pattern, regex_t *re)
{
    int flags = REG_EXTENDED | REG_NOSUB;
    if (strncmp(pattern, "(?i)", 4) == 0) {
        flags |= REG_ICASE;
        pattern += 4;
    }
    return regcomp(re, pattern, flags) == 0;
}

static silt_status check_redaction_setting(const char *key, const char *value, silt_error *err)
{
    regex_t re;
    if (strcmp(key, REDACTION_SECRETS_KEY) == 0)
        return err_set(err, SILT_INVALID, "[CANNOT_MODIFY_CONFIG] Cannot modify the value of the "
                       "Spark config: \"%s\".", key);
    if (strcmp(key, REDACTION_OPTIONS_KEY) != 0)
        return SILT_OK;
    if (!redaction_compile(value, &re))
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.DEFAULT] the value '%s' of the "
                       "config \"%s\" is invalid: it must be a regular expression (silt reads it "
                       "as a POSIX extended one, with Java's leading (?i))", value, key);
    regfree(&re);
    return SILT_OK;
}

/* Whether SET shows value of key as REDACTED. */
static int redacts(sql_session *s, const char *key, const char *value)
{
    const char *options = sql_session_get(s, REDACTION_OPTIONS_KEY);
    const char *patterns[2] = {options != NULL ? options : REDACTION_OPTIONS_DEFAULT,
                               REDACTION_SECRETS_DEFAULT};
    for (size_t idx = 0; idx < 2; idx++) {
        regex_t re;
        int hit;
        if (!redaction_compile(patterns[idx], &re))
            return 1; /* SET checked it: only on no memory */
        hit = regexec(&re, key, 0, NULL, 0) == 0 ||
              (value != NULL && regexec(&re, value, 0, NULL, 0) == 0);
        regfree(&re);
        if (hit)
            return 1;
    }
    return 0;
}

static const char *shown_redacted(sql_session *s, const char *key, const char *value)
{
    return value != NULL && redacts(s, key, value) ? REDACTED : value;
}

static silt_status show_settings_verbose(sql_session *s, sql_result *res, silt_error *err)
{
    static const char *const names[] = {"key", "value", "meaning"};
    const sql_setting *it;
    size_t n = 0, idx = 0, known;
    const char **cells;
    for (it = s->settings; it != NULL; it = it->next)
        n++;
    for (known = 0; sql_settings_known_keys[known] != NULL; known++)
        n++;
    cells = arena_calloc(res->arena, n * 3 + 1, sizeof(char *));
    if (cells == NULL)
        return err_nomem(err);
    for (known = 0; sql_settings_known_keys[known] != NULL; known++) {
        const char *k = sql_settings_known_keys[known];
        cells[idx++] = k;
        cells[idx++] = sql_settings_effective(k, shown_value(s, k, res->arena), res->arena);
        cells[idx++] = sql_settings_meaning(k);
    }
    for (it = s->settings; it != NULL; it = it->next) {
        if (sql_settings_canonical_key(it->key) != it->key)
            continue; /* listed above */
        cells[idx++] = it->key;
        cells[idx++] = shown_redacted(s, it->key, it->value);
        cells[idx++] = sql_settings_meaning(it->key) ? sql_settings_meaning(it->key) : "";
    }
    for (known = 0; known < idx; known++)
        if (cells[known] == NULL)
            return err_nomem(err);
    return string_result(res, names, 3, cells, idx / 3, err);
}

/*
 * SET fs.s3a.* (also spark.hadoop.fs.s3a.*): the store keys, checked by the io
 * back end that acts on them (io_store_check_option) and kept unquoted for
 * the stores the session opens next (sql_session_store_open).
 */
static silt_status set_store_key(sql_session *s, sql_result *res, const char *key,
                                 const char *value, silt_error *err)
{
    static const char *const names[] = {"key", "value"};
    const char *cells[2];
    if ((value = unquoted(res->arena, value)) == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(io_store_check_option(key, value, err));
    SILT_RETURN_IF_ERROR(session_set(s, key, value, err));
    cells[0] = key;
    cells[1] = value;
    return string_result(res, names, 2, cells, 1, err);
}

const time_zone *sql_session_zone(const sql_session *s)
{
    const char *id = sql_session_get(s, SQL_SESSION_TIME_ZONE);
    const time_zone *z = id != NULL ? time_zone_find(id, strlen(id)) : NULL;
    return z != NULL ? z : time_zone_default(); /* SET checked the id: NULL only on no memory */
}

/*
 * spark.sql.session.timeZone takes what Spark's getZoneId takes; SET TIME
 * ZONE LOCAL is the machine's zone (Spark's JVM default). The interval
 * forms of SET TIME ZONE are refused by name.
 */
static silt_status check_time_zone(const char **value, silt_error *err)
{
    const time_zone *z;
    silt_status rc;
    if (util_str_casecmp(*value, "LOCAL") == 0) {
        *value = time_zone_id(time_zone_default());
        return SILT_OK;
    }
    if (util_str_ncasecmp(*value, "INTERVAL", 8) == 0)
        return err_set(err, SILT_UNSUPPORTED, "SET TIME ZONE INTERVAL is not supported yet; "
                       "write the offset as a string: SET TIME ZONE '+08:00'");
    rc = time_zone_get(*value, strlen(*value), &z, err);
    if (rc == SILT_INVALID)
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.TIME_ZONE] The value '%s' in the "
                       "config \"%s\" is invalid. Cannot resolve the given timezone.", *value,
                       SQL_SESSION_TIME_ZONE);
    return rc;
}

static silt_status run_set(sql_session *s, sql_result *res, const sql_stmt *stmt,
                           silt_error *err)
{
    static const char *const names[] = {"key", "value"};
    const char *key = stmt->u.set.key, *value = stmt->u.set.value;
    s->settings_gen++; /* kept plans bind again (plan.h) */
    if (key != NULL && strcmp(key, "-v") == 0 && value == NULL)
        return show_settings_verbose(s, res, err);
    if (key != NULL && value != NULL && is_store_key(key))
        return set_store_key(s, res, key, value, err);
    if (key != NULL && value != NULL) {
        SILT_RETURN_IF_ERROR(check_redaction_setting(key, value, err));
        SILT_RETURN_IF_ERROR(sql_settings_normalize(key, value, res->arena, &key, &value, err));
    }
    else if (key != NULL)
        key = sql_settings_canonical_key(key);
    if (stmt->kind == SQL_STMT_RESET) {
        sql_setting **slot = &s->settings;
        while (*slot != NULL) {
            if (key == NULL || strcmp((*slot)->key, key) == 0)
                *slot = (*slot)->next;
            else
                slot = &(*slot)->next;
        }
        apply_memory_limit(s, key, NULL);
        return SILT_OK;
    }
    if (key != NULL && value != NULL) {
        if (strcmp(key, "spark.sql.ansi.enabled") == 0 && util_str_casecmp(value, "true") != 0 &&
            util_str_casecmp(value, "false") != 0)
            return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.DEFAULT] the value '%s' of "
                           "the config \"%s\" is invalid: it must be true or false", value, key);
        if (strcmp(key, SQL_SESSION_TIME_ZONE) == 0)
            SILT_RETURN_IF_ERROR(check_time_zone(&value, err));
        SILT_RETURN_IF_ERROR(session_set(s, key, value, err));
        apply_memory_limit(s, key, value);
        {
            const char *cells[2] = {key, value};
            return string_result(res, names, 2, cells, 1, err);
        }
    }
    if (key != NULL) {
        const char *v = sql_session_get(s, key);
        const char *cells[2] = {key, v ? v : "<undefined>"};
        if (v == NULL && strcmp(key, "spark.sql.ansi.enabled") == 0)
            cells[1] = "true";
        if (v == NULL && strcmp(key, SQL_SESSION_TIME_ZONE) == 0)
            cells[1] = time_zone_id(time_zone_default());
        const char *shown = sql_settings_effective(key, shown_value(s, key, res->arena), res->arena);
        if (shown != NULL)
            cells[1] = shown;
        cells[1] = shown_redacted(s, key, cells[1]);
        return string_result(res, names, 2, cells, 1, err);
    }
    {
        size_t n = 0, idx = 0;
        const sql_setting *it;
        const char **cells;
        for (it = s->settings; it != NULL; it = it->next)
            n++;
        cells = arena_calloc(res->arena, n * 2 + 1, sizeof(char *));
        if (cells == NULL)
            return err_nomem(err);
        for (it = s->settings; it != NULL; it = it->next) {
            cells[idx++] = it->key;
            cells[idx++] = shown_redacted(s, it->key, it->value);
        }
        return string_result(res, names, 2, cells, n, err);
    }
}

static sql_view **find_view_slot(sql_session *s, const char *name)
{
    sql_view **slot;
    for (slot = &s->views; *slot != NULL; slot = &(*slot)->next)
        if (util_str_casecmp((*slot)->name, name) == 0)
            return slot;
    return NULL;
}

/*
 * The column list of CREATE TEMPORARY VIEW v (a INT, b STRING) USING fmt: the
 * reader's schema, as Spark's createTempViewUsing gives it (a DDL string for
 * the schema option); NULL without a list.
 */
static silt_status view_schema_option(sql_session *s, const sql_stmt *stmt, const char **out,
                                      silt_error *err)
{
    const sql_ident_list *cols = &stmt->u.create_view.columns;
    buf ddl = BUF_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    *out = NULL;
    if (cols->n == 0)
        return SILT_OK;
    for (idx = 0; idx < stmt->u.create_view.options.n; idx++)
        if (util_str_casecmp(stmt->u.create_view.options.items[idx].key, "schema") == 0)
            return err_set(err, SILT_BIND, "a view over files takes its schema once: as the "
                           "column list or as the schema option, not both");
    for (idx = 0; rc == SILT_OK && idx < cols->n; idx++) {
        if (stmt->u.create_view.column_types == NULL ||
            stmt->u.create_view.column_types[idx].type == NULL)
            rc = err_set(err, SILT_PARSE, "[PARSE_SYNTAX_ERROR] column `%s` of a view USING %s "
                         "needs a type", cols->items[idx].name, stmt->u.create_view.using_fmt);
        if (rc == SILT_OK)
            rc = buf_printf(&ddl, err, "%s`%s` ", idx ? ", " : "", cols->items[idx].name);
        if (rc == SILT_OK)
            rc = sql_spark_type_name(stmt->u.create_view.column_types[idx].type, &ddl, err);
    }
    if (rc == SILT_OK && (*out = arena_strdup(s->arena, buf_cstr(&ddl))) == NULL)
        rc = err_nomem(err);
    buf_clear(&ddl);
    return rc;
}

static silt_status run_create_view(sql_session *s, sql_result *res, const sql_stmt *stmt,
                                   const char *text, size_t len, silt_error *err)
{
    const sql_name *name = &stmt->u.create_view.name;
    const char *vname = name->parts[name->n_parts - 1].name;
    sql_view **slot, *v;
    size_t idx;
    if (!stmt->u.create_view.temporary) {
        binder b;
        binder_init(&b, s, res, text, len);
        return sql_exec_create_view(&b, stmt, err);
    }
    if (name->n_parts != 1)
        return err_set(err, SILT_BIND, "[TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS] temporary view "
                       "name \"%s\" must be a single name", vname);
    slot = find_view_slot(s, vname);
    if (slot != NULL && !stmt->u.create_view.or_replace) {
        if (stmt->u.create_view.if_not_exists)
            return SILT_OK;
        return err_set(err, SILT_EXISTS, "[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the "
                       "temporary view `%s` because it already exists", vname);
    }
    v = arena_calloc(s->arena, 1, sizeof(*v));
    if (v == NULL || (v->name = arena_strdup(s->arena, vname)) == NULL)
        return err_nomem(err);
    if (stmt->u.create_view.query != NULL) {
        /* Keep the text and check it now, so a broken view fails at creation as in Spark. */
        binder b;
        plan p;
        uint32_t qpos = stmt->u.create_view.query->pos;
        view_frame self = {vname, NULL};
        binder_init(&b, s, res, text, len);
        /* Spark refuses a view that reads itself, also through other views. */
        b.views = &self;
        b.defer_subqueries = 1; /* checked, not run */
        SILT_RETURN_IF_ERROR(sql_plan_statement_query(&b, stmt->u.create_view.query, &p, err));
        v->query_text = arena_strndup(s->arena, text + qpos, stmt->end - qpos);
        if (v->query_text == NULL)
            return err_nomem(err);
        if (stmt->u.create_view.columns.n > 0)
            return err_set(err, SILT_UNSUPPORTED, "column lists on views are not supported yet");
    } else {
        const sql_kv_list *o = &stmt->u.create_view.options;
        const char *schema_ddl = NULL;
        v->format = arena_strdup(s->arena, stmt->u.create_view.using_fmt
                                               ? stmt->u.create_view.using_fmt : "delta");
        SILT_RETURN_IF_ERROR(view_schema_option(s, stmt, &schema_ddl, err));
        v->n_options = o->n + (schema_ddl != NULL);
        v->options = arena_calloc(s->arena, v->n_options * 2 + 1, sizeof(char *));
        if (v->format == NULL || v->options == NULL)
            return err_nomem(err);
        for (idx = 0; idx < o->n; idx++) {
            v->options[2 * idx] = arena_strdup(s->arena, o->items[idx].key);
            v->options[2 * idx + 1] =
                arena_strdup(s->arena, o->items[idx].value ? o->items[idx].value : "");
        }
        if (schema_ddl != NULL) {
            v->options[2 * idx] = "schema";
            v->options[2 * idx + 1] = schema_ddl;
        }
        {
            /* Open it once so that a wrong path or option fails here. */
            binder b;
            plan p;
            sql_table_ref ref;
            binder_init(&b, s, res, text, len);
            memset(&ref, 0, sizeof(ref));
            ref.pos = stmt->pos;
            v->next = NULL;
            {
                const char *path = NULL;
                for (idx = 0; idx < o->n; idx++)
                    if (util_str_casecmp(o->items[idx].key, "path") == 0)
                        path = o->items[idx].value;
                if (path == NULL)
                    return err_set(err, SILT_BIND, "CREATE TEMPORARY VIEW %s USING %s needs "
                                   "OPTIONS (path '...')", vname, v->format);
                SILT_RETURN_IF_ERROR(sql_source_path(&b, v->format, path, v->options,
                                                     v->n_options * 2, NULL,
                                                 -1, INT64_MIN, &p, stmt->pos, err));
            }
        }
    }
    if (slot != NULL) {
        v->next = (*slot)->next;
        *slot = v;
    } else {
        v->next = s->views;
        s->views = v;
    }
    return SILT_OK;
}

static silt_status run_drop_view(sql_session *s, sql_result *res, const sql_stmt *stmt,
                                 const char *text, size_t len, silt_error *err)
{
    const sql_name *name = &stmt->u.drop.name;
    sql_view **slot =
        name->n_parts == 1 ? find_view_slot(s, name->parts[name->n_parts - 1].name) : NULL;
    if (slot == NULL) {
        binder b;
        int found;
        binder_init(&b, s, res, text, len);
        SILT_RETURN_IF_ERROR(sql_exec_drop_view(&b, stmt, &found, err));
        if (found || stmt->u.drop.if_exists)
            return SILT_OK;
        if (name->n_parts == 2)
            return err_set(err, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The table or view "
                           "`spark_catalog`.`%s`.`%s` cannot be found", name->parts[0].name,
                           name->parts[1].name);
        return err_set(err, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The table or view "
                       "`spark_catalog`.`%s`.`%s` cannot be found", s->database,
                       name->parts[name->n_parts - 1].name);
    }
    *slot = (*slot)->next;
    return SILT_OK;
}

static silt_status run_use(sql_session *s, const sql_stmt *stmt, silt_error *err)
{
    const sql_name *name = &stmt->u.use.name;
    const char *db = name->parts[name->n_parts - 1].name;
    if (s->cat != NULL) {
        cat_state *state;
        int found;
        SILT_RETURN_IF_ERROR(catalog_load(s->cat, &state, err));
        found = catalog_state_find_database(state, db) != NULL;
        catalog_state_free(state);
        if (!found)
            return err_set(err, SILT_NOTFOUND, "[SCHEMA_NOT_FOUND] The schema `%s` cannot be "
                           "found", db);
    } else if (util_str_casecmp(db, "default") != 0) {
        return err_set(err, SILT_NOTFOUND, "[SCHEMA_NOT_FOUND] The schema `%s` cannot be found "
                       "(no warehouse is open)", db);
    }
    s->database = arena_strdup(s->arena, db);
    return s->database ? SILT_OK : err_nomem(err);
}

/* Spark's simpleString of a type: int, bigint, decimal(10,2), struct<a:int>, ... */
silt_status sql_spark_type_name(const col_type *t, buf *out, silt_error *err)
{
    static const char *const names[] = {
        "void", "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal",
        "string", "binary", "date", "timestamp", "timestamp_ntz", "struct", "array", "map"};
    size_t idx;
    switch (t->id) {
    case COL_DECIMAL: return buf_printf(out, err, "decimal(%d,%d)", t->precision, t->scale);
    case COL_STRUCT:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "struct<", err));
        for (idx = 0; idx < t->n_fields; idx++) {
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s:", idx ? "," : "", t->fields[idx].name));
            SILT_RETURN_IF_ERROR(sql_spark_type_name(t->fields[idx].type, out, err));
        }
        return buf_append_char(out, '>', err);
    case COL_ARRAY:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "array<", err));
        SILT_RETURN_IF_ERROR(sql_spark_type_name(t->fields[0].type, out, err));
        return buf_append_char(out, '>', err);
    case COL_MAP:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "map<", err));
        SILT_RETURN_IF_ERROR(sql_spark_type_name(t->fields[0].type, out, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        SILT_RETURN_IF_ERROR(sql_spark_type_name(t->fields[1].type, out, err));
        return buf_append_char(out, '>', err);
    default:
        return buf_append_str(out, (size_t)t->id < sizeof(names) / sizeof(names[0])
                                       ? names[t->id] : "unknown", err);
    }
}

/* DESCRIBE [TABLE] name / DESCRIBE QUERY q: col_name, data_type, comment per column. */
static silt_status run_describe(sql_session *s, sql_result *res, const sql_stmt *stmt,
                                const char *text, size_t len, silt_error *err)
{
    static const char *const names[] = {"col_name", "data_type", "comment"};
    binder b;
    plan p;
    const char **cells;
    size_t idx;
    binder_init(&b, s, res, text, len);
    if (stmt->u.describe.what == SQL_DESCRIBE_QUERY) {
        b.defer_subqueries = 1; /* described, not run */
        SILT_RETURN_IF_ERROR(sql_plan_statement_query(&b, stmt->u.describe.query, &p, err));
    } else if (stmt->u.describe.what == SQL_DESCRIBE_TABLE && stmt->u.describe.column.n_parts == 0) {
        sql_table_ref ref;
        memset(&ref, 0, sizeof(ref));
        ref.kind = SQL_TABLE_NAMED;
        ref.pos = stmt->u.describe.name.pos;
        ref.u.named.name = stmt->u.describe.name;
        SILT_RETURN_IF_ERROR(sql_plan_table_ref(&b, &ref, NULL, &p, err));
    } else {
        return err_set(err, SILT_UNSUPPORTED, "DESCRIBE HISTORY, DETAIL, DATABASE and of a single "
                       "column are not supported by the query engine yet");
    }
    cells = arena_calloc(res->arena, p.scope.n * 3 + 1, sizeof(char *));
    if (cells == NULL)
        return err_nomem(err);
    for (idx = 0; idx < p.scope.n; idx++) {
        buf t = BUF_INIT;
        silt_status rc = sql_spark_type_name(p.scope.cols[idx].type, &t, err);
        cells[3 * idx] = p.scope.cols[idx].name;
        cells[3 * idx + 1] = rc == SILT_OK ? arena_strdup(res->arena, buf_cstr(&t)) : NULL;
        cells[3 * idx + 2] = NULL;
        buf_clear(&t);
        SILT_RETURN_IF_ERROR(rc);
        if (cells[3 * idx + 1] == NULL)
            return err_nomem(err);
    }
    {
        size_t n_rows = p.scope.n;
        SILT_RETURN_IF_ERROR(sql_exec_describe_more(&b, stmt, &cells, &n_rows, err));
        return string_result(res, names, 3, cells, n_rows, err);
    }
}

/* Spark's SHOW ... LIKE pattern: '*' any text, '|' alternatives, case-insensitive. */
static int show_like(const char *pattern, const char *name)
{
    const char *alt = pattern;
    if (pattern == NULL)
        return 1;
    while (alt != NULL) {
        const char *bar = strchr(alt, '|');
        size_t n = bar ? (size_t)(bar - alt) : strlen(alt);
        const char *p = alt, *end = alt + n, *t = name, *star_p = NULL, *star_t = NULL;
        int ok;
        while (*t != '\0') {
            if (p < end && *p == '*') {
                star_p = ++p;
                star_t = t;
            } else if (p < end && (*p | 0x20) == (*t | 0x20)) {
                p++;
                t++;
            } else if (star_p != NULL) {
                p = star_p;
                t = ++star_t;
            } else {
                break;
            }
        }
        while (p < end && *p == '*')
            p++;
        ok = *t == '\0' && p == end;
        if (ok)
            return 1;
        alt = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* Sorts the first n rows of three cells by their second (the name). */
static void sort_rows3(const char **cells, size_t n)
{
    size_t i, j, k;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && cells[3 * j + 1] != NULL && cells[3 * j - 2] != NULL &&
                    strcmp(cells[3 * j + 1], cells[3 * j - 2]) < 0;
             j--)
            for (k = 0; k < 3; k++) {
                const char *tmp = cells[3 * j + k];
                cells[3 * j + k] = cells[3 * (j - 1) + k];
                cells[3 * (j - 1) + k] = tmp;
            }
}

/* SHOW TBLPROPERTIES/COLUMNS/CREATE TABLE/PARTITIONS, DESCRIBE DATABASE (exec_show.c). */
static silt_status run_catalog_rows(sql_session *s, sql_result *res, const sql_stmt *stmt,
                                    const char *text, size_t len, silt_error *err)
{
    binder b;
    const char *const *names;
    const char **cells;
    size_t n_cols, n_rows;
    binder_init(&b, s, res, text, len);
    SILT_RETURN_IF_ERROR(sql_exec_show(&b, stmt, &names, &n_cols, &cells, &n_rows, err));
    return string_result(res, names, n_cols, cells, n_rows, err);
}

/* SHOW TABLES [IN db] [LIKE 'p'] (with temporary views) and SHOW DATABASES. */
static silt_status run_show(sql_session *s, sql_result *res, const sql_stmt *stmt,
                            const char *text, size_t len, silt_error *err)
{
    static const char *const table_cols[] = {"namespace", "tableName", "isTemporary"};
    static const char *const view_cols[] = {"namespace", "viewName", "isTemporary"};
    static const char *const db_cols[] = {"namespace"};
    const char *db = stmt->u.show.in.n_parts > 0
                         ? stmt->u.show.in.parts[stmt->u.show.in.n_parts - 1].name : s->database;
    cat_state *state = NULL;
    const char **cells;
    size_t n = 0, n_catalog = 0, cap, idx;
    const sql_view *v;
    silt_status rc = SILT_OK;
    int dbs = stmt->u.show.what == SQL_SHOW_DATABASES;
    if (!dbs && stmt->u.show.what != SQL_SHOW_TABLES && stmt->u.show.what != SQL_SHOW_VIEWS)
        return run_catalog_rows(s, res, stmt, text, len, err);
    if (s->cat != NULL)
        SILT_RETURN_IF_ERROR(catalog_load(s->cat, &state, err));
    cap = 4 + (state ? state->n_tables + state->n_databases : 0);
    for (v = s->views; v != NULL; v = v->next)
        cap++;
    cells = arena_calloc(res->arena, cap * 3 + 3, sizeof(char *));
    if (cells == NULL) {
        catalog_state_free(state);
        return err_nomem(err);
    }
    if (dbs) {
        if (state == NULL)
            cells[n++] = "default";
        for (idx = 0; state != NULL && idx < state->n_databases; idx++)
            if (show_like(stmt->u.show.like, state->databases[idx].name))
                cells[n++] = arena_strdup(res->arena, state->databases[idx].name);
    } else {
        for (idx = 0; state != NULL && idx < state->n_tables; idx++) {
            const cat_table *t = &state->tables[idx];
            if (util_str_casecmp(t->database, db) != 0 || !show_like(stmt->u.show.like, t->name) ||
                (stmt->u.show.what == SQL_SHOW_VIEWS && t->kind != CAT_VIEW))
                continue;
            cells[3 * n] = arena_strdup(res->arena, t->database);
            cells[3 * n + 1] = arena_strdup(res->arena, t->name);
            cells[3 * n++ + 2] = "false";
        }
        n_catalog = n;
        for (v = s->views; v != NULL; v = v->next) {
            if (!show_like(stmt->u.show.like, v->name))
                continue;
            cells[3 * n] = "";
            cells[3 * n + 1] = v->name;
            cells[3 * n++ + 2] = "true";
        }
    }
    catalog_state_free(state);
    for (idx = 0; idx < n * (dbs ? 1 : 3); idx++)
        if (cells[idx] == NULL)
            rc = err_nomem(err);
    SILT_RETURN_IF_ERROR(rc);
    if (!dbs) /* Spark lists the catalog's names sorted, then the temporary views */
        sort_rows3(cells, n_catalog);
    return string_result(res, dbs ? db_cols
                              : stmt->u.show.what == SQL_SHOW_VIEWS ? view_cols : table_cols,
                         dbs ? 1 : 3, cells, n, err);
}

static const char *stmt_name(sql_stmt_kind k)
{
    static const char *const names[] = {
        "query", "CREATE TABLE", "CREATE VIEW", "CREATE DATABASE", "DROP", "USE", "SHOW",
        "DESCRIBE", "INSERT", "UPDATE", "DELETE", "MERGE", "ALTER TABLE", "RESTORE", "VACUUM",
        "OPTIMIZE", "GENERATE", "CONVERT", "SET", "RESET", "EXPLAIN", "CACHE", "UNCACHE",
        "CREATE BRANCH/TAG", "DROP BRANCH/TAG", "USE REFERENCE", "LIST REFERENCES",
        "MERGE BRANCH", "REFRESH", "TRUNCATE", "REFRESH STREAMING TABLE", "CREATE EXTERNAL",
        "ASSIGN BRANCH/TAG", "SHOW REFERENCE", "SHOW LOG"};
    return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "statement";
}

/* Statements that write tables (exec_*.c); some return rows. */
static silt_status run_exec(sql_session *s, sql_result *res, const sql_stmt *stmt,
                            const char *text, size_t len, silt_error *err)
{
    binder b;
    exec_out out = {NULL, NULL};
    silt_status rc;
    binder_init(&b, s, res, text, len);
    switch (stmt->kind) {
    case SQL_STMT_CREATE_TABLE: rc = sql_exec_create_table(&b, stmt, &out, err); break;
    case SQL_STMT_INSERT: rc = sql_exec_insert(&b, stmt, &out, err); break;
    case SQL_STMT_DELETE: rc = sql_exec_delete(&b, stmt, &out, err); break;
    case SQL_STMT_UPDATE: rc = sql_exec_update(&b, stmt, &out, err); break;
    case SQL_STMT_MERGE: rc = sql_exec_merge(&b, stmt, &out, err); break;
    case SQL_STMT_CREATE_DATABASE: rc = sql_exec_create_database(&b, stmt, &out, err); break;
    case SQL_STMT_DROP:
        rc = stmt->u.drop.what == SQL_OBJ_EXTERNAL_DATA_SOURCE ||
                     stmt->u.drop.what == SQL_OBJ_EXTERNAL_FILE_FORMAT
                 ? sql_exec_drop_external(&b, stmt, &out, err)
                 : sql_exec_drop(&b, stmt, &out, err);
        break;
    case SQL_STMT_CREATE_EXTERNAL: rc = sql_exec_create_external(&b, stmt, &out, err); break;
    case SQL_STMT_RESTORE: rc = sql_exec_restore(&b, stmt, &out, err); break;
    case SQL_STMT_ALTER_TABLE: rc = sql_exec_alter_table(&b, stmt, &out, err); break;
    case SQL_STMT_VACUUM: rc = sql_exec_vacuum(&b, stmt, &out, err); break;
    case SQL_STMT_OPTIMIZE: rc = sql_exec_optimize(&b, stmt, &out, err); break;
    case SQL_STMT_GENERATE: rc = sql_exec_generate(&b, stmt, &out, err); break;
    case SQL_STMT_CONVERT: rc = sql_exec_convert(&b, stmt, &out, err); break;
    case SQL_STMT_CREATE_REF:
    case SQL_STMT_DROP_REF:
    case SQL_STMT_ASSIGN_REF:
    case SQL_STMT_USE_REF:
    case SQL_STMT_SHOW_REF:
    case SQL_STMT_LIST_REFS:
    case SQL_STMT_SHOW_LOG:
    case SQL_STMT_MERGE_BRANCH: rc = sql_exec_ref(&b, stmt, &out, err); break;
    default:
        rc = stmt->u.describe.what == SQL_DESCRIBE_DETAIL
                 ? sql_exec_describe_detail(&b, stmt, &out, err)
                 : sql_exec_describe_history(&b, stmt, &out, err);
        break;
    }
    /* branch-local commits the statement made: recorded in their references (branch.c) */
    if (rc == SILT_OK)
        rc = sql_branch_record(&b, err);
    if (rc == SILT_OK && out.op != NULL) {
        res->op = out.op;
        res->schema = out.schema;
        res->has_rows = 1;
    }
    return rc;
}

/* Whether stmt may write a table or change the catalog (sql_session_set_read_only). */
static int stmt_writes(const sql_stmt *stmt)
{
    switch (stmt->kind) {
    case SQL_STMT_QUERY:
    case SQL_STMT_EXPLAIN:
    case SQL_STMT_SET:
    case SQL_STMT_RESET:
    case SQL_STMT_USE:
    case SQL_STMT_SHOW:
    case SQL_STMT_DESCRIBE:
    case SQL_STMT_LIST_REFS:
    case SQL_STMT_USE_REF:
    case SQL_STMT_SHOW_REF:
    case SQL_STMT_SHOW_LOG:
    case SQL_STMT_CACHE:
    case SQL_STMT_UNCACHE:
    case SQL_STMT_REFRESH: return 0;
    case SQL_STMT_CREATE_VIEW: return !stmt->u.create_view.temporary;
    default: return 1;
    }
}

static silt_status run_stmt(sql_session *s, sql_result *res, const sql_stmt *stmt,
                            const char *text, size_t len, silt_error *err)
{
    if (s->read_only && stmt_writes(stmt))
        return err_set(err, SILT_INVALID, "cannot execute %s in a read-only session",
                       stmt_name(stmt->kind));
    s->stmt_file_name = stmt_wants_file_name(stmt, text, len);
    if ((stmt->kind == SQL_STMT_CREATE_TABLE && stmt->u.create_table.streaming) ||
        stmt->kind == SQL_STMT_REFRESH_STREAMING) {
        if (s->stream_fn == NULL)
            return err_set(err, SILT_UNSUPPORTED, "streaming tables need the stream layer, which "
                           "this session was opened without");
        return s->stream_fn(s->stream_payload, s, stmt, text, len, err);
    }
    switch (stmt->kind) {
    case SQL_STMT_CREATE_TABLE:
    case SQL_STMT_INSERT:
    case SQL_STMT_DELETE:
    case SQL_STMT_UPDATE:
    case SQL_STMT_MERGE:
    case SQL_STMT_CREATE_DATABASE:
    case SQL_STMT_RESTORE:
    case SQL_STMT_VACUUM:
    case SQL_STMT_OPTIMIZE:
    case SQL_STMT_GENERATE:
    case SQL_STMT_CONVERT:
    case SQL_STMT_CREATE_EXTERNAL:
    case SQL_STMT_ALTER_TABLE:
    case SQL_STMT_CREATE_REF:
    case SQL_STMT_DROP_REF:
    case SQL_STMT_ASSIGN_REF:
    case SQL_STMT_USE_REF:
    case SQL_STMT_SHOW_REF:
    case SQL_STMT_LIST_REFS:
    case SQL_STMT_SHOW_LOG:
    case SQL_STMT_MERGE_BRANCH: return run_exec(s, res, stmt, text, len, err);
    case SQL_STMT_QUERY: return run_query(s, res, stmt->u.query, text, len, err);
    case SQL_STMT_EXPLAIN: return run_explain(s, res, stmt, text, len, err);
    case SQL_STMT_SET:
    case SQL_STMT_RESET: return run_set(s, res, stmt, err);
    case SQL_STMT_CREATE_VIEW: return run_create_view(s, res, stmt, text, len, err);
    case SQL_STMT_USE: return run_use(s, stmt, err);
    case SQL_STMT_DESCRIBE:
        if (stmt->u.describe.what == SQL_DESCRIBE_HISTORY ||
            stmt->u.describe.what == SQL_DESCRIBE_DETAIL)
            return run_exec(s, res, stmt, text, len, err);
        if (stmt->u.describe.what == SQL_DESCRIBE_DATABASE)
            return run_catalog_rows(s, res, stmt, text, len, err);
        return run_describe(s, res, stmt, text, len, err);
    case SQL_STMT_SHOW: return run_show(s, res, stmt, text, len, err);
    case SQL_STMT_DROP:
        if (stmt->u.drop.what == SQL_OBJ_VIEW)
            return run_drop_view(s, res, stmt, text, len, err);
        if (stmt->u.drop.what == SQL_OBJ_TABLE || stmt->u.drop.what == SQL_OBJ_DATABASE ||
            stmt->u.drop.what == SQL_OBJ_EXTERNAL_DATA_SOURCE ||
            stmt->u.drop.what == SQL_OBJ_EXTERNAL_FILE_FORMAT)
            return run_exec(s, res, stmt, text, len, err);
        break;
    default: break;
    }
    return err_set(err, SILT_UNSUPPORTED, "%s statements are not supported by the query engine "
                   "yet", stmt_name(stmt->kind));
}

static silt_status add_position(silt_error *err, const char *text, size_t len, uint32_t pos)
{
    int line, col;
    sql_line_col(text, len, pos, &line, &col);
    err_position(err, (int64_t)pos, line, col);
    return err_context(err, "in the statement at line %d, column %d", line, col);
}

silt_status sql_execute_each(sql_session *s, const char *text, sql_result_fn each_fn,
                             void *payload, silt_error *err)
{
    arena *a = arena_new(s->arena, "sql text");
    sql_stmt_list *stmts;
    size_t len = strlen(text), idx;
    silt_status rc;
    if (a == NULL)
        return err_nomem(err);
    sql_session_clear_interrupt(s); /* a new call: an earlier request is spent */
    sql_line_memo_clear(&s->line_memo); /* a new text, maybe at an old address */
    rc = sql_parse(a, text, &stmts, err);
    for (idx = 0; rc == SILT_OK && idx < stmts->n; idx++) {
        sql_result *res = NULL;
        const sql_stmt *stmt = stmts->items[idx];
        rc = result_new(&res, s, err);
        if (rc == SILT_OK)
            rc = run_stmt(s, res, stmt, text, len, err);
        if (rc == SILT_OK)
            rc = each_fn(res, payload, err);
        if (rc != SILT_OK && (err == NULL || strstr(err->message, "(line ") == NULL))
            add_position(err, text, len, stmt->pos);
        sql_result_free(res);
    }
    arena_free(a);
    return rc;
}

silt_status sql_session_run_parsed(sql_session *s, const sql_stmt *stmt, const char *text, size_t len,
                               sql_result **out, silt_error *err)
{
    sql_result *res = NULL;
    silt_status rc = result_new(&res, s, err);
    if (out != NULL)
        *out = NULL;
    if (rc == SILT_OK)
        rc = run_stmt(s, res, stmt, text, len, err);
    if (rc == SILT_OK && out == NULL) {
        col_batch *batch;
        do
            rc = sql_result_next(res, &batch, err);
        while (rc == SILT_OK && batch != NULL);
    }
    if (rc != SILT_OK && (err == NULL || strstr(err->message, "(line ") == NULL))
        add_position(err, text, len, stmt->pos);
    if (rc == SILT_OK && out != NULL) {
        *out = res;
        res = NULL;
    }
    sql_result_free(res);
    return rc;
}

int sql_session_result_on_free(sql_result *res, void (*fn)(void *), void *payload)
{
    return arena_on_cleanup(res->arena, fn, payload);
}

static void free_text_arena(void *payload) { arena_free(payload); }

silt_status sql_execute(sql_session *s, const char *text, sql_result **out, silt_error *err)
{
    arena *a = arena_new(NULL, "sql text");
    sql_stmt_list *stmts;
    size_t len = strlen(text), idx;
    silt_status rc;
    sql_session_clear_interrupt(s);
    if (out != NULL)
        *out = NULL;
    if (a == NULL)
        return err_nomem(err);
    sql_line_memo_clear(&s->line_memo); /* a new text, maybe at an old address */
    rc = sql_parse(a, text, &stmts, err);
    for (idx = 0; rc == SILT_OK && idx < stmts->n; idx++) {
        sql_result *res = NULL;
        const sql_stmt *stmt = stmts->items[idx];
        rc = result_new(&res, s, err);
        if (rc == SILT_OK)
            rc = run_stmt(s, res, stmt, text, len, err);
        if (rc == SILT_OK && (out == NULL || idx + 1 < stmts->n)) {
            /* Earlier statements run to the end (a query's errors surface here). */
            col_batch *batch;
            do
                rc = sql_result_next(res, &batch, err);
            while (rc == SILT_OK && batch != NULL);
        }
        if (rc != SILT_OK && (err == NULL || strstr(err->message, "(line ") == NULL))
            add_position(err, text, len, stmt->pos);
        if (rc == SILT_OK && out != NULL && idx + 1 == stmts->n) {
            /* Column names point into the parse tree: it lives as long as the result. */
            if (arena_on_cleanup(res->arena, free_text_arena, a) == 0) {
                rc = err_nomem(err);
            } else {
                a = NULL;
                *out = res;
                res = NULL;
            }
        }
        sql_result_free(res);
    }
    arena_free(a);
    return rc;
}
