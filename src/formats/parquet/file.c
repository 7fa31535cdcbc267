/*
 * file.c - opening a Parquet file: the footer, checked against the file.
 *
 * PROTOCOL: parquet-format README, File format: "PAR1" at both ends, the
 * footer (FileMetaData, Thrift compact) just before a 4-byte little-endian
 * length and the trailing magic. Files with the "PARE" magic (encrypted
 * footer) or with encryption metadata in a plaintext footer are refused:
 * silt implements no Parquet modular encryption.
 *
 * Everything read from the footer that later drives a read (column chunk
 * offsets and sizes, types) is checked here once, so the scan can trust it.
 */
#include <stdio.h>
#include <string.h>

#include "formats/parquet/reader_int.h"
#include "util/mem.h"

#define PQ_MAX_FOOTER_LEN ((int64_t)1 << 30)

static silt_status encrypted(silt_error *err)
{
    return err_set(err, SILT_UNSUPPORTED, "encrypted Parquet is not supported");
}

static silt_status check_magic(pq_file *file, silt_error *err)
{
    uint8_t head[4], tail[8];
    if (file->size < 12)
        return err_set(err, SILT_CORRUPT, "file is too small to be Parquet (%lld bytes)",
                       (long long)file->size);
    SILT_RETURN_IF_ERROR(io_file_read_at(file->io, 0, 4, head, err));
    SILT_RETURN_IF_ERROR(io_file_read_at(file->io, file->size - 8, 8, tail, err));
    if (memcmp(tail + 4, "PARE", 4) == 0 || memcmp(head, "PARE", 4) == 0)
        return encrypted(err);
    if (memcmp(head, "PAR1", 4) != 0 || memcmp(tail + 4, "PAR1", 4) != 0)
        return err_set(err, SILT_CORRUPT, "file is not Parquet: the \"PAR1\" magic is missing at "
                       "its %s", memcmp(head, "PAR1", 4) != 0 ? "start" : "end");
    return SILT_OK;
}

static silt_status check_column_chunk(pq_file *file, size_t rg_idx, size_t col_idx,
                                      int64_t data_end, silt_error *err)
{
    const pq_column_chunk *cc = &file->meta.row_groups[rg_idx].columns[col_idx];
    const pq_column_meta *cm = &cc->meta;
    const pq_vnode *leaf = file->leaves[col_idx].vnode;
    int64_t start;
    if (cc->encrypted)
        return encrypted(err);
    if (!cc->has_meta)
        return err_set(err, SILT_CORRUPT, "column chunk %zu of row group %zu has no metadata",
                       col_idx, rg_idx);
    if (cc->file_path != NULL && cc->file_path[0] != '\0')
        return err_set(err, SILT_UNSUPPORTED, "column chunk %zu of row group %zu is stored in "
                       "another file (\"%s\"), which is not supported", col_idx, rg_idx,
                       cc->file_path);
    if (cm->type != leaf->se->type)
        return err_set(err, SILT_CORRUPT, "column chunk \"%s\" of row group %zu has type %s but "
                       "the schema says %s", file->leaves[col_idx].path, rg_idx,
                       pq_physical_name(cm->type), pq_physical_name(leaf->se->type));
    if (cm->num_values == 0)
        return SILT_OK; /* nothing is read from an empty chunk */
    start = pq_chunk_start(cm);
    if (start < 4 || cm->total_compressed_size < 0 || cm->total_compressed_size > data_end ||
        start > data_end - cm->total_compressed_size || cm->num_values < 0)
        return err_set(err, SILT_CORRUPT, "column chunk \"%s\" of row group %zu lies outside the "
                       "data of the file (offset %lld, %lld bytes, data ends at %lld)",
                       file->leaves[col_idx].path, rg_idx, (long long)start,
                       (long long)cm->total_compressed_size, (long long)data_end);
    return SILT_OK;
}

static silt_status check_row_groups(pq_file *file, int64_t data_end, silt_error *err)
{
    size_t rg_idx, col_idx;
    for (rg_idx = 0; rg_idx < file->meta.n_row_groups; rg_idx++) {
        const pq_row_group *rg = &file->meta.row_groups[rg_idx];
        if (rg->n_columns != file->n_leaves)
            return err_set(err, SILT_CORRUPT, "row group %zu has %zu column chunks but the schema "
                           "has %zu columns", rg_idx, rg->n_columns, file->n_leaves);
        for (col_idx = 0; col_idx < rg->n_columns; col_idx++)
            SILT_RETURN_IF_ERROR(check_column_chunk(file, rg_idx, col_idx, data_end, err));
    }
    return SILT_OK;
}

/*
 * parquet-mr before 1.2.9 (PARQUET-816) wrote total_compressed_size without
 * the dictionary page header; such chunks are read with some slack after
 * them, bounded by the file's data.
 */
