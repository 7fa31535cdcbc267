/*
 * source_file.c - the file stream source: `STREAM read_files('dir', format
 * => 'csv', ...)`, Spark's FileStreamSource (docs/streaming.md).
 *
 * The folder's files (not recursive; names starting with `_` or `.` are
 * skipped, as Spark's InMemoryFileIndex skips them) are taken once each, in
 * modification-time order (then by name), at most maxFilesPerTrigger files
 * and maxBytesPerTrigger bytes a batch (at least one file). The files of
 * batch N are recorded in sources/0/N before the batch runs, Spark's
 * FileStreamSourceLog layout (v1, one JSON object per file), and its
 * offset is {"logOffset":N}; the files already taken are those of the
 * earlier batches' logs. The batch readers' options (header, sep, mode,
 * ...) apply as read_files gives them; the schema is the `schema` option,
 * else the one the reader infers from the oldest file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/csv/csv.h"
#include "formats/json/json.h"
#include "formats/parquet/parquet.h"
#include "formats/text.h"
#include "stream/stream_int.h"
#include "util/hashmap.h"
#include "util/mem.h"
#include "util/time_zone.h"

enum { FMT_CSV, FMT_JSON, FMT_PARQUET };

typedef struct file_src {
    stream_source base;
    arena *a;           /* the query's */
    io_store *store;    /* rooted at the folder */
    char *dir;
    int format;
    const char **kv;    /* reader options, name/value pairs */
    size_t n_kv;
    int64_t max_files;  /* 0 = no limit */
    int64_t max_bytes;
    hashmap taken;      /* keys of the files of committed (and planned) batches */
    int64_t loaded;     /* source logs read up to this batch (exclusive) */
    io_object_info *planned;
    size_t n_planned;
    /* the bound batch */
    arena *batch_a;
    csv_scan *csv;
    json_scan *json;
    pq_file *pq;
    pq_reader *reader;
    size_t next_file;
    int empty;
    stream_counted cnt;
} file_src;

/* Spark's file-source options that silt's file source does not implement. */
static const char *const refused[] = {"latestFirst", "maxFileAge", "cleanSource",
                                      "sourceArchiveDir", "fileNameOnly", "maxCachedFiles",
                                      "discardCachedInputRatio", "recursiveFileLookup",
                                      "pathGlobFilter", "modifiedBefore", "modifiedAfter", NULL};

static void close_readers(file_src *f)
{
    csv_scan_free(f->csv);
    json_scan_free(f->json);
    pq_reader_free(f->reader);
    pq_file_free(f->pq);
    f->csv = NULL;
    f->json = NULL;
    f->reader = NULL;
    f->pq = NULL;
}

static void file_free(stream_source *src)
{
    file_src *f = (file_src *)src;
    close_readers(f);
    arena_free(f->batch_a);
    hashmap_clear(&f->taken);
    io_store_free(f->store);
}

/* ---------------------------------------------------------------- reading a batch */

static silt_status open_text_scan(file_src *f, const char *const *keys, size_t n,
                                  const col_type *schema, silt_error *err)
{
    csv_options co;
    json_options jo;
    size_t idx;
    silt_status rc = SILT_OK;
    if (f->format == FMT_CSV) {
        csv_options_init(&co);
        for (idx = 0; rc == SILT_OK && idx + 1 < f->n_kv * 2; idx += 2)
            rc = csv_options_set(&co, f->batch_a, f->kv[idx], f->kv[idx + 1], err);
        co.schema = schema;
        return rc == SILT_OK ? csv_scan_open(&f->csv, f->store, keys, n, &co, err) : rc;
    }
    json_options_init(&jo);
    for (idx = 0; rc == SILT_OK && idx + 1 < f->n_kv * 2; idx += 2)
        rc = json_options_set(&jo, f->batch_a, f->kv[idx], f->kv[idx + 1], err);
    jo.schema = schema;
    return rc == SILT_OK ? json_scan_open(&f->json, f->store, keys, n, &jo, err) : rc;
}

static silt_status parquet_next(file_src *f, arena *a, col_batch **out, silt_error *err)
{
    for (;;) {
        if (f->reader != NULL) {
            SILT_RETURN_IF_ERROR(pq_reader_next(f->reader, a, out, err));
            if (*out != NULL)
                return SILT_OK;
            pq_reader_free(f->reader);
            pq_file_free(f->pq);
            f->reader = NULL;
            f->pq = NULL;
        }
        if (f->next_file >= f->n_planned) {
            *out = NULL;
            return SILT_OK;
        }
        SILT_RETURN_IF_ERROR(pq_file_open(&f->pq, f->store, f->planned[f->next_file++].key,
                                          err));
        if (!col_type_equal(pq_file_schema(f->pq), f->base.schema))
            return err_set(err, SILT_BIND, "Parquet file \"%s\" of the stream has a schema "
                           "different from the stream's", pq_file_key(f->pq));
        SILT_RETURN_IF_ERROR(pq_reader_open(&f->reader, f->pq, NULL, err));
    }
}

