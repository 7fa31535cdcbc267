/*
 * digest.h - SHA-256 of a byte string as 64 lower-case hex digits, from
 * OpenSSL's libcrypto.so.3 (loaded with dlopen on first use, as the S3
 * store and the sha2() built-in load it: linked, it would cost every silt
 * process its loading time). The catalog names each reference commit by it
 * (docs/branches.md); nothing here is used for security.
 */
#ifndef SILT_IO_DIGEST_H
#define SILT_IO_DIGEST_H

#include <stddef.h>

#include "util/error.h"

/* SILT_UNSUPPORTED, naming libcrypto.so.3, when OpenSSL is not installed. */
silt_status io_sha256_hex(const void *data, size_t len, char out[65], silt_error *err);

#endif
