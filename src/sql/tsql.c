/*
 * tsql.c - the serverless SQL (T-SQL) forms of Synapse over silt's own
 * readers and catalog (docs/serverless.md):
 *
 *   OPENROWSET(BULK 'path', FORMAT = 'DELTA'|'PARQUET'|'CSV', ...) [WITH (...)]
 *   CREATE EXTERNAL DATA SOURCE | FILE FORMAT | TABLE ... WITH (...)
 *   DROP EXTERNAL DATA SOURCE | FILE FORMAT name
 *
 * Every option is mapped onto a reader option with the same meaning or
 * refused by name; none is accepted and then ignored. Relative BULK and
 * LOCATION paths are joined to the data source's LOCATION. Data sources and
 * file formats are database-scoped catalog objects (catalog.h, cat_object);
 * an external table is a catalog table of kind EXTERNAL whose location was
 * resolved when it was created and whose CSV options are kept as
 * `option.<key>` table properties, read back by source.c.
 */
#include <string.h>

#include "sql/exec.h"
#include "util/mem.h"
#include "util/time.h"

/* ---------------------------------------------------------------- shared */

static int is_url_or_absolute(const char *path)
{
    return strstr(path, "://") != NULL || strncmp(path, "file:", 5) == 0;
}

/*
 * base joined with rel ("x/" + "/y" is "x/y"): Synapse reads a BULK path or
 * a table's LOCATION under the data source's LOCATION even when it begins
 * with '/'. A rel that is a URL stands alone.
 */
static char *join_location(arena *a, const char *base, const char *rel)
{
    size_t n;
    if (base == NULL || is_url_or_absolute(rel))
        return arena_strdup(a, rel);
    n = strlen(base);
    while (n > 0 && base[n - 1] == '/')
        n--;
    while (rel[0] == '/')
        rel++;
    return arena_sprintf(a, "%.*s/%s", (int)n, base, rel);
}

/* A catalog object of the current database; SILT_NOTFOUND naming it when there is none. */
static silt_status find_object(binder *b, cat_object_kind kind, const char *name, uint32_t pos,
                               cat_state **state_out, const cat_object **out, silt_error *err)
{
    cat_state *state = NULL;
    const char *db = b->s->database;
    *out = NULL;
    if (b->s->cat == NULL)
        return sql_bind_error(b, err, pos, SILT_NOTFOUND, "%s \"%s\" does not exist: external "
                              "objects live in a warehouse (run silt with --warehouse DIR)",
                              catalog_object_kind_name(kind), name);
    SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
    *out = catalog_state_find_object(state, kind, db, name);
    if (*out == NULL) {
        catalog_state_free(state);
        return sql_bind_error(b, err, pos, SILT_NOTFOUND, "%s \"%s\" does not exist in database "
                              "\"%s\"", catalog_object_kind_name(kind), name, db);
    }
    *state_out = state;
    return SILT_OK;
}

/* The LOCATION of data source name, copied into the binder's arena. */
static silt_status data_source_location(binder *b, const char *name, uint32_t pos,
                                        const char **out, silt_error *err)
{
    cat_state *state = NULL;
    const cat_object *o;
    SILT_RETURN_IF_ERROR(find_object(b, CAT_DATA_SOURCE, name, pos, &state, &o, err));
    *out = arena_strdup(b->a, catalog_object_property(o, "LOCATION"));
    catalog_state_free(state);
    return *out != NULL ? SILT_OK : err_nomem(err);
}

/* Synapse's DATA_SOURCE = 'name'; a value with '/' or ':' is taken as a location itself. */
static silt_status resolve_data_source(binder *b, const char *value, uint32_t pos,
                                       const char **location, silt_error *err)
{
    if (strchr(value, '/') != NULL || strchr(value, ':') != NULL) {
        *location = value;
        return SILT_OK;
    }
    return data_source_location(b, value, pos, location, err);
}

/* One-character options ("," "0x09" "\t" "\n" "0x0a"), as T-SQL writes them. */
static const char *tsql_char(arena *a, const char *v)
{
    if (util_str_casecmp(v, "0x09") == 0 || strcmp(v, "\\t") == 0)
        return "\t";
    if (util_str_casecmp(v, "0x0a") == 0 || strcmp(v, "\\n") == 0)
        return "\n";
    if (util_str_casecmp(v, "0x0d0a") == 0 || strcmp(v, "\\r\\n") == 0)
        return "\r\n";
    return arena_strdup(a, v);
}

