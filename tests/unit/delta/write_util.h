/*
 * write_util.h - helpers shared by the delta write tests: batches built
 * from rows, a table read back as sorted row text, commitInfo lookups.
 */
#ifndef SILT_TESTS_DELTA_WRITE_UTIL_H
#define SILT_TESTS_DELTA_WRITE_UTIL_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/scan.h"
#include "delta/write.h"
#include "test.h"

static inline col_field wt_field(const char *name, col_type_id id)
{
    col_field f;
    memset(&f, 0, sizeof(f));
    f.name = name;
    f.type = col_type_primitive(id);
    f.nullable = 1;
    f.field_id = -1;
    return f;
}

/*
 * A batch from rows given as text, one string per row with '|' between
 * values ("1|x|a"); "null" is a null. Columns are LONG, INT or STRING.
 */
static inline col_batch *wt_batch(arena *a, const col_type *schema, const char *const *rows,
                                  size_t n_rows)
{
    silt_error e = SILT_ERROR_INIT;
    col_batch *b = arena_calloc(a, 1, sizeof(*b));
    size_t col, row;
    b->schema = schema;
    b->n_rows = (int64_t)n_rows;
    b->n_cols = schema->n_fields;
    b->cols = arena_calloc(a, schema->n_fields, sizeof(col_vec *));
    for (col = 0; col < schema->n_fields; col++) {
        col_builder *bld = NULL;
        check_ok(col_builder_new(&bld, a, schema->fields[col].type, &e), &e);
        for (row = 0; row < n_rows; row++) {
            const char *text = rows[row];
            size_t skip = col, len;
            while (skip-- > 0)
                text = strchr(text, '|') + 1;
            len = strchr(text, '|') ? (size_t)(strchr(text, '|') - text) : strlen(text);
            if (len == 4 && memcmp(text, "null", 4) == 0)
                check_ok(col_builder_append_null(bld, &e), &e);
            else if (schema->fields[col].type->id == COL_STRING)
                check_ok(col_builder_append_bytes(bld, text, len, &e), &e);
            else
                check_ok(col_builder_append_int(bld, strtoll(text, NULL, 10), &e), &e);
        }
        check_ok(col_builder_finish(bld, &b->cols[col], &e), &e);
    }
    return b;
}

static inline void wt_value(const col_vec *v, int64_t row, buf *out)
{
    silt_error e = SILT_ERROR_INIT;
    int32_t len;
    const char *s;
    if (col_vec_is_null(v, row)) {
        check_ok(buf_append_str(out, "null", &e), &e);
        return;
    }
    switch (v->type->id) {
    case COL_STRING:
        s = col_vec_str(v, row, &len);
        check_ok(buf_append(out, s, (size_t)len, &e), &e);
        break;
    case COL_INT: check_ok(buf_printf(out, &e, "%d", ((const int32_t *)v->values)[row]), &e); break;
    case COL_LONG:
    case COL_TIMESTAMP:
        check_ok(buf_printf(out, &e, "%lld", (long long)((const int64_t *)v->values)[row]), &e);
        break;
    default: check_ok(buf_append_str(out, "?", &e), &e); break;
    }
}

static int wt_cmp(const void *l, const void *r)
{
    return strcmp(*(const char *const *)l, *(const char *const *)r);
}

/* The rows of a table version (-1 = newest) as "v|v|v" sorted and joined with ';'. */
static inline char *wt_read(arena *a, io_store *store, int64_t version)
{
    silt_error e = SILT_ERROR_INIT;
    delta_snapshot *snap = NULL;
    delta_scan *scan = NULL;
    col_batch *b = NULL;
    char **rows = NULL;
    size_t n = 0, cap = 0, idx, col;
    buf line = BUF_INIT, all = BUF_INIT;
    char *result;
    check_ok(delta_snapshot_load(&snap, store, version, &e), &e);
    check_ok(delta_scan_open(&scan, store, snap, NULL, &e), &e);
    for (;;) {
        int64_t row;
        check_ok(delta_scan_next(scan, a, &b, &e), &e);
        if (b == NULL)
            break;
        for (row = 0; row < b->n_rows; row++) {
            buf_truncate(&line, 0);
            for (col = 0; col < b->n_cols; col++) {
                if (col)
                    check_ok(buf_append_char(&line, '|', &e), &e);
                wt_value(b->cols[col], row, &line);
            }
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 64;
                rows = arena_realloc(a, rows, cap * sizeof(char *), ncap * sizeof(char *));
                cap = ncap;
            }
            rows[n++] = arena_strdup(a, buf_cstr(&line));
        }
    }
    if (n > 0)
        qsort(rows, n, sizeof(char *), wt_cmp);
    for (idx = 0; idx < n; idx++) {
        if (idx)
            check_ok(buf_append_char(&all, ';', &e), &e);
        check_ok(buf_append_str(&all, rows[idx], &e), &e);
    }
    result = arena_strdup(a, buf_cstr(&all));
    buf_clear(&line);
    buf_clear(&all);
    delta_scan_free(scan);
    delta_snapshot_free(snap);
    return result;
}

