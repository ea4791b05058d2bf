/* json_write.c: compact JSON text, faster than cJSON_PrintUnformatted for
 * number-heavy documents such as planner answers: json_write prints a cJSON
 * tree; jw_* write a document member by member with no tree at all (the plan
 * answers, json_plan.c), which also saves the tree's ~1,500 allocations.
 * A part written again with mostly the same calls (a memo hit's answer)
 * can be recorded (jw_rec, "recorded parts" below): its unchanged calls
 * then copy their recorded bytes instead of formatting them, and a block
 * of calls written from a few values alone (jw_block) is checked with one
 * comparison of those values instead of call by call. A part whose
 * changing values are known by where they are read from (a plan tier) can
 * be kept as a template (jw_tpl, "templates" below): its last text is
 * patched where those values changed, with no call made for the rest.
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
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
    /* the room in front (jw_init_room) moves with the text */
    np = realloc(b->p ? b->p - b->room : NULL, b->room + cap);
    if (!np) {
        b->failed = 1;
        return 0;
    }
    b->p = np + b->room;
    b->cap = cap;
    return 1;
}

/* grow's common case inline: the buffer already has room (a plan answer
 * fits the first allocation), so most writes skip the call. */
static inline int room(struct json_buf *b, size_t need)
{
    return b->len + need + 1 <= b->cap || grow(b, need);
}

static void put(struct json_buf *b, const char *s, size_t n)
{
    if (!room(b, n))
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

/* n bytes, n <= 64, in at most four fixed-size moves (inlined, where
 * memcpy of a small unknown n is a call): two overlapping moves of the
 * largest power of two not above n (or the one byte). */
static inline __attribute__((always_inline)) void copy_small(char *d, const char *s, size_t n)
{
    if (n >= 32) {
        char a[32], c[32];
        memcpy(a, s, 32);
        memcpy(c, s + n - 32, 32);
        memcpy(d, a, 32);
        memcpy(d + n - 32, c, 32);
    } else if (n >= 16) {
        char a[16], c[16];
        memcpy(a, s, 16);
        memcpy(c, s + n - 16, 16);
        memcpy(d, a, 16);
        memcpy(d + n - 16, c, 16);
    } else if (n >= 8) {
        uint64_t a, c;
        memcpy(&a, s, 8);
        memcpy(&c, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &c, 8);
    } else if (n >= 4) {
        uint32_t a, c;
        memcpy(&a, s, 4);
        memcpy(&c, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &c, 4);
    } else if (n >= 2) {
        uint16_t a, c;
        memcpy(&a, s, 2);
        memcpy(&c, s + n - 2, 2);
        memcpy(d, &a, 2);
        memcpy(d + n - 2, &c, 2);
    } else if (n) {
        *d = *s;   /* (a byte loop here is made a memcpy call by the compiler) */
    }
}

/* "00" to "99": two digits a step. */
static const char DIGITS2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

/* Powers of ten, for put_u64's count of digits. */
static const unsigned long long POW10_U64[20] = {1ULL,
                                                 10ULL,
                                                 100ULL,
                                                 1000ULL,
                                                 10000ULL,
                                                 100000ULL,
                                                 1000000ULL,
                                                 10000000ULL,
                                                 100000000ULL,
                                                 1000000000ULL,
                                                 10000000000ULL,
                                                 100000000000ULL,
                                                 1000000000000ULL,
                                                 10000000000000ULL,
                                                 100000000000000ULL,
                                                 1000000000000000ULL,
                                                 10000000000000000ULL,
                                                 100000000000000000ULL,
                                                 1000000000000000000ULL,
                                                 10000000000000000000ULL};

/* The eight digits of v < 10^8, zero-padded, as the bytes of a word
 * (the first digit in its lowest byte: stored as it is on a
 * little-endian machine) in a few multiplications, lanes side by side
 * (SWAR): v's two halves of four digits in 32-bit lanes, each split into
 * its two pairs of digits (x * 10486 >> 20 is x / 100 for x < 10^4) in
 * 16-bit lanes, each pair into its digits (x * 103 >> 10 is x / 10 for
 * x < 100) in bytes; no lane's product reaches the next lane. */
static inline uint64_t digits8(uint32_t v)
{
    uint64_t hi = v / 10000, x = hi | (uint64_t)(v - (uint32_t)hi * 10000) << 32, y, z, t;
    y = (x * 10486 >> 20) & 0x0000007F0000007FULL;
    z = y | (x - y * 100) << 16;
    t = (z * 103 >> 10) & 0x000F000F000F000FULL;
    return (t | (z - t * 10) << 8) | 0x3030303030303030ULL;
}

/* The decimal digits of u at o (no sign, no NUL): their count. Below 10^16
 * (every number the writers print but the rare huge one) from digits8,
 * the leading zeros shifted out; the 8 bytes stored at a time may run up
 * to 16 bytes past o (every caller writes into 32 bytes, with a sign
 * first at most). */
static size_t put_u64(char *o, unsigned long long u)
{
    /* The count from the bit length: b bits hold t = floor(b * log10(2))
     * or t + 1 digits (1233 / 4096 is log10(2) to within 10^-5, exact
     * enough for b <= 64), and one comparison with 10^t tells which; u | 1
     * gives 0 its one digit (10^t is even for t >= 1: the test is the same). */
    unsigned t = (unsigned)(64 - __builtin_clzll(u | 1)) * 1233u >> 12;
    size_t n = (size_t)t + 1 - ((u | 1) < POW10_U64[t]);
    char *p;
    uint32_t v;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n <= 2) {   /* (most counts: a step or two below is less) */
        if (n == 2)
            memcpy(o, &DIGITS2[2 * u], 2);
        else
            *o = (char)('0' + u);
        return n;
    }
    if (n <= 8) {
        uint64_t w = digits8((uint32_t)u) >> (8 * (8 - n));
        memcpy(o, &w, 8);
        return n;
    }
    if (n <= 16) {
        unsigned long long hi = u / 100000000;
        uint64_t w = digits8((uint32_t)hi) >> (8 * (16 - n)), lo = digits8((uint32_t)(u - hi * 100000000));
        memcpy(o, &w, 8);
        memcpy(o + n - 8, &lo, 8);
        return n;
    }
#endif
    p = o + n;
    /* Else from the last digit, two at a time: above 2^32 on 64 bits,
     * below on 32 bits, where dividing by 100 is a cheaper multiplication. */
    while (u > UINT32_MAX) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        p -= 2;
        memcpy(p, &DIGITS2[2 * r], 2);
    }
    v = (uint32_t)u;
    while (v >= 100) {
        uint32_t q = v / 100, r = v - q * 100;
        v = q;
        p -= 2;
        memcpy(p, &DIGITS2[2 * r], 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, &DIGITS2[2 * v], 2);
    } else {
        *--p = (char)('0' + v);
    }
    return n;
}

static const double P10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

#define EXACT_INT_MAX 9007199254740992.0   /* 2^53 */

/* %.Pg (15 <= P <= 17) of a double at least 2^53 and below 2^120: such a
 * double is an integer, held exactly in 128 bits, so the rounding to P
 * digits (to nearest, ties to even, as the C library rounds) and the check
 * that the text reads back as d (reads_back) are done on integers instead of two trips through snprintf and
 * strtod per try. Writes the text of |d| with sign neg; returns 1 when it
 * reads back (or P is 17), 0 to try the next P. test_server_units compares
 * it with snprintf over random doubles of this range. */
__extension__ typedef unsigned __int128 u128;

/* Whether the decimal integer v reads back (round to nearest, ties to
 * even, as strtod does) as the double x, itself an integer from 2^53: v must
 * lie within half an ulp of x, a quarter below a power of two (the double
 * under it is half an ulp away). Exact, where converting v to double is not
 * for every tie (libgcc rounds 10^23 up, strtod down). */