/* COLLATE of a WITH column: only binary UTF-8 orderings are what silt compares with. */
static silt_status check_column(binder *b, const sql_column_def *c, int is_csv, silt_error *err)
{
    if (c->collate != NULL && strstr(c->collate, "BIN2") == NULL &&
        strstr(c->collate, "bin2") == NULL)
        return sql_bind_error(b, err, c->name.pos, SILT_UNSUPPORTED, "collation %s of column "
                              "\"%s\" is not supported: silt compares strings by their UTF-8 "
                              "bytes, which is a *_BIN2 collation such as "
                              "Latin1_General_100_BIN2_UTF8", c->collate, c->name.name);
    if (c->json_path != NULL)
        return sql_bind_error(b, err, c->name.pos, SILT_UNSUPPORTED, "the JSON path of column "
                              "\"%s\" is not supported yet", c->name.name);
    if (c->ordinal != 0 && !is_csv)
        return sql_bind_error(b, err, c->name.pos, SILT_UNSUPPORTED, "a column ordinal (\"%s\" "
                              "%d) is only for CSV; Parquet and Delta columns match by name",
                              c->name.name, (int)c->ordinal);
    if (c->ordinal != 0)
        return sql_bind_error(b, err, c->name.pos, SILT_UNSUPPORTED, "column ordinals (\"%s\" "
                              "%d) are not supported yet: list the CSV columns in file order",
                              c->name.name, (int)c->ordinal);
    return SILT_OK;
}

/* Spark's DDL text 'a string, b int' of declared columns: a CSV reader's schema. */
static silt_status columns_ddl(binder *b, const sql_column_list *cols, const char **out,
                               silt_error *err)
{
    buf ddl = BUF_INIT;
    silt_status rc = SILT_OK;
    for (size_t idx = 0; rc == SILT_OK && idx < cols->n; idx++) {
        const char *name = cols->items[idx].name.name;
        rc = buf_append_str(&ddl, idx ? ", `" : "`", err);
        for (const char *c = name; rc == SILT_OK && *c; c++)
            rc = *c == '`' ? buf_append_str(&ddl, "``", err) : buf_append_char(&ddl, *c, err);
        if (rc == SILT_OK)
            rc = buf_append_str(&ddl, "` ", err);
        if (rc == SILT_OK)
            rc = sql_spark_type_name(cols->items[idx].type.type, &ddl, err);
    }
    if (rc == SILT_OK) {
        *out = arena_strndup(b->a, ddl.data ? ddl.data : "", ddl.len);
        rc = *out != NULL ? SILT_OK : err_nomem(err);
    }
    buf_clear(&ddl);
    return rc;
}

/* Spark's CSV reader names columns _c0, _c1, ...; Synapse's C1, C2, ... */
static silt_status synapse_csv_names(binder *b, plan *out, silt_error *err)
{
    for (size_t idx = 0; idx < out->scope.n; idx++) {
        out->scope.cols[idx].name = arena_sprintf(b->a, "C%zu", idx + 1);
        if (out->scope.cols[idx].name == NULL)
            return err_nomem(err);
    }
    return SILT_OK;
}

/* ---------------------------------------------------------------- OPENROWSET */

typedef struct rowset {
    const char *format; /* "delta", "parquet", "csv" */
    const char *path;
    const char **kv;    /* CSV reader options */
    size_t n_kv;
    int header;         /* HEADER_ROW = TRUE */
    int skip_first;     /* FIRSTROW = 2 without a header row */
} rowset;

static silt_status rowset_kv(binder *b, rowset *rs, const char *key, const char *value,
                             silt_error *err)
{
    const char **grown = arena_realloc(b->a, rs->kv, rs->n_kv * sizeof(char *),
                                       (rs->n_kv + 2) * sizeof(char *));
    if (grown == NULL)
        return err_nomem(err);
    rs->kv = grown;
    rs->kv[rs->n_kv++] = key;
    rs->kv[rs->n_kv++] = value;
    return SILT_OK;
}

static int is_true(const char *v) { return util_str_casecmp(v, "true") == 0 || strcmp(v, "1") == 0; }

