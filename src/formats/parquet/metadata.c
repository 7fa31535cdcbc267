/*
 * metadata.c - decoding of Parquet's Thrift structures (see metadata.h).
 *
 * Each parse_* function reads one struct: a loop over field headers with a
 * switch on the field id of parquet.thrift; fields not listed are skipped
 * with pq_thrift_skip, so newer files decode. A field with the wrong Thrift type is
 * SILT_CORRUPT (pq_thrift_expect). Counts of lists are bounded by the bytes left
 * (pq_thrift_read_list), so allocations never exceed a small multiple of the
 * footer size.
 */
#include "formats/parquet/metadata.h"

#include <stddef.h>
#include <string.h>

#include "formats/parquet/thrift.h"

typedef struct parse_ctx {
    tc_reader r;
    arena *a;
} parse_ctx;

static silt_status nomem(silt_error *err) { return err_nomem(err); }

/* Reads an i32 field value (after its header) with a type check. */
static silt_status get_i32(parse_ctx *c, int type, int16_t id, int32_t *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(pq_thrift_expect(&c->r, type, TC_I32, id, err));
    return pq_thrift_read_i32(&c->r, out, err);
}

static silt_status get_i64(parse_ctx *c, int type, int16_t id, int64_t *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(pq_thrift_expect(&c->r, type, TC_I64, id, err));
    return pq_thrift_read_i64(&c->r, out, err);
}

static silt_status get_bool(parse_ctx *c, int type, int16_t id, int *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(pq_thrift_expect(&c->r, type, TC_BOOL_TRUE, id, err));
    *out = type == TC_BOOL_TRUE;
    return SILT_OK;
}

/* Reads a binary value (a field's or a list element's) into the arena. */
static silt_status read_bytes(parse_ctx *c, pq_bytes *out, silt_error *err)
{
    const uint8_t *data;
    size_t len;
    SILT_RETURN_IF_ERROR(pq_thrift_read_binary(&c->r, &data, &len, err));
    out->data = arena_memdup(c->a, data, len);
    out->len = len;
    if (out->data == NULL)
        return nomem(err);
    return SILT_OK;
}

/* Reads a binary value as a NUL-terminated string in the arena. */
static silt_status read_string(parse_ctx *c, const char **out, silt_error *err)
{
    const uint8_t *data;
    size_t len;
    SILT_RETURN_IF_ERROR(pq_thrift_read_binary(&c->r, &data, &len, err));
    *out = arena_strndup(c->a, (const char *)data, len);
    if (*out == NULL)
        return nomem(err);
    return SILT_OK;
}

static silt_status get_bytes(parse_ctx *c, int type, int16_t id, pq_bytes *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(pq_thrift_expect(&c->r, type, TC_BINARY, id, err));
    return read_bytes(c, out, err);
}

static silt_status get_string(parse_ctx *c, int type, int16_t id, const char **out,
                              silt_error *err)
{
    SILT_RETURN_IF_ERROR(pq_thrift_expect(&c->r, type, TC_BINARY, id, err));
    return read_string(c, out, err);
}

/* Reads a list header of the expected element type and allocates count elements. */
static silt_status get_list(parse_ctx *c, int type, int16_t id, int elem_type, size_t elem_size,
                            void **items_out, size_t *count_out, silt_error *err)
{
    int actual;
    uint32_t count;
    SILT_RETURN_IF_ERROR(pq_thrift_expect(&c->r, type, TC_LIST, id, err));
    SILT_RETURN_IF_ERROR(pq_thrift_read_list(&c->r, &actual, &count, err));
    if (count > 0 && actual != elem_type &&
        !(elem_type == TC_BOOL_TRUE && actual == TC_BOOL_FALSE))
        return err_set(err, SILT_CORRUPT,
                       "could not decode %s: list field %d has elements of thrift type %d at "
                       "byte %zu",
                       c->r.what, (int)id, actual, c->r.pos);
    *items_out = arena_calloc(c->a, count == 0 ? 1 : count, elem_size);
    if (*items_out == NULL)
        return nomem(err);
    *count_out = count;
    return SILT_OK;
}

