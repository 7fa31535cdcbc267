/*
 * stream.h - micro-batch streaming (DESIGN.md, Streaming; docs/streaming.md).
 *
 * A streaming query is one SQL statement whose FROM names a streaming
 * source (`STREAM read_files(...)`, `STREAM delta.`p``, `STREAM rate(...)`):
 *
 *   CREATE [OR REFRESH] STREAMING TABLE t AS SELECT ... FROM STREAM ...
 *   REFRESH STREAMING TABLE t
 *   INSERT INTO t SELECT ... FROM STREAM ...      (needs a checkpoint)
 *   SELECT ... FROM STREAM ...                    (the console sink)
 *
 * Each micro-batch takes a bounded range of the source's offsets, records
 * it in the checkpoint (offsets/N, durable before any output), runs the
 * statement's query over that range in a session of its own, writes the
 * sink (a Delta commit carrying txn(appId = query id, version = N), so a
 * replayed batch writes nothing) and records commits/N. The checkpoint is
 * locked while a query runs on it.
 *
 * Lifetimes: a stream_query owns its arena (the parse tree, the source's
 * state), its batch session and its checkpoint lock, all released by
 * stream_query_free. Threading: stream_query_run runs on one thread;
 * stream_query_stop and stream_query_progress_json may be called from any
 * other (stop also from a signal handler).
 */
#ifndef SILT_STREAM_STREAM_H
#define SILT_STREAM_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "sql/session.h"
#include "util/buf.h"
#include "util/error.h"

typedef enum stream_trigger {
    STREAM_TRIGGER_DEFAULT = 0,   /* processingTime 0: a batch as soon as there is input */
    STREAM_TRIGGER_PROCESSING_TIME,
    STREAM_TRIGGER_AVAILABLE_NOW, /* all input there now, in bounded batches, then stop */
    STREAM_TRIGGER_ONCE           /* all input there now in one batch, then stop */
} stream_trigger;

typedef enum stream_output_mode {
    STREAM_MODE_DEFAULT = 0, /* append, or complete for an aggregation */
    STREAM_MODE_APPEND,
    STREAM_MODE_COMPLETE,
    STREAM_MODE_UPDATE
} stream_output_mode;

/* What one micro-batch did (Spark's StreamingQueryProgress, the fields silt fills). */
typedef struct stream_progress {
    char id[40];              /* the query's id (the checkpoint's) */
    char run_id[40];          /* this run's */
    int64_t batch_id;
    int64_t timestamp_ms;     /* when the batch was planned */
    int64_t num_input_rows;
    double input_rows_per_second;     /* rows over the time since the previous batch */
    double processed_rows_per_second; /* rows over this batch's duration */
    int64_t duration_ms;      /* the batch, planning to commit mark */
    int64_t plan_ms, run_ms;  /* latestOffset and addBatch */
    int64_t wal_ms;           /* walCommit: offsets/N (and sources/0/N) written */
    int64_t get_batch_ms;     /* getBatch: the batch's input bound */
    int64_t commit_ms;        /* commitOffsets: commits/N written */
    /* eventTime (a query with a watermark): the batch's watermark, its rows' max/min/avg */
    int has_event_time, event_rows;
    int64_t watermark_ms, evt_max_ms, evt_min_ms, evt_avg_ms;
    /* stateOperators (an aggregation): Spark's stateStoreSave numbers */
    int has_state;
    int64_t state_rows, state_updated, state_removed;
    const char *source;       /* description, e.g. FileStreamSource[file:/in] */
    const char *start_offset; /* JSON, "null" before the first batch */
    const char *end_offset;
    const char *latest_offset; /* JSON, "null" when the source does not report it */
    const char *sink;         /* description, e.g. DeltaSink[/t] */
    int64_t num_output_rows;  /* -1 when the sink does not know */
} stream_progress;

typedef void (*stream_text_fn)(void *payload, const char *text, size_t len);
typedef void (*stream_progress_fn)(void *payload, const stream_progress *progress);

typedef struct stream_options {
    unsigned version;
    stream_trigger trigger;
    int64_t interval_ms;        /* processingTime */
    const char *checkpoint;     /* checkpointLocation; NULL: the table's, or none for console */
    stream_output_mode mode;
    stream_text_fn console;     /* the console sink's text; NULL = stdout */
    stream_progress_fn progress;/* called after every batch; NULL = none */
    void *payload;
    int64_t console_rows;       /* rows the console shows per batch (Spark's numRows, 20) */
} stream_options;

#define STREAM_OPTIONS_INIT {1, STREAM_TRIGGER_DEFAULT, 0, NULL, STREAM_MODE_DEFAULT, NULL, NULL, \
                             NULL, 20}

typedef struct stream_query stream_query;

/*
 * Parses and checks text (one streaming statement) and prepares its query
 * on a session of s's database: the source, the sink, the checkpoint (made
 * when absent, locked, checked to belong to this query). Errors: PARSE and
 * BIND for the statement, INVALID for options that do not fit it, CONFLICT
 * when another stream holds the checkpoint, CORRUPT for a damaged one.
 */
silt_status stream_query_open(stream_query **out, sql_session *s, const char *text,
                              const stream_options *opts, silt_error *err);
/* Runs batches until the trigger is done or stop is asked; the error of a failed batch. */
silt_status stream_query_run(stream_query *q, silt_error *err);
/* Asks the query to stop after the batch in flight (any thread, signal handlers too). */
void stream_query_stop(stream_query *q);
/* The last batch's progress as Spark's JSON into out ("" before the first batch). */
silt_status stream_query_progress_json(stream_query *q, buf *out, silt_error *err);
void stream_query_free(stream_query *q);

/* The progress as Spark's StreamingQueryProgress JSON (one line) and as a text line. */
silt_status stream_progress_json(const stream_progress *p, buf *out, silt_error *err);
silt_status stream_progress_line(const stream_progress *p, buf *out, silt_error *err);

/*
 * The runner sql/ calls for the streaming statements of `silt sql` and the C
 * API's exec (sql_session_set_stream_runner): CREATE [OR REFRESH] STREAMING
 * TABLE and REFRESH STREAMING TABLE, with the availableNow trigger.
 */
silt_status stream_run_statement(void *payload, sql_session *s, const sql_stmt *stmt,
                                 const char *text, size_t len, silt_error *err);

#endif
