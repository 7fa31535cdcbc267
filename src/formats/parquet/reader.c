/*
 * reader.c - scanning a Parquet file into column batches: the reader, its
 * projection and the row-group loop (pages.c decodes, assemble.c cuts
 * batches).
 *
 * A reader works one row group at a time. Loading a row group reads the
 * byte range of each projected column chunk (one range read per chunk).
 * Pages (dictionary, data v1, data v2; CRCs are not checked) are
 * decompressed and their levels and values decoded straight into the leaf's
 * Delta representation (leaf_data): for a flat leaf as the next batch needs
 * rows, for a leaf under an array or map the whole chunk at load. Each
 * leaf's definition/repetition levels of the batch's rows are then
 * assembled into Arrow-layout vectors (validity, list offsets, values).
 *
 * PROTOCOL: parquet-format README (column chunks, pages), Encodings.md,
 * and the Dremel record shredding model for definition/repetition levels.
 *
 * Memory: compressed chunks and decoded data live in heap buffers owned by
 * the reader (decoded pages of flat leaves are dropped once handed out); batch vectors are copied out
 * into the caller's arena, so a batch stays valid after the reader moves on.
 */
#include <string.h>

#include "formats/parquet/scan_int.h"
#include "util/mem.h"

/* ---- projection ---- */

static silt_status wrap_whole(pq_reader *r, const pq_vnode *v, rnode **out, silt_error *err);

static rnode *rnode_new(pq_reader *r, const pq_vnode *v, const col_type *type, size_t n_children)
{
    rnode *rn = arena_calloc(r->arena, 1, sizeof(*rn));
    if (rn == NULL)
        return NULL;
    rn->v = v;
    rn->type = type;
    rn->n_children = n_children;
    rn->leaf_slot = -1;
    rn->children = arena_calloc(r->arena, n_children ? n_children : 1, sizeof(rnode *));
    return rn->children != NULL ? rn : NULL;
}

static silt_status wrap_whole(pq_reader *r, const pq_vnode *v, rnode **out, silt_error *err)
{
    size_t idx;
    rnode *rn = rnode_new(r, v, v->type, v->n_children);
    if (rn == NULL)
        return err_nomem(err);
    for (idx = 0; idx < v->n_children; idx++)
        SILT_RETURN_IF_ERROR(wrap_whole(r, v->children[idx], &rn->children[idx], err));
    *out = rn;
    return SILT_OK;
}

/*
 * Marks requested nodes: sel[k] for the vnode reached by columns[k]. A node
 * is kept whole when selected; a struct is pruned to its kept children.
 */
static silt_status prune(pq_reader *r, const pq_vnode *v, const pq_vnode **sel, size_t n_sel,
                         rnode **out, silt_error *err)
{
    size_t idx, kept = 0;
    col_field *fields;
    rnode *rn;
    *out = NULL;
    for (idx = 0; idx < n_sel; idx++)
        if (sel[idx] == v)
            return wrap_whole(r, v, out, err);
    if (v->kind != PQ_VN_STRUCT)
        return SILT_OK;
    rn = rnode_new(r, v, NULL, v->n_children);
    fields = arena_calloc(r->arena, v->n_children ? v->n_children : 1, sizeof(col_field));
    if (rn == NULL || fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < v->n_children; idx++) {
        rnode *child;
        SILT_RETURN_IF_ERROR(prune(r, v->children[idx], sel, n_sel, &child, err));
        if (child == NULL)
            continue;
        rn->children[kept] = child;
        fields[kept] = v->type->fields[idx];
        fields[kept].type = child->type;
        kept++;
    }
    if (kept == 0)
        return SILT_OK;
    rn->n_children = kept;
    rn->type = col_type_struct(r->arena, kept, fields);
    if (rn->type == NULL)
        return err_nomem(err);
    *out = rn;
    return SILT_OK;
}

/* Finds the vnode of a dotted name: a top-level column, then struct fields. */
static silt_status resolve_column(const pq_file *file, const char *name, const pq_vnode **out,
                                  silt_error *err)
{
    const pq_vnode *cur = file->vroot;
    const char *seg = name;
    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t len = dot != NULL ? (size_t)(dot - seg) : strlen(seg);
        size_t idx;
        const pq_vnode *next = NULL;
        if (cur->kind == PQ_VN_STRUCT) {
            for (idx = 0; idx < cur->n_children; idx++) {
                const char *child = cur->children[idx]->name;
                if (strlen(child) == len && strncmp(child, seg, len) == 0) {
                    next = cur->children[idx];
                    break;
                }
            }
        }
        if (next == NULL)
            return err_set(err, SILT_NOTFOUND, "column \"%s\" does not exist in Parquet file "
                           "\"%s\"", name, file->key);
        cur = next;
        if (dot == NULL)
            break;
        seg = dot + 1;
    }
    *out = cur;
    return SILT_OK;
}

