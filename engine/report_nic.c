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

/* The words, by the pair hash (pair_hash) of their first two bytes: the
 * eleven hashes are distinct, so a position whose pair has no word's hash
 * opens none, and one that has names the only word it may open. */
static const struct {
    struct name word;
    unsigned bit;
} words_by_pair[] = {
    {NAME("_rx"), KW_RX}, {NAME("_tx"), KW_TX}, {NAME("pause"), KW_PAUSE},
    {NAME("duration"), KW_DURATION}, {NAME("discard"), KW_DISCARD},
    {NAME("transition"), KW_TRANSITION}, {NAME("storm"), KW_STORM}, {NAME("err"), KW_ERR},
    {NAME("crc"), KW_CRC}, {NAME("fcs"), KW_FCS}, {NAME("out_of_buffer"), KW_OUT_OF_BUFFER},
};

/* Whether k is a counter name (1 to 64 letters, digits or "_.-[]") and,
 * in *words, which of the words ("_rx", "_tx", "pause", ...) it holds
 * anywhere: the answers a search for each would give. One walk over the
 * key checks each byte (a table load, no branch) and looks its pair up in
 * a table of the words' first pairs, where a walk that switched on each
 * byte's class (the letters that open a word) mispredicted the switch on
 * most bytes of a counter name (callgrind: 0.8 a byte); here the one
 * branch a byte is almost never taken. The test holds this to a search
 * for each word on random keys. */
int nic_counter_key(const char *k, size_t kl, unsigned *words)
{
    static const unsigned char ok[256] = {
        ['_'] = 1, ['.'] = 1, ['-'] = 1, ['['] = 1, [']'] = 1,
        ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
        ['7'] = 1, ['8'] = 1, ['9'] = 1,
        ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
        ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
        ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
        ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
        ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
        ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
        ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
        ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
    };
    /* words_by_pair's index + 1 at each word's first pair's hash (the
     * formula of pair_hash, spelled out for a constant table) */
#define PAIR_SLOT(a, b) ((((unsigned)(a) << 3) ^ (unsigned)(b)) & 511u)
    static const unsigned char word_slot[512] = {
        [PAIR_SLOT('_', 'r')] = 1, [PAIR_SLOT('_', 't')] = 2, [PAIR_SLOT('p', 'a')] = 3,
        [PAIR_SLOT('d', 'u')] = 4, [PAIR_SLOT('d', 'i')] = 5, [PAIR_SLOT('t', 'r')] = 6,
        [PAIR_SLOT('s', 't')] = 7, [PAIR_SLOT('e', 'r')] = 8, [PAIR_SLOT('c', 'r')] = 9,
        [PAIR_SLOT('f', 'c')] = 10, [PAIR_SLOT('o', 'u')] = 11,
    };
#undef PAIR_SLOT
    if (kl == 0 || kl > 64)
        return 0;
    const unsigned char *u = (const unsigned char *)k;
    unsigned all = ok[u[kl - 1]], w = 0;
    /* every word is three bytes or more: none opens in the last two */
    for (size_t i = 0; i + 1 < kl; i++) {
        all &= ok[u[i]];
        unsigned x = word_slot[pair_hash(u[i], u[i + 1])];
        if (x) {
            const struct name *nm = &words_by_pair[x - 1].word;
            if (nm->n <= kl - i && memcmp(k + i, nm->s, nm->n) == 0)
                w |= words_by_pair[x - 1].bit;
        }
    }
    if (!all)
        return 0;
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
    if (!nic_counter_key(k, kl, &w) || !num_parse(v, vl, &d))
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
