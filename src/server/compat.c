/*
 * compat.c - what PostgreSQL clients send that is not Spark SQL
 * (docs/server.md, "Client statements and catalog queries").
 *
 *  - BEGIN / START TRANSACTION / COMMIT / END / ROLLBACK / ABORT: accepted,
 *    statements stay autocommit (a ROLLBACK after a write says so in a
 *    WARNING); SET / SHOW / RESET of PostgreSQL's client parameters;
 *    DEALLOCATE; DISCARD ALL; USE of a database the user may use.
 *  - version(), current_database(), current_schema() (whole statement
 *    SELECT fn() answered with PostgreSQL's column name; inside other
 *    statements replaced by their value).
 *  - the catalog queries of psql 15's \dt, \d, \d NAME, \l and \dn, found
 *    by the catalog names they read and answered from SHOW TABLES,
 *    SHOW DATABASES and DESCRIBE. The \d NAME footers (policies, statistics,
 *    publications, inheritance) are empty results: silt tables have none.
 *  - any other statement naming pg_catalog or information_schema: refused
 *    with 0A000, not guessed at.
 *
 * A silt database is both a PostgreSQL database (the start-up packet's, as
 * USE) and a schema (the Schema column of \dt), since Spark's two-part
 * names db.table read as schema.table.
 */
#define _POSIX_C_SOURCE 200809L
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "server/server_int.h"
#include "server/wire.h"
#include "util/mem.h"

const srv_param srv_params[SRV_N_PARAMS] = {
    {"application_name", "application_name", ""},
    {"client_encoding", "client_encoding", "UTF8"},
    {"datestyle", "DateStyle", "ISO, MDY"},
    {"timezone", "TimeZone", "UTC"},
    {"intervalstyle", "IntervalStyle", "postgres"},
    {"standard_conforming_strings", "standard_conforming_strings", "on"},
    {"extra_float_digits", NULL, "1"},
    {"search_path", NULL, "\"$user\", public"},
    {"statement_timeout", NULL, "0"},
    {"client_min_messages", NULL, "notice"},
};

void srv_table_init(srv_table *t, int n_cols, const char *const *names, const uint32_t *oids)
{
    memset(t, 0, sizeof(*t));
    t->n_cols = n_cols;
    for (int k = 0; k < n_cols && k < SRV_TABLE_MAX_COLS; k++) {
        snprintf(t->names[k], sizeof(t->names[k]), "%s", names[k]);
        t->oids[k] = oids ? oids[k] : 25;
    }
}

silt_status srv_table_cell(srv_table *t, const char *text, silt_error *err)
{
    uint8_t len[4];
    uint32_t n = text ? (uint32_t)strlen(text) : 0xffffffffu;
    len[0] = (uint8_t)(n >> 24);
    len[1] = (uint8_t)(n >> 16);
    len[2] = (uint8_t)(n >> 8);
    len[3] = (uint8_t)n;
    SILT_RETURN_IF_ERROR(buf_append(&t->cells, len, 4, err));
    return text ? buf_append(&t->cells, text, strlen(text), err) : SILT_OK;
}

void srv_table_clear(srv_table *t) { buf_clear(&t->cells); }

void srv_compat_clear(srv_compat *c)
{
    srv_table_clear(&c->table);
    buf_clear(&c->rewritten);
}

/* ---------------------------------------------------------------- text helpers */

/* sql with runs of white space as one space, lower case outside quotes; trailing ';' gone. */
static char *normalize(const char *sql)
{
    size_t len = strlen(sql), n = 0, idx;
    char *out = mem_alloc(len + 1), quote = 0;
    if (out == NULL)
        return NULL;
    for (idx = 0; idx < len; idx++) {
        char c = sql[idx];
        if (quote) {
            out[n++] = c;
            if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            out[n++] = c;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (n > 0 && out[n - 1] != ' ')
                out[n++] = ' ';
        } else {
            out[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
    }
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == ';'))
        n--;
    out[n] = '\0';
    memmove(out, out[0] == ' ' ? out + 1 : out, strlen(out[0] == ' ' ? out + 1 : out) + 1);
    return out;
}

static int starts(const char *s, const char *word)
{
    size_t n = strlen(word);
    return strncmp(s, word, n) == 0 && (s[n] == '\0' || s[n] == ' ' || s[n] == ';');
}

/* A value of SET: 'x', "x", x, or DEFAULT -> NULL; copies up to cap. */
static void unquote(const char *v, char *out, size_t cap)
{
    size_t n = strlen(v);
    if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
        v++;
        n -= 2;
    }
    if (n >= cap)
        n = cap - 1;
    memcpy(out, v, n);
    out[n] = '\0';
}

static int param_index(const char *name)
{
    for (int k = 0; k < SRV_N_PARAMS; k++)
        if (util_str_casecmp(srv_params[k].name, name) == 0)
            return k;
    if (util_str_casecmp(name, "time zone") == 0 || util_str_casecmp(name, "names") == 0)
        return util_str_casecmp(name, "names") == 0 ? 1 : 3;
    return -1;
}

