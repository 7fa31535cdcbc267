/*
 * Unit tests of the text reader's windows and its read-ahead (text_source.h):
 * windows grow and stay bounded, records never split across windows, a
 * rewind before anything was freed reads nothing again, and a scan that
 * reads ahead on a pool gives the same rows, batches and errors as one
 * that reads on the caller only.
 */
#include <stdatomic.h>
#include <string.h>

#include "csvjson_render.h"
#include "formats/csv/csv.h"
#include "formats/json/json.h"
#include "formats/text/text_source.h"
#include "test.h"
#include "util/mem.h"
#include "util/thread.h"

static io_store *store;
static silt_error err;
static arena *mem;
static tpool *pool;

void test_formats_text_reader__initialize(void)
{
    err_clear(&err);
    store = NULL;
    pool = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
    check_ok(tpool_new(&pool, 1, &err), &err);
    mem = arena_new(NULL, "test");
}

void test_formats_text_reader__cleanup(void)
{
    arena_free(mem);
    tpool_free(pool);
    io_store_free(store);
}

/* Splits at line breaks, one chunk per line (enough for the reader's own tests). */
static silt_status split_lines(text_object *obj, void *payload, silt_error *e)
{
    size_t end = obj->last_window ? obj->len : text_last_line_end(obj->data, obj->len), n = 0;
    (void)payload;
    obj->bounds = mem_calloc(obj->len + 2, sizeof(size_t));
    if (obj->bounds == NULL)
        return err_nomem(e);
    obj->bounds[n++] = 0;
    for (size_t pos = 0; pos < end;) {
        const char *nl = memchr(obj->data + pos, '\n', end - pos);
        pos = nl ? (size_t)(nl - obj->data) + 1 : end;
        obj->bounds[n++] = pos;
    }
    obj->n_chunks = n - 1;
    return SILT_OK;
}

/* Lines "line 0".."line n-1", each 10 bytes with its break. */
static void put_lines(io_store *s, const char *key, int n)
{
    buf text = BUF_INIT;
    for (int idx = 0; idx < n; idx++)
        buf_printf(&text, &err, "line %4d\n", idx);
    check_ok(io_put(s, key, text.data, text.len, &err), &err);
    buf_clear(&text);
}

/* Takes every chunk round by round (reading ahead as a scan does); returns the text. */
static void read_all(text_reader *r, int ahead, buf *out, size_t *max_loaded, size_t *max_len)
{
    text_chunk chunks[4];
    size_t n = 1;
    *max_loaded = *max_len = 0;
    while (n > 0) {
        check_ok(text_reader_take(r, 4, chunks, &n, &err), &err);
        if (ahead)
            text_reader_read_ahead(r, 4);
        if (r->n_objs > *max_loaded)
            *max_loaded = r->n_objs;
        for (size_t idx = 0; idx < r->n_objs; idx++)
            if (r->objs[idx]->len > *max_len)
                *max_len = r->objs[idx]->len;
        for (size_t idx = 0; idx < n; idx++)
            buf_append(out, chunks[idx].obj->data + chunks[idx].start,
                       chunks[idx].end - chunks[idx].start, &err);
        text_reader_release(r);
    }
}

void test_formats_text_reader__windows_grow_and_stay_bounded(void)
{
    static const char *const keys[] = {"r/a.txt"};
    text_reader r;
    text_chunk chunk;
    size_t n, lens[8], n_lens = 0;
    put_lines(store, keys[0], 100); /* 1000 bytes */
    /* window_bytes 400: windows of 50, 100, 200, 200... bytes, cut at line ends */
    text_reader_init(&r, store, keys, 1, "test", split_lines, NULL, 400);
    for (;;) {
        check_ok(text_reader_take(&r, 1, &chunk, &n, &err), &err);
        if (n == 0)
            break;
        if (chunk.idx == 0 && n_lens < 8)
            lens[n_lens++] = chunk.obj->len;
        text_reader_release(&r);
    }
    check_int(7, n_lens);
    check_int(50, lens[0]);
    check_int(100, lens[1]);
    check_int(200, lens[2]);
    check_int(200, lens[3]);
    check_int(200, lens[4]);
    check_int(200, lens[5]);
    check_int(50, lens[6]); /* the rest: 1000 - 950 */
    text_reader_clear(&r);
}

