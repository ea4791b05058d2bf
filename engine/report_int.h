/* report_int.h: what the report parsers share inside the module: the line
 * view (a cleaned-up window into the input, never a copy), the tokenizer,
 * the one number parser, the eight-byte word helpers, name tables with their
 * lengths, and each kind's parser entry points. */
#ifndef GPUPLAN_REPORT_INT_H
#define GPUPLAN_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "report.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Eight bytes as one word (SWAR), byte 0 lowest on any machine: the
 * tokenizer and the line cleaner test a word's bytes all at once. */
#define W_LO 0x7F7F7F7F7F7F7F7Full
#define W_HI 0x8080808080808080ull
#define W_REP(c) (0x0101010101010101ull * (unsigned char)(c))

/* 0x80 in each byte equal to the byte in rep (exact, no borrow between bytes). */
static inline uint64_t w_eq(uint64_t x, uint64_t rep)
{
    uint64_t t = x ^ rep;
    return ~(((t & W_LO) + W_LO) | t) & W_HI;
}

/* 0x80 in each byte below n (n <= 0x80; exact). */
static inline uint64_t w_lt(uint64_t x, unsigned n)
{
    return ~(((x & W_LO) + W_REP(0x80 - n)) | x) & W_HI;
}

static inline uint64_t w_load(const char *s)
{
    uint64_t x;
    memcpy(&x, s, sizeof(x));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}


/* One input line after removing terminal and paste debris: `> ` quoting,
 * tmux pane borders, stray backticks, CR, leading/trailing blanks.
 * s points into the caller's text; len excludes the debris. */
struct line {
    const char *s;
    size_t len;
    int indent;                /* columns of leading blanks removed (tab = 8) */
    int hashed;                /* a leading '#' comment mark was present (s skips it) */
    const char *raw;           /* the line before removing '#', for kinds that need it */
    size_t raw_len;
    int info;                  /* nccl_is_info(), worked out once by the driver */
    struct line_pairs *pairs;  /* filled on demand by line_find; NULL: no filter
                                  (nor notes: line_note_get) */
};

/* Box-drawing characters (U+2500..U+257F: E2 94 80 .. E2 95 BF) are terminal
 * multiplexer borders and fancy prompts, never tool output. */
static inline int box_at(const char *s, size_t len)
{
    return len >= 3 && (unsigned char)s[0] == 0xE2 &&
           ((unsigned char)s[1] == 0x94 || (unsigned char)s[1] == 0x95);
}

/* Bytes that may open the paste debris line_clean removes (DEBRIS_OPEN) or
 * end it (DEBRIS_END). Most lines open and end with neither, and one table
 * load each tells so, where the chains of tests in line_clean took a dozen
 * branches a line. A line whose first byte opens no debris keeps it as its
 * raw text's first byte (the driver relies on that to drop NCCL INFO lines
 * before cleaning them). A box character's last byte is any continuation
 * byte, so line_clean's end test also looks three bytes back for its lead
 * byte 0xE2. */
#define DEBRIS_OPEN 1u
#define DEBRIS_END 2u
static inline unsigned line_debris(unsigned char c)
{
    static const unsigned char debris[256] = {
        [' '] = 3, ['\t'] = 3, ['\r'] = 3, ['`'] = 3, ['>'] = 1, [0xE2] = 1,
    };
    return debris[c];
}

/* line_clean's front loop, for a line opening with a debris byte: the
 * debris removed, s and *len past it, *indent its blank columns. Each pass
 * removes at least one byte, so this ends within len passes. */
static inline const char *clean_front(const char *s, size_t *lenp, int *indentp)
{
    size_t len = *lenp;
    int indent = 0;
#if defined(__SSE2__)
    /* Most of that debris is indentation (half the lines of a log open
     * with blanks): the run of spaces and tabs in the first sixteen bytes
     * in one step, as the loop below would count it (a space 1, a tab 8),
     * where the loop took a pass per eight spaces and per tab, and an
     * exit no predictor learns. The loop goes on from the run's end. */
    if (len >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned sp = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
        unsigned tb = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
        unsigned other = ~(sp | tb) & 0xFFFFu;
        unsigned k = other ? (unsigned)__builtin_ctz(other) : 16;
        indent = (int)k;
        for (unsigned t = tb & ((1u << k) - 1u); t; t &= t - 1)
            indent += 7;
        s += k;
        len -= k;
    }
#endif
    for (;;) {
        if (!len || !(line_debris((unsigned char)*s) & DEBRIS_OPEN))
            break;
        if (len >= 8 && *s == ' ') {
            /* indented output: the run of spaces in the next eight bytes
             * in one step (a word's first non-space byte by a bit scan) */
            uint64_t ns = ~w_eq(w_load(s), W_REP(' ')) & W_HI;
            unsigned k = ns ? (unsigned)__builtin_ctzll(ns) >> 3 : 8;
            indent += (int)k;
            s += k;
            len -= k;
        } else if (len && (*s == ' ' || *s == '\t' || *s == '\r')) {
            indent += *s == '\t' ? 8 : 1;
            s++;
            len--;
        } else if (len && *s == '>' && (len == 1 || s[1] == ' ' || s[1] == '\t' || s[1] == '>')) {
            s++;
            len--;
            indent = 0;
        } else if (len && *s == '`') {
            s++;
            len--;
        } else if (box_at(s, len)) {
            s += 3;
            len -= 3;
            indent = 0;
        } else {
            break;
        }
    }
    *lenp = len;
    *indentp = indent;
    return s;
}

