/* test_rest.c: the team workflow end to end over real HTTP: accounts,
 * sessions, CSRF, API tokens, plans, reports with idempotency, shares,
 * webhooks, metrics, the OpenAPI document, `gpuplan submit` in a CI flow,
 * and what the database file holds afterwards.
 *
 * Sign-ups cost a real PBKDF2 (600,000 iterations), so one server and one
 * set of accounts (team A: owner and member; team B: owner) are made once
 * per test case by an unchecked fixture and shared by its tests. */
#define _GNU_SOURCE /* strcasestr, strptime, timegm: test code only */
#include <arpa/inet.h>
#include <check.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "server_int.h"

#define PASSWORD "correct horse battery staple"
/* Report texts from the checker's own cases: a degraded node (ECC errors, a
 * failed DCGM test: fails against any plan) and a healthy 8xH100 one (which
 * fails only gpu.model against these tests' RTX 6000 Ada plan). */
static char *REPORT_FAIL, *REPORT_OTHER;
#define WORKLOAD "{\"model\":{\"preset\":\"llama-2-7b\"},\"task\":\"pretrain\",\"tokens_b\":100,\"seq_len\":4096,\"precision\":\"bf16\"}"
#define WORKLOAD2 "{\"model\":{\"preset\":\"llama-2-7b\"},\"task\":\"pretrain\",\"tokens_b\":200,\"seq_len\":4096,\"precision\":\"bf16\"}"
/* No allowed cluster fits it: all three tiers "do not fit". */
#define WORKLOAD_UNFIT                                                                                                 \
    "{\"model\":{\"preset\":\"llama-3.1-405b\"},\"task\":\"pretrain\",\"tokens_b\":100,"                                \
    "\"gpus_allowed\":[\"l4-pcie-24gb\"],\"max_gpus\":8}"

struct who {
    char cookie[320];   /* "gpuplan_session=..." */
    char csrf[80];
    char set_cookie[300];
    long long team_id, user_id;
};

static struct e2e_server srv;
static struct who a_owner, a_member, b_owner;
static char a_token[80], b_token[80];
static long long a_plan, b_plan, a_report, b_report, a_share, b_share, a_token_id, b_token_id, a_invite;
static char a_share_token[80], a_invite_token[80];

/* ---- request helpers ---- */

static long call(const struct who *w, const char *bearer, const char *method, const char *path,
                 const char *ctype, const char *body, int with_csrf, struct e2e_resp *r)
{
    char cookie[340], csrf[120], auth[120], type[120];
    const char *h[6];
    int n = 0;
    if (w) {
        snprintf(cookie, sizeof cookie, "Cookie: %s", w->cookie);
        h[n++] = cookie;
        if (with_csrf) {
            snprintf(csrf, sizeof csrf, "X-CSRF-Token: %s", w->csrf);
            h[n++] = csrf;
        }
    }
    if (bearer) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", bearer);
        h[n++] = auth;
    }
    if (ctype) {
        snprintf(type, sizeof type, "Content-Type: %s", ctype);
        h[n++] = type;
    }
    h[n] = NULL;
    ck_assert_int_eq(e2e_request(&srv, method, path, h, body, body ? strlen(body) : 0, r), 0);
    return r->status;
}

/* A JSON call as w (cookie + CSRF); returns the status and the parsed body in *doc (may be NULL). */
static long jcall(const struct who *w, const char *method, const char *path, const char *body, cJSON **doc)
{
    struct e2e_resp r;
    long st = call(w, NULL, method, path, body ? "application/json" : NULL, body, 1, &r);
    if (doc)
        *doc = cJSON_Parse(r.body);
    e2e_resp_release(&r);
    return st;
}

static long long jid(const cJSON *doc, const char *name)
{
    const cJSON *v = cJSON_GetObjectItem(doc, name);
    ck_assert_msg(cJSON_IsNumber(v), "no number %s", name);
    return (long long)v->valuedouble;
}

static const char *jstr(const cJSON *doc, const char *name)
{
    const cJSON *v = cJSON_GetObjectItem(doc, name);
    ck_assert_msg(cJSON_IsString(v), "no string %s", name);
    return v->valuestring;
}

/* Reads the session cookie and CSRF token of an account answer into w. */
static void take_session(struct e2e_resp *r, struct who *w)
{
    char sc[300];
    ck_assert_ptr_nonnull(e2e_resp_header(r, "Set-Cookie", sc, sizeof sc));
    snprintf(w->set_cookie, sizeof w->set_cookie, "%s", sc);
    char *semi = strchr(sc, ';');
    if (semi)
        *semi = '\0';
    snprintf(w->cookie, sizeof w->cookie, "%s", sc);
    cJSON *doc = cJSON_Parse(r->body);
    ck_assert_ptr_nonnull(doc);
    snprintf(w->csrf, sizeof w->csrf, "%s", jstr(doc, "csrf_token"));
    w->team_id = jid(cJSON_GetObjectItem(doc, "team"), "id");
    w->user_id = jid(cJSON_GetObjectItem(doc, "user"), "id");
    cJSON_Delete(doc);
}

static void signup(const char *team, const char *email, struct who *w)
{
    char body[300];
    struct e2e_resp r;
    snprintf(body, sizeof body, "{\"team\":\"%s\",\"email\":\"%s\",\"password\":\"%s\"}", team, email, PASSWORD);
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/teams", "application/json", body, 0, &r), 201);
    take_session(&r, w);
    e2e_resp_release(&r);
}

static void make_token(const struct who *w, char *out, size_t outlen, long long *id)
{
    cJSON *doc = NULL;
    ck_assert_int_eq(jcall(w, "POST", "/api/v1/tokens", "{\"name\":\"ci\"}", &doc), 201);
    snprintf(out, outlen, "%s", jstr(doc, "token"));
    *id = jid(doc, "id");
    cJSON_Delete(doc);
}

static long long make_plan(const struct who *w, const char *title)
{
    char body[600];
    cJSON *doc = NULL;
    snprintf(body, sizeof body, "{\"title\":\"%s\",\"workload\":%s}", title, WORKLOAD);
    ck_assert_int_eq(jcall(w, "POST", "/api/v1/plans", body, &doc), 201);
    long long id = jid(doc, "id");
    cJSON_Delete(doc);
    return id;
}

static long long upload(const char *bearer, long long plan, const char *text, const char *key, long expect,
                        cJSON **doc_out)
{
    char path[96], keyh[120];
    const char *h[4];
    int n = 0;
    char auth[120];
    struct e2e_resp r;
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports", plan);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", bearer);
    h[n++] = auth;
    h[n++] = "Content-Type: text/plain";
    if (key) {
        snprintf(keyh, sizeof keyh, "Idempotency-Key: %s", key);
        h[n++] = keyh;
    }
    h[n] = NULL;
    ck_assert_int_eq(e2e_request(&srv, "POST", path, h, text, strlen(text), &r), 0);
    ck_assert_msg(r.status == expect, "upload answered %ld: %s", r.status, r.body);
    long long id = 0;
    cJSON *doc = cJSON_Parse(r.body);
    if (r.status == 201)
        id = jid(doc, "id");
    if (doc_out)
        *doc_out = doc;
    else
        cJSON_Delete(doc);
    e2e_resp_release(&r);
    return id;
}

static long long make_share(const struct who *w, long long plan, char *token, size_t tokenlen)
{
    char path[96];
    cJSON *doc = NULL;
    snprintf(path, sizeof path, "/api/v1/plans/%lld/shares", plan);
    ck_assert_int_eq(jcall(w, "POST", path, "{}", &doc), 201);
    long long id = jid(doc, "id");
    if (token)
        snprintf(token, tokenlen, "%s", jstr(doc, "token"));
    cJSON_Delete(doc);
    return id;
}

/* ---- the shared fixture ---- */

static char *read_text(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/checks/%s", TESTDATA, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void start_world(void)
{
    /* The webhook receivers of these tests listen on 127.0.0.1. */
    static const char *const extra[] = {"--max-report", "65536", "--webhook-allow-private", NULL};
    struct e2e_resp r;
    cJSON *doc = NULL;
    REPORT_FAIL = read_text("degraded-node.log");
    REPORT_OTHER = read_text("healthy-node.log");
    ck_assert_int_eq(e2e_start(&srv, NULL, extra), 0);
    signup("Team A", "owner@a.test", &a_owner);
    signup("Team B", "owner@b.test", &b_owner);
    ck_assert_int_eq(jcall(&a_owner, "POST", "/api/v1/invites", "{}", &doc), 201);
    char body[300];
    snprintf(body, sizeof body, "{\"token\":\"%s\",\"email\":\"member@a.test\",\"password\":\"%s\"}",
             jstr(doc, "token"), PASSWORD);
    a_invite = jid(doc, "id");
    snprintf(a_invite_token, sizeof a_invite_token, "%s", jstr(doc, "token"));
    cJSON_Delete(doc);
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/invites/accept", "application/json", body, 0, &r), 201);
    take_session(&r, &a_member);
    e2e_resp_release(&r);
    /* The same invite cannot be used twice. */
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/invites/accept", "application/json", body, 0, &r), 410);
    e2e_resp_release(&r);

    make_token(&a_owner, a_token, sizeof a_token, &a_token_id);
    make_token(&b_owner, b_token, sizeof b_token, &b_token_id);
    a_plan = make_plan(&a_member, "A cluster");
    b_plan = make_plan(&b_owner, "B cluster");
    a_report = upload(a_token, a_plan, REPORT_OTHER, NULL, 201, NULL);
    b_report = upload(b_token, b_plan, REPORT_OTHER, NULL, 201, NULL);
    a_share = make_share(&a_member, a_plan, a_share_token, sizeof a_share_token);
    b_share = make_share(&b_owner, b_plan, NULL, 0);
}

static void stop_world(void)
{
    e2e_stop(&srv);
}

/* ---- accounts, sessions, CSRF ---- */

START_TEST(signup_makes_an_owner_with_a_hardened_session_cookie)
{
    ck_assert_ptr_nonnull(strstr(a_owner.set_cookie, "gpuplan_session="));
    ck_assert_ptr_nonnull(strstr(a_owner.set_cookie, "HttpOnly"));
    ck_assert_ptr_nonnull(strstr(a_owner.set_cookie, "SameSite=Lax"));
    ck_assert_ptr_nonnull(strstr(a_owner.set_cookie, "Path=/"));
    ck_assert_ptr_null(strstr(a_owner.set_cookie, "Secure"));
    cJSON *doc = NULL;
    ck_assert_int_eq(jcall(&a_owner, "GET", "/api/v1/session", NULL, &doc), 200);
    ck_assert_str_eq(jstr(cJSON_GetObjectItem(doc, "user"), "role"), "owner");
    ck_assert_str_eq(jstr(cJSON_GetObjectItem(doc, "team"), "name"), "Team A");
    cJSON_Delete(doc);
    ck_assert_int_eq(jcall(&a_member, "GET", "/api/v1/session", NULL, &doc), 200);
    ck_assert_str_eq(jstr(cJSON_GetObjectItem(doc, "user"), "role"), "member");
    ck_assert_int_eq(jid(cJSON_GetObjectItem(doc, "team"), "id"), a_owner.team_id);
    cJSON_Delete(doc);
    ck_assert_int_eq(jcall(&a_owner, "GET", "/api/v1/team", NULL, &doc), 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "members")), 2);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(signup_refuses_short_passwords_bad_fields_and_taken_emails)
{
    struct e2e_resp r;
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/teams", "application/json",
                          "{\"team\":\"X\",\"email\":\"x@x.test\",\"password\":\"short\"}", 0, &r), 400);
    cJSON *doc = cJSON_Parse(r.body);
    ck_assert_str_eq(jstr(doc, "field"), "password");
    cJSON_Delete(doc);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/teams", "application/json",
                          "{\"team\":\"X\",\"email\":\"x@x.test\",\"password\":\"long enough pass\",\"admin\":true}", 0,
                          &r), 400);
    doc = cJSON_Parse(r.body);
    ck_assert_str_eq(jstr(doc, "field"), "admin");
    cJSON_Delete(doc);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/teams", "application/json",
                          "{\"team\":\"X\",\"email\":\"OWNER@a.test\",\"password\":\"long enough pass\"}", 0, &r), 409);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/teams", "application/json", "{not json", 0, &r), 400);
    e2e_resp_release(&r);
}
END_TEST

