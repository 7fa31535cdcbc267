/*
 * delta_write_driver - runs silt's Delta write operations for
 * delta_write_spark.py. Rows are {id long, name string, p string}, given as
 * "id|name|p" arguments ("null" for a null).
 *
 *   ctas ROOT ROW...             CREATE TABLE AS SELECT, partitioned by p
 *   append ROOT ROW...           WRITE (Append)
 *   append-wide ROOT ROW...      WRITE (Append) of "id|name|p|score" with mergeSchema
 *   overwrite ROOT ROW...        WRITE (Overwrite)
 *   delete-even ROOT             DELETE WHERE id % 2 = 0
 *   delete-partition ROOT VALUE  DELETE WHERE p = VALUE (whole files)
 *   update-even ROOT             UPDATE SET name = concat('u-', name) WHERE id % 2 = 0
 *   restore ROOT VERSION         RESTORE TABLE TO VERSION AS OF VERSION
 *   merge ROOT ROW...            MERGE ON id: matched -> name = source name, not matched ->
 *                                insert, not matched by source with p = 'q' -> delete
 *   typed ROOT                   CTAS of {id long, v double, n int, d date, ts timestamp}
 *                                partitioned by n, d, ts (fixed rows, nulls included)
 *   dump ROOT                    prints the rows, one "id|name|p" per line
 *
 * Exits 0 on success; prints the error and exits 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/dml.h"
#include "delta/scan.h"
#include "silt.h"
#include "util/buf.h"

static arena *a;

static col_field field(const char *name, col_type_id id)
{
    col_field f;
    memset(&f, 0, sizeof(f));
    f.name = name;
    f.type = col_type_primitive(id);
    f.nullable = 1;
    f.field_id = -1;
    return f;
}

static const col_type *row_schema(int wide)
{
    col_field f[4];
    f[0] = field("id", COL_LONG);
    f[1] = field("name", COL_STRING);
    f[2] = field("p", COL_STRING);
    f[3] = field("score", COL_INT);
    return col_type_struct(a, wide ? 4 : 3, f);
}

/* The idx-th '|'-separated value of a row text. */
static const char *value_at(const char *row, size_t idx, size_t *len_out)
{
    const char *end;
    while (idx-- > 0 && row != NULL)
        row = strchr(row, '|') ? strchr(row, '|') + 1 : NULL;
    if (row == NULL) {
        *len_out = 0;
        return NULL;
    }
    end = strchr(row, '|');
    *len_out = end ? (size_t)(end - row) : strlen(row);
    return *len_out == 4 && memcmp(row, "null", 4) == 0 ? NULL : row;
}

static silt_status make_batch(const col_type *schema, char **rows, int n_rows, col_batch **out,
                              silt_error *err)
{
    col_batch *b = arena_calloc(a, 1, sizeof(*b));
    size_t col;
    int row;
    b->schema = schema;
    b->n_rows = n_rows;
    b->n_cols = schema->n_fields;
    b->cols = arena_calloc(a, schema->n_fields, sizeof(col_vec *));
    for (col = 0; col < schema->n_fields; col++) {
        col_builder *bld = NULL;
        SILT_RETURN_IF_ERROR(col_builder_new(&bld, a, schema->fields[col].type, err));
        for (row = 0; row < n_rows; row++) {
            size_t len;
            const char *text = value_at(rows[row], col, &len);
            if (text == NULL)
                SILT_RETURN_IF_ERROR(col_builder_append_null(bld, err));
            else if (schema->fields[col].type->id == COL_STRING)
                SILT_RETURN_IF_ERROR(col_builder_append_bytes(bld, text, len, err));
            else
                SILT_RETURN_IF_ERROR(col_builder_append_int(bld, strtoll(text, NULL, 10), err));
        }
        SILT_RETURN_IF_ERROR(col_builder_finish(bld, &b->cols[col], err));
    }
    *out = b;
    return SILT_OK;
}

