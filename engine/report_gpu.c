/* report_gpu.c: nvidia-smi in its three shapes: the default table, the
 * `-q` key/value log, and `--query-gpu ... --format=csv`.
 *
 * `-q` repeats short keys ("Max", "Current", "Pending", "Total") under
 * different headings, so the parser remembers the last heading line (a key
 * with no value) rather than trusting indentation, which pastes lose. The
 * summary facts are the worst over the GPUs read: the smallest PCIe
 * generation and width, the sum of uncorrectable ECC errors, the number of
 * GPUs with a row remap pending (DOMAIN.md T6, T7).
 *
 * Power and clocks (R10) are per GPU. Driver 580 prints "Average Power
 * Draw" and "Instantaneous Power Draw" under "GPU Power Readings", then the
 * same keys under "GPU Memory Power Readings" and "Module Power Readings":
 * only the first heading's are the GPU's draw, and the average is the one
 * the table and power.draw show. The clock event ("throttle") reasons keep
 * both what was read and what was Active, so a reason not shown is never
 * taken for one not active.
 *
 * The table opens with the time nvidia-smi printed it, above the box; the
 * driver asks gpu_table_stamp of such a line no kind took, and it is the
 * table's only when the box follows it. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

enum gsub {
    GS_NONE = 0, GS_PCIE_GEN, GS_WIDTH, GS_ECC, GS_REMAP, GS_RETIRED, GS_FB, GS_POWER, GS_TEMP,
    GS_CLOCKS, GS_MAX_CLOCKS, GS_REASONS, GS_OTHER
};

/* enum report_clock_reason's names: the suffixes of the CSV's
 * clocks_event_reasons.* columns. */
static const struct name clock_reasons[] = {
    NAME("gpu_idle"), NAME("applications_clocks_setting"), NAME("sw_power_cap"),
    NAME("hw_slowdown"), NAME("sync_boost"), NAME("sw_thermal_slowdown"),
    NAME("hw_thermal_slowdown"), NAME("hw_power_brake_slowdown"), NAME("display_clock_setting"),
    {NULL, 0}
};

const char *report_clock_reason_name(int reason)
{
    return reason >= 0 && reason < CLK_REASON_COUNT ? clock_reasons[reason].s : NULL;
}

/* The -q label of a reason (the same in "Clocks Event Reasons" and the older
 * "Clocks Throttle Reasons"), by length as q_value tells keys apart; -1 for
 * any other key. */
static int q_reason(const char *k, size_t kl)
{
    switch (kl) {
    case 4: return span_eq(k, kl, "Idle") ? CLK_GPU_IDLE : -1;
    case 10: return span_eq(k, kl, "Sync Boost") ? CLK_SYNC_BOOST : -1;
    case 11: return span_eq(k, kl, "HW Slowdown") ? CLK_HW_SLOWDOWN : -1;
    case 12: return span_eq(k, kl, "SW Power Cap") ? CLK_SW_POWER_CAP : -1;
    case 19:
        if (span_eq(k, kl, "HW Thermal Slowdown"))
            return CLK_HW_THERMAL;
        return span_eq(k, kl, "SW Thermal Slowdown") ? CLK_SW_THERMAL : -1;
    case 21: return span_eq(k, kl, "Display Clock Setting") ? CLK_DISPLAY_CLOCK : -1;
    case 23: return span_eq(k, kl, "HW Power Brake Slowdown") ? CLK_HW_POWER_BRAKE : -1;
    case 27: return span_eq(k, kl, "Applications Clocks Setting") ? CLK_APPLICATIONS_CLOCKS : -1;
    default: return -1;
    }
}

/* "Active" 1, "Not Active" 0, anything else ("N/A") -1. */
static int active_of(const char *v, size_t vl)
{
    if (vl == 6 && span_starts_ci(v, vl, "active"))
        return 1;
    if (vl == 10 && span_starts_ci(v, vl, "not active"))
        return 0;
    return -1;
}

static void reason_set(struct report_gpu_info *gi, int reason, int active)
{
    if (reason < 0 || active < 0)
        return;
    gi->clock_reasons_shown |= 1u << reason;
    if (active)
        gi->clock_reasons_active |= 1u << reason;
    else
        gi->clock_reasons_active &= ~(1u << reason);
}

/* Whether a CSV header field starts with a --query-gpu property name or
 * group. Asked of the first field of many prose lines (gpu_detect), so the
 * names are grouped by their first byte: a field is compared only with the
 * few names it could start with, not walked down all twenty-six. */
static int csv_known(const char *s, size_t n)
{
#define P(lit) span_starts(s, n, lit)
    switch (n ? s[0] : '\0') {
    case 'c': return P("clocks") || P("compute_mode") || P("count");
    case 'd': return P("driver_version");
    case 'e': return P("ecc.") || P("enforced.");
    case 'f': return P("fan.");
    case 'g': return P("gpu_name") || P("gpu_bus_id") || P("gpu_uuid");
    case 'i': return P("index");
    case 'm': return P("memory.") || P("mig.");
    case 'n': return P("name");
    case 'p':
        return P("pci.") || P("pcie.") || P("power.") || P("pstate") || P("persistence_mode");
    case 'r': return P("retired_pages.") || P("remapped_rows.");
    case 's': return P("serial");
    case 't': return P("temperature.");
    case 'u': return P("uuid") || P("utilization.");
    case 'v': return P("vbios_version");
    default: return 0;
    }
#undef P
}

