/*
 * writer_int.h - internals of the Parquet writer shared by writer*.c.
 *
 * The writer flattens the schema into leaf columns. Each leaf carries the
 * chain of vector nodes ("steps") from its top-level column down to it, the
 * maximum definition and repetition levels, and three layers of buffered
 * output: the current page (levels and values), the current column chunk
 * (finished, compressed pages) and the statistics of chunk and file.
 */
#ifndef SILT_FORMATS_PARQUET_WRITER_INT_H
#define SILT_FORMATS_PARQUET_WRITER_INT_H

#include <string.h>

#include "formats/parquet/encode.h"
#include "formats/parquet/thrift_write.h"
#include "formats/parquet/writer.h"

enum { PQW_STEP_LEAF, PQW_STEP_STRUCT, PQW_STEP_LIST };

typedef struct pqw_step {
    int kind;
    int nullable;      /* the node is OPTIONAL: a null ends the chain */
    size_t child;      /* STRUCT: field index; LIST: child vector (map: 0 keys, 1 values) */
    int16_t rep_level; /* LIST: repetition level of its elements */
    const char *name;  /* logical name, for messages */
} pqw_step;

/* How min/max are tracked for a leaf. */
enum { PQW_SK_INT, PQW_SK_DOUBLE, PQW_SK_DEC, PQW_SK_BYTES };

typedef struct pqw_minmax {
    int has;
    int64_t imin, imax;
    double dmin, dmax;
    col_int128 qmin, qmax;
    buf bmin, bmax; /* whole values, truncated only when written out */
} pqw_minmax;

typedef struct pqw_leaf {
    const col_type *type;
    col_type_id tid;
    size_t top_col;
    pqw_step *steps;
    size_t n_steps;
    int16_t max_def, max_rep;
    int32_t phys;
    int32_t type_len;   /* FIXED_LEN_BYTE_ARRAY */
    size_t width;       /* bytes of a PLAIN value; 0 for BYTE_ARRAY; 1 for BOOLEAN (unpacked) */
    int stat_kind;
    const char **path;  /* physical path in the Parquet schema */
    size_t path_len;
    const char **lpath; /* logical path (Delta names) */
    size_t lpath_len;
    int in_repeated;

    /* current page */
    buf def, rep;       /* uint16 levels, only when max_def / max_rep > 0 */
    int64_t page_values; /* level entries */
    buf vals;           /* PLAIN bytes (booleans as bytes), or uint32 dictionary indices */
    int dict_mode;      /* values of this page go to the dictionary */
    /* scratch of one slice */
    buf pos;            /* int64 positions of the present values in the leaf vector */
    buf gather;         /* fixed-width values before dictionary lookup */
    buf ptrs, lens;     /* byte arrays: pointers and int32 lengths */
    pqw_dict dict;
    int dict_used;      /* a page of this chunk was dictionary-encoded */
    int dict_checked;   /* the first dictionary page of the chunk was weighed */
    int64_t dict_added; /* values looked up in the chunk's dictionary */
    int64_t page_raw;   /* PLAIN bytes the page's values would take */

    pqw_minmax page_mm;  /* bounds of the current page, merged into chunk_mm */
    int64_t page_first_row;   /* row of the chunk where the current page starts */
    int64_t page_nulls_start; /* chunk_nulls when the current page started */

    /* current column chunk */
    buf chunk;
    int64_t chunk_rows;
    buf pages;           /* pqw_page_loc of the chunk's data pages (offsets within chunk) */
    int page_bounds_ok;  /* every page had bounds or was all null: a ColumnIndex can be written */
    int64_t chunk_values, chunk_nulls, chunk_uncomp, chunk_comp;
    uint32_t encodings;
    pqw_minmax chunk_mm;

    /* whole file */
    pqw_minmax file_mm;
    int64_t file_nulls;
} pqw_leaf;

struct pqw_writer {
    pqw_options opts;
    const col_type *schema;
    io_writer *out;
    char *key;
    arena *meta; /* schema, paths, footer metadata */
    pqw_schema_elem *elems;
    size_t n_elems, cap_elems;
    pqw_leaf *leaves;
    size_t n_leaves, cap_leaves;
    pqw_row_group_meta *rgs;
    size_t n_rgs, cap_rgs;
    pqw_kv *kv;
    int64_t offset;   /* bytes written to the file so far */
    int64_t rg_rows;  /* rows buffered in the current row group */
    int64_t total_rows;
    int64_t slice_rows; /* rows shredded between page checks */
    buf page, comp, hdr; /* scratch for page assembly */
    int failed;
};

/* writer_schema.c */
silt_status pqw_schema_build(pqw_writer *w, silt_error *err);

/* writer_stats.c */
void pqw_minmax_init(pqw_minmax *mm);
void pqw_minmax_clear(pqw_minmax *mm);
void pqw_minmax_reset(pqw_minmax *mm);
silt_status pqw_minmax_merge(pqw_minmax *dst, const pqw_minmax *src, int stat_kind,
                             silt_error *err);
silt_status pqw_minmax_bytes(pqw_minmax *mm, const char *min, int32_t min_len, const char *max,
                             int32_t max_len, silt_error *err);
/* Fills a Statistics struct for a chunk; bytes are allocated in a. */
silt_status pqw_stats_encode(const pqw_leaf *leaf, const pqw_minmax *mm, int64_t null_count,
                             size_t max_bytes, arena *a, pqw_stats_meta *out, silt_error *err);
/* Fills the typed per-file statistics of a leaf; bytes are allocated in a. */
silt_status pqw_stats_typed(const pqw_leaf *leaf, size_t max_bytes, arena *a,
                            pqw_leaf_stats *out, silt_error *err);
/*
 * Truncation of string/binary bounds (exposed for tests). A truncated min
 * is a prefix (at a UTF-8 character boundary for strings); a truncated max
 * is a prefix whose last byte (or character) is incremented so it still
 * bounds. *len_out is the new length, *exact_out 0 when truncated. For the
 * max, when no shorter bound exists the value is kept whole and exact.
 */
size_t pqw_truncate_min(const char *value, size_t len, size_t max_bytes, int utf8,
                        int *exact_out);
silt_status pqw_truncate_max(const char *value, size_t len, size_t max_bytes, int utf8, buf *out,
                             int *exact_out, silt_error *err);

#endif
