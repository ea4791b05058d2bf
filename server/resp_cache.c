/* resp_cache.c: a small, bounded cache of planner answers.
 *
 * POST /api/v1/recommend and /estimate are pure functions of the request
 * body while the server runs: the catalog is loaded once at start and the
 * engine reads no clock. Yet the same bodies come again and again: every
 * visitor's first page computes the planner's example workload, shared links
 * replay a calculation, and the debounced form re-sends the last input. So
 * the encoded answer is kept under its route and request body, which the
 * slot keeps a copy of and compares byte for byte: no two bodies can share
 * an answer, whatever the hash says, so the hash need not be cryptographic
 * (SHA-256 of every body, twice, was 17,000 instructions of a ~190-byte
 * recommend request; the 64-bit hash here is a few hundred). Bodies over
 * RESP_BODY_KEEP bytes are kept as their SHA-256 instead, so the copies
 * stay small (128 slots of at most 4 KB). Only successful answers are
 * stored. The table is a fixed array with least-recently-used eviction
 * under one mutex: a lookup is a hash and a short scan, microseconds
 * against the milliseconds of a search.
 *
 * An answer is kept the second time its body is answered, not the first
 * (a doorkeeper, as in TinyLFU): the cache remembers the hashes of bodies
 * it declined in a small direct-mapped table. Most bodies come once (a
 * form being edited, a CI sweep over token counts), and keeping each of
 * them evicted the answers that do come again (the example workload, a
 * shared link) after 128 one-off requests, and handed every such 26 KB
 * answer to the cache only for another thread to free it later. A body
 * asked twice costs one more answer from the planner (the search memo
 * usually has its layouts: well under a millisecond), then hits. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

#define CACHE_SLOTS 128
/* Declined bodies remembered by hash: a body comes back within this many
 * other declined bodies to be kept (fewer when hashes share a slot). */
#define SEEN_SLOTS 1024
#define CACHE_BODY_MAX (256u << 10) /* answers larger than this are not kept */

struct cache_slot {
    unsigned long long hash;
    unsigned char *id;   /* route, NUL, 0 or 1 (the body or its SHA-256), then those bytes */
    size_t id_len;
    char *body;          /* the answer, owned (resp_cache_put); NULL when the slot is empty */
    size_t len;
    size_t room;         /* body - room is its allocation (resp_cache_put_room) */
    unsigned long long used; /* tick of the last hit, for LRU */
};

struct resp_cache {
    pthread_mutex_t mu;
    unsigned long long tick;
    unsigned long long hits, misses;
    unsigned long long kept, declined;  /* answers handed to resp_cache_put */
    struct cache_slot slots[CACHE_SLOTS];
    /* Slots are filled in order and never emptied: slots[0, filled) hold
     * answers. Their hashes and last-use ticks are also kept here, side by
     * side, for the scans every new body makes under the lock (one for the
     * get, two for the put): 1 KB each instead of the slots' 7. */
    int filled;
    unsigned long long hashes[CACHE_SLOTS], used[CACHE_SLOTS];
    unsigned long long seen[SEEN_SLOTS]; /* hashes of declined bodies (0: none) */
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
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (c->slots[i].body)
            free(c->slots[i].body - c->slots[i].room);
        free(c->slots[i].id);
    }
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* 64 bits of bytes, eight at a time (multiply and fold, as in the
 * wyhash/FxHash family): it only chooses which slots to compare. */
static unsigned long long mix(unsigned long long h, const unsigned char *p, size_t n)
{
    const unsigned long long m = 0x9e3779b97f4a7c15ULL;
    unsigned long long w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
    }
    w = 0;
    if (n)
        memcpy(&w, p, n);
    h = (h ^ w ^ ((unsigned long long)n << 56)) * m;
    return h ^ (h >> 32);
}

void resp_cache_key(const char *route, const char *body, size_t len, struct resp_key *key)
{
    key->route = route;
    key->route_len = strnlen(route, 63);
    key->digest = len > RESP_BODY_KEEP;
    if (key->digest) {
        crypto_sha256(body, len, key->sum);
        key->id = key->sum;
        key->id_len = sizeof key->sum;
    } else {
        key->id = body ? (const unsigned char *)body : (const unsigned char *)"";
        key->id_len = len;
    }
    key->hash = mix(mix((unsigned long long)key->digest, (const unsigned char *)route, key->route_len), key->id,
                    key->id_len);
}

/* Whether slot s holds key's route and body (or digest): every byte
 * compared. Inline, hash first: a new body scans all the slots twice (get
 * and put), and a call a slot was most of that. */
