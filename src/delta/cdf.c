/*
 * cdf.c - the change data feed reader (cdf.h).
 *
 * PROTOCOL: Change Data Files. Each commit of the range is parsed when the
 * reader reaches it into a list of units, a file each with how to read it
 * (a cdc file with its own _change_type column; an add or remove file read
 * whole as inserts or deletes; the rows of a file whose deletion state a
 * deletion vector update changed). A unit is read through delta_scan over
 * a one-file copy of the schema snapshot, so column mapping, partition
 * values, missing columns, type widening and deletion vectors are the ones
 * of an ordinary scan; the change columns are appended as constants.
 */
#include "delta/cdf.h"

#include <stdio.h>
#include <string.h>

#include "delta/dv.h"
#include "delta/log.h"
#include "delta/partition.h"
#include "delta/scan.h"
#include "util/mem.h"
#include "util/time.h"

/* The scan column of a deletion vector update's rows: their position in the file. */
#define CDF_ROW_INDEX "_cdf_row_index"

typedef enum cdf_unit_kind {
    CDF_UNIT_CDC,    /* a change file: rows and _change_type from the file */
    CDF_UNIT_ADD,    /* inserts: the file's live rows */
    CDF_UNIT_REMOVE, /* deletes: the file's rows live before the remove */
    CDF_UNIT_DV_DIFF /* rows in `in` and not in `out` of a deletion vector update */
} cdf_unit_kind;

typedef struct cdf_unit {
    cdf_unit_kind kind;
    const char *change_type; /* NULL for CDF_UNIT_CDC */
    delta_file file;         /* the scan's view: dv applied by the scan (none for DV_DIFF) */
    dlog_dv in, out;         /* DV_DIFF: rows deleted by `in` and not by `out` */
} cdf_unit;

struct delta_cdf {
    io_store *store;
    const delta_snapshot *schema_snap;
    delta_cdf_options opts;
    arena *arena;        /* reader lifetime */
    arena *commit_arena; /* the commit being read: its actions and units */
    const col_type *schema;     /* output */
    const col_type *cdc_schema; /* table columns + _change_type, for change files */
    int64_t *times_ms;          /* per version of the range */
    int64_t next_version;
    /* The commit being read. */
    int64_t version;
    cdf_unit *units;
    size_t n_units, cap_units, next_unit;
    /* The unit being read. */
    const cdf_unit *unit;
    delta_snapshot one; /* schema_snap with the unit's file only */
    delta_scan *scan;
    ddv_bitmap *dv_in, *dv_out;
    size_t files_read;
};

/* ---- schemas ------------------------------------------------------------------------------ */

static col_field extra_field(const char *name, col_type_id type)
{
    col_field f;
    memset(&f, 0, sizeof(f));
    f.name = name;
    f.type = col_type_primitive(type);
    f.nullable = 1;
    f.field_id = -1;
    /* Change files name the column so under column mapping too (it is not a table column). */
    f.metadata_json = "{\"delta.columnMapping.physicalName\":\"" DELTA_CDF_CHANGE_TYPE "\"}";
    return f;
}

