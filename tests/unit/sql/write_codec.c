/*
 * spark.sql.parquet.compression.codec: every codec Spark names writes data
 * files in that codec (the footer's codec of every column chunk, Spark's
 * file name infix) that read back with the same rows; unknown names and
 * the zstd level are refused by name.
 */
#include <stdio.h>
#include <string.h>

#include "delta/snapshot.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/parquet.h"
#include "sql/session.h"
#include "test.h"

static sql_session *s;
static silt_error err;
static char path[1024];
static char sql[4096];

void test_sql_write_codec__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
}

void test_sql_write_codec__cleanup(void) { sql_session_free(s); }

static int64_t scalar(const char *text)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    int64_t v = -1;
    check_ok(sql_execute(s, text, &res, &err), &err);
    if (res != NULL && sql_result_next(res, &batch, &err) == SILT_OK && batch != NULL &&
        batch->n_rows == 1)
        v = ((const int64_t *)batch->cols[0]->values)[0];
    sql_result_free(res);
    return v;
}

/* Checks every data file of the table: its name has ext, every chunk is in codec. Returns
 * the number of files. */
static size_t check_codec(int codec, const char *ext)
{
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    size_t idx, n;
    char infix[64];
    snprintf(infix, sizeof(infix), ".c000%s.parquet", ext);
    check_ok(io_store_open(&store, path, 0, &err), &err);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    n = snap != NULL ? snap->n_files : 0;
    for (idx = 0; idx < n; idx++) {
        pq_file *f = NULL;
        const pq_file_meta *m;
        check_contains(snap->files[idx].path, infix);
        check_ok(pq_file_open(&f, store, snap->files[idx].path, &err), &err);
        if (f == NULL)
            continue;
        m = pq_file_metadata(f);
        check(m->n_row_groups > 0);
        for (size_t rg = 0; rg < m->n_row_groups; rg++)
            for (size_t c = 0; c < m->row_groups[rg].n_columns; c++)
                check_int(codec, (int)m->row_groups[rg].columns[c].meta.codec);
        pq_file_free(f);
    }
    delta_snapshot_free(snap);
    io_store_free(store);
    return n;
}

