/*
 * stream_int.h - private to src/stream/: the checkpoint, the sources and the sinks.
 */
#ifndef SILT_STREAM_STREAM_INT_H
#define SILT_STREAM_STREAM_INT_H

#include <stdatomic.h>

#include "io/store.h"
#include "sql/ast.h"
#include "stream/stream.h"
#include "util/arena.h"

/* ---- checkpoint.c: the write-ahead log (docs/streaming.md, "Checkpoint") */

typedef struct stream_ckpt {
    io_store *store;      /* NULL: no checkpoint (console without one): nothing is kept */
    int lock_fd;          /* the local lock, -1 when none */
    char id[40];          /* the query's id (metadata) */
    int64_t last_offset;  /* newest offsets/N, -1 when none */
    int64_t last_commit;  /* newest commits/N, -1 when none */
    /* a write staged to go out with the next stream_ckpt_write (sources/0/N with offsets/N) */
    char staged_key[96];
    buf staged;
    int has_staged;
} stream_ckpt;

/*
 * Opens (making it when absent) the checkpoint at location, locks it and
 * checks its metadata names this query (desc: source and sink). location
 * NULL: an in-memory checkpoint with a fresh id. CONFLICT when another
 * stream runs on it, INVALID when it belongs to another query.
 */
silt_status stream_ckpt_open(stream_ckpt *c, sql_session *s, const char *location,
                             const char *desc, silt_error *err);
void stream_ckpt_close(stream_ckpt *c);
/* Reads dir/N (dir: "offsets", "commits", "sources/0", "state") into out; NOTFOUND when absent. */
silt_status stream_ckpt_read(stream_ckpt *c, const char *dir, int64_t n, buf *out,
                             silt_error *err);
/*
 * Writes dir/N durably; if_absent: CONFLICT (another writer) when it exists.
 * A staged write goes out at the same time, on a second thread: the two
 * files' fsyncs share the file system's journal commits instead of paying
 * one each, and either may be published first (readers of the staged file
 * cope with its absence, see stream_ckpt_stage).
 */
silt_status stream_ckpt_write(stream_ckpt *c, const char *dir, int64_t n, const char *data,
                              size_t len, int if_absent, silt_error *err);
/*
 * Stages dir/N (a plain put) to be written with the next stream_ckpt_write:
 * the file source's sources/0/N goes out with offsets/N. A crash between
 * the two publications may leave offsets/N without sources/0/N; the batch
 * had not started then (the sink runs after both are durable), so the file
 * source plans it again.
 */
silt_status stream_ckpt_stage(stream_ckpt *c, const char *dir, int64_t n, const char *data,
                              size_t len, silt_error *err);
/*
 * Writes commits/N without syncing it (io_put_lazy): the sink's commit is
 * durable before it, so a commits/N lost to a machine crash only makes the
 * batch run again, and its txn makes that write nothing.
 */
silt_status stream_ckpt_write_commit(stream_ckpt *c, int64_t n, const char *data, size_t len,
                                     silt_error *err);

/* The source offset of offsets/n (its last line, one source) into *out (in a). */
silt_status stream_ckpt_source_offset(stream_ckpt *c, int64_t n, arena *a, char **out,
                                      silt_error *err);

/* Small readers of the JSON silt writes in its checkpoint: 1 when found. */
int stream_json_int(const char *json, const char *key, int64_t *out);
int stream_json_str(const char *json, const char *key, arena *a, char **out);

/* ---- window.c: event time (the WATERMARK clause) and time windows */

/* The event time a batch's rows carried (EventTimeWatermarkExec's statistics). */
typedef struct stream_evtime {
    int col;          /* the source column, -1 when the query has no watermark */
    int seen;         /* a non-null event time went by */
    int64_t max_us;
    int64_t min_us;   /* and min, sum and count for the progress's eventTime (avg) */
    double sum_ms;
    int64_t count;
} stream_evtime;

typedef struct stream_watermark {
    int active;
    int col;              /* the event-time column of the source */
    const char *column;
    int64_t delay_ms;     /* Spark's delayMs */
} stream_watermark;

typedef struct stream_window {
    int64_t size_us, slide_us, start_us; /* size_us 0: the query has no window */
    const char *ts_sql;   /* the time column as SQL */
    const char *ts_name;  /* its last name part */
    sql_expr **items;     /* the select-list nodes that show the window */
    size_t n_items;
    size_t group_idx;     /* the GROUP BY item holding the window's start */
} stream_window;

/* A duration ('10 minutes') in microseconds; what names it in errors. */
silt_status stream_duration_micros(const char *text, const char *what, int64_t *out,
                                   silt_error *err);
/* The WATERMARK clause of ref over the source's schema (w->active 0 when none). */
silt_status stream_watermark_open(stream_watermark *w, const sql_table_ref *ref,
                                  const col_type *schema, silt_error *err);
/*
 * Rewrites window(...) in qr's GROUP BY and select list, and ref (the
 * stream's reference, already the bound batch_name) into the subquery that
 * adds each row's window start. w->size_us 0 when qr has no window.
 */
silt_status stream_window_rewrite(arena *a, sql_query *qr, sql_table_ref *ref,
                                  const char *batch_name, stream_window *w, silt_error *err);

/* ---- sources */

typedef struct stream_source stream_source;

