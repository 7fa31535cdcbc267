/*
 * thrift_write.c - Thrift compact protocol encoder for Parquet metadata.
 *
 * Thrift compact protocol: a field header is one byte (delta << 4 | type)
 * when the field id is 1..15 above the previous one, else the type byte
 * followed by the zigzag varint id. Booleans live in the header's type
 * nibble (1 true, 2 false). A struct ends with a stop byte (0). A list
 * header is (n << 4 | elem_type) for n < 15, else (0xF0 | elem_type) and a
 * varint n. Integers are zigzag varints; binary is a varint length then the
 * bytes.
 */
#include "formats/parquet/thrift_write.h"

#include <string.h>

/* Low-level: a varint and a zigzag varint (exposed for tests). */
static void pqw_tw_varint(pqw_tw *tw, uint64_t value);

/* A struct element of a list; close it with pqw_tw_struct_end. */
static void pqw_tw_elem_struct_begin(pqw_tw *tw);

static void pqw_tw_elem_string(pqw_tw *tw, const char *s);

static void pqw_tw_binary(pqw_tw *tw, int16_t fid, const void *data, size_t len);

void pqw_tw_init(pqw_tw *tw, buf *out, silt_error *err)
{
    tw->out = out;
    tw->last_fid = 0;
    tw->depth = 0;
    tw->rc = SILT_OK;
    tw->err = err;
}

silt_status pqw_tw_status(const pqw_tw *tw) { return tw->rc; }

static void tw_put(pqw_tw *tw, const void *data, size_t len)
{
    if (tw->rc != SILT_OK || len == 0)
        return;
    tw->rc = buf_append(tw->out, data, len, tw->err);
}