/* Position of the first request naming top-level column v (n_sel when none). */
static size_t first_request(const pq_file *file, const pq_vnode *v, const pq_read_options *opts)
{
    size_t k, len = strlen(v->name);
    (void)file;
    for (k = 0; k < opts->n_columns; k++) {
        const char *name = opts->columns[k];
        if (strncmp(name, v->name, len) == 0 && (name[len] == '\0' || name[len] == '.'))
            return k;
    }
    return opts->n_columns;
}

/*
 * Puts the projected top-level columns in the order they were first asked
 * for, as a SELECT list does; fields inside a struct keep the file's order.
 */
static silt_status order_as_requested(pq_reader *r, const pq_read_options *opts, silt_error *err)
{
    rnode *root = r->root;
    size_t n = root->n_children, idx, pos;
    size_t *rank = arena_calloc(r->arena, n ? n : 1, sizeof(size_t));
    col_field *fields = arena_calloc(r->arena, n ? n : 1, sizeof(col_field));
    if (rank == NULL || fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        rank[idx] = first_request(r->file, root->children[idx]->v, opts);
        fields[idx] = root->type->fields[idx];
    }
    /* Insertion sort: a handful of columns, and stable. */
    for (idx = 1; idx < n; idx++) {
        size_t key = rank[idx];
        rnode *child = root->children[idx];
        col_field field = fields[idx];
        for (pos = idx; pos > 0 && rank[pos - 1] > key; pos--) {
            rank[pos] = rank[pos - 1];
            root->children[pos] = root->children[pos - 1];
            fields[pos] = fields[pos - 1];
        }
        rank[pos] = key;
        root->children[pos] = child;
        fields[pos] = field;
    }
    root->type = col_type_struct(r->arena, n, fields);
    return root->type != NULL ? SILT_OK : err_nomem(err);
}

static silt_status collect_leaves(pq_reader *r, rnode *rn, silt_error *err)
{
    size_t idx;
    if (rn->v->kind == PQ_VN_LEAF) {
        leaf_data *ld;
        if (r->n_leaves >= r->file->n_leaves)
            return err_set(err, SILT_INVALID, "a column was selected twice");
        rn->leaf_slot = (int)r->n_leaves;
        ld = &r->leaves[r->n_leaves++];
        ld->v = rn->v;
        return SILT_OK;
    }
    for (idx = 0; idx < rn->n_children; idx++)
        SILT_RETURN_IF_ERROR(collect_leaves(r, rn->children[idx], err));
    return SILT_OK;
}

static silt_status build_projection(pq_reader *r, const pq_read_options *opts, silt_error *err)
{
    const pq_vnode **sel = NULL;
    size_t n_sel = 0, idx;
    silt_status rc = SILT_OK;
    if (opts != NULL && opts->columns != NULL) {
        sel = arena_calloc(r->arena, opts->n_columns ? opts->n_columns : 1, sizeof(*sel));
        if (sel == NULL)
            return err_nomem(err);
        for (idx = 0; idx < opts->n_columns && rc == SILT_OK; idx++)
            rc = resolve_column(r->file, opts->columns[idx], &sel[idx], err);
        n_sel = opts->n_columns;
        if (rc != SILT_OK)
            return rc;
        rc = prune(r, r->file->vroot, sel, n_sel, &r->root, err);
        if (rc == SILT_OK && r->root != NULL)
            rc = order_as_requested(r, opts, err);
        if (rc == SILT_OK && r->root == NULL) {
            /* Nothing selected: a batch of no columns, rows still counted. */
            r->root = rnode_new(r, r->file->vroot, col_type_struct(r->arena, 0, NULL), 0);
            if (r->root == NULL || r->root->type == NULL)
                rc = err_nomem(err);
        }
    } else {
        rc = wrap_whole(r, r->file->vroot, &r->root, err);
    }
    if (rc != SILT_OK)
        return rc;
    r->schema = r->root->type;
    r->leaves = mem_calloc(r->file->n_leaves ? r->file->n_leaves : 1, sizeof(leaf_data));
    if (r->leaves == NULL)
        return err_nomem(err);
    for (idx = 0; idx < r->file->n_leaves; idx++) {
        leaf_data *ld = &r->leaves[idx];
        size_t limit = (size_t)r->memory_limit;
        buf_init(&ld->def, limit);
        buf_init(&ld->rep, limit);
        buf_init(&ld->values, limit);
        buf_init(&ld->dict_values, limit);
        pq_binary_init(&ld->bin);
        pq_binary_init(&ld->dict_bin);
        ld->bin.offsets.limit = ld->bin.data.limit = limit;
        ld->dict_bin.offsets.limit = ld->dict_bin.data.limit = limit;
    }
    SILT_RETURN_IF_ERROR(collect_leaves(r, r->root, err));
    r->range_flat = 1;
    for (idx = 0; idx < r->n_leaves; idx++)
        if (r->leaves[idx].v->max_rep > 0)
            r->range_flat = 0;
    return SILT_OK;
}

