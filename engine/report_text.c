/* report_text.c: the small text tools every report parser uses: tokenizing a
 * line in place, one number parser, span comparisons and bounded copies.
 *
 * Nothing here allocates or copies the input: parsers look at windows
 * (pointer + length) into the caller's text, which need not end in NUL, so
 * every helper takes an explicit length and never reads past it. The number
 * parser is written out by hand because strtod needs a NUL-terminated string
 * and honours the locale. The helpers run on every line of a long log, so
 * the scans take sixteen bytes a step with SSE2 where it is there (the
 * tokenizer, in steps of four such compares, the line's pair set, the
 * case-folded pair test) and eight with plain word arithmetic elsewhere
 * (the comma splitter); each has a byte loop giving the same answer, for
 * other machines and for the last bytes. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "report_int.h"

/* Blank bytes as one shift and mask: ' ', '\t', '\v', '\f'. Tokenizing is the
 * inner loop of every table row. */
static int is_sp(char c)
{
    unsigned char u = (unsigned char)c;
    return (u <= ' ') & (int)((0x100001A00ull >> (u & 63)) & 1);
}

int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!is_sp(s[i]) && s[i] != '\r')
            return 0;
    return 1;
}

/* Eight bytes at a time (SWAR): a byte mask of blanks per word, its edges
 * found with a bit scan, so a table row costs one step per word and one per
 * token edge instead of several per byte. Words holding a control byte
 * (tab, '\v', '\f', or any other below ' ') take the exact per-byte test.
 * The word helpers (w_load, w_eq, w_lt) are in report_int.h. */
/* The tokenizer's state between steps: tokens found, whether the last byte
 * looked at was inside one, and where that one started. */
struct tok_walk {
    int n, in_tok;
    size_t start;
};

/* Takes the token edges of one step: masks with a bit set for each byte
 * where a token starts (starts) and for each blank byte just after one
 * (ends), byte j of the step at bit j (shift 0: the SSE2 movemask) or at bit
 * 8j+7 (shift 3: the SWAR word's high bits). Edges alternate, so after the
 * end of a token that began in an earlier step, the k-th start of the step
 * pairs with its k-th end: a token costs one pass of the loop, not one per
 * edge with a test of which edge it is. A last start with no end left is a
 * token that goes on into the next step. The SSE2 and SWAR steps share this
 * walk. Returns 1 once max tokens are out. */
static inline int walk_edges(struct tok_walk *w, const char *s, size_t base, uint64_t starts,
                             uint64_t ends, unsigned shift, struct tok *out, int max)
{
    if (w->in_tok) {
        if (!ends)
            return 0;           /* it goes on past this step (so no start either) */
        size_t e = base + ((unsigned)__builtin_ctzll(ends) >> shift);
        out[w->n].s = s + w->start;
        out[w->n].len = e - w->start;
        ends &= ends - 1;
        w->in_tok = 0;
        if (++w->n == max)
            return 1;
    }
    /* From here on the edges alternate, a start first: the k-th end closes
     * the k-th start, and a start left over begins a token that goes on
     * into the next step. A step of 64 bytes or fewer holds at most 32
     * tokens: with room for that many, the tokens are taken with no test
     * of the count or of a missing end (most steps). */
    if (w->n + 32 <= max) {
        /* one pointer walks the output, the count taken from it at the end */
        const char *p = s + base;
        struct tok *o = out + w->n;
        while (ends) {
            unsigned b = (unsigned)__builtin_ctzll(starts) >> shift;
            unsigned e = (unsigned)__builtin_ctzll(ends) >> shift;
            starts &= starts - 1;
            ends &= ends - 1;
            o->s = p + b;
            o->len = e - b;
            o++;
        }
        w->n = (int)(o - out);
        if (starts) {
            w->start = base + ((unsigned)__builtin_ctzll(starts) >> shift);
            w->in_tok = 1;
        }
        return 0;
    }
    while (starts) {
        size_t b = base + ((unsigned)__builtin_ctzll(starts) >> shift);
        starts &= starts - 1;
        if (!ends) {
            w->start = b;
            w->in_tok = 1;
            return 0;
        }
        size_t e = base + ((unsigned)__builtin_ctzll(ends) >> shift);
        ends &= ends - 1;
        out[w->n].s = s + b;
        out[w->n].len = e - b;
        if (++w->n == max)
            return 1;
    }
    return 0;
}

