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
