/*
 * reader_int.h - internals shared by the Parquet reader's files (file.c,
 * schema.c, reader.c, stats.c). Not for other modules.
 *
 * The schema exists twice: as the parquet tree (pq_pnode, one per
 * SchemaElement) and as the value tree (pq_vnode, one per Delta vector:
 * struct, list/map, leaf). A vnode carries what assembly needs: the
 * definition level from which its slot is non-null (def_null) and, for
 * lists and maps, the repetition level of its entries and the definition
 * level from which an entry exists (elem_def).
 */
#ifndef SILT_FORMATS_PARQUET_READER_INT_H
#define SILT_FORMATS_PARQUET_READER_INT_H

#include <threads.h>

#include "formats/parquet/parquet.h"

#define PQ_MAX_SCHEMA_DEPTH 128

typedef struct pq_pnode {
    const pq_schema_element *se;
    size_t n_children;
    struct pq_pnode *children;
    int leaf_idx; /* -1 for groups */
} pq_pnode;

typedef enum pq_vkind { PQ_VN_LEAF, PQ_VN_STRUCT, PQ_VN_LIST, PQ_VN_MAP } pq_vkind;

/* How a leaf's physical values become Delta values. */
typedef enum pq_conv {
    PQ_CONV_BOOL,        /* BOOLEAN -> uint8 */
    PQ_CONV_I32,         /* INT32 -> int32 */
    PQ_CONV_I32_I8,      /* INT32 -> int8 */
    PQ_CONV_I32_I16,     /* INT32 -> int16 */
    PQ_CONV_U8_I16,      /* INT32 (UINT_8) -> int16 */
    PQ_CONV_U16_I32,     /* INT32 (UINT_16) -> int32 */
    PQ_CONV_U32_I64,     /* INT32 (UINT_32) -> int64 */
    PQ_CONV_I32_I64_MUL, /* INT32 (TIME millis) -> int64 * scale */
    PQ_CONV_I64,         /* INT64 -> int64 */
    PQ_CONV_I64_MUL,     /* INT64 * scale (millis -> micros) */
    PQ_CONV_I64_DIV,     /* INT64 / scale, floored (nanos -> micros) */
    PQ_CONV_U64_DEC,     /* INT64 (UINT_64) -> decimal(20,0) */
    PQ_CONV_INT96_TS,    /* INT96 -> micros */
    PQ_CONV_FLOAT,
    PQ_CONV_DOUBLE,
    PQ_CONV_FLOAT16,     /* FIXED(2) -> float */
    PQ_CONV_DEC_I32,     /* INT32 -> decimal128 */
    PQ_CONV_DEC_I64,     /* INT64 -> decimal128 */
    PQ_CONV_DEC_BYTES,   /* big-endian two's complement bytes -> decimal128 */
    PQ_CONV_BINARY,      /* BYTE_ARRAY / FIXED -> string/binary */
    PQ_CONV_NULL         /* always null */
} pq_conv;

typedef struct pq_vnode {
    pq_vkind kind;
    const col_type *type;
    const char *name;
    int nullable;
    int def_null;  /* the slot is non-null iff def >= def_null */
    int rep_level; /* LIST/MAP: repetition level of its entries */
    int elem_def;  /* LIST/MAP: an entry exists iff def >= elem_def */
    size_t n_children;
    struct pq_vnode **children;
    /* LEAF only */
    int leaf_idx;
    const pq_schema_element *se;
    int max_def, max_rep;
    pq_conv conv;
    int64_t scale_factor; /* for *_MUL / *_DIV */
    size_t phys_width;    /* bytes per physical value; 0 for BYTE_ARRAY */
    size_t out_width;     /* bytes per Delta value; 0 for variable width */
} pq_vnode;

typedef struct pq_leaf_info {
    const char *path;
    pq_vnode *vnode;
} pq_leaf_info;

struct pq_file {
    io_store *store;
    io_file *io;
    char *key;
    int64_t size;
    int64_t data_end;      /* where the footer starts */
    int64_t chunk_padding; /* extra bytes to read after a chunk (old parquet-mr) */
    arena *arena; /* footer, schema, types */
    pq_file_meta meta;
    pq_pnode root;
    pq_vnode *vroot; /* STRUCT of the top-level columns */
    size_t n_leaves;
    pq_leaf_info *leaves;
    /*
     * Decoded dictionaries shared by the readers of row ranges
     * (dict_cache.c): the one mutable part of an open file, under dict_lock.
     */
    mtx_t dict_lock;
    cnd_t dict_ready; /* a claimed dictionary became ready or was dropped */
    int dict_lock_ok;
    struct pq_dict_entry *dicts;
    int64_t dict_bytes;
};
typedef struct pq_dict_entry pq_dict_entry;

silt_status pq_dict_cache_init(pq_file *file, silt_error *err);
/* Frees the cached dictionaries and the lock (pq_file_free). */
void pq_dict_cache_clear(pq_file *file);

/*
 * Where a column chunk's pages start: the dictionary page when there is one,
 * else the first data page. Some writers put 0 in one of the two offsets.
 */
static inline int64_t pq_chunk_start(const pq_column_meta *cm)
{
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
        (cm->dictionary_page_offset < start || start <= 0))
        start = cm->dictionary_page_offset;
    return start;
}

/* Builds file->root, file->vroot and file->leaves from file->meta.schema. */
silt_status pq_schema_build(pq_file *file, silt_error *err);

/* Decodes a statistics value of a leaf into its Delta type; 0 when unusable. */
int pq_stat_decode(const pq_vnode *leaf, const pq_bytes *raw, pq_stat_value *out);
/* Fills the statistics of a leaf in a row group. */
void pq_leaf_stats_fill(const pq_file *file, const pq_vnode *leaf, const pq_column_chunk *cc,
                        pq_leaf_stats *out);

#endif