void test_formats_text_reader__read_ahead_holds_two_windows(void)
{
    static const char *const keys[] = {"r/a.txt", "r/b.txt"};
    buf plain = BUF_INIT, ahead = BUF_INIT, whole = BUF_INIT;
    size_t loaded, len;
    text_reader r;
    put_lines(store, keys[0], 300);
    put_lines(store, keys[1], 7);
    text_reader_init(&r, store, keys, 2, "test", split_lines, NULL, 0);
    read_all(&r, 0, &whole, &loaded, &len);
    text_reader_clear(&r);
    text_reader_init(&r, store, keys, 2, "test", split_lines, NULL, 400);
    read_all(&r, 0, &plain, &loaded, &len);
    check(len <= 200);
    text_reader_clear(&r);
    text_reader_init(&r, store, keys, 2, "test", split_lines, NULL, 400);
    read_all(&r, 1, &ahead, &loaded, &len);
    check(len <= 200);
    /* the window being taken and the one read ahead (plus a small object) */
    check(loaded <= 3);
    text_reader_clear(&r);
    check_int((long long)whole.len, 3070);
    check_str(buf_cstr(&whole), buf_cstr(&plain));
    check_str(buf_cstr(&whole), buf_cstr(&ahead));
    buf_clear(&plain);
    buf_clear(&ahead);
    buf_clear(&whole);
}

/* A rewind before any window was freed hands the same chunks out without reading again. */
void test_formats_text_reader__rewind_reads_nothing_again(void)
{
    static const char *const keys[] = {"r/a.txt"};
    io_store *inner = NULL, *counted = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    text_reader r;
    text_chunk first, again, chunks[16];
    size_t n;
    long reads_before, reads_after;
    put_lines(store, keys[0], 100);
    check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
    check_ok(io_fault_store_wrap(&counted, inner, &plan, &err), &err);
    text_reader_init(&r, counted, keys, 1, "test", split_lines, NULL, 400);
    check_ok(text_reader_take(&r, 1, &first, &n, &err), &err);
    check_int(1, n);
    io_fault_store_counts(counted, NULL, &reads_before);
    text_reader_rewind(&r);
    check_ok(text_reader_take(&r, 1, &again, &n, &err), &err);
    io_fault_store_counts(counted, NULL, &reads_after);
    check_int(reads_before, reads_after);
    check(again.obj == first.obj);
    check_int(0, again.start);
    check_int(10, again.end);
    /* once a window was freed, a rewind starts from the object again */
    for (int round = 0; round < 20 && n > 0; round++) {
        check_ok(text_reader_take(&r, 16, chunks, &n, &err), &err);
        text_reader_release(&r);
    }
    text_reader_rewind(&r);
    check_ok(text_reader_take(&r, 1, &again, &n, &err), &err);
    io_fault_store_counts(counted, NULL, &reads_after);
    check(reads_after > reads_before);
    check_int(0, again.start);
    check_int(0, again.obj->offset);
    text_reader_clear(&r);
    io_store_free(counted);
}

/* A read ahead that fails shows at the take that needs its window, with the object named. */
void test_formats_text_reader__failed_read_ahead_is_reported_in_order(void)
{
    static const char *const keys[] = {"r/a.txt"};
    io_store *inner = NULL, *faulty = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    text_reader r;
    text_chunk chunks[64];
    size_t n, taken = 0;
    put_lines(store, keys[0], 100);
    check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
    plan.fail_read_nth = 2; /* the first window's read works, the second fails */
    plan.fail_all_after = 1;
    check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
    text_reader_init(&r, faulty, keys, 1, "JSON", split_lines, NULL, 400);
    check_ok(text_reader_take(&r, 2, chunks, &n, &err), &err);
    check_int(2, n);
    text_reader_read_ahead(&r, 64); /* fails quietly */
    check_int(SILT_IO, r.ahead_rc);
    /* the first window's chunks still come out, then the failure */
    silt_status rc;
    while ((rc = text_reader_take(&r, 64, chunks, &n, &err)) == SILT_OK && n > 0)
        taken += n;
    check_int(SILT_IO, rc);
    check_int(3, taken); /* 5 lines in the first window of 50 bytes */
    check_contains(err.context, "while reading JSON file \"r/a.txt\"");
    /* the same failure again: nothing is read past it */
    check_fails(SILT_IO, text_reader_take(&r, 64, chunks, &n, &err));
    text_reader_clear(&r);
    io_store_free(faulty);
}

