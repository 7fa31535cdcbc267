/*
 * Unit tests of server/scram and server/users: base64, verifiers, the RFC
 * 7677 example exchange, the users file.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "server/scram.h"
#include "server/users.h"
#include "test.h"

/* RFC 7677 section 3: user "user", password "pencil" (keys computed from its salt and count). */
#define RFC_VERIFIER                                                                   \
    "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:" \
    "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="
#define RFC_NONCE "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"

void test_server_scram__base64(void)
{
    buf b = BUF_INIT;
    uint8_t out[16];
    size_t n = 0;
    silt_error err = SILT_ERROR_INIT;
    check_ok(srv_base64_encode(&b, (const uint8_t *)"n,,", 3, &err), &err);
    check_str("biws", buf_cstr(&b));
    check_ok(srv_base64_decode("Zm9vYg==", 8, out, sizeof(out), &n, &err), &err);
    check_int(4, (int)n);
    check(memcmp(out, "foob", 4) == 0);
    check_fails(SILT_CORRUPT, srv_base64_decode("Zm9", 3, out, sizeof(out), &n, &err));
    check_fails(SILT_CORRUPT, srv_base64_decode("Zm=v", 4, out, sizeof(out), &n, &err));
    check_fails(SILT_CORRUPT, srv_base64_decode("Zm9v", 4, out, 2, &n, &err));
    buf_clear(&b);
}

void test_server_scram__rfc7677_exchange(void)
{
    srv_verifier v;
    srv_scram s;
    buf out = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    const char *first = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    const char *final = "c=biws,r=" RFC_NONCE ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    check_ok(srv_scram_parse_verifier(&v, RFC_VERIFIER, &err), &err);
    check_int(4096, v.iterations);
    check_ok(srv_scram_first(&s, &v, "user", (const uint8_t *)first, strlen(first), &out, &err),
             &err);
    check(strncmp(buf_cstr(&out), "r=rOprNGfwEbeRWgbNEkqO", 22) == 0);
    /* the RFC's server nonce instead of the random one */
    snprintf(s.nonce, sizeof(s.nonce), "%s", RFC_NONCE);
    snprintf(s.server_first, sizeof(s.server_first), "r=%s,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
             RFC_NONCE);
    buf_truncate(&out, 0);
    check_ok(srv_scram_final(&s, (const uint8_t *)final, strlen(final), &out, &err), &err);
    check_str("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", buf_cstr(&out));
    buf_clear(&out);
}

void test_server_scram__wrong_proof_and_no_user(void)
{
    srv_verifier v;
    srv_scram s;
    buf out = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    const char *first = "n,,n=,r=abc";
    char final[256];
    check_ok(srv_scram_parse_verifier(&v, RFC_VERIFIER, &err), &err);
    check_ok(srv_scram_first(&s, &v, "user", (const uint8_t *)first, 11, &out, &err), &err);
    snprintf(final, sizeof(final), "c=biws,r=%s,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
             s.nonce);
    check_fails(SILT_INVALID, srv_scram_final(&s, (const uint8_t *)final, strlen(final), &out,
                                              &err));
    /* no such user: the same exchange, and the same failure */
    buf_truncate(&out, 0);
    check_ok(srv_scram_first(&s, NULL, "ghost", (const uint8_t *)first, 11, &out, &err), &err);
    check_contains(buf_cstr(&out), ",i=4096");
    snprintf(final, sizeof(final), "c=biws,r=%s,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
             s.nonce);
    check_fails(SILT_INVALID, srv_scram_final(&s, (const uint8_t *)final, strlen(final), &out,
                                              &err));
    /* a nonce that is not this exchange's, channel binding, malformed messages */
    check_fails(SILT_CORRUPT, srv_scram_final(&s, (const uint8_t *)"c=biws,r=zzz,p=AAAA", 19,
                                              &out, &err));
    check_fails(SILT_UNSUPPORTED, srv_scram_first(&s, &v, "u", (const uint8_t *)"p=tls-unique,,n=,r=a",
                                                  20, &out, &err));
    check_fails(SILT_CORRUPT, srv_scram_first(&s, &v, "u", (const uint8_t *)"n,,n=", 5, &out, &err));
    check_fails(SILT_CORRUPT, srv_scram_parse_verifier(&v, "SCRAM-SHA-256$x:a$b:c", &err));
    check_fails(SILT_CORRUPT, srv_scram_parse_verifier(&v, "md5abc", &err));
    buf_clear(&out);
}

void test_server_scram__make_verifier_round_trip(void)
{
    srv_verifier v, w;
    buf text = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    check_ok(srv_scram_make_verifier(&text, "pencil", 6, &err), &err);
    check_ok(srv_scram_parse_verifier(&v, buf_cstr(&text), &err), &err);
    check_int(SRV_SCRAM_ITERATIONS, v.iterations);
    check_int(SRV_SCRAM_SALT_LEN, (int)v.salt_len);
    buf_truncate(&text, 0);
    check_ok(srv_scram_make_verifier(&text, "pencil", 6, &err), &err);
    check_ok(srv_scram_parse_verifier(&w, buf_cstr(&text), &err), &err);
    /* a fresh salt each time */
    check(memcmp(v.salt, w.salt, v.salt_len) != 0);
    buf_clear(&text);
}

void test_server_scram__users_file(void)
{
    char path[] = "/tmp/silt-users-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    srv_users u = SRV_USERS_INIT, again = SRV_USERS_INIT;
    silt_error err = SILT_ERROR_INIT;
    const srv_user *a;
    check(f != NULL);
    fprintf(f, "# users\n\nuser alice %s\nuser bob %s read-only databases=default,sales\n",
            RFC_VERIFIER, RFC_VERIFIER);
    fclose(f);
    check_ok(srv_users_load(&u, path, &err), &err);
    check_int(2, (int)u.n);
    a = srv_users_find(&u, "bob");
    check(a != NULL && a->read_only && a->n_databases == 2);
    check(srv_user_may_use(a, "sales") && !srv_user_may_use(a, "other"));
    check(srv_user_may_use(srv_users_find(&u, "alice"), "other"));
    check_ok(srv_users_save(&u, path, &err), &err);
    check_ok(srv_users_load(&again, path, &err), &err);
    check_int(2, (int)again.n);
    check_str(RFC_VERIFIER, srv_users_find(&again, "alice")->verifier_text);
    srv_users_clear(&again);
    srv_users_clear(&u);
    /* nothing in the file is ignored */
    f = fopen(path, "w");
    fprintf(f, "user alice %s readonly\n", RFC_VERIFIER);
    fclose(f);
    check_fails(SILT_CORRUPT, srv_users_load(&u, path, &err));
    f = fopen(path, "w");
    fprintf(f, "group admins\n");
    fclose(f);
    check_fails(SILT_CORRUPT, srv_users_load(&u, path, &err));
    f = fopen(path, "w");
    fprintf(f, "user a %s\nuser a %s\n", RFC_VERIFIER, RFC_VERIFIER);
    fclose(f);
    check_fails(SILT_CORRUPT, srv_users_load(&u, path, &err));
    unlink(path);
    check_fails(SILT_NOTFOUND, srv_users_load(&u, path, &err));
}
