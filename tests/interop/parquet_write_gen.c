/*
 * parquet_write_gen.c - writes the Parquet files of the writer's interop
 * test (tests/interop/check_parquet_written.py).
 *
 * Usage: parquet_write_gen <output folder>
 *
 * For every case it writes <case>.parquet with pqw_writer, <case>.jsonl
 * with the rows it gave the writer (one JSON object per row, in the
 * canonical form described in the Python script) and <case>.meta.json with
 * what the footer must say (options, key-value metadata, field ids, file
 * statistics). Data comes from a fixed-seed generator, so runs are
 * repeatable.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/columnar.h"
#include "formats/parquet/writer.h"
#include "io/store.h"
#include "util/arena.h"
#include "util/buf.h"

static silt_error err;

static void die(const char *what)
{
    char msg[2048];
    err_format(&err, msg, sizeof(msg));
    fprintf(stderr, "parquet_write_gen: %s: %s\n", what, msg);
    exit(1);
}

#define OK(expr)                                                                                   \
    do {                                                                                           \
        if ((expr) != SILT_OK)                                                                     \
            die(#expr);                                                                            \
    } while (0)

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng_state >> 17;
}

static void json_str(buf *j, const char *s, size_t len)
{
    OK(buf_append_char(j, '"', &err));
    for (size_t idx = 0; idx < len; idx++) {
        unsigned char c = (unsigned char)s[idx];
        if (c == '"' || c == '\\')
            OK(buf_printf(j, &err, "\\%c", c));
        else if (c < 0x20)
            OK(buf_printf(j, &err, "\\u%04x", c));
        else
            OK(buf_append_char(j, (char)c, &err));
    }
    OK(buf_append_char(j, '"', &err));
}

static void json_dec(buf *j, col_int128 v, int scale)
{
    char digits[64];
    int n = 0, neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u != 0 || n <= scale);
    OK(buf_append_char(j, '"', &err));
    if (neg)
        OK(buf_append_char(j, '-', &err));
    for (int idx = n - 1; idx >= 0; idx--) {
        OK(buf_append_char(j, digits[idx], &err));
        if (idx == scale && scale > 0)
            OK(buf_append_char(j, '.', &err));
    }
    OK(buf_append_char(j, '"', &err));
}

static void json_double(buf *j, double d)
{
    if (isnan(d))
        OK(buf_append_str(j, "\"NaN\"", &err));
    else if (isinf(d))
        OK(buf_append_str(j, d > 0 ? "\"Infinity\"" : "\"-Infinity\"", &err));
    else if (d == 0 && signbit(d))
        OK(buf_append_str(j, "-0.0", &err));
    else
        OK(buf_printf(j, &err, "%.17g", d));
}

static const char *const POOL[] = {"alpha", "beta", "gamma", "delta", "", "é café", "中文字符",
                                   "emoji 😀", "a\"quote", "back\\slash", "tab\tnl\n",
                                   "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
                                   /* 80 bytes of U+1D11E: the column max, so its bound is truncated */
                                   "𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞"};

static size_t gen_string(char *out)
{
    if (rnd() % 4 != 0) {
        const char *s = POOL[rnd() % (sizeof(POOL) / sizeof(POOL[0]))];
        size_t len = strlen(s);
        memcpy(out, s, len);
        return len;
    }
    static const char *const parts[] = {"x", "y", "ü", "€", "𝄞", "0", "9", "~"};
    size_t len = 0, n = rnd() % 24;
    for (size_t idx = 0; idx < n; idx++) {
        const char *p = parts[rnd() % 8];
        memcpy(out + len, p, strlen(p));
        len += strlen(p);
    }
    return len;
}

static col_int128 pow10_128(int p)
{
    col_int128 v = 1;
    while (p-- > 0)
        v *= 10;
    return v;
}

static int64_t distinct_counter;
static int high_cardinality;

