/* report_fio.c: fio results in its text and JSON output formats.
 *
 * Text: the "Run status group" lines carry the aggregate bandwidth (used
 * when present); otherwise per-job "read:"/"write:" lines are summed. Both
 * the fio 3 spelling ("BW=72.8MiB/s (76.4MB/s)") and the fio 2 one
 * ("bw=153412KB/s") are read. JSON is read line by line with a brace depth
 * counter instead of a JSON parser, because pasted JSON is often cut off or
 * preceded by text, and a cut document still holds readable numbers. JSON
 * lists "read" and "write" for every job, with zeros for a direction the
 * job never ran: a direction with no bytes moved in no time is not a
 * measurement and stays null (a read bandwidth of 0 from a write job would
 * fail the plan's read check), as the text output, which leaves it out. All
 * bandwidths are reported in MB/s of 10^6 bytes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

int fio_detect(const struct line *l)
{
    if (line_find_a(l, ": (g=", 2) && line_find(l, "rw="))
        return DETECT_STRONG;
    if (line_find(l, "\"fio version\""))
        return DETECT_STRONG;
    if (line_find_a(l, ": (groupid=", 2) && line_find(l, "jobs="))
        return DETECT_STRONG;
    if (span_starts(l->s, l->len, "fio-") && l->len < 16 && l->len > 5 && l->s[4] >= '0' &&
        l->s[4] <= '9')
        return DETECT_STRONG;
    return 0;
}

void fio_init(struct report_section *sec)
{
    struct report_fio *f = &sec->u.fio;
    memset(f, 0, sizeof(*f));
    f->read_bw_mbs = f->write_bw_mbs = f->read_iops = f->write_iops = NAN;
    f->iodepth = NAN;
    f->write_bs = f->json_global_bs = f->json_job_bs = NAN;
    f->job_read_bw = f->job_write_bw = f->job_read_iops = f->job_write_iops = NAN;
    f->grp_read_bw = f->grp_write_bw = NAN;
    f->json_dir = -1;
    text_set(f->format, sizeof(f->format), "text");
    text_set(sec->tool, sizeof(sec->tool), "fio");
}

const char *report_fio_pattern_name(int i)
{
    static const char *const names[FIO_PATTERNS] = {"read", "randread", "write", "randwrite",
                                                    "mixed", "other"};
    return i >= 0 && i < FIO_PATTERNS ? names[i] : NULL;
}

/* The pattern bit of an rw= value ("write", "randread:8", "readwrite"). */
static unsigned pattern_bit(const char *v, size_t vl)
{
    const char *colon = memchr(v, ':', vl);
    if (colon)
        vl = (size_t)(colon - v);
    if (span_eq(v, vl, "read"))
        return FIO_SEQ_READ;
    if (span_eq(v, vl, "randread"))
        return FIO_RAND_READ;
    if (span_eq(v, vl, "write"))
        return FIO_SEQ_WRITE;
    if (span_eq(v, vl, "randwrite"))
        return FIO_RAND_WRITE;
    if (span_eq(v, vl, "rw") || span_eq(v, vl, "readwrite") || span_eq(v, vl, "randrw"))
        return FIO_MIXED;
    return vl ? FIO_OTHER : 0;
}

/* A block size in bytes: "1M", "128k", "4096", "4096B", "1024KiB", or a
 * range "4096B-4096B" (its low end: the job's smallest blocks). fio reads
 * k, m, g as powers of 1024 (kb_base=1024, its default). 0 when unreadable. */
static double bs_bytes(const char *s, size_t n)
{
    double v;
    size_t end;
    if (!num_scan(s, n, &v, &end) || !(v > 0))
        return 0;
    char u = end < n ? s[end] : '\0';
    switch (u) {
    case 'k': case 'K': return v * 1024.0;
    case 'm': case 'M': return v * 1048576.0;
    case 'g': case 'G': return v * 1073741824.0;
    case '\0': case 'b': case 'B': case '-': case ',': case '/': case ' ': case '"': return v;
    default: return 0;
    }
}

/* The write block size of a bs= value: fio 3 text "(R) 4k-4k, (W) 1M-1M,
 * (T) ..." (the (W) one), fio 2 text "128K-128K/1M-1M" (after the '/'),
 * option "4k,1M" (read,write: after the ','), else the single value. */
