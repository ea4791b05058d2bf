/* report_parse.c: the driver that walks an upload line by line, cleans each
 * line of paste debris, recognises where one tool's output starts, and hands
 * lines to that kind's parser until another tool's output begins.
 *
 * One pass, no backtracking, no recursion: each line is looked at a bounded
 * number of times, so time is linear in the input and nothing the input says
 * can make it loop. Lines are windows into the caller's text (never copied),
 * and the only heap memory is the section array, capped at
 * REPORT_SECTIONS_MAX (eight slots, then the cap at once, trimmed at the
 * end, so a long log copies sections once); sections beyond the cap are
 * still parsed (into a scratch slot) so that their lines are accounted for,
 * then counted as dropped.
 *
 * Speed: every line pays for the scan to its end (SSE2), the cleaning (runs
 * of blanks a word at a time) and one dispatch; what more it costs is its
 * kind's parser's business. That per-line floor (the scan alone is ~12 ns a
 * line) is why a 100 MB log parses at a few hundred MB/s while grep -c,
 * which searches the whole buffer for its pattern and looks for line ends
 * only around matches, runs at GB/s. What the detectors answer depends on
 * a line's text alone, and a log repeats its generic lines (headings,
 * borders, banners) once per node: a memo of those texts spares asking
 * the detectors again (struct memo_slot), and keeps what a kind noted
 * about a text (line_note_put) for when it comes back.
 *
 * Threads: on a large input (report_parse_opts; by default 16 MiB and more)
 * the text is cut at line starts into pieces, PIECES_PER_THREAD for each
 * thread (struct sched). The calling thread reads piece 0 as the sequential
 * parser does; the other threads, and the calling thread once it is done with
 * piece 0, take the next piece left and parse it from the start state (no
 * section open; a "chunk parser", parse_chunk), as if it began the input, with
 * line numbers counted from its first line, logging the lines after which its
 * state depends on the input from there on only: "no section open" and "a
 * section of kind X opened on this line" (open_section clears what it uses, so
 * such a state is the same whoever reached it), each with the counters at that
 * point. The calling thread, whose state is the sequential parser's, takes the
 * pieces in, in order, as they are done: it reads on into piece k line by line
 * until its state is one that piece k's log holds for the same line
 * (convergence); from there on piece k's parse is the sequential one, so its
 * sections from that point are spliced in (line numbers shifted, the
 * REPORT_SECTIONS_MAX cap applied over the whole input), its counters added
 * less those at the point, and its end state taken over. Without convergence
 * the calling thread has parsed piece k itself, as one thread would; a piece
 * it takes when all before it are in is read straight into the sequential
 * parse. The result is the sequential parse's, field for field (the
 * differential tests compare them). Several pieces a thread, not one chunk
 * each, because the threads rarely run at the same speed (a shared or busy
 * CPU): with equal chunks the slower one decides the time, with small pieces
 * the faster one takes more of them. The threads are POSIX threads (libc's
 * pthreads): no other library, no globals, and a thread that cannot start (or
 * a piece parser short of memory) leaves its pieces to the others. Memory: a
 * piece's parse keeps at most the sections the whole input may still keep
 * (none once the cap is reached, which on a long log is within its first
 * piece) and is freed when taken in, and the calling thread takes in what is
 * done after each piece it reads, so few are held at once. */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT: the CPUs this process may use */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_int.h"

const char *report_kind_name(enum report_kind kind)
{
    static const char *const names[REPORT_KIND_COUNT] = {
        [REPORT_TOPO] = "topo", [REPORT_NCCL] = "nccl", [REPORT_PERFTEST] = "perftest",
        [REPORT_IB_PORTS] = "ib_ports", [REPORT_GPU] = "gpu", [REPORT_FIO] = "fio",
        [REPORT_DCGM] = "dcgm", [REPORT_NVBANDWIDTH] = "nvbandwidth", [REPORT_CPU] = "cpu",
        [REPORT_NIC] = "nic", [REPORT_GEMM] = "gemm",
    };
    if ((unsigned)kind < REPORT_KIND_COUNT)
        return names[kind];
    return "unknown";
}

struct kind_ops {
    enum report_kind kind;
    int (*detect)(const struct line *l);
    void (*init)(struct report_section *sec);
    enum take (*line)(struct report_section *sec, const struct line *l);
    void (*finish)(struct report_section *sec);
};

/* Detection order matters only where two kinds could claim one line; the
 * more specific markers come first. The order is the order of these slots. */
enum { K_NCCL, K_PERF, K_TOPO, K_DCGM, K_NVBW, K_GPU, K_IB, K_FIO, K_CPU, K_NIC, K_GEMM, NKINDS };

static const struct kind_ops kinds[NKINDS] = {
    [K_NCCL] = {REPORT_NCCL, nccl_detect, nccl_init, nccl_line, nccl_finish},
    [K_PERF] = {REPORT_PERFTEST, perf_detect, perf_init, perf_line, perf_finish},
    [K_TOPO] = {REPORT_TOPO, topo_detect, topo_init, topo_line, topo_finish},
    [K_DCGM] = {REPORT_DCGM, dcgm_detect, dcgm_init, dcgm_line, dcgm_finish},
    [K_NVBW] = {REPORT_NVBANDWIDTH, nvbw_detect, nvbw_init, nvbw_line, nvbw_finish},
    [K_GPU] = {REPORT_GPU, gpu_detect, gpu_init, gpu_line, gpu_finish},
    [K_IB] = {REPORT_IB_PORTS, ib_detect, ib_init, ib_line, ib_finish},
    [K_FIO] = {REPORT_FIO, fio_detect, fio_init, fio_line, fio_finish},
    [K_CPU] = {REPORT_CPU, cpu_detect, cpu_init, cpu_line, cpu_finish},
    [K_NIC] = {REPORT_NIC, nic_detect, nic_init, nic_line, nic_finish},
    [K_GEMM] = {REPORT_GEMM, gemm_detect, gemm_init, gemm_line, gemm_finish},
};

/* Separator rules ("-----", "=====", "*****") carry no facts and are not
 * unrecognized text either. */
