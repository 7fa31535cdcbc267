/* Unit tests of server/wire: the protocol message parsers and builders. */
#include "server/wire.h"
#include "test.h"

static size_t put_be32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)(u >> 24);
    p[1] = (uint8_t)(u >> 16);
    p[2] = (uint8_t)(u >> 8);
    p[3] = (uint8_t)u;
    return 4;
}

static size_t put_be16(uint8_t *p, int16_t v)
{
    p[0] = (uint8_t)((uint16_t)v >> 8);
    p[1] = (uint8_t)v;
    return 2;
}

static size_t put_str(uint8_t *p, const char *s)
{
    size_t n = strlen(s) + 1;
    memcpy(p, s, n);
    return n;
}

void test_server_wire__startup(void)
{
    uint8_t body[128];
    size_t n = put_be32(body, SRV_PROTOCOL_3_0);
    srv_startup s;
    silt_error err = SILT_ERROR_INIT;
    n += put_str(body + n, "user");
    n += put_str(body + n, "alice");
    n += put_str(body + n, "database");
    n += put_str(body + n, "main");
    body[n++] = 0;
    check_ok(srv_parse_startup(&s, body, n, &err), &err);
    check_int(2, s.n_params);
    check_str("alice", srv_startup_get(&s, "user"));
    check_str("main", srv_startup_get(&s, "database"));
    check(srv_startup_get(&s, "options") == NULL);
    /* without the final zero byte the packet is cut short */
    check_fails(SILT_CORRUPT, srv_parse_startup(&s, body, n - 1, &err));
    /* trailing bytes after the terminator */
    body[n++] = 'x';
    check_fails(SILT_CORRUPT, srv_parse_startup(&s, body, n, &err));
    check_contains(err.message, "bytes left");
    err_clear(&err);
}

void test_server_wire__startup_codes(void)
{
    uint8_t body[16];
    srv_startup s;
    silt_error err = SILT_ERROR_INIT;
    size_t n = put_be32(body, SRV_SSL_REQUEST);
    check_ok(srv_parse_startup(&s, body, n, &err), &err);
    check_int(SRV_SSL_REQUEST, s.code);
    n = put_be32(body, SRV_CANCEL_REQUEST);
    n += put_be32(body + n, 77);
    n += put_be32(body + n, -5);
    check_ok(srv_parse_startup(&s, body, n, &err), &err);
    check_int(77, s.cancel_pid);
    check_int(-5, s.cancel_key);
    n = put_be32(body, 2 << 16);
    body[n++] = 0;
    check_fails(SILT_UNSUPPORTED, srv_parse_startup(&s, body, n, &err));
    check_contains(err.message, "unsupported frontend protocol 2.0");
    check_fails(SILT_CORRUPT, srv_parse_startup(&s, body, 2, &err));
    err_clear(&err);
}

void test_server_wire__parse_and_bind(void)
{
    uint8_t body[128];
    size_t n = 0;
    srv_parse_msg pm;
    srv_bind_msg bm;
    silt_error err = SILT_ERROR_INIT;
    n += put_str(body + n, "s1");
    n += put_str(body + n, "SELECT $1, $2");
    n += put_be16(body + n, 2);
    n += put_be32(body + n, 23);
    n += put_be32(body + n, 0);
    check_ok(srv_parse_parse(&pm, body, n, &err), &err);
    check_str("s1", pm.name);
    check_str("SELECT $1, $2", pm.query);
    check_int(2, pm.n_types);
    check_int(23, pm.types[0]);
    srv_parse_msg_clear(&pm);
    /* a count larger than the body is refused before anything is allocated */
    put_be16(body + n - 10, 30000);
    check_fails(SILT_CORRUPT, srv_parse_parse(&pm, body, n, &err));
    check_contains(err.message, "parameter type count 30000");

    n = 0;
    n += put_str(body + n, "");
    n += put_str(body + n, "s1");
    n += put_be16(body + n, 1);
    n += put_be16(body + n, 1); /* all parameters binary */
    n += put_be16(body + n, 2);
    n += put_be32(body + n, 4);
    n += put_be32(body + n, 42);
    n += put_be32(body + n, -1); /* NULL */
    n += put_be16(body + n, 0);
    check_ok(srv_parse_bind(&bm, body, n, &err), &err);
    check_str("s1", bm.stmt);
    check_int(2, bm.n_params);
    check_int(4, bm.lengths[0]);
    check_int(42, bm.values[0][3]);
    check(bm.values[1] == NULL);
    check_int(1, srv_bind_param_format(&bm, 1));
    srv_bind_msg_clear(&bm);
    /* a parameter length past the end */
    put_be32(body + n - 14, 400);
    check_fails(SILT_CORRUPT, srv_parse_bind(&bm, body, n, &err));
    err_clear(&err);
}