/* The text options of OPENROWSET; rs->format is known. */
static silt_status rowset_option(binder *b, rowset *rs, const char *key, const char *v,
                                 uint32_t pos, silt_error *err)
{
    int csv = strcmp(rs->format, "csv") == 0;
    char *name = arena_strdup(b->a, key); /* as T-SQL writes it, for messages */
    if (name == NULL)
        return err_nomem(err);
    for (char *c = name; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    static const char *const csv_only[] = {"header_row", "fieldterminator", "fieldquote",
                                           "escapechar", "escape_char", "rowterminator",
                                           "firstrow", "parser_version", "codepage",
                                           "datafiletype"};
    for (size_t idx = 0; idx < sizeof(csv_only) / sizeof(csv_only[0]); idx++)
        if (!csv && strcmp(key, csv_only[idx]) == 0)
            return sql_bind_error(b, err, pos, SILT_BIND, "OPENROWSET option %s is for FORMAT = "
                                  "'CSV', not '%s'", name, rs->format);
    if (strcmp(key, "header_row") == 0) {
        rs->header = is_true(v);
        return SILT_OK;
    }
    if (strcmp(key, "fieldterminator") == 0)
        return rowset_kv(b, rs, "sep", tsql_char(b->a, v), err);
    if (strcmp(key, "fieldquote") == 0)
        return rowset_kv(b, rs, "quote", tsql_char(b->a, v), err);
    if (strcmp(key, "escapechar") == 0 || strcmp(key, "escape_char") == 0)
        return rowset_kv(b, rs, "escape", tsql_char(b->a, v), err);
    if (strcmp(key, "rowterminator") == 0)
        return rowset_kv(b, rs, "lineSep", tsql_char(b->a, v), err);
    if (strcmp(key, "firstrow") == 0) {
        if (strcmp(v, "1") == 0)
            return SILT_OK;
        if (strcmp(v, "2") == 0) {
            rs->skip_first = 1;
            return SILT_OK;
        }
        return sql_bind_error(b, err, pos, SILT_UNSUPPORTED, "OPENROWSET FIRSTROW = %s is not "
                              "supported: silt skips at most one line (FIRSTROW = 2)", v);
    }
    if (strcmp(key, "parser_version") == 0) {
        if (strcmp(v, "1.0") == 0 || strcmp(v, "2.0") == 0)
            return SILT_OK; /* both read RFC 4180 CSV; silt has one parser (docs) */
        return sql_bind_error(b, err, pos, SILT_BIND, "OPENROWSET PARSER_VERSION must be '1.0' "
                              "or '2.0', not '%s'", v);
    }
    if (strcmp(key, "codepage") == 0) {
        if (util_str_casecmp(v, "65001") == 0 || util_str_casecmp(v, "utf8") == 0 ||
            util_str_casecmp(v, "utf-8") == 0 || util_str_casecmp(v, "raw") == 0)
            return SILT_OK;
        return sql_bind_error(b, err, pos, SILT_UNSUPPORTED, "OPENROWSET CODEPAGE = '%s' is not "
                              "supported: silt reads UTF-8 (65001)", v);
    }
    if (strcmp(key, "datafiletype") == 0) {
        if (util_str_casecmp(v, "char") == 0)
            return SILT_OK;
        return sql_bind_error(b, err, pos, SILT_UNSUPPORTED, "OPENROWSET DATAFILETYPE = '%s' is "
                              "not supported: silt reads 'char' (UTF-8) files", v);
    }
    if (strcmp(key, "lastrow") == 0 || strcmp(key, "maxerrors") == 0 ||
        strcmp(key, "errorfile_location") == 0 || strcmp(key, "errorfile_data_source") == 0 ||
        strcmp(key, "rowset_options") == 0 || strcmp(key, "fieldterminator_hex") == 0)
        return sql_bind_error(b, err, pos, SILT_UNSUPPORTED, "OPENROWSET option %s is not "
                              "supported", name);
    return sql_bind_error(b, err, pos, SILT_BIND, "OPENROWSET has no option %s", name);
}

static silt_status rowset_resolve(binder *b, const sql_table_ref *ref, rowset *rs, silt_error *err)
{
    const sql_expr_list *args = &ref->u.func.args;
    const char *bulk = NULL, *ds = NULL;
    uint32_t ds_pos = ref->pos;
    memset(rs, 0, sizeof(*rs));
    for (size_t idx = 0; idx < args->n; idx++) {
        const sql_expr *a = args->items[idx];
        const char *key = a->u.named.name.name, *v = a->u.named.value->u.lit.str;
        if (strcmp(key, "bulk") == 0) {
            if (bulk != NULL)
                return sql_bind_error(b, err, a->pos, SILT_UNSUPPORTED, "OPENROWSET reads one "
                                      "BULK path; several are not supported yet");
            bulk = v;
        } else if (strcmp(key, "format") == 0) {
            if (util_str_casecmp(v, "delta") == 0)
                rs->format = "delta";
            else if (util_str_casecmp(v, "parquet") == 0)
                rs->format = "parquet";
            else if (util_str_casecmp(v, "csv") == 0)
                rs->format = "csv";
            else
                return sql_bind_error(b, err, a->pos, SILT_BIND, "OPENROWSET FORMAT must be "
                                      "'DELTA', 'PARQUET' or 'CSV', not '%s'", v);
        } else if (strcmp(key, "data_source") == 0) {
            ds = v;
            ds_pos = a->pos;
        }
    }
    if (rs->format == NULL)
        return sql_bind_error(b, err, ref->pos, SILT_BIND, "OPENROWSET needs FORMAT = 'DELTA', "
                              "'PARQUET' or 'CSV'");
    for (size_t idx = 0; idx < args->n; idx++) {
        const sql_expr *a = args->items[idx];
        const char *key = a->u.named.name.name;
        if (strcmp(key, "bulk") != 0 && strcmp(key, "format") != 0 &&
            strcmp(key, "data_source") != 0)
            SILT_RETURN_IF_ERROR(rowset_option(b, rs, key, a->u.named.value->u.lit.str, a->pos,
                                               err));
    }
    if (rs->header && rs->skip_first)
        return sql_bind_error(b, err, ref->pos, SILT_UNSUPPORTED, "OPENROWSET HEADER_ROW = TRUE "
                              "with FIRSTROW = 2 (a header on the second line) is not supported");
    if (ds != NULL) {
        const char *location;
        SILT_RETURN_IF_ERROR(resolve_data_source(b, ds, ds_pos, &location, err));
        rs->path = join_location(b->a, location, bulk);
    } else {
        rs->path = bulk;
    }
    if (rs->path == NULL)
        return err_nomem(err);
    /* a Delta table is its root folder: Synapse's 'folder/' and silt's 'folder' are one */
    if (strcmp(rs->format, "delta") == 0) {
        char *p = arena_strdup(b->a, rs->path);
        size_t n = p ? strlen(p) : 0;
        if (p == NULL)
            return err_nomem(err);
        while (n > 1 && p[n - 1] == '/')
            p[--n] = '\0';
        if (strchr(p, '*') != NULL)
            return sql_bind_error(b, err, ref->pos, SILT_BIND, "OPENROWSET with FORMAT = 'DELTA' "
                                  "reads the table's root folder; a wildcard (\"%s\") is for "
                                  "PARQUET and CSV", p);
        rs->path = p;
    }
    if (rs->header || rs->skip_first)
        return rowset_kv(b, rs, "header", "true", err);
    return SILT_OK;
}

/*
 * SELECT CAST(c AS type) AS c, ... FROM <the rowset without WITH>: WITH
 * over Parquet and Delta picks columns by name (case-insensitive, as the
 * binder does) and converts them to the declared types.
 */
static silt_status rowset_projection(binder *b, const sql_table_ref *ref, plan *out,
                                     silt_error *err)
{
    const sql_column_list *cols = ref->u.func.with_cols;
    sql_query *q = arena_calloc(b->a, 1, sizeof(*q));
    sql_table_ref *inner = arena_calloc(b->a, 1, sizeof(*inner));
    sql_table_ref **from = arena_calloc(b->a, 1, sizeof(*from));
    sql_select_item *items = arena_calloc(b->a, cols->n + 1, sizeof(*items));
    if (q == NULL || inner == NULL || from == NULL || items == NULL)
        return err_nomem(err);
    *inner = *ref;
    memset(&inner->alias, 0, sizeof(inner->alias));
    inner->u.func.with_cols = NULL;
    for (size_t idx = 0; idx < cols->n; idx++) {
        const sql_column_def *c = &cols->items[idx];
        sql_expr *col = arena_calloc(b->a, 1, sizeof(*col));
        sql_expr *cast = arena_calloc(b->a, 1, sizeof(*cast));
        if (col == NULL || cast == NULL)
            return err_nomem(err);
        col->kind = SQL_EXPR_COLUMN;
        col->pos = c->name.pos;
        col->u.column.n_parts = 1;
        col->u.column.parts = (sql_ident *)&c->name;
        col->u.column.pos = c->name.pos;
        cast->kind = SQL_EXPR_CAST;
        cast->pos = c->name.pos;
        cast->u.cast.arg = col;
        cast->u.cast.type = c->type;
        /* varchar(n) reads as the string it is: Synapse pads or cuts nothing on read either */
        cast->u.cast.type.is_char = 0;
        cast->u.cast.type.char_len = -1;
        items[idx].expr = cast;
        items[idx].alias = c->name.name;
    }
    from[0] = inner;
    q->kind = SQL_QUERY_SELECT;
    q->pos = ref->pos;
    q->u.select.n_items = cols->n;
    q->u.select.items = items;
    q->u.select.n_from = 1;
    q->u.select.from = from;
    return sql_plan_query(b, q, out, err);
}

silt_status sql_source_openrowset(binder *b, const sql_table_ref *ref, const pushdown *pd,
                                  plan *out, silt_error *err)
{
    const sql_column_list *cols = ref->u.func.with_cols;
    int csv;
    rowset rs;
    SILT_RETURN_IF_ERROR(rowset_resolve(b, ref, &rs, err));
    csv = strcmp(rs.format, "csv") == 0;
    if (cols != NULL) {
        for (size_t idx = 0; idx < cols->n; idx++)
            SILT_RETURN_IF_ERROR(check_column(b, &cols->items[idx], csv, err));
        if (!csv)
            return rowset_projection(b, ref, out, err);
        {
            const char *ddl;
            SILT_RETURN_IF_ERROR(columns_ddl(b, cols, &ddl, err));
            SILT_RETURN_IF_ERROR(rowset_kv(b, &rs, "schema", ddl, err));
        }
    }
    SILT_RETURN_IF_ERROR(sql_source_path(b, rs.format, rs.path, rs.kv, rs.n_kv, pd, -1, INT64_MIN,
                                         out, ref->pos, err));
    if (csv && cols == NULL && !rs.header)
        return synapse_csv_names(b, out, err);
    return SILT_OK;
}

/* ---------------------------------------------------------------- CREATE EXTERNAL */

typedef struct object_args {
    cat_object obj;
    cat_table table;
    int is_table;
} object_args;

static silt_status add_object_change(cat_state *state, void *payload, silt_error *err)
{
    object_args *o = payload;
    if (o->is_table)
        return catalog_state_add_table(state, &o->table, err);
    return catalog_state_add_object(state, &o->obj, err);
}

static const sql_kv *with_find(const sql_kv_list *with, const char *key)
{
    for (size_t idx = 0; idx < with->n; idx++)
        if (strcmp(with->items[idx].key, key) == 0)
            return &with->items[idx];
    return NULL;
}

/* Refuses every WITH key not in allowed (NULL-terminated), by name. */
static silt_status with_only(binder *b, const sql_kv_list *with, const char *what,
                             const char *const *allowed, silt_error *err)
{
    for (size_t idx = 0; idx < with->n; idx++) {
        size_t k = 0;
        while (allowed[k] != NULL && strcmp(allowed[k], with->items[idx].key) != 0)
            k++;
        if (allowed[k] == NULL)
            return sql_bind_error(b, err, with->items[idx].pos, SILT_UNSUPPORTED, "%s option %s "
                                  "is not supported", what, with->items[idx].key);
    }
    return SILT_OK;
}

static silt_status need_with(binder *b, const sql_stmt *stmt, const char *what, const char *key,
                             const sql_kv **out, silt_error *err)
{
    *out = with_find(&stmt->u.create_external.with, key);
    if (*out == NULL)
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "%s needs %s", what, key);
    return SILT_OK;
}

