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

static const char *const merge_keys[] = {"id"};
static const size_t merge_source_keys[] = {0};

static silt_status merge_set_name(const col_batch *target, const col_batch *source,
                                  uint8_t *action, arena *ar, col_batch **updated, void *payload,
                                  silt_error *err)
{
    col_batch *b = arena_memdup(ar, target, sizeof(*target));
    (void)payload;
    if (b == NULL || (b->cols = arena_memdup(ar, target->cols,
                                             target->n_cols * sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    b->cols[1] = source->cols[1];
    memset(action, DELTA_MERGE_UPDATE, (size_t)target->n_rows);
    *updated = b;
    return SILT_OK;
}

static silt_status merge_delete_q(const col_batch *target, const col_batch *source,
                                  uint8_t *action, arena *ar, col_batch **updated, void *payload,
                                  silt_error *err)
{
    int64_t row;
    (void)source;
    (void)ar;
    (void)updated;
    (void)payload;
    (void)err;
    for (row = 0; row < target->n_rows; row++) {
        int32_t len = 0;
        const char *p = col_vec_is_null(target->cols[2], row)
                            ? NULL
                            : col_vec_str(target->cols[2], row, &len);
        action[row] = p != NULL && len == 1 && p[0] == 'q' ? DELTA_MERGE_DELETE : DELTA_MERGE_KEEP;
    }
    return SILT_OK;
}

/* The source rows as they are; the table may have more columns (null for them). */
static silt_status merge_insert(const col_batch *source, arena *ar, col_batch **rows,
                                void *payload, silt_error *err)
{
    const col_type *table = payload;
    col_batch *b = arena_calloc(ar, 1, sizeof(*b));
    size_t col;
    if (b == NULL || (b->cols = arena_calloc(ar, table->n_fields, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    b->schema = table;
    b->n_rows = source->n_rows;
    b->n_cols = table->n_fields;
    for (col = 0; col < table->n_fields; col++) {
        if (col < source->n_cols)
            b->cols[col] = source->cols[col];
        else
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&b->cols[col], ar, table->fields[col].type,
                                                   source->n_rows, err));
    }
    *rows = b;
    return SILT_OK;
}

static silt_status merge(io_store *store, const delta_snapshot *snap, char **rows, int n_rows,
                         silt_error *err)
{
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    col_batch *source = NULL;
    SILT_RETURN_IF_ERROR(make_batch(row_schema(0), rows, n_rows, &source, err));
    spec.source = source;
    spec.n_keys = 1;
    spec.target_keys = merge_keys;
    spec.source_keys = merge_source_keys;
    spec.matched = merge_set_name;
    spec.not_matched_by_source = merge_delete_q;
    spec.insert = merge_insert;
    spec.insert_payload = (void *)snap->schema;
    spec.predicate_text = "(t.id = s.id)";
    spec.matched_json = "[{\"actionType\":\"update\"}]";
    spec.not_matched_json = "[{\"actionType\":\"insert\"}]";
    spec.not_matched_by_source_json = "[{\"actionType\":\"delete\",\"predicate\":\"(t.p = 'q')\"}]";
    return delta_merge(store, snap, &spec, NULL, NULL, err);
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

static silt_status run(const char *cmd, io_store *store, char **args, int n_args, silt_error *err)
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
        rc = merge(store, snap, args, n_args, err);
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
        rc = run(argv[1], store, argv + 3, argc - 3, &err);
    io_store_free(store);
    arena_free(a);
    if (rc != SILT_OK) {
        err_format(&err, text, sizeof(text));
        fprintf(stderr, "delta_write_driver %s: %s\n", argv[1], text);
        return 1;
    }
    return 0;
}
