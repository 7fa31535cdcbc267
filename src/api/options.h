/*
 * options.h - the one version rule of the public options structs
 * (docs/api.md, "Versions"): every options struct starts with
 * `unsigned version`; the library takes version 1 up to its current one,
 * reads only the fields the caller's version has, and gives the newer
 * fields their defaults.
 */
#ifndef SILT_API_OPTIONS_H
#define SILT_API_OPTIONS_H

#include <stddef.h>

#include "util/error.h"

/*
 * Fills out (of the current version's size) from the caller's given
 * (NULL = defaults). sizes[v - 1] is the struct's size in version v: the
 * offset of the first field version v + 1 added (sizeof for the current
 * one). what names the struct in the message of a version refused with
 * SILT_INVALID.
 */
silt_status api_options(void *out, const void *given, const void *defaults, const size_t *sizes,
                        unsigned current, const char *what, silt_error *err);

#endif
