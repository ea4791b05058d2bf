/* webhook.c: the background webhook sender.
 *
 * Events are written to the webhook_deliveries outbox in the same
 * transaction as the change that caused them (webhook_enqueue); this one
 * thread, with its own database connection, sends what is due, so a slow or
 * dead receiver never holds up a request. Each POST is signed:
 * X-Gpuplan-Signature: sha256=HEX(HMAC-SHA256(secret, TIMESTAMP "." BODY)),
 * with the timestamp in X-Gpuplan-Timestamp so receivers can refuse
 * replays. A failed attempt (network error or non-2xx) is retried with
 * exponential backoff (1 s, 2 s, 4 s ... capped at an hour) up to
 * WEBHOOK_MAX_ATTEMPTS, then marked failed; every attempt is recorded and
 * visible to the team. Unless the server runs with --webhook-allow-private,
 * the client refuses to connect to loopback, private, link-local, multicast
 * and other non-public addresses (SSRF guard, netaddr.c); such a delivery is
 * failed at once, with the refused address in its log, since retrying the
 * same policy would only repeat the refusal. */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

#define WEBHOOK_MAX_ATTEMPTS 8
#define WEBHOOK_TIMEOUT_S 10
#define WEBHOOK_BATCH 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t worker;
static int running, stopping, pending_wake;
static int allow_private; /* --webhook-allow-private */
static struct db *wdb;

void webhook_notify(void)
{
    pthread_mutex_lock(&lock);
    pending_wake = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

enum status webhook_enqueue(struct db *db, long long team_id, const char *event, const cJSON *data, char *err,
                            size_t errlen)
{
    long long now = (long long)time(NULL);
    cJSON *doc = cJSON_CreateObject();
    char *text = NULL;
    enum status st;
    cJSON_AddStringToObject(doc, "event", event);
    json_add_time(doc, "created_at", now);
    cJSON_AddNumberToObject(doc, "team_id", (double)team_id);
    cJSON_AddItemToObject(doc, "data", cJSON_Duplicate(data, 1));
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text)
        return ST_NOMEM;
    st = db_webhook_enqueue(db, team_id, event, text, now, NULL, err, errlen);
    cJSON_free(text);
    return st;
}

static long long backoff_s(int attempts)
{
    long long d = 1;
    for (int i = 1; i < attempts && d < 3600; i++)
        d *= 2;
    return d < 3600 ? d : 3600;
}

struct batch {
    struct db_delivery items[WEBHOOK_BATCH];
    int n;
};

/* Copies due deliveries out first: the sends take network time, and no
 * read statement should stay open (or see its own updates) meanwhile. */
static int collect(void *ud, const struct db_delivery *d)
{
    struct batch *b = ud;
    struct db_delivery *c = &b->items[b->n];
    *c = *d;
    c->secret = strdup(d->secret);
    c->payload = strdup(d->payload);
    if (!c->secret || !c->payload) {
        db_delivery_release(c);
        return 1;
    }
    b->n++;
    return b->n == WEBHOOK_BATCH;
}

