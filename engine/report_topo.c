/* report_topo.c: `nvidia-smi topo -m` link matrices and `topo -p2p` status
 * matrices.
 *
 * The header names the columns (GPUn, NICn, or old device names such as
 * mlx4_0); each row starts with its own name and gives one cell per column,
 * then CPU/NUMA affinity. Cells are read until the first token that is not a
 * cell code, so tab or space alignment, lost padding and rows cut short all
 * read the same way. A GPU pair counts as read if either of its two rows
 * showed it; the summary (worst path, fewest NVLinks) is over pairs read and
 * says how many pairs that was, so a cut matrix never passes as complete.
 *
 * nvidia-smi underlines the header with ANSI SGR escapes (ESC[4m ... ESC[0m)
 * even when its output goes to a file. Escapes are terminal debris, not
 * content: a topo line holding ESC is read as the same line without its
 * escape sequences. Only lines that would read differently are searched for
 * ESC (headers, rows cut short, lines not taken otherwise), never complete
 * rows or legend lines, and only those holding ESC are copied: the driver's
 * path for other kinds' lines is unchanged. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

/* Cells are read by the thousand (every row of every matrix): told apart
 * by length and then by their bytes packed in one word, not by a walk down
 * every code. */
static inline int cell_code(const struct tok *t)
{
    const unsigned char *s = (const unsigned char *)t->s;
    size_t n = t->len;
    if (n >= 3 && s[0] == 'N' && s[1] == 'V' && s[2] >= '0' && s[2] <= '9') {
        /* "NV18": one or two digits are the number num_parse reads
         * (1..99 counts, "NV0" is no code), without the call */
        if (n == 3)
            return s[2] - '0';
        if (n == 4 && s[3] >= '0' && s[3] <= '9') {
            int v = (s[2] - '0') * 10 + (s[3] - '0');
            return v >= 1 ? v : 0;
        }
        double v;
        if (num_parse(t->s + 2, n - 2, &v) && v >= 1 && v <= 99)
            return (int)v;
        return 0;
    }
#define C2(a, b) ((unsigned)(a) << 8 | (unsigned)(b))
#define C3(a, b, c) ((unsigned)(a) << 16 | (unsigned)(b) << 8 | (unsigned)(c))
    switch (n) {
    case 1:
        return s[0] == 'X' ? TOPO_CELL_X : s[0] == 'U' ? TOPO_CELL_P2P_U : 0;
    case 2:
        switch (C2(s[0], s[1])) {
        case C2('O', 'K'): return TOPO_CELL_P2P_OK;
        case C2('N', 'S'): return TOPO_CELL_P2P_NS;
        case C2('D', 'R'): return TOPO_CELL_P2P_DR;
        default: return 0;
        }
    case 3:
        switch (C3(s[0], s[1], s[2])) {
        case C3('P', 'I', 'X'): return TOPO_CELL_PIX;
        case C3('P', 'X', 'B'): return TOPO_CELL_PXB;
        case C3('P', 'H', 'B'): return TOPO_CELL_PHB;
        case C3('S', 'Y', 'S'): case C3('S', 'O', 'C'): return TOPO_CELL_SYS;
        case C3('G', 'N', 'S'): return TOPO_CELL_P2P_GNS;
        case C3('C', 'N', 'S'): return TOPO_CELL_P2P_CNS;
        case C3('T', 'N', 'S'): return TOPO_CELL_P2P_TNS;
        case C3('.', '.', '.'): return TOPO_CELL_OTHER;
        default: return 0;
        }
    case 4:
        return memcmp(s, "NODE", 4) == 0 ? TOPO_CELL_NODE : 0;
    default:
        return 0;
    }
#undef C2
#undef C3
}