typedef struct stream_source_ops {
    const char *name;
    /*
     * Plans batch `batch_id`: takes the next range after the committed one
     * (limit 0: everything available, the once trigger), writes what the
     * checkpoint must keep before the batch runs (sources/0/N), and puts its
     * end offset (JSON) into end. *empty 1 when there is no new input.
     */
    silt_status (*plan)(stream_source *src, stream_ckpt *c, int64_t batch_id, int limit,
                        buf *end, int *empty, silt_error *err);
    /* Takes the range of a batch planned before a crash (its offsets/N line). */
    silt_status (*replan)(stream_source *src, stream_ckpt *c, int64_t batch_id,
                          const char *offset_json, silt_error *err);
    /* Marks the planned range as done (after commits/N). */
    void (*commit)(stream_source *src);
    /* Binds the planned range to name on session s for one statement. */
    silt_status (*bind)(stream_source *src, sql_session *s, const char *name, int empty_range,
                        silt_error *err);
    /* Rows the last bound range gave. */
    int64_t (*rows)(stream_source *src);
    void (*release)(stream_source *src);
} stream_source_ops;

struct stream_source {
    const stream_source_ops *ops;
    const col_type *schema; /* the rows' STRUCT */
    char *desc;             /* FileStreamSource[file:/in] */
    char *start_json;       /* the committed offset ("null" at first) */
    /* the progress's latestOffset is the batch's end (the Delta source), else null as Spark's
     * file and rate sources report it */
    int reports_latest;
    /*
     * Set by the query under availableNow and once: a source whose input
     * grows with time (rate) ends its range where the clock was at the
     * first plan, as Spark's AvailableNowDataStreamWrapper does.
     */
    int until_now;
    /* the query's event-time statistics, NULL without a watermark (sources hand it to cnt) */
    stream_evtime *evtime;
};

/*
 * The source of a STREAM table reference (ref is rewritten in place into a
 * reference to the bound name). Options: the read_files arguments or the WITH list.
 */
silt_status stream_source_open(stream_source **out, sql_session *s, arena *a,
                               const sql_table_ref *ref, silt_error *err);
/* The sources, from the reference's arguments as name/value pairs (kv[2i], kv[2i+1]). */
silt_status stream_file_source_new(stream_source **out, sql_session *s, arena *a,
                                   const char *dir, const char *format, const char *const *kv,
                                   size_t n_kv, silt_error *err);
silt_status stream_rate_source_new(stream_source **out, sql_session *s, arena *a,
                                   const char *const *kv, size_t n_kv, silt_error *err);
silt_status stream_delta_source_new(stream_source **out, sql_session *s, arena *a,
                                    const char *location, const char *const *kv, size_t n_kv,
                                    silt_error *err);

/*
 * `WATERMARK expr AS name`: inner's rows with the column name = expr (its
 * SQL in text, the statement ref was parsed from); takes inner over, also
 * on failure.
 */
silt_status stream_expr_source_new(stream_source **out, sql_session *s, arena *a,
                                   stream_source *inner, const sql_table_ref *ref,
                                   const char *text, silt_error *err);

/* The location of a Delta table by name (delta.`p` or a catalog name); *out NULL when absent. */
silt_status stream_table_location(sql_session *s, arena *a, const sql_name *n, char **out,
                                  silt_error *err);

/* One batch's rows counted as a bound source pulls them. */
typedef struct stream_counted {
    sql_batch_fn fn;
    void *payload;
    int64_t rows;
    stream_evtime *ev;  /* NULL, or the event time to observe */
} stream_counted;
silt_status stream_counted_next(void *payload, arena *batch_arena, col_batch **out,
                                silt_error *err);

/* ---- aggregate.c: stateful aggregation (complete and update modes) */

typedef struct stream_agg stream_agg;
/*
 * Checks that qr (whose STREAM reference is already the bound batch_name)
 * is an aggregation silt keeps state for, and prepares its statements
 * (src is bound empty once to learn the schemas). Lives in arena a; free
 * with stream_agg_free.
 */
silt_status stream_agg_open(stream_agg **out, sql_session *s, arena *a, sql_query *qr,
                            stream_source *src, const char *batch_name, const char *text,
                            size_t len, const stream_window *win, silt_error *err);
/*
 * The group key the watermark bounds: the window's start (end = start +
 * size) or the event-time column itself; -1 when no GROUP BY item is either.
 */
int stream_agg_watermark_key(const stream_agg *g, const stream_watermark *wm,
                             const stream_window *win);
/*
 * Event time for the next stream_agg_batch: mode append or update (complete
 * keeps everything), groups whose window ended by late_us dropped from the
 * batch's input, those ended by evict_us evicted (append: they are the
 * output). key -1: no eviction.
 */
void stream_agg_set_watermark(stream_agg *g, stream_output_mode mode, int key, int64_t late_us,
                              int64_t evict_us);
void stream_agg_free(stream_agg *g);
/* Loads the state after batch (state/batch of the checkpoint); batch -1: empty. */
silt_status stream_agg_load(stream_agg *g, stream_ckpt *c, int64_t batch, silt_error *err);
/* With the batch bound: merges its rows into the state and writes state/batch. */
silt_status stream_agg_batch(stream_agg *g, stream_ckpt *c, int64_t batch, silt_error *err);
/* The query's output over the bound state (touched_only: the groups of the last batch). */
silt_status stream_agg_output_sql(stream_agg *g, int touched_only, buf *out, silt_error *err);
silt_status stream_agg_bind_output(stream_agg *g, silt_error *err);
/* After stream_agg_batch: the state's rows, the rows the batch updated and those it evicted. */
void stream_agg_stats(const stream_agg *g, int64_t *total, int64_t *updated, int64_t *removed);
void stream_agg_unbind_output(stream_agg *g);

/* ---- console.c: Spark's console sink */

silt_status stream_console_batch(sql_result *res, int64_t batch_id, int64_t max_rows,
                                 stream_text_fn out, void *payload, silt_error *err);

#endif
