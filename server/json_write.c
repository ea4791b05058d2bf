/* json_write.c: compact JSON text, faster than cJSON_PrintUnformatted for
 * number-heavy documents such as planner answers: json_write prints a cJSON
 * tree; jw_* write a document member by member with no tree at all (the plan
 * answers, json_plan.c), which also saves the tree's ~1,500 allocations.
 *
 * cJSON (1.7.15) formats every non-integer with "%1.15g" and reads it back
 * with sscanf to decide whether 17 digits are needed: two trips
 * through the C library's float formatting per number. A 26 KB recommend
 * answer holds ~1,500 numbers, most of them already rounded to a few
 * decimals by the encoder, and its printing cost a fifth of the server's CPU
 * under load. Here a number is printed
 * - as an integer when it is one (below 2^53, exact);
 * - else as the integer r with k decimals when r / 10^k == d for some k <= 9:
 *   r and 10^k are exact doubles and IEEE division rounds correctly, so the
 *   text parses back to exactly d (the shortest form for the rounded values
 *   the encoder writes);
 * - else with %.15g, %.16g or %.17g, the first that strtod reads back as d.
 * So every number reads back as the same double (cJSON itself only checks to
 * within an epsilon), keys and strings are escaped exactly as cJSON does, and
 * the document is the same JSON value.
 *
 * json_write_cjson writes the very bytes cJSON_PrintUnformatted writes, for
 * text that is stored and compared later (a report's sections and findings):
 * cJSON's own number rules, with the same fast forms wherever they provably
 * give the text "%1.15g" would, and cJSON's sprintf/sscanf steps elsewhere.
 * json_write_cjson_settle also sets each number of the tree to what its
 * text reads back as (cJSON keeps "%1.15g" when it is within an epsilon, so
 * the text may hold a neighbour of the double): the tree is then the one a
 * reader of the stored text parses, and can answer for it. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "server_int.h"

/* The growable text both printers write into: struct json_buf (server_int.h). */

static int grow(struct json_buf *b, size_t need)
{
    size_t cap;
    char *np;
    if (b->failed)
        return 0;
    if (b->len + need + 1 <= b->cap)
        return 1;
    cap = b->cap ? b->cap : 32768;   /* a plan answer is ~26 KB: one allocation */
    while (cap < b->len + need + 1)
        cap *= 2;
    np = realloc(b->p, cap);
    if (!np) {
        b->failed = 1;
        return 0;
    }
    b->p = np;
    b->cap = cap;
    return 1;
}

