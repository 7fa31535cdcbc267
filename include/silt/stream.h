/*
 * silt/stream.h - streaming queries on a connection (docs/streaming.md).
 *
 * A stream runs one streaming statement (CREATE [OR REFRESH] STREAMING
 * TABLE, REFRESH STREAMING TABLE, INSERT INTO t SELECT ... FROM STREAM
 * ..., or SELECT ... FROM STREAM ... for the console sink) in micro-batches
 * on a thread of its own, until its trigger is done or it is stopped.
 */
#ifndef SILT_STREAM_H
#define SILT_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "silt/common.h"
#include "silt/output.h"
#include "silt/sql.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A running streaming query. Since 0.1. */
typedef struct silt_stream silt_stream;

/**
 * Called after every micro-batch with its progress: json is Spark's
 * StreamingQueryProgress (one line), line a one-line summary (batch id,
 * input rows, rows per second, duration, source offset). Both are valid
 * during the call only. Called on the stream's thread. Since 0.1.
 */
typedef void (*silt_stream_progress_fn)(void *payload, const char *json, const char *line);

/** Options of silt_stream_start; start from SILT_STREAM_OPTIONS_INIT. Since 0.1. */
typedef struct silt_stream_options {
    unsigned version;           /**< SILT_STREAM_OPTIONS_VERSION */
    /** "availableNow", "once", an interval ("5 seconds", "500 ms": processingTime), or NULL:
     *  a batch as soon as input arrives */
    const char *trigger;
    /** Spark's checkpointLocation: needed by INSERT INTO streams, optional for the console,
     *  refused for streaming tables (they keep theirs) */
    const char *checkpoint;
    const char *output_mode;    /**< "append", "complete", "update" or NULL */
    silt_text_fn console;       /**< the console sink's text (called on the stream's thread) */
    silt_stream_progress_fn progress; /**< NULL = none */
    void *payload;              /**< passed to console and progress */
} silt_stream_options;

#define SILT_STREAM_OPTIONS_VERSION 1
#define SILT_STREAM_OPTIONS_INIT {SILT_STREAM_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL}

/**
 * Checks and starts a stream of the statement sql on a session of conn's
 * database (conn stays free for other calls). The statement, the source,
 * the sink and the checkpoint are checked before this returns: errors are
 * SILT_PARSE / SILT_BIND for the statement, SILT_INVALID for options,
 * SILT_CONFLICT when another stream runs on the checkpoint (conn's error
 * has the message). *out is freed with silt_stream_free, before conn is
 * closed. Since 0.1.
 */
SILT_API silt_status silt_stream_start(silt_stream **out, silt_conn *conn, const char *sql,
                                       const silt_stream_options *opts);
/** Asks the stream to stop after the batch in flight. Any thread; signal handlers too. Since 0.1. */
SILT_API void silt_stream_stop(silt_stream *stream);
/**
 * Waits until the stream ends (its trigger is done, or it was stopped) and
 * returns how: SILT_OK, or the error of the batch that failed
 * (silt_stream_errmsg). Since 0.1.
 */
SILT_API silt_status silt_stream_wait(silt_stream *stream);
/**
 * Hands the last batch's progress (Spark's StreamingQueryProgress JSON;
 * nothing before the first batch) to fn, in one piece. Any thread.
 * SILT_IO when fn returns non-zero. Since 0.1.
 */
SILT_API silt_status silt_stream_last_progress(silt_stream *stream, silt_text_fn fn,
                                               void *payload);
/** The message of the error silt_stream_wait returned ("" when none). Since 0.1. */
SILT_API const char *silt_stream_errmsg(const silt_stream *stream);
/** Stops the stream, waits for it and frees it; NULL is accepted. Since 0.1. */
SILT_API void silt_stream_free(silt_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