static int csv_header_of(const struct line *l)
{
    struct tok t[GPU_CSV_COLS];
    if (!memchr(l->s, ',', l->len) && !memchr(l->s, '.', l->len))
        return 0;
    /* The first field alone first: most lines with a comma or a dot are
     * prose, turned down by it before the rest is split. */
    int n = csv_split(l->s, l->len, t, 1);
    size_t f0 = t[0].len;
    const char *b0 = memchr(t[0].s, '[', f0);
    if (b0)
        f0 = (size_t)(b0 - t[0].s);
    while (f0 && t[0].s[f0 - 1] == ' ')
        f0--;
    if (f0 == 0 || !csv_known(t[0].s, f0) || memchr(t[0].s, ' ', f0))
        return 0;
    n = csv_split(l->s, l->len, t, GPU_CSV_COLS);
    int dotted = 0;
    for (int i = 0; i < n; i++) {
        size_t fl = t[i].len;
        const char *br = memchr(t[i].s, '[', fl);    /* "memory.total [MiB]" */
        if (br)
            fl = (size_t)(br - t[i].s);
        while (fl && t[i].s[fl - 1] == ' ')
            fl--;
        if (fl == 0 || !csv_known(t[i].s, fl) || memchr(t[i].s, ' ', fl))
            return 0;
        if (memchr(t[i].s, '.', fl) || memchr(t[i].s, '_', fl))
            dotted = 1;
    }
    return n >= 2 || dotted;
}

/* Quick refusal first, inline: this is asked of many lines of every log,
 * and most open with a byte no CSV header opens with. */
static inline int csv_header(const struct line *l)
{
    if (l->len > 2048 || l->len < 4 || l->s[0] < 'a' || l->s[0] > 'z')
        return 0;
    return csv_header_of(l);
}

int gpu_detect(const struct line *l)
{
    if (line_find_a(l, "NVSMI LOG", 6))
        return DETECT_STRONG;
    if (line_find(l, "NVIDIA-SMI ") && line_find(l, "Driver Version"))
        return DETECT_STRONG;
    if (line_find_raw_a(l, "nvidia-smi", 6) && !line_find_raw(l, "topo") &&
        !line_find_raw(l, "NVIDIA-SMI") && l->raw_len < 200)
        return DETECT_STRONG;
    if (csv_header(l))
        return DETECT_STRONG;
    return 0;
}

/* The line of n bytes at s (up to '\n' or the end) cleaned as the driver
 * cleans it (l, no pair set); returns where the next line begins, or NULL
 * at the end of the input. */
static const char *next_line(const char *s, size_t n, struct line *l)
{
    const char *nl = memchr(s, '\n', n);
    line_clean(s, nl ? (size_t)(nl - s) : n, l);
    l->pairs = NULL;
    return nl ? nl + 1 : NULL;
}

/* The length of a day or month name at s (up to end): letters, ASCII or
 * any byte of a UTF-8 sequence ("M\xc3\xa4r"), with one ASCII letter at
 * least; 0 when none, or when it is longer than 8 bytes. */
static size_t stamp_name(const char *s, const char *end)
{
    size_t i = 0;
    int ascii = 0;
    for (; s + i < end && i <= 8; i++) {
        unsigned char ch = (unsigned char)s[i];
        int letter = (ch | 0x20) >= 'a' && (ch | 0x20) <= 'z';
        if (!letter && ch < 0x80)
            break;
        ascii |= letter;
    }
    return ascii && i >= 2 && i <= 8 ? i : 0;
}

int gpu_table_stamp(const struct line *l, const char *next, size_t n)
{
    /* ctime's form: "Www Mmm dd hh:mm:ss yyyy", the day blank-padded
     * ("Mon Oct  2 13:30:03 2023"); no zone, which `date` would print.
     * The names are nvidia-smi's locale's: English in the C locale, but
     * "Di Dez  1 ..." under de_DE, so any names of 2 to 8 letters (UTF-8
     * bytes counted) are taken; the digits after them keep ctime's form. */
    /* '.' a digit (the day's first may be a blank) */
    static const char form[] = " .. ..:..:.. ....";
    const char *s = l->raw, *end = l->raw + l->raw_len;
    if (l->raw_len < GPU_STAMP_MIN || l->raw_len > GPU_STAMP_MAX)
        return 0;
    size_t day = stamp_name(s, end);
    if (!day || s + day >= end || s[day] != ' ')
        return 0;
    const char *m = s + day + 1;
    size_t month = stamp_name(m, end);
    const char *t = m + month;
    if (!month || (size_t)(end - t) != sizeof(form) - 1)
        return 0;
    for (size_t i = 0; i < sizeof(form) - 1; i++) {
        if (form[i] != '.' ? t[i] != form[i]
                           : !(t[i] >= '0' && t[i] <= '9') && !(i == 1 && t[i] == ' '))
            return 0;
    }
    /* then the box: its top border, "+---...---+", and the banner that
     * opens the section (gpu_detect's first marker) */
    struct line b;
    const char *after = next_line(next, n, &b);
    if (!after || b.raw_len < 3 || b.raw[0] != '+' || b.raw[b.raw_len - 1] != '+')
        return 0;
    for (size_t i = 0; i < b.raw_len; i++)
        if (b.raw[i] != '-' && b.raw[i] != '+')
            return 0;
    next_line(after, n - (size_t)(after - next), &b);
    return b.raw_len > 0 && b.raw[0] == '|' && span_find(b.raw, b.raw_len, "NVIDIA-SMI ") &&
           span_find(b.raw, b.raw_len, "Driver Version");
}