static int reads_back(u128 v, u128 x)
{
    unsigned long long hi = (unsigned long long)(x >> 64);
    /* the top bit of x (not 0: x >= 2^53) */
    int e = hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((unsigned long long)x);
    u128 ulp, diff2, half2;
    int even;
    ulp = (u128)1 << (e - 52);
    even = ((x >> (e - 52)) & 1) == 0;
    if (v >= x) {
        diff2 = 2 * (v - x);
        half2 = ulp;
    } else {
        diff2 = 2 * (x - v);
        half2 = x == (u128)1 << e ? ulp / 2 : ulp;
    }
    return diff2 < half2 || (diff2 == half2 && even);
}

static int big_int_g(char out[32], double d, int p)
{
    u128 x = (u128)fabs(d), q = x, pow10k = 1, v;
    int digits = 0, k, e;
    char tmp[48], *end = tmp + sizeof tmp, *o = out;
    /* x >= 2^53 > 10^15: at least 16 digits, counted on from there
     * (x < 2^120 < 10^37: t never overflows) */
    digits = 15;
    for (u128 t = (u128)1000000000000000ULL; t <= x && digits < 39; t *= 10)
        digits++;
    k = digits > p ? digits - p : 0;
    if (k < 20) {
        pow10k = POW10_U64[k];
    } else {
        for (int i = 0; i < k; i++)
            pow10k *= 10;
    }
    if (k > 0) {
        u128 r;
        q = x / pow10k;
        r = x % pow10k;
        if (2 * r > pow10k || (2 * r == pow10k && (q & 1)))
            q++;
    }
    e = digits - 1;
    {
        u128 top = POW10_U64[p];   /* p <= 17 */
        if (k > 0 && q == top) {   /* 9.99..5 carried into a new digit */
            q /= 10;
            k++;
            pow10k *= 10;
            e++;
        }
    }
    v = q * pow10k;   /* the decimal the text denotes: below 2^121, no overflow */
    /* The digits of q, most significant first: q < 10^p fits 64 bits. */
    {
        char *s = tmp;
        end = tmp + put_u64(tmp, (unsigned long long)q);
        if (d < 0)
            *o++ = '-';
        if (e < p) {
            /* %f form: the integer q * 10^k, no fraction left to print */
            memcpy(o, s, (size_t)(end - s));
            o += end - s;
            for (int i = 0; i < k; i++)
                *o++ = '0';
        } else {
            /* d.ddd with trailing zeros dropped, then e+XX */
            char *last = end;
            while (last - 1 > s && last[-1] == '0')
                last--;
            *o++ = *s;
            if (last - s > 1) {
                *o++ = '.';
                memcpy(o, s + 1, (size_t)(last - s - 1));
                o += last - s - 1;
            }
            *o++ = 'e';
            *o++ = '+';
            *o++ = (char)('0' + e / 10);   /* e <= 36 below 2^120 */
            *o++ = (char)('0' + e % 10);
        }
        *o = '\0';
    }
    return p == 17 || reads_back(v, x);
}

/* x rounded to the nearest integer, ties to even (nearbyint in the default
 * rounding mode), for 0 <= x < 2^53: adding and taking away 2^52 leaves
 * exactly that when doubles are evaluated as doubles (SSE), without a call
 * per decimal tried. */
static inline double round_even(double x)
{
#if FLT_EVAL_METHOD == 0
    volatile double big = 0x1p52;   /* kept apart so no compiler folds x + 2^52 - 2^52 */
    return x < 0x1p52 ? (x + big) - big : x;
#else
    return nearbyint(x);
#endif
}

/* json_write_number's text of d into out (32 bytes): its length. */
static size_t number_text(char out[32], double d)
{
    double a = fabs(d);
    size_t n;
    if (!isfinite(d)) {
        memcpy(out, "null", 5);
        return 4;
    }
    if (a < EXACT_INT_MAX && (double)(long long)d == d) {
        n = d < 0;
        out[0] = '-';
        n += put_u64(out + n, (unsigned long long)a);
        out[n] = '\0';
        return n;
    }
    for (int k = 1; k <= 9; k++) {
        double v = a * P10[k];
        if (v >= EXACT_INT_MAX)
            break;
        double r = round_even(v);
        if (r / P10[k] == a) {
            /* r / 10^k: the integer part, a point, then k decimals zero-padded */
            unsigned long long u = (unsigned long long)r, p10 = (unsigned long long)P10[k], frac;
            n = d < 0;
            out[0] = '-';
            n += put_u64(out + n, u / p10);
            out[n++] = '.';
            frac = u % p10;
            for (int i = k - 1; i >= 0; i--) {
                out[n + (size_t)i] = (char)('0' + frac % 10);
                frac /= 10;
            }
            n += (size_t)k;
            out[n] = '\0';
            return n;
        }
    }
    if (a >= EXACT_INT_MAX && a < 0x1p120) {
        for (int prec = 15; prec <= 17; prec++)
            if (big_int_g(out, d, prec))
                return strlen(out);
    }
    for (int prec = 15; prec <= 17; prec++) {
        int m = snprintf(out, 32, "%.*g", prec, d);
        if (m > 0 && m < 32 && (prec == 17 || strtod(out, NULL) == d))
            return (size_t)m;
    }
    memcpy(out, "null", 5);   /* not reached: %.17g always fits and reads back */
    return 4;
}

void json_write_number(char out[32], double d)
{
    number_text(out, d);
}

/* number_text's text of d, found directly when d is a multiple of 10^-dec
 * (1 <= dec <= 9; the writers round most numbers to a few decimals and say
 * to how many), without trying each count of decimals from one. For any d:
 * r = |d| * 10^dec rounded, below 2^50, with r / 10^dec == |d| exactly,
 * makes |d| the double of the decimal r / 10^dec; with r's trailing zeros
 * dropped (r' / 10^k), number_text's loop finds exactly that k and no
 * smaller one: |d| * 10^k is within a quarter of r' (r' < 2^50, two
 * roundings of at most 2^-53 each), and a decimal with fewer decimals
 * would differ from r' / 10^k by at least 10^-k, more than an ulp of |d|
 * (below 2^50 / 10^k), so it could not round to the same double. For
 * k == 0 d is a whole number (number_text's first form). Any other d goes
 * to number_text. test_server_units compares the two over random doubles. */
static size_t number_text_dec(char out[32], double d, int dec)
{
    double a = fabs(d), sc, r;
    if (dec == 0 && a < EXACT_INT_MAX && (double)(long long)d == d) {
        /* number_text's first form, without the call (NaN fails a <) */
        size_t n = d < 0;
        out[0] = '-';
        n += put_u64(out + n, (unsigned long long)a);
        out[n] = '\0';
        return n;
    }
    if (dec >= 1 && dec <= 9 && (sc = a * P10[dec]) < 0x1p50) {   /* false for NaN */
        r = round_even(sc);
        if (r / P10[dec] == a) {
            /* u's digits written once, its trailing zeros (up to dec of
             * them) dropped from the text, then the point put in before
             * the last k, or "0." and zeros before them all: the text of
             * u / 10^k without dividing (u < 2^50: at most 16 digits, and
             * the moves below stay within out's 32 bytes). */
            unsigned long long u = (unsigned long long)r;
            size_t n = d < 0, dn;
            int k = dec;
            char *o;
            out[0] = '-';
            o = out + n;
            if (u == 0) {
                o[0] = '0';
                o[1] = '\0';
                return n + 1;
            }
            dn = put_u64(o, u);
            while (k > 0 && o[dn - 1] == '0') {   /* u > 0: a digit other than 0 stays */
                dn--;
                k--;
            }
            if (k == 0) {
                n += dn;
            } else if (dn > (size_t)k) {
                char t[8];
                /* the last k digits one place on (k <= 8 here: a 9th is a word more) */
                if (k <= 8) {
                    memcpy(t, o + dn - (size_t)k, 8);
                    o[dn - (size_t)k] = '.';
                    memcpy(o + dn - (size_t)k + 1, t, 8);
                } else {
                    memmove(o + dn - (size_t)k + 1, o + dn - (size_t)k, (size_t)k);
                    o[dn - (size_t)k] = '.';
                }
                n += dn + 1;
            } else {
                char t[16];
                size_t z = (size_t)k - dn;   /* zeros between the point and the digits */
                memcpy(t, o, 16);
                o[0] = '0';
                o[1] = '.';
                memset(o + 2, '0', 8);   /* z <= 8 (dn >= 1, k <= 9) */
                memcpy(o + 2 + z, t, 16);
                n += 2 + (size_t)k;
            }
            out[n] = '\0';
            return n;
        }
    }
    return number_text(out, d);
}

