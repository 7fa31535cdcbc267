/*
 * settings.c - memory_limit and temp_directory (settings.h).
 *
 * Sizes follow DuckDB's memory_limit: KB/MB/GB/TB are powers of 1000 and
 * KiB/MiB/GiB/TiB powers of 1024, the unit is case-insensitive and may be
 * separated by a space; a bare number is bytes; "N%" is a share of the
 * machine's RAM. The default is 80% of physical RAM, like DuckDB's.
 * The same parser reads Spark's byte strings (silt.write.targetFileSize:
 * "64m", "1g", every unit a power of 1024) when asked to
 * (sql_settings_parse_size_as), so that silt has one size grammar with the
 * convention as a parameter rather than two parsers that drift apart.
 */
#define _POSIX_C_SOURCE 200809L

#include "sql/settings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/spill.h"
#include "formats/parquet/writer.h"
#include "sql/session.h"
#include "util/buf.h"

const char *const sql_settings_known_keys[] = {"memory_limit", "temp_directory", NULL};

/*
 * Every key SET accepts and the file that reads it: scripts/check-settings.py
 * (check.settings) fails when an honoured key is not read in its consumer,
 * or when a key read by silt is missing here. Keep the columns on one line
 * per entry: the check reads this table as text.
 */
const sql_setting_def sql_settings_registry[] = {
    {"memory_limit", 0, 1, SQL_SETTING_STRING, "src/sql/session.c",
     "memory the statements of all connections of the database may hold together before "
     "sorts, joins and aggregations spill to disk (default 80% of RAM)"},
    {"temp_directory", 0, 1, SQL_SETTING_STRING, "src/sql/session.c",
     "directory of spill files, removed when the query ends"},
    {"spark.sql.ansi.enabled", 0, 1, SQL_SETTING_BOOL, "src/sql/session.c",
     "ANSI SQL mode: overflow, division by zero and invalid casts are errors"},
    {"spark.sql.sources.partitionOverwriteMode", 0, 1, SQL_SETTING_STRING, "src/sql/exec_write.c",
     "INSERT OVERWRITE of a partitioned table: static (the whole table) or dynamic (the "
     "partitions written)"},
    {"spark.sql.sources.partitionColumnTypeInference.enabled", 0, 1, SQL_SETTING_BOOL, "src/sql/source_files.c",
     "types of the partition columns plain file sources discover (false: strings)"},
    {"spark.sql.parquet.compression.codec", 0, 1, SQL_SETTING_STRING, "src/sql/exec_write.c",
     "codec of the Parquet files writes produce (default snappy)"},
    {"spark.databricks.delta.schema.autoMerge.enabled", 0, 1, SQL_SETTING_BOOL,
     "src/sql/exec_write.c", "INSERT and MERGE add the columns the table lacks"},
    {"spark.databricks.delta.commitInfo.userMetadata", 0, 1, SQL_SETTING_STRING,
     "src/sql/exec_write.c", "commitInfo.userMetadata of every commit"},
    {"spark.databricks.delta.write.txnAppId", 0, 1, SQL_SETTING_STRING, "src/sql/exec_write.c",
     "idempotent writes: the application id of every write's txn action"},
    {"spark.databricks.delta.write.txnVersion", 0, 1, SQL_SETTING_LONG, "src/sql/exec_write.c",
     "idempotent writes: the version of every write's txn action; a write whose version the "
     "table already has is skipped"},
    {SQL_SETTING_PROPERTY_DEFAULTS, 1, 1, SQL_SETTING_STRING, "src/sql/exec_write.c",
     "the default of table property delta.<name> for every table created afterwards"},
    {"spark.hadoop.fs.s3a.", 1, 1, SQL_SETTING_STRING, "src/sql/session.c",
     "an S3A option of the stores statements open (fs.s3a.<name> too), checked by the S3 back "
     "end"},
    {"spark.hadoop.fs.azure.", 1, 1, SQL_SETTING_STRING, "src/sql/session.c",
     "an Azure option of the stores statements open (fs.azure.<name> too), checked by the Azure "
     "back end"},
    {"spark.hadoop.fs.gs.", 1, 1, SQL_SETTING_STRING, "src/sql/session.c",
     "a GCS option of the stores statements open (fs.gs.<name> too), checked by the GCS back end"},
    {"spark.databricks.delta.retentionDurationCheck.enabled", 0, 1, SQL_SETTING_BOOL,
     "src/sql/exec_maint.c", "VACUUM refuses a retention shorter than the table's"},
    {"spark.databricks.delta.optimize.maxFileSize", 0, 1, SQL_SETTING_STRING,
     "src/sql/exec_maint.c", "OPTIMIZE's target file size unless the table sets delta.targetFileSize"},
    {"spark.databricks.delta.optimize.minFileSize", 0, 1, SQL_SETTING_STRING,
     "src/sql/exec_maint.c", "OPTIMIZE leaves files of this size or more alone"},
    {"silt.write.targetFileSize", 0, 1, SQL_SETTING_STRING, "src/sql/exec_write.c",
     "size of the data files writes aim at, unless the table sets delta.targetFileSize"},
    {"silt.commit.retryTimeout", 0, 1, SQL_SETTING_STRING, "src/sql/exec_write.c",
     "how long a commit retries after losing races to other writers (default 10 minutes)"},
    {"spark.sql.session.timeZone", 0, SQL_SETTINGS_SESSION_TIME_ZONE_HONOURED, SQL_SETTING_STRING,
     "src/sql/session.c", "the session time zone: casts from and to string, display, date/time functions"},
    {"spark.sql.redaction.options.regex", 0, 1, SQL_SETTING_STRING, "src/sql/session.c",
     "SET shows the values of keys (or values) matching it as redacted (default (?i)url)"},
    {"silt.api.saveMode", 0, 0, SQL_SETTING_STRING, "src/sql/exec_write.c",
     "it is set by the C API's write around its statement only"},
    {NULL, 0, 0, SQL_SETTING_STRING, NULL, NULL}};