static void info_init(struct report_gpu_info *g)
{
    memset(g, 0, sizeof(*g));
    g->pcie_gen_max = g->pcie_gen_current = g->pcie_width_max = g->pcie_width_current = -1;
    g->ecc_uncorrectable = g->replays = g->temp_c = g->power_w = g->power_cap_w = NAN;
    g->memory_total_mib = NAN;
    g->power_cap_default_w = g->sm_clock_mhz = g->sm_clock_max_mhz = NAN;
    g->remap_pending = g->remap_failure = -1;
}

void gpu_init(struct report_section *sec)
{
    struct report_gpu *g = &sec->u.gpu;
    /* Clear all but the three per-GPU arrays (12 of the 13 kB): a long log
     * opens thousands of these sections and most read one or no GPU. Every
     * reader stops at info_count and csv_cols, and new_gpu clears each
     * GPU's entry and CSV row before use; csv_names are written for every
     * column counted in csv_cols. */
    size_t info_end = offsetof(struct report_gpu, info) + sizeof(g->info);
    size_t vals_end = offsetof(struct report_gpu, csv_values) + sizeof(g->csv_values);
    memset(g, 0, offsetof(struct report_gpu, info));
    memset((char *)g + info_end, 0, offsetof(struct report_gpu, csv_names) - info_end);
    memset((char *)g + vals_end, 0, sizeof(*g) - vals_end);
    g->gpu_count = -1;
    g->pcie_gen_max = g->pcie_width_max = g->pcie_width_min_current = -1;
    g->ecc_uncorrectable = NAN;
    g->remap_pending = -1;
    g->ecc_vol = g->ecc_agg = NAN;
    text_set(sec->tool, sizeof(sec->tool), "nvidia-smi");
}

static void close_ecc(struct report_gpu *g)
{
    if (g->info_count == 0)
        return;
    struct report_gpu_info *gi = &g->info[g->info_count - 1];
    /* Aggregate counts include the volatile ones; prefer it when printed. */
    if (!isnan(g->ecc_agg))
        gi->ecc_uncorrectable = g->ecc_agg;
    else if (!isnan(g->ecc_vol))
        gi->ecc_uncorrectable = g->ecc_vol;
}

static struct report_gpu_info *new_gpu(struct report_gpu *g)
{
    close_ecc(g);
    g->ecc_vol = g->ecc_agg = NAN;
    g->ecc_scope = 0;
    g->sub = GS_NONE;
    if (g->info_count >= GPU_MAX) {
        g->info_dropped++;
        return NULL;
    }
    memset(g->csv_values[g->info_count], 0, sizeof(g->csv_values[0]));
    struct report_gpu_info *gi = &g->info[g->info_count++];
    info_init(gi);
    return gi;
}

static struct report_gpu_info *cur(struct report_gpu *g)
{
    if (g->info_count == 0 || g->info_dropped)
        return NULL;
    return &g->info[g->info_count - 1];
}

static int int_of(const char *v, size_t vl)
{
    double d;
    size_t end;
    if (!num_scan(v, vl, &d, &end) || d < 0 || d > 1e6)
        return -1;
    return (int)d;
}

static int yes_no(const char *v, size_t vl)
{
    if (span_starts_ci(v, vl, "yes"))
        return 1;
    if (span_starts_ci(v, vl, "no"))
        return 0;
    return -1;
}