void json_write_number_dec(char out[32], double d, int dec)
{
    number_text_dec(out, d, dec);
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

/* One escaped byte c (ESCAPED[c]) as cJSON writes it, at o: past its end. */
static inline char *put_escaped(char *o, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
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
    return o;
}

/* Whether any byte of the word w (of 8, or of 4 in its low half with the
 * high half clean) is escaped: below 0x20, '"' or '\\' shows in one of
 * the three has-zero tests (the classic (x - 0x01..) & ~x & 0x80.. test;
 * a false hit only sends the bytes to the byte loop). */
static inline int word_escapes(uint64_t x)
{
    uint64_t q = x ^ 0x2222222222222222ULL, bs = x ^ 0x5c5c5c5c5c5c5c5cULL;
    return (((x - 0x2020202020202020ULL) | (q - 0x0101010101010101ULL) | (bs - 0x0101010101010101ULL)) & ~x &
            0x8080808080808080ULL) != 0;
}

/* The n bytes of s (n = strlen(s)) as a JSON string, escaped as cJSON
 * escapes them: quote, backslash and the control characters; every other
 * byte as it is. Room for the worst case (six bytes per input byte) is
 * made once, then bytes are stored unchecked. A string of 16 bytes or
 * more goes 16 at a time, its last 16 read once more from its end (a
 * load that stays within the string) so that a clean tail is copied
 * whole (SSE2, in every x86-64; without it such a string goes a byte at
 * a time); a shorter one is checked in two overlapping words (of 8, or of
 * 4) and copied whole when clean. Only bytes around an escaped one go one
 * at a time. */
static void put_string_n(struct json_buf *b, const char *s, size_t n)
{
    size_t i = 0;
    char *o;
    if (!room(b, 6 * n + 2))
        return;
    o = b->p + b->len;
    *o++ = '"';
#ifdef __SSE2__
    if (n >= 16) {
        /* a byte is escaped when it is at most 0x1f (max(x, 0x1f) ==
         * 0x1f, unsigned), '"' or '\\' */
#define ESC_MASK(x)                                                                                                    \
    (unsigned)_mm_movemask_epi8(_mm_or_si128(                                                                          \
        _mm_cmpeq_epi8(_mm_max_epu8((x), _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f)),                                   \
        _mm_or_si128(_mm_cmpeq_epi8((x), _mm_set1_epi8('"')), _mm_cmpeq_epi8((x), _mm_set1_epi8('\\')))))
        while (n - i >= 16) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            unsigned mask = ESC_MASK(x);
            /* all 16 stored; past an escaped byte they are overwritten */
            _mm_storeu_si128((__m128i *)(void *)o, x);
            if (mask) {
                unsigned clean = (unsigned)__builtin_ctz(mask);
                o = put_escaped(o + clean, (unsigned char)s[i + clean]);
                i += clean + 1;
                continue;
            }
            o += 16;
            i += 16;
        }
        if (i < n) {
            /* the last 16 bytes: those not yet written are clean when
             * the mask has none of theirs */
            const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
            if ((ESC_MASK(x) >> (16 - (n - i))) == 0) {
                copy_small(o, s + i, n - i);
                o += n - i;
                i = n;
            }
        }
#undef ESC_MASK
    } else
#endif
    if (n >= 8 && n <= 16) {
        uint64_t x, y;
        memcpy(&x, s, 8);
        memcpy(&y, s + n - 8, 8);
        if (!word_escapes(x) && !word_escapes(y)) {
            memcpy(o, &x, 8);
            memcpy(o + n - 8, &y, 8);
            o += n;
            i = n;
        }
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        /* the high half: four clean bytes ('a') */
        if (!word_escapes(x | 0x6161616100000000ULL) && !word_escapes(y | 0x6161616100000000ULL)) {
            memcpy(o, &x, 4);
            memcpy(o + n - 4, &y, 4);
            o += n;
            i = n;
        }
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!ESCAPED[c])
            *o++ = (char)c;
        else
            o = put_escaped(o, c);
    }
    *o++ = '"';
    b->len = (size_t)(o - b->p);
}

/* put_string_n of a NUL-terminated string (NULL: the empty one): its
 * length. */
static size_t put_string(struct json_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_string_n(b, s ? s : "", n);
    return n;
}

/* put_string of a string held in an array of cap bytes, which may all be
 * read: its end is found in the same pass as the bytes to escape (a NUL is
 * one of them), 16 at a time, so no strlen goes first. A string without
 * its NUL within the array ends at cap. Its length. */
static size_t put_string_in(struct json_buf *b, const char *s, size_t cap)
{
#ifdef __SSE2__
    size_t i = 0;
    char *o;
    if (!room(b, 6 * cap + 2))
        return 0;
    o = b->p + b->len;
    *o++ = '"';
#define ESC_MASK(x)                                                                                                    \
    (unsigned)_mm_movemask_epi8(_mm_or_si128(                                                                          \
        _mm_cmpeq_epi8(_mm_max_epu8((x), _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f)),                                   \
        _mm_or_si128(_mm_cmpeq_epi8((x), _mm_set1_epi8('"')), _mm_cmpeq_epi8((x), _mm_set1_epi8('\\')))))
    for (;;) {
        unsigned mask, at;
        if (cap - i >= 16) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            mask = ESC_MASK(x);
            _mm_storeu_si128((__m128i *)(void *)o, x);   /* past a flagged byte overwritten */
            if (!mask) {
                o += 16;
                i += 16;
                continue;
            }
            at = (unsigned)__builtin_ctz(mask);
        } else if (cap >= 16 && i < cap) {
            /* the array's last bytes, read from its end: those from i on */
            const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + cap - 16));
            mask = ESC_MASK(x) >> (16 - (cap - i));
            at = mask ? (unsigned)__builtin_ctz(mask) : (unsigned)(cap - i);
            copy_small(o, s + i, at);
        } else {   /* an array below 16 bytes: one at a time */
            at = 0;
            while (i + at < cap && !ESCAPED[(unsigned char)s[i + at]]) {
                o[at] = s[i + at];
                at++;
            }
        }
        o += at;
        i += at;
        if (i >= cap || s[i] == '\0')
            break;
        o = put_escaped(o, (unsigned char)s[i]);
        i++;
    }
#undef ESC_MASK
    *o++ = '"';
    b->len = (size_t)(o - b->p);
    return i;
#else
    size_t n = strnlen(s, cap);
    put_string_n(b, s, n);
    return n;
#endif
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
        if (as_cjson) {
            cjson_number(num, it);
            put(b, num, strlen(num));
        } else {
            put(b, num, number_text(num, it->valuedouble));
        }
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

void jw_init_cap(struct jw *j, size_t cap)
{
    jw_init_room(j, 0, cap);
}

void jw_init_room(struct jw *j, size_t room, size_t cap)
{
    char *p;
    jw_init(j);
    j->b.room = room;
    if (cap > 0 && (p = malloc(room + cap)) != NULL) {
        j->b.p = p + room;
        j->b.cap = cap;
    }
}

#ifndef NDEBUG
/* Whether a key needs no escaping (the assertion below). */
static int key_plain(const char *key, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ESCAPED[(unsigned char)key[i]])
            return 0;
    return 1;
}
#endif

/* The separator and key before a value at the current level. Keys are the
 * writers' own literal names ("days", "bom_total_usd"; never request
 * data), so there is nothing to escape: they are copied with the
 * separator, quotes and colon around them, and debug builds (the sanitizer
 * runs of the test suite) assert it. A plan answer has ~900 keys, and
 * sending each through put_string (length, worst-case room, escape scan)
 * cost more than the copying. */