START_TEST(login_logout_and_a_dead_session_is_401)
{
    struct e2e_resp r;
    struct who w;
    char body[200];
    snprintf(body, sizeof body, "{\"email\":\"owner@b.test\",\"password\":\"%s\"}", PASSWORD);
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/session", "application/json", body, 0, &r), 200);
    take_session(&r, &w);
    e2e_resp_release(&r);
    ck_assert_int_eq(w.team_id, b_owner.team_id);
    /* Logging out is a change: it needs the CSRF header. */
    ck_assert_int_eq(call(&w, NULL, "DELETE", "/api/v1/session", NULL, NULL, 0, &r), 403);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(&w, NULL, "DELETE", "/api/v1/session", NULL, NULL, 1, &r), 204);
    char sc[200];
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Set-Cookie", sc, sizeof sc));
    ck_assert_ptr_nonnull(strstr(sc, "Max-Age=0"));
    e2e_resp_release(&r);
    ck_assert_int_eq(jcall(&w, "GET", "/api/v1/session", NULL, NULL), 401);
    /* The other session of the same user lives on. */
    ck_assert_int_eq(jcall(&b_owner, "GET", "/api/v1/session", NULL, NULL), 200);
}
END_TEST

START_TEST(failed_logins_are_rate_limited_per_account)
{
    struct e2e_resp r;
    const char *body = "{\"email\":\"nobody@x.test\",\"password\":\"wrong password 1\"}";
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/session", "application/json", body, 0, &r), 401);
        e2e_resp_release(&r);
    }
    ck_assert_int_eq(call(NULL, NULL, "POST", "/api/v1/session", "application/json", body, 0, &r), 429);
    char ra[32];
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Retry-After", ra, sizeof ra));
    e2e_resp_release(&r);
}
END_TEST

/* One failed sign-in on server s; returns the status and the Retry-After value in ra. */
static long sign_in(const struct e2e_server *s, const char *email, const char *password, char *ra, size_t ralen)
{
    char body[200];
    struct e2e_resp r;
    const char *h[] = {"Content-Type: application/json", NULL};
    snprintf(body, sizeof body, "{\"email\":\"%s\",\"password\":\"%s\"}", email, password);
    ck_assert_int_eq(e2e_request(s, "POST", "/api/v1/session", h, body, strlen(body), &r), 0);
    long st = r.status;
    if (!e2e_resp_header(&r, "Retry-After", ra, ralen))
        ra[0] = '\0';
    if (st == 429) {
        cJSON *doc = cJSON_Parse(r.body);
        snprintf(ra + strlen(ra), ralen - strlen(ra), "|%s", jstr(doc, "detail"));
        cJSON_Delete(doc);
    }
    e2e_resp_release(&r);
    return st;
}

START_TEST(failed_logins_are_rate_limited_per_account_and_per_address_by_the_serve_flags)
{
    /* Lower limits than the defaults (5 and 30), so the address limit is reached
     * with three password hashes instead of thirty. */
    static const char *const extra[] = {"--login-limit-account", "2", "--login-limit-address", "3", NULL};
    struct e2e_server s4;
    char ra[200];
    ck_assert_int_eq(e2e_start(&s4, NULL, extra), 0);
    ck_assert_int_eq(sign_in(&s4, "one@x.test", "wrong password 1", ra, sizeof ra), 401);
    ck_assert_int_eq(sign_in(&s4, "one@x.test", "wrong password 2", ra, sizeof ra), 401);
    ck_assert_str_eq(ra, "");
    /* The account's limit: its third attempt is refused before any hashing. */
    ck_assert_int_eq(sign_in(&s4, "one@x.test", "wrong password 3", ra, sizeof ra), 429);
    ck_assert_str_eq(ra, "900|too many failed sign-ins for this account; try again later");
    /* Another account from the same address: one more failure reaches the address's limit. */
    ck_assert_int_eq(sign_in(&s4, "two@x.test", "wrong password 1", ra, sizeof ra), 401);
    ck_assert_int_eq(sign_in(&s4, "three@x.test", "wrong password 1", ra, sizeof ra), 429);
    ck_assert_str_eq(ra, "900|too many failed sign-ins from this address; try again later");
    ck_assert_int_eq(e2e_stop(&s4), 0);
    /* The flags take whole numbers from 1. */
    static const char *const bad[] = {"--login-limit-address", "0", NULL};
    ck_assert_int_ne(e2e_start(&s4, NULL, bad), 0);
}
END_TEST

START_TEST(cookie_writes_need_the_csrf_header_and_tokens_do_not)
{
    struct e2e_resp r;
    char body[400];
    snprintf(body, sizeof body, "{\"title\":\"csrf\",\"workload\":%s}", WORKLOAD);
    ck_assert_int_eq(call(&a_member, NULL, "POST", "/api/v1/plans", "application/json", body, 0, &r), 403);
    e2e_resp_release(&r);
    struct who forged = a_member;
    snprintf(forged.csrf, sizeof forged.csrf, "%s", b_owner.csrf);
    ck_assert_int_eq(call(&forged, NULL, "POST", "/api/v1/plans", "application/json", body, 1, &r), 403);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(&a_member, NULL, "DELETE", "/api/v1/shares/999999", NULL, NULL, 0, &r), 403);
    e2e_resp_release(&r);
    /* Reads need no CSRF header. */
    ck_assert_int_eq(call(&a_member, NULL, "GET", "/api/v1/plans", NULL, NULL, 0, &r), 200);
    e2e_resp_release(&r);
    /* A bearer token needs none either. */
    upload(a_token, a_plan, REPORT_OTHER, NULL, 201, NULL);
}
END_TEST

START_TEST(members_cannot_do_what_only_owners_may)
{
    ck_assert_int_eq(jcall(&a_member, "POST", "/api/v1/tokens", "{\"name\":\"x\"}", NULL), 403);
    ck_assert_int_eq(jcall(&a_member, "GET", "/api/v1/tokens", NULL, NULL), 403);
    ck_assert_int_eq(jcall(&a_member, "POST", "/api/v1/invites", "{}", NULL), 403);
    ck_assert_int_eq(jcall(&a_member, "POST", "/api/v1/webhooks", "{\"url\":\"http://127.0.0.1:1/x\"}", NULL), 403);
    /* ... and API tokens open nothing but reports. */
    struct e2e_resp r;
    ck_assert_int_eq(call(NULL, a_token, "GET", "/api/v1/plans", NULL, NULL, 0, &r), 403);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(NULL, a_token, "POST", "/api/v1/tokens", "application/json", "{\"name\":\"x\"}", 0, &r), 403);
    e2e_resp_release(&r);
}
END_TEST

/* Every authenticated endpoint, with team A's objects in the path. */
struct ep {
    const char *method, *fmt, *body;
    int token_ok;
};
static const struct ep endpoints[] = {
    {"GET", "/api/v1/team", NULL, 0},
    {"GET", "/api/v1/session", NULL, 0},
    {"DELETE", "/api/v1/session", NULL, 0},
    {"GET", "/api/v1/tokens", NULL, 0},
    {"POST", "/api/v1/tokens", "{\"name\":\"x\"}", 0},
    {"DELETE", "/api/v1/tokens/%lld", NULL, 0},
    {"GET", "/api/v1/invites", NULL, 0},
    {"POST", "/api/v1/invites", "{}", 0},
    {"DELETE", "/api/v1/invites/%lld", NULL, 0},
    {"DELETE", "/api/v1/team/members/%lld", NULL, 0},
    {"GET", "/api/v1/plans", NULL, 0},
    {"POST", "/api/v1/plans", "{\"title\":\"t\",\"workload\":" WORKLOAD "}", 0},
    {"GET", "/api/v1/plans/%lld", NULL, 0},
    {"PUT", "/api/v1/plans/%lld", "{\"title\":\"stolen\"}", 0},
    {"DELETE", "/api/v1/plans/%lld", NULL, 0},
    {"PUT", "/api/v1/plans/%lld/tier", "{\"tier\":\"minimum\"}", 0},
    {"GET", "/api/v1/plans/%lld/revisions", NULL, 0},
    {"GET", "/api/v1/plans/%lld/revisions/1", NULL, 0},
    {"GET", "/api/v1/plans/%lld/diff?from=1&to=1", NULL, 0},
    {"POST", "/api/v1/plans/%lld/reports", "text", 1},
    {"GET", "/api/v1/plans/%lld/reports", NULL, 1},
    {"GET", "/api/v1/plans/%lld/reports/%lld", NULL, 1},
    {"POST", "/api/v1/plans/%lld/recheck", NULL, 0},
    {"POST", "/api/v1/plans/%lld/shares", "{}", 0},
    {"GET", "/api/v1/plans/%lld/shares", NULL, 0},
    {"DELETE", "/api/v1/shares/%lld", NULL, 0},
    {"GET", "/api/v1/webhooks", NULL, 0},
    {"POST", "/api/v1/webhooks", "{\"url\":\"http://127.0.0.1:1/x\"}", 0},
    {"DELETE", "/api/v1/webhooks/%lld", NULL, 0},
    {"GET", "/api/v1/webhooks/%lld/deliveries", NULL, 0},
};

static void ep_path(const struct ep *e, long long wid, char *out, size_t outlen)
{
    long long first = a_plan;
    if (strstr(e->fmt, "/tokens/"))
        first = a_token_id;
    else if (strstr(e->fmt, "/invites/"))
        first = a_invite;
    else if (strstr(e->fmt, "/members/"))
        first = a_member.user_id;
    else if (strstr(e->fmt, "/shares/"))
        first = a_share;
    else if (strstr(e->fmt, "/webhooks/"))
        first = wid;
    /* Fill the first %lld with the object's id and a second one with a report id. */
    long long ids[2] = {first, a_report};
    size_t o = 0;
    int k = 0;
    for (const char *f = e->fmt; *f && o + 24 < outlen; f++) {
        if (strncmp(f, "%lld", 4) == 0 && k < 2) {
            o += (size_t)snprintf(out + o, outlen - o, "%lld", ids[k++]);
            f += 3;
        } else {
            out[o++] = *f;
        }
    }
    out[o] = '\0';
}

START_TEST(every_endpoint_answers_401_without_credentials)
{
    for (size_t i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++) {
        char path[200];
        struct e2e_resp r;
        ep_path(&endpoints[i], 1, path, sizeof path);
        long st = call(NULL, NULL, endpoints[i].method, path,
                       endpoints[i].body ? (endpoints[i].body[0] == '{' ? "application/json" : "text/plain") : NULL,
                       endpoints[i].body, 0, &r);
        ck_assert_msg(st == 401, "%s %s answered %ld without credentials", endpoints[i].method, path, st);
        ck_assert_ptr_null(strstr(r.body, "A cluster"));
        e2e_resp_release(&r);
        /* A made-up token is no better. */
        st = call(NULL, "gpp_0000000000000000000000000000000000000000000000000000000000000000", endpoints[i].method,
                  path, NULL, NULL, 0, &r);
        ck_assert_msg(st == 401 || (st == 403 && !endpoints[i].token_ok), "%s %s answered %ld to a bad token",
                      endpoints[i].method, path, st);
        e2e_resp_release(&r);
    }
}
END_TEST

