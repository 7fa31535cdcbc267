/*
 * scan_int.h - internals of the Parquet reader shared by reader.c (the
 * reader, projection and row-group loop), pages.c (decoding a column
 * chunk's pages into a leaf's row-group data) and assemble.c (cutting
 * batches out of it). Not for other modules.
 */
#ifndef SILT_FORMATS_PARQUET_SCAN_INT_H
#define SILT_FORMATS_PARQUET_SCAN_INT_H

#include "formats/parquet/decode.h"
#include "formats/parquet/reader_int.h"

#define PQ_DEFAULT_BATCH_ROWS 8192
/* A page may not claim more values or bytes than this (hostile headers). */
#define PQ_MAX_PAGE_VALUES ((int64_t)1 << 26)
#define PQ_MAX_PAGE_BYTES ((int64_t)1 << 30)

/* One projected node of the output (a possibly pruned copy of a vnode). */
typedef struct rnode {
    const pq_vnode *v;
    const col_type *type;
    size_t n_children;
    struct rnode **children;
    int leaf_slot; /* index into reader->leaves, -1 for inner nodes */
} rnode;

/* Decoded data of one leaf in the current row group. */
typedef struct leaf_data {
    const pq_vnode *v;
    buf def;   /* uint16 levels, when max_def > 0 */
    buf rep;   /* uint16 levels, when max_rep > 0 */
    size_t n_levels;
    buf values;    /* fixed-width Delta values */
    pq_binary bin; /* variable-width values */
    size_t n_values;
    /*
     * Dictionary of the current chunk, already converted. While every data
     * page of a string/binary chunk is dictionary-encoded, values holds the
     * int32 indices (dict_mode) and batches may keep the dictionary.
     */
    int has_dict;
    int dict_mode;
    int seen_data_page;
    buf dict_values;
    pq_binary dict_bin;
    size_t dict_count;
    /* Batch cursor. */
    size_t level_pos, value_pos;
} leaf_data;

struct pq_reader {
    pq_file *file;
    rnode *root;
    const col_type *schema;
    size_t n_leaves;
    leaf_data *leaves;
    int64_t batch_rows;
    pq_row_group_filter filter;
    void *filter_payload;
    size_t next_rg, end_rg;
    int rg_loaded;
    size_t cur_rg;
    int64_t rg_rows, rg_row_pos;
    size_t skipped;
    int64_t memory_limit;
    int64_t rg_bytes; /* decoded bytes of the leaves already loaded in this row group */
    arena *arena; /* projection tree */
    /* Scratch reused across pages. */
    buf chunk, page, scratch;
    pq_binary scratch_bin;
};


/* Empties a leaf for the next chunk; binary offsets start with their 0. */
silt_status pq_leaf_reset(leaf_data *ld, silt_error *err);
void pq_leaf_clear(leaf_data *ld);
/* Bytes a leaf's decoded data holds. */
int64_t pq_leaf_bytes(const leaf_data *ld);
/* Number of defined (non-null) values among n levels of a leaf from level `from`. */
size_t pq_leaf_count_defined(const leaf_data *ld, size_t from, size_t n);
/*
 * Reads the leaf's column chunk of row group rg and decodes all its pages
 * into ld (levels, values, dictionary). CORRUPT, UNSUPPORTED, IO, NOMEM.
 */
silt_status pq_leaf_load(pq_reader *r, leaf_data *ld, const pq_row_group *rg, silt_error *err);
/*
 * Assembles the next n rows of the loaded row group into batch (vectors in
 * arena a) and advances the leaves' cursors. CORRUPT, UNSUPPORTED, NOMEM.
 */
silt_status pq_assemble_batch(pq_reader *r, arena *a, int64_t n, col_batch *batch,
                              silt_error *err);

#endif
