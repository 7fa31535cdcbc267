/*
 * scan.c - snapshot rows through the Parquet reader. See scan.h.
 *
 * One file is open at a time. Per file the scan decides which file column
 * feeds each output column (or none: partition value, or null), opens a
 * Parquet reader over just those columns (and the options' span of the
 * file), with the pushed conjuncts as row-group and page filters on the
 * leaves that feed their columns, and loads the deletion vector. Each
 * Parquet batch is then conformed to the logical types, completed with
 * constant and null columns, and filtered by the deletion vector at the
 * rows' positions in the file, which the reader reports (row groups and
 * pages it skipped are not counted: positions are not a running count).
 */
#include "delta/scan.h"

#include <string.h>

#include "delta/dv.h"
#include "delta/partition.h"
#include "delta/protocol.h"
#include "formats/parquet/parquet.h"
#include "util/mem.h"

#define SCAN_SYNTH_BATCH_ROWS 8192

struct delta_scan {
    io_store *store;
    const delta_snapshot *snap;
    arena *arena; /* scan lifetime */
    arena *file_arena; /* reset per file */
    dproto_mapping_mode mode;
    const col_type *out_schema;
    size_t n_out;
    const col_field **logical;  /* per output column */
    const col_field **physical; /* same shape, physical names and ids */
    int *is_partition;
    int64_t batch_rows;
    const delta_scan_options *opts; /* copied into arena: preds, span, file, row index */
    int has_row_index;
    dscan_counters counters; /* of the files closed */
    /* The file being read. */
    size_t next_file;
    size_t files_read;
    const delta_file *file;
    pq_file *pq;
    pq_reader *reader;
    ddv_bitmap *dv;
    int64_t row_in_file;     /* position of the next row of a file read for its row count */
    int64_t synth_rows_left; /* files read for their row count only */
    dscan_filter filter;     /* the pushed conjuncts against this file's leaves */
    int *src_col;            /* per output column: reader column or -1 */
    delta_value *part_values; /* per output column */
};

static void close_file(delta_scan *scan)
{
    delta_scan_counters_add_reader(&scan->counters, scan->reader);
    pq_reader_free(scan->reader);
    if (scan->pq != scan->opts->file)
        pq_file_free(scan->pq);
    ddv_free(scan->dv);
    scan->reader = NULL;
    scan->pq = NULL;
    scan->dv = NULL;
    scan->file = NULL;
    arena_reset(scan->file_arena);
}

void delta_scan_free(delta_scan *scan)
{
    if (scan == NULL)
        return;
    close_file(scan);
    arena_free(scan->arena);
    mem_free(scan);
}

const col_type *delta_scan_schema(const delta_scan *scan) { return scan->out_schema; }

size_t delta_scan_files_read(const delta_scan *scan) { return scan->files_read; }

const char *delta_scan_current_path(const delta_scan *scan)
{
    return scan->file != NULL ? scan->file->path : NULL;
}

void delta_scan_get_counters(const delta_scan *scan, dscan_counters *out)
{
    *out = scan->counters;
    delta_scan_counters_add_reader(out, scan->reader);
    out->files = scan->files_read;
}

static int is_partition_column(const delta_snapshot *snap, const char *name)
{
    size_t idx;
    for (idx = 0; idx < snap->metadata.n_partition_columns; idx++)
        if (util_str_casecmp(snap->metadata.partition_columns[idx], name) == 0)
            return 1;
    return 0;
}