#define FIELD_LOOP_BEGIN(c, err)                                                                   \
    int type_;                                                                                     \
    int16_t id_;                                                                                   \
    SILT_RETURN_IF_ERROR(pq_thrift_struct_begin(&(c)->r, err));                                           \
    for (;;) {                                                                                     \
        SILT_RETURN_IF_ERROR(pq_thrift_read_field(&(c)->r, &type_, &id_, err));                           \
        if (type_ == TC_STOP)                                                                      \
            break;                                                                                 \
        switch (id_) {

#define FIELD_LOOP_END(c, err)                                                                     \
        default:                                                                                   \
            SILT_RETURN_IF_ERROR(pq_thrift_skip(&(c)->r, type_, err));                                    \
            break;                                                                                 \
        }                                                                                          \
    }                                                                                              \
    pq_thrift_struct_end(&(c)->r)

static silt_status expect_struct(parse_ctx *c, int type, int16_t id, silt_error *err)
{
    return pq_thrift_expect(&c->r, type, TC_STRUCT, id, err);
}

/*
 * Structs whose fields are all scalars or binaries are read from a table
 * of their fields (parse_flat) instead of a switch each: one loop serves
 * them all, and the tables read like parquet.thrift.
 */
typedef enum field_kind { F_I32, F_I64, F_BOOL, F_BYTES, F_STRING, F_ENCODING } field_kind;

typedef struct field_desc {
    int16_t id;
    field_kind kind;
    size_t offset;     /* of the member */
    size_t has_offset; /* of its int "has_" flag set when the field is read, or NO_FLAG */
} field_desc;

#define NO_FLAG ((size_t)-1)
#define FIELD(type, id, kind, member) {id, kind, offsetof(type, member), NO_FLAG}
#define FIELD_HAS(type, id, kind, member, flag)                                                     \
    {id, kind, offsetof(type, member), offsetof(type, flag)}

static silt_status get_flat_field(parse_ctx *c, int type, const field_desc *f, char *base,
                                  silt_error *err)
{
    void *member = base + f->offset;
    int32_t value;
    switch (f->kind) {
    case F_I32: return get_i32(c, type, f->id, member, err);
    case F_I64: return get_i64(c, type, f->id, member, err);
    case F_BOOL: return get_bool(c, type, f->id, member, err);
    case F_BYTES: return get_bytes(c, type, f->id, member, err);
    case F_STRING: return get_string(c, type, f->id, member, err);
    case F_ENCODING:
        SILT_RETURN_IF_ERROR(get_i32(c, type, f->id, &value, err));
        *(pq_encoding *)member = (pq_encoding)value;
        return SILT_OK;
    }
    return SILT_OK;
}

/* Reads a struct of the fields listed; other fields are skipped. */
static silt_status parse_flat(parse_ctx *c, const field_desc *fields, size_t n_fields, void *out,
                              silt_error *err)
{
    char *base = out;
    int type;
    int16_t id;
    SILT_RETURN_IF_ERROR(pq_thrift_struct_begin(&c->r, err));
    for (;;) {
        const field_desc *f = NULL;
        SILT_RETURN_IF_ERROR(pq_thrift_read_field(&c->r, &type, &id, err));
        if (type == TC_STOP)
            break;
        for (size_t idx = 0; idx < n_fields && f == NULL; idx++)
            if (fields[idx].id == id)
                f = &fields[idx];
        if (f == NULL) {
            SILT_RETURN_IF_ERROR(pq_thrift_skip(&c->r, type, err));
            continue;
        }
        SILT_RETURN_IF_ERROR(get_flat_field(c, type, f, base, err));
        if (f->has_offset != NO_FLAG)
            *(int *)(base + f->has_offset) = 1;
    }
    pq_thrift_struct_end(&c->r);
    return SILT_OK;
}

#define PARSE_FLAT(c, fields, out, err)                                                            \
    parse_flat(c, fields, sizeof(fields) / sizeof(fields[0]), out, err)

/* Skips an empty marker struct (StringType, DateType, ...). */
static silt_status skip_struct_value(parse_ctx *c, int type, int16_t id, silt_error *err)
{
    SILT_RETURN_IF_ERROR(expect_struct(c, type, id, err));
    return pq_thrift_skip(&c->r, TC_STRUCT, err);
}