static silt_status file_next(void *payload, arena *a, col_batch **out, silt_error *err)
{
    file_src *f = payload;
    col_batch *batch;
    *out = NULL;
    if (f->empty)
        return SILT_OK;
    if (f->format == FMT_PARQUET)
        return parquet_next(f, a, out, err);
    batch = arena_calloc(a, 1, sizeof(*batch));
    if (batch == NULL)
        return err_nomem(err);
    if (f->csv != NULL)
        SILT_RETURN_IF_ERROR(csv_scan_next(f->csv, a, batch, err));
    else
        SILT_RETURN_IF_ERROR(json_scan_next(f->json, a, batch, err));
    *out = batch->n_rows > 0 ? batch : NULL;
    return SILT_OK;
}

static silt_status file_bind(stream_source *src, sql_session *s, const char *name,
                             int empty_range, silt_error *err)
{
    file_src *f = (file_src *)src;
    const char **keys;
    size_t idx;
    close_readers(f);
    arena_reset(f->batch_a);
    f->empty = empty_range || f->n_planned == 0;
    f->next_file = 0;
    f->cnt.fn = file_next;
    f->cnt.payload = f;
    f->cnt.rows = 0;
    if (!f->empty && f->format != FMT_PARQUET) {
        keys = arena_calloc(f->batch_a, f->n_planned + 1, sizeof(char *));
        if (keys == NULL)
            return err_nomem(err);
        for (idx = 0; idx < f->n_planned; idx++)
            keys[idx] = f->planned[idx].key;
        SILT_RETURN_IF_ERROR(open_text_scan(f, keys, f->n_planned, f->base.schema, err));
        if (!col_type_equal(f->csv ? csv_scan_schema(f->csv) : json_scan_schema(f->json),
                            f->base.schema))
            return err_set(err, SILT_BIND, "the files of the batch read with another schema "
                           "than the stream's");
    }
    f->cnt.ev = f->base.evtime;
    return sql_session_bind_source(s, name, f->base.schema, stream_counted_next, &f->cnt, err);
}

static int64_t file_rows(stream_source *src) { return ((file_src *)src)->cnt.rows; }

/* ---------------------------------------------------------------- planning */

