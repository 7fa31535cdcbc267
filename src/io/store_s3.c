/*
 * store_s3.c - the S3 store: s3://, s3a:// and s3n:// locations on AWS S3
 * or an S3-compatible server (docs/object-storage.md).
 *
 * - put-if-absent is PUT with If-None-Match: * (412: SILT_EXISTS). A 412
 *   may answer our own retry: an attempt that reached the server whose
 *   answer was lost (a reset, a 5xx after the body was sent, or curl's own
 *   silent resend on a kept-alive connection the server closed, which we
 *   never see). So on 412 the object is read back: if it holds exactly our
 *   bytes the put was ours and succeeded, and a Delta commit is never
 *   reported lost (and then committed twice under the next version). Data
 *   files have unique names, so for them a 412 is always our own; a commit
 *   of another writer differs in its actions (unique file names), so
 *   equal bytes cannot be another writer's.
 * - Listings are ListObjectsV2 pages with start-after, in byte order, as S3
 *   lists; with recursive = 0 a '/' delimiter keeps them to one folder.
 * - Ranges of Parquet files fetched are kept for the store's next opens of
 *   the same files (s3_cache.c).
 * - Files opened for range reads fetch their last TAIL_BYTES with the size
 *   (one suffix-range GET): a Parquet footer, and all of a small file, come
 *   with the open. Small reads elsewhere fetch a COALESCE_BYTES block from
 *   their offset and serve the next reads from it, so the column chunks of
 *   a row group, which lie side by side, are fetched together.
 * - Writers buffer fs.s3a.multipart.size bytes; a smaller object is one PUT,
 *   a larger one a multipart upload whose parts are invisible until
 *   CompleteMultipartUpload, aborted when the writer fails or is aborted.
 *   A killed writer leaves an incomplete upload (never an object), which a
 *   bucket lifecycle rule removes.
 * - S3 has no folders: the root needs no creating, deleting a missing object
 *   is checked with a HEAD first (the interface says SILT_NOTFOUND).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "io/s3.h"
#include "util/mem.h"
#include "util/time.h"

#define TAIL_BYTES (256 * 1024)
#define COALESCE_BYTES (1024 * 1024)

typedef struct s3_store {
    io_store base;
    io_s3_conf conf;
    io_s3_client *client;
    io_s3_cache *cache; /* NULL when it could not be made: every read misses */
} s3_store;

static s3_store *as_s3(io_store *store) { return (s3_store *)store; }

static int is_azure(const s3_store *s) { return s->conf.dialect == IO_DIALECT_AZURE; }
static int is_gcs(const s3_store *s) { return s->conf.dialect == IO_DIALECT_GCS; }

/* The key in the bucket of a store key ("" = the root prefix itself). */
static char *bucket_key(const s3_store *s, const char *key)
{
    if (s->conf.prefix[0] == '\0')
        return mem_strdup(key);
    if (key[0] == '\0')
        return io_s3_sprintf("%s/", s->conf.prefix);
    return io_key_join(s->conf.prefix, key);
}

static void req_init(io_s3_req *req, const char *method, const char *key)
{
    memset(req, 0, sizeof(*req));
    req->method = method;
    req->key = key;
    req->query = "";
    req->range_from = -1;
    req->range_len = -1;
}

/* The status for a final answer that is not a success, with its message. */
static silt_status answer_error(s3_store *s, const io_s3_req *req, const io_s3_resp *resp,
                                silt_error *err)
{
    char code[128];
    io_s3_error_code(resp, code, sizeof(code));
    /*
     * A missing bucket is never "no such object": a table there would look
     * absent. GCS names no code for it, but a listing (key "") answered 404
     * can only mean the bucket.
     */
    if (resp->status == 404 && strcmp(code, "NoSuchBucket") != 0 &&
        strcmp(code, "ContainerNotFound") != 0 && !(is_gcs(s) && req->key[0] == '\0'))
        return io_s3_error(s->client, req, resp, SILT_NOTFOUND, err);
    /* Azurite answers a conditional put of an existing blob 409 BlobAlreadyExists. */
    if (resp->status == 412 || (resp->status == 409 && strcmp(code, "BlobAlreadyExists") == 0))
        return io_s3_error(s->client, req, resp, SILT_EXISTS, err);
    return io_s3_error(s->client, req, resp, SILT_IO, err);
}

static silt_status run(s3_store *s, const io_s3_req *req, io_s3_resp *resp, silt_error *err)
{
    memset(resp, 0, sizeof(*resp));
    buf_init(&resp->body, 0);
    SILT_RETURN_IF_ERROR(io_s3_request(s->client, req, resp, err));
    if (resp->status >= 200 && resp->status < 300)
        return SILT_OK;
    return answer_error(s, req, resp, err);
}

/* ---------------------------------------------------------------- reads */

/* GCS has no HEAD of an object: its metadata (JSON) has the size and the time. */
static silt_status gcs_head_key(s3_store *s, const char *bkey, io_s3_resp *resp, silt_error *err)
{
    io_s3_req req;
    buf body = BUF_INIT, text = BUF_INIT;
    silt_status rc;
    req_init(&req, "GET", bkey);
    req.out = &body;
    rc = run(s, &req, resp, err);
    if (rc == SILT_OK) {
        int has_zone = 0;
        resp->content_length = -1;
        if (io_s3_json_field(buf_cstr(&body), "size", &text))
            (void)util_str_to_int64(text.data, text.len, &resp->content_length);
        if (io_s3_json_field(buf_cstr(&body), "updated", &text) && text.len > 0 &&
            text.data[text.len - 1] == 'Z')
            (void)time_parse_timestamp(text.data, text.len - 1, &resp->mtime_micros, &has_zone);
        if (resp->content_length < 0)
            rc = err_set(err, SILT_IO, "GCS metadata of \"%s\" has no size", bkey);
    }
    buf_clear(&body);
    buf_clear(&text);
    return rc;
}

