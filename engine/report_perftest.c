/* report_perftest.c: perftest output (ib_write_bw, ib_read_bw, ib_send_bw,
 * ib_*_lat): the banner (test, link type, device, MTU) and the result table.
 *
 * The table's columns are found by their labels in the header line
 * ("BW peak[MB/sec]", "t_typical[usec]", ...), so old and new column sets
 * and either unit read the same way. Bandwidth is stored in Gb/s whatever
 * was printed: perftest's MB/sec is 2^20 bytes per second (its MBS format
 * factor is 0x100000) and its Gb/sec is 10^9 bits per second. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

enum pcol {
    PC_NONE = 0, PC_BYTES, PC_ITERS, PC_PEAK, PC_AVG, PC_RATE, PC_TMIN, PC_TMAX, PC_TTYP,
    PC_TAVG, PC_TSTD, PC_P99, PC_P999
};

static const struct {
    struct name title;
    const char *test;
    int lat, bidir;
} titles[] = {
    {NAME("RDMA_Write Bidirectional BW Test"), "ib_write_bw", 0, 1},
    {NAME("RDMA_Read Bidirectional BW Test"), "ib_read_bw", 0, 1},
    {NAME("Send Bidirectional BW Test"), "ib_send_bw", 0, 1},
    {NAME("RDMA_Write BW Test"), "ib_write_bw", 0, 0},
    {NAME("RDMA_Read BW Test"), "ib_read_bw", 0, 0},
    {NAME("Send BW Test"), "ib_send_bw", 0, 0},
    {NAME("Atomic FETCH_AND_ADD BW Test"), "ib_atomic_bw", 0, 0},
    {NAME("Atomic CMP_AND_SWAP BW Test"), "ib_atomic_bw", 0, 0},
    {NAME("RDMA_Write Latency Test"), "ib_write_lat", 1, 0},
    {NAME("RDMA_Read Latency Test"), "ib_read_lat", 1, 0},
    {NAME("Send Latency Test"), "ib_send_lat", 1, 0},
    {NAME("Atomic FETCH_AND_ADD Latency Test"), "ib_atomic_lat", 1, 0},
};

static const struct name binaries[] = {
    NAME("ib_write_bw"), NAME("ib_read_bw"), NAME("ib_send_bw"), NAME("ib_atomic_bw"),
    NAME("ib_write_lat"), NAME("ib_read_lat"), NAME("ib_send_lat"), NAME("ib_atomic_lat"),
    {NULL, 0}
};

/* The title a line holding " Test" shows, or -1. */
static int title_named(const struct line *l)
{
    for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
        if (line_find_n(l, titles[i].title.s, titles[i].title.n))
            return (int)i;
    return -1;
}

/* The index in binaries of the binary a line holding "ib_" names, or -1. */
static int binary_named(const struct line *l)
{
    for (int i = 0; binaries[i].s; i++)
        if (line_find_raw_n(l, binaries[i].s, binaries[i].n))
            return i;
    return -1;
}

/* Every title holds " Test" and every binary "ib_": asked first, inline
 * (bit tests once the pair set is built), they spare most lines the
 * walks down the tables and the calls. */
static inline int title_of(const struct line *l)
{
    return line_find(l, " Test") ? title_named(l) : -1;
}

static inline int binary_index(const struct line *l)
{
    return line_find_raw_a(l, "ib_", 2) ? binary_named(l) : -1;
}

static inline const char *binary_of(const struct line *l)
{
    int i = binary_index(l);
    return i >= 0 ? binaries[i].s : NULL;
}

int perf_detect(const struct line *l)
{
    if (title_of(l) >= 0 || binary_of(l) ||
        span_starts(l->s, l->len, "WARNING: BW peak won't be measured") ||
        line_find(l, "Waiting for client to connect"))
        return DETECT_STRONG;
    return 0;
}

void perf_init(struct report_section *sec)
{
    struct report_perftest *p = &sec->u.perf;
    /* All but the rows, read only below row_count and written whole as
     * each is added. */
    memset(p, 0, offsetof(struct report_perftest, rows));
    memset(p->col_map, 0, sizeof(*p) - offsetof(struct report_perftest, col_map));
    p->bidirectional = -1;
    p->qps = -1;
    p->mtu_b = p->bw_avg_gbps = p->bw_peak_gbps = p->lat_typical_us = p->largest_bytes = NAN;
    p->lat_bytes = NAN;
    text_set(sec->tool, sizeof(sec->tool), "perftest");
}

