/* search_memo.c: a second, smaller cache level under resp_cache.c: the
 * planner's layout search by workload, without the tokens.
 *
 * A team sizing a run asks the same model again and again with other token
 * counts, deadlines and budgets. Each such body is new to the answer cache
 * (resp_cache.c), yet the expensive part of the answer, the search over
 * clusters and layouts (engine_recommend_search), reads none of tokens_b,
 * deadline_days, budget_usd or dataset_tb: those only price the candidates
 * and choose the tiers (engine_recommend_price, well under a millisecond).
 * So the search result is kept here, keyed by the resolved workload with
 * exactly those four fields blanked (compared in full; a 64-bit FNV-style hash
 * only speeds the scan): everything else the
 * search could read (model shape, task, precision, seq_len, optimizer,
 * global batch, LoRA rank, attention, pricing, gpus_allowed, max_gpus) is
 * part of the key, including fields added later, because the whole struct
 * is hashed. The catalog is fixed while the server runs and the engine reads
 * no clock, so a kept result stays valid. test_server_units proves answers
 * through the memo equal answers without it.
 *
 * Like resp_cache: a fixed table of slots, least-recently-used eviction
 * under one mutex; an entry is a heap copy of the searched part of an
 * engine_recommendation (the candidates it found, not the whole array). */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "server_int.h"
#include "search_memo.h"

#define MEMO_SLOTS 64

/* The searched part of a recommendation, as engine_recommend_search fills it. */
struct memo_entry {
    unsigned long long gen;   /* this entry's number, never given to another (next_gen) */
    double params_b, active_params_b;
    char warnings[PLAN_WARNINGS_MAX][PLAN_TEXT_MAX];
    int n_warnings;
    long configs_evaluated;
    double min_mem_gib;
    int min_mem_gpu;
    int n_candidates;
    struct engine_candidate candidates[]; /* n_candidates of them */
};

struct memo_slot {
    unsigned long long hash;
    struct engine_workload key; /* the blanked workload, compared in full */
    struct memo_entry *e;       /* NULL when the slot is empty */
    unsigned long long used;
};

struct search_memo {
    pthread_mutex_t mu;
    unsigned long long tick, hits, misses;
    int last;   /* the slot found or filled last (search_memo_lookup tries it first) */
    struct memo_slot slots[MEMO_SLOTS];
};

/* Entry numbers, process-wide so that no two entries of any memo share one
 * (a recommendation's memory may meet several memos, as in the tests): a
 * recommendation tagged with an entry's number (candidates_from) holds that
 * entry's candidates and no other's, even after the entry was evicted and
 * another was made at the same address or in the same slot. */
static atomic_ullong next_gen;

struct search_memo *search_memo_new(void)
{
    struct search_memo *m = calloc(1, sizeof *m);
    if (m && pthread_mutex_init(&m->mu, NULL) != 0) {
        free(m);
        return NULL;
    }
    return m;
}

