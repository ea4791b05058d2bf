/* test_engine_http.c: the planner end to end: POST /api/v1/recommend,
 * POST /api/v1/estimate and GET /api/v1/catalog on the real server over
 * loopback, and the CLI giving the same answer as the API. */
#include <check.h>
#include <pthread.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "e2e.h"

static struct e2e_server srv;

static void start_default(void)
{
    ck_assert_int_eq(e2e_start(&srv, NULL, NULL), 0);
}

static void stop_default(void)
{
    ck_assert_int_eq(e2e_stop(&srv), 0);
}

static cJSON *post_json(const char *path, const char *body, long want_status)
{
    struct e2e_resp r;
    const char *headers[] = {"Content-Type: application/json", NULL};
    cJSON *doc;
    ck_assert_int_eq(e2e_request(&srv, "POST", path, headers, body, strlen(body), &r), 0);
    ck_assert_msg(r.status == want_status, "%s: status %ld, body %s", path, r.status, r.body);
    doc = cJSON_Parse(r.body);
    ck_assert_ptr_nonnull(doc);
    e2e_resp_release(&r);
    return doc;
}

static const char *WORKLOAD =
    "{\"model\": {\"preset\": \"llama-3-8b\"}, \"task\": \"pretrain\", \"tokens_b\": 300, \"deadline_days\": 20,"
    " \"pricing\": \"cloud\"}";

START_TEST(catalog_lists_gpus_fabrics_storage_and_presets_with_dates)
{
    struct e2e_resp r;
    cJSON *doc, *gpus, *g;
    ck_assert_int_eq(e2e_request(&srv, "GET", "/api/v1/catalog", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    doc = cJSON_Parse(r.body);
    ck_assert_ptr_nonnull(doc);
    gpus = cJSON_GetObjectItem(doc, "gpus");
    ck_assert_int_ge(cJSON_GetArraySize(gpus), 21);
    g = cJSON_GetArrayItem(gpus, 0);
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetObjectItem(g, "price"), "as_of")));
    ck_assert_int_ge(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "fabrics")), 7);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "storage")), 5);
    ck_assert_int_ge(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "presets")), 10);
    cJSON_Delete(doc);
    e2e_resp_release(&r);
}
END_TEST

START_TEST(recommend_returns_three_tiers_in_order)
{
    static const char *const names[] = {"minimum", "recommended", "performance"};
    cJSON *doc = post_json("/api/v1/recommend", WORKLOAD, 200), *tiers;
    tiers = cJSON_GetObjectItem(doc, "tiers");
    ck_assert_int_eq(cJSON_GetArraySize(tiers), 3);
    for (int i = 0; i < 3; i++) {
        cJSON *t = cJSON_GetArrayItem(tiers, i);
        ck_assert_str_eq(cJSON_GetObjectItem(t, "tier")->valuestring, names[i]);
        ck_assert(cJSON_IsBool(cJSON_GetObjectItem(t, "feasible")));
        ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "gpu"), "count")));
        ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "memory"), "per_gpu_gib")));
        ck_assert(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "fabric"), "topology")));
        ck_assert(cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "storage"), "checkpoint")));
        ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "time"), "days")));
        ck_assert(cJSON_IsArray(cJSON_GetObjectItem(t, "expectations")));
        ck_assert(cJSON_IsArray(cJSON_GetObjectItem(t, "rationale")));
        ck_assert(cJSON_IsArray(cJSON_GetObjectItem(t, "bom")));
    }
    cJSON_Delete(doc);
}
END_TEST

