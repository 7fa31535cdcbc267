/*
 * eval_random.c - Spark's nondeterministic functions and the session's
 * current_* values: rand/random, randn, uuid, shuffle,
 * monotonically_increasing_id, spark_partition_id, current_timezone,
 * current_catalog, current_user/user/session_user, localtimestamp.
 *
 * rand, randn, uuid and shuffle draw from Spark's XORShiftRandom (the seed
 * hashed by Scala's MurmurHash3.bytesHash, then xorshift 21/35/4), one
 * stream per call node, as Spark draws one stream per partition: a query
 * that runs on one thread gives the values Spark gives for its partition 0
 * (rand(42) over one partition is Spark's first rand(42) values); on
 * several threads the same stream is shared by the workers, so which row
 * gets which value depends on the schedule, as in Spark it depends on the
 * partitioning (docs/functions.md). A node's stream is its one mutable
 * state, behind a mutex.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/eval_int.h"

#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/time.h"
#include "util/time_zone.h"

/* ---- Spark's XORShiftRandom ------------------------------------------------------ */

typedef struct rng {
    pthread_mutex_t lock;
    uint64_t seed;
    int have_gauss;
    double next_gauss;
    atomic_llong counter; /* monotonically_increasing_id */
} rng;

/*
 * scala.util.hashing.MurmurHash3.bytesHash of the 8 big-endian bytes of v:
 * Murmur3 x86_32 of those bytes read as little-endian words, which is
 * Spark's hashLong of the byte-swapped value.
 */
static uint32_t bytes_hash(uint64_t v, uint32_t seed)
{
    return expr_murmur3_long(__builtin_bswap64(v), seed);
}

static void rng_init(rng *g, int64_t seed)
{
    uint32_t low = bytes_hash((uint64_t)seed, 0x3c074a61u);
    uint32_t high = bytes_hash((uint64_t)seed, low);
    pthread_mutex_init(&g->lock, NULL);
    g->seed = (uint64_t)high << 32 | low;
    g->have_gauss = 0;
    atomic_init(&g->counter, 0);
}

static int32_t rng_next(rng *g, int bits)
{
    uint64_t s = g->seed;
    s ^= s << 21;
    s ^= s >> 35;
    s ^= s << 4;
    g->seed = s;
    return (int32_t)(s & ((UINT64_C(1) << bits) - 1));
}

static double rng_double(rng *g)
{
    int64_t hi = rng_next(g, 26), lo = rng_next(g, 27);
    return (double)((hi << 27) + lo) * (1.0 / (double)(INT64_C(1) << 53));
}

static int64_t rng_long(rng *g)
{
    int64_t hi = rng_next(g, 32), lo = rng_next(g, 32);
    return (int64_t)((uint64_t)hi << 32) + lo;
}

/* java.util.Random.nextGaussian: the polar method, the second value kept for the next call. */
static double rng_gauss(rng *g)
{
    double v1, v2, s, m;
    if (g->have_gauss) {
        g->have_gauss = 0;
        return g->next_gauss;
    }
    do {
        v1 = 2 * rng_double(g) - 1;
        v2 = 2 * rng_double(g) - 1;
        s = v1 * v1 + v2 * v2;
    } while (s >= 1 || s == 0);
    m = sqrt(-2 * log(s) / s);
    g->next_gauss = v2 * m;
    g->have_gauss = 1;
    return v1 * m;
}

/* java.util.Random.nextInt(bound). */
static int32_t rng_int(rng *g, int32_t bound)
{
    int32_t r = rng_next(g, 31), m = bound - 1, u;
    if ((bound & m) == 0)
        return (int32_t)(((int64_t)bound * r) >> 31);
    for (u = r; u - (r = u % bound) + m < 0; u = rng_next(g, 31))
        ;
    return r;
}

/* A seed for a call without one: Spark draws one per query from its own randomness. */
static int64_t fresh_seed(const void *salt)
{
    uint64_t x = (uint64_t)time_now_micros() ^ (uint64_t)(uintptr_t)salt ^
                 ((uint64_t)time_monotonic_nanos() << 17);
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return (int64_t)x;
}

/*
 * The node's stream: an optional seed argument, which Spark wants constant
 * (an integer literal; NULL is seed 0), made at typing time.
 */
