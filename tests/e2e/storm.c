/* storm.c: many CI clients at once against the real server (see storm.h).
 *
 * Each client is a thread making real HTTP requests with libcurl, one
 * connection per request as a CI job would. Every upload carries a unique
 * line, so every acknowledged report is a distinct row that the tests can
 * look up by id in the database file afterwards. */
#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storm.h"

#define WORKLOAD                                                                                   \
    "{\"model\":{\"preset\":\"llama-2-7b\"},\"task\":\"pretrain\",\"tokens_b\":100,\"seq_len\":4096," \
    "\"precision\":\"bf16\"}"

/* A report as a CI job posts it: nccl-tests all_reduce output. */
static const char report_text[] =
    "# nThread 1 nGpus 8 minBytes 1048576 maxBytes 1073741824 step: 4(factor) warmup iters: 5 iters: 20\n"
    "#\n"
    "#                                                              out-of-place                       in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
    "     1048576        262144     float     sum      -1    38.51   27.23   47.65      0    38.02   27.58   48.26      0\n"
    "     4194304       1048576     float     sum      -1    62.70   66.89  117.06      0    62.12   67.52  118.16      0\n"
    "    16777216       4194304     float     sum      -1    141.5  118.57  207.50      0    140.9  119.07  208.38      0\n"
    "    67108864      16777216     float     sum      -1    424.1  158.24  276.92      0    423.5  158.46  277.31      0\n"
    "   268435456      67108864     float     sum      -1   1483.3  180.97  316.70      0   1481.2  181.23  317.15      0\n"
    "  1073741824     268435456     float     sum      -1   5773.0  186.00  325.50      0   5770.1  186.09  325.66      0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 215.8\n";

struct worker {
    struct storm *s;
    int idx;
    int uploads; /* 1: uploader, 0: recommend caller */
};

static const char *jstr(const cJSON *doc, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int storm_setup(const struct e2e_server *srv, struct storm_team *team, char *why, size_t whylen)
{
    struct e2e_resp r;
    char sc[400], csrf_h[200], cookie_h[420];
    cJSON *doc = NULL;
    memset(team, 0, sizeof *team);

    static const char signup[] =
        "{\"team\":\"Storm\",\"email\":\"ci@storm.test\",\"password\":\"storm-password-1234\"}";
    const char *json[] = {"Content-Type: application/json", NULL};
    if (e2e_request(srv, "POST", "/api/v1/teams", json, signup, strlen(signup), &r) != 0) {
        snprintf(why, whylen, "sign-up got no answer");
        return -1;
    }
    if (r.status == 404) {
        e2e_resp_release(&r);
        return 1;
    }
    if (r.status != 201 || !e2e_resp_header(&r, "Set-Cookie", sc, sizeof sc) || !(doc = cJSON_Parse(r.body)) ||
        !jstr(doc, "csrf_token")) {
        snprintf(why, whylen, "sign-up answered %ld: %.200s", r.status, r.body ? r.body : "");
        cJSON_Delete(doc);
        e2e_resp_release(&r);
        return -1;
    }
    char *semi = strchr(sc, ';');
    if (semi)
        *semi = '\0';
    snprintf(team->cookie, sizeof team->cookie, "%s", sc);
    snprintf(team->csrf, sizeof team->csrf, "%s", jstr(doc, "csrf_token"));
    cJSON_Delete(doc);
    e2e_resp_release(&r);

    snprintf(cookie_h, sizeof cookie_h, "Cookie: %s", team->cookie);
    snprintf(csrf_h, sizeof csrf_h, "X-CSRF-Token: %s", team->csrf);
    const char *auth[] = {"Content-Type: application/json", cookie_h, csrf_h, NULL};
    for (int i = 0; i < STORM_TOKENS; i++) {
        char body[64];
        snprintf(body, sizeof body, "{\"name\":\"ci-%d\"}", i);
        const char *tok = NULL;
        if (e2e_request(srv, "POST", "/api/v1/tokens", auth, body, strlen(body), &r) != 0 || r.status != 201 ||
            !(doc = cJSON_Parse(r.body)) || !(tok = jstr(doc, "token"))) {
            snprintf(why, whylen, "token creation answered %ld: %.200s", r.status, r.body ? r.body : "");
            cJSON_Delete(doc);
            e2e_resp_release(&r);
            return -1;
        }
        snprintf(team->tokens[i], sizeof team->tokens[i], "%s", tok);
        cJSON_Delete(doc);
        e2e_resp_release(&r);
    }

    static const char plan[] = "{\"title\":\"storm\",\"workload\":" WORKLOAD "}";
    if (e2e_request(srv, "POST", "/api/v1/plans", auth, plan, strlen(plan), &r) != 0 || r.status != 201 ||
        !(doc = cJSON_Parse(r.body)) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(doc, "id"))) {
        snprintf(why, whylen, "plan creation answered %ld: %.200s", r.status, r.body ? r.body : "");
        cJSON_Delete(doc);
        e2e_resp_release(&r);
        return -1;
    }
    team->plan_id = (long)cJSON_GetObjectItemCaseSensitive(doc, "id")->valuedouble;
    cJSON_Delete(doc);
    e2e_resp_release(&r);
    return 0;
}

