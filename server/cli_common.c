/* cli_common.c: what every command shares: the one error-line format, the
 * bounded file reader and the one checked number parser. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

void cli_error(const char *what, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gpuplan: %s: ", what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

enum status parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    long v;
    if (!s || !*s)
        return ST_INVALID;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return ST_INVALID;
    *out = v;
    return ST_OK;
}

enum status cli_read_file(const char *path, size_t limit, char **out, size_t *len, char *err, size_t errlen)
{
    FILE *f = NULL;
    char *buf = NULL;
    size_t cap = 65536, n = 0;
    enum status st = ST_OK;

    f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return ST_IO;
    }
    buf = malloc(cap + 1);
    if (!buf) {
        st = ST_NOMEM;
        goto out;
    }
    for (;;) {
        if (n == cap) {
            if (cap > limit) {
                snprintf(err, errlen, "%s is larger than %zu bytes", path, limit);
                st = ST_TOOLARGE;
                goto out;
            }
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                st = ST_NOMEM;
                goto out;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
                st = ST_IO;
                goto out;
            }
            break;
        }
    }
    if (n > limit) {
        snprintf(err, errlen, "%s is larger than %zu bytes", path, limit);
        st = ST_TOOLARGE;
        goto out;
    }
    buf[n] = '\0';
out:
    if (f && f != stdin)
        fclose(f);
    if (st != ST_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    *len = n;
    return ST_OK;
}
