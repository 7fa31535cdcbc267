/*
 * replay.c - runs fuzz inputs (files, or every file of folders) through
 * LLVMFuzzerTestOneInput without libFuzzer, so the committed corpus is
 * replayed under gcc (and ASan builds) in normal ctest.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *data;
    long size;
    if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 ||
        fseek(fp, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        if (fp != NULL)
            fclose(fp);
        return 1;
    }
    data = mem_alloc((size_t)size + 1);
    if (data == NULL || fread(data, 1, (size_t)size, fp) != (size_t)size) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        mem_free(data);
        fclose(fp);
        return 1;
    }
    fclose(fp);
    LLVMFuzzerTestOneInput(data, (size_t)size);
    mem_free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int idx, failures = 0, runs = 0;
    for (idx = 1; idx < argc; idx++) {
        struct stat st;
        DIR *dir;
        struct dirent *entry;
        if (stat(argv[idx], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[idx]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            failures += run_file(argv[idx]);
            runs++;
            continue;
        }
        dir = opendir(argv[idx]);
        if (dir == NULL)
            return 1;
        while ((entry = readdir(dir)) != NULL) {
            char path[4096];
            if (entry->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", argv[idx], entry->d_name);
            failures += run_file(path);
            runs++;
        }
        closedir(dir);
    }
    printf("replayed %d inputs\n", runs);
    return failures != 0 || runs == 0;
}