static int by_time(const void *x, const void *y)
{
    const io_object_info *a = x, *b = y;
    if (a->mtime_micros != b->mtime_micros)
        return a->mtime_micros < b->mtime_micros ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int hidden(const char *key)
{
    const char *base = strrchr(key, '/');
    base = base != NULL ? base + 1 : key;
    return base[0] == '_' || base[0] == '.';
}

/* The folder's visible files, oldest first, in a (keys copied). */
static silt_status list_files(file_src *f, arena *a, io_object_info **out, size_t *n_out,
                              silt_error *err)
{
    io_listing l = IO_LISTING_INIT;
    io_object_info *items;
    size_t idx, n = 0;
    silt_status rc = io_list(f->store, "", NULL, 0, &l, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        rc = SILT_OK;
    }
    items = rc == SILT_OK ? arena_calloc(a, l.count + 1, sizeof(*items)) : NULL;
    if (rc == SILT_OK && items == NULL)
        rc = err_nomem(err);
    for (idx = 0; rc == SILT_OK && idx < l.count; idx++) {
        if (hidden(l.items[idx].key))
            continue;
        items[n] = l.items[idx];
        if ((items[n].key = arena_strdup(a, l.items[idx].key)) == NULL)
            rc = err_nomem(err);
        n++;
    }
    io_listing_clear(&l);
    if (rc == SILT_OK) {
        qsort(items, n, sizeof(*items), by_time);
        *out = items;
        *n_out = n;
    }
    return rc;
}

static silt_status take(file_src *f, const char *key, silt_error *err)
{
    char *k = arena_strdup(f->a, key);
    if (k == NULL)
        return err_nomem(err);
    return hashmap_put_str(&f->taken, k, k, err);
}

/* Reads one source log (sources/0/N) into the taken set, and into planned when keep. */
static silt_status read_log(file_src *f, stream_ckpt *c, int64_t n, int keep, silt_error *err)
{
    buf b;
    const char *line, *nl;
    silt_status rc;
    size_t cap = 0;
    buf_init(&b, 0);
    rc = stream_ckpt_read(c, "sources/0", n, &b, err);
    if (rc == SILT_NOTFOUND && !keep) {
        /* a no-data batch (a watermark's eviction) took no files */
        err_clear(err);
        buf_clear(&b);
        return SILT_OK;
    }
    if (rc == SILT_OK && !util_str_starts_with(b.data, "v1\n"))
        rc = err_set(err, SILT_CORRUPT, "source log sources/0/%lld does not start with v1",
                     (long long)n);
    for (line = b.data + (rc == SILT_OK ? 3 : b.len); rc == SILT_OK && *line != '\0';
         line = nl + 1) {
        char *path = NULL;
        int64_t ts = 0, size = 0;
        nl = strchr(line, '\n');
        if (nl == NULL)
            nl = line + strlen(line) - 1;
        if (!stream_json_str(line, "path", f->a, &path) || !stream_json_int(line, "timestamp", &ts))
            rc = err_set(err, SILT_CORRUPT, "source log sources/0/%lld has a line without path "
                         "and timestamp", (long long)n);
        stream_json_int(line, "size", &size);
        if (rc == SILT_OK)
            rc = take(f, path, err);
        if (rc == SILT_OK && keep) {
            if (f->n_planned >= cap) {
                size_t ncap = cap ? cap * 2 : 16;
                io_object_info *p = arena_realloc(f->a, f->planned, cap * sizeof(*p),
                                                  ncap * sizeof(*p));
                if (p == NULL) {
                    rc = err_nomem(err);
                    break;
                }
                f->planned = p;
                cap = ncap;
            }
            f->planned[f->n_planned].key = path;
            f->planned[f->n_planned].mtime_micros = ts * 1000;
            f->planned[f->n_planned++].size = size;
        }
    }
    buf_clear(&b);
    if (rc != SILT_OK)
        err_context(err, "while reading the file source's log of batch %lld", (long long)n);
    return rc;
}

static silt_status load_history(file_src *f, stream_ckpt *c, int64_t upto, silt_error *err)
{
    for (; f->loaded < upto; f->loaded++)
        SILT_RETURN_IF_ERROR(read_log(f, c, f->loaded, 0, err));
    return SILT_OK;
}

/* Writes sources/0/N: staged to go out with offsets/N, or now (staged 0). */
static silt_status write_log(file_src *f, stream_ckpt *c, int64_t batch_id, int staged,
                             silt_error *err)
{
    buf b, q;
    size_t idx;
    silt_status rc;
    buf_init(&b, 0);
    buf_init(&q, 0);
    rc = buf_append_str(&b, "v1\n", err);
    for (idx = 0; rc == SILT_OK && idx < f->n_planned; idx++) {
        const io_object_info *it = &f->planned[idx];
        buf_truncate(&q, 0);
        rc = text_json_string(&q, it->key, strlen(it->key), err);
        if (rc == SILT_OK)
            rc = buf_printf(&b, err, "{\"path\":%s,\"timestamp\":%lld,\"batchId\":%lld,"
                            "\"size\":%lld}\n", buf_cstr(&q),
                            (long long)(it->mtime_micros / 1000), (long long)batch_id,
                            (long long)it->size);
    }
    if (rc == SILT_OK && staged)
        rc = stream_ckpt_stage(c, "sources/0", batch_id, b.data, b.len, err);
    else if (rc == SILT_OK)
        rc = stream_ckpt_write(c, "sources/0", batch_id, b.data, b.len, 0, err);
    buf_clear(&b);
    buf_clear(&q);
    return rc;
}

/* Picks the batch's files (f->planned) and records them in sources/0/N. */
static silt_status pick_files(file_src *f, stream_ckpt *c, int64_t batch_id, int limit,
                              int staged, int *empty, silt_error *err)
{
    io_object_info *all;
    size_t n_all, idx;
    int64_t bytes = 0;
    f->n_planned = 0;
    SILT_RETURN_IF_ERROR(list_files(f, f->a, &all, &n_all, err));
    f->planned = all; /* taken in place: all[0..n_planned) */
    for (idx = 0; idx < n_all; idx++) {
        if (hashmap_get_str(&f->taken, all[idx].key) != NULL)
            continue;
        if (limit && f->n_planned > 0 &&
            ((f->max_files > 0 && (int64_t)f->n_planned >= f->max_files) ||
             (f->max_bytes > 0 && bytes + all[idx].size > f->max_bytes)))
            break;
        bytes += all[idx].size;
        all[f->n_planned++] = all[idx];
    }
    *empty = f->n_planned == 0;
    if (*empty)
        return SILT_OK;
    for (idx = 0; idx < f->n_planned; idx++)
        SILT_RETURN_IF_ERROR(take(f, f->planned[idx].key, err));
    f->loaded = batch_id + 1;
    return write_log(f, c, batch_id, staged, err);
}

static silt_status file_plan(stream_source *src, stream_ckpt *c, int64_t batch_id, int limit,
                             buf *end, int *empty, silt_error *err)
{
    file_src *f = (file_src *)src;
    SILT_RETURN_IF_ERROR(load_history(f, c, batch_id, err));
    SILT_RETURN_IF_ERROR(pick_files(f, c, batch_id, limit, 1, empty, err));
    if (*empty)
        return SILT_OK;
    buf_truncate(end, 0);
    return buf_printf(end, err, "{\"logOffset\":%lld}", (long long)batch_id);
}

static int log_exists(stream_ckpt *c, int64_t batch_id)
{
    buf b;
    silt_status rc;
    buf_init(&b, 0);
    rc = stream_ckpt_read(c, "sources/0", batch_id, &b, NULL);
    buf_clear(&b);
    return rc != SILT_NOTFOUND;
}

static silt_status file_replan(stream_source *src, stream_ckpt *c, int64_t batch_id,
                               const char *offset_json, silt_error *err)
{
    file_src *f = (file_src *)src;
    int64_t log;
    if (!stream_json_int(offset_json, "logOffset", &log) || log != batch_id)
        return err_set(err, SILT_CORRUPT, "offsets/%lld of the checkpoint is not a file source "
                       "offset of that batch: %s", (long long)batch_id, offset_json);
    SILT_RETURN_IF_ERROR(load_history(f, c, batch_id, err));
    f->n_planned = 0;
    f->planned = NULL;
    if (!log_exists(c, batch_id)) {
        /* offsets/N went out before sources/0/N and a crash came between: the batch had not
         * started (stream_ckpt_stage), so its files are picked now */
        int empty = 0;
        return pick_files(f, c, batch_id, 1, 0, &empty, err);
    }
    SILT_RETURN_IF_ERROR(read_log(f, c, batch_id, 1, err));
    f->loaded = batch_id + 1;
    return SILT_OK;
}

static void file_commit(stream_source *src) { (void)src; }

static const stream_source_ops file_ops = {"FileStreamSource", file_plan, file_replan,
                                           file_commit, file_bind, file_rows, file_free};

/* ---------------------------------------------------------------- opening */

static silt_status parse_limit(const char *key, const char *value, int bytes, int64_t *out,
                               silt_error *err)
{
    char *end = NULL;
    double v = strtod(value, &end);
    int64_t mult = 1;
    if (bytes && end != NULL && *end != '\0') {
        switch (*end | 0x20) {
        case 'k': mult = 1024; break;
        case 'm': mult = 1024 * 1024; break;
        case 'g': mult = 1024LL * 1024 * 1024; break;
        case 'b': mult = 1; break;
        default: mult = 0; break;
        }
        end += 1 + ((end[1] | 0x20) == 'b' && mult > 1);
    }
    if (end == NULL || end == value || *end != '\0' || mult == 0 || v < 1 || v != (int64_t)v)
        return err_set(err, SILT_INVALID, "Invalid value '%s' for option '%s', must be a "
                       "positive integer%s", value, key, bytes ? " or a byte size such as 64m" : "");
    *out = (int64_t)v * mult;
    return SILT_OK;
}

/* Splits the read_files arguments into the stream's and the reader's options. */
static silt_status file_options(file_src *f, sql_session *s, const char *const *kv, size_t n,
                                const char **schema_ddl, silt_error *err)
{
    size_t idx, r;
    int has_tz = 0;
    f->kv = arena_calloc(f->a, n * 2 + 2, sizeof(char *));
    if (f->kv == NULL)
        return err_nomem(err);
    for (idx = 0; idx + 1 < n * 2; idx += 2) {
        const char *k = kv[idx], *v = kv[idx + 1];
        for (r = 0; refused[r] != NULL && util_str_casecmp(refused[r], k) != 0; r++)
            ;
        if (refused[r] != NULL)
            return err_set(err, SILT_UNSUPPORTED, "option \"%s\" of the file stream source is "
                           "not supported", k);
        if (util_str_casecmp(k, "maxFilesPerTrigger") == 0)
            SILT_RETURN_IF_ERROR(parse_limit("maxFilesPerTrigger", v, 0, &f->max_files, err));
        else if (util_str_casecmp(k, "maxBytesPerTrigger") == 0)
            SILT_RETURN_IF_ERROR(parse_limit("maxBytesPerTrigger", v, 1, &f->max_bytes, err));
        else if (util_str_casecmp(k, "schema") == 0)
            *schema_ddl = v;
        else {
            has_tz |= util_str_casecmp(k, "timeZone") == 0;
            f->kv[f->n_kv * 2] = k;
            f->kv[f->n_kv * 2 + 1] = v;
            f->n_kv++;
        }
    }
    if (!has_tz && f->format != FMT_PARQUET) {
        /* Spark's readers read timestamps without a zone in the session time zone */
        f->kv[f->n_kv * 2] = "timeZone";
        f->kv[f->n_kv * 2 + 1] = time_zone_id(sql_session_zone(s));
        f->n_kv++;
    }
    if (f->format == FMT_PARQUET && f->n_kv > 0)
        return err_set(err, SILT_UNSUPPORTED, "option \"%s\" does not apply to Parquet files",
                       f->kv[0]);
    return SILT_OK;
}

/* The schema from the oldest file, as the batch reader infers it. */
static silt_status infer_schema(file_src *f, silt_error *err)
{
    io_object_info *all;
    size_t n;
    const char *key;
    SILT_RETURN_IF_ERROR(list_files(f, f->batch_a, &all, &n, err));
    if (n == 0)
        return err_set(err, SILT_BIND, "[UNABLE_TO_INFER_SCHEMA] Unable to infer schema for the "
                       "stream over \"%s\": it has no files yet. It must be specified: "
                       "read_files(..., schema => 'a INT, b STRING')", f->dir);
    key = all[0].key;
    if (f->format == FMT_PARQUET) {
        SILT_RETURN_IF_ERROR(pq_file_open(&f->pq, f->store, key, err));
        f->base.schema = col_type_copy(f->a, pq_file_schema(f->pq));
    } else {
        SILT_RETURN_IF_ERROR(open_text_scan(f, &key, 1, NULL, err));
        f->base.schema = col_type_copy(f->a, f->csv ? csv_scan_schema(f->csv)
                                                    : json_scan_schema(f->json));
    }
    close_readers(f);
    return f->base.schema != NULL ? SILT_OK : err_nomem(err);
}

silt_status stream_file_source_new(stream_source **out, sql_session *s, arena *a,
                                   const char *dir, const char *format, const char *const *kv,
                                   size_t n_kv, silt_error *err)
{
    file_src *f = arena_calloc(a, 1, sizeof(*f));
    const char *ddl = NULL;
    silt_status rc;
    if (f == NULL || (f->batch_a = arena_new(NULL, "stream file batch")) == NULL)
        return err_nomem(err);
    f->base.ops = &file_ops;
    f->a = a;
    f->dir = arena_strdup(a, io_location_local_path(dir));
    if (format == NULL || util_str_casecmp(format, "csv") == 0)
        f->format = FMT_CSV;
    else if (util_str_casecmp(format, "json") == 0)
        f->format = FMT_JSON;
    else if (util_str_casecmp(format, "parquet") == 0)
        f->format = FMT_PARQUET;
    else {
        arena_free(f->batch_a);
        return err_set(err, SILT_UNSUPPORTED, "[UNSUPPORTED_DATASOURCE] the file stream source "
                       "reads csv, json and parquet, not \"%s\"", format);
    }
    if (format == NULL && util_str_ends_with(dir, ".json"))
        f->format = FMT_JSON;
    rc = file_options(f, s, kv, n_kv, &ddl, err);
    if (rc == SILT_OK)
        rc = sql_session_store_open(s, f->dir, 0, &f->store, err);
    if (rc == SILT_OK && ddl != NULL)
        rc = sql_parse_ddl_schema(a, ddl, &f->base.schema, err);
    else if (rc == SILT_OK)
        rc = infer_schema(f, err);
    f->base.desc = arena_sprintf(a, "FileStreamSource[file:%s]", f->dir);
    f->base.start_json = "null";
    if (rc == SILT_OK && f->base.desc == NULL)
        rc = err_nomem(err);
    if (rc != SILT_OK) {
        file_free(&f->base);
        return rc;
    }
    *out = &f->base;
    return SILT_OK;
}