static double bs_write(const char *s, size_t n)
{
    const char *w = span_find_n(s, n, LIT_N("(W) "));
    if (w)
        return bs_bytes(w + 4, n - (size_t)(w + 4 - s));
    size_t i = 0;
    while (i < n && s[i] != ' ' && s[i] != '/' && s[i] != ',')
        i++;
    if (i < n && (s[i] == '/' || s[i] == ',') && i + 1 < n && s[i + 1] != ' ')
        return bs_bytes(s + i + 1, n - i - 1);
    return bs_bytes(s, n);
}

/* A sequential-write job with write block size bs (bytes) was shown. */
static void note_write_bs(struct report_fio *f, double bs)
{
    if (bs > 0 && (isnan(f->write_bs) || bs < f->write_bs))
        f->write_bs = bs;
}

/* A JSON job ends (the next "jobname", or the document): without an rw of
 * its own it ran the global options' one, without a bs of its own the
 * global one, else fio's default of 4 KiB. */
static void json_job_close(struct report_fio *f)
{
    if (f->json_job_open) {
        unsigned pat = f->json_job_rw ? f->json_job_pat
                                      : pattern_bit(f->json_global_rw, strlen(f->json_global_rw));
        if (!f->json_job_rw)
            f->patterns |= pat;
        if (pat == FIO_SEQ_WRITE)
            note_write_bs(f, !isnan(f->json_job_bs)      ? f->json_job_bs
                             : !isnan(f->json_global_bs) ? f->json_global_bs
                                                         : 4096.0);
    }
    f->json_job_open = f->json_job_rw = 0;
    f->json_job_pat = 0;
    f->json_job_bs = NAN;
}

static void add(double *acc, double v)
{
    *acc = isnan(*acc) ? v : *acc + v;
}

/* "72.8MiB/s" or "76.4MB/s" or "153412KB/s" (fio 2: KB meant KiB) to MB/s. */
static int bw_mbs(const char *s, size_t n, int old_units, double *out)
{
    double v;
    size_t end;
    if (!num_scan(s, n, &v, &end))
        return 0;
    const char *u = s + end;
    size_t ul = n - end;
    double mul;
    if (span_starts(u, ul, "KiB/s")) mul = 1024.0 / 1e6;
    else if (span_starts(u, ul, "MiB/s")) mul = 1048576.0 / 1e6;
    else if (span_starts(u, ul, "GiB/s")) mul = 1073741824.0 / 1e6;
    else if (span_starts(u, ul, "kB/s")) mul = 1e-3;
    else if (span_starts(u, ul, "KB/s")) mul = old_units ? 1024.0 / 1e6 : 1e-3;
    else if (span_starts(u, ul, "MB/s")) mul = old_units ? 1048576.0 / 1e6 : 1.0;
    else if (span_starts(u, ul, "GB/s")) mul = old_units ? 1073741824.0 / 1e6 : 1e3;
    else if (span_starts(u, ul, "B/s")) mul = 1e-6;
    else return 0;
    *out = v * mul;
    return 1;
}

/* The value after "key=" up to the next ',' or ' ' or '('. */
static int after_n(const struct line *l, const char *key, size_t kn, const char **v,
                   size_t *vl)
{
    const char *k = line_find_n(l, key, kn);
    if (!k)
        return 0;
    const char *p = k + kn;
    const char *end = l->s + l->len;
    const char *q = p;
    while (q < end && *q != ',' && *q != ' ' && *q != '(')
        q++;
    *v = p;
    *vl = (size_t)(q - p);
    return q > p;
}

/* Keys are literals: their lengths are known when compiled. */
#define after(l, key, v, vl) after_n((l), LIT_N(key), (v), (vl))