const char *report_topo_cell_str(int cell, char *buf, size_t len)
{
    static const char *const pcie[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
    static const char *const p2p[] = {"OK", "NS", "GNS", "CNS", "TNS", "DR", "U"};
    const char *s = "";
    if (cell >= 1 && cell <= 99) {
        snprintf(buf, len, "NV%d", cell);
        return buf;
    }
    if (cell >= TOPO_CELL_PIX && cell <= TOPO_CELL_SYS)
        s = pcie[cell - TOPO_CELL_PIX];
    else if (cell >= TOPO_CELL_P2P_OK && cell <= TOPO_CELL_P2P_U)
        s = p2p[cell - TOPO_CELL_P2P_OK];
    else if (cell == TOPO_CELL_X)
        s = "X";
    else if (cell == TOPO_CELL_OTHER)
        s = "...";
    snprintf(buf, len, "%s", s);
    return buf;
}

#define ESC '\x1b'
/* Longest line read without its escapes; longer ones are read as they
 * are (a 32-column matrix row is some 300 bytes). */
#define ESC_LINE_MAX 1024

/* s (n bytes) without its escape sequences, into out (cap bytes): CSI
 * sequences (ESC '[', parameter and intermediate bytes, one final byte
 * 0x40..0x7E; SGR is the one ending in 'm'), OSC strings (ESC ']' up to BEL
 * or ESC '\\'), and other escapes (ESC, intermediate bytes 0x20..0x2F, one
 * final byte, as "ESC ( B" that `tput sgr0` writes). A sequence cut by the
 * line's end is dropped to the end. Returns the length written, or
 * (size_t)-1 when the text does not fit. */
static size_t esc_strip(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0, i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c != ESC) {
            if (o >= cap)
                return (size_t)-1;
            out[o++] = (char)c;
            i++;
            continue;
        }
        i++;
        if (i < n && s[i] == '[') {
            i++;
            while (i < n && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x3F)
                i++;
            if (i < n && (unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7E)
                i++;
        } else if (i < n && s[i] == ']') {
            while (i < n && s[i] != '\a' && !(s[i] == ESC && i + 1 < n && s[i + 1] == '\\'))
                i++;
            i += i < n ? (s[i] == ESC ? 2 : 1) : 0;
        } else {
            while (i < n && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x2F)
                i++;
            if (i < n && (unsigned char)s[i] >= 0x30 && (unsigned char)s[i] <= 0x7E)
                i++;
        }
    }
    return o;
}

/* l without its escape sequences, cleaned as the driver cleans every line,
 * into c (its text in buf, cap bytes); 0 when l's raw text holds no ESC or
 * does not fit. c has no pair set: the copy's byte pairs are not the
 * line's, and its text lives only as long as buf. */
static int esc_line(const struct line *l, char *buf, size_t cap, struct line *c)
{
    if (!l->raw_len || !memchr(l->raw, ESC, l->raw_len))
        return 0;
    size_t n = esc_strip(l->raw, l->raw_len, buf, cap);
    if (n == (size_t)-1)
        return 0;
    line_clean(buf, n, c);
    c->info = l->info;
    c->pairs = NULL;
    return 1;
}

/* tok_copy for a token holding a control byte: its escape sequences
 * dropped, other control bytes as blanks. len < dl. */
static __attribute__((noinline)) void tok_copy_ctl(char *dst, size_t dl, const char *s,
                                                   size_t len)
{
    size_t n = esc_strip(s, len, dst, dl - 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
            dst[i] = ' ';
    dst[n] = '\0';
}

/* span_copy for a token that fits (the names and affinities of a matrix
 * almost always do): the same bytes, inline, where the call and its
 * general cases cost more than the few bytes copied (every row copies
 * three tokens). A token that does not fit goes to span_copy; one holding
 * a control byte to tok_copy_ctl (an affinity may end in an escape). */
static inline void tok_copy(char *dst, size_t dl, const char *s, size_t len)
{
    if (len >= dl) {
        span_copy(dst, dl, s, len);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) {
            tok_copy_ctl(dst, dl, s, len);
            return;
        }
        dst[i] = (char)c;
    }
    dst[len] = '\0';
}

static int is_gpu_name(const char *s, size_t n)
{
    return n >= 4 && memcmp(s, "GPU", 3) == 0 && s[3] >= '0' && s[3] <= '9';
}

