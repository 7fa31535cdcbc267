/*
 * protocol_change.c - protocol upgrades asked for by table properties
 * (protocol.h: dproto_request_*).
 *
 * PROTOCOL: Protocol Evolution, Table Features. Delta 4 treats a protocol
 * as the set of features it supports: a legacy (reader, writer) pair
 * supports the legacy features whose own minimum versions it reaches
 * (columnMapping needs (2, 5), so (2, 3) is no more than (1, 3)), a
 * table-features protocol those it lists. An upgrade is the union of the
 * table's features and those asked for, written as the lowest protocol
 * that supports exactly that set: a legacy pair when one does, else
 * writer version 7 listing every feature (reader version 3 listing the
 * reader-writer ones; 2 when columnMapping is the only one), which is what
 * the Spark peer writes. A protocol is never downgraded.
 */
#include <string.h>

#include "delta/protocol.h"
#include "delta/txn.h"

typedef struct feature_def {
    const char *name;
    int min_reader, min_writer; /* a legacy feature's versions; (1|3, 7) otherwise */
    int reader_writer;          /* also a reader feature */
    int legacy;                 /* implied by legacy versions */
} feature_def;

/* The features Delta 4 names, in the order Delta lists the legacy ones. */
static const feature_def features[] = {
    {"appendOnly", 1, 2, 0, 1},         {"invariants", 1, 2, 0, 1},
    {"checkConstraints", 1, 3, 0, 1},   {"changeDataFeed", 1, 4, 0, 1},
    {"generatedColumns", 1, 4, 0, 1},   {"columnMapping", 2, 5, 1, 1},
    {"identityColumns", 1, 6, 0, 1},    {"deletionVectors", 3, 7, 1, 0},
    {"timestampNtz", 3, 7, 1, 0},       {"domainMetadata", 1, 7, 0, 0},
    {"inCommitTimestamp", 1, 7, 0, 0},  {"vacuumProtocolCheck", 3, 7, 1, 0},
    {"typeWidening", 3, 7, 1, 0},       {"typeWidening-preview", 3, 7, 1, 0},
    {"v2Checkpoint", 3, 7, 1, 0},       {"rowTracking", 1, 7, 0, 0},
    {"icebergCompatV1", 1, 7, 0, 0},    {"icebergCompatV2", 1, 7, 0, 0},
    {"clustering", 1, 7, 0, 0},         {"variantType", 3, 7, 1, 0},
    {"variantType-preview", 3, 7, 1, 0}, {"allowColumnDefaults", 1, 7, 0, 0},
    {"collations-preview", 3, 7, 1, 0}, {"checkpointProtection", 1, 7, 0, 0}};

#define N_FEATURES (sizeof(features) / sizeof(features[0]))

static const feature_def *find_feature(const char *name)
{
    size_t idx;
    for (idx = 0; idx < N_FEATURES; idx++)
        if (util_str_casecmp(features[idx].name, name) == 0)
            return &features[idx];
    return NULL;
}

/* 1 when silt can write a table supporting the feature (txn_features.c's list). */
static int silt_writes(const char *name)
{
    const char *const *w;
    for (w = delta_writer_features(); *w != NULL; w++)
        if (strcmp(*w, name) == 0)
            return 1;
    return 0;
}

static int is_protocol_key(const char *key)
{
    return util_str_casecmp(key, "delta.minReaderVersion") == 0 ||
           util_str_casecmp(key, "delta.minWriterVersion") == 0 ||
           util_str_ncasecmp(key, "delta.feature.", 14) == 0;
}

int dproto_is_request_key(const char *key) { return is_protocol_key(key); }

/* "needs to be one of 1, 2, 3" as the Spark peer words it. */
static silt_status bad_version(const char *key, int max, silt_error *err)
{
    return err_set(err, SILT_INVALID, "Unsupported table change: requirement failed: %s needs "
                   "to be one of %s.", key, max == 3 ? "1, 2, 3" : "1, 2, 3, 4, 5, 6, 7");
}

static silt_status parse_version(const char *key, const char *value, int max, int *out,
                                 silt_error *err)
{
    int64_t v;
    if (value == NULL || !util_str_to_int64(value, strlen(value), &v) || v < 1 || v > max)
        return bad_version(key, max, err);
    *out = (int)v;
    return SILT_OK;
}