static silt_status s3_head_key(s3_store *s, const char *bkey, io_s3_resp *resp, silt_error *err)
{
    io_s3_req req;
    if (is_gcs(s))
        return gcs_head_key(s, bkey, resp, err);
    req_init(&req, "HEAD", bkey);
    return run(s, &req, resp, err);
}

/* A GET of an object's bytes (GCS: its media, not its metadata). */
static void get_init(const s3_store *s, io_s3_req *req, const char *bkey)
{
    req_init(req, "GET", bkey);
    if (is_gcs(s))
        req->query = "alt=media";
}

static silt_status s3_get_range(io_store *store, const char *key, int64_t offset, int64_t len,
                                buf *out, silt_error *err)
{
    s3_store *s = as_s3(store);
    char *bkey = bucket_key(s, key);
    io_s3_req req;
    io_s3_resp resp;
    size_t start = out->len;
    silt_status rc;
    if (bkey == NULL)
        return err_nomem(err);
    get_init(s, &req, bkey);
    req.out = out;
    if (len == 0) {
        rc = s3_head_key(s, bkey, &resp, err); /* an empty range still needs the object */
        if (rc == SILT_OK && offset > resp.content_length)
            rc = err_set(err, SILT_INVALID, "range %lld+0 is past the end of \"%s\" (%lld "
                         "bytes)", (long long)offset, key, (long long)resp.content_length);
    } else {
        if (offset > 0 || len > 0) {
            req.range_from = offset;
            req.range_len = len;
        }
        rc = run(s, &req, &resp, err);
        if (rc != SILT_OK && resp.status == 416)
            rc = err_set(err, SILT_INVALID, "range %lld+%lld is past the end of \"%s\"",
                         (long long)offset, (long long)len, key);
        if (rc == SILT_OK && len > 0 && out->len - start != (size_t)len)
            rc = err_set(err, SILT_INVALID, "range %lld+%lld is past the end of \"%s\" (%lld "
                         "bytes)", (long long)offset, (long long)len, key,
                         (long long)resp.total_size);
    }
    buf_clear(&resp.body);
    mem_free(bkey);
    if (rc == SILT_OK)
        rc = buf_append(out, "", 0, err); /* keep the NUL after the contents */
    return rc;
}

/* ---------------------------------------------------------------- puts */

/* After an ambiguous attempt answered 412: is the object there our bytes? */
static int object_is(s3_store *s, const char *bkey, const void *data, size_t len)
{
    io_s3_req req;
    io_s3_resp resp;
    buf got = BUF_INIT;
    silt_error scratch = SILT_ERROR_INIT;
    int same;
    get_init(s, &req, bkey);
    req.out = &got;
    same = run(s, &req, &resp, &scratch) == SILT_OK && got.len == len &&
           (len == 0 || memcmp(got.data, data, len) == 0);
    buf_clear(&resp.body);
    buf_clear(&got);
    return same;
}

static silt_status put_key(s3_store *s, const char *bkey, const void *data, size_t len,
                           int if_absent, silt_error *err)
{
    io_s3_req req;
    io_s3_resp resp;
    silt_status rc;
    buf q = BUF_INIT;
    io_s3_cache_drop(s->cache, bkey);
    req_init(&req, "PUT", bkey);
    req.body = data ? data : "";
    req.body_len = len;
    req.if_none_match = if_absent;
    req.azure_blob_put = is_azure(s);
    if (is_gcs(s)) {
        /* A media upload; ifGenerationMatch=0 makes it put-if-absent (412 when taken). */
        req.method = "POST";
        req.if_none_match = 0;
        req.gcs_upload = 1;
        rc = buf_append_str(&q, if_absent ? "ifGenerationMatch=0&name=" : "name=", err);
        if (rc == SILT_OK)
            rc = io_s3_uri_encode(&q, bkey, 0, err);
        if (rc == SILT_OK)
            rc = buf_append_str(&q, "&uploadType=media", err);
        if (rc != SILT_OK) {
            buf_clear(&q);
            return rc;
        }
        req.query = buf_cstr(&q);
    }
    rc = run(s, &req, &resp, err);
    if (rc == SILT_EXISTS && object_is(s, bkey, data, len)) {
        err_clear(err);
        rc = SILT_OK;
    }
    buf_clear(&resp.body);
    buf_clear(&q);
    return rc;
}

static silt_status s3_put(io_store *store, const char *key, const void *data, size_t len,
                          int if_absent, silt_error *err)
{
    s3_store *s = as_s3(store);
    char *bkey = bucket_key(s, key);
    silt_status rc;
    if (bkey == NULL)
        return err_nomem(err);
    rc = put_key(s, bkey, data, len, if_absent, err);
    mem_free(bkey);
    return rc;
}

/* ---------------------------------------------------------------- listings */


/* Adds the <Contents> of one page; strip is the length of the root prefix and its '/'. */
static silt_status parse_page(const char *xml, size_t strip, io_listing *out, silt_error *err)
{
    const char *pos = xml;
    buf block = BUF_INIT, key = BUF_INIT, text = BUF_INIT;
    silt_status rc = SILT_OK;
    while (rc == SILT_OK && io_s3_xml_next(&pos, "Contents", &block)) {
        const char *in = buf_cstr(&block);
        int64_t size = 0, mtime = 0;
        int has_zone = 0;
        if (!io_s3_xml_next(&in, "Key", &key) || key.len <= strip) {
            continue;
        }
        in = buf_cstr(&block);
        if (io_s3_xml_next(&in, "Size", &text))
            (void)util_str_to_int64(text.data, text.len, &size);
        in = buf_cstr(&block);
        if (io_s3_xml_next(&in, "LastModified", &text) && text.len > 0 &&
            text.data[text.len - 1] == 'Z')
            (void)time_parse_timestamp(text.data, text.len - 1, &mtime, &has_zone);
        /* Folder markers ("a/b/", made by consoles and some tools) are not objects. */
        if (key.data[key.len - 1] != '/')
            rc = io_listing_add(out, key.data + strip, size, mtime, err);
    }
    buf_clear(&block);
    buf_clear(&key);
    buf_clear(&text);
    return rc;
}

