/*
 * log.c - listing `_delta_log/` and choosing the log segment of a version.
 *
 * PROTOCOL: Checkpoint Naming Scheme, Last Checkpoint File, Metadata
 * Cleanup. Invariants: a multi-part checkpoint counts only when all of its
 * parts with the same part count exist; the segment of version V uses the
 * newest complete checkpoint C <= V and requires every commit C+1..V.
 */
#include "delta/log.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

/* Parses exactly n decimal digits at s. */
static int parse_digits(const char *s, size_t n, int64_t *out)
{
    size_t idx;
    int64_t value = 0;
    for (idx = 0; idx < n; idx++) {
        if (s[idx] < '0' || s[idx] > '9')
            return 0;
        if (value > (INT64_MAX - 9) / 10)
            return 0;
        value = value * 10 + (s[idx] - '0');
    }
    *out = value;
    return 1;
}

static int is_uuid(const char *s, size_t len)
{
    size_t idx;
    if (len != 36)
        return 0;
    for (idx = 0; idx < len; idx++) {
        char c = s[idx];
        if (idx == 8 || idx == 13 || idx == 18 || idx == 23) {
            if (c != '-')
                return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
            return 0;
        }
    }
    return 1;
}

static dlog_file_kind classify_checkpoint(const char *rest, dlog_file *out)
{
    size_t len = strlen(rest);
    int64_t part, n_parts;
    if (strcmp(rest, "parquet") == 0) {
        out->kind = DLOG_FILE_CHECKPOINT;
        return out->kind;
    }
    /* K.M.parquet with ten-digit K and M */
    if (len == 10 + 1 + 10 + 8 && rest[10] == '.' && strcmp(rest + 21, ".parquet") == 0 &&
        parse_digits(rest, 10, &part) && parse_digits(rest + 11, 10, &n_parts) && part >= 1 &&
        n_parts >= 1 && part <= n_parts && n_parts <= INT32_MAX) {
        out->kind = DLOG_FILE_CHECKPOINT_PART;
        out->part = (int32_t)part;
        out->n_parts = (int32_t)n_parts;
        return out->kind;
    }
    if (len > 37 && is_uuid(rest, 36) && rest[36] == '.') {
        if (strcmp(rest + 37, "json") == 0)
            out->is_json = 1;
        else if (strcmp(rest + 37, "parquet") != 0)
            return DLOG_FILE_OTHER;
        out->kind = DLOG_FILE_CHECKPOINT_V2;
        return out->kind;
    }
    return DLOG_FILE_OTHER;
}

dlog_file_kind dlog_classify(const char *name, dlog_file *out)
{
    int64_t version, end_version;
    memset(out, 0, sizeof(*out));
    out->kind = DLOG_FILE_OTHER;
    out->end_version = -1;
    if (strcmp(name, "_last_checkpoint") == 0)
        return out->kind = DLOG_FILE_LAST_CHECKPOINT;
    if (strlen(name) < 21 || !parse_digits(name, 20, &version) || name[20] != '.')
        return DLOG_FILE_OTHER;
    out->version = version;
    if (strcmp(name + 21, "json") == 0) {
        out->is_json = 1;
        return out->kind = DLOG_FILE_COMMIT;
    }
    if (strcmp(name + 21, "crc") == 0)
        return out->kind = DLOG_FILE_CRC;
    if (util_str_starts_with(name + 21, "checkpoint."))
        return classify_checkpoint(name + 21 + 11, out);
    if (strlen(name + 21) == 20 + 15 && parse_digits(name + 21, 20, &end_version) &&
        strcmp(name + 41, ".compacted.json") == 0 && end_version > version) {
        out->end_version = end_version;
        out->is_json = 1;
        return out->kind = DLOG_FILE_COMPACTION;
    }
    return DLOG_FILE_OTHER;
}