/* Does column name (top-level or dotted) cover the leaf at path? */
static int column_covers(const char *name, const char *path)
{
    size_t len = strlen(name);
    return strncmp(path, name, len) == 0 && (path[len] == '\0' || path[len] == '.');
}

int pq_file_splittable(const pq_file *file, const char *const *columns, size_t n_columns)
{
    size_t leaf, k;
    for (leaf = 0; leaf < file->n_leaves; leaf++) {
        int covered = columns == NULL;
        for (k = 0; k < n_columns && !covered; k++)
            covered = column_covers(columns[k], file->leaves[leaf].path);
        if (covered && file->leaves[leaf].vnode->max_rep > 0)
            return 0;
    }
    return 1;
}

silt_status pq_reader_open(pq_reader **out, pq_file *file, const pq_read_options *opts,
                           silt_error *err)
{
    pq_reader *r;
    silt_status rc;
    *out = NULL;
    r = mem_calloc(1, sizeof(*r));
    if (r == NULL)
        return err_nomem(err);
    r->file = file;
    r->arena = arena_new(NULL, "parquet reader");
    buf_init(&r->chunk, 0);
    buf_init(&r->page, 0);
    buf_init(&r->scratch, 0);
    pq_binary_init(&r->scratch_bin);
    r->batch_rows = opts != NULL && opts->batch_rows > 0 ? opts->batch_rows : PQ_DEFAULT_BATCH_ROWS;
    if (r->batch_rows > (1 << 24))
        r->batch_rows = 1 << 24;
    r->memory_limit = opts != NULL && opts->memory_limit > 0 ? opts->memory_limit
                                                             : PQ_DEFAULT_MEMORY_LIMIT;
    r->end_rg = file->meta.n_row_groups;
    if (opts != NULL) {
        r->next_rg = opts->first_row_group < r->end_rg ? opts->first_row_group : r->end_rg;
        if (opts->n_row_groups > 0 && opts->n_row_groups < r->end_rg - r->next_rg)
            r->end_rg = r->next_rg + opts->n_row_groups;
    }
    if (opts != NULL && opts->n_rows > 0 && opts->first_row >= 0 && r->next_rg < r->end_rg) {
        r->has_range = 1;
        r->end_rg = r->next_rg + 1;
        r->range_lo = opts->first_row;
        r->range_hi = opts->n_rows > INT64_MAX - opts->first_row ? INT64_MAX
                                                                 : opts->first_row + opts->n_rows;
    }
    if (opts != NULL) {
        r->filter = opts->filter;
        r->filter_payload = opts->filter_payload;
        r->page_filter = opts->page_filter;
        r->page_filter_payload = opts->page_filter_payload;
    }
    r->rg_arena = arena_new(NULL, "parquet row group");
    if (r->arena == NULL || r->rg_arena == NULL)
        rc = err_nomem(err);
    else
        rc = build_projection(r, opts, err);
    if (rc != SILT_OK) {
        err_context(err, "while opening a reader of Parquet file \"%s\"", file->key);
        pq_reader_free(r);
        return rc;
    }
    *out = r;
    return SILT_OK;
}

void pq_reader_free(pq_reader *r)
{
    size_t idx;
    if (r == NULL)
        return;
    if (r->leaves != NULL)
        for (idx = 0; idx < r->file->n_leaves; idx++)
            pq_leaf_clear(&r->leaves[idx]);
    mem_free(r->leaves);
    buf_clear(&r->chunk);
    buf_clear(&r->page);
    buf_clear(&r->scratch);
    pq_binary_clear(&r->scratch_bin);
    arena_free(r->arena);
    arena_free(r->rg_arena);
    mem_free(r);
}