/* table_schema's fields plus the first n_extra of the three change columns. */
static silt_status with_change_columns(arena *a, const col_type *table_schema, size_t n_extra,
                                       const col_type **out, silt_error *err)
{
    size_t n = table_schema->n_fields;
    col_field *fields = arena_calloc(a, n + 3, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    if (n > 0)
        memcpy(fields, table_schema->fields, n * sizeof(col_field));
    fields[n] = extra_field(DELTA_CDF_CHANGE_TYPE, COL_STRING);
    fields[n + 1] = extra_field(DELTA_CDF_COMMIT_VERSION, COL_LONG);
    fields[n + 2] = extra_field(DELTA_CDF_COMMIT_TIMESTAMP, COL_TIMESTAMP);
    fields[n + 1].metadata_json = NULL;
    fields[n + 2].metadata_json = NULL;
    *out = col_type_struct(a, n + n_extra, fields);
    return *out != NULL ? SILT_OK : err_nomem(err);
}

silt_status delta_cdf_row_schema(arena *a, const col_type *table_schema, const col_type **out,
                                 silt_error *err)
{
    return with_change_columns(a, table_schema, 3, out, err);
}

/* ---- commit times ------------------------------------------------------------------------- */

/* The first version with in-commit timestamps (PROTOCOL: In-Commit Timestamps), or INT64_MAX. */
static int64_t ict_from(const delta_snapshot *snap)
{
    const char *on = delta_snapshot_property(snap, "delta.enableInCommitTimestamps");
    const char *since = delta_snapshot_property(snap, "delta.inCommitTimestampEnablementVersion");
    int64_t v = 0;
    if (on == NULL || util_str_casecmp(on, "true") != 0)
        return INT64_MAX;
    if (since != NULL && !util_str_to_int64(since, strlen(since), &v))
        return INT64_MAX;
    return v;
}

/* Whether the change data feed is on in a metaData's configuration. */
static int cdf_enabled(const dlog_metadata *md)
{
    const char *v = dlog_map_get(&md->configuration, "delta.enableChangeDataFeed", NULL);
    return v != NULL && util_str_casecmp(v, "true") == 0;
}

/*
 * The commits of a listing (indexes into listing->files, ascending) and their times
 * made monotonic over the listing (dlog_listing_commit_times).
 */
typedef struct commit_times {
    size_t n;
    size_t *idx;
    int64_t *ms;
} commit_times;

static void commit_times_clear(commit_times *t)
{
    mem_free(t->idx);
    mem_free(t->ms);
}

static silt_status commit_times_of(const dlog_listing *listing, commit_times *out,
                                   silt_error *err)
{
    size_t f;
    memset(out, 0, sizeof(*out));
    out->idx = mem_calloc(listing->n_files + 1, sizeof(size_t));
    out->ms = mem_calloc(listing->n_files + 1, sizeof(int64_t));
    if (out->idx == NULL || out->ms == NULL) {
        commit_times_clear(out);
        return err_nomem(err);
    }
    dlog_listing_commit_times(listing, out->ms);
    for (f = 0; f < listing->n_files; f++)
        if (listing->files[f].kind == DLOG_FILE_COMMIT) {
            out->ms[out->n] = out->ms[f];
            out->idx[out->n++] = f;
        }
    return SILT_OK;
}

/* Time of the k-th commit: its inCommitTimestamp from ict_version on, else its file time. */
static silt_status time_of(io_store *store, const dlog_listing *listing, const commit_times *t,
                           size_t k, int64_t ict_version, int64_t *out, silt_error *err)
{
    const dlog_file *commit = &listing->files[t->idx[k]];
    if (commit->version >= ict_version)
        return delta_snapshot_commit_ict(store, commit->key, out, err);
    *out = t->ms[k];
    return SILT_OK;
}

/* A time as Delta's errors print a java.sql.Timestamp ("2024-01-01 10:00:00.123"). */
static void java_timestamp_text(int64_t ms, char *out, size_t cap)
{
    size_t len = time_format_timestamp(ms * 1000, ' ', 3, 0, out, cap);
    while (len > 2 && out[len - 1] == '0' && out[len - 2] != '.')
        out[--len] = '\0';
}

/*
 * The newest commit whose time is <= ts_ms (times increase with versions, so a binary
 * search): *k_out = its position, or -1 when every commit is later; *time_out its time.
 */
static silt_status commit_at(io_store *store, const dlog_listing *listing, const commit_times *t,
                             int64_t ict_version, int64_t ts_ms, int64_t *k_out,
                             int64_t *time_out, silt_error *err)
{
    int64_t lo = 0, hi = (int64_t)t->n - 1;
    *k_out = -1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2, ms;
        SILT_RETURN_IF_ERROR(time_of(store, listing, t, (size_t)mid, ict_version, &ms, err));
        if (ms <= ts_ms) {
            *k_out = mid;
            *time_out = ms;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return SILT_OK;
}

/* PROTOCOL-adjacent: Delta's getVersionForCDC for a timestamp bound. */
static silt_status version_at(io_store *store, const dlog_listing *listing, const commit_times *t,
                              int64_t ict_version, int64_t ts_micros, int is_start,
                              int64_t *out, silt_error *err)
{
    int64_t ts_ms = time_floor_div(ts_micros, 1000), k, at = 0, last_ms;
    char when[64], latest[64];
    if (t->n == 0)
        return err_set(err, SILT_CORRUPT, "the log of \"%s\" lists no commit",
                       io_store_root(store));
    SILT_RETURN_IF_ERROR(commit_at(store, listing, t, ict_version, ts_ms, &k, &at, err));
    if (k < 0 && is_start) { /* before every commit: the earliest one */
        *out = listing->files[t->idx[0]].version;
        return SILT_OK;
    }
    if (k < 0) {
        int64_t first_ms;
        SILT_RETURN_IF_ERROR(time_of(store, listing, t, 0, ict_version, &first_ms, err));
        java_timestamp_text(ts_ms, when, sizeof(when));
        java_timestamp_text(first_ms, latest, sizeof(latest));
        return err_set(err, SILT_INVALID, "[DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION] The "
                       "provided timestamp (%s) is before the earliest version available to "
                       "this table (%s). Please use a timestamp after %s.", when, latest, latest);
    }
    *out = listing->files[t->idx[k]].version;
    if ((size_t)k == t->n - 1 && at < ts_ms) {
        last_ms = at;
        java_timestamp_text(ts_ms, when, sizeof(when));
        java_timestamp_text(last_ms, latest, sizeof(latest));
        return err_set(err, SILT_INVALID, "[DELTA_TIMESTAMP_GREATER_THAN_COMMIT] The provided "
                       "timestamp (%s) is after the latest version available to this table "
                       "(%s). Please use a timestamp before or at %s.", when, latest, latest);
    }
    if (is_start && at < ts_ms)
        (*out)++; /* the first commit at or after the time */
    return SILT_OK;
}

silt_status delta_cdf_resolve(io_store *store, const delta_snapshot *latest,
                              const delta_cdf_bound *start, const delta_cdf_bound *end,
                              int64_t *start_out, int64_t *end_out, silt_error *err)
{
    dlog_listing listing = DLOG_LISTING_INIT;
    commit_times t;
    int64_t ict_version = ict_from(latest);
    silt_status rc = SILT_OK;
    memset(&t, 0, sizeof(t));
    if (start->kind == DELTA_CDF_BOUND_NONE)
        return err_set(err, SILT_INVALID, "[DELTA_NO_START_FOR_CDC_READ] No startingVersion or "
                       "startingTimestamp provided for CDC read.");
    if (start->kind == DELTA_CDF_BOUND_TIMESTAMP || end->kind == DELTA_CDF_BOUND_TIMESTAMP) {
        rc = dlog_list(&listing, store, -1, err);
        if (rc == SILT_OK)
            rc = commit_times_of(&listing, &t, err);
        if (rc != SILT_OK)
            goto done;
    }
    *start_out = start->version;
    if (start->kind == DELTA_CDF_BOUND_TIMESTAMP)
        rc = version_at(store, &listing, &t, ict_version, start->ts_micros, 1, start_out, err);
    if (rc != SILT_OK)
        goto done;
    if (*start_out > latest->version) {
        rc = err_set(err, SILT_INVALID, "[DELTA_INVALID_CDC_RANGE] Provided Start version(%lld) "
                     "for reading change data is invalid. Start version cannot be greater than "
                     "the latest version of the table(%lld).", (long long)*start_out,
                     (long long)latest->version);
        goto done;
    }
    *end_out = latest->version;
    if (end->kind == DELTA_CDF_BOUND_VERSION)
        *end_out = end->version;
    else if (end->kind == DELTA_CDF_BOUND_TIMESTAMP)
        rc = version_at(store, &listing, &t, ict_version, end->ts_micros, 0, end_out, err);
    if (rc != SILT_OK)
        goto done;
    if (*end_out < *start_out) {
        rc = err_set(err, SILT_INVALID, "[DELTA_INVALID_CDC_RANGE] CDC range from start %lld to "
                     "end %lld was invalid. End cannot be before start.", (long long)*start_out,
                     (long long)*end_out);
        goto done;
    }
    if (*end_out > latest->version)
        *end_out = latest->version;
done:
    commit_times_clear(&t);
    dlog_listing_clear(&listing);
    return rc;
}

/* ---- opening ------------------------------------------------------------------------------ */

static silt_status missing_change_data(int64_t version, const delta_cdf_options *o,
                                       silt_error *err)
{
    return err_set(err, SILT_INVALID, "[DELTA_MISSING_CHANGE_DATA] Error getting change data "
                   "for range [%lld , %lld] as change data was not recorded for version [%lld]. "
                   "If you've enabled change data feed on this table, use `DESCRIBE HISTORY` to "
                   "see when it was first enabled. Otherwise, to start recording change data, "
                   "use `ALTER TABLE table_name SET TBLPROPERTIES "
                   "(delta.enableChangeDataFeed=true)`.", (long long)o->start_version,
                   (long long)o->end_version, (long long)version);
}

/*
 * The commit times of the range: file times made monotonic from the start version on, as
 * DeltaHistoryManager.getCommits(start, end + 1) does; in-commit timestamps are taken when
 * each commit is read.
 */
static silt_status range_times(delta_cdf *c, const dlog_listing *listing, silt_error *err)
{
    int64_t n = c->opts.end_version - c->opts.start_version + 1, v, prev = INT64_MIN;
    c->times_ms = arena_calloc(c->arena, (size_t)n, sizeof(int64_t));
    if (c->times_ms == NULL)
        return err_nomem(err);
    for (v = c->opts.start_version; v <= c->opts.end_version; v++) {
        const dlog_file *commit = dlog_listing_commit(listing, v);
        int64_t ms;
        if (commit == NULL)
            return err_set(err, SILT_NOTFOUND, "[DELTA_LOG_FILE_NOT_FOUND] Unable to retrieve "
                           "the delta log files to construct table version %lld (its commit was "
                           "cleaned up; available versions: [%lld, %lld]).", (long long)v,
                           (long long)listing->earliest_version,
                           (long long)listing->latest_version);
        ms = time_floor_div(commit->mtime_micros, 1000);
        if (prev != INT64_MIN && ms <= prev)
            ms = prev + 1;
        c->times_ms[v - c->opts.start_version] = prev = ms;
    }
    return SILT_OK;
}

static silt_status check_start(delta_cdf *c, silt_error *err)
{
    delta_snapshot *start = NULL;
    silt_status rc = delta_snapshot_load(&start, c->store, c->opts.start_version, err);
    if (rc == SILT_OK && !cdf_enabled(&start->metadata))
        rc = missing_change_data(c->opts.start_version, &c->opts, err);
    delta_snapshot_free(start);
    return rc;
}

silt_status delta_cdf_open(delta_cdf **out, io_store *store, const delta_snapshot *schema_snap,
                           const delta_cdf_options *opts, silt_error *err)
{
    delta_cdf *c = mem_calloc(1, sizeof(*c));
    dlog_listing listing = DLOG_LISTING_INIT;
    silt_status rc;
    *out = NULL;
    if (c == NULL)
        return err_nomem(err);
    c->store = store;
    c->schema_snap = schema_snap;
    c->opts = *opts;
    c->next_version = opts->start_version;
    c->arena = arena_new(NULL, "delta cdf");
    c->commit_arena = c->arena ? arena_new(c->arena, "delta cdf commit") : NULL;
    if (c->commit_arena == NULL) {
        delta_cdf_free(c);
        return err_nomem(err);
    }
    if (opts->start_version < 0 || opts->end_version < opts->start_version ||
        opts->end_version > schema_snap->version)
        rc = err_set(err, SILT_INVALID, "change data range %lld..%lld is outside versions "
                     "0..%lld", (long long)opts->start_version, (long long)opts->end_version,
                     (long long)schema_snap->version);
    else
        rc = with_change_columns(c->arena, schema_snap->schema, 3, &c->schema, err);
    if (rc == SILT_OK)
        rc = with_change_columns(c->arena, schema_snap->schema, 1, &c->cdc_schema, err);
    if (rc == SILT_OK)
        rc = dlog_list(&listing, store, opts->start_version - 1, err);
    if (rc == SILT_OK)
        rc = range_times(c, &listing, err);
    if (rc == SILT_OK)
        rc = check_start(c, err);
    dlog_listing_clear(&listing);
    if (rc != SILT_OK) {
        delta_cdf_free(c);
        return rc;
    }
    *out = c;
    return SILT_OK;
}

const col_type *delta_cdf_schema(const delta_cdf *cdf) { return cdf->schema; }

size_t delta_cdf_files_read(const delta_cdf *cdf) { return cdf->files_read; }

static void close_unit(delta_cdf *c)
{
    delta_scan_free(c->scan);
    ddv_free(c->dv_in);
    ddv_free(c->dv_out);
    c->scan = NULL;
    c->dv_in = c->dv_out = NULL;
    c->unit = NULL;
}

void delta_cdf_free(delta_cdf *cdf)
{
    if (cdf == NULL)
        return;
    close_unit(cdf);
    arena_free(cdf->arena);
    mem_free(cdf);
}

/* ---- one commit's units ------------------------------------------------------------------- */

/* The actions of one commit that matter here, in log order. */
typedef struct commit_actions {
    delta_cdf *c;
    size_t n, cap;
    dlog_action *items;
    size_t n_cdc;
    int has_ict;
    int64_t ict_ms;
} commit_actions;

static silt_status keep_action(const dlog_action *action, void *payload, silt_error *err)
{
    commit_actions *ca = payload;
    switch (action->type) {
    case DLOG_COMMIT_INFO:
        if (action->u.commit_info.has_in_commit_timestamp && !ca->has_ict) {
            ca->has_ict = 1;
            ca->ict_ms = action->u.commit_info.in_commit_timestamp;
        }
        return SILT_OK;
    case DLOG_METADATA:
        if (!cdf_enabled(&action->u.metadata))
            return missing_change_data(ca->c->version, &ca->c->opts, err);
        return SILT_OK;
    case DLOG_CDC: ca->n_cdc++; break;
    case DLOG_ADD:
        if (!action->u.add.data_change)
            return SILT_OK;
        break;
    case DLOG_REMOVE:
        if (!action->u.remove.data_change)
            return SILT_OK;
        break;
    default: return SILT_OK;
    }
    if (ca->n == ca->cap) {
        size_t cap = ca->cap ? ca->cap * 2 : 16;
        dlog_action *items = arena_alloc(ca->c->commit_arena, cap * sizeof(*items));
        if (items == NULL)
            return err_nomem(err);
        if (ca->n > 0)
            memcpy(items, ca->items, ca->n * sizeof(*items));
        ca->items = items;
        ca->cap = cap;
    }
    ca->items[ca->n++] = *action;
    return SILT_OK;
}

static silt_status push_unit(delta_cdf *c, const cdf_unit *u, silt_error *err)
{
    if (c->n_units == c->cap_units) {
        size_t cap = c->cap_units ? c->cap_units * 2 : 16;
        cdf_unit *units = arena_alloc(c->commit_arena, cap * sizeof(*units));
        if (units == NULL)
            return err_nomem(err);
        if (c->n_units > 0)
            memcpy(units, c->units, c->n_units * sizeof(*units));
        c->units = units;
        c->cap_units = cap;
    }
    c->units[c->n_units++] = *u;
    return SILT_OK;
}

static int same_dv(const dlog_dv *a, const dlog_dv *b)
{
    if (a->storage_type != b->storage_type)
        return 0;
    if (a->storage_type == 0)
        return 1;
    return a->offset == b->offset && a->path_or_inline_dv != NULL &&
           b->path_or_inline_dv != NULL && strcmp(a->path_or_inline_dv, b->path_or_inline_dv) == 0;
}

static void file_of_add(const dlog_add *add, delta_file *f)
{
    memset(f, 0, sizeof(*f));
    f->path = add->path;
    f->partition_values = add->partition_values;
    f->size = add->size;
    f->dv = add->dv;
}

static void file_of_remove(const dlog_remove *rm, delta_file *f)
{
    memset(f, 0, sizeof(*f));
    f->path = rm->path;
    f->partition_values = rm->partition_values;
    f->size = rm->has_size ? rm->size : 0;
    f->dv = rm->dv;
}

/* The remove of path among the actions, or NULL. */
static const dlog_remove *remove_of(const commit_actions *ca, const char *path)
{
    size_t idx;
    for (idx = 0; idx < ca->n; idx++)
        if (ca->items[idx].type == DLOG_REMOVE && strcmp(ca->items[idx].u.remove.path, path) == 0)
            return &ca->items[idx].u.remove;
    return NULL;
}

static int has_add_of(const commit_actions *ca, const char *path)
{
    size_t idx;
    for (idx = 0; idx < ca->n; idx++)
        if (ca->items[idx].type == DLOG_ADD && strcmp(ca->items[idx].u.add.path, path) == 0)
            return 1;
    return 0;
}

/*
 * A file removed and added again in one commit with another deletion vector: the rows
 * the new vector deletes that the old did not are deletes, the rows the old one deleted
 * that the new does not are inserts (Delta's CDCReader: deletion vector updates).
 */
static silt_status dv_update_units(delta_cdf *c, const dlog_add *add, const dlog_remove *rm,
                                   silt_error *err)
{
    cdf_unit u;
    if (same_dv(&add->dv, &rm->dv))
        return SILT_OK;
    memset(&u, 0, sizeof(u));
    u.kind = CDF_UNIT_DV_DIFF;
    file_of_add(add, &u.file);
    u.file.dv.storage_type = 0;
    if (add->dv.storage_type != 0) {
        u.change_type = "delete";
        u.in = add->dv;
        u.out = rm->dv;
        SILT_RETURN_IF_ERROR(push_unit(c, &u, err));
    }
    if (rm->dv.storage_type != 0) {
        u.change_type = "insert";
        u.in = rm->dv;
        u.out = add->dv;
        SILT_RETURN_IF_ERROR(push_unit(c, &u, err));
    }
    return SILT_OK;
}

static silt_status build_units(delta_cdf *c, const commit_actions *ca, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < ca->n; idx++) {
        const dlog_action *act = &ca->items[idx];
        cdf_unit u;
        memset(&u, 0, sizeof(u));
        if (ca->n_cdc > 0) {
            /* PROTOCOL: a commit with change files is read from them alone. */
            if (act->type != DLOG_CDC)
                continue;
            u.kind = CDF_UNIT_CDC;
            u.file.path = act->u.cdc.path;
            u.file.partition_values = act->u.cdc.partition_values;
            u.file.size = act->u.cdc.size;
        } else if (act->type == DLOG_ADD) {
            const dlog_remove *rm = remove_of(ca, act->u.add.path);
            if (rm != NULL) {
                SILT_RETURN_IF_ERROR(dv_update_units(c, &act->u.add, rm, err));
                continue;
            }
            u.kind = CDF_UNIT_ADD;
            u.change_type = "insert";
            file_of_add(&act->u.add, &u.file);
        } else if (act->type == DLOG_REMOVE) {
            if (has_add_of(ca, act->u.remove.path))
                continue; /* read with its add */
            u.kind = CDF_UNIT_REMOVE;
            u.change_type = "delete";
            file_of_remove(&act->u.remove, &u.file);
        } else {
            continue;
        }
        SILT_RETURN_IF_ERROR(push_unit(c, &u, err));
    }
    return SILT_OK;
}

/* Parses the next commit of the range into units. */
static silt_status load_commit(delta_cdf *c, silt_error *err)
{
    commit_actions ca;
    char key[64];
    int64_t v = c->next_version++;
    arena_reset(c->commit_arena);
    c->units = NULL;
    c->n_units = c->cap_units = c->next_unit = 0;
    c->version = v;
    memset(&ca, 0, sizeof(ca));
    ca.c = c;
    snprintf(key, sizeof(key), DLOG_DIR "%020lld.json", (long long)v);
    SILT_RETURN_IF_ERROR(dlog_read_json_file(c->store, key, c->commit_arena, keep_action, &ca,
                                             err));
    if (ca.has_ict && v >= ict_from(c->schema_snap))
        c->times_ms[v - c->opts.start_version] = ca.ict_ms;
    return build_units(c, &ca, err);
}

/* ---- reading units ------------------------------------------------------------------------ */

static silt_status open_unit(delta_cdf *c, const cdf_unit *u, silt_error *err)
{
    delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
    c->unit = u;
    c->one = *c->schema_snap;
    c->one.files = (delta_file *)&u->file;
    c->one.n_files = 1;
    c->one.version = c->version;
    if (u->kind == CDF_UNIT_CDC) {
        c->one.schema = c->cdc_schema;
        c->one.metadata.schema = c->cdc_schema;
    }
    so.batch_rows = c->opts.batch_rows;
    if (u->kind == CDF_UNIT_DV_DIFF) {
        so.row_index_column = CDF_ROW_INDEX;
        SILT_RETURN_IF_ERROR(ddv_load(&c->dv_in, c->store, &u->in, err));
        if (u->out.storage_type != 0)
            SILT_RETURN_IF_ERROR(ddv_load(&c->dv_out, c->store, &u->out, err));
    }
    c->files_read++;
    return delta_scan_open(&c->scan, c->store, &c->one, &so, err);
}

/* A DV_DIFF batch: its rows in dv_in and not in dv_out, without the row index column. */
static silt_status diff_rows(delta_cdf *c, arena *a, col_batch *b, col_batch **out,
                             silt_error *err)
{
    const col_vec *pos = b->cols[b->n_cols - 1];
    const int64_t *rows = pos->values;
    uint8_t *keep = arena_alloc(a, (size_t)b->n_rows + 1);
    int64_t row;
    if (keep == NULL)
        return err_nomem(err);
    for (row = 0; row < b->n_rows; row++)
        keep[row] = ddv_contains(c->dv_in, (uint64_t)rows[row]) &&
                    (c->dv_out == NULL || !ddv_contains(c->dv_out, (uint64_t)rows[row]));
    SILT_RETURN_IF_ERROR(col_batch_filter(out, a, b, keep, err));
    (*out)->n_cols--;
    return SILT_OK;
}

/* Table columns of b (plus the file's _change_type for a change file) + the change columns. */
static silt_status finish_batch(delta_cdf *c, arena *a, const col_batch *b, col_batch **out,
                                silt_error *err)
{
    size_t n_tab = c->schema_snap->schema->n_fields;
    col_batch *o = arena_calloc(a, 1, sizeof(*o));
    delta_value v;
    if (o == NULL || (o->cols = arena_calloc(a, n_tab + 3, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    if (n_tab > 0)
        memcpy(o->cols, b->cols, n_tab * sizeof(col_vec *));
    memset(&v, 0, sizeof(v));
    if (c->unit->kind == CDF_UNIT_CDC) {
        o->cols[n_tab] = b->cols[n_tab];
    } else {
        v.type = COL_STRING;
        v.v.s.ptr = c->unit->change_type;
        v.v.s.len = strlen(c->unit->change_type);
        SILT_RETURN_IF_ERROR(delta_value_fill(&o->cols[n_tab], a, c->schema->fields[n_tab].type,
                                              &v, b->n_rows, err));
    }
    v.type = COL_LONG;
    v.v.i = c->version;
    SILT_RETURN_IF_ERROR(delta_value_fill(&o->cols[n_tab + 1], a,
                                          c->schema->fields[n_tab + 1].type, &v, b->n_rows, err));
    v.type = COL_TIMESTAMP;
    v.v.i = c->times_ms[c->version - c->opts.start_version] * 1000;
    SILT_RETURN_IF_ERROR(delta_value_fill(&o->cols[n_tab + 2], a,
                                          c->schema->fields[n_tab + 2].type, &v, b->n_rows, err));
    o->schema = c->schema;
    o->n_cols = n_tab + 3;
    o->n_rows = b->n_rows;
    *out = o;
    return SILT_OK;
}

silt_status delta_cdf_next(delta_cdf *cdf, arena *a, col_batch **out, silt_error *err)
{
    *out = NULL;
    for (;;) {
        if (cdf->scan != NULL) {
            col_batch *b = NULL;
            SILT_RETURN_IF_ERROR(delta_scan_next(cdf->scan, a, &b, err));
            if (b != NULL && cdf->unit->kind == CDF_UNIT_DV_DIFF)
                SILT_RETURN_IF_ERROR(diff_rows(cdf, a, b, &b, err));
            if (b != NULL && b->n_rows > 0)
                return finish_batch(cdf, a, b, out, err);
            if (b != NULL)
                continue;
            close_unit(cdf);
        }
        if (cdf->next_unit < cdf->n_units) {
            SILT_RETURN_IF_ERROR(open_unit(cdf, &cdf->units[cdf->next_unit++], err));
            continue;
        }
        if (cdf->next_version > cdf->opts.end_version)
            return SILT_OK;
        SILT_RETURN_IF_ERROR(load_commit(cdf, err));
    }
}
