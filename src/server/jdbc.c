/*
 * jdbc.c - the DatabaseMetaData queries of the PostgreSQL JDBC driver 42.7
 * (docs/server.md, "Client statements and catalog queries"), answered from
 * silt's catalog: SHOW DATABASES, SHOW TABLES IN db and DESCRIBE.
 *
 * The texts were captured from the driver against PostgreSQL 15 with
 * log_statement = all; each is found by the catalog names and column
 * aliases it reads, and answered with the columns the driver reads by name
 * (it builds getColumns' and getTypeInfo's rows itself from them). The
 * parameters ($1 ...) arrive inlined as quoted literals (session.c,
 * inline_params). A silt database is a schema; the catalog is the session's
 * database, as current_database() says. silt tables have no keys, indexes,
 * procedures or functions of their own: those answers are empty with the
 * right columns. Anything else stays refused by compat.c (0A000).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server_int.h"
#include "util/mem.h"

/* ---------------------------------------------------------------- helpers */

/* SQL LIKE with % and _ and a backslash escape, case-sensitive as PostgreSQL's. */
static int like(const char *pat, const char *s)
{
    for (; *pat; pat++, s++) {
        if (*pat == '%') {
            while (pat[1] == '%')
                pat++;
            if (pat[1] == '\0')
                return 1;
            for (; *s; s++)
                if (like(pat + 1, s))
                    return 1;
            return like(pat + 1, s);
        }
        if (*s == '\0')
            return 0;
        if (*pat == '\\' && pat[1] != '\0') {
            pat++;
            if (*pat != *s)
                return 0;
        } else if (*pat != '_' && *pat != *s) {
            return 0;
        }
    }
    return *s == '\0';
}

/* The literal of `marker '...'` in normalized text n (quotes doubled inside), or NULL. */
static const char *literal(const char *n, const char *marker, char *out, size_t cap)
{
    const char *p = strstr(n, marker);
    size_t k = 0;
    if (p == NULL)
        return NULL;
    p += strlen(marker);
    for (; *p; p++) {
        if (*p == '\'') {
            if (p[1] != '\'')
                break;
            p++;
        }
        if (k + 1 < cap)
            out[k++] = *p;
    }
    out[k] = '\0';
    return *p == '\'' ? out : NULL;
}

static silt_status result(srv_compat *out, int n_cols, const char *const *names,
                          const uint32_t *oids)
{
    srv_table_init(&out->table, n_cols, names, oids);
    out->kind = SRV_C_TABLE;
    snprintf(out->tag, sizeof(out->tag), "SELECT");
    return SILT_OK;
}

static silt_status row(srv_compat *out, int n, const char *const *vals, silt_error *err)
{
    for (int k = 0; k < n; k++)
        SILT_RETURN_IF_ERROR(srv_table_cell(&out->table, vals[k], err));
    out->table.n_rows++;
    return SILT_OK;
}

/* The databases the session's user may see whose name matches LIKE pattern (NULL: all). */
static silt_status schemas(srv_session *s, const char *pattern, srv_name_list *out,
                           silt_error *err)
{
    size_t k, keep = 0;
    SILT_RETURN_IF_ERROR(srv_read_names(s, "SHOW DATABASES", 0, -1, out, err));
    for (k = 0; k < out->n; k++) {
        if ((s->user && !srv_user_may_use(s->user, out->names[k])) ||
            (pattern && !like(pattern, out->names[k])))
            continue;
        memcpy(out->names[keep++], out->names[k], sizeof(out->names[0]));
    }
    out->n = keep;
    return SILT_OK;
}

typedef struct tbl {
    char db[SRV_MAX_NAME * 2];
    char name[SRV_MAX_NAME * 2];
} tbl;

static int tbl_cmp(const void *a, const void *b)
{
    const tbl *x = a, *y = b;
    int c = strcmp(x->db, y->db);
    return c ? c : strcmp(x->name, y->name);
}