void test_server_wire__bind_bad_format(void)
{
    uint8_t body[64];
    size_t n = 0;
    srv_bind_msg bm;
    silt_error err = SILT_ERROR_INIT;
    n += put_str(body + n, "");
    n += put_str(body + n, "");
    n += put_be16(body + n, 1);
    n += put_be16(body + n, 2);
    n += put_be16(body + n, 0);
    n += put_be16(body + n, 0);
    check_fails(SILT_CORRUPT, srv_parse_bind(&bm, body, n, &err));
    check_contains(err.message, "neither 0 (text) nor 1 (binary)");
    err_clear(&err);
}

void test_server_wire__targets_and_execute(void)
{
    uint8_t body[32];
    size_t n = 0;
    uint8_t kind;
    const char *name;
    int32_t max_rows;
    silt_error err = SILT_ERROR_INIT;
    body[n++] = 'P';
    n += put_str(body + n, "cur");
    check_ok(srv_parse_target(&kind, &name, body, n, "Describe", &err), &err);
    check_int('P', kind);
    check_str("cur", name);
    body[0] = 'Q';
    check_fails(SILT_CORRUPT, srv_parse_target(&kind, &name, body, n, "Close", &err));
    check_contains(err.message, "invalid Close message");
    n = put_str(body, "cur");
    n += put_be32(body + n, 10);
    check_ok(srv_parse_execute(&name, &max_rows, body, n, &err), &err);
    check_int(10, max_rows);
    check_fails(SILT_CORRUPT, srv_parse_execute(&name, &max_rows, body, n - 1, &err));
    err_clear(&err);
}

void test_server_wire__sasl_initial(void)
{
    uint8_t body[64];
    size_t n = put_str(body, "SCRAM-SHA-256");
    const char *mech;
    const uint8_t *data;
    size_t len;
    silt_error err = SILT_ERROR_INIT;
    n += put_be32(body + n, 3);
    memcpy(body + n, "n,,", 3);
    n += 3;
    check_ok(srv_parse_sasl_initial(&mech, &data, &len, body, n, &err), &err);
    check_str("SCRAM-SHA-256", mech);
    check_int(3, len);
    check(memcmp(data, "n,,", 3) == 0);
    put_be32(body + 14, 1000);
    check_fails(SILT_CORRUPT, srv_parse_sasl_initial(&mech, &data, &len, body, n, &err));
    err_clear(&err);
}

/* Whether the n bytes of needle occur in b. */
static int contains_bytes(const buf *b, const char *needle, size_t n)
{
    for (size_t pos = 0; pos + n <= b->len; pos++)
        if (memcmp(b->data + pos, needle, n) == 0)
            return 1;
    return 0;
}

void test_server_wire__error_response(void)
{
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    const uint8_t *p;
    check_ok(srv_put_error(&b, 'E', "ERROR", "42P01", "table not found", NULL, NULL, 15, &err),
             &err);
    p = (const uint8_t *)b.data;
    check_int('E', p[0]);
    check_int(b.len - 1, ((size_t)p[1] << 24) | ((size_t)p[2] << 16) | ((size_t)p[3] << 8) | p[4]);
    check(contains_bytes(&b, "C42P01", 7));
    check(contains_bytes(&b, "P15", 4));
    check_int(0, p[b.len - 1]);
    buf_clear(&b);
}