static silt_status props_from_with(binder *b, const sql_kv_list *with, cat_object *o,
                                   silt_error *err)
{
    o->properties = arena_calloc(b->a, with->n + 1, sizeof(cat_property));
    if (o->properties == NULL)
        return err_nomem(err);
    for (size_t idx = 0; idx < with->n; idx++) {
        o->properties[idx].key = with->items[idx].key;
        o->properties[idx].value = with->items[idx].value;
    }
    o->n_properties = with->n;
    return SILT_OK;
}

static silt_status create_data_source(binder *b, const sql_stmt *stmt, object_args *o,
                                      silt_error *err)
{
    static const char *const allowed[] = {"LOCATION", NULL};
    const sql_kv *loc;
    char *q;
    SILT_RETURN_IF_ERROR(with_only(b, &stmt->u.create_external.with, "EXTERNAL DATA SOURCE",
                                   allowed, err));
    SILT_RETURN_IF_ERROR(need_with(b, stmt, "CREATE EXTERNAL DATA SOURCE", "LOCATION", &loc, err));
    o->obj.kind = CAT_DATA_SOURCE;
    SILT_RETURN_IF_ERROR(props_from_with(b, &stmt->u.create_external.with, &o->obj, err));
    /* qualified as a table's LOCATION is: a relative folder is under the warehouse */
    q = io_location_qualify(loc->value, io_store_root(b->s->warehouse));
    o->obj.properties[0].value = q ? arena_strdup(b->a, q) : NULL;
    mem_free(q);
    return o->obj.properties[0].value != NULL ? SILT_OK : err_nomem(err);
}