static silt_status res_seeded(expr *e, arena *a, int seed_arg, col_type_id result,
                              silt_error *err)
{
    rng *g = arena_calloc(a, 1, sizeof(*g));
    int64_t seed;
    if (g == NULL)
        return err_nomem(err);
    if ((int)e->n_args > seed_arg) {
        const expr *s = e->args[seed_arg];
        col_type_id id = s->type->id;
        if (s->kind != EXPR_LITERAL)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the seed of "
                           "\"%s\" must be a constant integer", e->func->name);
        if (id != COL_NULL && id != COL_INT && id != COL_LONG && id != COL_SHORT && id != COL_BYTE)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] the seed of "
                           "\"%s\" must be an INT or a BIGINT, not \"%s\"", e->func->name,
                           col_type_id_name(id));
        seed = id == COL_NULL || s->lit.is_null ? 0 : s->lit.i;
    } else {
        seed = fresh_seed(e);
    }
    rng_init(g, seed);
    e->state = g;
    e->type = col_type_primitive(result);
    return SILT_OK;
}

static silt_status res_rand(expr *e, arena *a, silt_error *err)
{
    return res_seeded(e, a, 0, COL_DOUBLE, err);
}

static silt_status res_uuid(expr *e, arena *a, silt_error *err)
{
    return res_seeded(e, a, 0, COL_STRING, err);
}

static silt_status res_long0(expr *e, arena *a, silt_error *err)
{
    return res_seeded(e, a, 99, COL_LONG, err);
}

static silt_status res_int0(expr *e, arena *a, silt_error *err)
{
    e->type = col_type_primitive(COL_INT);
    return SILT_OK;
}

static silt_status res_string0(expr *e, arena *a, silt_error *err)
{
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

static silt_status res_ntz0(expr *e, arena *a, silt_error *err)
{
    e->type = col_type_primitive(COL_TIMESTAMP_NTZ);
    return SILT_OK;
}

static silt_status res_shuffle(expr *e, arena *a, silt_error *err)
{
    if (e->args[0]->type->id != COL_ARRAY)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] function "
                       "\"shuffle\" needs an array, not \"%s\"", col_type_id_name(e->args[0]->type->id));
    SILT_RETURN_IF_ERROR(res_seeded(e, a, 1, COL_ARRAY, err));
    e->type = e->args[0]->type;
    return SILT_OK;
}

/* Doubles drawn in row order under the node's lock. */
static silt_status draw_doubles(FN_ARGS, int gaussian)
{
    rng *g = e->state;
    col_vec *o;
    double *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    pthread_mutex_lock(&g->lock);
    LIVE_LOOP(ov[r] = gaussian ? rng_gauss(g) : rng_double(g););
    pthread_mutex_unlock(&g->lock);
    *out = o;
    return SILT_OK;
}

static silt_status fn_rand(FN_ARGS) { return draw_doubles(e, ctx, args, sel, n_sel, n_rows, a, out, err, 0); }
static silt_status fn_randn(FN_ARGS) { return draw_doubles(e, ctx, args, sel, n_sel, n_rows, a, out, err, 1); }

/* uuid(): Spark's RandomUUIDGenerator, version 4 and the IETF variant set on two longs. */
static silt_status fn_uuid(FN_ARGS)
{
    rng *g = e->state;
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    pthread_mutex_lock(&g->lock);
    LIVE_LOOP({
        uint64_t msb = ((uint64_t)rng_long(g) & UINT64_C(0xFFFFFFFFFFFF0FFF)) | UINT64_C(0x4000);
        uint64_t lsb = ((uint64_t)rng_long(g) | UINT64_C(0x8000000000000000)) &
                       UINT64_C(0xBFFFFFFFFFFFFFFF);
        char text[40];
        snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx", (unsigned)(msb >> 32),
                 (unsigned)(msb >> 16 & 0xffff), (unsigned)(msb & 0xffff),
                 (unsigned)(lsb >> 48), (unsigned long long)(lsb & UINT64_C(0xffffffffffff)));
        rc = vec_str_put(&w, r, text, 36, err);
        if (rc != SILT_OK)
            break;
    });
    pthread_mutex_unlock(&g->lock);
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* shuffle(array[, seed]): each row's elements in a random order (Fisher-Yates). */
static silt_status fn_shuffle(FN_ARGS)
{
    rng *g = e->state;
    const col_vec *in = args[0], *elems = in->children[0];
    int64_t base = in->offsets[0], total = in->offsets[n_rows] - base, k;
    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(total ? total : 1));
    col_vec *o;
    if (idx == NULL)
        return err_nomem(err);
    for (k = 0; k < total; k++)
        idx[k] = base + k;
    pthread_mutex_lock(&g->lock);
    LIVE_LOOP({
        int64_t lo = in->offsets[r] - base, n = in->offsets[r + 1] - in->offsets[r], i;
        for (i = n - 1; i > 0; i--) {
            int64_t j = rng_int(g, (int32_t)(i + 1)), t = idx[lo + i];
            idx[lo + i] = idx[lo + j];
            idx[lo + j] = t;
        }
    });
    pthread_mutex_unlock(&g->lock);
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    for (k = 0; k <= n_rows; k++)
        o->offsets[k] = in->offsets[k] - (int32_t)base;
    SILT_RETURN_IF_ERROR(vec_gather(&o->children[0], a, elems, idx, total, err));
    *out = o;
    return SILT_OK;
}