#if defined(__SSE2__)
/* Bit j set for each blank byte p[j] of sixteen: the four blank bytes
 * compared for directly, so tab-aligned tables (topo matrices, lscpu) take
 * the same step as space-padded ones. */
static inline unsigned blank16(const char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i b = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))),
                             _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\v')),
                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('\f'))));
    return (unsigned)_mm_movemask_epi8(b);
}

/* Bit j set for each space p[j] of sixteen, and in *ctl a byte set for
 * each byte below 0x20 (among them the other blanks, '\t', '\v', '\f'):
 * most rows hold spaces only, and when a step's *ctl stays zero its
 * spaces are its blanks, in two compares instead of blank16's four. */
static inline unsigned space16(const char *p, __m128i *ctl)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    *ctl = _mm_or_si128(*ctl, _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v));
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
}

/* The blank mask of s[i, len) (fewer than 64 bytes, len >= 16), byte i at
 * bit 0, from sixteen-byte steps, the last one a window ending at len (its
 * bytes before i, already walked, shifted out; bytes compared twice give
 * the same bit twice): its spaces (space16) with ctl, else (ctl NULL) its
 * blanks (blank16). */
static inline uint64_t rest_mask(const char *s, size_t len, size_t i, __m128i *ctl)
{
    size_t rem = len - i, k = 0;
    uint64_t m = 0;
    for (; k + 16 <= rem; k += 16)
        m |= (uint64_t)(ctl ? space16(s + i + k, ctl) : blank16(s + i + k)) << k;
    if (k < rem) {
        uint64_t tail = ctl ? space16(s + len - 16, ctl) : blank16(s + len - 16);
        m |= rem >= 16 ? tail << (rem - 16) : tail >> (16 - rem);
    }
    return m;
}
#endif

/* On x86-64 with GCC, built twice and picked once at load time by the CPU
 * (function multiversioning): with BMI1 a token's edge walk clears each
 * lowest bit in one instruction (blsr) instead of two; other machines take
 * the default build. The same code either way, so the same tokens (0.75%
 * fewer instructions on the bench log; no other function here gained).
 * Not with clang, whose dispatcher (clang 14) other files of a static
 * library do not link against by the plain name. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("bmi", "default")))
#endif
int tok_split(const char *s, size_t len, struct tok *out, int max)
{
    struct tok_walk w = {0, 0, 0};
    size_t i = 0;
    if (max <= 0)
        return 0;
    if (max > TOK_MAX)
        max = TOK_MAX;
#if defined(__SSE2__)
    /* With SSE2 the edge walk runs on a 64-bit mask of sixteen-byte
     * compares: table rows are long and mostly padding, so the scan is most
     * of the work and the edges are few per step. */
    for (; i + 64 <= len; i += 64) {
        __m128i ctl = _mm_setzero_si128();
        uint64_t blank = (uint64_t)space16(s + i, &ctl) |
                         (uint64_t)space16(s + i + 16, &ctl) << 16 |
                         (uint64_t)space16(s + i + 32, &ctl) << 32 |
                         (uint64_t)space16(s + i + 48, &ctl) << 48;
        if (_mm_movemask_epi8(ctl))         /* a control byte: the exact test */
            blank = (uint64_t)blank16(s + i) | (uint64_t)blank16(s + i + 16) << 16 |
                    (uint64_t)blank16(s + i + 32) << 32 | (uint64_t)blank16(s + i + 48) << 48;
        uint64_t word = ~blank;
        uint64_t prev = (word << 1) | (w.in_tok ? 1u : 0u);
        if (walk_edges(&w, s, i, word & ~prev, blank & prev, 0, out, max))
            return w.n;
    }
    if (i < len && len >= 16) {
        /* The last bytes (fewer than 64) in one step: their blank mask
         * (rest_mask), and every bit past the end set, as if the line went
         * on with a blank: a token reaching the end then ends there like
         * any other, so one edge walk takes all of them. */
        size_t rem = len - i;
        __m128i ctl = _mm_setzero_si128();
        uint64_t blank = rest_mask(s, len, i, &ctl);
        if (_mm_movemask_epi8(ctl))
            blank = rest_mask(s, len, i, NULL);  /* a control byte: the exact test */
        blank |= ~(uint64_t)0 << rem;
        uint64_t word = ~blank;
        uint64_t prev = (word << 1) | (w.in_tok ? 1u : 0u);
        walk_edges(&w, s, i, word & ~prev, blank & prev, 0, out, max);
        return w.n;
    }