START_TEST(another_teams_objects_answer_404_and_never_their_data)
{
    /* Team A's webhook, to probe from team B. */
    cJSON *doc = NULL;
    ck_assert_int_eq(jcall(&a_owner, "POST", "/api/v1/webhooks", "{\"url\":\"http://127.0.0.1:1/x\"}", &doc), 201);
    long long wid = jid(doc, "id");
    cJSON_Delete(doc);
    for (size_t i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++) {
        char path[200];
        struct e2e_resp r;
        ep_path(&endpoints[i], wid, path, sizeof path);
        if (!strstr(endpoints[i].fmt, "%lld"))
            continue; /* no object in the path */
        const char *type = endpoints[i].body ? (endpoints[i].body[0] == '{' ? "application/json" : "text/plain") : NULL;
        long st = call(&b_owner, NULL, endpoints[i].method, path, type, endpoints[i].body, 1, &r);
        ck_assert_msg(st == 404, "%s %s answered %ld to another team", endpoints[i].method, path, st);
        ck_assert_ptr_null(strstr(r.body, "A cluster"));
        e2e_resp_release(&r);
        if (endpoints[i].token_ok) {
            st = call(NULL, b_token, endpoints[i].method, path, type, endpoints[i].body, 0, &r);
            ck_assert_msg(st == 404, "%s %s answered %ld to another team's token", endpoints[i].method, path, st);
            e2e_resp_release(&r);
        }
    }
    /* And team A still has all of it. */
    char path[64];
    snprintf(path, sizeof path, "/api/v1/plans/%lld", a_plan);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    ck_assert_str_eq(jstr(doc, "title"), "A cluster");
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "/api/v1/webhooks/%lld", wid);
    ck_assert_int_eq(jcall(&a_owner, "DELETE", path, NULL, NULL), 204);
}
END_TEST

/* ---- tokens ---- */

START_TEST(api_tokens_are_shown_once_record_use_and_can_be_revoked)
{
    char tok[80], path[64];
    long long id;
    cJSON *doc = NULL;
    make_token(&a_owner, tok, sizeof tok, &id);
    ck_assert(strncmp(tok, "gpp_", 4) == 0);
    ck_assert_int_eq((int)strlen(tok), 68);
    upload(tok, a_plan, REPORT_OTHER, NULL, 201, NULL);
    ck_assert_int_eq(jcall(&a_owner, "GET", "/api/v1/tokens", NULL, &doc), 200);
    char *text = cJSON_PrintUnformatted(doc);
    ck_assert_ptr_null(strstr(text, tok));
    free(text);
    const cJSON *it;
    int seen = 0;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "items"))
    {
        if (jid(it, "id") == id) {
            seen = 1;
            ck_assert(cJSON_IsString(cJSON_GetObjectItem(it, "last_used_at")));
            ck_assert(cJSON_IsNull(cJSON_GetObjectItem(it, "revoked_at")));
        }
    }
    ck_assert(seen);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "/api/v1/tokens/%lld", id);
    ck_assert_int_eq(jcall(&a_owner, "DELETE", path, NULL, NULL), 204);
    upload(tok, a_plan, REPORT_OTHER, NULL, 401, NULL);
    ck_assert_int_eq(jcall(&a_owner, "DELETE", path, NULL, NULL), 404);
}
END_TEST

/* ---- plans ---- */

static long long make_plan_of(const struct who *w, const char *title, const char *workload)
{
    char body[600];
    cJSON *doc = NULL;
    snprintf(body, sizeof body, "{\"title\":\"%s\",\"workload\":%s}", title, workload);
    ck_assert_int_eq(jcall(w, "POST", "/api/v1/plans", body, &doc), 201);
    long long id = jid(doc, "id");
    cJSON_Delete(doc);
    return id;
}

/* A tier that does not fit has no days, cost or bill: the share page says
 * "Does not fit" and prints no $0 or 0 days, and its JSON has null. */
START_TEST(a_tier_that_does_not_fit_is_labelled_on_the_share_page_with_no_zero_figures)
{
    char path[160], tok[80];
    struct e2e_resp r;
    long long id = make_plan_of(&a_member, "Too big", WORKLOAD_UNFIT);
    make_share(&a_member, id, tok, sizeof tok);
    snprintf(path, sizeof path, "/s/%s", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "Does not fit: the model does not fit"));
    ck_assert_ptr_null(strstr(r.body, "$0"));
    ck_assert_ptr_null(strstr(r.body, "0.0 days"));
    ck_assert_ptr_null(strstr(r.body, "&times;"));
    ck_assert_ptr_null(strstr(r.body, "Not feasible"));
    e2e_resp_release(&r);
    snprintf(path, sizeof path, "/s/%s.json", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    cJSON *doc = cJSON_Parse(r.body);
    const cJSON *t;
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "tiers")), 3);
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "tiers"))
    {
        ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(t, "feasible")));
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(t, "bom_total_usd")));
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "time"), "days")));
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "cost"), "usd")));
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "gpu"), "count")));
    }
    cJSON_Delete(doc);
    e2e_resp_release(&r);
    /* its CSV total row says so, with no total */
    snprintf(path, sizeof path, "/s/%s.csv", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "Too big,1,minimum,no,total,Does not fit: no bill of materials,,,,\r\n"));
    ck_assert_ptr_null(strstr(r.body, "0.00"));
    e2e_resp_release(&r);
}
END_TEST

/* The CSV ends each tier's lines with its total: the bill's total, the
 * bom_total_usd the page prints in its table's foot, in the total_usd
 * column of a row whose item is "total"; the other columns stay. */
START_TEST(the_share_csv_ends_each_tier_with_its_total_as_the_page_shows_it)
{
    char path[160], tok[80], want[160];
    struct e2e_resp r;
    make_share(&a_member, a_plan, tok, sizeof tok);
    snprintf(path, sizeof path, "/s/%s.json", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    cJSON *doc = cJSON_Parse(r.body);
    e2e_resp_release(&r);
    ck_assert_ptr_nonnull(doc);
    snprintf(path, sizeof path, "/s/%s.csv", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    const cJSON *t, *line;
    int n = 0;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "tiers"))
    {
        const char *tier = jstr(t, "tier");
        double total = cJSON_GetObjectItem(t, "bom_total_usd")->valuedouble, sum = 0;
        int lines = 0;
        cJSON_ArrayForEach(line, cJSON_GetObjectItem(t, "bom"))
        {
            sum += cJSON_GetObjectItem(line, "total_usd")->valuedouble;
            lines++;
        }
        ck_assert_int_gt(lines, 0);
        ck_assert_msg(fabs(sum - total) <= 0.5 * lines, "%s: lines sum to %.2f, total %.2f", tier, sum, total);
        snprintf(want, sizeof want, "A cluster,1,%s,%s,total,Bill of materials total,,,%.2f,\r\n", tier,
                 strcmp(tier, "recommended") == 0 ? "yes" : "no", total);
        const char *row = strstr(r.body, want);
        ck_assert_msg(row != NULL, "no total row %s", want);
        /* after the tier's own lines, before the next tier's */
        const char *next = strstr(row + strlen(want), ",1,");
        ck_assert(next == NULL || strncmp(next + 3, tier, strlen(tier)) != 0);
        n++;
    }
    ck_assert_int_eq(n, 3);
    e2e_resp_release(&r);
    cJSON_Delete(doc);
}
END_TEST

/* A bill line below a cent (a few minutes of object storage) reads as
 * such on the share page and in its CSV, never as 0.0 or $0.00. The line
 * is put in the stored plan directly: the catalog's prices make none that
 * small today. */
START_TEST(a_shared_figure_below_a_cent_never_reads_as_0)
{
    char path[160], tok[80], sql[700];
    struct e2e_resp r;
    sqlite3 *db = NULL;
    long long id = make_plan(&a_member, "Pennies");
    make_share(&a_member, id, tok, sizeof tok);
    ck_assert_int_eq(sqlite3_open(srv.db_path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    snprintf(sql, sizeof sql,
             "UPDATE plan_revisions SET recommendation_json = json_set(recommendation_json, '$.tiers[1].bom', "
             "json('[{\"item\":\"storage\",\"description\":\"warm object storage, 1.0 TB for 0.004 days\","
             "\"quantity\":0.004,\"unit_usd\":0.0029,\"total_usd\":0.0029,\"as_of\":\"2025-06-01\"}]'), "
             "'$.tiers[1].bom_total_usd', 0.0029) WHERE plan_id = %lld", id);
    ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    snprintf(path, sizeof path, "/s/%s", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "data-label=\"Quantity\">0.004</td>"));
    ck_assert_ptr_nonnull(strstr(r.body, "data-label=\"Unit price\">$0.0029</td>"));
    ck_assert_ptr_null(strstr(r.body, "$0.00<"));
    e2e_resp_release(&r);
    snprintf(path, sizeof path, "/s/%s.csv", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, ",0.004,0.0029,0.0029,2025-06-01\r\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "Pennies,1,recommended,yes,total,Bill of materials total,,,0.0029,\r\n"));
    e2e_resp_release(&r);
}
END_TEST

/* A revision from a tier that does not fit to one that does: the figures
 * change from null (no value) to numbers, and a member that is null on one
 * side and absent on the other (need_budget_usd) is no change. */
START_TEST(a_diff_from_a_tier_that_does_not_fit_reads_from_no_value)
{
    char body[600], path[128];
    cJSON *doc = NULL;
    long long id = make_plan_of(&a_member, "Grows to fit", WORKLOAD_UNFIT);
    snprintf(path, sizeof path, "/api/v1/plans/%lld", id);
    snprintf(body, sizeof body, "{\"workload\":%s}", WORKLOAD);
    ck_assert_int_eq(jcall(&a_member, "PUT", path, body, &doc), 200);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/diff?from=1&to=2", id);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    const cJSON *c, *changes = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "chosen_tier"), "changes");
    int days = 0;
    cJSON_ArrayForEach(c, changes)
    {
        const cJSON *from = cJSON_GetObjectItem(c, "from"), *to = cJSON_GetObjectItem(c, "to");
        const char *where = jstr(c, "path");
        ck_assert_msg(!(cJSON_IsNull(from) && cJSON_IsNull(to)), "%s: a change from null to null", where);
        if (strcmp(where, "time.days") == 0) {
            ck_assert(cJSON_IsNull(from));
            ck_assert(cJSON_IsNumber(to) && to->valuedouble > 0);
            days = 1;
        }
    }
    ck_assert(days);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(plans_are_saved_revised_diffed_and_deleted)
{
    char body[600], path[128];
    cJSON *doc = NULL;
    long long id = make_plan(&a_member, "Revisions");
    snprintf(path, sizeof path, "/api/v1/plans/%lld", id);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    ck_assert_int_eq(jid(doc, "revision"), 1);
    ck_assert_str_eq(jstr(doc, "tier"), "recommended");
    ck_assert(cJSON_IsObject(cJSON_GetObjectItem(doc, "workload")));
    ck_assert(cJSON_IsObject(cJSON_GetObjectItem(doc, "recommendation")));
    ck_assert(strlen(jstr(doc, "engine_version")) > 0);
    cJSON_Delete(doc);

    snprintf(body, sizeof body, "{\"workload\":%s}", WORKLOAD2);
    ck_assert_int_eq(jcall(&a_member, "PUT", path, body, &doc), 200);
    ck_assert_int_eq(jid(doc, "revision"), 2);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/tier", id);
    ck_assert_int_eq(jcall(&a_member, "PUT", path, "{\"tier\":\"performance\"}", &doc), 200);
    ck_assert_int_eq(jid(doc, "revision"), 3);
    ck_assert_str_eq(jstr(doc, "tier"), "performance");
    cJSON_Delete(doc);
    ck_assert_int_eq(jcall(&a_member, "PUT", path, "{\"tier\":\"huge\"}", &doc), 400);
    ck_assert_str_eq(jstr(doc, "field"), "tier");
    cJSON_Delete(doc);

    /* Earlier revisions stay readable. */
    snprintf(path, sizeof path, "/api/v1/plans/%lld/revisions/1", id);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    ck_assert_int_eq(jid(doc, "revision"), 1);
    ck_assert_int_eq(jid(doc, "current_revision"), 3);
    ck_assert_int_eq((int)cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "workload"), "tokens_b")->valuedouble, 100);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/revisions", id);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items")), 3);
    cJSON_Delete(doc);

    /* The diff names the changed input and the tier switch. */
    snprintf(path, sizeof path, "/api/v1/plans/%lld/diff?from=1&to=3", id);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    char *text = cJSON_PrintUnformatted(doc);
    ck_assert_ptr_nonnull(strstr(text, "\"path\":\"tokens_b\",\"from\":100,\"to\":200"));
    ck_assert_ptr_nonnull(strstr(text, "\"path\":\"tier\",\"from\":\"recommended\",\"to\":\"performance\""));
    const cJSON *chosen = cJSON_GetObjectItem(doc, "chosen_tier");
    ck_assert_str_eq(jstr(chosen, "from"), "recommended");
    ck_assert_str_eq(jstr(chosen, "to"), "performance");
    ck_assert_int_gt(cJSON_GetArraySize(cJSON_GetObjectItem(chosen, "changes")), 0);
    free(text);
    cJSON_Delete(doc);

    snprintf(path, sizeof path, "/api/v1/plans/%lld", id);
    ck_assert_int_eq(jcall(&a_member, "PUT", path, "{\"workload\":{\"model\":{\"preset\":\"llama-2-7b\"},\"task\":\"pretrain\",\"tokens_b\":\"lots\"}}", &doc), 400);
    ck_assert_str_eq(jstr(doc, "field"), "workload.tokens_b");
    cJSON_Delete(doc);
    ck_assert_int_eq(jcall(&a_member, "DELETE", path, NULL, NULL), 204);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, NULL), 404);
    ck_assert_int_eq(jcall(&a_member, "DELETE", path, NULL, NULL), 404);
}
END_TEST

