/* engine_plan.c: everything in a plan around the chosen GPUs and layout.
 *
 * Given a cluster and a parallel layout (from the search or a fixed
 * estimate), this fills the parts an operator needs: time with low/high
 * bounds, memory, the intra-node link, host CPU/RAM, the benchmark values
 * the built cluster must reach (expectations.h ids, T values scaled to this
 * hardware), rationale citing DOMAIN.md ids with the numbers behind them,
 * and warnings. Fabric, storage, power, the bill of materials and the cost
 * come from plan_cost (engine_cost.c), the same function the search ranks
 * clusters by, so a plan reports the cost it was chosen for. It runs three
 * times per recommendation, so clarity wins over speed here. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine_int.h"

#define COMM_TARGET 0.20               /* R37: communication above 20% of step time needs tuning */

/* The plan texts (about 25 rationale lines, the warnings and the bill of
 * materials, per tier) were most of a recommendation's pricing cost when
 * written by vsnprintf, whose float printing is exact but slow. Most of
 * their conversions are %s, %d, %%, %.Nf and %.Ng, written here directly;
 * any other conversion (widths, flags, a NULL string, a non-finite or large
 * number, %g below 10^-4 or from 2^120, a value near a rounding tie but
 * not exactly on one) hands the whole text to vsnprintf, so every byte is
 * what vsnprintf would write:
 * - %.Nf (N <= 9): s = |x| * 10^N is the exact product within half an ulp;
 *   below 2^40 that is under 2^-13, so when s's fraction is more than 2^-12
 *   from one half, the exact value rounds to the same integer as s; nearer,
 *   only an s that is the exact product is rounded here (ties to even). The
 *   sign is printed whenever it is set, as C does ("-0.0").
 * - %.Ng (1 <= N <= 9) is that same %f at the precision C's rule picks
 *   (form_general), trailing zeros dropped; from 10^-4 to 1 the exponent is
 *   found on scaled values (form_general_small), and from 10^22 to 2^120,
 *   where doubles are integers, on 128-bit integers (form_general_big).
 * - the text is cut at n - 1 bytes and always terminated, like vsnprintf. */
struct fmt_out {
    char *p;
    size_t n, len;   /* room (with the NUL) and bytes written, capped at n - 1 */
};

/* k bytes (at most 32) from s to d as two fixed-size moves from each end
 * that overlap in the middle: a few instructions inline where a memcpy
 * call of a short literal run, number or name cost ~20. */
static inline void copy_short(char *d, const char *s, size_t k)
{
    if (k >= 16) {
        memcpy(d, s, 16);
        memcpy(d + k - 16, s + k - 16, 16);
    } else if (k >= 8) {
        memcpy(d, s, 8);
        memcpy(d + k - 8, s + k - 8, 8);
    } else if (k >= 4) {
        memcpy(d, s, 4);
        memcpy(d + k - 4, s + k - 4, 4);
    } else if (k > 0) {
        d[0] = s[0];
        d[k / 2] = s[k / 2];
        d[k - 1] = s[k - 1];
    }
}

static inline void out_put(struct fmt_out *o, const char *s, size_t k)
{
    size_t room = o->n - 1 - o->len;
    if (k > room)
        k = room;
    if (k <= 32)
        copy_short(o->p + o->len, s, k);
    else
        memcpy(o->p + o->len, s, k);
    o->len += k;
}

