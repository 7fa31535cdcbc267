/*
 * write.c - delta_writer: batches of the table schema -> Parquet data files
 * in partition folders -> add actions (write.h).
 *
 * One open Parquet file per partition folder; rows of a batch are grouped
 * by their folder and gathered (col_vec_take) into a batch per folder,
 * which is queued for encoding (write_encode.c: in parallel on the pool
 * given at open, with the queue's memory bounded).
 */
#include <stdio.h>
#include <string.h>

#include "delta/protocol.h"
#include "delta/write_int.h"
#include "formats/parquet/writer.h"
#include "util/hashmap.h"
#include "util/mem.h"
#include "util/time.h"

#define DEFAULT_TARGET_FILE_SIZE ((int64_t)128 << 20)
#define DEFAULT_MAX_OPEN_FILES 128

const char *const *dwrite_partition_by(const delta_writer *w, size_t *n_out)
{
    *n_out = w->n_partition_by;
    return w->partition_by;
}

static silt_status keep_partition_by(delta_writer *w, const delta_write_options *opts,
                                     silt_error *err)
{
    size_t idx;
    w->partition_by = arena_calloc(w->a, opts->n_partition_columns + 1, sizeof(char *));
    if (w->partition_by == NULL)
        return err_nomem(err);
    for (idx = 0; idx < opts->n_partition_columns; idx++)
        if ((w->partition_by[idx] = arena_strdup(w->a, opts->partition_columns[idx])) == NULL)
            return err_nomem(err);
    w->n_partition_by = opts->n_partition_columns;
    return SILT_OK;
}

const col_type *delta_write_table_schema(const delta_writer *w) { return w->table_schema; }

/* ---- open -------------------------------------------------------------------------------- */

static int find_column(const col_type *schema, const char *name)
{
    size_t idx;
    for (idx = 0; idx < schema->n_fields; idx++)
        if (util_str_casecmp(schema->fields[idx].name, name) == 0)
            return (int)idx;
    return -1;
}

/* Metadata of a new table from the options, or the snapshot's with the evolved schema. */
static silt_status setup_metadata(delta_writer *w, const delta_snapshot *snap,
                                  const delta_write_options *opts, silt_error *err)
{
    buf text = BUF_INIT;
    silt_status rc;
    if (snap == NULL) {
        w->md_changed = 1;
        SILT_RETURN_IF_ERROR(delta_metadata_for_new_table(
            &w->md, w->a, w->table_schema, opts->n_partition_columns, opts->partition_columns,
            opts->configuration, err));
        w->table_schema = w->md.schema; /* with column mapping ids and physical names */
        return dproto_get_mapping_mode(&w->md, &w->mode, err);
    }
    w->md = snap->metadata;
    if (w->table_schema == snap->schema)
        return SILT_OK;
    if (w->mode != DPROTO_MAPPING_NONE)
        return err_set(err, SILT_UNSUPPORTED,
                       "cannot add columns to a table with column mapping: silt does not assign "
                       "column ids on schema evolution yet");
    rc = delta_schema_to_json(w->table_schema, &text, err);
    if (rc == SILT_OK) {
        w->md.schema = w->table_schema;
        w->md.schema_string = arena_strdup(w->a, buf_cstr(&text));
        w->md_changed = 1;
        if (w->md.schema_string == NULL)
            rc = err_nomem(err);
    }
    buf_clear(&text);
    return rc;
}

static silt_status setup_schema(delta_writer *w, const delta_snapshot *snap, const col_type *schema,
                                const delta_write_options *opts, silt_error *err)
{
    size_t idx;
    if (schema == NULL || schema->id != COL_STRUCT || schema->n_fields == 0)
        return err_set(err, SILT_INVALID, "cannot write a table: the data has no columns");
    if (snap != NULL) {
        SILT_RETURN_IF_ERROR(dproto_get_mapping_mode(&snap->metadata, &w->mode, err));
        return dwrite_match_schema(snap->schema, schema, opts->merge_schema, w->a,
                                   &w->table_schema, &w->src_cols, err);
    }
    /* A new table: refused here, before a data file exists (the commit's
     * metadata check would come after the files are written). */
    SILT_RETURN_IF_ERROR(dwrite_check_duplicates(schema, err));
    w->table_schema = schema;
    w->src_cols = arena_alloc(w->a, schema->n_fields * sizeof(int));
    if (w->src_cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < schema->n_fields; idx++)
        w->src_cols[idx] = (int)idx;
    return SILT_OK;
}

/*
 * The physical schema of a change data writer: the table's physical columns,
 * then _change_type as it is (a column of the file only, outside the
 * table's schema and column mapping).
 */