/* Whether the line of len bytes at s may end with debris (line_debris, or
 * a box character's last byte). */
static inline int clean_back_needed(const char *s, size_t len)
{
    return len && ((line_debris((unsigned char)s[len - 1]) & DEBRIS_END) ||
                   (len >= 3 && (unsigned char)s[len - 3] == 0xE2));
}

/* line_clean's end loop, for a line clean_back_needed says may end with
 * debris: len less the debris it ends with. */
static inline size_t clean_back(const char *s, size_t len)
{
    do {
        if (len >= 8 && s[len - 1] == ' ') {
            /* padded lines: the trailing run of spaces in the last eight
             * bytes in one step */
            uint64_t ns = ~w_eq(w_load(s + len - 8), W_REP(' ')) & W_HI;
            len -= ns ? (unsigned)__builtin_clzll(ns) >> 3 : 8;
        } else if (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' ||
                    s[len - 1] == '`')) {
            len--;
        } else if (len >= 3 && box_at(s + len - 3, 3)) {
            len -= 3;
        } else {
            break;
        }
    } while (clean_back_needed(s, len));
    return len;
}

/* Fill l's text fields (s, len, raw, raw_len, indent, hashed) from the line
 * at s without its paste debris. Inline: the driver calls it on every line,
 * and the test checks it against the byte loops it replaced. */
static inline __attribute__((always_inline)) void line_clean(const char *s, size_t len, struct line *l)
{
    int indent = 0;
    /* Most lines open and end with no debris: one table load at each end
     * says so before either loop is entered. */
    if (len && (line_debris((unsigned char)*s) & DEBRIS_OPEN))
        s = clean_front(s, &len, &indent);
    if (clean_back_needed(s, len))
        len = clean_back(s, len);
    l->raw = s;
    l->raw_len = len;
    l->indent = indent;
    l->hashed = 0;
    if (len && *s == '#') {
        l->hashed = 1;
        s++;
        len--;
        /* nccl-tests' "#" lines pad their column titles with dozens of
         * spaces: eight a step, as in front of the line */
        while (len && (*s == ' ' || *s == '\t')) {
            size_t k = 1;
            if (len >= 8 && *s == ' ') {
                uint64_t ns = ~w_eq(w_load(s), W_REP(' ')) & W_HI;
                k = ns ? (unsigned)__builtin_ctzll(ns) >> 3 : 8;
            }
            s += k;
            len -= k;
        }
    }
    l->s = s;
    l->len = len;
    /* A lone "#" is a blank line of nccl-tests; callers may read l->s[0] of
     * any line that is not blank, so an empty one must count as blank. */
    if (len == 0)
        l->raw_len = 0;
}

/* The set of adjacent byte pairs in a line's raw text, hashed into 512 slots.
 * A marker can occur in the line only if all of its pairs are in the set,
 * so most searches for markers a line does not hold end after a few bit
 * tests instead of a scan. Lines are asked for dozens of markers (every
 * detector, then the section's parser), but many lines only a few, so the
 * set is built on the sixth search (PAIRS_AFTER), not before: a fill costs
 * some five memchr searches of a line (callgrind: on the bench log and on
 * the fixtures once each, the sixth beat the third, the fourth and the
 * eighth). */
#define PAIRS_AFTER 6
struct line_pairs {
    /* One slot per hash holding the stamp of the fill that last set it, so
     * a new line's set starts empty without clearing: plain stores, no
     * read-modify-write. Reused from line to line by the driver. */
    unsigned short seen[512];
    unsigned short gen;        /* stamp of the current fill; 0 is never used */
    int searches;              /* searches so far; the set is valid once
                                  >= PAIRS_AFTER */
    /* The driver's per-line scratch holds more: the parser whose memo
     * of texts (report_parse.c) holds the notes (NULL: none, as in a set
     * made outside the driver), the line's slot in it (NULL until looked
     * up) and whether the slot holds the line's text. */
    void *memo_owner;
    void *memo_slot;
    int memo_hit;
};

#define TOK_MAX 64

struct tok {
    const char *s;
    size_t len;
};

#define LINE_NO_BRACKET ((size_t)-1)
/* Length of the line at s (up to '\n' or the end, avail bytes) and, in *rb,
 * the offset of its first ']' (LINE_NO_BRACKET if none), which tells NCCL
 * INFO lines apart. One pass finds both: every line needs both, and two
 * library calls per line cost more than the scan. With SSE2, sixteen bytes a
 * step in two phases: until the first ']' one mask test per step says
 * whether either byte is there (line_scan_head); after it (INFO lines have
 * theirs in the first 30 bytes of about 100) the rest is a search for '\n'
 * alone, 32 bytes a step (line_scan_tail). The driver runs the two phases
 * itself, to look at a line's INFO marker between them. Every line of the
 * input passes through here: inline, in the driver's loop. */
/* The first phase: 1 when the line's end comes before any ']' or in the
 * step that finds the first (*ll its length, *rb as line_scan says); 0 when
 * a ']' comes first: *rb is its offset, s[0, *at) holds no newline, and
 * line_scan_tail(s, avail, *at) finds the line's end. (A flag, not a length
 * with a reserved value: inlined, each return then branches straight to its
 * case, with no compare of the length a line.) */