static silt_status parse_time_unit(parse_ctx *c, pq_time_unit *out, silt_error *err)
{
    *out = PQ_UNIT_MILLIS;
    FIELD_LOOP_BEGIN(c, err)
    case 1:
    case 2:
    case 3:
        SILT_RETURN_IF_ERROR(skip_struct_value(c, type_, id_, err));
        *out = (pq_time_unit)id_;
        break;
    FIELD_LOOP_END(c, err);
    return SILT_OK;
}

/* TimeType and TimestampType: 1 isAdjustedToUTC, 2 unit. */
static silt_status parse_time_type(parse_ctx *c, pq_logical *lt, silt_error *err)
{
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_bool(c, type_, id_, &lt->is_adjusted_to_utc, err));
        break;
    case 2:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        SILT_RETURN_IF_ERROR(parse_time_unit(c, &lt->unit, err));
        break;
    FIELD_LOOP_END(c, err);
    return SILT_OK;
}

static silt_status parse_int_type(parse_ctx *c, pq_logical *lt, silt_error *err)
{
    FIELD_LOOP_BEGIN(c, err)
    case 1: {
        uint8_t byte;
        SILT_RETURN_IF_ERROR(pq_thrift_expect(&c->r, type_, TC_BYTE, id_, err));
        SILT_RETURN_IF_ERROR(pq_thrift_read_byte(&c->r, &byte, err));
        lt->bit_width = (int8_t)byte;
        break;
    }
    case 2:
        SILT_RETURN_IF_ERROR(get_bool(c, type_, id_, &lt->is_signed, err));
        break;
    FIELD_LOOP_END(c, err);
    return SILT_OK;
}

/* DecimalType: 1 scale, 2 precision. */
static const field_desc decimal_fields[] = {
    FIELD(pq_logical, 1, F_I32, scale),
    FIELD(pq_logical, 2, F_I32, precision),
};

static silt_status parse_logical(parse_ctx *c, pq_logical *lt, silt_error *err)
{
    memset(lt, 0, sizeof(*lt));
    FIELD_LOOP_BEGIN(c, err)
    case PQ_LT_DECIMAL:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        lt->kind = PQ_LT_DECIMAL;
        SILT_RETURN_IF_ERROR(PARSE_FLAT(c, decimal_fields, lt, err));
        break;
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        lt->kind = (pq_logical_kind)id_;
        SILT_RETURN_IF_ERROR(parse_time_type(c, lt, err));
        break;
    case PQ_LT_INTEGER:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        lt->kind = PQ_LT_INTEGER;
        SILT_RETURN_IF_ERROR(parse_int_type(c, lt, err));
        break;
    case PQ_LT_STRING:
    case PQ_LT_MAP:
    case PQ_LT_LIST:
    case PQ_LT_ENUM:
    case PQ_LT_DATE:
    case PQ_LT_UNKNOWN:
    case PQ_LT_JSON:
    case PQ_LT_BSON:
    case PQ_LT_UUID:
    case PQ_LT_FLOAT16:
    case PQ_LT_VARIANT:
    case PQ_LT_GEOMETRY:
    case PQ_LT_GEOGRAPHY:
        SILT_RETURN_IF_ERROR(skip_struct_value(c, type_, id_, err));
        lt->kind = (pq_logical_kind)id_;
        break;
    default:
        /* A union member added after this reader: remember it, do not fail. */
        SILT_RETURN_IF_ERROR(pq_thrift_skip(&c->r, type_, err));
        lt->kind = PQ_LT_OTHER;
        break;
    }
    }
    pq_thrift_struct_end(&c->r);
    return SILT_OK;
}