static int col_token(const struct tok *t)
{
    /* Header tokens that name a column: GPUn, NICn, mlx4_0, ib0, "...". */
    if (is_gpu_name(t->s, t->len))
        return 1;
    if (span_starts(t->s, t->len, "NIC") && t->len > 3 && t->s[3] >= '0' && t->s[3] <= '9')
        return 1;
    if (span_starts(t->s, t->len, "mlx") || span_starts(t->s, t->len, "ib") ||
        span_starts(t->s, t->len, "bnxt") || span_starts(t->s, t->len, "efa") ||
        span_starts(t->s, t->len, "roce") || span_eq(t->s, t->len, "..."))
        return 1;
    return 0;
}

static int header_cols(const struct tok *t, int n)
{
    int c = 0;
    while (c < n && c < TOPO_DIM_MAX && col_token(&t[c]))
        c++;
    return c;
}

/* A matrix's first line: a header "GPU0 GPU1 ..." / "GPU0 CPU Affinity"
 * (strong) or a first row "GPU0 X ..." (weak), in clean text. */
static int matrix_start(const struct line *l)
{
    struct tok t[4];
    int n = tok_split(l->s, l->len, t, 4);
    if (n < 2 || !span_eq(t[0].s, t[0].len, "GPU0"))
        return 0;
    if (col_token(&t[1]) || tok_eq(&t[1], "CPU"))
        return DETECT_STRONG;
    return tok_eq(&t[1], "X") ? DETECT_WEAK : 0;
}

/* topo_detect for a line holding ESC (nvidia-smi's underlined header):
 * the line without its escapes. An underlined lone "GPU0" is the header
 * of a one-GPU -p2p matrix, which has no other column: as strong a marker
 * as a longer header, where a plain lone "GPU0" is too common a text to
 * start a section on. */
static __attribute__((noinline)) int topo_detect_esc(const struct line *l)
{
    char buf[ESC_LINE_MAX];
    struct line c;
    if (!line_find(l, "GPU0") || !esc_line(l, buf, sizeof(buf), &c))
        return 0;
    if (c.len < 4 || (c.s[0] != 'G' && c.s[0] != '\v' && c.s[0] != '\f'))
        return 0;
    int d = matrix_start(&c);
    if (!d && span_eq(c.s, c.len, "GPU0"))
        d = DETECT_STRONG;
    return d;
}

int topo_detect(const struct line *l)
{
    if (line_find_raw_a(l, "nvidia-smi topo", 6))
        return DETECT_STRONG;
    /* The first token must be "GPU0"; only blanks the line cleaner leaves
     * ('\v', '\f') or an escape sequence may come before it. Most lines
     * are turned away here without tokenizing. */
    if (l->len < 4 || (l->s[0] != 'G' && l->s[0] != '\v' && l->s[0] != '\f' && l->s[0] != ESC))
        return 0;
    int d = l->s[0] == ESC ? 0 : matrix_start(l);
    if (d || !memchr(l->s, ESC, l->len))
        return d;
    return topo_detect_esc(l);
}

void topo_init(struct report_section *sec)
{
    struct report_topo *tp = &sec->u.topo;
    /* Clear the counts and state, not the 11 kB of names and matrices: a
     * long log opens thousands of sections and the whole struct cost more
     * than parsing a small matrix. Every reader stops at cols and rows;
     * data_row clears each row it adds, and the -p2p matrix (read at any
     * GPU column pair) is cleared when one begins. Names are written for
     * every column counted in pend_cols before anything counts them. */
    memset(tp, 0, offsetof(struct report_topo, col_names));
    memset(&tp->has_link, 0, offsetof(struct report_topo, pend_names) -
                                 offsetof(struct report_topo, has_link));
    tp->gpu_count = tp->nic_count = -1;
    tp->nvlink_min = -1;
    text_set(sec->tool, sizeof(sec->tool), "nvidia-smi topo -m");
}