static silt_status cdc_physical_schema(delta_writer *w, const col_type **out, silt_error *err)
{
    const col_type *phys = NULL;
    col_field *fields;
    size_t n = w->md.schema->n_fields;
    SILT_RETURN_IF_ERROR(dproto_physical_schema(w->md.schema, w->mode, w->a, &phys, err));
    fields = arena_calloc(w->a, n + 1, sizeof(*fields));
    if (fields == NULL)
        return err_nomem(err);
    memcpy(fields, phys->fields, n * sizeof(*fields));
    fields[n] = w->table_schema->fields[n];
    *out = col_type_struct(w->a, n + 1, fields);
    return *out ? SILT_OK : err_nomem(err);
}

/* Splits the table columns into partition and data columns; the physical file schema. */
static silt_status setup_columns(delta_writer *w, silt_error *err)
{
    const col_type *schema = w->table_schema, *phys = NULL;
    col_field *fields;
    size_t idx, n_data = 0;
    if (w->cdc)
        SILT_RETURN_IF_ERROR(cdc_physical_schema(w, &phys, err));
    else
        SILT_RETURN_IF_ERROR(dproto_physical_schema(schema, w->mode, w->a, &phys, err));
    w->n_part = w->md.n_partition_columns;
    w->part_cols = arena_calloc(w->a, w->n_part + 1, sizeof(size_t));
    w->part_phys = arena_calloc(w->a, w->n_part + 1, sizeof(char *));
    w->part_width = arena_calloc(w->a, w->n_part + 1, sizeof(size_t));
    w->data_cols = arena_calloc(w->a, schema->n_fields, sizeof(size_t));
    fields = arena_calloc(w->a, schema->n_fields, sizeof(*fields));
    if (w->part_cols == NULL || w->part_phys == NULL || w->part_width == NULL ||
        w->data_cols == NULL || fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < w->n_part; idx++) {
        int col = find_column(schema, w->md.partition_columns[idx]);
        if (col < 0)
            return err_set(err, SILT_CORRUPT, "the partition column \"%s\" is not in the schema",
                           w->md.partition_columns[idx]);
        SILT_RETURN_IF_ERROR(dwrite_check_partition_type(&schema->fields[col], err));
        w->part_cols[idx] = (size_t)col;
        w->part_phys[idx] = phys->fields[col].name;
    }
    for (idx = 0; idx < schema->n_fields; idx++) {
        size_t p;
        for (p = 0; p < w->n_part && w->part_cols[p] != idx; p++)
            ;
        if (p < w->n_part)
            continue;
        w->data_cols[n_data] = idx;
        fields[n_data++] = phys->fields[idx];
    }
    if (n_data == 0)
        return err_set(err, SILT_INVALID,
                       "cannot write a table whose columns are all partition columns");
    w->n_data = n_data;
    w->file_schema = col_type_struct(w->a, n_data, fields);
    return w->file_schema ? SILT_OK : err_nomem(err);
}

static void setup_sizes(delta_writer *w, const delta_write_options *opts)
{
    const char *text = dlog_map_get(&w->md.configuration, "delta.targetFileSize", NULL);
    int64_t value = 0;
    w->target = DEFAULT_TARGET_FILE_SIZE;
    w->max_open = opts->max_open_files > 0 ? opts->max_open_files : DEFAULT_MAX_OPEN_FILES;
    if (opts->target_file_size > 0)
        w->target = opts->target_file_size;
    else if (text != NULL && util_str_to_int64(text, strlen(text), &value) && value > 0)
        w->target = value;
    w->n_indexed = delta_stats_indexed_cols(&w->md);
}

/* The data files' codec: Spark's name, refused as Spark would (or LZO, which silt lacks). */
static silt_status setup_codec(delta_writer *w, const char *name, silt_error *err)
{
    w->codec = name != NULL ? pqw_codec_by_spark_name(name) : PQW_CODEC_SNAPPY;
    if (w->codec < 0)
        return err_set(err, SILT_INVALID, "[CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION] "
                       "The codec %s is not available. Available codecs are %s.", name,
                       pqw_codec_spark_names());
    /* Spark names brotli but ships no codec for it (its writes fail, and a brotli file is
     * one Spark cannot read): refused, as lzo, which silt lacks. */
    if (w->codec == PQW_CODEC_LZO || w->codec == PQW_CODEC_BROTLI)
        return err_set(err, SILT_UNSUPPORTED, "Parquet compression codec %s is not supported "
                       "by silt; use snappy, zstd, gzip, lz4, lz4_raw or none",
                       w->codec == PQW_CODEC_LZO ? "lzo" : "brotli");
    return SILT_OK;
}

