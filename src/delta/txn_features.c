/*
 * txn_features.c - which tables silt may write, and the protocol and
 * metadata of a new table.
 *
 * PROTOCOL: Protocol Evolution, Table Features, Supported Features (the
 * writer requirements of each), Column Mapping. A feature being
 * *supported* by a table (listed, or implied by a legacy writer version)
 * is harmless on its own for most features; what matters is whether it is
 * *active* (a CHECK constraint exists, a column is generated, ...). silt
 * refuses a commit when an active feature asks writers for something silt
 * does not do, and refuses features whose mere support changes what a
 * writer must write (row tracking, V2 checkpoints, Iceberg compatibility).
 * Column mapping is accepted: this layer writes the log, and the data
 * writer above it is given the physical schema (dproto_physical_schema).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "delta/protocol.h"
#include "delta/txn.h"
#include "util/time.h"

/*
 * typeWidening(-preview): writers must record the type changes they make;
 * silt never changes a column's type, and data files it rewrites are read
 * through the scan (which widens older files) and written with the table's
 * current types. v2Checkpoint: writers must write V2 checkpoints; silt writes
 * no checkpoint on such tables (checkpoints are optional, txn.c
 * maybe_checkpoint), and its log reader follows the table's V2 checkpoints.
 */
static const char *const writer_features[] = {
    "appendOnly",    "invariants",         "checkConstraints", "changeDataFeed",
    "generatedColumns", "columnMapping",   "identityColumns",  "deletionVectors",
    "timestampNtz",  "domainMetadata",     "inCommitTimestamp", "vacuumProtocolCheck",
    "typeWidening",  "typeWidening-preview", "v2Checkpoint",   NULL};

const char *const *delta_writer_features(void) { return writer_features; }

static int property_true(const dlog_metadata *md, const char *key)
{
    const char *value = md ? dlog_map_get(&md->configuration, key, NULL) : NULL;
    return value != NULL && util_str_casecmp(value, "true") == 0;
}

/* 1 when a field anywhere in type has metadata containing key (a JSON object key). */
static int field_meta_has(const col_type *type, const char *key)
{
    size_t idx;
    char quoted[96];
    if (type == NULL)
        return 0;
    snprintf(quoted, sizeof(quoted), "\"%s", key);
    for (idx = 0; idx < type->n_fields; idx++) {
        const col_field *f = &type->fields[idx];
        if (f->metadata_json != NULL && strstr(f->metadata_json, quoted) != NULL)
            return 1;
        if (field_meta_has(f->type, key))
            return 1;
    }
    return 0;
}

static int has_type(const col_type *type, col_type_id id)
{
    size_t idx;
    if (type == NULL)
        return 0;
    if (type->id == id)
        return 1;
    for (idx = 0; idx < type->n_fields; idx++)
        if (has_type(type->fields[idx].type, id))
            return 1;
    return 0;
}

static int has_constraints(const dlog_metadata *md)
{
    size_t idx;
    for (idx = 0; md != NULL && idx < md->configuration.n; idx++)
        if (util_str_starts_with(md->configuration.items[idx].key, "delta.constraints."))
            return 1;
    return 0;
}

static silt_status refuse(silt_error *err, const char *feature, const char *why)
{
    err_set(err, SILT_UNSUPPORTED, "cannot write to a table with the writer feature \"%s\": %s",
            feature, why);
    err_hint(err, "silt writes tables whose active features it honours; use Spark for this table");
    return SILT_UNSUPPORTED;
}

/* PROTOCOL: Supported Features, writer requirements of one feature. */
static silt_status check_feature(const char *feature, const dlog_metadata *md, int removes_data,
                                 silt_error *err)
{
    const col_type *schema = md ? md->schema : NULL;
    if (strcmp(feature, "invariants") == 0) {
        if (field_meta_has(schema, "delta.invariants"))
            return refuse(err, feature, "silt does not enforce column invariants");
    } else if (strcmp(feature, "checkConstraints") == 0) {
        /* CHECK constraints are enforced above this layer: the sql layer binds them and every
         * writer of new rows checks its batches (delta_write_options.check, exec_constraints.c) */
    } else if (strcmp(feature, "changeDataFeed") == 0) {
        if (removes_data == 1 && property_true(md, "delta.enableChangeDataFeed"))
            return refuse(err, feature,
                          "the change data feed is on and this commit removes rows without "
                          "writing change data files");
    } else if (strcmp(feature, "generatedColumns") == 0) {
        /* computed and checked above this layer, as CHECK constraints: the sql layer fills the
         * values a statement does not give and checks `c <=> (expr)` on every written batch
         * (exec_generated.c, exec_constraints.c) */
    } else if (strcmp(feature, "identityColumns") == 0) {
        /* assigned above this layer: INSERT gives the values and moves the high-water mark
         * (exec_write.c); UPDATE and MERGE refuse to set them, as Delta does */
    } else {
        const char *const *known;
        for (known = writer_features; *known != NULL; known++)
            if (strcmp(*known, feature) == 0)
                return SILT_OK;
        return refuse(err, feature, "silt does not implement it");
    }
    return SILT_OK;
}