void search_memo_free(struct search_memo *m)
{
    if (!m)
        return;
    for (int i = 0; i < MEMO_SLOTS; i++)
        free(m->slots[i].e);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* FNV-1a's step over 8-byte words rather than bytes (then the bytes left):
 * the hash only speeds the scan (keys are compared in full), and byte by
 * byte over the 2 KB workload it cost ~13k instructions a request. */
static unsigned long long hash_bytes(unsigned long long h, const unsigned char *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        unsigned long long word;
        memcpy(&word, p + i, 8);
        h ^= word;
        h *= 1099511628211ULL;
        h ^= h >> 29;   /* the multiply only carries upwards: fold the high bits back */
    }
    for (; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void search_memo_key(const struct engine_workload *w, struct search_memo_key *key)
{
    const unsigned char *p = (const unsigned char *)&key->w;
    size_t allowed = offsetof(struct engine_workload, gpus_allowed);
    size_t after = offsetof(struct engine_workload, n_gpus_allowed);
    int n_allowed;
    unsigned long long h = 1469598103934665603ULL;   /* FNV-1a's offset basis */
    /* The whole resolved workload, with only the fields the search never
     * reads blanked. Padding and the bytes after a string's NUL come from w,
     * which engine_workload_init zeroed: a stray byte there could only cost
     * a miss, never a wrong answer. */
    memcpy(&key->w, w, sizeof key->w);
    key->w.tokens_b = 0;
    key->w.deadline_days = 0;
    key->w.budget_usd = 0;
    key->w.dataset_tb = 0;
    /* Hashed: all of it but the gpus_allowed rows past n_gpus_allowed
     * (1.6 KB of the 2.3, nearly always unused): equal keys still hash
     * equal, and the rows are compared with the rest. */
    n_allowed = key->w.n_gpus_allowed;
    if (n_allowed < 0 || n_allowed > WORKLOAD_GPUS_ALLOWED_MAX)
        n_allowed = WORKLOAD_GPUS_ALLOWED_MAX;
    h = hash_bytes(h, p, allowed);
    h = hash_bytes(h, p + allowed, sizeof key->w.gpus_allowed[0] * (size_t)n_allowed);
    h = hash_bytes(h, p + after, sizeof key->w - after);
    key->hash = h;
}

static int key_eq(const struct memo_slot *s, const struct search_memo_key *key)
{
    return s->e && s->hash == key->hash && memcmp(&s->key, &key->w, sizeof key->w) == 0;
}

/* The cleared part of a recommendation before a lookup (search_memo_get
 * says which), outside the lock. */
static void rec_clear(struct engine_recommendation *rec)
{
    char *p = (char *)rec;
    size_t texts_end = offsetof(struct engine_recommendation, warnings) + sizeof rec->warnings;
    _Static_assert(offsetof(struct engine_recommendation, warnings) ==
                       offsetof(struct engine_recommendation, tiers) + sizeof rec->tiers,
                   "the warnings follow the tiers");
    memset(p, 0, offsetof(struct engine_recommendation, tiers));
    memset(p + texts_end, 0, offsetof(struct engine_recommendation, candidates) - texts_end);
}

/* Slot s's entry into rec, under the lock: a hit. */
static void take(struct search_memo *m, struct memo_slot *s, struct engine_recommendation *rec)
{
    const struct memo_entry *e = s->e;
    rec->params_b = e->params_b;
    rec->active_params_b = e->active_params_b;
    rec->n_warnings = e->n_warnings >= 0 && e->n_warnings <= PLAN_WARNINGS_MAX ? e->n_warnings : 0;
    memcpy(rec->warnings, e->warnings, sizeof rec->warnings[0] * (size_t)rec->n_warnings);
    rec->configs_evaluated = e->configs_evaluated;
    rec->min_mem_gib = e->min_mem_gib;
    rec->min_mem_gpu = e->min_mem_gpu;
    rec->n_candidates = e->n_candidates;
    /* The candidates are most of the entry (~340 x 128 bytes for a
     * 70B model): a worker that was last given this same entry
     * still holds them, so they stay. Pricing reads only what the
     * search filled and rewrites days and cost of every candidate
     * before reading them (engine.h), so the last pricing left
     * nothing it will read. */
    if (rec->candidates_from != e->gen) {
        memcpy(rec->candidates, e->candidates, sizeof e->candidates[0] * (size_t)e->n_candidates);
        rec->candidates_from = e->gen;
    }
    s->used = ++m->tick;
    m->last = (int)(s - m->slots);
    m->hits++;
}

/* The scan for key, rec cleared already. */
static int get_cleared(struct search_memo *m, const struct search_memo_key *key, struct engine_recommendation *rec)
{
    int found = 0;
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < MEMO_SLOTS; i++) {
        struct memo_slot *s = &m->slots[i];
        if (key_eq(s, key)) {
            take(m, s, rec);
            found = 1;
            break;
        }
    }
    if (!found)
        m->misses++;
    pthread_mutex_unlock(&m->mu);
    return found;
}

int search_memo_lookup(struct search_memo *m, const struct engine_workload *w, struct search_memo_key *key,
                       struct engine_recommendation *rec)
{
    if (!m) {
        search_memo_key(w, key);
        return 0;
    }
    rec_clear(rec);
    pthread_mutex_lock(&m->mu);
    {
        struct memo_slot *s = &m->slots[m->last];
        if (s->e && engine_workload_blanked_eq(w, &s->key)) {
            take(m, s, rec);
            pthread_mutex_unlock(&m->mu);
            return 1;
        }
    }
    pthread_mutex_unlock(&m->mu);
    search_memo_key(w, key);
    return get_cleared(m, key, rec);
}

int search_memo_get(struct search_memo *m, const struct search_memo_key *key, struct engine_recommendation *rec)
{
    if (!m)
        return 0;
    /* Cleared before the lock is taken: every member before the candidates
     * except the three tiers (51 KB of the 56) and the warnings' texts
     * (2 KB): on a hit each is set below, the texts up to the entry's count
     * (nobody reads a warning past n_warnings, and engine_recommend_price
     * writes each one it adds, NUL included), and the tiers are written whole by
     * engine_recommend_price, which reads none of their bytes (engine.h;
     * test_engine_golden leaves the last answer's plans or 0xa5 bytes
     * there). A member added later to this part is cleared here without
     * anyone having to remember it. On a miss the search clears the whole
     * recommendation again anyway. */
    rec_clear(rec);
    return get_cleared(m, key, rec);
}

unsigned long long search_memo_put(struct search_memo *m, const struct search_memo_key *key,
                                   const struct engine_recommendation *rec)
{
    struct memo_entry *e;
    unsigned long long gen = 0;
    if (!m || rec->n_candidates < 0 || rec->n_candidates > ENGINE_CANDIDATES_MAX)
        return 0;
    e = malloc(sizeof *e + sizeof e->candidates[0] * (size_t)rec->n_candidates);
    if (!e)
        return 0;
    e->gen = atomic_fetch_add(&next_gen, 1) + 1;
    e->params_b = rec->params_b;
    e->active_params_b = rec->active_params_b;
    memcpy(e->warnings, rec->warnings, sizeof e->warnings);
    e->n_warnings = rec->n_warnings;
    e->configs_evaluated = rec->configs_evaluated;
    e->min_mem_gib = rec->min_mem_gib;
    e->min_mem_gpu = rec->min_mem_gpu;
    e->n_candidates = rec->n_candidates;
    memcpy(e->candidates, rec->candidates, sizeof e->candidates[0] * (size_t)rec->n_candidates);
    pthread_mutex_lock(&m->mu);
    struct memo_slot *victim = &m->slots[0];
    for (int i = 0; i < MEMO_SLOTS; i++) {
        struct memo_slot *s = &m->slots[i];
        if (key_eq(s, key)) { /* raced with another miss: keep one */
            victim = NULL;
            break;
        }
        if (!s->e) {
            victim = s;
            break;
        }
        if (s->used < victim->used)
            victim = s;
    }
    if (victim) {
        free(victim->e);
        victim->hash = key->hash;
        victim->key = key->w;
        victim->e = e;
        victim->used = ++m->tick;
        m->last = (int)(victim - m->slots);
        gen = e->gen;
        e = NULL;
    }
    pthread_mutex_unlock(&m->mu);
    free(e);
    return gen;
}

void search_memo_stats(struct search_memo *m, unsigned long long *hits, unsigned long long *misses)
{
    *hits = *misses = 0;
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    *hits = m->hits;
    *misses = m->misses;
    pthread_mutex_unlock(&m->mu);
}

enum status search_memo_recommend(struct search_memo *m, const struct catalog *c, const struct engine_workload *w,
                                  struct engine_recommendation *rec, int *hit, char *err, size_t errlen)
{
    struct search_memo_key key;
    enum status st;

    *hit = search_memo_lookup(m, w, &key, rec);
    if (!*hit) {
        st = engine_recommend_search(c, w, rec, err, errlen);
        if (st != ST_OK)
            return st;
        rec->candidates_from = search_memo_put(m, &key, rec);
    }
    return engine_recommend_price(c, w, rec, err, errlen);
}
