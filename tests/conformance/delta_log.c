/*
 * delta_log.c - log-level conformance: replays every table of the shared
 * conformance corpus at every version that has an expected file list and
 * compares the live files.
 *
 * For each tables/<case> and each version of expected/<case>/case.json with
 * a "files_jsonl", the snapshot's files must match files_v<N>.jsonl: the
 * decoded path, size, partitionValues (raw strings or null), the deletion
 * vector's unique id and its cardinality, read from the DV itself. Cases
 * whose state at a version can only come from a Parquet checkpoint count
 * as "needs parquet" until the Parquet reader is wired in; they are not
 * failures. Every other listed version is checked by its file_count, and
 * where every live file has numRecords in its stats, by its row_count
 * (numRecords minus deletion vector cardinalities). Usage:
 * silt_conformance_log <conformance-dir> [case]
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/actions.h"
#include "delta/dv.h"
#include "delta/snapshot.h"
#include "io/store.h"
#include "util/buf.h"
#include "util/mem.h"

typedef struct counts {
    int passed, needs_parquet, failed;
    int count_checks, row_checks; /* file_count and row_count comparisons that passed */
    int metadata_checks;          /* latest schema, partition columns and protocol */
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

static const delta_file *find_file(const delta_snapshot *snap, const char *path)
{
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++)
        if (strcmp(snap->files[idx].path, path) == 0)
            return &snap->files[idx];
    return NULL;
}

/* Compares one expected line with the snapshot; writes the reason into why. */
static int check_line(io_store *store, const delta_snapshot *snap, const cJSON *row, char *why,
                      size_t why_cap)
{
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(row, "path");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(row, "size");
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(row, "partitionValues");
    const cJSON *dv = cJSON_GetObjectItemCaseSensitive(row, "deletionVector");
    const cJSON *deleted = cJSON_GetObjectItemCaseSensitive(row, "deletedRows");
    const cJSON *entry;
    const delta_file *file;
    size_t n_pv = 0;
    buf dv_id = BUF_INIT;

    if (!cJSON_IsString(path))
        return snprintf(why, why_cap, "expected line has no path"), 0;
    file = find_file(snap, path->valuestring);
    if (file == NULL)
        return snprintf(why, why_cap, "file \"%s\" is missing", path->valuestring), 0;
    if (!cJSON_IsNumber(size) || (int64_t)size->valuedouble != file->size)
        return snprintf(why, why_cap, "\"%s\": size %lld", file->path, (long long)file->size), 0;
    cJSON_ArrayForEach(entry, pv)
    {
        int found = 0;
        const char *value = dlog_map_get(&file->partition_values, entry->string, &found);
        n_pv++;
        if (!found || (cJSON_IsNull(entry) != (value == NULL)) ||
            (value != NULL && (!cJSON_IsString(entry) || strcmp(entry->valuestring, value) != 0)))
            return snprintf(why, why_cap, "\"%s\": partition value \"%s\" differs", file->path,
                            entry->string), 0;
    }
    if (n_pv != file->partition_values.n)
        return snprintf(why, why_cap, "\"%s\": %zu partition values, expected %zu", file->path,
                        file->partition_values.n, n_pv), 0;
    dlog_dv_unique_id(&file->dv, &dv_id, NULL);
    if (cJSON_IsNull(dv) ? file->dv.storage_type != 0
                         : (!cJSON_IsString(dv) || strcmp(dv->valuestring, buf_cstr(&dv_id)) != 0)) {
        snprintf(why, why_cap, "\"%s\": deletion vector \"%s\"", file->path, buf_cstr(&dv_id));
        buf_clear(&dv_id);
        return 0;
    }
    buf_clear(&dv_id);
    {
        int64_t cardinality = 0;
        if (file->dv.storage_type != 0) {
            ddv_bitmap *bitmap = NULL;
            silt_error err = SILT_ERROR_INIT;
            if (ddv_load(&bitmap, store, &file->dv, &err) != SILT_OK)
                return snprintf(why, why_cap, "\"%s\": %s", file->path, err.message), 0;
            cardinality = ddv_cardinality(bitmap);
            ddv_free(bitmap);
        }
        if (!cJSON_IsNumber(deleted) || (int64_t)deleted->valuedouble != cardinality)
            return snprintf(why, why_cap, "\"%s\": %lld deleted rows", file->path,
                            (long long)cardinality), 0;
    }
    return 1;
}