static int is_decoration(const struct line *l)
{
    /* the bytes a rule is drawn with: one table load a byte instead of
     * fourteen compares (every line no kind claims is asked) */
    static const unsigned char rule[256] = {
        ['-'] = 1, ['='] = 1, ['*'] = 1, ['+'] = 1, ['|'] = 1, [' '] = 1, ['#'] = 1,
        ['.'] = 1, ['~'] = 1, ['_'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1,
    };
    for (size_t i = 0; i < l->raw_len; i++)
        if (!rule[(unsigned char)l->raw[i]])
            return 0;
    return 1;
}

/* Substrings one of which every strong start marker holds unless it opens
 * the line with a byte strong_possible() lets through: a necessary
 * condition, kept in step with each kind's detect(). */
#define STRONG_SUBS(X)                                                                   \
    X("NCCL WARN") X("_perf") X(" Test") X("ib_") X("Waiting for client to connect")      \
    X("nvidia-smi") X("NVSMI LOG") X("NVIDIA-SMI ") X("Successfully ran diagnostic")      \
    X("dcgmi diag") X("Diagnostic\"") X("nvbandwidth") X(": (g") X("\"fio version\"")    \
    X("cpupower frequency-info") X("lscpu") X("ethtool -") X("ibstat") X("ibv_devinfo")  \
    /* gemm: "gflops)" and "Gflop/s)" both hold "flop", "gpu_burn" and               \
     * "gpu-burn" both "burn"; "Skipping ... since DCGM validation" opens            \
     * with 'S' below */                                                               \
    X("flop") X("burn") X("dcgmproftester")
#define SUB_ENTRY(lit) {LIT_N(lit)},
static const struct {
    const char *s;
    size_t n;
} strong_subs[] = {STRONG_SUBS(SUB_ENTRY)};
#undef SUB_ENTRY
#define NSTRONG (sizeof(strong_subs) / sizeof(strong_subs[0]))

/* A chunk parser's state after `line` of its chunk's lines (0: before the
 * first), when that state no longer depends on what came before the chunk:
 * no section open (kind -1), or a section of `kind` opened on that line.
 * The counters are the chunk parser's own at that point. */
struct event {
    size_t line;
    int kind;
    size_t kept, dropped, unrec;
};

/* What the driver learnt about a line's text that depends on that text
 * alone: a log repeats its lines (each node prints the same headings,
 * borders and banners), and a line that was once no strong marker, or
 * once opened a given kind with no section open, is so again. The slot
 * points into the caller's text, which outlives the parse. The detectors
 * see the line's raw text and what line_clean derives from it (s, len,
 * hashed); none reads indent, and l->info, which nccl_detect reads, is 0
 * on the path the weak answer is kept for (the driver returns on INFO
 * lines before it), so equal raw text gives equal answers. */
enum {
    MEMO_NO_STRONG = 1,        /* strong_possible() is 0 */
    MEMO_WEAK = 2,             /* weak holds detect_kind(l, DETECT_WEAK, -1) */
    MEMO_STRONG_NULL = 4,      /* detect_kind(l, DETECT_STRONG, strong_skip - 1)
                                  is NULL */
    MEMO_WEAK_DECOR = 8,       /* with MEMO_WEAK and no kind: is_decoration() */
};
/* The memo starts at 256 slots (4 KiB) and grows fourfold, up to 4096
 * slots (64 KiB), each time it has taken in half as many texts as it has
 * slots: a short upload touches little memory, and a long log's cycle of
 * outputs (a few thousand distinct generic lines) stays in it. */
#define MEMO_BITS_MIN 8
#define MEMO_BITS_MAX 12
struct memo_slot {
    const char *raw;           /* NULL: empty */
    uint16_t len;
    uint8_t flags;
    uint8_t weak;              /* kinds[] slot + 1; 0: no kind */
    uint8_t strong_skip;
    uint8_t note_kind;         /* report kind + 1 that noted `note` (line_note_put);
                                  0: none */
    uint16_t note;
};

/* Events logged per chunk at most: convergence is almost always at the
 * first few; past the cap a chunk's later lines are simply not spliced. */
#define EVENTS_MAX 65536

struct parser {
    struct report *rep;
    size_t cap;
    struct report_section *cur;
    const struct kind_ops *cur_ops;
    struct report_section scratch;
    int cur_is_scratch;
    int oom;
    int opened;                /* open_section ran for the current line */
    struct event *ev;          /* chunk parsers: the event log */
    size_t nev, evcap;
    size_t ev_end;             /* the log holds every event of lines < ev_end */
    size_t nlines;             /* chunk parsers: lines of the chunk */
    size_t smax;               /* sections kept at most (REPORT_SECTIONS_MAX) */
    struct line_pairs pairs;   /* the current line's pair set (report_int.h) */
    struct line line;          /* the line being read (read_line) */
    const char *text_end;      /* the end of the whole input (not of a thread's
                                  piece): table_stamp looks ahead up to it */
    struct memo_slot *memo;    /* NULL: none yet */
    unsigned memo_bits;        /* log2 of its slots */
    size_t memo_taken;         /* texts taken in since it was made */
    struct memo_slot memo_none[2]; /* handed out (empty) when memory is short */
};

static void close_cur(struct parser *p)
{
    if (!p->cur)
        return;
    if (p->cur->held) {
        /* lines that only might have begun a section and did not: the
         * slot is left for the next section, as if never opened */
        p->rep->unrecognized_lines += (size_t)p->cur->held;
        p->cur = NULL;
        p->cur_ops = NULL;
        return;
    }
    p->cur_ops->finish(p->cur);
    if (!p->cur_is_scratch)
        p->rep->section_count++;
    else
        p->rep->sections_dropped++;
    p->cur = NULL;
    p->cur_ops = NULL;
}

static struct report_section *open_section(struct parser *p, const struct kind_ops *ops,
                                           int lineno)
{
    struct report *rep = p->rep;
    struct report_section *sec;
    close_cur(p);
    if (rep->section_count < p->smax) {
        if (rep->section_count == p->cap) {
            /* Eight slots hold most uploads; past them the array goes
             * straight to the cap, so a long log copies its sections once
             * (not at every doubling) and touches no slot it does not use.
             * report_parse gives back what stays unused at the end. */
            size_t ncap = p->cap ? p->smax : 8;
            if (ncap > p->smax)
                ncap = p->smax;
            struct report_section *n = realloc(rep->sections, ncap * sizeof(*n));
            if (!n) {
                p->oom = 1;
                return NULL;
            }
            rep->sections = n;
            p->cap = ncap;
        }
        sec = &rep->sections[rep->section_count];
        p->cur_is_scratch = 0;
    } else {
        sec = &p->scratch;
        p->cur_is_scratch = 1;
    }
    /* Clear the header and only the union member in use: sections are large
     * and a big log opens many. */
    memset(sec, 0, offsetof(struct report_section, u));
    sec->kind = ops->kind;
    sec->first_line = lineno;
    sec->last_line = lineno;
    ops->init(sec);
    p->cur = sec;
    p->cur_ops = ops;
    p->opened = 1;
    return sec;
}

/* Whether any kind's strong start marker can be in this line. Strong
 * markers either open the line (so its first byte must be one they begin
 * with) or hold one of strong_subs, which the line's pair set rules out in
 * a few bit tests each (the same test as line_may_hold). The generic lines
 * that get here (table borders, headings, JSON, "key: value" banners) mostly
 * fail both, and are spared asking ten detectors. */
static inline int strong_lead(const struct line *l)
{
    const char *s = l->s;
    size_t n = l->len;
    int lead = 0;
    switch (n ? s[0] : '\0') {
    case 'n': lead = span_starts(s, n, "nThread ") || span_starts(s, n, "nvbandwidth Version"); break;
    case 'o': lead = span_starts(s, n, "out-of-place"); break;
    case 's': lead = span_starts(s, n, "size"); break;
    case 'm': lead = span_starts(s, n, "memcpy "); break;
    case 'h': lead = span_starts(s, n, "hca_id:"); break;
    case 'f': lead = span_starts(s, n, "fio-"); break;
    case 'a': lead = span_starts(s, n, "analyzing CPU "); break;
    case 'N': lead = span_starts(s, n, "NCCL version") || span_starts(s, n, "NIC statistics:"); break;
    case 'B': lead = span_starts(s, n, "Burning for "); break;
    case 'T': lead = span_starts(s, n, "Tested "); break;
    case 'S': lead = span_starts(s, n, "Skipping "); break;
    case 'W': lead = span_starts(s, n, "WARNING: BW peak") || span_starts(s, n, "Waiving "); break;
    case 'G': lead = span_starts(s, n, "GPU0"); break;
    case 'R': lead = span_starts(s, n, "Running ") || span_starts(s, n, "Run length not"); break;
    case 'C': lead = span_starts(s, n, "CA '") || span_starts(s, n, "Couldn't init a GPU"); break;
    case 'I': lead = span_starts(s, n, "Infiniband device '") || span_starts(s, n, "Initialized device "); break;
    case 'A': lead = span_starts(s, n, "Architecture:"); break;
    case '\v': case '\f': lead = 1; break;          /* topo's GPU0 after odd blanks */
    case '\x1b': lead = span_find(s, n, "GPU0") != NULL; break;  /* topo's underlined header */
    case '|': lead = n >= 30 && s[28] == '|'; break;  /* dcgm's table header row */
    default: break;
    }
    if (lead)
        return 1;
    /* nvidia-smi --query-gpu's CSV header: lower case, ',' or '.' */
    return n && s[0] >= 'a' && s[0] <= 'z' && (memchr(s, ',', n) || memchr(s, '.', n));
}

static inline __attribute__((always_inline)) int strong_possible(const struct line *l)
{
    if (strong_lead(l))
        return 1;
    line_pairs_ensure(l);
    const struct line_pairs *lp = l->pairs;
    unsigned short gen = lp->gen;
    /* Written out per substring: the literals' pair hashes fold to
     * constants, so a substring whose first pair is absent (most) costs a
     * compare and a branch, where the loop over a table of hashes cost
     * three times that a substring (callgrind). STRONG_SUBS lists the same
     * substrings as strong_subs; the unit test checks this against the
     * table's loop. */
#define HAS_PAIR(a, b) (lp->seen[pair_hash((unsigned char)(a), (unsigned char)(b))] == gen)
#define SUB(lit)                                                                      \
    if (HAS_PAIR(lit[0], lit[1]) && HAS_PAIR(lit[(sizeof(lit) - 1) / 2 - 1],          \
                                             lit[(sizeof(lit) - 1) / 2]) &&           \
        HAS_PAIR(lit[sizeof(lit) - 3], lit[sizeof(lit) - 2]))                         \
        return 1;
    STRONG_SUBS(SUB)
#undef SUB
#undef HAS_PAIR
    return 0;
}

int report_strong_possible(const struct line *l)
{
    return strong_possible(l);
}

int report_strong_possible_ref(const struct line *l)
{
    if (strong_lead(l))
        return 1;
    line_pairs_ensure(l);
    const struct line_pairs *lp = l->pairs;
    for (size_t i = 0; i < NSTRONG; i++) {
        const unsigned char *z = (const unsigned char *)strong_subs[i].s;
        size_t n = strong_subs[i].n, m = n / 2;
        if (pairs_has(lp, z[0], z[1]) && pairs_has(lp, z[m - 1], z[m]) &&
            pairs_has(lp, z[n - 2], z[n - 1]))
            return 1;
    }
    return 0;
}

/* Whether n bytes at a and b are the same: a few wide compares, as the
 * lines compared are short and a library call costs more. */
static inline int text_same(const char *a, const char *b, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    if (n >= 16) {
        for (; i + 16 <= n; i += 16)
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(
                    _mm_loadu_si128((const __m128i *)(const void *)(a + i)),
                    _mm_loadu_si128((const __m128i *)(const void *)(b + i)))) != 0xFFFF)
                return 0;
        /* the last bytes: one window ending at the end */
        return i == n || _mm_movemask_epi8(_mm_cmpeq_epi8(
                             _mm_loadu_si128((const __m128i *)(const void *)(a + n - 16)),
                             _mm_loadu_si128((const __m128i *)(const void *)(b + n - 16)))) ==
                             0xFFFF;
    }
