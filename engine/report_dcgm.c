/* report_dcgm.c: `dcgmi diag` results, as the boxed text table or as JSON.
 *
 * Text: each row is "| Test name | Result |"; a result may carry GPUs
 * ("Pass - GPU: 1", "Fail - GPU: 0", "Pass - All") and a test may continue
 * on rows with an empty name cell, each of which can add another result.
 * "Info" and "Warning" rows are annotations of the test above, not results;
 * their text wraps over following rows and is skipped. JSON (old
 * "test_categories" and newer layouts alike) is read line by line:
 * "name" sets the current test, "status" adds a result. Skip is counted
 * apart and never as a pass (DOMAIN.md T10). An output that stops before
 * the table's bottom border, or before the JSON document closes, is marked
 * cut: the tests after the cut (at -r 3 the Integration, Hardware and Stress
 * ones) are not shown, so what is shown passing is not the run passing. */
#include <stdio.h>
#include <string.h>

#include "report_int.h"

/* A DCGM text row: '|', a 27-character name cell, '|', then the result. */
static int table_geometry(const struct line *l)
{
    return l->len >= 30 && l->s[0] == '|' && l->s[28] == '|';
}

static int category_line(const struct line *l)
{
    return l->len > 8 && (l->s[0] == '|' || l->s[0] == '+') && span_starts(l->s + 1, l->len - 1, "-----  ");
}

int dcgm_detect(const struct line *l)
{
    if (line_find(l, "Successfully ran diagnostic") ||
        line_find_raw(l, "dcgmi diag") ||
        line_find(l, "\"DCGM GPU Diagnostic\"") ||
        line_find(l, "\"DCGM Diagnostic\""))
        return DETECT_STRONG;
    if (table_geometry(l) && (line_find(l, "| Diagnostic ") ||
                              line_find(l, "| Result ")))
        return DETECT_STRONG;
    if (category_line(l) || table_geometry(l))
        return DETECT_WEAK;
    return 0;
}

void dcgm_init(struct report_section *sec)
{
    struct report_dcgm *d = &sec->u.dcgm;
    memset(d, 0, sizeof(*d));
    d->level = d->run_level = -1;
    text_set(d->format, sizeof(d->format), "text");
    text_set(sec->tool, sizeof(sec->tool), "dcgmi diag");
}

/* The category a name is, as a bit of report_dcgm.categories (0: none). */
static unsigned category_bit(const char *s, size_t n)
{
    if (span_starts_ci(s, n, "Deployment"))
        return 1u;
    if (span_starts_ci(s, n, "Integration"))
        return 2u;
    if (span_starts_ci(s, n, "Hardware"))
        return 4u;
    if (span_starts_ci(s, n, "Stress"))
        return 8u;
    return 0;
}

/* "dcgmi diag -r 3", "dcgmi diag --run 3 --fail-early", "-r long",
 * "--run=1", "-r3": the level asked for; 0 when -r names tests ("-r pcie"),
 * -1 when no -r is shown. */
static int run_level(const struct line *l)
{
    const char *at = line_find_raw(l, "dcgmi diag");
    if (!at)
        return -1;
    size_t off = (size_t)(at - l->raw) + 10;
    struct tok t[TOK_MAX];
    int n = tok_split(l->raw + off, l->raw_len - off, t, TOK_MAX);
    for (int i = 0; i < n; i++) {
        const char *a = t[i].s;
        size_t al = t[i].len;
        const char *v = NULL;
        size_t vl = 0;
        if (span_eq(a, al, "-r") || span_eq(a, al, "--run")) {
            if (i + 1 >= n)
                return -1;
            v = t[i + 1].s;
            vl = t[i + 1].len;
        } else if (span_starts(a, al, "--run=")) {
            v = a + 6;
            vl = al - 6;
        } else if (al > 2 && span_starts(a, al, "-r") && a[2] >= '0' && a[2] <= '9') {
            v = a + 2;
            vl = al - 2;
        } else {
            continue;
        }
        while (vl && (*v == '\'' || *v == '"'))
            v++, vl--;
        while (vl && (v[vl - 1] == '\'' || v[vl - 1] == '"'))
            vl--;
        if (span_eq(v, vl, "1") || span_eq(v, vl, "short") || span_eq(v, vl, "quick"))
            return 1;
        if (span_eq(v, vl, "2") || span_eq(v, vl, "medium"))
            return 2;
        if (span_eq(v, vl, "3") || span_eq(v, vl, "long"))
            return 3;
        if (span_eq(v, vl, "4") || span_eq(v, vl, "xlong"))
            return 4;
        return 0;
    }
    return -1;
}