static inline int line_scan_head(const char *s, size_t avail, size_t *ll, size_t *rb, size_t *at)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i vn = _mm_set1_epi8('\n'), vb = _mm_set1_epi8(']');
    for (; i + 16 <= avail; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i en = _mm_cmpeq_epi8(v, vn), eb = _mm_cmpeq_epi8(v, vb);
        if (!_mm_movemask_epi8(_mm_or_si128(en, eb)))
            continue;
        unsigned mn = (unsigned)_mm_movemask_epi8(en);
        unsigned mb = (unsigned)_mm_movemask_epi8(eb);
        if (mn) {
            /* only brackets before the newline (most lines hold none: one
             * test says so) */
            *rb = LINE_NO_BRACKET;
            if (mb && (mb &= (mn & -mn) - 1))
                *rb = i + (unsigned)__builtin_ctz(mb);
            *ll = i + (unsigned)__builtin_ctz(mn);
            return 1;
        }
        *rb = i + (unsigned)__builtin_ctz(mb);  /* a ']' and no newline yet */
        *at = i + 16;
        return 0;
    }
#endif
    for (; i < avail && s[i] != '\n'; i++)
        if (s[i] == ']') {
            *rb = i;
            *at = i + 1;
            return 0;
        }
    *rb = LINE_NO_BRACKET;
    *ll = i;
    return 1;
}

/* The second phase: the offset of the line's end (its newline, or avail),
 * searched from i on. */
static inline size_t line_scan_tail(const char *s, size_t avail, size_t i)
{
#if defined(__SSE2__)
    const __m128i vn = _mm_set1_epi8('\n');
    for (; i + 32 <= avail; i += 32) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i e0 = _mm_cmpeq_epi8(v0, vn), e1 = _mm_cmpeq_epi8(v1, vn);
        if (!_mm_movemask_epi8(_mm_or_si128(e0, e1)))
            continue;
        unsigned m = (unsigned)_mm_movemask_epi8(e0) | ((unsigned)_mm_movemask_epi8(e1) << 16);
        return i + (unsigned)__builtin_ctz(m);
    }
    if (i + 16 <= avail) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), vn));
        if (m)
            return i + (unsigned)__builtin_ctz(m);
        i += 16;
    }
#endif
    for (; i < avail && s[i] != '\n'; i++)
        ;
    return i;
}

/* Both phases: the line's length, its first ']' in *rb (as the driver
 * reads them, less its INFO test between; the unit test holds this to a
 * byte loop). */
static inline size_t line_scan(const char *s, size_t avail, size_t *rb)
{
    size_t at = 0, ll = 0;
    return line_scan_head(s, avail, &ll, rb, &at) ? ll : line_scan_tail(s, avail, at);
}

/* Split l into blank-separated tokens (spaces or tabs); at most max. */
int tok_split(const char *s, size_t len, struct tok *out, int max);
/* num_parse's general case, from s[i] past any sign: more than 19 digits,
 * an exponent, or no digits. */
int num_parse_slow(const char *s, size_t len, double *v, size_t i, int neg);
extern const double report_pow10[23];     /* 1e0 .. 1e22, each exact */
/* num_parse from s[j] on, the digits s[i, j) already taken into the
 * mantissa m (for readers that take a run of digits in one step first).
 * Forced inline: as a call it cost the parse 2 instructions a line. */
static inline __attribute__((always_inline)) int num_parse_from(const char *s, size_t len, double *v,
                                                                size_t i, size_t j, unsigned long long m,
                                                                int neg)
{
    while (j < len && (unsigned)(unsigned char)s[j] - '0' <= 9)
        m = m * 10 + ((unsigned)(unsigned char)s[j++] - '0');
    size_t nint = j - i, nfrac = 0;
    if (j < len && s[j] == '.') {
        size_t f = ++j;
        while (j < len && (unsigned)(unsigned char)s[j] - '0' <= 9)
            m = m * 10 + ((unsigned)(unsigned char)s[j++] - '0');
        nfrac = j - f;
    }
    if (j < len && s[j] != 'e' && s[j] != 'E')
        return 0;
    if (j == len && nint + nfrac > 0 && nint + nfrac <= 19) {
        double d = nfrac ? (double)m / report_pow10[nfrac] : (double)m;
        *v = neg ? -d : d;
        return 1;
    }
    return num_parse_slow(s, len, v, i, neg);
}

/* Parse a whole token as a number ("47.38", "-1", "1e+00", "18.6k" with
 * allow_suffix). Returns 1 and sets *v, or 0 when the token is not a number.
 * Inline: table cells are read by the hundred thousand, and the
 * call cost as much as reading a short cell. With at most 19 digits the
 * mantissa holds every one of them exactly, and one division by an exact
 * power of ten rounds correctly, as the general reader does. A token that
 * stops on a byte other than 'e' or 'E' is turned down at once: the general
 * reader would stop there too, short of the token's end. */
static inline int num_parse(const char *s, size_t len, double *v)
{
    size_t i = 0;
    int neg = 0;
    if (len == 0)
        return 0;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
    }
    return num_parse_from(s, len, v, i, i, 0, neg);
}