static int legend_text(const struct line *l)
{
    /* A legend entry hard-wrapped by the paste: words only. */
    if (l->len > 72 || memchr(l->s, ':', l->len))
        return 0;
    for (size_t i = 0; i < l->len; i++)
        if (l->s[i] >= '0' && l->s[i] <= '9')
            return 0;
    return 1;
}

static int row_index(struct report_topo *tp, const struct tok *name, int p2p)
{
    int cols = p2p ? tp->p2p_cols : tp->cols;
    char (*names)[12] = p2p ? tp->pend_names : tp->col_names;
    for (int i = 0; i < cols; i++)
        if (span_eq_z(name->s, name->len, names[i]))
            return i;
    return -1;
}

/* Reads the matrix row t[0..n) into sec; returns 1, having read nothing,
 * when escapes may stand in its way (the line is then read without them).
 *
 * tp->cur_matrix, the matrix being read: 0 none yet, 1 link, 2 p2p, 3 a
 * header read (link: NIC columns or affinity titles), 4 a matrix being
 * ignored, 5 in a legend, 6 a header of GPU columns only read (-p2p). */
static int data_row(struct report_section *sec, const struct tok *t, int n)
{
    struct report_topo *tp = &sec->u.topo;
    /* Cell codes fit a byte (report.h): kept as the matrix row they
     * become, zeros past the cells, so a link row is one fixed copy. */
    unsigned char codes[TOPO_DIM_MAX] = {0};
    _Static_assert(sizeof(codes) == sizeof(tp->cells[0]), "a row of codes is a matrix row");
    int ncell = 0, p2p_seen = 0, link_seen = 0;
    int cols = tp->cur_matrix == 2 ? tp->p2p_cols : tp->cur_matrix == 1 ? tp->cols : tp->pend_cols;
    if (cols == 0)
        cols = TOPO_DIM_MAX;    /* no header: as many cells as the row shows */
    for (int i = 1; i < n && ncell < cols; i++) {
        int c = cell_code(&t[i]);
        if (!c)
            break;
        if (c >= TOPO_CELL_P2P_OK && c <= TOPO_CELL_P2P_U)
            p2p_seen = 1;
        else if (c < TOPO_CELL_X)
            link_seen = 1;
        codes[ncell++] = (unsigned char)c;
    }
    int aff = 1 + ncell;
    /* Escapes are looked for only where they would change what is read: in
     * the token that ended the cells short of the header's columns (or of
     * an unknown count), and as the first byte of either affinity token (a
     * sequence of its own there would shift them). Escapes inside a token
     * read in full are dropped by tok_copy. A complete row searches
     * nothing. */
    if (aff < n && (t[aff].s[0] == ESC || (aff + 1 < n && t[aff + 1].s[0] == ESC) ||
                    (ncell < cols && memchr(t[aff].s, ESC, t[aff].len))))
        return 1;
    if (tp->cur_matrix == 3 || tp->cur_matrix == 6 || tp->cur_matrix == 0) {
        /* The first row tells a link matrix from a P2P status matrix by its
         * cells. A row with no cell that tells ("X" alone: one GPU) goes by
         * its header: GPU columns only, without affinity titles (6), make
         * a -p2p matrix, as does a "topo -p2p" command line before it. */
        int want = p2p_seen ? 2 : 1;
        if (!p2p_seen && !link_seen &&
            (tp->cur_matrix == 6 || str_is(sec->tool, "nvidia-smi topo -p2p")))
            want = 2;
        if ((want == 1 && tp->has_link) || (want == 2 && tp->has_p2p)) {
            section_issue(sec, "a second matrix of the same kind was ignored");
            tp->cur_matrix = 4;
            return 0;
        }
        if (want == 1) {
            tp->cols = tp->pend_cols;
            memcpy(tp->col_names, tp->pend_names, (size_t)tp->pend_cols * sizeof(tp->col_names[0]));
            tp->has_link = 1;
        } else {
            tp->p2p_cols = tp->pend_cols;
            tp->has_p2p = 1;
            memset(tp->p2p, 0, sizeof(tp->p2p));
        }
        if (tp->pend_cols == 0) {
            /* No header (cut above): GPU rows come first, so column c is GPUc. */
            cols = ncell;
            for (int c = 0; c < cols; c++) {
                /* c < TOPO_DIM_MAX; the byte cast tells the compiler it fits */
                unsigned char cn = (unsigned char)c;
                snprintf(tp->pend_names[c], sizeof(tp->pend_names[c]), "GPU%u", cn);
                if (want == 1)
                    snprintf(tp->col_names[c], sizeof(tp->col_names[c]), "GPU%u", cn);
            }
            tp->pend_cols = cols;
            if (want == 1)
                tp->cols = cols;
            else
                tp->p2p_cols = cols;
            section_issue(sec, "the matrix header is missing; columns taken as GPU0..GPUn");
        }
        tp->cur_matrix = want;
    }
    if (tp->cur_matrix == 4)
        return 0;
    if (tp->cur_matrix == 1) {
        if (tp->rows >= TOPO_DIM_MAX)
            return 0;
        int r = tp->rows++;
        memcpy(tp->cells[r], codes, sizeof(tp->cells[r]));
        tp->cpu_affinity[r][0] = tp->numa_affinity[r][0] = '\0';
        tok_copy(tp->row_names[r], sizeof(tp->row_names[r]), t[0].s, t[0].len);
        if (aff < n)
            tok_copy(tp->cpu_affinity[r], sizeof(tp->cpu_affinity[r]), t[aff].s, t[aff].len);
        if (aff + 1 < n)
            tok_copy(tp->numa_affinity[r], sizeof(tp->numa_affinity[r]), t[aff + 1].s,
                      t[aff + 1].len);
        if (ncell < tp->cols && (aff >= n))
            section_issue(sec, "the matrix is cut: a row ends early");
    } else {
        if (tp->p2p_rows >= TOPO_DIM_MAX)
            return 0;
        int r = row_index(tp, &t[0], 1);
        if (r < 0)
            r = tp->p2p_rows;
        tp->p2p_rows++;
        for (int c = 0; c < ncell && c < TOPO_DIM_MAX; c++)
            tp->p2p[r][c] = codes[c];
    }
    return 0;
}