START_TEST(plan_lists_page_by_cursor_and_filter_by_title)
{
    cJSON *doc = NULL;
    for (int i = 0; i < 3; i++) {
        char title[32];
        snprintf(title, sizeof title, "Paged 50%%_%d", i);
        make_plan(&b_owner, title);
    }
    ck_assert_int_eq(jcall(&b_owner, "GET", "/api/v1/plans?limit=2&q=paged%2050%25_", NULL, &doc), 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items")), 2);
    ck_assert_str_eq(jstr(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "items"), 0), "title"), "Paged 50%_2");
    char path[128];
    snprintf(path, sizeof path, "/api/v1/plans?limit=2&q=paged%%2050%%25_&cursor=%s", jstr(doc, "next"));
    cJSON_Delete(doc);
    ck_assert_int_eq(jcall(&b_owner, "GET", path, NULL, &doc), 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items")), 1);
    ck_assert_str_eq(jstr(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "items"), 0), "title"), "Paged 50%_0");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "next")));
    cJSON_Delete(doc);
    /* % and _ in the filter are literal characters. */
    ck_assert_int_eq(jcall(&b_owner, "GET", "/api/v1/plans?q=%25", NULL, &doc), 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items")), 3);
    cJSON_Delete(doc);
    ck_assert_int_eq(jcall(&b_owner, "GET", "/api/v1/plans?limit=0", NULL, &doc), 400);
    ck_assert_str_eq(jstr(doc, "field"), "limit");
    cJSON_Delete(doc);
}
END_TEST

/* ---- reports ---- */

START_TEST(reports_replay_on_the_same_key_and_refuse_another_body)
{
    cJSON *first = NULL, *again = NULL;
    long long id = upload(a_token, a_plan, REPORT_FAIL, "ci-run-42", 201, &first);
    ck_assert_str_eq(jstr(first, "verdict"), "fail");
    ck_assert(cJSON_IsArray(cJSON_GetObjectItem(first, "findings")));
    ck_assert(cJSON_IsArray(cJSON_GetObjectItem(first, "sections")));
    long long id2 = upload(a_token, a_plan, REPORT_FAIL, "ci-run-42", 201, &again);
    ck_assert_int_eq(id2, id);
    ck_assert_str_eq(jstr(again, "sha256"), jstr(first, "sha256"));
    cJSON_Delete(first);
    cJSON_Delete(again);
    cJSON *doc = NULL;
    upload(a_token, a_plan, REPORT_OTHER, "ci-run-42", 422, &doc);
    ck_assert_str_eq(jstr(doc, "field"), "Idempotency-Key");
    cJSON_Delete(doc);
    /* The key is per plan: team B's plan may use the same key. */
    upload(b_token, b_plan, REPORT_OTHER, "ci-run-42", 201, NULL);
}
END_TEST

/* Uploads at once with one Idempotency-Key: they reach the committer
 * together and may share one transaction, where all but the first insert
 * fail on the key's unique index and answer as replays. */
#define RACERS 12
struct racer {
    const char *text;
    pthread_barrier_t *go;
    long status;
    long long id;
    int replayed;
};

static void *race_upload(void *arg)
{
    struct racer *rc = arg;
    char path[96], auth[120];
    struct e2e_resp r;
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports", a_plan);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", a_token);
    const char *h[] = {auth, "Content-Type: text/plain", "Idempotency-Key: ci-race-7", NULL};
    pthread_barrier_wait(rc->go);
    if (e2e_request(&srv, "POST", path, h, rc->text, strlen(rc->text), &r) != 0)
        return NULL;
    char v[16];
    rc->status = r.status;
    rc->replayed = e2e_resp_header(&r, "Idempotent-Replayed", v, sizeof v) != NULL;
    cJSON *doc = cJSON_Parse(r.body);
    const cJSON *id = cJSON_GetObjectItem(doc, "id");
    rc->id = cJSON_IsNumber(id) ? (long long)id->valuedouble : 0;
    cJSON_Delete(doc);
    e2e_resp_release(&r);
    return NULL;
}

START_TEST(concurrent_uploads_with_one_key_store_one_report_and_replay_it)
{
    struct racer rc[RACERS];
    pthread_t th[RACERS];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, RACERS);
    memset(rc, 0, sizeof rc);
    for (int i = 0; i < RACERS; i++) {
        rc[i].text = i == RACERS - 1 ? REPORT_OTHER : REPORT_FAIL; /* one racer brings another body */
        rc[i].go = &go;
        ck_assert_int_eq(pthread_create(&th[i], NULL, race_upload, &rc[i]), 0);
    }
    for (int i = 0; i < RACERS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);

    /* Either the odd body won (the rest are 422) or a REPORT_FAIL upload
     * won: then all of those answer 201 with its id, one of them fresh. */
    long long id = 0;
    int fresh = 0, refused = 0;
    for (int i = 0; i < RACERS; i++) {
        ck_assert_msg(rc[i].status == 201 || rc[i].status == 422, "racer %d answered %ld", i, rc[i].status);
        if (rc[i].status == 422) {
            refused++;
            continue;
        }
        if (!id)
            id = rc[i].id;
        ck_assert_int_eq(rc[i].id, id);
        fresh += !rc[i].replayed;
    }
    ck_assert_int_eq(fresh, 1);
    ck_assert_int_eq(refused, rc[RACERS - 1].status == 201 ? RACERS - 1 : 1);

    /* The plan holds exactly one report under the key. */
    sqlite3 *raw = NULL;
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_open_v2(srv.db_path, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(raw, "SELECT count(*), min(id) FROM reports WHERE plan_id = ? AND "
                                             "idempotency_key = 'ci-race-7'", -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, a_plan);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(st, 0), 1);
    ck_assert_int_eq(sqlite3_column_int64(st, 1), id);
    sqlite3_finalize(st);
    sqlite3_close(raw);
}
END_TEST

START_TEST(reports_arrive_as_text_multipart_or_json_with_their_source)
{
    char path[96];
    struct e2e_resp r;
    const char *mp = "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
                     "Content-Type: text/plain\r\n\r\nfirst part\n\r\n--XyZ\r\n"
                     "Content-Disposition: form-data; name=\"file\"; filename=\"b.txt\"\r\n\r\nsecond part\r\n--XyZ--\r\n";
    char auth[120];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", a_token);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports", a_plan);
    const char *h1[] = {auth, "Content-Type: multipart/form-data; boundary=XyZ", "X-Report-Source: https://ci.test/job/7", NULL};
    ck_assert_int_eq(e2e_request(&srv, "POST", path, h1, mp, strlen(mp), &r), 0);
    ck_assert_msg(r.status == 201, "multipart answered %ld: %s", r.status, r.body);
    cJSON *doc = cJSON_Parse(r.body);
    long long id = jid(doc, "id");
    ck_assert_str_eq(jstr(doc, "source"), "https://ci.test/job/7");
    cJSON_Delete(doc);
    e2e_resp_release(&r);
    char one[128];
    snprintf(one, sizeof one, "/api/v1/plans/%lld/reports/%lld", a_plan, id);
    ck_assert_int_eq(jcall(&a_member, "GET", one, NULL, &doc), 200);
    ck_assert_str_eq(jstr(doc, "content"), "first part\nsecond part"); /* parts joined on a line break */
    ck_assert_str_eq(jstr(doc, "uploaded_by"), "token");
    cJSON_Delete(doc);

    const char *h2[] = {auth, "Content-Type: application/json", NULL};
    const char *jb = "{\"content\":\"" "PASS\\n" "\"}";
    ck_assert_int_eq(e2e_request(&srv, "POST", path, h2, jb, strlen(jb), &r), 0);
    ck_assert_int_eq(r.status, 201);
    e2e_resp_release(&r);
    const char *h3[] = {auth, "Content-Type: image/png", NULL};
    ck_assert_int_eq(e2e_request(&srv, "POST", path, h3, "x", 1, &r), 0);
    ck_assert_int_eq(r.status, 415);
    e2e_resp_release(&r);
    const char *h4[] = {auth, "Content-Type: text/plain", NULL};
    ck_assert_int_eq(e2e_request(&srv, "POST", path, h4, "", 0, &r), 0);
    ck_assert_int_eq(r.status, 400);
    e2e_resp_release(&r);
}
END_TEST

START_TEST(a_report_over_the_limit_is_413)
{
    char path[96], auth[120];
    struct e2e_resp r;
    size_t n = 70000;
    char *big = malloc(n + 1);
    memset(big, 'x', n);
    big[n] = '\0';
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports", a_plan);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", a_token);
    const char *h[] = {auth, "Content-Type: text/plain", NULL};
    ck_assert_int_eq(e2e_request(&srv, "POST", path, h, big, n, &r), 0);
    ck_assert_int_eq(r.status, 413);
    e2e_resp_release(&r);
    free(big);
}
END_TEST