const col_type *pq_reader_schema(const pq_reader *r) { return r->schema; }
size_t pq_reader_skipped_row_groups(const pq_reader *r) { return r->skipped; }
size_t pq_reader_pages_read(const pq_reader *r) { return r->pages_read; }
size_t pq_reader_row_groups_read(const pq_reader *r) { return r->rg_read; }

void pq_reader_row_positions(const pq_reader *r, int64_t *out)
{
    int64_t idx, skip = r->batch_pos, row;
    size_t k = 0;
    if (r->keep_n == 0) {
        for (idx = 0; idx < r->batch_n; idx++)
            out[idx] = r->rg_file_row + r->rg_lo + r->batch_pos + idx;
        return;
    }
    /* The page index kept ranges of rows: the batch's rows are the kept rows from batch_pos. */
    while (k < r->keep_n && skip >= r->keep_hi[k] - r->keep_lo[k]) {
        skip -= r->keep_hi[k] - r->keep_lo[k];
        k++;
    }
    row = k < r->keep_n ? r->keep_lo[k] + skip : 0;
    for (idx = 0; idx < r->batch_n && k < r->keep_n; idx++) {
        out[idx] = r->rg_file_row + row++;
        if (row >= r->keep_hi[k] && ++k < r->keep_n)
            row = r->keep_lo[k];
    }
}
size_t pq_reader_skipped_pages(const pq_reader *r) { return r->pages_skipped; }

int64_t pq_reader_held_bytes(const pq_reader *r)
{
    int64_t bytes = 0;
    size_t idx;
    for (idx = 0; idx < r->n_leaves; idx++)
        bytes += pq_leaf_bytes(&r->leaves[idx]);
    return bytes;
}

static int row_group_wanted(pq_reader *r, const pq_row_group *rg, silt_error *err, int *nomem)
{
    pq_leaf_stats *stats;
    size_t k;
    int keep;
    *nomem = 0;
    if (r->filter == NULL)
        return 1;
    stats = mem_calloc(r->n_leaves ? r->n_leaves : 1, sizeof(*stats));
    if (stats == NULL) {
        *nomem = 1;
        err_nomem(err);
        return 0;
    }
    for (k = 0; k < r->n_leaves; k++)
        pq_leaf_stats_fill(r->file, r->leaves[k].v, &rg->columns[r->leaves[k].v->leaf_idx],
                           &stats[k]);
    keep = r->filter(stats, r->n_leaves, rg->num_rows, r->filter_payload);
    mem_free(stats);
    return keep;
}

/* Loads the next wanted row group; *done_out = 1 when there is none. */
/*
 * Tells the file which column chunks of row group rg the leaves will read,
 * so that an object store fetches them together, several at once, instead
 * of one after another as each leaf loads (io_file_prefetch; a no-op on
 * local files).
 */
static silt_status prefetch_row_group(pq_reader *r, const pq_row_group *rg, silt_error *err)
{
    io_range ranges[64];
    size_t k, n = 0;
    for (k = 0; k < r->n_leaves && n < sizeof(ranges) / sizeof(ranges[0]); k++) {
        const pq_column_meta *cm = &rg->columns[r->leaves[k].v->leaf_idx].meta;
        int64_t start = pq_chunk_start(cm), len = cm->total_compressed_size;
        if (cm->num_values <= 0)
            continue;
        len += r->file->data_end - (start + len) < r->file->chunk_padding
                   ? r->file->data_end - (start + len) : r->file->chunk_padding;
        ranges[n].offset = start;
        ranges[n].len = len;
        n++;
    }
    return io_file_prefetch(r->file->io, ranges, n, err);
}