/* The tables of matching databases whose name matches table_pat, sorted by database and name. */
static silt_status tables(srv_session *s, const char *schema_pat, const char *table_pat,
                          tbl **out, size_t *n_out, silt_error *err)
{
    srv_name_list dbs, ts;
    silt_status rc;
    size_t k, j;
    *out = NULL;
    *n_out = 0;
    SILT_RETURN_IF_ERROR(schemas(s, schema_pat, &dbs, err));
    for (rc = SILT_OK, k = 0; rc == SILT_OK && k < dbs.n; k++) {
        char q[SRV_MAX_NAME * 2 + 32];
        snprintf(q, sizeof(q), "SHOW TABLES IN `%s`", dbs.names[k]);
        rc = srv_read_names(s, q, 1, 2, &ts, err);
        for (j = 0; rc == SILT_OK && j < ts.n; j++) {
            tbl *g;
            if (table_pat && !like(table_pat, ts.names[j]))
                continue;
            g = mem_realloc(*out, (*n_out + 1) * sizeof(**out));
            if (g == NULL) {
                rc = err_nomem(err);
                break;
            }
            *out = g;
            snprintf(g[*n_out].db, sizeof(g->db), "%s", dbs.names[k]);
            snprintf(g[*n_out].name, sizeof(g->name), "%s", ts.names[j]);
            (*n_out)++;
        }
        if (rc == SILT_OK)
            srv_names_clear(&ts);
    }
    srv_names_clear(&dbs);
    if (rc != SILT_OK) {
        mem_free(*out);
        *out = NULL;
        *n_out = 0;
        return rc;
    }
    if (*n_out > 1)
        qsort(*out, *n_out, sizeof(**out), tbl_cmp);
    return SILT_OK;
}

/* A Spark type name (DESCRIBE's data_type) as a PostgreSQL type: oid, typmod, attlen. */
static void pg_type_of(const char *spark, uint32_t *oid, int *typmod, int *len)
{
    static const struct { const char *name; uint32_t oid; int len; } map[] = {
        {"int", SRV_OID_INT4, 4}, {"bigint", SRV_OID_INT8, 8}, {"smallint", SRV_OID_INT2, 2},
        {"tinyint", SRV_OID_INT2, 2}, {"string", SRV_OID_TEXT, -1},
        {"double", SRV_OID_FLOAT8, 8}, {"float", SRV_OID_FLOAT4, 4},
        {"boolean", SRV_OID_BOOL, 1}, {"date", SRV_OID_DATE, 4},
        {"timestamp", SRV_OID_TIMESTAMPTZ, 8}, {"timestamp_ntz", SRV_OID_TIMESTAMP, 8},
        {"binary", SRV_OID_BYTEA, -1}, {"void", SRV_OID_TEXT, -1},
    };
    int p = 0, sc = 0;
    *typmod = -1;
    for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
        if (strcmp(spark, map[k].name) == 0) {
            *oid = map[k].oid;
            *len = map[k].len;
            return;
        }
    *len = -1;
    if (sscanf(spark, "decimal(%d,%d)", &p, &sc) == 2) {
        *oid = SRV_OID_NUMERIC;
        *typmod = ((p << 16) | sc) + 4;
    } else if (strncmp(spark, "varchar", 7) == 0 || strncmp(spark, "char", 4) == 0) {
        *oid = SRV_OID_TEXT; /* silt reads and writes them as STRING */
    } else {
        *oid = SRV_OID_JSON; /* STRUCT, ARRAY, MAP: sent as JSON text (values.c) */
    }
}

/* The types silt sends (values.h), and the few the driver asks about by name. */
static const struct { const char *name; uint32_t oid; } pg_types[] = {
    {"bool", 16}, {"bytea", 17}, {"char", 18}, {"name", 19}, {"int8", 20}, {"int2", 21},
    {"int4", 23}, {"text", 25}, {"oid", 26}, {"json", 114}, {"float4", 700}, {"float8", 701},
    {"unknown", 705}, {"varchar", 1043}, {"date", 1082}, {"timestamp", 1114},
    {"timestamptz", 1184}, {"numeric", 1700},
};
#define N_PG_TYPES (sizeof(pg_types) / sizeof(pg_types[0]))

/* ---------------------------------------------------------------- the queries */

static silt_status get_schemas(srv_session *s, const char *n, srv_compat *out, silt_error *err)
{
    static const char *const cols[] = {"TABLE_SCHEM", "TABLE_CATALOG"};
    static const uint32_t oids[] = {19, 19};
    char pat[256];
    srv_name_list dbs;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(schemas(s, literal(n, "and nspname like '", pat, sizeof(pat)), &dbs,
                                 err));
    result(out, 2, cols, oids);
    for (size_t k = 0; rc == SILT_OK && k < dbs.n; k++) {
        const char *v[] = {dbs.names[k], s->database};
        rc = row(out, 2, v, err);
    }
    srv_names_clear(&dbs);
    return rc;
}