static silt_status pick_columns(delta_scan *scan, const col_type *physical,
                                const delta_scan_options *opts, silt_error *err)
{
    const col_type *logical = scan->snap->schema;
    size_t n = opts && opts->columns ? opts->n_columns : logical->n_fields;
    col_field *fields = arena_calloc(scan->arena, n + 1, sizeof(col_field));
    size_t out_idx, field_idx;
    scan->logical = arena_calloc(scan->arena, n ? n : 1, sizeof(col_field *));
    scan->physical = arena_calloc(scan->arena, n ? n : 1, sizeof(col_field *));
    scan->is_partition = arena_calloc(scan->arena, n ? n : 1, sizeof(int));
    scan->src_col = arena_calloc(scan->arena, n ? n : 1, sizeof(int));
    scan->part_values = arena_calloc(scan->arena, n ? n : 1, sizeof(delta_value));
    if (fields == NULL || scan->logical == NULL || scan->physical == NULL ||
        scan->is_partition == NULL || scan->src_col == NULL || scan->part_values == NULL)
        return err_nomem(err);
    for (out_idx = 0; out_idx < n; out_idx++) {
        if (opts && opts->columns) {
            for (field_idx = 0; field_idx < logical->n_fields; field_idx++)
                if (util_str_casecmp(logical->fields[field_idx].name, opts->columns[out_idx]) == 0)
                    break;
            if (field_idx == logical->n_fields)
                return err_set(err, SILT_NOTFOUND, "table has no column \"%s\"",
                               opts->columns[out_idx]);
        } else {
            field_idx = out_idx;
        }
        scan->logical[out_idx] = &logical->fields[field_idx];
        scan->physical[out_idx] = &physical->fields[field_idx];
        scan->is_partition[out_idx] = is_partition_column(scan->snap, logical->fields[field_idx].name);
        fields[out_idx] = logical->fields[field_idx];
    }
    scan->n_out = n;
    if (scan->has_row_index) {
        fields[n].name = arena_strdup(scan->arena, opts->row_index_column);
        fields[n].type = col_type_primitive(COL_LONG);
        fields[n].nullable = 0;
        fields[n].field_id = -1;
        if (fields[n].name == NULL)
            return err_nomem(err);
    }
    scan->out_schema = col_type_struct(scan->arena, n + (size_t)scan->has_row_index, fields);
    return scan->out_schema ? SILT_OK : err_nomem(err);
}

silt_status delta_scan_open(delta_scan **out, io_store *store, const delta_snapshot *snap,
                            const delta_scan_options *opts, silt_error *err)
{
    delta_scan *scan = mem_calloc(1, sizeof(*scan));
    const col_type *physical = NULL;
    silt_status rc;
    if (scan == NULL)
        return err_nomem(err);
    static const delta_scan_options defaults = DELTA_SCAN_OPTIONS_INIT;
    delta_scan_options *copy;
    scan->store = store;
    scan->snap = snap;
    scan->opts = &defaults;
    scan->batch_rows = opts ? opts->batch_rows : 0;
    scan->arena = arena_new(NULL, "delta scan");
    scan->file_arena = scan->arena ? arena_new(scan->arena, "delta scan file") : NULL;
    copy = scan->file_arena ? arena_alloc(scan->arena, sizeof(*copy)) : NULL;
    if (copy == NULL) {
        delta_scan_free(scan);
        return err_nomem(err);
    }
    *copy = opts ? *opts : defaults;
    scan->opts = copy;
    scan->has_row_index = copy->row_index_column != NULL;
    rc = dproto_check_readable(&snap->protocol, err);
    if (rc == SILT_OK)
        rc = dproto_get_mapping_mode(&snap->metadata, &scan->mode, err);
    if (rc == SILT_OK)
        rc = dproto_physical_schema(snap->schema, scan->mode, scan->arena, &physical, err);
    if (rc == SILT_OK)
        rc = pick_columns(scan, physical, opts, err);
    if (rc != SILT_OK) {
        delta_scan_free(scan);
        return rc;
    }
    *out = scan;
    return SILT_OK;
}

/* The field of `fields` the physical field names in a data file: by id in id mode, else by name. */
static int match_field(const col_type *file_type, const col_field *phys, dproto_mapping_mode mode)
{
    size_t idx;
    if (mode == DPROTO_MAPPING_ID && phys->field_id >= 0) {
        for (idx = 0; idx < file_type->n_fields; idx++)
            if (file_type->fields[idx].field_id == phys->field_id)
                return (int)idx;
    }
    for (idx = 0; idx < file_type->n_fields; idx++)
        if (strcmp(file_type->fields[idx].name, phys->name) == 0)
            return (int)idx;
    for (idx = 0; idx < file_type->n_fields; idx++)
        if (util_str_casecmp(file_type->fields[idx].name, phys->name) == 0)
            return (int)idx;
    return -1;
}

/* Rows of the file's span (scan unit) and the position of its first row. */
static void span_rows(const pq_file *pq, const pq_span *span, int64_t *first, int64_t *rows)
{
    const pq_file_meta *meta = pq_file_metadata(pq);
    size_t rg, end = meta->n_row_groups;
    *first = 0;
    *rows = 0;
    if (span->n_row_groups > 0 && span->first_row_group + span->n_row_groups < end)
        end = span->first_row_group + span->n_row_groups;
    for (rg = 0; rg < meta->n_row_groups; rg++) {
        int64_t n = meta->row_groups[rg].num_rows;
        if (rg < span->first_row_group) {
            *first += n;
        } else if (rg < end && span->n_rows > 0) {
            int64_t lo = span->first_row < n ? span->first_row : n;
            int64_t hi = span->n_rows < n - lo ? lo + span->n_rows : n;
            *first += lo;
            *rows = hi - lo;
            return;
        } else if (rg < end) {
            *rows += n;
        }
    }
    if (span->first_row_group == 0 && span->n_row_groups == 0 && span->n_rows == 0)
        *rows = pq_file_num_rows(pq); /* some writers leave row groups' counts at 0 */
}

