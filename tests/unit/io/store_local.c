/* Unit tests of the local object store: every operation and its failures. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/store.h"
#include "test.h"
#include "util/mem.h"

static io_store *store;
static silt_error err;

void test_io_store_local__initialize(void)
{
    err_clear(&err);
    store = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
}

void test_io_store_local__cleanup(void) { io_store_free(store); }

static char *get_text(const char *key)
{
    static buf text;
    buf_clear(&text);
    check_ok(io_get(store, key, &text, &err), &err);
    return text.data ? text.data : (char *)"";
}

void test_io_store_local__put_get_and_overwrite(void)
{
    check_ok(io_put(store, "a/b/c.txt", "hello", 5, &err), &err);
    check_str("hello", get_text("a/b/c.txt"));
    check_ok(io_put(store, "a/b/c.txt", "bye", 3, &err), &err);
    check_str("bye", get_text("a/b/c.txt"));
    check_ok(io_put(store, "empty", "", 0, &err), &err);
    check_str("", get_text("empty"));
}

void test_io_store_local__ranges(void)
{
    buf out = BUF_INIT;
    check_ok(io_put(store, "f", "0123456789", 10, &err), &err);
    check_ok(io_get_range(store, "f", 2, 3, &out, &err), &err);
    check_str("234", buf_cstr(&out));
    check_ok(io_get_range(store, "f", 10, 0, &out, &err), &err);
    check_str("234", buf_cstr(&out));
    check_fails(SILT_INVALID, io_get_range(store, "f", 8, 3, &out, &err));
    check_contains(err.message, "past the end");
    check_contains(err.message, "(10 bytes)");
    check_fails(SILT_INVALID, io_get_range(store, "f", 11, 0, &out, &err));
    check_fails(SILT_INVALID, io_get_range(store, "f", -1, 1, &out, &err));
    buf_clear(&out);
}

void test_io_store_local__missing_objects(void)
{
    buf out = BUF_INIT;
    io_object_info info = {0};
    io_file *file = NULL;
    check_fails(SILT_NOTFOUND, io_get(store, "nope", &out, &err));
    check_contains(err.message, "nope");
    check_fails(SILT_NOTFOUND, io_head(store, "nope", &info, &err));
    check_fails(SILT_NOTFOUND, io_delete(store, "nope", &err));
    check_fails(SILT_NOTFOUND, io_file_open(store, "nope", &file, &err));
    check_ok(io_put(store, "dir/x", "1", 1, &err), &err);
    check_fails(SILT_NOTFOUND, io_get(store, "dir", &out, &err));
    check_fails(SILT_NOTFOUND, io_head(store, "dir", &info, &err));
    buf_clear(&out);
}

void test_io_store_local__keys_that_escape_are_refused(void)
{
    buf out = BUF_INIT;
    check_fails(SILT_INVALID, io_put(store, "../escape", "x", 1, &err));
    check_contains(err.message, "escape the table root");
    check_fails(SILT_INVALID, io_put(store, "a/../../escape", "x", 1, &err));
    check_fails(SILT_INVALID, io_get(store, "/etc/passwd", &out, &err));
    check_fails(SILT_INVALID, io_get(store, "a/./b", &out, &err));
    check_fails(SILT_INVALID, io_get(store, "a//b", &out, &err));
    check_fails(SILT_INVALID, io_get(store, "", &out, &err));
    check_fails(SILT_INVALID, io_check_key(NULL, &err));
    check_ok(io_check_key("a/..b/c..", &err), &err);
    check_ok(io_check_key("_delta_log/00000000000000000000.json", &err), &err);
    buf_clear(&out);
}

void test_io_store_local__put_if_absent(void)
{
    check_ok(io_put_if_absent(store, "_delta_log/0.json", "first", 5, &err), &err);
    check_fails(SILT_EXISTS, io_put_if_absent(store, "_delta_log/0.json", "second", 6, &err));
    check_contains(err.message, "already exists");
    check_str("first", get_text("_delta_log/0.json"));
}

void test_io_store_local__list_sorted_after_key(void)
{
    io_listing listing = IO_LISTING_INIT;
    const char *keys[] = {"_delta_log/00000000000000000002.json",
                          "_delta_log/00000000000000000000.json",
                          "_delta_log/00000000000000000001.json",
                          "_delta_log/00000000000000000001.checkpoint.parquet",
                          "_delta_log/_sidecars/a.parquet", "part-0.parquet", "x/y/z.parquet"};
    size_t idx;
    for (idx = 0; idx < sizeof(keys) / sizeof(keys[0]); idx++)
        check_ok(io_put(store, keys[idx], "x", 1, &err), &err);
    check_ok(io_list(store, "_delta_log/", NULL, 0, &listing, &err), &err);
    check_int(4, listing.count);
    check_str("_delta_log/00000000000000000000.json", listing.items[0].key);
    check_str("_delta_log/00000000000000000001.checkpoint.parquet", listing.items[1].key);
    check_str("_delta_log/00000000000000000002.json", listing.items[3].key);
    check_int(1, listing.items[0].size);
    io_listing_clear(&listing);

    check_ok(io_list(store, "_delta_log/00000000000000000001", NULL, 0, &listing, &err), &err);
    check_int(2, listing.count);
    io_listing_clear(&listing);

    check_ok(io_list(store, "_delta_log/", "_delta_log/00000000000000000001.json", 0, &listing,
                     &err), &err);
    check_int(1, listing.count);
    check_str("_delta_log/00000000000000000002.json", listing.items[0].key);
    io_listing_clear(&listing);

    check_ok(io_list(store, "", NULL, 1, &listing, &err), &err);
    check_int(7, listing.count);
    check_str("_delta_log/_sidecars/a.parquet", listing.items[4].key);
    check_str("x/y/z.parquet", listing.items[6].key);
    io_listing_clear(&listing);

    check_ok(io_list(store, "missing/", NULL, 1, &listing, &err), &err);
    check_int(0, listing.count);
    check_fails(SILT_INVALID, io_list(store, "../", NULL, 1, &listing, &err));
}

void test_io_store_local__head_and_delete(void)
{
    io_object_info info = {0};
    check_ok(io_put(store, "k", "12345", 5, &err), &err);
    check_ok(io_head(store, "k", &info, &err), &err);
    check_int(5, info.size);
    check_str("k", info.key);
    check(info.mtime_micros > 0);
    io_object_info_clear(&info);
    check_ok(io_delete(store, "k", &err), &err);
    check_fails(SILT_NOTFOUND, io_head(store, "k", &info, &err));
}

void test_io_store_local__files_read_at(void)
{
    io_file *file = NULL;
    char out[8] = {0};
    check_ok(io_put(store, "f", "abcdefgh", 8, &err), &err);
    check_ok(io_file_open(store, "f", &file, &err), &err);
    check_int(8, file->size);
    check_ok(io_file_read_at(file, 4, 4, out, &err), &err);
    check(memcmp(out, "efgh", 4) == 0);
    check_fails(SILT_INVALID, io_file_read_at(file, 6, 4, out, &err));
    check_contains(err.message, "past the end");
    check_ok(io_file_read_at(file, 8, 0, out, &err), &err);
    io_file_close(file);
    io_file_close(NULL);
}

void test_io_store_local__writer_publishes_only_on_commit(void)
{
    io_writer *w = NULL;
    io_listing listing = IO_LISTING_INIT;
    check_ok(io_writer_open(store, "data/part-0.parquet", &w, &err), &err);
    check_ok(io_writer_write(w, "abc", 3, &err), &err);
    check_ok(io_writer_write(w, "def", 3, &err), &err);
    /* Nothing is visible before commit, not even the temporary file. */
    check_ok(io_list(store, "data/", NULL, 1, &listing, &err), &err);
    check_int(0, listing.count);
    check_int(6, w->bytes_written);
    check_ok(io_writer_commit(w, 1, &err), &err);
    check_str("abcdef", get_text("data/part-0.parquet"));

    check_ok(io_writer_open(store, "data/part-0.parquet", &w, &err), &err);
    check_ok(io_writer_write(w, "zzz", 3, &err), &err);
    check_fails(SILT_EXISTS, io_writer_commit(w, 1, &err));
    check_str("abcdef", get_text("data/part-0.parquet"));

    check_ok(io_writer_open(store, "data/part-1.parquet", &w, &err), &err);
    check_ok(io_writer_write(w, "q", 1, &err), &err);
    io_writer_abort(w);
    io_writer_abort(NULL);
    check_ok(io_list(store, "data/", NULL, 1, &listing, &err), &err);
    check_int(1, listing.count);
    io_listing_clear(&listing);
    {
        /* The folder holds no leftover temporary files either. */
        char cmd[4200];
        snprintf(cmd, sizeof(cmd), "test $(ls -A '%s/data' | wc -l) -eq 1", test_tmpdir());
        check_int(0, system(cmd));
    }
}

