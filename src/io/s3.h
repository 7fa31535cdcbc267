/*
 * s3.h - the S3 back end's internals, shared by its three files:
 *   s3_conf.c   settings: fs.s3a.* store options, AWS_* variables, ~/.aws profiles
 *   s3_http.c   requests: Signature V4, libcurl, retries, error messages
 *   s3_cache.c  ranges of Parquet objects kept across opens
 *   store_s3.c  the io_store operations over those requests
 * docs/object-storage.md has the design and the settings.
 */
#ifndef SILT_IO_S3_H
#define SILT_IO_S3_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "io/store.h"
#include "util/buf.h"
#include "util/error.h"

/*
 * The object store a client speaks to. Azure Blob and GCS reuse the S3
 * client's transfers, retries and store logic; they differ in the URL, the
 * signing and a few answers (cloud_conf.c resolves their settings).
 */
typedef enum { IO_DIALECT_S3 = 0, IO_DIALECT_AZURE, IO_DIALECT_GCS } io_dialect;

/* Everything a store needs to reach its bucket, resolved once at open. */
typedef struct io_s3_conf {
    io_dialect dialect;
    char *account;    /* Azure: the storage account */
    char *bucket;     /* S3 and GCS: the bucket; Azure: the container */
    char *prefix;     /* key prefix below the bucket, "" or without a trailing '/' */
    char *access_key; /* NULL: unsigned requests (an open server); Azure: the account */
    char *secret_key; /* Azure: the account key (base64) */
    char *token;      /* S3: session token; Azure: SAS token; GCS: OAuth bearer token */
    char *region;
    char *endpoint;   /* scheme://host[:port], no trailing '/' */
    int path_style;   /* 1: endpoint/bucket/key; 0: bucket.host/key */
    int retry_limit;  /* retries after the first attempt */
    int64_t retry_interval_ms;
    int64_t part_size;       /* multipart part size, bytes */
    int64_t connect_timeout_ms;
    int64_t stall_timeout_ms; /* a transfer moving no byte for this long fails (and is retried) */
    int ranged_reads;         /* ranges of one file fetched at once by a prefetch (1: in turn) */
} io_s3_conf;

/* Resolves an Azure (abfss, abfs, wasbs, wasb, az) or GCS (gs) location (cloud_conf.c). */
silt_status io_cloud_conf_resolve(io_s3_conf *out, const char *location,
                                  const io_store_options *opts, silt_error *err);
/* 1 when location is on Azure Blob / ADLS Gen2 or GCS (a back end silt has). */
int io_cloud_is_location(const char *location);
/* SILT_OK when key (fs.azure.*, fs.gs.*) is a setting the back ends act on. */
silt_status io_cloud_check_option(const char *key, const char *value, silt_error *err);
/* 1 when key names an Azure or GCS setting (known or not). */
int io_cloud_is_option_key(const char *key);

/* Resolves the configuration of location s3[a|n]://bucket/prefix. */
silt_status io_s3_conf_resolve(io_s3_conf *out, const char *location,
                               const io_store_options *opts, silt_error *err);
void io_s3_conf_clear(io_s3_conf *conf);
/* SILT_OK when key (fs.s3a.*, spark.hadoop.fs.s3a.*) is a setting the back end acts on. */
silt_status io_s3_check_option(const char *key, const char *value, silt_error *err);
/* 1 when key names an S3 setting (known or not), so that its refusal can say so. */
int io_s3_is_option_key(const char *key);

typedef struct io_s3_client io_s3_client;

silt_status io_s3_client_new(io_s3_client **out, const io_s3_conf *conf, silt_error *err);
void io_s3_client_free(io_s3_client *client);

/* One request. key is the object key in the bucket ("" for the bucket). */
typedef struct io_s3_req {
    const char *method;
    const char *key;
    const char *query;      /* canonical query (sorted, encoded), "" for none */
    const void *body;
    size_t body_len;
    int64_t range_from;     /* -1: no Range; with range_len -1: to the end */
    int64_t range_len;      /* bytes; a suffix range when range_from is -2 */
    int if_none_match;      /* If-None-Match: * (put-if-absent) */
    int gcs_upload;         /* GCS: the upload URL (/upload/storage/v1/b/B/o?query) */
    int azure_blob_put;     /* Azure: x-ms-blob-type: BlockBlob */
    buf *out;               /* the response body (appended), or NULL */
    char *dst;              /* or: exactly dst_len bytes written here */
    size_t dst_len;
} io_s3_req;

