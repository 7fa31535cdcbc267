/*
 * clone.c - CREATE TABLE ... DEEP CLONE and CREATE TABLE ... LIKE of a Delta
 * table (maint.h).
 *
 * DEEP CLONE, as Delta's CloneTableCommand: the new table gets the source
 * version's schema, partitioning, properties and protocol under a new id, and
 * a copy of every live data file (with its deletion vector file) at the same
 * relative path, its add keeping partition values, statistics and vector.
 * One commit, operation CLONE {source, sourceVersion, isShallow} with
 * Delta's metrics. SHALLOW CLONE: the same, but the adds name the source's
 * files by absolute URI and nothing is copied (numCopiedFiles 0). LIKE: the
 * same metadata, no files, operation CREATE TABLE.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "delta/dv.h"
#include "delta/maint.h"
#include "delta/scan.h"
#include "util/time.h"

#define COPY_CHUNK ((size_t)8 << 20)

/* Streams one object from src to dst under the same key. */
static silt_status copy_object(io_store *src, io_store *dst, const char *key, int64_t *bytes,
                               silt_error *err)
{
    io_file *in = NULL;
    io_writer *out = NULL;
    buf chunk = BUF_INIT;
    int64_t off = 0;
    silt_status rc = io_file_open(src, key, &in, err);
    if (rc == SILT_OK)
        rc = io_writer_open(dst, key, &out, err);
    if (rc == SILT_OK)
        rc = buf_reserve(&chunk, COPY_CHUNK, err);
    while (rc == SILT_OK && off < in->size) {
        size_t n = (size_t)(in->size - off) < COPY_CHUNK ? (size_t)(in->size - off) : COPY_CHUNK;
        rc = io_file_read_at(in, off, n, chunk.data, err);
        if (rc == SILT_OK)
            rc = io_writer_write(out, chunk.data, n, err);
        off += (int64_t)n;
    }
    if (rc == SILT_OK) {
        rc = io_writer_commit(out, 1, err);
        out = NULL;
    }
    io_writer_abort(out);
    io_file_close(in);
    buf_clear(&chunk);
    *bytes += off;
    if (rc != SILT_OK)
        err_context(err, "while copying \"%s\" for DEEP CLONE", key);
    return rc;
}

/* The new table's metadata: the source's under a new id, with extra properties over it. */
static silt_status new_metadata(const delta_snapshot *src, const dlog_map *extra, arena *a,
                                dlog_metadata *out, silt_error *err)
{
    dlog_metadata fresh;
    size_t idx, k, n;
    dlog_kv *items;
    SILT_RETURN_IF_ERROR(delta_metadata_for_new_table(&fresh, a, src->schema, 0, NULL, NULL, err));
    *out = src->metadata;
    out->id = fresh.id;
    out->has_created_time = 1;
    out->created_time = time_now_micros() / 1000;
    n = src->metadata.configuration.n;
    items = arena_calloc(a, n + (extra ? extra->n : 0) + 1, sizeof(dlog_kv));
    if (items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++)
        items[idx] = src->metadata.configuration.items[idx];
    for (k = 0; extra != NULL && k < extra->n; k++) {
        for (idx = 0; idx < n && strcmp(items[idx].key, extra->items[k].key) != 0; idx++)
            ;
        items[idx] = extra->items[k];
        if (idx == n)
            n++;
    }
    out->configuration.items = items;
    out->configuration.n = n;
    return SILT_OK;
}

static silt_status json_param(delta_txn *txn, const char *key, cJSON *value, silt_error *err)
{
    char *text = value ? cJSON_PrintUnformatted(value) : NULL;
    silt_status rc;
    cJSON_Delete(value);
    if (text == NULL)
        return err_nomem(err);
    rc = delta_txn_set_param(txn, key, text, err);
    cJSON_free(text);
    return rc;
}

static silt_status create_params(delta_txn *txn, const dlog_metadata *md, int is_managed,
                                 silt_error *err)
{
    cJSON *parts = cJSON_CreateArray(), *props = cJSON_CreateObject();
    size_t idx;
    for (idx = 0; parts != NULL && idx < md->n_partition_columns; idx++)
        cJSON_AddItemToArray(parts, cJSON_CreateString(md->partition_columns[idx]));
    for (idx = 0; props != NULL && idx < md->configuration.n; idx++)
        cJSON_AddStringToObject(props, md->configuration.items[idx].key,
                                md->configuration.items[idx].value
                                    ? md->configuration.items[idx].value : "");
    if (parts == NULL || props == NULL) {
        cJSON_Delete(parts);
        cJSON_Delete(props);
        return err_nomem(err);
    }
    SILT_RETURN_IF_ERROR(json_param(txn, "partitionBy", parts, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "description", md->description, err));
    SILT_RETURN_IF_ERROR(json_param(txn, "properties", props, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "clusterBy", "[]", err));
    return delta_txn_set_param(txn, "isManaged", is_managed ? "true" : "false", err);
}