/*
 * The pushed conjuncts against this file: each one's column is the file
 * leaf that feeds its output column (physical name), or none (partition
 * columns, columns the file lacks, columns not read).
 */
static silt_status build_filter(delta_scan *scan, const char *const *columns, silt_error *err)
{
    const char **leaves;
    size_t p, idx;
    scan->filter.preds = scan->opts->preds;
    scan->filter.n_preds = scan->opts->n_preds;
    scan->filter.leaves = NULL;
    if (scan->opts->n_preds == 0)
        return SILT_OK;
    leaves = arena_calloc(scan->file_arena, scan->opts->n_preds, sizeof(char *));
    if (leaves == NULL)
        return err_nomem(err);
    for (p = 0; p < scan->opts->n_preds; p++)
        for (idx = 0; idx < scan->n_out; idx++)
            if (scan->src_col[idx] >= 0 && scan->opts->preds[p].column != NULL &&
                util_str_casecmp(scan->logical[idx]->name, scan->opts->preds[p].column) == 0)
                leaves[p] = columns[scan->src_col[idx]];
    scan->filter.leaves = leaves;
    return SILT_OK;
}

static silt_status open_next_file(delta_scan *scan, silt_error *err)
{
    const delta_file *file = &scan->snap->files[scan->next_file++];
    const char **columns = NULL;
    size_t n_columns = 0, idx;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    const col_type *file_schema;
    silt_status rc;

    scan->file = file;
    scan->files_read++;
    scan->row_in_file = 0;
    if (scan->opts->file != NULL)
        scan->pq = scan->opts->file;
    else {
        io_store *store;
        const char *key;
        SILT_RETURN_IF_ERROR(delta_file_locate(scan->store, file->path, &store, &key, err));
        SILT_RETURN_IF_ERROR(delta_scan_missing_file(pq_file_open(&scan->pq, store, key, err),
                                                     scan->snap->version, err));
    }
    file_schema = pq_file_schema(scan->pq);
    columns = arena_calloc(scan->file_arena, scan->n_out ? scan->n_out : 1, sizeof(char *));
    if (columns == NULL)
        return err_nomem(err);
    for (idx = 0; idx < scan->n_out; idx++) {
        scan->src_col[idx] = -1;
        if (scan->is_partition[idx]) {
            const char *raw = dlog_map_get(&file->partition_values, scan->physical[idx]->name, NULL);
            rc = delta_value_parse(&scan->part_values[idx], scan->logical[idx]->type, raw,
                                   scan->logical[idx]->name, err);
            if (rc != SILT_OK)
                return rc;
            continue;
        }
        {
            int found = match_field(file_schema, scan->physical[idx], scan->mode);
            if (found >= 0) {
                scan->src_col[idx] = (int)n_columns;
                columns[n_columns++] = file_schema->fields[found].name;
            }
        }
    }
    if (file->dv.storage_type != 0)
        SILT_RETURN_IF_ERROR(ddv_load(&scan->dv, scan->store, &file->dv, err));
    if (n_columns == 0) {
        /* Only partition or missing columns: the file (its span) gives its row count. */
        span_rows(scan->pq, &scan->opts->span, &scan->row_in_file, &scan->synth_rows_left);
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(build_filter(scan, columns, err));
    /* The reader returns columns in the order named (pq_read_options), so src_col
     * already indexes its batch, whatever the file's own column order. */
    opts.columns = columns;
    opts.n_columns = n_columns;
    opts.batch_rows = scan->batch_rows;
    if (scan->filter.n_preds > 0) {
        opts.filter = delta_scan_row_group_filter;
        opts.filter_payload = &scan->filter;
        opts.page_filter = delta_scan_page_filter;
        opts.page_filter_payload = &scan->filter;
    }
    opts.first_row_group = scan->opts->span.first_row_group;
    opts.n_row_groups = scan->opts->span.n_row_groups;
    opts.first_row = scan->opts->span.first_row;
    opts.n_rows = scan->opts->span.n_rows;
    return pq_reader_open(&scan->reader, scan->pq, &opts, err);
}

/* ---- conforming file vectors to the table's types ----------------------- */

static silt_status conform(col_vec **out, arena *a, const col_vec *src, const col_type *ltype,
                           const col_type *ptype, dproto_mapping_mode mode, const char *name,
                           silt_error *err);

static silt_status shallow_copy(col_vec **out, arena *a, const col_vec *src, const col_type *type,
                                silt_error *err)
{
    col_vec *copy = arena_alloc(a, sizeof(*copy));
    if (copy == NULL)
        return err_nomem(err);
    *copy = *src;
    copy->type = type;
    *out = copy;
    return SILT_OK;
}

static int64_t int_value(const col_vec *src, int64_t row)
{
    switch (src->type->id) {
    case COL_BYTE: return ((const int8_t *)src->values)[row];
    case COL_SHORT: return ((const int16_t *)src->values)[row];
    case COL_INT:
    case COL_DATE: return ((const int32_t *)src->values)[row];
    default: return ((const int64_t *)src->values)[row];
    }
}

static int is_integer(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG;
}

/* PROTOCOL: Type Widening. Values are converted, nulls kept. */
static silt_status widen(col_vec **out, arena *a, const col_vec *src, const col_type *ltype,
                         const char *name, silt_error *err)
{
    col_type_id from = src->type->id, to = ltype->id;
    col_vec *dst;
    int64_t row;
    if ((from == COL_TIMESTAMP && to == COL_TIMESTAMP_NTZ) ||
        (from == COL_TIMESTAMP_NTZ && to == COL_TIMESTAMP) ||
        (from == COL_STRING && to == COL_BINARY) || (from == COL_BINARY && to == COL_STRING))
        return shallow_copy(out, a, src, ltype, err);
    SILT_RETURN_IF_ERROR(col_vec_new(&dst, a, ltype, src->length, 0, err));
    dst->validity = src->validity;
    dst->null_count = src->null_count;
    if (is_integer(from) && (to == COL_SHORT || to == COL_INT || to == COL_LONG) &&
        col_type_value_width(to) >= col_type_value_width(from)) {
        for (row = 0; row < src->length; row++) {
            int64_t v = int_value(src, row);
            if (to == COL_SHORT)
                ((int16_t *)dst->values)[row] = (int16_t)v;
            else if (to == COL_INT)
                ((int32_t *)dst->values)[row] = (int32_t)v;
            else
                ((int64_t *)dst->values)[row] = v;
        }
    } else if ((is_integer(from) || from == COL_FLOAT) && to == COL_DOUBLE) {
        for (row = 0; row < src->length; row++)
            ((double *)dst->values)[row] = from == COL_FLOAT ? (double)((const float *)src->values)[row]
                                                             : (double)int_value(src, row);
    } else if (from == COL_DATE && to == COL_TIMESTAMP_NTZ) {
        for (row = 0; row < src->length; row++)
            ((int64_t *)dst->values)[row] = int_value(src, row) * INT64_C(86400000000);
    } else if ((is_integer(from) || from == COL_DECIMAL) && to == COL_DECIMAL) {
        int32_t from_scale = from == COL_DECIMAL ? src->type->scale : 0;
        col_int128 factor = 1;
        int32_t step;
        if (ltype->scale < from_scale)
            goto refuse;
        for (step = from_scale; step < ltype->scale; step++)
            factor *= 10;
        for (row = 0; row < src->length; row++) {
            col_int128 v = from == COL_DECIMAL ? ((const col_int128 *)src->values)[row]
                                               : (col_int128)int_value(src, row);
            ((col_int128 *)dst->values)[row] = v * factor;
        }
    } else {
        goto refuse;
    }
    *out = dst;
    return SILT_OK;
refuse:
    {
        buf want = BUF_INIT, have = BUF_INIT;
        col_type_format(ltype, &want, NULL);
        col_type_format(src->type, &have, NULL);
        err_set(err, SILT_CORRUPT, "column \"%s\" is %s in the data file but %s in the table",
                name, buf_cstr(&have), buf_cstr(&want));
        buf_clear(&want);
        buf_clear(&have);
        return SILT_CORRUPT;
    }
}

static silt_status conform_struct(col_vec **out, arena *a, const col_vec *src,
                                  const col_type *ltype, const col_type *ptype,
                                  dproto_mapping_mode mode, const char *name, silt_error *err)
{
    col_vec *dst = arena_calloc(a, 1, sizeof(*dst));
    size_t idx;
    if (dst == NULL)
        return err_nomem(err);
    dst->type = ltype;
    dst->length = src->length;
    dst->validity = src->validity;
    dst->null_count = src->null_count;
    dst->n_children = ltype->n_fields;
    dst->children = arena_calloc(a, ltype->n_fields ? ltype->n_fields : 1, sizeof(col_vec *));
    if (dst->children == NULL)
        return err_nomem(err);
    for (idx = 0; idx < ltype->n_fields; idx++) {
        int found = match_field(src->type, &ptype->fields[idx], mode);
        if (found < 0)
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&dst->children[idx], a, ltype->fields[idx].type,
                                                   src->length, err));
        else
            SILT_RETURN_IF_ERROR(conform(&dst->children[idx], a, src->children[found],
                                         ltype->fields[idx].type, ptype->fields[idx].type, mode,
                                         ltype->fields[idx].name, err));
    }
    *out = dst;
    return SILT_OK;
}