static inline __attribute__((always_inline)) void jw_pre(struct jw *j, const char *key, size_t n)
{
    struct json_buf *b = jw_buf(j);
    int comma = !j->first[j->depth];
    char *o;

    j->first[j->depth] = 0;
    j->wrote++;
    if (!key) {
        if (comma)
            putc1(b, ',');
        return;
    }
    assert(key_plain(key, n));
    if (!room(b, n + 4))
        return;
    o = b->p + b->len;
    if (comma)
        *o++ = ',';
    *o++ = '"';
    if (n <= 64)   /* (every key the writers have) */
        copy_small(o, key, n);
    else
        memcpy(o, key, n);
    o += n;
    *o++ = '"';
    *o++ = ':';
    b->len = (size_t)(o - b->p);
}

/* ---- recorded parts
 * A memo-hit answer (POST /api/v1/recommend with new tokens for a model
 * asked before) is written with the same calls as the answer before it,
 * nearly all with the same keys and values: of ~1,100 members some 60
 * change (days, costs and the texts that cite them). A recording keeps,
 * for each call of a part, its kind, key and value and the bytes it
 * wrote, and the part's text. When the part is written again, a call of
 * the recorded kind at the same place finds the writer in the recorded
 * state (levels and comma flags follow from the kinds of the calls alone,
 * and the part starts at the recorded level and flag); when its key and
 * value are the recorded ones as well, the bytes it would write are the
 * recorded bytes, and those are copied, a run at a time, instead of
 * formatted again. Any other call is written as usual and its entry
 * replaced; a call of another kind ends the replay for the rest of the
 * part, whose entries are then written afresh. So nothing here knows which
 * values vary: a changed value is written anew. Keys compare by address
 * (the writers' literals), numbers by their bits, strings by content;
 * spliced text (jw_raw_members) is always copied from the caller. */

#ifndef NDEBUG
int jw_rec_key_is(const struct jw *j, const struct jw_ent *e, const char *key, size_t klen)
{
    const char *t = j->rec->text + e->at;
    size_t n = e->out;
    if (n && *t == ',') {
        t++;
        n--;
    }
    return n >= klen + 2 && t[0] == '"' && memcmp(t + 1, key, klen) == 0 && t[klen + 1] == '"';
}
#endif

/* The entries and the recording (struct jw_ent, struct jw_rec) are in
 * server_int.h, with the inline check of a call against its entry. The
 * bytes of the entries lie in text in the order they were last
 * written: a call written again appends its new bytes, so that unchanged
 * neighbours stay one run to copy and the part's text is not copied over
 * on every writing; when the stale bytes outgrow the part, jw_rec_end
 * copies its text over once, in order (a few times a hundred answers). */

struct jw_rec *jw_rec_new(void)
{
    return calloc(1, sizeof(struct jw_rec));
}

void jw_rec_free(struct jw_rec *r)
{
    if (!r)
        return;
    free(r->keys);
    free(r->e);
    free(r->text);
    free(r);
}

void jw_rec_stats(const struct jw_rec *r, unsigned long long *taken, unsigned long long *written)
{
    *taken = r ? r->taken : 0;
    *written = r ? r->written : 0;
}

void jw_rec_begin(struct jw *j, struct jw_rec *r)
{
    if (!r || j->rec)
        return;
    if (r->open || r->depth0 != j->depth || r->first0 != j->first[j->depth])
        r->n = 0;   /* no replay: the first call would not find the recorded state */
    if (r->n == 0)
        r->len = r->kused = r->kpacked = 0;   /* no entry refers to their bytes */
    r->open = 1;
    r->broken = 0;
    r->depth0 = j->depth;
    r->first0 = j->first[j->depth];
    j->rec = r;
    j->cur = r->e;
    j->end = r->n > 0 ? r->e + r->n : r->e;   /* (no offset on a NULL r->e) */
    j->ks = r->keys;
    j->depth0 = j->depth;
    j->run_from = j->run_end = 0;
    j->taken = 0;
    j->start = j->b.len;
}

/* The recorded bytes taken since the last copy, into the text. */
static void rec_flush(struct jw *j)
{
    if (j->run_end > j->run_from) {
        put(&j->b, j->rec->text + j->run_from, j->run_end - j->run_from);
        j->run_from = j->run_end;
    }
}

/* The recorded call at the replay point when it is of this kind (then the
 * writer is in the state it was in when that call was written), else NULL. */
static inline struct jw_ent *rec_peek(struct jw *j, int kind)
{
    if (j->cur >= j->end || (j->cur->kk & 15) != (uint64_t)kind)
        return NULL;
    return j->cur;
}

/* The call is the recorded one: its recorded bytes join the run to copy. */
static inline void rec_take(struct jw *j, struct jw_ent *e)
{
    if (j->run_end != e->at) {
        rec_flush(j);
        j->run_from = j->run_end = e->at;
    }
    j->run_end += e->out;
    j->cur = e + 1;
    j->taken++;
}

void jw_rec_take_far(struct jw *j, struct jw_ent *e)
{
    rec_take(j, e);
    j->first[j->depth] = 0;
}

static void rec_lose(struct jw *j)
{
    j->rec->broken = 1;
    j->end = j->cur;
}

static int rec_grow(struct jw_rec *r)
{
    int cap = r->cap ? 2 * r->cap : 256;
    struct jw_ent *e = realloc(r->e, sizeof *e * (size_t)cap);
    if (!e)
        return 0;
    memset(e + r->cap, 0, sizeof *e * (size_t)(cap - r->cap));
    r->e = e;
    r->cap = cap;
    return 1;
}

/* A buffer of a recording (text, keys) with room for need more bytes
 * after used: 0 when it cannot have it (memory, or JW_REC_MAX, which keeps
 * the entries' 32-bit offsets in range). */
#define COLD_EARLY __attribute__((noinline, cold))
static COLD_EARLY int rec_room_grow(char **buf, size_t *cap, size_t used, size_t need, size_t first)
{
    size_t c = *cap ? *cap : first;
    char *p;
    while (c < used + need)
        c *= 2;
    if (c > JW_REC_MAX || !(p = realloc(*buf, c)))
        return 0;
    *buf = p;
    *cap = c;
    return 1;
}

/* (the common case, room already there, inline) */
static inline int rec_room(char **buf, size_t *cap, size_t used, size_t need, size_t first)
{
    return used + need <= *cap || rec_room_grow(buf, cap, used, need, first);
}

/* A call was written (from mark on): its entry replaces the recorded one
 * at the replay point when that is of the same kind (the replay goes on
 * after it), else the recording ends here and this entry follows. */
/* rec_note's way out when memory ran out: the recording ends before e,
 * whose text it could not keep. */
static COLD_EARLY void rec_note_lose(struct jw *j, struct jw_ent *e)
{
    j->rec->n = (int)(e - j->rec->e);
    rec_lose(j);
}

static void rec_note(struct jw *j, int kind, const char *key, size_t klen, uint64_t bits, const char *s, size_t slen,
                     size_t mark)
{
    struct jw_rec *r = j->rec;
    struct jw_ent *e;
    size_t out;
    int same = 0;
    if (r->broken)
        return;
    if (j->cur < j->end && (j->cur->kk & 15) == (uint64_t)kind) {
        e = j->cur;
        same = 1;   /* a recorded entry of this kind: its string's bytes are its own */
    } else {
        int ri = j->cur ? (int)(j->cur - r->e) : 0;   /* cur is NULL only while r->e is */
        j->end = j->cur;   /* the replay ends here */
        if (ri >= r->cap && !rec_grow(r)) {
            rec_lose(j);
            return;
        }
        e = &r->e[ri];   /* r->e may have moved: the replay point and its end with it */
        j->cur = j->end = e;
        r->n = ri + 1;
    }
    e->kk = JW_KK(kind, klen);
    e->key = key;
    e->bits = bits;
    out = j->b.len - mark;
    if (kind != JW_K_RAW0 && kind != JW_K_RAW1 && out > 0) {   /* a splice is never taken: not kept */
        if (!rec_room(&r->text, &r->tcap, r->len, out, 32768)) {
            rec_note_lose(j, e);
            return;
        }
        if (out <= 64)   /* most calls' bytes: inline moves, not a call */
            copy_small(r->text + r->len, j->b.p + mark, out);
        else
            memcpy(r->text + r->len, j->b.p + mark, out);
    }
    e->at = (uint32_t)r->len;
    e->out = (uint32_t)out;
    if (kind != JW_K_RAW0 && kind != JW_K_RAW1)
        r->len += out;
    if (kind == JW_K_STR || kind == JW_K_BLOCK) {
        size_t n = kind == JW_K_BLOCK ? klen : slen;
        /* over its old bytes when it fits there (a text that changes often
         * changes its length by a few bytes, up and down), else appended */
        if (!same || n > e->slen) {
            if (!rec_room(&r->keys, &r->kcap, r->kused, n + 1, 4096)) {
                rec_note_lose(j, e);   /* this entry has no text to compare with */
                return;
            }
            e->sat = (uint32_t)r->kused;
            r->kused += n + 1;
            j->ks = r->keys;
        }
        if (n <= 64)   /* a block's key bytes, or a string */
            copy_small(r->keys + e->sat, s, n);
        else
            memcpy(r->keys + e->sat, s, n);
        r->keys[e->sat + n] = '\0';
        e->slen = (uint32_t)n;
    }
    j->cur = e + 1;   /* after a divergence end stays at e: no replay */
    r->written++;
}