/* topo_line for a line holding ESC: the line without its escapes (which
 * holds none, so topo_line takes it the plain way). */
static __attribute__((noinline)) enum take topo_line_esc(struct report_section *sec,
                                                         const struct line *l)
{
    char buf[ESC_LINE_MAX];
    struct line c;
    if (!esc_line(l, buf, sizeof(buf), &c))
        return TAKE_NO;
    return topo_line(sec, &c);
}

enum take topo_line(struct report_section *sec, const struct line *l)
{
    struct report_topo *tp = &sec->u.topo;
    struct tok t[TOK_MAX];
    if (l->raw_len == 0)
        return TAKE_YES;
    /* anchored on the 'v': a matrix row holds none, where its affinity
     * ("0-47,96-143") holds the '-' that each made a second and third
     * memchr call (the search finds the first occurrence either way) */
    if (line_find_raw_a(l, "nvidia-smi topo", 1)) {
        if (tp->has_link || tp->has_p2p || tp->cur_matrix)
            return TAKE_END;
        if (line_find_raw(l, "-p2p"))
            text_set(sec->tool, sizeof(sec->tool), "nvidia-smi topo -p2p");
        return TAKE_YES;
    }
    /* A line opening with a byte other than a blank holds a token: the
     * legend's lines (long, and most of a section's text) are told
     * before the line is tokenized. */
    int n = -1;
    if ((unsigned char)l->s[0] <= ' ') {
        n = tok_split(l->s, l->len, t, TOK_MAX);
        if (n == 0)
            return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "Legend") || span_starts(l->s, l->len, "NIC Legend")) {
        tp->cur_matrix = tp->cur_matrix == 4 ? 4 : 5;   /* 5: in the legend */
        return TAKE_YES;
    }
    if (tp->cur_matrix == 5 || tp->cur_matrix == 4) {
        if (line_find(l, " = ") || (span_starts(l->s, l->len, "NIC") &&
                                               memchr(l->s, ':', l->len)))
            return TAKE_WEAK;
        if (legend_text(l) && !topo_detect(l))
            return TAKE_WEAK;
    }
    if (n < 0)
        n = tok_split(l->s, l->len, t, TOK_MAX);
    /* A header: column names, then affinity titles. */
    int hc = header_cols(t, n);
    if (hc >= 1 && (hc == n || tok_eq(&t[hc], "CPU") || tok_eq(&t[hc], "NUMA") ||
                    tok_eq(&t[hc], "GPU")) && !(n > 1 && cell_code(&t[1]))) {
        /* -m headers carry affinity titles (and NIC columns); -p2p headers
         * only GPUs. A second matrix of a kind already read is the next run.
         * Headers are few: each is searched for escapes. */
        if (memchr(l->raw, ESC, l->raw_len))
            return topo_line_esc(sec, l);
        int link_header = hc < n;
        for (int i = 0; i < hc; i++)
            link_header |= !is_gpu_name(t[i].s, t[i].len);
        if ((tp->has_link && tp->has_p2p) || (link_header && tp->has_link) ||
            (!link_header && tp->has_p2p))
            return TAKE_END;
        tp->pend_cols = hc;
        for (int i = 0; i < hc; i++)
            tok_copy(tp->pend_names[i], sizeof(tp->pend_names[i]), t[i].s, t[i].len);
        tp->cur_matrix = link_header ? 3 : 6;
        return TAKE_YES;
    }
    /* (hc >= 1: t[0] names a column, as header_cols found) */
    if (n >= 2 && hc >= 1 && cell_code(&t[1])) {
        if (data_row(sec, t, n))
            return topo_line_esc(sec, l);
        return TAKE_YES;
    }
    /* Any other line is read again without its escapes if it holds any:
     * nvidia-smi's underlined header opens with one, and is told here. */
    if (memchr(l->raw, ESC, l->raw_len))
        return topo_line_esc(sec, l);
    /* A row cut right after its name ("GPU4") */
    if (n == 1 && hc >= 1 && (tp->cur_matrix == 1 || tp->cur_matrix == 2)) {
        section_issue(sec, "the matrix is cut: a row ends early");
        return TAKE_YES;
    }
    return TAKE_NO;
}

