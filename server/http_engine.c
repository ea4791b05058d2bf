/* http_engine.c: the planner over HTTP: POST /api/v1/recommend,
 * POST /api/v1/estimate, GET /api/v1/catalog.
 *
 * The catalog was loaded once at start (app->catalog) and is shared
 * read-only by every worker; the engine is pure, so handlers need no lock.
 * Bodies are read up to the JSON limit (413 above it); any invalid input is
 * a 400 problem+json whose "field" names what to fix. Successful answers are
 * kept by body in app->plan_cache (resp_cache.c says why); the header
 * X-Gpuplan-Cache says whether an answer came from it. Below it, recommend's
 * layout search is kept by workload less tokens/deadline/budget/dataset in
 * app->search_memo (search_memo.c); X-Gpuplan-Search says memo or new. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine.h"
#include "server_int.h"
#include "search_memo.h"

/* Sends the cached answer for this request if there is one. */
static int reply_cached(struct http_req *req, const struct resp_key *key)
{
    char *body = NULL;
    size_t len = 0;
    if (!resp_cache_get_room(req->app->plan_cache, key, HTTP_HEAD_ROOM, &body, &len))
        return 0;
    http_send_room(req, 200, "application/json", "Cache-Control: no-store\r\nX-Gpuplan-Cache: hit\r\n", body, len,
                   HTTP_HEAD_ROOM);
    free(body - HTTP_HEAD_ROOM);
    return 1;
}

/* Sends the answer text with the given headers, then hands it to the
 * answer cache under key (json_*_text: written directly, no cJSON tree;
 * the cache frees it). room: the free bytes in front of text in its
 * allocation, where the head is written (http_send_room). */
static void reply_and_keep_h(struct http_req *req, const struct resp_key *key, char *text, size_t len,
                             size_t room, const char *headers)
{
    if (!text) {
        http_problem(req, 500, NULL, "cannot encode the response");
        return;
    }
    http_send_room(req, 200, "application/json", headers, text, len, room);
    resp_cache_put_room(req->app->plan_cache, key, text, len, room);
}

static void reply_and_keep(struct http_req *req, const struct resp_key *key, char *text, size_t len)
{
    reply_and_keep_h(req, key, text, len, 0, "Cache-Control: no-store\r\nX-Gpuplan-Cache: miss\r\n");
}

static int no_catalog(struct http_req *req)
{
    http_problem(req, 503, NULL, "the hardware catalog is not loaded");
    return 0;
}

static int bad_input(struct http_req *req, const char *field, const char *err)
{
    char f[96];
    if (!field || !field[0]) {
        json_field_from_error(err, f, sizeof f);
        field = f[0] ? f : NULL;
    }
    http_problem(req, 400, field, "%s", err);
    return 0;
}

/* The recommendation is ~1.7 MB (candidates for 2,048 clusters, the
 * search's layout lists, the pricing's plan memo and price columns): allocating and zeroing
 * one per request went through mmap/munmap and page faults on every call,
 * which under load cost more than the answer itself. So it is reused,
 * together with the writer's cache of cluster-only answer parts and the
 * recordings of its last answers' parts (json_plan.c). What they keep from
 * one request to the next (the memo entry's candidates, the plan parts of
 * the last tiers, the answer parts) is keyed by every value it was made
 * from, so any request may use any of them and none can go stale.
 *
 * They are kept in a pool, not one per thread: civetweb runs one worker
 * thread per open connection (handlers run on it: http.c), so with 64
 * clients a thread's own scratch was last touched 63 requests ago and every
 * request read its ~250 KB working set (candidates, tiers, plan memo,
 * recordings) from far caches. The pool hands out the scratch released last
 * (a stack), which is still in a core's cache.
 *
 * And the pool is the admission to the planner: at most `max` scratches
 * exist (four per core), and a request that finds none free waits for one
 * instead of making another. What a scratch is taken for (the memo lookup,
 * a search, pricing, writing the answer) is CPU and memory work, so much
 * more of it at once than there are cores only queues in the scheduler.
 * With one scratch per request in flight, 64 connections on two cores ran
 * up to 64 at once: each a preemptible holder of the memo's lock or a
 * malloc arena, and each new scratch cold (its plan memo and answer
 * recordings empty), so the first second of a burst of new bodies had ~140
 * answers over 25 ms and some over 200 ms (p99 110-170 ms in one-second wrk
 * runs) while the CPU was saturated; now p99 5-15 ms. Waiting threads sleep
 * instead, the few scratches stay warm, and the locks see a handful of
 * contenders. Two per core cut a new shape's searches per second by ~20%
 * (too few in flight to hide their memory stalls); four per core keep it
 * (p99 ~58 ms instead of 170-210). */
