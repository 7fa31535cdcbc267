/*
 * source_delta.c - a Delta table as a stream source: `STREAM delta.`p`` or
 * `STREAM name WITH (startingVersion = ..., maxFilesPerTrigger = ...)`,
 * Delta's DeltaSource (docs/streaming.md, "Delta source").
 *
 * Without startingVersion/startingTimestamp the stream reads the snapshot
 * of the version that is newest when it starts (its files in
 * modificationTime, path order), then every later commit's added files in
 * commit order; with them it reads the commits from that version on. The
 * offset is Delta's DeltaSourceOffset: {"sourceVersion":1, "reservoirId":
 * table id, "reservoirVersion": V, "index": I, "isStartingVersion": B}, the
 * position after file I of version V (I = -1: before V's first file).
 *
 * Commits: adds and removes with dataChange = false (OPTIMIZE) are
 * skipped; a commit that removes data fails the stream with Delta's
 * errors unless ignoreDeletes (removes only), ignoreChanges (its added
 * files, rewritten rows included, are read again) or skipChangeCommits
 * (the whole commit is skipped) says otherwise; a metaData action that
 * changes the schema stops the stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/log.h"
#include "delta/scan.h"
#include "delta/snapshot.h"
#include "delta/txn.h"
#include "stream/stream_int.h"
#include "util/time.h"

typedef struct dpos {
    int64_t version;
    int64_t index;  /* the last file of version taken; -1 none */
    int starting;   /* version is the initial snapshot's */
} dpos;

typedef struct delta_src {
    stream_source base;
    sql_session *s;
    arena *a;
    io_store *store;
    char *location;
    const delta_snapshot *meta;  /* the schema, protocol, id the stream started with */
    delta_snapshot *first;       /* latest at open */
    delta_snapshot *initial;     /* the initial snapshot (when reading one), sorted */
    int64_t starting_version;    /* -1: from a snapshot */
    int64_t max_files, max_bytes;
    int ignore_deletes, ignore_changes, skip_changes;
    dpos start, end;             /* the planned range (start exclusive) */
    int have_start;
    arena *plan_a;               /* the planned files' actions */
    delta_file *files;
    size_t n_files, cap_files;
    delta_scan *scan;
    delta_snapshot batch_snap;   /* a shallow copy holding the batch's files */
    stream_counted cnt;
    int empty;
} delta_src;

static void dsrc_release(stream_source *src)
{
    delta_src *d = (delta_src *)src;
    delta_scan_free(d->scan);
    delta_snapshot_free(d->initial);
    delta_snapshot_free(d->first);
    arena_free(d->plan_a);
    io_store_free(d->store);
}

/* ---------------------------------------------------------------- offsets */

static silt_status pos_json(const delta_src *d, const dpos *p, buf *out, silt_error *err)
{
    buf_truncate(out, 0);
    return buf_printf(out, err, "{\"sourceVersion\":1,\"reservoirId\":\"%s\",\"reservoirVersion\":"
                      "%lld,\"index\":%lld,\"isStartingVersion\":%s}", d->meta->metadata.id,
                      (long long)p->version, (long long)p->index, p->starting ? "true" : "false");
}

static silt_status parse_pos(const delta_src *d, const char *json, dpos *out, silt_error *err)
{
    char *id = NULL;
    if (!stream_json_int(json, "reservoirVersion", &out->version) ||
        !stream_json_int(json, "index", &out->index) ||
        !stream_json_str(json, "reservoirId", d->a, &id))
        return err_set(err, SILT_CORRUPT, "the checkpoint's offset is not a Delta source offset: "
                       "%s", json);
    if (strcmp(id, d->meta->metadata.id) != 0)
        return err_set(err, SILT_INVALID, "[DELTA_SOURCE_TABLE_ID_MISMATCH] the checkpoint read "
                       "table id %s, but %s is table %s now: the table was replaced", id,
                       d->location, d->meta->metadata.id);
    out->starting = strstr(json, "\"isStartingVersion\":true") != NULL;
    return SILT_OK;
}