/* Appends a random value of type t to b and its JSON to j. */
static void gen(col_builder *b, const col_type *t, int nullable, buf *j)
{
    if (nullable && rnd() % 6 == 0) {
        OK(col_builder_append_null(b, &err));
        OK(buf_append_str(j, "null", &err));
        return;
    }
    uint64_t r = rnd();
    switch (t->id) {
    case COL_BOOLEAN:
        OK(col_builder_append_bool(b, (int)(r & 1), &err));
        OK(buf_append_str(j, r & 1 ? "true" : "false", &err));
        break;
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG: {
        int64_t v;
        int bits = t->id == COL_BYTE ? 8 : t->id == COL_SHORT ? 16 : t->id == COL_INT ? 32 : 64;
        int64_t lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
        int64_t hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
        if (r % 50 == 0)
            v = lo;
        else if (r % 50 == 1)
            v = hi;
        else if (high_cardinality && t->id == COL_LONG)
            v = distinct_counter++ * 7919 % (hi > 1000000 ? 1000000 : hi);
        else
            v = (int64_t)(rnd() % 200) - 100;
        OK(col_builder_append_int(b, v, &err));
        OK(buf_printf(j, &err, "%" PRId64, v));
        break;
    }
    case COL_DATE: {
        int64_t v = (int64_t)(r % 100000) - 50000;
        OK(col_builder_append_int(b, v, &err));
        OK(buf_printf(j, &err, "%" PRId64, v));
        break;
    }
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: {
        int64_t v = (int64_t)(r % 6000000000000000ULL) - 3000000000000000LL;
        OK(col_builder_append_int(b, v, &err));
        OK(buf_printf(j, &err, "%" PRId64, v));
        break;
    }
    case COL_FLOAT:
    case COL_DOUBLE: {
        double v;
        switch (r % 40) {
        case 0: v = NAN; break;
        case 1: v = INFINITY; break;
        case 2: v = -INFINITY; break;
        case 3: v = -0.0; break;
        case 4: v = 0.0; break;
        default: v = ((double)(int64_t)(rnd() % 200000) - 100000.0) / 64.0; break;
        }
        OK(col_builder_append_double(b, v, &err));
        json_double(j, t->id == COL_FLOAT ? (double)(float)v : v);
        break;
    }
    case COL_DECIMAL: {
        col_int128 limit = pow10_128(t->precision);
        col_int128 v = ((col_int128)rnd() << 64 | (col_int128)rnd() << 20 | rnd()) % limit;
        if (r % 3 == 0)
            v = -v;
        if (r % 29 == 0)
            v = limit - 1;
        if (r % 31 == 0)
            v = 1 - limit;
        OK(col_builder_append_decimal(b, v, &err));
        json_dec(j, v, t->scale);
        break;
    }
    case COL_STRING: {
        char s[256];
        size_t len = high_cardinality ? (size_t)snprintf(s, sizeof(s), "distinct-%" PRId64 "-%s",
                                                         distinct_counter++, "padding padding")
                                      : gen_string(s);
        OK(col_builder_append_bytes(b, s, len, &err));
        json_str(j, s, len);
        break;
    }
    case COL_BINARY: {
        uint8_t s[96];
        size_t len = r % 17;
        for (size_t idx = 0; idx < len; idx++)
            s[idx] = (uint8_t)(rnd() % 4 == 0 ? 0xFF : rnd());
        if (r % 97 == 0) {
            /* Long values: 0xFE then 0xFF bytes make the max, whose truncated
             * bound must carry into the 0xFE. */
            len = 70 + r % 20;
            memset(s, 0xFF, len);
            s[0] = 0xFE;
            s[len - 1] = (uint8_t)r;
        }
        OK(col_builder_append_bytes(b, s, len, &err));
        OK(buf_append_char(j, '"', &err));
        for (size_t idx = 0; idx < len; idx++)
            OK(buf_printf(j, &err, "%02x", s[idx]));
        OK(buf_append_char(j, '"', &err));
        break;
    }
    case COL_STRUCT:
        OK(buf_append_char(j, '{', &err));
        for (size_t f = 0; f < t->n_fields; f++) {
            if (f > 0)
                OK(buf_append_char(j, ',', &err));
            json_str(j, t->fields[f].name, strlen(t->fields[f].name));
            OK(buf_append_char(j, ':', &err));
            gen(col_builder_child(b, f), t->fields[f].type, t->fields[f].nullable, j);
        }
        OK(buf_append_char(j, '}', &err));
        OK(col_builder_append_struct(b, &err));
        break;
    case COL_ARRAY: {
        int64_t n = (int64_t)(r % 5);
        OK(buf_append_char(j, '[', &err));
        for (int64_t e = 0; e < n; e++) {
            if (e > 0)
                OK(buf_append_char(j, ',', &err));
            gen(col_builder_child(b, 0), t->fields[0].type, t->fields[0].nullable, j);
        }
        OK(buf_append_char(j, ']', &err));
        OK(col_builder_append_list(b, n, &err));
        break;
    }
    case COL_MAP: {
        int64_t n = (int64_t)(r % 4);
        OK(buf_append_char(j, '[', &err));
        for (int64_t e = 0; e < n; e++) {
            if (e > 0)
                OK(buf_append_char(j, ',', &err));
            OK(buf_append_char(j, '[', &err));
            /* Keys must be unique within a map: number them. */
            col_builder *kb = col_builder_child(b, 0);
            if (t->fields[0].type->id == COL_STRING) {
                char s[32];
                int len = snprintf(s, sizeof(s), "k%d_%d", (int)e, (int)(rnd() % 3));
                OK(col_builder_append_bytes(kb, s, (size_t)len, &err));
                json_str(j, s, (size_t)len);
            } else {
                int64_t k = e * 1000 + (int64_t)(rnd() % 1000);
                OK(col_builder_append_int(kb, k, &err));
                OK(buf_printf(j, &err, "%" PRId64, k));
            }
            OK(buf_append_char(j, ',', &err));
            gen(col_builder_child(b, 1), t->fields[1].type, t->fields[1].nullable, j);
            OK(buf_append_char(j, ']', &err));
        }
        OK(buf_append_char(j, ']', &err));
        OK(col_builder_append_list(b, n, &err));
        break;
    }
    default:
        fprintf(stderr, "parquet_write_gen: no generator for %s\n", col_type_id_name(t->id));
        exit(1);
    }
}

