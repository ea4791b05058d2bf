/* crypto.c: every use of mbedTLS: random bytes, SHA-256, HMAC-SHA256,
 * PBKDF2 password hashes, constant-time comparison and wiping.
 *
 * One CTR_DRBG seeded from the platform entropy source serves the whole
 * process; a mutex guards it because mbedTLS contexts are not thread-safe
 * and civetweb calls in from many workers. Password hashes are
 * self-describing strings ("pbkdf2-sha256$ITER$SALT$HASH", hex) so the
 * iteration count can rise later without breaking stored hashes. */
#include <mbedtls/constant_time.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/md.h>
#include <mbedtls/pkcs5.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/sha256.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

#define SALT_BYTES 16
#define HASH_BYTES 32

static pthread_mutex_t drbg_lock = PTHREAD_MUTEX_INITIALIZER;
static mbedtls_entropy_context entropy;
static mbedtls_ctr_drbg_context drbg;
static int drbg_ready;

enum status crypto_random(void *buf, size_t n)
{
    enum status st = ST_OK;
    pthread_mutex_lock(&drbg_lock);
    if (!drbg_ready) {
        static const char pers[] = "gpuplan";
        mbedtls_entropy_init(&entropy);
        mbedtls_ctr_drbg_init(&drbg);
        if (mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &entropy, (const unsigned char *)pers,
                                  sizeof pers - 1) != 0) {
            mbedtls_ctr_drbg_free(&drbg);
            mbedtls_entropy_free(&entropy);
            st = ST_INTERNAL;
            goto out;
        }
        drbg_ready = 1;
    }
    /* The DRBG hands out at most MBEDTLS_CTR_DRBG_MAX_REQUEST bytes per call. */
    for (size_t off = 0; off < n;) {
        size_t chunk = n - off > MBEDTLS_CTR_DRBG_MAX_REQUEST ? MBEDTLS_CTR_DRBG_MAX_REQUEST : n - off;
        if (mbedtls_ctr_drbg_random(&drbg, (unsigned char *)buf + off, chunk) != 0) {
            st = ST_INTERNAL;
            goto out;
        }
        off += chunk;
    }
out:
    pthread_mutex_unlock(&drbg_lock);
    return st;
}

void crypto_wipe(void *p, size_t n)
{
    if (p && n)
        mbedtls_platform_zeroize(p, n);
}

int crypto_equal(const void *a, const void *b, size_t n)
{
    return mbedtls_ct_memcmp(a, b, n) == 0;
}

int crypto_equal_str(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    /* Lengths of tokens are public (fixed formats); only the contents must not leak. */
    if (la != lb)
        return 0;
    return crypto_equal(a, b, la);
}

void crypto_hex(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int unhex(const char *s, size_t n, unsigned char *out)
{
    for (size_t i = 0; i < n; i++) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[2 * i + k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                return -1;
            v = v * 16 + d;
        }
        out[i] = (unsigned char)v;
    }
    return 0;
}

void crypto_sha256(const void *data, size_t len, unsigned char out[32])
{
    mbedtls_sha256_ret(data, len, out, 0);
}

void crypto_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char d[32];
    crypto_sha256(data, len, d);
    crypto_hex(d, sizeof d, out);
}

void crypto_hmac_sha256(const void *key, size_t klen, const void *data, size_t len, unsigned char out[32])
{
    mbedtls_md_hmac(mbedtls_md_info_from_type(MBEDTLS_MD_SHA256), key, klen, data, len, out);
}

enum status crypto_pbkdf2_sha256(const char *pw, size_t pwlen, const unsigned char *salt, size_t saltlen,
                                 unsigned iterations, unsigned char *out, size_t outlen)
{
    mbedtls_md_context_t md;
    enum status st = ST_OK;
    mbedtls_md_init(&md);
    if (mbedtls_md_setup(&md, mbedtls_md_info_from_type(MBEDTLS_MD_SHA256), 1) != 0 ||
        mbedtls_pkcs5_pbkdf2_hmac(&md, (const unsigned char *)pw, pwlen, salt, saltlen, iterations,
                                  (uint32_t)outlen, out) != 0)
        st = ST_INTERNAL;
    mbedtls_md_free(&md);
    return st;
}

enum status crypto_password_hash(const char *pw, unsigned iterations, char *out, size_t outlen)
{
    unsigned char salt[SALT_BYTES], hash[HASH_BYTES];
    char salt_hex[2 * SALT_BYTES + 1], hash_hex[2 * HASH_BYTES + 1];
    enum status st;

    if ((st = crypto_random(salt, sizeof salt)) != ST_OK)
        return st;
    st = crypto_pbkdf2_sha256(pw, strlen(pw), salt, sizeof salt, iterations, hash, sizeof hash);
    if (st == ST_OK) {
        crypto_hex(salt, sizeof salt, salt_hex);
        crypto_hex(hash, sizeof hash, hash_hex);
        if (snprintf(out, outlen, "pbkdf2-sha256$%u$%s$%s", iterations, salt_hex, hash_hex) >= (int)outlen)
            st = ST_INTERNAL;
    }
    crypto_wipe(hash, sizeof hash);
    crypto_wipe(hash_hex, sizeof hash_hex);
    return st;
}

int crypto_password_verify(const char *pw, const char *stored)
{
    static const char prefix[] = "pbkdf2-sha256$";
    unsigned char salt[SALT_BYTES], want[HASH_BYTES], got[HASH_BYTES];
    char iter_text[16];
    long iterations;
    int ok = 0;

    if (strncmp(stored, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *p = stored + sizeof prefix - 1;
    const char *d1 = strchr(p, '$');
    if (!d1 || (size_t)(d1 - p) >= sizeof iter_text)
        return 0;
    memcpy(iter_text, p, (size_t)(d1 - p));
    iter_text[d1 - p] = '\0';
    const char *salt_hex = d1 + 1, *d2 = strchr(salt_hex, '$');
    if (parse_long(iter_text, 1, 100000000, &iterations) != ST_OK || !d2 ||
        (size_t)(d2 - salt_hex) != 2 * SALT_BYTES || strlen(d2 + 1) != 2 * HASH_BYTES ||
        unhex(salt_hex, SALT_BYTES, salt) != 0 || unhex(d2 + 1, HASH_BYTES, want) != 0)
        return 0;
    if (crypto_pbkdf2_sha256(pw, strlen(pw), salt, sizeof salt, (unsigned)iterations, got, sizeof got) == ST_OK)
        ok = crypto_equal(got, want, sizeof got);
    crypto_wipe(got, sizeof got);
    crypto_wipe(want, sizeof want);
    return ok;
}

void crypto_password_burn(const char *pw)
{
    /* Spends the time of a real verification so an unknown account answers as
     * slowly as a wrong password (no account enumeration by timing). */
    unsigned char salt[SALT_BYTES] = {0}, out[HASH_BYTES];
    crypto_pbkdf2_sha256(pw, strlen(pw), salt, sizeof salt, CRYPTO_PBKDF2_ITERATIONS, out, sizeof out);
    crypto_wipe(out, sizeof out);
}

enum status crypto_token(const char *prefix, size_t nbytes, char *out, size_t outlen)
{
    unsigned char raw[64];
    size_t pl = strlen(prefix);
    enum status st;
    if (nbytes > sizeof raw || outlen < pl + 2 * nbytes + 1)
        return ST_INVALID;
    if ((st = crypto_random(raw, nbytes)) != ST_OK)
        return st;
    memcpy(out, prefix, pl);
    crypto_hex(raw, nbytes, out + pl);
    crypto_wipe(raw, sizeof raw);
    return ST_OK;
}