#endif
    for (; i + 8 <= len; i += 8) {
        uint64_t x = w_load(s + i);
        uint64_t blank = w_eq(x, W_REP(' '));
        if (w_lt(x, 0x20)) {
            blank = 0;
            for (unsigned j = 0; j < 8; j++)
                if (is_sp(s[i + j]))
                    blank |= 0x80ull << (8 * j);
        }
        uint64_t word = ~blank & W_HI;                 /* bytes inside a token */
        uint64_t prev = (word << 8) | (w.in_tok ? 0x80u : 0u);
        if (walk_edges(&w, s, i, word & ~prev, blank & prev, 3, out, max))
            return w.n;
    }
    for (; i < len; i++) {
        int sp = is_sp(s[i]);
        if (!sp && !w.in_tok) {
            w.start = i;
            w.in_tok = 1;
        } else if (sp && w.in_tok) {
            out[w.n].s = s + w.start;
            out[w.n].len = i - w.start;
            w.in_tok = 0;
            if (++w.n == max)
                return w.n;
        }
    }
    if (w.in_tok) {
        out[w.n].s = s + w.start;
        out[w.n].len = len - w.start;
        w.n++;
    }
    return w.n;
}

const double report_pow10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

static double scale10(double m, int e)
{
    /* Exact for |e| <= 22 and m below 2^53: one correctly rounded operation. */
    while (e > 22) {
        m *= 1e22;
        e -= 22;
        if (isinf(m))
            return m;
    }
    while (e < -22) {
        m /= 1e22;
        e += 22;
        if (m == 0.0)
            return m;
    }
    return e >= 0 ? m * report_pow10[e] : m / report_pow10[-e];
}

static unsigned digit(char c)
{
    return (unsigned)(unsigned char)c - '0';
}

/* The general number reader (more than 19 digits, exponents, no digits),
 * from i, past any sign: kept out of line so that the short cells of
 * tables take only the small fast path below, with no register spills. */
static size_t __attribute__((noinline)) num_prefix_slow(const char *s, size_t len, double *v,
                                                        size_t i, int neg)
{
    unsigned long long mant = 0;
    int digits = 0, exp10 = 0, any = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (digits < 19) {
            mant = mant * 10 + (unsigned)(s[i] - '0');
            if (mant)
                digits++;
        } else {
            exp10++;
        }
        any = 1;
        i++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (digits < 19) {
                mant = mant * 10 + (unsigned)(s[i] - '0');
                if (mant)
                    digits++;
                exp10--;
            }
            any = 1;
            i++;
        }
    }
    if (!any)
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        int eneg = 0, e = 0, edig = 0;
        if (j < len && (s[j] == '-' || s[j] == '+')) {
            eneg = s[j] == '-';
            j++;
        }
        while (j < len && s[j] >= '0' && s[j] <= '9') {
            if (e < 10000)
                e = e * 10 + (s[j] - '0');
            edig = 1;
            j++;
        }
        if (edig) {
            exp10 += eneg ? -e : e;
            i = j;
        }
    }
    double d = scale10((double)mant, exp10);
    *v = neg ? -d : d;
    return i;
}

/* Parse a number at s; returns characters used (0 if none). */
static inline size_t num_prefix(const char *s, size_t len, double *v)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    /* Table cells are short: with at most 19 digits the mantissa holds
     * every one of them exactly, which is what the general reader computes
     * too, in fewer steps per digit. */
    size_t j = i;
    unsigned long long m = 0;
    while (j < len && digit(s[j]) <= 9)
        m = m * 10 + digit(s[j++]);
    size_t nint = j - i, nfrac = 0;
    if (j < len && s[j] == '.') {
        size_t f = ++j;
        while (j < len && digit(s[j]) <= 9)
            m = m * 10 + digit(s[j++]);
        nfrac = j - f;
    }
    if (nint + nfrac > 0 && nint + nfrac <= 19 &&
        (j == len || (s[j] != 'e' && s[j] != 'E'))) {
        double d = nfrac ? (double)m / report_pow10[nfrac] : (double)m;
        *v = neg ? -d : d;
        return j;
    }
    return num_prefix_slow(s, len, v, i, neg);
}