static col_field fld(const char *name, const col_type *type, int nullable, int32_t id)
{
    col_field f = {name, type, nullable, NULL, id};
    return f;
}

static const col_type *P(col_type_id id) { return col_type_primitive(id); }

static col_type *primitives_schema(arena *a)
{
    col_field f[] = {
        fld("b", P(COL_BOOLEAN), 1, 1),
        fld("i8", P(COL_BYTE), 1, 2),
        fld("i16", P(COL_SHORT), 1, 3),
        fld("i32", P(COL_INT), 1, 4),
        fld("i64", P(COL_LONG), 1, 5),
        fld("f32", P(COL_FLOAT), 1, 6),
        fld("f64", P(COL_DOUBLE), 1, 7),
        fld("d9", col_type_decimal(a, 9, 2), 1, 8),
        fld("d18", col_type_decimal(a, 18, 6), 1, 9),
        fld("d38", col_type_decimal(a, 38, 10), 1, 10),
        fld("d20", col_type_decimal(a, 20, 0), 1, 11),
        fld("s", P(COL_STRING), 1, 12),
        fld("bin", P(COL_BINARY), 1, 13),
        fld("dt", P(COL_DATE), 1, 14),
        fld("ts", P(COL_TIMESTAMP), 1, 15),
        fld("ts_ntz", P(COL_TIMESTAMP_NTZ), 1, 16),
        fld("req_i32", P(COL_INT), 0, 17),
        fld("req_s", P(COL_STRING), 0, 18),
        fld("req_d38", col_type_decimal(a, 38, 0), 0, 19),
        fld("req_b", P(COL_BOOLEAN), 0, 20),
    };
    col_field *copy = arena_memdup(a, f, sizeof(f));
    return col_type_struct(a, sizeof(f) / sizeof(f[0]), copy);
}

static col_type *nested_schema(arena *a)
{
    col_field inner[] = {fld("x", P(COL_INT), 1, 101), fld("tags", col_type_array(a, P(COL_STRING), 1), 1, 102)};
    col_type *inner_t = col_type_struct(a, 2, arena_memdup(a, inner, sizeof(inner)));
    col_field point[] = {fld("lat", P(COL_DOUBLE), 0, 111), fld("lon", P(COL_DOUBLE), 1, 112),
                         fld("name", P(COL_STRING), 1, 113)};
    col_type *point_t = col_type_struct(a, 3, arena_memdup(a, point, sizeof(point)));
    col_field outer[] = {fld("p", point_t, 1, 121), fld("n", P(COL_LONG), 0, 122)};
    col_type *outer_t = col_type_struct(a, 2, arena_memdup(a, outer, sizeof(outer)));
    col_field f[] = {
        fld("id", P(COL_LONG), 0, 1),
        fld("arr_i", col_type_array(a, P(COL_INT), 1), 1, 2),
        fld("arr_s_req", col_type_array(a, P(COL_STRING), 0), 1, 3),
        fld("arr_arr", col_type_array(a, col_type_array(a, P(COL_LONG), 1), 1), 1, 4),
        fld("m_si", col_type_map(a, P(COL_STRING), P(COL_INT), 1), 1, 5),
        fld("m_i_arr", col_type_map(a, P(COL_INT), col_type_array(a, P(COL_STRING), 1), 1), 1, 6),
        fld("arr_struct", col_type_array(a, inner_t, 1), 1, 7),
        fld("st", outer_t, 1, 8),
        fld("st_req", point_t, 0, 9),
        fld("m_s_struct", col_type_map(a, P(COL_STRING), point_t, 0), 1, 10),
        fld("arr_dec", col_type_array(a, col_type_decimal(a, 25, 5), 1), 1, 11),
        fld("arr_ts", col_type_array(a, P(COL_TIMESTAMP), 1), 0, 12),
    };
    return col_type_struct(a, sizeof(f) / sizeof(f[0]), arena_memdup(a, f, sizeof(f)));
}