START_TEST(invalid_workload_is_a_400_problem_naming_the_field)
{
    cJSON *doc = post_json("/api/v1/recommend", "{\"model\": {\"preset\": \"llama-3-8b\"}, \"tokens_b\": -5}", 400);
    ck_assert_str_eq(cJSON_GetObjectItem(doc, "field")->valuestring, "tokens_b");
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "status")->valueint, 400);
    cJSON_Delete(doc);
    doc = post_json("/api/v1/recommend", "{\"model\": {\"preset\": \"nope\"}, \"tokens_b\": 5}", 400);
    ck_assert_str_eq(cJSON_GetObjectItem(doc, "field")->valuestring, "model.preset");
    cJSON_Delete(doc);
    doc = post_json("/api/v1/recommend", "{\"model\": ", 400);
    ck_assert_str_eq(cJSON_GetObjectItem(doc, "field")->valuestring, "body");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(estimate_evaluates_a_fixed_cluster)
{
    cJSON *doc = post_json("/api/v1/estimate",
                           "{\"model\": {\"preset\": \"llama-3-70b\"}, \"tokens_b\": 2000, \"cluster\": {\"gpu\": "
                           "\"h100-sxm-80gb\", \"count\": 512, \"per_node\": 8}, \"parallel\": {\"tp\": 8}}",
                           200);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(doc, "feasible")));
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "parallel"), "tp")->valueint, 8);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "gpu"), "nodes")->valueint, 64);
    cJSON_Delete(doc);
    doc = post_json("/api/v1/estimate",
                    "{\"model\": {\"preset\": \"llama-3-70b\"}, \"tokens_b\": 2000, \"cluster\": {\"gpu\": "
                    "\"h100-sxm-80gb\", \"count\": 0}}",
                    400);
    ck_assert_str_eq(cJSON_GetObjectItem(doc, "field")->valuestring, "cluster.count");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(cli_and_api_give_the_same_plan)
{
    char path[] = "/tmp/gpuplan-e2e-workload-XXXXXX";
    int fd = mkstemp(path);
    char *out = NULL, *err = NULL;
    cJSON *api, *cli;
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq((int)write(fd, WORKLOAD, strlen(WORKLOAD)), (int)strlen(WORKLOAD));
    close(fd);
    const char *argv[] = {"gpuplan", "recommend", path, NULL};
    ck_assert_int_eq(e2e_run(argv, NULL, &out, &err), 0);
    unlink(path);
    cli = cJSON_Parse(out);
    api = post_json("/api/v1/recommend", WORKLOAD, 200);
    ck_assert_ptr_nonnull(cli);
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(cli, "tiers"), cJSON_GetObjectItem(api, "tiers"), 1));
    cJSON_Delete(cli);
    cJSON_Delete(api);
    free(out);
    free(err);
}
END_TEST


/* The value of a /metrics line that starts with `name ` (-1: none). */
static long metric_now(const char *name)
{
    struct e2e_resp m;
    char key[160];
    long v = -1;
    snprintf(key, sizeof key, "\n%s ", name);
    ck_assert_int_eq(e2e_request(&srv, "GET", "/metrics", NULL, NULL, 0, &m), 0);
    const char *at = strstr(m.body, key);
    if (at)
        v = strtol(at + strlen(key), NULL, 10);
    e2e_resp_release(&m);
    return v;
}