void test_io_store_local__open_locations(void)
{
    io_store *other = NULL;
    char path[4200];
    snprintf(path, sizeof(path), "%s/new/root", test_tmpdir());
    check_fails(SILT_NOTFOUND, io_store_open(&other, path, 0, &err));
    check_ok(io_store_open(&other, path, 1, &err), &err);
    io_store_free(other);
    snprintf(path, sizeof(path), "file://%s/new/root/", test_tmpdir());
    check_ok(io_store_open(&other, path, 0, &err), &err);
    check(!util_str_ends_with(io_store_root(other), "/"));
    io_store_free(other);
    check_fails(SILT_UNSUPPORTED, io_store_open(&other, "gopher://x/y", 0, &err));
    check_fails(SILT_INVALID, io_store_open(&other, "", 0, &err));
    check_ok(io_put(store, "plainfile", "x", 1, &err), &err);
    snprintf(path, sizeof(path), "%s/plainfile", test_tmpdir());
    check_fails(SILT_INVALID, io_store_open(&other, path, 0, &err));
}

void test_io_store_local__key_join(void)
{
    char *joined = io_key_join("a/", "/b");
    check_str("a/b", joined);
    mem_free(joined);
    joined = io_key_join("", "b");
    check_str("b", joined);
    mem_free(joined);
}