/* num_parse for a table cell s[0, len) whose last eight bytes may be read
 * from lo on (s >= lo; lo: the start of the cell's line). A cell of one to
 * eight bytes, digits with at most one '.', is read in one word: the bytes
 * before it taken as leading zeros, the '.' taken out by moving the bytes
 * before it up one, then eight digits converted at once (num_parse_wide's
 * steps). The mantissa is the one num_parse's loops make, so the double is
 * the same; what this saves is the branch a digit and, above all, each
 * loop's exit, which no predictor learns on a table's cells of varying
 * width (callgrind: a mispredicted branch a cell or two). Any other token
 * goes to num_parse. The test holds it to num_parse on random tokens. */
static inline int num_parse_lo(const char *s, size_t len, double *v, const char *lo)
{
    if (len - 1 < 8 && (size_t)(s - lo) + len >= 8) {
        uint64_t x = w_load(s + len - 8);
        uint64_t pad = ((uint64_t)1 << ((8 - len) * 8)) - 1;  /* the bytes before the cell */
        x = (x & ~pad) | (W_REP('0') & pad);
        uint64_t dot = w_eq(x, W_REP('.'));
        size_t nfrac = 0;
        if (dot) {
            /* the first '.' (its lowest byte): the digits after it are the
             * fraction, and the bytes before it move up over it (a second
             * '.' stays, and is no digit below) */
            uint64_t bk = (dot & -dot) >> 7;                   /* its low bit */
            nfrac = (size_t)(63 - __builtin_ctzll(dot)) >> 3;  /* bytes after it */
            x = (x & ~((bk << 8) - 1)) | ((x & (bk - 1)) << 8) | '0';
        }
        if (((x & 0xF0F0F0F0F0F0F0F0ull) |
             (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
                0x3333333333333333ull &&
            (len > 1 || !dot)) {
            x -= 0x3030303030303030ull;
            x = x * 10 + (x >> 8);
            x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
                 (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
                32;
            *v = nfrac ? (double)x / report_pow10[nfrac] : (double)x;
            return 1;
        }
    }
    return num_parse(s, len, v);
}

int num_parse_suffix(const char *s, size_t len, double *v);
/* First number in s (skipping non-digits before it). Sets *end past it. */
int num_scan(const char *s, size_t len, double *v, size_t *end);

/* Comparisons against a text of known length. The span_eq, span_starts,
 * span_find and tok_eq macros take a string literal and pass its length at
 * compile time (the "" x "" makes anything else a compile error); the _z
 * functions take any NUL-terminated string. Lines are compared against
 * dozens of markers, so the strlen these save is most of a parser's time. */
/* The first byte is compared before calling memcmp: most comparisons of a
 * line against a marker fail there, and the call costs more than the test. */
static inline int span_eq_n(const char *s, size_t len, const char *lit, size_t n)
{
    return n == len && (n == 0 || (s[0] == lit[0] && memcmp(s, lit, n) == 0));
}

static inline int span_starts_n(const char *s, size_t len, const char *lit, size_t n)
{
    return len >= n && (n == 0 || (s[0] == lit[0] && memcmp(s, lit, n) == 0));
}

/* The first occurrence of lit (n bytes) in s, anchored on lit[a]: the
 * literal's rarest byte in the lines it is searched in, so that memchr stops
 * at few false starts. Inline, like span_find_n: markers are string literals
 * searched for in most lines, and inlined the literal's bytes and length are
 * constants, so a search that fails (most do) costs the memchr call alone.
 * One report_parse of the bench log ran 4% fewer instructions so. */
static inline const char *span_find_at(const char *s, size_t len, const char *lit, size_t n,
                                       size_t a)
{
    if (n == 0 || len < n || a >= n)
        return NULL;
    const char *last = s + len - n;      /* last possible start */
    const char *p = s;
    while (p <= last) {
        const char *q = memchr(p + a, lit[a], (size_t)(last - p) + 1);
        if (!q)
            return NULL;
        q -= a;
        /* the last byte first: most false starts fail there, and a
         * library call costs more than the test */
        if (q[n - 1] == lit[n - 1] && memcmp(q, lit, n) == 0)
            return q;
        p = q + 1;
    }
    return NULL;
}
/* span_find_at anchored on lit's first non-blank byte: lines are full of
 * spaces, so anchoring " Test" on its 'T' skips most false starts. For a
 * literal the anchor is found at compile time. */
static inline const char *span_find_n(const char *s, size_t len, const char *lit, size_t n)
{
    size_t a = 0;
    while (a + 1 < n && lit[a] == ' ')
        a++;
    return span_find_at(s, len, lit, n, a);
}
/* Whether s holds the lower-case letters a, b next to each other, either in
 * either case (a necessary condition for markers that share them, asked in
 * one pass before searching for each). Inline: asked of every line of some
 * kinds, with constant letters. */
static inline int span_has_pair_ci(const char *s, size_t len, char a, char b)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i fold = _mm_set1_epi8(0x20), va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
    for (; i + 17 <= len; i += 16) {
        __m128i x = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), fold);
        __m128i y = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + i + 1)), fold);
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, va)) & _mm_movemask_epi8(_mm_cmpeq_epi8(y, vb)))
            return 1;
    }
    /* The last bytes: one window ending at the line's end, overlapping
     * the pairs already tested, instead of up to sixteen scalar steps. */
    if (i < len && len >= 17) {
        size_t j = len - 17;
        __m128i x = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + j)), fold);
        __m128i y = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + j + 1)), fold);
        return (_mm_movemask_epi8(_mm_cmpeq_epi8(x, va)) & _mm_movemask_epi8(_mm_cmpeq_epi8(y, vb))) != 0;
    }
