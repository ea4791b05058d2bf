/* report_nccl.c: nccl-tests `*_perf` tables and NCCL debug logs.
 *
 * The table is read by shape, not by position: a data row is two integers
 * (size, count), a data type word, an optional reduction word, an optional
 * root, then (time, algbw, busbw, #wrong) for out-of-place and again for
 * in-place. The optional columns are settled by the header when it was
 * pasted, else by counting the remaining cells, which covers the oldest
 * layout (no redop/root, "error" instead of "#wrong") and the current one.
 * NCCL INFO lines between rows are skipped; a row cut mid-line is dropped
 * with an issue. The "Avg bus bandwidth" footer is kept but never used as the
 * bandwidth: it averages every message size (DOMAIN.md T2). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

/* Words with their lengths (struct name): every table row is checked
 * against these, and a length compare rejects most entries before any byte
 * is read. */
#define WORD(x) NAME(x)

#define DTYPE_WORDS(X)                                                                   \
    X("float") X("double") X("half") X("bfloat16") X("int8") X("uint8") X("int32")        \
    X("uint32") X("int64") X("uint64") X("fp8_e4m3") X("fp8_e5m2") X("f8e4m3") X("f8e5m2") \
    X("int") X("char") X("float32") X("float16") X("float64")
#define REDOP_WORDS(X) X("sum") X("prod") X("max") X("min") X("avg") X("none") X("mulsum")
#define WORD_ITEM(x) WORD(x),
#define TEXT_ITEM(x) x,

static const struct name dtypes[] = {DTYPE_WORDS(WORD_ITEM){NULL, 0}};
static const struct name redops[] = {REDOP_WORDS(WORD_ITEM){NULL, 0}};

/* The same words NUL-padded to the row's fields, in the same order: a row
 * takes its type and redop as one fixed-size copy each (a word too long
 * for its field would not compile). */
static const char dtype_text[][sizeof(((struct report_nccl_row *)0)->type)] = {
    DTYPE_WORDS(TEXT_ITEM)};
static const char redop_text[][sizeof(((struct report_nccl_row *)0)->redop)] = {
    REDOP_WORDS(TEXT_ITEM)};

static const struct {
    struct name bin;
    const char *name;
} colls[] = {
    {NAME("all_reduce_perf"), "all_reduce"}, {NAME("all_gather_perf"), "all_gather"},
    {NAME("reduce_scatter_perf"), "reduce_scatter"}, {NAME("alltoall_perf"), "alltoall"},
    {NAME("sendrecv_perf"), "sendrecv"}, {NAME("broadcast_perf"), "broadcast"},
    {NAME("hypercube_perf"), "hypercube"}, {NAME("gather_perf"), "gather"},
    {NAME("scatter_perf"), "scatter"}, {NAME("reduce_perf"), "reduce"},
};

/* The collective whose binary a line holding "_perf" names, or NULL.
 * Every name holds "_perf": callers ask that first (a few bit tests once
 * the line's pair set is built, as it is for the detectors), which rules
 * all ten out on most lines. */
static const char *coll_named(const struct line *l)
{
    for (size_t i = 0; i < sizeof(colls) / sizeof(colls[0]); i++) {
        const char *f = line_find_raw_n(l, colls[i].bin.s, colls[i].bin.n);
        /* "reduce_perf" is also the tail of "all_reduce_perf". */
        if (f && (f == l->raw || f[-1] != '_'))
            return colls[i].name;
    }
    return NULL;
}

int nccl_is_info(const struct line *l)
{
    const char *b = memchr(l->raw, ']', l->raw_len);
    return b ? nccl_info_at(l, b) : 0;
}

static int is_warn(const struct line *l)
{
    /* anchored on the 'W': INFO lines are full of 'N' */
    return line_find_raw_a(l, "NCCL WARN", 5) != NULL;
}

/* num_parse for the size and count cells, which run to ten digits: a
 * token opening with eight digits takes them in one word step (the SWAR
 * test and conversion of fast_float's parse_eight_digits), then goes on as
 * num_parse does, so the mantissa, and the double, are the same. A digit a
 * step took about nine instructions; the word step takes about twenty for
 * eight. Other tokens go to num_parse. */