/* The canonical query of one ListObjectsV2 page (parameters in byte order). */
static silt_status list_query(buf *q, const char *token, int recursive, const char *prefix,
                              const char *start_after, silt_error *err)
{
    buf_truncate(q, 0);
    if (token != NULL) {
        SILT_RETURN_IF_ERROR(buf_append_str(q, "continuation-token=", err));
        SILT_RETURN_IF_ERROR(io_s3_uri_encode(q, token, 0, err));
        SILT_RETURN_IF_ERROR(buf_append_char(q, '&', err));
    }
    if (!recursive)
        SILT_RETURN_IF_ERROR(buf_append_str(q, "delimiter=%2F&", err));
    SILT_RETURN_IF_ERROR(buf_append_str(q, "list-type=2&prefix=", err));
    SILT_RETURN_IF_ERROR(io_s3_uri_encode(q, prefix, 0, err));
    if (start_after != NULL) {
        SILT_RETURN_IF_ERROR(buf_append_str(q, "&start-after=", err));
        SILT_RETURN_IF_ERROR(io_s3_uri_encode(q, start_after, 0, err));
    }
    return SILT_OK;
}

static silt_status list_pages(s3_store *s, const char *prefix, const char *start_after,
                              int recursive, size_t strip, io_listing *out, silt_error *err)
{
    buf q = BUF_INIT, body = BUF_INIT, token = BUF_INIT;
    silt_status rc = SILT_OK;
    int more = 1;
    while (rc == SILT_OK && more) {
        io_s3_req req;
        io_s3_resp resp;
        const char *pos;
        rc = list_query(&q, token.len ? buf_cstr(&token) : NULL, recursive, prefix, start_after,
                        err);
        if (rc != SILT_OK)
            break;
        req_init(&req, "GET", "");
        req.query = buf_cstr(&q);
        buf_truncate(&body, 0);
        req.out = &body;
        rc = run(s, &req, &resp, err);
        buf_clear(&resp.body);
        if (rc == SILT_OK && body.len > 0)
            rc = parse_page(buf_cstr(&body), strip, out, err);
        pos = buf_cstr(&body);
        more = rc == SILT_OK && strstr(pos, "<IsTruncated>true</IsTruncated>") != NULL &&
               io_s3_xml_next(&pos, "NextContinuationToken", &token) && token.len > 0;
    }
    buf_clear(&q);
    buf_clear(&body);
    buf_clear(&token);
    return rc;
}

/* Adds one listed object unless it is a folder marker or not after start_after. */
static silt_status add_listed(const buf *key, size_t strip, const char *after, int64_t size,
                              int64_t mtime, io_listing *out, silt_error *err)
{
    if (key->len <= strip || key->data[key->len - 1] == '/')
        return SILT_OK;
    if (after != NULL && strcmp(key->data, after) <= 0)
        return SILT_OK;
    return io_listing_add(out, key->data + strip, size, mtime, err);
}

/*
 * Azure's List Blobs: <Blob><Name>, <Content-Length>, <Last-Modified>, paged by
 * NextMarker, in byte order. It has no start-after: the names up to it are
 * skipped here (a log listing reads its folder's names, not the objects).
 */
static silt_status azure_list_pages(s3_store *s, const char *prefix, const char *after,
                                    int recursive, size_t strip, io_listing *out, silt_error *err)
{
    buf q = BUF_INIT, body = BUF_INIT, marker = BUF_INIT, block = BUF_INIT, key = BUF_INIT,
        text = BUF_INIT;
    silt_status rc = SILT_OK;
    int more = 1;
    while (rc == SILT_OK && more) {
        io_s3_req req;
        io_s3_resp resp;
        const char *pos;
        buf_truncate(&q, 0);
        rc = buf_append_str(&q, recursive ? "comp=list" : "comp=list&delimiter=%2F", err);
        if (rc == SILT_OK && marker.len > 0) {
            rc = buf_append_str(&q, "&marker=", err);
            if (rc == SILT_OK)
                rc = io_s3_uri_encode(&q, buf_cstr(&marker), 0, err);
        }
        if (rc == SILT_OK)
            rc = buf_append_str(&q, "&prefix=", err);
        if (rc == SILT_OK)
            rc = io_s3_uri_encode(&q, prefix, 0, err);
        if (rc == SILT_OK)
            rc = buf_append_str(&q, "&restype=container", err);
        if (rc != SILT_OK)
            break;
        req_init(&req, "GET", "");
        req.query = buf_cstr(&q);
        buf_truncate(&body, 0);
        req.out = &body;
        rc = run(s, &req, &resp, err);
        buf_clear(&resp.body);
        pos = buf_cstr(&body);
        while (rc == SILT_OK && io_s3_xml_next(&pos, "Blob", &block)) {
            const char *in = buf_cstr(&block);
            int64_t size = 0, mtime = 0;
            if (!io_s3_xml_next(&in, "Name", &key))
                continue;
            in = buf_cstr(&block);
            if (io_s3_xml_next(&in, "Content-Length", &text))
                (void)util_str_to_int64(text.data, text.len, &size);
            in = buf_cstr(&block);
            if (io_s3_xml_next(&in, "Last-Modified", &text))
                mtime = io_s3_http_date_micros(buf_cstr(&text));
            rc = add_listed(&key, strip, after, size, mtime, out, err);
        }
        pos = buf_cstr(&body);
        more = rc == SILT_OK && io_s3_xml_next(&pos, "NextMarker", &marker) && marker.len > 0;
    }
    buf_clear(&q);
    buf_clear(&body);
    buf_clear(&marker);
    buf_clear(&block);
    buf_clear(&key);
    buf_clear(&text);
    return rc;
}