static inline __attribute__((always_inline)) int same_id(const struct cache_slot *s, const struct resp_key *key)
{
    size_t rl = key->route_len;
    return s->hash == key->hash && s->body && s->id_len == rl + 2 + key->id_len && memcmp(s->id, key->route, rl) == 0 &&
           s->id[rl] == '\0' && s->id[rl + 1] == (unsigned char)key->digest &&
           memcmp(s->id + rl + 2, key->id, key->id_len) == 0;
}

int resp_cache_get(struct resp_cache *c, const struct resp_key *key, char **body, size_t *len)
{
    return resp_cache_get_room(c, key, 0, body, len);
}

/* The copy has room bytes in front so that the hit leaves with its head in
 * one write and no second copy (http_send_room): the answer is copied once,
 * under the lock, because a slot may be evicted and freed the moment it is
 * released. */
int resp_cache_get_room(struct resp_cache *c, const struct resp_key *key, size_t room, char **body, size_t *len)
{
    int found = 0;
    if (!c)
        return 0;
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < c->filled; i++) {
        struct cache_slot *s = &c->slots[i];
        if (c->hashes[i] == key->hash && same_id(s, key)) {
            char *copy = malloc(room + s->len + 1);
            if (copy) {
                copy += room;
                memcpy(copy, s->body, s->len);
                copy[s->len] = '\0';
                *body = copy;
                *len = s->len;
                s->used = c->used[i] = ++c->tick;
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
void resp_cache_put(struct resp_cache *c, const struct resp_key *key, char *body, size_t len)
{
    resp_cache_put_room(c, key, body, len, 0);
}

/* The recommend answer is written with the HTTP head's room in front
 * (json_recommendation_text_room) and sent from there, then kept here as it
 * is: the slot keeps the offset so it frees what malloc gave. */
void resp_cache_put_room(struct resp_cache *c, const struct resp_key *key, char *body, size_t len, size_t room)
{
    size_t rl = key->route_len, id_len = rl + 2 + key->id_len;
    unsigned char *id;
    /* (no body is nothing to keep: a slot once filled stays filled) */
    if (!c || !body || len > CACHE_BODY_MAX) {
        free(body ? body - room : NULL);
        return;
    }
    /* The doorkeeper: a body whose hash is not remembered is declined and
     * remembered; one whose hash is (asked before, or a rare 64-bit
     * collision, which only keeps an answer early) goes on to be kept. */
    pthread_mutex_lock(&c->mu);
    unsigned long long *seen = &c->seen[key->hash & (SEEN_SLOTS - 1)];
    int again = *seen == key->hash;
    if (again) {
        c->kept++;   /* the hash stays: once evicted, the answer is kept again at once */
    } else {
        *seen = key->hash;
        c->declined++;
    }
    pthread_mutex_unlock(&c->mu);
    if (!again || !(id = malloc(id_len))) {
        free(body ? body - room : NULL);
        return;
    }
    memcpy(id, key->route, rl);
    id[rl] = '\0';
    id[rl + 1] = (unsigned char)key->digest;
    memcpy(id + rl + 2, key->id, key->id_len);
    pthread_mutex_lock(&c->mu);
    /* the first empty slot, else the least recently used (the first of
     * equal ticks), unless a slot holds this key already (raced with another
     * miss: keep one) */
    struct cache_slot *victim = NULL;
    int vi = -1, held = 0;
    for (int i = 0; i < c->filled && !held; i++)
        held = c->hashes[i] == key->hash && same_id(&c->slots[i], key);
    if (!held) {
        if (c->filled < CACHE_SLOTS) {
            vi = c->filled++;
        } else {
            vi = 0;
            for (int i = 1; i < CACHE_SLOTS; i++)
                if (c->used[i] < c->used[vi])
                    vi = i;
        }
        victim = &c->slots[vi];
    }
    /* freed outside the lock: the evicted answer, or this one when not kept */
    char *drop = body ? body - room : NULL;
    unsigned char *drop_id = id;
    if (victim) {
        drop = victim->body ? victim->body - victim->room : NULL;
        drop_id = victim->id;
        victim->hash = key->hash;
        victim->id = id;
        victim->id_len = id_len;
        victim->body = body;
        victim->len = len;
        victim->room = room;
        victim->used = ++c->tick;
        c->hashes[vi] = victim->hash;
        c->used[vi] = victim->used;
    }
    pthread_mutex_unlock(&c->mu);
    free(drop);
    free(drop_id);
}

void resp_cache_admissions(struct resp_cache *c, unsigned long long *kept, unsigned long long *declined)
{
    *kept = *declined = 0;
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    *kept = c->kept;
    *declined = c->declined;
    pthread_mutex_unlock(&c->mu);
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
