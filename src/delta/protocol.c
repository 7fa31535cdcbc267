/*
 * protocol.c - which tables silt can read, and column mapping.
 *
 * PROTOCOL: Table Features, Column Mapping, Reader Requirements for Column
 * Mapping. Reader versions 1 and 2 have implicit features (2 = column
 * mapping); version 3 lists them in readerFeatures.
 */
#include "delta/protocol.h"

#include <cjson/cJSON.h>
#include <string.h>

/*
 * typeWidening: silt widens on read (the scan converts older files to the
 * table type). v2Checkpoint, vacuumProtocolCheck need nothing more from a
 * reader than the log code provides. variantType and catalogManaged are
 * missing on purpose.
 */
static const char *const supported_reader_features[] = {
    "columnMapping",   "deletionVectors",     "timestampNtz", "typeWidening",
    "typeWidening-preview", "v2Checkpoint", "vacuumProtocolCheck", NULL,
};

const char *const *dproto_reader_features(void) { return supported_reader_features; }

int dproto_has_feature(const dlog_protocol *protocol, const char *feature, int writer)
{
    size_t idx;
    size_t n = writer ? protocol->n_writer_features : protocol->n_reader_features;
    const char **items = writer ? protocol->writer_features : protocol->reader_features;
    for (idx = 0; idx < n; idx++)
        if (strcmp(items[idx], feature) == 0)
            return 1;
    return 0;
}

silt_status dproto_check_readable(const dlog_protocol *protocol, silt_error *err)
{
    size_t idx;
    if (protocol->min_reader_version < 1 || protocol->min_reader_version > 3) {
        err_set(err, SILT_UNSUPPORTED, "the table needs Delta reader version %d; silt reads "
                "versions 1 to 3", (int)protocol->min_reader_version);
        return SILT_UNSUPPORTED;
    }
    if (protocol->min_reader_version < 3)
        return SILT_OK;
    for (idx = 0; idx < protocol->n_reader_features; idx++) {
        const char *feature = protocol->reader_features[idx];
        size_t known;
        int found = 0;
        for (known = 0; supported_reader_features[known] != NULL; known++)
            if (strcmp(supported_reader_features[known], feature) == 0)
                found = 1;
        if (!found) {
            err_set(err, SILT_UNSUPPORTED, "the table needs reader feature \"%s\", which silt "
                    "does not support", feature);
            return SILT_UNSUPPORTED;
        }
    }
    return SILT_OK;
}

silt_status dproto_get_mapping_mode(const dlog_metadata *metadata, dproto_mapping_mode *out,
                                silt_error *err)
{
    const char *mode = dlog_map_get(&metadata->configuration, "delta.columnMapping.mode", NULL);
    *out = DPROTO_MAPPING_NONE;
    if (mode == NULL || strcmp(mode, "none") == 0)
        return SILT_OK;
    if (strcmp(mode, "name") == 0)
        *out = DPROTO_MAPPING_NAME;
    else if (strcmp(mode, "id") == 0)
        *out = DPROTO_MAPPING_ID;
    else
        return err_set(err, SILT_CORRUPT, "table property \"delta.columnMapping.mode\" has "
                       "value \"%s\"; expected none, name or id", mode);
    return SILT_OK;
}

silt_status dproto_physical_name(const col_field *field, dproto_mapping_mode mode, arena *a,
                                 const char **out, silt_error *err)
{
    cJSON *meta;
    const cJSON *name;
    *out = field->name;
    if (mode == DPROTO_MAPPING_NONE)
        return SILT_OK;
    meta = field->metadata_json ? cJSON_Parse(field->metadata_json) : NULL;
    name = meta ? cJSON_GetObjectItemCaseSensitive(meta, "delta.columnMapping.physicalName") : NULL;
    if (!cJSON_IsString(name)) {
        cJSON_Delete(meta);
        return err_set(err, SILT_CORRUPT, "column \"%s\" has no "
                       "\"delta.columnMapping.physicalName\" although column mapping is on",
                       field->name);
    }
    *out = arena_strdup(a, name->valuestring);
    cJSON_Delete(meta);
    return *out ? SILT_OK : err_nomem(err);
}

silt_status dproto_physical_schema(const col_type *logical, dproto_mapping_mode mode, arena *a,
                                   const col_type **out, silt_error *err)
{
    size_t idx;
    col_field *fields;
    col_type *made = NULL;
    if (mode == DPROTO_MAPPING_NONE || !col_type_is_nested(logical->id)) {
        *out = logical;
        return SILT_OK;
    }
    fields = arena_calloc(a, logical->n_fields ? logical->n_fields : 1, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < logical->n_fields; idx++) {
        fields[idx] = logical->fields[idx];
        SILT_RETURN_IF_ERROR(dproto_physical_schema(logical->fields[idx].type, mode, a,
                                                    &fields[idx].type, err));
        if (logical->id == COL_STRUCT)
            SILT_RETURN_IF_ERROR(dproto_physical_name(&logical->fields[idx], mode, a,
                                                      &fields[idx].name, err));
    }
    switch (logical->id) {
    case COL_STRUCT: made = col_type_struct(a, logical->n_fields, fields); break;
    case COL_ARRAY: made = col_type_array(a, fields[0].type, fields[0].nullable); break;
    case COL_MAP: made = col_type_map(a, fields[0].type, fields[1].type, fields[1].nullable); break;
    default: break;
    }
    if (made == NULL)
        return err_nomem(err);
    *out = made;
    return SILT_OK;
}