/* The position the stream starts from: before the initial snapshot, or before startingVersion. */
static void initial_pos(const delta_src *d, dpos *out)
{
    out->index = -1;
    if (d->starting_version >= 0) {
        out->version = d->starting_version;
        out->starting = 0;
    } else {
        out->version = d->first->version;
        out->starting = 1;
    }
}

/* ---------------------------------------------------------------- collecting files */

typedef struct collect {
    delta_src *d;
    int64_t version;
    size_t n_seen;        /* eligible adds of the commit so far */
    int has_add, has_remove;
    const col_type *new_schema;
    delta_file *adds;     /* the commit's eligible adds, in plan_a */
    size_t n_adds, cap;
} collect;

static silt_status add_file(delta_file **items, size_t *n, size_t *cap, arena *a,
                            const delta_file *f, silt_error *err)
{
    if (*n >= *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        delta_file *p = arena_realloc(a, *items, *cap * sizeof(*p), ncap * sizeof(*p));
        if (p == NULL)
            return err_nomem(err);
        *items = p;
        *cap = ncap;
    }
    (*items)[(*n)++] = *f;
    return SILT_OK;
}

static silt_status on_action(const dlog_action *act, void *payload, silt_error *err)
{
    collect *c = payload;
    delta_file f;
    if (act->type == DLOG_METADATA && act->u.metadata.schema != NULL &&
        !col_type_equal(act->u.metadata.schema, c->d->meta->schema))
        c->new_schema = act->u.metadata.schema;
    if (act->type == DLOG_REMOVE && act->u.remove.data_change)
        c->has_remove = 1;
    if (act->type != DLOG_ADD || !act->u.add.data_change)
        return SILT_OK;
    c->has_add = 1;
    memset(&f, 0, sizeof(f));
    f.path = act->u.add.path;
    f.partition_values = act->u.add.partition_values;
    f.size = act->u.add.size;
    f.modification_time = act->u.add.modification_time;
    f.stats = act->u.add.stats;
    f.dv = act->u.add.dv;
    f.has_base_row_id = act->u.add.has_base_row_id;
    f.base_row_id = act->u.add.base_row_id;
    f.has_default_row_commit_version = act->u.add.has_default_row_commit_version;
    f.default_row_commit_version = act->u.add.default_row_commit_version;
    return add_file(&c->adds, &c->n_adds, &c->cap, c->d->plan_a, &f, err);
}

/* The eligible adds of commit v (*found 0 when the commit is not there yet). */
static silt_status read_commit(delta_src *d, int64_t v, collect *c, int *found, silt_error *err)
{
    char key[96];
    silt_status rc;
    memset(c, 0, sizeof(*c));
    c->d = d;
    c->version = v;
    delta_commit_key(v, key, sizeof(key));
    rc = dlog_read_json_file(d->store, key, d->plan_a, on_action, c, err);
    *found = rc != SILT_NOTFOUND;
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(rc);
    if (c->new_schema != NULL)
        return err_set(err, SILT_BIND, "[DELTA_SCHEMA_CHANGED_WITH_VERSION] Detected schema "
                       "change in version %lld of the streaming source %s: the stream reads the "
                       "schema it started with. Please try restarting the query (with a new "
                       "checkpoint if the change is incompatible)", (long long)v, d->location);
    if (!c->has_remove || d->skip_changes || d->ignore_changes)
        return SILT_OK;
    if (!c->has_add && d->ignore_deletes)
        return SILT_OK;
    if (!c->has_add)
        return err_set(err, SILT_BIND, "[DELTA_SOURCE_IGNORE_DELETE] Detected deleted data from "
                       "streaming source at version %lld. This is currently not supported. If "
                       "you'd like to ignore deletes, set the option 'ignoreDeletes' to 'true'. "
                       "The source table can be found at path %s", (long long)v, d->location);
    return err_set(err, SILT_BIND, "[DELTA_SOURCE_TABLE_IGNORE_CHANGES] Detected a data update "
                   "in the source table at version %lld. This is currently not supported. If "
                   "this is going to happen regularly and you are okay to skip changes, set the "
                   "option 'skipChangeCommits' to 'true'. The source table can be found at path "
                   "%s", (long long)v, d->location);
}