START_TEST(repeated_bodies_are_answered_from_the_plan_cache)
{
    static const char body[] = "{\"model\":{\"preset\":\"llama-3-8b\"},\"task\":\"finetune\",\"tokens_b\":3}";
    static const char other[] = "{\"model\":{\"preset\":\"llama-3-8b\"},\"task\":\"finetune\",\"tokens_b\":4}";
    static const char bad[] = "{\"model\":{\"preset\":\"llama-3-8b\"},\"task\":\"finetune\",\"tokens_b\":-4}";
    const char *json[] = {"Content-Type: application/json", NULL};
    struct e2e_resp a, b, c, d;
    char h[32];
    long kept0 = metric_now("gpuplan_plan_cache_answers_total{result=\"kept\"}");
    long declined0 = metric_now("gpuplan_plan_cache_answers_total{result=\"declined\"}");
    ck_assert_int_ge(kept0, 0);
    ck_assert_int_ge(declined0, 0);
    ck_assert_int_eq(e2e_request(&srv, "POST", "/api/v1/recommend", json, body, sizeof body - 1, &a), 0);
    ck_assert_int_eq(a.status, 200);
    ck_assert_ptr_nonnull(e2e_resp_header(&a, "X-Gpuplan-Cache", h, sizeof h));
    ck_assert_str_eq(h, "miss");
    /* The cache keeps a body's answer the second time it is answered
     * (resp_cache.c: the doorkeeper), and takes it right after sending it
     * (no copy), so a request sent the moment an answer arrives can still
     * miss: ask again until the cache answers. */
    for (int tries = 0;; tries++) {
        ck_assert_int_eq(e2e_request(&srv, "POST", "/api/v1/recommend", json, body, sizeof body - 1, &b), 0);
        ck_assert_int_eq(b.status, 200);
        ck_assert_ptr_nonnull(e2e_resp_header(&b, "X-Gpuplan-Cache", h, sizeof h));
        if (strcmp(h, "hit") == 0 || tries == 50)
            break;
        ck_assert_str_eq(a.body, b.body);
        e2e_resp_release(&b);
        usleep(20000);
    }
    ck_assert_str_eq(h, "hit");
    ck_assert_str_eq(a.body, b.body); /* the same answer, byte for byte */
    ck_assert_int_eq(e2e_request(&srv, "POST", "/api/v1/recommend", json, other, sizeof other - 1, &c), 0);
    ck_assert_ptr_nonnull(e2e_resp_header(&c, "X-Gpuplan-Cache", h, sizeof h));
    ck_assert_str_eq(h, "miss");
    /* Only tokens_b changed: the layout search comes from the memo. */
    ck_assert_ptr_nonnull(e2e_resp_header(&c, "X-Gpuplan-Search", h, sizeof h));
    ck_assert_str_eq(h, "memo");
    ck_assert_str_ne(a.body, c.body);
    for (int i = 0; i < 2; i++) { /* errors are never kept */
        ck_assert_int_eq(e2e_request(&srv, "POST", "/api/v1/recommend", json, bad, sizeof bad - 1, &d), 0);
        ck_assert_int_eq(d.status, 400);
        ck_assert_ptr_null(e2e_resp_header(&d, "X-Gpuplan-Cache", h, sizeof h));
        e2e_resp_release(&d);
    }
    ck_assert_int_eq(e2e_request(&srv, "GET", "/metrics", NULL, NULL, 0, &d), 0);
    ck_assert_ptr_nonnull(strstr(d.body, "gpuplan_plan_cache_lookups_total{result=\"hit\"}"));
    /* the first answer of each body declined (two bodies), the repeated
     * one kept (more than once only if a retry raced the kept answer) */
    ck_assert_int_eq(metric_now("gpuplan_plan_cache_answers_total{result=\"declined\"}") - declined0, 2);
    ck_assert_int_ge(metric_now("gpuplan_plan_cache_answers_total{result=\"kept\"}") - kept0, 1);
    ck_assert_ptr_nonnull(strstr(d.body, "gpuplan_search_memo_lookups_total{result=\"hit\"}"));
    e2e_resp_release(&a);
    e2e_resp_release(&b);
    e2e_resp_release(&c);
    e2e_resp_release(&d);
}
END_TEST

/* Every byte the server sends for one raw request (Connection: close),
 * read until it closes: what a client on a kept-alive connection would
 * have to take as the next answer if a HEAD reply carried body bytes. */
static size_t raw_exchange(const char *method, const char *path, char *buf, size_t cap)
{
    char req[512];
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), n;
    size_t got = 0;
    ck_assert_int_ge(fd, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)srv.port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", method, path);
    ck_assert_int_eq((int)write(fd, req, (size_t)n), n);
    for (ssize_t r; got < cap - 1 && (r = read(fd, buf + got, cap - 1 - got)) > 0;)
        got += (size_t)r;
    buf[got] = '\0';
    close(fd);
    return got;
}