static silt_status add_asked(dproto_request *req, const char *key, const char *value,
                             silt_error *err)
{
    const char *name = key + 14;
    const feature_def *f = find_feature(name);
    if (value == NULL || (util_str_casecmp(value, "supported") != 0 &&
                          util_str_casecmp(value, "enabled") != 0))
        return err_set(err, SILT_INVALID, "[DELTA_UNSUPPORTED_FEATURE_STATUS] Expecting the "
                       "status for table feature %s to be \"supported\", but got \"%s\".",
                       name, value ? value : "");
    if (f == NULL)
        return err_set(err, SILT_INVALID, "[DELTA_UNSUPPORTED_FEATURES_IN_CONFIG] Table features "
                       "configured in the following Spark configs or Delta table properties are "
                       "not recognized by this version of Delta Lake: %s.", key);
    if (!silt_writes(f->name))
        return err_set(err, SILT_UNSUPPORTED, "cannot add the table feature \"%s\" (%s): silt "
                       "cannot write tables with it", f->name, key);
    if (req->n_features < DPROTO_MAX_FEATURES)
        req->features[req->n_features++] = f->name;
    return SILT_OK;
}

silt_status dproto_request_take(dlog_map *props, dproto_request *req, silt_error *err)
{
    size_t idx, kept = 0;
    memset(req, 0, sizeof(*req));
    for (idx = 0; idx < props->n; idx++) {
        const char *key = props->items[idx].key, *value = props->items[idx].value;
        if (!is_protocol_key(key)) {
            props->items[kept++] = props->items[idx];
            continue;
        }
        req->any = 1;
        if (util_str_casecmp(key, "delta.minReaderVersion") == 0)
            SILT_RETURN_IF_ERROR(parse_version("delta.minReaderVersion", value, 3,
                                               &req->reader, err));
        else if (util_str_casecmp(key, "delta.minWriterVersion") == 0)
            SILT_RETURN_IF_ERROR(parse_version("delta.minWriterVersion", value, 7,
                                               &req->writer, err));
        else
            SILT_RETURN_IF_ERROR(add_asked(req, key, value, err));
    }
    props->n = kept;
    return SILT_OK;
}

/* The feature set, one flag per features[] entry. */
typedef struct feature_set {
    unsigned char on[N_FEATURES];
} feature_set;

/* What a legacy (reader, writer) pair supports. */
static void legacy_set(int reader, int writer, feature_set *out)
{
    size_t idx;
    for (idx = 0; idx < N_FEATURES; idx++)
        if (features[idx].legacy && features[idx].min_reader <= reader &&
            features[idx].min_writer <= writer)
            out->on[idx] = 1;
}

size_t dproto_legacy_features(int reader, int writer, const char **out, size_t cap)
{
    size_t idx, n = 0;
    for (idx = 0; idx < N_FEATURES; idx++)
        if (features[idx].legacy && features[idx].min_reader <= reader &&
            features[idx].min_writer <= writer && n < cap)
            out[n++] = features[idx].name;
    return n;
}

static silt_status add_named(feature_set *set, const char *name, silt_error *err)
{
    const feature_def *f = find_feature(name);
    if (f == NULL)
        return err_set(err, SILT_UNSUPPORTED, "the table's protocol has the feature \"%s\", "
                       "which silt does not know", name);
    set->on[f - features] = 1;
    return SILT_OK;
}

static silt_status protocol_set(const dlog_protocol *p, feature_set *out, silt_error *err)
{
    size_t idx;
    if (p->min_writer_version < 7) {
        legacy_set(p->min_reader_version, p->min_writer_version, out);
        return SILT_OK;
    }
    for (idx = 0; idx < p->n_writer_features; idx++)
        SILT_RETURN_IF_ERROR(add_named(out, p->writer_features[idx], err));
    for (idx = 0; idx < p->n_reader_features; idx++)
        SILT_RETURN_IF_ERROR(add_named(out, p->reader_features[idx], err));
    if (p->min_reader_version == 2)
        out->on[find_feature("columnMapping") - features] = 1;
    return SILT_OK;
}