static silt_status parse_schema_element(parse_ctx *c, pq_schema_element *se, silt_error *err)
{
    int32_t value;
    memset(se, 0, sizeof(*se));
    se->converted = PQ_CT_NONE;
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &value, err));
        se->has_type = 1;
        se->type = (pq_physical)value;
        break;
    case 2:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &se->type_length, err));
        break;
    case 3:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &value, err));
        se->has_repetition = 1;
        se->repetition = (pq_repetition)value;
        break;
    case 4:
        SILT_RETURN_IF_ERROR(get_string(c, type_, id_, &se->name, err));
        break;
    case 5:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &se->num_children, err));
        break;
    case 6:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &value, err));
        se->converted = (pq_converted)value;
        break;
    case 7:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &se->scale, err));
        break;
    case 8:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &se->precision, err));
        break;
    case 9:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &se->field_id, err));
        se->has_field_id = 1;
        break;
    case 10:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        SILT_RETURN_IF_ERROR(parse_logical(c, &se->logical, err));
        break;
    FIELD_LOOP_END(c, err);
    if (se->name == NULL)
        return err_set(err, SILT_CORRUPT, "could not decode %s: schema element without a name "
                       "at byte %zu", c->r.what, c->r.pos);
    return SILT_OK;
}

static const field_desc statistics_fields[] = {
    FIELD_HAS(pq_statistics, 1, F_BYTES, max, has_max),
    FIELD_HAS(pq_statistics, 2, F_BYTES, min, has_min),
    FIELD_HAS(pq_statistics, 3, F_I64, null_count, has_null_count),
    FIELD_HAS(pq_statistics, 4, F_I64, distinct_count, has_distinct_count),
    FIELD_HAS(pq_statistics, 5, F_BYTES, max_value, has_max_value),
    FIELD_HAS(pq_statistics, 6, F_BYTES, min_value, has_min_value),
};

static silt_status parse_statistics(parse_ctx *c, pq_statistics *st, silt_error *err)
{
    memset(st, 0, sizeof(*st));
    return PARSE_FLAT(c, statistics_fields, st, err);
}

static const field_desc key_value_fields[] = {
    FIELD(pq_key_value, 1, F_STRING, key),
    FIELD(pq_key_value, 2, F_STRING, value),
};

static silt_status parse_key_value(parse_ctx *c, pq_key_value *kv, silt_error *err)
{
    SILT_RETURN_IF_ERROR(PARSE_FLAT(c, key_value_fields, kv, err));
    if (kv->key == NULL)
        return err_set(err, SILT_CORRUPT, "could not decode %s: key/value metadata without a "
                       "key at byte %zu", c->r.what, c->r.pos);
    return SILT_OK;
}

static silt_status parse_kv_list(parse_ctx *c, int type, int16_t id, pq_key_value **out,
                                 size_t *n_out, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(
        get_list(c, type, id, TC_STRUCT, sizeof(pq_key_value), (void **)out, n_out, err));
    for (idx = 0; idx < *n_out; idx++)
        SILT_RETURN_IF_ERROR(parse_key_value(c, &(*out)[idx], err));
    return SILT_OK;
}

static silt_status parse_column_meta(parse_ctx *c, pq_column_meta *cm, silt_error *err)
{
    int32_t value;
    size_t idx;
    int seen_type = 0, seen_codec = 0, seen_num_values = 0, seen_data_page = 0;
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &value, err));
        cm->type = (pq_physical)value;
        seen_type = 1;
        break;
    case 2:
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_I32, sizeof(int32_t),
                                      (void **)&cm->encodings, &cm->n_encodings, err));
        for (idx = 0; idx < cm->n_encodings; idx++)
            SILT_RETURN_IF_ERROR(pq_thrift_read_i32(&c->r, &cm->encodings[idx], err));
        break;
    case 3:
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_BINARY, sizeof(char *),
                                      (void **)&cm->path, &cm->n_path, err));
        for (idx = 0; idx < cm->n_path; idx++)
            SILT_RETURN_IF_ERROR(read_string(c, &cm->path[idx], err));
        break;
    case 4:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &value, err));
        cm->codec = (pq_codec)value;
        seen_codec = 1;
        break;
    case 5:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cm->num_values, err));
        seen_num_values = 1;
        break;
    case 6:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cm->total_uncompressed_size, err));
        break;
    case 7:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cm->total_compressed_size, err));
        break;
    case 8:
        SILT_RETURN_IF_ERROR(parse_kv_list(c, type_, id_, &cm->kv, &cm->n_kv, err));
        break;
    case 9:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cm->data_page_offset, err));
        seen_data_page = 1;
        break;
    case 10:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cm->index_page_offset, err));
        cm->has_index_page_offset = 1;
        break;
    case 11:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cm->dictionary_page_offset, err));
        cm->has_dictionary_page_offset = 1;
        break;
    case 12:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        SILT_RETURN_IF_ERROR(parse_statistics(c, &cm->statistics, err));
        cm->has_statistics = 1;
        break;
    case 14:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cm->bloom_filter_offset, err));
        cm->has_bloom_filter_offset = 1;
        break;
    FIELD_LOOP_END(c, err);
    if (!seen_type || !seen_codec || !seen_num_values || !seen_data_page)
        return err_set(err, SILT_CORRUPT, "could not decode %s: column metadata lacks a required "
                       "field at byte %zu", c->r.what, c->r.pos);
    return SILT_OK;
}