/* Before a call is written while recording: the run taken so far goes
 * first; the call's bytes start at the returned offset. */
static inline size_t rec_mark(struct jw *j)
{
    rec_flush(j);
    return j->b.len;
}

/* The entries' strings packed again in their order (stale bytes out, and
 * the order of the calls back where changed ones were appended). Left as
 * they are when memory runs out. */
static void rec_pack_keys(struct jw_rec *r)
{
    char *p = malloc(r->kcap);
    size_t at = 0;
    if (!p)
        return;
    for (int i = 0; i < r->n; i++) {
        struct jw_ent *e = &r->e[i];
        uint64_t kind = e->kk & 15;
        if (kind != JW_K_STR && kind != JW_K_BLOCK)
            continue;
        memcpy(p + at, r->keys + e->sat, (size_t)e->slen + 1);
        e->sat = (uint32_t)at;
        at += (size_t)e->slen + 1;
    }
    free(r->keys);
    r->keys = p;
    r->kused = r->kpacked = at;
}

void jw_rec_end(struct jw *j)
{
    struct jw_rec *r = j->rec;
    size_t len, at = 0;
    if (!r)
        return;
    rec_flush(j);
    r->taken += j->taken;
    j->rec = NULL;
    r->open = 0;
    if (!r->broken)
        r->n = j->cur ? (int)(j->cur - r->e) : 0;   /* a part with fewer calls than recorded ends here */
    j->cur = j->end = NULL;
    if (r->broken || j->b.failed || j->depth != r->depth0 || j->b.len - j->start > JW_REC_MAX) {
        r->n = 0;
        r->len = r->kused = r->kpacked = 0;
        return;
    }
    if (r->kused > 2 * r->kpacked + 4096)
        rec_pack_keys(r);
    len = j->b.len - j->start;
    if (r->len <= 2 * len + 4096)
        return;
    /* Mostly stale bytes: the part's text, in order, replaces them. Every
     * byte of the part was written by one call, in call order (spliced
     * text too), so each entry's bytes start where the one before ends. */
    if (len > r->tcap) {
        char *p = realloc(r->text, len);
        if (!p) {
            r->n = 0;
            r->len = 0;
            return;
        }
        r->text = p;
        r->tcap = len;
    }
    memcpy(r->text, j->b.p + j->start, len);
    for (int i = 0; i < r->n; i++) {
        struct jw_ent *e = &r->e[i];
        e->at = (uint32_t)at;
        at += e->out;
    }
    r->len = len;
}

/* A block not taken (jw_block): its calls are written with the recording
 * set aside (neither replayed nor noted), then noted as one entry. */
static int block_miss(struct jw *j, const char *site, const void *key, size_t klen, uint64_t kk, int keep)
{
    if (j->blk_level++ > 0 || !j->rec || j->rec->broken || !keep)
        return 0;   /* nested, or nothing to record in: written plainly */
    j->blk_mark = rec_mark(j);
    j->blk_site = site;
    j->blk_key = key;
    j->blk_klen = klen;
    j->blk_kk = kk;
    j->blk_depth = j->depth;
    j->blk_rec = j->rec;
    j->blk_cur = j->cur;
    j->blk_end = j->end;
    j->blk_wrote = j->wrote;
    j->rec = NULL;
    j->end = j->cur;   /* cur < end is false: no call inside is taken */
    return 0;
}

int jw_block_miss(struct jw *j, const char *site, const void *key, size_t klen)
{
    return block_miss(j, site, key, klen, JW_KK(JW_K_BLOCK, klen), 1);
}

/* The key: the fixed bytes and the string up to its NUL; a string that
 * fills its array without one is written plainly, never kept. */
int jw_block_miss_str(struct jw *j, const char *site, const void *key, size_t fixed, size_t cap)
{
    size_t n = fixed < cap ? strnlen((const char *)key + fixed, cap - fixed) : 0;
    int ends = fixed < cap && fixed + n < cap;
    return block_miss(j, site, key, fixed + n + 1, JW_KK(JW_K_BLOCK, fixed) | JW_BLOCK_STR, ends);
}

void jw_block_end(struct jw *j)
{
    if (j->blk_level <= 0 || --j->blk_level > 0 || !j->blk_rec)
        return;
    j->rec = j->blk_rec;
    j->cur = j->blk_cur;
    j->end = j->blk_end;
    j->blk_rec = NULL;
    /* A block that wrote nothing would be taken as one that wrote a member
     * (its comma flag), one that left a level open would leave the replay's
     * levels wrong: neither is kept. */
    if (j->b.failed || j->depth != j->blk_depth || j->b.len == j->blk_mark) {
        rec_lose(j);
        return;
    }
    /* bits: the calls the block holds (counted as taken when it is) */
    rec_note(j, JW_K_BLOCK, j->blk_site, j->blk_klen, j->wrote - j->blk_wrote, j->blk_key, 0, j->blk_mark);
    /* the entry just noted (rec_note leaves it before cur) carries the
     * block's own kk: its fixed length, and the string flag */
    if (!j->rec->broken && j->cur && j->cur > j->rec->e)
        j->cur[-1].kk = j->blk_kk;
}

/* Opening a level: the state change alone (jw_open writes the bytes). */
static void jw_level(struct jw *j, char c)
{
    if (j->depth + 1 >= JW_DEPTH_MAX) {
        j->b.failed = 1;
        return;
    }
    j->depth++;
    j->first[j->depth] = 1;
    j->close[j->depth] = c == '{' ? '}' : ']';
}

/* Each call below first asks the recording (when there is one) whether
 * its bytes are the recorded ones, on a path kept short (the copy of a
 * memo hit's answer makes ~1,000 such calls); writing, and noting what was
 * written, is in the *_write functions, kept out of line. */
#define COLD __attribute__((noinline))

/* Whether the call at the replay point is this kind with this key and
 * value bits: then its recorded bytes are taken. */
static inline int rec_same(struct jw *j, int kind, const char *key, size_t klen, uint64_t bits)
{
    struct jw_ent *e;
    if (!j->rec || !(e = rec_peek(j, kind)) || e->key != key || e->kk != JW_KK(kind, klen) || e->bits != bits)
        return 0;
    rec_take(j, e);
    return 1;
}

static COLD void jw_open_write(struct jw *j, const char *key, size_t klen, char c, int kind)
{
    size_t mark = j->rec ? rec_mark(j) : 0;
    jw_pre(j, key, klen);
    putc1(jw_buf(j), c);
    if (j->rec)
        rec_note(j, kind, key, klen, 0, NULL, 0, mark);
    jw_level(j, c);
}

void jw_open_k(struct jw *j, int kind, const char *key, size_t klen)
{
    char c = kind == JW_K_OBJ ? '{' : '[';
    if (rec_same(j, kind, key, klen, 0)) {
        j->first[j->depth] = 0;
        jw_level(j, c);
        return;
    }
    jw_open_write(j, key, klen, c, kind);
}

