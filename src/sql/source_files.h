/*
 * source_files.h - the files of a plain file source (parquet.`dir`,
 * csv.`dir`, json.`dir`, read_files, USING parquet/csv/json views) with
 * Spark's partition discovery, the options that steer it (basePath,
 * recursiveFileLookup, pathGlobFilter), partition pruning, and the columns
 * a scan adds to what its reader gives: partition values and the hidden
 * input_file_name() column (source_files.c).
 */
#ifndef SILT_SQL_SOURCE_FILES_H
#define SILT_SQL_SOURCE_FILES_H

#include "formats/text/text_source.h"
#include "sql/binder_int.h"

/* The hidden column of a file source that input_file_name() reads. */
#define SQL_FILE_NAME_COL "input_file_name()"

typedef struct sql_files {
    io_store *store;
    const char *path;  /* as the statement wrote it */
    text_files found;  /* every file discovered, with the partition values */
    /* the files read (after partition pruning) and their rows in found.values */
    const char *const *keys;
    size_t n_keys;
    size_t *value_row;
    /* the scan's output: reader columns, partition columns, the file name */
    const col_type *schema;
    int32_t *from_data; /* per output column: its index in the reader's batch, or -1 */
    int32_t *from_part; /* per output column: its partition column, or -1 */
    const char **data_name; /* per output column from the data: its name */
    int file_name_col;  /* output column of input_file_name(), or -1 */
    const char **uris;  /* per key read: its file URI (with a file name column) */
    int adds;           /* the scan adds columns: batches go through sql_files_assemble */
} sql_files;

/* Opens a store for a path: its folder (before any glob) is the root, the rest the key (source.c). */
silt_status sql_source_path_store(binder *b, const char *path, io_store **store_out,
                                  const char **key_out, silt_error *err);

/*
 * Opens the store of path and finds its files. kv are the source's
 * options (pairs); the file-index ones are taken here and the rest come
 * back in *rest (arena pairs, `path` kept out). Errors: the store's,
 * SILT_NOTFOUND when nothing matches, SILT_INVALID for a basePath that
 * does not hold path or folders that conflict (Spark's messages).
 */
silt_status sql_files_open(binder *b, const char *path, const char **kv, size_t n_kv,
                           const char ***rest, size_t *n_rest, sql_files **out,
                           silt_error *err);

/*
 * Lays out the scan over reader batches of data_schema: the output
 * schema (data columns, a partition column also in the data at its data
 * position with the partition's type and value, the other partition
 * columns after them, then the hidden file name when the query calls
 * input_file_name()), projected to what pd names; prunes the files by the
 * conjuncts on partition columns (EXPLAIN notes say how many); returns the
 * data columns the reader must give (*read_cols NULL: all, never empty)
 * and the conjuncts left for the data (*data_preds).
 */
silt_status sql_files_layout(binder *b, sql_files *f, const char *what,
                             const col_type *data_schema, const pushdown *pd,
                             const char ***read_cols, size_t *n_read_cols, dpred **data_preds,
                             size_t *n_data_preds, silt_error *err);

/* Points the data columns at their places in batches of batch_schema (a reader that gives all). */
void sql_files_reindex(sql_files *f, const col_type *batch_schema);

/* The output batch for a reader batch of key key_idx (in f->keys), made in a. */
silt_status sql_files_assemble(const sql_files *f, size_t key_idx, const col_batch *in, arena *a,
                               col_batch **out, silt_error *err);

/*
 * The file: URI of key under root as Spark's input_file_name() gives it
 * (Hadoop's Path.toUri: the characters a URI path may not hold %-encoded,
 * '%' itself too; bytes of other scripts kept), in a; an absolute key is
 * taken as it is. authority: "file:///p" as Spark gives it for plain files;
 * 0: "file:/p", as for the files of a Delta table (Delta's absolute paths).
 */
const char *sql_file_uri(arena *a, const char *root, const char *key, int authority);
/* The file name column of n_rows rows of uri, in a. */
silt_status sql_file_name_column(arena *a, const char *uri, int64_t n_rows, col_vec **out,
                                 silt_error *err);

/* Scope of the scan's output: sql_scope_from_schema with the file name column hidden. */
silt_status sql_files_scope(binder *b, const sql_files *f, const char *qual, bind_scope *out,
                            silt_error *err);

#endif