static void heading(struct report_gpu *g, const char *k, size_t kl)
{
    if (span_eq(k, kl, "PCIe Generation"))
        g->sub = GS_PCIE_GEN;
    else if (span_eq(k, kl, "Link Width"))
        g->sub = GS_WIDTH;
    else if (span_eq(k, kl, "ECC Errors")) {
        g->sub = GS_ECC;
        g->ecc_scope = 0;
    } else if (g->sub == GS_ECC && span_eq(k, kl, "Volatile"))
        g->ecc_scope = 1;
    else if (g->sub == GS_ECC && span_eq(k, kl, "Aggregate"))
        g->ecc_scope = 2;
    else if (g->sub == GS_ECC && (span_eq(k, kl, "Single Bit") || span_eq(k, kl, "Double Bit") ||
                                  span_eq(k, kl, "Aggregate Uncorrectable SRAM Sources"))) {
        if (span_eq(k, kl, "Single Bit"))
            g->ecc_scope = g->ecc_scope == 2 || g->ecc_scope == 12 ? 12 : 11;
        else if (span_eq(k, kl, "Double Bit"))
            g->ecc_scope = g->ecc_scope == 2 || g->ecc_scope == 12 || g->ecc_scope == 22 ? 22 : 21;
        else
            g->ecc_scope = 0;
    } else if (span_eq(k, kl, "Remapped Rows"))
        g->sub = GS_REMAP;
    else if (span_eq(k, kl, "Retired Pages"))
        g->sub = GS_RETIRED;
    else if (span_eq(k, kl, "FB Memory Usage"))
        g->sub = GS_FB;
    else if (span_eq(k, kl, "GPU Power Readings") || span_eq(k, kl, "Power Readings"))
        g->sub = GS_POWER;
    else if (span_eq(k, kl, "Temperature"))
        g->sub = GS_TEMP;
    else if (span_eq(k, kl, "Clocks"))
        g->sub = GS_CLOCKS;
    else if (span_eq(k, kl, "Max Clocks"))
        g->sub = GS_MAX_CLOCKS;
    else if (span_eq(k, kl, "Clocks Event Reasons") || span_eq(k, kl, "Clocks Throttle Reasons"))
        g->sub = GS_REASONS;        /* "... Reasons Counters" are times, not states */
    else if (span_eq(k, kl, "Bank Remap Availability Histogram") && g->sub == GS_REMAP)
        g->sub = GS_OTHER;
    else
        g->sub = GS_OTHER;
}

static void ecc_add(double *acc, double v)
{
    *acc = isnan(*acc) ? v : *acc + v;
}

/* -q keys are asked by the ten thousand and most match nothing: the keys
 * any line may hold are told apart by length, the per-GPU ones by the
 * subsection they belong to, so a line that matches nothing costs a few
 * compares instead of a walk down every key. Forced inline into its one
 * caller: as a call, saving and restoring registers cost a third of a
 * line that matches nothing. */