/* The end of the JSON value starting at p (an object, array, string or scalar). */
static const char *json_skip(const char *p)
{
    int depth = 0;
    do {
        if (*p == '"') {
            for (p++; *p != '\0' && *p != '"'; p++)
                if (*p == '\\' && p[1] != '\0')
                    p++;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            depth--;
        } else if (depth == 0) {
            while (*p != '\0' && *p != ',' && *p != '}' && *p != ']')
                p++;
            return p;
        }
        if (*p != '\0')
            p++;
    } while (*p != '\0' && depth > 0);
    return p;
}

/* Adds the objects of one GCS listing page ("items": [{"name", "size", "updated"}]). */
static silt_status gcs_parse_page(const char *json, size_t strip, const char *after,
                                  io_listing *out, silt_error *err)
{
    const char *p = strstr(json, "\"items\"");
    buf item = BUF_INIT, key = BUF_INIT, text = BUF_INIT;
    silt_status rc = SILT_OK;
    if (p == NULL || (p = strchr(p, '[')) == NULL)
        return SILT_OK;
    for (p++; rc == SILT_OK && *p != '\0' && *p != ']'; ) {
        const char *end;
        int64_t size = 0, mtime = 0;
        int has_zone = 0;
        p += strspn(p, " \t\r\n,");
        if (*p != '{')
            break;
        end = json_skip(p);
        buf_truncate(&item, 0);
        rc = buf_append(&item, p, (size_t)(end - p), err);
        p = end;
        if (rc != SILT_OK || !io_s3_json_field(buf_cstr(&item), "name", &key))
            continue;
        if (io_s3_json_field(buf_cstr(&item), "size", &text))
            (void)util_str_to_int64(text.data, text.len, &size);
        if (io_s3_json_field(buf_cstr(&item), "updated", &text) && text.len > 0 &&
            text.data[text.len - 1] == 'Z')
            (void)time_parse_timestamp(text.data, text.len - 1, &mtime, &has_zone);
        rc = add_listed(&key, strip, after, size, mtime, out, err);
        p += strspn(p, " \t\r\n");
    }
    buf_clear(&item);
    buf_clear(&key);
    buf_clear(&text);
    return rc;
}

/* GCS's objects.list: prefix, delimiter, startOffset (inclusive: the equal name is skipped). */
static silt_status gcs_list_pages(s3_store *s, const char *prefix, const char *after,
                                  int recursive, size_t strip, io_listing *out, silt_error *err)
{
    buf q = BUF_INIT, body = BUF_INIT, token = BUF_INIT;
    silt_status rc = SILT_OK;
    int more = 1;
    while (rc == SILT_OK && more) {
        io_s3_req req;
        io_s3_resp resp;
        buf_truncate(&q, 0);
        rc = buf_append_str(&q, recursive ? "" : "delimiter=%2F&", err);
        if (rc == SILT_OK && token.len > 0) {
            rc = buf_append_str(&q, "pageToken=", err);
            if (rc == SILT_OK)
                rc = io_s3_uri_encode(&q, buf_cstr(&token), 0, err);
            if (rc == SILT_OK)
                rc = buf_append_char(&q, '&', err);
        }
        if (rc == SILT_OK)
            rc = buf_append_str(&q, "prefix=", err);
        if (rc == SILT_OK)
            rc = io_s3_uri_encode(&q, prefix, 0, err);
        if (rc == SILT_OK && after != NULL) {
            rc = buf_append_str(&q, "&startOffset=", err);
            if (rc == SILT_OK)
                rc = io_s3_uri_encode(&q, after, 0, err);
        }
        if (rc != SILT_OK)
            break;
        req_init(&req, "GET", "");
        req.query = buf_cstr(&q);
        buf_truncate(&body, 0);
        req.out = &body;
        rc = run(s, &req, &resp, err);
        buf_clear(&resp.body);
        if (rc == SILT_OK && body.len > 0)
            rc = gcs_parse_page(buf_cstr(&body), strip, after, out, err);
        more = rc == SILT_OK && body.len > 0 &&
               io_s3_json_field(buf_cstr(&body), "nextPageToken", &token) && token.len > 0;
    }
    buf_clear(&q);
    buf_clear(&body);
    buf_clear(&token);
    return rc;
}

static silt_status s3_list(io_store *store, const char *prefix, const char *start_after,
                           int recursive, io_listing *out, silt_error *err)
{
    s3_store *s = as_s3(store);
    char *full = bucket_key(s, prefix);
    char *after = start_after ? bucket_key(s, start_after) : NULL;
    size_t strip = s->conf.prefix[0] ? strlen(s->conf.prefix) + 1 : 0;
    silt_status rc;
    if (full == NULL || (start_after != NULL && after == NULL))
        rc = err_nomem(err);
    else if (is_azure(s))
        rc = azure_list_pages(s, full, after, recursive, strip, out, err);
    else if (is_gcs(s))
        rc = gcs_list_pages(s, full, after, recursive, strip, out, err);
    else
        rc = list_pages(s, full, after, recursive, strip, out, err);
    mem_free(full);
    mem_free(after);
    return rc;
}

/* ---------------------------------------------------------------- deletes and heads */

static silt_status s3_remove(io_store *store, const char *key, silt_error *err)
{
    s3_store *s = as_s3(store);
    char *bkey = bucket_key(s, key);
    io_s3_req req;
    io_s3_resp resp;
    silt_status rc;
    if (bkey == NULL)
        return err_nomem(err);
    io_s3_cache_drop(s->cache, bkey);
    /* S3's DELETE answers 204 for a missing key; Azure's and GCS's answer 404. */
    rc = is_azure(s) || is_gcs(s) ? SILT_OK : s3_head_key(s, bkey, &resp, err);
    if (!is_azure(s) && !is_gcs(s))
        buf_clear(&resp.body);
    if (rc == SILT_OK) {
        req_init(&req, "DELETE", bkey);
        rc = run(s, &req, &resp, err);
        buf_clear(&resp.body);
    }
    mem_free(bkey);
    return rc;
}

