/*
 * thrift.c - Thrift compact protocol decoder (see thrift.h).
 *
 * Every read checks the bytes left first; errors are SILT_CORRUPT and name
 * the input (r->what) and the byte position, so a damaged footer reads as
 * "could not decode footer of \"x\": ... at byte 1234".
 */
#include "formats/parquet/thrift.h"

#include <string.h>

void pq_thrift_init(tc_reader *r, const void *data, size_t len, const char *what)
{
    memset(r, 0, sizeof(*r));
    r->data = (const uint8_t *)data;
    r->len = len;
    r->what = what != NULL ? what : "thrift data";
}

static silt_status tc_corrupt(tc_reader *r, silt_error *err, const char *why)
{
    return err_set(err, SILT_CORRUPT, "could not decode %s: %s at byte %zu", r->what, why, r->pos);
}

silt_status pq_thrift_read_byte(tc_reader *r, uint8_t *out, silt_error *err)
{
    if (r->pos >= r->len)
        return tc_corrupt(r, err, "unexpected end of data");
    *out = r->data[r->pos++];
    return SILT_OK;
}

silt_status pq_thrift_read_varint(tc_reader *r, uint64_t *out, silt_error *err)
{
    uint64_t value = 0;
    unsigned shift = 0;
    for (;;) {
        uint8_t byte;
        if (r->pos >= r->len)
            return tc_corrupt(r, err, "unexpected end of data in a varint");
        byte = r->data[r->pos++];
        if (shift == 63 && (byte & 0x7e) != 0)
            return tc_corrupt(r, err, "varint longer than 64 bits");
        value |= (uint64_t)(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0)
            break;
        shift += 7;
        if (shift > 63)
            return tc_corrupt(r, err, "varint longer than 64 bits");
    }
    *out = value;
    return SILT_OK;
}

static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

silt_status pq_thrift_read_i64(tc_reader *r, int64_t *out, silt_error *err)
{
    uint64_t v = 0;
    SILT_RETURN_IF_ERROR(pq_thrift_read_varint(r, &v, err));
    *out = unzigzag(v);
    return SILT_OK;
}

silt_status pq_thrift_read_i32(tc_reader *r, int32_t *out, silt_error *err)
{
    int64_t v;
    SILT_RETURN_IF_ERROR(pq_thrift_read_i64(r, &v, err));
    if (v < INT32_MIN || v > INT32_MAX)
        return tc_corrupt(r, err, "i32 value out of range");
    *out = (int32_t)v;
    return SILT_OK;
}

silt_status pq_thrift_read_i16(tc_reader *r, int16_t *out, silt_error *err)
{
    int64_t v;
    SILT_RETURN_IF_ERROR(pq_thrift_read_i64(r, &v, err));
    if (v < INT16_MIN || v > INT16_MAX)
        return tc_corrupt(r, err, "i16 value out of range");
    *out = (int16_t)v;
    return SILT_OK;
}

silt_status pq_thrift_read_double(tc_reader *r, double *out, silt_error *err)
{
    uint64_t bits = 0;
    int idx;
    if (r->len - r->pos < 8)
        return tc_corrupt(r, err, "unexpected end of data in a double");
    /* The compact protocol stores doubles little-endian. */
    for (idx = 7; idx >= 0; idx--)
        bits = (bits << 8) | r->data[r->pos + (size_t)idx];
    r->pos += 8;
    memcpy(out, &bits, sizeof(*out));
    return SILT_OK;
}

silt_status pq_thrift_read_binary(tc_reader *r, const uint8_t **data_out, size_t *len_out,
                           silt_error *err)
{
    uint64_t len = 0;
    SILT_RETURN_IF_ERROR(pq_thrift_read_varint(r, &len, err));
    if (len > r->len - r->pos)
        return tc_corrupt(r, err, "binary length runs past the end of data");
    *data_out = r->data + r->pos;
    *len_out = (size_t)len;
    r->pos += (size_t)len;
    return SILT_OK;
}

silt_status pq_thrift_struct_begin(tc_reader *r, silt_error *err)
{
    if (r->depth >= TC_MAX_DEPTH)
        return tc_corrupt(r, err, "structs nested too deeply");
    r->depth++;
    r->last_id[r->depth] = 0;
    return SILT_OK;
}

void pq_thrift_struct_end(tc_reader *r)
{
    if (r->depth > 0)
        r->depth--;
}

silt_status pq_thrift_read_field(tc_reader *r, int *type_out, int16_t *id_out, silt_error *err)
{
    uint8_t header = 0;
    int delta;
    SILT_RETURN_IF_ERROR(pq_thrift_read_byte(r, &header, err));
    *type_out = header & 0x0f;
    if (*type_out == TC_STOP) {
        *id_out = 0;
        return SILT_OK;
    }
    if (*type_out > TC_STRUCT)
        return tc_corrupt(r, err, "field header has an invalid type");
    delta = header >> 4;
    if (delta != 0) {
        *id_out = (int16_t)(r->last_id[r->depth] + delta);
    } else {
        SILT_RETURN_IF_ERROR(pq_thrift_read_i16(r, id_out, err));
    }
    r->last_id[r->depth] = *id_out;
    return SILT_OK;
}