static silt_status write_rows(io_store *store, const delta_snapshot *snap, delta_write_mode mode,
                              int wide, char **rows, int n_rows, silt_error *err)
{
    static const char *const parts[] = {"p"};
    delta_write_options opts = DELTA_WRITE_OPTIONS_INIT;
    const col_type *schema = row_schema(wide);
    delta_writer *w = NULL;
    col_batch *b = NULL;
    silt_status rc;
    if (snap == NULL) { /* like DataFrameWriter.partitionBy: only when creating the table */
        opts.n_partition_columns = 1;
        opts.partition_columns = parts;
    }
    opts.merge_schema = wide;
    rc = make_batch(schema, rows, n_rows, &b, err);
    if (rc == SILT_OK)
        rc = delta_write_open(&w, store, snap, schema, &opts, err);
    if (rc == SILT_OK)
        rc = delta_write_batch(w, b, err);
    if (rc == SILT_OK)
        rc = delta_write_commit(w, store, snap, mode, NULL, NULL, err);
    delta_write_free(w);
    return rc;
}

static silt_status even_id(const col_batch *b, uint8_t *match, void *payload, silt_error *err)
{
    int64_t row;
    (void)payload;
    (void)err;
    for (row = 0; row < b->n_rows; row++)
        match[row] = !col_vec_is_null(b->cols[0], row) &&
                     ((const int64_t *)b->cols[0]->values)[row] % 2 == 0;
    return SILT_OK;
}

static int partition_is(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    const char *value = dlog_map_get(&file->partition_values, "p", NULL);
    (void)snap;
    return value != NULL && strcmp(value, payload) == 0;
}

static silt_status prefix_names(const col_batch *matched, arena *ar, col_batch **out,
                                void *payload, silt_error *err)
{
    col_batch *b = arena_memdup(ar, matched, sizeof(*matched));
    col_builder *bld = NULL;
    int64_t row;
    (void)payload;
    b->cols = arena_memdup(ar, matched->cols, matched->n_cols * sizeof(col_vec *));
    SILT_RETURN_IF_ERROR(col_builder_new(&bld, ar, col_type_primitive(COL_STRING), err));
    for (row = 0; row < matched->n_rows; row++) {
        int32_t len = 0;
        char text[256];
        int n;
        if (col_vec_is_null(matched->cols[1], row)) {
            SILT_RETURN_IF_ERROR(col_builder_append_null(bld, err));
            continue;
        }
        {
            const char *s = col_vec_str(matched->cols[1], row, &len);
            n = snprintf(text, sizeof(text), "u-%.*s", (int)len, s);
        }
        SILT_RETURN_IF_ERROR(col_builder_append_bytes(bld, text, (size_t)n, err));
    }
    SILT_RETURN_IF_ERROR(col_builder_finish(bld, &b->cols[1], err));
    *out = b;
    return SILT_OK;
}

/* A row's field as a SQL literal into t ("null" stays NULL; quotes doubled). */
static void sql_literal(buf *t, const char *field, size_t len, int quoted, silt_error *err)
{
    size_t k;
    if ((len == 4 && memcmp(field, "null", 4) == 0) || !quoted) {
        buf_append(t, field, len, err);
        return;
    }
    buf_append_char(t, '\'', err);
    for (k = 0; k < len; k++) {
        if (field[k] == '\'')
            buf_append_char(t, '\'', err);
        buf_append_char(t, field[k], err);
    }
    buf_append_char(t, '\'', err);
}

/*
 * MERGE runs in the SQL layer (the engine's join, docs/dml.md): the driver gives it the
 * statement through the public API, the source rows as VALUES.
 */