static const char *param_value(srv_session *s, int k)
{
    return s->params[k] ? s->params[k] : srv_params[k].initial;
}

/* ---------------------------------------------------------------- client statements */

static silt_status set_param(srv_session *s, int k, const char *value, const char **state,
                             silt_error *err)
{
    char v[256];
    unquote(value, v, sizeof(v));
    *state = "22023";
    if (util_str_casecmp(v, "default") == 0) {
        mem_free(s->params[k]);
        s->params[k] = NULL;
        snprintf(v, sizeof(v), "%s", srv_params[k].initial);
    }
    switch (k) {
    case 1:
        if (util_str_casecmp(v, "UTF8") != 0 && util_str_casecmp(v, "UTF-8") != 0 &&
            util_str_casecmp(v, "unicode") != 0)
            return err_set(err, SILT_UNSUPPORTED, "silt serve speaks UTF8 only, not client "
                           "encoding \"%s\"", v);
        snprintf(v, sizeof(v), "UTF8");
        break;
    case 2:
        if (strstr(v, "ISO") == NULL && strstr(v, "iso") == NULL)
            return err_set(err, SILT_UNSUPPORTED, "silt serve writes dates in ISO style only, "
                           "not DateStyle \"%s\"", v);
        snprintf(v, sizeof(v), "ISO, MDY");
        break;
    case 3:
        if (util_str_casecmp(v, "UTC") != 0 && util_str_casecmp(v, "Etc/UTC") != 0 &&
            util_str_casecmp(v, "GMT") != 0 && util_str_casecmp(v, "Z") != 0 &&
            strcmp(v, "0") != 0 && strcmp(v, "+00") != 0 && strcmp(v, "+00:00") != 0)
            return err_set(err, SILT_UNSUPPORTED, "silt serve shows timestamps in UTC only, not "
                           "in time zone \"%s\"", v);
        snprintf(v, sizeof(v), "UTC");
        break;
    case 4:
        if (util_str_casecmp(v, "postgres") != 0)
            return err_set(err, SILT_UNSUPPORTED, "IntervalStyle \"%s\" is not supported", v);
        break;
    case 5:
        if (util_str_casecmp(v, "on") != 0)
            return err_set(err, SILT_UNSUPPORTED, "standard_conforming_strings can only be on");
        break;
    case 6: {
        int64_t n;
        if (!util_str_to_int64(v, strlen(v), &n) || n < -15 || n > 3)
            return err_set(err, SILT_INVALID, "extra_float_digits must be an integer from -15 "
                           "to 3");
        /* floats are always sent shortest-exact, which is what 1 to 3 mean since PostgreSQL 12 */
        if (n < 1)
            return err_set(err, SILT_UNSUPPORTED, "silt serve sends floats shortest-exact "
                           "only (extra_float_digits 1 to 3)");
        break;
    }
    case 7:
        /* the current database is the schema; anything else is not followed */
        break;
    case 8:
        if (strcmp(v, "0") != 0)
            return err_set(err, SILT_UNSUPPORTED, "statement_timeout is not supported by silt "
                           "serve (cancel requests are)");
        break;
    default:
        break;
    }
    if (k == 7 && util_str_casecmp(v, srv_params[7].initial) != 0 &&
        util_str_casecmp(v, "public") != 0 && util_str_casecmp(v, s->database) != 0)
        return err_set(err, SILT_UNSUPPORTED, "search_path other than the current database is "
                       "not followed: use USE db or db.table names");
    mem_free(s->params[k]);
    s->params[k] = mem_strdup(v);
    if (s->params[k] == NULL)
        return err_nomem(err);
    if (srv_params[k].report)
        return srv_send_parameter_status(s, srv_params[k].report, v);
    return SILT_OK;
}

static silt_status one_cell(srv_compat *out, const char *col, const char *value, const char *tag,
                            silt_error *err)
{
    const char *names[1] = {col};
    srv_table_init(&out->table, 1, names, NULL);
    out->kind = SRV_C_TABLE;
    snprintf(out->tag, sizeof(out->tag), "%s", tag);
    out->table.n_rows = 1;
    return srv_table_cell(&out->table, value, err);
}

static silt_status txn_statement(srv_session *s, const char *n, srv_compat *out, int *done)
{
    *done = 1;
    out->kind = SRV_C_COMMAND;
    if (starts(n, "begin") || starts(n, "start transaction")) {
        if (s->txn == 'I') {
            s->txn = 'T';
            s->txn_wrote = 0;
        }
        snprintf(out->tag, sizeof(out->tag), "BEGIN");
    } else if (starts(n, "commit") || starts(n, "end")) {
        snprintf(out->tag, sizeof(out->tag), s->txn == 'E' ? "ROLLBACK" : "COMMIT");
        s->txn = 'I';
    } else if (starts(n, "rollback") || starts(n, "abort")) {
        if (strstr(n, " to ") != NULL || strstr(n, "savepoint") != NULL) {
            *done = 0;
            return SILT_OK;
        }
        if (s->txn_wrote)
            srv_put_error(&s->out, 'N', "WARNING", "25000", "statements in silt serve commit "
                          "as they run: ROLLBACK undid no write", NULL, NULL, 0, NULL);
        s->txn = 'I';
        s->txn_wrote = 0;
        snprintf(out->tag, sizeof(out->tag), "ROLLBACK");
    } else {
        *done = 0;
        out->kind = SRV_C_NONE;
    }
    return SILT_OK;
}