static COLD void jw_end_write(struct jw *j)
{
    size_t mark = 0;
    if (j->depth < 1) {
        j->b.failed = 1;
        return;
    }
    if (j->rec)
        mark = rec_mark(j);
    j->wrote++;
    putc1(jw_buf(j), j->close[j->depth]);
    if (j->rec)
        rec_note(j, JW_K_END, NULL, 0, 0, NULL, 0, mark);
    j->depth--;
}

void jw_close(struct jw *j)
{
    if (j->rec && j->depth <= j->depth0)
        rec_lose(j);   /* closes a level opened before the part */
    if (j->depth >= 1 && rec_same(j, JW_K_END, NULL, 0, 0)) {
        j->depth--;
        return;
    }
    jw_end_write(j);
}

static COLD void jw_num_write(struct jw *j, const char *key, size_t klen, double v, uint64_t bits, int dec)
{
    struct json_buf *b = jw_buf(j);
    size_t mark = j->rec ? rec_mark(j) : 0;
    jw_pre(j, key, klen);
    /* Straight into the text: the buffer has the 32 bytes it may take. */
    if (room(b, 32))
        b->len += number_text_dec(b->p + b->len, v, dec);
    if (j->rec)
        rec_note(j, JW_K_NUM, key, klen, bits, NULL, 0, mark);
}

/* A number whose recorded call (e: same place, kind and key) had another
 * value, the common miss of a memo hit's answer (~60 an answer): written
 * and noted in one step, what jw_num_write and rec_note do for this case
 * (the entry keeps its place; its bytes are appended to the text). 0,
 * having done nothing, when either buffer would have to grow: then the
 * general path does it all. Inlined into its three callers: the renote of
 * a changed number is the writer's most frequent write on a memo hit, and
 * as a call of its own it cost as much again as its number. The run taken
 * so far is copied here too, with the room for it checked at once. */
static inline __attribute__((always_inline)) int jw_num_renote(struct jw *j, struct jw_ent *e, const char *key,
                                                               size_t klen, double v, uint64_t bits, int dec)
{
    struct jw_rec *r = j->rec;
    struct json_buf *b = jw_buf(j);
    size_t need = klen + 4 + 32, run = j->run_end - j->run_from, n;
    char *o, *at;
    if (b->failed || klen > 28 || b->len + run + need + 1 > b->cap || r->len + need > r->tcap)
        return 0;
    o = b->p + b->len;
    if (run) {
        memcpy(o, r->text + j->run_from, run);
        o += run;
        j->run_from = j->run_end;
    }
    at = o;
    if (!j->first[j->depth])
        *o++ = ',';
    j->first[j->depth] = 0;
    if (key) {
        assert(key_plain(key, klen));
        *o++ = '"';
        copy_small(o, key, klen);
        o += klen;
        *o++ = '"';
        *o++ = ':';
    }
    o += number_text_dec(o, v, dec);
    n = (size_t)(o - at);   /* at most 1 + 28 + 3 + 31 */
    copy_small(r->text + r->len, at, n);
    b->len = (size_t)(o - b->p);
    e->bits = bits;
    e->at = (uint32_t)r->len;
    e->out = (uint32_t)n;
    r->len += n;
    j->cur = e + 1;
    r->written++;
    return 1;
}

void jw_num_k(struct jw *j, const char *key, size_t klen, double v)
{
    uint64_t bits;
    struct jw_ent *e;
    memcpy(&bits, &v, sizeof bits);
    if (rec_same(j, JW_K_NUM, key, klen, bits)) {
        j->first[j->depth] = 0;
        return;
    }
    if ((e = jw_rec_at(j, JW_K_NUM, key, klen)) != NULL && jw_num_renote(j, e, key, klen, v, bits, 0))
        return;
    jw_num_write(j, key, klen, v, bits, 0);
}

void jw_num_at(struct jw *j, struct jw_ent *e, const char *key, size_t klen, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (e->bits == bits) {
        rec_take(j, e);
        j->first[j->depth] = 0;
    } else if (!jw_num_renote(j, e, key, klen, v, bits, 0)) {
        jw_num_write(j, key, klen, v, bits, 0);
    }
}

static COLD void jw_num_tagged_write(struct jw *j, const char *key, size_t klen, uint64_t kk, uint64_t raw, double v,
                                     uint64_t bits, int dec)
{
    struct jw_ent *e;
    jw_num_write(j, key, klen, v, bits, dec);
    /* rec_note left the entry it wrote just before cur (unless nothing is
     * recorded); it carries the tag and x from now on */
    if (j->rec && !j->rec->broken && j->cur && j->cur > j->rec->e) {
        e = j->cur - 1;
        e->kk = kk;
        e->raw = raw;
    }
}

void jw_num_tagged(struct jw *j, const char *key, size_t klen, uint64_t kk, double x, double v, int dec)
{
    struct jw_ent *e = j->cur;
    uint64_t bits, raw;
    memcpy(&bits, &v, sizeof bits);
    memcpy(&raw, &x, sizeof raw);
    if (j->rec && e < j->end && e->kk == kk && e->key == key) {
        /* the same call with another x: its bytes are f(x)'s when f(x) is
         * the recorded value (bits), else written anew in place */
        assert(!key || jw_rec_key_is(j, e, key, klen));
        if (e->bits == bits) {
            e->raw = raw;
            rec_take(j, e);
            j->first[j->depth] = 0;
            return;
        }
        if (jw_num_renote(j, e, key, klen, v, bits, dec)) {
            e->raw = raw;
            return;
        }
    }
    jw_num_tagged_write(j, key, klen, kk, raw, v, bits, dec);
}

static COLD void jw_str_write(struct jw *j, const char *key, size_t klen, const char *s)
{
    size_t mark = j->rec ? rec_mark(j) : 0, n;
    jw_pre(j, key, klen);
    n = put_string(jw_buf(j), s);
    if (j->rec)
        rec_note(j, JW_K_STR, key, klen, 0, s, n, mark);
}

/* jw_str_write of a string in an array of cap bytes (jw_str_in) */
static COLD void jw_str_write_in(struct jw *j, const char *key, size_t klen, const char *s, size_t cap)
{
    size_t mark = j->rec ? rec_mark(j) : 0, n;
    jw_pre(j, key, klen);
    n = put_string_in(jw_buf(j), s, cap);
    if (j->rec)
        rec_note(j, JW_K_STR, key, klen, 0, s, n, mark);
}

void jw_str_in_k(struct jw *j, const char *key, size_t klen, const char *s, size_t cap)
{
    jw_str_write_in(j, key, klen, s, cap);
}

void jw_str_k(struct jw *j, const char *key, size_t klen, const char *s)
{
    struct jw_ent *e;
    if (j->rec && (e = rec_peek(j, JW_K_STR)) != NULL && e->key == key && e->kk == JW_KK(JW_K_STR, klen) &&
        strcmp(j->ks + e->sat, s ? s : "") == 0) {
        rec_take(j, e);
        j->first[j->depth] = 0;
        return;
    }
    jw_str_write(j, key, klen, s);
}

/* A member whose text is fixed by its kind and key and one small value:
 * true/false (v 0 or 1) or null. */
static COLD void jw_word_write(struct jw *j, int kind, const char *key, size_t klen, uint64_t v)
{
    size_t mark = j->rec ? rec_mark(j) : 0;
    jw_pre(j, key, klen);
    if (kind == JW_K_NULL)
        put(jw_buf(j), "null", 4);
    else if (v)
        put(jw_buf(j), "true", 4);
    else
        put(jw_buf(j), "false", 5);
    if (j->rec)
        rec_note(j, kind, key, klen, v, NULL, 0, mark);
}

void jw_bool_k(struct jw *j, const char *key, size_t klen, int v)
{
    if (rec_same(j, JW_K_BOOL, key, klen, v != 0)) {
        j->first[j->depth] = 0;
        return;
    }
    jw_word_write(j, JW_K_BOOL, key, klen, v != 0);
}