static silt_status merge(const char *root, char **rows, int n_rows, silt_error *err)
{
    buf t = BUF_INIT;
    silt_db *db = NULL;
    silt_conn *conn = NULL;
    silt_status rc;
    int r;
    buf_printf(&t, err, "MERGE INTO delta.`%s` t USING (VALUES ", root);
    for (r = 0; r < n_rows; r++) {
        const char *f = rows[r], *bar1 = strchr(f, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
        if (bar2 == NULL) {
            buf_clear(&t);
            return err_set(err, SILT_INVALID, "row \"%s\" is not id|name|p", f);
        }
        buf_append_str(&t, r ? ", (CAST(" : "(CAST(", err);
        sql_literal(&t, f, (size_t)(bar1 - f), 0, err);
        buf_append_str(&t, " AS BIGINT), ", err);
        sql_literal(&t, bar1 + 1, (size_t)(bar2 - bar1 - 1), 1, err);
        buf_append_str(&t, ", ", err);
        sql_literal(&t, bar2 + 1, strlen(bar2 + 1), 1, err);
        buf_append_char(&t, ')', err);
    }
    buf_append_str(&t, ") AS s(id, name, p) ON (t.id = s.id) "
                       "WHEN MATCHED THEN UPDATE SET name = s.name "
                       "WHEN NOT MATCHED THEN INSERT (id, name, p) VALUES (s.id, s.name, s.p) "
                       "WHEN NOT MATCHED BY SOURCE AND t.p = 'q' THEN DELETE", err);
    rc = silt_db_open(&db, NULL, NULL);
    if (rc == SILT_OK)
        rc = silt_conn_open(&conn, db);
    if (rc == SILT_OK && (rc = silt_conn_exec(conn, buf_cstr(&t), NULL)) != SILT_OK)
        err_set(err, rc, "%s", silt_conn_errmsg(conn));
    else if (rc != SILT_OK)
        err_set(err, rc, "cannot open a database: %s", db ? silt_db_errmsg(db) : "no memory");
    silt_conn_close(conn);
    silt_db_close(db);
    buf_clear(&t);
    return rc;
}

static void print_value(const col_vec *v, int64_t row)
{
    int32_t len;
    if (col_vec_is_null(v, row)) {
        fputs("null", stdout);
        return;
    }
    switch (v->type->id) {
    case COL_STRING: {
        const char *s = col_vec_str(v, row, &len);
        fwrite(s, 1, (size_t)len, stdout);
        break;
    }
    case COL_INT: printf("%d", ((const int32_t *)v->values)[row]); break;
    default: printf("%lld", (long long)((const int64_t *)v->values)[row]); break;
    }
}

static silt_status dump(io_store *store, const delta_snapshot *snap, silt_error *err)
{
    delta_scan *scan = NULL;
    col_batch *b = NULL;
    silt_status rc = delta_scan_open(&scan, store, snap, NULL, err);
    while (rc == SILT_OK && (rc = delta_scan_next(scan, a, &b, err)) == SILT_OK && b != NULL) {
        int64_t row;
        size_t col;
        for (row = 0; row < b->n_rows; row++) {
            for (col = 0; col < b->n_cols; col++) {
                if (col)
                    putchar('|');
                print_value(b->cols[col], row);
            }
            putchar('\n');
        }
    }
    delta_scan_free(scan);
    return rc;
}

/* Three rows with typed partition values: ints, dates and timestamps, and nulls. */
static silt_status typed(io_store *store, silt_error *err)
{
    static const char *const parts[] = {"n", "d", "ts"};
    static const char *const names[] = {"id", "v", "n", "d", "ts"};
    static const col_type_id ids[] = {COL_LONG, COL_DOUBLE, COL_INT, COL_DATE, COL_TIMESTAMP};
    /* 2021-01-01 = day 18628; 2021-01-01 10:11:12 and 2021-06-30 23:59:59.123456 UTC */
    static const int64_t n_vals[] = {1, -5, 0}, d_vals[] = {18628, 0, 10956};
    static const int64_t ts_vals[] = {INT64_C(1609495872000000), INT64_C(1625097599123456), 0};
    static const int nulls[3][3] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 1}};
    col_field f[5];
    col_batch b;
    col_vec *cols[5];
    delta_write_options opts = DELTA_WRITE_OPTIONS_INIT;
    delta_writer *w = NULL;
    size_t col;
    int row;
    silt_status rc = SILT_OK;
    for (col = 0; col < 5; col++)
        f[col] = field(names[col], ids[col]);
    b.schema = col_type_struct(a, 5, f);
    b.n_rows = 3;
    b.n_cols = 5;
    b.cols = cols;
    for (col = 0; col < 5 && rc == SILT_OK; col++) {
        col_builder *bld = NULL;
        rc = col_builder_new(&bld, a, f[col].type, err);
        for (row = 0; row < 3 && rc == SILT_OK; row++) {
            if (col >= 2 && nulls[row][col - 2])
                rc = col_builder_append_null(bld, err);
            else if (col == 0)
                rc = col_builder_append_int(bld, row + 1, err);
            else if (col == 1)
                rc = col_builder_append_double(bld, row * 1.5, err);
            else
                rc = col_builder_append_int(
                    bld, col == 2 ? n_vals[row] : col == 3 ? d_vals[row] : ts_vals[row], err);
        }
        if (rc == SILT_OK)
            rc = col_builder_finish(bld, &cols[col], err);
    }
    opts.n_partition_columns = 3;
    opts.partition_columns = parts;
    if (rc == SILT_OK)
        rc = delta_write_open(&w, store, NULL, b.schema, &opts, err);
    if (rc == SILT_OK)
        rc = delta_write_batch(w, &b, err);
    if (rc == SILT_OK)
        rc = delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, err);
    delta_write_free(w);
    return rc;
}