#endif
    if (i == 0 && len >= 9 && len < 17) {
        /* A short line (headings, "{", table rules): two eight-pair
         * windows, at the start and ending at the end, cover every pair
         * (they overlap when len < 17) in a dozen word operations instead
         * of a test a byte. */
        const uint64_t low = W_REP(0x20);
        size_t k = len - 9;
        uint64_t h = w_eq(w_load(s) | low, W_REP(a)) & w_eq(w_load(s + 1) | low, W_REP(b));
        h |= w_eq(w_load(s + k) | low, W_REP(a)) & w_eq(w_load(s + k + 1) | low, W_REP(b));
        return h != 0;
    }
    for (; i + 1 < len; i++)
        if ((s[i] | 0x20) == a && (s[i + 1] | 0x20) == b)
            return 1;
    return 0;
}

/* Keeps the low six bits of the first byte (case and letter) and all of the
 * second: letter pairs rarely collide. */
static inline unsigned pair_hash(unsigned char a, unsigned char b)
{
    return (((unsigned)a << 3) ^ b) & 511u;
}

static inline int pairs_has(const struct line_pairs *p, unsigned char a, unsigned char b)
{
    return p->seen[pair_hash(a, b)] == p->gen;
}

void line_pairs_fill(const struct line *l);

/* Build the pair set now: for callers about to ask a line for many markers. */
static inline void line_pairs_ensure(const struct line *l)
{
    struct line_pairs *p = l->pairs;
    if (p && p->searches < PAIRS_AFTER) {
        p->searches = PAIRS_AFTER;
        line_pairs_fill(l);
    }
}

/* 0 when lit (n bytes) cannot occur in the line's raw text, or in any part
 * of it such as l->s; 1 when it may. Checks the first, middle and last pair. */
static inline int line_may_hold(const struct line *l, const char *lit, size_t n)
{
    struct line_pairs *p = l->pairs;
    if (n < 2 || !p)
        return 1;
    if (p->searches < PAIRS_AFTER) {
        if (++p->searches < PAIRS_AFTER)
            return 1;
        line_pairs_fill(l);
    }
    size_t m = n / 2;
    return pairs_has(p, (unsigned char)lit[0], (unsigned char)lit[1]) &&
           pairs_has(p, (unsigned char)lit[m - 1], (unsigned char)lit[m]) &&
           pairs_has(p, (unsigned char)lit[n - 2], (unsigned char)lit[n - 1]);
}

/* span_find over l->s or l->raw, answered from the pair set when it can. */
static inline const char *line_find_n(const struct line *l, const char *lit, size_t n)
{
    return line_may_hold(l, lit, n) ? span_find_n(l->s, l->len, lit, n) : NULL;
}

static inline const char *line_find_raw_n(const struct line *l, const char *lit, size_t n)
{
    return line_may_hold(l, lit, n) ? span_find_n(l->raw, l->raw_len, lit, n) : NULL;
}
static inline const char *line_find_raw_at(const struct line *l, const char *lit, size_t n,
                                           size_t a)
{
    return line_may_hold(l, lit, n) ? span_find_at(l->raw, l->raw_len, lit, n, a) : NULL;
}

static inline const char *line_find_at(const struct line *l, const char *lit, size_t n, size_t a)
{
    return line_may_hold(l, lit, n) ? span_find_at(l->s, l->len, lit, n, a) : NULL;
}
#define LIT_N(x) ("" x ""), (sizeof("" x "") - 1)
/* A table of names with their lengths, ended by {NULL, 0}: keys and markers
 * are matched against whole tables per line, and a length compare (or a
 * search with a known length) spares walking or measuring each name. */
struct name {
    const char *s;
    size_t n;
};
#define NAME(x) {LIT_N(x)}
/* Index of the name equal to [s, s+len), or -1. */
static inline int name_index(const char *s, size_t len, const struct name *list)
{
    for (int i = 0; list[i].s; i++)
        if (span_eq_n(s, len, list[i].s, list[i].n))
            return i;
    return -1;
}
#define span_eq(s, len, lit) span_eq_n((s), (len), LIT_N(lit))
#define span_starts(s, len, lit) span_starts_n((s), (len), LIT_N(lit))
#define span_find(s, len, lit) span_find_n((s), (len), LIT_N(lit))
#define tok_eq(t, lit) span_eq_n((t)->s, (t)->len, LIT_N(lit))
#define line_find(l, lit) line_find_n((l), LIT_N(lit))
#define line_find_raw(l, lit) line_find_raw_n((l), LIT_N(lit))
#define line_find_a(l, lit, a) line_find_at((l), LIT_N(lit), (a))
#define line_find_raw_a(l, lit, a) line_find_raw_at((l), LIT_N(lit), (a))
#define line_find_z(l, z) line_find_n((l), (z), strlen(z))
#define line_find_raw_z(l, z) line_find_raw_n((l), (z), strlen(z))
/* strcmp(arr, lit) == 0 for a char array at least as long as the literal:
 * a fixed-size compare the compiler does inline (parsers ask it per line). */
#define str_is(arr, lit) \
    (sizeof(arr) >= sizeof("" lit "") ? memcmp((arr), (lit), sizeof("" lit "")) == 0 \
                                       : strcmp((arr), (lit)) == 0)