/* num_parse's general case (report_int.h): more than 19 digits, an
 * exponent, or no digits. */
int num_parse_slow(const char *s, size_t len, double *v, size_t i, int neg)
{
    double d;
    if (num_prefix_slow(s, len, &d, i, neg) != len || !isfinite(d))
        return 0;
    *v = d;
    return 1;
}

int num_parse_suffix(const char *s, size_t len, double *v)
{
    double d, mul = 1;
    if (len == 0)
        return 0;
    size_t used = num_prefix(s, len, &d);
    if (used == 0)
        return 0;
    if (used + 1 == len) {
        switch (s[used]) {
        case 'k': case 'K': mul = 1e3; break;
        case 'm': case 'M': mul = 1e6; break;
        case 'g': case 'G': mul = 1e9; break;
        default: return 0;
        }
    } else if (used != len) {
        return 0;
    }
    d *= mul;
    if (!isfinite(d))
        return 0;
    *v = d;
    return 1;
}

int num_scan(const char *s, size_t len, double *v, size_t *end)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if ((c >= '0' && c <= '9') ||
            ((c == '-' || c == '.') && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            double d;
            size_t used = num_prefix(s + i, len - i, &d);
            if (used && isfinite(d)) {
                *v = d;
                if (end)
                    *end = i + used;
                return 1;
            }
        }
    }
    return 0;
}

/* The _z comparisons walk z once instead of measuring it first: keys are
 * matched against tables of names, and most differ in the first byte. */
int span_eq_z(const char *s, size_t len, const char *z)
{
    for (size_t i = 0; i < len; i++)
        if (z[i] == '\0' || z[i] != s[i])
            return 0;
    return z[len] == '\0';
}

int span_starts_z(const char *s, size_t len, const char *z)
{
    for (size_t i = 0; z[i] != '\0'; i++)
        if (i >= len || z[i] != s[i])
            return 0;
    return 1;
}

int tok_eq_z(const struct tok *t, const char *z)
{
    return span_eq_z(t->s, t->len, z);
}

void line_pairs_fill(const struct line *l)
{
    struct line_pairs *p = l->pairs;
    const unsigned char *s = (const unsigned char *)l->raw;
    unsigned short gen = (unsigned short)(p->gen + 1);
    if (gen == 0) {
        /* Numbers wrapped: stale slots could look current, so clear. */
        memset(p->seen, 0, sizeof(p->seen));
        gen = 1;
    }
    p->gen = gen;
    size_t i = 0, n = l->raw_len;
#if defined(__SSE2__)
    /* Sixteen pairs a step: the hashes of bytes i..i+15 with their
     * successors in 16-bit lanes (pair_hash's formula), then sixteen plain
     * stores. The per-byte loop spent most of its time loading and
     * combining the two bytes of each pair. */
    const __m128i z = _mm_setzero_si128(), m511 = _mm_set1_epi16(511);
    for (; i + 1 < n && n >= 17; i += 16) {
        /* the last step is a window ending at the line's end: storing a
         * pair twice is harmless, and it spares up to fifteen scalar steps */
        if (i + 17 > n)
            i = n - 17;
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 1));
        __m128i lo = _mm_and_si128(_mm_xor_si128(_mm_slli_epi16(_mm_unpacklo_epi8(x, z), 3),
                                                 _mm_unpacklo_epi8(y, z)), m511);
        __m128i hi = _mm_and_si128(_mm_xor_si128(_mm_slli_epi16(_mm_unpackhi_epi8(x, z), 3),
                                                 _mm_unpackhi_epi8(y, z)), m511);
        unsigned short h[16];
        _mm_storeu_si128((__m128i *)(void *)h, lo);
        _mm_storeu_si128((__m128i *)(void *)(h + 8), hi);
        for (int k = 0; k < 16; k++)
            p->seen[h[k]] = gen;
    }
#endif
    for (; i + 1 < n; i++)
        p->seen[pair_hash(s[i], s[i + 1])] = gen;
}