START_TEST(reports_list_their_verdict_history_and_recheck_against_a_new_revision)
{
    char path[128];
    cJSON *doc = NULL;
    long long plan = make_plan(&a_member, "Recheck");
    upload(a_token, plan, REPORT_FAIL, NULL, 201, NULL);
    upload(a_token, plan, REPORT_OTHER, NULL, 201, NULL);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/tier", plan);
    ck_assert_int_eq(jcall(&a_member, "PUT", path, "{\"tier\":\"minimum\"}", NULL), 200);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/recheck", plan);
    ck_assert_int_eq(jcall(&a_member, "POST", path, NULL, &doc), 200);
    ck_assert_int_eq(jid(doc, "revision"), 2);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items")), 2);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports", plan);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    const cJSON *it;
    int n = 0;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "items"))
    {
        const cJSON *h = cJSON_GetObjectItem(it, "history");
        ck_assert_int_eq(cJSON_GetArraySize(h), 2);
        ck_assert_int_eq(jid(cJSON_GetArrayItem(h, 0), "revision"), 1);
        ck_assert_int_eq(jid(cJSON_GetArrayItem(h, 1), "revision"), 2);
        ck_assert_str_eq(jstr(cJSON_GetArrayItem(h, 1), "tier"), "minimum");
        ck_assert_int_eq(jid(it, "revision"), 2);
        n++;
    }
    ck_assert_int_eq(n, 2);
    ck_assert_int_ge(jid(cJSON_GetObjectItem(doc, "verdicts"), "fail"), 1);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(report_lists_page_newest_first_by_cursor_and_refuse_bad_paging)
{
    char path[160];
    cJSON *doc = NULL;
    long long plan = make_plan(&a_member, "Paged reports");
    long long ids[3];
    for (int i = 0; i < 3; i++)
        ids[i] = upload(a_token, plan, i == 1 ? REPORT_OTHER : REPORT_FAIL, NULL, 201, NULL);
    /* no paging asked: every report (up to 100), newest first, next null */
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports", plan);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items")), 3);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "next")));
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(doc, "verdicts"));
    cJSON_Delete(doc);
    /* two a page: the two newest, then the oldest */
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports?limit=2", plan);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    const cJSON *items = cJSON_GetObjectItem(doc, "items");
    ck_assert_int_eq(cJSON_GetArraySize(items), 2);
    ck_assert_int_eq(jid(cJSON_GetArrayItem(items, 0), "id"), ids[2]);
    ck_assert_int_eq(jid(cJSON_GetArrayItem(items, 1), "id"), ids[1]);
    ck_assert(cJSON_IsArray(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 0), "history")));
    char next[32];
    snprintf(next, sizeof next, "%s", jstr(doc, "next"));
    ck_assert_int_eq(atoll(next), ids[1]);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports?limit=2&cursor=%s", plan, next);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    items = cJSON_GetObjectItem(doc, "items");
    ck_assert_int_eq(cJSON_GetArraySize(items), 1);
    ck_assert_int_eq(jid(cJSON_GetArrayItem(items, 0), "id"), ids[0]);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "next")));
    cJSON_Delete(doc);
    /* an API token pages too */
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports?limit=1", plan);
    struct e2e_resp r;
    ck_assert_int_eq(call(NULL, a_token, "GET", path, NULL, NULL, 0, &r), 200);
    e2e_resp_release(&r);
    /* bad values: 400 problem+json naming the parameter */
    static const struct {
        const char *query, *field;
    } bad[] = {{"limit=0", "limit"},     {"limit=501", "limit"}, {"limit=ten", "limit"},
               {"limit=-3", "limit"},    {"cursor=abc", "cursor"}, {"cursor=0", "cursor"},
               {"cursor=-5", "cursor"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "/api/v1/plans/%lld/reports?%s", plan, bad[i].query);
        ck_assert_int_eq(call(&a_member, NULL, "GET", path, NULL, NULL, 0, &r), 400);
        char ct[128];
        ck_assert_ptr_nonnull(e2e_resp_header(&r, "Content-Type", ct, sizeof ct));
        ck_assert_ptr_nonnull(strstr(ct, "application/problem+json"));
        cJSON *p = cJSON_Parse(r.body);
        ck_assert_msg(p && strcmp(jstr(p, "field"), bad[i].field) == 0, "%s", bad[i].query);
        cJSON_Delete(p);
        e2e_resp_release(&r);
    }
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports?limit=500", plan);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items")), 3);
    cJSON_Delete(doc);
}
END_TEST

/* The 201 answer of an upload is built from what was committed, not read
 * back (http_reports.c): it must be byte for byte the document a GET of the
 * report answers, which only adds the content at the end. */
static void same_as_get(long long plan, long status, const char *created)
{
    struct e2e_resp g;
    char path[128];
    cJSON *doc = cJSON_Parse(created);
    ck_assert_int_eq(status, 201);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports/%lld", plan, jid(doc, "id"));
    cJSON_Delete(doc);
    ck_assert_int_eq(call(&a_member, NULL, "GET", path, NULL, NULL, 0, &g), 200);
    size_t n = strlen(created);
    ck_assert(n > 2 && created[n - 1] == '}');
    ck_assert_msg(strlen(g.body) > n && memcmp(g.body, created, n - 1) == 0 &&
                      strncmp(g.body + n - 1, ",\"content\":\"", 12) == 0,
                  "upload answered\n%s\nGET answered\n%s", created, g.body);
    e2e_resp_release(&g);
}

START_TEST(an_uploads_answer_is_the_report_a_get_answers_less_its_content)
{
    char *nccl = read_text("intra-busbw-87-percent.log"); /* measured busbw: a calibration block */
    const char *texts[] = {REPORT_FAIL, REPORT_OTHER, nccl};
    char path[96], auth[120];
    struct e2e_resp r;
    long long plan = make_plan(&a_member, "Answers");
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports", plan);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", a_token);
    for (int i = 0; i < 3; i++) {
        /* by token, with a source and a key */
        const char *h[] = {auth, "Content-Type: text/plain", "X-Report-Source: https://ci.test/job/9",
                           i == 0 ? "Idempotency-Key: answers-0" : "Idempotency-Key: answers-x", NULL};
        if (i == 2)
            h[3] = NULL; /* and without a key */
        ck_assert_int_eq(e2e_request(&srv, "POST", path, h, texts[i], strlen(texts[i]), &r), 0);
        same_as_get(plan, r.status, r.body);
        e2e_resp_release(&r);
        /* by a signed-in member, no source */
        call(&a_member, NULL, "POST", path, "text/plain", texts[i], 1, &r);
        same_as_get(plan, r.status, r.body);
        e2e_resp_release(&r);
    }
    free(nccl);
}
END_TEST

/* A worker thread keeps the plan document its last upload was checked
 * against (http_reports.c). On a server with one worker every upload runs
 * on that thread: an upload after the plan changed, or after its id went to
 * a new plan, must be judged against the plan as it is now. Check runs each
 * test in a child process, so the shared server can be set aside here. */
START_TEST(an_upload_is_judged_against_the_plan_as_it_is_now_on_a_worker_that_saw_it_before)
{
    static const char *const one_worker[] = {"--threads", "1", "--max-report", "65536", NULL};
    static const char *const big_workload =
        "{\"model\":{\"preset\":\"llama-3-70b\"},\"task\":\"pretrain\",\"tokens_b\":15000,\"seq_len\":8192,"
        "\"precision\":\"bf16\",\"deadline_days\":90,\"budget_usd\":5000000,\"pricing\":\"cloud\"}";
    struct who w;
    char tok[80], body[600], path[128];
    long long tok_id;
    cJSON *doc = NULL;

    ck_assert_int_eq(e2e_start(&srv, NULL, one_worker), 0);
    signup("Memo", "memo@memo.test", &w);
    make_token(&w, tok, sizeof tok, &tok_id);
    snprintf(body, sizeof body, "{\"title\":\"Big\",\"workload\":%s}", big_workload);
    ck_assert_int_eq(jcall(&w, "POST", "/api/v1/plans", body, &doc), 201);
    long long big = jid(doc, "id");
    cJSON_Delete(doc);
    long long small = make_plan(&w, "Small"); /* the largest id: SQLite gives it to the next plan once deleted */

    upload(tok, big, REPORT_OTHER, NULL, 201, &doc);
    char *f_big = cJSON_PrintUnformatted(cJSON_GetObjectItem(doc, "findings"));
    cJSON_Delete(doc);
    upload(tok, small, REPORT_OTHER, NULL, 201, &doc);
    char *f_small = cJSON_PrintUnformatted(cJSON_GetObjectItem(doc, "findings"));
    cJSON_Delete(doc);
    /* The two plans expect different things of the same node. */
    ck_assert_msg(strcmp(f_big, f_small) != 0, "the two plans' findings are the same");

    /* The small plan's id now names a plan with the big one's workload. */
    snprintf(path, sizeof path, "/api/v1/plans/%lld", small);
    ck_assert_int_eq(jcall(&w, "DELETE", path, NULL, NULL), 204);
    snprintf(body, sizeof body, "{\"title\":\"Again\",\"workload\":%s}", big_workload);
    ck_assert_int_eq(jcall(&w, "POST", "/api/v1/plans", body, &doc), 201);
    long long again = jid(doc, "id");
    cJSON_Delete(doc);
    upload(tok, again, REPORT_OTHER, NULL, 201, &doc);
    char *f_again = cJSON_PrintUnformatted(cJSON_GetObjectItem(doc, "findings"));
    ck_assert_int_eq(jid(doc, "revision"), 1);
    cJSON_Delete(doc);
    ck_assert_msg(strcmp(f_again, f_big) == 0, "plan %lld was judged as the plan its id had before", again);

    /* A new tier is a new revision, and the next upload is judged by it. */
    snprintf(path, sizeof path, "/api/v1/plans/%lld/tier", again);
    ck_assert_int_eq(jcall(&w, "PUT", path, "{\"tier\":\"minimum\"}", NULL), 200);
    upload(tok, again, REPORT_OTHER, NULL, 201, &doc);
    ck_assert_int_eq(jid(doc, "revision"), 2);
    ck_assert_str_eq(jstr(doc, "tier"), "minimum");
    ck_assert_str_eq(jstr(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "history"), 0), "tier"), "minimum");
    cJSON_Delete(doc);

    cJSON_free(f_big);
    cJSON_free(f_small);
    cJSON_free(f_again);
    ck_assert_int_eq(e2e_stop(&srv), 0);
}
END_TEST

/* ---- shares ---- */

