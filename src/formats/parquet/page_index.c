/*
 * page_index.c - skipping data pages with the page index: the ColumnIndex
 * of a chunk gives each page's min/max/null count, the OffsetIndex where
 * each page lies and its first row. The page filter decides, per leaf and
 * page, which pages may hold matching rows; the row ranges kept are the
 * intersection over the leaves. Every projected leaf then reads only its
 * pages overlapping those ranges (pages of different columns do not line
 * up) and drops the rows outside them, so the leaves stay aligned and the
 * batches are cut as from a whole row group.
 *
 * Only flat leaves (no repetition) are handled: for them a level is a row,
 * so trimming needs no record assembly. Anything else reads whole chunks.
 *
 * PROTOCOL: parquet-format PageIndex.md and parquet.thrift (ColumnIndex,
 * OffsetIndex, PageLocation).
 */
#include <string.h>

#include "formats/parquet/codec.h"
#include "formats/parquet/scan_int.h"

/* Sorted disjoint row ranges [lo[i], hi[i]) of a row group. */
typedef struct row_ranges {
    size_t n;
    int64_t *lo, *hi;
} row_ranges;

static silt_status ranges_alloc(arena *a, size_t cap, row_ranges *out, silt_error *err)
{
    out->n = 0;
    out->lo = arena_calloc(a, cap ? cap : 1, sizeof(int64_t));
    out->hi = arena_calloc(a, cap ? cap : 1, sizeof(int64_t));
    return out->lo != NULL && out->hi != NULL ? SILT_OK : err_nomem(err);
}

/* Appends [lo, hi), merging it with the last range when they touch. */
static void ranges_add(row_ranges *rr, int64_t lo, int64_t hi)
{
    if (lo >= hi)
        return;
    if (rr->n > 0 && rr->hi[rr->n - 1] >= lo) {
        if (hi > rr->hi[rr->n - 1])
            rr->hi[rr->n - 1] = hi;
        return;
    }
    rr->lo[rr->n] = lo;
    rr->hi[rr->n] = hi;
    rr->n++;
}

static int64_t ranges_rows(const row_ranges *rr)
{
    int64_t rows = 0;
    size_t k;
    for (k = 0; k < rr->n; k++)
        rows += rr->hi[k] - rr->lo[k];
    return rows;
}

static int ranges_overlap(const row_ranges *rr, int64_t lo, int64_t hi)
{
    size_t k;
    for (k = 0; k < rr->n && rr->lo[k] < hi; k++)
        if (rr->hi[k] > lo)
            return 1;
    return 0;
}

static silt_status ranges_intersect(arena *a, const row_ranges *x, const row_ranges *y,
                                    row_ranges *out, silt_error *err)
{
    size_t i = 0, j = 0;
    SILT_RETURN_IF_ERROR(ranges_alloc(a, x->n + y->n, out, err));
    while (i < x->n && j < y->n) {
        int64_t lo = x->lo[i] > y->lo[j] ? x->lo[i] : y->lo[j];
        int64_t hi = x->hi[i] < y->hi[j] ? x->hi[i] : y->hi[j];
        ranges_add(out, lo, hi);
        if (x->hi[i] < y->hi[j])
            i++;
        else
            j++;
    }
    return SILT_OK;
}

