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

/* column op literal | column IS [NOT] NULL | left AND/OR right. */
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

#endif
