/*
 * protocol.h - protocol versions, table features and column mapping.
 *
 * PROTOCOL: Protocol Evolution, Table Features, Column Mapping. silt reads
 * tables up to reader version 3 with the reader features listed in
 * dproto_reader_features(); a table that needs any other reader feature is
 * refused with SILT_UNSUPPORTED naming the feature, never read wrongly.
 */
#ifndef SILT_DELTA_PROTOCOL_H
#define SILT_DELTA_PROTOCOL_H

#include "delta/actions.h"

/* The reader features silt implements, NULL-terminated. */
const char *const *dproto_reader_features(void);

/* 1 when the protocol lists the feature as a reader (or writer, with writer = 1) feature. */
int dproto_has_feature(const dlog_protocol *protocol, const char *feature, int writer);

/*
 * SILT_OK when silt can read a table with this protocol (and metadata, for
 * legacy reader version 2 column mapping); SILT_UNSUPPORTED naming the
 * reader version or feature otherwise.
 */
silt_status dproto_check_readable(const dlog_protocol *protocol, silt_error *err);

/*
 * A protocol change asked for by table properties, as Delta takes them from
 * CREATE TABLE ... TBLPROPERTIES and ALTER TABLE ... SET TBLPROPERTIES:
 * delta.minReaderVersion (1-3), delta.minWriterVersion (1-7) and
 * delta.feature.<name> = 'supported' (or 'enabled'). They change the
 * protocol and are never stored as properties (protocol_change.c).
 */
#define DPROTO_MAX_FEATURES 32
typedef struct dproto_request {
    int any;            /* some protocol property was given */
    int reader, writer; /* 0 = not asked */
    size_t n_features;
    const char *features[DPROTO_MAX_FEATURES]; /* Delta's names (static strings) */
} dproto_request;

/* 1 for delta.minReaderVersion, delta.minWriterVersion and delta.feature.* (any case). */
int dproto_is_request_key(const char *key);
/*
 * The features a legacy protocol (reader, writer) implies, in Delta's order
 * (appendOnly, invariants for (1, 2), ...), at most cap of them into out;
 * their count. DESCRIBE DETAIL lists them as Spark does.
 */
size_t dproto_legacy_features(int reader, int writer, const char **out, size_t cap);

/*
 * Takes the protocol properties out of props (the others stay, in order)
 * into req. Errors, as the Spark peer words them: a version out of range
 * (SILT_INVALID "... needs to be one of 1, 2, 3."), a status other than
 * supported or enabled ([DELTA_UNSUPPORTED_FEATURE_STATUS]), a feature
 * Delta does not know ([DELTA_UNSUPPORTED_FEATURES_IN_CONFIG]); a feature
 * silt cannot write tables with is SILT_UNSUPPORTED, naming it.
 */
silt_status dproto_request_take(dlog_map *props, dproto_request *req, silt_error *err);

/*
 * The lowest legal protocol supporting every feature base supports and
 * every one req asks for (never a downgrade); *changed = 0 and *out =
 * *base when that is base's feature set already. Lists live in a.
 */
silt_status dproto_request_apply(const dlog_protocol *base, const dproto_request *req, arena *a,
                                 dlog_protocol *out, int *changed, silt_error *err);

typedef enum dproto_mapping_mode {
    DPROTO_MAPPING_NONE = 0,
    DPROTO_MAPPING_NAME,
    DPROTO_MAPPING_ID
} dproto_mapping_mode;

/* delta.columnMapping.mode of the table; SILT_CORRUPT for a value the protocol does not define. */
silt_status dproto_get_mapping_mode(const dlog_metadata *metadata, dproto_mapping_mode *out,
                                silt_error *err);

/*
 * Physical name of a field (PROTOCOL: Column Mapping): the
 * delta.columnMapping.physicalName of its metadata in name and id mode, the
 * logical name without mapping. Allocated in a. SILT_CORRUPT when the
 * mapping needs a physical name that is missing.
 */
silt_status dproto_physical_name(const col_field *field, dproto_mapping_mode mode, arena *a,
                                 const char **out, silt_error *err);

/*
 * The same schema with physical field names at every level (and field ids
 * from delta.columnMapping.id), for reading data files. Without mapping the
 * schema is returned as is.
 */
silt_status dproto_physical_schema(const col_type *logical, dproto_mapping_mode mode, arena *a,
                                   const col_type **out, silt_error *err);

#endif
