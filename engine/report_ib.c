/* report_ib.c: RDMA port state from `ibstat`, `ibstatus` and `ibv_devinfo`.
 *
 * The three tools say the same things in three spellings ("State: Active",
 * "state: 4: ACTIVE", "state: PORT_ACTIVE (4)"); each key is matched case-
 * insensitively after the indentation is gone, and values are normalised to
 * one vocabulary. Indentation is never relied on: pasted issues often lose
 * it. A port is a "Port N:" / "port: N" / "... port N status:" stanza; ports a
 * device declares but that the output does not show are counted apart so a
 * cut listing is never read as a healthy one. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

enum ib_fmt { IBF_NONE = 0, IBF_IBSTAT, IBF_IBSTATUS, IBF_DEVINFO };

/* Forced inline: asked of every line of these tools, and as a call its
 * overhead was most of its cost; the first byte picks the one banner a
 * line can open with. */
static inline __attribute__((always_inline)) int fmt_of_line(const struct line *l)
{
    switch (l->len ? l->s[0] : '\0') {
    case 'C':
        return span_starts(l->s, l->len, "CA '") ? IBF_IBSTAT : IBF_NONE;
    case 'I':
        return span_starts(l->s, l->len, "Infiniband device '") ? IBF_IBSTATUS : IBF_NONE;
    case 'h':
        return span_starts(l->s, l->len, "hca_id:") ? IBF_DEVINFO : IBF_NONE;
    default:
        return IBF_NONE;
    }
}

/* Whether s holds "ibs" or "ibv", as every tool name command_in accepts
 * does: "ib" alone is in every "Infiniband" of ibstatus and "lib" of a
 * library path, lines not worth splitting into tokens. */
static int ib_tool_bytes(const char *s, size_t n)
{
    const char *e = s + n;
    const char *b = s;
    while (b + 1 < e && (b = memchr(b + 1, 'b', (size_t)(e - b - 1))) != NULL) {
        if (b[-1] == 'i' && b + 1 < e && (b[1] == 's' || b[1] == 'v'))
            return 1;
    }
    return 0;
}

static int command_in(const struct line *l)
{
    if (!ib_tool_bytes(l->raw, l->raw_len))
        return IBF_NONE;
    struct tok t[8];
    int n = tok_split(l->raw, l->raw_len, t, 8);
    if (n == 0 || n > 6)
        return IBF_NONE;
    for (int i = 0; i < n; i++) {
        /* the tool name, possibly after a prompt such as "~$" or "root@x:/#" */
        const struct tok *k = &t[i];
        size_t len = k->len;
        const char *s = k->s;
        const char *slash = NULL;
        for (size_t j = 0; j < len; j++)
            if (s[j] == '/' || s[j] == '$' || s[j] == '#')
                slash = s + j;
        if (slash) {
            len -= (size_t)(slash + 1 - s);
            s = slash + 1;
        }
        if (span_eq(s, len, "ibstat"))
            return IBF_IBSTAT;
        if (span_eq(s, len, "ibstatus"))
            return IBF_IBSTATUS;
        if (span_eq(s, len, "ibv_devinfo"))
            return IBF_DEVINFO;
    }
    return IBF_NONE;
}

/* Asked of every line of these tools, and most hold no "ib": that test
 * inline, the tokenizing out of line. */
static inline int command_of(const struct line *l)
{
    if (l->raw_len > 200 || !line_find_raw_a(l, "ib", 1))
        return IBF_NONE;
    return command_in(l);
}

int ib_detect(const struct line *l)
{
    if (fmt_of_line(l) != IBF_NONE || command_of(l) != IBF_NONE)
        return DETECT_STRONG;
    if (span_starts(l->s, l->len, "ibpanic:") || span_starts(l->s, l->len, "ibwarn:"))
        return DETECT_WEAK;
    return 0;
}