silt_status pq_thrift_read_list(tc_reader *r, int *elem_type_out, uint32_t *count_out, silt_error *err)
{
    uint8_t header = 0;
    uint64_t count;
    SILT_RETURN_IF_ERROR(pq_thrift_read_byte(r, &header, err));
    count = header >> 4;
    *elem_type_out = header & 0x0f;
    if (count == 15)
        SILT_RETURN_IF_ERROR(pq_thrift_read_varint(r, &count, err));
    if (*elem_type_out == TC_STOP || *elem_type_out > TC_STRUCT)
        return tc_corrupt(r, err, "list header has an invalid element type");
    /* Each element takes at least one byte. */
    if (count > r->len - r->pos)
        return tc_corrupt(r, err, "list has more elements than bytes left");
    *count_out = (uint32_t)count;
    return SILT_OK;
}

silt_status pq_thrift_read_list_bool(tc_reader *r, int *out, silt_error *err)
{
    uint8_t byte = 0;
    SILT_RETURN_IF_ERROR(pq_thrift_read_byte(r, &byte, err));
    *out = byte == 1;
    return SILT_OK;
}

static silt_status skip_n(tc_reader *r, size_t n, silt_error *err)
{
    if (n > r->len - r->pos)
        return tc_corrupt(r, err, "unexpected end of data");
    r->pos += n;
    return SILT_OK;
}

static silt_status skip_value(tc_reader *r, int type, int in_container, silt_error *err);

static silt_status skip_struct(tc_reader *r, silt_error *err)
{
    int type;
    int16_t id = 0;
    SILT_RETURN_IF_ERROR(pq_thrift_struct_begin(r, err));
    for (;;) {
        SILT_RETURN_IF_ERROR(pq_thrift_read_field(r, &type, &id, err));
        if (type == TC_STOP)
            break;
        SILT_RETURN_IF_ERROR(pq_thrift_skip(r, type, err));
    }
    pq_thrift_struct_end(r);
    return SILT_OK;
}

static silt_status skip_container(tc_reader *r, int is_map, silt_error *err)
{
    int key_type = TC_STOP, val_type;
    uint32_t count, idx;
    silt_status rc = SILT_OK;
    if (is_map) {
        uint64_t n;
        uint8_t types = 0;
        SILT_RETURN_IF_ERROR(pq_thrift_read_varint(r, &n, err));
        if (n > r->len - r->pos)
            return tc_corrupt(r, err, "map has more entries than bytes left");
        if (n > 0)
            SILT_RETURN_IF_ERROR(pq_thrift_read_byte(r, &types, err));
        key_type = types >> 4;
        val_type = types & 0x0f;
        count = (uint32_t)n;
        if (n > 0 && (key_type == TC_STOP || key_type > TC_STRUCT || val_type == TC_STOP ||
                      val_type > TC_STRUCT))
            return tc_corrupt(r, err, "map header has an invalid type");
    } else {
        SILT_RETURN_IF_ERROR(pq_thrift_read_list(r, &val_type, &count, err));
    }
    /* Containers count towards the depth limit like structs. */
    SILT_RETURN_IF_ERROR(pq_thrift_struct_begin(r, err));
    for (idx = 0; idx < count && rc == SILT_OK; idx++) {
        if (is_map)
            rc = skip_value(r, key_type, 1, err);
        if (rc == SILT_OK)
            rc = skip_value(r, val_type, 1, err);
    }
    pq_thrift_struct_end(r);
    return rc;
}

silt_status pq_thrift_skip(tc_reader *r, int type, silt_error *err)
{
    return skip_value(r, type, 0, err);
}

static silt_status skip_value(tc_reader *r, int type, int in_container, silt_error *err)
{
    uint64_t ignored;
    switch (type) {
    case TC_BOOL_TRUE:
    case TC_BOOL_FALSE:
        /* In a field header the value is the type; in containers it is a byte. */
        return in_container ? skip_n(r, 1, err) : SILT_OK;
    case TC_BYTE:
        return skip_n(r, 1, err);
    case TC_I16:
    case TC_I32:
    case TC_I64:
        return pq_thrift_read_varint(r, &ignored, err);
    case TC_DOUBLE:
        return skip_n(r, 8, err);
    case TC_BINARY: {
        const uint8_t *data;
        size_t len;
        return pq_thrift_read_binary(r, &data, &len, err);
    }
    case TC_LIST:
    case TC_SET:
        return skip_container(r, 0, err);
    case TC_MAP:
        return skip_container(r, 1, err);
    case TC_STRUCT:
        return skip_struct(r, err);
    default:
        return tc_corrupt(r, err, "value has an invalid type");
    }
}

silt_status pq_thrift_expect(tc_reader *r, int type, int expected, int16_t id, silt_error *err)
{
    if (type == expected)
        return SILT_OK;
    if (expected == TC_BOOL_TRUE && type == TC_BOOL_FALSE)
        return SILT_OK;
    return err_set(err, SILT_CORRUPT,
                   "could not decode %s: field %d has thrift type %d, expected %d at byte %zu",
                   r->what, (int)id, type, expected, r->pos);
}