static void pqw_tw_varint(pqw_tw *tw, uint64_t value)
{
    uint8_t bytes[10];
    size_t n = 0;
    while (value >= 0x80) {
        bytes[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    bytes[n++] = (uint8_t)value;
    tw_put(tw, bytes, n);
}

static uint64_t zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

static void tw_field(pqw_tw *tw, int16_t fid, int type)
{
    int delta = fid - tw->last_fid;
    if (delta > 0 && delta <= 15) {
        uint8_t b = (uint8_t)((delta << 4) | type);
        tw_put(tw, &b, 1);
    } else {
        uint8_t b = (uint8_t)type;
        tw_put(tw, &b, 1);
        pqw_tw_varint(tw, zigzag64(fid));
    }
    tw->last_fid = fid;
}

void pqw_tw_i32(pqw_tw *tw, int16_t fid, int32_t value)
{
    tw_field(tw, fid, PQW_CT_I32);
    pqw_tw_varint(tw, zigzag64(value));
}

void pqw_tw_i64(pqw_tw *tw, int16_t fid, int64_t value)
{
    tw_field(tw, fid, PQW_CT_I64);
    pqw_tw_varint(tw, zigzag64(value));
}

void pqw_tw_i16(pqw_tw *tw, int16_t fid, int16_t value)
{
    tw_field(tw, fid, PQW_CT_I16);
    pqw_tw_varint(tw, zigzag64(value));
}

void pqw_tw_i8(pqw_tw *tw, int16_t fid, int8_t value)
{
    /* A byte is written raw, not as a varint (compact protocol spec). */
    uint8_t b = (uint8_t)value;
    tw_field(tw, fid, PQW_CT_BYTE);
    tw_put(tw, &b, 1);
}

void pqw_tw_bool(pqw_tw *tw, int16_t fid, int value)
{
    tw_field(tw, fid, value ? PQW_CT_TRUE : PQW_CT_FALSE);
}

static void pqw_tw_binary(pqw_tw *tw, int16_t fid, const void *data, size_t len)
{
    tw_field(tw, fid, PQW_CT_BINARY);
    pqw_tw_varint(tw, len);
    tw_put(tw, data, len);
}

void pqw_tw_string(pqw_tw *tw, int16_t fid, const char *s) { pqw_tw_binary(tw, fid, s, strlen(s)); }

static void tw_push(pqw_tw *tw)
{
    if (tw->depth >= PQW_TW_MAX_DEPTH) {
        /* Our own structures are at most 6 deep: this is a programming error. */
        SILT_ASSERT(0 && "thrift nesting too deep");
        if (tw->rc == SILT_OK)
            tw->rc = err_set(tw->err, SILT_INVALID, "could not encode thrift: nesting too deep");
        return;
    }
    tw->saved_fid[tw->depth++] = tw->last_fid;
    tw->last_fid = 0;
}

void pqw_tw_struct_begin(pqw_tw *tw, int16_t fid)
{
    tw_field(tw, fid, PQW_CT_STRUCT);
    tw_push(tw);
}

static void pqw_tw_elem_struct_begin(pqw_tw *tw) { tw_push(tw); }

void pqw_tw_struct_end(pqw_tw *tw)
{
    uint8_t stop = PQW_CT_STOP;
    tw_put(tw, &stop, 1);
    if (tw->depth > 0)
        tw->last_fid = tw->saved_fid[--tw->depth];
}

void pqw_tw_list_begin(pqw_tw *tw, int16_t fid, int elem_type, size_t n)
{
    tw_field(tw, fid, PQW_CT_LIST);
    if (n < 15) {
        uint8_t b = (uint8_t)((n << 4) | (size_t)elem_type);
        tw_put(tw, &b, 1);
    } else {
        uint8_t b = (uint8_t)(0xF0 | elem_type);
        tw_put(tw, &b, 1);
        pqw_tw_varint(tw, n);
    }
}

void pqw_tw_elem_i32(pqw_tw *tw, int32_t value) { pqw_tw_varint(tw, zigzag64(value)); }

static void pqw_tw_elem_string(pqw_tw *tw, const char *s)
{
    size_t len = strlen(s);
    pqw_tw_varint(tw, len);
    tw_put(tw, s, len);
}

/* ---- Parquet structures (field ids from parquet.thrift) ---- */

static void enc_statistics(pqw_tw *tw, const pqw_stats_meta *st)
{
    if (st->has_null_count)
        pqw_tw_i64(tw, 3, st->null_count);
    if (st->has_min_max) {
        pqw_tw_binary(tw, 5, st->max_value, st->max_len);
        pqw_tw_binary(tw, 6, st->min_value, st->min_len);
        pqw_tw_bool(tw, 7, st->max_exact);
        pqw_tw_bool(tw, 8, st->min_exact);
    }
}

static void enc_empty_struct(pqw_tw *tw, int16_t fid)
{
    pqw_tw_struct_begin(tw, fid);
    pqw_tw_struct_end(tw);
}

static void enc_logical(pqw_tw *tw, const pqw_logical *lt)
{
    pqw_tw_struct_begin(tw, 10); /* SchemaElement.logicalType */
    switch (lt->kind) {
    case PQW_LT_DECIMAL:
        pqw_tw_struct_begin(tw, PQW_LT_DECIMAL);
        pqw_tw_i32(tw, 1, lt->scale);
        pqw_tw_i32(tw, 2, lt->precision);
        pqw_tw_struct_end(tw);
        break;
    case PQW_LT_TIMESTAMP:
        pqw_tw_struct_begin(tw, PQW_LT_TIMESTAMP);
        pqw_tw_bool(tw, 1, lt->utc_adjusted);
        pqw_tw_struct_begin(tw, 2);
        enc_empty_struct(tw, (int16_t)lt->unit);
        pqw_tw_struct_end(tw);
        pqw_tw_struct_end(tw);
        break;
    case PQW_LT_INTEGER:
        pqw_tw_struct_begin(tw, PQW_LT_INTEGER);
        pqw_tw_i8(tw, 1, lt->bit_width);
        pqw_tw_bool(tw, 2, lt->is_signed);
        pqw_tw_struct_end(tw);
        break;
    default: /* STRING, MAP, LIST, DATE: empty structs */
        enc_empty_struct(tw, (int16_t)lt->kind);
        break;
    }
    pqw_tw_struct_end(tw);
}

static void enc_schema_elem(pqw_tw *tw, const pqw_schema_elem *se)
{
    if (se->has_type) {
        pqw_tw_i32(tw, 1, se->type);
        if (se->type == PQW_FIXED_LEN_BYTE_ARRAY)
            pqw_tw_i32(tw, 2, se->type_length);
    }
    if (se->has_repetition)
        pqw_tw_i32(tw, 3, se->repetition);
    pqw_tw_string(tw, 4, se->name);
    if (se->num_children >= 0)
        pqw_tw_i32(tw, 5, se->num_children);
    if (se->converted_type != PQW_CONV_NONE) {
        pqw_tw_i32(tw, 6, se->converted_type);
        if (se->converted_type == PQW_CONV_DECIMAL) {
            pqw_tw_i32(tw, 7, se->scale);
            pqw_tw_i32(tw, 8, se->precision);
        }
    }
    if (se->has_field_id)
        pqw_tw_i32(tw, 9, se->field_id);
    if (se->logical.kind != PQW_LT_NONE)
        enc_logical(tw, &se->logical);
}

static void enc_chunk(pqw_tw *tw, const pqw_chunk_meta *cm)
{
    size_t n_enc = 0;
    for (int e = 0; e < 32; e++)
        n_enc += (cm->encodings >> e) & 1;
    pqw_tw_i64(tw, 2, cm->dictionary_page_offset >= 0 ? cm->dictionary_page_offset
                                                      : cm->data_page_offset); /* file_offset */
    pqw_tw_struct_begin(tw, 3); /* meta_data */
    pqw_tw_i32(tw, 1, cm->type);
    pqw_tw_list_begin(tw, 2, PQW_CT_I32, n_enc);
    for (int e = 0; e < 32; e++)
        if ((cm->encodings >> e) & 1)
            pqw_tw_elem_i32(tw, e);
    pqw_tw_list_begin(tw, 3, PQW_CT_BINARY, cm->path_len);
    for (size_t idx = 0; idx < cm->path_len; idx++)
        pqw_tw_elem_string(tw, cm->path[idx]);
    pqw_tw_i32(tw, 4, cm->codec);
    pqw_tw_i64(tw, 5, cm->num_values);
    pqw_tw_i64(tw, 6, cm->total_uncompressed_size);
    pqw_tw_i64(tw, 7, cm->total_compressed_size);
    pqw_tw_i64(tw, 9, cm->data_page_offset);
    if (cm->dictionary_page_offset >= 0)
        pqw_tw_i64(tw, 11, cm->dictionary_page_offset);
    if (cm->has_stats) {
        pqw_tw_struct_begin(tw, 12);
        enc_statistics(tw, &cm->stats);
        pqw_tw_struct_end(tw);
    }
    pqw_tw_struct_end(tw);
    if (cm->offset_index_length > 0) {
        pqw_tw_i64(tw, 4, cm->offset_index_offset);
        pqw_tw_i32(tw, 5, cm->offset_index_length);
    }
    if (cm->column_index_length > 0) {
        pqw_tw_i64(tw, 6, cm->column_index_offset);
        pqw_tw_i32(tw, 7, cm->column_index_length);
    }
}

static void enc_row_group(pqw_tw *tw, const pqw_row_group_meta *rg)
{
    pqw_tw_list_begin(tw, 1, PQW_CT_STRUCT, rg->n_chunks);
    for (size_t idx = 0; idx < rg->n_chunks; idx++) {
        pqw_tw_elem_struct_begin(tw);
        enc_chunk(tw, &rg->chunks[idx]);
        pqw_tw_struct_end(tw);
    }
    pqw_tw_i64(tw, 2, rg->total_byte_size);
    pqw_tw_i64(tw, 3, rg->num_rows);
    pqw_tw_i64(tw, 5, rg->file_offset);
    pqw_tw_i64(tw, 6, rg->total_compressed_size);
    pqw_tw_i16(tw, 7, rg->ordinal);
}

silt_status pqw_thrift_page_header(buf *out, const pqw_page_header *ph, silt_error *err)
{
    pqw_tw tw;
    pqw_tw_init(&tw, out, err);
    pqw_tw_i32(&tw, 1, ph->type);
    pqw_tw_i32(&tw, 2, ph->uncompressed_size);
    pqw_tw_i32(&tw, 3, ph->compressed_size);
    if (ph->type == PQW_PAGE_DICTIONARY) {
        pqw_tw_struct_begin(&tw, 7);
        pqw_tw_i32(&tw, 1, ph->num_values);
        pqw_tw_i32(&tw, 2, ph->encoding);
        pqw_tw_struct_end(&tw);
    } else {
        pqw_tw_struct_begin(&tw, 5);
        pqw_tw_i32(&tw, 1, ph->num_values);
        pqw_tw_i32(&tw, 2, ph->encoding);
        pqw_tw_i32(&tw, 3, ph->def_encoding);
        pqw_tw_i32(&tw, 4, ph->rep_encoding);
        pqw_tw_struct_end(&tw);
    }
    pqw_tw_struct_end(&tw);
    return pqw_tw_status(&tw);
}

silt_status pqw_thrift_offset_index(buf *out, const pqw_chunk_meta *cm, silt_error *err)
{
    pqw_tw tw;
    pqw_tw_init(&tw, out, err);
    pqw_tw_list_begin(&tw, 1, PQW_CT_STRUCT, cm->n_pages); /* page_locations */
    for (size_t idx = 0; idx < cm->n_pages; idx++) {
        const pqw_page_loc *pl = &cm->pages[idx];
        pqw_tw_elem_struct_begin(&tw);
        pqw_tw_i64(&tw, 1, pl->offset);
        pqw_tw_i32(&tw, 2, pl->size);
        pqw_tw_i64(&tw, 3, pl->first_row);
        pqw_tw_struct_end(&tw);
    }
    pqw_tw_struct_end(&tw);
    return pqw_tw_status(&tw);
}

silt_status pqw_thrift_column_index(buf *out, const pqw_chunk_meta *cm, silt_error *err)
{
    pqw_tw tw;
    pqw_tw_init(&tw, out, err);
    /* Booleans in a list are one byte each: 1 true, 2 false (compact protocol). */
    pqw_tw_list_begin(&tw, 1, PQW_CT_TRUE, cm->n_pages); /* null_pages */
    for (size_t idx = 0; idx < cm->n_pages; idx++) {
        uint8_t b = cm->pages[idx].null_page ? PQW_CT_TRUE : PQW_CT_FALSE;
        tw_put(&tw, &b, 1);
    }
    pqw_tw_list_begin(&tw, 2, PQW_CT_BINARY, cm->n_pages); /* min_values */
    for (size_t idx = 0; idx < cm->n_pages; idx++) {
        pqw_tw_varint(&tw, cm->pages[idx].min_len);
        tw_put(&tw, cm->pages[idx].min_value, cm->pages[idx].min_len);
    }
    pqw_tw_list_begin(&tw, 3, PQW_CT_BINARY, cm->n_pages); /* max_values */
    for (size_t idx = 0; idx < cm->n_pages; idx++) {
        pqw_tw_varint(&tw, cm->pages[idx].max_len);
        tw_put(&tw, cm->pages[idx].max_value, cm->pages[idx].max_len);
    }
    pqw_tw_i32(&tw, 4, 0); /* boundary_order UNORDERED: always true */
    pqw_tw_list_begin(&tw, 5, PQW_CT_I64, cm->n_pages); /* null_counts */
    for (size_t idx = 0; idx < cm->n_pages; idx++)
        pqw_tw_varint(&tw, zigzag64(cm->pages[idx].null_count));
    pqw_tw_struct_end(&tw);
    return pqw_tw_status(&tw);
}

silt_status pqw_thrift_statistics(buf *out, const pqw_stats_meta *st, silt_error *err)
{
    pqw_tw tw;
    pqw_tw_init(&tw, out, err);
    enc_statistics(&tw, st);
    pqw_tw_struct_end(&tw);
    return pqw_tw_status(&tw);
}

silt_status pqw_thrift_schema_elem(buf *out, const pqw_schema_elem *se, silt_error *err)
{
    pqw_tw tw;
    pqw_tw_init(&tw, out, err);
    enc_schema_elem(&tw, se);
    pqw_tw_struct_end(&tw);
    return pqw_tw_status(&tw);
}

silt_status pqw_thrift_file_meta(buf *out, const pqw_file_meta *fm, silt_error *err)
{
    pqw_tw tw;
    pqw_tw_init(&tw, out, err);
    pqw_tw_i32(&tw, 1, fm->version);
    pqw_tw_list_begin(&tw, 2, PQW_CT_STRUCT, fm->n_schema);
    for (size_t idx = 0; idx < fm->n_schema; idx++) {
        pqw_tw_elem_struct_begin(&tw);
        enc_schema_elem(&tw, &fm->schema[idx]);
        pqw_tw_struct_end(&tw);
    }
    pqw_tw_i64(&tw, 3, fm->num_rows);
    pqw_tw_list_begin(&tw, 4, PQW_CT_STRUCT, fm->n_row_groups);
    for (size_t idx = 0; idx < fm->n_row_groups; idx++) {
        pqw_tw_elem_struct_begin(&tw);
        enc_row_group(&tw, &fm->row_groups[idx]);
        pqw_tw_struct_end(&tw);
    }
    if (fm->n_kv > 0) {
        pqw_tw_list_begin(&tw, 5, PQW_CT_STRUCT, fm->n_kv);
        for (size_t idx = 0; idx < fm->n_kv; idx++) {
            pqw_tw_elem_struct_begin(&tw);
            pqw_tw_string(&tw, 1, fm->kv[idx].key);
            if (fm->kv[idx].value != NULL)
                pqw_tw_string(&tw, 2, fm->kv[idx].value);
            pqw_tw_struct_end(&tw);
        }
    }
    if (fm->created_by != NULL)
        pqw_tw_string(&tw, 6, fm->created_by);
    /* TypeDefinedOrder per leaf, so readers trust min_value/max_value. */
    pqw_tw_list_begin(&tw, 7, PQW_CT_STRUCT, fm->n_leaves);
    for (size_t idx = 0; idx < fm->n_leaves; idx++) {
        pqw_tw_elem_struct_begin(&tw);
        enc_empty_struct(&tw, 1);
        pqw_tw_struct_end(&tw);
    }
    pqw_tw_struct_end(&tw);
    return pqw_tw_status(&tw);
}