static int by_mtime_path(const void *x, const void *y)
{
    const delta_file *a = x, *b = y;
    if (a->modification_time != b->modification_time)
        return a->modification_time < b->modification_time ? -1 : 1;
    return strcmp(a->path, b->path);
}

static silt_status load_initial(delta_src *d, int64_t version, silt_error *err)
{
    if (d->initial != NULL && d->initial->version == version)
        return SILT_OK;
    delta_snapshot_free(d->initial);
    d->initial = NULL;
    SILT_RETURN_IF_ERROR(delta_snapshot_load(&d->initial, d->store, version, err));
    qsort(d->initial->files, d->initial->n_files, sizeof(delta_file), by_mtime_path);
    return SILT_OK;
}

static int full(const delta_src *d, int64_t bytes, int limit)
{
    int64_t max_files = d->max_files > 0 ? d->max_files : 1000; /* Delta's default */
    if (!limit || d->n_files == 0)
        return 0;
    return (int64_t)d->n_files >= max_files || (d->max_bytes > 0 && bytes >= d->max_bytes);
}

/* Takes files after pos up to the limits (or up to stop when given) into d->files. */
static silt_status collect_range(delta_src *d, dpos pos, int limit, const dpos *stop,
                                 dpos *end, silt_error *err)
{
    int64_t bytes = 0;
    arena_reset(d->plan_a);
    d->files = NULL;
    d->n_files = d->cap_files = 0;
    if (pos.starting) {
        int64_t idx;
        SILT_RETURN_IF_ERROR(load_initial(d, pos.version, err));
        for (idx = pos.index + 1; idx < (int64_t)d->initial->n_files; idx++) {
            if (stop != NULL ? stop->starting && idx > stop->index : full(d, bytes, limit))
                break;
            SILT_RETURN_IF_ERROR(add_file(&d->files, &d->n_files, &d->cap_files, d->plan_a,
                                          &d->initial->files[idx], err));
            bytes += d->initial->files[idx].size;
            pos.index = idx;
        }
        if (pos.index + 1 < (int64_t)d->initial->n_files) {
            *end = pos;
            return SILT_OK;
        }
        pos.version++;
        pos.index = -1;
        pos.starting = 0;
    }
    for (;;) {
        collect c;
        int found;
        size_t idx;
        if (stop != NULL && (stop->starting || pos.version > stop->version ||
                             (pos.version == stop->version && pos.index >= stop->index)))
            break;
        if (stop == NULL && full(d, bytes, limit))
            break;
        SILT_RETURN_IF_ERROR(read_commit(d, pos.version, &c, &found, err));
        if (!found)
            break;
        for (idx = (size_t)(pos.index + 1); !d->skip_changes || !c.has_remove; idx++) {
            if (idx >= c.n_adds)
                break;
            if (stop != NULL ? pos.version == stop->version && (int64_t)idx > stop->index
                             : full(d, bytes, limit))
                break;
            SILT_RETURN_IF_ERROR(add_file(&d->files, &d->n_files, &d->cap_files, d->plan_a,
                                          &c.adds[idx], err));
            bytes += c.adds[idx].size;
            pos.index = (int64_t)idx;
        }
        if (!(d->skip_changes && c.has_remove) && (size_t)(pos.index + 1) < c.n_adds)
            break; /* the commit continues in the next batch */
        pos.version++;
        pos.index = -1;
    }
    *end = pos;
    return SILT_OK;
}

static silt_status start_pos(delta_src *d, stream_ckpt *c, int64_t batch_id, silt_error *err)
{
    char *line = NULL;
    if (d->have_start)
        return SILT_OK;
    initial_pos(d, &d->start);
    if (batch_id > 0) {
        SILT_RETURN_IF_ERROR(stream_ckpt_source_offset(c, batch_id - 1, d->a, &line, err));
        SILT_RETURN_IF_ERROR(parse_pos(d, line, &d->start, err));
    }
    d->have_start = 1;
    return SILT_OK;
}

static int same_pos(const dpos *a, const dpos *b)
{
    return a->version == b->version && a->index == b->index && a->starting == b->starting;
}