static silt_status create_file_format(binder *b, const sql_stmt *stmt, object_args *o,
                                      silt_error *err)
{
    static const char *const allowed[] = {
        "FORMAT_TYPE", "DATA_COMPRESSION", "FORMAT_OPTIONS.FIELD_TERMINATOR",
        "FORMAT_OPTIONS.STRING_DELIMITER", "FORMAT_OPTIONS.FIRST_ROW",
        "FORMAT_OPTIONS.USE_TYPE_DEFAULT", "FORMAT_OPTIONS.ENCODING",
        "FORMAT_OPTIONS.PARSER_VERSION", "FORMAT_OPTIONS.ESCAPE_CHAR", NULL};
    const sql_kv_list *with = &stmt->u.create_external.with;
    const sql_kv *type, *kv;
    int text;
    SILT_RETURN_IF_ERROR(with_only(b, with, "EXTERNAL FILE FORMAT", allowed, err));
    SILT_RETURN_IF_ERROR(need_with(b, stmt, "CREATE EXTERNAL FILE FORMAT", "FORMAT_TYPE", &type,
                                   err));
    text = util_str_casecmp(type->value, "DELIMITEDTEXT") == 0;
    if (!text && util_str_casecmp(type->value, "DELTA") != 0 &&
        util_str_casecmp(type->value, "PARQUET") != 0)
        return sql_bind_error(b, err, type->pos, SILT_BIND, "FORMAT_TYPE must be DELTA, PARQUET "
                              "or DELIMITEDTEXT, not %s", type->value);
    for (size_t idx = 0; idx < with->n; idx++)
        if (!text && strncmp(with->items[idx].key, "FORMAT_OPTIONS.", 15) == 0)
            return sql_bind_error(b, err, with->items[idx].pos, SILT_BIND, "FORMAT_OPTIONS are "
                                  "for FORMAT_TYPE = DELIMITEDTEXT");
    if ((kv = with_find(with, "FORMAT_OPTIONS.FIRST_ROW")) != NULL && strcmp(kv->value, "1") != 0 &&
        strcmp(kv->value, "2") != 0)
        return sql_bind_error(b, err, kv->pos, SILT_UNSUPPORTED, "FIRST_ROW = %s is not "
                              "supported: silt skips at most one line (FIRST_ROW = 2)", kv->value);
    if ((kv = with_find(with, "FORMAT_OPTIONS.USE_TYPE_DEFAULT")) != NULL && is_true(kv->value))
        return sql_bind_error(b, err, kv->pos, SILT_UNSUPPORTED, "USE_TYPE_DEFAULT = TRUE is not "
                              "supported: a missing value reads as NULL");
    if ((kv = with_find(with, "FORMAT_OPTIONS.ENCODING")) != NULL &&
        util_str_casecmp(kv->value, "UTF8") != 0)
        return sql_bind_error(b, err, kv->pos, SILT_UNSUPPORTED, "ENCODING = '%s' is not "
                              "supported: silt reads UTF8", kv->value);
    if ((kv = with_find(with, "DATA_COMPRESSION")) != NULL && text)
        return sql_bind_error(b, err, kv->pos, SILT_UNSUPPORTED, "DATA_COMPRESSION of delimited "
                              "text is not supported");
    o->obj.kind = CAT_FILE_FORMAT;
    return props_from_with(b, with, &o->obj, err);
}

