/*
 * write_schema.c - Delta's schema enforcement and evolution on write.
 *
 * Delta's rules for a DataFrame write (docs.delta.io, Schema enforcement):
 * a data column the table lacks is refused unless mergeSchema is set, when
 * it is appended to the table schema; a table column the data lacks is
 * written as null; a column of another type is refused (Delta only widens
 * types with type widening on, which silt does not write). Column names
 * match case-insensitively, as Spark's default spark.sql.caseSensitive.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "delta/protocol.h"
#include "delta/write_int.h"

static int find_field(const col_type *schema, const char *name)
{
    size_t idx;
    for (idx = 0; idx < schema->n_fields; idx++)
        if (util_str_casecmp(schema->fields[idx].name, name) == 0)
            return (int)idx;
    return -1;
}

/* Appends "Table schema: ..., data schema: ..." as the error's detail. */
static void schemas_detail(silt_error *err, const col_type *table, const col_type *data)
{
    buf t = BUF_INIT, d = BUF_INIT;
    silt_error ignored = SILT_ERROR_INIT;
    if (col_type_format(table, &t, &ignored) == SILT_OK &&
        col_type_format(data, &d, &ignored) == SILT_OK)
        err_detail(err, "table schema: %s; data schema: %s", buf_cstr(&t), buf_cstr(&d));
    buf_clear(&t);
    buf_clear(&d);
}

static silt_status mismatch(silt_error *err, const col_type *table, const col_type *data,
                            const char *what, const char *name)
{
    err_set(err, SILT_INVALID,
            "[DELTA_METADATA_MISMATCH] A schema mismatch detected when writing to the Delta "
            "table: %s %s", what, name);
    schemas_detail(err, table, data);
    err_hint(err, "to add the new columns to the table schema, write with the option "
                  "mergeSchema = true");
    return SILT_INVALID;
}

/* Spark names every new column of the data; so does the message. */
static silt_status extra_columns(silt_error *err, const col_type *table, const col_type *data)
{
    buf names = BUF_INIT;
    silt_error ignored = SILT_ERROR_INIT;
    size_t idx, n = 0;
    silt_status rc;
    for (idx = 0; idx < data->n_fields; idx++) {
        if (find_field(table, data->fields[idx].name) >= 0)
            continue;
        (void)buf_printf(&names, &ignored, "%s\"%s\"", n++ ? ", " : "", data->fields[idx].name);
    }
    rc = mismatch(err, table, data,
                  n > 1 ? "the data has columns the table does not have:"
                        : "the data has a column the table does not have:",
                  buf_cstr(&names));
    buf_clear(&names);
    return rc;
}

static silt_status type_mismatch(silt_error *err, const col_type *table, const col_type *data,
                                 const col_field *tf, const col_field *df)
{
    buf t = BUF_INIT, d = BUF_INIT;
    silt_error ignored = SILT_ERROR_INIT;
    (void)col_type_format(tf->type, &t, &ignored);
    (void)col_type_format(df->type, &d, &ignored);
    err_set(err, SILT_INVALID,
            "[DELTA_FAILED_TO_MERGE_FIELDS] Failed to merge fields '%s' and '%s': the table has "
            "type %s and the data %s",
            tf->name, df->name, buf_cstr(&t), buf_cstr(&d));
    buf_clear(&t);
    buf_clear(&d);
    schemas_detail(err, table, data);
    return SILT_INVALID;
}

silt_status dwrite_check_duplicates(const col_type *data, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < data->n_fields; idx++)
        if (find_field(data, data->fields[idx].name) != (int)idx)
            return err_set(err, SILT_INVALID,
                           "[DELTA_DUPLICATE_COLUMNS_FOUND] Found duplicate column(s) in the data "
                           "to save: \"%s\"",
                           data->fields[idx].name);
    return SILT_OK;
}

/* The table schema with the data's extra columns appended (nullable, no metadata). */
static silt_status evolve(const col_type *table, const col_type *data, arena *a,
                          const col_type **out, silt_error *err)
{
    size_t n = table->n_fields, idx;
    col_field *fields = arena_calloc(a, table->n_fields + data->n_fields, sizeof(*fields));
    if (fields == NULL)
        return err_nomem(err);
    memcpy(fields, table->fields, table->n_fields * sizeof(*fields));
    for (idx = 0; idx < data->n_fields; idx++) {
        if (find_field(table, data->fields[idx].name) >= 0)
            continue;
        fields[n] = data->fields[idx];
        fields[n].nullable = 1; /* old files have no values for it */
        fields[n].metadata_json = NULL;
        fields[n].field_id = -1;
        n++;
    }
    *out = col_type_struct(a, n, fields);
    return *out ? SILT_OK : err_nomem(err);
}

silt_status dwrite_match_schema(const col_type *table, const col_type *data, int merge_schema,
                                arena *a, const col_type **table_schema_out, int **src_cols_out,
                                silt_error *err)
{
    size_t idx;
    int *src;
    SILT_RETURN_IF_ERROR(dwrite_check_duplicates(data, err));
    for (idx = 0; idx < data->n_fields; idx++) {
        const col_field *df = &data->fields[idx];
        int t_idx = find_field(table, df->name);
        if (t_idx < 0 && !merge_schema)
            return extra_columns(err, table, data);
        if (t_idx >= 0 && !col_type_equal(table->fields[t_idx].type, df->type))
            return type_mismatch(err, table, data, &table->fields[t_idx], df);
    }
    *table_schema_out = table;
    if (merge_schema)
        SILT_RETURN_IF_ERROR(evolve(table, data, a, table_schema_out, err));
    table = *table_schema_out;
    src = arena_alloc(a, (table->n_fields + 1) * sizeof(*src));
    if (src == NULL)
        return err_nomem(err);
    for (idx = 0; idx < table->n_fields; idx++) {
        src[idx] = find_field(data, table->fields[idx].name);
        if (src[idx] < 0 && !table->fields[idx].nullable) {
            char quoted[512];
            snprintf(quoted, sizeof(quoted), "\"%s\"", table->fields[idx].name);
            return mismatch(err, table, data,
                            "the data lacks a non-nullable column of the table:", quoted);
        }
    }
    *src_cols_out = src;
    return SILT_OK;
}

