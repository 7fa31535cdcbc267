/*
 * delta_rows.c - row-level conformance: reads every table of the shared
 * conformance corpus at every version that has expected rows and compares
 * them with expected/<case>/v<N>.jsonl in the canonical format of the
 * corpus README ("How to compare"); also checks row_count at every version
 * listed in case.json.
 *
 * Usage: silt_conformance_rows <conformance-dir> [case]
 * Prints one line per case and version and a closing "N passed, M failed".
 * Missing data is a failure, never a skip.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/scan.h"
#include "delta/snapshot.h"
#include "formats/text.h"
#include "io/store.h"
#include "util/buf.h"
#include "util/mem.h"

typedef struct counts {
    int passed, failed;
} counts;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    buf b = BUF_INIT;
    char chunk[65536];
    size_t got;
    if (f == NULL)
        return NULL;
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if (buf_append(&b, chunk, got, NULL) != SILT_OK)
            break;
    fclose(f);
    if (b.data == NULL)
        return mem_strdup("");
    return buf_detach(&b, NULL);
}

/* Reads the table at version into canonical lines (sorted); counts rows. */
static silt_status table_lines(io_store *store, int64_t version, buf *lines, int64_t *rows_out,
                               silt_error *err)
{
    delta_snapshot *snap = NULL;
    delta_scan *scan = NULL;
    arena *a = arena_new(NULL, "conformance batch");
    silt_status rc = delta_snapshot_load(&snap, store, version, err);
    *rows_out = 0;
    if (rc == SILT_OK)
        rc = delta_scan_open(&scan, store, snap, NULL, err);
    while (rc == SILT_OK) {
        col_batch *batch = NULL;
        int64_t row;
        arena_reset(a);
        rc = delta_scan_next(scan, a, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        for (row = 0; rc == SILT_OK && row < batch->n_rows; row++) {
            rc = text_json_row(lines, batch, row, err);
            if (rc == SILT_OK)
                rc = buf_append_char(lines, '\n', err);
        }
        *rows_out += batch->n_rows;
    }
    if (rc == SILT_OK)
        rc = text_lines_sort(lines, err);
    delta_scan_free(scan);
    delta_snapshot_free(snap);
    arena_free(a);
    return rc;
}

/* Prints the first line where got and want differ. */
static void show_difference(const char *got, const char *want)
{
    int line = 1;
    while (*got && *want) {
        const char *got_end = strchr(got, '\n');
        const char *want_end = strchr(want, '\n');
        size_t got_len = got_end ? (size_t)(got_end - got) : strlen(got);
        size_t want_len = want_end ? (size_t)(want_end - want) : strlen(want);
        if (got_len != want_len || memcmp(got, want, got_len) != 0) {
            printf("     line %d\n     got:  %.*s\n     want: %.*s\n", line, (int)(got_len > 300 ? 300 : got_len),
                   got, (int)(want_len > 300 ? 300 : want_len), want);
            return;
        }
        got += got_len + (got_end != NULL);
        want += want_len + (want_end != NULL);
        line++;
    }
    printf("     line %d: one side ends early (got %zu more bytes, want %zu more)\n", line,
           strlen(got), strlen(want));
}

static void check_version(const char *dir, const char *name, io_store *store, const char *version,
                          const cJSON *info, counts *c)
{
    const cJSON *jsonl = cJSON_GetObjectItemCaseSensitive(info, "jsonl");
    const cJSON *row_count = cJSON_GetObjectItemCaseSensitive(info, "row_count");
    silt_error err = SILT_ERROR_INIT;
    buf lines = BUF_INIT;
    int64_t rows = 0;
    char path[4096];
    char *want = NULL;
    silt_status rc;
    if (!cJSON_IsString(jsonl) && !cJSON_IsNumber(row_count))
        return;
    rc = table_lines(store, strtoll(version, NULL, 10), &lines, &rows, &err);
    if (rc != SILT_OK) {
        char text[2048];
        err_format(&err, text, sizeof(text));
        printf("FAIL %s v%s: %s\n", name, version, text);
        c->failed++;
        buf_clear(&lines);
        return;
    }
    if (cJSON_IsNumber(row_count) && (int64_t)row_count->valuedouble != rows) {
        printf("FAIL %s v%s: %lld rows, expected %lld\n", name, version, (long long)rows,
               (long long)row_count->valuedouble);
        c->failed++;
    } else if (cJSON_IsString(jsonl)) {
        snprintf(path, sizeof(path), "%s/expected/%s/%s", dir, name, jsonl->valuestring);
        want = read_text(path);
        if (want == NULL) {
            printf("FAIL %s v%s: cannot read %s\n", name, version, path);
            c->failed++;
        } else if (strcmp(want, buf_cstr(&lines)) != 0) {
            printf("FAIL %s v%s: rows differ from %s\n", name, version, jsonl->valuestring);
            show_difference(buf_cstr(&lines), want);
            c->failed++;
        } else {
            printf("PASS %s v%s (%lld rows)\n", name, version, (long long)rows);
            c->passed++;
        }
    } else {
        printf("PASS %s v%s (count %lld)\n", name, version, (long long)rows);
        c->passed++;
    }
    mem_free(want);
    buf_clear(&lines);
}

static int run_case(const char *dir, const char *name, counts *c)
{
    char path[4096];
    char *text;
    cJSON *root;
    const cJSON *versions, *version;
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    snprintf(path, sizeof(path), "%s/expected/%s/case.json", dir, name);
    text = read_text(path);
    root = text ? cJSON_Parse(text) : NULL;
    mem_free(text);
    if (root == NULL) {
        printf("FAIL %s: cannot read %s\n", name, path);
        c->failed++;
        return 0;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "log_only"))) {
        cJSON_Delete(root);
        return 1; /* no data files: the log conformance covers it */
    }
    snprintf(path, sizeof(path), "%s/tables/%s", dir, name);
    if (io_store_open(&store, path, 0, &err) != SILT_OK) {
        printf("FAIL %s: %s\n", name, err.message);
        c->failed++;
        cJSON_Delete(root);
        return 0;
    }
    versions = cJSON_GetObjectItemCaseSensitive(root, "versions");
    cJSON_ArrayForEach(version, versions)
        check_version(dir, name, store, version->string, version, c);
    io_store_free(store);
    cJSON_Delete(root);
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/conformance";
    const char *only = argc > 2 ? argv[2] : NULL;
    char path[4096];
    char *index_text;
    cJSON *index, *cases, *item;
    counts c = {0, 0};
    snprintf(path, sizeof(path), "%s/index.json", dir);
    index_text = read_text(path);
    index = index_text ? cJSON_Parse(index_text) : NULL;
    mem_free(index_text);
    if (index == NULL) {
        printf("cannot read %s: the conformance corpus is missing\n0 passed, 1 failed\n", path);
        return 1;
    }
    cases = cJSON_GetObjectItemCaseSensitive(index, "cases");
    cJSON_ArrayForEach(item, cases)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(item, "name");
        if (!cJSON_IsString(name) || (only && strcmp(only, name->valuestring) != 0))
            continue;
        run_case(dir, name->valuestring, &c);
    }
    cJSON_Delete(index);
    printf("row conformance: %d passed, %d failed\n", c.passed, c.failed);
    return c.failed ? 1 : 0;
}