const sql_setting_def *sql_settings_find(const char *key)
{
    const sql_setting_def *d;
    for (d = sql_settings_registry; key != NULL && d->key != NULL; d++) {
        if (d->prefix ? strncmp(key, d->key, strlen(d->key)) == 0 && key[strlen(d->key)] != '\0'
                      : strcmp(key, d->key) == 0)
            return d;
    }
    return NULL;
}

/*
 * The table properties a properties.defaults.<name> setting may give (Delta
 * takes only its own properties from there): those silt reads, in
 * src/delta or src/sql (check.settings checks that each is read). Others
 * are refused at SET rather than left unread.
 */
const char *const sql_settings_default_properties[] = {
    "appendOnly", "checkpointInterval", "checkpointPolicy", "columnMapping.mode",
    "dataSkippingNumIndexedCols", "deletedFileRetentionDuration", "enableChangeDataFeed",
    "enableDeletionVectors", "enableExpiredLogCleanup", "enableInCommitTimestamps",
    "logRetentionDuration", "targetFileSize", "minReaderVersion", "minWriterVersion", NULL};

static silt_status check_default_property(const char *key, silt_error *err)
{
    const char *name = key + strlen(SQL_SETTING_PROPERTY_DEFAULTS);
    size_t idx;
    for (idx = 0; sql_settings_default_properties[idx] != NULL; idx++)
        if (strcmp(name, sql_settings_default_properties[idx]) == 0)
            return SILT_OK;
    if (strncmp(name, "feature.", 8) == 0 && name[8] != '\0')
        return SILT_OK; /* delta.feature.<name>: the protocol checks the feature at CREATE */
    err_set(err, SILT_UNSUPPORTED, "the setting \"%s\" is not supported: silt does not "
            "honour the table property delta.%s", key, name);
    err_hint(err, "the properties.defaults settings silt takes are those of the properties "
             "it honours (docs/settings.md)");
    return SILT_UNSUPPORTED;
}

/* Spark's and silt's own namespaces: a key there that silt does not honour is refused. */
static int reserved_key(const char *key)
{
    return util_str_ncasecmp(key, "spark.", 6) == 0 || util_str_ncasecmp(key, "silt.", 5) == 0;
}

const char *sql_settings_canonical_key(const char *key)
{
    if (key == NULL)
        return NULL;
    if (util_str_casecmp(key, "memory_limit") == 0 || util_str_casecmp(key, "silt.memory_limit") == 0 ||
        util_str_casecmp(key, "max_memory") == 0)
        return "memory_limit";
    if (util_str_casecmp(key, "temp_directory") == 0 || util_str_casecmp(key, "silt.temp_directory") == 0)
        return "temp_directory";
    return key;
}

int64_t sql_settings_physical_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    return (int64_t)pages * (int64_t)page;
}

int64_t sql_settings_default_memory_limit(void)
{
    int64_t ram = sql_settings_physical_ram();
    return ram > 0 ? ram / 10 * 8 : (int64_t)4 << 30;
}

typedef struct size_unit {
    const char *name;
    double factor;
} size_unit;