void jw_null_k(struct jw *j, const char *key, size_t klen)
{
    if (rec_same(j, JW_K_NULL, key, klen, 0)) {
        j->first[j->depth] = 0;
        return;
    }
    jw_word_write(j, JW_K_NULL, key, klen, 0);
}

/* Always written from text: only whether it is empty (which decides the
 * writer's state after it) is compared with the recording. */
void jw_raw_members(struct jw *j, const char *text, size_t len)
{
    struct json_buf *b = jw_buf(j);
    size_t mark = 0;
    if (j->rec)
        mark = rec_mark(j);
    if (len > 0) {
        if (!j->first[j->depth])
            putc1(b, ',');
        j->first[j->depth] = 0;
        put(b, text, len);
    }
    if (j->rec)
        rec_note(j, len > 0 ? JW_K_RAW1 : JW_K_RAW0, NULL, 0, 0, NULL, 0, mark);
}

char *jw_finish(struct jw *j, size_t *len)
{
    struct json_buf *b = jw_buf(j);
    if (j->rec)
        j->rec->taken += j->taken;
    j->rec = NULL;   /* a part left open: jw_rec_begin starts its recording again */
    j->cur = j->end = NULL;
    if (b->failed || j->depth != 0 || !grow(b, 0)) {
        free(b->p ? b->p - b->room : NULL);
        memset(j, 0, sizeof *j);
        return NULL;
    }
    b->p[b->len] = '\0';
    if (len)
        *len = b->len;
    return b->p;
}

/* ---- templates
 * A memo hit's tier (json_plan.c) is written with the same ~150 calls as
 * the last one, and of its ~70 values that may follow the tokens, the
 * deadline, the budget or the dataset (days, costs, the texts citing them)
 * some 15 change: the rest of its ~8 KB is the last answer's text.
 * Replaying a recording still checked and copied call by call. A template
 * keeps the part's last text, the key it was written from (every value it
 * was written from but the holes', which the caller gives), and the place
 * of each hole's value in the text with the place of its input in the
 * caller's struct. When the key is the template's, the text is the
 * template's with each hole whose input changed written anew: runs of the
 * old text are copied between them. The template is brought up to date in
 * place where a new value has the old one's length, else from the first
 * value whose length changed on, copied back from the new text (the holes
 * after it shift). Any other key writes the part anew and keeps that text.
 * The key must hold every value the text outside the holes is written
 * from: a value left out of it would be taken from the last text. */

struct jw_tpl_hole {
    uint64_t x, v;           /* the last input and value bits (numbers) */
    double f;                /* rounded with the factor f (jw_hole_num, jw_round_f; 0: fx) */
    double mul, lo, hi;      /* f's inputs: x * mul, when lo <= |x * mul| <= hi (jw_hole_num) */
    uint32_t off, cap;       /* the input: base + off (a string: an array of cap bytes) */
    uint32_t at, len;        /* the value's text: text[at, at + len) */
    uint32_t nlen;           /* its length after a patch, before the template is brought up to date */
    uint32_t rlen, rcap;     /* strings: the last string, raw (rlen UINT32_MAX: none) */
    uint16_t fmt;
    int8_t dec;
    uint8_t kind;
    char *raw;
};

struct jw_tpl {
    int ok;
    unsigned char *key;   /* the key the text was written from */
    size_t klen, kcap;
    char *text;
    size_t tlen, tcap;
    struct jw_tpl_hole *h;
    int nh, hcap;
    unsigned long long members;   /* calls the part's writing made */
    unsigned long long taken, written;
};

struct jw_tpl *jw_tpl_new(void)
{
    return calloc(1, sizeof(struct jw_tpl));
}

void jw_tpl_free(struct jw_tpl *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->hcap; i++)
        free(t->h[i].raw);
    free(t->h);
    free(t->text);
    free(t->key);
    free(t);
}

void jw_tpl_stats(const struct jw_tpl *t, unsigned long long *taken, unsigned long long *written)
{
    *taken = t ? t->taken : 0;
    *written = t ? t->written : 0;
}

void jw_key_release(struct jw_key *k)
{
    if (!k)
        return;
    free(k->p);
    free(k->h);
    memset(k, 0, sizeof *k);
}

void jw_key_reset(struct jw_key *k)
{
    k->n = 0;
    k->nh = 0;
    k->bad = 0;
}

int jw_key_reserve(struct jw_key *k, size_t n)
{
    if (k->n + n > k->cap) {
        size_t cap = k->cap ? k->cap : 4096;
        unsigned char *np;
        while (cap < k->n + n)
            cap *= 2;
        if (k->bad || cap > JW_REC_MAX || !(np = realloc(k->p, cap))) {
            k->bad = 1;
            return 0;
        }
        k->p = np;
        k->cap = cap;
    }
    return !k->bad;
}

size_t jw_tpl_begin(struct jw *j, struct jw_key *k)
{
    j->key = k;
    k->nh = 0;
    /* a block open around the part might be taken without it */
    if (j->blk_level > 0)
        k->bad = 1;
    k->wrote0 = j->wrote;
    return j->b.len;
}

/* A hole's call: listed, and where its value will be, after the comma and
 * key its call writes first; NULL when it cannot be kept. The recorded
 * bytes taken so far are copied first, so that the writer's text is
 * where the call begins. */
static struct jw_hole *hole_add(struct jw *j, int kind, unsigned fmt, const void *src, const char *key, size_t klen)
{
    struct jw_key *k = j->key;
    struct jw_hole *h;
    if (fmt > UINT16_MAX || j->blk_level > 0) {   /* in a block it could be taken with the block */
        k->bad = 1;
        return NULL;
    }
    if (k->nh == k->hcap) {
        int cap = k->hcap ? 2 * k->hcap : 128;
        struct jw_hole *p = realloc(k->h, sizeof *p * (size_t)cap);
        if (!p) {
            k->bad = 1;
            return NULL;
        }
        k->h = p;
        k->hcap = cap;
    }
    if (j->rec)
        rec_flush(j);
    h = &k->h[k->nh++];
    h->kind = (uint8_t)kind;
    h->fmt = (uint16_t)fmt;
    h->src = src;
    h->at = (uint32_t)(j->b.len + !j->first[j->depth] + (key ? klen + 3 : 0));
    h->len = 0;
    return h;
}

/* The hole's call made: its value's end (the recorded bytes it took
 * copied first). */
static void hole_end(struct jw *j, struct jw_hole *h)
{
    if (!h)
        return;
    if (j->rec)
        rec_flush(j);
    if (j->b.len < h->at)
        j->key->bad = 1;
    else
        h->len = (uint32_t)(j->b.len - h->at);
}

void jw_hole_num(struct jw *j, const char *key, size_t klen, unsigned fmt, const double *src, double v, int dec,
                 double f, double mul, double lo, double hi)
{
    struct jw_hole *h = NULL;
    double x = *src;
    if (j->key) {
        h = hole_add(j, JW_K_NUM, fmt, src, key, klen);
        if (h) {
            memcpy(&h->x, &x, sizeof h->x);
            memcpy(&h->v, &v, sizeof h->v);
            h->f = f;
            h->mul = mul;
            h->lo = lo;
            h->hi = hi;
            h->dec = (int8_t)(dec < -100 ? -100 : dec > 100 ? 100 : dec);
        }
    }
    /* the call as it is made outside a template (with the recording, when
     * there is one: the same format and input give the same value) */
    if (fmt == 0) {
        jw_num(j, key, v);
    } else {
        uint64_t kk = JW_KK_TAG(klen, fmt);
        if (!jw_num_raw_hit(j, key, kk, x))
            jw_num_tagged(j, key, klen, kk, x, v, dec);
    }
    hole_end(j, h);
}

void jw_hole_str(struct jw *j, const char *key, size_t klen, const char *src, size_t cap)
{
    struct jw_hole *h = NULL;
    if (j->key) {
        h = hole_add(j, JW_K_STR, 0, src, key, klen);
        if (h)
            h->cap = (uint32_t)cap;
    }
    jw_str_in(j, key, src, cap);
    hole_end(j, h);
}