#endif
    if (n >= 8) {
        for (; i + 8 <= n; i += 8)
            if (w_load(a + i) != w_load(b + i))
                return 0;
        return i == n || w_load(a + n - 8) == w_load(b + n - 8);
    }
    for (; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* The hash that places a text of n bytes at s: its length and its first
 * and last eight bytes (all of it when shorter). */
static inline uint64_t memo_hash(const char *s, size_t n)
{
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        a = w_load(s);
        b = w_load(s + n - 8);
    } else {
        for (size_t i = 0; i < n; i++)
            a = a << 8 | (unsigned char)s[i];
    }
    return (a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) * 0xC2B2AE3D27D4EB4Full;
}

/* The pair of slots of hash h in a memo of 2^bits slots. */
static inline struct memo_slot *memo_pair(struct memo_slot *memo, unsigned bits, uint64_t h)
{
    return &memo[(h >> (64 - bits)) & ~(uint64_t)1];
}

/* A memo for p four times the size of the one it has (or the first),
 * holding what that one held (each pair's last used first, as far as
 * room goes); without memory p keeps what it has. */
static __attribute__((noinline)) void memo_grow(struct parser *p)
{
    unsigned bits = p->memo ? p->memo_bits + 2 : MEMO_BITS_MIN;
    if (bits > MEMO_BITS_MAX)
        bits = MEMO_BITS_MAX;
    struct memo_slot *m = calloc((size_t)1 << bits, sizeof(*m));
    if (!m)
        return;
    size_t old = p->memo ? (size_t)1 << p->memo_bits : 0;
    for (size_t i = 0; i < old; i++) {
        const struct memo_slot *o = &p->memo[i];
        if (!o->raw)
            continue;
        struct memo_slot *d = memo_pair(m, bits, memo_hash(o->raw, o->len));
        if (!d[0].raw)
            d[0] = *o;
        else if (!d[1].raw)
            d[1] = *o;
    }
    free(p->memo);
    p->memo = m;
    p->memo_bits = bits;
}