static inline int num_parse_wide(const char *s, size_t len, double *v)
{
    if (len < 8)
        return num_parse(s, len, v);
    uint64_t x = w_load(s);
    if (((x & 0xF0F0F0F0F0F0F0F0ull) |
         (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull)
        return num_parse(s, len, v);
    x -= 0x3030303030303030ull;
    x = x * 10 + (x >> 8);
    x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
    return num_parse_from(s, len, v, 0, 8, x, 0);
}

/* A data row: size count type ... with at least the out-of-place quartet.
 * Returns 1 + the type's index in dtypes, 0 for no row. */
static int row_shape(const struct tok *t, int n, double *size, double *count)
{
    if (n < 6)
        return 0;
    if (!num_parse_wide(t[0].s, t[0].len, size) || !num_parse_wide(t[1].s, t[1].len, count))
        return 0;
    return 1 + name_index(t[2].s, t[2].len, dtypes);
}

static int header_shape(const struct tok *t, int n)
{
    return n >= 4 && tok_eq(&t[0], "size") && tok_eq(&t[1], "count") && tok_eq(&t[2], "type");
}

int nccl_detect(const struct line *l)
{
    struct tok t[TOK_MAX];
    /* (coll_named's precondition asked first: a few bit tests with the
     * pair set the driver built, where most lines are spared the call) */
    if (span_starts(l->s, l->len, "nThread ") || is_warn(l) ||
        span_starts(l->raw, l->raw_len, "NCCL version") ||
        (line_find_raw(l, "_perf") && coll_named(l)) ||
        span_starts(l->s, l->len, "out-of-place"))
        return DETECT_STRONG;
    if (l->info || span_starts(l->s, l->len, "Out of bounds values") ||
        span_starts(l->s, l->len, "Avg bus bandwidth"))
        return DETECT_WEAK;
    /* Only a header ("size count type ...") or a row (digits first) can
     * follow; tokenize nothing else. */
    char c0 = l->s[0];
    if (c0 != 's' && !(c0 >= '0' && c0 <= '9'))
        return 0;
    int n = tok_split(l->s, l->len, t, 8);
    if (header_shape(t, n))
        return DETECT_STRONG;
    double size, count;
    return row_shape(t, n, &size, &count) ? DETECT_WEAK : 0;
}

void nccl_init(struct report_section *sec)
{
    struct report_nccl *c = &sec->u.nccl;
    /* All but the 7 kB of rows, read only below row_count and written
     * whole as each is added; a long log opens thousands of sections. */
    memset(c, 0, offsetof(struct report_nccl, rows));
    memset(&c->layout_cols, 0, sizeof(*c) - offsetof(struct report_nccl, layout_cols));
    c->ranks = c->nodes = -1;
    c->busbw_peak_gbs = c->busbw_largest_gbs = c->busbw_avg_gbs = NAN;
    c->largest_size_b = c->wrong_total = c->oob_values = NAN;
    c->max_rank = -1;
    c->nnodes_info = c->nranks_info = -1;
    text_set(sec->tool, sizeof(sec->tool), "nccl-tests");
}

static void keep_warning(struct report_nccl *c, const struct line *l)
{
    const char *w = line_find_raw(l, "NCCL WARN");
    if (c->nccl_warnings < NCCL_WARN_KEEP && w) {
        w += 9;
        size_t n = l->raw_len - (size_t)(w - l->raw);
        span_trim(&w, &n);
        span_copy(c->warnings[c->nccl_warnings], NCCL_WARN_LEN, w, n);
    }
    c->nccl_warnings++;
}

/* Where the keys info_line reads stand in an INFO line: the first of each
 * in the whole raw line (NULL: absent), as a search per key finds them. */
struct info_keys {
    const char *nnodes, *nranks_lc, *nranks, *algo, *net;
};

#define KEY_ALGO "NCCL_ALGO set by environment to "
#define KEY_NET "Using network "

/* Whether the key candidate at s[i] (s[i], s[i+1] one of the anchor pairs
 * " n", "_A", "Us") opens one of the keys, recording the first of each.
 * The three " n" keys are eight bytes: one word compare each. */
static inline void info_key_at(const char *s, size_t n, size_t i, struct info_keys *k)
{
    if (s[i] == ' ') {
        if (i + 8 > n)
            return;
        uint64_t w = w_load(s + i);
        if (!k->nnodes && w == w_load(" nNodes "))
            k->nnodes = s + i;
        else if (!k->nranks_lc && w == w_load(" nranks "))
            k->nranks_lc = s + i;
        else if (!k->nranks && w == w_load(" nRanks "))
            k->nranks = s + i;
    } else if (s[i] == '_') {
        /* '_' is byte 4 of KEY_ALGO */
        if (!k->algo && i >= 4 && i - 4 + sizeof(KEY_ALGO) - 1 <= n &&
            memcmp(s + i - 4, KEY_ALGO, sizeof(KEY_ALGO) - 1) == 0)
            k->algo = s + i - 4;
    } else if (!k->net && i + sizeof(KEY_NET) - 1 <= n &&
               memcmp(s + i, KEY_NET, sizeof(KEY_NET) - 1) == 0) {
        k->net = s + i;
    }
}

#if defined(__SSE2__)
/* Bit j set where p[j], p[j+1] is an anchor pair of the keys. */
static inline unsigned info_anchor16(const char *p)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
    __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8(' ')),
                                   _mm_cmpeq_epi8(b, _mm_set1_epi8('n'))),
                     _mm_and_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8('_')),
                                   _mm_cmpeq_epi8(b, _mm_set1_epi8('A')))),
        _mm_and_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8('U')),
                      _mm_cmpeq_epi8(b, _mm_set1_epi8('s'))));
    return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* The five keys in one pass over the line, where a search per key (with the
 * pair set it needs built) cost "comm" lines, a third of a debug log's INFO
 * lines, about 850 instructions each. Candidates are the keys' anchor
 * pairs, taken in the order of the line, so the first match of a key is its
 * first occurrence. */