/* ---------------------------------------------------------------- catalog queries */

void srv_names_clear(srv_name_list *l)
{
    mem_free(l->names);
    mem_free(l->extra);
    l->names = NULL;
    l->extra = NULL;
    l->n = 0;
}

/* Reads string columns 0 and (want_two) 1 of a query's result. Rows with col1 "true" in skip_col are left. */
silt_status srv_read_names(srv_session *s, const char *sql, int want_two, int skip_col,
                              srv_name_list *out, silt_error *err)
{
    struct ArrowArrayStream st;
    struct ArrowSchema schema;
    struct ArrowArray a;
    silt_status rc = SILT_OK;
    memset(out, 0, sizeof(*out));
    memset(&schema, 0, sizeof(schema));
    if (silt_conn_exec(s->conn, sql, &st) != SILT_OK)
        return err_set(err, silt_conn_errcode(s->conn), "%s", silt_conn_error_message(s->conn));
    if (st.get_schema(&st, &schema) != 0 || schema.n_children < (want_two ? 2 : 1) ||
        strcmp(schema.children[0]->format, "u") != 0 ||
        (want_two && strcmp(schema.children[1]->format, "u") != 0))
        rc = err_set(err, SILT_CORRUPT, "unexpected result of \"%s\"", sql);
    while (rc == SILT_OK) {
        int64_t row;
        memset(&a, 0, sizeof(a));
        if (st.get_next(&st, &a) != 0) {
            rc = err_set(err, SILT_IO, "%s", st.get_last_error(&st));
            break;
        }
        if (a.release == NULL)
            break;
        for (row = 0; rc == SILT_OK && row < a.length; row++) {
            char cells[2][SRV_MAX_NAME * 2];
            int k, skip = 0;
            for (k = 0; k < (want_two ? 2 : 1); k++) {
                const struct ArrowArray *c = a.children[k];
                int64_t i = c->offset + a.offset + row;
                const int32_t *off = c->buffers[1];
                const char *data = c->buffers[2];
                const uint8_t *valid = c->buffers[0];
                int32_t len = off[i + 1] - off[i];
                if (valid && !(valid[i >> 3] & (1u << (i & 7))))
                    len = 0;
                if (len >= (int32_t)sizeof(cells[k]))
                    len = sizeof(cells[k]) - 1;
                memcpy(cells[k], data + off[i], (size_t)len);
                cells[k][len] = '\0';
            }
            if (skip_col >= 0 && skip_col < schema.n_children &&
                strcmp(schema.children[skip_col]->format, "b") == 0) {
                const struct ArrowArray *c = a.children[skip_col];
                int64_t i = c->offset + a.offset + row;
                skip = (((const uint8_t *)c->buffers[1])[i >> 3] >> (i & 7)) & 1;
            }
            if (skip)
                continue;
            void *g1 = mem_realloc(out->names, (out->n + 1) * sizeof(*out->names));
            void *g2 = g1 ? mem_realloc(out->extra, (out->n + 1) * sizeof(*out->extra)) : NULL;
            if (g1)
                out->names = g1;
            if (g2)
                out->extra = g2;
            if (g1 == NULL || g2 == NULL) {
                rc = err_nomem(err);
                break;
            }
            memcpy(out->names[out->n], cells[want_two ? 1 : 0], sizeof(cells[0]));
            memcpy(out->extra[out->n], cells[0], sizeof(cells[0]));
            out->n++;
        }
        a.release(&a);
    }
    if (schema.release)
        schema.release(&schema);
    st.release(&st);
    if (rc != SILT_OK)
        srv_names_clear(out);
    return rc;
}