/* The memo slot for l's raw text; *hit says whether it holds that text.
 * The text's hash picks a pair of slots, the one used last first: on a
 * miss that one moves to the second place and the first is handed out,
 * so two texts that pick the same pair (a log's distinct generic lines
 * collide often in a direct-mapped table) both stay. Short of memory for
 * a memo, an empty slot outside it is handed out. */
static inline struct memo_slot *memo_at(struct parser *p, const struct line *l, int *hit)
{
    if (!p->memo || (p->memo_taken >= ((size_t)1 << (p->memo_bits - 1)) &&
                     p->memo_bits < MEMO_BITS_MAX)) {
        memo_grow(p);
        if (!p->memo) {
            *hit = 0;
            p->memo_none[0].raw = NULL;
            return &p->memo_none[0];
        }
    }
    const char *s = l->raw;
    size_t n = l->raw_len;
    struct memo_slot *m = memo_pair(p->memo, p->memo_bits, memo_hash(s, n));
    *hit = 1;
    if (m[0].len == n && m[0].raw && text_same(m[0].raw, s, n))
        return &m[0];
    if (m[1].len == n && m[1].raw && text_same(m[1].raw, s, n))
        return &m[1];
    *hit = 0;
    m[1] = m[0];
    m[0].raw = NULL;
    return &m[0];
}

/* The memo slot of the line being read (l), and in *hit whether it holds
 * l's text: looked up once a line, on its first use, for the driver's
 * tests and the kinds' notes alike (a second lookup of a text not there
 * would hand out a second slot). The line's scratch (struct line_pairs)
 * holds it. */
static inline struct memo_slot *line_slot(struct parser *p, const struct line *l, int *hit)
{
    struct line_pairs *lp = &p->pairs;
    if (!lp->memo_slot)
        lp->memo_slot = memo_at(p, l, &lp->memo_hit);
    *hit = lp->memo_hit;
    return lp->memo_slot;
}

/* Records flag (and what goes with it, set by the caller) for the line
 * being read (l) in its slot m, which held l's text (hit) or is taken
 * over. Lines of 64 KiB and more are left out: a slot holds 16 bits of
 * length (and is 16 bytes, four to a cache line). */
static inline int memo_keep(struct parser *p, struct memo_slot *m, const struct line *l, int hit,
                            unsigned flag)
{
    if (!hit) {
        if (l->raw_len > UINT16_MAX)
            return 0;
        m->raw = l->raw;
        m->len = (uint16_t)l->raw_len;
        m->flags = 0;
        m->note_kind = 0;
        p->pairs.memo_hit = 1;
        p->memo_taken++;
    }
    m->flags |= (uint8_t)flag;
    return 1;
}

/* The parser reading l (its scratch l->pairs says), or NULL. */
static struct parser *parser_of(const struct line *l)
{
    return l->pairs ? l->pairs->memo_owner : NULL;
}

int line_note_get(const struct line *l, enum report_kind kind, unsigned *note)
{
    struct parser *p = parser_of(l);
    if (!p)
        return 0;
    int hit;
    struct memo_slot *m = line_slot(p, l, &hit);
    if (!hit || m->note_kind != (uint8_t)(kind + 1))
        return 0;
    *note = m->note;
    return 1;
}

void line_note_put(const struct line *l, enum report_kind kind, unsigned note)
{
    struct parser *p = parser_of(l);
    if (!p)
        return;
    int hit;
    struct memo_slot *m = line_slot(p, l, &hit);
    if (memo_keep(p, m, l, hit, 0)) {
        m->note_kind = (uint8_t)(kind + 1);
        m->note = (uint16_t)note;
    }
}

/* The rest of detect_kind, past its first tests; c0 and c1 as it has them. */
static const struct kind_ops *detect_run(const struct line *l, int min, int skip_kind, char c0,
                                         char c1);

/* The kind whose start marker this line is, at least of strength min. */
static const struct kind_ops *detect_kind(const struct line *l, int min,
                                          int skip_kind)
{
    /* Braces and table borders start many lines of JSON and boxed tables;
     * only a few markers can begin with them, so ask only those kinds. */
    char c0 = l->len ? l->s[0] : '\0';
    char c1 = l->len > 1 ? l->s[1] : '\0';
    if (c0 == '{' || c0 == '}' || c0 == ']')
        return NULL;
    if (min >= DETECT_STRONG && !strong_possible(l))
        return NULL;
    return detect_run(l, min, skip_kind, c0, c1);
}

/* detect_strong for a line its memo slot m (holding the line's text when
 * hit) did not answer. Out of line: the answered lines, most, take the
 * short way. */
static __attribute__((noinline)) const struct kind_ops *
detect_strong_slow(struct parser *p, const struct line *l, int skip_kind, struct memo_slot *m,
                   int hit)
{
    if (!strong_possible(l)) {
        memo_keep(p, m, l, hit, MEMO_NO_STRONG);
        return NULL;
    }
    char c0 = l->s[0];
    char c1 = l->len > 1 ? l->s[1] : '\0';
    const struct kind_ops *ops = detect_run(l, DETECT_STRONG, skip_kind, c0, c1);
    /* no strong marker but maybe skip_kind's own: kept with that kind */
    if (!ops && memo_keep(p, m, l, hit, MEMO_STRONG_NULL))
        m->strong_skip = (uint8_t)(skip_kind + 1);
    return ops;
}

/* detect_kind(l, DETECT_STRONG, skip_kind) through p's memo: most generic
 * lines inside a section (headings, borders, JSON keys) come again and
 * again, and were no strong marker the first time. */
static inline const struct kind_ops *detect_strong(struct parser *p, const struct line *l,
                                                   int skip_kind)
{
    char c0 = l->len ? l->s[0] : '\0';
    if (c0 == '{' || c0 == '}' || c0 == ']')
        return NULL;
    int hit;
    struct memo_slot *m = line_slot(p, l, &hit);
    if (hit && ((m->flags & MEMO_NO_STRONG) ||
                ((m->flags & MEMO_STRONG_NULL) && m->strong_skip == (uint8_t)(skip_kind + 1))))
        return NULL;
    return detect_strong_slow(p, l, skip_kind, m, hit);
}

