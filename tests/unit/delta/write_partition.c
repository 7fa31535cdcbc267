/*
 * Partition values as text (the log's partitionValues) and as folder names
 * (Spark's escapePathName), for every partition column type.
 */
#include "write_util.h"

#include "delta/write_int.h"

static arena *a;
static silt_error err;

void test_delta_write_partition__initialize(void)
{
    a = arena_new(NULL, "test");
    err_clear(&err);
}

void test_delta_write_partition__cleanup(void) { arena_free(a); }

/* The text of a one-value vector built by fill (NULL = null). */
static const char *text_of(col_vec *v)
{
    buf out = BUF_INIT;
    int is_null = 0;
    const char *result;
    check_ok(dwrite_partition_text(v, 0, &out, &is_null, &err), &err);
    result = is_null ? NULL : arena_strdup(a, buf_cstr(&out));
    buf_clear(&out);
    return result;
}

static col_vec *one(const col_type *type)
{
    col_vec *v = NULL;
    check_ok(col_vec_new(&v, a, type, 1, 0, &err), &err);
    return v;
}

void test_delta_write_partition__numbers(void)
{
    col_vec *v = one(col_type_primitive(COL_INT));
    ((int32_t *)v->values)[0] = -42;
    check_str("-42", text_of(v));
    v = one(col_type_primitive(COL_LONG));
    ((int64_t *)v->values)[0] = INT64_MIN;
    check_str("-9223372036854775808", text_of(v));
    v = one(col_type_primitive(COL_BYTE));
    ((int8_t *)v->values)[0] = -7;
    check_str("-7", text_of(v));
    v = one(col_type_primitive(COL_BOOLEAN));
    ((uint8_t *)v->values)[0] = 1;
    check_str("true", text_of(v));
    v = one(col_type_primitive(COL_DOUBLE));
    ((double *)v->values)[0] = 2.0;
    check_str("2.0", text_of(v)); /* Java's Double.toString keeps ".0" */
    ((double *)v->values)[0] = 0.1;
    check_str("0.1", text_of(v));
    ((double *)v->values)[0] = 1.0 / 3.0;
    check_str("0.3333333333333333", text_of(v));
    v = one(col_type_primitive(COL_FLOAT));
    ((float *)v->values)[0] = 0.1f;
    check_str("0.1", text_of(v));
}

void test_delta_write_partition__decimals_dates_timestamps(void)
{
    col_vec *v = one(col_type_decimal(a, 10, 2));
    ((col_int128 *)v->values)[0] = -5;
    check_str("-0.05", text_of(v));
    ((col_int128 *)v->values)[0] = 123456;
    check_str("1234.56", text_of(v));
    v = one(col_type_decimal(a, 38, 0));
    ((col_int128 *)v->values)[0] = (col_int128)INT64_MAX * 1000;
    check_str("9223372036854775807000", text_of(v));
    v = one(col_type_primitive(COL_DATE));
    ((int32_t *)v->values)[0] = -1;
    check_str("1969-12-31", text_of(v));
    v = one(col_type_primitive(COL_TIMESTAMP));
    ((int64_t *)v->values)[0] = INT64_C(1609495872000001);
    check_str("2021-01-01 10:11:12.000001", text_of(v));
}

void test_delta_write_partition__strings_and_nulls(void)
{
    col_builder *b = NULL;
    col_vec *v = NULL;
    buf out = BUF_INIT;
    int is_null = 0;
    check_ok(col_builder_new(&b, a, col_type_primitive(COL_STRING), &err), &err);
    check_ok(col_builder_append_bytes(b, "", 0, &err), &err);
    check_ok(col_builder_append_null(b, &err), &err);
    check_ok(col_builder_append_bytes(b, "ä b", 4, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check_ok(dwrite_partition_text(v, 0, &out, &is_null, &err), &err);
    check_int(1, is_null); /* Spark stores "" as null */
    check_ok(dwrite_partition_text(v, 1, &out, &is_null, &err), &err);
    check_int(1, is_null);
    check_ok(dwrite_partition_text(v, 2, &out, &is_null, &err), &err);
    check_int(0, is_null);
    check_str("ä b", buf_cstr(&out));
    buf_clear(&out);
    v = one(col_type_primitive(COL_BINARY));
    check_fails(SILT_UNSUPPORTED, dwrite_partition_text(v, 0, &out, &is_null, &err));
    buf_clear(&out);
}

void test_delta_write_partition__escaping(void)
{
    static const char raw[] = "a/b:c=d%e#f?g*h'i\"j\\k{l[m]n^o p\x01q\x7fr.-_~ä";
    buf out = BUF_INIT;
    check_ok(dwrite_escape_path(raw, sizeof(raw) - 1, &out, &err), &err);
    /* Space, '.', '-', '_', '~' and UTF-8 bytes stay as they are (not on Windows in Spark). */
    check_str("a%2Fb%3Ac%3Dd%25e%23f%3Fg%2Ah%27i%22j%5Ck%7Bl%5Bm%5Dn%5Eo p%01q%7Fr.-_~ä",
              buf_cstr(&out));
    buf_clear(&out);
}