/* snprintf(dst, dl, "%s", z) without the formatting machinery. */
static inline void text_set(char *dst, size_t dl, const char *z)
{
    size_t n = strlen(z);
    if (dl == 0)
        return;
    if (n >= dl)
        n = dl - 1;
    memcpy(dst, z, n);
    dst[n] = '\0';
}
int span_eq_z(const char *s, size_t len, const char *z);
int span_starts_z(const char *s, size_t len, const char *z);
const char *span_find_z(const char *s, size_t len, const char *z);
int tok_eq_z(const struct tok *t, const char *z);
/* Whether s starts with lit, ignoring ASCII case. Inline: callers pass
 * literals, whose length the compiler then knows (a strlen per call was a
 * visible part of ibstat's per-line cost). */
static inline int span_starts_ci(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    if (len < n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char a = s[i], b = lit[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}
/* span_trim and kv_split are inline: "key : value" lines are split by
 * the ten thousand, and the calls cost a third of the trimming. */
/* Blanks or CR, as one shift and mask like is_sp. */
static inline int is_sp_cr(char c)
{
    unsigned char u = (unsigned char)c;
    return (u <= ' ') & (int)((0x100003A00ull >> (u & 63)) & 1);
}
/* Trim blanks on both sides of [*s, *s+*len). */
static inline void span_trim(const char **s, size_t *len)
{
    /* Work on copies: stores through the out-parameters would otherwise
     * force a reload of both on every byte (a char may alias them). */
    const char *p = *s;
    size_t n = *len;
    /* Padded columns ("Product Name                   : ...") leave long
     * runs of spaces: skip them a word at a time. */
    while (n >= 8 && w_load(p) == W_REP(' ')) {
        p += 8;
        n -= 8;
    }
    while (n >= 8 && w_load(p + n - 8) == W_REP(' '))
        n -= 8;
    /* The rest of a run of spaces at either end in one step (a bit scan),
     * as the byte loops below would take it: done in the same order (the
     * front first), so even an all-blank span ends where it did. */
    if (n >= 8 && *p == ' ') {
        size_t k = (size_t)(__builtin_ctzll(~w_eq(w_load(p), W_REP(' ')) & W_HI) >> 3);
        p += k;
        n -= k;
    }
    while (n && is_sp_cr(*p)) {
        p++;
        n--;
    }
    if (n >= 8 && p[n - 1] == ' ')
        n -= (size_t)(__builtin_clzll(~w_eq(w_load(p + n - 8), W_REP(' ')) & W_HI) >> 3);
    while (n && is_sp_cr(p[n - 1]))
        n--;
    *s = p;
    *len = n;
}

/* span_trim for "key : value" halves whose reader never looks at an empty
 * span's address (the kind parsers that say so use it): a span that is not
 * all blanks comes out as span_trim leaves it (both drop every blank at
 * both ends); an all-blank one comes out empty, but not at the same
 * address. nvidia-smi -q pads its keys with twenty to thirty spaces: those
 * go sixteen at a time from the end (and a value's front padding sixteen
 * at a time from the front), then any blank (is_sp_cr) at either end a
 * byte at a time, where span_trim's word steps from both ends cost
 * twice as many instructions on the short keys and values of most tools. */
static inline void span_trim_nz(const char **s, size_t *len)
{
    const char *p = *s;
    size_t n = *len;
#if defined(__SSE2__)
    const __m128i sp = _mm_set1_epi8(' ');
    while (n >= 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + n - 16)), sp));
        if (m != 0xFFFFu) {
            /* the spaces at the end of the window: its top bits set */
            n -= (size_t)__builtin_clz(~m & 0xFFFFu) - 16;
            break;
        }
        n -= 16;
    }
    /* lscpu pads its values in front the same way */
    while (n >= 16 && *p == ' ') {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), sp));
        size_t k = m != 0xFFFFu ? (size_t)__builtin_ctz(~m) : 16;
        p += k;
        n -= k;
    }
#endif
    /* (most ends are no blank at all: one compare says so before the
     * blank test) */
    while (n && (unsigned char)p[n - 1] <= ' ' && is_sp_cr(p[n - 1]))
        n--;
    while (n && (unsigned char)*p <= ' ' && is_sp_cr(*p)) {
        p++;
        n--;
    }
    *s = p;
    *len = n;
}

/* The split of kv_split and kv_split_nz, untrimmed. */
static inline int kv_cut(const char *s, size_t len, const char **k, size_t *klen, const char **v,
                         size_t *vlen)
{
    const char *c = memchr(s, ':', len);
    if (!c)
        return 0;
    *k = s;
    *klen = (size_t)(c - s);
    *v = c + 1;
    *vlen = len - *klen - 1;
    return 1;
}
/* kv_split with span_trim_nz: for readers that never look at an empty
 * key's or value's address. */
static inline int kv_split_nz(const char *s, size_t len, const char **k, size_t *klen,
                              const char **v, size_t *vlen)
{
    if (!kv_cut(s, len, k, klen, v, vlen))
        return 0;
    span_trim_nz(k, klen);
    span_trim_nz(v, vlen);
    return 1;
}

/* Split a CSV line at commas into at most max trimmed fields (an empty
 * line is one empty field). */