/* ---- scans: read-ahead on a pool changes nothing ---- */

/* Rows as text, and the row count of every batch ("3,3,1"). */
static silt_status scan_text(int json, io_store *s, const char *key, size_t window, tpool *p,
                             text_mode mode, buf *rows, buf *sizes)
{
    silt_status rc;
    void *scan = NULL;
    render_next_fn next;
    if (json) {
        json_options opts;
        json_options_init(&opts);
        opts.window_bytes = window;
        opts.chunk_bytes = 64;
        opts.pool = p;
        opts.mode = mode;
        opts.batch_rows = 7;
        rc = json_scan_open((json_scan **)&scan, s, &key, 1, &opts, &err);
        next = render_json_next;
    } else {
        csv_options opts;
        csv_options_init(&opts);
        opts.header = 1;
        opts.infer_schema = 1;
        opts.window_bytes = window;
        opts.chunk_bytes = 64;
        opts.pool = p;
        opts.mode = mode;
        opts.batch_rows = 7;
        rc = csv_scan_open((csv_scan **)&scan, s, &key, 1, &opts, &err);
        next = render_csv_next;
    }
    while (rc == SILT_OK) {
        col_batch batch;
        rc = next(scan, mem, &batch, &err);
        if (rc != SILT_OK || batch.n_rows == 0)
            break;
        buf_printf(sizes, &err, "%lld,", (long long)batch.n_rows);
        render_batch(rows, &batch);
    }
    if (json)
        json_scan_free(scan);
    else
        csv_scan_free(scan);
    return rc;
}

/* n records; a type change late in the file (so inference's rows are dropped and read again). */
static void put_records(int json, const char *key, int n, int bad_at)
{
    buf text = BUF_INIT;
    if (!json)
        buf_append_str(&text, "id,name,score\n", &err);
    for (int idx = 0; idx < n; idx++) {
        const char *score = idx == n - 3 ? "2.5" : "7";
        if (idx == bad_at)
            buf_append_str(&text, json ? "{\"id\": 1, \"name\": \n" : "1,2\n", &err);
        else if (json)
            buf_printf(&text, &err, "{\"id\": %d, \"name\": \"n%*d\", \"score\": %s}\n", idx,
                       idx % 9, idx, score);
        else
            buf_printf(&text, &err, "%d,\"n %*d\",%s\n", idx, idx % 9, idx, score);
    }
    check_ok(io_put(store, key, text.data, text.len, &err), &err);
    buf_clear(&text);
}

void test_formats_text_reader__scans_read_ahead_with_the_same_rows_and_batches(void)
{
    for (int json = 0; json < 2; json++) {
        const char *key = json ? "s/in.json" : "s/in.csv";
        buf whole_rows = BUF_INIT, whole_sizes = BUF_INIT;
        put_records(json, key, 400, -1);
        check_ok(scan_text(json, store, key, 0, NULL, TEXT_MODE_PERMISSIVE, &whole_rows,
                           &whole_sizes),
                 &err);
        check(whole_rows.len > 4000);
        static const size_t windows[] = {256, 1000, 4096};
        for (size_t w = 0; w < 3; w++) {
            buf rows[2] = {BUF_INIT, BUF_INIT}, sizes[2] = {BUF_INIT, BUF_INIT};
            check_ok(scan_text(json, store, key, windows[w], NULL, TEXT_MODE_PERMISSIVE, &rows[0],
                               &sizes[0]),
                     &err);
            check_ok(scan_text(json, store, key, windows[w], pool, TEXT_MODE_PERMISSIVE, &rows[1],
                               &sizes[1]),
                     &err);
            check_str(buf_cstr(&whole_rows), buf_cstr(&rows[0]));
            check_str(buf_cstr(&whole_rows), buf_cstr(&rows[1]));
            check_str(buf_cstr(&sizes[0]), buf_cstr(&sizes[1]));
            for (int idx = 0; idx < 2; idx++) {
                buf_clear(&rows[idx]);
                buf_clear(&sizes[idx]);
            }
        }
        buf_clear(&whole_rows);
        buf_clear(&whole_sizes);
    }
}