static silt_status conform(col_vec **out, arena *a, const col_vec *src, const col_type *ltype,
                           const col_type *ptype, dproto_mapping_mode mode, const char *name,
                           silt_error *err)
{
    col_vec *dst = NULL;
    size_t idx;
    if (ltype->id == COL_STRUCT) {
        if (src->type->id != COL_STRUCT)
            return err_set(err, SILT_CORRUPT, "column \"%s\" is not a struct in the data file", name);
        return conform_struct(out, a, src, ltype, ptype, mode, name, err);
    }
    if (ltype->id == COL_ARRAY || ltype->id == COL_MAP) {
        if (src->type->id != ltype->id)
            return err_set(err, SILT_CORRUPT, "column \"%s\" is not %s in the data file", name,
                           ltype->id == COL_ARRAY ? "an array" : "a map");
        SILT_RETURN_IF_ERROR(shallow_copy(&dst, a, src, ltype, err));
        dst->children = arena_calloc(a, src->n_children ? src->n_children : 1, sizeof(col_vec *));
        if (dst->children == NULL)
            return err_nomem(err);
        for (idx = 0; idx < src->n_children && idx < ltype->n_fields; idx++)
            SILT_RETURN_IF_ERROR(conform(&dst->children[idx], a, src->children[idx],
                                         ltype->fields[idx].type, ptype->fields[idx].type, mode,
                                         name, err));
        *out = dst;
        return SILT_OK;
    }
    if (src->type->id == ltype->id &&
        (ltype->id != COL_DECIMAL ||
         (src->type->precision == ltype->precision && src->type->scale == ltype->scale)))
        return shallow_copy(out, a, src, ltype, err);
    return widen(out, a, src, ltype, name, err);
}