static void put(struct json_buf *b, const char *s, size_t n)
{
    if (!grow(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static inline void putc1(struct json_buf *b, char c)
{
    if (b->len + 2 > b->cap && !grow(b, 1))
        return;
    b->p[b->len++] = c;
}

/* Unsigned decimal digits of v into the end of tmp; returns the start. */
static char *utoa_end(unsigned long long v, char *end)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

static const double P10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

#define EXACT_INT_MAX 9007199254740992.0   /* 2^53 */

void json_write_number(char out[32], double d)
{
    char tmp[32], *s;
    if (!isfinite(d)) {
        memcpy(out, "null", 5);
        return;
    }
    if (d == floor(d) && fabs(d) < EXACT_INT_MAX) {
        unsigned long long u = (unsigned long long)fabs(d);
        s = utoa_end(u, tmp + sizeof tmp);
        if (d < 0)
            *--s = '-';
        memcpy(out, s, (size_t)(tmp + sizeof tmp - s));
        out[tmp + sizeof tmp - s] = '\0';
        return;
    }
    for (int k = 1; k <= 9; k++) {
        double v = fabs(d) * P10[k];
        if (v >= EXACT_INT_MAX)
            break;
        double r = nearbyint(v);
        if (r / P10[k] == fabs(d)) {
            unsigned long long u = (unsigned long long)r;
            char *end = tmp + sizeof tmp, *q = end;
            for (int i = 0; i < k; i++) {   /* the k decimals, zero-padded */
                *--q = (char)('0' + u % 10);
                u /= 10;
            }
            *--q = '.';
            q = utoa_end(u, q);
            if (d < 0)
                *--q = '-';
            memcpy(out, q, (size_t)(end - q));
            out[end - q] = '\0';
            return;
        }
    }
    for (int prec = 15; prec <= 17; prec++) {
        int n = snprintf(out, 32, "%.*g", prec, d);
        if (n > 0 && n < 32 && (prec == 17 || strtod(out, NULL) == d))
            return;
    }
    memcpy(out, "null", 5);   /* not reached: %.17g always fits and reads back */
}

/* cJSON 1.7.15's print_number (as Debian builds it), byte for byte:
 * "%1.15g" when that reads back within its epsilon test (compare_double),
 * else "%1.17g"; NaN and infinities as null. The printf round trip is
 * skipped where its result is known:
 * - a whole number below 10^15 prints with %1.15g as its digits ("-0" for
 *   negative zero);
 * - d == r / 10^k (r an integer of at most 15 digits, 1 <= k <= 9, k the
 *   least that works, d >= 10^-4) prints with %1.15g as r with k decimals:
 *   d is within half an ulp of that decimal, far less than half a unit of
 *   its 15th digit, %g's fixed style applies (exponent -4..14) and drops no
 *   digit but the trailing zeros a least k has none of; the text reads back
 *   as exactly d, so cJSON keeps it. */
static void cjson_number(char out[32], const cJSON *it)
{
    double d = it->valuedouble;
    if (isnan(d) || isinf(d)) {
        memcpy(out, "null", 5);
        return;
    }
    if (d == 0) {
        memcpy(out, signbit(d) ? "-0" : "0", signbit(d) ? 3 : 2);
        return;
    }
    double a = fabs(d);
    if (d == floor(d) && a < 1e15) {
        json_write_number(out, d); /* the whole-number form: its digits */
        return;
    }
    for (int k = 1; k <= 9; k++) {
        double v = a * P10[k];
        if (v >= 1e15)
            break; /* r would have more than 15 digits */
        double r = nearbyint(v);
        if (r / P10[k] == a) {
            if (r < P10[k] / 1e4)
                break; /* below 10^-4: %g writes an exponent */
            json_write_number(out, d); /* its least-k decimal form, as here */
            return;
        }
    }
    double test = 0.0;
    snprintf(out, 32, "%1.15g", d);
    if (sscanf(out, "%lg", &test) != 1 ||
        !(fabs(test - d) <= (fabs(test) > a ? fabs(test) : a) * DBL_EPSILON))
        snprintf(out, 32, "%1.17g", d);
}

/* 1 for the bytes a JSON string escapes: control characters, quote, backslash. */
static const unsigned char ESCAPED[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
};

/* A JSON string as cJSON escapes it: quote, backslash and the control
 * characters; every other byte as it is. Room for the worst case (six
 * bytes per input byte) is made once, then bytes are stored unchecked. */
static void put_string(struct json_buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = s ? strlen(s) : 0;
    char *o;
    if (!grow(b, 6 * n + 2))
        return;
    o = b->p + b->len;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c;
        /* Eight bytes at a time while none of them is escaped: a byte is
         * below 0x20, '"' or '\\' exactly when its lane shows in one of
         * the three has-zero tests (the classic (x - 0x01..) & ~x & 0x80..
         * test; a false hit only sends the word to the byte loop). */
        while (n - i >= 8) {
            uint64_t x, q, bs;
            memcpy(&x, s + i, 8);
            q = x ^ 0x2222222222222222ULL;
            bs = x ^ 0x5c5c5c5c5c5c5c5cULL;
            if (((x - 0x2020202020202020ULL) | (q - 0x0101010101010101ULL) | (bs - 0x0101010101010101ULL)) & ~x &
                0x8080808080808080ULL)
                break;
            memcpy(o, s + i, 8);
            o += 8;
            i += 8;
        }
        if (i >= n)
            break;
        c = (unsigned char)s[i];
        if (!ESCAPED[c]) {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
            break;
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->p);
}

/* put_value's as_cjson: 0 json_write's numbers, 1 cJSON's, SETTLE cJSON's
 * with each number then set to what its text reads back as. */
#define SETTLE 2

static void put_value(struct json_buf *b, const cJSON *it, int depth, int as_cjson)
{
    char num[32];
    if (depth > 1000) {   /* far beyond any document the server builds */
        b->failed = 1;
        return;
    }
    switch (it->type & 0xFF) {
    case cJSON_False: put(b, "false", 5); break;
    case cJSON_True: put(b, "true", 4); break;
    case cJSON_NULL: put(b, "null", 4); break;
    case cJSON_Number:
        if (as_cjson)
            cjson_number(num, it);
        else
            json_write_number(num, it->valuedouble);
        put(b, num, strlen(num));
        if (as_cjson == SETTLE && isfinite(it->valuedouble))
            /* What cJSON_Parse of the text holds (its parse_number is
             * strtod). The tree belongs to json_write_cjson_settle's caller,
             * who passed it as changeable; only this walk sees it as const. */
            cJSON_SetNumberHelper((cJSON *)it, strtod(num, NULL));
        break;
    case cJSON_String: put_string(b, it->valuestring); break;
    case cJSON_Raw:
        if (it->valuestring)
            put(b, it->valuestring, strlen(it->valuestring));
        else
            b->failed = 1;
        break;
    case cJSON_Array:
    case cJSON_Object: {
        int obj = (it->type & 0xFF) == cJSON_Object;
        putc1(b, obj ? '{' : '[');
        for (const cJSON *c = it->child; c; c = c->next) {
            if (obj) {
                put_string(b, c->string);
                putc1(b, ':');
            }
            put_value(b, c, depth + 1, as_cjson);
            if (c->next)
                putc1(b, ',');
        }
        putc1(b, obj ? '}' : ']');
        break;
    }
    default:
        b->failed = 1;
        break;
    }
}

static char *write_doc(const cJSON *doc, size_t *len, int as_cjson)
{
    struct json_buf b = {0};
    if (!doc)
        return NULL;
    put_value(&b, doc, 0, as_cjson);
    if (b.failed || !grow(&b, 0)) {
        free(b.p);
        return NULL;
    }
    b.p[b.len] = '\0';
    if (len)
        *len = b.len;
    return b.p;
}

char *json_write(const cJSON *doc, size_t *len)
{
    return write_doc(doc, len, 0);
}

char *json_write_cjson(const cJSON *doc, size_t *len)
{
    return write_doc(doc, len, 1);
}

char *json_write_cjson_settle(cJSON *doc, size_t *len)
{
    return write_doc(doc, len, SETTLE);
}

/* ------------------------------------------------------------ direct writer
 * jw_*: writes a document member by member without building a tree. An
 * object or array is opened with jw_obj/jw_arr (key NULL inside arrays and
 * for the root) and closed with jw_end; commas come from one flag per open
 * level. Same escaping and numbers as json_write. */

static struct json_buf *jw_buf(struct jw *j)
{
    return &j->b;
}

void jw_init(struct jw *j)
{
    memset(j, 0, sizeof *j);
    j->first[0] = 1;
}

/* The separator and key before a value at the current level. */
static void jw_pre(struct jw *j, const char *key)
{
    struct json_buf *b = jw_buf(j);
    if (!j->first[j->depth])
        putc1(b, ',');
    j->first[j->depth] = 0;
    if (key) {
        put_string(b, key);
        putc1(b, ':');
    }
}

static void jw_open(struct jw *j, const char *key, char c)
{
    jw_pre(j, key);
    putc1(jw_buf(j), c);
    if (j->depth + 1 >= JW_DEPTH_MAX) {
        j->b.failed = 1;
        return;
    }
    j->depth++;
    j->first[j->depth] = 1;
    j->close[j->depth] = c == '{' ? '}' : ']';
}

void jw_obj(struct jw *j, const char *key)
{
    jw_open(j, key, '{');
}

void jw_arr(struct jw *j, const char *key)
{
    jw_open(j, key, '[');
}

void jw_end(struct jw *j)
{
    if (j->depth < 1) {
        j->b.failed = 1;
        return;
    }
    putc1(jw_buf(j), j->close[j->depth]);
    j->depth--;
}

void jw_num(struct jw *j, const char *key, double v)
{
    char num[32];
    jw_pre(j, key);
    json_write_number(num, v);
    put(jw_buf(j), num, strlen(num));
}

void jw_str(struct jw *j, const char *key, const char *s)
{
    jw_pre(j, key);
    put_string(jw_buf(j), s);
}

void jw_bool(struct jw *j, const char *key, int v)
{
    jw_pre(j, key);
    if (v)
        put(jw_buf(j), "true", 4);
    else
        put(jw_buf(j), "false", 5);
}

void jw_null(struct jw *j, const char *key)
{
    jw_pre(j, key);
    put(jw_buf(j), "null", 4);
}

char *jw_finish(struct jw *j, size_t *len)
{
    struct json_buf *b = jw_buf(j);
    if (b->failed || j->depth != 0 || !grow(b, 0)) {
        free(b->p);
        memset(j, 0, sizeof *j);
        return NULL;
    }
    b->p[b->len] = '\0';
    if (len)
        *len = b->len;
    return b->p;
}