static silt_status s3_head(io_store *store, const char *key, io_object_info *out,
                           silt_error *err)
{
    s3_store *s = as_s3(store);
    char *bkey = bucket_key(s, key);
    io_s3_resp resp;
    silt_status rc;
    if (bkey == NULL)
        return err_nomem(err);
    rc = s3_head_key(s, bkey, &resp, err);
    buf_clear(&resp.body);
    mem_free(bkey);
    if (rc != SILT_OK)
        return rc;
    if ((out->key = mem_strdup(key)) == NULL)
        return err_nomem(err);
    out->size = resp.content_length < 0 ? 0 : resp.content_length;
    out->mtime_micros = resp.mtime_micros;
    return SILT_OK;
}

/* ---------------------------------------------------------------- open files */

typedef struct s3_file {
    io_file base;
    s3_store *store;
    char *bkey;
    buf tail; /* the object's last tail.len bytes */
    int64_t tail_off;
    pthread_mutex_t mutex; /* guards the block */
    buf block;
    int64_t block_off;
} s3_file;

static int serve(const buf *b, int64_t b_off, int64_t offset, size_t len, void *dst)
{
    if (b->len == 0 || offset < b_off || offset + (int64_t)len > b_off + (int64_t)b->len)
        return 0;
    memcpy(dst, b->data + (offset - b_off), len);
    return 1;
}

static silt_status fetch(s3_file *f, int64_t offset, size_t len, buf *out, char *dst,
                         silt_error *err)
{
    io_s3_req req;
    io_s3_resp resp;
    silt_status rc;
    get_init(f->store, &req, f->bkey);
    req.range_from = offset;
    req.range_len = (int64_t)len;
    req.out = out;
    req.dst = dst;
    req.dst_len = len;
    rc = run(f->store, &req, &resp, err);
    buf_clear(&resp.body);
    if (rc == SILT_OK && out != NULL && out->len != len)
        rc = err_set(err, SILT_IO, "S3 GET of \"%s\" returned %zu of %zu bytes", f->bkey,
                     out->len, len);
    return rc;
}

static silt_status s3_file_read_at(io_file *file, int64_t offset, size_t len, void *dst,
                                   silt_error *err)
{
    s3_file *f = (s3_file *)file;
    silt_status rc = SILT_OK;
    if (serve(&f->tail, f->tail_off, offset, len, dst) ||
        io_s3_cache_read(f->store->cache, f->bkey, offset, len, dst))
        return SILT_OK;
    if (len >= COALESCE_BYTES / 2)
        return fetch(f, offset, len, NULL, dst, err);
    pthread_mutex_lock(&f->mutex);
    if (!serve(&f->block, f->block_off, offset, len, dst)) {
        int64_t want = f->base.size - offset < COALESCE_BYTES ? f->base.size - offset
                                                              : COALESCE_BYTES;
        buf_truncate(&f->block, 0);
        f->block_off = offset;
        rc = fetch(f, offset, (size_t)want, &f->block, NULL, err);
        if (rc != SILT_OK)
            buf_truncate(&f->block, 0);
        else
            io_s3_cache_add(f->store->cache, f->bkey, f->block_off, f->base.size, f->block.data,
                            f->block.len);
        if (rc == SILT_OK && !serve(&f->block, f->block_off, offset, len, dst))
            rc = err_set(err, SILT_IO, "S3 read of \"%s\" came back short", f->bkey);
    }
    pthread_mutex_unlock(&f->mutex);
    return rc;
}

static void s3_file_close(io_file *file)
{
    s3_file *f = (s3_file *)file;
    buf_clear(&f->tail);
    buf_clear(&f->block);
    pthread_mutex_destroy(&f->mutex);
    mem_free(f->bkey);
    mem_free(f->base.key);
    mem_free(f);
}

/* ---------------------------------------------------------------- prefetch */

#define PREFETCH_GAP (64 * 1024)          /* ranges closer than this are fetched as one */
#define PREFETCH_MERGED ((int64_t)8 << 20) /* ranges merged up to this much in one request */
#define PREFETCH_BUDGET ((int64_t)40 << 20) /* at most this much per prefetch (the cache: 64 MiB) */
#define PREFETCH_LARGEST ((int64_t)16 << 20) /* the cache keeps no larger range */
#define PREFETCH_MAX 64

typedef struct prefetch_job {
    s3_file *file;
    const io_range *ranges;
    size_t n;
    size_t next; /* the next range a worker takes, under mutex */
    pthread_mutex_t mutex;
} prefetch_job;

/* A worker: fetches ranges until none is left; each lands in the store's range cache. */
static void *prefetch_worker(void *payload)
{
    prefetch_job *job = payload;
    buf got = BUF_INIT;
    for (;;) {
        size_t idx;
        silt_error scratch = SILT_ERROR_INIT;
        pthread_mutex_lock(&job->mutex);
        idx = job->next++;
        pthread_mutex_unlock(&job->mutex);
        if (idx >= job->n)
            break;
        buf_truncate(&got, 0);
        /* A failed fetch is left to read_at, which reports it with its context. */
        if (fetch(job->file, job->ranges[idx].offset, (size_t)job->ranges[idx].len, &got, NULL,
                  &scratch) == SILT_OK)
            io_s3_cache_add(job->file->store->cache, job->file->bkey, job->ranges[idx].offset,
                            job->file->base.size, got.data, got.len);
        err_clear(&scratch);
    }
    buf_clear(&got);
    return NULL;
}