static col_type *fallback_schema(arena *a)
{
    col_field f[] = {fld("s", P(COL_STRING), 1, 1), fld("l", P(COL_LONG), 1, 2),
                     fld("low", P(COL_INT), 1, 3)};
    return col_type_struct(a, 3, arena_memdup(a, f, sizeof(f)));
}

static void write_text(io_store *store, const char *key, const buf *b)
{
    OK(io_put(store, key, b->data ? b->data : "", b->len, &err));
}

static void stats_json(buf *m, const pqw_file_stats *st)
{
    OK(buf_printf(m, &err, "\"num_records\":%" PRId64 ",\"row_groups\":%" PRId64 ",\"leaves\":[",
                  st->num_records, st->n_row_groups));
    for (size_t l = 0; l < st->n_leaves; l++) {
        const pqw_leaf_stats *ls = &st->leaves[l];
        OK(buf_printf(m, &err, "%s{\"path\":[", l ? "," : ""));
        for (size_t p = 0; p < ls->path_len; p++) {
            if (p)
                OK(buf_append_char(m, ',', &err));
            json_str(m, ls->path[p], strlen(ls->path[p]));
        }
        OK(buf_printf(m, &err, "],\"null_count\":%" PRId64 ",\"in_repeated\":%s", ls->null_count,
                      ls->in_repeated ? "true" : "false"));
        if (ls->has_min_max) {
            const pqw_value *v[2] = {&ls->min, &ls->max};
            for (int k = 0; k < 2; k++) {
                OK(buf_printf(m, &err, ",\"%s\":", k ? "max" : "min"));
                switch (ls->type->id) {
                case COL_FLOAT:
                case COL_DOUBLE:
                    json_double(m, v[k]->d);
                    break;
                case COL_DECIMAL:
                    json_dec(m, v[k]->dec, ls->type->scale);
                    break;
                case COL_STRING:
                    json_str(m, v[k]->bytes, (size_t)v[k]->len);
                    break;
                case COL_BINARY:
                    OK(buf_append_char(m, '"', &err));
                    for (int32_t idx = 0; idx < v[k]->len; idx++)
                        OK(buf_printf(m, &err, "%02x", (unsigned char)v[k]->bytes[idx]));
                    OK(buf_append_char(m, '"', &err));
                    break;
                case COL_BOOLEAN:
                    OK(buf_append_str(m, v[k]->i ? "true" : "false", &err));
                    break;
                default:
                    OK(buf_printf(m, &err, "%" PRId64, v[k]->i));
                    break;
                }
            }
            OK(buf_printf(m, &err, ",\"min_exact\":%s,\"max_exact\":%s",
                          ls->min_exact ? "true" : "false", ls->max_exact ? "true" : "false"));
        }
        OK(buf_append_char(m, '}', &err));
    }
    OK(buf_append_char(m, ']', &err));
}

typedef struct gen_case {
    const char *name;
    col_type *schema;
    int64_t n_rows;
    int64_t batch_rows;
    pqw_options opts;
    int high_cardinality;
    int dict_input; /* column 0 (STRING) is given as a dictionary-encoded vector */
} gen_case;

