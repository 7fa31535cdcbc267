/*
 * actions.h - the actions of the Delta transaction log, parsed and serialised.
 *
 * PROTOCOL: Actions. One commit file (`_delta_log/<version>.json`) holds one
 * JSON object per line, each with exactly one key naming the action. This
 * module turns such a line into a typed dlog_action and back.
 *
 * Lifetime: every string, map and schema of a parsed action lives in the
 * arena handed to the parser; actions are plain structs with no free
 * function. Optional numeric fields carry a has_ flag; optional strings are
 * NULL when absent.
 *
 * Unknown action names are skipped, as the protocol asks readers to do
 * (future actions are protected by table features). Malformed JSON and
 * required fields with the wrong type are SILT_CORRUPT with the file, line
 * and byte position in the message.
 */
#ifndef SILT_DELTA_ACTIONS_H
#define SILT_DELTA_ACTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

/* A map<string,string>; value NULL is a JSON null. Keys keep the log's order. */
typedef struct dlog_kv {
    const char *key;
    const char *value;
} dlog_kv;

typedef struct dlog_map {
    size_t n;
    dlog_kv *items;
} dlog_map;

/* Returns the value of key (NULL when absent or null); *found_out (may be NULL) says which. */
const char *dlog_map_get(const dlog_map *map, const char *key, int *found_out);

/* Deep copies into arena a (keys and values; NULL values stay NULL). */
silt_status dlog_map_copy(arena *a, const dlog_map *src, dlog_map *dst, silt_error *err);

/* PROTOCOL: Deletion Vector Descriptor Schema. storage_type 0 = no DV. */
/* The schema of a metaData without schemaString (Delta Live Tables' setup commit). */
#define DLOG_EMPTY_SCHEMA "{\"type\":\"struct\",\"fields\":[]}"

typedef struct dlog_dv {
    char storage_type; /* 'u', 'i', 'p' or 0 */
    const char *path_or_inline_dv;
    int64_t offset; /* -1 when absent */
    int32_t size_in_bytes;
    int64_t cardinality;
    int64_t max_row_index; /* -1 when absent */
} dlog_dv;

/* The DV's unique id "<type><pathOrInlineDv>[@offset]" into out (cleared first); "" without DV. */
silt_status dlog_dv_unique_id(const dlog_dv *dv, buf *out, silt_error *err);

typedef struct dlog_add {
    const char *path;     /* URI-decoded once: the name relative to the table root */
    const char *raw_path; /* as written in the log */
    dlog_map partition_values;
    int64_t size;
    int64_t modification_time; /* ms since the epoch */
    int data_change;
    const char *stats; /* raw JSON text or NULL */
    dlog_map tags;
    dlog_dv dv;
    int has_base_row_id;
    int64_t base_row_id;
    int has_default_row_commit_version;
    int64_t default_row_commit_version;
    const char *clustering_provider;
} dlog_add;

typedef struct dlog_remove {
    const char *path;
    const char *raw_path;
    int has_deletion_timestamp;
    int64_t deletion_timestamp;
    int data_change;
    int extended_file_metadata;
    dlog_map partition_values;
    int has_size;
    int64_t size;
    const char *stats;
    dlog_map tags;
    dlog_dv dv;
    int has_base_row_id;
    int64_t base_row_id;
    int has_default_row_commit_version;
    int64_t default_row_commit_version;
} dlog_remove;

typedef struct dlog_metadata {
    const char *id;
    const char *name;        /* NULL when absent */
    const char *description; /* NULL when absent */
    const char *format_provider;
    dlog_map format_options;
    const char *schema_string;
    const col_type *schema; /* STRUCT parsed from schema_string */
    size_t n_partition_columns;
    const char **partition_columns;
    dlog_map configuration;
    int has_created_time;
    int64_t created_time;
} dlog_metadata;

typedef struct dlog_protocol {
    int32_t min_reader_version;
    int32_t min_writer_version;
    int has_reader_features;
    size_t n_reader_features;
    const char **reader_features;
    int has_writer_features;
    size_t n_writer_features;
    const char **writer_features;
} dlog_protocol;

typedef struct dlog_txn {
    const char *app_id;
    int64_t version;
    int has_last_updated;
    int64_t last_updated;
} dlog_txn;

typedef struct dlog_domain_metadata {
    const char *domain;
    const char *configuration;
    int removed;
} dlog_domain_metadata;

/* commitInfo is free-form: kept verbatim, with the fields silt uses parsed. */
typedef struct dlog_commit_info {
    const char *raw_json; /* the object's JSON text */
    int has_timestamp;
    int64_t timestamp; /* ms */
    const char *operation;
    int has_in_commit_timestamp;
    int64_t in_commit_timestamp; /* ms */
} dlog_commit_info;

typedef struct dlog_cdc {
    const char *path;
    const char *raw_path;
    dlog_map partition_values;
    int64_t size;
    int data_change;
    dlog_map tags;
} dlog_cdc;