static inline __attribute__((always_inline)) int q_value(struct report_section *sec,
                                                         const char *k, size_t kl,
                                                         const char *v, size_t vl)
{
    struct report_gpu *g = &sec->u.gpu;
    struct report_gpu_info *gi = cur(g);
    double d;
    size_t end;
    /* The keys any GPU's block may hold, by length: most keys are none
     * of them, and one jump says so. */
    switch (kl) {
    case 9:
        if (span_eq(k, kl, "Timestamp"))
            return 1;
        break;
    case 12:
        if (span_eq(k, kl, "CUDA Version")) {
            span_copy(g->cuda, sizeof(g->cuda), v, vl);
            return 1;
        }
        if (gi && span_eq(k, kl, "Product Name")) {
            span_copy(gi->name, sizeof(gi->name), v, vl);
            return 1;
        }
        break;
    case 13:
        if (span_eq(k, kl, "Attached GPUs")) {
            g->gpu_count = int_of(v, vl);
            return 1;
        }
        break;
    case 14:
        if (span_eq(k, kl, "Driver Version")) {
            span_copy(g->driver, sizeof(g->driver), v, vl);
            return 1;
        }
        break;
    case 17:
        if (gi && span_eq(k, kl, "Performance State")) {
            span_copy(gi->perf_state, sizeof(gi->perf_state), v, vl);
            return 1;
        }
        break;
    case 19:
        if (gi && span_eq(k, kl, "Replays Since Reset")) {
            if (num_parse(v, vl, &d))
                gi->replays = d;
            return 1;
        }
        break;
    default:
        break;
    }
    if (!gi)
        return 0;
    switch (g->sub) {
    case GS_PCIE_GEN:
        if (span_eq(k, kl, "Max"))
            gi->pcie_gen_max = int_of(v, vl);
        else if (span_eq(k, kl, "Current"))
            gi->pcie_gen_current = int_of(v, vl);
        else
            return 0;
        return 1;
    case GS_WIDTH:
        if (span_eq(k, kl, "Max"))
            gi->pcie_width_max = int_of(v, vl);
        else if (span_eq(k, kl, "Current"))
            gi->pcie_width_current = int_of(v, vl);
        else
            return 0;
        return 1;
    case GS_ECC: {
        int agg = g->ecc_scope == 2 || g->ecc_scope == 12 || g->ecc_scope == 22;
        int counts = 0;
        if (span_find(k, kl, "Uncorrectable") && !span_find(k, kl, "Sources"))
            counts = 1;
        /* the oldest layout: "Double Bit" then "Total : N" */
        if ((g->ecc_scope == 21 || g->ecc_scope == 22) && span_eq(k, kl, "Total"))
            counts = 1;
        if (counts && num_parse(v, vl, &d))
            ecc_add(agg ? &g->ecc_agg : &g->ecc_vol, d);
        return 1;
    }
    case GS_REMAP:
        if (span_eq(k, kl, "Pending"))
            gi->remap_pending = yes_no(v, vl);
        else if (span_eq(k, kl, "Remapping Failure Occurred"))
            gi->remap_failure = yes_no(v, vl);
        else
            return 0;
        return 1;
    case GS_RETIRED:
        if (span_starts(k, kl, "Pending Page")) {
            int y = yes_no(v, vl);
            if (y >= 0 && gi->remap_pending != 1)
                gi->remap_pending = y;
            return 1;
        }
        return 0;
    case GS_FB:
        if (span_eq(k, kl, "Total")) {
            if (int_of(v, vl) >= 0)
                gi->memory_total_mib = int_of(v, vl);
            return 1;
        }
        return 0;
    case GS_POWER:
        /* Driver 580 prints the average first, then the instantaneous draw,
         * which stands in only when the average is N/A. */
        if (span_eq(k, kl, "Power Draw") || span_eq(k, kl, "Average Power Draw")) {
            if (num_scan(v, vl, &d, &end))
                gi->power_w = d;
            return 1;
        }
        if (span_eq(k, kl, "Instantaneous Power Draw")) {
            if (num_scan(v, vl, &d, &end) && isnan(gi->power_w))
                gi->power_w = d;
            return 1;
        }
        /* Older drivers print "Power Limit" (the one set) and, after it,
         * "Enforced Power Limit" (the one applied), which wins; driver 580's
         * "Current Power Limit" is the applied one. */
        if (span_eq(k, kl, "Current Power Limit") || span_eq(k, kl, "Power Limit") ||
            span_eq(k, kl, "Enforced Power Limit")) {
            if (num_scan(v, vl, &d, &end))
                gi->power_cap_w = d;
            return 1;
        }
        if (span_eq(k, kl, "Default Power Limit")) {
            if (num_scan(v, vl, &d, &end))
                gi->power_cap_default_w = d;
            return 1;
        }
        return 0;
    case GS_CLOCKS:
    case GS_MAX_CLOCKS:
        if (kl == 2 && k[0] == 'S' && k[1] == 'M') {
            if (num_scan(v, vl, &d, &end)) {
                if (g->sub == GS_CLOCKS)
                    gi->sm_clock_mhz = d;
                else
                    gi->sm_clock_max_mhz = d;
            }
            return 1;
        }
        return 0;
    case GS_REASONS: {
        int r = q_reason(k, kl);
        if (r < 0)
            return 0;
        reason_set(gi, r, active_of(v, vl));
        return 1;
    }
    case GS_TEMP:
        if (span_eq(k, kl, "GPU Current Temp")) {
            if (num_scan(v, vl, &d, &end))
                gi->temp_c = d;
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

/* "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |     0 |" */
static int table_row(struct report_section *sec, const struct line *l)
{
    struct report_gpu *g = &sec->u.gpu;
    struct tok cell[8];
    int nc = 0;
    size_t b = 1;
    /* A cell ends at the next '|' or at the line's end: one memchr a cell
     * instead of a test a byte (rows are ~90 bytes of mostly padding). */
    while (nc < 8) {
        const char *bar = b < l->len ? memchr(l->s + b, '|', l->len - b) : NULL;
        size_t i = bar ? (size_t)(bar - l->s) : l->len;
        const char *f = l->s + b;
        size_t fl = i - b;
        span_trim(&f, &fl);
        cell[nc].s = f;
        cell[nc].len = fl;
        nc++;
        if (!bar)
            break;
        b = i + 1;
    }
    if (nc < 1)
        return 0;
    struct tok t[TOK_MAX];
    int n = tok_split(cell[0].s, cell[0].len, t, TOK_MAX);
    double idx;
    if (n >= 3 && num_parse(t[0].s, t[0].len, &idx) && idx >= 0 && idx < 1e4 &&
        (tok_eq(&t[n - 1], "On") || tok_eq(&t[n - 1], "Off"))) {
        struct report_gpu_info *gi = new_gpu(g);
        if (gi) {
            const char *ns = t[1].s;
            size_t nl = (size_t)(t[n - 2].s + t[n - 2].len - ns);
            span_copy(gi->name, sizeof(gi->name), ns, nl);
            if (nc >= 2) {
                struct tok b2[2];
                if (tok_split(cell[1].s, cell[1].len, b2, 2) >= 1)
                    span_copy(gi->bus_id, sizeof(gi->bus_id), b2[0].s, b2[0].len);
            }
            double e;
            if (nc >= 3 && num_parse(cell[2].s, cell[2].len, &e))
                gi->ecc_uncorrectable = e;
        }
        g->table_row_pending = 1;
        return 1;
    }
    /* The second line of a GPU: fan, temperature, perf, power, memory. */
    if (g->table_row_pending && n >= 3) {
        struct report_gpu_info *gi = cur(g);
        g->table_row_pending = 0;
        if (gi) {
            for (int i = 0; i < n; i++) {
                double d;
                size_t tl = t[i].len;
                if (tl >= 2 && t[i].s[tl - 1] == 'C' && num_parse(t[i].s, tl - 1, &d))
                    gi->temp_c = d;
                else if (tl >= 2 && t[i].s[0] == 'P' && num_parse(t[i].s + 1, tl - 1, &d))
                    span_copy(gi->perf_state, sizeof(gi->perf_state), t[i].s, tl);
                else if (tl >= 2 && t[i].s[tl - 1] == 'W' && num_parse(t[i].s, tl - 1, &d)) {
                    if (isnan(gi->power_w))
                        gi->power_w = d;
                    else
                        gi->power_cap_w = d;
                }
            }
            if (nc >= 2) {
                struct tok m[4];
                int mn = tok_split(cell[1].s, cell[1].len, m, 4);
                if (mn >= 3 && m[2].len > 3) {
                    double d;
                    if (num_parse(m[2].s, m[2].len - 3, &d))
                        gi->memory_total_mib = d;
                }
            }
        }
        return 1;
    }
    return 0;
}

/* The --query-gpu columns a fact is read from, in the order of csv_row's
 * actions; any other column is only kept as text. */
static const struct name csv_facts[] = {
    NAME("name"), NAME("gpu_name"), NAME("pci.bus_id"), NAME("gpu_bus_id"),
    NAME("pcie.link.gen.max"), NAME("pcie.link.gen.current"), NAME("pcie.link.width.max"),
    NAME("pcie.link.width.current"), NAME("ecc.errors.uncorrected.aggregate.total"),
    NAME("ecc.errors.uncorrected.volatile.total"), NAME("remapped_rows.pending"),
    NAME("remapped_rows.failure"), NAME("temperature.gpu"), NAME("memory.total"),
    NAME("power.draw"), NAME("pstate"), NAME("clocks.sm"), NAME("clocks.current.sm"),
    NAME("clocks.max.sm"), NAME("power.limit"), NAME("enforced.power.limit"),
    NAME("power.default_limit"), NAME("power.draw.average"), NAME("power.draw.instant"),
    {NULL, 0}
};

/* csv_fact codes past csv_facts: a reason's state column, the bit mask. */
#define CSV_REASON 64
#define CSV_REASON_MASK (CSV_REASON + CLK_REASON_COUNT)

/* Which action a header field (unit cut off) feeds: a csv_facts index, a
 * reason column (clocks_event_reasons.X, or clocks_throttle_reasons.X of
 * older drivers; ".active" is NVML's bit mask), or -1. Decided once per
 * header, not per cell: the field is whole here, while csv_names keeps 39
 * bytes of it. */
static int csv_fact_of(const char *s, size_t n)
{
    int i = name_index(s, n, csv_facts);
    if (i >= 0)
        return i;
    size_t p = span_starts(s, n, "clocks_event_reasons.") ? 21
               : span_starts(s, n, "clocks_throttle_reasons.") ? 24 : 0;
    if (!p)
        return -1;
    if (span_eq(s + p, n - p, "active"))
        return CSV_REASON_MASK;
    i = name_index(s + p, n - p, clock_reasons);
    return i >= 0 ? CSV_REASON + i : -1;
}

/* "0x0000000000000004" -> 4; 0 when the cell is no hex number. */
static int hex_of(const char *v, size_t vl, unsigned long long *out)
{
    if (vl < 3 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X') || vl > 18)
        return 0;
    unsigned long long x = 0;
    for (size_t i = 2; i < vl; i++) {
        char c = v[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return 0;
        x = x * 16 + (unsigned)d;
    }
    *out = x;
    return 1;
}

/* One --query-gpu row, already split at its commas (f, n) by the caller. */
static void csv_row(struct report_section *sec, const struct tok *f, int n)
{
    struct report_gpu *g = &sec->u.gpu;
    struct report_gpu_info *gi = new_gpu(g);
    if (!gi)
        return;
    int row = g->info_count - 1;
    for (int i = 0; i < n && i < g->csv_cols; i++) {
        const char *v = f[i].s;
        size_t vl = f[i].len;
        span_copy(g->csv_values[row][i], sizeof(g->csv_values[row][i]), v, vl);
        double d;
        size_t end;
        unsigned long long mask;
        int fact = g->csv_fact[i];
        if (fact >= CSV_REASON) {
            if (fact < CSV_REASON_MASK)
                reason_set(gi, fact - CSV_REASON, active_of(v, vl));
            else if (hex_of(v, vl, &mask)) {
                gi->clock_reasons_shown = (1u << CLK_REASON_COUNT) - 1;
                gi->clock_reasons_active = (unsigned)(mask & ((1u << CLK_REASON_COUNT) - 1));
            }
            continue;
        }
        switch (fact) {
        case 0: case 1:
            span_copy(gi->name, sizeof(gi->name), v, vl);
            break;
        case 2: case 3:
            span_copy(gi->bus_id, sizeof(gi->bus_id), v, vl);
            break;
        case 4: gi->pcie_gen_max = int_of(v, vl); break;
        case 5: gi->pcie_gen_current = int_of(v, vl); break;
        case 6: gi->pcie_width_max = int_of(v, vl); break;
        case 7: gi->pcie_width_current = int_of(v, vl); break;
        case 8:     /* aggregate: taken over a volatile column read before */
            if (num_parse(v, vl, &d))
                gi->ecc_uncorrectable = d;
            break;
        case 9:
            if (num_parse(v, vl, &d) && isnan(gi->ecc_uncorrectable))
                gi->ecc_uncorrectable = d;
            break;
        case 10: gi->remap_pending = yes_no(v, vl); break;
        case 11: gi->remap_failure = yes_no(v, vl); break;
        case 12:
            if (num_scan(v, vl, &d, &end))
                gi->temp_c = d;
            break;
        case 13:
            if (num_scan(v, vl, &d, &end))
                gi->memory_total_mib = d;
            break;
        case 14:
        case 22:    /* power.draw.average: what power.draw shows */
            if (num_scan(v, vl, &d, &end))
                gi->power_w = d;
            break;
        case 15:
            span_copy(gi->perf_state, sizeof(gi->perf_state), v, vl);
            break;
        case 16: case 17:
            if (num_scan(v, vl, &d, &end))
                gi->sm_clock_mhz = d;
            break;
        case 18:
            if (num_scan(v, vl, &d, &end))
                gi->sm_clock_max_mhz = d;
            break;
        case 19:    /* power.limit: the enforced limit, where shown, wins */
            if (num_scan(v, vl, &d, &end) && isnan(gi->power_cap_w))
                gi->power_cap_w = d;
            break;
        case 20:
            if (num_scan(v, vl, &d, &end))
                gi->power_cap_w = d;
            break;
        case 21:
            if (num_scan(v, vl, &d, &end))
                gi->power_cap_default_w = d;
            break;
        case 23:    /* power.draw.instant: only where no average is shown */
            if (num_scan(v, vl, &d, &end) && isnan(gi->power_w))
                gi->power_w = d;
            break;
        default:
            break;
        }
    }
    if (n < g->csv_cols)
        section_issue(sec, "a CSV row has fewer fields than the header");
}

/* Whether s holds a table or prompt byte ('|', '=', '#', '$'), which no
 * -q heading does: sixteen bytes a step (the last step a window ending at
 * the end), or one table load a byte for a line shorter than that. */
static int stop_byte(const char *s, size_t n)
{
    static const unsigned char stop[256] = {['|'] = 1, ['='] = 1, ['#'] = 1, ['$'] = 1};
    if (n < 16) {
        for (size_t i = 0; i < n; i++)
            if (stop[(unsigned char)s[i]])
                return 1;
        return 0;
    }
#if defined(__SSE2__)
    for (size_t i = 0;; i += 16) {
        if (i + 16 > n)
            i = n - 16;
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('|')),
                                              _mm_cmpeq_epi8(x, _mm_set1_epi8('='))),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('#')),
                                              _mm_cmpeq_epi8(x, _mm_set1_epi8('$'))));
        if (_mm_movemask_epi8(m))
            return 1;
        if (i + 16 >= n)
            return 0;
    }
#else
    for (size_t i = 0; i < n; i++)
        if (stop[(unsigned char)s[i]])
            return 1;
    return 0;
#endif
}