static void run_version(const char *dir, const char *name, io_store *store, long long version,
                        const char *files_jsonl, counts *c)
{
    char path[4096], why[1024] = "";
    char *text;
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc;
    size_t n_lines = 0;
    int ok = 1;
    char *line, *next;

    rc = delta_snapshot_load(&snap, store, version, &err);
    if (rc == SILT_UNSUPPORTED && strstr(err.message, "Parquet checkpoint reader") != NULL) {
        printf("NEEDS-PARQUET %s v%lld\n", name, version);
        c->needs_parquet++;
        return;
    }
    if (rc != SILT_OK) {
        char msg[2048];
        err_format(&err, msg, sizeof(msg));
        printf("FAIL %s v%lld: %s\n", name, version, msg);
        c->failed++;
        return;
    }
    snprintf(path, sizeof(path), "%s/expected/%s/%s", dir, name, files_jsonl);
    text = read_text(path);
    if (text == NULL) {
        printf("FAIL %s v%lld: cannot read %s\n", name, version, path);
        c->failed++;
        delta_snapshot_free(snap);
        return;
    }
    for (line = text; ok && line != NULL && *line != '\0'; line = next) {
        cJSON *row;
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        row = cJSON_Parse(line);
        ok = row != NULL && check_line(store, snap, row, why, sizeof(why));
        cJSON_Delete(row);
        n_lines++;
    }
    if (ok && n_lines != snap->n_files) {
        snprintf(why, sizeof(why), "%zu live files, expected %zu", snap->n_files, n_lines);
        ok = 0;
    }
    if (ok && snap->version != version) {
        snprintf(why, sizeof(why), "snapshot version %lld", (long long)snap->version);
        ok = 0;
    }
    printf("%s %s v%lld%s%s\n", ok ? "PASS" : "FAIL", name, version, ok ? "" : ": ", ok ? "" : why);
    if (ok)
        c->passed++;
    else
        c->failed++;
    mem_free(text);
    delta_snapshot_free(snap);
}

/* Live rows from stats and DV descriptors; -1 when a file has no numRecords. */
static int64_t rows_from_stats(const delta_snapshot *snap)
{
    int64_t total = 0;
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++) {
        cJSON *stats = snap->files[idx].stats ? cJSON_Parse(snap->files[idx].stats) : NULL;
        const cJSON *num = cJSON_GetObjectItemCaseSensitive(stats, "numRecords");
        if (!cJSON_IsNumber(num)) {
            cJSON_Delete(stats);
            return -1;
        }
        total += (int64_t)num->valuedouble - snap->files[idx].dv.cardinality;
        cJSON_Delete(stats);
    }
    return total;
}

static void run_counts(const char *name, io_store *store, long long version, const cJSON *entry,
                       counts *c)
{
    const cJSON *file_count = cJSON_GetObjectItemCaseSensitive(entry, "file_count");
    const cJSON *row_count = cJSON_GetObjectItemCaseSensitive(entry, "row_count");
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc = delta_snapshot_load(&snap, store, version, &err);
    int64_t rows;
    if (rc == SILT_UNSUPPORTED && strstr(err.message, "Parquet checkpoint reader") != NULL) {
        printf("NEEDS-PARQUET %s v%lld (counts)\n", name, version);
        c->needs_parquet++;
        return;
    }
    if (rc != SILT_OK) {
        printf("FAIL %s v%lld (counts): %s\n", name, version, err.message);
        c->failed++;
        return;
    }
    if (cJSON_IsNumber(file_count)) {
        if ((int64_t)file_count->valuedouble != (int64_t)snap->n_files) {
            printf("FAIL %s v%lld: %zu live files, case.json says %lld\n", name, version,
                   snap->n_files, (long long)file_count->valuedouble);
            c->failed++;
        } else {
            c->count_checks++;
        }
    }
    rows = rows_from_stats(snap);
    if (cJSON_IsNumber(row_count) && rows >= 0) {
        if ((int64_t)row_count->valuedouble != rows) {
            printf("FAIL %s v%lld: %lld rows from stats and DVs, case.json says %lld\n", name,
                   version, (long long)rows, (long long)row_count->valuedouble);
            c->failed++;
        } else {
            c->row_checks++;
        }
    }
    delta_snapshot_free(snap);
}

/* Features of case.json (null or a list) against the snapshot's. */
static int same_features(const cJSON *expected, int has, size_t n, const char **items)
{
    size_t idx = 0;
    const cJSON *entry;
    if (cJSON_IsNull(expected) || expected == NULL)
        return !has || n == 0;
    cJSON_ArrayForEach(entry, expected)
    {
        if (idx >= n || !cJSON_IsString(entry) || strcmp(entry->valuestring, items[idx]) != 0)
            return 0;
        idx++;
    }
    return idx == n;
}