/* Reads an index structure's bytes (offset and length from the footer, checked here). */
static silt_status read_index_bytes(pq_reader *r, int64_t offset, int32_t length,
                                    const char *what, const uint8_t **out, silt_error *err)
{
    uint8_t *bytes;
    if (offset < 0 || length <= 0 || offset > r->file->size - length)
        return err_set(err, SILT_CORRUPT, "%s at byte %lld (%d bytes) lies outside the file of "
                       "%lld bytes", what, (long long)offset, (int)length,
                       (long long)r->file->size);
    bytes = arena_alloc(r->rg_arena, (size_t)length);
    if (bytes == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(io_file_read_at(r->file->io, offset, (size_t)length, bytes, err));
    *out = bytes;
    return SILT_OK;
}

/* Row after the last row of page k. */
static int64_t page_end_row(const pq_offset_index *oi, size_t k, int64_t num_rows)
{
    return k + 1 < oi->n_pages ? oi->pages[k + 1].first_row_index : num_rows;
}

/* pq_offset_index_load (scan_int.h). */
silt_status pq_offset_index_load(pq_reader *r, const pq_column_chunk *cc, int64_t num_rows,
                                 pq_offset_index *oi, silt_error *err)
{
    const pq_column_meta *cm = &cc->meta;
    int64_t chunk_end = pq_chunk_start(cm) + cm->total_compressed_size, prev_end;
    const uint8_t *bytes = NULL;
    size_t k;
    SILT_RETURN_IF_ERROR(read_index_bytes(r, cc->offset_index_offset, cc->offset_index_length,
                                          "offset index", &bytes, err));
    SILT_RETURN_IF_ERROR(pq_parse_offset_index(oi, bytes, (size_t)cc->offset_index_length,
                                               r->rg_arena, err));
    if (oi->n_pages == 0 || oi->pages[0].first_row_index != 0)
        return err_set(err, SILT_CORRUPT, "offset index does not start with a page at row 0");
    prev_end = pq_chunk_start(cm);
    for (k = 0; k < oi->n_pages; k++) {
        const pq_page_location *p = &oi->pages[k];
        if (p->offset < prev_end || p->compressed_page_size <= 0 ||
            p->offset > chunk_end - p->compressed_page_size)
            return err_set(err, SILT_CORRUPT, "offset index page %zu (byte %lld, %d bytes) lies "
                           "outside its column chunk or overlaps the page before", k,
                           (long long)p->offset, (int)p->compressed_page_size);
        if (k > 0 && p->first_row_index <= oi->pages[k - 1].first_row_index)
            return err_set(err, SILT_CORRUPT, "offset index page %zu starts at row %lld, not "
                           "after the page before", k, (long long)p->first_row_index);
        if (p->first_row_index >= num_rows)
            return err_set(err, SILT_CORRUPT, "offset index page %zu starts at row %lld of a row "
                           "group of %lld rows", k, (long long)p->first_row_index,
                           (long long)num_rows);
        prev_end = p->offset + p->compressed_page_size;
    }
    return SILT_OK;
}

/* Statistics of page k from a ColumnIndex, in the leaf's Delta type. */
static void page_stats(const pq_reader *r, const leaf_data *ld, const pq_column_index *ci,
                       size_t k, int64_t rows, pq_leaf_stats *st)
{
    memset(st, 0, sizeof(*st));
    st->path = r->file->leaves[ld->v->leaf_idx].path;
    st->type = ld->v->type;
    st->num_values = rows;
    if (ci->null_pages[k]) {
        /* A null page of a flat column: every row is null, no bounds. */
        st->has_null_count = 1;
        st->null_count = rows;
        return;
    }
    if (ci->has_null_counts) {
        st->has_null_count = 1;
        st->null_count = ci->null_counts[k];
    }
    if (ci->min_values != NULL && ci->max_values != NULL)
        st->has_min_max = pq_stat_decode(ld->v, &ci->min_values[k], &st->min) &&
                          pq_stat_decode(ld->v, &ci->max_values[k], &st->max);
}

/* The rows of pages of a leaf the page filter keeps; all rows without a ColumnIndex. */
static silt_status leaf_wanted_rows(pq_reader *r, const leaf_data *ld, const pq_column_chunk *cc,
                                    const pq_offset_index *oi, int64_t num_rows,
                                    row_ranges *out, silt_error *err)
{
    pq_column_index ci;
    const uint8_t *bytes = NULL;
    size_t k;
    SILT_RETURN_IF_ERROR(ranges_alloc(r->rg_arena, oi->n_pages, out, err));
    if (!cc->has_column_index) {
        ranges_add(out, 0, num_rows);
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(read_index_bytes(r, cc->column_index_offset, cc->column_index_length,
                                          "column index", &bytes, err));
    SILT_RETURN_IF_ERROR(pq_parse_column_index(&ci, bytes, (size_t)cc->column_index_length,
                                               r->rg_arena, err));
    if (ci.n_pages != oi->n_pages)
        return err_set(err, SILT_CORRUPT, "column index has %zu pages but the offset index %zu",
                       ci.n_pages, oi->n_pages);
    for (k = 0; k < oi->n_pages; k++) {
        int64_t lo = oi->pages[k].first_row_index, hi = page_end_row(oi, k, num_rows);
        pq_leaf_stats st;
        page_stats(r, ld, &ci, k, hi - lo, &st);
        if (r->page_filter(&st, lo, r->page_filter_payload))
            ranges_add(out, lo, hi);
    }
    return SILT_OK;
}

/*
 * Drops the levels and values of a flat leaf whose rows are outside keep;
 * loaded lists the row ranges of the pages decoded into it, in order.
 * Everything moves toward the front, so it is done in place.
 */
static void trim_leaf(leaf_data *ld, const row_ranges *loaded, const row_ranges *keep)
{
    uint16_t *def = (uint16_t *)(void *)ld->def.data;
    int64_t *offs = (int64_t *)(void *)ld->bin.offsets.data;
    uint16_t max_def = (uint16_t)ld->v->max_def;
    size_t width = ld->v->conv == PQ_CONV_NULL ? 0 : ld->dict_mode ? 4 : ld->v->out_width;
    int variable = ld->v->conv != PQ_CONV_NULL && width == 0;
    size_t lvl_in = 0, lvl_out = 0, val_in = 0, val_out = 0, ki = 0, li;
    int64_t data_out = 0;
    for (li = 0; li < loaded->n; li++) {
        int64_t row;
        for (row = loaded->lo[li]; row < loaded->hi[li]; row++, lvl_in++) {
            int defined = max_def == 0 || def[lvl_in] == max_def;
            int kept;
            while (ki < keep->n && keep->hi[ki] <= row)
                ki++;
            kept = ki < keep->n && keep->lo[ki] <= row;
            if (kept) {
                if (max_def > 0)
                    def[lvl_out] = def[lvl_in];
                lvl_out++;
            }
            if (!defined)
                continue;
            if (kept && variable) {
                int64_t start = offs[val_in], end = offs[val_in + 1];
                memmove(ld->bin.data.data + data_out, ld->bin.data.data + start,
                        (size_t)(end - start));
                data_out += end - start;
                offs[val_out + 1] = data_out;
            } else if (kept && width > 0) {
                memmove(ld->values.data + val_out * width, ld->values.data + val_in * width,
                        width);
            }
            val_out += kept;
            val_in++;
        }
    }
    ld->n_levels = lvl_out;
    if (max_def > 0)
        ld->def.len = lvl_out * 2;
    if (ld->v->conv == PQ_CONV_NULL)
        return;
    ld->n_values = val_out;
    if (variable) {
        ld->bin.offsets.len = (val_out + 1) * 8;
        ld->bin.data.len = (size_t)data_out;
    } else {
        ld->values.len = val_out * width;
    }
}

/* Reads file bytes [from, to) into r->chunk and decodes their pages into ld. */
static silt_status read_run(pq_reader *r, leaf_data *ld, int codec, int64_t from, int64_t to,
                            int64_t limit, silt_error *err)
{
    buf_truncate(&r->chunk, 0);
    SILT_RETURN_IF_ERROR(buf_reserve(&r->chunk, (size_t)(to - from), err));
    SILT_RETURN_IF_ERROR(io_file_read_at(r->file->io, from, (size_t)(to - from), r->chunk.data,
                                         err));
    return pq_leaf_read_pages(r, ld, codec, (const uint8_t *)r->chunk.data, (size_t)(to - from),
                              limit, err);
}

/*
 * Loads the pages of a leaf overlapping keep: the dictionary page (the
 * bytes before the first data page), then each run of adjacent wanted
 * pages with one read; then trims the rows outside keep.
 */
static silt_status load_leaf_pages(pq_reader *r, leaf_data *ld, const pq_column_chunk *cc,
                                   const pq_offset_index *oi, int64_t num_rows,
                                   const row_ranges *keep, silt_error *err)
{
    const pq_column_meta *cm = &cc->meta;
    int64_t start = pq_chunk_start(cm);
    row_ranges loaded;
    size_t k = 0;
    if (!pq_codec_supported(cm->codec))
        return err_set(err, SILT_UNSUPPORTED, "compression codec %s (%d) is not supported",
                       pq_codec_name(cm->codec), (int)cm->codec);
    SILT_RETURN_IF_ERROR(pq_leaf_reset(ld, err));
    SILT_RETURN_IF_ERROR(ranges_alloc(r->rg_arena, oi->n_pages, &loaded, err));
    if (oi->pages[0].offset > start) {
        SILT_RETURN_IF_ERROR(read_run(r, ld, cm->codec, start, oi->pages[0].offset, INT64_MAX,
                                      err));
        if (ld->n_levels != 0)
            return err_set(err, SILT_CORRUPT, "a data page lies before the first page of the "
                           "offset index");
    }
    while (k < oi->n_pages) {
        size_t first = k;
        int64_t lo = oi->pages[k].first_row_index, hi;
        if (!ranges_overlap(keep, lo, page_end_row(oi, k, num_rows))) {
            r->pages_skipped++;
            k++;
            continue;
        }
        /* Extend the run while the next page is wanted and follows in the file. */
        while (k + 1 < oi->n_pages &&
               oi->pages[k + 1].offset == oi->pages[k].offset + oi->pages[k].compressed_page_size &&
               ranges_overlap(keep, oi->pages[k + 1].first_row_index,
                              page_end_row(oi, k + 1, num_rows)))
            k++;
        hi = page_end_row(oi, k, num_rows);
        SILT_RETURN_IF_ERROR(read_run(r, ld, cm->codec, oi->pages[first].offset,
                                      oi->pages[k].offset + oi->pages[k].compressed_page_size,
                                      (int64_t)ld->n_levels + (hi - lo), err));
        if ((int64_t)ld->n_levels != ranges_rows(&loaded) + (hi - lo))
            return err_set(err, SILT_CORRUPT, "pages %zu to %zu hold %lld values but the offset "
                           "index gives them %lld rows", first, k,
                           (long long)((int64_t)ld->n_levels - ranges_rows(&loaded)),
                           (long long)(hi - lo));
        ranges_add(&loaded, lo, hi);
        k++;
    }
    trim_leaf(ld, &loaded, keep);
    return pq_leaf_check(ld, ranges_rows(keep), err);
}

/* The page index can serve this reader and row group: flat leaves, all with an OffsetIndex. */
static int page_index_usable(const pq_reader *r, const pq_row_group *rg)
{
    size_t k;
    if (r->page_filter == NULL || r->n_leaves == 0)
        return 0;
    for (k = 0; k < r->n_leaves; k++) {
        const pq_column_chunk *cc = &rg->columns[r->leaves[k].v->leaf_idx];
        if (r->leaves[k].v->max_rep > 0 || !cc->has_offset_index || cc->meta.num_values <= 0)
            return 0;
    }
    return 1;
}

static silt_status column_context(pq_reader *r, const leaf_data *ld, silt_error *err)
{
    return err_context(err, "while reading column \"%s\"", r->file->leaves[ld->v->leaf_idx].path);
}

silt_status pq_page_index_load(pq_reader *r, const pq_row_group *rg, int64_t lo, int64_t hi,
                               int *handled, int64_t *rows_out, silt_error *err)
{
    pq_offset_index *oi;
    row_ranges keep;
    size_t k, total_pages = 0;
    *handled = 0;
    r->keep_n = 0;
    arena_reset(r->rg_arena);
    if (!page_index_usable(r, rg))
        return SILT_OK;
    oi = arena_calloc(r->rg_arena, r->n_leaves, sizeof(*oi));
    if (oi == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(ranges_alloc(r->rg_arena, 1, &keep, err));
    ranges_add(&keep, lo, hi);
    for (k = 0; k < r->n_leaves; k++) {
        const pq_column_chunk *cc = &rg->columns[r->leaves[k].v->leaf_idx];
        row_ranges wanted, both;
        silt_status rc = pq_offset_index_load(r, cc, rg->num_rows, &oi[k], err);
        if (rc == SILT_OK)
            rc = leaf_wanted_rows(r, &r->leaves[k], cc, &oi[k], rg->num_rows, &wanted, err);
        if (rc == SILT_OK)
            rc = ranges_intersect(r->rg_arena, &keep, &wanted, &both, err);
        if (rc != SILT_OK)
            return column_context(r, &r->leaves[k], err);
        keep = both;
        total_pages += oi[k].n_pages;
    }
    *rows_out = ranges_rows(&keep);
    if (*rows_out == hi - lo)
        return SILT_OK; /* every page may match: read the chunks (or the range) whole */
    *handled = 1;
    r->keep_n = keep.n;
    r->keep_lo = keep.lo;
    r->keep_hi = keep.hi;
    if (*rows_out == 0) {
        r->pages_skipped += total_pages;
        return SILT_OK;
    }
    for (k = 0; k < r->n_leaves; k++) {
        silt_status rc = load_leaf_pages(r, &r->leaves[k], &rg->columns[r->leaves[k].v->leaf_idx],
                                         &oi[k], rg->num_rows, &keep, err);
        r->rg_bytes += pq_leaf_bytes(&r->leaves[k]);
        if (rc != SILT_OK)
            return column_context(r, &r->leaves[k], err);
    }
    return SILT_OK;
}