/* DuckDB's memory_limit: k/KB... powers of 1000, KiB... powers of 1024. */
static const size_unit duckdb_units[] = {
    {"", 1},        {"b", 1},           {"bytes", 1},          {"k", 1e3},
    {"kb", 1e3},    {"m", 1e6},         {"mb", 1e6},           {"g", 1e9},
    {"gb", 1e9},    {"t", 1e12},        {"tb", 1e12},          {"kib", 1024.0},
    {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0}};

/* Spark's byte strings (JavaUtils.byteStringAs): every unit a power of 1024. */
static const size_unit spark_units[] = {
    {"", 1},          {"b", 1},          {"k", 1024.0},       {"kb", 1024.0},
    {"m", 1048576.0}, {"mb", 1048576.0}, {"g", 1073741824.0}, {"gb", 1073741824.0},
    {"t", 1099511627776.0}, {"tb", 1099511627776.0}};

/*
 * One grammar for both conventions: a number, a unit, and (DuckDB only)
 * spaces around them, a fraction, or "N%" of RAM. Spark's byte strings
 * are a whole number glued to its unit ("64m", "1g").
 */
int sql_settings_parse_size_as(const char *text, settings_size_convention conv, int64_t *out)
{
    const int duck = conv == SETTINGS_SIZE_DUCKDB;
    const size_unit *units = duck ? duckdb_units : spark_units;
    size_t n_units = duck ? sizeof(duckdb_units) / sizeof(duckdb_units[0])
                          : sizeof(spark_units) / sizeof(spark_units[0]);
    const char *p = text, *num_end;
    char unit[8];
    size_t n = 0, idx;
    double x;
    while (duck && *p == ' ')
        p++;
    num_end = p;
    while ((*num_end >= '0' && *num_end <= '9') || (duck && *num_end == '.'))
        num_end++;
    if (num_end == p || !util_str_to_double(p, (size_t)(num_end - p), &x) || !(x >= 0))
        return 0;
    p = num_end;
    while (duck && *p == ' ')
        p++;
    if (duck && *p == '%') {
        int64_t ram = sql_settings_physical_ram();
        if (p[1] != '\0' || x <= 0 || x > 100 || ram <= 0)
            return 0;
        *out = (int64_t)((double)ram * x / 100.0);
        return 1;
    }
    while (*p != '\0' && *p != ' ' && n < sizeof(unit) - 1)
        unit[n++] = *p++;
    unit[n] = '\0';
    while (duck && *p == ' ')
        p++;
    if (*p != '\0')
        return 0;
    for (idx = 0; idx < n_units; idx++) {
        if (util_str_casecmp(unit, units[idx].name) == 0) {
            double bytes = floor(x * units[idx].factor);
            if (bytes < 1 || bytes > 9.0e18)
                return 0;
            *out = (int64_t)bytes;
            return 1;
        }
    }
    return 0;
}

int sql_settings_parse_size(const char *text, int64_t *out)
{
    return sql_settings_parse_size_as(text, SETTINGS_SIZE_DUCKDB, out);
}

/* The value without the quotes SET keeps ('2GB' -> 2GB). */
static const char *unquote(const char *value, arena *a)
{
    size_t len = strlen(value);
    if (len >= 2 && (value[0] == '\'' || value[0] == '"') && value[len - 1] == value[0])
        return arena_strndup(a, value + 1, len - 2);
    return value;
}

/* Hadoop's zstd level conf, as a SET may name it (silt cannot take it: see below). */
static int is_zstd_level_key(const char *key)
{
    return strcmp(key, "parquet.compression.codec.zstd.level") == 0 ||
           strcmp(key, "spark.hadoop.parquet.compression.codec.zstd.level") == 0;
}

/*
 * spark.sql.parquet.compression.codec: Spark's checkValues, case-insensitive,
 * kept lower-case as Spark's transform does. The zstd level (a Hadoop conf)
 * is refused by name: silt's writer does not take a level from the session.
 */
static silt_status normalize_codec(const char *key, const char *value, arena *a,
                                   const char **value_out, silt_error *err)
{
    char *low;
    if (is_zstd_level_key(key))
        return err_set(err, SILT_UNSUPPORTED, "the setting \"%s\" is not supported: silt "
                       "writes zstd at level 3 (Spark's default)", key);
    low = (char *)unquote(value, a);
    if (low == NULL || (low == value && (low = arena_strdup(a, value)) == NULL))
        return err_nomem(err);
    util_str_ascii_lower(low, strlen(low));
    if (pqw_codec_by_spark_name(low) < 0)
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS] The "
                       "value '%s' in the config \"%s\" is invalid. It should be one of %s.",
                       low, key, pqw_codec_spark_names());
    *value_out = low;
    return SILT_OK;
}