/* A head's Content-Length (-1 when absent) and where its body starts. */
static long head_length(const char *reply, size_t *body_at)
{
    const char *end = strstr(reply, "\r\n\r\n"), *cl = strstr(reply, "\r\nContent-Length: ");
    ck_assert_ptr_nonnull(end);
    *body_at = (size_t)(end + 4 - reply);
    return cl && cl < end ? strtol(cl + 18, NULL, 10) : -1;
}

/* HEAD answers with GET's head (its Content-Length included) and not one
 * byte of body, for a small answer (assembled beside its head) and for
 * large ones (copied beside it, or written in two). */
START_TEST(head_requests_get_the_get_head_and_no_body_bytes)
{
    static const char *const paths[] = {"/healthz", "/api/v1/catalog", "/openapi.json"};
    enum { CAP = 1 << 21 };
    char *get = malloc(CAP), *head = malloc(CAP);
    int large = 0;
    ck_assert(get && head);
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        size_t gn = raw_exchange("GET", paths[i], get, CAP), hn = raw_exchange("HEAD", paths[i], head, CAP);
        size_t gat = 0, hat = 0;
        long glen = head_length(get, &gat), hlen = head_length(head, &hat);
        ck_assert_msg(strncmp(get, "HTTP/1.1 200 ", 13) == 0, "%s: %.40s", paths[i], get);
        ck_assert_msg(strncmp(head, "HTTP/1.1 200 ", 13) == 0, "%s: %.40s", paths[i], head);
        ck_assert_int_eq(glen, (long)(gn - gat));   /* GET: the whole body, as declared */
        ck_assert_int_eq(hlen, glen);              /* HEAD: the same length declared */
        ck_assert_msg(hn == hat, "%s: HEAD sent %zu bytes after its head", paths[i], hn - hat);
        ck_assert_uint_eq(hat, gat);               /* and the same head */
        ck_assert_int_eq(memcmp(get, head, gat), 0);
        large += glen > 8192;
    }
    ck_assert_int_ge(large, 1);
    free(get);
    free(head);
}
END_TEST

/* Memo hits answered at once by several workers: each worker keeps its own
 * text cache of answer parts (server/json_plan.c) across the requests it
 * serves. Every answer must be the plan the CLI (plain engine_recommend,
 * plain writer, no memo, no cache) gives for the same body, whole document. */
enum { HIT_THREADS = 4, HIT_REQUESTS = 3 };
struct hit_job {
    int t;
    char body[HIT_REQUESTS][256];
    char *answer[HIT_REQUESTS];
    long status[HIT_REQUESTS];
    int memo[HIT_REQUESTS];   /* X-Gpuplan-Search said memo */
};

static void *post_hits(void *arg)
{
    struct hit_job *j = arg;
    const char *json[] = {"Content-Type: application/json", NULL};
    for (int k = 0; k < HIT_REQUESTS; k++) {
        struct e2e_resp r;
        char h[16];
        if (e2e_request(&srv, "POST", "/api/v1/recommend", json, j->body[k], strlen(j->body[k]), &r) != 0)
            continue;
        j->status[k] = r.status;
        j->memo[k] = e2e_resp_header(&r, "X-Gpuplan-Search", h, sizeof h) && strcmp(h, "memo") == 0;
        j->answer[k] = strdup(r.body);
        e2e_resp_release(&r);
    }
    return NULL;
}