START_TEST(share_pages_open_without_login_until_revoked_or_expired)
{
    char path[160], tok[80];
    struct e2e_resp r;
    char type[128];
    long long sid = make_share(&a_member, a_plan, tok, sizeof tok);
    snprintf(path, sizeof path, "/s/%s", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Content-Type", type, sizeof type));
    ck_assert_str_eq(type, "text/html; charset=utf-8");
    ck_assert_ptr_nonnull(strstr(r.body, "A cluster"));
    ck_assert_ptr_nonnull(strstr(r.body, "<table class=\"bom\">"));
    ck_assert_ptr_nonnull(strstr(r.body, "href=\"/share.css\""));
    ck_assert_ptr_null(strstr(r.body, "Team A"));
    e2e_resp_release(&r);
    snprintf(path, sizeof path, "/s/%s.json", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    cJSON *doc = cJSON_Parse(r.body);
    ck_assert_str_eq(jstr(cJSON_GetObjectItem(doc, "plan"), "title"), "A cluster");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "tiers")), 3);
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "tiers"))
        ck_assert(cJSON_IsArray(cJSON_GetObjectItem(t, "bom")));
    cJSON_Delete(doc);
    e2e_resp_release(&r);
    snprintf(path, sizeof path, "/s/%s.csv", tok);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Content-Type", type, sizeof type));
    ck_assert(strncmp(type, "text/csv", 8) == 0);
    ck_assert(strncmp(r.body, "plan,revision,tier,chosen,item,description,quantity,unit_usd,total_usd,as_of\r\n", 77) == 0);
    /* No cell of the CSV starts a formula. */
    for (const char *p = r.body; *p; p++) {
        int cell_start = p == r.body || p[-1] == ',' || p[-1] == '\n' || (p[-1] == '"' && (p - 1 == r.body || p[-2] == ',' || p[-2] == '\n'));
        if (cell_start)
            ck_assert_msg(!strchr("=+-@", *p) || *p == '\0', "a CSV cell starts with %c", *p);
    }
    e2e_resp_release(&r);
    /* A share token opens nothing else. */
    ck_assert_int_eq(call(NULL, tok, "GET", "/api/v1/plans/1/reports", NULL, NULL, 0, &r), 401);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(NULL, NULL, "GET", "/s/gps_0000000000000000000000000000000000000000000000000000000000000000", NULL, NULL, 0, &r), 404);
    e2e_resp_release(&r);

    /* Listed, then revoked: 410 on every form. */
    snprintf(path, sizeof path, "/api/v1/plans/%lld/shares", a_plan);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    ck_assert_int_ge(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items")), 2);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "/api/v1/shares/%lld", sid);
    ck_assert_int_eq(jcall(&a_member, "DELETE", path, NULL, NULL), 204);
    static const char *const suffix[] = {"", ".json", ".csv"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "/s/%s%s", tok, suffix[i]);
        ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 410);
        ck_assert_ptr_null(strstr(r.body, "A cluster"));
        e2e_resp_release(&r);
    }

    /* Expiry: a share whose time is up answers 410 too. */
    snprintf(path, sizeof path, "/s/%s", a_share_token);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 200);
    e2e_resp_release(&r);
    sqlite3 *db = NULL;
    char sql[128];
    ck_assert_int_eq(sqlite3_open(srv.db_path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    snprintf(sql, sizeof sql, "UPDATE shares SET expires_at = %lld WHERE id = %lld", (long long)time(NULL) - 1, a_share);
    ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    ck_assert_int_eq(call(NULL, NULL, "GET", path, NULL, NULL, 0, &r), 410);
    e2e_resp_release(&r);
}
END_TEST

START_TEST(share_expiry_defaults_to_30_days_and_stops_at_365)
{
    char path[96];
    cJSON *doc = NULL;
    snprintf(path, sizeof path, "/api/v1/plans/%lld/shares", b_plan);
    ck_assert_int_eq(jcall(&b_owner, "POST", path, "{\"expires_days\":366}", &doc), 400);
    ck_assert_str_eq(jstr(doc, "field"), "expires_days");
    cJSON_Delete(doc);
    ck_assert_int_eq(jcall(&b_owner, "POST", path, "{\"expires_days\":365}", NULL), 201);
    ck_assert_int_eq(jcall(&b_owner, "POST", path, NULL, &doc), 201);
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    ck_assert_ptr_nonnull(strptime(jstr(doc, "expires_at"), "%Y-%m-%dT%H:%M:%SZ", &tm));
    long long days = ((long long)timegm(&tm) - (long long)time(NULL) + 3600) / 86400;
    ck_assert_int_eq(days, 30);
    cJSON_Delete(doc);
}
END_TEST

/* ---- webhooks ---- */

struct receiver {
    int fd, port;
    int hits;
    const char *second_reply; /* what every request after the first gets */
    char sig[4][128], ts[4][32], event[4][64], key[4][96];
    char body[4][4096];
    pthread_mutex_t lock;
};

static void *receive(void *arg)
{
    struct receiver *rc = arg;
    for (;;) {
        int c = accept(rc->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        char buf[16384];
        size_t n = 0;
        char *hend = NULL;
        while (n < sizeof buf - 1) {
            ssize_t k = read(c, buf + n, sizeof buf - 1 - n);
            if (k <= 0)
                break;
            n += (size_t)k;
            buf[n] = '\0';
            if ((hend = strstr(buf, "\r\n\r\n")) != NULL) {
                const char *cl = strcasestr(buf, "Content-Length:");
                size_t want = cl ? (size_t)strtoul(cl + 15, NULL, 10) : 0;
                if (n >= (size_t)(hend + 4 - buf) + want)
                    break;
            }
        }
        pthread_mutex_lock(&rc->lock);
        int i = rc->hits < 4 ? rc->hits : 3;
        if (hend) {
            const char *h;
            if ((h = strcasestr(buf, "X-Gpuplan-Signature: ")))
                sscanf(h + 21, "%127[^\r]", rc->sig[i]);
            if ((h = strcasestr(buf, "X-Gpuplan-Timestamp: ")))
                sscanf(h + 21, "%31[^\r]", rc->ts[i]);
            if ((h = strcasestr(buf, "X-Gpuplan-Event: ")))
                sscanf(h + 17, "%63[^\r]", rc->event[i]);
            if ((h = strcasestr(buf, "Idempotency-Key: ")))
                sscanf(h + 17, "%95[^\r]", rc->key[i]);
            snprintf(rc->body[i], sizeof rc->body[i], "%s", hend + 4);
        }
        int first = rc->hits == 0;
        rc->hits++;
        pthread_mutex_unlock(&rc->lock);
        /* The first request fails, so the sender must retry. */
        const char *reply = first ? "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                  : rc->second_reply;
        if (write(c, reply, strlen(reply)) < 0)
            perror("receiver write");
        close(c);
    }
}

static void receiver_start(struct receiver *rc, pthread_t *th, const char *second_reply)
{
    memset(rc, 0, sizeof *rc);
    rc->second_reply = second_reply;
    pthread_mutex_init(&rc->lock, NULL);
    rc->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(rc->fd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(rc->fd, 8), 0);
    socklen_t sl = sizeof sa;
    getsockname(rc->fd, (struct sockaddr *)&sa, &sl);
    rc->port = ntohs(sa.sin_port);
    pthread_create(th, NULL, receive, rc);
}

static void receiver_stop(struct receiver *rc, pthread_t th)
{
    shutdown(rc->fd, SHUT_RDWR);
    close(rc->fd);
    pthread_join(th, NULL);
}

START_TEST(webhooks_are_signed_retried_and_logged)
{
    struct receiver rc;
    pthread_t th;
    receiver_start(&rc, &th, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");

    char body[200], secret[100], path[96];
    cJSON *doc = NULL;
    snprintf(body, sizeof body, "{\"url\":\"http://127.0.0.1:%d/hook\",\"events\":[\"plan.shared\"]}", rc.port);
    ck_assert_int_eq(jcall(&b_owner, "POST", "/api/v1/webhooks", body, &doc), 201);
    long long wid = jid(doc, "id");
    snprintf(secret, sizeof secret, "%s", jstr(doc, "secret"));
    cJSON_Delete(doc);
    ck_assert_int_eq(jcall(&b_owner, "GET", "/api/v1/webhooks", NULL, &doc), 200);
    char *listed = cJSON_PrintUnformatted(doc);
    ck_assert_ptr_null(strstr(listed, secret));
    free(listed);
    cJSON_Delete(doc);

    /* Sharing answers at once; delivery happens behind it. */
    make_share(&b_owner, b_plan, NULL, 0);
    for (int i = 0; i < 100; i++) {
        pthread_mutex_lock(&rc.lock);
        int hits = rc.hits;
        pthread_mutex_unlock(&rc.lock);
        if (hits >= 2)
            break;
        usleep(100000);
    }
    pthread_mutex_lock(&rc.lock);
    ck_assert_int_ge(rc.hits, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_str_eq(rc.event[i], "plan.shared");
        /* The signature covers "timestamp.body" with the webhook's secret. */
        char signed_text[4200], hex[65], want[80];
        unsigned char mac[32];
        snprintf(signed_text, sizeof signed_text, "%s.%s", rc.ts[i], rc.body[i]);
        crypto_hmac_sha256(secret, strlen(secret), signed_text, strlen(signed_text), mac);
        crypto_hex(mac, sizeof mac, hex);
        snprintf(want, sizeof want, "sha256=%s", hex);
        ck_assert_str_eq(rc.sig[i], want);
        cJSON *ev = cJSON_Parse(rc.body[i]);
        ck_assert_str_eq(jstr(ev, "event"), "plan.shared");
        ck_assert_int_eq(jid(cJSON_GetObjectItem(ev, "data"), "plan_id"), b_plan);
        cJSON_Delete(ev);
    }
    ck_assert_str_eq(rc.body[0], rc.body[1]); /* the retry sends the same event */
    pthread_mutex_unlock(&rc.lock);

    /* The delivery log shows the failed attempt and the success. */
    snprintf(path, sizeof path, "/api/v1/webhooks/%lld/deliveries", wid);
    int delivered = 0;
    for (int i = 0; i < 50 && !delivered; i++) {
        ck_assert_int_eq(jcall(&b_owner, "GET", path, NULL, &doc), 200);
        const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "items"), 0);
        if (d && strcmp(jstr(d, "state"), "delivered") == 0) {
            delivered = 1;
            ck_assert_int_eq(jid(d, "attempts"), 2);
            ck_assert_int_eq(jid(d, "last_status"), 200);
        }
        cJSON_Delete(doc);
        if (!delivered)
            usleep(100000);
    }
    ck_assert(delivered);
    receiver_stop(&rc, th);
    ck_assert_int_eq(jcall(&b_owner, "GET", "/metrics", NULL, NULL), 200);
}
END_TEST

/* A JSON call as w (cookie + CSRF) to another server than the shared one. */
static long on(const struct e2e_server *s, const struct who *w, const char *method, const char *path,
               const char *body, cJSON **doc)
{
    char cookie[340], csrf[120];
    struct e2e_resp r;
    snprintf(cookie, sizeof cookie, "Cookie: %s", w->cookie);
    snprintf(csrf, sizeof csrf, "X-CSRF-Token: %s", w->csrf);
    const char *h[] = {cookie, csrf, "Content-Type: application/json", NULL};
    ck_assert_int_eq(e2e_request(s, method, path, h, body, body ? strlen(body) : 0, &r), 0);
    if (doc)
        *doc = cJSON_Parse(r.body);
    long st = r.status;
    e2e_resp_release(&r);
    return st;
}

START_TEST(webhooks_to_loopback_private_or_link_local_addresses_are_refused_without_the_flag)
{
    /* A server without --webhook-allow-private, on a database of its own. */
    struct e2e_server s3;
    struct receiver rc;
    struct e2e_resp r;
    struct who w;
    pthread_t th;
    char body[300], path[96];
    cJSON *doc = NULL;
    receiver_start(&rc, &th, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    ck_assert_int_eq(e2e_start(&s3, NULL, NULL), 0);
    const char *jh[] = {"Content-Type: application/json", NULL};
    snprintf(body, sizeof body, "{\"team\":\"G\",\"email\":\"g@g.test\",\"password\":\"%s\"}", PASSWORD);
    ck_assert_int_eq(e2e_request(&s3, "POST", "/api/v1/teams", jh, body, strlen(body), &r), 0);
    ck_assert_int_eq(r.status, 201);
    take_session(&r, &w);
    e2e_resp_release(&r);

    /* Address literals are refused at registration, naming the field and the address class. */
    static const struct {
        const char *url, *says;
    } refused[] = {
        {"http://127.0.0.1:9/hook", "127.0.0.1 is a loopback address"},
        {"http://[::1]:9/hook", "loopback"},
        {"http://169.254.169.254/latest/meta-data/", "link-local"},
        {"http://10.0.0.7:9/", "private"},
        {"http://[::ffff:127.0.0.1]:9/", "loopback"},
        {"ftp://hooks.example.test/x", "http:// or https://"},
        {"file:///etc/passwd", "http:// or https://"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(body, sizeof body, "{\"url\":\"%s\"}", refused[i].url);
        ck_assert_int_eq(on(&s3, &w, "POST", "/api/v1/webhooks", body, &doc), 400);
        ck_assert_str_eq(jstr(doc, "field"), "url");
        ck_assert_msg(strstr(jstr(doc, "detail"), refused[i].says), "%s: %s", refused[i].url, jstr(doc, "detail"));
        cJSON_Delete(doc);
    }

    /* A name is judged at delivery on what it resolves to: localhost is loopback. */
    snprintf(body, sizeof body, "{\"url\":\"http://localhost:%d/hook\",\"events\":[\"plan.shared\"]}", rc.port);
    ck_assert_int_eq(on(&s3, &w, "POST", "/api/v1/webhooks", body, &doc), 201);
    long long wid = jid(doc, "id");
    cJSON_Delete(doc);
    snprintf(body, sizeof body, "{\"title\":\"G\",\"workload\":%s}", WORKLOAD);
    ck_assert_int_eq(on(&s3, &w, "POST", "/api/v1/plans", body, &doc), 201);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/shares", jid(doc, "id"));
    cJSON_Delete(doc);
    ck_assert_int_eq(on(&s3, &w, "POST", path, "{}", NULL), 201);
    snprintf(path, sizeof path, "/api/v1/webhooks/%lld/deliveries", wid);
    int failed = 0;
    for (int i = 0; i < 100 && !failed; i++) {
        ck_assert_int_eq(on(&s3, &w, "GET", path, NULL, &doc), 200);
        const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "items"), 0);
        if (d && strcmp(jstr(d, "state"), "failed") == 0) {
            failed = 1;
            /* Refused once and for all, with the reason in the log; never retried. */
            ck_assert_int_eq(jid(d, "attempts"), 1);
            ck_assert(cJSON_IsNull(cJSON_GetObjectItem(d, "last_status")));
            const char *why = jstr(d, "last_error");
            ck_assert_msg(strstr(why, "refused to connect to ") && strstr(why, "a loopback address") &&
                              strstr(why, "--webhook-allow-private"),
                          "last_error: %s", why);
        } else {
            ck_assert_msg(!d || strcmp(jstr(d, "state"), "delivered") != 0, "a loopback delivery went out");
        }
        cJSON_Delete(doc);
        if (!failed)
            usleep(100000);
    }
    ck_assert(failed);
    pthread_mutex_lock(&rc.lock);
    ck_assert_int_eq(rc.hits, 0); /* not one byte reached the receiver */
    pthread_mutex_unlock(&rc.lock);
    ck_assert_int_eq(e2e_stop(&s3), 0);
    receiver_stop(&rc, th);
}
END_TEST

/* ---- operations ---- */

START_TEST(metrics_count_requests_reports_and_deliveries)
{
    struct e2e_resp r;
    ck_assert_int_eq(call(NULL, NULL, "GET", "/metrics", NULL, NULL, 0, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "gpuplan_http_requests_total{route=\"/api/v1/teams\",method=\"POST\",status=\"201\"}"));
    ck_assert_ptr_nonnull(strstr(r.body, "gpuplan_http_request_duration_seconds_bucket{route=\"/api/v1/plans\",method=\"POST\",le=\"+Inf\"}"));
    ck_assert_ptr_nonnull(strstr(r.body, "gpuplan_reports_total{verdict=\"fail\"}"));
    ck_assert_ptr_nonnull(strstr(r.body, "gpuplan_db_errors_total "));
    /* Uploads went through the group committer: at least one write in one transaction. */
    static const char gw_name[] = "\ngpuplan_db_group_commit_writes_total ";
    static const char gt_name[] = "\ngpuplan_db_group_commit_transactions_total ";
    const char *gw = strstr(r.body, gw_name), *gt = strstr(r.body, gt_name);
    ck_assert_ptr_nonnull(gw);
    ck_assert_ptr_nonnull(gt);
    ck_assert_int_ge(strtoll(gw + strlen(gw_name), NULL, 10), 1);
    ck_assert_int_ge(strtoll(gt + strlen(gt_name), NULL, 10), 1);
    ck_assert_ptr_nonnull(strstr(r.body, "\ngpuplan_db_group_commit_queued "));
    /* Nothing is in the planner while /metrics answers (this client's only request). */
    ck_assert_ptr_nonnull(strstr(r.body, "\ngpuplan_planner_in_flight 0\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "\ngpuplan_planner_waiting 0\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "gpuplan_webhook_deliveries_total{outcome=\"delivered\"}"));
    /* Share paths are counted by route, never by their token. */
    ck_assert_ptr_null(strstr(r.body, "gps_"));
    e2e_resp_release(&r);
    ck_assert_int_eq(call(NULL, NULL, "GET", "/openapi.json", NULL, NULL, 0, &r), 200);
    cJSON *doc = cJSON_Parse(r.body);
    ck_assert_str_eq(jstr(doc, "openapi"), "3.1.0");
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "paths"), "/api/v1/plans/{id}/reports"));
    cJSON_Delete(doc);
    e2e_resp_release(&r);
}
END_TEST