/* A name of a row or column (NUL-terminated within its 12 bytes) as two
 * words holding its bytes up to the NUL and zeros after: equal exactly
 * when the names are. Only the name's own bytes are read. */
struct name_key {
    uint64_t lo, hi;
};

static struct name_key name_key(const char *z)
{
    struct name_key k = {0, 0};
    for (unsigned i = 0; i < 12 && z[i]; i++) {
        uint64_t b = (uint64_t)(unsigned char)z[i] << (8 * (i & 7));
        if (i < 8)
            k.lo |= b;
        else
            k.hi |= b;
    }
    return k;
}

/* The decimal digits of v at p; returns the end (no NUL). */
static char *put_uint(char *p, unsigned v)
{
    char d[10];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = d[--n];
    return p;
}

static int badness(int c)
{
    if (c >= 1 && c <= 99)
        return 0;
    if (c >= TOPO_CELL_PIX && c <= TOPO_CELL_SYS)
        return 1 + c - TOPO_CELL_PIX;
    return -1;
}

static int p2p_badness(int c)
{
    if (c == TOPO_CELL_P2P_OK)
        return 0;
    if (c > TOPO_CELL_P2P_OK && c <= TOPO_CELL_P2P_U)
        return c - TOPO_CELL_P2P_OK;
    return -1;
}