/*
 * SHALLOW CLONE's add of a source file, as Delta's CloneTableBase writes it:
 * the file by absolute URI ("file:/src/part-0.parquet"; add_path encodes
 * after the scheme) and a vector in a file by absolute path ('p'), so that
 * the clone reads the source's files and its VACUUM, which lists only the
 * clone's folder, can never delete them.
 */
static silt_status shallow_paths(const char *root, const delta_file *f, arena *a, dlog_add *add,
                                 silt_error *err)
{
    if (!delta_path_is_absolute(f->path)) {
        add->path = arena_sprintf(a, "file:%s/%s", root, f->path);
        if (add->path == NULL)
            return err_nomem(err);
    }
    if (f->dv.storage_type == 'u') {
        buf key = BUF_INIT;
        silt_status rc = ddv_file_key(&f->dv, root, &key, err);
        add->dv.storage_type = 'p';
        add->dv.path_or_inline_dv = rc == SILT_OK ? arena_sprintf(a, "file:%s/%s", root,
                                                                  buf_cstr(&key)) : NULL;
        buf_clear(&key);
        if (rc == SILT_OK && add->dv.path_or_inline_dv == NULL)
            rc = err_nomem(err);
        return rc;
    }
    return SILT_OK;
}

/* The deletion vector's file, copied when it lives in the table folder. */
static silt_status copy_dv(io_store *src, io_store *dst, const delta_file *f, int64_t *bytes,
                           silt_error *err)
{
    buf key = BUF_INIT;
    silt_status rc;
    if (f->dv.storage_type == 0 || f->dv.storage_type == 'i')
        return SILT_OK;
    if (f->dv.storage_type != 'u')
        return err_set(err, SILT_UNSUPPORTED, "DEEP CLONE of a file whose deletion vector is "
                       "at an absolute path (\"%s\") is not supported yet", f->path);
    rc = ddv_file_key(&f->dv, io_store_root(src), &key, err);
    if (rc == SILT_OK) {
        io_object_info info;
        /* one vector file may serve several data files */
        if (io_head(dst, buf_cstr(&key), &info, err) == SILT_OK)
            io_object_info_clear(&info);
        else {
            err_clear(err);
            rc = copy_object(src, dst, buf_cstr(&key), bytes, err);
        }
    }
    buf_clear(&key);
    return rc;
}

silt_status delta_clone(io_store *target, io_store *source, const delta_snapshot *src,
                        const delta_clone_options *o, delta_clone_metrics *m, silt_error *err)
{
    delta_txn *txn = NULL;
    dlog_metadata md;
    arena *a = arena_new(NULL, "clone");
    size_t idx;
    char text[32];
    silt_status rc;
    memset(m, 0, sizeof(*m));
    if (a == NULL)
        return err_nomem(err);
    rc = new_metadata(src, o->properties, a, &md, err);
    if (rc == SILT_OK)
        rc = delta_txn_begin(&txn, target, NULL, o->like ? "CREATE TABLE" : "CLONE", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_protocol(txn, &src->protocol, err);
    if (rc == SILT_OK)
        rc = delta_txn_set_metadata(txn, &md, err);
    for (idx = 0; rc == SILT_OK && !o->like && idx < src->n_files; idx++) {
        const delta_file *f = &src->files[idx];
        dlog_add add;
        int64_t copied = 0;
        if (!o->shallow && delta_path_is_absolute(f->path)) {
            rc = err_set(err, SILT_UNSUPPORTED, "DEEP CLONE of a table with data files outside "
                         "its folder (\"%s\") is not supported yet", f->path);
            break;
        }
        memset(&add, 0, sizeof(add));
        add.path = f->path;
        add.partition_values = f->partition_values;
        add.size = f->size;
        add.modification_time = f->modification_time;
        add.data_change = 1;
        add.stats = f->stats;
        add.dv = f->dv;
        if (o->shallow)
            rc = shallow_paths(io_store_root(source), f, a, &add, err);
        else {
            rc = copy_object(source, target, f->path, &copied, err);
            if (rc == SILT_OK)
                rc = copy_dv(source, target, f, &copied, err);
            m->num_copied_files++;
            m->copied_files_size += copied;
        }
        if (rc == SILT_OK)
            rc = delta_txn_add_file(txn, &add, err);
    }
    m->source_num_of_files = (int64_t)src->n_files;
    m->source_table_size = src->total_size;
    if (rc == SILT_OK && o->like)
        rc = create_params(txn, &md, o->is_managed, err);
    if (rc == SILT_OK && !o->like) {
        snprintf(text, sizeof(text), "%lld", (long long)src->version);
        rc = delta_txn_set_param(txn, "source", o->source_name, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_param(txn, "sourceVersion", text, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_param(txn, "isShallow", o->shallow ? "true" : "false", err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "sourceTableSize", m->source_table_size, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "sourceNumOfFiles", m->source_num_of_files, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "numRemovedFiles", 0, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "numCopiedFiles", m->num_copied_files, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "removedFilesSize", 0, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "copiedFilesSize", m->copied_files_size, err);
    }
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, err);
    delta_txn_free(txn);
    arena_free(a);
    return rc;
}