static void info_keys_find(const char *s, size_t n, struct info_keys *k)
{
    size_t i = 0;
    memset(k, 0, sizeof(*k));
#if defined(__SSE2__)
    for (; i + 17 <= n; i += 16)
        for (unsigned m = info_anchor16(s + i); m; m &= m - 1)
            info_key_at(s, n, i + (unsigned)__builtin_ctz(m), k);
    if (n >= 17 && i + 1 < n) {
        /* the last pairs: one window ending at the line's end, its pairs
         * before i (already taken) masked off */
        size_t j = n - 17;
        for (unsigned m = info_anchor16(s + j) & ~((1u << (i - j)) - 1u); m; m &= m - 1)
            info_key_at(s, n, j + (unsigned)__builtin_ctz(m), k);
        return;
    }
#endif
    for (; i + 1 < n; i++)
        if ((s[i] == ' ' && s[i + 1] == 'n') || (s[i] == '_' && s[i + 1] == 'A') ||
            (s[i] == 'U' && s[i + 1] == 's'))
            info_key_at(s, n, i, k);
}

/* num_scan's answer for the count after a key ("nNodes 8 ..."): when the
 * text opens with at most 18 digits followed by its end or a byte that is
 * no '.', 'e' or 'E', the number num_scan reads is those digits; other
 * text is given to num_scan. */
static int count_after(const char *s, size_t len, double *v)
{
    size_t j = 0;
    unsigned long long m = 0;
    while (j < len && j < 18 && (unsigned)(unsigned char)s[j] - '0' <= 9)
        m = m * 10 + ((unsigned)(unsigned char)s[j++] - '0');
    if (j == 0 || (j < len && (s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
                               (unsigned)(unsigned char)s[j] - '0' <= 9))) {
        size_t end;
        return num_scan(s, len, v, &end);
    }
    *v = (double)m;
    return 1;
}

/* The first "NCCL INFO " of an INFO line l. "] NCCL INFO" stands at the
 * line's first ']' (raw[l->info - 1]), so the first occurrence is one that
 * ends before that ']' (the marker holds none), else the one that "NCCL
 * INFO" there begins when a space follows it, else any later one. The
 * bytes before the ']' are a host and ids ("gpu-a17:88123:88190 [3"):
 * when no 'N' stands where an occurrence could begin there (one or two
 * sixteen-byte windows), nothing is searched; the search of the head of
 * the line this replaces cost a library call a line. */
