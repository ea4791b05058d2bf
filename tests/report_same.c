/* report_same.c: compares two reports as a user of the module sees them:
 * the counters, each section's header (kind, tool, line span, issues, the
 * held count) and every fact through the server's JSON rendering
 * (server/json_report.c), which prints every value the parsers read. Not a
 * memcmp of the structs: open_section clears only what a section uses, so
 * two equal parses may differ in bytes no reader looks at. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "report_same.h"
#include "server_int.h"

#define NO_SECTION ((size_t)-1)

static int differ(char *why, size_t whylen, const char *what, size_t i, long long x, long long y)
{
    if (i == NO_SECTION)
        snprintf(why, whylen, "%s: %lld vs %lld", what, x, y);
    else
        snprintf(why, whylen, "%s (section %zu): %lld vs %lld", what, i, x, y);
    return 0;
}

int report_same(const struct report *a, const struct report *b, char *why, size_t whylen)
{
    if (a->section_count != b->section_count)
        return differ(why, whylen, "section_count", NO_SECTION, (long long)a->section_count,
                      (long long)b->section_count);
    if (a->sections_dropped != b->sections_dropped)
        return differ(why, whylen, "sections_dropped", NO_SECTION, (long long)a->sections_dropped,
                      (long long)b->sections_dropped);
    if (a->unrecognized_lines != b->unrecognized_lines)
        return differ(why, whylen, "unrecognized_lines", NO_SECTION, (long long)a->unrecognized_lines,
                      (long long)b->unrecognized_lines);
    if (a->lines != b->lines)
        return differ(why, whylen, "lines", NO_SECTION, (long long)a->lines, (long long)b->lines);
    for (size_t i = 0; i < a->section_count; i++) {
        const struct report_section *x = &a->sections[i], *y = &b->sections[i];
        if (x->kind != y->kind)
            return differ(why, whylen, "kind", i, x->kind, y->kind);
        if (x->first_line != y->first_line)
            return differ(why, whylen, "first_line", i, x->first_line, y->first_line);
        if (x->last_line != y->last_line)
            return differ(why, whylen, "last_line", i, x->last_line, y->last_line);
        if (x->held != y->held)
            return differ(why, whylen, "held", i, x->held, y->held);
        if (x->issue_count != y->issue_count)
            return differ(why, whylen, "issue_count", i, x->issue_count, y->issue_count);
        if (strcmp(x->tool, y->tool) != 0)
            return differ(why, whylen, "tool", i, 0, 1);
        for (int k = 0; k < x->issue_count && k < REPORT_ISSUES_MAX; k++)
            if (strcmp(x->issues[k], y->issues[k]) != 0)
                return differ(why, whylen, "issue text", i, k, k);
    }
    cJSON *ja = json_report_sections(a), *jb = json_report_sections(b);
    char *sa = ja ? cJSON_PrintUnformatted(ja) : NULL;
    char *sb = jb ? cJSON_PrintUnformatted(jb) : NULL;
    int same = 1;
    if (!sa || !sb) {
        snprintf(why, whylen, "out of memory rendering JSON");
        same = 0;
    } else if (strcmp(sa, sb) != 0) {
        size_t k = 0;
        while (sa[k] && sa[k] == sb[k])
            k++;
        size_t from = k > 60 ? k - 60 : 0;
        snprintf(why, whylen, "JSON differs at byte %zu: ...%.120s... vs ...%.120s...", k, sa + from,
                 sb + from);
        same = 0;
    }
    free(sa);
    free(sb);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    return same;
}
