/*
 * sqlstate.c - SQLSTATEs of silt errors (sqlstate.h).
 *
 * The classes are Spark's (error-conditions.json gives their sqlState);
 * the fallbacks by status are PostgreSQL's codes of the same condition
 * (Appendix A, "PostgreSQL Error Codes").
 */
#include <string.h>

#include "server/sqlstate.h"

static const struct {
    const char *error_class;
    const char *sqlstate;
} by_class[] = {
    {"TABLE_OR_VIEW_NOT_FOUND", "42P01"},   {"DELTA_MISSING_DELTA_TABLE", "42P01"},
    {"SCHEMA_NOT_FOUND", "3F000"},          {"UNRESOLVED_COLUMN", "42703"},
    {"UNRESOLVED_ROUTINE", "42883"},        {"PARSE_SYNTAX_ERROR", "42601"},
    {"DIVIDE_BY_ZERO", "22012"},            {"ARITHMETIC_OVERFLOW", "22003"},
    {"NUMERIC_VALUE_OUT_OF_RANGE", "22003"}, {"CAST_INVALID_INPUT", "22P02"},
    {"TABLE_OR_VIEW_ALREADY_EXISTS", "42P07"}, {"DELTA_TABLE_ALREADY_EXISTS", "42P07"},
    {"SCHEMA_ALREADY_EXISTS", "42P06"},     {"SCHEMA_NOT_EMPTY", "2BP01"},
    {"AMBIGUOUS_REFERENCE", "42702"},       {"DATATYPE_MISMATCH", "42804"},
    {"MISSING_AGGREGATION", "42803"},       {"GROUP_BY_AGGREGATE", "42803"},
    {"WRONG_NUM_ARGS", "42883"},            {"UNSUPPORTED_FEATURE", "0A000"},
    {"OPERATION_CANCELED", "57014"},        {"OUT_OF_MEMORY", "53200"},
    {"DUPLICATE_KEY", "23505"},
};

const char *srv_sqlstate(silt_status code, const char *error_class, const char *message)
{
    size_t len = 0;
    if (error_class != NULL && error_class[0] != '\0') {
        /* "CLASS.SUBCLASS" maps as CLASS */
        const char *dot = strchr(error_class, '.');
        len = dot != NULL ? (size_t)(dot - error_class) : strlen(error_class);
        for (size_t idx = 0; idx < sizeof(by_class) / sizeof(by_class[0]); idx++)
            if (strlen(by_class[idx].error_class) == len &&
                strncmp(by_class[idx].error_class, error_class, len) == 0)
                return by_class[idx].sqlstate;
    }
    if (code == SILT_INVALID && message != NULL && strstr(message, "in a read-only session"))
        return "25006";
    if (code == SILT_INVALID && message != NULL && strstr(message, "permission denied for database"))
        return "42501";
    switch (code) {
    case SILT_NOMEM: return "53200";
    case SILT_IO: return "58030";
    case SILT_NOTFOUND: return "42704";
    case SILT_CONFLICT: return "40001";
    case SILT_CORRUPT: return "XX001";
    case SILT_UNSUPPORTED: return "0A000";
    case SILT_PARSE: return "42601";
    case SILT_BIND: return "42000";
    case SILT_INVALID: return "22023";
    case SILT_INTERRUPTED: return "57014";
    case SILT_EXISTS: return "42710";
    default: return "XX000";
    }
}
