/*
 * paths.c - where the files a log action names live (scan.h,
 * delta_file_locate; docs/maintenance.md, "Shallow clones and absolute
 * paths").
 *
 * PROTOCOL.md, Add File: "path: a relative path to a data file from the root
 * of the table or an absolute path to a file that should be added to the
 * table". Spark writes relative paths, except a shallow clone, whose adds
 * name the source table's files by absolute URI (Hadoop's Path.toUri:
 * "file:/abs/part-0.parquet"). The trust rule: an absolute local path is
 * read as Delta reads it (with the process's own permissions, as a symlink
 * in the table folder is followed); a relative path stays inside the table
 * (io_check_key refuses "." and ".." segments, so a relative path cannot
 * climb out), and an absolute one may not hide a "." or ".." segment
 * either. Absolute URIs of another store than the local file system are
 * refused by name.
 */
#include <string.h>

#include "delta/scan.h"

int delta_path_is_absolute(const char *path)
{
    return path[0] == '/' || strstr(path, "://") != NULL || strncmp(path, "file:", 5) == 0;
}

/* The local path of an absolute path or file: URI; NULL for another scheme. */
static const char *local_path(const char *path)
{
    if (strncmp(path, "file://localhost/", 17) == 0)
        return path + 16;
    if (strncmp(path, "file:///", 8) == 0)
        return path + 7;
    if (strncmp(path, "file:/", 6) == 0 && path[6] != '/')
        return path + 5;
    return path[0] == '/' && path[1] != '/' ? path : NULL;
}

silt_status delta_file_locate(io_store *table, const char *path, io_store **store,
                              const char **key, silt_error *err)
{
    const char *root = io_store_root(table), *local;
    size_t root_len = strlen(root);
    *store = table;
    *key = path;
    if (!delta_path_is_absolute(path))
        return SILT_OK;
    local = local_path(path);
    if (local == NULL || strstr(root, "://") != NULL)
        return err_set(err, SILT_UNSUPPORTED, "data file \"%s\" is outside the table folder on "
                       "another store than the table's (\"%s\"): silt reads absolute paths on "
                       "the local file system, for local tables", path, root);
    if (strncmp(local, root, root_len) == 0 && local[root_len] == '/') {
        *key = local + root_len + 1; /* inside the table: a key as any other */
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(io_local_root_store(store, err));
    *key = local + 1;
    return io_check_key(*key, err);
}