silt_status delta_write_open(delta_writer **out, io_store *store, const delta_snapshot *snap,
                             const col_type *schema, const delta_write_options *opts,
                             silt_error *err)
{
    static const delta_write_options defaults = DELTA_WRITE_OPTIONS_INIT;
    delta_writer *w;
    silt_status rc;
    *out = NULL;
    if (opts == NULL)
        opts = &defaults;
    if (snap != NULL)
        SILT_RETURN_IF_ERROR(delta_check_writable(&snap->protocol, &snap->metadata, 0, err));
    w = mem_calloc(1, sizeof(*w));
    if (w == NULL)
        return err_nomem(err);
    w->a = arena_new(NULL, "delta writer");
    w->batch_a = w->a ? arena_new(w->a, "delta writer batch") : NULL;
    w->store = store;
    w->in_schema = schema;
    rc = w->batch_a ? SILT_OK : err_nomem(err);
    if (rc == SILT_OK)
        rc = setup_codec(w, opts->compression, err);
    if (rc == SILT_OK)
        rc = setup_schema(w, snap, schema, opts, err);
    if (rc == SILT_OK)
        rc = setup_metadata(w, snap, opts, err);
    if (rc == SILT_OK)
        rc = setup_columns(w, err);
    if (rc == SILT_OK)
        rc = keep_partition_by(w, opts, err);
    if (rc != SILT_OK) {
        delta_write_free(w);
        return rc;
    }
    setup_sizes(w, opts);
    w->pool = opts->pool;
    w->check = opts->check;
    w->check_payload = opts->check_payload;
    *out = w;
    return SILT_OK;
}

/*
 * PROTOCOL: Change Data Files. A writer of the table's change data: batches
 * are the table's columns plus _change_type (string), files go to
 * _change_data/<partition folders>/cdc-*.parquet with the partition
 * columns left out as in data files, and the output's adds are meant for
 * cdc actions (no stats, dataChange false).
 */
silt_status dwrite_open_cdc(delta_writer **out, io_store *store, const delta_snapshot *snap,
                            silt_error *err)
{
    static const delta_write_options defaults = DELTA_WRITE_OPTIONS_INIT;
    const col_type *table = snap->schema;
    delta_writer *w;
    col_field *fields = NULL;
    size_t idx, n = table->n_fields;
    silt_status rc;
    *out = NULL;
    w = mem_calloc(1, sizeof(*w));
    if (w == NULL)
        return err_nomem(err);
    w->cdc = 1;
    w->codec = PQW_CODEC_SNAPPY;
    w->store = store;
    w->md = snap->metadata;
    w->a = arena_new(NULL, "delta cdc writer");
    w->batch_a = w->a ? arena_new(w->a, "delta cdc writer batch") : NULL;
    if (w->batch_a != NULL) {
        fields = arena_calloc(w->a, n + 1, sizeof(*fields));
        w->src_cols = arena_calloc(w->a, n + 1, sizeof(int));
    }
    rc = fields && w->src_cols ? SILT_OK : err_nomem(err);
    if (rc == SILT_OK) {
        memcpy(fields, table->fields, n * sizeof(*fields));
        fields[n].name = "_change_type";
        fields[n].type = col_type_primitive(COL_STRING);
        fields[n].nullable = 1;
        fields[n].field_id = -1;
        for (idx = 0; idx <= n; idx++)
            w->src_cols[idx] = (int)idx;
        w->in_schema = w->table_schema = col_type_struct(w->a, n + 1, fields);
        rc = w->in_schema ? SILT_OK : err_nomem(err);
    }
    if (rc == SILT_OK)
        rc = dproto_get_mapping_mode(&w->md, &w->mode, err);
    if (rc == SILT_OK)
        rc = setup_columns(w, err);
    if (rc == SILT_OK)
        rc = keep_partition_by(w, &defaults, err);
    if (rc != SILT_OK) {
        delta_write_free(w);
        return rc;
    }
    setup_sizes(w, &defaults);
    *out = w;
    return SILT_OK;
}

/* ---- files ------------------------------------------------------------------------------- */

/* Finishes the open file holding the most rows, to make room for another one. */
static silt_status close_largest(delta_writer *w, silt_error *err)
{
    size_t iter = 0;
    const hashmap_entry *entry;
    part_file *largest = NULL;
    while (hashmap_next(&w->parts, &iter, &entry)) {
        part_file *pf = entry->value;
        if (pf->file != NULL && (largest == NULL || pf->mem_bytes > largest->mem_bytes))
            largest = pf;
    }
    return largest ? dwrite_queue_close(w, largest, err) : SILT_OK;
}