/* FAILFAST on a record in a later window: same message and line with and without a pool. */
void test_formats_text_reader__malformed_record_in_a_later_window(void)
{
    for (int json = 0; json < 2; json++) {
        const char *key = json ? "s/bad.json" : "s/bad.csv";
        put_records(json, key, 300, 250);
        for (int with_pool = 0; with_pool < 2; with_pool++) {
            buf rows = BUF_INIT, sizes = BUF_INIT;
            check_fails(SILT_PARSE, scan_text(json, store, key, 512, with_pool ? pool : NULL,
                                              TEXT_MODE_FAILFAST, &rows, &sizes));
            /* JSON: line 251 (no header); CSV: the header is line 1, so 252 */
            check_contains(err.message, json ? "line 251" : "line 252");
            check_contains(err.context, json ? "s/bad.json" : "s/bad.csv");
            buf_clear(&rows);
            buf_clear(&sizes);
        }
    }
}

/*
 * A store failing in the middle of the file: the same clean error, read
 * ahead on a pool or not. With a malformed record before the failure,
 * FAILFAST's error and the store's come in file order either way.
 */
void test_formats_text_reader__store_failure_while_reading_ahead(void)
{
    for (int kind = 0; kind < 4; kind++) {
        int json = kind & 1, bad = kind >> 1;
        const char *key = json ? "s/f.json" : "s/f.csv";
        put_records(json, key, 400, bad ? 150 : -1);
        for (long nth = 2; nth <= 12; nth++) {
            char messages[2][SILT_ERROR_MESSAGE_MAX + SILT_ERROR_CONTEXT_MAX];
            silt_status codes[2];
            for (int with_pool = 0; with_pool < 2; with_pool++) {
                io_store *inner = NULL, *faulty = NULL;
                io_fault_plan plan = IO_FAULT_PLAN_INIT;
                buf rows = BUF_INIT, sizes = BUF_INIT;
                plan.fail_read_nth = nth;
                plan.fail_all_after = 1;
                check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
                check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
                codes[with_pool] =
                    scan_text(json, faulty, key, 2048, with_pool ? pool : NULL,
                              bad ? TEXT_MODE_FAILFAST : TEXT_MODE_PERMISSIVE, &rows, &sizes);
                check(codes[with_pool] == SILT_IO || (bad && codes[with_pool] == SILT_PARSE));
                check_contains(err.context, json ? "JSON file \"s/f.json\""
                                                 : "CSV file \"s/f.csv\"");
                snprintf(messages[with_pool], sizeof(messages[0]), "%s | %s", err.message,
                         err.context);
                io_store_free(faulty);
                buf_clear(&rows);
                buf_clear(&sizes);
            }
            check_int(codes[0], codes[1]);
            check_str(messages[0], messages[1]);
        }
    }
}

/* ---- text_reader_pass with made-up rounds ---- */

/* A pass's log: the chunks every kept round had, in order, and begun/ended counts. */
typedef struct pass_log {
    buf kept;
    int begun, ended, discarded;
    const char *bad; /* a chunk with this text fails its round */
} pass_log;

typedef struct fake_round {
    pass_log *log;
    text_chunk chunks[8];
    size_t n;
    atomic_int ran[8];
} fake_round;

static silt_status fake_begin(void *payload, const text_chunk *chunks, size_t n, void **out,
                              silt_error *e)
{
    pass_log *log = payload;
    fake_round *round = mem_calloc(1, sizeof(*round));
    if (round == NULL)
        return err_nomem(e);
    check(n <= 8);
    round->log = log;
    round->n = n;
    memcpy(round->chunks, chunks, n * sizeof(text_chunk));
    log->begun++;
    *out = round;
    return SILT_OK;
}

static silt_status fake_task(void *payload, size_t task_idx, size_t worker_idx, silt_error *e)
{
    fake_round *round = payload;
    (void)worker_idx;
    (void)e;
    atomic_fetch_add(&round->ran[task_idx], 1);
    return SILT_OK;
}