static silt_status get_tables(srv_session *s, const char *n, srv_compat *out, silt_error *err)
{
    static const char *const cols[] = {"TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE",
                                       "REMARKS", "TYPE_CAT", "TYPE_SCHEM", "TYPE_NAME",
                                       "SELF_REFERENCING_COL_NAME", "REF_GENERATION"};
    static const uint32_t oids[] = {19, 19, 19, 25, 25, 25, 25, 25, 25, 25};
    char sp[256], tp[256];
    tbl *ts = NULL;
    size_t nt = 0;
    silt_status rc = SILT_OK;
    result(out, 10, cols, oids);
    /* types asked for without TABLE (views, sequences ...): silt lists tables only */
    if (strstr(n, "(false or") != NULL &&
        strstr(n, "c.relkind = 'r' and n.nspname !~ '^pg_'") == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(tables(s, literal(n, "n.nspname like '", sp, sizeof(sp)),
                                literal(n, "c.relname like '", tp, sizeof(tp)), &ts, &nt, err));
    for (size_t k = 0; rc == SILT_OK && k < nt; k++) {
        const char *v[] = {s->database, ts[k].db, ts[k].name, "TABLE", NULL, "", "", "", "", ""};
        rc = row(out, 10, v, err);
    }
    mem_free(ts);
    return rc;
}

static silt_status get_columns(srv_session *s, const char *n, srv_compat *out, silt_error *err)
{
    static const char *const cols[] = {"current_database", "nspname", "relname", "attname",
                                       "atttypid", "attnotnull", "atttypmod", "attlen",
                                       "typtypmod", "attnum", "attidentity", "attgenerated",
                                       "adsrc", "description", "typbasetype", "typtype"};
    static const uint32_t oids[] = {19, 19, 19, 19, 26, 16, 23, 21, 23, 20, 18, 18, 25, 25, 26,
                                    18};
    char sp[256], tp[256], cp[256];
    const char *col_pat = literal(n, "and attname like '", cp, sizeof(cp));
    tbl *ts = NULL;
    size_t nt = 0;
    silt_status rc;
    SILT_RETURN_IF_ERROR(tables(s, literal(n, "n.nspname like '", sp, sizeof(sp)),
                                literal(n, "c.relname like '", tp, sizeof(tp)), &ts, &nt, err));
    result(out, 16, cols, oids);
    rc = SILT_OK;
    for (size_t k = 0; rc == SILT_OK && k < nt; k++) {
        char q[SRV_MAX_NAME * 4 + 32];
        srv_name_list desc;
        snprintf(q, sizeof(q), "DESCRIBE `%s`.`%s`", ts[k].db, ts[k].name);
        rc = srv_read_names(s, q, 1, -1, &desc, err);
        for (size_t c = 0; rc == SILT_OK && c < desc.n; c++) {
            char oid[16], mod[16], len[16], num[16];
            uint32_t o;
            int typmod, attlen;
            /* the partition section after the columns starts with an empty or '#' row */
            if (desc.extra[c][0] == '\0' || desc.extra[c][0] == '#')
                break;
            if (col_pat && !like(col_pat, desc.extra[c]))
                continue;
            pg_type_of(desc.names[c], &o, &typmod, &attlen);
            snprintf(oid, sizeof(oid), "%u", o);
            snprintf(mod, sizeof(mod), "%d", typmod);
            snprintf(len, sizeof(len), "%d", attlen);
            snprintf(num, sizeof(num), "%zu", c + 1);
            {
                const char *v[] = {s->database, ts[k].db, ts[k].name, desc.extra[c], oid, "f",
                                   mod, len, "-1", num, NULL, NULL, NULL, NULL, "0", "b"};
                rc = row(out, 16, v, err);
            }
        }
        if (rc == SILT_OK)
            srv_names_clear(&desc);
    }
    mem_free(ts);
    return rc;
}

static silt_status type_list(const char *n, srv_compat *out, silt_error *err)
{
    silt_status rc = SILT_OK;
    char oid[16];
    if (util_str_starts_with(n, "select t.typname,t.oid from pg_catalog.pg_type t")) {
        static const char *const cols[] = {"typname", "oid"};
        static const uint32_t oids[] = {19, 26};
        result(out, 2, cols, oids);
        for (size_t k = 0; rc == SILT_OK && k < N_PG_TYPES; k++) {
            const char *v[] = {pg_types[k].name, oid};
            snprintf(oid, sizeof(oid), "%u", pg_types[k].oid);
            rc = row(out, 2, v, err);
        }
        return rc;
    }
    {
        static const char *const cols[] = {"is_array", "typtype", "typname", "oid"};
        static const uint32_t oids[] = {16, 18, 19, 26};
        result(out, 4, cols, oids);
        for (size_t k = N_PG_TYPES; rc == SILT_OK && k > 0; k--) { /* oid DESC */
            const char *v[] = {"f", "b", pg_types[k - 1].name, oid};
            snprintf(oid, sizeof(oid), "%u", pg_types[k - 1].oid);
            rc = row(out, 4, v, err);
        }
        return rc;
    }
}

static silt_status empty(srv_compat *out, int n_cols, const char *const *cols)
{
    return result(out, n_cols, cols, NULL);
}

silt_status srv_jdbc_query(srv_session *s, const char *n, srv_compat *out, int *done,
                           silt_error *err)
{
    *done = 1;
    if (strcmp(n, "select current_catalog") == 0) {
        static const char *const cols[] = {"current_catalog"};
        const char *v[] = {s->database};
        result(out, 1, cols, NULL);
        return row(out, 1, v, err);
    }
    /* getCatalogs: one catalog, the session's database (silt's databases are schemas) */
    if (util_str_starts_with(n, "select datname as \"TABLE_CAT\" from pg_catalog.pg_database")) {
        static const char *const cols[] = {"TABLE_CAT"};
        static const uint32_t oids[] = {19};
        const char *v[] = {s->database};
        result(out, 1, cols, oids);
        return row(out, 1, v, err);
    }
    if (util_str_starts_with(n, "select nspname as \"TABLE_SCHEM\"") &&
        strstr(n, "from pg_catalog.pg_namespace"))
        return get_schemas(s, n, out, err);
    if (util_str_starts_with(n, "select current_database() as \"TABLE_CAT\", n.nspname as "
                                "\"TABLE_SCHEM\", c.relname as \"TABLE_NAME\"") &&
        strstr(n, "as \"TABLE_TYPE\""))
        return get_tables(s, n, out, err);
    if (strstr(n, "select current_database() as current_database, n.nspname,c.relname,"
                  "a.attname,a.atttypid") != NULL)
        return get_columns(s, n, out, err);
    if (util_str_starts_with(n, "select t.typname,t.oid from pg_catalog.pg_type t") ||
        util_str_starts_with(n, "select typinput='pg_catalog.array_in'::regproc as is_array, "
                                "typtype, typname, pg_type.oid from pg_catalog.pg_type"))
        return type_list(n, out, err);
    if (strcmp(n, "select setting from pg_catalog.pg_settings where name='max_index_keys'") ==
        0) {
        static const char *const cols[] = {"setting"};
        const char *v[] = {"32"};
        result(out, 1, cols, NULL);
        return row(out, 1, v, err);
    }
    if (strstr(n, "from pg_catalog.pg_constraint con") && strstr(n, "con.contype = 'p'")) {
        static const char *const cols[] = {"TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME",
                                           "COLUMN_NAME", "KEY_SEQ", "PK_NAME"};
        return empty(out, 6, cols);
    }
    if (strstr(n, "pg_catalog.pg_constraint con") && strstr(n, "con.contype = 'f'")) {
        static const char *const cols[] = {"PKTABLE_CAT", "PKTABLE_SCHEM", "PKTABLE_NAME",
                                           "PKCOLUMN_NAME", "FKTABLE_CAT", "FKTABLE_SCHEM",
                                           "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ",
                                           "UPDATE_RULE", "DELETE_RULE", "FK_NAME", "PK_NAME",
                                           "DEFERRABILITY"};
        return empty(out, 14, cols);
    }
    if (strstr(n, "join pg_catalog.pg_index i on (ct.oid = i.indrelid)")) {
        static const char *const cols[] = {"TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME",
                                           "NON_UNIQUE", "INDEX_QUALIFIER", "INDEX_NAME", "TYPE",
                                           "ORDINAL_POSITION", "COLUMN_NAME", "ASC_OR_DESC",
                                           "CARDINALITY", "PAGES", "FILTER_CONDITION",
                                           "REMARKS"};
        return empty(out, 14, cols);
    }
    if (strstr(n, "as \"PROCEDURE_NAME\"") && strstr(n, "from pg_catalog.pg_namespace n, "
                                                       "pg_catalog.pg_proc p")) {
        static const char *const cols[] = {"PROCEDURE_CAT", "PROCEDURE_SCHEM", "PROCEDURE_NAME",
                                           "?column?", "?column?", "?column?", "REMARKS",
                                           "PROCEDURE_TYPE", "SPECIFIC_NAME"};
        return empty(out, 9, cols);
    }
    if (strstr(n, "as \"FUNCTION_NAME\"") && strstr(n, "from pg_catalog.pg_proc p")) {
        static const char *const cols[] = {"FUNCTION_CAT", "FUNCTION_SCHEM", "FUNCTION_NAME",
                                           "REMARKS", "FUNCTION_TYPE", "SPECIFIC_NAME"};
        return empty(out, 6, cols);
    }
    *done = 0;
    return SILT_OK;
}