static const char *info_msg(const struct line *l)
{
    const char *s = l->raw;
    size_t n = l->raw_len, b = (size_t)l->info - 1, at = (size_t)l->info + 1;
    size_t first = b >= 10 ? b - 9 : 0;      /* starts ending before the ']' */
    int maybe = first > 0;
#if defined(__SSE2__)
    /* n >= b + 11 (the marker follows the ']'), so the windows are in the
     * line: 16 <= n when first > 0, 32 <= n when first > 16 */
    if (first > 0 && first <= 32) {
        const __m128i vn = _mm_set1_epi8('N');
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)s), vn));
        if (first > 16)
            m |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
                     _mm_loadu_si128((const __m128i *)(const void *)(s + 16)), vn)) << 16;
        if (first < 32)
            m &= (1u << first) - 1u;
        maybe = m != 0;
    }
#endif
    const char *msg = maybe ? span_find(s, b, "NCCL INFO ") : NULL;
    if (!msg && at + 10 <= n && s[at + 9] == ' ')
        msg = s + at;
    if (!msg)
        msg = span_find(s, n, "NCCL INFO ");
    return msg;
}

static void info_line(struct report_nccl *c, const struct line *l)
{
    /* Only a few INFO messages carry facts; most lines stop here. */
    const char *msg = info_msg(l);
    if (!msg)
        return;
    msg += 10;
    size_t ml = l->raw_len - (size_t)(msg - l->raw);
    if (!span_starts(msg, ml, "comm ") && !span_starts(msg, ml, "NCCL_ALGO") &&
        !span_starts(msg, ml, "Using network"))
        return;
    struct info_keys k;
    const char *p;
    double v;
    size_t rest;
    info_keys_find(l->raw, l->raw_len, &k);
    if ((p = k.nnodes) != NULL) {
        rest = l->raw_len - (size_t)(p - l->raw);
        if (count_after(p + 8, rest - 8, &v) && v >= 1 && v < 1e6)
            c->nnodes_info = (int)v;
    }
    if ((p = k.nranks_lc) != NULL || (p = k.nranks) != NULL) {
        rest = l->raw_len - (size_t)(p - l->raw);
        if (count_after(p + 8, rest - 8, &v) && v >= 1 && v < 1e7)
            c->nranks_info = (int)v;
    }
    if ((p = k.algo) != NULL) {
        p += 32;
        rest = l->raw_len - (size_t)(p - l->raw);
        struct tok t[1];
        if (tok_split(p, rest, t, 1) == 1)
            span_copy(c->algo, sizeof(c->algo), t[0].s, t[0].len);
    }
    if ((p = k.net) != NULL) {
        p += 14;
        rest = l->raw_len - (size_t)(p - l->raw);
        struct tok t[1];
        if (tok_split(p, rest, t, 1) == 1)
            span_copy(c->net, sizeof(c->net), t[0].s, t[0].len);
    }
}

/* "Rank  0 Group  0 Pid 574629 on MOC-R4PCC04U37 device  0 [0000:06:00] NVIDIA H100 80GB HBM3" */
#define RANK_TOKENS 9

/* The index of the first "on" from t[2] that a token follows, or -1. */
static int on_at(const struct tok *t, int n)
{
    for (int i = 2; i + 1 < n; i++)
        if (tok_eq(&t[i], "on"))
            return i;
    return -1;
}

/* on: on_at(t, n), which the caller has asked already */
static void rank_line(struct report_nccl *c, const struct tok *t, int n, int on,
                      const struct line *l)
{
    double r;
    if (n < 2 || !num_parse(t[1].s, t[1].len, &r) || r < 0 || r > 1e7)
        return;
    if ((int)r > c->max_rank)
        c->max_rank = (int)r;
    int i = on;
    if (i > 0) {
        unsigned h = span_hash(t[i + 1].s, t[i + 1].len);
        int seen = 0;
        for (int k = 0; k < c->host_count; k++)
            seen |= c->host_hash[k] == h;
        if (!seen && c->host_count < 16)
            c->host_hash[c->host_count++] = h;
    }
    /* The GPU name is taken from the first rank line that shows one; a
     * rank on another card (a run over mixed GPUs) is kept apart. */
    const char *b = memchr(l->s, ']', l->len);
    if (b) {
        const char *g = b + 1;
        size_t gl = l->len - (size_t)(g - l->s);
        span_trim(&g, &gl);
        if (!c->gpu_name[0]) {
            span_copy(c->gpu_name, sizeof(c->gpu_name), g, gl);
            return;
        }
        char name[REPORT_NAME_LEN];
        span_copy(name, sizeof(name), g, gl);
        if (!name[0] || strcmp(name, c->gpu_name) == 0)
            return;
        for (int k = 0; k < c->other_gpu_count; k++)
            if (strcmp(name, c->other_gpus[k]) == 0)
                return;
        if (c->other_gpu_count < 3)
            memcpy(c->other_gpus[c->other_gpu_count++], name, sizeof(name));
    }
}