uint32_t srv_table_oid(const char *db, const char *table)
{
    uint32_t h = 2166136261u;
    const char *p;
    for (p = db; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    h = (h ^ '.') * 16777619u;
    for (p = table; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    return 16384 + h % 2000000000u;
}

/* The string after `marker` up to the closing quote (the query's literal), into out. */
static int literal_after(const char *n, const char *marker, char *out, size_t cap)
{
    const char *p = strstr(n, marker), *end;
    if (p == NULL)
        return 0;
    p += strlen(marker);
    end = strchr(p, '\'');
    if (end == NULL || (size_t)(end - p) >= cap)
        return 0;
    memcpy(out, p, (size_t)(end - p));
    out[end - p] = '\0';
    return 1;
}

/* psql's name pattern '^(x)$' as a POSIX regex; NULL pattern matches all. */
static int name_matches(const char *pattern, const char *name)
{
    regex_t re;
    int ok;
    if (pattern == NULL)
        return 1;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_ICASE) != 0)
        return 0;
    ok = regexec(&re, name, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

static const char *pg_type_name(const char *spark, char *out, size_t cap)
{
    static const char *const map[][2] = {
        {"int", "integer"}, {"bigint", "bigint"}, {"smallint", "smallint"},
        {"tinyint", "smallint"}, {"string", "text"}, {"double", "double precision"},
        {"float", "real"}, {"boolean", "boolean"}, {"date", "date"},
        {"timestamp", "timestamp with time zone"}, {"timestamp_ntz", "timestamp without time zone"},
        {"binary", "bytea"}, {"void", "text"},
    };
    for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
        if (strcmp(spark, map[k][0]) == 0)
            return map[k][1];
    if (strncmp(spark, "decimal", 7) == 0) {
        snprintf(out, cap, "numeric%s", spark + 7);
        return out;
    }
    return "json";
}

static silt_status list_tables(srv_session *s, const char *pattern, srv_compat *out,
                               silt_error *err)
{
    static const char *const cols[] = {"Schema", "Name", "Type", "Owner"};
    srv_name_list tables;
    size_t k;
    silt_status rc = srv_read_names(s, "SHOW TABLES", 1, 2, &tables, err);
    if (rc != SILT_OK)
        return rc;
    srv_table_init(&out->table, 4, cols, NULL);
    out->kind = SRV_C_TABLE;
    snprintf(out->tag, sizeof(out->tag), "SELECT");
    for (k = 0; rc == SILT_OK && k < tables.n; k++) {
        if (!name_matches(pattern, tables.names[k]))
            continue;
        rc = srv_table_cell(&out->table, tables.extra[k], err);
        if (rc == SILT_OK)
            rc = srv_table_cell(&out->table, tables.names[k], err);
        if (rc == SILT_OK)
            rc = srv_table_cell(&out->table, "table", err);
        if (rc == SILT_OK)
            rc = srv_table_cell(&out->table, "silt", err);
        out->table.n_rows++;
    }
    srv_names_clear(&tables);
    return rc;
}

/* The table whose made-up oid is oid, in the current database. */
static silt_status table_of_oid(srv_session *s, const char *oid_text, char *db, char *table,
                                silt_error *err)
{
    srv_name_list tables;
    size_t k;
    int64_t oid = -1;
    silt_status rc;
    util_str_to_int64(oid_text, strlen(oid_text), &oid);
    rc = srv_read_names(s, "SHOW TABLES", 1, 2, &tables, err);
    table[0] = '\0';
    for (k = 0; rc == SILT_OK && k < tables.n; k++)
        if ((int64_t)srv_table_oid(tables.extra[k], tables.names[k]) == oid) {
            snprintf(db, SRV_MAX_NAME * 2, "%s", tables.extra[k]);
            snprintf(table, SRV_MAX_NAME * 2, "%s", tables.names[k]);
        }
    srv_names_clear(&tables);
    return rc;
}

static silt_status catalog_query(srv_session *s, const char *n, srv_compat *out, int *done,
                                 silt_error *err)
{
    char pattern[256], oid[32], db[SRV_MAX_NAME * 2], table[SRV_MAX_NAME * 2];
    silt_status rc = SILT_OK;
    size_t k;
    *done = 1;
    /* \dt, \d: the relations list */
    if (strstr(n, "from pg_catalog.pg_class c") && strstr(n, "pg_get_userbyid(c.relowner)") &&
        strstr(n, "c.relkind in (")) {
        int has = literal_after(n, "c.relname operator(pg_catalog.~) '", pattern,
                                sizeof(pattern));
        return list_tables(s, has ? pattern : NULL, out, err);
    }
    /* \d NAME: find the relation */
    if (util_str_starts_with(n, "select c.oid, n.nspname, c.relname from pg_catalog.pg_class c")) {
        static const char *const cols[] = {"oid", "nspname", "relname"};
        static const uint32_t oids[] = {26, 19, 19};
        srv_name_list tables;
        int has = literal_after(n, "c.relname operator(pg_catalog.~) '", pattern,
                                sizeof(pattern));
        rc = srv_read_names(s, "SHOW TABLES", 1, 2, &tables, err);
        if (rc != SILT_OK)
            return rc;
        srv_table_init(&out->table, 3, cols, oids);
        out->kind = SRV_C_TABLE;
        snprintf(out->tag, sizeof(out->tag), "SELECT");
        for (k = 0; rc == SILT_OK && k < tables.n; k++) {
            char o[16];
            if (!name_matches(has ? pattern : NULL, tables.names[k]))
                continue;
            snprintf(o, sizeof(o), "%u", srv_table_oid(tables.extra[k], tables.names[k]));
            rc = srv_table_cell(&out->table, o, err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, tables.extra[k], err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, tables.names[k], err);
            out->table.n_rows++;
        }
        srv_names_clear(&tables);
        return rc;
    }
    /* \d NAME: the relation's flags */
    if (util_str_starts_with(n, "select c.relchecks, c.relkind, c.relhasindex") &&
        literal_after(n, "where c.oid = '", oid, sizeof(oid))) {
        static const char *const cols[] = {"relchecks", "relkind", "relhasindex", "relhasrules",
                                           "relhastriggers", "relrowsecurity",
                                           "relforcerowsecurity", "relhasoids", "relispartition",
                                           "?column?", "reltablespace", "case", "relpersistence",
                                           "relreplident", "amname"};
        static const char *const vals[] = {"0", "r", "f", "f", "f", "f", "f", "f", "f", "",
                                           "0", "", "p", "d", "delta"};
        static const uint32_t oids[] = {21, 18, 16, 16, 16, 16, 16, 16, 16, 25, 26, 25, 18, 18, 19};
        SILT_RETURN_IF_ERROR(table_of_oid(s, oid, db, table, err));
        srv_table_init(&out->table, 15, cols, oids);
        out->kind = SRV_C_TABLE;
        snprintf(out->tag, sizeof(out->tag), "SELECT");
        if (table[0]) {
            for (k = 0; rc == SILT_OK && k < 15; k++)
                rc = srv_table_cell(&out->table, vals[k], err);
            out->table.n_rows = 1;
        }
        return rc;
    }
    /* \d NAME: columns (the verbose \d+ asks for storage and statistics: refused) */
    if (util_str_starts_with(n, "select a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod)") && literal_after(n, "where a.attrelid = '", oid, sizeof(oid))) {
        static const char *const cols[] = {"attname", "format_type", "pg_get_expr",
                                           "attnotnull", "attcollation", "attidentity",
                                           "attgenerated"};
        static const uint32_t oids[] = {19, 25, 25, 16, 19, 18, 18};
        srv_name_list desc;
        buf q = BUF_INIT;
        if (strstr(n, "a.attstorage") != NULL) {
            *done = 0;
            return SILT_OK;
        }
        SILT_RETURN_IF_ERROR(table_of_oid(s, oid, db, table, err));
        srv_table_init(&out->table, 7, cols, oids);
        out->kind = SRV_C_TABLE;
        snprintf(out->tag, sizeof(out->tag), "SELECT");
        if (table[0] == '\0')
            return SILT_OK;
        rc = buf_printf(&q, err, "DESCRIBE `%s`.`%s`", db, table);
        if (rc == SILT_OK)
            rc = srv_read_names(s, buf_cstr(&q), 1, -1, &desc, err);
        buf_clear(&q);
        if (rc != SILT_OK)
            return rc;
        for (k = 0; rc == SILT_OK && k < desc.n; k++) {
            char tn[64];
            if (desc.extra[k][0] == '\0' || desc.extra[k][0] == '#')
                break;
            rc = srv_table_cell(&out->table, desc.extra[k], err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, pg_type_name(desc.names[k], tn, sizeof(tn)), err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, NULL, err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, "f", err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, NULL, err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, "", err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, "", err);
            out->table.n_rows++;
        }
        srv_names_clear(&desc);
        return rc;
    }
    /* \d NAME footers: silt tables have no policies, statistics objects, publications or parents */
    if ((strstr(n, "from pg_catalog.pg_policy pol") || strstr(n, "from pg_catalog.pg_statistic_ext") ||
         strstr(n, "from pg_catalog.pg_publication p") || strstr(n, "pg_catalog.pg_inherits i")) &&
        strstr(n, "'") != NULL) {
        static const char *const cols[] = {"?column?"};
        srv_table_init(&out->table, 1, cols, NULL);
        out->kind = SRV_C_TABLE;
        snprintf(out->tag, sizeof(out->tag), "SELECT");
        return SILT_OK;
    }
    /* \l */
    if (strstr(n, "from pg_catalog.pg_database d") && strstr(n, "d.datname as")) {
        static const char *const cols[] = {"Name", "Owner", "Encoding", "Collate", "Ctype",
                                           "ICU Locale", "Locale Provider", "Access privileges"};
        srv_name_list dbs;
        rc = srv_read_names(s, "SHOW DATABASES", 0, -1, &dbs, err);
        if (rc != SILT_OK)
            return rc;
        srv_table_init(&out->table, 8, cols, NULL);
        out->kind = SRV_C_TABLE;
        snprintf(out->tag, sizeof(out->tag), "SELECT");
        for (k = 0; rc == SILT_OK && k < dbs.n; k++) {
            const char *vals[8] = {dbs.names[k], "silt", "UTF8", "C", "C", NULL, "libc", NULL};
            if (s->user && !srv_user_may_use(s->user, dbs.names[k]))
                continue;
            for (int c = 0; rc == SILT_OK && c < 8; c++)
                rc = srv_table_cell(&out->table, vals[c], err);
            out->table.n_rows++;
        }
        srv_names_clear(&dbs);
        return rc;
    }
    /* \dn */
    if (strstr(n, "from pg_catalog.pg_namespace n") && strstr(n, "pg_get_userbyid(n.nspowner)")) {
        static const char *const cols[] = {"Name", "Owner"};
        srv_name_list dbs;
        rc = srv_read_names(s, "SHOW DATABASES", 0, -1, &dbs, err);
        if (rc != SILT_OK)
            return rc;
        srv_table_init(&out->table, 2, cols, NULL);
        out->kind = SRV_C_TABLE;
        snprintf(out->tag, sizeof(out->tag), "SELECT");
        for (k = 0; rc == SILT_OK && k < dbs.n; k++) {
            if (s->user && !srv_user_may_use(s->user, dbs.names[k]))
                continue;
            rc = srv_table_cell(&out->table, dbs.names[k], err);
            if (rc == SILT_OK)
                rc = srv_table_cell(&out->table, "silt", err);
            out->table.n_rows++;
        }
        srv_names_clear(&dbs);
        return rc;
    }
    *done = 0;
    return SILT_OK;
}

/* ---------------------------------------------------------------- database restrictions */

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Does normalized text n name database db as a qualifier (db. or `db`.) or after IN/FROM? */
static int names_database(const char *n, const char *db)
{
    char lower[SRV_MAX_NAME * 2];
    size_t len = strlen(db), idx;
    const char *p;
    char quote = 0;
    if (len >= sizeof(lower))
        return 0;
    for (idx = 0; idx <= len; idx++)
        lower[idx] = (char)(db[idx] >= 'A' && db[idx] <= 'Z' ? db[idx] + 32 : db[idx]);
    for (p = n; *p; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
            continue;
        }
        if (*p == '\'' || *p == '"') {
            quote = *p;
            continue;
        }
        if (p > n && (ident_char(p[-1]) || p[-1] == '.'))
            continue;
        if (*p == '`' && strncmp(p + 1, lower, len) == 0 && p[len + 1] == '`' &&
            (p[len + 2] == '.' || p - n >= 3))
            return 1;
        if (strncmp(p, lower, len) == 0 && !ident_char(p[len]) &&
            (p[len] == '.' || (p - n >= 3 && (strncmp(p - 3, "in ", 3) == 0 ||
                                              (p - n >= 5 && strncmp(p - 5, "from ", 5) == 0)))))
            return 1;
    }
    return 0;
}

/*
 * A user limited to some databases may not name another one in a statement
 * (db.table, SHOW TABLES IN db). Found in the text, so an alias spelled like
 * a forbidden database is refused too: the safe side.
 */
/*
 * The statement reads or names files by path rather than through the
 * catalog: delta.`/p` and the other path tables, read_files(),
 * table_changes_by_path(), OPENROWSET, a LOCATION clause (CREATE TABLE,
 * external tables and data sources). Looked for outside string literals;
 * the name of what was found goes to *what.
 */
static int names_path(const char *n, const char **what)
{
    static const char *const words[] = {"openrowset", "read_files", "table_changes_by_path"};
    static const char *const formats[] = {"delta", "parquet", "csv", "json", "text", "orc",
                                          "avro", "binaryfile"};
    const char *p;
    char quote = 0;
    if (strncmp(n, "create external ", 16) == 0) { /* data sources and external tables */
        *what = "CREATE EXTERNAL";
        return 1;
    }
    for (p = n; *p; p++) {
        size_t k;
        if (quote) {
            if (*p == quote)
                quote = 0;
            continue;
        }
        if (*p == '\'' || *p == '"') {
            quote = *p;
            continue;
        }
        if (p > n && (ident_char(p[-1]) || p[-1] == '`'))
            continue;
        for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
            size_t len = strlen(words[k]);
            if (strncmp(p, words[k], len) == 0 && !ident_char(p[len])) {
                *what = words[k];
                return 1;
            }
        }
        if (strncmp(p, "location", 8) == 0 && (p[8] == ' ' || p[8] == '\'')) {
            const char *q = p + 8; /* LOCATION 'path' (a column called location is no path) */
            while (*q == ' ')
                q++;
            if (*q == '\'') {
                *what = "LOCATION";
                return 1;
            }
        }
        for (k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
            size_t len = strlen(formats[k]);
            if (strncmp(p, formats[k], len) == 0 && p[len] == '.' && p[len + 1] == '`') {
                *what = "a path table";
                return 1;
            }
        }
    }
    return 0;
}