/*
 * monotonically_increasing_id(): unique and increasing in the order rows are
 * drawn. silt's query is one partition (Spark puts the partition in bits 33
 * and up: partition 0 counts from 0 as here).
 */
static silt_status fn_mono_id(FN_ARGS)
{
    rng *g = e->state;
    col_vec *o;
    int64_t next;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    next = atomic_fetch_add(&g->counter, (long long)n_sel);
    LIVE_LOOP(vec_put_int(o, r, next++););
    *out = o;
    return SILT_OK;
}

/* spark_partition_id(): 0, silt's one partition (see above). */
static silt_status fn_partition_id(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(vec_put_int(o, r, 0););
    *out = o;
    return SILT_OK;
}

static silt_status put_text(FN_ARGS, const char *text)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        rc = vec_str_put(&w, r, text, (int64_t)strlen(text), err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status fn_current_timezone(FN_ARGS)
{
    return put_text(e, ctx, args, sel, n_sel, n_rows, a, out, err, time_zone_id(ctx->zone));
}

static silt_status fn_current_catalog(FN_ARGS)
{
    return put_text(e, ctx, args, sel, n_sel, n_rows, a, out, err, "spark_catalog");
}

/* current_user(): the operating system's user, as Spark's (SPARK_USER first, as Spark). */
static silt_status fn_current_user(FN_ARGS)
{
    const char *env = getenv("SPARK_USER");
    char store[1024], name[256];
    struct passwd pw, *found = NULL;
    snprintf(name, sizeof(name), "%s", env != NULL && env[0] != '\0' ? env : "");
    if (name[0] == '\0' && getpwuid_r(geteuid(), &pw, store, sizeof(store), &found) == 0 &&
        found != NULL)
        snprintf(name, sizeof(name), "%s", found->pw_name);
    return put_text(e, ctx, args, sel, n_sel, n_rows, a, out, err, name);
}

/* localtimestamp(): the query's now on the session's wall clock, as TIMESTAMP_NTZ. */
static silt_status fn_localtimestamp(FN_ARGS)
{
    col_vec *o;
    int64_t now = time_zone_to_local(ctx->zone, ctx->now_micros);
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(vec_put_int(o, r, now););
    *out = o;
    return SILT_OK;
}

const expr_func_def engine_random_funcs[] = {
    {"rand", 0, 1, res_rand, fn_rand, 1},
    {"random", 0, 1, res_rand, fn_rand, 1},
    {"randn", 0, 1, res_rand, fn_randn, 1},
    {"uuid", 0, 0, res_uuid, fn_uuid, 1},
    {"shuffle", 1, 2, res_shuffle, fn_shuffle, 0},
    {"monotonically_increasing_id", 0, 0, res_long0, fn_mono_id, 1},
    {"spark_partition_id", 0, 0, res_int0, fn_partition_id, 1},
    {"current_timezone", 0, 0, res_string0, fn_current_timezone, 1},
    {"current_catalog", 0, 0, res_string0, fn_current_catalog, 1},
    {"current_user", 0, 0, res_string0, fn_current_user, 1},
    {"user", 0, 0, res_string0, fn_current_user, 1},
    {"session_user", 0, 0, res_string0, fn_current_user, 1},
    {"localtimestamp", 0, 0, res_ntz0, fn_localtimestamp, 1},
};
const size_t engine_n_random_funcs = sizeof(engine_random_funcs) / sizeof(engine_random_funcs[0]);