static int file_cmp(const void *left, const void *right)
{
    const dlog_file *a = left, *b = right;
    if (a->version != b->version)
        return a->version < b->version ? -1 : 1;
    /* Within a version, the parts of one multi-part set are adjacent and in part order. */
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->n_parts != b->n_parts)
        return a->n_parts < b->n_parts ? -1 : 1;
    if (a->part != b->part)
        return a->part < b->part ? -1 : 1;
    return strcmp(a->key, b->key);
}

void dlog_listing_commit_times(const dlog_listing *listing, int64_t *out_ms)
{
    int64_t prev = INT64_MIN;
    size_t idx;
    for (idx = 0; idx < listing->n_files; idx++) {
        const dlog_file *f = &listing->files[idx];
        int64_t ts;
        out_ms[idx] = INT64_MIN;
        if (f->kind != DLOG_FILE_COMMIT)
            continue;
        ts = time_floor_div(f->mtime_micros, 1000);
        if (prev != INT64_MIN && ts <= prev)
            ts = prev + 1;
        out_ms[idx] = prev = ts;
    }
}

void dlog_listing_clear(dlog_listing *listing)
{
    size_t idx;
    for (idx = 0; idx < listing->n_files; idx++)
        mem_free(listing->files[idx].key);
    mem_free(listing->files);
    listing->files = NULL;
    listing->n_files = 0;
    listing->latest_version = -1;
    listing->earliest_version = -1;
}

