/*
 * source_scan.c - cutting the files of a scan into units of parallel work,
 * for Delta tables and Parquet files alike. See source_int.h.
 *
 * A unit is a row group, or a range of rows of one when the file has too
 * few row groups for the threads. The per-range cost (a reader, the
 * dictionary page again, the boundary pages decoded twice) starts to show
 * under SCAN_UNIT_MIN_ROWS rows, so ranges are never smaller.
 */
#include <string.h>

#include "sql/source_int.h"

void sql_scan_set_filters(pq_read_options *opts, dscan_filter *f)
{
    if (f->n_preds == 0)
        return;
    opts->filter = delta_scan_row_group_filter;
    opts->filter_payload = f;
    opts->page_filter = delta_scan_page_filter;
    opts->page_filter_payload = f;
}

void sql_scan_counters_merge(dscan_counters *dst, const dscan_counters *src)
{
    __atomic_fetch_add(&dst->files, src->files, __ATOMIC_RELAXED);
    __atomic_fetch_add(&dst->row_groups_read, src->row_groups_read, __ATOMIC_RELAXED);
    __atomic_fetch_add(&dst->row_groups_skipped, src->row_groups_skipped, __ATOMIC_RELAXED);
    __atomic_fetch_add(&dst->pages_read, src->pages_read, __ATOMIC_RELAXED);
    __atomic_fetch_add(&dst->pages_skipped, src->pages_skipped, __ATOMIC_RELAXED);
}

/* Ranges to cut a row group of n_rows rows into, for units of about target rows. */
static int64_t ranges_of(int64_t n_rows, int64_t target)
{
    int64_t k = (n_rows + target - 1) / target, most = n_rows / SCAN_UNIT_MIN_ROWS;
    if (k > most)
        k = most;
    return k > 1 ? k : 1;
}

/* The projected leaf with the most compressed bytes in row group rg (-1: none). */
static long largest_leaf(const pq_file *file, const char *const *cols, size_t n_cols, size_t rg)
{
    const pq_row_group *group = &pq_file_metadata(file)->row_groups[rg];
    long best = -1;
    size_t leaf, k;
    for (leaf = 0; leaf < pq_file_n_leaves(file); leaf++) {
        const char *path = pq_file_leaf_path(file, leaf);
        int covered = cols == NULL;
        for (k = 0; k < n_cols && !covered; k++) {
            size_t len = strlen(cols[k]);
            covered = strncmp(path, cols[k], len) == 0 && (path[len] == '\0' || path[len] == '.');
        }
        if (covered && (best < 0 || group->columns[leaf].meta.total_compressed_size >
                                        group->columns[best].meta.total_compressed_size))
            best = (long)leaf;
    }
    return best;
}

#define MAX_PAGE_STARTS 4096

/*
 * Where to cut row group rg into `parts` ranges: cuts[0..*n_cuts) are the
 * ranges' first rows (cuts[0] = 0). Each cut moves to the nearest start of
 * a page of the largest projected column, so that its pages (the costliest
 * to decompress) are not decoded by two ranges; the other columns' pages
 * usually start at the same rows (writers cut pages every 20,000 rows) or
 * cost less. Without page starts (an unreadable header: the scan will
 * report it) the cuts stay where they fall.
 */
static void cut_points(pq_file *file, const char *const *cols, size_t n_cols, size_t rg,
                       int64_t parts, int64_t *starts, int64_t *cuts, size_t *n_cuts)
{
    int64_t n_rows = pq_file_metadata(file)->row_groups[rg].num_rows, k;
    long leaf = largest_leaf(file, cols, n_cols, rg);
    silt_error ignored = SILT_ERROR_INIT;
    size_t n_starts = 0, pos = 0;
    if (leaf >= 0 && pq_file_page_starts(file, rg, (size_t)leaf, starts, MAX_PAGE_STARTS,
                                         &n_starts, &ignored) != SILT_OK)
        n_starts = 0;
    cuts[0] = 0;
    *n_cuts = 1;
    for (k = 1; k < parts; k++) {
        int64_t cut = n_rows * k / parts;
        while (pos + 1 < n_starts && starts[pos + 1] <= cut)
            pos++;
        if (n_starts > 0)
            cut = pos + 1 < n_starts && starts[pos + 1] - cut < cut - starts[pos]
                      ? starts[pos + 1] : starts[pos];
        if (cut > cuts[*n_cuts - 1] && cut < n_rows)
            cuts[(*n_cuts)++] = cut;
    }
}

/* Rows a unit should hold: the input spread over SCAN_UNITS_PER_THREAD per thread. */
static int64_t unit_target(size_t width, pq_file *const *files, size_t n_files)
{
    int64_t rows = 0, per;
    size_t idx;
    for (idx = 0; idx < n_files; idx++)
        rows += pq_file_num_rows(files[idx]);
    per = rows / (int64_t)((width ? width : 1) * SCAN_UNITS_PER_THREAD);
    return per > SCAN_UNIT_MIN_ROWS ? per : SCAN_UNIT_MIN_ROWS;
}

/* Number of ranges each row group of file becomes (1 each when it cannot be split). */
static size_t units_of_file(pq_file *file, const char *const *cols, size_t n_cols,
                            int64_t target)
{
    const pq_file_meta *meta = pq_file_metadata(file);
    int split = pq_file_splittable(file, cols, cols != NULL ? n_cols : 0);
    size_t rg, total = 0;
    for (rg = 0; rg < meta->n_row_groups; rg++)
        total += split ? (size_t)ranges_of(meta->row_groups[rg].num_rows, target) : 1;
    return total;
}

silt_status sql_scan_units_split(arena *a, size_t width, pq_file *const *files, size_t n_files,
                             const char *const *cols, size_t n_cols, scan_unit **out,
                             size_t *n_out, size_t *n_split, silt_error *err)
{
    int64_t target = unit_target(width, files, n_files), *starts, *cuts;
    size_t idx, rg, total = 0, n = 0;
    scan_unit *units;
    *n_split = 0;
    for (idx = 0; idx < n_files; idx++)
        total += units_of_file(files[idx], cols, n_cols, target);
    units = arena_calloc(a, total + 1, sizeof(scan_unit));
    starts = arena_alloc(a, MAX_PAGE_STARTS * sizeof(int64_t));
    cuts = arena_alloc(a, (total + 1) * sizeof(int64_t));
    if (units == NULL || starts == NULL || cuts == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_files; idx++) {
        const pq_file_meta *meta = pq_file_metadata(files[idx]);
        int split = pq_file_splittable(files[idx], cols, cols != NULL ? n_cols : 0);
        for (rg = 0; rg < meta->n_row_groups; rg++) {
            int64_t n_rows = meta->row_groups[rg].num_rows;
            int64_t parts = split ? ranges_of(n_rows, target) : 1;
            size_t n_cuts = 1, c;
            cuts[0] = 0;
            if (parts > 1)
                cut_points(files[idx], cols, n_cols, rg, parts, starts, cuts, &n_cuts);
            *n_split += n_cuts > 1;
            for (c = 0; c < n_cuts; c++) {
                scan_unit *u = &units[n++];
                u->file_idx = idx;
                u->span.first_row_group = rg;
                u->span.n_row_groups = 1;
                if (n_cuts > 1) {
                    u->span.first_row = cuts[c];
                    u->span.n_rows = (c + 1 < n_cuts ? cuts[c + 1] : n_rows) - cuts[c];
                }
            }
        }
    }
    *out = units;
    *n_out = n;
    return SILT_OK;
}
