/*
 * Unit tests of text_files_discover: Spark's listing and partition
 * discovery of plain file sources (the types were read off the Spark peer;
 * interop.spark_partitions compares whole queries with it).
 */
#include <stdio.h>
#include <string.h>

#include "formats/text/text_source.h"
#include "test.h"

static io_store *store;
static silt_error err;
static arena *mem;

void test_formats_text_files__initialize(void)
{
    err_clear(&err);
    store = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
    mem = arena_new(NULL, "test");
}

void test_formats_text_files__cleanup(void)
{
    arena_free(mem);
    io_store_free(store);
}

static void put(const char *key) { check_ok(io_put(store, key, "x", 1, &err), &err); }

/* "key|col:type=value,..." per file, or the error message. */
static const char *discover(const char *path, const text_files_options *o)
{
    static buf out;
    text_files f;
    buf_clear(&out);
    if (text_files_discover(store, path, o, mem, &f, &err) != SILT_OK)
        return err.message;
    for (size_t k = 0; k < f.n_keys; k++) {
        buf_printf(&out, &err, "%s%s", k ? "\n" : "", f.keys[k]);
        for (size_t c = 0; f.parts != NULL && c < f.parts->n_fields; c++) {
            const col_vec *v = f.values[c];
            buf t = BUF_INIT;
            check_ok(col_type_format(f.parts->fields[c].type, &t, &err), &err);
            buf_printf(&out, &err, "%s%s:%s=", c ? "," : "|", f.parts->fields[c].name,
                       buf_cstr(&t));
            buf_clear(&t);
            if (v->type->id == COL_NULL || col_vec_is_null(v, (int64_t)k)) {
                buf_printf(&out, &err, "null");
            } else if (v->type->id == COL_STRING) {
                int32_t len;
                const char *s = col_vec_str(v, (int64_t)k, &len);
                buf_printf(&out, &err, "%.*s", (int)len, s);
            } else if (v->type->id == COL_DOUBLE) {
                buf_printf(&out, &err, "%g", ((const double *)v->values)[k]);
            } else if (v->type->id == COL_INT || v->type->id == COL_DATE) {
                buf_printf(&out, &err, "%d", ((const int32_t *)v->values)[k]);
            } else if (v->type->id == COL_DECIMAL) {
                col_int128 d;
                char digits[48];
                size_t n = 0;
                memcpy(&d, (const char *)v->values + k * 16, 16);
                if (d < 0)
                    buf_printf(&out, &err, "-");
                do {
                    col_int128 q = d / 10;
                    int r = (int)(d - q * 10);
                    digits[n++] = (char)('0' + (r < 0 ? -r : r));
                    d = q;
                } while (d != 0);
                while (n > 0)
                    buf_printf(&out, &err, "%c", digits[--n]);
            } else {
                buf_printf(&out, &err, "%lld", (long long)((const int64_t *)v->values)[k]);
            }
        }
    }
    return buf_cstr(&out);
}

static text_files_options opts(void)
{
    text_files_options o;
    memset(&o, 0, sizeof(o));
    o.infer_types = 1;
    return o;
}

/* One folder per value: the type Spark 4.1 infers for it. */
void test_formats_text_files__types_of_single_values(void)
{
    static const char *const cases[][2] = {
        {"1", "k:integer=1"},
        {"2147483648", "k:long=2147483648"},
        {"12345678901234567890", "k:decimal(20,0)=12345678901234567890"},
        {"1.5", "k:double=1.5"},
        {"2020-01-01", "k:date=18262"},
        {"2020-01-01 10%3A00%3A00", "k:timestamp=1577872800000000"},
        {"2020-01-01 10%3A00%3A00.5", "k:timestamp=1577872800500000"},
        {"2020-01-01 10%3A00%3A00.123", "k:string=2020-01-01 10:00:00.123"},
        {"2020-01", "k:string=2020-01"},
        {"2020-1-1", "k:string=2020-1-1"},
        {"abc%20d", "k:string=abc d"},
        {"__HIVE_DEFAULT_PARTITION__", "k:void=null"},
        {"1e5", "k:decimal(6,0)=100000"},
        {"1.0e1", "k:decimal(2,0)=10"},
        {"007", "k:integer=7"},
        {"+5", "k:integer=5"},
        {"-0", "k:integer=0"},
        {"0x10", "k:string=0x10"},
        {"1.5f", "k:double=1.5"},
        {" 1.5", "k:double=1.5"},
    };
    text_files_options o = opts();
    for (size_t idx = 0; idx < sizeof(cases) / sizeof(cases[0]); idx++) {
        char key[128], want[256];
        snprintf(key, sizeof(key), "t%zu/k=%s/part-0.parquet", idx, cases[idx][0]);
        put(key);
        snprintf(want, sizeof(want), "%s|%s", key, cases[idx][1]);
        snprintf(key, sizeof(key), "t%zu", idx);
        check_str(want, discover(key, &o));
    }
}