static silt_status dsrc_plan(stream_source *src, stream_ckpt *c, int64_t batch_id, int limit,
                             buf *end, int *empty, silt_error *err)
{
    delta_src *d = (delta_src *)src;
    SILT_RETURN_IF_ERROR(start_pos(d, c, batch_id, err));
    SILT_RETURN_IF_ERROR(collect_range(d, d->start, limit, NULL, &d->end, err));
    *empty = same_pos(&d->start, &d->end);
    return *empty ? SILT_OK : pos_json(d, &d->end, end, err);
}

static silt_status dsrc_replan(stream_source *src, stream_ckpt *c, int64_t batch_id,
                               const char *offset_json, silt_error *err)
{
    delta_src *d = (delta_src *)src;
    dpos stop;
    SILT_RETURN_IF_ERROR(start_pos(d, c, batch_id, err));
    SILT_RETURN_IF_ERROR(parse_pos(d, offset_json, &stop, err));
    SILT_RETURN_IF_ERROR(collect_range(d, d->start, 0, &stop, &d->end, err));
    d->end = stop;
    return SILT_OK;
}

static void dsrc_commit(stream_source *src)
{
    delta_src *d = (delta_src *)src;
    d->start = d->end;
}

/* ---------------------------------------------------------------- reading */

static silt_status dsrc_next(void *payload, arena *a, col_batch **out, silt_error *err)
{
    delta_src *d = payload;
    *out = NULL;
    if (d->empty)
        return SILT_OK;
    return delta_scan_next(d->scan, a, out, err);
}

static silt_status dsrc_bind(stream_source *src, sql_session *s, const char *name,
                             int empty_range, silt_error *err)
{
    delta_src *d = (delta_src *)src;
    delta_scan_free(d->scan);
    d->scan = NULL;
    d->empty = empty_range || d->n_files == 0;
    d->cnt.fn = dsrc_next;
    d->cnt.payload = d;
    d->cnt.rows = 0;
    if (!d->empty) {
        d->batch_snap = *d->meta;
        d->batch_snap.files = d->files;
        d->batch_snap.n_files = d->n_files;
        SILT_RETURN_IF_ERROR(delta_scan_open(&d->scan, d->store, &d->batch_snap, NULL, err));
    }
    d->cnt.ev = d->base.evtime;
    return sql_session_bind_source(s, name, d->base.schema, stream_counted_next, &d->cnt, err);
}

static int64_t dsrc_rows(stream_source *src) { return ((delta_src *)src)->cnt.rows; }

static const stream_source_ops delta_ops = {"DeltaSource", dsrc_plan, dsrc_replan, dsrc_commit,
                                            dsrc_bind, dsrc_rows, dsrc_release};

/* ---------------------------------------------------------------- options */

static silt_status bool_option(const char *k, const char *v, int *out, silt_error *err)
{
    if (util_str_casecmp(v, "true") == 0)
        *out = 1;
    else if (util_str_casecmp(v, "false") == 0)
        *out = 0;
    else
        return err_set(err, SILT_INVALID, "option \"%s\" takes true or false, not \"%s\"", k, v);
    return SILT_OK;
}

static silt_status positive(const char *k, const char *v, int bytes, int64_t *out,
                            silt_error *err)
{
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    int64_t mult = 1;
    if (bytes && end != NULL && *end != '\0') {
        int u = *end | 0x20;
        mult = u == 'k' ? 1024 : u == 'm' ? 1024 * 1024 : u == 'g' ? 1024LL * 1024 * 1024
             : u == 'b' ? 1 : 0;
        end += 1 + (mult > 1 && (end[1] | 0x20) == 'b');
    }
    if (end == v || *end != '\0' || n < 1 || mult == 0)
        return err_set(err, SILT_INVALID, "Invalid value '%s' for option '%s', must be a "
                       "positive integer", v, k);
    *out = (int64_t)n * mult;
    return SILT_OK;
}