static silt_status check_databases(srv_session *s, const char *n, const char **state,
                                   silt_error *err)
{
    srv_name_list dbs;
    size_t k;
    silt_status rc;
    const char *what = NULL;
    if (s->user == NULL || s->user->n_databases == 0)
        return SILT_OK;
    if (names_path(n, &what)) {
        /* a path reaches any table's files, whatever its database: the safe side */
        *state = "42501";
        return err_set(err, SILT_INVALID, "permission denied: %s reads files by path, outside "
                       "the databases this user may use", what);
    }
    rc = srv_read_names(s, "SHOW DATABASES", 0, -1, &dbs, err);
    for (k = 0; rc == SILT_OK && k < dbs.n; k++)
        if (!srv_user_may_use(s->user, dbs.names[k]) && names_database(n, dbs.names[k])) {
            *state = "42501";
            rc = err_set(err, SILT_INVALID, "permission denied for database \"%s\"",
                         dbs.names[k]);
        }
    srv_names_clear(&dbs);
    return rc;
}

/* ---------------------------------------------------------------- functions */

/* Replaces version(), current_database(), current_schema() outside quotes with literals. */
static silt_status rewrite_functions(srv_session *s, const char *sql, buf *out, int *changed,
                                     silt_error *err)
{
    static const char *const fns[] = {"pg_catalog.version()", "version()",
                                      "pg_catalog.current_database()", "current_database()",
                                      "pg_catalog.current_schema()", "current_schema()"};
    size_t p = 0;
    char quote = 0;
    *changed = 0;
    while (sql[p]) {
        char c = sql[p];
        size_t k;
        int hit = 0;
        if (quote) {
            SILT_RETURN_IF_ERROR(buf_append_char(out, c, err));
            if (c == '\\' && quote != '`' && sql[p + 1]) {
                SILT_RETURN_IF_ERROR(buf_append_char(out, sql[++p], err));
            } else if (c == quote) {
                quote = 0;
            }
            p++;
            continue;
        }
        if (c == '\'' || c == '"' || c == '`')
            quote = c;
        if (p == 0 || !((sql[p - 1] >= 'a' && sql[p - 1] <= 'z') ||
                        (sql[p - 1] >= 'A' && sql[p - 1] <= 'Z') || sql[p - 1] == '_' ||
                        sql[p - 1] == '.')) {
            for (k = 0; k < sizeof(fns) / sizeof(fns[0]) && !hit; k++) {
                size_t len = strlen(fns[k]);
                if (util_str_ncasecmp(sql + p, fns[k], len) == 0) {
                    const char *value = strstr(fns[k], "version") ? "PostgreSQL 15.0 (silt " SILT_VERSION ")"
                                                                  : s->database;
                    SILT_RETURN_IF_ERROR(buf_printf(out, err, "'%s'", value));
                    p += len;
                    hit = 1;
                    *changed = 1;
                }
            }
        }
        if (!hit)
            SILT_RETURN_IF_ERROR(buf_append_char(out, sql[p++], err));
    }
    return SILT_OK;
}