void ib_init(struct report_section *sec)
{
    struct report_ib_ports *ib = &sec->u.ib;
    /* All but the ports, read only below port_count; new_port clears
     * each one it adds. */
    memset(ib, 0, offsetof(struct report_ib_ports, ports));
    memset(ib->cur_ca, 0, sizeof(*ib) - offsetof(struct report_ib_ports, cur_ca));
    ib->ports_bad_lid = -1;
    ib->ports_declared = -1;
    text_set(sec->tool, sizeof(sec->tool), "ibstat");
}

static const char *fmt_name(int f)
{
    return f == IBF_IBSTATUS ? "ibstatus" : f == IBF_DEVINFO ? "ibv_devinfo" : "ibstat";
}

/* The format the section's tool prints, read off its name: asked only
 * where a line's meaning depends on it, not of every line. */
static int cur_fmt(const struct report_section *sec)
{
    return str_is(sec->tool, "ibstatus") ? IBF_IBSTATUS :
           str_is(sec->tool, "ibv_devinfo") ? IBF_DEVINFO : IBF_IBSTAT;
}

static struct report_ib_port *new_port(struct report_ib_ports *ib, int num)
{
    if (ib->port_count >= IB_PORTS_MAX) {
        ib->ports_dropped++;
        return NULL;
    }
    struct report_ib_port *p = &ib->ports[ib->port_count++];
    memset(p, 0, sizeof(*p));
    text_set(p->ca, sizeof(p->ca), ib->cur_ca);
    text_set(p->fw, sizeof(p->fw), ib->cur_fw);
    p->port = num;
    p->rate_gbps = p->base_lid = p->sm_lid = p->active_mtu = NAN;
    ib->width_x = NAN;
    return p;
}

static struct report_ib_port *cur_port(struct report_ib_ports *ib)
{
    return ib->port_count > 0 ? &ib->ports[ib->port_count - 1] : NULL;
}

/* Whether s holds lit ignoring ASCII case. Inline with the literal's
 * length: values are asked for a handful of words each. A byte matches a
 * letter of lit when the two are equal with 0x20 set in both (that is,
 * equal ignoring case), any other byte when equal. */
static inline __attribute__((always_inline)) int has_ci_n(const char *s, size_t n,
                                                          const char *lit, size_t m)
{
    for (size_t i = 0; i + m <= n; i++) {
        size_t j = 0;
        for (; j < m; j++) {
            char w = lit[j], c = s[i + j];
            if ((w >= 'a' && w <= 'z') || (w >= 'A' && w <= 'Z')) {
                w = (char)(w | 0x20);
                c = (char)(c | 0x20);
            }
            if (c != w)
                break;
        }
        if (j == m)
            return 1;
    }
    return 0;
}
#define has_ci(s, n, lit) has_ci_n((s), (n), LIT_N(lit))

static void norm_state(char *dst, size_t dl, const char *v, size_t vl)
{
    const char *s = NULL;
    if (has_ci(v, vl, "ACTIVE"))
        s = "Active";
    else if (has_ci(v, vl, "DOWN"))
        s = "Down";
    else if (has_ci(v, vl, "INIT"))
        s = "Initializing";
    else if (has_ci(v, vl, "ARMED"))
        s = "Armed";
    if (s)
        text_set(dst, dl, s);
    else
        span_copy(dst, dl, v, vl);
}

static void norm_phys(char *dst, size_t dl, const char *v, size_t vl)
{
    const char *s = NULL;
    if (has_ci(v, vl, "LinkUp") || has_ci(v, vl, "LINK_UP"))
        s = "LinkUp";
    else if (has_ci(v, vl, "Disabled"))
        s = "Disabled";
    else if (has_ci(v, vl, "Polling"))
        s = "Polling";
    else if (has_ci(v, vl, "Sleep"))
        s = "Sleep";
    else if (has_ci(v, vl, "LinkErrorRecovery") || has_ci(v, vl, "LINK_ERROR"))
        s = "LinkErrorRecovery";
    if (s)
        text_set(dst, dl, s);
    else
        span_copy(dst, dl, v, vl);
}