/* The declared columns must be the table's own (names and types), as nothing reconciles them. */
static silt_status check_declared(binder *b, const sql_stmt *stmt, const char *provider,
                                  const char *path, silt_error *err)
{
    const sql_column_list *cols = &stmt->u.create_external.columns;
    plan p;
    size_t n = 0;
    memset(&p, 0, sizeof(p));
    SILT_RETURN_IF_ERROR(sql_source_path(b, provider, path, NULL, 0, NULL, -1, INT64_MIN, &p,
                                         stmt->pos, err));
    for (size_t idx = 0; idx < p.scope.n; idx++)
        if (!p.scope.cols[idx].hidden)
            n++;
    for (size_t idx = 0; idx < cols->n && idx < n; idx++) {
        const sql_column_def *c = &cols->items[idx];
        const bind_col *have = &p.scope.cols[idx];
        if (util_str_casecmp(c->name.name, have->name) != 0 ||
            !col_type_equal(c->type.type, have->type))
            return sql_bind_error(b, err, c->name.pos, SILT_BIND, "column %zu of external table "
                                  "\"%s\" is declared \"%s\" but the %s data at \"%s\" has \"%s\" "
                                  "of another type or name there", idx + 1,
                                  stmt->u.create_external.name.parts[stmt->u.create_external.name.n_parts - 1].name,
                                  c->name.name, provider, path, have->name);
    }
    if (cols->n != n)
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "external table \"%s\" declares %zu "
                              "columns but the %s data at \"%s\" has %zu: declare them all, in "
                              "order",
                              stmt->u.create_external.name.parts[stmt->u.create_external.name.n_parts - 1].name,
                              cols->n, provider, path, n);
    return SILT_OK;
}