/* ---- rows -------------------------------------------------------------------------------- */

/* The batch's columns in table order, with null columns for the ones the data lacks. */
static silt_status conform(delta_writer *w, const col_batch *batch, col_vec ***cols_out,
                           silt_error *err)
{
    size_t n = w->table_schema->n_fields, idx;
    col_vec **cols = arena_calloc(w->batch_a, n, sizeof(*cols));
    if (cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        if (w->src_cols[idx] >= 0)
            cols[idx] = batch->cols[w->src_cols[idx]];
        else
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&cols[idx], w->batch_a,
                                                   w->table_schema->fields[idx].type,
                                                   batch->n_rows, err));
    }
    *cols_out = cols;
    return SILT_OK;
}

/* In-memory bytes of a vector, the measure of the target file size. */
static int64_t vec_bytes(const col_vec *v)
{
    int64_t bytes = v->length * (int64_t)col_type_value_width(v->type->id);
    size_t idx;
    if (v->dictionary != NULL)
        bytes = v->length * 4 + v->dictionary->data_len;
    else if (v->type->id == COL_STRING || v->type->id == COL_BINARY)
        bytes = v->length * 4 + v->data_len;
    for (idx = 0; idx < v->n_children; idx++)
        bytes += vec_bytes(v->children[idx]);
    return bytes;
}

/* The folder of row `row` ("a=1/b=x/") into w->scratch, and its partition values. */
static silt_status row_dir(delta_writer *w, col_vec **cols, int64_t row, dlog_kv *values,
                           silt_error *err)
{
    size_t idx;
    buf_truncate(&w->scratch, 0);
    for (idx = 0; idx < w->n_part; idx++) {
        const col_vec *v = cols[w->part_cols[idx]];
        size_t start;
        int is_null = 0;
        SILT_RETURN_IF_ERROR(dwrite_escape_path(w->part_phys[idx], strlen(w->part_phys[idx]),
                                                &w->scratch, err));
        SILT_RETURN_IF_ERROR(buf_append_char(&w->scratch, '=', err));
        start = w->scratch.len;
        SILT_RETURN_IF_ERROR(dwrite_partition_text(v, row, &w->scratch, &is_null, err));
        if (values != NULL) {
            values[idx].key = w->part_phys[idx];
            values[idx].value = is_null ? NULL
                                        : arena_strndup(w->a, w->scratch.data + start,
                                                        w->scratch.len - start);
            if (!is_null && values[idx].value == NULL)
                return err_nomem(err);
        }
        /* The folder name is the escaped text; the log keeps the raw text. */
        {
            size_t raw_len = w->scratch.len - start;
            char *raw = arena_strndup(w->batch_a, w->scratch.data + start, raw_len);
            if (raw == NULL)
                return err_nomem(err);
            buf_truncate(&w->scratch, start);
            if (is_null)
                SILT_RETURN_IF_ERROR(buf_append_str(&w->scratch, DWRITE_NULL_PARTITION, err));
            else
                SILT_RETURN_IF_ERROR(dwrite_escape_path(raw, raw_len, &w->scratch, err));
        }
        SILT_RETURN_IF_ERROR(buf_append_char(&w->scratch, '/', err));
    }
    return SILT_OK;
}

/*
 * Finding a row's partition by its typed values. Each partition column adds
 * to a row's key a flag byte (0 null, 1 value) and the value's bytes: the
 * fixed-width value as stored, or a 4-byte length and the string. Equal
 * keys have equal log text, so the same folder; unequal keys may still
 * share a folder (NaN payloads, "" and null), which find_part resolves once
 * per key by the folder name. The text is formatted once per new key, not
 * per row (formatting every row was 9% of a partitioned write).
 */
static const char *key_value(const delta_writer *w, const col_vec *v, size_t idx, int64_t row,
                             uint32_t *len_out)
{
    int32_t len;
    const char *bytes;
    if (w->part_width[idx] > 0) {
        *len_out = (uint32_t)w->part_width[idx];
        return (const char *)v->values + (size_t)row * w->part_width[idx];
    }
    bytes = col_vec_str(v, row, &len);
    *len_out = (uint32_t)len;
    return bytes;
}

static uint64_t key_hash(const delta_writer *w, col_vec **cols, int64_t row)
{
    uint64_t hash = 0x6b;
    size_t idx;
    for (idx = 0; idx < w->n_part; idx++) {
        const col_vec *v = cols[w->part_cols[idx]];
        uint32_t len;
        const char *bytes;
        if (col_vec_is_null(v, row)) {
            hash = util_hash_u64(hash ^ 0x4e554c4cu);
            continue;
        }
        bytes = key_value(w, v, idx, row, &len);
        hash = util_hash_bytes(bytes, len, hash);
    }
    return hash;
}