silt_status delta_check_writable(const dlog_protocol *protocol, const dlog_metadata *metadata,
                                 int removes_data, silt_error *err)
{
    /* Legacy writer versions imply these features (PROTOCOL: Table Features, Legacy). */
    static const struct {
        int version;
        const char *feature;
    } legacy[] = {{2, "appendOnly"},       {2, "invariants"},      {3, "checkConstraints"},
                  {4, "changeDataFeed"},   {4, "generatedColumns"}, {5, "columnMapping"},
                  {6, "identityColumns"}};
    static const char *const active_checked[] = {"invariants", "checkConstraints",
                                                 "changeDataFeed", "generatedColumns",
                                                 "identityColumns"};
    size_t idx;
    SILT_RETURN_IF_ERROR(dproto_check_readable(protocol, err));
    if (protocol->min_writer_version > 7 || protocol->min_writer_version < 1)
        return err_set(err, SILT_UNSUPPORTED,
                       "cannot write to a table of writer version %d: silt writes versions 1 to 7",
                       (int)protocol->min_writer_version);
    if (protocol->min_writer_version == 7) {
        for (idx = 0; idx < protocol->n_writer_features; idx++)
            SILT_RETURN_IF_ERROR(
                check_feature(protocol->writer_features[idx], metadata, removes_data, err));
    } else {
        for (idx = 0; idx < sizeof(legacy) / sizeof(legacy[0]); idx++)
            if (protocol->min_writer_version >= legacy[idx].version)
                SILT_RETURN_IF_ERROR(
                    check_feature(legacy[idx].feature, metadata, removes_data, err));
    }
    /*
     * Features whose use asks writers for something are checked whether the
     * protocol lists them or not: tables exist (written by tests or older
     * engines) that use identity columns or constraints at writer version 2.
     */
    for (idx = 0; idx < sizeof(active_checked) / sizeof(active_checked[0]); idx++)
        SILT_RETURN_IF_ERROR(check_feature(active_checked[idx], metadata, removes_data, err));
    if (removes_data && property_true(metadata, "delta.appendOnly"))
        return err_set(err, SILT_INVALID,
                       "[DELTA_CANNOT_MODIFY_APPEND_ONLY] This table is configured to only allow "
                       "appends. If you would like to permit updates or deletes, use 'ALTER TABLE "
                       "<table_name> SET TBLPROPERTIES (delta.appendOnly=false)'.");
    return SILT_OK;
}

static silt_status mapping_mode(const dlog_metadata *md, int *on_out, silt_error *err);

/* ---- features the metadata needs -------------------------------------------------------- */

/* 1 when the protocol supports a writer feature: listed, or implied by a legacy version. */
static int supports_writer_feature(const dlog_protocol *p, const char *feature)
{
    static const struct {
        int version;
        const char *feature;
    } legacy[] = {{2, "appendOnly"},       {2, "invariants"},      {3, "checkConstraints"},
                  {4, "changeDataFeed"},   {4, "generatedColumns"}, {5, "columnMapping"},
                  {6, "identityColumns"}};
    size_t idx;
    if (p->min_writer_version >= 7)
        return dproto_has_feature(p, feature, 1);
    for (idx = 0; idx < sizeof(legacy) / sizeof(legacy[0]); idx++)
        if (strcmp(legacy[idx].feature, feature) == 0)
            return p->min_writer_version >= legacy[idx].version;
    return 0;
}

/* Reader-writer features must also be readable: listed at reader 3, or column mapping at 2. */
static int supports_reader_feature(const dlog_protocol *p, const char *feature)
{
    if (p->min_reader_version >= 3)
        return dproto_has_feature(p, feature, 0);
    return strcmp(feature, "columnMapping") == 0 && p->min_reader_version >= 2;
}