static int legacy_chunk_sizes(const char *created_by)
{
    const char *version;
    int major = 0, minor = 0, patch = 0;
    if (created_by == NULL || !util_str_starts_with(created_by, "parquet-mr"))
        return 0;
    version = strstr(created_by, "version ");
    if (version == NULL)
        return 1;
    if (sscanf(version + 8, "%d.%d.%d", &major, &minor, &patch) < 2)
        return 1;
    return major < 1 || (major == 1 && (minor < 2 || (minor == 2 && patch < 9)));
}

static silt_status read_footer(pq_file *file, silt_error *err)
{
    uint8_t len_bytes[4];
    uint32_t footer_len;
    uint8_t *footer = NULL;
    silt_status rc;
    SILT_RETURN_IF_ERROR(io_file_read_at(file->io, file->size - 8, 4, len_bytes, err));
    footer_len = (uint32_t)len_bytes[0] | ((uint32_t)len_bytes[1] << 8) |
                 ((uint32_t)len_bytes[2] << 16) | ((uint32_t)len_bytes[3] << 24);
    if ((int64_t)footer_len > file->size - 12 || (int64_t)footer_len > PQ_MAX_FOOTER_LEN ||
        footer_len == 0)
        return err_set(err, SILT_CORRUPT, "footer length %u does not fit in the file (%lld bytes)",
                       footer_len, (long long)file->size);
    footer = mem_alloc(footer_len);
    if (footer == NULL)
        return err_nomem(err);
    rc = io_file_read_at(file->io, file->size - 8 - footer_len, footer_len, footer, err);
    if (rc == SILT_OK)
        rc = pq_parse_file_meta(&file->meta, footer, footer_len, file->arena, "footer", err);
    mem_free(footer);
    if (rc == SILT_OK && file->meta.encrypted)
        rc = encrypted(err);
    if (rc == SILT_OK)
        rc = pq_schema_build(file, err);
    file->data_end = file->size - 8 - (int64_t)footer_len;
    if (rc == SILT_OK)
        rc = check_row_groups(file, file->data_end, err);
    if (rc == SILT_OK && legacy_chunk_sizes(file->meta.created_by))
        file->chunk_padding = 100;
    return rc;
}

silt_status pq_file_open(pq_file **out, io_store *store, const char *key, silt_error *err)
{
    pq_file *file = NULL;
    silt_status rc;
    *out = NULL;
    file = mem_calloc(1, sizeof(*file));
    if (file == NULL)
        return err_nomem(err);
    file->store = store;
    rc = pq_dict_cache_init(file, err);
    if (rc != SILT_OK)
        goto done;
    file->key = mem_strdup(key);
    file->arena = arena_new(NULL, "parquet footer");
    if (file->key == NULL || file->arena == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    rc = io_file_open(store, key, &file->io, err);
    if (rc != SILT_OK)
        goto done;
    file->size = file->io->size;
    rc = check_magic(file, err);
    if (rc == SILT_OK)
        rc = read_footer(file, err);
    if (rc != SILT_OK)
        err_context(err, "while opening Parquet file \"%s\"", key);
done:
    if (rc != SILT_OK) {
        pq_file_free(file);
        return rc;
    }
    *out = file;
    return SILT_OK;
}

void pq_file_free(pq_file *file)
{
    if (file == NULL)
        return;
    io_file_close(file->io);
    pq_dict_cache_clear(file);
    arena_free(file->arena);
    mem_free(file->key);
    mem_free(file);
}

const pq_file_meta *pq_file_metadata(const pq_file *file) { return &file->meta; }
const col_type *pq_file_schema(const pq_file *file) { return file->vroot->type; }
int64_t pq_file_num_rows(const pq_file *file)
{
    int64_t rows = 0;
    size_t idx;
    for (idx = 0; idx < file->meta.n_row_groups; idx++)
        rows += file->meta.row_groups[idx].num_rows;
    return rows;
}
int64_t pq_file_size(const pq_file *file) { return file->size; }
const char *pq_file_key(const pq_file *file) { return file->key; }
size_t pq_file_n_leaves(const pq_file *file) { return file->n_leaves; }
const char *pq_file_leaf_path(const pq_file *file, size_t leaf_idx)
{
    return file->leaves[leaf_idx].path;
}
const pq_schema_element *pq_file_leaf_element(const pq_file *file, size_t leaf_idx)
{
    return file->leaves[leaf_idx].vnode->se;
}
int pq_file_leaf_max_def(const pq_file *file, size_t leaf_idx)
{
    return file->leaves[leaf_idx].vnode->max_def;
}
int pq_file_leaf_max_rep(const pq_file *file, size_t leaf_idx)
{
    return file->leaves[leaf_idx].vnode->max_rep;
}
const col_type *pq_file_leaf_type(const pq_file *file, size_t leaf_idx)
{
    return file->leaves[leaf_idx].vnode->type;
}