static void write_piece(io_writer *w, buf *expect, size_t len, char fill)
{
    char *piece = mem_alloc(len ? len : 1);
    check(piece != NULL);
    memset(piece, fill, len);
    check_ok(io_writer_write(w, piece, len, &err), &err);
    check_ok(buf_append(expect, piece, len, &err), &err);
    mem_free(piece);
}

/* Pieces below, around and above the writer's 64 KiB buffer arrive in order. */
void test_io_store_local__writer_buffers_pieces_in_order(void)
{
    static const size_t sizes[] = {1, 7, 0, 40000, 30000, 65536, 1, 32768, 32767, 200000, 3};
    io_writer *w = NULL;
    buf expect = BUF_INIT, got = BUF_INIT;
    size_t idx;
    check_ok(io_writer_open(store, "buffered/obj.bin", &w, &err), &err);
    for (idx = 0; idx < sizeof(sizes) / sizeof(sizes[0]); idx++)
        write_piece(w, &expect, sizes[idx], (char)('a' + idx));
    check_ok(io_writer_commit(w, 1, &err), &err);
    check_ok(io_get(store, "buffered/obj.bin", &got, &err), &err);
    check_int((long long)expect.len, (long long)got.len);
    check(memcmp(expect.data, got.data, expect.len) == 0);
    buf_clear(&expect);
    buf_clear(&got);
}

/*
 * Writers' folders are synced once each, together, by the next put (before
 * the put's object is published); without deferral five writers in one
 * folder cost five folder syncs.
 */
void test_io_store_local__writer_folder_syncs_wait_for_next_put(void)
{
    io_writer *w = NULL;
    unsigned long before;
    char key[64];
    int idx;
    check_ok(io_put(store, "t/_log/0.json", "{}", 2, &err), &err);
    before = io_local_folder_syncs();
    for (idx = 0; idx < 5; idx++) {
        snprintf(key, sizeof(key), "t/part=%d/f%d.parquet", idx % 2, idx);
        check_ok(io_writer_open(store, key, &w, &err), &err);
        check_ok(io_writer_write(w, "PAR1", 4, &err), &err);
        check_ok(io_writer_commit(w, 1, &err), &err);
        check_str("PAR1", get_text(key)); /* visible at once */
    }
    check_int(0, (long long)(io_local_folder_syncs() - before));
    check_ok(io_put_if_absent(store, "t/_log/1.json", "{}", 2, &err), &err);
    /* t (two new folders in it), part=0, part=1, then _log for the put itself */
    check_int(4, (long long)(io_local_folder_syncs() - before));
    before = io_local_folder_syncs();
    check_ok(io_put_if_absent(store, "t/_log/2.json", "{}", 2, &err), &err);
    check_int(1, (long long)(io_local_folder_syncs() - before));
}

/* A recorded folder removed before the flush (a dropped table) does not fail the put. */
void test_io_store_local__removed_pending_folder_is_skipped(void)
{
    io_writer *w = NULL;
    char path[1024];
    check_ok(io_writer_open(store, "gone/x.bin", &w, &err), &err);
    check_ok(io_writer_commit(w, 1, &err), &err);
    snprintf(path, sizeof(path), "%s/gone/x.bin", test_tmpdir());
    check(unlink(path) == 0);
    snprintf(path, sizeof(path), "%s/gone", test_tmpdir());
    check(rmdir(path) == 0);
    check_ok(io_put(store, "kept.txt", "k", 1, &err), &err);
    check_str("k", get_text("kept.txt"));
}