START_TEST(concurrent_memo_hits_answer_the_plans_the_cli_gives)
{
    static const char fmt[] = "{\"model\": {\"preset\": \"llama-3-70b\"}, \"tokens_b\": %d.%d, \"deadline_days\": %d,"
                              " \"budget_usd\": %d, \"pricing\": \"cloud\"}";
    struct hit_job jobs[HIT_THREADS];
    pthread_t th[HIT_THREADS];
    cJSON *first;

    /* the search runs once; every request below is a memo hit */
    first = post_json("/api/v1/recommend", "{\"model\": {\"preset\": \"llama-3-70b\"}, \"tokens_b\": 1}", 200);
    cJSON_Delete(first);
    for (int t = 0; t < HIT_THREADS; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].t = t;
        for (int k = 0; k < HIT_REQUESTS; k++)
            snprintf(jobs[t].body[k], sizeof jobs[t].body[k], fmt, 50 + 700 * t + 300 * k, 7 * t + k + 1,
                     10 + 40 * k, 300000 * (t + 1) * (k + 1));
        ck_assert_int_eq(pthread_create(&th[t], NULL, post_hits, &jobs[t]), 0);
    }
    for (int t = 0; t < HIT_THREADS; t++)
        ck_assert_int_eq(pthread_join(th[t], NULL), 0);
    for (int t = 0; t < HIT_THREADS; t++)
        for (int k = 0; k < HIT_REQUESTS; k++) {
            char path[] = "/tmp/gpuplan-e2e-workload-XXXXXX";
            int fd = mkstemp(path);
            char *out = NULL, *err = NULL;
            const char *argv[] = {"gpuplan", "recommend", path, NULL};
            cJSON *api, *cli;
            ck_assert_int_ge(fd, 0);
            ck_assert_int_eq((int)write(fd, jobs[t].body[k], strlen(jobs[t].body[k])), (int)strlen(jobs[t].body[k]));
            close(fd);
            ck_assert_int_eq(e2e_run(argv, NULL, &out, &err), 0);
            unlink(path);
            ck_assert_int_eq(jobs[t].status[k], 200);
            ck_assert_msg(jobs[t].memo[k], "%s: not a search memo hit", jobs[t].body[k]);
            ck_assert_ptr_nonnull(jobs[t].answer[k]);
            api = cJSON_Parse(jobs[t].answer[k]);
            cli = cJSON_Parse(out);
            ck_assert_ptr_nonnull(api);
            ck_assert_ptr_nonnull(cli);
            ck_assert_msg(cJSON_Compare(api, cli, 1), "%s: the server's answer is not the CLI's", jobs[t].body[k]);
            cJSON_Delete(api);
            cJSON_Delete(cli);
            free(jobs[t].answer[k]);
            free(out);
            free(err);
        }
}
END_TEST

/* A second server on a port that is taken exits 1, naming the address,
 * and leaves nothing behind: under scripts/valgrind-e2e.sh (the
 * engine_e2e_memcheck test) a leak on that path exits 99 instead. */
START_TEST(a_server_that_cannot_listen_exits_1_and_frees_what_it_made)
{
    char port[16], db[400], *out = NULL, *err = NULL;
    snprintf(port, sizeof port, "%d", srv.port);
    snprintf(db, sizeof db, "%s/second.db", srv.dir);
    const char *argv[] = {"gpuplan", "serve", "--listen", "127.0.0.1", "--port", port, "--db", db, "--quiet", NULL};
    int rc = e2e_run(argv, NULL, &out, &err);
    ck_assert_msg(rc == 1, "exit %d: %s", rc, err ? err : "");
    ck_assert_msg(err && strstr(err, "cannot listen on 127.0.0.1:") && strstr(err, port), "%s", err ? err : "");
    free(out);
    free(err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("engine_http");
    TCase *tc = tcase_create("running");
    tcase_add_unchecked_fixture(tc, start_default, stop_default);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, catalog_lists_gpus_fabrics_storage_and_presets_with_dates);
    tcase_add_test(tc, recommend_returns_three_tiers_in_order);
    tcase_add_test(tc, invalid_workload_is_a_400_problem_naming_the_field);
    tcase_add_test(tc, estimate_evaluates_a_fixed_cluster);
    tcase_add_test(tc, cli_and_api_give_the_same_plan);
    tcase_add_test(tc, repeated_bodies_are_answered_from_the_plan_cache);
    tcase_add_test(tc, concurrent_memo_hits_answer_the_plans_the_cli_gives);
    tcase_add_test(tc, head_requests_get_the_get_head_and_no_body_bytes);
    tcase_add_test(tc, a_server_that_cannot_listen_exits_1_and_frees_what_it_made);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