typedef struct dlog_checkpoint_metadata {
    int64_t version;
    dlog_map tags;
} dlog_checkpoint_metadata;

typedef struct dlog_sidecar {
    const char *path; /* decoded */
    int64_t size_in_bytes;
    int64_t modification_time;
    dlog_map tags;
} dlog_sidecar;

typedef enum dlog_action_type {
    DLOG_NONE = 0,
    DLOG_ADD,
    DLOG_REMOVE,
    DLOG_METADATA,
    DLOG_PROTOCOL,
    DLOG_TXN,
    DLOG_DOMAIN_METADATA,
    DLOG_COMMIT_INFO,
    DLOG_CDC,
    DLOG_CHECKPOINT_METADATA,
    DLOG_SIDECAR
} dlog_action_type;

typedef struct dlog_action {
    dlog_action_type type;
    union {
        dlog_add add;
        dlog_remove remove;
        dlog_metadata metadata;
        dlog_protocol protocol;
        dlog_txn txn;
        dlog_domain_metadata domain;
        dlog_commit_info commit_info;
        dlog_cdc cdc;
        dlog_checkpoint_metadata checkpoint_metadata;
        dlog_sidecar sidecar;
    } u;
} dlog_action;

/* Name of an action as the log writes it ("add", "metaData", ...). */
const char *dlog_action_name(dlog_action_type type);

/*
 * Parses one line of a commit. A blank line or an unknown action leaves
 * out->type = DLOG_NONE. On failure returns SILT_CORRUPT (or SILT_UNSUPPORTED
 * for a schema type silt cannot represent) and sets *pos_out to the byte
 * offset within the line where the problem is.
 */
silt_status dlog_parse_action(dlog_action *out, arena *a, const char *line, size_t len,
                              size_t *pos_out, silt_error *err);

/* Called for every action of a commit; a non-OK return stops the parse. */
typedef silt_status (*dlog_action_fn)(const dlog_action *action, void *payload, silt_error *err);

/*
 * Parses a whole commit (or JSON checkpoint / compaction file) line by line,
 * calling fn for every known action. Each line's parse tree is dropped before
 * the next line, so a big commit costs one line of JSON at a time plus the
 * actions in `a`. file_name is used in error messages.
 */
silt_status dlog_parse_commit(const char *data, size_t len, const char *file_name, arena *a,
                              dlog_action_fn fn, void *payload, silt_error *err);

/*
 * dlog_parse_commit for a piece of a file: complete lines starting at line
 * number first_line and byte first_byte of file_name (for messages).
 */
silt_status dlog_parse_lines(const char *data, size_t len, const char *file_name,
                            size_t first_line, int64_t first_byte, arena *a, dlog_action_fn fn,
                            void *payload, silt_error *err);

/*
 * Parses a Delta schema (PROTOCOL: Schema Serialization Format) into a
 * STRUCT col_type in arena a, keeping nullability and field metadata (as
 * JSON text in col_field.metadata_json; column mapping ids become
 * field_id). SILT_CORRUPT for malformed text, SILT_UNSUPPORTED for a type
 * silt does not have (variant, ...).
 */
silt_status dlog_parse_schema(const col_type **out, arena *a, const char *schema_json,
                              silt_error *err);

/*
 * Checks a parsed metaData action before a snapshot or a transaction uses
 * it: no struct of the schema (the top level or a nested one) names two
 * fields alike, ASCII case-insensitively as Spark resolves names
 * ("[DELTA_DUPLICATE_COLUMNS_FOUND]", naming a.b for a nested one; a
 * reader's conform step and a writer's column lookup both assume one field
 * per name), and every partition column is a column of the schema
 * ("[DELTA_PARTITION_COLUMN_NOT_FOUND]"). Fails with `code`: SILT_CORRUPT
 * for a table read, SILT_INVALID for a metadata a writer sets.
 */
silt_status dlog_metadata_check(const dlog_metadata *md, silt_status code, silt_error *err);

/*
 * Decodes %XX escapes once (PROTOCOL: paths are URI-encoded) into a string
 * in arena a. SILT_CORRUPT for a broken escape (naming where), SILT_NOMEM.
 */
silt_status dlog_uri_decode(arena *a, const char *s, size_t len, const char **out,
                            silt_error *err);

/*
 * Serialises an action as one commit line (no trailing newline) appended to
 * out. Supported for add, remove, metaData, protocol, txn, commitInfo,
 * domainMetadata and cdc; other types are SILT_INVALID.
 */
silt_status dlog_action_to_json(const dlog_action *action, buf *out, silt_error *err);

/*
 * Deep copies of actions into arena a, for keeping an action beyond the
 * parse it came from (parsers may hand out actions that live only for one
 * batch or line).
 */
silt_status dlog_add_copy(arena *a, const dlog_add *src, dlog_add *dst, silt_error *err);
silt_status dlog_remove_copy(arena *a, const dlog_remove *src, dlog_remove *dst,
                             silt_error *err);

#endif