/* ---- the CI flow with gpuplan submit ---- */

static char *write_temp(const char *text)
{
    static char paths[8][64];
    static int n;
    char *p = paths[n++ % 8];
    snprintf(p, 64, "/tmp/gpuplan-report-XXXXXX");
    int fd = mkstemp(p);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return p;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(ci_uploads_with_submit_and_fails_the_pipeline_on_a_fail_verdict)
{
    char plan[32], junit[] = "/tmp/gpuplan-junit-XXXXXX";
    char *out = NULL, *err = NULL;
    int jfd = mkstemp(junit);
    close(jfd);
    snprintf(plan, sizeof plan, "%lld", a_plan);
    char *fail = write_temp(REPORT_FAIL), *other = write_temp(REPORT_OTHER);

    setenv("GPUPLAN_TOKEN", a_token, 1);
    const char *a1[] = {"gpuplan", "submit", "--server", srv.base, "--plan", plan, "--junit", junit,
                        "--source", "https://ci.test/job/9", fail, other, NULL};
    ck_assert_int_eq(e2e_run(a1, NULL, &out, &err), 1);
    ck_assert_ptr_nonnull(strstr(out, "verdict: fail"));
    ck_assert_ptr_null(strstr(out, a_token));
    ck_assert_ptr_null(strstr(err, a_token));
    free(out);
    free(err);
    char *x = slurp(junit);
    ck_assert_ptr_nonnull(strstr(x, "<?xml"));
    ck_assert_ptr_nonnull(strstr(x, "<testsuites"));
    ck_assert_ptr_nonnull(strstr(x, "<testcase "));
    ck_assert_ptr_nonnull(strstr(x, "<failure"));

    /* Not failing: exit 0; --json prints the server's answer. The healthy
     * 8xH100 log fails gpu.model on this RTX 6000 Ada plan, so a host's
     * governor, which the plan wants, is the report here. */
    char *quiet = write_temp("analyzing CPU 0:\n"
                             "  current policy: frequency should be within 800 MHz and 3.80 GHz.\n"
                             "                  The governor \"performance\" may decide which speed "
                             "to use\n");
    const char *a2[] = {"gpuplan", "submit", "--server", srv.base, "--plan", plan, "--json", quiet, NULL};
    ck_assert_int_eq(e2e_run(a2, NULL, &out, &err), 0);
    cJSON *doc = cJSON_Parse(out);
    ck_assert_ptr_nonnull(doc);
    ck_assert(strcmp(jstr(doc, "verdict"), "fail") != 0);
    cJSON_Delete(doc);
    free(out);
    free(err);

    /* Another team's plan, a missing token, an unreachable server: exit 2 with one line. */
    char bplan[32];
    snprintf(bplan, sizeof bplan, "%lld", b_plan);
    const char *a3[] = {"gpuplan", "submit", "--server", srv.base, "--plan", bplan, other, NULL};
    ck_assert_int_eq(e2e_run(a3, NULL, &out, &err), 2);
    ck_assert_ptr_nonnull(strstr(err, "gpuplan: submit: the server answered 404"));
    ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
    free(out);
    free(err);
    unsetenv("GPUPLAN_TOKEN");
    const char *a4[] = {"gpuplan", "submit", "--server", srv.base, "--plan", plan, other, NULL};
    ck_assert_int_eq(e2e_run(a4, NULL, &out, &err), 2);
    ck_assert_ptr_nonnull(strstr(err, "GPUPLAN_TOKEN"));
    free(out);
    free(err);
    const char *a5[] = {"gpuplan", "submit", "--server", "http://127.0.0.1:1", "--plan", plan, "--token", a_token,
                        "--retries", "1", other, NULL};
    ck_assert_int_eq(e2e_run(a5, NULL, &out, &err), 2);
    ck_assert_ptr_nonnull(strstr(err, "gpuplan: submit: cannot reach http://127.0.0.1:1"));
    ck_assert_ptr_null(strstr(err, a_token));
    free(out);
    free(err);
    const char *a6[] = {"gpuplan", "submit", "--plan", plan, other, NULL};
    ck_assert_int_eq(e2e_run(a6, NULL, &out, &err), 2);
    free(out);
    free(err);
    unlink(junit);
    unlink(fail);
    unlink(other);
    unlink(quiet);
}
END_TEST

START_TEST(submit_retries_a_5xx_with_the_same_idempotency_key)
{
    struct receiver rc;
    pthread_t th;
    static const char ok[] = "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 39\r\n"
                             "Connection: close\r\n\r\n{\"id\":7,\"verdict\":\"pass\",\"findings\":[]}";
    receiver_start(&rc, &th, ok);
    char server[64], *out = NULL, *err = NULL;
    snprintf(server, sizeof server, "http://127.0.0.1:%d", rc.port);
    char *other = write_temp(REPORT_OTHER);
    const char *argv[] = {"gpuplan", "submit", "--server", server, "--plan", "3", "--token", a_token, other, NULL};
    ck_assert_int_eq(e2e_run(argv, NULL, &out, &err), 0);
    ck_assert_ptr_nonnull(strstr(out, "verdict: pass"));
    pthread_mutex_lock(&rc.lock);
    ck_assert_int_eq(rc.hits, 2);
    ck_assert(strncmp(rc.key[0], "submit-", 7) == 0);
    ck_assert_str_eq(rc.key[0], rc.key[1]);
    pthread_mutex_unlock(&rc.lock);
    free(out);
    free(err);
    unlink(other);
    receiver_stop(&rc, th);
}
END_TEST

/* Runs last in its case: reads what the database file holds. */
/* ---- calibration ---- */

/* The saved plan as `gpuplan check --plan` reads one, in a temporary file. */
static char *plan_file(long long plan)
{
    char path[96];
    cJSON *doc = NULL;
    snprintf(path, sizeof path, "/api/v1/plans/%lld", plan);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &doc), 200);
    char *text = cJSON_PrintUnformatted(doc);
    char *file = write_temp(text);
    free(text);
    cJSON_Delete(doc);
    return file;
}

START_TEST(an_upload_with_measured_busbw_carries_the_calibrated_plan_time_and_cost)
{
    char *nccl = read_text("intra-busbw-87-percent.log"); /* nccl-tests all_reduce, 404 GB/s at 4 GiB */
    long long plan = make_plan(&a_member, "Calibrated");
    cJSON *doc = NULL, *cli = NULL;
    long long rid = upload(a_token, plan, nccl, NULL, 201, &doc);
    const cJSON *m = cJSON_GetObjectItem(doc, "measured"), *cal = cJSON_GetObjectItem(doc, "calibration");
    ck_assert_msg(cJSON_IsObject(m) && cJSON_IsObject(cal), "no calibration in the upload's answer");
    ck_assert_double_eq_tol(cJSON_GetObjectItem(m, "intra_busbw_gbs")->valuedouble, 404.04, 1e-9);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(m, "inter_busbw_gbs")));
    const char *msg = jstr(cal, "message");
    ck_assert_msg(strncmp(msg, "at the measured 404 GB/s intra-node busbw the ", 46) == 0, "message: %s", msg);
    ck_assert_ptr_nonnull(strstr(msg, "-day plan takes "));
    double days = cJSON_GetObjectItem(cal, "calibrated_days")->valuedouble;
    double plan_days = cJSON_GetObjectItem(cal, "plan_days")->valuedouble;
    ck_assert(days > 0 && plan_days > 0);
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(cal, "calibrated_cost_usd")));

    /* The same block, number for number, as `gpuplan check` prints for the saved plan. */
    char *pfile = plan_file(plan), *nfile = write_temp(nccl);
    const char *argv[] = {"gpuplan", "check", "--plan", pfile, nfile, NULL};
    char *out = NULL, *err = NULL;
    /* exit 1: the run's GPUs are H100s, not the plan's RTX 6000 Ada (gpu.model) */
    ck_assert_int_eq(e2e_run(argv, NULL, &out, &err), 1);
    unlink(pfile); /* temporary files: not left in /tmp after each run */
    unlink(nfile);
    cli = cJSON_Parse(out);
    ck_assert_ptr_nonnull(cli);
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(cli, "measured"), m, 1));
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(cli, "calibration"), cal, 1));
    free(out);
    free(err);
    cJSON_Delete(cli);

    /* Stored with the report, and re-computed by a re-check against a new revision. */
    char path[128];
    cJSON *again = NULL;
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports/%lld", plan, rid);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &again), 200);
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(again, "calibration"), cal, 1));
    cJSON_Delete(again);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/tier", plan);
    ck_assert_int_eq(jcall(&a_member, "PUT", path, "{\"tier\":\"performance\"}", NULL), 200);
    snprintf(path, sizeof path, "/api/v1/plans/%lld/recheck", plan);
    ck_assert_int_eq(jcall(&a_member, "POST", path, NULL, &again), 200);
    const cJSON *item = cJSON_GetArrayItem(cJSON_GetObjectItem(again, "items"), 0);
    const cJSON *recal = cJSON_GetObjectItem(item, "calibration");
    ck_assert(cJSON_IsObject(recal));
    ck_assert_msg(strncmp(jstr(recal, "message"), "at the measured 404 GB/s", 24) == 0, "%s", jstr(recal, "message"));
    /* The performance tier is another cluster: its plan time is not the recommended tier's. */
    ck_assert(cJSON_GetObjectItem(recal, "plan_days")->valuedouble != plan_days);
    cJSON *stored = NULL;
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports/%lld", plan, rid);
    ck_assert_int_eq(jcall(&a_member, "GET", path, NULL, &stored), 200);
    ck_assert(cJSON_Compare(cJSON_GetObjectItem(stored, "calibration"), recal, 1));
    cJSON_Delete(stored);
    cJSON_Delete(again);
    cJSON_Delete(doc);
    free(nccl);
}
END_TEST