void test_formats_text_files__types_widen_across_folders(void)
{
    text_files_options o = opts();
    put("w1/k=1/f");
    put("w1/k=2147483648/f");
    put("w1/k=1.5/f");
    check_str("w1/k=1.5/f|k:string=1.5\nw1/k=1/f|k:string=1\nw1/k=2147483648/f|k:string=2147483648",
              discover("w1", &o));
    put("w2/k=1/f");
    put("w2/k=1.5/f");
    put("w2/k=__HIVE_DEFAULT_PARTITION__/f");
    check_str("w2/k=1.5/f|k:double=1.5\nw2/k=1/f|k:double=1\nw2/k=__HIVE_DEFAULT_PARTITION__/f|"
              "k:double=null", discover("w2", &o));
    put("w3/k=2020-01-01/f");
    put("w3/k=2020-01-01 10%3A00%3A00/f");
    check_str("w3/k=2020-01-01 10%3A00%3A00/f|k:timestamp=1577872800000000\n"
              "w3/k=2020-01-01/f|k:timestamp=1577836800000000", discover("w3", &o));
    put("w4/k=5/f");
    put("w4/k=12345678901234567890/f");
    check_str("w4/k=12345678901234567890/f|k:decimal(20,0)=12345678901234567890\n"
              "w4/k=5/f|k:decimal(20,0)=5", discover("w4", &o));
    o.infer_types = 0;
    check_str("w4/k=12345678901234567890/f|k:string=12345678901234567890\nw4/k=5/f|k:string=5",
              discover("w4", &o));
}

void test_formats_text_files__listing_base_and_recursion(void)
{
    text_files_options o = opts();
    put("y/year=2020/m=1/a.parquet");
    put("y/year=2020/m=1/_SUCCESS");
    put("y/year=2020/m=1/.a.parquet.crc");
    put("y/year=2021/m=2/b.parquet");
    put("y/year=2021/m=2/b.parquet._COPYING_");
    put("y/_delta_log/00.json");
    put("y/_c=1/m=3/c.parquet"); /* a '_' name with '=' is a partition folder */
    check_contains(discover("y", &o), "CONFLICTING_PARTITION_COLUMN_NAMES");
    check_ok(io_delete(store, "y/_c=1/m=3/c.parquet", &err), &err);
    check_str("y/year=2020/m=1/a.parquet|year:integer=2020,m:integer=1\n"
              "y/year=2021/m=2/b.parquet|year:integer=2021,m:integer=2", discover("y", &o));
    /* inside the partition folders: only those below are columns, unless basePath says */
    check_str("y/year=2020/m=1/a.parquet|m:integer=1", discover("y/year=2020", &o));
    o.base_key = "y";
    check_str("y/year=2020/m=1/a.parquet|year:integer=2020,m:integer=1",
              discover("y/year=2020", &o));
    check_str("y/year=2020/m=1/a.parquet|year:integer=2020,m:integer=1\n"
              "y/year=2021/m=2/b.parquet|year:integer=2021,m:integer=2",
              discover("y/year=*", &o));
    o.base_key = NULL;
    check_contains(discover("y/year=*", &o), "CONFLICTING_DIRECTORY_STRUCTURES");
    o.recursive_lookup = 1;
    check_str("y/year=2020/m=1/a.parquet\ny/year=2021/m=2/b.parquet", discover("y", &o));
    o.recursive_lookup = 0;
    o.glob_filter = "b.*";
    check_str("y/year=2021/m=2/b.parquet|year:integer=2021,m:integer=2", discover("y", &o));
}

void test_formats_text_files__unpartitioned_and_mixed_folders(void)
{
    text_files_options o = opts();
    put("u/a.csv");
    put("u/sub/b.csv"); /* not a partition folder: not read, as in Spark */
    check_str("u/a.csv", discover("u", &o));
    check_str("u/a.csv", discover("u/a.csv", &o));
    put("n/sub/b.csv");
    check_contains(discover("n", &o), "matches no files");
    put("m/a=1/f");
    put("m/g"); /* beside partition folders: not read */
    check_str("m/a=1/f|a:integer=1", discover("m", &o));
    put("s/a=1/b=1/f");
    put("s/x/b=2/f");
    check_contains(discover("s", &o), "Conflicting directory structures detected");
    put("e/a=/f");
    check_contains(discover("e", &o), "empty value");
}
