/*
 * silt/common.h - version, export macro and status codes of the public API.
 *
 * Status codes are part of the ABI: they are never renumbered or reused.
 */
#ifndef SILT_COMMON_H
#define SILT_COMMON_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SILT_BUILDING_LIBRARY) && defined(__GNUC__)
#define SILT_API __attribute__((visibility("default")))
#else
#define SILT_API
#endif

#define SILT_VERSION_MAJOR 0
#define SILT_VERSION_MINOR 1
#define SILT_VERSION_PATCH 0
#define SILT_VERSION "0.1.0"
/** Version as one number: major * 1000000 + minor * 1000 + patch. */
#define SILT_VERSION_NUMBER \
    (SILT_VERSION_MAJOR * 1000000 + SILT_VERSION_MINOR * 1000 + SILT_VERSION_PATCH)

/**
 * Result of every call that can fail. SILT_OK is zero; the other codes are
 * the few a caller can act on. The message travels in a silt_error.
 */
typedef enum silt_status {
    SILT_OK = 0,
    SILT_NOMEM = 1,       /**< out of memory or over a memory limit */
    SILT_IO = 2,          /**< the store or the file system failed */
    SILT_NOTFOUND = 3,    /**< a file, table, column or version does not exist */
    SILT_CONFLICT = 4,    /**< a concurrent commit won; the operation may be retried */
    SILT_CORRUPT = 5,     /**< bytes from disk do not follow their format */
    SILT_UNSUPPORTED = 6, /**< a format or protocol feature silt does not implement */
    SILT_PARSE = 7,       /**< a statement or a value could not be parsed */
    SILT_BIND = 8,        /**< a statement refers to something that does not fit */
    SILT_INVALID = 9,     /**< API misuse or an invalid argument or option */
    SILT_INTERRUPTED = 10,/**< the operation was cancelled */
    SILT_EXISTS = 11,     /**< the object to create already exists (put-if-absent lost) */
    /**
     * A statement failed while it ran, on the data: Spark's run-time (ANSI)
     * errors such as [DIVIDE_BY_ZERO], [ARITHMETIC_OVERFLOW],
     * [CAST_INVALID_INPUT], [NUMERIC_VALUE_OUT_OF_RANGE]. Since 0.1.
     */
    SILT_RUNTIME = 12,
    /** A write (a commit) is visible but may not survive a crash: syncing its
     *  folder failed after it was published. Not a failure to retry blindly:
     *  the commit may stand. Since 0.1. */
    SILT_DURABILITY_UNKNOWN = 13
} silt_status;

/** Version string of the library, e.g. "0.1.0". Since 0.1. */
SILT_API const char *silt_version(void);

/** Version number of the library (SILT_VERSION_NUMBER when built). Since 0.1. */
SILT_API int silt_version_number(void);

/** Short name of a status code, e.g. "CORRUPT". Never NULL. Since 0.1. */
SILT_API const char *silt_status_name(silt_status status);

#ifdef __cplusplus
}
#endif
#endif