int csv_split(const char *s, size_t len, struct tok *out, int max);
/* Copy a span into a fixed buffer, cutting if needed, always NUL-terminated. */
void span_copy(char *dst, size_t dstlen, const char *s, size_t len);
/* "key : value" split at the first ':'; both trimmed. 0 when there is no ':'. */
static inline int kv_split(const char *s, size_t len, const char **k, size_t *klen,
                           const char **v, size_t *vlen)
{
    if (!kv_cut(s, len, k, klen, v, vlen))
        return 0;
    span_trim(k, klen);
    span_trim(v, vlen);
    return 1;
}
int is_blank(const char *s, size_t len);
unsigned span_hash(const char *s, size_t len);

void section_issue(struct report_section *sec, const char *msg);

/* What a kind's line handler says about a line. */
enum take {
    TAKE_NO = 0,               /* not mine; the section stays open */
    TAKE_YES,                  /* consumed: a line only this kind prints */
    TAKE_WEAK,                 /* consumed, but a line of a generic shape (a table
                                  border, a heading) that another tool's start
                                  marker may be: the driver looks for one */
    TAKE_END                   /* not mine and this section is over */
};

/* Strength of a start marker: a weak one (a table row, a "key: value" line)
 * opens a section only when none is open; a strong one (a banner, a title,
 * the tool's command line) also ends another tool's open section. */
#define DETECT_WEAK 1
#define DETECT_STRONG 2

/* Each kind: detect() says whether a line starts output of that kind (and
 * fills the tool name); init() prepares a fresh section; line() feeds lines;
 * finish() derives summary facts once the section closes. */
int topo_detect(const struct line *l);
void topo_init(struct report_section *sec);
enum take topo_line(struct report_section *sec, const struct line *l);
void topo_finish(struct report_section *sec);

int nccl_detect(const struct line *l);
void nccl_init(struct report_section *sec);
enum take nccl_line(struct report_section *sec, const struct line *l);
void nccl_finish(struct report_section *sec);
/* Nonzero for an NCCL INFO line: 1 + the offset in raw of the ']' that the
 * "NCCL INFO" marker follows. */
int nccl_is_info(const struct line *l);
/* The same, b being the first ']' of l->raw. Inline: the driver asks it of
 * every line holding a ']'. */
static inline int nccl_info_at(const struct line *l, const char *b)
{
    /* "host:pid:tid [dev] NCCL INFO ..." */
    size_t rest = l->raw_len - (size_t)(b - l->raw);
    return span_starts(b, rest, "] NCCL INFO") ? (int)(b - l->raw) + 1 : 0;
}

/* Whether the bytes s[i, n) hold c (n - i < 64: a bounded scalar tail). */
static inline int bytes_have(const char *s, size_t i, size_t n, char c)
{
#if defined(__SSE2__)
    const __m128i vc = _mm_set1_epi8(c);
    for (; i + 16 <= n; i += 16)
        if (_mm_movemask_epi8(
                _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), vc)))
            return 1;
    if (i < n && n >= 16)
        return (_mm_movemask_epi8(_mm_cmpeq_epi8(
                    _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16)), vc)) >>
                (16 - (n - i))) != 0;
#endif
    for (; i < n; i++)
        if (s[i] == c)
            return 1;
    return 0;
}

/* An NCCL INFO line read with an NCCL section open, told before it is
 * cleaned: 1 when nccl_line would take it (TAKE_YES) and change nothing
 * but the section's last line, with *e the line's end (its newline's
 * offset, or avail); 0 when that is not sure, and the line is read as any
 * other. s is a line opening with no byte line_clean removes, rb its first
 * ']' (followed by "NCCL INFO"). Most INFO messages carry nothing nccl_line keeps:
 * it reads "comm ", "NCCL_ALGO" and "Using network" messages, and NCCL
 * WARN lines, and a log holds thousands of the others between the rows of
 * its tables. The test holds this to nccl_line on random lines; kept in
 * step with nccl_line, is_warn, info_msg and info_line (report_nccl.c):
 * - no digit and no '#' opens the line (no table row, nothing removed: the
 *   line's view is its raw text from s on);
 * - no 'N' before the ']': the first "NCCL INFO " is then the marker's,
 *   when a blank follows it, and any "NCCL WARN" starts past the ']', so
 *   none is there when no 'W' is (searched with the newline);
 * - the message after the marker opens with none of the three above. */
static inline int nccl_info_quiet(const char *s, size_t avail, size_t rb, size_t *e)
{
    if ((unsigned)(unsigned char)s[0] - '0' <= 9 || s[0] == '#' || rb + 12 > avail ||
        s[rb + 11] != ' ')
        return 0;
    /* The message's first bytes are asked against the input left (avail):
     * the three literals hold no newline, so they match there exactly when
     * they match in the line. */
    const char *m = s + rb + 12;
    size_t ml = avail - (rb + 12);
    if (span_starts(m, ml, "comm ") || span_starts(m, ml, "NCCL_ALGO") ||
        span_starts(m, ml, "Using network") || bytes_have(s, 0, rb, 'N'))
        return 0;
    /* the line's end, and whether a 'W' comes before it past the ']':
     * the 'W' compares of the steps before the newline's are gathered in
     * one register and looked at once */
    size_t i = rb + 1;
#if defined(__SSE2__)
    const __m128i vn = _mm_set1_epi8('\n'), vw = _mm_set1_epi8('W');
    __m128i w = _mm_setzero_si128();
    for (; i + 32 <= avail; i += 32) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i n0 = _mm_cmpeq_epi8(v0, vn), n1 = _mm_cmpeq_epi8(v1, vn);
        __m128i w0 = _mm_cmpeq_epi8(v0, vw), w1 = _mm_cmpeq_epi8(v1, vw);
        if (!_mm_movemask_epi8(_mm_or_si128(n0, n1))) {
            w = _mm_or_si128(w, _mm_or_si128(w0, w1));
            continue;
        }
        unsigned mn = (unsigned)_mm_movemask_epi8(n0) | (unsigned)_mm_movemask_epi8(n1) << 16;
        unsigned mw = (unsigned)_mm_movemask_epi8(w0) | (unsigned)_mm_movemask_epi8(w1) << 16;
        if (_mm_movemask_epi8(w) || (mw & ((mn & -mn) - 1)))
            return 0;
        *e = i + (unsigned)__builtin_ctz(mn);
        return 1;
    }
    if (_mm_movemask_epi8(w))
        return 0;