struct thread_scratch {
    struct engine_recommendation *rec;
    struct json_plan_cache *cache;   /* NULL when it could not be made: answers are written in full */
};

#define REC_POOL_MAX 64

/* A request waiting for a scratch, on its own stack, in the pool's queue:
 * a scratch given back goes to the oldest waiter, not to whichever thread
 * takes the lock next. With a shared condition variable and a free-for-all
 * after each give, a request arriving as a scratch came back took it before
 * the waiter that was woken for it ran, and that waiter went back to sleep
 * at the end of the line: under a burst of new workloads (each a full
 * search, ~0.5 ms) some requests lost that race again and again, so the
 * slowest 1% took 2-3 times the queue's length. Now no request is
 * overtaken by one that came after it. */
struct pool_waiter {
    pthread_cond_t cv;
    struct thread_scratch *s; /* the scratch handed over; NULL with make set */
    int make;                 /* handed a place to make a scratch (a make failed) */
    int served;
    struct pool_waiter *next;
};

struct rec_pool {
    pthread_mutex_t mu;
    int max;                         /* scratches that may exist: requests priced at once */
    int made;                        /* scratches made so far (<= max) */
    int n;
    struct thread_scratch *kept[REC_POOL_MAX]; /* kept[n - 1] was released last */
    struct pool_waiter *head, *tail; /* requests waiting, oldest first */
    int waiting;
};

static void scratch_free(struct thread_scratch *s)
{
    if (!s)
        return;
    free(s->rec);
    json_plan_cache_free(s->cache);
    free(s);
}

struct rec_pool *rec_pool_new(int max)
{
    if (max <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        max = cpus > 0 ? (int)(4 * cpus) : 8;
    }
    if (max > REC_POOL_MAX)
        max = REC_POOL_MAX;
    struct rec_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return NULL;
    }
    p->max = max;
    return p;
}

