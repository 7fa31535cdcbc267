/*
 * options.c - the version rule of options structs (options.h).
 */
#include "api/options.h"

#include <string.h>

silt_status api_options(void *out, const void *given, const void *defaults, const size_t *sizes,
                        unsigned current, const char *what, silt_error *err)
{
    unsigned version;
    memcpy(out, defaults, sizes[current - 1]);
    if (given == NULL)
        return SILT_OK;
    memcpy(&version, given, sizeof(version));
    if (version == 0 || version > current)
        return err_set(err, SILT_INVALID, "%s have version %u; this library takes versions 1 "
                       "to %u", what, version, current);
    memcpy(out, given, sizes[version - 1]);
    return SILT_OK;
}