static const struct kind_ops *detect_run(const struct line *l, int min, int skip_kind, char c0,
                                         char c1)
{
    /* "[host ~]# cmd" and "+ cmd" (shell trace) are command lines; a '+'
     * followed by '-' or '=' is a table border. */
    if (c0 == '+' && c1 != '-' && c1 != '=')
        c0 = ' ';
    /* Every detector below searches the line for its markers: build the
     * line's pair set once so that most of those searches are bit tests. */
    line_pairs_ensure(l);
    /* The detectors are asked in table order, written out with constant
     * slots so that each is a direct call: a loop through the function
     * pointers mispredicted on most of the ten calls. */
#define TRY(i)                                                                   \
    do {                                                                         \
        if ((int)kinds[i].kind != skip_kind && kinds[i].detect(l) >= min)        \
            return &kinds[i];                                                    \
    } while (0)
    if (c0 == '"') {
        TRY(K_DCGM);
        TRY(K_FIO);
        /* a gpu_burn progress line pasted inside quotes ("30.0%  proc'd:
         * ..."): JSON keys never open with a digit, so one byte keeps
         * dcgm's and fio's JSON lines from asking gemm */
        if (c1 >= '0' && c1 <= '9')
            TRY(K_GEMM);
        return NULL;
    }
    if (c0 == '|' || c0 == '+') {
        TRY(K_DCGM);
        TRY(K_GPU);
        return NULL;
    }
    TRY(K_NCCL);
    TRY(K_PERF);
    TRY(K_TOPO);
    TRY(K_DCGM);
    TRY(K_NVBW);
    TRY(K_GPU);
    TRY(K_IB);
    TRY(K_FIO);
    TRY(K_CPU);
    TRY(K_NIC);
    TRY(K_GEMM);
#undef TRY
    return NULL;
}

static void start(struct parser *p, const struct kind_ops *ops, const struct line *l, int lineno)
{
    struct report_section *sec = open_section(p, ops, lineno);
    if (!sec)
        return;
    enum take t = ops->line(sec, l);
    if (t == TAKE_YES || t == TAKE_WEAK)
        sec->last_line = lineno;
}

/* Whether l, a line no kind took and no separator rule, is still a known
 * tool's output: the timestamp nvidia-smi prints above its table's box,
 * when that box follows it (gpu_table_stamp; a lone date line is no
 * table's). It is then the table's as the box's top border is: not
 * unrecognized, and not where the section opens (the banner is). The
 * parser does not hold the line until the table opens, which would add
 * state to every line and to the chunk parsers' convergence: it looks at
 * the next two lines of the text now. Lines that are taken pay nothing
 * (only lines about to be counted unrecognized get here, and only those
 * of the stamp's lengths look further), and the answer is the text's
 * alone, read up to the end of the whole input, not of a thread's piece,
 * so a chunk parser answers as the sequential parse does. */
static int table_stamp(const struct parser *p, const struct line *l)
{
    if (l->raw_len < GPU_STAMP_MIN || l->raw_len > GPU_STAMP_MAX)
        return 0;
    const char *e = l->raw + l->raw_len;
    const char *nl = memchr(e, '\n', (size_t)(p->text_end - e));
    return nl && gpu_table_stamp(l, nl + 1, (size_t)(p->text_end - (nl + 1)));
}

/* A line that is not blank nor INFO, read with no section open or after
 * the open section's kind turned it down or ended: the kind it starts, if
 * any. Through the memo, as detect_strong: what detect_kind(l,
 * DETECT_WEAK, -1) answers, and whether the line is a separator rule, are
 * its text's alone. Lines opening with a brace are answered at once. Out
 * of line: most lines, taken by the open section, do not come here, and
 * the loop they run in keeps its registers. */
static __attribute__((noinline)) void feed_open(struct parser *p, const struct line *l, int lineno)
{
    struct report *rep = p->rep;
    char c0 = l->s[0];
    int hit = 0, memo = c0 != '{' && c0 != '}' && c0 != ']';
    struct memo_slot *m = memo ? line_slot(p, l, &hit) : NULL;
    if (hit && (m->flags & MEMO_WEAK)) {
        if (m->weak)
            start(p, &kinds[m->weak - 1], l, lineno);
        else if (!(m->flags & MEMO_WEAK_DECOR) && !table_stamp(p, l))
            rep->unrecognized_lines++;
        return;
    }
    const struct kind_ops *ops = detect_kind(l, DETECT_WEAK, -1);
    int decor = ops ? 0 : is_decoration(l);
    if (memo && memo_keep(p, m, l, hit, MEMO_WEAK | (decor ? MEMO_WEAK_DECOR : 0u)))
        m->weak = ops ? (uint8_t)(ops - kinds + 1) : 0;
    if (ops) {
        start(p, ops, l, lineno);
        return;
    }
    if (!decor && !table_stamp(p, l))
        rep->unrecognized_lines++;
}

static inline __attribute__((always_inline)) void feed(struct parser *p, const struct line *l,
                                                     int lineno)
{
    if (p->cur) {
        /* NCCL_DEBUG=INFO lines arrive anywhere in a log; inside another
         * tool's output they are noise, not the start of something new. */
        if (l->info && p->cur_ops->kind != REPORT_NCCL)
            return;
        enum take t = p->cur_ops->line(p->cur, l);
        if (t == TAKE_YES) {
            p->cur->last_line = lineno;
            return;
        }
        if (t == TAKE_WEAK) {
            /* A generic line (a border, a heading) may be another tool's
             * banner or command line: that ends this section. No start
             * marker begins with a digit, which spares table rows. */
            const struct kind_ops *ops = NULL;
            if (!(l->s[0] >= '0' && l->s[0] <= '9'))
                ops = detect_strong(p, l, (int)p->cur_ops->kind);
            if (ops)
                start(p, ops, l, lineno);
            else
                p->cur->last_line = lineno;
            return;
        }
        if (t == TAKE_END)
            close_cur(p);
    }
    /* INFO lines outside a table never open a section of their own: alone
     * they hold no measurement, and a long log is full of them. (l is read
     * here, not kept from before the kind's call: across the call it
     * would be saved and restored on every line.) */
    if (l->raw_len == 0 || l->info)
        return;
    feed_open(p, l, lineno);
}

#define LINENO_MAX 0x7fffffff