enum take gpu_line(struct report_section *sec, const struct line *l)
{
    struct report_gpu *g = &sec->u.gpu;
    if (l->raw_len == 0)
        return TAKE_YES;
    /* "NVSMI LOG", "nvidia-smi" and "NVIDIA-SMI" all hold "sm" in some
     * case: one pass rules out all three on most lines. */
    int smi = span_has_pair_ci(l->raw, l->raw_len, 's', 'm');
    if (smi && line_find_a(l, "NVSMI LOG", 6)) {
        if (g->info_count > 0 || g->gpu_count >= 0)
            return TAKE_END;
        text_set(sec->tool, sizeof(sec->tool), "nvidia-smi -q");
        return TAKE_YES;
    }
    if (smi && line_find_raw_a(l, "nvidia-smi", 6) && !line_find_raw(l, "NVIDIA-SMI")) {
        if (g->info_count > 0 || g->gpu_count >= 0 || g->csv_cols)
            return TAKE_END;
        if (line_find_raw(l, "--query-gpu"))
            text_set(sec->tool, sizeof(sec->tool), "nvidia-smi --query-gpu");
        else if (line_find_raw(l, " -q"))
            text_set(sec->tool, sizeof(sec->tool), "nvidia-smi -q");
        return TAKE_YES;
    }
    /* A header after rows is the next output's (two nodes' CSV pasted one
     * after the other): read as a row it would count as a GPU. */
    if (csv_header(l)) {
        if (g->info_count > 0)
            return TAKE_END;
        struct tok f[GPU_CSV_COLS];
        int n = csv_split(l->s, l->len, f, GPU_CSV_COLS);
        for (int i = 0; i < n; i++) {
            size_t fl = f[i].len;
            const char *br = memchr(f[i].s, '[', fl);
            if (br)
                fl = (size_t)(br - f[i].s);
            while (fl && f[i].s[fl - 1] == ' ')
                fl--;
            span_copy(g->csv_names[i], sizeof(g->csv_names[i]), f[i].s, fl);
            g->csv_fact[i] = (signed char)csv_fact_of(f[i].s, fl);
        }
        g->csv_cols = n;
        text_set(sec->tool, sizeof(sec->tool), "nvidia-smi --query-gpu");
        return TAKE_YES;
    }
    if (g->csv_cols) {
        struct tok f[GPU_CSV_COLS];
        int n = csv_split(l->s, l->len, f, GPU_CSV_COLS);
        /* A row has the header's field count (fewer when cut); a one-column
         * query's row is one token with no "key:" shape. */
        int single_ok = g->csv_cols == 1 && n == 1 && !memchr(l->s, ':', l->len) &&
                        !memchr(l->s, ' ', l->len);
        if ((g->csv_cols > 1 && n > 1 && n <= g->csv_cols) || single_ok) {
            csv_row(sec, f, n);
            return TAKE_YES;
        }
        return TAKE_NO;
    }
    if (l->s[0] == '|' || l->s[0] == '+') {
        if (smi && line_find(l, "NVIDIA-SMI")) {
            /* The banner of another table after this one's rows: the next
             * node's output (two tables pasted one after the other), whose
             * GPUs are its own, not more of this node's. */
            if (g->info_count > 0 || g->info_dropped > 0 || g->csv_cols)
                return TAKE_END;
            const char *d = line_find(l, "Driver Version:");
            const char *c = line_find(l, "CUDA Version:");
            struct tok t[1];
            if (d && tok_split(d + 15, l->len - (size_t)(d + 15 - l->s), t, 1) == 1)
                span_copy(g->driver, sizeof(g->driver), t[0].s, t[0].len);
            if (c && tok_split(c + 13, l->len - (size_t)(c + 13 - l->s), t, 1) == 1 &&
                t[0].s[0] != '|')
                span_copy(g->cuda, sizeof(g->cuda), t[0].s, t[0].len);
            text_set(sec->tool, sizeof(sec->tool), "nvidia-smi");
            return TAKE_YES;
        }
        if (line_find(l, "Processes:"))
            g->sub = GS_OTHER + 1;     /* the process table follows */
        if (g->sub != GS_OTHER + 1 && l->s[0] == '|' && table_row(sec, l))
            return TAKE_YES;
        return TAKE_WEAK;
    }
    const char *colon = memchr(l->s, ':', l->len);
    if (colon && span_starts(l->s, l->len, "GPU ") && !line_find(l, " : ")) {
        struct report_gpu_info *gi = new_gpu(g);
        if (gi)
            span_copy(gi->bus_id, sizeof(gi->bus_id), l->s + 4, l->len - 4);
        return TAKE_YES;
    }
    if (colon) {
        /* -q aligns its colons after padding: "Key      : value"; only
         * those lines are split and trimmed (one search for the colon). */
        if (colon > l->s && (colon[-1] == ' ' || colon[-1] == '\t')) {
            const char *k = l->s, *v = colon + 1;
            size_t kl = (size_t)(colon - l->s), vl = l->len - kl - 1;
            span_trim_nz(&k, &kl);
            span_trim_nz(&v, &vl);
            return q_value(sec, k, kl, v, vl) || (kl > 0 && k[0] != '"') ? TAKE_YES : TAKE_WEAK;
        }
        return TAKE_NO;
    }
    /* A -q heading: a few words with no value. */
    if (l->len <= 48 && str_is(sec->tool, "nvidia-smi -q")) {
        if (stop_byte(l->s, l->len))
            return TAKE_NO;
        heading(g, l->s, l->len);
        return TAKE_WEAK;
    }
    return TAKE_NO;
}