static void header_line(struct report_nccl *c, const struct tok *t, int n)
{
    /* Columns before "time": size count type [redop] [root]. */
    int before = 0;
    for (int i = 0; i < n; i++) {
        if (tok_eq(&t[i], "time")) {
            before = i;
            break;
        }
    }
    if (before >= 3 && before <= 5)
        c->layout_cols = before;
    for (int i = 0; i < n; i++)
        if (tok_eq(&t[i], "error"))
            c->wrong_is_error_column = 1;
    c->have_header = 1;
}

/* lo: the start of the cell's line (num_parse_lo) */
static double cell(const struct tok *t, const char *lo)
{
    double v;
    if (num_parse_lo(t->s, t->len, &v, lo))
        return v;
    return NAN;
}

static void add_wrong(struct report_nccl *c, double w)
{
    if (isnan(w))
        return;
    double add = c->wrong_is_error_column ? (w != 0 ? 1 : 0) : w;
    c->wrong_total = isnan(c->wrong_total) ? add : c->wrong_total + add;
}

/* A cell is a few bytes: a loop beats a memchr call. */
static int has_e(const struct tok *t)
{
    for (size_t i = 0; i < t->len; i++)
        if (t->s[i] == 'e')
            return 1;
    return 0;
}

/* size and count: the first two cells, already read by row_shape; lo: the
 * start of the row's line, which holds t's tokens. */
static void data_row(struct report_section *sec, const struct tok *t, int n, double size,
                     double count, int dtype, const char *lo)
{
    struct report_nccl *c = &sec->u.nccl;
    struct report_nccl_row r;
    memset(&r, 0, sizeof(r));
    r.root = NAN;
    r.size_b = size;
    r.count = count;
    memcpy(r.type, dtype_text[dtype - 1], sizeof(r.type));
    int i = 3;
    int op = i < n ? name_index(t[i].s, t[i].len, redops) : -1;
    if (op >= 0) {
        memcpy(r.redop, redop_text[op], sizeof(r.redop));
        i++;
    }
    int rest = n - i;
    /* A root column is present when the header says so, or when the cell
     * count only adds up with it (9 = root + 2 quartets, 5 = root + 1). */
    int has_root = c->layout_cols == 5 || (c->layout_cols == 0 && (rest == 9 || rest == 5));
    if (c->layout_cols == 5 && !r.redop[0] && i < n) {
        i++;    /* a redop word we do not know still takes its column */
        rest = n - i;
    }
    if (has_root && rest >= 5) {
        r.root = cell(&t[i], lo);
        i++;
        rest--;
    }
    if (rest < 4) {
        section_issue(sec, "a table row was cut before its bus bandwidth");
        return;
    }
    r.oop_time_us = cell(&t[i], lo);
    r.oop_algbw_gbs = cell(&t[i + 1], lo);
    r.oop_busbw_gbs = cell(&t[i + 2], lo);
    r.oop_wrong = cell(&t[i + 3], lo);
    /* The oldest layout prints the largest error ("0e+00"), not a count. */
    if (t[i + 3].len > 1 && t[i + 3].s[0] != 'N' && has_e(&t[i + 3]))
        c->wrong_is_error_column = 1;
    r.ip_time_us = r.ip_algbw_gbs = r.ip_busbw_gbs = r.ip_wrong = NAN;
    if (rest >= 8) {
        r.ip_time_us = cell(&t[i + 4], lo);
        r.ip_algbw_gbs = cell(&t[i + 5], lo);
        r.ip_busbw_gbs = cell(&t[i + 6], lo);
        r.ip_wrong = cell(&t[i + 7], lo);
    } else if (rest > 4) {
        section_issue(sec, "a table row was cut in its in-place columns");
    }
    if (isnan(r.oop_busbw_gbs) && isnan(r.ip_busbw_gbs))
        return;
    add_wrong(c, r.oop_wrong);
    add_wrong(c, r.ip_wrong);
    double best = r.oop_busbw_gbs;
    if (isnan(best) || (!isnan(r.ip_busbw_gbs) && r.ip_busbw_gbs > best))
        best = r.ip_busbw_gbs;
    if (!isnan(best) && (isnan(c->busbw_peak_gbs) || best > c->busbw_peak_gbs))
        c->busbw_peak_gbs = best;
    if (!isnan(r.size_b) && (isnan(c->largest_size_b) || r.size_b >= c->largest_size_b)) {
        c->largest_size_b = r.size_b;
        c->busbw_largest_gbs = best;
    }
    if (c->row_count < NCCL_ROWS_MAX)
        c->rows[c->row_count++] = r;
    else
        c->rows_dropped++;
}