/* A parser with an empty report, or NULL when memory is short. */
static struct parser *parser_new(size_t smax)
{
    struct parser *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->rep = calloc(1, sizeof(*p->rep));
    if (!p->rep) {
        free(p);
        return NULL;
    }
    p->ev_end = SIZE_MAX;
    p->smax = smax;
    p->pairs.memo_owner = p;
    p->line.pairs = &p->pairs;
    return p;
}

static void parser_free(struct parser *p)
{
    if (!p)
        return;
    report_free(p->rep);
    free(p->ev);
    free(p->memo);
    free(p);
}

/* nccl_info_quiet out of line: asked of INFO lines inside NCCL tables only,
 * and inlined into the driver's loop it cost every other line registers. */
static __attribute__((noinline)) int info_quiet(const char *s, size_t avail, size_t rb, size_t *e)
{
    return nccl_info_quiet(s, avail, rb, e);
}

/* Reads the line at pos (it ends at '\n' or at end), feeds it and returns
 * where the next line begins. end is the input's end or just past a '\n',
 * so the line is the one a parse of the whole input reads there. Forced
 * inline into each of its three loops: as one call a line it cost the
 * one-thread parse 3% more instructions (callgrind) than the loop it
 * replaced. */
static inline __attribute__((always_inline)) size_t read_line(struct parser *p, const char *text,
                                                              size_t pos, size_t end, int lineno)
{
    const char *s = text + pos;
    size_t avail = end - pos, ll = 0, rb, at = 0;
    if (!line_scan_head(s, avail, &ll, &rb, &at)) {
        /* An NCCL INFO line with no NCCL section open is read by no one
         * (feed drops it), and a debug log is full of them: told at the
         * line's first ']', before the rest of the line is scanned or the
         * line cleaned; its end is then found by line_scan_tail from at
         * (the bytes from at on are the rest of the line: an inline scan,
         * where a memchr call's length-dependent exits were mispredicted
         * branches). Only for a line opening with no byte line_clean
         * removes (line_debris): its raw text then starts at s, and ends
         * past the marker (which holds no newline nor byte removed at the
         * end), so this is the l.info that feed would see, with
         * l.raw_len > 0. A line that is not told here (its ']' and its
         * newline in one step of line_scan_head) still reaches feed, which
         * drops it. */
        if (rb + 11 <= avail && !(line_debris((unsigned char)s[0]) & DEBRIS_OPEN) &&
            span_starts(s + rb, avail - rb, "] NCCL INFO")) {
            if (!p->cur || p->cur_ops->kind != REPORT_NCCL) {
                size_t e = line_scan_tail(s, avail, at);
                return e < avail ? pos + e + 1 : end;
            }
            /* Inside an NCCL table, most INFO lines are taken with no
             * effect but the section's last line (nccl_info_quiet). */
            size_t e;
            if (info_quiet(s, avail, rb, &e)) {
                p->cur->last_line = lineno;
                return e < avail ? pos + e + 1 : end;
            }
        }
        ll = line_scan_tail(s, avail, at);
    }
    int nl = pos + ll < end;
    size_t next = pos + ll + (nl ? 1 : 0);
    /* the parser's line view: its pairs pointer is set once, in parser_new */
    struct line *l = &p->line;
    line_clean(s, ll, l);
    p->pairs.searches = 0;
    p->pairs.memo_slot = NULL;
    l->info = 0;
    /* (most lines hold no ']': that test first, one branch a line) */
    if (rb != LINE_NO_BRACKET && l->raw_len > 0) {
        /* The first ']' of the line is the first of raw unless the
         * cleaner cut it off with a malformed border character. */
        size_t off = (size_t)(l->raw - s);
        if (rb >= off && rb < off + l->raw_len)
            l->info = nccl_info_at(l, l->raw + (rb - off));
        else if (rb < off)
            l->info = nccl_is_info(l);
    }
    feed(p, l, lineno);
    return next;
}

static void log_event(struct parser *q, size_t line, int kind)
{
    if (q->ev_end != SIZE_MAX)
        return;
    if (q->nev == q->evcap) {
        size_t ncap = q->evcap ? q->evcap * 2 : 64;
        struct event *n = ncap <= EVENTS_MAX ? realloc(q->ev, ncap * sizeof(*n)) : NULL;
        if (!n) {
            /* not an error: later lines of this chunk cannot be spliced */
            q->ev_end = line;
            return;
        }
        q->ev = n;
        q->evcap = ncap;
    }
    struct event *e = &q->ev[q->nev++];
    e->line = line;
    e->kind = kind;
    e->kept = q->rep->section_count;
    e->dropped = q->rep->sections_dropped;
    e->unrec = q->rep->unrecognized_lines;
}

/* Chunk k's parse (k >= 1): text[begin, end) from the start state, lines
 * numbered from 1, events logged; the state at the end is kept (the
 * section open there is not closed) for the caller to take over. */
static void parse_chunk(struct parser *q, const char *text, size_t begin, size_t end)
{
    size_t pos = begin, n = 0;
    int lineno = 0;
    log_event(q, 0, -1);
    while (pos < end && !q->oom) {
        int was_open = q->cur != NULL;
        size_t unrec = q->rep->unrecognized_lines;
        q->opened = 0;
        if (lineno < LINENO_MAX)
            lineno++;
        n++;
        pos = read_line(q, text, pos, end, lineno);
        /* With no section open the counters change only on unrecognized
         * lines: logging those too gives the counters after any line. */
        if (q->cur ? q->opened : (was_open || q->rep->unrecognized_lines != unrec))
            log_event(q, n, q->cur ? (int)q->cur->kind : -1);
    }
    q->nlines = n;
}

/* A chunk line number moved to the whole input's numbering, saturating as
 * the sequential count does. */
static int shift_line(int line, size_t off)
{
    size_t v = (size_t)line + off;
    return v < LINENO_MAX ? (int)v : LINENO_MAX;
}

static void shift_section(struct report_section *sec, size_t off)
{
    sec->first_line = shift_line(sec->first_line, off);
    sec->last_line = shift_line(sec->last_line, off);
}

/* p (the sequential state) equals chunk parser q's state at event e, q's
 * chunk beginning after `off` lines: take q's sections from e on and q's
 * end state. Returns 0 done, 1 when q did not keep a section that the
 * whole input keeps (q counted the cap from its own first section), -1 out
 * of memory (p->oom set). */
