/* report_cpu.c: host CPU facts from `lscpu` (old flat and new hierarchical
 * layouts, which differ only in indentation, so keys are matched by name)
 * and the frequency policy from `cpupower frequency-info` (DOMAIN.md R38:
 * a governor other than "performance" starves data loading).
 *
 * Each `cpupower` run or "analyzing CPU" stanza is its own section, so two
 * runs pasted one after the other (e.g. on AC power and on battery) stay
 * two observations rather than one blended one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

int cpu_detect(const struct line *l)
{
    if (line_find_raw_a(l, "cpupower frequency-info", 18) ||
        span_starts(l->s, l->len, "analyzing CPU ") || span_starts(l->s, l->len, "Architecture:"))
        return DETECT_STRONG;
    if (span_eq(l->raw, l->raw_len, "lscpu") || line_find_raw(l, "$ lscpu") ||
        line_find_raw(l, "# lscpu"))
        return DETECT_STRONG;
    if (span_starts(l->s, l->len, "current policy: frequency should be within"))
        return DETECT_WEAK;
    return 0;
}

void cpu_init(struct report_section *sec)
{
    struct report_cpu *c = &sec->u.cpu;
    memset(c, 0, sizeof(*c));
    c->sockets = c->threads = c->cores_per_socket = c->threads_per_core = c->numa_nodes = -1;
    c->hw_min_mhz = c->hw_max_mhz = c->policy_min_mhz = c->policy_max_mhz = c->current_mhz = NAN;
    text_set(sec->tool, sizeof(sec->tool), "lscpu");
}

/* "500 MHz" / "2.00 GHz" at s -> MHz; *end past the unit. */
static int freq_mhz(const char *s, size_t n, double *mhz, size_t *end)
{
    double v;
    size_t e;
    if (!num_scan(s, n, &v, &e))
        return 0;
    const char *u = s + e;
    size_t ul = n - e;
    span_trim(&u, &ul);
    if (span_starts(u, ul, "GHz"))
        v *= 1000;
    else if (span_starts(u, ul, "kHz"))
        v /= 1000;
    else if (!span_starts(u, ul, "MHz"))
        return 0;
    *mhz = v;
    *end = (size_t)(u - s) + 3;
    return 1;
}

static int int_val(const char *v, size_t vl)
{
    double d;
    if (!num_parse(v, vl, &d) || d < 0 || d > 1e7)
        return -1;
    return (int)d;
}

/* Whether k is one of lscpu's keys read for nothing (words, parentheses,
 * digits, dashes), grouped by first byte: a key is compared only with the
 * few it could be, where a walk compared it with all thirty-five. */
static int lscpu_other_key(const char *k, size_t kl)
{
#define E(lit) span_eq(k, kl, lit)
    switch (kl ? k[0] : '\0') {
    case 'A': return E("Architecture") || E("Address sizes");
    case 'B':
        return E("Byte Order") || E("BIOS Vendor ID") || E("BIOS Model name") || E("BogoMIPS") ||
               E("Book(s) per drawer");
    case 'C':
        return E("CPU op-mode(s)") || E("CPU family") || E("CPU(s) scaling MHz") ||
               E("Caches (sum of all)");
    case 'D': return E("Dispatching mode");
    case 'F': return E("Frequency boost") || E("Flags") || E("Family");
    case 'H': return E("Hypervisor vendor");
    case 'L':
        return E("L1d cache") || E("L1i cache") || E("L2 cache") || E("L3 cache") || E("L1d") ||
               E("L1i") || E("L2") || E("L3");
    case 'M': return E("Model");
    case 'N': return E("NUMA");
    case 'O': return E("On-line CPU(s) list") || E("Off-line CPU(s) list");
    case 'S': return E("Stepping");
    case 'T': return E("Thread(s) per core");
    case 'V':
        return E("Vendor ID") || E("Virtualization") || E("Vulnerabilities") ||
               E("Virtualization type") || E("Virtualization features");
    default: return 0;
    }
#undef E
}