static void write_with(const char *name, int codec, const char *ext)
{
    snprintf(path, sizeof(path), "%s/t_%s", test_tmpdir(), name);
    snprintf(sql, sizeof(sql), "SET spark.sql.parquet.compression.codec = %s", name);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    snprintf(sql, sizeof(sql),
             "CREATE TABLE delta.`%s` USING DELTA AS SELECT id, id %% 7 AS v, "
             "concat('row ', CAST(id %% 100 AS STRING)) AS name FROM range(50000)",
             path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    snprintf(sql, sizeof(sql), "INSERT INTO delta.`%s` SELECT id, 1, 'x' FROM range(1000)", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    check_int(2, (int64_t)check_codec(codec, ext));
    snprintf(sql, sizeof(sql), "SELECT sum(id) + sum(v) + count(DISTINCT name) FROM delta.`%s`",
             path);
    /* sum(range(50000)) + sum(id % 7) (7142 cycles of 21, then 0..5) + sum(range(1000)) + 1000, 101 names */
    check_int(INT64_C(1249975000) + INT64_C(149997) + INT64_C(499500) + 1000 + 101, scalar(sql));
}

void test_sql_write_codec__default_is_snappy(void)
{
    snprintf(path, sizeof(path), "%s/t_default", test_tmpdir());
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s` USING DELTA AS SELECT id FROM range(10)",
             path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    check_int(1, (int64_t)check_codec(PQ_CODEC_SNAPPY, ".snappy"));
}

void test_sql_write_codec__snappy(void) { write_with("SNAPPY", PQ_CODEC_SNAPPY, ".snappy"); }
void test_sql_write_codec__zstd(void) { write_with("zstd", PQ_CODEC_ZSTD, ".zstd"); }
void test_sql_write_codec__gzip(void) { write_with("'gzip'", PQ_CODEC_GZIP, ".gz"); }
void test_sql_write_codec__lz4_is_hadoop_lz4(void) { write_with("Lz4", PQ_CODEC_LZ4, ".lz4"); }
void test_sql_write_codec__lz4_raw(void) { write_with("lz4_raw", PQ_CODEC_LZ4_RAW, ".lz4raw"); }
void test_sql_write_codec__none(void) { write_with("none", PQ_CODEC_UNCOMPRESSED, ""); }
void test_sql_write_codec__uncompressed(void)
{
    write_with("uncompressed", PQ_CODEC_UNCOMPRESSED, "");
}

void test_sql_write_codec__unknown_codec_is_refused(void)
{
    char msg[1024];
    check_fails(SILT_INVALID,
                sql_execute(s, "SET spark.sql.parquet.compression.codec = zip", NULL, &err));
    err_format(&err, msg, sizeof(msg));
    check_contains(msg, "[INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS] The value 'zip' in the "
                        "config \"spark.sql.parquet.compression.codec\" is invalid");
    check_contains(msg, "none, uncompressed, snappy, gzip, lzo, brotli, lz4, lz4_raw, zstd");
}

void test_sql_write_codec__lzo_is_refused_at_write(void)
{
    char msg[1024];
    snprintf(path, sizeof(path), "%s/t_lzo", test_tmpdir());
    check_ok(sql_execute(s, "SET spark.sql.parquet.compression.codec = LZO", NULL, &err), &err);
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s` USING DELTA AS SELECT 1 AS id", path);
    check_fails(SILT_UNSUPPORTED, sql_execute(s, sql, NULL, &err));
    err_format(&err, msg, sizeof(msg));
    check_contains(msg, "codec lzo is not supported");
    /* brotli: Spark has the name but no codec (a brotli file is one Spark cannot read). */
    check_ok(sql_execute(s, "SET spark.sql.parquet.compression.codec = brotli", NULL, &err),
             &err);
    check_fails(SILT_UNSUPPORTED, sql_execute(s, sql, NULL, &err));
    err_format(&err, msg, sizeof(msg));
    check_contains(msg, "codec brotli is not supported");
}

void test_sql_write_codec__zstd_level_is_refused(void)
{
    char msg[1024];
    check_fails(SILT_UNSUPPORTED,
                sql_execute(s, "SET spark.hadoop.parquet.compression.codec.zstd.level = 9", NULL,
                            &err));
    err_format(&err, msg, sizeof(msg));
    check_contains(msg, "parquet.compression.codec.zstd.level\" is not supported");
}

/* UPDATE, DELETE and MERGE rewrite files in the session's codec, as Spark's writes do. */
void test_sql_write_codec__rewrites_take_the_session_codec(void)
{
    snprintf(path, sizeof(path), "%s/t_dml", test_tmpdir());
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s` USING DELTA AS SELECT id, id %% 7 AS v "
             "FROM range(1000)", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    check_int(1, (int64_t)check_codec(PQ_CODEC_SNAPPY, ".snappy"));
    check_ok(sql_execute(s, "SET spark.sql.parquet.compression.codec = zstd", NULL, &err), &err);
    snprintf(sql, sizeof(sql), "UPDATE delta.`%s` SET v = 100 WHERE id < 10", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    check_int(1, (int64_t)check_codec(PQ_CODEC_ZSTD, ".zstd"));
    check_ok(sql_execute(s, "SET spark.sql.parquet.compression.codec = gzip", NULL, &err), &err);
    snprintf(sql, sizeof(sql), "DELETE FROM delta.`%s` WHERE id >= 990", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    check_int(1, (int64_t)check_codec(PQ_CODEC_GZIP, ".gz"));
    check_ok(sql_execute(s, "SET spark.sql.parquet.compression.codec = lz4_raw", NULL, &err),
             &err);
    snprintf(sql, sizeof(sql), "MERGE INTO delta.`%s` t USING (SELECT id FROM range(5)) s "
             "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = -1", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    check_int(1, (int64_t)check_codec(PQ_CODEC_LZ4_RAW, ".lz4raw"));
    snprintf(sql, sizeof(sql), "SELECT sum(v) + count(*) FROM delta.`%s`", path);
    /* v: ids 0..4 -1, 5..9 100, 10..989 id % 7; 990 rows */
    check_int(-5 + 500 + scalar("SELECT sum(id % 7) FROM range(10, 990)") + 990, scalar(sql));
}