void rec_pool_free(struct rec_pool *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        scratch_free(p->kept[i]);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static struct thread_scratch *scratch_new(void)
{
    struct thread_scratch *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* Zeroed, not malloc's bytes: the writer's blocks (jw_block) compare
     * a plan's text arrays whole, past their NUL, and those tails must be
     * defined bytes (memcheck flagged them). */
    s->rec = calloc(1, sizeof *s->rec);
    s->cache = json_plan_cache_new();
    if (!s->rec) {
        scratch_free(s);
        return NULL;
    }
    /* Holds no memo entry's candidates (search_memo_get), no plan parts
     * (engine_plan_memo) and no pricing columns (all zero already; said
     * here as the contract these fields have). */
    s->rec->candidates_from = 0;
    s->rec->price_cols.from = 0;
    memset(s->rec->plan_memo, 0, sizeof s->rec->plan_memo);
    s->rec->plan_memo_tick = 0;
    return s;
}

/* Hands what a waiter waits for (scratch s, or with s NULL a place to make
 * one) to the oldest waiter; 0 when none waits. Under p->mu. */
static int hand_over(struct rec_pool *p, struct thread_scratch *s)
{
    struct pool_waiter *w = p->head;
    if (!w)
        return 0;
    p->head = w->next;
    if (!p->head)
        p->tail = NULL;
    p->waiting--;
    w->s = s;
    w->make = !s;
    w->served = 1;
    pthread_cond_signal(&w->cv);
    return 1;
}

struct thread_scratch *rec_pool_take(struct rec_pool *p)
{
    struct thread_scratch *s = NULL;
    int make = 0;
    if (!p)
        return scratch_new();
    pthread_mutex_lock(&p->mu);
    if (p->head) {
        /* others wait already: behind them, whatever is free this instant */
    } else if (p->n > 0) {
        s = p->kept[--p->n];
        pthread_mutex_unlock(&p->mu);
        return s;
    } else if (p->made < p->max) {
        p->made++;
        make = 1;
    }
    if (!make) {
        struct pool_waiter w = {.s = NULL, .make = 0, .served = 0, .next = NULL};
        pthread_cond_init(&w.cv, NULL);
        if (p->tail)
            p->tail->next = &w;
        else
            p->head = &w;
        p->tail = &w;
        p->waiting++;
        while (!w.served)
            pthread_cond_wait(&w.cv, &p->mu);
        pthread_cond_destroy(&w.cv);
        s = w.s;
        make = w.make;
    }
    pthread_mutex_unlock(&p->mu);
    if (make && !(s = scratch_new())) {
        /* the place goes to the next waiter, who may succeed */
        pthread_mutex_lock(&p->mu);
        if (!hand_over(p, NULL))
            p->made--;
        pthread_mutex_unlock(&p->mu);
    }
    return s;
}

void rec_pool_give(struct rec_pool *p, struct thread_scratch *s)
{
    if (!p) {
        scratch_free(s);
        return;
    }
    if (!s)
        return;
    pthread_mutex_lock(&p->mu);
    if (!hand_over(p, s))
        p->kept[p->n++] = s;   /* n <= made <= max */
    pthread_mutex_unlock(&p->mu);
}

void rec_pool_stats(struct rec_pool *p, int *taken, int *waiting)
{
    *taken = *waiting = 0;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    *taken = p->made - p->n;   /* handed over to a waiter counts as taken */
    *waiting = p->waiting;
    pthread_mutex_unlock(&p->mu);
}

int http_recommend(struct http_req *req)
{
    const struct catalog *cat = req->app->catalog;
    cJSON *doc = NULL, *owned = NULL;   /* owned: a tree cJSON allocated */
    struct json_small small;
    struct engine_workload w;
    struct engine_recommendation *rec = NULL;
    struct thread_scratch *scratch;
    char err[512] = "", field[96] = "";
    struct resp_key key;
    int hit = 0;
    char *text;
    size_t len = 0;

    if (!cat)
        return no_catalog(req);
    if (!http_body(req, req->app->json_limit))
        return 0;
    resp_cache_key("recommend", req->body, req->body_len, &key);
    if (reply_cached(req, &key))
        return 0;
    /* A plain small body is read into nodes on the stack (the tree cJSON
     * would build, without its allocations); any other goes to cJSON. */
    if (!json_parse_small(req->body, req->body_len, &small, &doc)) {
        if (json_parse(req->body, req->body_len, &doc, err, sizeof err) != ST_OK)
            return bad_input(req, "body", err);
        owned = doc;
    }
    if (json_workload_decode(doc, &w, field, sizeof field, err, sizeof err) != ST_OK ||
        engine_workload_resolve(&w, cat, err, sizeof err) != ST_OK) {
        cJSON_Delete(owned);
        return bad_input(req, field, err);
    }
    cJSON_Delete(owned);
    scratch = rec_pool_take(req->app->rec_pool);
    rec = scratch ? scratch->rec : NULL;
    if (!rec) {
        http_problem_status(req, ST_NOMEM, "out of memory");
        return 0;
    }
    /* A miss here may still find the layout search in the memo (same
     * workload, other tokens/deadline/budget): X-Gpuplan-Search says. */
    if (search_memo_recommend(req->app->search_memo, cat, &w, rec, &hit, err, sizeof err) != ST_OK) {
        rec_pool_give(req->app->rec_pool, scratch);
        return bad_input(req, NULL, err);
    }
    text = json_recommendation_text_room(cat, &w, rec, scratch->cache, HTTP_HEAD_ROOM, &len);
    rec_pool_give(req->app->rec_pool, scratch);
    reply_and_keep_h(req, &key, text, len, HTTP_HEAD_ROOM,
                     hit ? "Cache-Control: no-store\r\nX-Gpuplan-Cache: miss\r\nX-Gpuplan-Search: memo\r\n"
                         : "Cache-Control: no-store\r\nX-Gpuplan-Cache: miss\r\nX-Gpuplan-Search: new\r\n");
    return 0;
}

int http_estimate(struct http_req *req)
{
    const struct catalog *cat = req->app->catalog;
    cJSON *doc = NULL;
    struct engine_estimate_request *er = NULL;
    struct engine_plan *plan = NULL;
    char err[512] = "", field[96] = "";
    int rc = 0;
    struct resp_key key;

    if (!cat)
        return no_catalog(req);
    if (!http_body(req, req->app->json_limit))
        return 0;
    resp_cache_key("estimate", req->body, req->body_len, &key);
    if (reply_cached(req, &key))
        return 0;
    if (json_parse(req->body, req->body_len, &doc, err, sizeof err) != ST_OK)
        return bad_input(req, "body", err);
    er = calloc(1, sizeof *er);
    plan = calloc(1, sizeof *plan);
    if (!er || !plan) {
        http_problem_status(req, ST_NOMEM, "out of memory");
        goto out;
    }
    if (json_estimate_decode(doc, er, field, sizeof field, err, sizeof err) != ST_OK ||
        engine_workload_resolve(&er->workload, cat, err, sizeof err) != ST_OK ||
        engine_estimate(cat, er, plan, err, sizeof err) != ST_OK) {
        bad_input(req, field, err);
        goto out;
    }
    {
        size_t len = 0;
        char *text = json_estimate_text(&er->workload, plan, &len);
        reply_and_keep(req, &key, text, len);
    }
out:
    cJSON_Delete(doc);
    free(plan);
    free(er);
    return rc;
}

int http_catalog(struct http_req *req)
{
    if (!req->app->catalog)
        return no_catalog(req);
    http_json(req, 200, json_catalog_encode(req->app->catalog));
    return 0;
}