/* The lowest legacy pair supporting exactly set, or 0. */
static int legacy_for(const feature_set *set, int *reader, int *writer)
{
    int r, w;
    for (w = 1; w <= 6; w++) {
        for (r = 1; r <= 2; r++) {
            feature_set l;
            memset(&l, 0, sizeof(l));
            legacy_set(r, w, &l);
            if (memcmp(&l, set, sizeof(l)) == 0) {
                *reader = r;
                *writer = w;
                return 1;
            }
        }
    }
    return 0;
}

static void push_unique(const char **list, size_t *n, const char *name)
{
    size_t idx;
    for (idx = 0; idx < *n; idx++)
        if (strcmp(list[idx], name) == 0)
            return;
    list[(*n)++] = name;
}

/* Writer version 7: the base's listed features first, then those asked, then the implied. */
static silt_status features_protocol(const dlog_protocol *base, const dproto_request *req,
                                     const feature_set *set, arena *a, dlog_protocol *out,
                                     silt_error *err)
{
    const char **writer = arena_calloc(a, N_FEATURES + 1, sizeof(char *));
    const char **reader = arena_calloc(a, N_FEATURES + 1, sizeof(char *));
    size_t nw = 0, nr = 0, idx;
    int rw_other = 0;
    if (writer == NULL || reader == NULL)
        return err_nomem(err);
    for (idx = 0; base->min_writer_version >= 7 && idx < base->n_writer_features; idx++)
        push_unique(writer, &nw, find_feature(base->writer_features[idx])->name);
    for (idx = 0; idx < req->n_features; idx++)
        push_unique(writer, &nw, req->features[idx]);
    for (idx = 0; idx < N_FEATURES; idx++)
        if (set->on[idx])
            push_unique(writer, &nw, features[idx].name);
    for (idx = 0; idx < N_FEATURES; idx++)
        if (set->on[idx] && features[idx].reader_writer && strcmp(features[idx].name,
                                                                  "columnMapping") != 0)
            rw_other = 1;
    memset(out, 0, sizeof(*out));
    out->min_writer_version = 7;
    out->has_writer_features = 1;
    out->writer_features = writer;
    out->n_writer_features = nw;
    if (!rw_other) {
        out->min_reader_version = set->on[find_feature("columnMapping") - features] ? 2 : 1;
        return SILT_OK;
    }
    for (idx = 0; base->min_reader_version >= 3 && idx < base->n_reader_features; idx++)
        push_unique(reader, &nr, find_feature(base->reader_features[idx])->name);
    for (idx = 0; idx < nw; idx++)
        if (find_feature(writer[idx])->reader_writer)
            push_unique(reader, &nr, writer[idx]);
    out->min_reader_version = 3;
    out->has_reader_features = 1;
    out->reader_features = reader;
    out->n_reader_features = nr;
    return SILT_OK;
}

silt_status dproto_request_apply(const dlog_protocol *base, const dproto_request *req, arena *a,
                                 dlog_protocol *out, int *changed, silt_error *err)
{
    feature_set set, before;
    size_t idx;
    int r, w;
    memset(&set, 0, sizeof(set));
    *out = *base;
    *changed = 0;
    if (!req->any)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(protocol_set(base, &set, err));
    before = set;
    w = req->writer > 0 ? req->writer : base->min_writer_version;
    /* a legacy pair asked for implies its features; writer 7 (table features) implies none */
    if ((req->reader > 0 || req->writer > 0) && w < 7)
        legacy_set(req->reader > 0 ? req->reader : base->min_reader_version, w, &set);
    for (idx = 0; idx < req->n_features; idx++)
        SILT_RETURN_IF_ERROR(add_named(&set, req->features[idx], err));
    if (memcmp(&set, &before, sizeof(set)) == 0)
        return SILT_OK; /* nothing new: Delta keeps the protocol, never downgrades */
    *changed = 1;
    if (legacy_for(&set, &r, &w)) {
        memset(out, 0, sizeof(*out));
        out->min_reader_version = r;
        out->min_writer_version = w;
        return SILT_OK;
    }
    return features_protocol(base, req, &set, a, out, err);
}