static void result(struct report_dcgm *d, const char *v, size_t vl)
{
    if (span_starts_ci(v, vl, "Pass")) {
        d->pass++;
    } else if (span_starts_ci(v, vl, "Fail")) {
        d->fail++;
        if (d->failed_count < DCGM_FAILED_KEEP && d->cur_test[0]) {
            int dup = 0;
            for (int i = 0; i < d->failed_count; i++)
                dup |= strcmp(d->failed_tests[i], d->cur_test) == 0;
            if (!dup)
                snprintf(d->failed_tests[d->failed_count++], sizeof(d->failed_tests[0]), "%s",
                         d->cur_test);
        }
    } else if (span_starts_ci(v, vl, "Warn")) {
        d->warn++;
    } else if (span_starts_ci(v, vl, "Skip")) {
        d->skip++;
    }
}

/* Whether v opens with Pass, Fail, Warn or Skip in any case, followed by
 * its end, ' ', '-', or an 'i' or 'e' ("Passed", "Skipped"). The four
 * words differ in their first letter, so that letter picks the one word
 * to compare: asked of every table row. */
static int is_result(const char *v, size_t vl)
{
    if (vl < 4)
        return 0;
    const char *w;
    switch (v[0]) {
    case 'P': case 'p': w = "pass"; break;
    case 'F': case 'f': w = "fail"; break;
    case 'W': case 'w': w = "warn"; break;
    case 'S': case 's': w = "skip"; break;
    default: return 0;
    }
    for (int i = 1; i < 4; i++) {
        char c = v[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != w[i])
            return 0;
    }
    return vl == 4 || v[4] == ' ' || v[4] == '-' || v[4] == 'i' || v[4] == 'e';
}

static void json_line(struct report_section *sec, const struct line *l)
{
    struct report_dcgm *d = &sec->u.dcgm;
    const char *s = l->s;
    size_t n = l->len;
    /* brace and bracket depth, outside strings */
    int in_str = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '"' && (i == 0 || s[i - 1] != '\\'))
            in_str = !in_str;
        else if (!in_str && (c == '{' || c == '['))
            d->json_depth++;
        else if (!in_str && (c == '}' || c == ']') && d->json_depth > 0)
            d->json_depth--;
    }
    if (n < 3 || s[0] != '"')
        return;
    const char *q = memchr(s + 1, '"', n - 1);
    if (!q)
        return;
    const char *k = s + 1;
    size_t kl = (size_t)(q - k);
    const char *c = memchr(q, ':', n - (size_t)(q - s));
    if (!c)
        return;
    const char *v = c + 1;
    size_t vl = n - (size_t)(v - s);
    span_trim(&v, &vl);
    while (vl && (v[vl - 1] == ',' || v[vl - 1] == ' '))
        vl--;
    if (vl < 2 || v[0] != '"')
        return;
    v++;
    vl -= 1;
    if (vl && v[vl - 1] == '"')
        vl--;
    if (span_eq(k, kl, "name") || span_eq(k, kl, "test_name"))
        span_copy(d->cur_test, sizeof(d->cur_test), v, vl);
    else if (span_eq(k, kl, "category")) {
        span_copy(d->category, sizeof(d->category), v, vl);
        d->categories |= category_bit(v, vl);
    }
    else if (span_eq(k, kl, "status") || span_eq(k, kl, "result"))
        result(d, v, vl);
    else if (span_eq(k, kl, "version") || span_eq(k, kl, "DCGM Version"))
        span_copy(d->dcgm_version, sizeof(d->dcgm_version), v, vl);
    else if (span_eq(k, kl, "Driver Version Detected") || span_eq(k, kl, "driver_version"))
        span_copy(d->driver, sizeof(d->driver), v, vl);
}