/* Latest version: schema (parsed from case.json's own serialisation), partition columns, protocol. */
static void run_metadata(const char *name, io_store *store, const cJSON *root, counts *c)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(root, "partition_columns");
    const cJSON *proto = cJSON_GetObjectItemCaseSensitive(root, "protocol");
    const cJSON *entry;
    cJSON *wrapper = cJSON_CreateObject();
    char *text = NULL;
    const col_type *expected = NULL;
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    arena *a = arena_new(NULL, "conformance");
    const char *why = NULL;
    size_t idx = 0;
    silt_status rc = delta_snapshot_load(&snap, store, -1, &err);

    if (rc == SILT_UNSUPPORTED && strstr(err.message, "Parquet checkpoint reader") != NULL) {
        c->needs_parquet++;
        goto done;
    }
    if (rc != SILT_OK) {
        why = err.message;
        goto done;
    }
    cJSON_AddStringToObject(wrapper, "type", "struct");
    cJSON_AddItemReferenceToObject(wrapper, "fields", (cJSON *)schema);
    text = cJSON_PrintUnformatted(wrapper);
    if (text == NULL || dlog_parse_schema(&expected, a, text, &err) != SILT_OK)
        why = "the schema of case.json does not parse";
    else if (!col_type_equal(expected, snap->schema))
        why = "schema differs";
    for (idx = 0; why == NULL && idx < expected->n_fields; idx++)
        if (expected->fields[idx].nullable != snap->schema->fields[idx].nullable)
            why = "nullability differs";
    idx = 0;
    cJSON_ArrayForEach(entry, parts)
    {
        if (why == NULL && (idx >= snap->metadata.n_partition_columns || !cJSON_IsString(entry) ||
                            strcmp(entry->valuestring, snap->metadata.partition_columns[idx]) != 0))
            why = "partition columns differ";
        idx++;
    }
    if (why == NULL && idx != snap->metadata.n_partition_columns)
        why = "partition columns differ";
    if (why == NULL &&
        ((int)cJSON_GetObjectItemCaseSensitive(proto, "minReaderVersion")->valuedouble !=
             snap->protocol.min_reader_version ||
         (int)cJSON_GetObjectItemCaseSensitive(proto, "minWriterVersion")->valuedouble !=
             snap->protocol.min_writer_version))
        why = "protocol versions differ";
    if (why == NULL &&
        (!same_features(cJSON_GetObjectItemCaseSensitive(proto, "readerFeatures"),
                        snap->protocol.has_reader_features, snap->protocol.n_reader_features,
                        snap->protocol.reader_features) ||
         !same_features(cJSON_GetObjectItemCaseSensitive(proto, "writerFeatures"),
                        snap->protocol.has_writer_features, snap->protocol.n_writer_features,
                        snap->protocol.writer_features)))
        why = "table features differ";
done:
    if (why != NULL) {
        printf("FAIL %s metadata: %s\n", name, why);
        c->failed++;
    } else if (rc == SILT_OK) {
        c->metadata_checks++;
    }
    cJSON_free(text);
    cJSON_Delete(wrapper);
    delta_snapshot_free(snap);
    arena_free(a);
}

static int version_skipped(const cJSON *root, const char *version)
{
    const cJSON *skipped = cJSON_GetObjectItemCaseSensitive(root, "skipped_versions");
    const cJSON *unreadable = cJSON_GetObjectItemCaseSensitive(root, "unreadable_versions");
    return cJSON_GetObjectItemCaseSensitive(skipped, version) != NULL ||
           cJSON_GetObjectItemCaseSensitive(unreadable, version) != NULL;
}

static void run_case(const char *dir, const char *name, counts *c)
{
    char path[4096];
    char *text;
    cJSON *root;
    const cJSON *versions, *entry;
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;

    snprintf(path, sizeof(path), "%s/expected/%s/case.json", dir, name);
    text = read_text(path);
    if (text == NULL)
        return;
    root = cJSON_Parse(text);
    mem_free(text);
    snprintf(path, sizeof(path), "%s/tables/%s", dir, name);
    if (root == NULL || io_store_open(&store, path, 0, &err) != SILT_OK) {
        printf("FAIL %s: cannot open case\n", name);
        c->failed++;
        cJSON_Delete(root);
        return;
    }
    versions = cJSON_GetObjectItemCaseSensitive(root, "versions");
    cJSON_ArrayForEach(entry, versions)
    {
        const cJSON *files = cJSON_GetObjectItemCaseSensitive(entry, "files_jsonl");
        long long version = strtoll(entry->string, NULL, 10);
        if (version_skipped(root, entry->string))
            continue;
        if (cJSON_IsString(files))
            run_version(dir, name, store, version, files->valuestring, c);
        run_counts(name, store, version, entry, c);
    }
    run_metadata(name, store, root, c);
    io_store_free(store);
    cJSON_Delete(root);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/conformance";
    char tables[4096];
    DIR *d;
    struct dirent *ent;
    char *names[1024];
    size_t n_names = 0, idx;
    counts c = {0, 0, 0, 0, 0, 0};
    const char *ci = getenv("CI");

    snprintf(tables, sizeof(tables), "%s/tables", dir);
    d = opendir(tables);
    if (d == NULL) {
        fprintf(stderr, "conformance data not found at %s\n", tables);
        return (ci != NULL && strcmp(ci, "true") == 0) ? 1 : 77;
    }
    while ((ent = readdir(d)) != NULL && n_names < 1024)
        if (ent->d_name[0] != '.' && (argc < 3 || strcmp(ent->d_name, argv[2]) == 0))
            names[n_names++] = mem_strdup(ent->d_name);
    closedir(d);
    qsort(names, n_names, sizeof(char *), name_cmp);
    for (idx = 0; idx < n_names; idx++) {
        run_case(dir, names[idx], &c);
        mem_free(names[idx]);
    }
    printf("log conformance: %d file lists passed (plus %d file counts, %d row counts and %d "
           "latest schemas/protocols), %d need the Parquet checkpoint reader, %d failed\n",
           c.passed, c.count_checks, c.row_checks, c.metadata_checks, c.needs_parquet, c.failed);
    return c.failed == 0 && c.passed > 0 ? 0 : 1;
}
