/*
 * delta_replay.c - runs one of the delta/ fuzz targets (fuzz_commit.c,
 * fuzz_dv.c; linked with one of them) over corpus files without
 * libFuzzer, so that every build (gcc, sanitizers) replays the corpus.
 * Usage: silt_fuzz_<target>_replay FILE_OR_DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    buf b = BUF_INIT;
    char chunk[65536];
    size_t got;
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if (buf_append(&b, chunk, got, NULL) != SILT_OK)
            break;
    fclose(f);
    LLVMFuzzerTestOneInput((const uint8_t *)(b.data ? b.data : ""), b.len);
    buf_clear(&b);
    return 0;
}

int main(int argc, char **argv)
{
    int arg, failures = 0, count = 0;
    for (arg = 1; arg < argc; arg++) {
        DIR *d = opendir(argv[arg]);
        struct dirent *ent;
        if (d == NULL) {
            failures += replay_file(argv[arg]);
            count++;
            continue;
        }
        while ((ent = readdir(d)) != NULL) {
            char path[4096];
            if (ent->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", argv[arg], ent->d_name);
            failures += replay_file(path);
            count++;
        }
        closedir(d);
    }
    printf("replayed %d inputs\n", count);
    return failures == 0 && count > 0 ? 0 : 1;
}
