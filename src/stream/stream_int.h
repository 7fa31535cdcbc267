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
/* Writes dir/N durably; if_absent: CONFLICT (another writer) when it exists. */
silt_status stream_ckpt_write(stream_ckpt *c, const char *dir, int64_t n, const char *data,
                              size_t len, int if_absent, silt_error *err);

/* Small readers of the JSON silt writes in its checkpoint: 1 when found. */
int stream_json_int(const char *json, const char *key, int64_t *out);
int stream_json_str(const char *json, const char *key, arena *a, char **out);

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

/* The location of a Delta table by name (delta.`p` or a catalog name); *out NULL when absent. */
silt_status stream_table_location(sql_session *s, arena *a, const sql_name *n, char **out,
                                  silt_error *err);

/* One batch's rows counted as a bound source pulls them. */
typedef struct stream_counted {
    sql_batch_fn fn;
    void *payload;
    int64_t rows;
} stream_counted;
silt_status stream_counted_next(void *payload, arena *batch_arena, col_batch **out,
                                silt_error *err);

/* ---- console.c: Spark's console sink */

silt_status stream_console_batch(sql_result *res, int64_t batch_id, int64_t max_rows,
                                 stream_text_fn out, void *payload, silt_error *err);

#endif