static silt_status parse_column_chunk(parse_ctx *c, pq_column_chunk *cc, silt_error *err)
{
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_string(c, type_, id_, &cc->file_path, err));
        break;
    case 2:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cc->file_offset, err));
        break;
    case 3:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        SILT_RETURN_IF_ERROR(parse_column_meta(c, &cc->meta, err));
        cc->has_meta = 1;
        break;
    case 4:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cc->offset_index_offset, err));
        cc->has_offset_index = 1;
        break;
    case 5:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &cc->offset_index_length, err));
        break;
    case 6:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &cc->column_index_offset, err));
        cc->has_column_index = 1;
        break;
    case 7:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &cc->column_index_length, err));
        break;
    case 8:
    case 9:
        SILT_RETURN_IF_ERROR(pq_thrift_skip(&c->r, type_, err));
        cc->encrypted = 1;
        break;
    FIELD_LOOP_END(c, err);
    return SILT_OK;
}

static silt_status parse_row_group(parse_ctx *c, pq_row_group *rg, silt_error *err)
{
    size_t idx;
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_STRUCT, sizeof(pq_column_chunk),
                                      (void **)&rg->columns, &rg->n_columns, err));
        for (idx = 0; idx < rg->n_columns; idx++)
            SILT_RETURN_IF_ERROR(parse_column_chunk(c, &rg->columns[idx], err));
        break;
    case 2:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &rg->total_byte_size, err));
        break;
    case 3:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &rg->num_rows, err));
        break;
    case 5:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &rg->file_offset, err));
        rg->has_file_offset = 1;
        break;
    case 6:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &rg->total_compressed_size, err));
        rg->has_total_compressed_size = 1;
        break;
    case 7:
        SILT_RETURN_IF_ERROR(pq_thrift_expect(&c->r, type_, TC_I16, id_, err));
        SILT_RETURN_IF_ERROR(pq_thrift_read_i16(&c->r, &rg->ordinal, err));
        rg->has_ordinal = 1;
        break;
    FIELD_LOOP_END(c, err);
    if (rg->num_rows < 0)
        return err_set(err, SILT_CORRUPT, "could not decode %s: row group has %lld rows",
                       c->r.what, (long long)rg->num_rows);
    return SILT_OK;
}

silt_status pq_parse_file_meta(pq_file_meta *out, const uint8_t *data, size_t len, arena *a,
                               const char *what, silt_error *err)
{
    parse_ctx ctx;
    parse_ctx *c = &ctx;
    size_t idx;
    int seen_schema = 0;
    memset(out, 0, sizeof(*out));
    pq_thrift_init(&ctx.r, data, len, what);
    ctx.a = a;
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &out->version, err));
        break;
    case 2:
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_STRUCT, sizeof(pq_schema_element),
                                      (void **)&out->schema, &out->n_schema, err));
        for (idx = 0; idx < out->n_schema; idx++)
            SILT_RETURN_IF_ERROR(parse_schema_element(c, &out->schema[idx], err));
        seen_schema = 1;
        break;
    case 3:
        SILT_RETURN_IF_ERROR(get_i64(c, type_, id_, &out->num_rows, err));
        break;
    case 4:
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_STRUCT, sizeof(pq_row_group),
                                      (void **)&out->row_groups, &out->n_row_groups, err));
        for (idx = 0; idx < out->n_row_groups; idx++)
            SILT_RETURN_IF_ERROR(parse_row_group(c, &out->row_groups[idx], err));
        break;
    case 5:
        SILT_RETURN_IF_ERROR(parse_kv_list(c, type_, id_, &out->kv, &out->n_kv, err));
        break;
    case 6:
        SILT_RETURN_IF_ERROR(get_string(c, type_, id_, &out->created_by, err));
        break;
    case 8:
        SILT_RETURN_IF_ERROR(pq_thrift_skip(&c->r, type_, err));
        out->encrypted = 1;
        break;
    FIELD_LOOP_END(c, err);
    if (!seen_schema || out->n_schema == 0)
        return err_set(err, SILT_CORRUPT, "could not decode %s: the footer has no schema", what);
    if (out->num_rows < 0)
        return err_set(err, SILT_CORRUPT, "could not decode %s: the footer says %lld rows", what,
                       (long long)out->num_rows);
    return SILT_OK;
}