void topo_finish(struct report_section *sec)
{
    struct report_topo *tp = &sec->u.topo;
    char (*names)[12] = tp->has_link ? tp->col_names : tp->pend_names;
    int cols = tp->has_link ? tp->cols : tp->p2p_cols;
    int gpu_col[TOPO_DIM_MAX];
    int ngpu = 0, nnic = 0, elided = 0;
    for (int c = 0; c < cols; c++) {
        const char *z = names[c];
        /* is_gpu_name and strcmp with "..." on the NUL-terminated name,
         * byte by byte up to its NUL (no strlen a column) */
        if (z[0] == 'G' && z[1] == 'P' && z[2] == 'U' && z[3] >= '0' && z[3] <= '9')
            gpu_col[ngpu++] = c;
        else if (z[0] == '.' && z[1] == '.' && z[2] == '.' && z[3] == '\0')
            elided = 1;
        else
            nnic++;
    }
    if (tp->has_link || tp->has_p2p)
        tp->gpu_count = ngpu;
    if (tp->has_link)
        tp->nic_count = elided ? -1 : nnic;
    if (!tp->has_link && tp->has_p2p)
        text_set(sec->tool, sizeof(sec->tool), "nvidia-smi topo -p2p");

    /* Rows in the link matrix, by GPU column. */
    /* (the last row of each name; names packed once into keys equal
     * exactly when the names are, so the search over GPUs times rows
     * compares numbers, not strings) */
    int row_of[TOPO_DIM_MAX];
    struct name_key row_key[TOPO_DIM_MAX];
    for (int r = 0; r < tp->rows; r++)
        row_key[r] = name_key(tp->row_names[r]);
    for (int i = 0; i < ngpu; i++) {
        struct name_key k = name_key(names[gpu_col[i]]);
        row_of[i] = -1;
        for (int r = 0; r < tp->rows; r++)
            if (row_key[r].lo == k.lo && row_key[r].hi == k.hi)
                row_of[i] = r;
    }
    int worst = 0, worst_bad = -1, nvmin = -1;
    int p2p_worst = 0, p2p_bad = -1;
    for (int i = 0; i < ngpu; i++) {
        for (int j = i + 1; j < ngpu; j++) {
            tp->pairs_total++;
            if (tp->has_link) {
                int c = 0;
                if (row_of[i] >= 0)
                    c = tp->cells[row_of[i]][gpu_col[j]];
                if (badness(c) < 0 && row_of[j] >= 0)
                    c = tp->cells[row_of[j]][gpu_col[i]];
                int b = badness(c);
                if (b >= 0) {
                    tp->pairs_read++;
                    if (b > worst_bad || (b == 0 && worst_bad == 0 && c < worst)) {
                        worst_bad = b;
                        worst = c;
                    }
                    int nv = b == 0 ? c : 0;
                    if (nvmin < 0 || nv < nvmin)
                        nvmin = nv;
                }
            }
            if (tp->has_p2p) {
                int c = tp->p2p[gpu_col[i]][gpu_col[j]];
                if (p2p_badness(c) < 0)
                    c = tp->p2p[gpu_col[j]][gpu_col[i]];
                int b = p2p_badness(c);
                if (b >= 0) {
                    tp->p2p_pairs_read++;
                    if (b == 0)
                        tp->p2p_pairs_ok++;
                    if (b > p2p_bad) {
                        p2p_bad = b;
                        p2p_worst = c;
                    }
                }
            }
        }
    }
    if (!tp->has_link)
        tp->pairs_total = 0;
    tp->link_worst = worst;
    tp->nvlink_min = nvmin;
    tp->p2p_worst = p2p_worst;
    if (tp->has_link && tp->pairs_read < tp->pairs_total) {
        /* "%d of %d GPU pairs are not shown (output cut)", put together
         * by hand: snprintf cost more than the rest of the summary */
        char msg[REPORT_ISSUE_LEN];
        static const char tail[] = " GPU pairs are not shown (output cut)";
        char *m = put_uint(msg, (unsigned)(tp->pairs_total - tp->pairs_read));
        memcpy(m, " of ", 4);
        m = put_uint(m + 4, (unsigned)tp->pairs_total);
        memcpy(m, tail, sizeof(tail));
        section_issue(sec, msg);
    }
}