#endif
    for (; i < avail && s[i] != '\n'; i++)
        if (s[i] == 'W')
            return 0;
    *e = i;
    return 1;
}

int perf_detect(const struct line *l);
void perf_init(struct report_section *sec);
enum take perf_line(struct report_section *sec, const struct line *l);
void perf_finish(struct report_section *sec);

int ib_detect(const struct line *l);
void ib_init(struct report_section *sec);
enum take ib_line(struct report_section *sec, const struct line *l);
void ib_finish(struct report_section *sec);

int gpu_detect(const struct line *l);
/* The lengths the timestamp nvidia-smi prints above its table may have:
 * ctime's "Mon Nov 30 17:40:01 2026" (24), blank padding off, whose day
 * and month names follow the locale: 2 to 8 bytes each ("Di Dez", UTF-8
 * "Mär"), so 22 to 34. */
#define GPU_STAMP_MIN 22
#define GPU_STAMP_MAX 34
/* Whether l (raw_len GPU_STAMP_MIN..GPU_STAMP_MAX) is that timestamp, with
 * the table's box opening in the next two lines of the input (n bytes at
 * next, from just past l's newline): a lone date line is no table's
 * (report_gpu.c). */
int gpu_table_stamp(const struct line *l, const char *next, size_t n);
void gpu_init(struct report_section *sec);
enum take gpu_line(struct report_section *sec, const struct line *l);
void gpu_finish(struct report_section *sec);

int fio_detect(const struct line *l);
void fio_init(struct report_section *sec);
enum take fio_line(struct report_section *sec, const struct line *l);
void fio_finish(struct report_section *sec);

int dcgm_detect(const struct line *l);
void dcgm_init(struct report_section *sec);
enum take dcgm_line(struct report_section *sec, const struct line *l);
void dcgm_finish(struct report_section *sec);

int nvbw_detect(const struct line *l);
void nvbw_init(struct report_section *sec);
enum take nvbw_line(struct report_section *sec, const struct line *l);
void nvbw_finish(struct report_section *sec);

int cpu_detect(const struct line *l);
void cpu_init(struct report_section *sec);
enum take cpu_line(struct report_section *sec, const struct line *l);
void cpu_finish(struct report_section *sec);

/* Whether k is an ethtool -S counter name (1 to 64 letters, digits or
 * "_.-[]") and, in *words, which words it holds anywhere: bit i for the
 * i-th of "_rx", "_tx", "pause", "duration", "transition", "storm", "err",
 * "crc", "fcs", "discard", "out_of_buffer" (report_nic.c). */
int nic_counter_key(const char *k, size_t kl, unsigned *words);
int nic_detect(const struct line *l);
void nic_init(struct report_section *sec);
enum take nic_line(struct report_section *sec, const struct line *l);
void nic_finish(struct report_section *sec);

int gemm_detect(const struct line *l);
void gemm_init(struct report_section *sec);
enum take gemm_line(struct report_section *sec, const struct line *l);
void gemm_finish(struct report_section *sec);

/* Notes on line texts: a log repeats its lines (each node prints the same
 * banners and headings), so what a kind works out from a line's text
 * alone (which of its markers the line holds, say) it may note, and find
 * again when the same raw text comes back, instead of searching anew. A
 * note must depend on l->raw alone (l->s, l->len and l->hashed derive from
 * it), never on the section's state nor on l->indent or l->info. The
 * driver keeps one note a text (the last kind's), of 16 bits.
 * line_note_get: 1 and *note when kind noted this text before, else 0. */
int line_note_get(const struct line *l, enum report_kind kind, unsigned *note);
void line_note_put(const struct line *l, enum report_kind kind, unsigned note);

/* Whether a strong start marker of any kind can be in line l (l->pairs
 * set): report_parse's filter before asking the detectors, and the same
 * test written as a loop over its table of substrings (the reference the
 * unit test holds the fast one to). */
int report_strong_possible(const struct line *l);
int report_strong_possible_ref(const struct line *l);

/* report_parse_opts keeping at most sections_max sections (clamped to
 * REPORT_SECTIONS_MAX), the rest counted as dropped: the cap's rules at a
 * size a test can pass with a few fixtures, chunked or not. */
enum status report_parse_capped(const char *text, size_t len,
                                const struct report_parse_opts *opts, size_t sections_max,
                                struct report **out);

#endif