enum take cpu_line(struct report_section *sec, const struct line *l)
{
    struct report_cpu *c = &sec->u.cpu;
    if (l->raw_len == 0)
        return TAKE_YES;
    int is_cpupower = str_is(sec->tool, "cpupower frequency-info");
    if (line_find_raw_a(l, "cpupower frequency-info", 18)) {
        if (c->analyzing_seen || c->governor[0] || c->model_name[0] || c->threads >= 0)
            return TAKE_END;
        text_set(sec->tool, sizeof(sec->tool), "cpupower frequency-info");
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "analyzing CPU ")) {
        if (c->analyzing_seen || c->governor[0] || (!is_cpupower && c->threads >= 0))
            return TAKE_END;
        c->analyzing_seen = 1;
        text_set(sec->tool, sizeof(sec->tool), "cpupower frequency-info");
        return TAKE_YES;
    }
    if (span_eq(l->s, l->len, "..."))
        return TAKE_WEAK;
    if (span_starts(l->s, l->len, "Architecture:") && (c->threads >= 0 || c->model_name[0] ||
                                                       is_cpupower))
        return TAKE_END;
    /* cpupower */
    if (span_starts(l->s, l->len, "current policy: frequency should be within")) {
        if (c->governor[0] && !c->analyzing_seen)
            return TAKE_END;
        if (!is_cpupower)
            text_set(sec->tool, sizeof(sec->tool), "cpupower frequency-info");
        const char *p = l->s + 42;
        size_t n = l->len - 42;
        double mhz;
        size_t end;
        if (freq_mhz(p, n, &mhz, &end)) {
            c->policy_min_mhz = mhz;
            if (end < n && freq_mhz(p + end, n - end, &mhz, &end))
                c->policy_max_mhz = mhz;
        }
        c->policy_pending = 1;
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "The governor \"")) {
        const char *g = l->s + 14;
        const char *q = memchr(g, '"', l->len - 14);
        if (q)
            span_copy(c->governor, sizeof(c->governor), g, (size_t)(q - g));
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "within this range"))
        return TAKE_YES;
    const char *k, *v;
    size_t kl, vl;
    /* kv_split_nz: an empty key or value is only read through its length */
    if (!kv_split_nz(l->s, l->len, &k, &kl, &v, &vl)) {
        /* the wrapped tail of lscpu's Flags line */
        if (!is_cpupower && c->threads >= 0 && l->indent >= 16 && !memchr(l->s, ':', l->len))
            return TAKE_WEAK;
        return TAKE_NO;
    }
    double mhz;
    size_t end;
    if (span_eq(k, kl, "hardware limits")) {
        if (freq_mhz(v, vl, &mhz, &end)) {
            c->hw_min_mhz = mhz;
            const char *dash = memchr(v + end, '-', vl - end);
            if (dash && freq_mhz(dash + 1, vl - (size_t)(dash + 1 - v), &mhz, &end))
                c->hw_max_mhz = mhz;
        }
        return TAKE_YES;
    }
    if (span_eq(k, kl, "current CPU frequency")) {
        if (freq_mhz(v, vl, &mhz, &end))
            c->current_mhz = mhz;
        return TAKE_YES;
    }
    if (span_eq(k, kl, "driver")) {
        span_copy(c->driver, sizeof(c->driver), v, vl);
        return TAKE_YES;
    }
    if (is_cpupower) {
        static const struct name keys[] = {
            NAME("CPUs which run at the same hardware frequency"),
            NAME("CPUs which need to have their frequency coordinated by software"),
            NAME("maximum transition latency"), NAME("available cpufreq governors"),
            NAME("available frequency steps"), NAME("boost state support"), NAME("Supported"),
            NAME("Active"), NAME("energy performance preference"), {NULL, 0}
        };
        if (name_index(k, kl, keys) >= 0)
            return TAKE_YES;
        if (span_starts(k, kl, "AMD PSTATE") || span_starts(k, kl, "Boost States") ||
            span_starts(k, kl, "Pstate-"))
            return TAKE_YES;
        return TAKE_NO;
    }
    /* lscpu */
    if (span_eq(k, kl, "Model name")) {
        if (!c->model_name[0])
            span_copy(c->model_name, sizeof(c->model_name), v, vl);
        return TAKE_YES;
    }
    if (span_eq(k, kl, "CPU(s)")) {
        c->threads = int_val(v, vl);
        return TAKE_YES;
    }
    if (span_eq(k, kl, "Socket(s)")) {
        c->sockets = int_val(v, vl);
        return TAKE_YES;
    }
    if (span_eq(k, kl, "Core(s) per socket")) {
        c->cores_per_socket = int_val(v, vl);
        return TAKE_YES;
    }
    if (span_eq(k, kl, "Thread(s) per core")) {
        c->threads_per_core = int_val(v, vl);
        return TAKE_YES;
    }
    if (span_eq(k, kl, "NUMA node(s)")) {
        c->numa_nodes = int_val(v, vl);
        return TAKE_YES;
    }
    if (span_eq(k, kl, "CPU max MHz")) {
        double d;
        if (num_parse(v, vl, &d))
            c->hw_max_mhz = d;
        return TAKE_YES;
    }
    if (span_eq(k, kl, "CPU min MHz")) {
        double d;
        if (num_parse(v, vl, &d))
            c->hw_min_mhz = d;
        return TAKE_YES;
    }
    if (span_eq(k, kl, "CPU MHz")) {
        double d;
        if (num_parse(v, vl, &d))
            c->current_mhz = d;
        return TAKE_YES;
    }
    /* lscpu's other keys (the per-node and per-flaw ones first: both tests
     * answer the same, and "NUMA nodeN CPU(s)" lines are the most frequent) */
    if (span_starts(k, kl, "NUMA node") || span_starts(k, kl, "Vulnerability "))
        return TAKE_YES;
    if (lscpu_other_key(k, kl))
        return TAKE_YES;
    return TAKE_NO;
}

void cpu_finish(struct report_section *sec)
{
    struct report_cpu *c = &sec->u.cpu;
    if (str_is(sec->tool, "cpupower frequency-info") && !c->governor[0])
        section_issue(sec, "no governor line could be read");
}