/* Value after "Key   : " somewhere in the line, as one token. Inlined:
 * each banner line is asked for four keys, mostly absent, and with the key
 * a literal the pair-set test folds to three constant slots (a call took
 * some 50 instructions a key). */
static inline __attribute__((always_inline)) int field_n(const struct line *l, const char *key,
                                                         size_t kn, struct tok *out)
{
    const char *k = line_find_n(l, key, kn);
    if (!k)
        return 0;
    const char *p = k + kn;
    const char *end = l->s + l->len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || *p != ':')
        return 0;
    p++;
    struct tok t[1];
    if (tok_split(p, (size_t)(end - p), t, 1) != 1)
        return 0;
    *out = t[0];
    return 1;
}

/* Keys are literals: their lengths are known when compiled. */
#define field(l, key, out) field_n((l), LIT_N(key), (out))

static void header_row(struct report_perftest *p, const struct line *l)
{
    static const struct {
        struct name label;
        int col;
    } labels[] = {
        {NAME("BW peak"), PC_PEAK}, {NAME("BW average"), PC_AVG}, {NAME("MsgRate"), PC_RATE},
        {NAME("t_min"), PC_TMIN}, {NAME("t_max"), PC_TMAX}, {NAME("t_typical"), PC_TTYP},
        {NAME("t_avg"), PC_TAVG}, {NAME("t_stdev"), PC_TSTD},
        {NAME("99.9% percentile"), PC_P999}, {NAME("99% percentile"), PC_P99},
    };
    const char *pos[12];
    int col[12];
    int n = 0;
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]) && n < 10; i++) {
        const char *f = line_find_n(l, labels[i].label.s, labels[i].label.n);
        if (f) {
            pos[n] = f;
            col[n] = labels[i].col;
            n++;
        }
    }
    /* Order the labels by where they stand in the header. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && pos[j] < pos[j - 1]; j--) {
            const char *tp = pos[j];
            pos[j] = pos[j - 1];
            pos[j - 1] = tp;
            int tc = col[j];
            col[j] = col[j - 1];
            col[j - 1] = tc;
        }
    p->col_map[0] = PC_BYTES;
    p->col_map[1] = PC_ITERS;
    for (int i = 0; i < n; i++)
        p->col_map[2 + i] = col[i];
    p->ncols = 2 + n;
    if (line_find(l, "[Gb/sec]")) {
        p->unit_to_gbps = 1.0;
        text_set(p->units, sizeof(p->units), "Gb/sec");
    } else if (line_find(l, "[MB/sec]")) {
        p->unit_to_gbps = 1048576.0 * 8.0 / 1e9;
        text_set(p->units, sizeof(p->units), "MB/sec");
    } else if (line_find(l, "[usec]")) {
        p->unit_to_gbps = 1.0;
        text_set(p->units, sizeof(p->units), "usec");
        p->is_latency = 1;
    } else {
        p->unit_to_gbps = 1.0;
    }
    p->in_table = 1;
}

/* t: the row's n tokens, from one line (t[0] first: the cells are read
 * by num_parse_lo with t[0].s as the line's start). */
