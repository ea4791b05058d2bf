/* report_nic.c: `ethtool -i` (driver and firmware) and `ethtool -S` (NIC
 * counters), which preflight scripts print one after the other.
 *
 * Counters are classified by name, not by driver: names with "pause" are
 * pause frames (R23, R39), names with "err", "crc" or "fcs" are errors,
 * "discard"/"out_of_buffer" are drops. mlx5 prints both a PHY total
 * (rx_pause_ctrl_phy) and per-priority counts of the same frames, so when the
 * PHY total is present it is used alone instead of summing both. A counter
 * class that never appears stays null: a cut listing is not a clean one. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

int nic_detect(const struct line *l)
{
    if (span_starts(l->s, l->len, "NIC statistics:") || line_find_raw(l, "ethtool -S") ||
        line_find_raw(l, "ethtool -i"))
        return DETECT_STRONG;
    if (span_starts(l->s, l->len, "driver: ") || span_starts(l->s, l->len, "rx_packets:") ||
        span_starts(l->s, l->len, "tx_packets:"))
        return DETECT_WEAK;
    return 0;
}

void nic_init(struct report_section *sec)
{
    struct report_nic *n = &sec->u.nic;
    memset(n, 0, sizeof(*n));
    n->rx_pause = n->tx_pause = n->errors = n->discards = NAN;
    n->rx_pause_phy = n->tx_pause_phy = NAN;
    text_set(sec->tool, sizeof(sec->tool), "ethtool");
}

static void add(double *acc, double v)
{
    *acc = isnan(*acc) ? v : *acc + v;
}

/* The words a counter's class is read from, one bit each. */
enum {
    KW_RX = 1 << 0, KW_TX = 1 << 1, KW_PAUSE = 1 << 2, KW_DURATION = 1 << 3,
    KW_TRANSITION = 1 << 4, KW_STORM = 1 << 5, KW_ERR = 1 << 6, KW_CRC = 1 << 7,
    KW_FCS = 1 << 8, KW_DISCARD = 1 << 9, KW_OUT_OF_BUFFER = 1 << 10
};

/* Whether the word w (wn >= 3 bytes) starts at p, whose first byte the
 * caller matched: the second byte first, as most bytes that open a word
 * ("packets", "bytes") go on differently. */
static inline int word_at(const char *p, size_t n, const char *w, size_t wn)
{
    return n >= wn && p[1] == w[1] && memcmp(p + 2, w + 2, wn - 2) == 0;
}

/* Whether k is a counter name (1 to 64 letters, digits or "_.-[]") and,
 * in *words, which of the words ("_rx", "_tx", "pause", ...) it holds
 * anywhere: the answers a search for each would give, found in the same
 * walk over the key that checks its bytes, where a dozen searches
 * (through the line's pair set, built for them) cost twice as much on
 * every counter line. A byte's class says whether it is allowed and
 * which words it opens; a word can start only at its first byte. */
static int counter_key(const char *k, size_t kl, unsigned *words)
{
    enum { BAD = 0, OK, U, P, D, T, S, E, C, F, O };
    static const unsigned char cls[256] = {
        ['_'] = U, ['.'] = OK, ['-'] = OK, ['['] = OK, [']'] = OK,
        ['0'] = OK, ['1'] = OK, ['2'] = OK, ['3'] = OK, ['4'] = OK, ['5'] = OK, ['6'] = OK,
        ['7'] = OK, ['8'] = OK, ['9'] = OK,
        ['a'] = OK, ['b'] = OK, ['c'] = C, ['d'] = D, ['e'] = E, ['f'] = F, ['g'] = OK,
        ['h'] = OK, ['i'] = OK, ['j'] = OK, ['k'] = OK, ['l'] = OK, ['m'] = OK, ['n'] = OK,
        ['o'] = O, ['p'] = P, ['q'] = OK, ['r'] = OK, ['s'] = S, ['t'] = T, ['u'] = OK,
        ['v'] = OK, ['w'] = OK, ['x'] = OK, ['y'] = OK, ['z'] = OK,
        ['A'] = OK, ['B'] = OK, ['C'] = OK, ['D'] = OK, ['E'] = OK, ['F'] = OK, ['G'] = OK,
        ['H'] = OK, ['I'] = OK, ['J'] = OK, ['K'] = OK, ['L'] = OK, ['M'] = OK, ['N'] = OK,
        ['O'] = OK, ['P'] = OK, ['Q'] = OK, ['R'] = OK, ['S'] = OK, ['T'] = OK, ['U'] = OK,
        ['V'] = OK, ['W'] = OK, ['X'] = OK, ['Y'] = OK, ['Z'] = OK,
    };
    unsigned w = 0;
    if (kl == 0 || kl > 64)
        return 0;
    for (size_t i = 0; i < kl; i++) {
        const char *p = k + i;
        size_t n = kl - i;
        switch (cls[(unsigned char)*p]) {
        case BAD:
            return 0;
        case OK:
            break;
        case U:
            if (word_at(p, n, LIT_N("_rx")))
                w |= KW_RX;
            else if (word_at(p, n, LIT_N("_tx")))
                w |= KW_TX;
            break;
        case P:
            if (word_at(p, n, LIT_N("pause")))
                w |= KW_PAUSE;
            break;
        case D:
            if (word_at(p, n, LIT_N("duration")))
                w |= KW_DURATION;
            else if (word_at(p, n, LIT_N("discard")))
                w |= KW_DISCARD;
            break;
        case T:
            if (word_at(p, n, LIT_N("transition")))
                w |= KW_TRANSITION;
            break;
        case S:
            if (word_at(p, n, LIT_N("storm")))
                w |= KW_STORM;
            break;
        case E:
            if (word_at(p, n, LIT_N("err")))
                w |= KW_ERR;
            break;
        case C:
            if (word_at(p, n, LIT_N("crc")))
                w |= KW_CRC;
            break;
        case F:
            if (word_at(p, n, LIT_N("fcs")))
                w |= KW_FCS;
            break;
        case O:
            if (word_at(p, n, LIT_N("out_of_buffer")))
                w |= KW_OUT_OF_BUFFER;
            break;
        default:
            break;
        }
    }
    *words = w;
    return 1;
}

