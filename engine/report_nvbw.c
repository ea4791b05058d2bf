/* report_nvbw.c: NVIDIA nvbandwidth output: one block per test
 * ("Running host_to_device_memcpy_ce."), a bandwidth matrix in GB/s, and a
 * "SUM <test> <GB/s>" line; tests that cannot run print "Waiving <test>.".
 *
 * The matrix is kept as min/max over its cells rather than cell by cell: the
 * checker asks "is every GPU above T4/T5", which the minimum answers, and a
 * matrix cut mid-row still gives a correct minimum over the cells shown. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

int nvbw_detect(const struct line *l)
{
    if (span_starts(l->s, l->len, "nvbandwidth Version") ||
        line_find_raw_a(l, "nvbandwidth -", 12) ||
        line_find_raw_a(l, "/nvbandwidth", 0))
        return DETECT_STRONG;
    if ((span_starts(l->s, l->len, "Running ") || span_starts(l->s, l->len, "Waiving ")) &&
        (line_find(l, "_ce.") || line_find(l, "_sm.")))
        return DETECT_STRONG;
    if (span_starts(l->s, l->len, "memcpy CE ") || span_starts(l->s, l->len, "memcpy SM "))
        return DETECT_STRONG;
    return 0;
}

void nvbw_init(struct report_section *sec)
{
    struct report_nvbandwidth *n = &sec->u.nvbw;
    memset(n, 0, sizeof(*n));
    text_set(sec->tool, sizeof(sec->tool), "nvbandwidth");
}

static struct report_nvbw_test *find_test(struct report_nvbandwidth *n, const char *s, size_t len,
                                          int create)
{
    for (int i = 0; i < n->test_count; i++)
        if (span_eq_z(s, len, n->tests[i].name))
            return &n->tests[i];
    if (!create)
        return NULL;
    if (n->test_count >= NVBW_TESTS_MAX) {
        n->tests_dropped++;
        return NULL;
    }
    struct report_nvbw_test *t = &n->tests[n->test_count++];
    memset(t, 0, sizeof(*t));
    span_copy(t->name, sizeof(t->name), s, len);
    t->sum_gbs = t->min_gbs = t->max_gbs = NAN;
    return t;
}

/* "Running name." / "Waiving name." -> name */
static void test_name(const struct line *l, size_t skip, const char **s, size_t *len)
{
    *s = l->s + skip;
    *len = l->len - skip;
    span_trim(s, len);
    if (*len && (*s)[*len - 1] == '.')
        (*len)--;
}

enum take nvbw_line(struct report_section *sec, const struct line *l)
{
    struct report_nvbandwidth *n = &sec->u.nvbw;
    struct tok t[TOK_MAX];
    const char *s;
    size_t sl;
    if (l->raw_len == 0) {
        n->in_matrix = n->in_matrix ? 3 : 0;
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "nvbandwidth Version")) {
        if (n->test_count > 0)
            return TAKE_END;
        const char *c = memchr(l->s, ':', l->len);
        if (c)
            test_name(l, (size_t)(c + 1 - l->s), &s, &sl), span_copy(n->version, sizeof(n->version), s, sl);
        return TAKE_YES;
    }
    if (line_find_raw_a(l, "nvbandwidth -", 12) || line_find_raw_a(l, "/nvbandwidth", 0))
        return n->test_count > 0 ? TAKE_END : TAKE_YES;
    if (span_starts(l->s, l->len, "Running ")) {
        test_name(l, 8, &s, &sl);
        find_test(n, s, sl, 1);
        n->in_matrix = 1;
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "Waiving ")) {
        test_name(l, 8, &s, &sl);
        if (n->waived_count < 4)
            span_copy(n->waived[n->waived_count], sizeof(n->waived[0]), s, sl);
        n->waived_count++;
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "SUM ")) {
        int k = tok_split(l->s, l->len, t, 4);
        double v;
        if (k >= 3 && num_parse(t[2].s, t[2].len, &v)) {
            struct report_nvbw_test *te = find_test(n, t[1].s, t[1].len, 1);
            if (te)
                te->sum_gbs = v;
        }
        n->in_matrix = 0;
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "Device ") && memchr(l->s, ':', l->len)) {
        n->device_count++;
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "memcpy ") || span_starts(l->s, l->len, "NOTE:") ||
        span_starts(l->s, l->len, "Additional system") || span_starts(l->s, l->len, "CUDA ") ||
        span_starts(l->s, l->len, "Driver Version") || span_starts(l->s, l->len, "Built from"))
        return TAKE_YES;
    /* Plain searches, not line_find: should they be a line's
     * PAIRS_AFTER-th search the pair set would be built for it, which
     * costs a matrix row (most of the lines here) more than three memchr
     * calls that find nothing. */
    if (span_find(l->s, l->len, "ERROR") || span_find(l->s, l->len, "FAILED") ||
        span_find(l->s, l->len, "failed")) {
        n->failed++;
        return TAKE_YES;
    }
    int k = tok_split(l->s, l->len, t, TOK_MAX);
    double v;
    if (k >= 1 && n->test_count > 0 && num_parse(t[0].s, t[0].len, &v)) {
        /* The column header is 0 1 2 ...; a data row is an index then GB/s
         * cells, "N/A" on the diagonal. */
        int header = 1;
        for (int i = 0; i < k && header; i++) {
            double c;
            if (!num_parse(t[i].s, t[i].len, &c) || c != (double)i)
                header = 0;     /* (and the rest need not be read) */
        }
        if (header && k > 1)
            return TAKE_YES;
        struct report_nvbw_test *te = &n->tests[n->test_count - 1];
        if (n->in_matrix == 3)
            return TAKE_NO;
        for (int i = 1; i < k; i++) {
            double c;
            /* "16." at the end of a cut line is a number cut short */
            if (t[i].s[t[i].len - 1] == '.' || !num_parse(t[i].s, t[i].len, &c))
                continue;
            te->cells++;
            if (isnan(te->min_gbs) || c < te->min_gbs)
                te->min_gbs = c;
            if (isnan(te->max_gbs) || c > te->max_gbs)
                te->max_gbs = c;
        }
        return TAKE_YES;
    }
    return TAKE_NO;
}

void nvbw_finish(struct report_section *sec)
{
    struct report_nvbandwidth *n = &sec->u.nvbw;
    if (n->tests_dropped)
        section_issue(sec, "more tests than can be listed");
    for (int i = 0; i < n->test_count; i++)
        if (isnan(n->tests[i].sum_gbs)) {
            section_issue(sec, "a test has no SUM line (output cut or quoted in part)");
            break;
        }
}
