/* digest.c - SHA-256 through a dlopen'ed libcrypto.so.3 (digest.h). */
#define _POSIX_C_SOURCE 200809L
#include "io/digest.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

typedef int (*digest_fn)(const void *data, size_t count, unsigned char *md, unsigned int *size,
                         const void *type, void *impl);
typedef const void *(*md_fn)(void);

static digest_fn evp_digest;
static md_fn evp_sha256;
static pthread_once_t digest_once = PTHREAD_ONCE_INIT;

static void digest_load(void)
{
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    void *d = h ? dlsym(h, "EVP_Digest") : NULL;
    void *s = h ? dlsym(h, "EVP_sha256") : NULL;
    if (d == NULL || s == NULL)
        return;
    /* POSIX: a data pointer from dlsym holds a function */
    memcpy(&evp_sha256, &s, sizeof(s));
    memcpy(&evp_digest, &d, sizeof(d));
}

silt_status io_sha256_hex(const void *data, size_t len, char out[65], silt_error *err)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[32];
    unsigned int md_len = 0;
    size_t i;
    pthread_once(&digest_once, digest_load);
    if (evp_digest == NULL)
        return err_set(err, SILT_UNSUPPORTED, "SHA-256 needs OpenSSL's libcrypto.so.3, which "
                       "is not installed");
    if (!evp_digest(data, len, md, &md_len, evp_sha256(), NULL) || md_len != sizeof(md))
        return err_set(err, SILT_UNSUPPORTED, "libcrypto's EVP_Digest failed for SHA-256");
    for (i = 0; i < sizeof(md); i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 15];
    }
    out[64] = '\0';
    return SILT_OK;
}