void storm_init(struct storm *s, const struct e2e_server *srv, const struct storm_team *team)
{
    memset(s, 0, sizeof *s);
    s->srv = srv;
    s->team = team;
    pthread_mutex_init(&s->lock, NULL);
}

void storm_release(struct storm *s)
{
    free(s->acked);
    pthread_mutex_destroy(&s->lock);
    s->acked = NULL;
}

static void note_error(struct storm *s, long *counter, const char *what, long status, const char *body)
{
    pthread_mutex_lock(&s->lock);
    (*counter)++;
    if (!s->first_error[0])
        snprintf(s->first_error, sizeof s->first_error, "%s answered %ld: %.300s", what, status, body ? body : "");
    pthread_mutex_unlock(&s->lock);
}

/* Judges one answer; returns 1 when it is the expected status. */
static int judge(struct storm *s, const char *what, int rc, const struct e2e_resp *r, long want)
{
    if (rc != 0) {
        pthread_mutex_lock(&s->lock);
        s->transport_errors++;
        pthread_mutex_unlock(&s->lock);
        return 0;
    }
    if (r->body && (strstr(r->body, "SQLITE_BUSY") || strstr(r->body, "database is locked"))) {
        note_error(s, &s->busy_errors, what, r->status, r->body);
        return 0;
    }
    if (r->status >= 500) {
        note_error(s, &s->server_errors, what, r->status, r->body);
        return 0;
    }
    if (r->status != want) {
        note_error(s, &s->other_errors, what, r->status, r->body);
        return 0;
    }
    return 1;
}

static void *worker_run(void *arg)
{
    struct worker *w = arg;
    struct storm *s = w->s;
    char path[128], auth[200], source[96];
    size_t cap = sizeof report_text + 128;
    char *text = malloc(cap);

    snprintf(path, sizeof path, "/api/v1/plans/%ld/reports", s->team->plan_id);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->team->tokens[w->idx % STORM_TOKENS]);
    snprintf(source, sizeof source, "X-Report-Source: storm-client-%d", w->idx);
    for (long seq = 0; !s->stop && text; seq++) {
        struct e2e_resp r;
        if (w->uploads) {
            /* A unique first line: every acknowledged upload is its own row. */
            int n = snprintf(text, cap, "# storm client %d upload %ld\n%s", w->idx, seq, report_text);
            const char *h[] = {"Content-Type: text/plain", auth, source, NULL};
            int rc = e2e_request(s->srv, "POST", path, h, text, (size_t)n, &r);
            if (judge(s, "upload", rc, &r, 201)) {
                cJSON *doc = cJSON_Parse(r.body);
                const cJSON *id = doc ? cJSON_GetObjectItemCaseSensitive(doc, "id") : NULL;
                pthread_mutex_lock(&s->lock);
                s->uploads++;
                if (cJSON_IsNumber(id)) {
                    if (s->nacked == s->capacked) {
                        size_t nc = s->capacked ? s->capacked * 2 : 1024;
                        long *na = realloc(s->acked, nc * sizeof *na);
                        if (na) {
                            s->acked = na;
                            s->capacked = nc;
                        }
                    }
                    if (s->nacked < s->capacked)
                        s->acked[s->nacked++] = (long)id->valuedouble;
                } else if (!s->first_error[0]) {
                    snprintf(s->first_error, sizeof s->first_error, "a 201 without an id: %.200s", r.body);
                    s->other_errors++;
                }
                pthread_mutex_unlock(&s->lock);
                cJSON_Delete(doc);
            }
            if (rc == 0)
                e2e_resp_release(&r);
        } else {
            static const char body[] = WORKLOAD;
            const char *h[] = {"Content-Type: application/json", NULL};
            int rc = e2e_request(s->srv, "POST", "/api/v1/recommend", h, body, sizeof body - 1, &r);
            if (judge(s, "recommend", rc, &r, 200)) {
                pthread_mutex_lock(&s->lock);
                s->recommends++;
                pthread_mutex_unlock(&s->lock);
            }
            if (rc == 0)
                e2e_resp_release(&r);
        }
    }
    free(text);
    free(w);
    return NULL;
}

int storm_start(struct storm *s, pthread_t *threads, int uploaders, int recommenders)
{
    for (int i = 0; i < uploaders + recommenders; i++) {
        struct worker *w = calloc(1, sizeof *w);
        if (!w)
            return -1;
        w->s = s;
        w->idx = i;
        w->uploads = i < uploaders;
        if (pthread_create(&threads[i], NULL, worker_run, w) != 0) {
            free(w);
            return -1;
        }
    }
    return 0;
}

void storm_join(struct storm *s, pthread_t *threads, int n)
{
    s->stop = 1;
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
}

long storm_missing_reports(const char *db_path, const long *ids, size_t n)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long missing = 0;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT count(*) FROM reports WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, ids[i]);
        if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) != 1)
            missing++;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return missing;
}

long storm_count_reports(const char *db_path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long n = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM reports", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

int storm_integrity_ok(const char *db_path, char *result, size_t resultlen)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int ok = 0;
    snprintf(result, resultlen, "cannot open %s", db_path);
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(result, resultlen, "%s", t ? (const char *)t : "(null)");
        ok = t && strcmp((const char *)t, "ok") == 0;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}