/* Sorts ranges by offset and merges those PREFETCH_GAP apart; returns how many are left. */
static size_t merge_ranges(io_range *r, size_t n)
{
    size_t idx, jdx, out = 0;
    for (idx = 1; idx < n; idx++)
        for (jdx = idx; jdx > 0 && r[jdx - 1].offset > r[jdx].offset; jdx--) {
            io_range tmp = r[jdx];
            r[jdx] = r[jdx - 1];
            r[jdx - 1] = tmp;
        }
    for (idx = 0; idx < n; idx++) {
        int64_t end = r[idx].offset + r[idx].len;
        if (out > 0 && r[idx].offset <= r[out - 1].offset + r[out - 1].len + PREFETCH_GAP &&
            end - r[out - 1].offset <= PREFETCH_MERGED) {
            if (end > r[out - 1].offset + r[out - 1].len)
                r[out - 1].len = end - r[out - 1].offset;
        } else {
            r[out++] = r[idx];
        }
    }
    return out;
}

/*
 * The ranges a reader asks for next (a row group's column chunks): merged
 * when close, those not cached fetched by up to fs.s3a.vectored.active.ranged.reads
 * requests in flight at once, into the range cache that read_at serves from.
 */
static silt_status s3_file_prefetch(io_file *file, const io_range *ranges, size_t n,
                                    silt_error *err)
{
    s3_file *f = (s3_file *)file;
    io_range want[PREFETCH_MAX];
    pthread_t threads[16];
    prefetch_job job;
    size_t idx, m = 0, k, started = 0;
    int64_t total = 0;
    (void)err;
    if (f->store->cache == NULL || !io_s3_cache_wants(f->bkey))
        return SILT_OK;
    for (idx = 0; idx < n && m < PREFETCH_MAX; idx++)
        if (ranges[idx].len > 0 && ranges[idx].offset >= 0 &&
            ranges[idx].offset + ranges[idx].len <= file->size)
            want[m++] = ranges[idx];
    m = merge_ranges(want, m);
    for (idx = 0, k = 0; idx < m; idx++) {
        if (f->tail.len > 0 && want[idx].offset >= f->tail_off &&
            want[idx].offset + want[idx].len <= f->tail_off + (int64_t)f->tail.len)
            continue; /* fetched with the file's tail */
        if (want[idx].len > PREFETCH_LARGEST ||
            io_s3_cache_has(f->store->cache, f->bkey, want[idx].offset, (size_t)want[idx].len))
            continue; /* too large to keep (its windows stream in), or kept already */
        if (total + want[idx].len > PREFETCH_BUDGET)
            break;
        total += want[idx].len;
        want[k++] = want[idx];
    }
    memset(&job, 0, sizeof(job));
    job.file = f;
    job.ranges = want;
    job.n = k;
    pthread_mutex_init(&job.mutex, NULL);
    for (idx = 1; idx < (size_t)f->store->conf.ranged_reads && idx < k && idx <= 16; idx++)
        if (pthread_create(&threads[started], NULL, prefetch_worker, &job) == 0)
            started++;
    prefetch_worker(&job); /* this thread fetches too */
    for (idx = 0; idx < started; idx++)
        pthread_join(threads[idx], NULL);
    pthread_mutex_destroy(&job.mutex);
    return SILT_OK;
}

static const io_file_ops s3_file_ops = {s3_file_read_at, s3_file_close, s3_file_prefetch};

/* Azure has no suffix ranges: the size from a HEAD, then the tail's range. */
static silt_status azure_load_tail(s3_file *f, silt_error *err)
{
    io_s3_resp resp;
    silt_status rc = s3_head_key(f->store, f->bkey, &resp, err);
    buf_clear(&resp.body);
    if (rc != SILT_OK)
        return rc;
    f->base.size = resp.content_length < 0 ? 0 : resp.content_length;
    f->tail_off = f->base.size > TAIL_BYTES ? f->base.size - TAIL_BYTES : 0;
    if (f->base.size == 0)
        return SILT_OK;
    rc = fetch(f, f->tail_off, (size_t)(f->base.size - f->tail_off), &f->tail, NULL, err);
    if (rc == SILT_OK)
        io_s3_cache_add(f->store->cache, f->bkey, f->tail_off, f->base.size, f->tail.data,
                        f->tail.len);
    else
        buf_truncate(&f->tail, 0);
    return rc;
}

/* The object's size and its last TAIL_BYTES, in one suffix-range GET. */
static silt_status load_tail(s3_file *f, silt_error *err)
{
    io_s3_req req;
    io_s3_resp resp;
    silt_status rc;
    if (is_azure(f->store))
        return azure_load_tail(f, err);
    get_init(f->store, &req, f->bkey);
    req.range_from = -2;
    req.range_len = TAIL_BYTES;
    req.out = &f->tail;
    rc = run(f->store, &req, &resp, err);
    if (rc == SILT_OK) {
        f->base.size = resp.status == 206 && resp.total_size >= 0 ? resp.total_size
                                                                   : (int64_t)f->tail.len;
        f->tail_off = f->base.size - (int64_t)f->tail.len;
        io_s3_cache_add(f->store->cache, f->bkey, f->tail_off, f->base.size, f->tail.data,
                        f->tail.len);
    } else if (resp.status == 416) {
        /* An empty object has no last byte to range over. */
        err_clear(err);
        buf_clear(&resp.body);
        rc = s3_head_key(f->store, f->bkey, &resp, err);
        f->base.size = resp.content_length < 0 ? 0 : resp.content_length;
    }
    buf_clear(&resp.body);
    return rc;
}