static int splice(struct parser *p, const struct parser *q, const struct event *e, size_t off)
{
    struct report *r = p->rep;
    const struct report *qr = q->rep;
    size_t ctot = r->section_count + r->sections_dropped;
    size_t te = e->kept + e->dropped;
    size_t tf = qr->section_count + qr->sections_dropped;
    size_t room = ctot < p->smax ? p->smax - ctot : 0;
    size_t take = tf - te < room ? tf - te : room;
    if (take > 0 && te + take > qr->section_count)
        return 1;
    /* sections are kept in order up to the cap, so below it none was
     * dropped and section_count is ctot */
    size_t kept = r->section_count + take;
    int open_kept = q->cur && kept < p->smax;
    size_t need = kept + (open_kept ? 1 : 0);
    if (need > p->cap) {
        size_t ncap = need <= 8 && 8 <= p->smax ? 8 : p->smax;
        struct report_section *n = realloc(r->sections, ncap * sizeof(*n));
        if (!n) {
            p->oom = 1;
            return -1;
        }
        r->sections = n;
        p->cap = ncap;
    }
    for (size_t i = 0; i < take; i++) {
        r->sections[r->section_count + i] = qr->sections[te + i];
        shift_section(&r->sections[r->section_count + i], off);
    }
    r->section_count = kept;
    r->sections_dropped += (tf - te) - take;
    r->unrecognized_lines += qr->unrecognized_lines - e->unrec;
    if (q->cur) {
        struct report_section *dst = open_kept ? &r->sections[kept] : &p->scratch;
        *dst = *q->cur;
        shift_section(dst, off);
        p->cur = dst;
        p->cur_ops = q->cur_ops;
        p->cur_is_scratch = !open_kept;
    } else {
        p->cur = NULL;
        p->cur_ops = NULL;
    }
    return 0;
}

/* The sequential parser p reads on through text[begin, end) (a chunk of
 * off lines' start) until its state is one that chunk parser q (NULL: none)
 * logged for the same line, then takes q's result from there. *lines is
 * the lines read before the chunk, and after it on return. */
static void continue_into(struct parser *p, const struct parser *q, const char *text,
                          size_t begin, size_t end, size_t *lines, int *lineno)
{
    size_t pos = begin, j = 0, ei = 0, off = *lines;
    int check = q && !q->oom && q->nev > 0;
    for (;;) {
        if (check && j < q->ev_end) {
            while (ei + 1 < q->nev && q->ev[ei + 1].line <= j)
                ei++;
            const struct event *e = &q->ev[ei];
            int same = e->kind < 0 ? p->cur == NULL
                                   : e->line == j && p->cur && p->opened &&
                                         (int)p->cur->kind == e->kind;
            if (same) {
                int r = splice(p, q, e, off);
                if (r < 0)
                    return;
                if (r == 0) {
                    *lines = off + q->nlines;
                    *lineno = *lines < LINENO_MAX ? (int)*lines : LINENO_MAX;
                    return;
                }
            }
        }
        if (pos >= end || p->oom)
            break;
        p->opened = 0;
        if (*lineno < LINENO_MAX)
            (*lineno)++;
        j++;
        pos = read_line(p, text, pos, end, *lineno);
    }
    *lines = off + j;
}

/* A piece of the input (struct sched): parsed by whichever thread takes it,
 * then read into the sequential parse by the calling thread, in order. */
struct piece {
    size_t begin, end;
    struct parser *q;          /* its parse from the start state; NULL: none
                                  (the calling thread reads it itself) */
    atomic_int done;           /* q is final (set with release by its thread) */
};

struct sched {
    const char *text;
    size_t len;                /* the input's bytes */
    struct piece *pc;
    size_t n;
    size_t smax;
    atomic_size_t next;        /* the next piece to take */
    atomic_size_t closed;      /* sections the sequential parse has closed (kept
                                  or dropped) so far: a piece taken later need
                                  keep no more than the rest of the cap */
};

/* Moves src's line memo to dst, which has none: the memo holds what a
 * line's text alone decides, so it serves any parser on the same text. */
static void memo_move(struct parser *dst, struct parser *src)
{
    dst->memo = src->memo;
    dst->memo_bits = src->memo_bits;
    dst->memo_taken = src->memo_taken;
    src->memo = NULL;
    src->memo_bits = 0;
    src->memo_taken = 0;
}

/* Piece i's parse from the start state, on a parser that holds at most the
 * sections the whole input may still keep. memo (NULL: none) lends its line
 * memo for the parse and takes it back. NULL when memory is short. */
static struct parser *parse_piece(struct sched *s, size_t i, struct parser *memo)
{
    size_t closed = atomic_load_explicit(&s->closed, memory_order_relaxed);
    struct parser *q = parser_new(closed < s->smax ? s->smax - closed : 0);
    if (!q)
        return NULL;
    q->text_end = s->text + s->len;
    if (memo)
        memo_move(q, memo);
    parse_chunk(q, s->text, s->pc[i].begin, s->pc[i].end);
    if (memo)
        memo_move(memo, q);
    return q;
}

/* A worker thread: takes pieces until none is left. One memo serves all of
 * its pieces (a log repeats its generic lines throughout). */
static void *worker_main(void *arg)
{
    struct sched *s = arg;
    struct parser *memo = parser_new(0);
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (i >= s->n)
            break;
        s->pc[i].q = parse_piece(s, i, memo);
        atomic_store_explicit(&s->pc[i].done, 1, memory_order_release);
    }
    parser_free(memo);
    return NULL;
}

/* Reads piece i into the sequential parse p (from its parse, where it has
 * one) and frees that parse. */
static void take_piece(struct parser *p, struct sched *s, size_t i, size_t *lines, int *lineno)
{
    struct piece *pc = &s->pc[i];
    if (!p->oom)
        continue_into(p, pc->q, s->text, pc->begin, pc->end, lines, lineno);
    parser_free(pc->q);
    pc->q = NULL;
    const struct report *r = p->rep;
    atomic_store_explicit(&s->closed, r->section_count + r->sections_dropped,
                          memory_order_relaxed);
}

#define DEFAULT_MIN_CHUNK ((size_t)8 << 20)
#define DEFAULT_THREADS_MAX 8
/* Pieces per thread: a thread that runs slower (a busy or shared CPU) takes
 * fewer of them, so the threads finish together; each piece costs a parser
 * and a few lines read twice where it is taken in. */
#define PIECES_PER_THREAD 8

/* How many threads: threads (0: the CPUs this process may use, at most eight) but no more
 * than leave min_chunk bytes (0: 8 MiB) to each, so that inputs below twice
 * that (every upload the server takes) are parsed on the calling thread. */
