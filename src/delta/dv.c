/*
 * dv.c - deletion vector descriptors, files and RoaringBitmapArrays.
 *
 * PROTOCOL: Deletion Vectors. Every length and count read from a DV is
 * checked against the bytes that are actually there before it is used; the
 * 32-bit bitmaps are decoded by CRoaring's bounds-checked portable reader.
 */
#include "delta/dv.h"

#include <roaring/roaring.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "delta/scan.h"
#include "util/mem.h"

struct ddv_bitmap {
    size_t n_buckets;
    uint32_t *keys; /* ascending: the high 32 bits of the rows in each bucket */
    roaring_bitmap_t **buckets;
    int64_t cardinality;
};

static const char z85_chars[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

silt_status ddv_z85_decode(const char *text, size_t len, uint8_t *out, silt_error *err)
{
    /* A local table: no shared state between threads, and 256 bytes are cheap to fill. */
    int8_t table[256];
    size_t idx;
    memset(table, -1, sizeof(table));
    for (idx = 0; idx < 85; idx++)
        table[(unsigned char)z85_chars[idx]] = (int8_t)idx;
    if (len % 5 != 0)
        return err_set(err, SILT_CORRUPT, "Z85 text of length %zu is not a multiple of 5", len);
    for (idx = 0; idx < len; idx += 5) {
        uint64_t value = 0;
        size_t pos;
        for (pos = 0; pos < 5; pos++) {
            int digit = table[(unsigned char)text[idx + pos]];
            if (digit < 0)
                return err_set(err, SILT_CORRUPT, "character %zu of Z85 text is not a Z85 digit",
                               idx + pos);
            value = value * 85 + (uint64_t)digit;
        }
        if (value > UINT32_MAX)
            return err_set(err, SILT_CORRUPT, "Z85 group at character %zu overflows 32 bits", idx);
        out[idx / 5 * 4 + 0] = (uint8_t)(value >> 24);
        out[idx / 5 * 4 + 1] = (uint8_t)(value >> 16);
        out[idx / 5 * 4 + 2] = (uint8_t)(value >> 8);
        out[idx / 5 * 4 + 3] = (uint8_t)value;
    }
    return SILT_OK;
}

/* "deletion_vector_<uuid>.bin" into name (56 bytes at least); returns name. */
static const char *uuid_name(const uint8_t *uuid, char *name)
{
    snprintf(name, 64,
             "deletion_vector_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x.bin",
             uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8],
             uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]);
    return name;
}

/* PROTOCOL: Derived Fields, absolutePath. */
silt_status ddv_file_key(const dlog_dv *dv, const char *table_root, buf *out, silt_error *err)
{
    const char *text = dv->path_or_inline_dv;
    size_t len = strlen(text);
    buf_truncate(out, 0);
    if (dv->storage_type == 'u') {
        uint8_t uuid[16];
        char name[64];
        if (len < 20)
            return err_set(err, SILT_CORRUPT, "deletion vector path \"%s\" is shorter than its "
                           "20-character UUID", text);
        SILT_RETURN_IF_ERROR(ddv_z85_decode(text + len - 20, 20, uuid, err));
        if (len > 20) {
            SILT_RETURN_IF_ERROR(buf_append(out, text, len - 20, err));
            SILT_RETURN_IF_ERROR(buf_append_char(out, '/', err));
        }
        return buf_append_str(out, uuid_name(uuid, name), err);
    }
    if (dv->storage_type == 'p') {
        /* An absolute URI: usable when it points inside the table's folder. */
        const char *path = text;
        size_t root_len = strlen(table_root);
        if (util_str_starts_with(path, "file://"))
            path += 7;
        else if (util_str_starts_with(path, "file:"))
            path += 5;
        if (strncmp(path, table_root, root_len) == 0 && path[root_len] == '/')
            return buf_append_str(out, path + root_len + 1, err);
        return err_set(err, SILT_UNSUPPORTED, "deletion vector \"%s\" lies outside the table "
                       "folder \"%s\"", text, table_root);
    }
    return err_set(err, SILT_INVALID, "an inline deletion vector has no file");
}