enum take nccl_line(struct report_section *sec, const struct line *l)
{
    struct report_nccl *c = &sec->u.nccl;
    struct tok t[TOK_MAX];
    if (l->raw_len == 0 || (l->hashed && l->len == 0))
        return TAKE_YES;
    /* Table rows are most of the lines: straight to them. */
    if (l->s[0] >= '0' && l->s[0] <= '9') {
        int n = tok_split(l->s, l->len, t, TOK_MAX);
        double size, count;
        int dtype = row_shape(t, n, &size, &count);
        if (dtype) {
            /* Message sizes only grow within one run: a smaller one is the
             * next run's table, pasted without its header. */
            if (c->row_count > 0 && size < c->rows[c->row_count - 1].size_b)
                return TAKE_END;
            data_row(sec, t, n, size, count, dtype, l->s);
            return TAKE_YES;
        }
    }
    if (is_warn(l)) {
        keep_warning(c, l);
        return TAKE_YES;
    }
    if (l->info) {
        info_line(c, l);
        return TAKE_YES;
    }
    /* (coll_named's precondition first, inline: most lines fail it) */
    const char *coll = line_find_raw(l, "_perf") ? coll_named(l) : NULL;
    if (coll) {
        /* A second benchmark command starts a new run. */
        if (c->row_count > 0 || (c->collective[0] && strcmp(c->collective, coll) != 0))
            return TAKE_END;
        text_set(c->collective, sizeof(c->collective), coll);
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "nThread ")) {
        /* nccl-tests built without MPI prints one header per process before
         * any row; only a header after rows starts a new run. */
        if (c->row_count > 0)
            return TAKE_END;
        c->have_header = c->have_header ? c->have_header : 2;
        return TAKE_YES;
    }
    if (span_starts(l->raw, l->raw_len, "NCCL version") ||
        span_starts(l->s, l->len, "Using devices") ||
        span_starts(l->s, l->len, "(B)") || span_starts(l->s, l->len, "out-of-place"))
        return TAKE_YES;
    if (span_starts(l->s, l->len, "Out of bounds values")) {
        double v;
        size_t end;
        const char *colon = memchr(l->s, ':', l->len);
        if (colon && num_scan(colon, l->len - (size_t)(colon - l->s), &v, &end))
            c->oob_values = v;
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "Avg bus bandwidth")) {
        double v;
        size_t end;
        const char *colon = memchr(l->s, ':', l->len);
        if (colon && num_scan(colon, l->len - (size_t)(colon - l->s), &v, &end))
            c->busbw_avg_gbs = v;
        return TAKE_YES;
    }
    /* Every shape asked below is told by its first token: "Rank", "size",
     * a number (digit, sign or '.') or "...". Other lines (banners, NCCL
     * log text) skip the tokenizer; a line opening with a blank byte that
     * line_clean keeps ('\v', '\f') is tokenized as before. */
    char c0 = l->s[0];
    int may_shape = (unsigned char)c0 <= ' ' || c0 == 'R' || c0 == 's' ||
                    (c0 >= '0' && c0 <= '9') || c0 == '-' || c0 == '+' || c0 == '.';
    int n = 0;
    if (c0 == 'R') {
        /* "Rank N Group N Pid N on HOST device ...": what rank_line reads
         * (the rank, the first "on" and the host after it) stands in the
         * first nine tokens, so a rank line is tokenized that far; when
         * those do not hold it, or the line is no rank line, it is
         * tokenized whole as below. */
        n = tok_split(l->s, l->len, t, RANK_TOKENS);
        if (n >= 2 && tok_eq(&t[0], "Rank")) {
            int on = on_at(t, n);
            if (n < RANK_TOKENS || on > 0) {
                rank_line(c, t, n, on, l);
                return TAKE_YES;
            }
        }
    }
    if (may_shape)
        n = tok_split(l->s, l->len, t, TOK_MAX);
    if (n >= 2 && tok_eq(&t[0], "Rank")) {
        rank_line(c, t, n, on_at(t, n), l);
        return TAKE_YES;
    }
    if (header_shape(t, n)) {
        if (c->row_count > 0 && !c->have_header)
            return TAKE_END;
        if (c->row_count > 0 && c->have_header)
            return TAKE_END;
        header_line(c, t, n);
        return TAKE_YES;
    }
    double size, count;
    int dtype = row_shape(t, n, &size, &count);
    if (dtype) {
        data_row(sec, t, n, size, count, dtype, l->s);
        return TAKE_YES;
    }
    /* A row cut to a bare number (or "...") right after the table. */
    if (c->row_count > 0 && n <= 2) {
        double v;
        if (n >= 1 && (num_parse(t[0].s, t[0].len, &v) || span_starts(t[0].s, t[0].len, "..."))) {
            section_issue(sec, "the output is cut inside the table");
            return TAKE_YES;
        }
    }
    if (c->row_count == 0 && memchr(l->s, '|', l->len)) {
        /* NCCL's Func/Proto/Algo matrix block from NCCL_DEBUG=INFO. */
        if (line_find(l, "Function") || line_find(l, "Broadcast") ||
            line_find(l, "Reduce") || line_find(l, "AllGather"))
            return TAKE_WEAK;
    }
    return TAKE_NO;
}