static const field_desc data_page_fields[] = {
    FIELD(pq_data_page_header, 1, F_I32, num_values),
    FIELD(pq_data_page_header, 2, F_ENCODING, encoding),
    FIELD(pq_data_page_header, 3, F_ENCODING, def_encoding),
    FIELD(pq_data_page_header, 4, F_ENCODING, rep_encoding),
};

static const field_desc data_page_v2_fields[] = {
    FIELD(pq_data_page_header_v2, 1, F_I32, num_values),
    FIELD(pq_data_page_header_v2, 2, F_I32, num_nulls),
    FIELD(pq_data_page_header_v2, 3, F_I32, num_rows),
    FIELD(pq_data_page_header_v2, 4, F_ENCODING, encoding),
    FIELD(pq_data_page_header_v2, 5, F_I32, def_byte_len),
    FIELD(pq_data_page_header_v2, 6, F_I32, rep_byte_len),
    FIELD(pq_data_page_header_v2, 7, F_BOOL, is_compressed),
};

static const field_desc dictionary_page_fields[] = {
    FIELD(pq_dictionary_page_header, 1, F_I32, num_values),
    FIELD(pq_dictionary_page_header, 2, F_ENCODING, encoding),
    FIELD(pq_dictionary_page_header, 3, F_BOOL, is_sorted),
};

silt_status pq_parse_page_header(pq_page_header *out, size_t *header_len_out,
                                 const uint8_t *data, size_t len, silt_error *err)
{
    parse_ctx ctx;
    parse_ctx *c = &ctx;
    int32_t value;
    int seen_type = 0;
    memset(out, 0, sizeof(*out));
    pq_thrift_init(&ctx.r, data, len, "page header");
    ctx.a = NULL;
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &value, err));
        out->type = (pq_page_type)value;
        seen_type = 1;
        break;
    case 2:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &out->uncompressed_size, err));
        break;
    case 3:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &out->compressed_size, err));
        break;
    case 5:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        SILT_RETURN_IF_ERROR(PARSE_FLAT(c, data_page_fields, &out->data, err));
        out->has_data = 1;
        break;
    case 7:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        SILT_RETURN_IF_ERROR(PARSE_FLAT(c, dictionary_page_fields, &out->dictionary, err));
        out->has_dictionary = 1;
        break;
    case 8:
        SILT_RETURN_IF_ERROR(expect_struct(c, type_, id_, err));
        out->data_v2.is_compressed = 1; /* the thrift default */
        SILT_RETURN_IF_ERROR(PARSE_FLAT(c, data_page_v2_fields, &out->data_v2, err));
        out->has_data_v2 = 1;
        break;
    FIELD_LOOP_END(c, err);
    if (!seen_type || out->uncompressed_size < 0 || out->compressed_size < 0)
        return err_set(err, SILT_CORRUPT, "could not decode page header: missing type or negative "
                       "page size at byte %zu", ctx.r.pos);
    *header_len_out = ctx.r.pos;
    return SILT_OK;
}

static const field_desc page_location_fields[] = {
    FIELD(pq_page_location, 1, F_I64, offset),
    FIELD(pq_page_location, 2, F_I32, compressed_page_size),
    FIELD(pq_page_location, 3, F_I64, first_row_index),
};