/* ---------------------------------------------------------------- entry */

silt_status srv_compat_look(srv_session *s, const char *sql, srv_compat *out, const char **state,
                       silt_error *err)
{
    char *n = normalize(sql);
    silt_status rc = SILT_OK;
    int done = 0, k;
    memset(out, 0, sizeof(*out));
    out->kind = SRV_C_NONE;
    if (n == NULL)
        return err_nomem(err);
    *state = "0A000";
    rc = check_databases(s, n, state, err);
    if (rc != SILT_OK)
        goto finish;
    rc = txn_statement(s, n, out, &done);
    if (done || rc != SILT_OK)
        goto finish;
    out->kind = SRV_C_NONE;
    /* SET [SESSION|LOCAL] name {=|TO} value, SET TIME ZONE value, SET NAMES value */
    if (starts(n, "set")) {
        const char *p = n + 4, *eq;
        char name[64];
        if (starts(p, "session") && !starts(p, "session characteristics"))
            p += 8;
        else if (starts(p, "local"))
            p += 6;
        if (starts(p, "time zone") || starts(p, "names")) {
            k = starts(p, "names") ? 1 : 3;
            eq = p + (k == 1 ? 5 : 9);
        } else {
            size_t len = strcspn(p, " =");
            snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), p);
            k = param_index(name);
            eq = p + len;
        }
        if (k >= 0) {
            while (*eq == ' ')
                eq++;
            if (*eq == '=')
                eq++;
            else if (strncmp(eq, "to ", 3) == 0)
                eq += 3;
            while (*eq == ' ')
                eq++;
            /* take the value from the original text (case kept) */
            {
                size_t off = (size_t)(eq - n);
                char *orig = normalize(sql);
                const char *raw = sql;
                (void)raw;
                if (orig == NULL) {
                    rc = err_nomem(err);
                    goto finish;
                }
                /* normalize lowered it: recover the case from sql by position of the value */
                {
                    const char *v = sql + strlen(sql);
                    size_t vlen = strlen(n) - off;
                    while (v > sql && (v[-1] == ' ' || v[-1] == ';' || v[-1] == '\n' ||
                                       v[-1] == '\t' || v[-1] == '\r'))
                        v--;
                    v -= vlen <= (size_t)(v - sql) ? vlen : (size_t)(v - sql);
                    char value[256];
                    snprintf(value, sizeof(value), "%.*s", (int)vlen, v);
                    rc = set_param(s, k, value, state, err);
                }
                mem_free(orig);
            }
            out->kind = SRV_C_COMMAND;
            snprintf(out->tag, sizeof(out->tag), "SET");
            goto finish;
        }
        if (starts(p, "session characteristics") || starts(p, "transaction")) {
            out->kind = SRV_C_COMMAND;
            snprintf(out->tag, sizeof(out->tag), "SET");
            if (strstr(p, "read only") != NULL || strstr(p, "serializable") != NULL ||
                strstr(p, "repeatable read") != NULL) {
                *state = "0A000";
                rc = err_set(err, SILT_UNSUPPORTED, "silt serve runs every statement on its own "
                             "snapshot as its own commit; \"%s\" is not supported", n);
            }
            goto finish;
        }
        goto finish;
    }
    if (starts(n, "show")) {
        const char *p = n + 5;
        k = starts(p, "time zone") ? 3 : param_index(p);
        if (k >= 0) {
            rc = one_cell(out, srv_params[k].name, param_value(s, k), "SHOW", err);
            goto finish;
        }
        if (starts(p, "server_version") || starts(p, "server_encoding") ||
            starts(p, "transaction isolation level") || starts(p, "is_superuser") ||
            starts(p, "integer_datetimes") || starts(p, "max_identifier_length")) {
            const char *v = starts(p, "server_version") ? "15.0"
                          : starts(p, "server_encoding") ? "UTF8"
                          : starts(p, "transaction isolation level") ? "read committed"
                          : starts(p, "max_identifier_length") ? "63"
                          : starts(p, "is_superuser") ? "off" : "on";
            char col[64];
            snprintf(col, sizeof(col), "%s", starts(p, "transaction isolation level")
                                                 ? "transaction_isolation" : p);
            rc = one_cell(out, col, v, "SHOW", err);
            goto finish;
        }
        goto finish;
    }
    if (starts(n, "reset")) {
        const char *p = n + 6;
        k = param_index(p);
        if (k >= 0) {
            rc = set_param(s, k, "default", state, err);
            out->kind = SRV_C_COMMAND;
            snprintf(out->tag, sizeof(out->tag), "RESET");
        }
        goto finish;
    }
    if (starts(n, "discard all")) {
        for (k = 0; k < SRV_N_PARAMS; k++) {
            mem_free(s->params[k]);
            s->params[k] = NULL;
        }
        srv_session_drop_preps(s, NULL);
        out->kind = SRV_C_COMMAND;
        snprintf(out->tag, sizeof(out->tag), "DISCARD ALL");
        goto finish;
    }
    if (starts(n, "deallocate")) {
        const char *p = n + 11;
        if (starts(p, "prepare"))
            p += 8;
        out->kind = SRV_C_COMMAND;
        if (starts(p, "all")) {
            srv_session_drop_preps(s, NULL);
            snprintf(out->tag, sizeof(out->tag), "DEALLOCATE ALL");
        } else {
            char name[128];
            unquote(p, name, sizeof(name));
            /* the original case: prepared statement names are case-sensitive when quoted */
            if (!srv_session_has_prep(s, name)) {
                *state = "26000";
                rc = err_set(err, SILT_NOTFOUND, "prepared statement \"%s\" does not exist",
                             name);
            }
            srv_session_drop_preps(s, name);
            snprintf(out->tag, sizeof(out->tag), "DEALLOCATE");
        }
        goto finish;
    }
    if (starts(n, "use")) {
        char name[128];
        unquote(n + 4, name, sizeof(name));
        if (name[0] == '`')
            unquote(n + 4, name, sizeof(name));
        {
            size_t len = strlen(name);
            if (len >= 2 && name[0] == '`' && name[len - 1] == '`') {
                memmove(name, name + 1, len - 2);
                name[len - 2] = '\0';
            }
        }
        if (s->user && !srv_user_may_use(s->user, name)) {
            *state = "42501";
            rc = err_set(err, SILT_INVALID, "permission denied for database \"%s\"", name);
            goto finish;
        }
        if (srv_name_ok(name))
            snprintf(s->database, sizeof(s->database), "%s", name);
        goto finish;
    }
    if (strcmp(n, "select version()") == 0 || strcmp(n, "select pg_catalog.version()") == 0) {
        rc = one_cell(out, "version", "PostgreSQL 15.0 (silt " SILT_VERSION ")", "SELECT", err);
        goto finish;
    }
    if (strcmp(n, "select current_database()") == 0) {
        rc = one_cell(out, "current_database", s->database, "SELECT", err);
        goto finish;
    }
    if (strcmp(n, "select current_schema()") == 0 || strcmp(n, "select current_schema") == 0) {
        rc = one_cell(out, "current_schema", s->database, "SELECT", err);
        goto finish;
    }
    rc = catalog_query(s, n, out, &done, err);
    if (done || rc != SILT_OK)
        goto finish;
    rc = srv_jdbc_query(s, n, out, &done, err);
    if (done || rc != SILT_OK)
        goto finish;
    if (strstr(n, "pg_catalog.") != NULL || strstr(n, "information_schema.") != NULL) {
        *state = "0A000";
        rc = err_set(err, SILT_UNSUPPORTED, "silt serve does not answer this catalog query");
        err_hint(err, "docs/server.md lists the catalog queries it answers (psql's \\dt, \\d, "
                 "\\l, \\dn); use SHOW TABLES, SHOW DATABASES and DESCRIBE");
        goto finish;
    }
    {
        int changed = 0;
        rc = rewrite_functions(s, sql, &out->rewritten, &changed, err);
        if (rc == SILT_OK && changed) {
            int count;
            out->kind = SRV_C_SILT;
            (void)count;
            snprintf(out->tag, sizeof(out->tag), "SELECT");
        } else {
            buf_clear(&out->rewritten);
        }
    }
finish:
    mem_free(n);
    return rc;
}