int csv_split(const char *s, size_t len, struct tok *out, int max)
{
    int n = 0;
    size_t b = 0;
    while (n < max) {
        /* the next ',' from b (or len): eight bytes a step while eight
         * are left, as fields are short and a call costs more */
        size_t c = b;
        for (;;) {
            if (c + 8 > len) {
                while (c < len && s[c] != ',')
                    c++;
                break;
            }
            uint64_t m = w_eq(w_load(s + c), W_REP(','));
            if (m) {
                c += (size_t)(__builtin_ctzll(m) >> 3);
                break;
            }
            c += 8;
        }
        const char *f = s + b;
        size_t fl = c - b;
        span_trim(&f, &fl);
        out[n].s = f;
        out[n].len = fl;
        n++;
        if (c >= len)
            break;
        b = c + 1;
    }
    return n;
}

const char *span_find_z(const char *s, size_t len, const char *z)
{
    return span_find_n(s, len, z, strlen(z));
}

/* Eight bytes of s with each control byte (below 0x20, or 0x7f) made a
 * space: w_lt and w_eq mark them exactly, and the marks, spread to whole
 * bytes, pick a space for them. */
static inline uint64_t w_no_ctl(uint64_t x)
{
    uint64_t bad = (w_lt(x, 0x20) | w_eq(x, W_REP(0x7f))) >> 7;
    bad *= 0xFF;
    return (x & ~bad) | (W_REP(' ') & bad);
}

static inline void w_store(char *d, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(d, &x, sizeof(x));
}

void span_copy(char *dst, size_t dstlen, const char *s, size_t len)
{
    if (dstlen == 0)
        return;
    size_t n = len < dstlen - 1 ? len : dstlen - 1;
    /* Control bytes would make invalid JSON text downstream: each becomes
     * a space. Names and values copied here run to a few dozen bytes, so
     * sixteen (SSE2) or eight a step, the last step a window ending at
     * the end (bytes written twice get the same value twice). */
    size_t i = 0;
#if defined(__SSE2__)
    if (n >= 16) {
        const __m128i lim = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f),
                      sp = _mm_set1_epi8(' ');
        for (;; i += 16) {
            if (i + 16 > n)
                i = n - 16;
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            __m128i bad = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(v, lim), v),
                                       _mm_cmpeq_epi8(v, del));
            _mm_storeu_si128((__m128i *)(void *)(dst + i),
                             _mm_or_si128(_mm_andnot_si128(bad, v), _mm_and_si128(bad, sp)));
            if (i + 16 >= n)
                break;
        }
        i = n;
    }
#endif
    if (i < n && n >= 8) {
        for (; i + 8 <= n; i += 8)
            w_store(dst + i, w_no_ctl(w_load(s + i)));
        if (i < n)
            w_store(dst + n - 8, w_no_ctl(w_load(s + n - 8)));
        i = n;
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    /* Do not leave half a UTF-8 sequence at the cut. */
    if (n < len) {
        while (n > 0 && ((unsigned char)dst[n - 1] & 0xC0) == 0x80)
            n--;
        if (n > 0 && ((unsigned char)dst[n - 1] & 0xC0) == 0xC0)
            n--;
    }
    dst[n] = '\0';
}

unsigned span_hash(const char *s, size_t len)
{
    unsigned h = 2166136261u;
    size_t i = 0;
    /* (FNV-1a, four bytes a pass: the loop's own steps were a third of
     * its cost on host names) */
    for (; i + 4 <= len; i += 4) {
        h = (h ^ (unsigned char)s[i]) * 16777619u;
        h = (h ^ (unsigned char)s[i + 1]) * 16777619u;
        h = (h ^ (unsigned char)s[i + 2]) * 16777619u;
        h = (h ^ (unsigned char)s[i + 3]) * 16777619u;
    }
    for (; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h ? h : 1;
}

void section_issue(struct report_section *sec, const char *msg)
{
    for (int i = 0; i < sec->issue_count; i++)
        if (strcmp(sec->issues[i], msg) == 0)
            return;
    if (sec->issue_count >= REPORT_ISSUES_MAX)
        return;
    span_copy(sec->issues[sec->issue_count], REPORT_ISSUE_LEN, msg, strlen(msg));
    sec->issue_count++;
}
