/* search_memo.h: the recommend layout-search memo (search_memo.c says why):
 * a bounded LRU, thread-safe, of engine_recommend_search results by the
 * workload less tokens_b, deadline_days, budget_usd and dataset_tb. */
#ifndef GPUPLAN_SEARCH_MEMO_H
#define GPUPLAN_SEARCH_MEMO_H

#include "engine.h"

struct search_memo;
struct search_memo *search_memo_new(void);
void search_memo_free(struct search_memo *m);
/* The resolved workload with tokens_b, deadline_days, budget_usd and
 * dataset_tb blanked (what the layout search depends on), and its hash. */
struct search_memo_key {
    unsigned long long hash;
    struct engine_workload w;
};
void search_memo_key(const struct engine_workload *w, struct search_memo_key *key);
/* 1 and rec holding the kept search result on a hit; on a miss the part
 * before the candidates is zeroed (cleared outside the lock) but for the
 * warnings' texts (n_warnings is 0; a hit copies the entry's up to its
 * count). Either way the tiers keep whatever they held:
 * engine_recommend_price reads none of their bytes and writes each whole.
 * The candidates are copied only when rec's candidates_from does not name
 * the entry found (then it is set to it). */
int search_memo_get(struct search_memo *m, const struct search_memo_key *key, struct engine_recommendation *rec);
/* search_memo_get for workload w (not blanked): the slot found or filled
 * last is tried first by comparing w with its key where they must be
 * equal (no key is built, nothing hashed); else w's key is built into
 * *key and looked up. On a miss *key holds w's key (for search_memo_put);
 * on a hit it may hold nothing. m may be NULL (a miss). */
int search_memo_lookup(struct search_memo *m, const struct engine_workload *w, struct search_memo_key *key,
                       struct engine_recommendation *rec);
/* Keeps rec's searched part; returns the new entry's number (for rec's
 * candidates_from), 0 when nothing new was kept. */
unsigned long long search_memo_put(struct search_memo *m, const struct search_memo_key *key,
                                   const struct engine_recommendation *rec);
void search_memo_stats(struct search_memo *m, unsigned long long *hits, unsigned long long *misses);
/* engine_recommend through the memo: the kept search or a new one (kept),
 * then pricing for this workload; *hit says which. m may be NULL. */
enum status search_memo_recommend(struct search_memo *m, const struct catalog *c, const struct engine_workload *w,
                                  struct engine_recommendation *rec, int *hit, char *err, size_t errlen);

#endif