static silt_status not_covered(silt_error *err, const dlog_protocol *p, const char *property,
                               const char *feature)
{
    err_set(err, SILT_UNSUPPORTED,
            "%s needs the table feature \"%s\", which the table's protocol (%d,%d) does not "
            "support",
            property, feature, (int)p->min_reader_version, (int)p->min_writer_version);
    err_hint(err, "upgrade the protocol in the same commit");
    return SILT_UNSUPPORTED;
}

silt_status delta_check_protocol_covers(const dlog_protocol *p, const dlog_metadata *md,
                                        int uses_domains, silt_error *err)
{
    static const struct {
        const char *property;
        const char *feature;
        int reader;
    } by_property[] = {{"delta.appendOnly", "appendOnly", 0},
                       {"delta.enableChangeDataFeed", "changeDataFeed", 0},
                       {"delta.enableDeletionVectors", "deletionVectors", 1},
                       {"delta.enableInCommitTimestamps", "inCommitTimestamp", 0}};
    size_t idx;
    int mapping = 0;
    for (idx = 0; idx < sizeof(by_property) / sizeof(by_property[0]); idx++) {
        const char *feature = by_property[idx].feature;
        if (!property_true(md, by_property[idx].property))
            continue;
        if (!supports_writer_feature(p, feature) ||
            (by_property[idx].reader && !supports_reader_feature(p, feature)))
            return not_covered(err, p, by_property[idx].property, feature);
    }
    if (has_type(md->schema, COL_TIMESTAMP_NTZ) &&
        (!supports_writer_feature(p, "timestampNtz") ||
         !supports_reader_feature(p, "timestampNtz")))
        return not_covered(err, p, "a timestamp_ntz column", "timestampNtz");
    SILT_RETURN_IF_ERROR(mapping_mode(md, &mapping, err));
    if (mapping && (!supports_writer_feature(p, "columnMapping") ||
                    !supports_reader_feature(p, "columnMapping")))
        return not_covered(err, p, "delta.columnMapping.mode", "columnMapping");
    if (field_meta_has(md->schema, "delta.generationExpression") &&
        !supports_writer_feature(p, "generatedColumns"))
        return not_covered(err, p, "a generated column", "generatedColumns");
    if (field_meta_has(md->schema, "delta.identity.") &&
        !supports_writer_feature(p, "identityColumns"))
        return not_covered(err, p, "an identity column", "identityColumns");
    if (has_constraints(md) && !supports_writer_feature(p, "checkConstraints"))
        return not_covered(err, p, "a CHECK constraint", "checkConstraints");
    if (uses_domains && !supports_writer_feature(p, "domainMetadata"))
        return not_covered(err, p, "domain metadata", "domainMetadata");
    return SILT_OK;
}

/* ---- new tables -------------------------------------------------------------------------- */

static silt_status unsupported_property(silt_error *err, const char *property)
{
    return err_set(err, SILT_UNSUPPORTED,
                   "cannot create a table with \"%s\": silt does not implement that feature",
                   property);
}

static silt_status mapping_mode(const dlog_metadata *md, int *on_out, silt_error *err)
{
    dproto_mapping_mode mode = DPROTO_MAPPING_NONE;
    SILT_RETURN_IF_ERROR(dproto_get_mapping_mode(md, &mode, err));
    *on_out = mode != DPROTO_MAPPING_NONE;
    return SILT_OK;
}