static void text_line(struct report_section *sec, const struct line *l)
{
    struct report_fio *f = &sec->u.fio;
    const char *v;
    size_t vl;
    double d;
    int is_read = span_starts(l->s, l->len, "read");
    int is_write = span_starts(l->s, l->len, "write");
    /* fio 3: "write: IOPS=18.6k, BW=72.8MiB/s (76.4MB/s)(22.0MiB/302msec)" */
    if ((is_read || is_write) && (line_find(l, "IOPS=") || line_find(l, "iops="))) {
        if (after(l, "IOPS=", &v, &vl) || after(l, "iops=", &v, &vl)) {
            if (num_parse_suffix(v, vl, &d))
                add(is_read ? &f->job_read_iops : &f->job_write_iops, d);
        }
        const char *paren = line_find(l, "B/s (");
        int done = 0;
        if (paren) {
            const char *p = paren + 5;
            size_t pl = l->len - (size_t)(p - l->s);
            if (bw_mbs(p, pl, 0, &d)) {
                add(is_read ? &f->job_read_bw : &f->job_write_bw, d);
                done = 1;
            }
        }
        if (!done && (after(l, "BW=", &v, &vl) || after(l, "bw=", &v, &vl))) {
            int old = line_find(l, "BW=") == NULL;
            if (bw_mbs(v, vl, old, &d))
                add(is_read ? &f->job_read_bw : &f->job_write_bw, d);
        }
        return;
    }
    /* "READ: bw=72.8MiB/s (76.4MB/s), ..." or fio 2 "READ: io=..., aggrb=153412KB/s" */
    int g_read = span_starts(l->s, l->len, "READ:");
    int g_write = span_starts(l->s, l->len, "WRITE:");
    if (g_read || g_write) {
        double *dst = g_read ? &f->grp_read_bw : &f->grp_write_bw;
        const char *paren = line_find(l, "B/s (");
        if (paren && bw_mbs(paren + 5, l->len - (size_t)(paren + 5 - l->s), 0, &d))
            add(dst, d);
        else if (after(l, "aggrb=", &v, &vl) && bw_mbs(v, vl, 1, &d))
            add(dst, d);
        else if (after(l, "bw=", &v, &vl) && bw_mbs(v, vl, 0, &d))
            add(dst, d);
    }
}

static void job_header(struct report_fio *f, const struct line *l)
{
    const char *v;
    size_t vl;
    f->jobs++;
    unsigned pat = 0;
    if (after(l, "rw=", &v, &vl)) {
        pat = pattern_bit(v, vl);
        f->patterns |= pat;
        if (!f->rw[0])
            span_copy(f->rw, sizeof(f->rw), v, vl);
    }
    if (!f->ioengine[0] && after(l, "ioengine=", &v, &vl))
        span_copy(f->ioengine, sizeof(f->ioengine), v, vl);
    if (isnan(f->iodepth) && after(l, "iodepth=", &v, &vl)) {
        double d;
        if (num_parse(v, vl, &d))
            f->iodepth = d;
    }
    /* fio 3: "bs=(R) 4096B-4096B, (W) ..."; fio 2: "bs=128K-128K/128K-128K," */
    const char *b = line_find(l, "bs=");
    if (b && pat == FIO_SEQ_WRITE)
        note_write_bs(f, bs_write(b + 3, l->len - (size_t)(b + 3 - l->s)));
    if (b && !f->bs[0]) {
        const char *p = b + 3;
        const char *end = l->s + l->len;
        if (end - p > 4 && memcmp(p, "(R) ", 4) == 0)
            p += 4;
        const char *q = p;
        while (q < end && *q != ',' && *q != ' ')
            q++;
        span_copy(f->bs, sizeof(f->bs), p, (size_t)(q - p));
    }
}

/* Whether s holds a brace or bracket: a line without one leaves the JSON
 * depth as it was, whatever its quotes, and most lines ("min" : 0,) have
 * none. ORing 0x20 folds '[' onto '{' and ']' onto '}' (and nothing
 * else onto either), so a window is two compares. */
static int has_brace(const char *s, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i fold = _mm_set1_epi8(0x20), lb = _mm_set1_epi8('{'), rb = _mm_set1_epi8('}');
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), fold);
        if (_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, lb), _mm_cmpeq_epi8(x, rb))))
            return 1;
    }
    if (i < n && n >= 16) {
        /* the last bytes: a window ending at the end, overlapping */
        __m128i x = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + n - 16)),
                                 fold);
        return _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, lb), _mm_cmpeq_epi8(x, rb))) != 0;
    }
#endif
    for (; i < n; i++) {
        char c = (char)(s[i] | 0x20);
        if (c == '{' || c == '}')
            return 1;
    }
    return 0;
}