static silt_status s3_open_file(io_store *store, const char *key, io_file **out, silt_error *err)
{
    s3_store *s = as_s3(store);
    s3_file *f = mem_calloc(1, sizeof(*f));
    silt_status rc;
    if (f == NULL)
        return err_nomem(err);
    f->base.ops = &s3_file_ops;
    f->store = s;
    pthread_mutex_init(&f->mutex, NULL);
    buf_init(&f->tail, 0);
    buf_init(&f->block, 0);
    f->bkey = bucket_key(s, key);
    f->base.key = mem_strdup(key);
    if (f->bkey == NULL || f->base.key == NULL)
        rc = err_nomem(err);
    else if (io_s3_cache_tail(s->cache, f->bkey, &f->base.size))
        rc = SILT_OK; /* opened before: its tail is in the store's cache */
    else
        rc = load_tail(f, err);
    if (rc != SILT_OK) {
        s3_file_close(&f->base);
        return rc;
    }
    *out = &f->base;
    return SILT_OK;
}

/* ---------------------------------------------------------------- writers */

typedef struct s3_writer {
    io_writer base;
    s3_store *store;
    char *bkey;
    buf part;        /* bytes not yet uploaded */
    char *upload_id; /* set once a multipart upload began */
    buf parts_xml;   /* <Part> elements of the uploaded parts */
    int n_parts;
} s3_writer;

static silt_status upload_query(buf *q, const char *first, const char *upload_id,
                                silt_error *err)
{
    buf_truncate(q, 0);
    if (first != NULL)
        SILT_RETURN_IF_ERROR(buf_append_str(q, first, err));
    SILT_RETURN_IF_ERROR(buf_append_str(q, "uploadId=", err));
    return io_s3_uri_encode(q, upload_id, 0, err);
}

/* Azure: block IDs are base64 of equal-length names; no upload to begin. */
static silt_status azure_put_block(s3_writer *w, silt_error *err)
{
    io_s3_req req;
    io_s3_resp resp;
    buf q = BUF_INIT;
    char name[16], id[32];
    silt_status rc;
    snprintf(name, sizeof(name), "silt%08d", w->n_parts + 1);
    io_s3_base64(name, 12, id);
    rc = buf_append_str(&q, "blockid=", err);
    if (rc == SILT_OK)
        rc = io_s3_uri_encode(&q, id, 0, err);
    if (rc == SILT_OK)
        rc = buf_append_str(&q, "&comp=block", err);
    if (rc == SILT_OK) {
        req_init(&req, "PUT", w->bkey);
        req.query = buf_cstr(&q);
        req.body = w->part.data ? w->part.data : "";
        req.body_len = w->part.len;
        rc = run(w->store, &req, &resp, err);
        buf_clear(&resp.body);
    }
    if (rc == SILT_OK)
        rc = buf_printf(&w->parts_xml, err, "<Latest>%s</Latest>", id);
    if (rc == SILT_OK) {
        w->n_parts++;
        buf_truncate(&w->part, 0);
    }
    buf_clear(&q);
    return rc;
}

/* Azure: Put Block List makes the blob, conditional like a put (If-None-Match: *). */
static silt_status azure_commit_blocks(s3_writer *w, int if_absent, silt_error *err)
{
    io_s3_req req;
    io_s3_resp resp;
    buf body = BUF_INIT;
    silt_status rc = buf_printf(&body, err, "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
                                "<BlockList>%s</BlockList>", buf_cstr(&w->parts_xml));
    if (rc == SILT_OK) {
        req_init(&req, "PUT", w->bkey);
        req.query = "comp=blocklist";
        req.body = body.data;
        req.body_len = body.len;
        req.if_none_match = if_absent;
        rc = run(w->store, &req, &resp, err);
        buf_clear(&resp.body);
    }
    buf_clear(&body);
    return rc;
}

static silt_status begin_upload(s3_writer *w, silt_error *err)
{
    io_s3_req req;
    io_s3_resp resp;
    buf body = BUF_INIT, id = BUF_INIT;
    const char *pos;
    silt_status rc;
    req_init(&req, "POST", w->bkey);
    req.query = "uploads=";
    req.out = &body;
    rc = run(w->store, &req, &resp, err);
    buf_clear(&resp.body);
    pos = buf_cstr(&body);
    if (rc == SILT_OK && !io_s3_xml_next(&pos, "UploadId", &id))
        rc = err_set(err, SILT_IO, "S3 did not start a multipart upload of \"%s\": no UploadId "
                     "in its answer", w->bkey);
    if (rc == SILT_OK && (w->upload_id = buf_detach(&id, NULL)) == NULL)
        rc = err_nomem(err);
    buf_clear(&body);
    buf_clear(&id);
    return rc;
}

static silt_status upload_part(s3_writer *w, silt_error *err)
{
    io_s3_req req;
    io_s3_resp resp;
    buf q = BUF_INIT;
    char first[48];
    silt_status rc;
    snprintf(first, sizeof(first), "partNumber=%d&", w->n_parts + 1);
    rc = upload_query(&q, first, w->upload_id, err);
    if (rc == SILT_OK) {
        req_init(&req, "PUT", w->bkey);
        req.query = buf_cstr(&q);
        req.body = w->part.data ? w->part.data : "";
        req.body_len = w->part.len;
        rc = run(w->store, &req, &resp, err);
        buf_clear(&resp.body);
    }
    if (rc == SILT_OK && resp.etag[0] == '\0')
        rc = err_set(err, SILT_IO, "S3 answered part %d of \"%s\" without an ETag",
                     w->n_parts + 1, w->bkey);
    if (rc == SILT_OK)
        rc = buf_printf(&w->parts_xml, err, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag>"
                        "</Part>", w->n_parts + 1, resp.etag);
    if (rc == SILT_OK) {
        w->n_parts++;
        buf_truncate(&w->part, 0);
    }
    buf_clear(&q);
    return rc;
}

static silt_status s3_writer_write(io_writer *wr, const void *data, size_t len, silt_error *err)
{
    s3_writer *w = (s3_writer *)wr;
    SILT_RETURN_IF_ERROR(buf_append(&w->part, data, len, err));
    if ((int64_t)w->part.len < w->store->conf.part_size)
        return SILT_OK;
    if (is_azure(w->store))
        return azure_put_block(w, err);
    if (w->upload_id == NULL)
        SILT_RETURN_IF_ERROR(begin_upload(w, err));
    return upload_part(w, err);
}