static void data_row(struct report_section *sec, const struct tok *t, int n)
{
    struct report_perftest *p = &sec->u.perf;
    struct report_perf_row r;
    /* The cells by the field their column holds (PC_NONE and PC_TSTD
     * are read and dropped), then copied to the row once. */
    double v[PC_P999 + 1];
    for (int k = 0; k <= PC_P999; k++)
        v[k] = NAN;
    int got = 0;
    for (int i = 0; i < n && i < p->ncols; i++) {
        if (!num_parse_lo(t[i].s, t[i].len, &v[p->col_map[i]], t[0].s))
            break;
        got++;
    }
    r.bytes = v[PC_BYTES];
    r.iterations = v[PC_ITERS];
    r.bw_peak_gbps = v[PC_PEAK];
    r.bw_avg_gbps = v[PC_AVG];
    r.msg_rate_mpps = v[PC_RATE];
    r.t_min_us = v[PC_TMIN];
    r.t_max_us = v[PC_TMAX];
    r.t_typical_us = v[PC_TTYP];
    r.t_avg_us = v[PC_TAVG];
    r.t_p99_us = v[PC_P99];
    r.t_p999_us = v[PC_P999];
    if (got < p->ncols)
        section_issue(sec, "a result row was cut");
    if (!isnan(r.bw_peak_gbps))
        r.bw_peak_gbps *= p->unit_to_gbps;
    if (!isnan(r.bw_avg_gbps))
        r.bw_avg_gbps *= p->unit_to_gbps;
    if (isnan(r.bytes) || (got <= 2))
        return;
    if (!isnan(r.bw_peak_gbps) && r.bw_peak_gbps > 0 && !p->peak_not_measured &&
        (isnan(p->bw_peak_gbps) || r.bw_peak_gbps > p->bw_peak_gbps))
        p->bw_peak_gbps = r.bw_peak_gbps;
    /* "Largest message" means the largest row whose average was readable:
     * a row cut after its peak says nothing about the average. */
    if (!isnan(r.bw_avg_gbps) && (isnan(p->largest_bytes) || r.bytes >= p->largest_bytes)) {
        p->largest_bytes = r.bytes;
        p->bw_avg_gbps = r.bw_avg_gbps;
    }
    if (isnan(p->lat_typical_us) && !isnan(r.t_typical_us)) {
        p->lat_typical_us = r.t_typical_us;
        p->lat_bytes = r.bytes;
    }
    if (p->row_count < PERF_ROWS_MAX)
        p->rows[p->row_count++] = r;
    else
        p->rows_dropped++;
}

/* Whether s is all '-' (len >= 1). */
static int all_dashes(const char *s, size_t len)
{
    for (; len >= 8; s += 8, len -= 8)
        if (w_load(s) != W_REP('-'))
            return 0;
    for (; len; s++, len--)
        if (*s != '-')
            return 0;
    return 1;
}

/* What a line that is no table row shows, told from its text alone: the
 * first of perf_line's markers it holds, with the marker's index or the
 * keys it holds in the high byte. A banner line is asked for a dozen
 * markers, and each run prints the same banner again: the class is noted
 * (line_note_put) and found again for the same text. */
enum {
    PT_TITLE = 1,              /* titles[hi] */
    PT_BINARY,                 /* binaries[hi] */
    PT_PEAK,                   /* "WARNING: BW peak won't be measured" */
    PT_WAITING,                /* "Waiting for client" */
    PT_STAR,                   /* opens with '*' */
    PT_CONFLICT,               /* "Conflicting CPU frequency values" */
    PT_HEADER,                 /* "bytes" ... "iterations" */
    PT_FIELDS,                 /* hi: PF_* of the keys holding a value */
    PT_OTHER,                  /* hi: 1 when the line holds a ':' */
};
enum { PF_LINK = 1, PF_DEVICE = 2, PF_QPS = 4, PF_MTU = 8 };

static unsigned perf_class(const struct line *l)
{
    /* A banner line is asked for a dozen markers: build its pair set now,
     * so that the first searches are bit tests too, not memchr calls. */
    line_pairs_ensure(l);
    int ti = title_of(l);
    if (ti >= 0)
        return PT_TITLE | (unsigned)ti << 8;
    int bi = binary_index(l);
    if (bi >= 0)
        return PT_BINARY | (unsigned)bi << 8;
    if (span_starts(l->s, l->len, "WARNING: BW peak won't be measured"))
        return PT_PEAK;
    if (line_find(l, "Waiting for client"))
        return PT_WAITING;
    if (span_starts(l->s, l->len, "*"))
        return PT_STAR;
    if (span_starts(l->s, l->len, "Conflicting CPU frequency values"))
        return PT_CONFLICT;
    if (span_starts(l->s, l->len, "bytes") && line_find(l, "iterations"))
        return PT_HEADER;
    struct tok v;
    unsigned keys = (field(l, "Link type", &v) ? PF_LINK : 0u) |
                    (field(l, "Device", &v) ? PF_DEVICE : 0u) |
                    (field(l, "Number of qps", &v) ? PF_QPS : 0u) |
                    (field(l, "Mtu", &v) ? PF_MTU : 0u);
    if (keys)
        return PT_FIELDS | keys << 8;
    return PT_OTHER | (memchr(l->s, ':', l->len) ? 1u << 8 : 0u);
}