static silt_status table_option(binder *b, cat_table *t, size_t *cap, const char *key,
                                const char *value, silt_error *err)
{
    if (t->n_properties == *cap) {
        size_t new_cap = *cap ? *cap * 2 : 8;
        cat_property *grown = arena_realloc(b->a, t->properties, *cap * sizeof(*grown),
                                            new_cap * sizeof(*grown));
        if (grown == NULL)
            return err_nomem(err);
        t->properties = grown;
        *cap = new_cap;
    }
    t->properties[t->n_properties].key = key;
    t->properties[t->n_properties].value = value;
    t->n_properties++;
    return SILT_OK;
}

static silt_status create_external_table(binder *b, const sql_stmt *stmt, object_args *o,
                                         silt_error *err)
{
    static const char *const allowed[] = {"LOCATION", "DATA_SOURCE", "FILE_FORMAT", NULL};
    const sql_kv_list *with = &stmt->u.create_external.with;
    const sql_name *n = &stmt->u.create_external.name;
    const sql_kv *loc, *fmt, *ds = with_find(with, "DATA_SOURCE");
    const char *base = NULL, *type, *v;
    cat_state *state = NULL;
    const cat_object *ff;
    cat_table *t = &o->table;
    size_t cap = 0;
    silt_status rc;
    char *q;
    SILT_RETURN_IF_ERROR(with_only(b, with, "EXTERNAL TABLE", allowed, err));
    SILT_RETURN_IF_ERROR(need_with(b, stmt, "CREATE EXTERNAL TABLE", "LOCATION", &loc, err));
    SILT_RETURN_IF_ERROR(need_with(b, stmt, "CREATE EXTERNAL TABLE", "FILE_FORMAT", &fmt, err));
    if (n->n_parts > 2)
        return sql_bind_error(b, err, n->pos, SILT_BIND, "external table name has too many parts");
    if (ds != NULL)
        SILT_RETURN_IF_ERROR(data_source_location(b, ds->value, ds->pos, &base, err));
    for (size_t idx = 0; idx < stmt->u.create_external.columns.n; idx++)
        SILT_RETURN_IF_ERROR(check_column(b, &stmt->u.create_external.columns.items[idx], 1, err));
    o->is_table = 1;
    t->database = n->n_parts == 2 ? n->parts[0].name : b->s->database;
    t->name = n->parts[n->n_parts - 1].name;
    t->kind = CAT_EXTERNAL;
    t->created_micros = time_now_micros();
    q = io_location_qualify(join_location(b->a, base, loc->value), io_store_root(b->s->warehouse));
    t->location = q ? arena_strdup(b->a, q) : NULL;
    mem_free(q);
    if (t->location == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(find_object(b, CAT_FILE_FORMAT, fmt->value, fmt->pos, &state, &ff, err));
    type = catalog_object_property(ff, "FORMAT_TYPE");
    rc = SILT_OK;
    if (util_str_casecmp(type, "DELTA") == 0 || util_str_casecmp(type, "PARQUET") == 0) {
        t->provider = util_str_casecmp(type, "DELTA") == 0 ? "delta" : "parquet";
    } else {
        t->provider = "csv";
        if ((v = catalog_object_property(ff, "FORMAT_OPTIONS.FIELD_TERMINATOR")) != NULL)
            rc = table_option(b, t, &cap, "option.sep", tsql_char(b->a, v), err);
        if (rc == SILT_OK && (v = catalog_object_property(ff, "FORMAT_OPTIONS.STRING_DELIMITER")) != NULL)
            rc = table_option(b, t, &cap, "option.quote", tsql_char(b->a, v), err);
        if (rc == SILT_OK && (v = catalog_object_property(ff, "FORMAT_OPTIONS.ESCAPE_CHAR")) != NULL)
            rc = table_option(b, t, &cap, "option.escape", tsql_char(b->a, v), err);
        if (rc == SILT_OK && (v = catalog_object_property(ff, "FORMAT_OPTIONS.FIRST_ROW")) != NULL &&
            strcmp(v, "2") == 0)
            rc = table_option(b, t, &cap, "option.header", "true", err);
    }
    /* the properties' strings outlive the state: copy what came from it */
    for (size_t idx = 0; rc == SILT_OK && idx < t->n_properties; idx++)
        if ((t->properties[idx].value = arena_strdup(b->a, t->properties[idx].value)) == NULL)
            rc = err_nomem(err);
    catalog_state_free(state);
    SILT_RETURN_IF_ERROR(rc);
    if (strcmp(t->provider, "csv") == 0) {
        const char *ddl;
        if (stmt->u.create_external.columns.n == 0)
            return sql_bind_error(b, err, stmt->pos, SILT_BIND, "an external table over "
                                  "delimited text needs its columns");
        SILT_RETURN_IF_ERROR(columns_ddl(b, &stmt->u.create_external.columns, &ddl, err));
        return table_option(b, t, &cap, "option.schema", ddl, err);
    }
    if (stmt->u.create_external.columns.n > 0)
        return check_declared(b, stmt, t->provider, t->location, err);
    return SILT_OK;
}

silt_status sql_exec_create_external(binder *b, const sql_stmt *stmt, exec_out *out,
                                     silt_error *err)
{
    object_args o;
    const sql_name *n = &stmt->u.create_external.name;
    (void)out;
    if (b->s->cat == NULL)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "CREATE EXTERNAL needs a "
                              "warehouse: run silt with --warehouse DIR");
    memset(&o, 0, sizeof(o));
    if (stmt->u.create_external.what == SQL_OBJ_TABLE) {
        SILT_RETURN_IF_ERROR(create_external_table(b, stmt, &o, err));
    } else {
        if (n->n_parts != 1)
            return sql_bind_error(b, err, n->pos, SILT_BIND, "an external data source or file "
                                  "format has a one-part name (it belongs to the current "
                                  "database)");
        o.obj.database = b->s->database;
        o.obj.name = n->parts[0].name;
        o.obj.created_micros = time_now_micros();
        SILT_RETURN_IF_ERROR(stmt->u.create_external.what == SQL_OBJ_EXTERNAL_DATA_SOURCE
                                 ? create_data_source(b, stmt, &o, err)
                                 : create_file_format(b, stmt, &o, err));
    }
    return catalog_commit(b->s->cat, add_object_change, &o, NULL, err);
}

typedef struct drop_object_args {
    cat_object_kind kind;
    const char *database, *name;
} drop_object_args;

static silt_status drop_object_change(cat_state *state, void *payload, silt_error *err)
{
    drop_object_args *d = payload;
    return catalog_state_drop_object(state, d->kind, d->database, d->name, err);
}

silt_status sql_exec_drop_external(binder *b, const sql_stmt *stmt, exec_out *out,
                                   silt_error *err)
{
    drop_object_args d;
    const sql_name *n = &stmt->u.drop.name;
    (void)out;
    if (b->s->cat == NULL)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "DROP EXTERNAL needs a "
                              "warehouse: run silt with --warehouse DIR");
    if (n->n_parts != 1)
        return sql_bind_error(b, err, n->pos, SILT_BIND, "an external data source or file format "
                              "has a one-part name");
    d.kind = stmt->u.drop.what == SQL_OBJ_EXTERNAL_DATA_SOURCE ? CAT_DATA_SOURCE : CAT_FILE_FORMAT;
    d.database = b->s->database;
    d.name = n->parts[0].name;
    return catalog_commit(b->s->cat, drop_object_change, &d, NULL, err);
}