/* ---- batches ----------------------------------------------------------------- */

static silt_status assemble(delta_scan *scan, arena *a, const col_batch *src, int64_t n_rows,
                            col_batch **out, silt_error *err)
{
    col_batch *batch = arena_calloc(a, 1, sizeof(*batch));
    size_t idx;
    if (batch == NULL)
        return err_nomem(err);
    batch->schema = scan->out_schema;
    batch->n_rows = n_rows;
    batch->n_cols = scan->n_out + (size_t)scan->has_row_index;
    batch->cols = arena_calloc(a, scan->n_out + 1, sizeof(col_vec *));
    if (batch->cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < scan->n_out; idx++) {
        const col_field *field = scan->logical[idx];
        if (scan->is_partition[idx])
            SILT_RETURN_IF_ERROR(delta_value_fill(&batch->cols[idx], a, field->type,
                                                  &scan->part_values[idx], n_rows, err));
        else if (scan->src_col[idx] >= 0)
            SILT_RETURN_IF_ERROR(conform(&batch->cols[idx], a, src->cols[scan->src_col[idx]],
                                         field->type, scan->physical[idx]->type, scan->mode,
                                         field->name, err));
        else
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&batch->cols[idx], a, field->type, n_rows, err));
    }
    *out = batch;
    return SILT_OK;
}

/*
 * Positions in the file of the batch's n rows: from the reader, which
 * knows which row groups, ranges and pages it left unread, or counted on
 * from the span's first row for a file read for its row count.
 */