static silt_status starting_timestamp(delta_src *d, const char *v, silt_error *err)
{
    delta_snapshot *snap = NULL;
    int64_t ts;
    int has_zone;
    silt_status rc;
    if (!time_parse_timestamp(v, strlen(v), &ts, &has_zone))
        return err_set(err, SILT_INVALID, "[DELTA_INVALID_TIMESTAMP_FORMAT] startingTimestamp "
                       "\"%s\" is not a timestamp such as '2024-01-01 00:00:00'", v);
    rc = delta_snapshot_load_at_timestamp(&snap, d->store, ts, NULL, err);
    if (rc == SILT_OK)
        d->starting_version = snap->version + (snap->timestamp_ms * 1000 < ts ? 1 : 0);
    delta_snapshot_free(snap);
    return rc;
}

static silt_status options(delta_src *d, const char *const *kv, size_t n, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < n; idx++) {
        const char *k = kv[idx * 2], *v = kv[idx * 2 + 1];
        silt_status rc = SILT_OK;
        if (util_str_casecmp(k, "startingVersion") == 0) {
            if (util_str_casecmp(v, "latest") == 0)
                d->starting_version = d->first->version + 1;
            else if (!util_str_to_int64(v, strlen(v), &d->starting_version) ||
                     d->starting_version < 0)
                rc = err_set(err, SILT_INVALID, "[DELTA_INVALID_STARTING_VERSION] startingVersion "
                             "\"%s\" is not a version or 'latest'", v);
        } else if (util_str_casecmp(k, "startingTimestamp") == 0) {
            rc = starting_timestamp(d, v, err);
        } else if (util_str_casecmp(k, "maxFilesPerTrigger") == 0) {
            rc = positive("maxFilesPerTrigger", v, 0, &d->max_files, err);
        } else if (util_str_casecmp(k, "maxBytesPerTrigger") == 0) {
            rc = positive("maxBytesPerTrigger", v, 1, &d->max_bytes, err);
        } else if (util_str_casecmp(k, "ignoreDeletes") == 0) {
            rc = bool_option(k, v, &d->ignore_deletes, err);
        } else if (util_str_casecmp(k, "ignoreChanges") == 0) {
            rc = bool_option(k, v, &d->ignore_changes, err);
        } else if (util_str_casecmp(k, "skipChangeCommits") == 0) {
            rc = bool_option(k, v, &d->skip_changes, err);
        } else if (util_str_casecmp(k, "readChangeFeed") == 0) {
            int on = 0;
            rc = bool_option(k, v, &on, err);
            if (rc == SILT_OK && on)
                rc = err_set(err, SILT_UNSUPPORTED, "option \"readChangeFeed\" of the Delta "
                             "stream source is not supported yet (the change data feed is read "
                             "in batch: table_changes, or readChangeFeed on a Delta view)");
        } else {
            rc = err_set(err, SILT_UNSUPPORTED, "option \"%s\" of the Delta stream source is "
                         "not supported", k);
        }
        SILT_RETURN_IF_ERROR(rc);
    }
    if (d->ignore_changes && d->skip_changes)
        return err_set(err, SILT_INVALID, "ignoreChanges and skipChangeCommits cannot both be "
                       "set");
    return SILT_OK;
}

silt_status stream_delta_source_new(stream_source **out, sql_session *s, arena *a,
                                    const char *location, const char *const *kv, size_t n_kv,
                                    silt_error *err)
{
    delta_src *d = arena_calloc(a, 1, sizeof(*d));
    silt_status rc;
    if (d == NULL || (d->plan_a = arena_new(NULL, "delta stream plan")) == NULL)
        return err_nomem(err);
    d->base.ops = &delta_ops;
    d->s = s;
    d->a = a;
    d->location = arena_strdup(a, location);
    d->starting_version = -1;
    rc = sql_session_store_open(s, location, 0, &d->store, err);
    if (rc == SILT_OK)
        rc = delta_snapshot_load(&d->first, d->store, -1, err);
    if (rc == SILT_OK)
        rc = options(d, kv, n_kv, err);
    if (rc == SILT_OK) {
        d->meta = d->first;
        d->base.schema = d->first->schema;
        d->base.desc = arena_sprintf(a, "DeltaSource[%s]", location);
        d->base.start_json = "null";
        if (d->base.desc == NULL || d->location == NULL)
            rc = err_nomem(err);
    }
    if (rc != SILT_OK) {
        dsrc_release(&d->base);
        return rc;
    }
    *out = &d->base;
    return SILT_OK;
}
