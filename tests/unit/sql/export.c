/*
 * Tests of results leaving as Arrow batches (sql_result_next_owned +
 * arrow_export_batch): a batch made wholly in the root operator's batch
 * arena is handed over without a copy (the Arrow buffers are the batch's
 * own), every exported batch stays valid after the next one is pulled,
 * and releasing the arrays frees the memory (the ASan build checks).
 */
#include <stdio.h>
#include <string.h>

#include "formats/arrow.h"
#include "sql/session.h"
#include "test.h"

static sql_session *s;
static silt_error err;

void test_sql_export__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
}

void test_sql_export__cleanup(void) { sql_session_free(s); }

#define MAX_KEPT 64

/*
 * Pulls every batch of sql as Arrow arrays, keeping them all until the
 * end; checks that the first column (BIGINT) of batch b still holds the
 * values it had when exported. Returns how many batches left without a
 * copy (their buffers inside the owner arena the export took).
 */
static int export_all(const char *sql, int64_t *rows_out, int64_t *sum_out)
{
    struct ArrowArray kept[MAX_KEPT];
    int64_t sums[MAX_KEPT];
    sql_result *res = NULL;
    int n = 0, uncopied = 0, idx;
    *rows_out = *sum_out = 0;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    for (;;) {
        col_batch *batch;
        arena *owner;
        const struct ArrowArray *col;
        int64_t row, sum = 0;
        check_ok(sql_result_next_owned(res, &batch, &owner, &err), &err);
        if (batch == NULL)
            break;
        check(n < MAX_KEPT);
        if (arena_owns(owner, batch->cols[0]->values))
            uncopied++;
        check_ok(arrow_export_batch(&kept[n], batch, owner, &err), &err);
        col = kept[n].children[0];
        /* The export points at the batch's buffers: no copy there either. */
        check(col->buffers[1] == batch->cols[0]->values);
        for (row = 0; row < col->length; row++)
            sum += ((const int64_t *)col->buffers[1])[row];
        sums[n++] = sum;
    }
    sql_result_free(res);
    for (idx = 0; idx < n; idx++) {
        const struct ArrowArray *col = kept[idx].children[0];
        int64_t row, sum = 0;
        for (row = 0; row < col->length; row++)
            sum += ((const int64_t *)col->buffers[1])[row];
        check_int(sums[idx], sum); /* still valid after later batches and the result's end */
        *rows_out += col->length;
        *sum_out += sum;
        kept[idx].release(&kept[idx]);
        check(kept[idx].release == NULL);
    }
    return uncopied;
}

/* An aggregate's output is made in its own batch arena: it leaves as is. */
void test_sql_export__aggregate_batches_leave_without_a_copy(void)
{
    int64_t rows, sum;
    int uncopied = export_all("SELECT id % 5000 AS k, count(*) AS n FROM range(20000) "
                              "GROUP BY id % 5000", &rows, &sum);
    check_int(5000, rows);
    check_int(4999 * 5000 / 2, sum);
    check(uncopied >= 2); /* 5000 groups: at least 3 batches of 2048 rows */
}

/* A computed projection too; its batches outlive the result. */
void test_sql_export__projection_batches_leave_without_a_copy(void)
{
    int64_t rows, sum;
    int uncopied = export_all("SELECT id * 2 AS twice FROM range(10000)", &rows, &sum);
    check_int(10000, rows);
    check_int(9999 * 10000, sum);
    check(uncopied > 0);
}

/* A Delta scan's batches are made in the scan's batch arena too: they
 * leave without a copy, and hold the table's rows. */
void test_sql_export__scanned_batches_leave_without_a_copy(void)
{
    char sql[4096], total[4096];
    int64_t rows, sum;
    sql_result *res = NULL;
    col_batch *b;
    snprintf(sql, sizeof(sql), "SELECT id FROM delta.`%s/conformance/tables/simple_table`",
             test_shared_dir());
    snprintf(total, sizeof(total), "SELECT count(*), sum(id) FROM (%s)", sql);
    check(export_all(sql, &rows, &sum) > 0);
    check_ok(sql_execute(s, total, &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    check(rows > 0);
    check_int(vec_get_int(b->cols[0], 0), rows);
    check_int(vec_get_int(b->cols[1], 0), sum);
    sql_result_free(res);
}

/* Rows of VALUES, filtered: still the batch's own buffers. */
void test_sql_export__filtered_values_leave_without_a_copy(void)
{
    int64_t rows, sum;
    check_int(1, export_all("SELECT x FROM VALUES (1L), (2L), (3L), (4L) AS t(x) WHERE x % 2 = 0",
                            &rows, &sum));
    check_int(2, rows);
    check_int(6, sum);
}
