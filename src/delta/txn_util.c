/*
 * txn_util.c - small pieces of the write path: commit file names, UUIDs,
 * the schema string, interval properties and application versions.
 *
 * PROTOCOL: Delta Log Entries (20-digit version names), Schema
 * Serialization Format, Transaction Identifiers.
 */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "delta/log.h"
#include "delta/txn.h"

void delta_commit_key(int64_t version, char *out, size_t cap)
{
    snprintf(out, cap, DLOG_DIR "%020lld.json", (long long)version);
}

silt_status delta_uuid_v4(char out[37], silt_error *err)
{
    unsigned char bytes[16];
    size_t got = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0)
        return err_set(err, SILT_IO,
                       "could not open \"/dev/urandom\" to make a table or commit id");
    while (got < sizeof(bytes)) {
        ssize_t n = read(fd, bytes + got, sizeof(bytes) - got);
        if (n <= 0) {
            close(fd);
            return err_set(err, SILT_IO, "could not read \"/dev/urandom\" to make an id");
        }
        got += (size_t)n;
    }
    close(fd);
    bytes[6] = (unsigned char)((bytes[6] & 0x0f) | 0x40); /* version 4 */
    bytes[8] = (unsigned char)((bytes[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", bytes[0],
             bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
             bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
    return SILT_OK;
}

/* ---- schema string ----------------------------------------------------------------------- */

static cJSON *type_json(const col_type *type);

static cJSON *field_json(const col_field *field)
{
    cJSON *obj = cJSON_CreateObject(), *meta = NULL, *type;
    if (obj == NULL)
        return NULL;
    type = type_json(field->type);
    if (field->metadata_json != NULL)
        meta = cJSON_Parse(field->metadata_json);
    if (meta == NULL)
        meta = cJSON_CreateObject();
    if (type == NULL || meta == NULL) {
        cJSON_Delete(type);
        cJSON_Delete(meta);
        cJSON_Delete(obj);
        return NULL;
    }
    cJSON_AddStringToObject(obj, "name", field->name);
    cJSON_AddItemToObject(obj, "type", type);
    cJSON_AddBoolToObject(obj, "nullable", field->nullable);
    cJSON_AddItemToObject(obj, "metadata", meta);
    return obj;
}

static cJSON *type_json(const col_type *type)
{
    cJSON *obj, *fields, *child;
    char name[32];
    size_t idx;
    switch (type->id) {
    case COL_NULL: return NULL;
    case COL_DECIMAL:
        snprintf(name, sizeof(name), "decimal(%d,%d)", (int)type->precision, (int)type->scale);
        return cJSON_CreateString(name);
    case COL_STRUCT:
        obj = cJSON_CreateObject();
        fields = cJSON_CreateArray();
        if (obj == NULL || fields == NULL)
            break;
        cJSON_AddStringToObject(obj, "type", "struct");
        cJSON_AddItemToObject(obj, "fields", fields);
        for (idx = 0; idx < type->n_fields; idx++) {
            child = field_json(&type->fields[idx]);
            if (child == NULL) {
                cJSON_Delete(obj);
                return NULL;
            }
            cJSON_AddItemToArray(fields, child);
        }
        return obj;
    case COL_ARRAY:
        obj = cJSON_CreateObject();
        child = type_json(type->fields[0].type);
        if (obj == NULL || child == NULL)
            break;
        cJSON_AddStringToObject(obj, "type", "array");
        cJSON_AddItemToObject(obj, "elementType", child);
        cJSON_AddBoolToObject(obj, "containsNull", type->fields[0].nullable);
        return obj;
    case COL_MAP:
        obj = cJSON_CreateObject();
        child = type_json(type->fields[0].type);
        fields = type_json(type->fields[1].type);
        if (obj == NULL || child == NULL || fields == NULL) {
            cJSON_Delete(child);
            cJSON_Delete(fields);
            break;
        }
        cJSON_AddStringToObject(obj, "type", "map");
        cJSON_AddItemToObject(obj, "keyType", child);
        cJSON_AddItemToObject(obj, "valueType", fields);
        cJSON_AddBoolToObject(obj, "valueContainsNull", type->fields[1].nullable);
        return obj;
    default: return cJSON_CreateString(col_type_id_name(type->id));
    }
    cJSON_Delete(obj);
    return NULL;
}

static int has_null_type(const col_type *type)
{
    size_t idx;
    if (type->id == COL_NULL)
        return 1;
    for (idx = 0; idx < type->n_fields; idx++)
        if (has_null_type(type->fields[idx].type))
            return 1;
    return 0;
}

silt_status delta_schema_to_json(const col_type *schema, buf *out, silt_error *err)
{
    cJSON *root;
    char *text;
    silt_status rc;
    if (schema == NULL || schema->id != COL_STRUCT)
        return err_set(err, SILT_INVALID, "could not write a table schema: it is not a struct");
    if (has_null_type(schema))
        return err_set(err, SILT_INVALID,
                       "could not write a table schema: a column has the type of an untyped NULL");
    root = type_json(schema);
    if (root == NULL)
        return err_nomem(err);
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (text == NULL)
        return err_nomem(err);
    rc = buf_append_str(out, text, err);
    cJSON_free(text);
    return rc;
}

/* ---- intervals --------------------------------------------------------------------------- */

static int unit_ms(const char *unit, size_t len, int64_t *out)
{
    static const struct {
        const char *name;
        int64_t ms;
    } units[] = {{"millisecond", 1},       {"second", 1000},         {"minute", 60000},
                 {"hour", 3600000},        {"day", 86400000},        {"week", 604800000}};
    size_t idx;
    if (len > 0 && unit[len - 1] == 's')
        len--;
    for (idx = 0; idx < sizeof(units) / sizeof(units[0]); idx++)
        if (strlen(units[idx].name) == len && util_str_ncasecmp(unit, units[idx].name, len) == 0) {
            *out = units[idx].ms;
            return 1;
        }
    return 0;
}

silt_status delta_parse_interval_ms(const char *text, int64_t *out, silt_error *err)
{
    const char *p = text, *num, *unit;
    int64_t count, per;
    while (*p == ' ')
        p++;
    if (util_str_ncasecmp(p, "interval", 8) == 0 && (p[8] == ' ' || p[8] == '\t'))
        p += 8;
    while (*p == ' ' || *p == '\t')
        p++;
    num = p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == num || !util_str_to_int64(num, (size_t)(p - num), &count))
        goto bad;
    while (*p == ' ' || *p == '\t')
        p++;
    unit = p;
    while (*p != '\0' && *p != ' ' && *p != '\t')
        p++;
    if (!unit_ms(unit, (size_t)(p - unit), &per))
        goto bad;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '\0' || (count > 0 && per > INT64_MAX / count))
        goto bad;
    *out = count * per;
    return SILT_OK;
bad:
    return err_set(err, SILT_INVALID,
                   "could not read the interval \"%s\": expected a count and a unit such as "
                   "\"interval 30 days\"",
                   text);
}

int64_t delta_txn_app_version(const delta_snapshot *snap, const char *app_id)
{
    size_t idx;
    if (snap == NULL)
        return -1;
    for (idx = 0; idx < snap->n_txns; idx++)
        if (strcmp(snap->txns[idx].app_id, app_id) == 0)
            return snap->txns[idx].version;
    return -1;
}

int delta_app_txn_done(const delta_snapshot *snap, const delta_app_txn *t)
{
    return t != NULL && t->app_id != NULL && delta_txn_app_version(snap, t->app_id) >= t->version;
}