size_t report_parse_chunks(size_t len, const struct report_parse_opts *o)
{
    size_t threads = o ? o->threads : 0;
    size_t min_chunk = o && o->min_chunk ? o->min_chunk : DEFAULT_MIN_CHUNK;
    size_t k = len / min_chunk;
    if (k <= 1)
        return 1; /* before asking for the CPUs: glibc reads a /sys file for them */
    if (threads == 0) {
        /* The CPUs this process may run on (a container's or taskset's
         * cpuset), not all the machine's: more threads than those only take
         * turns. The online count where the mask cannot be read. */
        cpu_set_t set;
        long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                             : sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : n > DEFAULT_THREADS_MAX ? DEFAULT_THREADS_MAX : (size_t)n;
    }
    if (threads > REPORT_PARSE_THREADS_MAX)
        threads = REPORT_PARSE_THREADS_MAX;
    return k < threads ? k : threads;
}

/* Cuts text into up to want pieces, each beginning a line (after a '\n',
 * where the sequential parser begins one); returns how many. */
static size_t cut_pieces(const char *text, size_t len, struct piece *pc, size_t want)
{
    size_t n = 1;
    pc[0].begin = 0;
    for (size_t i = 1; i < want; i++) {
        size_t target = (size_t)((unsigned long long)len * i / want);
        if (target <= pc[n - 1].begin)
            target = pc[n - 1].begin + 1;
        const char *nl = target - 1 < len ? memchr(text + target - 1, '\n', len - (target - 1))
                                          : NULL;
        if (!nl || (size_t)(nl - text) + 1 >= len)
            break;
        pc[n - 1].end = (size_t)(nl - text) + 1;
        pc[n].begin = pc[n - 1].end;
        n++;
    }
    pc[n - 1].end = len;
    return n;
}

enum status report_parse_capped(const char *text, size_t len,
                                const struct report_parse_opts *opts, size_t smax,
                                struct report **out)
{
    if (smax > REPORT_SECTIONS_MAX)
        smax = REPORT_SECTIONS_MAX;
    struct parser *p = parser_new(smax);
    struct sched s = {.text = text, .len = len, .smax = smax};
    pthread_t *tid = NULL;
    size_t nthreads = 0;
    enum status st = ST_NOMEM;
    if (!p)
        goto out;
    /* (no pointer arithmetic on a NULL text of no bytes) */
    p->text_end = len ? text + len : text;
    size_t threads = report_parse_chunks(len, opts);
    if (threads > 1) {
        /* pieces of at least min_chunk / PIECES_PER_THREAD bytes */
        size_t min_chunk = opts && opts->min_chunk ? opts->min_chunk : DEFAULT_MIN_CHUNK;
        size_t min_piece = min_chunk / PIECES_PER_THREAD ? min_chunk / PIECES_PER_THREAD : 1;
        size_t want = threads * PIECES_PER_THREAD;
        if (want > len / min_piece)
            want = len / min_piece;
        s.pc = calloc(want, sizeof(*s.pc));
        tid = calloc(threads - 1, sizeof(*tid));
        if (!s.pc || !tid) {
            free(s.pc);
            s.pc = NULL;
        } else {
            s.n = cut_pieces(text, len, s.pc, want);
        }
    }
    /* piece 0 (or the whole input) is the calling thread's, read straight
     * into p; the workers start on the next ones meanwhile */
    atomic_init(&s.next, 1);
    atomic_init(&s.closed, 0);
    for (size_t i = 0; s.n > 1 && i + 1 < threads; i++) {
        if (pthread_create(&tid[nthreads], NULL, worker_main, &s) == 0)
            nthreads++;
    }
    size_t pos = 0, end = s.n ? s.pc[0].end : len;
    int lineno = 0;
    size_t lines = 0;
    while (pos < end && !p->oom) {
        p->opened = 0;
        if (lineno < LINENO_MAX)
            lineno++;
        lines++;
        pos = read_line(p, text, pos, end, lineno);
    }
    /* Then the calling thread takes in the pieces that are done, in order,
     * and takes a piece itself while any is left: the next one to take in
     * it reads straight into p, a later one into a parse of its own (with
     * p's memo lent). */
    size_t taken = s.n ? 1 : 0;
    atomic_store_explicit(&s.closed, p->rep->section_count + p->rep->sections_dropped,
                          memory_order_relaxed);
    while (taken < s.n) {
        while (taken < s.n && atomic_load_explicit(&s.pc[taken].done, memory_order_acquire))
            take_piece(p, &s, taken++, &lines, &lineno);
        size_t i = atomic_fetch_add_explicit(&s.next, 1, memory_order_relaxed);
        if (i >= s.n)
            break;
        if (i == taken) {
            take_piece(p, &s, taken++, &lines, &lineno);
            continue;
        }
        s.pc[i].q = parse_piece(&s, i, p);
        atomic_store_explicit(&s.pc[i].done, 1, memory_order_relaxed);
    }
    for (size_t i = 0; i < nthreads; i++)
        pthread_join(tid[i], NULL);
    while (taken < s.n)
        take_piece(p, &s, taken++, &lines, &lineno);
    close_cur(p);
    p->rep->lines = (size_t)lineno;
    if (p->oom)
        goto out;
    struct report *rep = p->rep;
    if (rep->section_count > 0 && rep->section_count < p->cap) {
        /* shrinking in place: no copy; on failure the larger block stays */
        struct report_section *n = realloc(rep->sections, rep->section_count * sizeof(*n));
        if (n)
            rep->sections = n;
    }
    *out = rep;
    p->rep = NULL;
    st = ST_OK;
out:
    free(s.pc);
    free(tid);
    parser_free(p);
    return st;
}

enum status report_parse_opts(const char *text, size_t len, const struct report_parse_opts *opts,
                              struct report **out)
{
    return report_parse_capped(text, len, opts, REPORT_SECTIONS_MAX, out);
}

enum status report_parse(const char *text, size_t len, struct report **out)
{
    return report_parse_capped(text, len, NULL, REPORT_SECTIONS_MAX, out);
}

void report_free(struct report *rep)
{
    if (!rep)
        return;
    free(rep->sections);
    free(rep);
}

enum status report_append(struct report *dst, const struct report *src)
{
    size_t room = REPORT_SECTIONS_MAX - dst->section_count;
    size_t take = src->section_count < room ? src->section_count : room;
    if (take > 0) {
        struct report_section *n =
            realloc(dst->sections, (dst->section_count + take) * sizeof(*n));
        if (!n)
            return ST_NOMEM;
        memcpy(n + dst->section_count, src->sections, take * sizeof(*n));
        dst->sections = n;
        dst->section_count += take;
    }
    dst->sections_dropped += src->sections_dropped + (src->section_count - take);
    dst->unrecognized_lines += src->unrecognized_lines;
    dst->lines += src->lines;
    return ST_OK;
}
