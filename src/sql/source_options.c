/*
 * source_options.c - the Delta reader options of a source with options
 * (CREATE TEMPORARY VIEW v USING delta OPTIONS (...)), as Delta 4's
 * DeltaOptions reads them for a batch read.
 *
 * versionAsOf and timestampAsOf act (time travel, with the error classes
 * the Spark peer raises); readChangeFeed (readChangeData) 'true' makes the
 * source the change data feed between startingVersion/startingTimestamp and
 * endingVersion/endingTimestamp (a version wins over a timestamp, as in
 * Delta; without readChangeFeed they are read and do nothing, as in Delta's
 * batch reads; source_cdf.c, delta/cdf.h); any other option is refused
 * as the CSV and JSON readers refuse theirs (Spark would ignore it, silt
 * does not accept what it does not act on: docs/settings.md). Names are
 * case-insensitive, as Spark's options. check.settings reads the table
 * below: an accepted option must be read in the file it names. A Parquet
 * source takes no option but its path yet (mergeSchema, datetimeRebaseMode
 * ... are refused by name).
 */
#include <string.h>

#include "sql/binder_int.h"
#include "util/time.h"

typedef struct delta_reader_option {
    const char *name;
    int accepted;       /* 0: known to Delta, refused by name */
    const char *reader; /* the file that reads it */
    const char *why;    /* why a refused one is refused */
} delta_reader_option;

static const delta_reader_option delta_reader_options[] = {
    {"path", 1, "src/sql/source.c", NULL},
    {"versionAsOf", 1, "src/sql/source_options.c", NULL},
    {"timestampAsOf", 1, "src/sql/source_options.c", NULL},
    {"readChangeFeed", 1, "src/sql/source_options.c", NULL},
    {"readChangeData", 1, "src/sql/source_options.c", NULL},
    {"startingVersion", 1, "src/sql/source_options.c", NULL},
    {"endingVersion", 1, "src/sql/source_options.c", NULL},
    {"startingTimestamp", 1, "src/sql/source_options.c", NULL},
    {"endingTimestamp", 1, "src/sql/source_options.c", NULL},
    {NULL, 0, NULL, NULL}};

static const delta_reader_option *find_option(const char *name)
{
    const delta_reader_option *o;
    for (o = delta_reader_options; o->name != NULL; o++)
        if (util_str_casecmp(o->name, name) == 0)
            return o;
    return NULL;
}

static silt_status version_as_of(const char *value, int64_t *out, silt_error *err)
{
    if (!util_str_to_int64(value, strlen(value), out) || *out < 0)
        return err_set(err, SILT_INVALID, "[DELTA_TIME_TRAVEL_INVALID_BEGIN_VALUE] versionAsOf "
                       "needs to be a valid begin value.");
    return SILT_OK;
}

static silt_status timestamp_as_of(const char *value, int64_t *out, silt_error *err)
{
    int has_zone;
    if (!time_parse_timestamp(value, strlen(value), out, &has_zone))
        return err_set(err, SILT_INVALID, "[DELTA_TIMESTAMP_INVALID] The provided timestamp "
                       "('%s') cannot be converted to a valid timestamp.", value);
    return SILT_OK;
}

/* startingVersion / endingVersion: Delta's DELTA_VERSION_INVALID for anything but a number. */
static silt_status cdf_version(const char *value, int64_t *out, silt_error *err)
{
    if (!util_str_to_int64(value, strlen(value), out) || *out < 0)
        return err_set(err, SILT_INVALID, "[DELTA_VERSION_INVALID] The provided version (%s) is "
                       "not a valid version.", value);
    return SILT_OK;
}

/* The change data feed options (delta/cdf.h reads the range; Delta's DeltaOptions checks). */
static silt_status cdf_option(const char *key, const char *value, sql_cdf_read *cdf,
                              silt_error *err)
{
    if (util_str_casecmp(key, "readChangeFeed") == 0 ||
        util_str_casecmp(key, "readChangeData") == 0) {
        if (util_str_casecmp(value, "true") != 0 && util_str_casecmp(value, "false") != 0)
            return err_set(err, SILT_INVALID, "[DELTA_ILLEGAL_OPTION] Invalid value '%s' for "
                           "option '%s', must be 'true' or 'false'", value, key);
        cdf->on |= util_str_casecmp(value, "true") == 0;
    } else if (util_str_casecmp(key, "startingVersion") == 0) {
        return cdf_version(value, &cdf->start_version, err);
    } else if (util_str_casecmp(key, "endingVersion") == 0) {
        return cdf_version(value, &cdf->end_version, err);
    } else if (util_str_casecmp(key, "startingTimestamp") == 0) {
        cdf->start_timestamp = value;
    } else if (util_str_casecmp(key, "endingTimestamp") == 0) {
        cdf->end_timestamp = value;
    }
    return SILT_OK;
}

silt_status sql_source_delta_options(const char **kv, size_t n_kv, int64_t *version,
                                     int64_t *ts_micros, sql_cdf_read *cdf, silt_error *err)
{
    size_t idx;
    int by_version = 0, by_time = 0;
    memset(cdf, 0, sizeof(*cdf));
    cdf->start_version = cdf->end_version = -1;
    for (idx = 0; idx + 1 < n_kv; idx += 2) {
        const char *key = kv[idx], *value = kv[idx + 1] ? kv[idx + 1] : "";
        const delta_reader_option *o = find_option(key);
        if (o == NULL) {
            err_set(err, SILT_INVALID, "Delta option \"%s\" does not exist", key);
            err_hint(err, "a Delta source takes path, versionAsOf, timestampAsOf, readChangeFeed, "
                     "startingVersion, startingTimestamp, endingVersion and endingTimestamp");
            return SILT_INVALID;
        }
        if (util_str_casecmp(key, "versionAsOf") == 0) {
            SILT_RETURN_IF_ERROR(version_as_of(value, version, err));
            by_version = 1;
        } else if (util_str_casecmp(key, "timestampAsOf") == 0) {
            SILT_RETURN_IF_ERROR(timestamp_as_of(value, ts_micros, err));
            by_time = 1;
        } else {
            SILT_RETURN_IF_ERROR(cdf_option(key, value, cdf, err));
        }
    }
    if (cdf->on && (by_version || by_time))
        return err_set(err, SILT_INVALID, "[DELTA_UNSUPPORTED_TIME_TRAVEL_VIEWS] Cannot time "
                       "travel views, subqueries, streams or change data feed queries.");
    if (by_version && by_time)
        return err_set(err, SILT_INVALID, "[DELTA_ONEOF_IN_TIMETRAVEL] Please either provide "
                       "'timestampAsOf' or 'versionAsOf' for time travel.");
    return SILT_OK;
}

silt_status sql_source_parquet_options(const char **kv, size_t n_kv, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx + 1 < n_kv; idx += 2)
        if (util_str_casecmp(kv[idx], "path") != 0)
            return err_set(err, SILT_UNSUPPORTED, "Parquet option \"%s\" is not supported yet",
                           kv[idx]);
    return SILT_OK;
}