/*
 * The first row where a NOT NULL field is null, where its parent is not
 * (Delta checks a nested field only inside a present struct), or -1; the
 * field's dotted path into path.
 */
static int64_t first_null(const col_type *type, col_vec *const *vecs, const col_vec *parent,
                          int64_t n_rows, buf *path, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < type->n_fields; idx++) {
        const col_field *f = &type->fields[idx];
        const col_vec *v = vecs[idx];
        size_t at = path->len;
        int64_t row, found = -1;
        if (v == NULL)
            continue;
        if (buf_printf(path, err, "%s%s", at ? "." : "", f->name) != SILT_OK)
            return -2;
        for (row = 0; !f->nullable && v->null_count != 0 && row < n_rows; row++)
            if (col_vec_is_null(v, row) && (parent == NULL || !col_vec_is_null(parent, row))) {
                found = row;
                break;
            }
        if (found < 0 && f->type->id == COL_STRUCT && v->n_children == f->type->n_fields)
            found = first_null(f->type, v->children, v, n_rows, path, err);
        if (found != -1)
            return found;
        buf_truncate(path, at);
    }
    return -1;
}

silt_status dwrite_check_not_null(const col_type *table, col_vec *const *cols, int64_t n_rows,
                                  silt_error *err)
{
    buf path = BUF_INIT;
    int64_t row = first_null(table, cols, NULL, n_rows, &path, err);
    silt_status rc = SILT_OK;
    if (row == -2)
        rc = err->code;
    else if (row >= 0)
        rc = err_set(err, SILT_RUNTIME, "[DELTA_NOT_NULL_CONSTRAINT_VIOLATED] NOT NULL constraint "
                     "violated for column: %s.", buf_cstr(&path));
    buf_clear(&path);
    return rc;
}

/*
 * md with the identity column's delta.identity.highWaterMark set: a write that assigned
 * identity values records the last one in its commit's metaData (PROTOCOL: Identity Columns).
 * On a table whose protocol does not support identityColumns (older tables carry the
 * metadata at writer version 2) the column's delta.identity.* keys are dropped instead, as
 * Delta 4.1 does when it writes such a table: the column is a plain column from then on.
 */
silt_status delta_metadata_with_high_water_mark(const dlog_metadata *md,
                                                const dlog_protocol *protocol,
                                                const char *column, int64_t mark_value,
                                                arena *a, dlog_metadata *out, silt_error *err)
{
    static const char *const keys[] = {"delta.identity.start", "delta.identity.step",
                                       "delta.identity.highWaterMark",
                                       "delta.identity.allowExplicitInsert"};
    int supported = protocol == NULL ||
                    (protocol->min_writer_version >= 7
                         ? dproto_has_feature(protocol, "identityColumns", 1)
                         : protocol->min_writer_version >= 6);
    dlog_metadata copy = *md;
    col_field *fields = arena_calloc(a, md->schema->n_fields + 1, sizeof(col_field));
    buf json = BUF_INIT;
    size_t idx;
    int found = 0;
    silt_status rc = SILT_OK;
    if (fields == NULL)
        return err_nomem(err);
    memcpy(fields, md->schema->fields, md->schema->n_fields * sizeof(col_field));
    for (idx = 0; idx < md->schema->n_fields && rc == SILT_OK; idx++) {
        cJSON *meta;
        char mark[32], *text;
        if (strcmp(fields[idx].name, column) != 0)
            continue;
        snprintf(mark, sizeof(mark), "%lld", (long long)mark_value);
        meta = fields[idx].metadata_json ? cJSON_Parse(fields[idx].metadata_json) : NULL;
        if (meta == NULL)
            return err_set(err, SILT_INVALID, "the identity column %s has no metadata",
                           column);
        cJSON_DeleteItemFromObjectCaseSensitive(meta, "delta.identity.highWaterMark");
        if (!supported) {
            size_t k;
            for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
                cJSON_DeleteItemFromObjectCaseSensitive(meta, keys[k]);
            text = cJSON_PrintUnformatted(meta);
        } else {
            text = cJSON_AddRawToObject(meta, "delta.identity.highWaterMark", mark) != NULL
                       ? cJSON_PrintUnformatted(meta)
                       : NULL;
        }
        cJSON_Delete(meta);
        if (text == NULL || (fields[idx].metadata_json = arena_strdup(a, text)) == NULL)
            rc = err_nomem(err);
        cJSON_free(text);
        found = 1;
    }
    SILT_RETURN_IF_ERROR(rc);
    if (!found)
        return err_set(err, SILT_INVALID, "no identity column %s in the table",
                       column);
    if ((copy.schema = col_type_struct(a, md->schema->n_fields, fields)) == NULL)
        return err_nomem(err);
    rc = delta_schema_to_json(copy.schema, &json, err);
    if (rc == SILT_OK && (copy.schema_string = arena_strdup(a, buf_cstr(&json))) == NULL)
        rc = err_nomem(err);
    buf_clear(&json);
    SILT_RETURN_IF_ERROR(rc);
    *out = copy;
    return SILT_OK;
}