void nccl_finish(struct report_section *sec)
{
    struct report_nccl *c = &sec->u.nccl;
    if (c->max_rank >= 0)
        c->ranks = c->max_rank + 1;
    else if (c->nranks_info > 0)
        c->ranks = c->nranks_info;
    if (c->host_count > 0)
        c->nodes = c->host_count;
    else if (c->nnodes_info > 0)
        c->nodes = c->nnodes_info;
    if (c->row_count == 0 && c->nccl_warnings > 0 && !c->have_header)
        text_set(sec->tool, sizeof(sec->tool), "NCCL log");
    if (!c->collective[0] && c->row_count > 0) {
        /* Infer from the table only what it proves: busbw/algbw is
         * 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter
         * and alltoall, 1 for sendrecv, broadcast and reduce. */
        const struct report_nccl_row *r = NULL;
        for (int i = c->row_count - 1; i >= 0; i--) {
            if (c->rows[i].oop_algbw_gbs > 0 && c->rows[i].oop_busbw_gbs > 0) {
                r = &c->rows[i];
                break;
            }
        }
        if (r) {
            double ratio = r->oop_busbw_gbs / r->oop_algbw_gbs;
            int none = strcmp(r->redop, "none") == 0;
            int n = c->ranks;
            if (ratio > 1.05) {
                text_set(c->collective, sizeof(c->collective), "all_reduce");
            } else if (ratio < 0.95) {
                snprintf(c->candidates, sizeof(c->candidates), "%s",
                         none ? "all_gather,alltoall" : r->redop[0] ? "reduce_scatter" :
                                "all_gather,alltoall,reduce_scatter");
                if (r->redop[0] && !none)
                    text_set(c->collective, sizeof(c->collective), "reduce_scatter");
            } else if (r->root >= 0) {
                text_set(c->collective, sizeof(c->collective), none ? "broadcast" : "reduce");
            } else if (isnan(r->root)) {
                text_set(c->candidates, sizeof(c->candidates), "all_reduce,broadcast,reduce,sendrecv");
            } else if (n > 2) {
                /* ratio 1 with more than two ranks cannot be all_reduce */
                text_set(c->collective, sizeof(c->collective), "sendrecv");
            } else {
                text_set(c->candidates, sizeof(c->candidates), "all_reduce,sendrecv");
            }
        }
    }
    if (c->collective[0]) {
        /* "<collective>_perf"; collective holds at most 15 bytes */
        char tool[sizeof(sec->tool)] = "";
        size_t n = strlen(c->collective);
        memcpy(tool, c->collective, n);
        memcpy(tool + n, "_perf", sizeof("_perf"));
        memcpy(sec->tool, tool, sizeof(tool));
    }
    if (c->rows_dropped)
        section_issue(sec, "more than 64 message sizes: later rows are not listed");
}