static silt_status fake_end(void *payload, void *state, int discard, silt_error *e)
{
    pass_log *log = payload;
    fake_round *round = state;
    silt_status rc = SILT_OK;
    log->ended++;
    log->discarded += discard;
    for (size_t idx = 0; !discard && rc == SILT_OK && idx < round->n; idx++) {
        const text_chunk *c = &round->chunks[idx];
        size_t len = c->end - c->start;
        check_int(1, atomic_load(&round->ran[idx]));
        if (log->bad != NULL && len == strlen(log->bad) &&
            memcmp(c->obj->data + c->start, log->bad, len) == 0)
            rc = err_set(e, SILT_PARSE, "bad chunk at line %lld",
                         (long long)text_object_line(c->obj, c->start));
        else
            buf_append(&log->kept, c->obj->data + c->start, len, e);
    }
    mem_free(round);
    return rc;
}

static const text_round_ops fake_ops = {fake_begin, fake_task, fake_end};

void test_formats_text_reader__pass_keeps_rounds_in_order(void)
{
    static const char *const keys[] = {"p/a.txt", "p/b.txt", "p/c.txt"};
    buf whole = BUF_INIT;
    put_lines(store, keys[0], 300);
    put_lines(store, keys[1], 3);
    put_lines(store, keys[2], 40);
    for (int idx = 0; idx < 300; idx++)
        buf_printf(&whole, &err, "line %4d\n", idx);
    for (int idx = 0; idx < 3; idx++)
        buf_printf(&whole, &err, "line %4d\n", idx);
    for (int idx = 0; idx < 40; idx++)
        buf_printf(&whole, &err, "line %4d\n", idx);
    for (int with_pool = 0; with_pool < 2; with_pool++) {
        pass_log log = {BUF_INIT, 0, 0, 0, NULL};
        text_reader r;
        text_reader_init(&r, store, keys, 3, "test", split_lines, NULL, 400);
        check_ok(text_reader_pass(&r, with_pool ? pool : NULL, 8, &fake_ops, &log, &err), &err);
        check_str(buf_cstr(&whole), buf_cstr(&log.kept));
        check(log.begun > 40);
        check_int(log.begun, log.ended);
        check_int(0, log.discarded);
        check_int(0, r.n_objs); /* every window was freed */
        text_reader_clear(&r);
        buf_clear(&log.kept);
    }
    buf_clear(&whole);
}

/* The first failing round's error wins; every round begun is ended; nothing after is kept. */
void test_formats_text_reader__pass_stops_at_the_first_failing_round(void)
{
    static const char *const keys[] = {"p/a.txt"};
    put_lines(store, keys[0], 300);
    for (int with_pool = 0; with_pool < 2; with_pool++) {
        pass_log log = {BUF_INIT, 0, 0, 0, "line  123\n"};
        text_reader r;
        text_reader_init(&r, store, keys, 1, "test", split_lines, NULL, 400);
        check_fails(SILT_PARSE, text_reader_pass(&r, with_pool ? pool : NULL, 8, &fake_ops, &log,
                                                 &err));
        check_contains(err.message, "bad chunk at line 124");
        check_int(log.begun, log.ended);
        check(log.discarded <= 1);
        check(log.kept.len <= 1230);
        check(log.kept.len >= 1120); /* the rounds before the failing one */
        text_reader_clear(&r);
        buf_clear(&log.kept);
    }
    /* a store failure after the bad chunk does not hide it; one before it does */
    for (long nth = 2; nth <= 12; nth++) {
        io_store *inner = NULL, *faulty = NULL;
        io_fault_plan plan = IO_FAULT_PLAN_INIT;
        pass_log log = {BUF_INIT, 0, 0, 0, "line  123\n"};
        text_reader r;
        plan.fail_read_nth = nth;
        plan.fail_all_after = 1;
        check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
        check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
        text_reader_init(&r, faulty, keys, 1, "JSON", split_lines, NULL, 400);
        silt_status rc = text_reader_pass(&r, pool, 8, &fake_ops, &log, &err);
        /* windows of 50, 100, 200, 200... bytes: line 124 (byte 1230) is in the eighth */
        if (nth <= 8) {
            check_int(SILT_IO, rc);
            check_contains(err.context, "while reading JSON file \"p/a.txt\"");
        } else {
            check_int(SILT_PARSE, rc);
        }
        check_int(log.begun, log.ended);
        text_reader_clear(&r);
        io_store_free(faulty);
        buf_clear(&log.kept);
    }
}
