/*
 * replay.c - runs a fuzz target over every file of a corpus folder, so the
 * committed corpora run under gcc and ctest without libFuzzer (libgit2
 * fuzzers/standalone_driver.c does the same). Exits non-zero when the
 * folder is missing or empty, so a lost corpus is noticed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long size;
    uint8_t *data;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        if (f)
            fclose(f);
        return 1;
    }
    data = malloc((size_t)size + 1);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(data);
        fclose(f);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)size);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int failures = 0, runs = 0;
    for (int arg = 1; arg < argc; arg++) {
        DIR *dir = opendir(argv[arg]);
        struct dirent *entry;
        if (dir == NULL) {
            failures += run_file(argv[arg]);
            runs++;
            continue;
        }
        while ((entry = readdir(dir)) != NULL) {
            char path[4096];
            if (entry->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", argv[arg], entry->d_name);
            failures += run_file(path);
            runs++;
        }
        closedir(dir);
    }
    printf("replayed %d inputs, %d unreadable\n", runs, failures);
    return failures != 0 || runs == 0;
}
