/*
 * replay.c - runs a fuzz target over files without libFuzzer.
 *
 * Usage: <target>_replay PATH...  where each PATH is a file or a directory
 * of files (the committed corpus). Every input is passed to
 * LLVMFuzzerTestOneInput once; a crash or abort fails the ctest run. A
 * missing or empty corpus is an error too, so that a lost corpus cannot
 * pass silently.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "util/mem.h"

#define REPLAY_MAX_INPUT ((size_t)64 << 20)

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *data;
    size_t n;
    if (f == NULL || fstat(fileno(f), &st) != 0 || (size_t)st.st_size > REPLAY_MAX_INPUT) {
        fprintf(stderr, "could not read fuzz input \"%s\"\n", path);
        if (f != NULL)
            fclose(f);
        return -1;
    }
    data = mem_alloc((size_t)st.st_size + 1);
    if (data == NULL) {
        fclose(f);
        return -1;
    }
    n = fread(data, 1, (size_t)st.st_size, f);
    fclose(f);
    LLVMFuzzerTestOneInput(data, n);
    mem_free(data);
    return 0;
}

int main(int argc, char **argv)
{
    long n_inputs = 0;
    for (int arg = 1; arg < argc; arg++) {
        struct stat st;
        DIR *dir;
        struct dirent *ent;
        if (stat(argv[arg], &st) != 0) {
            fprintf(stderr, "could not open corpus \"%s\"\n", argv[arg]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[arg]) != 0)
                return 1;
            n_inputs++;
            continue;
        }
        dir = opendir(argv[arg]);
        if (dir == NULL)
            return 1;
        while ((ent = readdir(dir)) != NULL) {
            char path[4096];
            if (ent->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", argv[arg], ent->d_name);
            if (run_file(path) != 0) {
                closedir(dir);
                return 1;
            }
            n_inputs++;
        }
        closedir(dir);
    }
    if (n_inputs == 0) {
        fprintf(stderr, "no fuzz inputs found\n");
        return 1;
    }
    printf("replayed %ld inputs\n", n_inputs);
    return 0;
}