static silt_status run(const char *cmd, const char *root, io_store *store, char **args,
                       int n_args, silt_error *err)
{
    delta_snapshot *snap = NULL;
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    silt_status rc;
    if (strcmp(cmd, "ctas") == 0)
        return write_rows(store, NULL, DELTA_MODE_CTAS, 0, args, n_args, err);
    if (strcmp(cmd, "typed") == 0)
        return typed(store, err);
    SILT_RETURN_IF_ERROR(delta_snapshot_load(&snap, store, -1, err));
    if (strcmp(cmd, "append") == 0 || strcmp(cmd, "append-wide") == 0)
        rc = write_rows(store, snap, DELTA_MODE_APPEND, cmd[6] == '-', args, n_args, err);
    else if (strcmp(cmd, "overwrite") == 0)
        rc = write_rows(store, snap, DELTA_MODE_OVERWRITE, 0, args, n_args, err);
    else if (strcmp(cmd, "delete-even") == 0 || strcmp(cmd, "update-even") == 0) {
        opts.predicate = even_id;
        opts.predicate_text = "((id % 2) = 0)";
        rc = cmd[0] == 'd' ? delta_delete(store, snap, &opts, NULL, NULL, err)
                           : delta_update(store, snap, &opts, prefix_names, NULL, NULL, NULL, err);
    } else if (strcmp(cmd, "delete-partition") == 0 && n_args == 1) {
        opts.predicate_text = "(p = ?)";
        opts.file_filter = partition_is;
        opts.file_filter_payload = args[0];
        opts.partition_only = 1;
        rc = delta_delete(store, snap, &opts, NULL, NULL, err);
    } else if (strcmp(cmd, "merge") == 0)
        rc = merge(root, args, n_args, err);
    else if (strcmp(cmd, "restore") == 0 && n_args == 1)
        rc = delta_restore(store, snap, strtoll(args[0], NULL, 10), -1, NULL, NULL, err);
    else if (strcmp(cmd, "dump") == 0)
        rc = dump(store, snap, err);
    else
        rc = err_set(err, SILT_INVALID, "unknown command \"%s\"", cmd);
    delta_snapshot_free(snap);
    return rc;
}

int main(int argc, char **argv)
{
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc;
    char text[2048];
    if (argc < 3) {
        fprintf(stderr, "usage: delta_write_driver COMMAND ROOT [ARGS...]\n");
        return 2;
    }
    a = arena_new(NULL, "driver");
    rc = io_local_store_open(&store, argv[2], 1, &err);
    if (rc == SILT_OK)
        rc = run(argv[1], argv[2], store, argv + 3, argc - 3, &err);
    io_store_free(store);
    arena_free(a);
    if (rc != SILT_OK) {
        err_format(&err, text, sizeof(text));
        fprintf(stderr, "delta_write_driver %s: %s\n", argv[1], text);
        return 1;
    }
    return 0;
}
