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
/*
 * Compressed bytes of a flat column chunk a reader holds at once (a larger
 * page gets a window of its own size): a 128 MiB row group is read 2 MiB
 * at a time per column instead of whole, so a scan's memory is bounded by
 * its projected columns, not by its writer's row-group size.
 */
#define PQ_STREAM_WINDOW ((int64_t)2 << 20)

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
    uint64_t dict_id; /* unique in the process: names the dictionary for col_vec.codes */
    /* Batch cursor. */
    size_t level_pos, value_pos;
    /*
     * Streaming (flat leaves, whole chunks): a window of the chunk's
     * compressed bytes stays here and pages are decoded as batches need
     * rows; levels and values already handed out are dropped first
     * (levels_done counts them). The window holds the file's bytes
     * [win_start, win_start + chunk.len) of those up to stream_end, at
     * most PQ_STREAM_WINDOW bytes (or one page when a page is larger), so
     * that a reader's memory does not grow with its row group's size.
     */
    int streaming;
    buf chunk;
    size_t chunk_pos;
    int64_t win_start, stream_end;
    size_t win_whole; /* the window's whole pages end here (0 = not yet walked) */
    int codec;
    int64_t chunk_values; /* levels the chunk holds, from its metadata */
    int64_t levels_done;
    /*
     * Bytes of the levels section of this leaf's last PLAIN v1 page that was
     * decompressed in place (pages.c): the next page is decompressed that
     * far before the end of the values, so that its values land where they
     * belong.
     */
    size_t level_bytes_guess;
    /*
     * Row ranges: levels at the start of the chunk's first loaded page that
     * lie before the range; the first pq_leaf_fill decodes and drops them.
     */
    int64_t skip_levels;
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
    /*
     * A row range of row group next_rg (pq_read_options.first_row): rows
     * [range_lo, range_hi) when has_range. range_flat: every projected leaf
     * is flat, so leaves load only the range's pages; otherwise the row
     * group loads whole and skip_rows rows are dropped before the first batch.
     */
    int has_range, range_flat;
    int64_t range_lo, range_hi, skip_rows;
    int rg_loaded;
    size_t cur_rg;
    int64_t rg_rows, rg_row_pos;
    size_t skipped;
    pq_page_filter page_filter;
    void *page_filter_payload;
    size_t rg_read;       /* row groups loaded */
    /*
     * Row positions: the loaded row group's first row in the file, the
     * row group row at rg_row_pos 0, the rows the page index kept (keep_n
     * 0: every row from rg_lo) and where the last batch began and its rows.
     */
    int64_t rg_file_row, rg_lo;
    size_t keep_n;
    const int64_t *keep_lo, *keep_hi;
    int64_t batch_pos, batch_n;
    size_t pages_read;    /* data pages decoded */
    size_t pages_skipped; /* data pages left unread thanks to the page index */
    arena *rg_arena;      /* page indexes and row ranges of the current row group */
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
 * Reads the leaf's column chunk of row group rg. A nested leaf decodes all
 * its pages into ld (levels, values, dictionary); a flat leaf keeps the
 * compressed chunk and decodes it page by page (pq_leaf_fill), so a reader
 * holds a batch and the pages in flight rather than a decoded row group.
 * CORRUPT, UNSUPPORTED, IO, NOMEM.
 */
silt_status pq_leaf_load(pq_reader *r, leaf_data *ld, const pq_row_group *rg, silt_error *err);
/*
 * The same for rows [lo, hi) of the row group, for a flat leaf: it reads
 * the dictionary page and the data pages overlapping the range (found by
 * the offset index when the chunk has one, else by walking the page
 * headers with small reads), and drops the rows before lo as it decodes.
 */
silt_status pq_leaf_load_range(pq_reader *r, leaf_data *ld, const pq_row_group *rg, int64_t lo,
                               int64_t hi, silt_error *err);
/*
 * Dictionary cache (dict_cache.c): *hit = 1 when the dictionary of leaf
 * ld's chunk in row group rg_idx was cached, and is now copied into ld
 * (NOMEM). Otherwise *claimed = 1 when this reader is to decode it: it must
 * then call pq_dict_cache_put, with ok = 0 when it could not, since other
 * readers of the chunk wait for it. Put leaves a copy of ld's dictionary
 * when the cache has room (failures only mean no copy).
 */
silt_status pq_dict_cache_get(pq_file *file, size_t rg_idx, leaf_data *ld, int *hit,
                              int *claimed, silt_error *err);
void pq_dict_cache_put(pq_file *file, size_t rg_idx, const leaf_data *ld, int ok);
/*
 * Reads a chunk's OffsetIndex into oi (in r->rg_arena) and checks it
 * against the chunk: pages in order inside the chunk's bytes, first rows
 * strictly increasing from 0 and below num_rows. CORRUPT, IO, NOMEM.
 */
silt_status pq_offset_index_load(pq_reader *r, const pq_column_chunk *cc, int64_t num_rows,
                                 pq_offset_index *oi, silt_error *err);
/*
 * Decodes the pages in data[0..len) (compressed with codec) into ld, until
 * it holds limit levels; counts the data pages in r->pages_read.
 */
silt_status pq_leaf_read_pages(pq_reader *r, leaf_data *ld, int codec, const uint8_t *data,
                               size_t len, int64_t limit, silt_error *err);
/*
 * Makes a streaming leaf hold at least n rows from its cursor, decoding
 * more pages of its chunk (nothing for other leaves). CORRUPT when the
 * chunk ends first or holds more values than its metadata says.
 */
silt_status pq_leaf_fill(pq_reader *r, leaf_data *ld, int64_t n, silt_error *err);
/* Checks a loaded leaf: expected_rows rows, as many values as defined levels. */
silt_status pq_leaf_check(const leaf_data *ld, int64_t expected_rows, silt_error *err);
/*
 * Page index (page_index.c): when the reader has a page filter and every
 * projected leaf is flat with an offset index, loads only the pages of row
 * group rg that overlap the rows the filter keeps, trimmed to those rows.
 * *handled = 0 when the page index cannot be used (load the whole row
 * group); otherwise *rows_out is the number of rows kept (0: skip it).
 * Only rows [lo, hi) of the row group are considered (the reader's range).
 */
silt_status pq_page_index_load(pq_reader *r, const pq_row_group *rg, int64_t lo, int64_t hi,
                               int *handled, int64_t *rows_out, silt_error *err);
/*
 * Assembles the next n rows of the loaded row group into batch (vectors in
 * arena a) and advances the leaves' cursors. CORRUPT, UNSUPPORTED, NOMEM.
 */
silt_status pq_assemble_batch(pq_reader *r, arena *a, int64_t n, col_batch *batch,
                              silt_error *err);

#endif