static silt_status row_positions(delta_scan *scan, arena *a, int64_t n, int64_t **out,
                                 silt_error *err)
{
    int64_t *pos = arena_alloc(a, (size_t)(n ? n : 1) * sizeof(int64_t)), row;
    if (pos == NULL)
        return err_nomem(err);
    if (scan->reader != NULL) {
        pq_reader_row_positions(scan->reader, pos);
    } else {
        for (row = 0; row < n; row++)
            pos[row] = scan->row_in_file + row;
    }
    *out = pos;
    return SILT_OK;
}

/* Drops the rows of the batch that the file's deletion vector marks, by row position. */
static silt_status apply_dv(delta_scan *scan, arena *a, const int64_t *pos, col_batch **batch,
                            silt_error *err)
{
    int64_t n = (*batch)->n_rows, row, run;
    size_t n_deleted = 0;
    uint8_t *keep;
    if (scan->dv == NULL || n == 0)
        return SILT_OK;
    keep = arena_alloc(a, (size_t)n);
    if (keep == NULL)
        return err_nomem(err);
    /* Runs of consecutive positions are marked at once (pages skipped break runs). */
    for (row = 0; row < n; row += run) {
        for (run = 1; row + run < n && pos[row + run] == pos[row] + run; run++)
            ;
        n_deleted += ddv_mark_range(scan->dv, (uint64_t)pos[row], (size_t)run, keep + row);
    }
    if (n_deleted == 0) /* most batches of a file with a few deleted rows: no copy */
        return SILT_OK;
    for (row = 0; row < n; row++)
        keep[row] = !keep[row];
    return col_batch_filter(batch, a, *batch, keep, err);
}

/* The row index column of the batch: the positions themselves. */
static silt_status add_row_index(delta_scan *scan, arena *a, const int64_t *pos,
                                 col_batch *batch, silt_error *err)
{
    col_vec *v;
    SILT_RETURN_IF_ERROR(col_vec_new(&v, a, col_type_primitive(COL_LONG), batch->n_rows, 0, err));
    memcpy(v->values, pos, (size_t)batch->n_rows * sizeof(int64_t));
    batch->cols[scan->n_out] = v;
    return SILT_OK;
}

static silt_status next_from_file(delta_scan *scan, arena *a, col_batch **out, silt_error *err)
{
    col_batch *src = NULL;
    int64_t n_rows, *pos = NULL;
    *out = NULL;
    if (scan->reader != NULL) {
        SILT_RETURN_IF_ERROR(pq_reader_next(scan->reader, a, &src, err));
        if (src == NULL)
            return SILT_OK;
        n_rows = src->n_rows;
    } else {
        if (scan->synth_rows_left <= 0)
            return SILT_OK;
        n_rows = scan->synth_rows_left < SCAN_SYNTH_BATCH_ROWS ? scan->synth_rows_left
                                                               : SCAN_SYNTH_BATCH_ROWS;
        scan->synth_rows_left -= n_rows;
    }
    SILT_RETURN_IF_ERROR(assemble(scan, a, src, n_rows, out, err));
    if (scan->dv != NULL || scan->has_row_index)
        SILT_RETURN_IF_ERROR(row_positions(scan, a, n_rows, &pos, err));
    if (scan->has_row_index)
        SILT_RETURN_IF_ERROR(add_row_index(scan, a, pos, *out, err));
    SILT_RETURN_IF_ERROR(apply_dv(scan, a, pos, out, err));
    scan->row_in_file += n_rows;
    return SILT_OK;
}

silt_status delta_scan_next(delta_scan *scan, arena *a, col_batch **out, silt_error *err)
{
    *out = NULL;
    for (;;) {
        silt_status rc;
        if (scan->file == NULL) {
            if (scan->next_file >= scan->snap->n_files)
                return SILT_OK;
            rc = open_next_file(scan, err);
        } else {
            rc = next_from_file(scan, a, out, err);
            if (rc == SILT_OK && *out == NULL) {
                close_file(scan);
                continue;
            }
        }
        if (rc != SILT_OK) {
            err_context(err, "while reading data file \"%s\"", scan->file ? scan->file->path : "?");
            return rc;
        }
        if (*out != NULL && (*out)->n_rows > 0)
            return SILT_OK;
    }
}

silt_status delta_scan_missing_file(silt_status rc, int64_t version, silt_error *err)
{
    if (rc == SILT_NOTFOUND)
        err_context(err, "[FAILED_READ_FILE.FILE_NOT_EXIST] a data file of version %lld is gone: "
                    "VACUUM deletes the files of versions older than the table's retention "
                    "(delta.deletedFileRetentionDuration), so this version can no longer be read",
                    (long long)version);
    return rc;
}