const dlog_file *dlog_listing_commit(const dlog_listing *listing, int64_t version)
{
    size_t lo = 0, hi = listing->n_files;
    /* Files are sorted by version; binary search for the first of that version. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (listing->files[mid].version < version)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < listing->n_files && listing->files[lo].version == version; lo++)
        if (listing->files[lo].kind == DLOG_FILE_COMMIT)
            return &listing->files[lo];
    return NULL;
}

/* Is the multi-part set (version, n_parts) complete? Fills parts in order when it is. */
static int multipart_complete(const dlog_listing *listing, size_t first, int64_t version,
                              int32_t n_parts, dlog_file *parts_out, size_t *n_out)
{
    size_t idx;
    int32_t found = 0;
    for (idx = first; idx < listing->n_files && listing->files[idx].version == version; idx++) {
        const dlog_file *f = &listing->files[idx];
        /* Parts sort by (part count, part), so part K of M comes in order. */
        if (f->kind == DLOG_FILE_CHECKPOINT_PART && f->n_parts == n_parts && f->part == found + 1) {
            if (parts_out != NULL)
                parts_out[found] = *f;
            found++;
        }
    }
    if (n_out != NULL)
        *n_out = (size_t)found;
    return found == n_parts;
}

/* Checkpoint choice at one version: V2, then classic, then a complete multi-part set. */
static int checkpoint_at(const dlog_listing *listing, size_t first, int skip_parquet,
                         dlog_checkpoint *out)
{
    size_t idx;
    int64_t version = listing->files[first].version;
    const dlog_file *classic = NULL, *v2 = NULL, *part = NULL;
    for (idx = first; idx < listing->n_files && listing->files[idx].version == version; idx++) {
        const dlog_file *f = &listing->files[idx];
        if (f->kind == DLOG_FILE_CHECKPOINT_V2 && (!skip_parquet || f->is_json) &&
            (v2 == NULL || (f->is_json && !v2->is_json)))
            v2 = f;
        else if (f->kind == DLOG_FILE_CHECKPOINT && !skip_parquet)
            classic = f;
        else if (f->kind == DLOG_FILE_CHECKPOINT_PART && !skip_parquet &&
                 multipart_complete(listing, first, version, f->n_parts, NULL, NULL))
            part = f;
    }
    out->version = version;
    out->files = (dlog_file *)(v2 ? v2 : classic ? classic : part);
    out->n_files = 1;
    if (v2 != NULL || classic != NULL) {
        out->kind = v2 ? DLOG_FILE_CHECKPOINT_V2 : DLOG_FILE_CHECKPOINT;
        return 1;
    }
    if (part != NULL) {
        /* Parts of one set are adjacent in the sorted listing, part 1 first. */
        for (idx = first; idx < listing->n_files; idx++)
            if (listing->files[idx].kind == DLOG_FILE_CHECKPOINT_PART &&
                listing->files[idx].n_parts == part->n_parts && listing->files[idx].part == 1)
                break;
        out->kind = DLOG_FILE_CHECKPOINT_PART;
        out->files = &listing->files[idx];
        out->n_files = (size_t)part->n_parts;
        /* The parts of one set must be contiguous for the borrowed array to work. */
        {
            size_t check;
            for (check = 0; check < out->n_files; check++) {
                const dlog_file *f = &listing->files[idx + check];
                if (idx + check >= listing->n_files || f->kind != DLOG_FILE_CHECKPOINT_PART ||
                    f->n_parts != part->n_parts || f->part != (int32_t)check + 1)
                    return 0;
            }
        }
        return 1;
    }
    out->version = -1;
    out->files = NULL;
    out->n_files = 0;
    return 0;
}

void dlog_newest_checkpoint(const dlog_listing *listing, int64_t max_version, int skip_parquet,
                            dlog_checkpoint *out)
{
    size_t idx = listing->n_files;
    memset(out, 0, sizeof(*out));
    out->version = -1;
    while (idx > 0) {
        size_t first;
        int64_t version;
        idx--;
        version = listing->files[idx].version;
        first = idx;
        while (first > 0 && listing->files[first - 1].version == version)
            first--;
        idx = first;
        if (version > max_version || listing->files[first].kind == DLOG_FILE_LAST_CHECKPOINT)
            continue;
        if (checkpoint_at(listing, first, skip_parquet, out))
            return;
    }
    out->version = -1;
}

/* Latest and earliest versions a reader can reconstruct from this listing. */
static void compute_range(dlog_listing *listing)
{
    size_t idx;
    dlog_checkpoint cp;
    int64_t latest = -1, earliest = -1;
    for (idx = 0; idx < listing->n_files; idx++) {
        const dlog_file *f = &listing->files[idx];
        if (f->kind == DLOG_FILE_COMMIT && f->version > latest)
            latest = f->version;
    }
    dlog_newest_checkpoint(listing, INT64_MAX, 0, &cp);
    if (cp.version > latest)
        latest = cp.version;
    /* Earliest: version 0 when its commit exists, else the oldest complete checkpoint. */
    if (dlog_listing_commit(listing, 0) != NULL) {
        earliest = 0;
    } else {
        for (idx = 0; idx < listing->n_files; idx++) {
            dlog_checkpoint at;
            size_t first = idx;
            if (listing->files[idx].kind == DLOG_FILE_LAST_CHECKPOINT)
                continue;
            if (idx > 0 && listing->files[idx - 1].version == listing->files[idx].version &&
                listing->files[idx - 1].kind != DLOG_FILE_LAST_CHECKPOINT)
                continue;
            if (checkpoint_at(listing, first, 0, &at)) {
                earliest = at.version;
                break;
            }
        }
    }
    listing->latest_version = latest;
    listing->earliest_version = earliest;
}

silt_status dlog_list(dlog_listing *out, io_store *store, int64_t start_after_version,
                      silt_error *err)
{
    io_listing raw = IO_LISTING_INIT;
    char start_after[64];
    size_t idx;
    silt_status rc;
    dlog_listing result = DLOG_LISTING_INIT;

    if (start_after_version >= 0)
        snprintf(start_after, sizeof(start_after), DLOG_DIR "%020lld",
                 (long long)start_after_version);
    rc = io_list(store, DLOG_DIR, start_after_version >= 0 ? start_after : NULL, 0, &raw, err);
    if (rc == SILT_NOTFOUND)
        goto not_a_table;
    if (rc != SILT_OK)
        goto done;
    result.files = mem_calloc(raw.count ? raw.count : 1, sizeof(dlog_file));
    if (result.files == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    for (idx = 0; idx < raw.count; idx++) {
        dlog_file file;
        const char *name = raw.items[idx].key + strlen(DLOG_DIR);
        if (!util_str_starts_with(raw.items[idx].key, DLOG_DIR))
            continue;
        switch (dlog_classify(name, &file)) {
        case DLOG_FILE_OTHER:
        case DLOG_FILE_CRC:
        case DLOG_FILE_LAST_CHECKPOINT:
            continue;
        default:
            break;
        }
        file.key = raw.items[idx].key;
        raw.items[idx].key = NULL; /* moved */
        file.size = raw.items[idx].size;
        file.mtime_micros = raw.items[idx].mtime_micros;
        result.files[result.n_files++] = file;
    }
    if (result.n_files == 0 && start_after_version < 0)
        goto not_a_table;
    qsort(result.files, result.n_files, sizeof(dlog_file), file_cmp);
    compute_range(&result);
    *out = result;
    result.files = NULL;
    result.n_files = 0;
    rc = SILT_OK;
    goto done;
not_a_table:
    rc = err_set(err, SILT_NOTFOUND, "\"%s\" is not a Delta table: \"%s\" holds no commits",
                 io_store_root(store), DLOG_DIR);
done:
    for (idx = 0; idx < raw.count; idx++)
        mem_free(raw.items[idx].key);
    mem_free(raw.items);
    dlog_listing_clear(&result);
    return rc;
}

void dlog_segment_clear(dlog_segment *seg)
{
    mem_free(seg->commits);
    seg->commits = NULL;
    seg->n_commits = 0;
}

static silt_status version_missing(const dlog_listing *listing, int64_t version, silt_error *err)
{
    if (listing->latest_version < 0)
        return err_set(err, SILT_NOTFOUND, "version %lld of the table does not exist; the table "
                       "has no readable version", (long long)version);
    return err_set(err, SILT_NOTFOUND,
                   "[DELTA_VERSION_NOT_FOUND] Cannot time travel Delta table to version %lld. "
                   "Available versions: [%lld, %lld].",
                   (long long)version, (long long)listing->earliest_version,
                   (long long)listing->latest_version);
}

silt_status dlog_segment_build(dlog_segment *out, const dlog_listing *listing, int64_t version,
                               int use_checkpoints, silt_error *err)
{
    dlog_checkpoint cp;
    int64_t start, expected;
    size_t n_commits, idx;
    const dlog_file **commits;

    if (version < 0)
        version = listing->latest_version;
    if (version < 0 || version > listing->latest_version || version < listing->earliest_version)
        return version_missing(listing, version, err);
    if (use_checkpoints) {
        dlog_newest_checkpoint(listing, version, 0, &cp);
    } else {
        memset(&cp, 0, sizeof(cp));
        cp.version = -1;
    }
    start = cp.version + 1; /* 0 without a checkpoint */
    if (cp.version < 0 && dlog_listing_commit(listing, 0) == NULL)
        return version_missing(listing, version, err);
    /*
     * Walk the commits actually listed in [start, version]: the array is sized
     * by what exists, so a stray far-future file name cannot make us allocate
     * or loop over billions of versions.
     */
    n_commits = 0;
    for (idx = 0; idx < listing->n_files; idx++)
        if (listing->files[idx].kind == DLOG_FILE_COMMIT && listing->files[idx].version >= start &&
            listing->files[idx].version <= version)
            n_commits++;
    commits = mem_calloc(n_commits ? n_commits : 1, sizeof(*commits));
    if (commits == NULL)
        return err_nomem(err);
    expected = start;
    for (idx = 0; idx < listing->n_files && expected <= version; idx++) {
        const dlog_file *f = &listing->files[idx];
        if (f->kind != DLOG_FILE_COMMIT || f->version < start || f->version > version)
            continue;
        if (f->version != expected)
            break; /* a gap: `expected` is missing */
        commits[expected - start] = f;
        expected++;
    }
    if (expected <= version) {
        mem_free(commits);
        if (cp.version >= 0)
            return err_set(err, SILT_CORRUPT,
                           "commit %lld of the table is missing: the log jumps from "
                           "checkpoint %lld to version %lld without \"%s%020lld.json\"",
                           (long long)expected, (long long)cp.version, (long long)version,
                           DLOG_DIR, (long long)expected);
        return err_set(err, SILT_CORRUPT,
                       "commit %lld of the table is missing: versions 0 to %lld need "
                       "\"%s%020lld.json\"",
                       (long long)expected, (long long)version, DLOG_DIR, (long long)expected);
    }
    out->version = version;
    out->checkpoint = cp;
    out->n_commits = n_commits;
    out->commits = commits;
    return SILT_OK;
}

silt_status dlog_read_last_checkpoint(io_store *store, int64_t *version_out, silt_error *err)
{
    buf data = BUF_INIT;
    silt_error local = SILT_ERROR_INIT;
    cJSON *root;
    silt_status rc;
    *version_out = -1;
    buf_init(&data, (size_t)1 << 20); /* the hint is a few hundred bytes */
    rc = io_get(store, DLOG_DIR "_last_checkpoint", &data, &local);
    if (rc == SILT_NOTFOUND || rc == SILT_NOMEM) {
        buf_clear(&data);
        return SILT_OK; /* missing (or absurdly large): list instead */
    }
    if (rc != SILT_OK) {
        err_copy(err, &local);
        buf_clear(&data);
        return rc;
    }
    root = cJSON_ParseWithLength(data.data ? data.data : "", data.len);
    if (root != NULL) {
        const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
        if (cJSON_IsNumber(version) && version->valuedouble >= 0 &&
            version->valuedouble < 9.0e15)
            *version_out = (int64_t)version->valuedouble;
        cJSON_Delete(root);
    }
    buf_clear(&data);
    return SILT_OK;
}

/* Chunk size for reading JSON log files; lines longer than a chunk grow the buffer. */
#define JSON_CHUNK ((size_t)1 << 20)

silt_status dlog_read_json_file(io_store *store, const char *key, arena *a, dlog_action_fn fn,
                                void *payload, silt_error *err)
{
    io_file *file = NULL;
    buf pending = BUF_INIT; /* an incomplete last line, then the next chunk */
    int64_t offset = 0, pending_start = 0;
    size_t line_no = 1;
    silt_status rc;

    buf_init(&pending, DLOG_MAX_LINE + JSON_CHUNK);
    rc = io_file_open(store, key, &file, err);
    if (rc != SILT_OK)
        goto done;
    while (offset < file->size) {
        size_t want = (size_t)(file->size - offset) < JSON_CHUNK ? (size_t)(file->size - offset)
                                                                 : JSON_CHUNK;
        const char *last_nl;
        size_t complete, idx;
        rc = buf_reserve(&pending, want, err);
        if (rc == SILT_NOMEM && pending.len >= DLOG_MAX_LINE) {
            rc = err_set(err, SILT_CORRUPT, "line %zu of \"%s\" is longer than %zu bytes",
                         line_no, key, DLOG_MAX_LINE);
            goto done;
        }
        if (rc != SILT_OK)
            goto done;
        rc = io_file_read_at(file, offset, want, pending.data + pending.len, err);
        if (rc != SILT_OK)
            goto done;
        pending.len += want;
        offset += (int64_t)want;
        /* Parse every complete line; keep the tail for the next round. */
        last_nl = NULL;
        for (idx = pending.len; idx > pending.len - want; idx--) /* older bytes hold no newline */
            if (pending.data[idx - 1] == '\n') {
                last_nl = pending.data + idx - 1;
                break;
            }
        if (last_nl == NULL && offset < file->size)
            continue;
        complete = last_nl ? (size_t)(last_nl - pending.data) + 1 : pending.len;
        if (offset >= file->size)
            complete = pending.len;
        rc = dlog_parse_lines(pending.data, complete, key, line_no, pending_start, a, fn, payload,
                              err);
        if (rc != SILT_OK)
            goto done;
        for (idx = 0; idx < complete; idx++)
            if (pending.data[idx] == '\n')
                line_no++;
        memmove(pending.data, pending.data + complete, pending.len - complete);
        pending.len -= complete;
        pending_start += (int64_t)complete;
    }
done:
    io_file_close(file);
    buf_clear(&pending);
    return rc;
}