/* JSON, one line at a time: "key" : value with a running brace depth. */
static void json_line(struct report_section *sec, const struct line *l)
{
    struct report_fio *f = &sec->u.fio;
    const char *s = l->s;
    size_t n = l->len;
    int depth_before = f->json_depth;
    /* key */
    const char *k = NULL, *v = NULL;
    size_t kl = 0, vl = 0;
    if (n > 2 && s[0] == '"') {
        const char *q = memchr(s + 1, '"', n - 1);
        if (q) {
            k = s + 1;
            kl = (size_t)(q - k);
            const char *c = memchr(q, ':', n - (size_t)(q - s));
            if (c) {
                v = c + 1;
                vl = n - (size_t)(v - s);
                span_trim(&v, &vl);
                while (vl && v[vl - 1] == ',')
                    vl--;
            }
        }
    }
    if (k && v && span_eq(k, kl, "fio version") && vl > 2)
        span_copy(f->version, sizeof(f->version), v + 1, vl - 2);
    if (k && span_eq(k, kl, "jobs"))
        f->json_in_jobs = 1;
    if (k && f->json_in_jobs && (span_eq(k, kl, "jobname"))) {
        f->jobs++;
        json_job_close(f);
        f->json_job_open = 1;
    }
    if (k && v && (span_eq(k, kl, "rw") || span_eq(k, kl, "readwrite")) && vl >= 2 &&
        v[0] == '"') {
        const char *rv = v + 1;
        size_t rl = vl - 1;
        if (rl && rv[rl - 1] == '"')
            rl--;
        if (f->json_in_jobs) {
            f->json_job_pat = pattern_bit(rv, rl);
            f->patterns |= f->json_job_pat;
            f->json_job_rw = 1;
        } else {
            span_copy(f->json_global_rw, sizeof(f->json_global_rw), rv, rl);
        }
    }
    if (k && v && (span_eq(k, kl, "bs") || span_eq(k, kl, "blocksize")) && vl >= 2 &&
        v[0] == '"') {
        double bs = bs_write(v + 1, vl - 1);
        if (bs > 0) {
            if (f->json_in_jobs)
                f->json_job_bs = bs;
            else
                f->json_global_bs = bs;
        }
    }
    /* brace depth, ignoring braces inside strings */
    /* (one table load a byte: most bytes are none of the five) */
    static const unsigned char cls[256] = {['"'] = 1, ['{'] = 2, ['['] = 2, ['}'] = 3, [']'] = 3};
    int in_str = 0, depth = f->json_depth;
    size_t scan = has_brace(s, n) ? n : 0;    /* no brace: no change */
    for (size_t i = 0; i < scan; i++) {
        unsigned c = cls[(unsigned char)s[i]];
        if (!c)
            continue;
        if (c == 1) {
            if (i == 0 || s[i - 1] != '\\')
                in_str = !in_str;
        } else if (!in_str) {
            depth += c == 2 ? 1 : -1;
        }
    }
    f->json_depth = depth;
    if (f->json_depth < 0)
        f->json_depth = 0;
    if (k && v && f->json_in_jobs && (span_eq(k, kl, "read") || span_eq(k, kl, "write")) &&
        vl >= 1 && v[0] == '{') {
        f->json_dir = span_eq(k, kl, "read") ? 0 : 1;
        f->json_dir_depth = f->json_depth;
        return;
    }
    if (f->json_dir >= 0 && depth_before < f->json_dir_depth) {
        f->json_dir = -1;
        return;
    }
    if (f->json_dir >= 0 && k && v && depth_before == f->json_dir_depth) {
        double d;
        int i = f->json_dir;
        if (span_eq(k, kl, "bw") && num_parse(v, vl, &d)) {
            add(&f->json_bw[i], d);
            f->json_seen[i] = 1;
        } else if (span_eq(k, kl, "bw_bytes") && num_parse(v, vl, &d)) {
            add(&f->json_bw_bytes[i], d);
        } else if (span_eq(k, kl, "iops") && num_parse(v, vl, &d)) {
            add(&f->json_iops[i], d);
        } else if ((span_eq(k, kl, "io_bytes") || span_eq(k, kl, "io_kbytes")) &&
                   num_parse(v, vl, &d)) {
            /* fio 3 prints both: the sum is zero exactly when no I/O ran */
            add(&f->json_io[i], d);
        } else if (span_eq(k, kl, "runtime") && num_parse(v, vl, &d)) {
            add(&f->json_runtime[i], d);
        }
    }
    if (f->json_dir >= 0 && f->json_depth < f->json_dir_depth)
        f->json_dir = -1;
}

/* Whether a text line opens like a line of fio's result body: stat lines,
 * group summaries, disk stats. The openings are grouped by first byte, so
 * a line is compared only with the few it could be. */