/* The registry's word on SET key = value: unknown spark./silt. keys and bad values refused. */
static silt_status check_registered(const char *key, const char *value, silt_error *err)
{
    const sql_setting_def *d = sql_settings_find(key);
    int64_t n;
    if (d == NULL && !reserved_key(key))
        return SILT_OK; /* Spark keeps any other key; nothing reads it */
    if (d == NULL) {
        err_set(err, SILT_UNSUPPORTED, "[SQL_CONF_NOT_FOUND] The SQL config \"%s\" cannot be "
                "found. Please verify that the config exists.", key);
        err_hint(err, "silt refuses the Spark and silt settings it does not honour rather than "
                 "ignore them; docs/settings.md lists those it does");
        return SILT_UNSUPPORTED;
    }
    if (!d->honoured)
        return err_set(err, SILT_UNSUPPORTED, "the setting \"%s\" is not supported by silt yet: "
                       "%s", key, d->meaning);
    if (d->prefix && strcmp(d->key, SQL_SETTING_PROPERTY_DEFAULTS) == 0)
        SILT_RETURN_IF_ERROR(check_default_property(key, err));
    if (d->type == SQL_SETTING_BOOL && util_str_casecmp(value, "true") != 0 &&
        util_str_casecmp(value, "false") != 0)
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.TYPE_MISMATCH] The value '%s' in "
                       "the config \"%s\" is invalid. It should be a/an 'boolean' value.", value,
                       key);
    if (strcmp(key, "spark.sql.sources.partitionOverwriteMode") == 0 &&
        util_str_casecmp(value, "static") != 0 && util_str_casecmp(value, "dynamic") != 0)
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS] The value "
                       "'%s' in the config \"%s\" is invalid. It should be one of 'STATIC, "
                       "DYNAMIC'.", value, key);
    if (d->type == SQL_SETTING_LONG && !util_str_to_int64(value, strlen(value), &n))
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.TYPE_MISMATCH] The value '%s' in "
                       "the config \"%s\" is invalid. It should be a/an 'long' value.", value,
                       key);
    return SILT_OK;
}

silt_status sql_settings_normalize(const char *key, const char *value, arena *a,
                               const char **key_out, const char **value_out, silt_error *err)
{
    const char *canon = sql_settings_canonical_key(key);
    *key_out = key;
    *value_out = value;
    if (strcmp(key, SQL_SETTING_PARQUET_CODEC) == 0 || is_zstd_level_key(key))
        return normalize_codec(key, value, a, value_out, err);
    SILT_RETURN_IF_ERROR(check_registered(canon, value, err));
    if (canon == key)
        return SILT_OK;
    *key_out = canon;
    *value_out = unquote(value, a);
    if (*value_out == NULL)
        return err_nomem(err);
    if (strcmp(canon, "memory_limit") == 0) {
        int64_t bytes;
        if (!sql_settings_parse_size(*value_out, &bytes)) {
            err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE] the value '%s' of the config "
                    "\"memory_limit\" is invalid: it must be a size such as '2GB', '512MiB' "
                    "or '50%%'", *value_out);
            err_hint(err, "sizes take the units KB, MB, GB, TB (powers of 1000) or KiB, MiB, "
                     "GiB, TiB (powers of 1024); a bare number is bytes");
            return SILT_INVALID;
        }
    } else if ((*value_out)[0] == '\0') {
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE] the config \"temp_directory\" "
                       "must name a directory");
    }
    return SILT_OK;
}

const char *sql_settings_effective(const char *key, const char *stored, arena *a)
{
    const char *canon = sql_settings_canonical_key(key);
    if (canon == key && strcmp(key, "memory_limit") != 0 && strcmp(key, "temp_directory") != 0)
        return NULL;
    if (strcmp(canon, "memory_limit") == 0) {
        int64_t bytes = sql_settings_default_memory_limit();
        char text[32];
        if (stored != NULL && !sql_settings_parse_size(stored, &bytes))
            return stored;
        engine_format_bytes(bytes, text, sizeof(text));
        return arena_strdup(a, text);
    }
    return stored != NULL ? stored : "<default: $TMPDIR or /tmp>";
}

const char *sql_settings_meaning(const char *key)
{
    const sql_setting_def *d = sql_settings_find(sql_settings_canonical_key(key));
    return d != NULL ? d->meaning : NULL;
}

void sql_settings_apply(engine_ctx *ctx, mem_budget *budget, const char *temp_directory)
{
    ctx->budget = budget;
    ctx->mem_limit = budget != NULL ? mem_budget_limit(budget) : sql_settings_default_memory_limit();
    ctx->temp_dir = temp_directory;
}