static silt_status complete_upload(s3_writer *w, int if_absent, silt_error *err)
{
    io_s3_req req;
    io_s3_resp resp;
    buf q = BUF_INIT, body = BUF_INIT, answer = BUF_INIT;
    silt_status rc = upload_query(&q, NULL, w->upload_id, err);
    if (rc == SILT_OK)
        rc = buf_printf(&body, err, "<CompleteMultipartUpload>%s</CompleteMultipartUpload>",
                        buf_cstr(&w->parts_xml));
    if (rc == SILT_OK) {
        req_init(&req, "POST", w->bkey);
        req.query = buf_cstr(&q);
        req.body = body.data;
        req.body_len = body.len;
        req.if_none_match = if_absent;
        req.out = &answer;
        rc = run(w->store, &req, &resp, err);
        /* S3 can answer 200 and put the failure in the body. */
        if (rc == SILT_OK && strstr(buf_cstr(&answer), "<Error>") != NULL) {
            buf_clear(&resp.body);
            resp.body = answer;
            answer.data = NULL;
            rc = io_s3_error(w->store->client, &req, &resp, SILT_IO, err);
        }
        buf_clear(&resp.body);
    }
    buf_clear(&q);
    buf_clear(&body);
    buf_clear(&answer);
    return rc;
}

static void abort_upload(s3_writer *w)
{
    io_s3_req req;
    io_s3_resp resp;
    buf q = BUF_INIT;
    silt_error scratch = SILT_ERROR_INIT;
    if (w->upload_id == NULL)
        return;
    if (upload_query(&q, NULL, w->upload_id, &scratch) == SILT_OK) {
        req_init(&req, "DELETE", w->bkey);
        req.query = buf_cstr(&q);
        (void)run(w->store, &req, &resp, &scratch);
        buf_clear(&resp.body);
    }
    buf_clear(&q);
}

static void writer_free(s3_writer *w)
{
    buf_clear(&w->part);
    buf_clear(&w->parts_xml);
    mem_free(w->upload_id);
    mem_free(w->bkey);
    mem_free(w->base.key);
    mem_free(w);
}

static silt_status s3_writer_commit(io_writer *wr, int if_absent, silt_error *err)
{
    s3_writer *w = (s3_writer *)wr;
    silt_status rc;
    io_s3_cache_drop(w->store->cache, w->bkey);
    if (is_azure(w->store) && w->n_parts > 0) {
        /* Uncommitted blocks are never visible; Azure drops them after a week. */
        rc = azure_put_block(w, err);
        if (rc == SILT_OK)
            rc = azure_commit_blocks(w, if_absent, err);
    } else if (w->upload_id == NULL) {
        rc = put_key(w->store, w->bkey, w->part.data, w->part.len, if_absent, err);
    } else {
        rc = upload_part(w, err);
        if (rc == SILT_OK)
            rc = complete_upload(w, if_absent, err);
        if (rc != SILT_OK)
            abort_upload(w);
    }
    writer_free(w);
    return rc;
}

static void s3_writer_abort(io_writer *wr)
{
    s3_writer *w = (s3_writer *)wr;
    abort_upload(w);
    writer_free(w);
}

static const io_writer_ops s3_writer_ops = {s3_writer_write, s3_writer_commit, s3_writer_abort};

static silt_status s3_open_writer(io_store *store, const char *key, io_writer **out,
                                  silt_error *err)
{
    s3_store *s = as_s3(store);
    s3_writer *w = mem_calloc(1, sizeof(*w));
    if (w == NULL)
        return err_nomem(err);
    w->base.ops = &s3_writer_ops;
    w->store = s;
    buf_init(&w->part, 0);
    buf_init(&w->parts_xml, 0);
    w->bkey = bucket_key(s, key);
    w->base.key = mem_strdup(key);
    if (w->bkey == NULL || w->base.key == NULL) {
        writer_free(w);
        return err_nomem(err);
    }
    *out = &w->base;
    return SILT_OK;
}

/* ---------------------------------------------------------------- the store */

static void s3_destroy(io_store *store)
{
    s3_store *s = as_s3(store);
    io_s3_client_free(s->client);
    io_s3_cache_free(s->cache);
    io_s3_conf_clear(&s->conf);
    mem_free(s->base.root);
    mem_free(s);
}

static const io_store_ops s3_ops = {
    "s3",    s3_get_range, s3_put,         s3_list,        s3_remove,
    s3_head, s3_open_file, s3_open_writer, s3_destroy,
};

silt_status io_s3_store_open(io_store **out, const char *location, const io_store_options *opts,
                             silt_error *err)
{
    s3_store *s = mem_calloc(1, sizeof(*s));
    size_t len = strlen(location);
    silt_status rc;
    if (s == NULL)
        return err_nomem(err);
    s->base.ops = &s3_ops;
    while (len > 0 && location[len - 1] == '/')
        len--;
    s->base.root = mem_strndup(location, len);
    if (s->base.root == NULL)
        rc = err_nomem(err);
    else if (io_cloud_is_location(location))
        rc = io_cloud_conf_resolve(&s->conf, location, opts, err);
    else
        rc = io_s3_conf_resolve(&s->conf, location, opts, err);
    if (rc == SILT_OK)
        rc = io_s3_client_new(&s->client, &s->conf, err);
    if (rc == SILT_OK)
        s->cache = io_s3_cache_new();
    if (rc != SILT_OK) {
        io_s3_client_free(s->client);
        if (s->conf.bucket != NULL)
            io_s3_conf_clear(&s->conf);
        mem_free(s->base.root);
        mem_free(s);
        return rc;
    }
    *out = &s->base;
    return SILT_OK;
}