static silt_status load_next_row_group(pq_reader *r, int *done_out, silt_error *err)
{
    const pq_file_meta *meta = &r->file->meta;
    *done_out = 0;
    while (r->next_rg < r->end_rg) {
        size_t rg_idx = r->next_rg++;
        const pq_row_group *rg = &meta->row_groups[rg_idx];
        size_t k;
        int64_t lo, hi;
        int nomem, handled;
        silt_status rc;
        if (rg->num_rows == 0)
            continue;
        if (!row_group_wanted(r, rg, err, &nomem)) {
            if (nomem)
                return SILT_NOMEM;
            r->skipped++;
            continue;
        }
        lo = 0;
        hi = rg->num_rows;
        if (r->has_range) {
            lo = r->range_lo < hi ? r->range_lo : hi;
            hi = r->range_hi < hi ? r->range_hi : hi;
            if (lo == hi)
                continue;
            if (!r->range_flat) {
                /* Nested leaves: load from the row group's start, drop rows before lo. */
                r->skip_rows = lo;
                lo = 0;
            }
        }
        r->rg_bytes = 0;
        r->rg_rows = hi - lo;
        rc = pq_page_index_load(r, rg, lo, hi, &handled, &r->rg_rows, err);
        if (rc != SILT_OK)
            return err_context(err, "while reading the page index of row group %zu", rg_idx);
        if (handled && r->rg_rows == 0) {
            r->skipped++;
            continue;
        }
        if (!handled && lo == 0 && hi == rg->num_rows &&
            prefetch_row_group(r, rg, err) != SILT_OK)
            return SILT_NOMEM;
        for (k = 0; k < r->n_leaves && !handled; k++) {
            if (lo > 0 || hi < rg->num_rows)
                rc = pq_leaf_load_range(r, &r->leaves[k], rg, lo, hi, err);
            else
                rc = pq_leaf_load(r, &r->leaves[k], rg, err);
            r->rg_bytes += pq_leaf_bytes(&r->leaves[k]);
            if (rc != SILT_OK)
                return err_context(err, "while reading column \"%s\" of row group %zu",
                                   r->file->leaves[r->leaves[k].v->leaf_idx].path, rg_idx);
        }
        buf_truncate(&r->chunk, 0);
        r->rg_read++;
        r->rg_lo = lo;
        r->rg_file_row = 0;
        for (k = 0; k < rg_idx; k++)
            r->rg_file_row += meta->row_groups[k].num_rows;
        r->cur_rg = rg_idx;
        r->rg_row_pos = 0;
        r->rg_loaded = 1;
        return SILT_OK;
    }
    *done_out = 1;
    return SILT_OK;
}

/* Cuts the next batch of at most max_rows rows of the loaded row group into a. */
static silt_status next_batch(pq_reader *r, arena *a, int64_t max_rows, col_batch **out,
                              silt_error *err)
{
    col_batch *batch;
    int64_t n;
    size_t k;
    silt_status rc;
    n = r->rg_rows - r->rg_row_pos;
    if (n > max_rows)
        n = max_rows;
    for (k = 0; k < r->n_leaves; k++) {
        rc = pq_leaf_fill(r, &r->leaves[k], n, err);
        if (rc != SILT_OK)
            return err_context(err, "while reading column \"%s\" of row group %zu of Parquet "
                               "file \"%s\"", r->file->leaves[r->leaves[k].v->leaf_idx].path,
                               r->cur_rg, r->file->key);
    }
    batch = arena_calloc(a, 1, sizeof(*batch));
    if (batch == NULL)
        return err_nomem(err);
    rc = pq_assemble_batch(r, a, n, batch, err);
    if (rc != SILT_OK)
        return err_context(err, "while reading row group %zu of Parquet file \"%s\"", r->cur_rg,
                           r->file->key);
    r->batch_pos = r->rg_row_pos;
    r->batch_n = n;
    r->rg_row_pos += n;
    *out = batch;
    return SILT_OK;
}

/*
 * Drops the rows before a range whose row group was loaded from its start
 * (nested leaves): they are assembled and thrown away, batch by batch.
 */
static silt_status skip_leading_rows(pq_reader *r, silt_error *err)
{
    arena *scratch = arena_new(NULL, "parquet skipped rows");
    silt_status rc = SILT_OK;
    if (scratch == NULL)
        return err_nomem(err);
    while (rc == SILT_OK && r->skip_rows > 0) {
        col_batch *batch;
        int64_t n = r->skip_rows < r->batch_rows ? r->skip_rows : r->batch_rows;
        rc = next_batch(r, scratch, n, &batch, err);
        r->skip_rows -= n;
        arena_reset(scratch);
    }
    arena_free(scratch);
    return rc;
}

silt_status pq_reader_next(pq_reader *r, arena *a, col_batch **out, silt_error *err)
{
    silt_status rc;
    *out = NULL;
    while (!r->rg_loaded || r->rg_row_pos >= r->rg_rows) {
        int done;
        r->rg_loaded = 0;
        rc = load_next_row_group(r, &done, err);
        if (rc != SILT_OK)
            return err_context(err, "while reading Parquet file \"%s\"", r->file->key);
        if (done)
            return SILT_OK;
        if (r->skip_rows > 0)
            SILT_RETURN_IF_ERROR(skip_leading_rows(r, err));
    }
    return next_batch(r, a, r->batch_rows, out, err);
}
