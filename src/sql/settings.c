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

silt_status sql_settings_normalize(const char *key, const char *value, arena *a,
                               const char **key_out, const char **value_out, silt_error *err)
{
    const char *canon = sql_settings_canonical_key(key);
    *key_out = key;
    *value_out = value;
    if (strcmp(key, SQL_SETTING_PARQUET_CODEC) == 0 || is_zstd_level_key(key))
        return normalize_codec(key, value, a, value_out, err);
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
    const char *canon = sql_settings_canonical_key(key);
    if (strcmp(canon, "memory_limit") == 0)
        return "memory the statements of all connections of the database may hold together "
               "before sorts, joins and aggregations spill to disk (default 80% of RAM)";
    if (strcmp(canon, "temp_directory") == 0)
        return "directory of spill files, removed when the query ends";
    if (strcmp(canon, "spark.sql.ansi.enabled") == 0)
        return "ANSI SQL mode: overflow, division by zero and invalid casts are errors";
    return NULL;
}

void sql_settings_apply(engine_ctx *ctx, mem_budget *budget, const char *temp_directory)
{
    ctx->budget = budget;
    ctx->mem_limit = budget != NULL ? mem_budget_limit(budget) : sql_settings_default_memory_limit();
    ctx->temp_dir = temp_directory;
}
