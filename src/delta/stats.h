/*
 * stats.h - per-file statistics and file pruning.
 *
 * PROTOCOL: Per-file Statistics. A file's `stats` JSON (numRecords,
 * tightBounds, minValues, maxValues, nullCount, nested like the schema) is
 * parsed only when asked, into typed values per leaf column. The pruning
 * API decides per file whether a simple predicate may match, from the
 * partition values and the stats: it answers "may match" whenever it cannot
 * prove the opposite, so pruning never drops a row. It is independent of
 * the engine: the predicate is a tiny struct of its own.
 */
#ifndef SILT_DELTA_STATS_H
#define SILT_DELTA_STATS_H

#include "delta/partition.h"
#include "delta/protocol.h"
#include "delta/snapshot.h"

typedef struct dstats_column {
    const char *path; /* logical names joined with '.', e.g. "a.b.c" */
    const col_type *type;
    int has_min, has_max, has_null_count;
    delta_value min, max;
    int64_t null_count;
} dstats_column;

typedef struct dstats {
    int has_num_records;
    int64_t num_records;
    int tight_bounds; /* 1 when absent, as the protocol says */
    size_t n_columns;
    dstats_column *columns;
} dstats;

/*
 * Parses stats JSON for a table schema (stats use physical names when
 * column mapping is on). Values that do not fit the column type are left
 * out (treated as unknown) rather than failing: stats only ever help
 * skipping. SILT_CORRUPT only for text that is not JSON.
 */
silt_status dstats_parse(dstats *out, arena *a, const char *json, const col_type *schema,
                         dproto_mapping_mode mode, silt_error *err);

/* The stats of a column by logical path, or NULL. */
const dstats_column *dstats_find(const dstats *stats, const char *path);

typedef enum dpred_kind {
    DPRED_CMP,
    DPRED_IS_NULL,
    DPRED_IS_NOT_NULL,
    DPRED_AND,
    DPRED_OR
} dpred_kind;

typedef enum dpred_op { DPRED_EQ, DPRED_NE, DPRED_LT, DPRED_LE, DPRED_GT, DPRED_GE } dpred_op;

/* column op literal | column IS [NOT] NULL | left AND/OR right. An AND/OR node names a
 * column only when every leaf under it is on that column: then the statistics of that one
 * column (a row group's, a page's) can refute it; else its column is NULL. */
typedef struct dpred {
    dpred_kind kind;
    dpred_op op;
    const char *column;  /* logical path */
    delta_value literal; /* of the column's type */
    const struct dpred *left, *right;
} dpred;

/*
 * Sets *may_match_out to 0 only when the file certainly holds no row for
 * which pred is true (SQL semantics: a comparison with null is not true).
 * scratch holds the parsed stats. SILT_BIND for a column the schema lacks.
 */
silt_status dstats_file_may_match(const dpred *pred, const delta_snapshot *snap,
                                  const delta_file *file, arena *scratch, int *may_match_out,
                                  silt_error *err);

/*
 * What is known of one column over some rows: a file's Delta statistics, a
 * Parquet row group's column chunk or one of its pages. Either bound may be
 * unknown; rows is the number of rows (0 with has_rows = 0: unknown).
 */
typedef struct dstats_bounds {
    int has_min, has_max, has_null_count, has_rows;
    delta_value min, max;
    int64_t null_count, rows;
} dstats_bounds;

/*
 * The one min/max test of silt (files, row groups and pages all use it):
 * 0 only when no row within the bounds can make pred (DPRED_CMP,
 * DPRED_IS_NULL or DPRED_IS_NOT_NULL) true. As in Spark, a comparison
 * with a NULL literal is never true (it is NULL), so it matches nothing; a
 * comparison on a column that holds only nulls neither. Bounds of another
 * type than the literal, or that do not compare, prove nothing.
 */
int dstats_bounds_may_match(const dpred *pred, const dstats_bounds *bounds);

/*
 * The file pruning loop (SELECT scans, DELETE/UPDATE and MERGE): keep[i] =
 * 1 for each file of snap that every one of preds (a conjunction) may
 * match, else 0; *n_kept the number kept. keep holds snap->n_files bytes.
 */
silt_status dstats_prune_files(const delta_snapshot *snap, const dpred *preds, size_t n_preds,
                               uint8_t *keep, size_t *n_kept, silt_error *err);

#endif