silt_status pq_parse_offset_index(pq_offset_index *out, const uint8_t *data, size_t len,
                                  arena *a, silt_error *err)
{
    parse_ctx ctx;
    parse_ctx *c = &ctx;
    size_t idx;
    memset(out, 0, sizeof(*out));
    pq_thrift_init(&ctx.r, data, len, "offset index");
    ctx.a = a;
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_STRUCT, sizeof(pq_page_location),
                                      (void **)&out->pages, &out->n_pages, err));
        for (idx = 0; idx < out->n_pages; idx++)
            SILT_RETURN_IF_ERROR(PARSE_FLAT(c, page_location_fields, &out->pages[idx], err));
        break;
    FIELD_LOOP_END(c, err);
    return SILT_OK;
}

silt_status pq_parse_column_index(pq_column_index *out, const uint8_t *data, size_t len,
                                  arena *a, silt_error *err)
{
    parse_ctx ctx;
    parse_ctx *c = &ctx;
    size_t idx, n;
    memset(out, 0, sizeof(*out));
    pq_thrift_init(&ctx.r, data, len, "column index");
    ctx.a = a;
    FIELD_LOOP_BEGIN(c, err)
    case 1:
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_BOOL_TRUE, sizeof(int),
                                      (void **)&out->null_pages, &out->n_pages, err));
        for (idx = 0; idx < out->n_pages; idx++)
            SILT_RETURN_IF_ERROR(pq_thrift_read_list_bool(&c->r, &out->null_pages[idx], err));
        break;
    case 2:
    case 3: {
        pq_bytes **target = id_ == 2 ? &out->min_values : &out->max_values;
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_BINARY, sizeof(pq_bytes),
                                      (void **)target, &n, err));
        for (idx = 0; idx < n; idx++)
            SILT_RETURN_IF_ERROR(read_bytes(c, &(*target)[idx], err));
        if (n != out->n_pages)
            return err_set(err, SILT_CORRUPT, "could not decode column index: %zu bounds for %zu "
                           "pages", n, out->n_pages);
        break;
    }
    case 4:
        SILT_RETURN_IF_ERROR(get_i32(c, type_, id_, &out->boundary_order, err));
        break;
    case 5:
        SILT_RETURN_IF_ERROR(get_list(c, type_, id_, TC_I64, sizeof(int64_t),
                                      (void **)&out->null_counts, &n, err));
        for (idx = 0; idx < n; idx++)
            SILT_RETURN_IF_ERROR(pq_thrift_read_i64(&c->r, &out->null_counts[idx], err));
        out->has_null_counts = n == out->n_pages;
        break;
    FIELD_LOOP_END(c, err);
    return SILT_OK;
}

#define NAME_OF(table, value)                                                                      \
    ((value) >= 0 && (size_t)(value) < sizeof(table) / sizeof(table[0]) && table[value]           \
         ? table[value]                                                                            \
         : "?")

const char *pq_codec_name(int codec)
{
    static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                        "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
    return NAME_OF(names, codec);
}

const char *pq_encoding_name(int encoding)
{
    static const char *const names[] = {"PLAIN",
                                        "GROUP_VAR_INT",
                                        "PLAIN_DICTIONARY",
                                        "RLE",
                                        "BIT_PACKED",
                                        "DELTA_BINARY_PACKED",
                                        "DELTA_LENGTH_BYTE_ARRAY",
                                        "DELTA_BYTE_ARRAY",
                                        "RLE_DICTIONARY",
                                        "BYTE_STREAM_SPLIT"};
    return NAME_OF(names, encoding);
}

const char *pq_physical_name(int type)
{
    static const char *const names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                        "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return NAME_OF(names, type);
}

const char *pq_converted_name(int converted)
{
    static const char *const names[] = {
        "UTF8",       "MAP",         "MAP_KEY_VALUE",    "LIST",             "ENUM",
        "DECIMAL",    "DATE",        "TIME_MILLIS",      "TIME_MICROS",      "TIMESTAMP_MILLIS",
        "TIMESTAMP_MICROS", "UINT_8", "UINT_16",         "UINT_32",          "UINT_64",
        "INT_8",      "INT_16",      "INT_32",           "INT_64",           "JSON",
        "BSON",       "INTERVAL"};
    return NAME_OF(names, converted);
}

const char *pq_repetition_name(int repetition)
{
    static const char *const names[] = {"required", "optional", "repeated"};
    return NAME_OF(names, repetition);
}