enum take dcgm_line(struct report_section *sec, const struct line *l)
{
    struct report_dcgm *d = &sec->u.dcgm;
    if (l->raw_len == 0)
        return TAKE_YES;
    /* Its four markers all hold "di" in some case: one pass rules them out
     * on most lines. */
    int di = span_has_pair_ci(l->raw, l->raw_len, 'd', 'i');
    if (di && (line_find(l, "Successfully ran diagnostic") ||
               line_find_raw(l, "dcgmi diag"))) {
        if (d->pass + d->fail + d->warn + d->skip > 0)
            return TAKE_END;
        if (d->run_level < 0)
            d->run_level = run_level(l);
        return TAKE_YES;
    }
    if (str_is(d->format, "json") || (di && (line_find(l, "\"DCGM GPU Diagnostic\"") ||
                                             line_find(l, "\"DCGM Diagnostic\""))) ||
        (l->s[0] == '{' && l->len <= 2)) {
        if (!str_is(d->format, "json") && d->pass + d->fail + d->warn + d->skip > 0)
            return TAKE_END;
        /* opened on the "DCGM GPU Diagnostic" key: the document's brace
         * was on the line before */
        if (!str_is(d->format, "json") && l->s[0] != '{')
            d->json_depth = 1;
        text_set(d->format, sizeof(d->format), "json");
        /* JSON lines are braces, brackets and "key" : value pairs. */
        char c0 = l->s[0];
        if (c0 != '{' && c0 != '}' && c0 != '[' && c0 != ']' && c0 != '"')
            return TAKE_NO;
        json_line(sec, l);
        return TAKE_WEAK;
    }
    if (category_line(l)) {
        const char *s = l->s + 6;
        size_t n = l->len - 6;
        while (n && (*s == ' ' || *s == '-'))
            s++, n--;
        size_t e = 0;
        while (e < n && !(s[e] == ' ' && e + 1 < n && s[e + 1] == ' ') && s[e] != '-')
            e++;
        span_copy(d->category, sizeof(d->category), s, e);
        d->categories |= category_bit(s, e);
        d->cur_test[0] = '\0';
        d->closed = 0;
        return TAKE_YES;
    }
    if (l->s[0] == '+' || l->s[0] == '=') {
        /* a border: after results, the table's bottom one (so far) */
        d->closed = l->s[0] == '+' && d->pass + d->fail + d->warn + d->skip > 0;
        return TAKE_WEAK;
    }
    if (l->s[0] != '|')
        return TAKE_NO;
    d->closed = 0;
    if (!table_geometry(l))
        return TAKE_WEAK;
    /* "| name | value |", the value possibly cut without its closing bar */
    const char *bar = l->len > 1 ? memchr(l->s + 1, '|', l->len - 1) : NULL;
    if (!bar)
        return TAKE_YES;
    const char *k = l->s + 1;
    size_t kl = (size_t)(bar - k);
    const char *v = bar + 1;
    size_t vl = l->len - (size_t)(v - l->s);
    if (vl && v[vl - 1] == '|')
        vl--;
    /* span_trim_nz: an empty cell is only read through its length (the
     * result cell's padding is forty-odd spaces) */
    span_trim_nz(&k, &kl);
    span_trim_nz(&v, &vl);
    if (span_eq(k, kl, "Diagnostic") && span_eq(v, vl, "Result"))
        return TAKE_YES;
    if (span_eq(k, kl, "DCGM Version")) {
        span_copy(d->dcgm_version, sizeof(d->dcgm_version), v, vl);
        return TAKE_YES;
    }
    if (span_eq(k, kl, "Driver Version Detected")) {
        span_copy(d->driver, sizeof(d->driver), v, vl);
        return TAKE_YES;
    }
    if (span_eq(k, kl, "Info") || span_eq(k, kl, "Warning") || span_eq(k, kl, "Error")) {
        /* continuation rows after an annotation belong to it, not a test */
        d->in_note = 1;
        return TAKE_YES;
    }
    if (kl > 0) {
        span_copy(d->cur_test, sizeof(d->cur_test), k, kl);
        d->in_note = 0;
        if (is_result(v, vl))
            result(d, v, vl);
        return TAKE_YES;
    }
    /* An empty name cell: a wrapped line, or another GPU's result. */
    if (!d->in_note && is_result(v, vl) &&
        span_find(v, vl, "GPU"))
        result(d, v, vl);
    return TAKE_YES;
}

void dcgm_finish(struct report_section *sec)
{
    struct report_dcgm *d = &sec->u.dcgm;
    if (d->pass + d->fail + d->warn + d->skip == 0) {
        section_issue(sec, "no test result could be read");
        return;
    }
    d->cut = str_is(d->format, "json") ? d->json_depth > 0 : !d->closed;
    if (d->cut)
        section_issue(sec, "the output is cut: tests after the last one shown are unknown");
    /* The level asked for, else what a whole output's categories show: each
     * level adds categories (-r 1 Deployment, -r 2 Integration and Hardware,
     * -r 3 Stress), and a test that did not run is still listed as Skip. */
    if (d->run_level >= 0)
        d->level = d->run_level;
    else if (!d->cut && (d->categories & 8u))
        d->level = 3;
    else if (!d->cut && (d->categories & 6u))
        d->level = 2;
    else if (!d->cut && d->categories == 1u)
        d->level = 1;
}
