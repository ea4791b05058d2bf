/* sbuf.c: a growable byte buffer for text the server builds piece by piece
 * (HTML pages, CSV, Prometheus text, JUnit XML). An allocation failure sets
 * a sticky flag instead of failing each call, so builders append freely and
 * check once at the end (git's strbuf, Redis's sds). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

static int grow(struct sbuf *b, size_t more)
{
    if (b->failed)
        return -1;
    if (b->len + more + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->buf, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->buf = p;
    b->cap = cap;
    return 0;
}

void sbuf_add(struct sbuf *b, const void *data, size_t n)
{
    if (grow(b, n) != 0)
        return;
    memcpy(b->buf + b->len, data, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

void sbuf_adds(struct sbuf *b, const char *s)
{
    sbuf_add(b, s, strlen(s));
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        sbuf_add(b, small, (size_t)n);
        return;
    }
    if (grow(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sbuf_add_html(struct sbuf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': sbuf_adds(b, "&amp;"); break;
        case '<': sbuf_adds(b, "&lt;"); break;
        case '>': sbuf_adds(b, "&gt;"); break;
        case '"': sbuf_adds(b, "&quot;"); break;
        case '\'': sbuf_adds(b, "&#39;"); break;
        default: sbuf_add(b, s, 1); break;
        }
    }
}

void sbuf_add_xml(struct sbuf *b, const char *s)
{
    /* XML 1.0 forbids most control characters even as references; drop them. */
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            continue;
        switch (*s) {
        case '&': sbuf_adds(b, "&amp;"); break;
        case '<': sbuf_adds(b, "&lt;"); break;
        case '>': sbuf_adds(b, "&gt;"); break;
        case '"': sbuf_adds(b, "&quot;"); break;
        default: sbuf_add(b, s, 1); break;
        }
    }
}

void sbuf_add_csv(struct sbuf *b, const char *s)
{
    if (!s)
        s = "";
    /* A spreadsheet treats a cell that starts with = + - @ (or a tab or CR,
     * which some strip first) as a formula: prefix a quote so it stays text
     * (OWASP CSV injection). Then quote per RFC 4180 when needed. */
    int formula = s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r';
    int quote = formula || strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        sbuf_add(b, "\"", 1);
    if (formula)
        sbuf_add(b, "'", 1);
    for (; *s; s++) {
        if (*s == '"')
            sbuf_add(b, "\"\"", 2);
        else
            sbuf_add(b, s, 1);
    }
    if (quote)
        sbuf_add(b, "\"", 1);
}

char *sbuf_detach(struct sbuf *b, size_t *len)
{
    char *p = b->failed ? NULL : b->buf;
    if (!p && !b->failed)
        p = calloc(1, 1);
    if (b->failed)
        free(b->buf);
    if (len)
        *len = p ? b->len : 0;
    memset(b, 0, sizeof *b);
    return p;
}

void sbuf_release(struct sbuf *b)
{
    free(b->buf);
    memset(b, 0, sizeof *b);
}