static uint32_t read_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t read_be32(const uint8_t *p)
{
    return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

void ddv_free(ddv_bitmap *dv)
{
    size_t idx;
    if (dv == NULL)
        return;
    for (idx = 0; idx < dv->n_buckets; idx++)
        roaring_bitmap_free(dv->buckets[idx]);
    mem_free(dv->buckets);
    mem_free(dv->keys);
    mem_free(dv);
}

silt_status ddv_decode(ddv_bitmap **out, const void *data, size_t len, silt_error *err)
{
    const uint8_t *bytes = data;
    ddv_bitmap *dv = NULL;
    uint64_t n_buckets;
    size_t pos = 12, idx;
    silt_status rc = SILT_OK;

    if (len < 12)
        return err_set(err, SILT_CORRUPT, "deletion vector of %zu bytes is shorter than its "
                       "12-byte header", len);
    if (read_le32(bytes) != DDV_MAGIC)
        return err_set(err, SILT_CORRUPT, "deletion vector starts with %u instead of the magic "
                       "number %u", read_le32(bytes), DDV_MAGIC);
    n_buckets = (uint64_t)read_le32(bytes + 4) | (uint64_t)read_le32(bytes + 8) << 32;
    /* Each bucket takes at least a 4-byte key and an 8-byte empty roaring header. */
    if (n_buckets > (len - 12) / 8)
        return err_set(err, SILT_CORRUPT, "deletion vector claims %llu buckets in %zu bytes",
                       (unsigned long long)n_buckets, len);
    dv = mem_calloc(1, sizeof(*dv));
    if (dv == NULL)
        return err_nomem(err);
    dv->keys = mem_calloc(n_buckets ? n_buckets : 1, sizeof(uint32_t));
    dv->buckets = mem_calloc(n_buckets ? n_buckets : 1, sizeof(roaring_bitmap_t *));
    if (dv->keys == NULL || dv->buckets == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    for (idx = 0; idx < n_buckets; idx++) {
        size_t size;
        if (len - pos < 4) {
            rc = err_set(err, SILT_CORRUPT, "deletion vector ends inside bucket %zu at byte %zu",
                         idx, pos);
            goto done;
        }
        dv->keys[idx] = read_le32(bytes + pos);
        if ((dv->keys[idx] & 0x80000000u) || (idx > 0 && dv->keys[idx] <= dv->keys[idx - 1])) {
            rc = err_set(err, SILT_CORRUPT, "deletion vector bucket key %u at byte %zu is out of "
                         "order or negative", dv->keys[idx], pos);
            goto done;
        }
        pos += 4;
        size = roaring_bitmap_portable_deserialize_size((const char *)bytes + pos, len - pos);
        if (size == 0) {
            rc = err_set(err, SILT_CORRUPT, "deletion vector bucket %zu at byte %zu is not a "
                         "valid roaring bitmap", idx, pos);
            goto done;
        }
        dv->buckets[idx] = roaring_bitmap_portable_deserialize_safe((const char *)bytes + pos, size);
        if (dv->buckets[idx] == NULL) {
            rc = err_set(err, SILT_CORRUPT, "deletion vector bucket %zu at byte %zu could not be "
                         "decoded", idx, pos);
            goto done;
        }
        dv->n_buckets++;
        dv->cardinality += (int64_t)roaring_bitmap_get_cardinality(dv->buckets[idx]);
        pos += size;
    }
    if (pos != len) {
        rc = err_set(err, SILT_CORRUPT, "deletion vector has %zu bytes after its last bucket",
                     len - pos);
        goto done;
    }
    *out = dv;
    dv = NULL;
done:
    ddv_free(dv);
    return rc;
}

static silt_status load_inline(ddv_bitmap **out, const dlog_dv *dv, silt_error *err)
{
    size_t len = strlen(dv->path_or_inline_dv);
    uint8_t *bytes;
    silt_status rc;
    if (len % 5 != 0 || (size_t)dv->size_in_bytes > len / 5 * 4)
        return err_set(err, SILT_CORRUPT, "inline deletion vector of %zu characters cannot hold "
                       "%d bytes", len, (int)dv->size_in_bytes);
    bytes = mem_alloc(len / 5 * 4 + 1);
    if (bytes == NULL)
        return err_nomem(err);
    rc = ddv_z85_decode(dv->path_or_inline_dv, len, bytes, err);
    if (rc == SILT_OK)
        rc = ddv_decode(out, bytes, (size_t)dv->size_in_bytes, err);
    mem_free(bytes);
    return rc;
}

static silt_status load_file(ddv_bitmap **out, io_store *store, const dlog_dv *dv,
                             silt_error *err)
{
    buf key = BUF_INIT, data = BUF_INIT;
    int64_t offset = dv->offset < 0 ? 1 : dv->offset;
    silt_status rc;
    if (dv->storage_type == 'p') {
        /* an absolute path: a shallow clone's vectors are the source table's files */
        const char *located;
        rc = delta_file_locate(store, dv->path_or_inline_dv, &store, &located, err);
        if (rc == SILT_OK)
            rc = buf_append_str(&key, located, err);
    } else
        rc = ddv_file_key(dv, io_store_root(store), &key, err);
    if (rc != SILT_OK)
        goto done;
    /* Version byte, then at `offset`: big-endian size, the bitmap, its CRC-32. */
    rc = io_get_range(store, buf_cstr(&key), 0, 1, &data, err);
    if (rc != SILT_OK)
        goto done;
    if ((uint8_t)data.data[0] != 1) {
        rc = err_set(err, SILT_CORRUPT, "deletion vector file \"%s\" has format version %d; "
                     "expected 1", buf_cstr(&key), (uint8_t)data.data[0]);
        goto done;
    }
    buf_truncate(&data, 0);
    rc = io_get_range(store, buf_cstr(&key), offset, (int64_t)dv->size_in_bytes + 8, &data, err);
    if (rc != SILT_OK) {
        if (rc == SILT_INVALID)
            rc = SILT_CORRUPT; /* the descriptor points past the end of the file */
        goto done;
    }
    {
        const uint8_t *bytes = (const uint8_t *)data.data;
        uint32_t size = read_be32(bytes);
        uint32_t crc;
        if (size != (uint32_t)dv->size_in_bytes) {
            rc = err_set(err, SILT_CORRUPT, "deletion vector in \"%s\" at offset %lld has size "
                         "%u; the log says %d", buf_cstr(&key), (long long)offset, size,
                         (int)dv->size_in_bytes);
            goto done;
        }
        crc = (uint32_t)crc32(0L, bytes + 4, size);
        if (crc != read_be32(bytes + 4 + size)) {
            rc = err_set(err, SILT_CORRUPT, "deletion vector in \"%s\" at offset %lld fails its "
                         "CRC-32 check", buf_cstr(&key), (long long)offset);
            goto done;
        }
        rc = ddv_decode(out, bytes + 4, size, err);
    }
done:
    if (rc != SILT_OK && rc != SILT_NOMEM && key.len > 0)
        err_context(err, "while reading deletion vector file \"%s\"", buf_cstr(&key));
    buf_clear(&key);
    buf_clear(&data);
    return rc;
}

silt_status ddv_load(ddv_bitmap **out, io_store *store, const dlog_dv *dv, silt_error *err)
{
    ddv_bitmap *loaded = NULL;
    silt_status rc;
    if (dv->storage_type == 'i')
        rc = load_inline(&loaded, dv, err);
    else if (dv->storage_type == 'u' || dv->storage_type == 'p')
        rc = load_file(&loaded, store, dv, err);
    else
        return err_set(err, SILT_INVALID, "the file has no deletion vector");
    if (rc != SILT_OK)
        return rc;
    if (loaded->cardinality != dv->cardinality) {
        err_set(err, SILT_CORRUPT, "deletion vector \"%c%s\" holds %lld rows; the log says %lld",
                dv->storage_type, dv->path_or_inline_dv, (long long)loaded->cardinality,
                (long long)dv->cardinality);
        ddv_free(loaded);
        return SILT_CORRUPT;
    }
    *out = loaded;
    return SILT_OK;
}

int64_t ddv_cardinality(const ddv_bitmap *dv) { return dv ? dv->cardinality : 0; }

static const roaring_bitmap_t *find_bucket(const ddv_bitmap *dv, uint32_t key)
{
    size_t lo = 0, hi = dv->n_buckets;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (dv->keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < dv->n_buckets && dv->keys[lo] == key) ? dv->buckets[lo] : NULL;
}

int ddv_contains(const ddv_bitmap *dv, uint64_t row)
{
    const roaring_bitmap_t *bucket;
    if (dv == NULL)
        return 0;
    bucket = find_bucket(dv, (uint32_t)(row >> 32));
    return bucket != NULL && roaring_bitmap_contains(bucket, (uint32_t)row);
}

/* The set rows of bucket in [lo, hi) (32-bit row numbers, hi <= 2^32) marked in out[row - lo]. */
static size_t mark_bucket(const roaring_bitmap_t *bucket, uint64_t lo, uint64_t hi, uint8_t *out)
{
    roaring_uint32_iterator_t it;
    size_t n = 0;
    if (roaring_bitmap_range_cardinality(bucket, lo, hi) == 0) /* the usual case: skip */
        return 0;
    roaring_init_iterator(bucket, &it);
    if (!roaring_move_uint32_iterator_equalorlarger(&it, (uint32_t)lo))
        return 0;
    for (; it.has_value && it.current_value < hi; roaring_advance_uint32_iterator(&it)) {
        out[it.current_value - lo] = 1;
        n++;
    }
    return n;
}

size_t ddv_mark_range(const ddv_bitmap *dv, uint64_t start_row, size_t n_rows,
                      uint8_t *deleted_out)
{
    uint64_t row = start_row, end = start_row + n_rows;
    size_t n = 0;
    memset(deleted_out, 0, n_rows);
    /* bucket by bucket (rows of one 32-bit high key), each by its set bits in the range */
    while (dv != NULL && row < end) {
        uint64_t key = row >> 32, next = (key + 1) << 32;
        uint64_t stop = end < next ? end : next;
        const roaring_bitmap_t *bucket = find_bucket(dv, (uint32_t)key);
        if (bucket != NULL)
            n += mark_bucket(bucket, row & 0xffffffffu, (row & 0xffffffffu) + (stop - row),
                             deleted_out + (row - start_row));
        row = stop;
    }
    return n;
}

/* ---- writing ------------------------------------------------------------------------------ */

void ddv_z85_encode(const uint8_t *data, size_t len, char *out)
{
    size_t idx, pos;
    for (idx = 0; idx + 4 <= len; idx += 4) {
        uint32_t value = (uint32_t)data[idx] << 24 | (uint32_t)data[idx + 1] << 16 |
                         (uint32_t)data[idx + 2] << 8 | (uint32_t)data[idx + 3];
        for (pos = 5; pos > 0; pos--) {
            out[idx / 4 * 5 + pos - 1] = z85_chars[value % 85];
            value /= 85;
        }
    }
    out[len / 4 * 5] = '\0';
}

void ddv_file_name(const uint8_t uuid[16], char *name, char *z85)
{
    uuid_name(uuid, name);
    ddv_z85_encode(uuid, 16, z85);
}

silt_status ddv_new(ddv_bitmap **out, silt_error *err)
{
    *out = mem_calloc(1, sizeof(ddv_bitmap));
    return *out != NULL ? SILT_OK : err_nomem(err);
}

/* The bucket of key, created (in key order) when missing. */
static silt_status bucket_of(ddv_bitmap *dv, uint32_t key, roaring_bitmap_t **out,
                             silt_error *err)
{
    size_t lo = 0, hi = dv->n_buckets;
    uint32_t *keys;
    roaring_bitmap_t **buckets;
    if (dv->n_buckets > 0 && dv->keys[dv->n_buckets - 1] == key) { /* rows mostly ascend */
        *out = dv->buckets[dv->n_buckets - 1];
        return SILT_OK;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (dv->keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < dv->n_buckets && dv->keys[lo] == key) {
        *out = dv->buckets[lo];
        return SILT_OK;
    }
    keys = mem_realloc(dv->keys, (dv->n_buckets + 1) * sizeof(uint32_t));
    if (keys == NULL)
        return err_nomem(err);
    dv->keys = keys;
    buckets = mem_realloc(dv->buckets, (dv->n_buckets + 1) * sizeof(roaring_bitmap_t *));
    if (buckets == NULL)
        return err_nomem(err);
    dv->buckets = buckets;
    memmove(keys + lo + 1, keys + lo, (dv->n_buckets - lo) * sizeof(uint32_t));
    memmove(buckets + lo + 1, buckets + lo, (dv->n_buckets - lo) * sizeof(roaring_bitmap_t *));
    keys[lo] = key;
    buckets[lo] = roaring_bitmap_create();
    dv->n_buckets++;
    if (buckets[lo] == NULL)
        return err_nomem(err);
    *out = buckets[lo];
    return SILT_OK;
}

silt_status ddv_add_rows(ddv_bitmap *dv, const int64_t *rows, const uint8_t *sel, size_t n_rows,
                         silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < n_rows; idx++) {
        roaring_bitmap_t *bucket;
        uint64_t row;
        if (sel != NULL && !sel[idx])
            continue;
        if (rows[idx] < 0)
            return err_set(err, SILT_INVALID, "row index %lld cannot be marked deleted",
                           (long long)rows[idx]);
        row = (uint64_t)rows[idx];
        SILT_RETURN_IF_ERROR(bucket_of(dv, (uint32_t)(row >> 32), &bucket, err));
        if (roaring_bitmap_add_checked(bucket, (uint32_t)row))
            dv->cardinality++;
    }
    return SILT_OK;
}

silt_status ddv_union(ddv_bitmap *dst, const ddv_bitmap *src, silt_error *err)
{
    size_t idx;
    for (idx = 0; src != NULL && idx < src->n_buckets; idx++) {
        roaring_bitmap_t *bucket;
        uint64_t before;
        SILT_RETURN_IF_ERROR(bucket_of(dst, src->keys[idx], &bucket, err));
        before = roaring_bitmap_get_cardinality(bucket);
        roaring_bitmap_or_inplace(bucket, src->buckets[idx]);
        dst->cardinality += (int64_t)(roaring_bitmap_get_cardinality(bucket) - before);
    }
    return SILT_OK;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* PROTOCOL: Deletion Vector Format: RoaringBitmapArray in its portable serialisation. */
silt_status ddv_serialize(const ddv_bitmap *dv, buf *out, silt_error *err)
{
    uint8_t head[12];
    size_t idx, n = 0;
    for (idx = 0; idx < dv->n_buckets; idx++)
        n += !roaring_bitmap_is_empty(dv->buckets[idx]);
    put_le32(head, DDV_MAGIC);
    put_le32(head + 4, (uint32_t)n);
    put_le32(head + 8, (uint32_t)((uint64_t)n >> 32));
    SILT_RETURN_IF_ERROR(buf_append(out, head, sizeof(head), err));
    for (idx = 0; idx < dv->n_buckets; idx++) {
        size_t size;
        if (roaring_bitmap_is_empty(dv->buckets[idx]))
            continue;
        put_le32(head, dv->keys[idx]);
        SILT_RETURN_IF_ERROR(buf_append(out, head, 4, err));
        roaring_bitmap_run_optimize(dv->buckets[idx]);
        size = roaring_bitmap_portable_size_in_bytes(dv->buckets[idx]);
        SILT_RETURN_IF_ERROR(buf_reserve(out, size, err));
        out->len += roaring_bitmap_portable_serialize(dv->buckets[idx], out->data + out->len);
    }
    return SILT_OK;
}

silt_status ddv_file_append(buf *file, const ddv_bitmap *dv, int64_t *offset_out,
                            int32_t *size_out, silt_error *err)
{
    uint8_t word[4];
    size_t start, size;
    if (file->len == 0)
        SILT_RETURN_IF_ERROR(buf_append_char(file, 1, err)); /* format version */
    *offset_out = (int64_t)file->len;
    SILT_RETURN_IF_ERROR(buf_append(file, word, 4, err)); /* the size, set below */
    start = file->len;
    SILT_RETURN_IF_ERROR(ddv_serialize(dv, file, err));
    size = file->len - start;
    if (size > INT32_MAX)
        return err_set(err, SILT_INVALID, "a deletion vector of %zu bytes is too large", size);
    put_be32((uint8_t *)file->data + start - 4, (uint32_t)size);
    put_be32(word, (uint32_t)crc32(0L, (const uint8_t *)file->data + start, (uInt)size));
    SILT_RETURN_IF_ERROR(buf_append(file, word, 4, err));
    *size_out = (int32_t)size;
    return SILT_OK;
}