/* Whether key k equals lit (lower case, as long as k: the caller's switch
 * on the length said so) ignoring ASCII case. Forced inline: with the
 * literal's length a constant the compare unrolls, where span_starts_ci
 * left out of line measured each literal per call. */
static inline __attribute__((always_inline)) int key_ci(const char *k, const char *lit, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* for a lower-case letter w, c folds to it exactly when c | 0x20
         * is w (c is w or its upper case); other bytes must be equal */
        char c = k[i], w = lit[i];
        if (w >= 'a' && w <= 'z')
            c = (char)(c | 0x20);
        if (c != w)
            return 0;
    }
    return 1;
}
#define key_is_ci(k, lit) key_ci((k), LIT_N(lit))

/* Numbers here may be hex ("0x0" in ibstatus) or decimal. */
static int lid_value(const char *v, size_t vl, double *out)
{
    if (vl > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
        double d = 0;
        size_t i;
        for (i = 2; i < vl && i < 12; i++) {
            char c = v[i];
            int x = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 :
                    (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
            if (x < 0)
                break;
            d = d * 16 + x;
        }
        if (i == 2)
            return 0;
        *out = d;
        return 1;
    }
    struct tok t[1];
    if (tok_split(v, vl, t, 1) == 1 && num_parse(t[0].s, t[0].len, out))
        return 1;
    return 0;
}

static void quoted_name(const struct line *l, char *dst, size_t dl)
{
    const char *q = memchr(l->s, '\'', l->len);
    if (!q)
        return;
    q++;
    size_t rest = l->len - (size_t)(q - l->s);
    const char *e = memchr(q, '\'', rest);
    span_copy(dst, dl, q, e ? (size_t)(e - q) : rest);
}

enum take ib_line(struct report_section *sec, const struct line *l)
{
    struct report_ib_ports *ib = &sec->u.ib;
    if (l->raw_len == 0)
        return TAKE_YES;
    int fmt = fmt_of_line(l);
    int cmd = command_of(l);
    int started = ib->port_count > 0 || ib->cur_ca[0];
    if (cmd != IBF_NONE) {
        if ((started && cmd != cur_fmt(sec)) || ib->port_count > 0)
            return TAKE_END;
        text_set(sec->tool, sizeof(sec->tool), fmt_name(cmd));
        return TAKE_YES;
    }
    if (fmt != IBF_NONE) {
        if (started && fmt != cur_fmt(sec))
            return TAKE_END;
        text_set(sec->tool, sizeof(sec->tool), fmt_name(fmt));
        if (fmt == IBF_IBSTATUS) {
            char ca[24] = "";
            quoted_name(l, ca, sizeof(ca));
            text_set(ib->cur_ca, sizeof(ib->cur_ca), ca);
            ib->cur_fw[0] = '\0';
            const char *pp = line_find(l, "' port ");
            double num = -1;
            size_t end;
            if (pp)
                num_scan(pp + 7, l->len - (size_t)(pp + 7 - l->s), &num, &end);
            new_port(ib, num >= 0 && num < 1e4 ? (int)num : -1);
        } else if (fmt == IBF_IBSTAT) {
            quoted_name(l, ib->cur_ca, sizeof(ib->cur_ca));
            ib->cur_fw[0] = '\0';
        } else {
            const char *v = l->s + 7;
            size_t vl = l->len - 7;
            span_trim(&v, &vl);
            span_copy(ib->cur_ca, sizeof(ib->cur_ca), v, vl);
            ib->cur_fw[0] = '\0';
        }
        return TAKE_YES;
    }
    /* (the next three lines open with 'i' or '.'; most lines neither) */
    char c0 = l->s[0];
    if (c0 == 'i' && span_starts(l->s, l->len, "ibpanic:")) {
        char msg[REPORT_ISSUE_LEN];
        char dev[24] = "?";
        quoted_name(l, dev, sizeof(dev));
        snprintf(msg, sizeof(msg), "ibstat could not read device '%s' (ibpanic)", dev);
        section_issue(sec, msg);
        ib->panics++;
        return TAKE_YES;
    }
    if (c0 == 'i' && span_starts(l->s, l->len, "ibwarn:"))
        return TAKE_YES;
    if (c0 == '.' && span_eq(l->s, l->len, "..."))
        return TAKE_WEAK;

    const char *k, *v;
    size_t kl, vl;
    /* kv_split_nz: an empty key or value is only read through its length */
    if (!kv_split_nz(l->s, l->len, &k, &kl, &v, &vl)) {
        /* ibv_devinfo -v lists capability flags one per line. */
        if (cur_fmt(sec) == IBF_DEVINFO && ib->cur_ca[0] && l->len < 48) {
            for (size_t i = 0; i < l->len; i++) {
                char c = l->s[i];
                if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
                    return TAKE_NO;
            }
            return TAKE_WEAK;
        }
        return TAKE_NO;
    }
    if (!ib->cur_ca[0] && ib->port_count == 0)
        return TAKE_NO;
    /* A value elided by the poster ("CA type: ...") is not a value. */
    if (span_eq(v, vl, "..."))
        vl = 0;
    struct report_ib_port *p = cur_port(ib);
    double d;
    size_t end;
    /* "Port 1:" (ibstat) and "port: 1" (ibv_devinfo) open a port. */
    double num = -1;
    if (kl > 5 && span_starts(k, kl, "Port ") && vl == 0 && num_parse(k + 5, kl - 5, &num)) {
        new_port(ib, num >= 0 && num < 1e4 ? (int)num : -1);
        return TAKE_YES;
    }
    /* The keys told apart by length first: every line of these tools is
     * asked, and a walk down every key cost more than reading the value.
     * No two keys of one length can both match (the port keys only with a
     * port open), so the order inside a length is free. Besides the keys
     * read, each length lists the keys known to carry nothing we keep
     * (ibstat's GUIDs, LMC, masks): they still belong to the section. */
    switch (kl) {
    case 3:
        if (span_eq(k, kl, "LMC"))
            return TAKE_YES;
        break;
    case 4:
        if (span_eq(k, kl, "port")) {
            if (num_parse(v, vl, &num) && num >= 0 && num < 1e4)
                new_port(ib, (int)num);
            else
                new_port(ib, -1);
            return TAKE_YES;
        }
        if (p && key_is_ci(k, "rate")) {
            if (num_scan(v, vl, &d, &end))
                p->rate_gbps = d;
            return TAKE_YES;
        }
        break;
    case 5:
        if (p && key_is_ci(k, "state")) {
            norm_state(p->state, sizeof(p->state), v, vl);
            return TAKE_YES;
        }
        break;
    case 6:
        if (span_eq(k, kl, "fw_ver")) {
            span_copy(ib->cur_fw, sizeof(ib->cur_fw), v, vl);
            return TAKE_YES;
        }
        if (p && (key_is_ci(k, "sm lid") || span_eq(k, kl, "sm_lid"))) {
            if (lid_value(v, vl, &d))
                p->sm_lid = d;
            return TAKE_YES;
        }
        break;
    case 7:
        if (span_eq(k, kl, "CA type"))
            return TAKE_YES;
        break;
    case 8:
        if (p && (key_is_ci(k, "base lid") || span_eq(k, kl, "port_lid"))) {
            if (lid_value(v, vl, &d))
                p->base_lid = d;
            return TAKE_YES;
        }
        break;
    case 9:
        if (span_eq(k, kl, "Node GUID") || span_eq(k, kl, "Port GUID"))
            return TAKE_YES;
        break;
    case 10:
        if (!p)
            break;
        if (key_is_ci(k, "phys state") || span_eq(k, kl, "phys_state")) {
            norm_phys(p->phys_state, sizeof(p->phys_state), v, vl);
            return TAKE_YES;
        }
        if (key_is_ci(k, "link layer") || span_eq(k, kl, "link_layer")) {
            if (has_ci(v, vl, "infiniband"))
                text_set(p->link_layer, sizeof(p->link_layer), "InfiniBand");
            else if (has_ci(v, vl, "ethernet"))
                text_set(p->link_layer, sizeof(p->link_layer), "Ethernet");
            else
                span_copy(p->link_layer, sizeof(p->link_layer), v, vl);
            return TAKE_YES;
        }
        if (span_eq(k, kl, "active_mtu")) {
            if (num_scan(v, vl, &d, &end))
                p->active_mtu = d;
            return TAKE_YES;
        }
        break;
    case 11:
        if (span_eq(k, kl, "default gid"))
            return TAKE_YES;
        break;
    case 12:
        if (!p)
            break;
        /* ibv_devinfo -v: rate = lanes x per-lane speed. */
        if (span_eq(k, kl, "active_width")) {
            if (num_scan(v, vl, &d, &end))
                ib->width_x = d;
            return TAKE_YES;
        }
        if (span_eq(k, kl, "active_speed")) {
            if (num_scan(v, vl, &d, &end) && !isnan(ib->width_x) && isnan(p->rate_gbps))
                p->rate_gbps = d * ib->width_x;
            return TAKE_YES;
        }
        break;
    case 13:
        if (span_eq(k, kl, "phys_port_cnt"))
            goto ports;
        break;
    case 14:
        if (p && key_is_ci(k, "physical state")) {
            norm_phys(p->phys_state, sizeof(p->phys_state), v, vl);
            return TAKE_YES;
        }
        break;
    case 15:
        if (span_eq(k, kl, "Number of ports"))
            goto ports;
        if (span_eq(k, kl, "Capability mask"))
            return TAKE_YES;
        break;
    case 16:
        if (span_eq(k, kl, "Firmware version")) {
            span_copy(ib->cur_fw, sizeof(ib->cur_fw), v, vl);
            return TAKE_YES;
        }
        if (span_eq(k, kl, "Hardware version"))
            return TAKE_YES;
        break;
    case 17:
        if (span_eq(k, kl, "System image GUID"))
            return TAKE_YES;
        break;
    default:
        break;
    }
    /* Other lines of these tools: ibv_devinfo's lower-case snake_case keys.
     * Anything else may be the next tool's output. */
    if (kl == 0 || kl > 40 || cur_fmt(sec) != IBF_DEVINFO)
        return TAKE_NO;
    for (size_t i = 0; i < kl; i++)
        if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
            return TAKE_NO;
    return TAKE_WEAK;
ports:
    /* "Number of ports" (ibstat) or "phys_port_cnt" (ibv_devinfo) */
    if (num_parse(v, vl, &d) && d >= 0 && d < 1e4)
        ib->ports_declared = (ib->ports_declared < 0 ? 0 : ib->ports_declared) + (int)d;
    return TAKE_YES;
}

void ib_finish(struct report_section *sec)
{
    struct report_ib_ports *ib = &sec->u.ib;
    int bad = 0, judged = 0;
    ib->ports_total = ib->port_count + ib->ports_dropped;
    for (int i = 0; i < ib->port_count; i++) {
        const struct report_ib_port *p = &ib->ports[i];
        if (strcmp(p->state, "Active") == 0)
            ib->ports_active++;
        /* A LID means something only on InfiniBand (RoCE ports show 0) and
         * only on a port whose link is up. */
        int down = strcmp(p->state, "Down") == 0 || strcmp(p->phys_state, "Disabled") == 0;
        if (!down && strcmp(p->link_layer, "InfiniBand") == 0 && !isnan(p->base_lid)) {
            judged++;
            if (p->base_lid == 0 || p->base_lid == 65535)
                bad++;
        } else if (!down && strcmp(p->link_layer, "Ethernet") == 0) {
            judged++;
        }
    }
    ib->ports_bad_lid = judged ? bad : -1;
    if (ib->ports_declared > ib->ports_total) {
        char msg[REPORT_ISSUE_LEN];
        snprintf(msg, sizeof(msg), "%d port(s) declared but not shown (output cut)",
                 ib->ports_declared - ib->ports_total);
        section_issue(sec, msg);
    }
}