static int send_one(const struct db_delivery *d)
{
    long long now = (long long)time(NULL);
    char ts[32], sig_header[128], id_header[64], event_header[64], hex[65], err[256] = "";
    unsigned char mac[32];
    struct sbuf signed_text = {0};
    struct client_response resp;

    snprintf(ts, sizeof ts, "%lld", now);
    sbuf_adds(&signed_text, ts);
    sbuf_add(&signed_text, ".", 1);
    sbuf_adds(&signed_text, d->payload);
    if (signed_text.failed) {
        sbuf_release(&signed_text);
        return 1;
    }
    crypto_hmac_sha256(d->secret, strlen(d->secret), signed_text.buf, signed_text.len, mac);
    sbuf_release(&signed_text);
    crypto_hex(mac, sizeof mac, hex);
    crypto_wipe(mac, sizeof mac);
    char ts_header[64];
    snprintf(ts_header, sizeof ts_header, "X-Gpuplan-Timestamp: %s", ts);
    snprintf(sig_header, sizeof sig_header, "X-Gpuplan-Signature: sha256=%s", hex);
    snprintf(id_header, sizeof id_header, "X-Gpuplan-Delivery: %lld", d->id);
    snprintf(event_header, sizeof event_header, "X-Gpuplan-Event: %s", d->event);
    const char *headers[] = {"Content-Type: application/json", ts_header, sig_header, id_header, event_header, NULL};
    struct client_request rq = {
        .method = "POST", .url = d->url, .headers = headers, .body = d->payload,
        .body_len = strlen(d->payload), .timeout_s = WEBHOOK_TIMEOUT_S, .public_only = !allow_private,
    };
    enum status st = client_send(&rq, &resp, err, sizeof err);
    int attempts = d->attempts + 1;
    int ok = st == ST_OK && resp.status >= 200 && resp.status < 300;
    int give_up = !ok && (attempts >= WEBHOOK_MAX_ATTEMPTS || st == ST_FORBIDDEN);
    if (st == ST_OK && !ok)
        snprintf(err, sizeof err, "the receiver answered HTTP %ld", resp.status);
    const char *state = ok ? "delivered" : give_up ? "failed" : "pending";
    metrics_webhook(ok ? "delivered" : give_up ? "failed" : "retry");
    if (!ok)
        log_msg(LOG_WARN, "webhook delivery %lld (attempt %d) failed: %s", d->id, attempts, err);
    char dberr[256] = "";
    if (db_delivery_update(wdb, d->id, state, attempts, ok ? now : now + backoff_s(attempts),
                           st == ST_OK ? (int)resp.status : 0, ok ? NULL : err, ok ? now : 0, dberr,
                           sizeof dberr) != ST_OK) {
        metrics_db_error();
        log_msg(LOG_ERROR, "webhook: %s", dberr);
    }
    client_response_release(&resp);
    pthread_mutex_lock(&lock);
    int stop = stopping;
    pthread_mutex_unlock(&lock);
    return stop;
}

/* Housekeeping rides on this thread, which already owns a connection and
 * wakes at least once a minute: expired sessions and old login failures go. */
static void purge(long long *last)
{
    char err[256];
    long long now = (long long)time(NULL);
    if (now - *last < 3600)
        return;
    *last = now;
    if (db_purge_expired(wdb, now, now - 86400, err, sizeof err) != ST_OK) {
        metrics_db_error();
        log_msg(LOG_ERROR, "purge: %s", err);
    }
}

static void *run(void *arg)
{
    (void)arg;
    char err[256];
    long long last_purge = 0;
    for (;;) {
        purge(&last_purge);
        pthread_mutex_lock(&lock);
        int stop = stopping;
        pending_wake = 0;
        pthread_mutex_unlock(&lock);
        if (stop)
            break;
        struct batch b;
        b.n = 0;
        if (db_delivery_due(wdb, (long long)time(NULL), WEBHOOK_BATCH, collect, &b, err, sizeof err) != ST_OK) {
            metrics_db_error();
            log_msg(LOG_ERROR, "webhook: %s", err);
        }
        for (int i = 0; i < b.n; i++) {
            if (!stop)
                stop = send_one(&b.items[i]);
            db_delivery_release(&b.items[i]);
        }
        if (stop)
            break;
        long long next = 0, now = (long long)time(NULL);
        if (db_delivery_next_due(wdb, &next, err, sizeof err) != ST_OK)
            next = 0;
        /* Sleep until the next retry is due, a new event arrives, or a minute passes. */
        long long wait_s = next > 0 ? next - now : 60;
        if (wait_s > 60)
            wait_s = 60;
        if (next > 0 && wait_s <= 0)
            continue;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += wait_s > 0 ? wait_s : 1;
        pthread_mutex_lock(&lock);
        while (!stopping && !pending_wake) {
            if (pthread_cond_timedwait(&wake, &lock, &until) != 0)
                break;
        }
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

enum status webhook_start(struct app *app, char *err, size_t errlen)
{
    enum status st = db_open(app->db_path, 0, &wdb, err, errlen);
    if (st != ST_OK)
        return st;
    stopping = 0;
    allow_private = app->webhook_allow_private;
    if (pthread_create(&worker, NULL, run, NULL) != 0) {
        db_close(wdb);
        wdb = NULL;
        snprintf(err, errlen, "cannot start the webhook worker thread");
        return ST_INTERNAL;
    }
    running = 1;
    return ST_OK;
}

void webhook_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(worker, NULL);
    running = 0;
    db_close(wdb);
    wdb = NULL;
}
