/*
 * Many processes race put-if-absent on one key: exactly one wins, every
 * loser gets SILT_EXISTS, and the object holds the winner's content, whole.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/store.h"
#include "test.h"
#include "util/mem.h"

#define RACERS 16
#define PAYLOAD_BYTES (256 * 1024)

static void fill_payload(char *data, int racer)
{
    size_t idx;
    for (idx = 0; idx < PAYLOAD_BYTES; idx++)
        data[idx] = (char)('A' + (racer + idx / 4096) % 26);
    snprintf(data, 32, "racer-%02d:", racer);
}

/* Child: waits for the start signal, races, exits 0 won / 1 lost / 2 error. */
static void racer_main(int racer, int start_fd, const char *root, int round)
{
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    char key[64];
    char go;
    char *data = mem_alloc(PAYLOAD_BYTES);
    silt_status rc;
    if (data == NULL || io_store_open(&store, root, 0, &err) != SILT_OK)
        _exit(2);
    fill_payload(data, racer);
    snprintf(key, sizeof(key), "_delta_log/%020d.json", round);
    if (read(start_fd, &go, 1) != 1)
        _exit(2);
    rc = io_put_if_absent(store, key, data, PAYLOAD_BYTES, &err);
    if (rc == SILT_EXISTS && strstr(err.message, "already exists") == NULL)
        _exit(2);
    _exit(rc == SILT_OK ? 0 : rc == SILT_EXISTS ? 1 : 2);
}

void test_io_race__put_if_absent_has_one_winner(void)
{
    const char *root = test_tmpdir(); /* made once, before the children fork */
    int round;
    for (round = 0; round < 5; round++) {
        int pipe_fds[2];
        pid_t pids[RACERS];
        int winner = -1, losers = 0, racer;
        io_store *store = NULL;
        silt_error err = SILT_ERROR_INIT;
        buf content = BUF_INIT;
        char key[64];
        char expected_head[32];
        char *expected = mem_alloc(PAYLOAD_BYTES);
        check(pipe(pipe_fds) == 0);
        for (racer = 0; racer < RACERS; racer++) {
            pids[racer] = fork();
            check(pids[racer] >= 0);
            if (pids[racer] == 0) {
                close(pipe_fds[1]);
                racer_main(racer, pipe_fds[0], root, round);
            }
        }
        close(pipe_fds[0]);
        /* Release everyone at once. */
        {
            char go[RACERS];
            memset(go, 'g', sizeof(go));
            check(write(pipe_fds[1], go, sizeof(go)) == RACERS);
        }
        close(pipe_fds[1]);
        for (racer = 0; racer < RACERS; racer++) {
            int status = 0;
            check(waitpid(pids[racer], &status, 0) == pids[racer]);
            check(WIFEXITED(status));
            if (WEXITSTATUS(status) == 0) {
                check(winner == -1);
                winner = racer;
            } else {
                check_int(1, WEXITSTATUS(status));
                losers++;
            }
        }
        check(winner >= 0);
        check_int(RACERS - 1, losers);
        check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
        snprintf(key, sizeof(key), "_delta_log/%020d.json", round);
        check_ok(io_get(store, key, &content, &err), &err);
        fill_payload(expected, winner);
        snprintf(expected_head, sizeof(expected_head), "racer-%02d:", winner);
        check_int(PAYLOAD_BYTES, content.len);
        check(memcmp(content.data, expected_head, strlen(expected_head)) == 0);
        check(memcmp(content.data, expected, PAYLOAD_BYTES) == 0);
        {
            /* No temporary file is left behind by winners or losers. */
            io_listing listing = IO_LISTING_INIT;
            char cmd[4200];
            check_ok(io_list(store, "_delta_log/", NULL, 0, &listing, &err), &err);
            check_int(round + 1, listing.count);
            io_listing_clear(&listing);
            snprintf(cmd, sizeof(cmd), "test $(ls -A '%s/_delta_log' | wc -l) -eq %d",
                     test_tmpdir(), round + 1);
            check_int(0, system(cmd));
        }
        buf_clear(&content);
        mem_free(expected);
        io_store_free(store);
    }
}