silt_status delta_protocol_for_new_table(const dlog_metadata *md, int uses_domains, arena *a,
                                         dlog_protocol *out, silt_error *err)
{
    const char *reader[4], *writer[12];
    size_t n_reader = 0, n_writer = 0;
    int ntz = has_type(md->schema, COL_TIMESTAMP_NTZ);
    int dv = property_true(md, "delta.enableDeletionVectors");
    int ict = property_true(md, "delta.enableInCommitTimestamps");
    int cdf = property_true(md, "delta.enableChangeDataFeed");
    int generated = field_meta_has(md->schema, "delta.generationExpression");
    int identity = field_meta_has(md->schema, "delta.identity.");
    int mapping = 0;

    if (has_constraints(md))
        return unsupported_property(err, "delta.constraints");
    if (property_true(md, "delta.enableRowTracking"))
        return unsupported_property(err, "delta.enableRowTracking");
    if (dlog_map_get(&md->configuration, "delta.checkpointPolicy", NULL) != NULL &&
        strcmp(dlog_map_get(&md->configuration, "delta.checkpointPolicy", NULL), "classic") != 0)
        return unsupported_property(err, "delta.checkpointPolicy");
    if (field_meta_has(md->schema, "delta.invariants"))
        return unsupported_property(err, "column invariants");
    SILT_RETURN_IF_ERROR(mapping_mode(md, &mapping, err));

    memset(out, 0, sizeof(*out));
    if (ntz || dv || ict || uses_domains || cdf || mapping || generated || identity) {
        /* Table features, as Delta 4.1 creates tables (the Spark peer: the change data feed
         * alone gives (1,7), column mapping alone (2,7)): what version 2 implied, then what
         * is needed; a generated column lists generatedColumns first, as the peer). */
        if (identity)
            writer[n_writer++] = "identityColumns";
        if (generated)
            writer[n_writer++] = "generatedColumns";
        writer[n_writer++] = "appendOnly";
        writer[n_writer++] = "invariants";
        if (cdf)
            writer[n_writer++] = "changeDataFeed";
        if (mapping) {
            reader[n_reader++] = writer[n_writer++] = "columnMapping";
        }
        if (dv)
            reader[n_reader++] = writer[n_writer++] = "deletionVectors";
        if (ntz)
            reader[n_reader++] = writer[n_writer++] = "timestampNtz";
        if (ict)
            writer[n_writer++] = "inCommitTimestamp";
        if (uses_domains)
            writer[n_writer++] = "domainMetadata";
        if (n_reader == 1 && mapping) /* reader version 2 is column mapping: no list */
            n_reader = 0;
        out->min_reader_version = n_reader > 0 ? 3 : mapping ? 2 : 1;
        out->min_writer_version = 7;
        out->has_writer_features = 1;
        out->n_writer_features = n_writer;
        out->writer_features = arena_memdup(a, writer, n_writer * sizeof(writer[0]));
        if (n_reader > 0) {
            out->has_reader_features = 1;
            out->n_reader_features = n_reader;
            out->reader_features = arena_memdup(a, reader, n_reader * sizeof(reader[0]));
            if (out->reader_features == NULL)
                return err_nomem(err);
        }
        if (out->writer_features == NULL)
            return err_nomem(err);
    } else {
        out->min_reader_version = 1;
        out->min_writer_version = 2;
    }
    return SILT_OK;
}

/* ---- column mapping ids for a new table --------------------------------------------------- */

typedef struct mapping_ctx {
    arena *a;
    int64_t next_id;
    int keep_names; /* physical name = logical name (an existing table's upgrade) */
    silt_error *err;
} mapping_ctx;

static silt_status map_type(mapping_ctx *ctx, const col_type *in, const col_type **out);

/* The field's metadata with delta.columnMapping.id and physicalName added. */
static silt_status map_field(mapping_ctx *ctx, const col_field *in, col_field *out)
{
    cJSON *meta = in->metadata_json ? cJSON_Parse(in->metadata_json) : cJSON_CreateObject();
    char uuid[37], physical[48];
    char *text;
    int64_t id;
    *out = *in;
    if (meta == NULL)
        return err_nomem(ctx->err);
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(meta, "delta.columnMapping.id"))) {
        cJSON_Delete(meta); /* mapped already (ALTER ADD COLUMNS): only new fields get ids */
        return map_type(ctx, in->type, &out->type);
    }
    id = ++ctx->next_id;
    if (ctx->keep_names) {
        physical[0] = '\0';
    } else if (delta_uuid_v4(uuid, ctx->err) != SILT_OK) {
        cJSON_Delete(meta);
        return ctx->err ? ctx->err->code : SILT_IO;
    } else {
        snprintf(physical, sizeof(physical), "col-%s", uuid);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "delta.columnMapping.id");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "delta.columnMapping.physicalName");
    cJSON_AddNumberToObject(meta, "delta.columnMapping.id", (double)id);
    cJSON_AddStringToObject(meta, "delta.columnMapping.physicalName",
                            ctx->keep_names ? in->name : physical);
    text = cJSON_PrintUnformatted(meta);
    cJSON_Delete(meta);
    if (text == NULL)
        return err_nomem(ctx->err);
    out->metadata_json = arena_strdup(ctx->a, text);
    cJSON_free(text);
    out->field_id = (int32_t)id;
    if (out->metadata_json == NULL)
        return err_nomem(ctx->err);
    return map_type(ctx, in->type, &out->type);
}