static int body_line(const char *s, size_t n)
{
#define P(lit) span_starts(s, n, lit)
    switch (n ? s[0] : '\0') {
    case 'r': return P("read");
    case 'w': return P("write");
    case 't': return P("trim");
    case 'R': return P("READ:") || P("Run status");
    case 'W': return P("WRITE:");
    case 'T': return P("TRIM:");
    case 'c': return P("clat") || P("cpu") || P("complete");
    case 's': return P("slat") || P("submit") || P("sync") || P("sd");
    case 'l': return P("lat") || P("latency");
    case '|': return 1;
    case 'I': return P("IO depths");
    case 'i': return P("issued") || P("iops");
    case 'D': return P("Disk stats");
    case 'b': return P("bw (");
    case 'f': return P("fsync");
    case 'n': return P("nvme");
    case 'v': return P("vd");
    case 'd': return P("dm-");
    case 'm': return P("md");
    default: return 0;
    }
#undef P
}

enum take fio_line(struct report_section *sec, const struct line *l)
{
    struct report_fio *f = &sec->u.fio;
    if (l->raw_len == 0)
        return TAKE_YES;
    /* The markers of this function searched directly, not through the
     * line's pair set: most lines (JSON, percentile rows) are asked three
     * at most, and the set cost more than the searches. */
    if (span_find_at(l->s, l->len, LIT_N(": (g="), 2) && span_find(l->s, l->len, "rw=")) {
        if (str_is(f->format, "json") || !isnan(f->job_read_bw) || !isnan(f->job_write_bw) ||
            !isnan(f->grp_read_bw) || !isnan(f->grp_write_bw))
            return TAKE_END;
        job_header(f, l);
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "fio-") && l->len < 16) {
        span_copy(f->version, sizeof(f->version), l->s, l->len);
        return TAKE_YES;
    }
    if (l->s[0] == '{' && l->len == 1 && !str_is(f->format, "json")) {
        text_set(f->format, sizeof(f->format), "json");
        f->jobs = 0;    /* the JSON lists the jobs the text header named */
        f->json_depth = 0;
        for (int i = 0; i < 2; i++)
            f->json_bw[i] = f->json_bw_bytes[i] = f->json_iops[i] = f->json_io[i] =
                f->json_runtime[i] = NAN;
    }
    if (str_is(f->format, "json") || span_find_at(l->s, l->len, LIT_N("\"fio version\""), 5)) {
        if (!str_is(f->format, "json")) {
            text_set(f->format, sizeof(f->format), "json");
            f->jobs = 0;
            for (int i = 0; i < 2; i++)
                f->json_bw[i] = f->json_bw_bytes[i] = f->json_iops[i] = f->json_io[i] =
                f->json_runtime[i] = NAN;
            f->json_depth = 1;
        }
        json_line(sec, l);
        return TAKE_WEAK;
    }
    if (span_eq(l->s, l->len, "...") || span_starts(l->s, l->len, "Starting ") ||
        span_starts(l->s, l->len, "Jobs:"))
        return TAKE_WEAK;
    if (span_find_at(l->s, l->len, LIT_N(": (groupid="), 2)) {
        return TAKE_YES;
    }
    /* The body of a text result: indented stat lines and group summaries. */
    text_line(sec, l);
    return body_line(l->s, l->len) ? TAKE_WEAK : TAKE_NO;
}

void fio_finish(struct report_section *sec)
{
    struct report_fio *f = &sec->u.fio;
    if (str_is(f->format, "json")) {
        json_job_close(f);
        for (int i = 0; i < 2; i++) {
            double bw = NAN;
            /* a direction no job ran: no bytes, no time */
            if (f->json_io[i] == 0 && !(f->json_runtime[i] > 0))
                f->json_bw[i] = f->json_bw_bytes[i] = f->json_iops[i] = NAN;
            if (!isnan(f->json_bw_bytes[i]))
                bw = f->json_bw_bytes[i] / 1e6;
            else if (!isnan(f->json_bw[i]))
                bw = f->json_bw[i] * 1024.0 / 1e6;   /* fio JSON "bw" is KiB/s */
            if (i == 0) {
                f->read_bw_mbs = bw;
                f->read_iops = f->json_iops[0];
            } else {
                f->write_bw_mbs = bw;
                f->write_iops = f->json_iops[1];
            }
        }
        if (f->json_depth > 0)
            section_issue(sec, "the JSON document is cut; values after the cut are unknown");
        return;
    }
    f->read_bw_mbs = !isnan(f->grp_read_bw) ? f->grp_read_bw : f->job_read_bw;
    f->write_bw_mbs = !isnan(f->grp_write_bw) ? f->grp_write_bw : f->job_write_bw;
    f->read_iops = f->job_read_iops;
    f->write_iops = f->job_write_iops;
    if (f->jobs > 0 && isnan(f->read_bw_mbs) && isnan(f->write_bw_mbs))
        section_issue(sec, "job headers only: the output ends before any result");
}
