/*
 * fuzz_pgwire.c - libFuzzer target for the PostgreSQL protocol parsers of
 * the server (src/server/wire.h).
 *
 * The first byte picks the message the rest is parsed as (the start-up
 * packet, Parse, Bind, Describe, Close, Execute, SASLInitialResponse), as
 * the server does from a message's type byte. Whatever the bytes, a parser
 * must end in SILT_OK, SILT_CORRUPT, SILT_UNSUPPORTED or SILT_NOMEM, and
 * what it returns must lie inside the input. A first byte of 0x80 or more
 * sends the rest to the --http endpoint's request head parser (http.h):
 * every field it fills must stay a terminated string of its size.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "server/http.h"
#include "server/wire.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rc(silt_status rc)
{
    if (rc != SILT_OK && rc != SILT_CORRUPT && rc != SILT_UNSUPPORTED && rc != SILT_NOMEM)
        __builtin_trap();
}

/* A pointer the parser returned must point into the body. */
static void check_inside(const void *p, const uint8_t *body, size_t len)
{
    if (p != NULL && ((const uint8_t *)p < body || (const uint8_t *)p > body + len))
        __builtin_trap();
}

static void fuzz_bind(const uint8_t *body, size_t len)
{
    srv_bind_msg m;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc = srv_parse_bind(&m, body, len, &err);
    check_rc(rc);
    if (rc != SILT_OK)
        return;
    for (int idx = 0; idx < m.n_params; idx++) {
        if (m.values[idx] != NULL && m.values[idx] + m.lengths[idx] > body + len)
            __builtin_trap();
        (void)srv_bind_param_format(&m, idx);
    }
    srv_bind_msg_clear(&m);
}

static void check_field(const char *f, size_t cap)
{
    if (memchr(f, '\0', cap) == NULL)
        __builtin_trap();
}

static void fuzz_http(const uint8_t *body, size_t len)
{
    char *head = mem_alloc(len + 1);
    srv_http_req r;
    if (head == NULL)
        return;
    memcpy(head, body, len);
    head[len] = '\0';
    if (srv_http_parse_head(head, &r)) {
        check_field(r.method, sizeof(r.method));
        check_field(r.path, sizeof(r.path));
        check_field(r.auth, sizeof(r.auth));
        check_field(r.user, sizeof(r.user));
        check_field(r.schema, sizeof(r.schema));
        if (r.content_length < -1)
            __builtin_trap();
    }
    mem_free(head);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    silt_error err = SILT_ERROR_INIT;
    const uint8_t *body = data + 1;
    size_t len;
    if (size == 0)
        return 0;
    len = size - 1;
    if (data[0] >= 0x80) {
        fuzz_http(body, len);
        return 0;
    }
    switch (data[0] % 7) {
    case 0: {
        srv_startup s;
        silt_status rc = srv_parse_startup(&s, body, len, &err);
        check_rc(rc);
        for (size_t idx = 0; rc == SILT_OK && idx < s.n_params; idx++)
            check_inside(s.names[idx], body, len);
        if (rc == SILT_OK)
            (void)srv_startup_get(&s, "user");
        break;
    }
    case 1: {
        srv_parse_msg m;
        silt_status rc = srv_parse_parse(&m, body, len, &err);
        check_rc(rc);
        if (rc == SILT_OK) {
            check_inside(m.query, body, len);
            srv_parse_msg_clear(&m);
        }
        break;
    }
    case 2: fuzz_bind(body, len); break;
    case 3:
    case 4: {
        uint8_t kind;
        const char *name = NULL;
        check_rc(srv_parse_target(&kind, &name, body, len, data[0] % 7 == 3 ? "Describe" : "Close",
                                  &err));
        check_inside(name, body, len);
        break;
    }
    case 5: {
        const char *portal = NULL;
        int32_t max_rows;
        check_rc(srv_parse_execute(&portal, &max_rows, body, len, &err));
        check_inside(portal, body, len);
        break;
    }
    default: {
        const char *mech = NULL;
        const uint8_t *first = NULL;
        size_t n = 0;
        silt_status rc = srv_parse_sasl_initial(&mech, &first, &n, body, len, &err);
        check_rc(rc);
        if (rc == SILT_OK && first != NULL && first + n > body + len)
            __builtin_trap();
        break;
    }
    }
    err_clear(&err);
    return 0;
}