enum take perf_line(struct report_section *sec, const struct line *l)
{
    struct report_perftest *p = &sec->u.perf;
    struct tok t[TOK_MAX];
    if (l->raw_len == 0)
        return TAKE_YES;
    if (p->in_table && l->s[0] >= '0' && l->s[0] <= '9') {
        int n = tok_split(l->s, l->len, t, TOK_MAX);
        data_row(sec, t, n);
        return TAKE_YES;
    }
    /* The rules of dashes perftest draws around its banner and table
     * hold none of the markers below and are no row: not mine, told in a
     * few word compares where the searches cost some 800 instructions. */
    if (l->s[0] == '-' && all_dashes(l->s, l->len))
        return TAKE_NO;
    unsigned cls;
    if (!line_note_get(l, REPORT_PERFTEST, &cls)) {
        cls = perf_class(l);
        line_note_put(l, REPORT_PERFTEST, cls);
    }
    unsigned hi = cls >> 8;
    switch (cls & 0xFFu) {
    case PT_TITLE: {
        int ti = (int)hi;
        /* One banner per run: a second title is the next run. */
        if (p->row_count > 0 || p->title_seen ||
            (p->test[0] && strcmp(p->test, titles[ti].test) != 0))
            return TAKE_END;
        p->title_seen = 1;
        text_set(p->test, sizeof(p->test), titles[ti].test);
        p->is_latency = titles[ti].lat;
        p->bidirectional = titles[ti].bidir;
        text_set(sec->tool, sizeof(sec->tool), titles[ti].test);
        return TAKE_YES;
    }
    case PT_BINARY: {
        const char *bin = binaries[hi].s;
        if (p->row_count > 0 || p->in_table || p->title_seen)
            return TAKE_END;
        text_set(p->test, sizeof(p->test), bin);
        text_set(sec->tool, sizeof(sec->tool), bin);
        return TAKE_YES;
    }
    case PT_PEAK:
        p->peak_not_measured = 1;
        return TAKE_YES;
    case PT_WAITING:
        return TAKE_YES;
    case PT_STAR:
        return TAKE_WEAK;
    case PT_CONFLICT:
        section_issue(sec, "perftest: CPU frequency is not at its maximum (governor? R38)");
        return TAKE_YES;
    case PT_HEADER:
        header_row(p, l);
        return TAKE_YES;
    case PT_FIELDS: {
        /* the banner's "Key : value" lines (TX depth, PCIe relax order,
         * ...): the values of the keys the class names */
        struct tok v;
        if ((hi & PF_LINK) && field(l, "Link type", &v))
            span_copy(p->link_layer, sizeof(p->link_layer), v.s, v.len);
        if ((hi & PF_DEVICE) && field(l, "Device", &v))
            span_copy(p->device, sizeof(p->device), v.s, v.len);
        if ((hi & PF_QPS) && field(l, "Number of qps", &v)) {
            double q;
            if (num_parse(v.s, v.len, &q) && q >= 0 && q < 1e6)
                p->qps = (int)q;
        }
        if ((hi & PF_MTU) && field(l, "Mtu", &v)) {
            double m;
            size_t end;
            if (num_scan(v.s, v.len, &m, &end))
                p->mtu_b = m;
        }
        return TAKE_YES;
    }
    default:
        break;
    }
    /* The banner's other "Key : value" lines (TX depth, PCIe relax order, ...). */
    if (!p->in_table && (hi & 1))
        return TAKE_WEAK;
    /* (a row only inside the table: other lines are not tokenized) */
    int n = p->in_table ? tok_split(l->s, l->len, t, TOK_MAX) : 0;
    if (n >= 1) {
        double d;
        if (num_parse(t[0].s, t[0].len, &d)) {
            data_row(sec, t, n);
            return TAKE_YES;
        }
    }
    return TAKE_NO;
}

void perf_finish(struct report_section *sec)
{
    struct report_perftest *p = &sec->u.perf;
    if (p->is_latency) {
        p->bw_avg_gbps = p->bw_peak_gbps = NAN;
    }
    if (p->in_table && p->row_count == 0)
        section_issue(sec, "the result table has no complete row");
    if (!p->in_table && !p->is_latency)
        section_issue(sec, "the output ends before the result table");
}