void gpu_finish(struct report_section *sec)
{
    struct report_gpu *g = &sec->u.gpu;
    close_ecc(g);
    int table = g->gpu_count < 0;
    if (table && (g->info_count > 0 || g->csv_cols))
        g->gpu_count = g->info_count + g->info_dropped;
    double ecc = NAN;
    int remap = -1;
    for (int i = 0; i < g->info_count; i++) {
        const struct report_gpu_info *gi = &g->info[i];
        if (gi->pcie_gen_max >= 0 && (g->pcie_gen_max < 0 || gi->pcie_gen_max < g->pcie_gen_max))
            g->pcie_gen_max = gi->pcie_gen_max;
        if (gi->pcie_width_max >= 0 &&
            (g->pcie_width_max < 0 || gi->pcie_width_max < g->pcie_width_max))
            g->pcie_width_max = gi->pcie_width_max;
        if (gi->pcie_width_current >= 0 && (g->pcie_width_min_current < 0 ||
                                            gi->pcie_width_current < g->pcie_width_min_current))
            g->pcie_width_min_current = gi->pcie_width_current;
        if (!isnan(gi->ecc_uncorrectable))
            ecc = isnan(ecc) ? gi->ecc_uncorrectable : ecc + gi->ecc_uncorrectable;
        if (gi->remap_pending >= 0)
            remap = (remap < 0 ? 0 : remap) + gi->remap_pending;
    }
    g->ecc_uncorrectable = ecc;
    g->remap_pending = remap;
    if (g->gpu_count > g->info_count && g->info_count > 0) {
        char msg[REPORT_ISSUE_LEN];
        snprintf(msg, sizeof(msg), "%d GPUs attached, %d shown (output cut)", g->gpu_count,
                 g->info_count);
        section_issue(sec, msg);
    }
}