/* Whether row `row` has the typed values that `key` encodes. */
static int key_matches(const delta_writer *w, col_vec **cols, int64_t row, const part_slot *slot)
{
    const char *at = slot->key, *end = slot->key + slot->key_len;
    size_t idx;
    for (idx = 0; idx < w->n_part; idx++) {
        const col_vec *v = cols[w->part_cols[idx]];
        uint32_t len, key_len;
        const char *bytes;
        if (at >= end)
            return 0;
        if (col_vec_is_null(v, row)) {
            if (*at++ != 0)
                return 0;
            continue;
        }
        if (*at++ != 1)
            return 0;
        bytes = key_value(w, v, idx, row, &len);
        if (w->part_width[idx] == 0) {
            if (end - at < 4)
                return 0;
            memcpy(&key_len, at, 4);
            at += 4;
            if (key_len != len)
                return 0;
        }
        if ((size_t)(end - at) < len || memcmp(at, bytes, len) != 0)
            return 0;
        at += len;
    }
    return at == end;
}

/* The key of row `row` (see above) into w->key. */
static silt_status build_key(delta_writer *w, col_vec **cols, int64_t row, silt_error *err)
{
    size_t idx;
    buf_truncate(&w->key, 0);
    for (idx = 0; idx < w->n_part; idx++) {
        const col_vec *v = cols[w->part_cols[idx]];
        uint32_t len;
        const char *bytes;
        if (col_vec_is_null(v, row)) {
            SILT_RETURN_IF_ERROR(buf_append_char(&w->key, 0, err));
            continue;
        }
        SILT_RETURN_IF_ERROR(buf_append_char(&w->key, 1, err));
        bytes = key_value(w, v, idx, row, &len);
        if (w->part_width[idx] == 0)
            SILT_RETURN_IF_ERROR(buf_append(&w->key, &len, 4, err));
        SILT_RETURN_IF_ERROR(buf_append(&w->key, bytes, len, err));
    }
    return SILT_OK;
}

/* Doubles the slot table when it is half full (linear probing). */
static silt_status grow_slots(delta_writer *w, silt_error *err)
{
    size_t cap = w->cap_slots ? w->cap_slots * 2 : 64, idx;
    part_slot *slots;
    if ((w->n_slots + 1) * 2 <= w->cap_slots)
        return SILT_OK;
    if ((slots = mem_calloc(cap, sizeof(*slots))) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < w->cap_slots; idx++) {
        size_t at;
        if (w->slots[idx].pf == NULL)
            continue;
        for (at = w->slots[idx].hash & (cap - 1); slots[at].pf != NULL; at = (at + 1) & (cap - 1))
            ;
        slots[at] = w->slots[idx];
    }
    mem_free(w->slots);
    w->slots = slots;
    w->cap_slots = cap;
    return SILT_OK;
}