/*
 * More recorded folders than sync threads, one of them removed before the
 * flush: every folder is synced once, the removed one is
 * dropped without failing the put, and nothing stays recorded.
 */
void test_io_store_local__many_pending_folders_sync_once(void)
{
    io_writer *w = NULL;
    unsigned long before;
    char key[64], path[1024];
    int idx;
    check_ok(io_put(store, "m/_log/0.json", "{}", 2, &err), &err);
    before = io_local_folder_syncs();
    for (idx = 0; idx < 20; idx++) {
        snprintf(key, sizeof(key), "m/part=%d/f.parquet", idx);
        check_ok(io_writer_open(store, key, &w, &err), &err);
        check_ok(io_writer_write(w, "PAR1", 4, &err), &err);
        check_ok(io_writer_commit(w, 1, &err), &err);
    }
    snprintf(path, sizeof(path), "%s/m/part=7/f.parquet", test_tmpdir());
    check(unlink(path) == 0);
    snprintf(path, sizeof(path), "%s/m/part=7", test_tmpdir());
    check(rmdir(path) == 0);
    check_ok(io_put_if_absent(store, "m/_log/1.json", "{}", 2, &err), &err);
    /* m (new folders in it), the 20 partition folders (one gone), then _log for the put */
    check_int(22, (long long)(io_local_folder_syncs() - before));
    before = io_local_folder_syncs();
    check_ok(io_put_if_absent(store, "m/_log/2.json", "{}", 2, &err), &err);
    check_int(1, (long long)(io_local_folder_syncs() - before));
    check_str("PAR1", get_text("m/part=19/f.parquet"));
}

/* Issue 15 defect 7: a FIFO named as an object is refused at once (it blocked every
 * reader forever); a symlink to a regular file is followed. */
void test_io_store_local__special_files_refused(void)
{
    char path[1024], target[1024];
    buf data = BUF_INIT;
    io_file *file = NULL;
    snprintf(path, sizeof(path), "%s/fifo.parquet", test_tmpdir());
    check(mkfifo(path, 0600) == 0);
    check_fails(SILT_IO, io_get(store, "fifo.parquet", &data, &err));
    check_contains(err.message, "it is not a regular file (a FIFO)");
    check_fails(SILT_IO, io_file_open(store, "fifo.parquet", &file, &err));
    check(file == NULL);
    check_ok(io_put(store, "real.bin", "abc", 3, &err), &err);
    snprintf(target, sizeof(target), "%s/real.bin", test_tmpdir());
    snprintf(path, sizeof(path), "%s/link.bin", test_tmpdir());
    check(symlink(target, path) == 0);
    check_ok(io_get(store, "link.bin", &data, &err), &err);
    check_int(3, data.len);
    buf_clear(&data);
}

/* A recursive listing does not descend into a symlinked folder (VACUUM would delete the
 * files of the folder it points to). */
void test_io_store_local__list_skips_symlinked_folders(void)
{
    char path[1024], target[1024];
    io_listing listing = IO_LISTING_INIT;
    size_t idx;
    check_ok(io_put(store, "t/p=1/own.parquet", "x", 1, &err), &err);
    check_ok(io_put(store, "elsewhere/theirs.parquet", "y", 1, &err), &err);
    snprintf(target, sizeof(target), "%s/elsewhere", test_tmpdir());
    snprintf(path, sizeof(path), "%s/t/p=2", test_tmpdir());
    check(symlink(target, path) == 0);
    check_ok(io_list(store, "t/", NULL, 1, &listing, &err), &err);
    for (idx = 0; idx < listing.count; idx++)
        check(strstr(listing.items[idx].key, "theirs") == NULL);
    check_int(1, listing.count);
    io_listing_clear(&listing);
}

/* Issue 15 defect 11: temp files a killed writer left in _delta_log/ go at the next commit
 * when provably dead (their process is gone and they are over an hour old); a young one,
 * or one whose process lives, stays. */
static void make_tmp_in(const char *folder, const char *name, time_t age_s)
{
    char path[1024];
    struct timespec times[2];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s/%s", test_tmpdir(), folder, name);
    f = fopen(path, "w");
    check(f != NULL);
    fputs("partial", f);
    fclose(f);
    times[0].tv_sec = times[1].tv_sec = time(NULL) - age_s;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    check(utimensat(AT_FDCWD, path, times, 0) == 0);
}