/* A string field of commitInfo at a version: "operation", or "operationParameters.mode". */
static inline char *wt_commit_info(arena *a, io_store *store, int64_t version, const char *path)
{
    silt_error e = SILT_ERROR_INIT;
    delta_snapshot *snap = NULL;
    cJSON *root, *item;
    char name[128], *dot, *result = NULL;
    check_ok(delta_snapshot_load(&snap, store, version, &e), &e);
    check(snap->has_commit_info);
    root = cJSON_Parse(snap->commit_info.raw_json);
    item = root;
    snprintf(name, sizeof(name), "%s", path);
    for (dot = name; item != NULL && dot != NULL;) {
        char *next = strchr(dot, '.');
        if (next)
            *next++ = '\0';
        item = cJSON_GetObjectItemCaseSensitive(item, dot);
        dot = next;
    }
    if (item != NULL && cJSON_IsString(item))
        result = arena_strdup(a, item->valuestring);
    else if (item != NULL && cJSON_IsNull(item))
        result = arena_strdup(a, "null");
    cJSON_Delete(root);
    delta_snapshot_free(snap);
    return result ? result : arena_strdup(a, "<absent>");
}

/* The (id long, name string, p string) schema of the DML fixtures. */
static inline const col_type *wt_schema3(arena *a)
{
    col_field f[3];
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("name", COL_STRING);
    f[2] = wt_field("p", COL_STRING);
    return col_type_struct(a, 3, f);
}

static inline delta_snapshot *wt_latest(io_store *store, silt_error *err)
{
    delta_snapshot *snap = NULL;
    check_ok(delta_snapshot_load(&snap, store, -1, err), err);
    return snap;
}

/* Version 0 partitioned by p: p=a {1,2,3}, p=b {4,5}, p=c {6}: three files. */
static inline void wt_make_abc_table(arena *a, io_store *store, silt_error *err)
{
    static const char *const rows[] = {"1|one|a", "2|two|a", "3|three|a",
                                       "4|four|b", "5|five|b", "6|six|c"};
    static const char *const parts[] = {"p"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_writer *w = NULL;
    wopts.n_partition_columns = 1;
    wopts.partition_columns = parts;
    check_ok(delta_write_open(&w, store, NULL, wt_schema3(a), &wopts, err), err);
    check_ok(delta_write_batch(w, wt_batch(a, wt_schema3(a), rows, 6), err), err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, err), err);
    delta_write_free(w);
}

/* The table p=a/b/c of wt_make_abc_table's rows with delta.enableChangeDataFeed = true. */
static inline void wt_make_cdf_table(arena *a, io_store *store, silt_error *err)
{
    static const char *const rows[] = {"1|one|a", "2|two|a", "3|three|a",
                                       "4|four|b", "5|five|b", "6|six|c"};
    static const char *const parts[] = {"p"};
    dlog_kv kv = {"delta.enableChangeDataFeed", "true"};
    dlog_map config = {1, &kv};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_writer *w = NULL;
    wopts.n_partition_columns = 1;
    wopts.partition_columns = parts;
    wopts.configuration = &config;
    check_ok(delta_write_open(&w, store, NULL, wt_schema3(a), &wopts, err), err);
    check_ok(delta_write_batch(w, wt_batch(a, wt_schema3(a), rows, 6), err), err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, err), err);
    delta_write_free(w);
}

/* The commit file of a version as text (NUL-terminated, in arena a). */
static inline const char *wt_commit_text(arena *a, io_store *store, int64_t version)
{
    silt_error e = SILT_ERROR_INIT;
    buf data = BUF_INIT;
    char key[64];
    const char *text;
    snprintf(key, sizeof(key), "_delta_log/%020lld.json", (long long)version);
    check_ok(io_get(store, key, &data, &e), &e);
    check_ok(buf_append_char(&data, 0, &e), &e);
    text = arena_strdup(a, data.data);
    buf_clear(&data);
    return text;
}

#endif
