/* resp_cache.c: a small, bounded cache of planner answers.
 *
 * POST /api/v1/recommend and /estimate are pure functions of the request
 * body while the server runs: the catalog is loaded once at start and the
 * engine reads no clock. Yet the same bodies come again and again: every
 * visitor's first page computes the planner's example workload, shared links
 * replay a calculation, and the debounced form re-sends the last input. So
 * the encoded answer is kept, keyed by SHA-256 of route and body bytes.
 * Only successful answers are stored. The table is a fixed array with
 * least-recently-used eviction under one mutex: a lookup is a hash and a
 * short scan, microseconds against the milliseconds of a search. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

#define CACHE_SLOTS 128
#define CACHE_BODY_MAX (256u << 10) /* answers larger than this are not kept */

struct cache_slot {
    unsigned char key[32];
    char *body;          /* the answer, owned (resp_cache_put); NULL when the slot is empty */
    size_t len;
    unsigned long long used; /* tick of the last hit, for LRU */
};

struct resp_cache {
    pthread_mutex_t mu;
    unsigned long long tick;
    unsigned long long hits, misses;
    struct cache_slot slots[CACHE_SLOTS];
};

struct resp_cache *resp_cache_new(void)
{
    struct resp_cache *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

void resp_cache_free(struct resp_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < CACHE_SLOTS; i++)
        free(c->slots[i].body);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void resp_cache_key(const char *route, const char *body, size_t len, unsigned char key[32])
{
    /* SHA-256(route, NUL, SHA-256(body)): two routes never share a key, and
     * the body is hashed where it lies instead of being copied beside the route. */
    unsigned char buf[64 + 32];
    size_t rl = strnlen(route, 63);
    memcpy(buf, route, rl);
    buf[rl] = '\0';
    crypto_sha256(body, len, buf + rl + 1);
    crypto_sha256(buf, rl + 1 + 32, key);
}

int resp_cache_get(struct resp_cache *c, const unsigned char key[32], char **body, size_t *len)
{
    int found = 0;
    if (!c)
        return 0;
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        struct cache_slot *s = &c->slots[i];
        if (s->body && memcmp(s->key, key, 32) == 0) {
            char *copy = malloc(s->len + 1);
            if (copy) {
                memcpy(copy, s->body, s->len);
                copy[s->len] = '\0';
                *body = copy;
                *len = s->len;
                s->used = ++c->tick;
                found = 1;
            }
            break;
        }
    }
    if (found)
        c->hits++;
    else
        c->misses++;
    pthread_mutex_unlock(&c->mu);
    return found;
}

/* The answer is handed over, not copied: the handlers send it first and
 * then give it to the cache, which saved a 26 KB allocation and copy on
 * every new body (POST /api/v1/recommend with a body never seen before). */
void resp_cache_put(struct resp_cache *c, const unsigned char key[32], char *body, size_t len)
{
    if (!c || len > CACHE_BODY_MAX) {
        free(body);
        return;
    }
    pthread_mutex_lock(&c->mu);
    struct cache_slot *victim = &c->slots[0];
    for (int i = 0; i < CACHE_SLOTS; i++) {
        struct cache_slot *s = &c->slots[i];
        if (s->body && memcmp(s->key, key, 32) == 0) { /* raced with another miss: keep one */
            victim = NULL;
            break;
        }
        if (!s->body) {
            victim = s;
            break;
        }
        if (s->used < victim->used)
            victim = s;
    }
    char *drop = body;   /* freed outside the lock: the evicted answer, or this one when not kept */
    if (victim) {
        drop = victim->body;
        memcpy(victim->key, key, 32);
        victim->body = body;
        victim->len = len;
        victim->used = ++c->tick;
    }
    pthread_mutex_unlock(&c->mu);
    free(drop);
}

void resp_cache_stats(struct resp_cache *c, unsigned long long *hits, unsigned long long *misses)
{
    *hits = *misses = 0;
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    *hits = c->hits;
    *misses = c->misses;
    pthread_mutex_unlock(&c->mu);
}