/* Re-expresses a plain STRING vector as indices into a dictionary of its distinct values. */
static col_vec *to_dictionary_vector(arena *a, col_vec *plain)
{
    col_builder *db;
    OK(col_builder_new(&db, a, P(COL_STRING), &err));
    int32_t *idx = arena_alloc_aligned(a, (size_t)(plain->length + 1) * 4, 64);
    int64_t n_dict = 0;
    const char *seen[64];
    int32_t seen_len[64];
    for (int64_t r = 0; r < plain->length; r++) {
        int32_t len;
        const char *s = col_vec_str(plain, r, &len);
        int64_t found = -1;
        for (int64_t d = 0; d < n_dict; d++)
            if (seen_len[d] == len && memcmp(seen[d], s, (size_t)len) == 0)
                found = d;
        if (found < 0) {
            if (n_dict == 64) {
                fprintf(stderr, "parquet_write_gen: too many distinct strings\n");
                exit(1);
            }
            seen[n_dict] = s;
            seen_len[n_dict] = len;
            OK(col_builder_append_bytes(db, s, (size_t)len, &err));
            found = n_dict++;
        }
        idx[r] = (int32_t)found;
    }
    col_vec *dict;
    OK(col_builder_finish(db, &dict, &err));
    col_vec *v = arena_calloc(a, 1, sizeof(col_vec));
    *v = *plain;
    v->values = idx;
    v->offsets = NULL;
    v->data = NULL;
    v->data_len = 0;
    v->dictionary = dict;
    return v;
}

