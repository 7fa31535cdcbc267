/*
 * settings.h - session settings with meaning to silt itself: the query
 * memory limit and the directory of spill files (DuckDB's memory_limit and
 * temp_directory; `silt.` prefixed names are accepted too).
 *
 * session.c stores every SET key = value verbatim; these helpers
 * canonicalize and validate the keys they know at SET time, show their
 * effective values, and apply them to a query's engine_ctx.
 */
#ifndef SILT_SQL_SETTINGS_H
#define SILT_SQL_SETTINGS_H

#include "engine/engine.h"

/*
 * For a key silt knows, the canonical key ("memory_limit") and the value
 * to store (quotes removed, checked); other keys come back unchanged.
 * Errors: SILT_INVALID ([INVALID_CONF_VALUE]) for a value that is not a size.
 */
silt_status sql_settings_normalize(const char *key, const char *value, arena *a,
                               const char **key_out, const char **value_out, silt_error *err);

/* Canonical form of a key (silt.memory_limit -> memory_limit), or key itself. */
const char *sql_settings_canonical_key(const char *key);

/*
 * The unit conventions of sizes:
 *   SETTINGS_SIZE_DUCKDB  DuckDB's memory_limit: "2GB", "512 MiB", "1.5gb",
 *                         "100000" (bytes), "50%" (of physical RAM); KB, MB,
 *                         GB, TB (and k, m, g, t) are powers of 1000, KiB,
 *                         MiB, GiB, TiB powers of 1024; case-insensitive,
 *                         spaces allowed around the unit.
 *   SETTINGS_SIZE_SPARK   Spark's byte strings (spark.*.maxPartitionBytes,
 *                         silt.write.targetFileSize): a whole number glued
 *                         to b, k, kb, m, mb, g, gb, t or tb, every unit a
 *                         power of 1024 ("64m" = 64 MiB); no spaces,
 *                         fractions or percentages.
 */
typedef enum settings_size_convention {
    SETTINGS_SIZE_DUCKDB = 0,
    SETTINGS_SIZE_SPARK
} settings_size_convention;

/* Parses a size of at least one byte; returns 0 when the text is not a size. */
int sql_settings_parse_size_as(const char *text, settings_size_convention conv, int64_t *out);

/* sql_settings_parse_size_as(text, SETTINGS_SIZE_DUCKDB, out): memory_limit's sizes. */
int sql_settings_parse_size(const char *text, int64_t *out);

/* Physical RAM in bytes (sysconf), 0 when unknown. */
int64_t sql_settings_physical_ram(void);

/* The default memory limit: 80% of physical RAM (4 GiB when RAM is unknown). */
int64_t sql_settings_default_memory_limit(void);

/*
 * The effective value of a known key as SET key shows it (formatted in
 * arena a), or NULL for keys silt does not know. stored is what SET put in
 * the session (NULL = default).
 */
const char *sql_settings_effective(const char *key, const char *stored, arena *a);

/* One line of meaning per registered key, for SET -v; NULL for others. */
const char *sql_settings_meaning(const char *key);

/* The known keys, NULL-terminated (SET -v lists them even when unset). */
extern const char *const sql_settings_known_keys[];

/*
 * Applies the database's memory budget and temp_directory (stored value or
 * NULL) to a statement's ctx: the statement reserves from budget and its
 * own cap is the budget's limit when it starts (memory_limit is one value
 * per database, as in DuckDB; SET memory_limit changes the budget).
 */
void sql_settings_apply(engine_ctx *ctx, mem_budget *budget, const char *temp_directory);

/*
 * The registry: every key SET accepts, with the file that reads it (the
 * check.settings test, scripts/check-settings.py, fails when an honoured
 * key is not read there, or a key read somewhere is not registered).
 * Rule (docs/settings.md): nothing accepted is ignored. A spark.* or
 * silt.* key not in the registry, or registered but not honoured yet, is
 * refused by name with Spark's [SQL_CONF_NOT_FOUND]; other keys (Spark
 * accepts any) are kept and read by nothing, as in Spark.
 */
typedef enum sql_setting_type {
    SQL_SETTING_STRING = 0,
    SQL_SETTING_BOOL, /* true or false, case-insensitive */
    SQL_SETTING_LONG  /* a whole number */
} sql_setting_type;

typedef struct sql_setting_def {
    const char *key;      /* the key, or a prefix ending in '.' when prefix */
    int prefix;           /* every key starting with key (properties.defaults.<property>) */
    int honoured;         /* 0: known, but refused by name until silt honours it */
    sql_setting_type type;
    const char *consumer; /* the source file that reads it */
    const char *meaning;
} sql_setting_def;

/* The registry, ending with a NULL key. */
extern const sql_setting_def sql_settings_registry[];

/* The <name>s of spark.databricks.delta.properties.defaults.<name> SET accepts (also
 * feature.<name>), NULL-ended. */
extern const char *const sql_settings_default_properties[];

/* The registry entry of a key (after canonical_key), or NULL. */
const sql_setting_def *sql_settings_find(const char *key);

/* The session time zone (SQL_SESSION_TIME_ZONE) is honoured by casts, display and the date/time functions. */
#define SQL_SETTINGS_SESSION_TIME_ZONE_HONOURED 1

#endif
