/*
 * scan_filter.c - pushed conjuncts against Parquet statistics, and the
 * counters of a scan. See scan.h.
 *
 * A row group's column chunk statistics and a page's ColumnIndex entry
 * become dstats_bounds and go through dstats_bounds_may_match, the test a
 * Delta file's statistics go through, so a file, a row group and a page
 * are pruned by the same rule whether the file is a Delta data file or a
 * loose Parquet file.
 */
#include <string.h>

#include "delta/scan.h"

int delta_scan_stat_value(const pq_stat_value *s, const col_type *t, delta_value *out)
{
    memset(out, 0, sizeof(*out));
    out->type = t->id;
    switch (t->id) {
    case COL_FLOAT:
    case COL_DOUBLE: out->v.d = s->d; return 1;
    case COL_DECIMAL:
        out->v.dec = s->dec;
        out->scale = t->scale;
        return 1;
    case COL_STRING:
        out->v.s.ptr = s->bytes;
        out->v.s.len = s->len;
        return 1;
    case COL_BOOLEAN:
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG:
    case COL_DATE:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: out->v.i = s->i; return 1;
    default: return 0;
    }
}

/* 0 when the statistics of a chunk or page of num_rows rows prove no row satisfies p. */
static int leaf_may_match(const dpred *p, const pq_leaf_stats *st, int64_t num_rows)
{
    dstats_bounds b;
    memset(&b, 0, sizeof(b));
    b.has_min = b.has_max = st->has_min_max && delta_scan_stat_value(&st->min, st->type, &b.min) &&
                            delta_scan_stat_value(&st->max, st->type, &b.max);
    b.has_null_count = st->has_null_count;
    b.null_count = st->null_count;
    b.has_rows = 1;
    b.rows = num_rows;
    return dstats_bounds_may_match(p, &b);
}

int delta_scan_row_group_filter(const pq_leaf_stats *stats, size_t n_stats, int64_t num_rows,
                           void *payload)
{
    const dscan_filter *f = payload;
    size_t p, s;
    for (p = 0; p < f->n_preds; p++) {
        if (f->leaves[p] == NULL)
            continue;
        for (s = 0; s < n_stats; s++)
            if (stats[s].path != NULL && util_str_casecmp(stats[s].path, f->leaves[p]) == 0 &&
                !leaf_may_match(&f->preds[p], &stats[s], num_rows))
                return 0;
    }
    return 1;
}

int delta_scan_page_filter(const pq_leaf_stats *stats, int64_t first_row, void *payload)
{
    const dscan_filter *f = payload;
    size_t p;
    (void)first_row;
    if (stats->path == NULL)
        return 1;
    for (p = 0; p < f->n_preds; p++)
        if (f->leaves[p] != NULL && util_str_casecmp(stats->path, f->leaves[p]) == 0 &&
            !leaf_may_match(&f->preds[p], stats, stats->num_values))
            return 0;
    return 1;
}

void delta_scan_counters_add_reader(dscan_counters *c, const pq_reader *reader)
{
    if (reader == NULL)
        return;
    c->row_groups_read += pq_reader_row_groups_read(reader);
    c->row_groups_skipped += pq_reader_skipped_row_groups(reader);
    c->pages_read += pq_reader_pages_read(reader);
    c->pages_skipped += pq_reader_skipped_pages(reader);
}

silt_status delta_scan_counters_note(const dscan_counters *c, buf *out, silt_error *err)
{
    return buf_printf(out, err,
                      "files: %zu, row groups: %zu read, %zu skipped, pages: %zu read, "
                      "%zu skipped",
                      c->files, c->row_groups_read, c->row_groups_skipped, c->pages_read,
                      c->pages_skipped);
}