/* A string hole's string of n bytes kept raw (to compare the next one
 * with); 0 when memory ran out. */
static int hole_keep_str_n(struct jw_tpl_hole *th, const char *s, size_t n)
{
    if (n + 1 > th->rcap) {
        char *p = realloc(th->raw, n + 1);
        if (!p) {
            th->rlen = UINT32_MAX;   /* never equal */
            return 0;
        }
        th->raw = p;
        th->rcap = (uint32_t)(n + 1);
    }
    memcpy(th->raw, s, n + 1);
    th->rlen = (uint32_t)n;
    return 1;
}

/* The template's text [*run, to) copied to the writer's text. */
static inline void tpl_flush(struct json_buf *b, const struct jw_tpl *t, size_t *run, size_t to)
{
    size_t n = to - *run;
    if (room(b, n)) {
        memcpy(b->p + b->len, t->text + *run, n);
        b->len += n;
    }
    *run = to;
}

const unsigned char *jw_tpl_key(const struct jw_tpl *t, size_t *len)
{
    if (!t || !t->ok)
        return NULL;
    *len = t->klen;
    return t->key;
}

int jw_tpl_patch(struct jw *j, struct jw_tpl *t, const void *base, double (*fx)(unsigned fmt, double x))
{
    struct json_buf *b = jw_buf(j);
    const char *bp = base;
    size_t start = b->len, run = 0;
    int moved = -1;   /* the first hole whose text changed length */
    unsigned long long changed = 0;
    struct jw_tpl_hole *h, *hend;
    const char *text;
    char *o;   /* the writer's text ends here (b->len is set from it where it is read) */
    if (!t || !t->ok)
        return 0;
    if (!room(b, t->tlen + 64))
        return 0;
    /* The holes, the template's text and the writer's end in locals: the
     * stores of text below could alias the structs' fields, which the
     * compiler would otherwise load again for every hole. */
    h = t->h;
    hend = h + t->nh;
    text = t->text;
    o = b->p + b->len;
    for (struct jw_tpl_hole *th = h; th < hend; th++) {
        const char *src = bp + th->off;
        size_t n;
        if (th->kind == JW_K_NUM) {
            double x, v;
            uint64_t xb, vb;
            memcpy(&xb, src, sizeof xb);
            if (xb == th->x)
                continue;
            memcpy(&x, &xb, sizeof x);
            /* a rounding (most holes) here when x * mul is within the
             * hole's range; the others by the caller's fx */
            if (th->f != 0) {
                double y = x * th->mul, ay = fabs(y);
                if (ay >= th->lo && ay <= th->hi)
                    v = jw_round_f(y, th->f);
                else
                    v = fx(th->fmt, x);
            } else {
                v = fx(th->fmt, x);
            }
            memcpy(&vb, &v, sizeof vb);
            th->x = xb;
            if (vb == th->v)
                continue;
            th->v = vb;
            /* the old text up to the hole, then the new value: room for
             * the rest of the template and a number more */
            if ((size_t)(o - b->p) + (t->tlen - run) + 32 + 1 > b->cap) {
                b->len = (size_t)(o - b->p);
                if (!room(b, (t->tlen - run) + 32))
                    goto fail;
                o = b->p + b->len;
            }
            memcpy(o, text + run, th->at - run);
            o += th->at - run;
            n = number_text_dec(o, v, th->dec);
            if (n == th->len)
                copy_small(t->text + th->at, o, n);
            o += n;
        } else {
            /* the same string when its bytes to the kept one's NUL are (the
             * kept one ends within the array), as jw_str_in tells */
            if (th->rlen < th->cap && memcmp(th->raw, src, (size_t)th->rlen + 1) == 0)
                continue;
            size_t so;
            b->len = (size_t)(o - b->p);
            tpl_flush(b, t, &run, th->at);
            so = b->len;
            n = put_string_in(b, src, th->cap);   /* n: the string's length */
            if (b->failed || !hole_keep_str_n(th, src, n))
                goto fail;
            o = b->p + b->len;
            n = b->len - so;
            if (n == th->len)
                memcpy(t->text + th->at, b->p + so, n);
        }
        run = th->at + th->len;
        changed++;
        if (n != th->len) {
            th->nlen = (uint32_t)n;
            if (moved < 0)
                moved = (int)(th - h);
        }
    }
    b->len = (size_t)(o - b->p);
    tpl_flush(b, t, &run, t->tlen);
    if (b->failed)
        goto fail;
    if (moved >= 0) {
        /* The text from the first hole that changed length on is the new
         * one's (the same bytes before it): copied back, and the holes
         * from there moved by the lengths changed before them. */
        size_t from = t->h[moved].at, len = b->len - start;
        long shift = 0;
        if (len > t->tcap) {
            char *p = realloc(t->text, len);
            if (!p)
                goto fail;
            t->text = p;
            t->tcap = len;
        }
        memcpy(t->text + from, b->p + start + from, len - from);
        t->tlen = len;
        for (int i = moved; i < t->nh; i++) {
            struct jw_tpl_hole *th = &t->h[i];
            th->at = (uint32_t)((long)th->at + shift);
            if (th->nlen != th->len) {
                shift += (long)th->nlen - (long)th->len;
                th->len = th->nlen;
            }
        }
    }
    j->first[j->depth] = 0;   /* the part wrote members */
    j->wrote += t->members;
    t->taken += t->members - changed;
    t->written += changed;
    return 1;
fail:
    t->ok = 0;   /* holes may hold values the text does not */
    b->len = start;
    return 0;
}

void jw_tpl_store(struct jw *j, struct jw_tpl *t, size_t at, const void *base, size_t base_len)
{
    struct jw_key *k = j->key;
    struct json_buf *b = jw_buf(j);
    const char *bp = base;
    size_t len;
    j->key = NULL;
    if (!t)
        return;
    t->ok = 0;
    if (!k || k->bad || j->rec || b->failed || b->len <= at || b->len - at > JW_REC_MAX || j->first[j->depth])
        return;
    len = b->len - at;
    if (len > t->tcap) {
        char *p = realloc(t->text, len);
        if (!p)
            return;
        t->text = p;
        t->tcap = len;
    }
    if (k->nh > t->hcap) {
        struct jw_tpl_hole *p = realloc(t->h, sizeof *p * (size_t)k->nh);
        if (!p)
            return;
        memset(p + t->hcap, 0, sizeof *p * (size_t)(k->nh - t->hcap));
        t->h = p;
        t->hcap = k->nh;
    }
    memcpy(t->text, b->p + at, len);
    t->tlen = len;
    for (int i = 0; i < k->nh; i++) {
        const struct jw_hole *h = &k->h[i];
        struct jw_tpl_hole *th = &t->h[i];
        size_t size = h->kind == JW_K_NUM ? sizeof(double) : h->cap;
        /* in order, apart, within the part; inputs within the base */
        if (h->at < at + (i > 0 ? t->h[i - 1].at + t->h[i - 1].len : 0) || h->at + h->len > b->len ||
            h->src < bp || size > base_len || (size_t)(h->src - bp) > base_len - size)
            return;
        th->off = (uint32_t)(h->src - bp);
        th->cap = h->cap;
        th->at = (uint32_t)(h->at - at);
        th->len = th->nlen = h->len;
        th->kind = h->kind;
        th->fmt = h->fmt;
        th->dec = h->dec;
        th->x = h->x;
        th->v = h->v;
        th->f = h->f;
        th->mul = h->mul;
        th->lo = h->lo;
        th->hi = h->hi;
        if (h->kind == JW_K_STR && !hole_keep_str_n(th, h->src, strlen(h->src)))
            return;
    }
    t->nh = k->nh;
    {   /* the key: the caller's buffer, traded */
        unsigned char *p = t->key;
        size_t cap = t->kcap;
        t->key = k->p;
        t->kcap = k->cap;
        t->klen = k->n;
        k->p = p;
        k->cap = cap;
        k->n = 0;
    }
    t->members = j->wrote - k->wrote0;
    t->written += t->members;
    t->ok = 1;
}