static int tmp_exists_in(const char *folder, const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s/%s", test_tmpdir(), folder, name);
    return stat(path, &st) == 0;
}

static void make_tmp(const char *name, time_t age_s) { make_tmp_in("_delta_log", name, age_s); }

static int tmp_exists(const char *name) { return tmp_exists_in("_delta_log", name); }

static pid_t dead_pid(void)
{
    pid_t child = fork();
    check(child >= 0);
    if (child == 0)
        _exit(0);
    check(waitpid(child, NULL, 0) == child);
    return child;
}

void test_io_store_local__dead_temp_files_swept_at_commit(void)
{
    char dead_old[64], dead_young[64], alive_old[64];
    pid_t child = fork();
    check(child >= 0);
    if (child == 0)
        _exit(0);
    check(waitpid(child, NULL, 0) == child);
    check_ok(io_put(store, "_delta_log/00000000000000000000.json", "{}", 2, &err), &err);
    snprintf(dead_old, sizeof(dead_old), ".silt-tmp-%ld-0-1", (long)child);
    snprintf(dead_young, sizeof(dead_young), ".silt-tmp-%ld-0-2", (long)child);
    snprintf(alive_old, sizeof(alive_old), ".silt-tmp-%ld-0-3", (long)getppid());
    make_tmp(dead_old, 2 * 3600);
    make_tmp(dead_young, 60);
    make_tmp(alive_old, 2 * 3600);
    /* a fresh handle, as every statement opens one */
    io_store_free(store);
    check_ok(io_local_store_open(&store, test_tmpdir(), 0, &err), &err);
    check_ok(io_put_if_absent(store, "_delta_log/00000000000000000001.json", "{}", 2, &err), &err);
    check(!tmp_exists(dead_old));
    check(tmp_exists(dead_young));
    check(tmp_exists(alive_old));
}

/* Killed writers' data-file temp files (in a partition folder) go when the next data file is
 * written into that folder, under the same proof of death. */
void test_io_store_local__dead_temp_files_swept_beside_data_files(void)
{
    char dead_old[64], dead_young[64], alive_old[64];
    pid_t child = dead_pid();
    io_writer *w = NULL;
    check_ok(io_put(store, "p=a/first.parquet", "x", 1, &err), &err);
    snprintf(dead_old, sizeof(dead_old), ".silt-tmp-%ld-0-1", (long)child);
    snprintf(dead_young, sizeof(dead_young), ".silt-tmp-%ld-0-2", (long)child);
    snprintf(alive_old, sizeof(alive_old), ".silt-tmp-%ld-0-3", (long)getppid());
    make_tmp_in("p=a", dead_old, 2 * 3600);
    make_tmp_in("p=a", dead_young, 60);
    make_tmp_in("p=a", alive_old, 2 * 3600);
    io_store_free(store);
    check_ok(io_local_store_open(&store, test_tmpdir(), 0, &err), &err);
    check_ok(io_writer_open(store, "p=a/second.parquet", &w, &err), &err);
    check_ok(io_writer_write(w, "y", 1, &err), &err);
    check_ok(io_writer_commit(w, 0, &err), &err);
    check(!tmp_exists_in("p=a", dead_old));
    check(tmp_exists_in("p=a", dead_young));
    check(tmp_exists_in("p=a", alive_old));
}

/* io_put_lazy publishes whole objects (temp file, link/rename) without a folder fsync. */
void test_io_store_local__put_lazy(void)
{
    unsigned long before;
    check_ok(io_put(store, "commits/keep", "x", 1, &err), &err);
    before = io_local_folder_syncs();
    check_ok(io_put_lazy(store, "commits/0", "v1\nzero\n", 8, 1, &err), &err);
    check_str("v1\nzero\n", get_text("commits/0"));
    check_fails(SILT_EXISTS, io_put_lazy(store, "commits/0", "other", 5, 1, &err));
    check_contains(err.message, "already exists");
    check_str("v1\nzero\n", get_text("commits/0"));
    check_ok(io_put_lazy(store, "commits/0", "v1\nnew\n", 7, 0, &err), &err);
    check_str("v1\nnew\n", get_text("commits/0"));
    check_int(0, (long long)(io_local_folder_syncs() - before));
    /* no temporary file is left behind: the folder holds what was put */
    {
        char path[4096];
        snprintf(path, sizeof(path), "%s/commits", test_tmpdir());
        check_int(2, test_dir_entries(path));
    }
}