typedef struct io_s3_resp {
    long status;
    int ambiguous;          /* an earlier attempt may have been applied by the server */
    int attempts;           /* attempts made (1 + retries) */
    char etag[128];
    char error_code[128];   /* Azure's x-ms-error-code header, "" when absent */
    int64_t content_length; /* -1 when absent */
    int64_t total_size;     /* from Content-Range, -1 when absent */
    int64_t mtime_micros;
    buf body;               /* the error body when out/dst was not used (non-2xx) */
} io_s3_resp;

/*
 * Runs a request with retries (5xx, 429, resets, time-outs) and returns
 * SILT_OK with resp->status set for any final HTTP answer; a failure to get
 * one is SILT_IO naming the URL and curl's error. resp->body must be cleared.
 */
silt_status io_s3_request(io_s3_client *client, const io_s3_req *req, io_s3_resp *resp,
                          silt_error *err);
/*
 * The error for a final answer that is not a success: the method, the URL,
 * the HTTP status and the server's error code and message. status chosen by
 * the caller (SILT_NOTFOUND for a missing key, SILT_IO otherwise).
 */
silt_status io_s3_error(io_s3_client *client, const io_s3_req *req, const io_s3_resp *resp,
                        silt_status code, silt_error *err);
/* The server's <Code> of an error body, "" when none. */
void io_s3_error_code(const io_s3_resp *resp, char *dst, size_t cap);
/* The URL of a key (for messages). Owned string, NULL on OOM. */
char *io_s3_url(io_s3_client *client, const char *key);

/* Ranges of Parquet objects kept across opens (s3_cache.c); every call takes NULL. */
typedef struct io_s3_cache io_s3_cache;
io_s3_cache *io_s3_cache_new(void);
void io_s3_cache_free(io_s3_cache *cache);
/* 1 for the keys the cache keeps (Parquet files, which Delta never rewrites). */
int io_s3_cache_wants(const char *key);
/* 1 when [offset, offset+len) of key is cached, copied to dst. */
int io_s3_cache_read(io_s3_cache *cache, const char *key, int64_t offset, size_t len, void *dst);
/* 1 when [offset, offset+len) of key is cached (nothing copied). */
int io_s3_cache_has(io_s3_cache *cache, const char *key, int64_t offset, size_t len);
/* 1 when a range ending at the end of key is cached; *size_out is the object's size. */
int io_s3_cache_tail(io_s3_cache *cache, const char *key, int64_t *size_out);
void io_s3_cache_add(io_s3_cache *cache, const char *key, int64_t offset, int64_t object_size,
                     const void *data, size_t len);
/* Forgets key's ranges (it is being written or deleted). */
void io_s3_cache_drop(io_s3_cache *cache, const char *key);

/* A formatted, owned string (mem_free); NULL on OOM. */
char *io_s3_sprintf(const char *fmt, ...) SILT_PRINTF(1, 2);

/* The SigV4 signature (hex) of a canonical request at stamp (YYYYMMDDTHHMMSSZ); for tests. */
silt_status io_s3_sign_canonical(const io_s3_conf *conf, const char *stamp, const char *canonical,
                                 char out[65], silt_error *err);

/* URI-encodes s into out (S3's rules: unreserved kept, '/' kept when keep_slash). */
silt_status io_s3_uri_encode(buf *out, const char *s, int keep_slash, silt_error *err);
/* The unescaped string value of the first "name": "..." in JSON text; 0 when absent. */
int io_s3_json_field(const char *json, const char *name, buf *out);
/* Microseconds since the epoch of an HTTP date ("Thu, 03 Dec 2026 05:34:41 GMT"), 0 if not one. */
int64_t io_s3_http_date_micros(const char *v);
/* Base64 of len bytes into out (4 * ceil(len / 3) + 1 bytes, NUL-terminated). */
void io_s3_base64(const void *data, size_t len, char *out);
/* Finds <tag>...</tag> from *pos (moved past it); copies the XML-unescaped text. 0 when absent. */
int io_s3_xml_next(const char **pos, const char *tag, buf *text);

#endif