/* A new key for a row whose key is not in the table: its folder, new or already open. */
static silt_status add_key(delta_writer *w, col_vec **cols, int64_t row, uint64_t hash,
                           part_slot **out, silt_error *err)
{
    part_file *pf;
    dlog_kv *values;
    part_slot *slot;
    size_t at;
    SILT_RETURN_IF_ERROR(grow_slots(w, err));
    SILT_RETURN_IF_ERROR(build_key(w, cols, row, err));
    SILT_RETURN_IF_ERROR(row_dir(w, cols, row, NULL, err));
    pf = hashmap_get_str(&w->parts, buf_cstr(&w->scratch));
    if (pf == NULL) {
        pf = arena_calloc(w->a, 1, sizeof(*pf));
        values = arena_calloc(w->a, w->n_part + 1, sizeof(*values));
        if (pf == NULL || values == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(row_dir(w, cols, row, values, err));
        pf->dir = arena_strdup(w->a, buf_cstr(&w->scratch));
        pf->values.n = w->n_part;
        pf->values.items = values;
        if (pf->dir == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(hashmap_put_str(&w->parts, pf->dir, pf, err));
    }
    for (at = hash & (w->cap_slots - 1); w->slots[at].pf != NULL; at = (at + 1) & (w->cap_slots - 1))
        ;
    slot = &w->slots[at];
    if ((slot->key = arena_memdup(w->a, buf_cstr(&w->key), w->key.len + 1)) == NULL)
        return err_nomem(err);
    slot->key_len = w->key.len;
    slot->hash = hash;
    slot->pf = pf;
    w->n_slots++;
    *out = slot;
    return SILT_OK;
}

static silt_status find_slot(delta_writer *w, col_vec **cols, int64_t row, part_slot **out,
                             silt_error *err)
{
    uint64_t hash = key_hash(w, cols, row);
    size_t at;
    if (w->cap_slots > 0)
        for (at = hash & (w->cap_slots - 1); w->slots[at].pf != NULL;
             at = (at + 1) & (w->cap_slots - 1))
            if (w->slots[at].hash == hash && key_matches(w, cols, row, &w->slots[at])) {
                *out = &w->slots[at];
                return SILT_OK;
            }
    return add_key(w, cols, row, hash, out, err);
}

/* Up to 8 bytes of a string as a word (overlapping loads, no memcpy call of a variable size). */
static inline uint64_t word_of(const char *bytes, int32_t len)
{
    uint64_t word = 0;
    uint32_t lo, hi;
    if (len >= 8) {
        memcpy(&word, bytes, 8);
        return word;
    }
    if (len >= 4) {
        memcpy(&lo, bytes, 4);
        memcpy(&hi, bytes + len - 4, 4);
        return lo | ((uint64_t)hi << 32);
    }
    if (len > 0)
        word = (uint8_t)bytes[0] | ((uint64_t)(uint8_t)bytes[len / 2] << 8) |
               ((uint64_t)(uint8_t)bytes[len - 1] << 16);
    return word;
}

/* The memo entry of a string: its first and last (up to) 8 bytes and length, mixed. */
static inline size_t memo_index(const char *bytes, int32_t len)
{
    uint64_t head = word_of(bytes, len), tail = len > 8 ? word_of(bytes + len - 8, 8) : head;
    return (size_t)(((head ^ (tail << 1) ^ (uint64_t)len) * 0x9e3779b97f4a7c15ull) >> 56) &
           (DWRITE_MEMO_SIZE - 1);
}

/*
 * With one string partition column (PARTITIONED BY (col), the usual case) a
 * row's value is first looked up in a direct-mapped memo of recent values,
 * compared by length and bytes: cheaper than hashing the typed key per row
 * (the lookup runs on the caller's thread for every row of a write).
 */
static silt_status find_part(delta_writer *w, col_vec **cols, int64_t row, part_file **out,
                             silt_error *err)
{
    part_slot *slot = NULL;
    part_memo *memo = NULL;
    if (w->memo != NULL) {
        const col_vec *v = cols[w->part_cols[0]];
        int32_t len;
        const char *bytes;
        if (!col_vec_is_null(v, row)) {
            bytes = col_vec_str(v, row, &len);
            memo = &w->memo[memo_index(bytes, len)];
            if (memo->pf != NULL && memo->len == len && mem_eq(memo->bytes, bytes, (size_t)len)) {
                *out = memo->pf;
                return SILT_OK;
            }
        }
    }
    SILT_RETURN_IF_ERROR(find_slot(w, cols, row, &slot, err));
    if (memo != NULL) {
        /* the key is a flag byte, a 4-byte length, the bytes (build_key) */
        memcpy(&memo->len, slot->key + 1, 4);
        memo->bytes = slot->key + 5;
        memo->pf = slot->pf;
    }
    *out = slot->pf;
    return SILT_OK;
}

/*
 * The vector seen through the physical type: with column mapping the nested
 * field names in the file are physical names, while the rows carry logical
 * ones. The layout is the same, so a shallow copy with the physical types
 * (children included) is enough; buffers stay borrowed. PROTOCOL: Column
 * Mapping, Writer Requirements (nested fields use physical names too).
 */
static silt_status retype_vec(arena *a, col_vec *v, const col_type *phys, col_vec **out,
                              silt_error *err)
{
    col_vec *copy;
    size_t idx;
    *out = v;
    if (v->type == phys || !col_type_is_nested(phys->id) || col_type_equal(v->type, phys))
        return SILT_OK;
    if ((copy = arena_memdup(a, v, sizeof(*v))) == NULL)
        return err_nomem(err);
    copy->type = phys;
    if (v->n_children > 0) {
        if (v->n_children > phys->n_fields)
            return err_set(err, SILT_INVALID, "a nested vector has more children than its type");
        copy->children = arena_calloc(a, v->n_children, sizeof(col_vec *));
        if (copy->children == NULL)
            return err_nomem(err);
        for (idx = 0; idx < v->n_children; idx++)
            SILT_RETURN_IF_ERROR(retype_vec(a, v->children[idx], phys->fields[idx].type,
                                            &copy->children[idx], err));
    }
    *out = copy;
    return SILT_OK;
}

/* Whether a vector refers to a dictionary (col_vec_take keeps it: the caller's memory). */
static int has_dictionary(const col_vec *v)
{
    size_t idx;
    if (v->dictionary != NULL)
        return 1;
    for (idx = 0; idx < v->n_children; idx++)
        if (has_dictionary(v->children[idx]))
            return 1;
    return 0;
}

/* Queues rows[0..n) of the conformed columns (all rows when rows is NULL) for one folder. */
static silt_status write_rows(delta_writer *w, part_file *pf, col_vec **cols, const int64_t *rows,
                              int64_t n_rows, int64_t n_batch_rows, silt_error *err)
{
    col_batch part;
    col_vec **data = arena_calloc(w->batch_a, w->n_data, sizeof(*data));
    size_t idx;
    int64_t bytes = 0;
    if (data == NULL)
        return err_nomem(err);
    for (idx = 0; idx < w->n_data; idx++) {
        const col_vec *v = cols[w->data_cols[idx]];
        if (rows == NULL || has_dictionary(v))
            w->borrowed = 1; /* encoded before the caller's batch goes */
        if (rows == NULL)
            data[idx] = (col_vec *)v;
        else
            SILT_RETURN_IF_ERROR(col_vec_take(&data[idx], w->batch_a, v, rows, n_rows, err));
        if (w->mode != DPROTO_MAPPING_NONE)
            SILT_RETURN_IF_ERROR(retype_vec(w->batch_a, data[idx],
                                            w->file_schema->fields[idx].type, &data[idx], err));
        bytes += vec_bytes(v);
    }
    part.schema = w->file_schema;
    part.n_rows = n_rows;
    part.n_cols = w->n_data;
    part.cols = data;
    if (pf->file == NULL && w->n_open >= w->max_open)
        SILT_RETURN_IF_ERROR(close_largest(w, err));
    if (pf->file == NULL)
        SILT_RETURN_IF_ERROR(dwrite_start_file(w, pf, err));
    return dwrite_queue_rows(w, pf, &part, n_batch_rows ? bytes * n_rows / n_batch_rows : 0,
                             err);
}

/*
 * Gives pf its group in this batch (in order of first rows) when it has none
 * yet, and counts the row in counts[group + 1] (the counting sort's counts).
 */
static inline int64_t group_of_part(delta_writer *w, part_file *pf, part_file **groups,
                                   int64_t *n_groups, int64_t *counts)
{
    if (pf->batch_gen != w->batch_gen) {
        pf->batch_gen = w->batch_gen;
        pf->group = *n_groups;
        counts[pf->group + 1] = 0;
        groups[(*n_groups)++] = pf;
    }
    counts[pf->group + 1]++;
    return pf->group;
}

/*
 * The group of each row of the batch (group_of), the partition of each
 * group (groups, in order of their first rows) and the rows of each group
 * (counts[group + 1]). With one flat string partition column the memo is
 * probed inline from the offsets, the lookup that runs for every row of a
 * partitioned write on the caller's thread; a miss, a null or any other
 * partitioning goes through find_part.
 */
static silt_status group_rows(delta_writer *w, col_vec **cols, int64_t n_rows, part_file **groups,
                              int64_t *group_of, int64_t *n_groups, int64_t *counts,
                              silt_error *err)
{
    const col_vec *v = w->n_part > 0 ? cols[w->part_cols[0]] : NULL;
    int fast = w->memo != NULL && v->dictionary == NULL;
    int64_t row;
    for (row = 0; row < n_rows; row++) {
        part_file *pf = NULL;
        if (fast && !col_vec_is_null(v, row)) {
            int32_t start = v->offsets[row], len = v->offsets[row + 1] - start;
            const char *bytes = v->data + start;
            const part_memo *memo = &w->memo[memo_index(bytes, len)];
            if (memo->pf != NULL && memo->len == len && mem_eq(memo->bytes, bytes, (size_t)len))
                pf = memo->pf;
        }
        if (pf == NULL)
            SILT_RETURN_IF_ERROR(find_part(w, cols, row, &pf, err));
        group_of[row] = group_of_part(w, pf, groups, n_groups, counts);
    }
    return SILT_OK;
}

/* Groups the rows of a batch by partition folder: group of each row, rows of each group. */
static silt_status write_partitioned(delta_writer *w, col_vec **cols, int64_t n_rows,
                                     silt_error *err)
{
    /* Per-row scratch of the split, reused from batch to batch (not the batch arena, where
     * every batch took 32 bytes a row of fresh memory, first touched on the caller's thread). */
    size_t per_row = 2 * sizeof(int64_t) + sizeof(part_file *);
    part_file **groups;
    int64_t *group_of, *rows, *starts;
    int64_t n_groups = 0, row, group, n_in;
    buf_truncate(&w->split, 0);
    SILT_RETURN_IF_ERROR(buf_reserve(&w->split, (size_t)(n_rows + 1) * (per_row + 8), err));
    group_of = (int64_t *)(void *)w->split.data;
    rows = group_of + n_rows;
    starts = rows + n_rows; /* n_groups + 1 <= n_rows + 1 entries */
    groups = (part_file **)(void *)(starts + n_rows + 1);
    w->batch_gen++;
    /* Counting sort of the rows by group (counted by group_rows), keeping their order within
     * a group. */
    starts[0] = 0;
    SILT_RETURN_IF_ERROR(group_rows(w, cols, n_rows, groups, group_of, &n_groups, starts, err));
    for (group = 0; group < n_groups; group++)
        starts[group + 1] += starts[group];
    for (row = 0; row < n_rows; row++)
        rows[starts[group_of[row]]++] = row;
    for (group = 0, n_in = 0; group < n_groups; group++) {
        int64_t end = starts[group];
        SILT_RETURN_IF_ERROR(
            write_rows(w, groups[group], cols, rows + n_in, end - n_in, n_rows, err));
        n_in = end;
    }
    return SILT_OK;
}

silt_status delta_write_batch(delta_writer *w, const col_batch *batch, silt_error *err)
{
    col_vec **cols = NULL;
    part_file *pf = NULL;
    size_t idx;
    silt_status rc;
    if (w->failed)
        return err_set(err, SILT_INVALID, "cannot write to a Delta writer after a failed write");
    if (!col_type_equal(batch->schema, w->in_schema))
        return err_set(err, SILT_INVALID,
                       "cannot write a batch whose schema differs from the one the writer was "
                       "opened with");
    if (batch->n_rows == 0)
        return SILT_OK;
    rc = conform(w, batch, &cols, err);
    if (rc == SILT_OK)
        rc = dwrite_check_not_null(w->table_schema, cols, batch->n_rows, err);
    if (rc == SILT_OK && w->check != NULL) {
        col_batch table_rows;
        table_rows.schema = w->table_schema;
        table_rows.cols = cols;
        table_rows.n_cols = w->table_schema->n_fields;
        table_rows.n_rows = batch->n_rows;
        rc = w->check(w->check_payload, &table_rows, err);
    }
    for (idx = 0; rc == SILT_OK && idx < w->n_part; idx++) /* strings give 0 (col_vec_str) */
        w->part_width[idx] = col_type_value_width(cols[w->part_cols[idx]]->type->id);
    if (rc == SILT_OK && w->n_part == 1 && w->part_width[0] == 0 && w->memo == NULL &&
        (w->memo = arena_calloc(w->a, DWRITE_MEMO_SIZE, sizeof(part_memo))) == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK && w->n_part == 0)
        rc = find_part(w, cols, 0, &pf, err);
    if (rc == SILT_OK)
        rc = pf != NULL ? write_rows(w, pf, cols, NULL, batch->n_rows, batch->n_rows, err)
                        : write_partitioned(w, cols, batch->n_rows, err);
    if (rc == SILT_OK && dwrite_should_flush(w))
        rc = dwrite_flush(w, 0, err);
    if (rc != SILT_OK)
        w->failed = 1;
    return rc;
}

int64_t delta_write_rows(const delta_writer *w)
{
    return w != NULL ? w->n_rows : 0;
}

silt_status delta_write_finish(delta_writer *w, delta_write_output *out, silt_error *err)
{
    size_t iter = 0;
    const hashmap_entry *entry;
    while (hashmap_next(&w->parts, &iter, &entry))
        SILT_RETURN_IF_ERROR(dwrite_queue_close(w, entry->value, err));
    SILT_RETURN_IF_ERROR(dwrite_flush(w, 1, err));
    memset(out, 0, sizeof(*out));
    out->n_adds = w->n_adds;
    out->adds = w->adds;
    out->n_rows = w->n_rows;
    out->n_bytes = w->n_bytes;
    out->metadata = &w->md;
    out->metadata_changed = w->md_changed;
    return SILT_OK;
}

void delta_write_free(delta_writer *w)
{
    if (w == NULL)
        return;
    dwrite_abort_files(w);
    hashmap_clear(&w->parts);
    mem_free(w->slots);
    buf_clear(&w->scratch);
    buf_clear(&w->key);
    buf_clear(&w->split);
    arena_free(w->a);
    mem_free(w);
}