enum take nic_line(struct report_section *sec, const struct line *l)
{
    struct report_nic *n = &sec->u.nic;
    if (l->raw_len == 0)
        return TAKE_YES;
    if (line_find_raw_a(l, "ethtool -", 8)) {
        if (n->counters > 0 && line_find_raw(l, "ethtool -i"))
            return TAKE_END;
        return TAKE_YES;
    }
    if (span_starts(l->s, l->len, "NIC statistics:"))
        return n->counters > 0 ? TAKE_END : TAKE_YES;
    if (span_starts(l->s, l->len, "<etc") || span_eq(l->s, l->len, "..."))
        return TAKE_WEAK;
    const char *k, *v;
    size_t kl, vl;
    /* kv_split_nz: an empty key or value is only read through its length */
    if (!kv_split_nz(l->s, l->len, &k, &kl, &v, &vl))
        return TAKE_NO;
    static const struct {
        struct name key;
        size_t off;
        size_t len;
    } info[] = {
        {NAME("driver"), offsetof(struct report_nic, driver),
         sizeof(((struct report_nic *)0)->driver)},
        {NAME("version"), offsetof(struct report_nic, version),
         sizeof(((struct report_nic *)0)->version)},
        {NAME("firmware-version"), offsetof(struct report_nic, firmware),
         sizeof(((struct report_nic *)0)->firmware)},
        {NAME("bus-info"), offsetof(struct report_nic, bus_info),
         sizeof(((struct report_nic *)0)->bus_info)},
    };
    for (size_t i = 0; i < sizeof(info) / sizeof(info[0]); i++) {
        if (span_eq_n(k, kl, info[i].key.s, info[i].key.n)) {
            if (i == 0 && (n->driver[0] || n->counters > 0))
                return TAKE_END;    /* the next NIC's ethtool -i */
            span_copy((char *)n + info[i].off, info[i].len, v, vl);
            return TAKE_YES;
        }
    }
    if (span_eq(k, kl, "expansion-rom-version") || span_starts(k, kl, "supports-"))
        return TAKE_YES;
    double d;
    unsigned w;
    if (!counter_key(k, kl, &w) || !num_parse(v, vl, &d))
        return TAKE_NO;
    n->counters++;
    int rx = span_starts(k, kl, "rx") || (w & KW_RX);
    int tx = span_starts(k, kl, "tx") || (w & KW_TX);
    if ((w & (KW_PAUSE | KW_DURATION | KW_TRANSITION | KW_STORM)) == KW_PAUSE) {
        if (span_eq(k, kl, "rx_pause_ctrl_phy")) {
            n->rx_pause_phy = d;
            n->have_rx_pause_phy = 1;
        } else if (span_eq(k, kl, "tx_pause_ctrl_phy")) {
            n->tx_pause_phy = d;
            n->have_tx_pause_phy = 1;
        } else if (rx) {
            add(&n->rx_pause, d);
        } else if (tx) {
            add(&n->tx_pause, d);
        }
    } else if (w & (KW_ERR | KW_CRC | KW_FCS)) {
        add(&n->errors, d);
    } else if (w & (KW_DISCARD | KW_OUT_OF_BUFFER)) {
        add(&n->discards, d);
    }
    return TAKE_YES;
}

void nic_finish(struct report_section *sec)
{
    struct report_nic *n = &sec->u.nic;
    if (n->have_rx_pause_phy)
        n->rx_pause = n->rx_pause_phy;
    if (n->have_tx_pause_phy)
        n->tx_pause = n->tx_pause_phy;
    if (n->counters > 0 && n->driver[0])
        text_set(sec->tool, sizeof(sec->tool), "ethtool -i, ethtool -S");
    else if (n->counters > 0)
        text_set(sec->tool, sizeof(sec->tool), "ethtool -S");
    else if (n->driver[0])
        text_set(sec->tool, sizeof(sec->tool), "ethtool -i");
}