START_TEST(the_database_dump_holds_no_password_session_or_token)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' .dump", srv.db_path);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t cap = 1 << 20, n = 0;
    char *dump = malloc(cap);
    for (;;) {
        if (n + 65536 > cap)
            dump = realloc(dump, cap *= 2);
        size_t k = fread(dump + n, 1, 65536, p);
        if (k == 0)
            break;
        n += k;
    }
    dump[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_ptr_nonnull(strstr(dump, "CREATE TABLE users"));
    ck_assert_ptr_nonnull(strstr(dump, "pbkdf2-sha256$"));
    ck_assert_ptr_null(strstr(dump, PASSWORD));
    const struct who *people[] = {&a_owner, &a_member, &b_owner};
    for (int i = 0; i < 3; i++) {
        const char *sid = strchr(people[i]->cookie, '=') + 1;
        ck_assert_msg(strstr(dump, sid) == NULL, "a session id is stored in the clear");
    }
    ck_assert_ptr_null(strstr(dump, a_token));
    ck_assert_ptr_null(strstr(dump, b_token));
    ck_assert_ptr_null(strstr(dump, a_token + 4)); /* not even without its prefix */
    ck_assert_ptr_null(strstr(dump, a_share_token));
    ck_assert_ptr_null(strstr(dump, a_share_token + 4));
    ck_assert_ptr_null(strstr(dump, a_invite_token + 4));
    free(dump);
}
END_TEST

/* ---- server flags ---- */

START_TEST(closed_signup_and_secure_cookies_follow_the_flags)
{
    /* A second server on the same database file, as a deployment behind TLS would run. */
    static const char *extra[] = {"--no-signup", "--secure-cookies", NULL};
    struct e2e_server s2;
    struct e2e_resp r;
    char body[200], sc[300];
    ck_assert_int_eq(e2e_start(&s2, srv.db_path, extra), 0);
    const char *h[] = {"Content-Type: application/json", NULL};
    snprintf(body, sizeof body, "{\"team\":\"C\",\"email\":\"c@c.test\",\"password\":\"%s\"}", PASSWORD);
    ck_assert_int_eq(e2e_request(&s2, "POST", "/api/v1/teams", h, body, strlen(body), &r), 0);
    ck_assert_int_eq(r.status, 403);
    e2e_resp_release(&r);
    snprintf(body, sizeof body, "{\"email\":\"owner@a.test\",\"password\":\"%s\"}", PASSWORD);
    ck_assert_int_eq(e2e_request(&s2, "POST", "/api/v1/session", h, body, strlen(body), &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Set-Cookie", sc, sizeof sc));
    ck_assert_ptr_nonnull(strstr(sc, "; Secure"));
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_stop(&s2), 0);
}
END_TEST

/* A body of blank lines is as empty as no body: 400 naming it, nothing stored. */
START_TEST(a_report_of_only_whitespace_is_400_and_not_stored)
{
    char path[96];
    struct e2e_resp r;
    snprintf(path, sizeof path, "/api/v1/plans/%lld/reports", a_plan);
    ck_assert_int_eq(call(NULL, a_token, "GET", path, NULL, NULL, 0, &r), 200);
    cJSON *before = cJSON_Parse(r.body);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(NULL, a_token, "POST", path, "text/plain", "\n \t\r\n\n", 0, &r), 400);
    ck_assert_msg(strstr(r.body, "empty") && strstr(r.body, "\"field\":\"content\""), "%s", r.body);
    e2e_resp_release(&r);
    ck_assert_int_eq(call(NULL, a_token, "GET", path, NULL, NULL, 0, &r), 200);
    cJSON *after = cJSON_Parse(r.body);
    e2e_resp_release(&r);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(before, "items"));
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(after, "items")),
                     cJSON_GetArraySize(cJSON_GetObjectItem(before, "items")));
    /* the newest report is the one before the upload */
    const cJSON *b0 = cJSON_GetArrayItem(cJSON_GetObjectItem(before, "items"), 0);
    const cJSON *a0 = cJSON_GetArrayItem(cJSON_GetObjectItem(after, "items"), 0);
    ck_assert_int_eq(b0 ? jid(b0, "id") : 0, a0 ? jid(a0, "id") : 0);
    cJSON_Delete(before);
    cJSON_Delete(after);
}
END_TEST

/* submit names a file with no known tool output on stderr, as check does:
 * its verdict is unknown (exit 0), and a CI log should not say nothing. */
START_TEST(submit_names_a_file_with_no_tool_output)
{
    char plan[32];
    char *out = NULL, *err = NULL;
    snprintf(plan, sizeof plan, "%lld", a_plan);
    char *junk = write_temp("hello world\nthis is not tool output\n");
    const char *a[] = {"gpuplan", "submit", "--server", srv.base, "--plan", plan, "--token", a_token, junk,
                       NULL};
    ck_assert_int_eq(e2e_run(a, NULL, &out, &err), 0);
    ck_assert_ptr_nonnull(strstr(out, "verdict: unknown"));
    ck_assert_msg(strstr(err, junk) && strstr(err, "no known tool output found (2 lines)"), "%s", err);
    ck_assert_ptr_null(strstr(err, a_token));
    free(out);
    free(err);
    unlink(junk);
}
END_TEST

/* A report.fail event names what failed, so a receiver need not fetch the
 * report to say it. */
START_TEST(a_report_fail_event_lists_the_failed_findings)
{
    struct receiver rc;
    pthread_t th;
    receiver_start(&rc, &th, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    char body[200], path[96];
    cJSON *doc = NULL;
    snprintf(body, sizeof body, "{\"url\":\"http://127.0.0.1:%d/hook\",\"events\":[\"report.fail\"]}", rc.port);
    ck_assert_int_eq(jcall(&b_owner, "POST", "/api/v1/webhooks", body, &doc), 201);
    long long wid = jid(doc, "id");
    cJSON_Delete(doc);
    long long rid = upload(b_token, b_plan,
                           "CA 'mlx5_8'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n"
                           "\t\tState: Down\n\t\tPhysical state: Disabled\n\t\tRate: 400\n"
                           "\t\tLink layer: InfiniBand\n",
                           NULL, 201, &doc);
    ck_assert_str_eq(jstr(doc, "verdict"), "fail");
    cJSON_Delete(doc);
    for (int i = 0; i < 100; i++) {
        pthread_mutex_lock(&rc.lock);
        int hits = rc.hits;
        pthread_mutex_unlock(&rc.lock);
        if (hits >= 1)
            break;
        usleep(100000);
    }
    pthread_mutex_lock(&rc.lock);
    ck_assert_int_ge(rc.hits, 1);
    cJSON *ev = cJSON_Parse(rc.body[0]);
    pthread_mutex_unlock(&rc.lock);
    ck_assert_ptr_nonnull(ev);
    const cJSON *data = cJSON_GetObjectItem(ev, "data");
    ck_assert_int_eq(jid(data, "report_id"), rid);
    const cJSON *failed = cJSON_GetObjectItem(data, "failed"), *f;
    ck_assert(cJSON_IsArray(failed));
    int port_state = 0;
    cJSON_ArrayForEach(f, failed)
    {
        if (strcmp(jstr(f, "id"), "ib.port_state") == 0) {
            port_state = 1;
            ck_assert_ptr_nonnull(strstr(jstr(f, "message"), "mlx5_8 port 1 is Down"));
        }
    }
    ck_assert(port_state);
    cJSON_Delete(ev);
    receiver_stop(&rc, th);
    snprintf(path, sizeof path, "/api/v1/webhooks/%lld", wid);
    ck_assert_int_eq(jcall(&b_owner, "DELETE", path, NULL, NULL), 204);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rest");
    TCase *tc = tcase_create("team workflow");
    tcase_add_unchecked_fixture(tc, start_world, stop_world);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, signup_makes_an_owner_with_a_hardened_session_cookie);
    tcase_add_test(tc, signup_refuses_short_passwords_bad_fields_and_taken_emails);
    tcase_add_test(tc, login_logout_and_a_dead_session_is_401);
    tcase_add_test(tc, failed_logins_are_rate_limited_per_account);
    tcase_add_test(tc, failed_logins_are_rate_limited_per_account_and_per_address_by_the_serve_flags);
    tcase_add_test(tc, cookie_writes_need_the_csrf_header_and_tokens_do_not);
    tcase_add_test(tc, members_cannot_do_what_only_owners_may);
    tcase_add_test(tc, every_endpoint_answers_401_without_credentials);
    tcase_add_test(tc, another_teams_objects_answer_404_and_never_their_data);
    tcase_add_test(tc, api_tokens_are_shown_once_record_use_and_can_be_revoked);
    tcase_add_test(tc, plans_are_saved_revised_diffed_and_deleted);
    tcase_add_test(tc, plan_lists_page_by_cursor_and_filter_by_title);
    tcase_add_test(tc, reports_replay_on_the_same_key_and_refuse_another_body);
    tcase_add_test(tc, concurrent_uploads_with_one_key_store_one_report_and_replay_it);
    tcase_add_test(tc, reports_arrive_as_text_multipart_or_json_with_their_source);
    tcase_add_test(tc, a_report_over_the_limit_is_413);
    tcase_add_test(tc, reports_list_their_verdict_history_and_recheck_against_a_new_revision);
    tcase_add_test(tc, report_lists_page_newest_first_by_cursor_and_refuse_bad_paging);
    tcase_add_test(tc, an_uploads_answer_is_the_report_a_get_answers_less_its_content);
    tcase_add_test(tc, an_upload_is_judged_against_the_plan_as_it_is_now_on_a_worker_that_saw_it_before);
    tcase_add_test(tc, share_pages_open_without_login_until_revoked_or_expired);
    tcase_add_test(tc, share_expiry_defaults_to_30_days_and_stops_at_365);
    tcase_add_test(tc, a_tier_that_does_not_fit_is_labelled_on_the_share_page_with_no_zero_figures);
    tcase_add_test(tc, a_diff_from_a_tier_that_does_not_fit_reads_from_no_value);
    tcase_add_test(tc, a_shared_figure_below_a_cent_never_reads_as_0);
    tcase_add_test(tc, the_share_csv_ends_each_tier_with_its_total_as_the_page_shows_it);
    tcase_add_test(tc, webhooks_are_signed_retried_and_logged);
    tcase_add_test(tc, webhooks_to_loopback_private_or_link_local_addresses_are_refused_without_the_flag);
    tcase_add_test(tc, metrics_count_requests_reports_and_deliveries);
    tcase_add_test(tc, ci_uploads_with_submit_and_fails_the_pipeline_on_a_fail_verdict);
    tcase_add_test(tc, submit_retries_a_5xx_with_the_same_idempotency_key);
    tcase_add_test(tc, an_upload_with_measured_busbw_carries_the_calibrated_plan_time_and_cost);
    tcase_add_test(tc, closed_signup_and_secure_cookies_follow_the_flags);
    tcase_add_test(tc, the_database_dump_holds_no_password_session_or_token);
    tcase_add_test(tc, a_report_of_only_whitespace_is_400_and_not_stored);
    tcase_add_test(tc, submit_names_a_file_with_no_tool_output);
    tcase_add_test(tc, a_report_fail_event_lists_the_failed_findings);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