/* Exact doubles, 10^0..10^22. */
static const double FMT_P10[] = {1,    1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* |x| * 10^prec (prec from -22 to 9) rounded to an integer as C rounds the
 * exact value; 0 when it is not provably the same (see above: a division
 * by an exact power of ten is correctly rounded too). */
static int scaled_round(double x, int prec, unsigned long long *u)
{
    double s, r, f;
    if (!isfinite(x))
        return 0;
    s = prec >= 0 ? fabs(x) * FMT_P10[prec] : fabs(x) / FMT_P10[-prec];
    if (s >= 1099511627776.0)   /* 2^40 */
        return 0;
    r = (double)(unsigned long long)s;   /* floor: s is in [0, 2^40), truncation is exact */
    f = s - r;                  /* exact below 2^52 */
    if (f > 0.5 - 1.0 / 4096 && f < 0.5 + 1.0 / 4096) {
        /* Near a tie, s decides only when it is the exact product (or
         * quotient): its rounding error is a double, which fma finds. Then
         * an exact tie goes to the even integer, as C's rounding to nearest
         * does (15005 at %.4g is "1.5e+04"); else vsnprintf decides. */
        double err = prec >= 0 ? fma(fabs(x), FMT_P10[prec], -s) : fma(s, FMT_P10[-prec], -fabs(x));
        if (err != 0)
            return 0;
        *u = (unsigned long long)r + (f > 0.5 || (f == 0.5 && ((unsigned long long)r & 1)));
        return 1;
    }
    *u = (unsigned long long)r + (f > 0.5);
    return 1;
}

/* What a number conversion prints is decided before any byte is written
 * (struct engine_num_form, engine.h): two numbers with equal forms print the
 * same bytes, which is what a text memo (engine_vfmt_memo) compares. */
static int form_eq(const struct engine_num_form *a, const struct engine_num_form *b)
{
    return a->u == b->u && a->prec == b->prec && a->e == b->e && a->neg == b->neg && a->trim == b->trim;
}

static void form_set(struct engine_num_form *f, double x, unsigned long long u, int prec, int trim, int e)
{
    f->u = u;
    f->prec = prec;
    f->e = e;
    f->neg = signbit(x) ? 1 : 0;
    f->trim = (unsigned char)trim;
}

/* The form's digits, written from the right, two at a time (one division by
 * 100 instead of two by 10), then e+XX (two digits at least) when it has an
 * exponent. */
static const char FMT_PAIRS[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";

/* The digits of whole number u written leftwards ending at q (at least
 * one), two at a time; returns where they start. out_form's whole part and
 * out_int's number. */
static inline char *put_whole(char *q, unsigned long long u)
{
    while (u >= 100) {
        q -= 2;
        memcpy(q, FMT_PAIRS + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        q -= 2;
        memcpy(q, FMT_PAIRS + 2 * u, 2);
    } else {
        *--q = (char)('0' + u);
    }
    return q;
}

static void out_form(struct fmt_out *o, const struct engine_num_form *f)
{
    char tmp[48], *end = tmp + sizeof tmp - 4, *q = end;
    unsigned long long u = f->u;
    int i = 0, prec = f->prec;
    for (; i + 2 <= prec; i += 2) {
        q -= 2;
        memcpy(q, FMT_PAIRS + 2 * (u % 100), 2);
        u /= 100;
    }
    if (i < prec) {
        *--q = (char)('0' + u % 10);
        u /= 10;
    }
    if (prec > 0)
        *--q = '.';
    q = put_whole(q, u);
    if (f->neg)
        *--q = '-';
    if (f->trim && prec > 0) {
        while (end[-1] == '0')
            end--;
        if (end[-1] == '.')
            end--;
    }
    if (f->e >= 0) {   /* 0 <= e <= 36 */
        end[0] = 'e';
        end[1] = '+';
        end[2] = (char)('0' + f->e / 10);
        end[3] = (char)('0' + f->e % 10);
        end += 4;
    }
    out_put(o, q, (size_t)(end - q));
}

/* %.Nf of x; 0 when x needs vsnprintf. */
static int form_fixed(struct engine_num_form *f, double x, int prec)
{
    unsigned long long u;
    if (!scaled_round(x, prec, &u))
        return 0;
    form_set(f, x, u, prec, 0, -1);
    return 1;
}

/* %.Pg of x for 1 <= |x| < 10^22: C takes the exponent X of x rounded to P
 * digits; for X < P it prints %.(P-1-X)f, else the P digits as d.ddd and
 * e+XX; trailing fraction zeros dropped either way. X is found on exact
 * powers of ten, then raised by one when the rounding carries into a new
 * digit (99.96 -> 100). */
static int form_general_small(struct engine_num_form *f, double x, int p);
static int form_general_big(struct engine_num_form *f, double x, int p);

static int form_general(struct engine_num_form *f, double x, int p)
{
    unsigned long long u;
    double v = fabs(x);
    int e = 0, prec;
    if (!isfinite(x) || p < 1)
        return 0;
    if (v < 1)
        return form_general_small(f, x, p);
    if (v >= FMT_P10[22])
        return form_general_big(f, x, p);
    /* the exponent from the binary one, b x 1233/4096 rounded down (1233/4096
     * is just under log10(2), so never above the decimal exponent, and
     * within one of it below 2^73), then up to it as before */
    e = (int)(((double_bits(v) >> 52) & 0x7ff) - 1023) * 1233 >> 12;
    while (v >= FMT_P10[e + 1])
        e++;
    prec = p - 1 - e;
    if (!scaled_round(x, prec, &u))
        return 0;
    if (u >= (unsigned long long)FMT_P10[p]) {
        e++;
        prec--;
        if (e > 22 || !scaled_round(x, prec, &u))
            return 0;
    }
    if (e < p)
        form_set(f, x, u, prec, 1, -1);
    else   /* d.ddd: u's P digits with P - 1 decimals, then e+XX */
        form_set(f, x, u, p - 1, 1, e);
    return 1;
}

/* %.Pg for 10^-4 <= |x| < 1 (a rate below 1 GB/s): C prints %f with P - 1 -
 * X decimals, X the exponent of x rounded to P digits, trailing zeros
 * dropped. With u_e = x scaled by 10^(P-1-e) and rounded (scaled_round:
 * exact or refused, at most 12 decimals here), u_e < 10^(P-1) for every e
 * above X + 1, and u_e = 10^(P-1) at most at e = X + 1 (x just under 10^e
 * rounding up on the coarser grid). So the first e from 0 down with
 * u_e >= 10^(P-1) is X unless u_e is exactly 10^(P-1); then u at e - 1
 * tells: it reaches 10^P when x rounds up to 10^e at P digits (X = e), else
 * X = e - 1 and its digits are those. Below 10^-4 C switches to the e-05
 * form: vsnprintf. */
static int form_general_small(struct engine_num_form *f, double x, int p)
{
    unsigned long long u, u_next;
    if (p > 9)
        return 0;
    for (int e = 0; e >= -4; e--) {
        int prec = p - 1 - e;
        if (!scaled_round(x, prec, &u))
            return 0;
        if (u < (unsigned long long)FMT_P10[p - 1])
            continue;
        if (u == (unsigned long long)FMT_P10[p - 1]) {
            if (!scaled_round(x, prec + 1, &u_next))
                return 0;
            if (u_next < (unsigned long long)FMT_P10[p]) {
                if (e - 1 < -4)
                    return 0;
                form_set(f, x, u_next, prec + 1, 1, -1);
                return 1;
            }
        }
        form_set(f, x, u, prec, 1, -1);
        return 1;
    }
    return 0;
}

/* %.Pg for 10^22 <= |x| < 2^120 (the FLOPs of a whole run): such a double
 * is an integer, exact in 128 bits, so its P digits are the integer
 * quotient by a power of ten, rounded on the exact remainder (an exact tie
 * goes to vsnprintf, as every near-tie does above), then d.ddd and e+XX. */
__extension__ typedef unsigned __int128 fmt_u128;

static int form_general_big(struct engine_num_form *f, double x, int p)
{
    fmt_u128 v, pow10k = 1, q, r, top = 1;
    int digits = 0, k, e;
    if (fabs(x) >= 0x1p120 || p > 9)
        return 0;
    v = (fmt_u128)fabs(x);
    /* digits: v < 10^digits; v >= 10^22 (x >= 1e22, exact), so from 22 up,
     * by multiplying instead of dividing v by ten once per digit */
    {
        fmt_u128 pow10d = (fmt_u128)10000000000000000000ULL * 1000;   /* 10^22 */
        digits = 22;
        while (v >= pow10d) {
            pow10d *= 10;
            digits++;
        }
    }
    k = digits - p;   /* > 0: 23 digits or more, P at most 9 */
    for (int i = 0; i < k; i++)
        pow10k *= 10;
    for (int i = 0; i < p; i++)
        top *= 10;
    q = v / pow10k;
    r = v % pow10k;
    if (2 * r == pow10k)
        return 0;
    if (2 * r > pow10k)
        q++;
    e = digits - 1;
    if (q == top) {   /* 9.995e22 -> 1e+23 */
        q /= 10;
        e++;
    }
    form_set(f, x, (unsigned long long)q, p - 1, 1, e);   /* 22 <= e <= 36 */
    return 1;
}

/* A conversion's key into the memo being recorded (m NULL: none); a text
 * with more conversions or longer strings than the memo holds is not kept
 * (nconv -1). */
/* The form %.<prec>f (conv 'f') or %.<prec>g (conv 'g') gives x; 0 when
 * the fast path cannot say (vsnprintf writes it then). */
static int form_of(struct engine_num_form *f, char conv, double x, int prec)
{
    return conv == 'f' ? form_fixed(f, x, prec) : form_general(f, x, prec);
}

static void form_put(struct engine_text_memo *m, int k, const struct engine_num_form *f);

static void memo_conv(struct engine_text_memo *m, char kind, int prec, unsigned long long bits,
                      const struct engine_num_form *f, const char *str, size_t str_len, size_t beg, size_t out_len)
{
    int k;
    if (!m || m->nconv < 0)
        return;
    k = m->nconv;
    if (k >= ENGINE_TEXT_MEMO_CONV) {
        m->nconv = -1;
        return;
    }
    m->kind[k] = (unsigned char)kind;
    m->prec[k] = (unsigned char)prec;
    m->out_beg[k] = (unsigned short)beg;   /* below PLAN_TEXT_MAX: n is at most that */
    m->out_end[k] = (unsigned short)(beg + out_len);
    m->bits[k] = bits;
    if (f)
        form_put(m, k, f);
    if (str) {
        size_t len = str_len;   /* strlen(str), which the caller had */
        if (len >= sizeof m->strs - m->strs_len) {
            m->nconv = -1;
            return;
        }
        memcpy(m->strs + m->strs_len, str, len + 1);
        m->str_at[k] = (unsigned short)m->strs_len;
        m->str_len[k] = (unsigned char)len;   /* below sizeof strs, 128 */
        m->str_ptr[k] = str;
        m->strs_len += (unsigned short)(len + 1);
    }
    m->nconv = k + 1;
}

static void out_int(struct fmt_out *o, int v)
{
    char tmp[16], *end = tmp + sizeof tmp, *q = end;
    unsigned int u = v < 0 ? 0u - (unsigned int)v : (unsigned int)v;
    q = put_whole(q, u);
    if (v < 0)
        *--q = '-';
    out_put(o, q, (size_t)(end - q));
}

/* The fast path; 0 when the text needs vsnprintf. Each conversion's key
 * goes to m when m is not NULL (engine_vfmt_memo). */
static int fmt_fast(struct fmt_out *o, const char *fmt, va_list ap, struct engine_text_memo *m)
{
    const char *lit = fmt;
    for (const char *p = fmt;; p++) {
        if (*p != '%' && *p != '\0') {
            /* the literal run up to the next conversion, found by the C
             * library's word-at-a-time search instead of byte by byte */
            const char *q = strchr(p, '%');
            p = q ? q : p + strlen(p);
        }
        out_put(o, lit, (size_t)(p - lit));
        if (*p == '\0')
            return 1;
        p++;
        if (*p == '%') {
            out_put(o, "%", 1);
        } else if (*p == 's') {
            const char *str = va_arg(ap, const char *);
            if (!str)
                return 0;
            size_t beg = o->len, len = strlen(str);
            out_put(o, str, len);
            memo_conv(m, 's', 0, 0, NULL, str, len, beg, o->len - beg);
        } else if (*p == 'd') {
            int v = va_arg(ap, int);
            size_t beg = o->len;
            out_int(o, v);
            memo_conv(m, 'd', 0, (unsigned int)v, NULL, NULL, 0, beg, o->len - beg);
        } else if (p[0] == '.' && p[1] >= '0' && p[1] <= '9' && (p[2] == 'f' || p[2] == 'g')) {
            struct engine_num_form f;
            double x = va_arg(ap, double);
            int prec = p[1] - '0';
            if (!form_of(&f, p[2], x, prec))
                return 0;
            size_t beg = o->len;
            out_form(o, &f);
            memo_conv(m, p[2], prec, double_bits(x), &f, NULL, 0, beg, o->len - beg);
            p += 2;
        } else {
            return 0;
        }
        lit = p + 1;
    }
}

void engine_vfmt(char *dst, size_t n, const char *fmt, va_list ap)
{
    struct fmt_out o = {dst, n, 0};
    va_list ap2;
    if (n == 0)
        return;
    va_copy(ap2, ap);
    if (fmt_fast(&o, fmt, ap, NULL)) {
        dst[o.len] = '\0';
    } else if (vsnprintf(dst, n, fmt, ap2) < 0) {
        dst[0] = '\0';
    }
    va_end(ap2);
}

/* The doubles that print as form f (conversion kind with precision p: what
 * form_of gave for an earlier x), as a range [*lo, *hi] a later x is
 * tested against with two comparisons instead of working its form out: x
 * scaled as f's digits are (10^k) within 1/4096 of f's digits u, the margin
 * scaled_round keeps from a tie (the scaled value, one correctly rounded
 * multiplication or division below 2^40, is off by under 2^-13), so the
 * exact product rounds to u too, with f's sign. For %g, u must be above
 * 10^(p-1) (u = 10^(p-1) may stand for a value just under a power of ten
 * that C prints with one decimal more; above it the exponent cannot move).
 * The scaled value only grows with |x| (rounding is monotone), so the
 * magnitudes whose scaled value is within the margin are a run of doubles,
 * and a run inside it is enough (a double outside has its form worked
 * out): its ends are the margin's ends divided back and moved inwards by
 * 2^-50 of themselves, more than the three roundings on the way there and
 * back (each under 2^-53 of the value), so that their own scaled values
 * are within the margin; that is checked too. u must be at least 1, so
 * that the range holds neither zero nor the other sign. Empty (lo > hi)
 * when nothing can be vouched for so. */
static double scaled_by(double v, int k)
{
    return k >= 0 ? v * FMT_P10[k] : v / FMT_P10[-k];
}

static void form_range(const struct engine_num_form *f, char kind, int p, double *lo, double *hi)
{
    double u, top, bot, a, b;
    int k;
    *lo = INFINITY;
    *hi = -INFINITY;
    if (p < 0 || p > 22 || (kind != 'f' && p < 1))
        return;
    if (kind == 'f') {
        k = f->prec;
    } else {
        if (f->u <= (unsigned long long)FMT_P10[p - 1])
            return;
        k = f->e < 0 ? f->prec : p - 1 - f->e;
    }
    if (k > 22 || k < -22 || f->u == 0 || f->u >= 1099511627776ULL)   /* 2^40 */
        return;
    u = (double)f->u;
    bot = u - 0.5 + 1.0 / 4096;   /* exact: u < 2^40 */
    top = u + 0.5 - 1.0 / 4096;
    a = (k >= 0 ? bot / FMT_P10[k] : bot * FMT_P10[-k]) * (1.0 + 0x1p-50);
    b = (k >= 0 ? top / FMT_P10[k] : top * FMT_P10[-k]) * (1.0 - 0x1p-50);
    if (!(a > 0 && a <= b && isfinite(b)) || scaled_by(a, k) < bot || scaled_by(b, k) > top)
        return;
    *lo = f->neg ? -b : a;
    *hi = f->neg ? -a : b;
}

/* A new form for conversion k: its range is worked out when another double
 * prints it too (conv_compare). */
static void form_put(struct engine_text_memo *m, int k, const struct engine_num_form *f)
{
    m->form[k] = *f;
    m->keep_lo[k] = NAN;
    m->keep_hi[k] = NAN;
}

/* Whether a string argument at the address a kept string was last equal
 * to still is: its k bytes (the kept length and the NUL) against the kept
 * copy b, 8 at a time and the last 8 (overlapping the one before: fewer
 * than 8 left), inline where a strcmp call cost ~35 instructions. Equal
 * exactly when strcmp would say so: a string that got shorter has its NUL
 * where the kept one has a byte, one that got longer a byte where the kept
 * one has its NUL. The bytes read are those of the object that held the
 * kept string there (k bytes at least): the plan texts' %s arguments are
 * literals, catalog fields and plan fields, which stay where they are. */
static inline uint64_t load8(const char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint32_t load4(const char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline int bytes_eq(const char *a, const char *b, size_t k)
{
    if (k >= 8) {
        uint64_t diff = load8(a + k - 8) ^ load8(b + k - 8);   /* the last 8 */
        for (size_t i = 0; i + 8 < k; i += 8)
            diff |= load8(a + i) ^ load8(b + i);
        return diff == 0;
    }
    if (k >= 4)
        return ((load4(a) ^ load4(b)) | (load4(a + k - 4) ^ load4(b + k - 4))) == 0;
    return a[0] == b[0] && a[k / 2] == b[k / 2] && a[k - 1] == b[k - 1];
}

/* How conversion k's argument (taken from *ap) stands against the memo's:
 * what memo_match and memo_patch both ask, one conversion at a time. */
enum conv_cmp {
    CONV_SAME,    /* the same argument: the memo's bytes and key stand */
    CONV_KEEPS,   /* another double of the same form: the bytes stand, the key is *x's */
    CONV_INT,     /* another %d, *v: other bytes */
    CONV_FORM,    /* a number of another form, *f: other bytes */
    CONV_NEW      /* a string that differs, or a number form_of cannot take */
};

static inline __attribute__((always_inline)) enum conv_cmp conv_compare(struct engine_text_memo *m, int k, va_list *ap, int *v,
                                         double *x, struct engine_num_form *f)
{
    switch (m->kind[k]) {
    case 'd':
        *v = va_arg(*ap, int);
        return (unsigned int)*v == m->bits[k] ? CONV_SAME : CONV_INT;
    case 's': {
        const char *str = va_arg(*ap, const char *), *kept = m->strs + m->str_at[k];
        if (str == m->str_ptr[k])
            return bytes_eq(str, kept, (size_t)m->str_len[k] + 1) ? CONV_SAME : CONV_NEW;
        if (!str || strcmp(str, kept) != 0)
            return CONV_NEW;
        m->str_ptr[k] = str;
        return CONV_SAME;
    }
    default:
        *x = va_arg(*ap, double);
        if (double_bits(*x) == m->bits[k])
            return CONV_SAME;
        if (*x >= m->keep_lo[k] && *x <= m->keep_hi[k])   /* false while NaN */
            return CONV_KEEPS;
        if (!form_of(f, m->kind[k], *x, m->prec[k]))
            return CONV_NEW;
        if (!form_eq(f, &m->form[k]))
            return CONV_FORM;
        /* A form that a second double printed: its range, for the next
         * (worked out only here, as most numbers that move once move on) */
        if (isnan(m->keep_lo[k]))
            form_range(&m->form[k], (char)m->kind[k], m->prec[k], &m->keep_lo[k], &m->keep_hi[k]);
        return CONV_KEEPS;
    }
}

/* The first conversion whose argument prints other bytes than the memo's
 * (m->nconv when none): every %d and %s equal, every number the same
 * double or one of the same form (digits, decimals, sign, exponent). The
 * literals are the format's, which is the memo's. When that conversion is a
 * number of another form, its form goes to *first_form (*have_form 1), so
 * that memo_rebuild need not work it out again. */
static int memo_match(struct engine_text_memo *m, va_list *ap, struct engine_num_form *first_form,
                      int *have_form)
{
    for (int k = 0; k < m->nconv; k++) {
        int v;
        double x;
        struct engine_num_form f;
        switch (conv_compare(m, k, ap, &v, &x, &f)) {
        case CONV_SAME:
        case CONV_KEEPS:
            break;
        case CONV_FORM:
            *first_form = f;   /* memo_rebuild's form for this conversion */
            *have_form = 1;
            return k;
        default:
            return k;
        }
    }
    return m->nconv;
}

/* The memo's text with the conversions from `first` on written again from
 * the arguments where they differ, into o (the literals and the unchanged
 * conversions are the memo's bytes): what the format gives, for a memo whose
 * text was not cut (every conversion and literal whole in it). The memo
 * takes the new keys and spans as it goes; 0 when a string differs or a
 * number needs vsnprintf (the memo is then rewritten whole). first_form:
 * the form of conversion `first` when memo_match found it (else NULL). */
static int memo_rebuild(struct engine_text_memo *m, struct fmt_out *o, int first,
                        const struct engine_num_form *first_form, va_list ap)
{
    const char *old = m->text;
    size_t from;
    for (int k = 0; k < first; k++) {
        switch (m->kind[k]) {
        case 'd': (void)va_arg(ap, int); break;
        case 's': (void)va_arg(ap, const char *); break;
        default: (void)va_arg(ap, double); break;
        }
    }
    out_put(o, old, m->out_beg[first]);
    from = m->out_beg[first];
    for (int k = first; k < m->nconv; k++) {
        size_t beg = m->out_beg[k], end = m->out_end[k], at;
        int same = 1;
        out_put(o, old + from, beg - from);   /* the literal before it */
        at = o->len;
        switch (m->kind[k]) {
        case 'd': {
            int v = va_arg(ap, int);
            if ((unsigned int)v != m->bits[k]) {
                out_int(o, v);
                m->bits[k] = (unsigned int)v;
                same = 0;
            }
            break;
        }
        case 's': {
            const char *str = va_arg(ap, const char *);
            if (!str || strcmp(str, m->strs + m->str_at[k]) != 0)
                return 0;
            break;
        }
        default: {
            double x = va_arg(ap, double);
            struct engine_num_form f;
            if (double_bits(x) == m->bits[k])
                break;
            if (k == first && first_form)
                f = *first_form;   /* memo_match's form_of of this x */
            else if (!form_of(&f, m->kind[k], x, m->prec[k]))
                return 0;
            m->bits[k] = double_bits(x);
            if (!form_eq(&f, &m->form[k])) {
                out_form(o, &f);
                form_put(m, k, &f);
                same = 0;
            }
            break;
        }
        }
        if (same)
            out_put(o, old + beg, end - beg);
        m->out_beg[k] = (unsigned short)at;
        m->out_end[k] = (unsigned short)o->len;
        from = end;
    }
    out_put(o, old + from, (size_t)m->len - from);
    return 1;
}

/* The memo's text for these arguments where it can be had in place: each
 * conversion whose argument prints what the memo's did is left as it is
 * (a number of another double but the same form only takes the new bits),
 * and one that prints as many other bytes is written over its old ones,
 * in the memo itself: the literals and the other conversions keep their
 * places, so the text is what the format gives for the new keys, which the
 * memo takes as it goes. Most numbers that move keep their width (a cost's
 * last digits), and this writes a few digits where memo_rebuild copies the
 * whole text piece by piece. Returns the first conversion it could not
 * write so (m->nconv when none): a string that differs or a number that
 * needs vsnprintf (memo_rebuild then gives up too), or a new text of
 * another length, whose form goes to *stop_form (*have_stop_form 1). The
 * memo is then still a true one (its text is the format's for its keys,
 * the earlier conversions new, the later old), so memo_rebuild goes on
 * from there. For a memo whose text was not cut. */
/* Conversion k's new bytes over its old ones when they are as many (1),
 * else 0 with nothing written. */
static int patch_span(struct engine_text_memo *m, int k, const char *bytes, size_t len)
{
    size_t beg = m->out_beg[k];
    if (len != (size_t)m->out_end[k] - beg)
        return 0;
    memcpy(m->text + beg, bytes, len);
    return 1;
}

static int memo_patch(struct engine_text_memo *m, va_list *ap, struct engine_num_form *stop_form, int *have_stop_form)
{
    for (int k = 0; k < m->nconv; k++) {
        int v;
        double x;
        struct engine_num_form f;
        char tmp[48];
        struct fmt_out t;
        switch (conv_compare(m, k, ap, &v, &x, &f)) {
        case CONV_SAME:
            break;
        case CONV_KEEPS:
            m->bits[k] = double_bits(x);
            break;
        case CONV_INT:
            t = (struct fmt_out){tmp, sizeof tmp, 0};
            out_int(&t, v);
            if (!patch_span(m, k, tmp, t.len))
                return k;
            m->bits[k] = (unsigned int)v;
            break;
        case CONV_FORM:
            t = (struct fmt_out){tmp, sizeof tmp, 0};
            out_form(&t, &f);
            if (!patch_span(m, k, tmp, t.len)) {
                *stop_form = f;   /* memo_rebuild's form for this conversion */
                *have_stop_form = 1;
                return k;
            }
            form_put(m, k, &f);
            m->bits[k] = double_bits(x);
            break;
        default:
            return k;
        }
    }
    return m->nconv;
}

void engine_vfmt_memo(struct engine_text_memo *m, char *dst, size_t n, const char *fmt, va_list ap)
{
    struct fmt_out o = {dst, n, 0};
    va_list ap2;
    if (!m || n == 0 || n > sizeof m->text) {
        engine_vfmt(dst, n, fmt, ap);
        return;
    }
    if (m->fmt == fmt && m->n == n) {
        int first, ok = 0, have_form = 0;
        struct engine_num_form first_form;
        if ((size_t)m->len < n - 1) {
            /* A whole text: in one pass over the arguments, the memo's
             * text where they print what its did, written over where they
             * print as many other bytes (memo_patch); from the first that
             * prints a text of another length on, rebuilt (memo_rebuild,
             * which gives up on a string that differs). */
            va_copy(ap2, ap);
            first = memo_patch(m, &ap2, &first_form, &have_form);
            va_end(ap2);
            if (first == m->nconv) {
                memcpy(dst, m->text, (size_t)m->len + 1);
                return;
            }
            va_copy(ap2, ap);
            ok = memo_rebuild(m, &o, first, have_form ? &first_form : NULL, ap2);
            va_end(ap2);
        } else {
            /* A cut text (len n - 1) may lack some of its conversions:
             * kept only for arguments that print it all again. */
            va_copy(ap2, ap);
            first = memo_match(m, &ap2, &first_form, &have_form);
            va_end(ap2);
            if (first == m->nconv) {
                memcpy(dst, m->text, (size_t)m->len + 1);
                return;
            }
        }
        if (ok) {
            dst[o.len] = '\0';
            if (o.len < n - 1) {
                memcpy(m->text, dst, o.len + 1);
                m->len = (int)o.len;
            } else {
                m->fmt = NULL;
            }
            return;
        }
        o.len = 0;
    }
    m->fmt = NULL;
    m->nconv = 0;
    m->strs_len = 0;
    va_copy(ap2, ap);
    if (fmt_fast(&o, fmt, ap, m)) {
        dst[o.len] = '\0';
        if (m->nconv >= 0) {
            memcpy(m->text, dst, o.len + 1);
            m->len = (int)o.len;
            m->n = n;
            m->fmt = fmt;
        }
    } else if (vsnprintf(dst, n, fmt, ap2) < 0) {
        dst[0] = '\0';
    }
    va_end(ap2);
}

void engine_fmt_memo(struct engine_text_memo *m, char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    engine_vfmt_memo(m, dst, n, fmt, ap);
    va_end(ap);
}

void plan_add_rationale(struct engine_plan *pl, const char *rule, const char *fmt, ...)
{
    va_list ap;
    struct plan_rationale *r;
    if (pl->n_rationale >= PLAN_RATIONALE_MAX)
        return;
    r = &pl->rationale[pl->n_rationale++];
    engine_copy_str(r->rule, sizeof r->rule, rule);
    va_start(ap, fmt);
    engine_vfmt(r->text, sizeof r->text, fmt, ap);
    va_end(ap);
}

void plan_add_warning(struct engine_plan *pl, const char *fmt, ...)
{
    va_list ap;
    if (pl->n_warnings >= PLAN_WARNINGS_MAX)
        return;
    va_start(ap, fmt);
    engine_vfmt(pl->warnings[pl->n_warnings], PLAN_TEXT_MAX, fmt, ap);
    va_end(ap);
    pl->n_warnings++;
}

void engine_fmt(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    engine_vfmt(dst, n, fmt, ap);
    va_end(ap);
}

/* engine_copy_str into a cleared field (its NUL is the clearing's), by
 * strlen, which the compiler works out for a literal (strnlen it does not):
 * the same bytes for the terminated strings expect() is given. */
static inline __attribute__((always_inline)) void expect_str(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    memcpy(dst, src, len < n ? len : n - 1);
}

/* Inlined at each call: most arguments are literals, whose lengths the
 * compiler then knows, so each copy is a few moves, as is the clearing,
 * where a call with four strnlen and memcpy calls cost ~230 instructions. */
static inline __attribute__((always_inline)) void expect(struct engine_plan *pl, const char *id, double min,
                                                         double max, const char *value, const char *unit,
                                                         const char *why)
{
    struct expectation *e;
    if (pl->n_expectations >= PLAN_EXPECTATIONS_MAX)
        return;
    e = &pl->expectations[pl->n_expectations++];
    memset(e, 0, sizeof *e);
    expect_str(e->id, sizeof e->id, id);
    e->min = min;
    e->max = max;
    expect_str(e->value, sizeof e->value, value ? value : "");
    expect_str(e->unit, sizeof e->unit, unit ? unit : "");
    expect_str(e->why, sizeof e->why, why);
}

static const char *link_name(enum engine_link l)
{
    switch (l) {
    case LINK_NVSWITCH: return "nvswitch";
    case LINK_NVLINK_BRIDGE: return "nvlink-bridge";
    case LINK_XGMI_MESH: return "infinity-fabric";
    case LINK_ETHERNET_SCALEUP: return "roce-scaleup";
    default: return "pcie";
    }
}

static void eval_at(const struct catalog *c, const struct eval_ctx *ctx, const struct engine_plan *pl,
                    const struct engine_gpu *g, double rate, const struct engine_measured *meas, double eff_scale,
                    double bw_scale, struct eval_out *ev)
{
    engine_eval_cluster(c, ctx, g, pl->count, pl->per_node, pl->nodes, rate, meas, eff_scale, bw_scale, &pl->par,
                        ev);
}

void plan_complete(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                   const struct engine_measured *meas)
{
    struct engine_plan_fixed fx;
    plan_cluster(c, ctx, pl, meas, &fx, NULL);
    plan_priced(c, ctx, pl, &fx, NULL);
}

/* A rationale entry the priced part writes (plan_priced), kept in its place
 * among the others: its rule now, its text later. -1 when the list is full,
 * as plan_add_rationale would then have dropped it. */
static int reserve_rationale(struct engine_plan *pl, const char *rule)
{
    struct plan_rationale *r;
    if (pl->n_rationale >= PLAN_RATIONALE_MAX)
        return -1;
    r = &pl->rationale[pl->n_rationale];
    engine_copy_str(r->rule, sizeof r->rule, rule);
    r->text[0] = '\0';
    return pl->n_rationale++;
}

static void set_rationale(struct engine_plan *pl, int at, struct engine_text_memo *m, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_rationale(struct engine_plan *pl, int at, struct engine_text_memo *m, const char *fmt, ...)
{
    va_list ap;
    if (at < 0)
        return;
    va_start(ap, fmt);
    engine_vfmt_memo(m, pl->rationale[at].text, sizeof pl->rationale[at].text, fmt, ap);
    va_end(ap);
}

/* T3's ib_write_bw floor for a port of gbps: DOMAIN.md gives NDR 400 >= 375
 * and HDR 200 >= 185 Gb/s; other rates ~0.93 x line rate, as T3 says they
 * are. 0.93 x 400 = 372 let a 372-374 Gb/s NDR port pass that T3 fails. */
static double t3_write_bw_gbps(double gbps)
{
    if (gbps == 400)
        return 375;
    if (gbps == 200)
        return 185;
    return 0.93 * gbps;
}

/* The all_reduce busbw a node's nccl-tests run over all its GPUs must
 * reach (T1): node_busbw_gbs (engine_int.h), the figure the step model
 * times DP and PP inside the node at. For bridged PCIe cards T1's ~116
 * GB/s is two H100 PCIe on one NVLink bridge (nccl-tests #194), not
 * eight; in a node wider than the group the ring crosses PCIe between the
 * groups. No published run gives that figure (data/ has only the 2-card
 * one): it is an estimate, and the plan's text says so
 * (intra_busbw_split). */
static double intra_busbw_expected(const struct engine_gpu *g, int per_node)
{
    return node_busbw_gbs(g, per_node);
}

/* Whether a node's all_reduce falls to PCIe between scale-up groups
 * (intra_busbw_expected below the catalog's figure). */
static int intra_busbw_split(const struct engine_gpu *g, int per_node)
{
    return intra_busbw_expected(g, per_node) < g->intra_busbw_gbs;
}

/* The number format of the peak eval_peak_tflops gives (F4's text): fp8
 * on a card without FP8 runs at the BF16 rate (the plan warns so), and
 * fp32 training runs on the TF32 tensor cores; a "dense fp8 peak" of an
 * A100's 312 named a rate the card does not have. */
static const char *peak_name(const struct engine_gpu *g, enum engine_precision p)
{
    if (p == PREC_FP8 && !(g->fp8_tflops > 0))
        return "bf16";
    if (p == PREC_FP32)
        return "tf32";
    return engine_precision_name(p);
}

/* plan_add_rationale and plan_add_warning for plan_cluster, through the
 * text memo of the entry's place when tm is not NULL (plan_cluster says
 * why): engine_vfmt_memo writes the bytes engine_vfmt does. */
static void cluster_rationale(struct engine_plan *pl, struct engine_text_memo *tm, const char *rule, const char *fmt,
                              ...) __attribute__((format(printf, 4, 5)));
static void cluster_rationale(struct engine_plan *pl, struct engine_text_memo *tm, const char *rule, const char *fmt,
                              ...)
{
    va_list ap;
    struct plan_rationale *r;
    if (pl->n_rationale >= PLAN_RATIONALE_MAX)
        return;
    r = &pl->rationale[pl->n_rationale];
    engine_copy_str(r->rule, sizeof r->rule, rule);
    va_start(ap, fmt);
    engine_vfmt_memo(tm ? &tm[pl->n_rationale] : NULL, r->text, sizeof r->text, fmt, ap);
    va_end(ap);
    pl->n_rationale++;
}

static void cluster_warning(struct engine_plan *pl, struct engine_text_memo *tm, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void cluster_warning(struct engine_plan *pl, struct engine_text_memo *tm, const char *fmt, ...)
{
    va_list ap;
    if (pl->n_warnings >= PLAN_WARNINGS_MAX)
        return;
    va_start(ap, fmt);
    engine_vfmt_memo(tm ? &tm[PLAN_RATIONALE_MAX + pl->n_warnings] : NULL, pl->warnings[pl->n_warnings],
                     PLAN_TEXT_MAX, fmt, ap);
    va_end(ap);
    pl->n_warnings++;
}

void plan_cluster(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                  const struct engine_measured *meas, struct engine_plan_fixed *fx, struct engine_text_memo *tm)
{
    const struct engine_gpu *g = &c->gpus[pl->gpu_index];
    const struct engine_workload *w = ctx->w;
    const struct engine_model *m = ctx->m;
    int n = pl->count, per_node = pl->per_node, nodes = pl->nodes;
    struct eval_out ev, lo, hi;
    struct engine_memory mem;
    struct run_time rt, rt_lo, rt_hi;
    struct goodput gp;
    double rate, gib = 1024.0 * 1024.0 * 1024.0;
    const struct engine_fabric *f = NULL;

    /* ---- fabric rate: what the search chose with the cluster (or the
     * estimate's given rate), else the GPU's usual rate. */
    rate = pl->fabric_gbps_per_gpu > 0 ? pl->fabric_gbps_per_gpu : engine_default_fabric_gbps(g);
    if (nodes == 1)
        rate = 0;
    pl->fabric_gbps_per_gpu = rate;

    /* ---- time, expected and bounds (F2, F4, F8, F9, F10). The range comes
     * from +-15% kernel efficiency, +25%/-30% bandwidth and 0.5x/3x failure
     * rates (Llama 3 vs research-cluster rates). */
    eval_at(c, ctx, pl, g, rate, meas, 1.0, 1.0, &ev);
    eval_at(c, ctx, pl, g, rate, meas, 1.15, 1.25, &lo);
    eval_at(c, ctx, pl, g, rate, meas, 0.85, 0.70, &hi);
    pl->par.global_batch = ev.global_batch;
    /* start-up and goodput here, the days from the tokens in plan_priced
     * (engine_run_time in its two steps) */
    rt = engine_run_fixed(ctx, g, n, nodes, 1.0);
    rt_lo = engine_run_fixed(ctx, g, n, nodes, 0.5);
    rt_hi = engine_run_fixed(ctx, g, n, nodes, 3.0);
    fx->startup_s[0] = rt.startup_s;
    fx->goodput[0] = rt.gp.goodput;
    fx->tokens_per_s[0] = ev.tokens_per_s;
    fx->startup_s[1] = rt_lo.startup_s;
    fx->goodput[1] = rt_lo.gp.goodput;
    fx->tokens_per_s[1] = lo.tokens_per_s;
    fx->startup_s[2] = rt_hi.startup_s;
    fx->goodput[2] = rt_hi.gp.goodput;
    fx->tokens_per_s[2] = hi.tokens_per_s;
    gp = rt.gp;
    pl->startup_s = rt.startup_s;
    pl->tokens_per_s = ev.tokens_per_s;
    pl->step_time_s = ev.step_s;
    pl->mfu = ev.mfu;
    pl->hfu = ev.hfu;
    pl->comm_fraction = ev.comm_fraction;
    pl->bubble_fraction = ev.bubble_fraction;
    pl->goodput = gp.goodput;
    pl->achieved_tflops = ev.achieved_tflops;
    pl->mtbf_job_h = gp.mtbf_h;
    pl->recompute_name = engine_recompute_name((enum engine_recompute)pl->par.recompute);

    /* ---- memory (F5, F6, F7) */
    mem = engine_memory(m, w, &pl->par, ctx->seq);
    pl->mem_weights_gib = mem.weights / gib;
    pl->mem_gradients_gib = mem.gradients / gib;
    pl->mem_optimizer_gib = mem.optimizer / gib;
    pl->mem_activations_gib = mem.activations / gib;
    pl->mem_other_gib = mem.other / gib;
    pl->mem_per_gpu_gib = mem.total / gib;
    pl->mem_capacity_gib = g->memory_gib;
    pl->host_offload_gib = mem.host_offload / gib;

    /* ---- scale-up link (R12-R15) */
    pl->intra_node = per_node > 1 ? link_name(g->link) : "none";
    if (per_node > 1 && g->link == LINK_NVLINK_BRIDGE && per_node > 2)
        pl->intra_node = "nvlink-bridge";   /* bridged pairs; pairs talk over PCIe */
    pl->gpu_gpu_gbs = per_node > 1 ? g->scaleup_gbs : 0;
    if (per_node > 1 && g->link == LINK_PCIE)
        pl->gpu_gpu_gbs = 2.0 * engine_pcie_gbs(g->pcie_gen);
    /* the node's all_reduce busbw, as the step model takes it */
    pl->intra_busbw_gbs = meas && !isnan(meas->intra_busbw_gbs) ? meas->intra_busbw_gbs : node_busbw_gbs(g, per_node);

    /* ---- fabric (R16-R23), checkpoints (F10) and power (R10) of the
     * search's cost model; storage (F11, R27-R35), cost and bill of
     * materials follow the days (plan_priced). */
    fx->rate = rate;
    fx->fabric = -1;
    {
        const struct engine_fabric *fab = plan_cost_fixed(c, ctx, pl, &gp, 1);
        if (fab)
            fx->fabric = (int)(fab - c->fabrics);
    }
    f = pl->fabric_id[0] ? engine_fabric_by_id(c, pl->fabric_id) : NULL;
    if (nodes > 1)
        pl->inter_busbw_gbs = meas && !isnan(meas->inter_busbw_gbs)
                                  ? meas->inter_busbw_gbs
                                  : pl->scaleout_ports_per_node * (f ? f->busbw_per_nic_gbs : rate / 8.0 * 0.92);

    /* ---- host (R8, R26) */
    {
        /* main + 6 loader workers per GPU; 2 cores per GPU for the RDMA
         * control path when the node talks to others (R26) */
        int threads = per_node * 7 + (nodes > 1 ? 2 * per_node : 0) + 4;
        if (threads < 16)
            threads = 16;
        pl->cpu_threads_per_node = (int)engine_round_up(threads, 16);
        /* R8: RAM holds preprocessed batches, the dataset index and one or
         * two checkpoint copies. Per node: 64 GB for the OS, page cache and
         * CUDA/NCCL host buffers; 16 GB per GPU for its loader workers'
         * prefetched batches; pinned staging as large as what the node's
         * GPUs hold or one copy of the node's checkpoint share, whichever is
         * more (async checkpoints stage each GPU's shard in host RAM, F10;
         * offloaded optimizer state is already there and is not staged
         * twice); plus ZeRO-Offload state (R40). At least 128 GB (R8). A
         * full 8 x B200 plan lands near 1.6 TB (DGX B200: 2 TB), a full
         * GB200 tray near 0.9 TB (Grace: 2 x 480 GB). */
        double offload_gb = pl->host_offload_gib * per_node * gib / 1e9;
        double node_gpu_gb = per_node * pl->mem_per_gpu_gib * gib / 1e9;
        double ckpt_share = pl->ckpt_size_gb / nodes - offload_gb;
        double ram = 64.0 + 16.0 * per_node + (node_gpu_gb > ckpt_share ? node_gpu_gb : ckpt_share) + offload_gb;
        if (ram < 128)
            ram = 128;
        pl->ram_gb_per_node = engine_round_up(ram, 64);
    }

    /* ---- expectations: what the built cluster must show (R24 bottom-up) */
    pl->n_expectations = 0;
    {
        int nvidia = strcmp(g->vendor, "NVIDIA") == 0;
        double h2d = g->pcie_gen >= 6 ? 96.0 : g->pcie_gen == 5 ? 48.0 : g->pcie_gen == 4 ? 24.0 : 12.0;
        expect(pl, EXP_GPU_COUNT, per_node, NAN, NULL, "", "R5");
        /* the card it was sized for: the reports' GPU names must be it
         * (report_check's gpu.model; json_report adds it when judging
         * plans saved before this line) */
        expect(pl, EXP_GPU_MODEL, NAN, NAN, g->id, "", "R5,R6");
        if (nvidia) {
            expect(pl, EXP_TOPO_GPU_COUNT, per_node, NAN, NULL, "", "R14");
            if (per_node > 1) {
                const char *worst = (g->link == LINK_NVSWITCH || (g->link == LINK_NVLINK_BRIDGE && per_node == 2))
                                        ? "NV" : "NODE";
                expect(pl, EXP_TOPO_GPU_LINK, NAN, NAN, worst, "", "R12,R13,R14");
                if (strcmp(worst, "NV") == 0 && g->nvlinks > 0)
                    expect(pl, EXP_TOPO_NVLINK_MIN, g->nvlinks, NAN, NULL, "", "T5");
            }
            expect(pl, EXP_GPU_PCIE_GEN, g->pcie_gen, NAN, NULL, "", "R9,T6");
            expect(pl, EXP_GPU_PCIE_WIDTH, 16, NAN, NULL, "lanes", "R9,T6");
            expect(pl, EXP_GPU_ECC_UNCORR, NAN, 0, NULL, "", "T7");
            expect(pl, EXP_GPU_REMAP_PENDING, NAN, 0, NULL, "", "T7");
            expect(pl, EXP_NVBW_H2D, h2d, NAN, NULL, "GB/s", "T4");
            if (per_node > 1 && g->link != LINK_PCIE)
                expect(pl, EXP_NVBW_D2D, 0.744 * g->scaleup_gbs / 2.0, NAN, NULL, "GB/s", "T5");
            expect(pl, EXP_DCGM_FAIL, NAN, 0, NULL, "", "T10");
            if (g->bf16_tflops > 0)
                expect(pl, EXP_GEMM_TFLOPS, EXP_GEMM_PEAK_FRACTION * g->bf16_tflops, NAN, NULL,
                       "TFLOPS", "F4");
        }
        if (per_node > 1)
            expect(pl, EXP_NCCL_INTRA_BUSBW, intra_busbw_expected(g, per_node), NAN, NULL, "GB/s",
                   intra_busbw_split(g, per_node) ? "T1,T4" : "T1");
        if (nodes > 1 && f) {
            expect(pl, EXP_NCCL_INTER_BUSBW, pl->scaleout_ports_per_node * f->busbw_per_nic_gbs, NAN, NULL, "GB/s", "T2,R25");
            if (nvidia)
                expect(pl, EXP_TOPO_NIC_COUNT, pl->nics_per_node, NAN, NULL, "", "R16");
            expect(pl, EXP_IB_PORTS_ACTIVE, pl->scaleout_ports_per_node, NAN, NULL, "", "R22,T9");
            expect(pl, EXP_IB_RATE, f->gbps, NAN, NULL, "Gb/s", "T9");
            expect(pl, EXP_IB_LINK_LAYER, NAN, NAN, f->kind == FABRIC_INFINIBAND ? "InfiniBand" : "Ethernet", "",
                   "R17,R23");
            expect(pl, EXP_IB_WRITE_BW, t3_write_bw_gbps(f->gbps), NAN, NULL, "Gb/s", "T3");
            expect(pl, EXP_NIC_ERRORS, NAN, 0, NULL, "", "R39");
        }
        if (per_node > 1 || nodes > 1) {
            expect(pl, EXP_NCCL_WRONG, NAN, 0, NULL, "", "T8");
            expect(pl, EXP_NCCL_WARNINGS, NAN, 0, NULL, "", "T8");
        }
        {
            double read_mbs = pl->read_gbs * 1000.0 / nodes * 4.0;   /* 4x headroom over the steady rate */
            double write_mbs = pl->ckpt_write_gbs * 1000.0 / nodes;
            if (read_mbs < 1000.0)
                read_mbs = 1000.0;   /* R29: local NVMe cache reads at least 1 GB/s */
            expect(pl, EXP_STORAGE_READ, engine_round_up(read_mbs, 10), NAN, NULL, "MB/s", "F11,R27");
            expect(pl, EXP_STORAGE_WRITE, engine_round_up(write_mbs, 10), NAN, NULL, "MB/s", "F10,R31");
        }
        expect(pl, EXP_CPU_GOVERNOR, NAN, NAN, "performance", "", "R38");
        expect(pl, EXP_CPU_THREADS, pl->cpu_threads_per_node, NAN, NULL, "", "R8,R26");
    }

    /* ---- rationale: the numbers behind each choice */
    pl->n_rationale = 0;
    cluster_rationale(pl, tm, "F1", "%.1fB parameters (%.1fB active per token) from %d layers, hidden %d, %d/%d heads, "
                       "FFN %d%s, vocabulary %d", ctx->pc.total / 1e9, ctx->pc.active / 1e9, m->layers, m->hidden,
                       m->heads, m->kv_heads, m->ffn_hidden, m->gated ? " (SwiGLU)" : "", m->vocab);
    cluster_rationale(pl, tm, "R2", "16-bit weights alone take %.0f GB; with gradients and Adam state the model "
                       "states are %.0f GB before sharding", ctx->pc.total * 2.0 / 1e9,
                       engine_model_states_bytes(ctx->pc.total, 0, 1, w->optimizer) / 1e9);
    {
        static const char *const sharded[] = {"nothing sharded", "optimizer sharded", "gradients and optimizer sharded",
                                              "weights, gradients and optimizer sharded"};
        int z = pl->par.zero >= 0 && pl->par.zero <= 3 ? pl->par.zero : 0;
        char ep[32] = "";
        if (pl->par.ep > 1)
            engine_fmt(ep, sizeof ep, ", experts split over EP %d", pl->par.ep);
        cluster_rationale(pl, tm, "F5", "%s B per trained parameter (2 weights + 2 gradients + %s optimizer); TP %d x PP %d "
                           "split it, ZeRO-%d over DP %d (%s)%s%s: weights %.1f, gradients %.1f, optimizer %.1f "
                           "GiB per GPU", w->optimizer == OPT_ADAMW_8BIT ? "10" : "16",
                           w->optimizer == OPT_ADAMW_8BIT ? "6 (8-bit Adam + fp32 master)" : "12 (fp32 master + Adam m, v)",
                           pl->par.tp, pl->par.pp, z, pl->par.dp, sharded[z],
                           ep,
                           pl->par.offload ? ", optimizer offloaded to host RAM" : "", pl->mem_weights_gib,
                           pl->mem_gradients_gib, pl->mem_optimizer_gib);
    }
    cluster_rationale(pl, tm, "F6", "activations %.1f GiB per GPU: seq %d, micro-batch %d, %s recompute, "
                       "FlashAttention%s, fp32 logits; total %.1f of %.0f GiB", pl->mem_activations_gib,
                       ctx->seq, pl->par.micro_batch, pl->par.recompute == RECOMPUTE_NONE ? "no" : pl->recompute_name, pl->par.tp > 1 ? ", sequence parallel" : "",
                       pl->mem_per_gpu_gib, g->memory_gib);
    if (w->task == TASK_LORA || w->task == TASK_QLORA)
        cluster_rationale(pl, tm, "F7", "%s: frozen base %.1f GB (%s), rank-%d adapters on every linear layer "
                           "carry the optimizer state", engine_task_name(w->task),
                           engine_lora_base_bytes(m, w) / 1e9,
                           w->task == TASK_QLORA ? "NF4 0.52 B/param, embeddings and head in bf16" : "bf16",
                           w->lora_rank > 0 ? w->lora_rank : 16);
    cluster_rationale(pl, tm, "R40", "memory relief, cheapest rung first: %s mixed precision; %s; gradient accumulation "
                       "x%d (global batch %d = DP %d x micro-batch %d x %d); ZeRO-%d%s; %.1f GiB per GPU against a "
                       "plan limit of %.1f (97%% of %.0f)", engine_precision_name(w->precision),
                       pl->par.recompute == RECOMPUTE_NONE ? "no recompute needed"
                       : pl->par.recompute == RECOMPUTE_SELECTIVE ? "selective recompute" : "full recompute",
                       ev.grad_accum, ev.global_batch, pl->par.dp, pl->par.micro_batch, ev.grad_accum, pl->par.zero,
                       pl->par.offload ? ", CPU offload" : "", pl->mem_per_gpu_gib, 0.97 * g->memory_gib,
                       g->memory_gib);
    fx->r_flops = reserve_rationale(pl, w->task == TASK_PRETRAIN || w->task == TASK_FINETUNE ? "F2" : "F3");
    cluster_rationale(pl, tm, "F4", "%s at %.0f TFLOP/s dense %s peak x kernel efficiency %.2f (generation, "
                       "matrix width h/tp = %d, %d tokens per micro-batch) gives MFU %.2f, %.0f TFLOP/s per GPU",
                       g->name, eval_peak_tflops(g, w->precision), peak_name(g, w->precision), ev.eff,
                       m->hidden / pl->par.tp, ctx->seq * pl->par.micro_batch, pl->mfu, pl->achieved_tflops);
    /* The GPUs the scale-up link joins, as the step model takes them
     * (eval_t_tp): a TP group wider than tp_in but inside the node (or
     * NVL72 domain) crosses PCIe between scale-up groups at the node's
     * busbw; wider than that, the NICs'. The texts say which. */
    int domain = scaleup_reach(g, per_node), tp_in = tp_reach(g, per_node);
    int tp_out = pl->par.tp > tp_in, tp_node = tp_out && pl->par.tp <= domain;
    cluster_rationale(pl, tm, "F8", "exposed communication %.1f%% of a %.2f s step (TP %.3f s over %s, PP %.3f s, DP "
                       "%.3f s, MoE all-to-all %.3f s)", 100.0 * pl->comm_fraction, ev.step_s, ev.t_tp,
                       tp_node ? "PCIe inside the node" : tp_out ? "the inter-node fabric" : pl->intra_node, ev.t_pp,
                       ev.t_dp, ev.t_moe);
    if (pl->par.pp > 1)
        cluster_rationale(pl, tm, "F9", "pipeline bubble (p-1)/(v*m) = (%d-1)/(%d*%d) = %.1f%% of compute",
                           pl->par.pp, pl->par.vpp, ev.grad_accum,
                           100.0 * (pl->par.pp - 1) / ((double)pl->par.vpp * ev.grad_accum));
    fx->r_days = reserve_rationale(pl, "F4");
    if (per_node > 1 && g->link == LINK_PCIE)
        cluster_rationale(pl, tm, pl->par.tp > 1 ? "R13" : "R12",
                           "no NVLink: the %d GPUs of a node talk over PCIe Gen%d (%.0f GB/s per GPU, all_reduce busbw "
                           "%.0f GB/s)%s", per_node, g->pcie_gen, pl->gpu_gpu_gbs, g->intra_busbw_gbs,
                           pl->par.tp > 1 ? "; tensor parallel runs through the CPU root complex (see F8 for its "
                                            "time)" : "; TP 1 keeps the per-layer all-reduces off PCIe");
    else if (per_node > 1 && intra_busbw_split(g, per_node))
        /* a node of bridged groups: the groups' busbw, and the node's
         * all_reduce over PCIe between them (what the plan expects, T1) */
        cluster_rationale(pl, tm, "R12",
                           "%s inside the node (%.0f GB/s per GPU, all_reduce busbw %.0f GB/s in a %d-GPU group, ~%.0f "
                           "GB/s across all %d over PCIe Gen%d: an estimate, %.1f x %.1f GB/s per direction, T4, at "
                           "which DP and PP inside the node are timed); TP %d %s the %d-GPU scale-up domain%s", pl->intra_node,
                           pl->gpu_gpu_gbs, g->intra_busbw_gbs, g->scaleup_domain, intra_busbw_expected(g, per_node),
                           per_node, g->pcie_gen, PCIE_BUSBW_FRACTION, engine_pcie_gbs(g->pcie_gen),
                           pl->par.tp, tp_out ? "is wider than" : "kept inside", tp_in,
                           tp_node ? ": its all-reduces cross PCIe between the groups, timed at that estimate (F8)"
                           : tp_out ? ": its all-reduces are timed at the NICs' busbw (F8)" : "");
    else if (per_node > 1 && !tp_out)
        cluster_rationale(pl, tm, g->link == LINK_NVSWITCH ? "R15" : "R12",
                           "%s inside the node (%.0f GB/s per GPU, all_reduce busbw %.0f GB/s); TP %d kept inside "
                           "the %d-GPU scale-up domain%s", pl->intra_node, pl->gpu_gpu_gbs, g->intra_busbw_gbs,
                           pl->par.tp, tp_in,
                           domain > per_node ? ", which joins the nodes' GPUs: TP, PP and DP among them run at that "
                                               "busbw too" : "");
    else if (per_node > 1)
        cluster_rationale(pl, tm, g->link == LINK_NVSWITCH ? "R15" : "R12",
                           "%s inside the node (%.0f GB/s per GPU, all_reduce busbw %.0f GB/s); TP %d is wider than "
                           "the %d-GPU scale-up domain: its all-reduces are timed at the NICs' busbw (F8: keep TP "
                           "inside the NVLink domain)", pl->intra_node, pl->gpu_gpu_gbs, g->intra_busbw_gbs,
                           pl->par.tp, tp_in);
    if (nodes > 1 && f) {
        if (g->scaleout_ports > 0) {
            cluster_rationale(pl, tm, "R16", "no NICs bought: each %s sends RDMA from its own on-chip RoCE ports, "
                               "%d of them for scale-out at %.0f Gb/s (%s); %d ports per node, %.0f Gb/s per GPU",
                               g->id, g->scaleout_ports, g->scaleout_port_gbps, g->scaleout_source,
                               pl->scaleout_ports_per_node, rate);
            cluster_rationale(pl, tm, "R17", "the on-chip ports are RoCE v2 Ethernet at %.0f GbE: %d switch ports on "
                               "%d-port Ethernet switches, lossless PFC/ECN on every hop; the ports' %d x %.0f = "
                               "%.0f Gb/s caps the fabric rate per GPU", f->gbps, nodes * pl->scaleout_ports_per_node,
                               f->switch_radix, g->scaleout_ports, g->scaleout_port_gbps,
                               g->scaleout_ports * g->scaleout_port_gbps);
        } else {
            cluster_rationale(pl, tm, "R16", "%d NICs per node, one per GPU for GPUDirect RDMA, %.0f Gb/s each (%s)",
                               pl->nics_per_node, f->gbps, f->name);
        }
        cluster_rationale(pl, tm, "R37", "%.0f Gb/s per GPU leaves exposed communication at %.1f%% of step time, %s "
                           "R37's %.0f%% tuning threshold", rate, 100.0 * pl->comm_fraction,
                           pl->comm_fraction > COMM_TARGET ? "above" : "within", 100.0 * COMM_TARGET);
        cluster_rationale(pl, tm, "R19", "%s: %d endpoints on radix-%d switches: %d leaf, %d spine, %d core; %d links",
                           pl->topology, nodes * pl->scaleout_ports_per_node, f->switch_radix, pl->switches_leaf,
                           pl->switches_spine, pl->switches_core, pl->links);
        cluster_rationale(pl, tm, "R20", "1:1 oversubscription: training all-reduces keep every port busy; 1:2-1:3 "
                           "congests in bursts");
        cluster_rationale(pl, tm, "R23", "%s", f->kind == FABRIC_ROCE
                           ? "RoCE v2 must be lossless: matching PFC priority on switch and NIC, ECN thresholds "
                             "not too aggressive"
                           : "InfiniBand is lossless by credit-based flow control; needs a subnet manager (T9)");
    }
    /* the source's scale tier for this model: the plan's storage follows the data */
    fx->r_scale = reserve_rationale(pl, ctx->pc.total >= 100e9 ? "R35"
                                        : ctx->pc.total >= 10e9 && w->task != TASK_LORA && w->task != TASK_QLORA ? "R34"
                                                                                                                : "R33");
    cluster_rationale(pl, tm, "F10", "checkpoint %.3g GB (14 B per trained parameter%s); job MTBF %.1f h at 2.2e-5 "
                       "failures per GPU-hour; async stall %.1f s; Young/Daly interval %.0f min; restart = start-up "
                       "%.0f min (F4b); goodput %.3f", pl->ckpt_size_gb,
                       w->task == TASK_LORA || w->task == TASK_QLORA ? ": the adapters only" : "", pl->mtbf_job_h,
                       pl->ckpt_stall_s, pl->ckpt_interval_min, pl->startup_s / 60.0, pl->goodput);
    cluster_rationale(pl, tm, "R32", "keep the last %d checkpoints; write to a temporary name, atomic rename, then "
                       "delete the oldest; persist at %.3g GB/s (within half an interval)", pl->ckpt_keep,
                       pl->ckpt_write_gbs);
    fx->r_data = reserve_rationale(pl, "F11");
    {
        double offload_gb = pl->host_offload_gib * per_node * gib / 1e9;
        double node_gpu_gb = per_node * pl->mem_per_gpu_gib * gib / 1e9;
        double ckpt_share = pl->ckpt_size_gb / nodes - offload_gb;
        cluster_rationale(pl, tm, "R8", "%d CPU threads per node (7 per GPU for the step and 6 loader workers%s, +4, "
                           "rounded to 16) and %.0f GB RAM (64 OS + 16 per GPU for batches + %.0f GB staging %s%s, "
                           "rounded up to 64 GB, at least 128)", pl->cpu_threads_per_node,
                           nodes > 1 ? ", 2 per GPU for the RDMA control path (R26)" : "", pl->ram_gb_per_node,
                           node_gpu_gb > ckpt_share ? node_gpu_gb : ckpt_share,
                           node_gpu_gb > ckpt_share ? "of what the GPUs hold" : "of the node's checkpoint share",
                           pl->par.offload ? " + offloaded optimizer" : "");
    }
    fx->r_cost = reserve_rationale(pl, w->pricing == PRICING_CLOUD ? "R11" : "R5");
    cluster_rationale(pl, tm, "R10", "%.1f kW IT load = %d node%s x (%d x %.0f W TDP x 1.25 for the host share + 1.2 kW) "
                       "+ %d switch%s; size PSUs and cooling for it and keep GPU cores below 80 C", pl->power_kw, nodes,
                       nodes > 1 ? "s" : "", per_node, g->tdp_w,
                       pl->switches_leaf + pl->switches_spine + pl->switches_core,
                       pl->switches_leaf + pl->switches_spine + pl->switches_core == 1 ? "" : "es");

    /* ---- warnings */
    pl->n_warnings = 0;
    /* Scaling efficiency: the share of a step spent in useful GEMMs. Exposed
     * communication (R37: above 20% needs tuning), the pipeline bubble (F9)
     * and the optimizer step are what more GPUs add; when they eat a quarter
     * of the step, or MFU falls below half of what the GPU's kernels reach
     * (F4 ceiling), each extra GPU buys little. A low ceiling alone (AMD,
     * Intel, QLoRA) is not a scaling problem. */
    {
        double useful = ev.step_s > 0 ? ev.t_compute / ev.step_s : 1.0;
        if (pl->comm_fraction > COMM_TARGET)
            cluster_warning(pl, tm, "communication-bound: exposed communication is %.1f%% of step time, above R37's "
                             "%.0f%%: tune or use fewer, better-connected GPUs", 100.0 * pl->comm_fraction,
                             100.0 * COMM_TARGET);
        if (useful < 0.75 || pl->mfu < 0.5 * ev.eff)
            cluster_warning(pl, tm, "poor scaling efficiency: %.0f%% of each step is useful compute (communication "
                             "%.0f%%, pipeline bubble %.0f%%), MFU %.2f against a kernel ceiling of %.2f on %d GPUs; "
                             "fewer GPUs would use each one better (R4, R37, F9)", 100.0 * useful,
                             100.0 * pl->comm_fraction, 100.0 * pl->bubble_fraction, pl->mfu, ev.eff, n);
    }
    if (pl->par.tp > 1 && g->link == LINK_PCIE)
        cluster_warning(pl, tm, "tensor parallel %d over PCIe only: its all-reduces take %.2f s of a %.2f s step "
                         "through the CPU root complex (R13, F8)", pl->par.tp, ev.t_tp, ev.step_s);
    if (w->precision == PREC_FP8 && !(g->fp8_tflops > 0))
        cluster_warning(pl, tm, "%s has no FP8 tensor cores: estimated at the BF16 rate", g->id);
    if (strncmp(g->id, "rtx", 3) == 0) {
        cluster_warning(pl, tm, "%s is a %s card: %.0f GiB, PCIe Gen%d, no NVLink, no datacenter support contract; "
                         "fine for small models and fine-tuning (R33)", g->id,
                         strstr(g->name, "GeForce") ? "consumer (GeForce)" : "workstation", g->memory_gib, g->pcie_gen);
        if (nodes > 1)
            cluster_warning(pl, tm, "%d nodes of %s need RDMA between them (R16, %.0f Gb/s per GPU here); marketplace "
                             "rentals of consumer cards rarely offer it: confirm RoCE before renting (R21)", nodes,
                             g->id, rate);
    }
    if (pl->par.offload)
        cluster_warning(pl, tm, "optimizer state (%.1f GiB per GPU) lives in host RAM: the CPU Adam step adds "
                         "time (R40)", pl->host_offload_gib);
    if (ev.global_batch > ctx->batch_seqs * 1.5)
        cluster_warning(pl, tm, "data parallel %d forces a global batch of %d sequences, %.1fx the target; check "
                         "convergence", pl->par.dp, ev.global_batch, ev.global_batch / ctx->batch_seqs);
    fx->warn_at = pl->n_warnings;   /* plan_priced's run-length warning goes here */
    if (g->restricted)
        cluster_warning(pl, tm, "%s has restricted availability: %s", g->id, g->availability_note);
    if (pl->price_conf >= PRICE_ESTIMATE)
    {
        char price[48];
        if (w->pricing == PRICING_CLOUD)
            engine_fmt(price, sizeof price, "$%.2f per GPU-hour", g->cloud_usd_per_gpu_hour);
        else
            engine_fmt(price, sizeof price, "$%.0f per %d-GPU server", g->server_usd * (double)per_node / g->per_node,
                     per_node);
        cluster_warning(pl, tm, "price confidence: the cost rests on %s for %s (%s, as of %s), %s; get a quote "
                         "before committing", price, g->id,
                         pl->price_conf == PRICE_ASSUMPTION ? "an accounting assumption, not a market price"
                                                            : "our estimate, not a published price",
                         g->price_as_of, "see the catalog source");
    }
}

/* Which part of the cost a bill line is (0 GPUs or servers, 1 fabric, 2
 * storage, 3 electricity), by its item's name: compared only with the names
 * that begin with its first letter, each as its bytes with the NUL (the
 * item field holds 32, so reading as many as a name has stays inside it):
 * equal exactly when strcmp says so, in a load or two instead of a call. */
static int bom_part(const struct plan_bom_line *b)
{
    _Static_assert(sizeof b->item >= sizeof "electricity", "every name fits the field");
    switch (b->item[0]) {
    case 'g': return memcmp(b->item, "gpu-hours", sizeof "gpu-hours") == 0 ? 0 : 1;
    case 's':
        return memcmp(b->item, "servers", sizeof "servers") == 0   ? 0
               : memcmp(b->item, "storage", sizeof "storage") == 0 ? 2
                                                                  : 1;
    case 'e': return memcmp(b->item, "electricity", sizeof "electricity") == 0 ? 3 : 1;
    default: return 1;
    }
}

/* The parts of a plan that follow the tokens and the dataset, on top of
 * plan_cluster's: the days (F4, F4b, F10 bounds), the run's FLOPs, storage,
 * bill of materials and cost (plan_cost_priced), the rationale entries
 * plan_cluster kept for them, and the run-length warning in its place. */
void plan_priced(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                 const struct engine_plan_fixed *fx, struct engine_text_memo *tm)
{
    const struct engine_gpu *g = &c->gpus[pl->gpu_index];
    const struct engine_workload *w = ctx->w;
    int n = pl->count, per_node = pl->per_node, nodes = pl->nodes;
    double rate = fx->rate;
    /* Each text through the memo kept for its place (tm NULL: none). */
#define TM(site) (tm ? &tm[site] : NULL)

    pl->flops_total = ctx->fpt_model * w->tokens_b * 1e9;
    /* F4 + F4b: wall time = start-up + tokens / throughput / goodput. */
    pl->days = engine_run_days(ctx, fx->startup_s[0], fx->goodput[0], fx->tokens_per_s[0]);
    pl->days_low = engine_run_days(ctx, fx->startup_s[1], fx->goodput[1], fx->tokens_per_s[1]);
    pl->days_high = engine_run_days(ctx, fx->startup_s[2], fx->goodput[2], fx->tokens_per_s[2]);
    pl->gpu_hours = pl->days * 24.0 * n;
    plan_cost_priced(c, ctx, pl, fx->fabric >= 0 ? &c->fabrics[fx->fabric] : NULL, 1,
                     tm ? &tm[ENGINE_TEXT_BOM] : NULL);

    set_rationale(pl, fx->r_flops, TM(ENGINE_TEXT_R_FLOPS),
                  "%.3g model FLOPs per token x %.4g B tokens = %.3g FLOPs (recompute counted apart: "
                  "HFU %.2f vs MFU %.2f)", ctx->fpt_model, w->tokens_b, pl->flops_total, pl->hfu, pl->mfu);
    set_rationale(pl, fx->r_days, TM(ENGINE_TEXT_R_DAYS),
                  "%.4g tokens/s; %.3g days = start-up %.0f min (F4b: provisioning, warm-up, NCCL "
                  "init on %d node%s, loading weights/checkpoint) + tokens / throughput / goodput %.3f (range "
                  "%.3g-%.3g days)", pl->tokens_per_s, pl->days, pl->startup_s / 60.0, nodes, nodes > 1 ? "s" : "",
                  pl->goodput, pl->days_low, pl->days_high);
    {
        /* The source's scale tier for this model, and how the plan compares. */
        double hot_tb = pl->n_storage > 0 ? pl->storage[0].capacity_tb : 0;
        const char *hot = pl->n_storage > 0 ? pl->storage[0].kind : "no";
        if (ctx->pc.total >= 100e9)
            set_rationale(pl, fx->r_scale, TM(ENGINE_TEXT_R_SCALE),
                          "100B+ (%.0fB): 32+ GPUs, 200/400G RDMA, leaf-spine or fat-tree, "
                          "hot/warm/cold storage; this plan: %d GPUs, %.0f Gb/s per GPU, %s, %d storage tier%s (%s "
                          "hot, %.0f TB)", ctx->pc.total / 1e9, n, rate, pl->topology, pl->n_storage,
                          pl->n_storage == 1 ? "" : "s", hot, hot_tb);
        else if (ctx->pc.total >= 10e9 && w->task != TASK_LORA && w->task != TASK_QLORA)
            set_rationale(pl, fx->r_scale, TM(ENGINE_TEXT_R_SCALE),
                          "10B-100B (%.0fB): one 8-GPU NVLink node, 16-32 GPUs for serious runs, "
                          "RDMA of 100G+ (200G or InfiniBand preferred), shared storage; this plan: %d GPUs in %d "
                          "node%s, %.0f Gb/s %s per GPU, %s hot tier", ctx->pc.total / 1e9, n, nodes,
                          nodes > 1 ? "s" : "", rate, nodes > 1 ? engine_fabric_kind_name(pl->fabric_kind) : "(none)",
                          hot);
        else
            set_rationale(pl, fx->r_scale, TM(ENGINE_TEXT_R_SCALE),
                          "up to ~1B or fine-tuning (%.1fB, %s): one 24-32 GB card or 2-4 in a "
                          "node, 2-10 TB local NVMe, no over-design; this plan: %d GPU%s in %d node%s, %s hot tier "
                          "%.1f TB", ctx->pc.total / 1e9, engine_task_name(w->task), n, n > 1 ? "s" : "", nodes,
                          nodes > 1 ? "s" : "", hot, hot_tb);
    }
    set_rationale(pl, fx->r_data, TM(ENGINE_TEXT_R_DATA),
                  "dataset %.3g TB (%s); training reads %.3g MB/s cluster-wide (%.4g tokens/s x "
                  "4 B x 2 for shuffling); checkpoints write %.3g GB/s; %s hot tier%s", pl->dataset_tb,
                  !isnan(w->dataset_tb) ? "given" : "tokens x 4 B", pl->read_gbs * 1000.0, pl->tokens_per_s,
                  pl->ckpt_write_gbs, pl->n_storage > 0 ? pl->storage[0].kind : "no",
                  nodes > 2 ? " with local NVMe cache per node (R29)" : " (R28)");
    {
        /* The cost in its parts, from the bill of materials. */
        double part[4] = {0};   /* gpus/servers, fabric, storage, electricity */
        for (int i = 0; i < pl->n_bom; i++) {
            int k = bom_part(&pl->bom[i]);
            part[k] += pl->bom[i].total_usd;
        }
        if (w->pricing == PRICING_CLOUD)
            set_rationale(pl, fx->r_cost, TM(ENGINE_TEXT_R_COST),
                          "$%.0f = %d GPUs x %.0f billed h (F4c: whole hours, 1 h minimum) x $%.2f "
                          "per GPU-hour ($%.0f; %s price as of %s) + storage $%.0f; the same GPU differs across zones "
                          "and providers: benchmark before committing", pl->cost_usd, n, pl->billed_hours,
                          g->cloud_usd_per_gpu_hour, part[0], engine_price_conf_name(g->cloud_price_conf),
                          g->price_as_of, part[2]);
        else
            set_rationale(pl, fx->r_cost, TM(ENGINE_TEXT_R_COST),
                          "$%.0f = %d server%s x $%.0f ($%.0f; %s price as of %s) + fabric $%.0f + "
                          "storage $%.0f + electricity $%.0f (%.3g kW for %.1f days at $0.10/kWh)", pl->cost_usd,
                          nodes, nodes > 1 ? "s" : "", g->server_usd * (double)per_node / g->per_node, part[0],
                          engine_price_conf_name(g->server_price_conf), g->price_as_of, part[1], part[2], part[3],
                          pl->power_kw, pl->days);
    }
    /* The run-length warning where plan_add_warning would have put it,
     * among plan_cluster's: the ones after it move down one, and the last
     * drops out when the list is full, as it would have. */
    if (pl->days > 365 && fx->warn_at >= 0 && fx->warn_at < PLAN_WARNINGS_MAX) {
        int last = pl->n_warnings < PLAN_WARNINGS_MAX ? pl->n_warnings : PLAN_WARNINGS_MAX - 1;
        for (int i = last; i > fx->warn_at; i--)
            memcpy(pl->warnings[i], pl->warnings[i - 1], sizeof pl->warnings[i]);
        engine_fmt_memo(TM(ENGINE_TEXT_WARN), pl->warnings[fx->warn_at], PLAN_TEXT_MAX,
                        "the run takes %.0f days (%.1f years) on %d GPUs: more GPUs shorten it at a higher cost (F4)",
                        pl->days, pl->days / 365.0, n);
        pl->n_warnings = last + 1;
    }
#undef TM
}

double engine_plan_days_at(const struct catalog *c, const struct engine_workload *w, const struct engine_plan *plan,
                           const struct engine_measured *m)
{
    struct eval_ctx ctx;
    struct eval_out ev;
    struct goodput gp;
    const struct engine_gpu *g;

    if (plan->gpu_index < 0 || plan->gpu_index >= c->n_gpus || plan->count < 1 || !plan->feasible ||
        plan->par.tp < 1 || plan->par.pp < 1 || plan->par.dp < 1)
        return NAN;
    g = &c->gpus[plan->gpu_index];
    eval_ctx_init(&ctx, &w->model, w);
    if (plan->par.global_batch > 0)
        ctx.batch_seqs = plan->par.global_batch;
    eval_at(c, &ctx, plan, g, plan->fabric_gbps_per_gpu, m, 1.0, 1.0, &ev);
    {
        double start = engine_startup_s(plan->nodes, engine_load_bytes_per_node(&ctx, plan->nodes));
        gp = eval_goodput(plan->count, engine_ckpt_bytes(&ctx) / plan->count, engine_pcie_gbs(g->pcie_gen), 1.0,
                          start);
        return (start + w->tokens_b * 1e9 / ev.tokens_per_s / gp.goodput) / 86400.0;
    }
}