static silt_status map_type(mapping_ctx *ctx, const col_type *in, const col_type **out)
{
    col_type *copy;
    col_field *fields;
    size_t idx;
    *out = in;
    if (!col_type_is_nested(in->id))
        return SILT_OK;
    copy = arena_memdup(ctx->a, in, sizeof(*in));
    fields = arena_memdup(ctx->a, in->fields, in->n_fields * sizeof(*fields));
    if (copy == NULL || (fields == NULL && in->n_fields > 0))
        return err_nomem(ctx->err);
    for (idx = 0; idx < in->n_fields; idx++) {
        if (in->id == COL_STRUCT)
            SILT_RETURN_IF_ERROR(map_field(ctx, &in->fields[idx], &fields[idx]));
        else
            SILT_RETURN_IF_ERROR(map_type(ctx, in->fields[idx].type, &fields[idx].type));
    }
    copy->fields = fields;
    *out = copy;
    return SILT_OK;
}

silt_status delta_mapping_assign(arena *a, const col_type *schema, int keep_names,
                                 int64_t *max_id, const col_type **out, silt_error *err)
{
    mapping_ctx ctx;
    ctx.a = a;
    ctx.next_id = *max_id;
    ctx.keep_names = keep_names;
    ctx.err = err;
    SILT_RETURN_IF_ERROR(map_type(&ctx, schema, out));
    *max_id = ctx.next_id;
    return SILT_OK;
}

static silt_status check_partition_columns(const col_type *schema, size_t n,
                                           const char *const *names, silt_error *err)
{
    size_t idx, field;
    for (idx = 0; idx < n; idx++) {
        for (field = 0; field < schema->n_fields; field++)
            if (strcmp(schema->fields[field].name, names[idx]) == 0)
                break;
        if (field == schema->n_fields)
            return err_set(err, SILT_INVALID,
                           "cannot partition by \"%s\": the schema has no such top-level column",
                           names[idx]);
        if (col_type_is_nested(schema->fields[field].type->id))
            return err_set(err, SILT_INVALID,
                           "cannot partition by \"%s\": partition columns must be of a primitive "
                           "type",
                           names[idx]);
    }
    return SILT_OK;
}

silt_status delta_metadata_for_new_table(dlog_metadata *out, arena *a, const col_type *schema,
                                         size_t n_partition_columns,
                                         const char *const *partition_columns,
                                         const dlog_map *configuration, silt_error *err)
{
    char uuid[37];
    buf text = BUF_INIT;
    size_t idx;
    int mapping = 0;
    silt_status rc;
    mapping_ctx ctx = {a, 0, 0, err};

    memset(out, 0, sizeof(*out));
    SILT_RETURN_IF_ERROR(
        check_partition_columns(schema, n_partition_columns, partition_columns, err));
    SILT_RETURN_IF_ERROR(delta_uuid_v4(uuid, err));
    out->id = arena_strdup(a, uuid);
    out->format_provider = "parquet";
    out->n_partition_columns = n_partition_columns;
    out->partition_columns = arena_calloc(a, n_partition_columns + 1, sizeof(char *));
    out->configuration.items = arena_calloc(a, (configuration ? configuration->n : 0) + 1,
                                            sizeof(dlog_kv));
    if (out->id == NULL || out->partition_columns == NULL || out->configuration.items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_partition_columns; idx++)
        if ((out->partition_columns[idx] = arena_strdup(a, partition_columns[idx])) == NULL)
            return err_nomem(err);
    for (idx = 0; configuration != NULL && idx < configuration->n; idx++) {
        dlog_kv *kv = &out->configuration.items[out->configuration.n++];
        kv->key = arena_strdup(a, configuration->items[idx].key);
        kv->value = configuration->items[idx].value
                        ? arena_strdup(a, configuration->items[idx].value)
                        : NULL;
        if (kv->key == NULL)
            return err_nomem(err);
    }
    out->schema = schema;
    SILT_RETURN_IF_ERROR(mapping_mode(out, &mapping, err));
    if (mapping) {
        /* PROTOCOL: Column Mapping, Writer Requirements: ids and physical names on every field. */
        SILT_RETURN_IF_ERROR(map_type(&ctx, schema, &out->schema));
        out->configuration.items[out->configuration.n].key = "delta.columnMapping.maxColumnId";
        out->configuration.items[out->configuration.n].value =
            arena_sprintf(a, "%lld", (long long)ctx.next_id);
        out->configuration.n++;
    }
    rc = delta_schema_to_json(out->schema, &text, err);
    if (rc == SILT_OK && (out->schema_string = arena_strdup(a, buf_cstr(&text))) == NULL)
        rc = err_nomem(err);
    buf_clear(&text);
    out->has_created_time = 1;
    out->created_time = time_now_micros() / 1000;
    return rc;
}
