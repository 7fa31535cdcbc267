/*
 * csv_options.c - CSV options with Spark's names and defaults.
 *
 * The defaults are those of Spark's CSVOptions for reading: separator ',',
 * quote '"', escape '\\', no comment character, nullValue "" (an unquoted
 * empty field is null), nanValue "NaN", positiveInf "Inf", negativeInf
 * "-Inf", columnNameOfCorruptRecord "_corrupt_record", mode PERMISSIVE.
 */
#include <string.h>

#include "formats/csv/csv_int.h"

void csv_options_init(csv_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = 1;
    opts->sep = ',';
    opts->quote = '"';
    opts->escape = '\\';
    opts->sampling_ratio = 1.0;
    opts->mode = TEXT_MODE_PERMISSIVE;
    opts->null_value = "";
    opts->empty_value = "";
    opts->nan_value = "NaN";
    opts->positive_inf = "Inf";
    opts->negative_inf = "-Inf";
    opts->corrupt_column = "_corrupt_record";
    opts->batch_rows = CSV_DEFAULT_BATCH_ROWS;
    opts->chunk_bytes = CSV_DEFAULT_CHUNK_BYTES;
    opts->max_columns = CSV_DEFAULT_MAX_COLUMNS;
    opts->window_bytes = TEXT_DEFAULT_WINDOW_BYTES;
    opts->speculate_bytes = CSV_DEFAULT_SPECULATE_BYTES;
}

/* A one-character option; Spark also accepts the escapes \t, \n, \\ and \u0000. */
static silt_status one_char(const char *key, const char *value, int allow_empty, char *out,
                            silt_error *err)
{
    size_t len = strlen(value);
    if (len == 0 && allow_empty)
        *out = '\0';
    else if (len == 1)
        *out = value[0];
    else if (strcmp(value, "\\t") == 0)
        *out = '\t';
    else if (strcmp(value, "\\\\") == 0)
        *out = '\\';
    else if (strcmp(value, "\\u0000") == 0)
        *out = '\0';
    else {
        err_set(err, SILT_INVALID, "option \"%s\" must be a single character, not \"%s\"", key,
                value);
        err_hint(err, "silt reads single-byte separators, quotes and escapes");
        return SILT_INVALID;
    }
    return SILT_OK;
}

static silt_status copy_str(arena *a, const char *value, const char **out, silt_error *err)
{
    char *copy = arena_strdup(a, value);
    if (copy == NULL)
        return err_nomem(err);
    *out = copy;
    return SILT_OK;
}

silt_status csv_options_set(csv_options *o, arena *a, const char *key, const char *value,
                            silt_error *err)
{
    if (util_str_casecmp(key, "header") == 0)
        return text_parse_bool(key, value, &o->header, err);
    if (util_str_casecmp(key, "sep") == 0 || util_str_casecmp(key, "delimiter") == 0) {
        SILT_RETURN_IF_ERROR(one_char(key, value, 0, &o->sep, err));
        if (o->sep == '\n' || o->sep == '\r' || o->sep == '\0')
            return err_set(err, SILT_INVALID, "option \"%s\" cannot be a line break", key);
        return SILT_OK;
    }
    if (util_str_casecmp(key, "quote") == 0)
        return one_char(key, value, 1, &o->quote, err);
    if (util_str_casecmp(key, "escape") == 0)
        return one_char(key, value, 1, &o->escape, err);
    if (util_str_casecmp(key, "comment") == 0)
        return one_char(key, value, 1, &o->comment, err);
    if (util_str_casecmp(key, "multiLine") == 0)
        return text_parse_bool(key, value, &o->multi_line, err);
    if (util_str_casecmp(key, "inferSchema") == 0)
        return text_parse_bool(key, value, &o->infer_schema, err);
    if (util_str_casecmp(key, "samplingRatio") == 0)
        return text_parse_ratio(key, value, &o->sampling_ratio, err);
    if (util_str_casecmp(key, "mode") == 0)
        return text_parse_mode(key, value, &o->mode, err);
    if (util_str_casecmp(key, "nullValue") == 0)
        return copy_str(a, value, &o->null_value, err);
    if (util_str_casecmp(key, "emptyValue") == 0)
        return copy_str(a, value, &o->empty_value, err);
    if (util_str_casecmp(key, "nanValue") == 0)
        return copy_str(a, value, &o->nan_value, err);
    if (util_str_casecmp(key, "positiveInf") == 0)
        return copy_str(a, value, &o->positive_inf, err);
    if (util_str_casecmp(key, "negativeInf") == 0)
        return copy_str(a, value, &o->negative_inf, err);
    if (util_str_casecmp(key, "columnNameOfCorruptRecord") == 0)
        return copy_str(a, value, &o->corrupt_column, err);
    if (util_str_casecmp(key, "timeZone") == 0)
        return time_zone_get(value, strlen(value), &o->zone, err);
    if (util_str_casecmp(key, "timestampFormat") == 0) {
        SILT_RETURN_IF_ERROR(text_dt_compile(value, a, &o->timestamp_pattern, err));
        return copy_str(a, value, &o->timestamp_format, err);
    }
    if (util_str_casecmp(key, "dateFormat") == 0) {
        SILT_RETURN_IF_ERROR(text_dt_compile(value, a, &o->date_pattern, err));
        return copy_str(a, value, &o->date_format, err);
    }
    if (util_str_casecmp(key, "encoding") == 0 || util_str_casecmp(key, "charset") == 0) {
        if (util_str_casecmp(value, "UTF-8") == 0 || util_str_casecmp(value, "UTF8") == 0 ||
            util_str_casecmp(value, "US-ASCII") == 0)
            return SILT_OK;
        return err_set(err, SILT_UNSUPPORTED, "option \"%s\" = \"%s\": only UTF-8 is supported",
                       key, value);
    }
    if (util_str_casecmp(key, "lineSep") == 0) {
        if (strcmp(value, "\n") == 0 || strcmp(value, "\r\n") == 0 || strcmp(value, "\r") == 0)
            return SILT_OK;
        return err_set(err, SILT_UNSUPPORTED, "option \"lineSep\" must be a line break");
    }
    if (util_str_casecmp(key, "maxColumns") == 0)
        return text_parse_int_in(key, value, "maxColumns", 1, 1 << 24, &o->max_columns, err);
    if (util_str_casecmp(key, "batchRows") == 0)
        return text_parse_int_in(key, value, "batchRows", 1, 1 << 20, &o->batch_rows, err);
    if (util_str_casecmp(key, "ignoreLeadingWhiteSpace") == 0 ||
        util_str_casecmp(key, "ignoreTrailingWhiteSpace") == 0 || util_str_casecmp(key, "enforceSchema") == 0 ||
        util_str_casecmp(key, "pathGlobFilter") == 0 || util_str_casecmp(key, "recursiveFileLookup") == 0)
        return err_set(err, SILT_UNSUPPORTED, "CSV option \"%s\" is not supported yet", key);
    return err_set(err, SILT_INVALID, "CSV option \"%s\" does not exist", key);
}