static void run_case(io_store *store, const gen_case *c)
{
    arena *a = arena_new(NULL, "case");
    buf rows = BUF_INIT, meta = BUF_INIT;
    char key[256];
    pqw_writer *w;
    rng_state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)strlen(c->name) * 1000003u;
    distinct_counter = 0;
    high_cardinality = c->high_cardinality;
    snprintf(key, sizeof(key), "%s.parquet", c->name);
    OK(pqw_writer_open(&w, store, key, c->schema, &c->opts, &err));
    for (int64_t done = 0; done < c->n_rows;) {
        int64_t n = c->n_rows - done < c->batch_rows ? c->n_rows - done : c->batch_rows;
        arena *ba = arena_new(a, "batch");
        col_builder **builders = arena_calloc(ba, c->schema->n_fields, sizeof(*builders));
        for (size_t col = 0; col < c->schema->n_fields; col++)
            OK(col_builder_new(&builders[col], ba, c->schema->fields[col].type, &err));
        for (int64_t r = 0; r < n; r++) {
            OK(buf_append_char(&rows, '{', &err));
            for (size_t col = 0; col < c->schema->n_fields; col++) {
                const col_field *f = &c->schema->fields[col];
                OK(buf_printf(&rows, &err, "%s\"%s\":", col ? "," : "", f->name));
                gen(builders[col], f->type, f->nullable, &rows);
            }
            OK(buf_append_str(&rows, "}\n", &err));
        }
        col_batch batch = {c->schema, n, c->schema->n_fields, NULL};
        batch.cols = arena_calloc(ba, c->schema->n_fields, sizeof(col_vec *));
        for (size_t col = 0; col < c->schema->n_fields; col++)
            OK(col_builder_finish(builders[col], &batch.cols[col], &err));
        if (c->dict_input)
            batch.cols[0] = to_dictionary_vector(ba, batch.cols[0]);
        OK(pqw_writer_write_batch(w, &batch, &err));
        arena_free(ba);
        done += n;
    }
    pqw_file_stats st = PQW_FILE_STATS_INIT;
    OK(pqw_writer_close(w, &st, &err));
    snprintf(key, sizeof(key), "%s.jsonl", c->name);
    write_text(store, key, &rows);
    OK(buf_printf(&meta, &err, "{\"codec\":%d,\"dictionary\":%s,\"row_group_rows\":%" PRId64
                  ",\"field_ids\":%s,\"int96\":%s,\"kv\":{", c->opts.codec,
                  c->opts.dictionary ? "true" : "false", c->opts.row_group_rows,
                  c->opts.write_field_ids ? "true" : "false",
                  c->opts.timestamp_int96 ? "true" : "false"));
    for (size_t k = 0; k < c->opts.n_kv; k++) {
        if (k)
            OK(buf_append_char(&meta, ',', &err));
        json_str(&meta, c->opts.kv[k].key, strlen(c->opts.kv[k].key));
        OK(buf_append_char(&meta, ':', &err));
        json_str(&meta, c->opts.kv[k].value, strlen(c->opts.kv[k].value));
    }
    OK(buf_append_str(&meta, "},", &err));
    stats_json(&meta, &st);
    OK(buf_append_str(&meta, "}\n", &err));
    snprintf(key, sizeof(key), "%s.meta.json", c->name);
    write_text(store, key, &meta);
    pqw_file_stats_clear(&st);
    buf_clear(&rows);
    buf_clear(&meta);
    arena_free(a);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: parquet_write_gen <output folder>\n");
        return 2;
    }
    io_store *store;
    OK(io_store_open(&store, argv[1], 1, &err));
    arena *a = arena_new(NULL, "schemas");
    static const pqw_kv kv[] = {{"org.apache.spark.version", "3.5.0"},
                                {"silt.test", "héllo \"world\""}};
    pqw_options base = PQW_OPTIONS_INIT;
    base.row_group_rows = 2000;
    base.page_bytes = 2048;

    gen_case cases[24];
    size_t n = 0;
    const int codecs[] = {PQW_CODEC_SNAPPY, PQW_CODEC_UNCOMPRESSED, PQW_CODEC_GZIP,
                          PQW_CODEC_ZSTD};
    const char *const names[] = {"types_snappy", "types_uncompressed", "types_gzip", "types_zstd"};
    for (int k = 0; k < 4; k++) {
        for (int dict = 0; dict < 2; dict++) {
            gen_case *c = &cases[n++];
            memset(c, 0, sizeof(*c));
            c->name = arena_sprintf(a, "%s_%s", names[k], dict ? "dict" : "plain");
            c->schema = primitives_schema(a);
            c->n_rows = 5000;
            c->batch_rows = 700;
            c->opts = base;
            c->opts.codec = codecs[k];
            c->opts.dictionary = dict;
        }
    }
    for (int dict = 0; dict < 2; dict++) {
        gen_case *c = &cases[n++];
        memset(c, 0, sizeof(*c));
        c->name = dict ? "nested_dict" : "nested_plain";
        c->schema = nested_schema(a);
        c->n_rows = 3000;
        c->batch_rows = 1100;
        c->opts = base;
        c->opts.row_group_rows = 1000;
        c->opts.page_bytes = 1024;
        c->opts.dictionary = dict;
        c->opts.codec = dict ? PQW_CODEC_SNAPPY : PQW_CODEC_ZSTD;
    }
    gen_case *c = &cases[n++];
    memset(c, 0, sizeof(*c));
    c->name = "dict_fallback";
    c->schema = fallback_schema(a);
    c->n_rows = 6000;
    c->batch_rows = 6000;
    c->opts = base;
    c->opts.row_group_rows = 0;
    c->opts.page_bytes = 8192;
    c->opts.dictionary_max_bytes = 4096;
    c->high_cardinality = 1;

    c = &cases[n++];
    memset(c, 0, sizeof(*c));
    c->name = "field_ids_kv";
    c->schema = nested_schema(a);
    c->n_rows = 50;
    c->batch_rows = 50;
    c->opts = base;
    c->opts.write_field_ids = 1;
    c->opts.kv = kv;
    c->opts.n_kv = 2;

    c = &cases[n++];
    memset(c, 0, sizeof(*c));
    c->name = "empty";
    c->schema = primitives_schema(a);
    c->n_rows = 0;
    c->batch_rows = 1;
    c->opts = base;

    c = &cases[n++];
    memset(c, 0, sizeof(*c));
    c->name = "dict_input";
    c->schema = fallback_schema(a);
    c->n_rows = 3000;
    c->batch_rows = 1000;
    c->opts = base;

    c = &cases[n++];
    memset(c, 0, sizeof(*c));
    c->name = "types_int96";
    c->schema = primitives_schema(a);
    c->n_rows = 3000;
    c->batch_rows = 1000;
    c->opts = base;
    c->opts.timestamp_int96 = 1;

    c = &cases[n++];
    memset(c, 0, sizeof(*c));
    c->name = "row_groups_by_bytes";
    c->schema = primitives_schema(a);
    c->n_rows = 12000;
    c->batch_rows = 5000;
    c->opts = base;
    c->opts.row_group_rows = 0;
    c->opts.row_group_bytes = 96 * 1024;
    c->opts.page_bytes = 16 * 1024;

    for (size_t k = 0; k < n; k++)
        run_case(store, &cases[k]);
    printf("wrote %zu cases to %s\n", n, argv[1]);
    arena_free(a);
    io_store_free(store);
    return 0;
}
