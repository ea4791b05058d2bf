/* test_badinput.c: a corpus of malformed requests sent over raw TCP.
 *
 * libcurl only sends well-formed HTTP, so the cases here are bytes written to
 * a plain socket: broken framing, conflicting lengths, NUL bytes, bad
 * percent-encoding, traversal, oversized and deeply nested bodies, wrong JSON
 * types, invalid UTF-8 and slow clients. Every case names the endpoint it
 * aims at. The rule for each is the same: the answer is a 4xx
 * application/problem+json, or the connection is closed without an answer;
 * never a 5xx, never a hang, never a crash. After each batch the server must
 * still answer /healthz, and the process must still be alive.
 *
 * Endpoints that a build does not have yet answer 404 problem+json, which
 * passes; when they land, the same bytes reach their decoders. */
#include <arpa/inet.h>
#include <check.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "storm.h"

static struct e2e_server srv;
static int cases_run;
/* A signed-up team (session, CSRF token, API tokens, a plan), so cases reach
 * the decoders behind authentication instead of stopping at 401. */
static struct storm_team team;
static int have_team;
static char session_headers[700], bearer_header[200];

/* ---- raw HTTP over a socket ---- */

static int raw_connect(int port, int timeout_ms)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends everything; a server that closes early (it may, after a 413) is not an error. */
static void raw_send(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* Case-insensitive search for needle in the NUL-terminated hay (strcasestr is GNU-only). */
static const char *find_ci(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);
    for (; *hay; hay++) {
        if (strncasecmp(hay, needle, nl) == 0)
            return hay;
    }
    return NULL;
}

static int contains(const char *hay, size_t n, const char *needle)
{
    size_t nl = strlen(needle);
    for (size_t i = 0; i + nl <= n; i++) {
        if (memcmp(hay + i, needle, nl) == 0)
            return 1;
    }
    return 0;
}

struct answer {
    int closed;       /* connection closed with no answer at all */
    int timed_out;    /* neither an answer nor a close within the time */
    int status;
    char type[128];
    char *body;
    size_t body_len;
};

/* Reads one response: headers, then Content-Length bytes of body. */
static void raw_read(int fd, struct answer *ans)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    char *hend = NULL;
    long clen = -1;

    memset(ans, 0, sizeof *ans);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        ssize_t r = recv(fd, buf + n, cap - n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (n == 0)
                ans->timed_out = 1;
            break;
        }
        if (r <= 0)
            break; /* closed (or reset) */
        n += (size_t)r;
        buf[n] = '\0';
        if (!hend && (hend = strstr(buf, "\r\n\r\n")) != NULL) {
            const char *cl = find_ci(buf, "\r\nContent-Length:");
            if (cl && cl < hend)
                clen = strtol(cl + 17, NULL, 10);
        }
        if (hend && clen >= 0 && n >= (size_t)(hend + 4 - buf) + (size_t)clen)
            break;
    }
    buf[n] = '\0';
    if (n == 0) {
        ans->closed = !ans->timed_out;
        free(buf);
        return;
    }
    if (sscanf(buf, "HTTP/1.%*d %d", &ans->status) != 1)
        ans->status = -1;
    hend = strstr(buf, "\r\n\r\n");
    const char *ct = find_ci(buf, "\r\nContent-Type:");
    if (ct && hend && ct < hend) {
        ct += 15;
        while (*ct == ' ')
            ct++;
        size_t l = strcspn(ct, "\r\n");
        if (l >= sizeof ans->type)
            l = sizeof ans->type - 1;
        memcpy(ans->type, ct, l);
        ans->type[l] = '\0';
    }
    if (hend) {
        ans->body_len = n - (size_t)(hend + 4 - buf);
        ans->body = malloc(ans->body_len + 1);
        memcpy(ans->body, hend + 4, ans->body_len);
        ans->body[ans->body_len] = '\0';
    }
    free(buf);
}

/* ---- the verdict on one answer ---- */

enum accept { ACCEPT_4XX, ACCEPT_ANY_BELOW_500 };

static void judge(const char *name, const char *endpoint, enum accept acc, const struct answer *a)
{
    cases_run++;
    ck_assert_msg(!a->timed_out, "[%s] %s: no answer and no close within the time", endpoint, name);
    if (a->closed)
        return;
    ck_assert_msg(a->status >= 100, "[%s] %s: not an HTTP answer", endpoint, name);
    ck_assert_msg(a->status < 500, "[%s] %s: answered %d", endpoint, name, a->status);
    if (acc == ACCEPT_4XX)
        ck_assert_msg(a->status >= 400, "[%s] %s: answered %d, expected a 4xx", endpoint, name, a->status);
    if (a->status >= 400) {
        ck_assert_msg(strcmp(a->type, "application/problem+json") == 0, "[%s] %s: %d with type '%s'",
                      endpoint, name, a->status, a->type);
        cJSON *doc = cJSON_ParseWithLength(a->body ? a->body : "", a->body_len);
        ck_assert_msg(doc != NULL, "[%s] %s: problem body is not JSON", endpoint, name);
        cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "status");
        ck_assert_msg(cJSON_IsNumber(st) && st->valueint == a->status, "[%s] %s: problem status mismatch",
                      endpoint, name);
        cJSON_Delete(doc);
    }
}

/* Sends raw bytes, half-closes (so a server waiting for more body sees the
 * end at once), reads the answer and judges it. */
static void run_raw(const char *name, const char *endpoint, enum accept acc, const char *bytes, size_t n)
{
    struct answer a;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fd = raw_connect(srv.port, 8000);
    ck_assert_msg(fd >= 0, "[%s] %s: cannot connect: the server is gone", endpoint, name);
    raw_send(fd, bytes, n);
    shutdown(fd, SHUT_WR);
    raw_read(fd, &a);
    close(fd);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (ms > 200)
        fprintf(stderr, "badinput: [%s] %s took %.0f ms\n", endpoint, name, ms);
    judge(name, endpoint, acc, &a);
    free(a.body);
}

#define RAW(name, endpoint, acc, lit) run_raw(name, endpoint, acc, lit, sizeof(lit) - 1)

/* Builds and sends METHOD PATH with a body of exactly body_len bytes. */
static void run_body_acc(const char *name, const char *endpoint, enum accept acc, const char *method,
                         const char *path, const char *content_type, const char *extra, const char *body,
                         size_t body_len)
{
    char head[4096];
    int h = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n",
                     method, path, content_type, body_len, extra ? extra : "");
    ck_assert(h > 0 && h < (int)sizeof head);
    char *req = malloc((size_t)h + body_len);
    memcpy(req, head, (size_t)h);
    memcpy(req + h, body, body_len);
    run_raw(name, endpoint, acc, req, (size_t)h + body_len);
    free(req);
}

static void run_body(const char *name, const char *endpoint, const char *method, const char *path,
                     const char *content_type, const char *extra, const char *body, size_t body_len)
{
    run_body_acc(name, endpoint, ACCEPT_4XX, method, path, content_type, extra, body, body_len);
}

/* "/api/v1/plans/{plan}/..." with the team's plan id. */
static const char *with_plan(const char *pattern, char *buf, size_t buflen)
{
    const char *at = strstr(pattern, "{plan}");
    if (!at) {
        snprintf(buf, buflen, "%s", pattern);
        return buf;
    }
    snprintf(buf, buflen, "%.*s%ld%s", (int)(at - pattern), pattern, have_team ? team.plan_id : 1L, at + 6);
    return buf;
}

static void assert_still_serving(const char *after)
{
    struct e2e_resp r;
    if (getenv("BADINPUT_TRACE")) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        fprintf(stderr, "badinput: %.3f after %s\n", ts.tv_sec + ts.tv_nsec / 1e9, after);
    }
    int status;
    ck_assert_msg(waitpid(srv.pid, &status, WNOHANG) == 0, "the server process died after %s", after);
    ck_assert_msg(kill(srv.pid, 0) == 0, "the server process is gone after %s", after);
    ck_assert_msg(e2e_request(&srv, "GET", "/healthz", NULL, NULL, 0, &r) == 0, "no /healthz after %s", after);
    ck_assert_msg(r.status == 200, "/healthz answered %ld after %s", r.status, after);
    e2e_resp_release(&r);
}

/* ---- the JSON endpoints and what is wrong with their bodies ---- */

enum auth { AUTH_NONE, AUTH_SESSION, AUTH_BEARER };

/* acc: what a well-formed-but-wrong body may get. Endpoints whose every
 * field is optional (a share, an invite) may accept some of the bodies below
 * as valid; there the rule is only "never a 5xx". */
static const struct {
    const char *endpoint, *method, *path;
    enum auth auth;
    enum accept acc;
} json_endpoints[] = {
    {"recommend", "POST", "/api/v1/recommend", AUTH_NONE, ACCEPT_4XX},
    {"estimate", "POST", "/api/v1/estimate", AUTH_NONE, ACCEPT_4XX},
    {"teams", "POST", "/api/v1/teams", AUTH_NONE, ACCEPT_4XX},
    {"session", "POST", "/api/v1/session", AUTH_NONE, ACCEPT_4XX},
    {"invite accept", "POST", "/api/v1/invites/accept", AUTH_NONE, ACCEPT_4XX},
    {"plans", "POST", "/api/v1/plans", AUTH_SESSION, ACCEPT_4XX},
    {"plan revision", "PUT", "/api/v1/plans/{plan}", AUTH_SESSION, ACCEPT_4XX},
    {"plan tier", "PUT", "/api/v1/plans/{plan}/tier", AUTH_SESSION, ACCEPT_4XX},
    {"tokens", "POST", "/api/v1/tokens", AUTH_SESSION, ACCEPT_4XX},
    {"webhooks", "POST", "/api/v1/webhooks", AUTH_SESSION, ACCEPT_4XX},
    {"shares", "POST", "/api/v1/plans/{plan}/shares", AUTH_SESSION, ACCEPT_ANY_BELOW_500},
    {"invites", "POST", "/api/v1/invites", AUTH_SESSION, ACCEPT_ANY_BELOW_500},
    {"reports (JSON upload)", "POST", "/api/v1/plans/{plan}/reports", AUTH_BEARER, ACCEPT_4XX},
};

static const char *auth_headers(enum auth a)
{
    if (!have_team)
        return NULL;
    return a == AUTH_SESSION ? session_headers : a == AUTH_BEARER ? bearer_header : NULL;
}

static const struct {
    const char *name, *body;
} json_bodies[] = {
    {"empty body", ""},
    {"lone open brace", "{"},
    {"unterminated array", "[1,2"},
    {"truncated literal", "nul"},
    {"missing value", "{\"model\":}"},
    {"trailing garbage", "{} x"},
    {"single quotes", "{'task':'pretrain'}"},
    {"trailing comma", "{\"task\":\"pretrain\",}"},
    {"top-level array", "[{\"model\":{\"preset\":\"llama-3-70b\"}}]"},
    {"top-level string", "\"pretrain\""},
    {"top-level number", "42"},
    {"NaN literal", "{\"model\":{\"preset\":\"llama-3-70b\"},\"task\":\"pretrain\",\"tokens_b\":NaN}"},
    {"Infinity literal", "{\"model\":{\"preset\":\"llama-3-70b\"},\"task\":\"pretrain\",\"tokens_b\":Infinity}"},
    {"huge exponent", "{\"model\":{\"preset\":\"llama-3-70b\"},\"task\":\"pretrain\",\"tokens_b\":1e999999}"},
    {"huge negative", "{\"model\":{\"preset\":\"llama-3-70b\"},\"task\":\"pretrain\",\"tokens_b\":-1e308,"
                      "\"max_gpus\":-99999999999999999999}"},
    {"negative counts", "{\"model\":{\"params_b\":-7},\"task\":\"pretrain\",\"tokens_b\":-1,\"max_gpus\":-8,"
                        "\"seq_len\":-4096,\"cluster\":{\"gpu\":\"h100-sxm-80gb\",\"count\":-16,\"per_node\":-8}}"},
    {"zero everywhere", "{\"model\":{\"params_b\":0},\"task\":\"pretrain\",\"tokens_b\":0,\"seq_len\":0,"
                        "\"cluster\":{\"gpu\":\"h100-sxm-80gb\",\"count\":0,\"per_node\":0}}"},
    {"hex number", "{\"model\":{\"preset\":\"llama-3-70b\"},\"task\":\"pretrain\",\"tokens_b\":0x10}"},
    {"wrong types", "{\"model\":5,\"task\":[],\"tokens_b\":\"lots\",\"precision\":7,\"gpus_allowed\":\"h100\","
                    "\"email\":[1],\"password\":{},\"team\":true,\"title\":null,\"name\":12}"},
    {"model wrong shape", "{\"model\":{\"preset\":[\"llama-3-70b\"]},\"task\":\"pretrain\",\"tokens_b\":1}"},
    {"unknown preset and task", "{\"model\":{\"preset\":\"../../etc/passwd\"},\"task\":\"dance\",\"tokens_b\":1}"},
    {"invalid UTF-8 bytes", "{\"team\":\"\xff\xfe\xfd\",\"email\":\"a\xc0\xaf@x.test\",\"password\":\"\xed\xa0\x80xxxxxxxxxxxx\","
                            "\"model\":{\"preset\":\"\xf8\x88\x80\x80\x80\"},\"task\":\"pretrain\",\"tokens_b\":1}"},
    {"lone surrogate escape", "{\"team\":\"\\ud800\",\"email\":\"\\udfff@x.test\",\"password\":\"\\ud800\\ud800xxxxxxxxxxxx\","
                              "\"model\":{\"preset\":\"\\ud83d\"},\"task\":\"pretrain\",\"tokens_b\":1}"},
    {"escaped NUL in strings", "{\"team\":\"a\\u0000b\",\"email\":\"a\\u0000@x.test\",\"password\":\"\\u0000xxxxxxxxxxxxx\","
                               "\"title\":\"t\\u0000\",\"name\":\"\\u0000\","
                               "\"model\":{\"preset\":\"llama-3-70b\\u0000\"},\"task\":\"pretrain\\u0000\",\"tokens_b\":1}"},
    {"bad escape", "{\"team\":\"\\x41\",\"model\":{\"preset\":\"\\q\"}}"},
    {"duplicate keys of different types", "{\"tokens_b\":1,\"tokens_b\":\"x\",\"model\":{\"preset\":\"llama-3-70b\"},"
                                          "\"model\":7,\"task\":\"pretrain\"}"},
    {"deep nesting in a field", "{\"model\":{\"preset\":{\"a\":{\"b\":{\"c\":{\"d\":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}}}}}}"},
    {"raw control bytes in a string", "{\"team\":\"a\x01\x02\x1b[31m\",\"model\":{\"preset\":\"llama\x07\"},\"task\":\"pretrain\"}"},
};

static void run_json_corpus(void)
{
    char path[256];
    for (size_t e = 0; e < sizeof json_endpoints / sizeof json_endpoints[0]; e++) {
        const char *ep = json_endpoints[e].endpoint, *method = json_endpoints[e].method;
        const char *extra = auth_headers(json_endpoints[e].auth);
        enum accept acc = json_endpoints[e].acc;
        with_plan(json_endpoints[e].path, path, sizeof path);
        for (size_t b = 0; b < sizeof json_bodies / sizeof json_bodies[0]; b++) {
            const char *body = json_bodies[b].body;
            run_body_acc(json_bodies[b].name, ep, acc, method, path, "application/json", extra, body,
                         strlen(body));
        }
        /* NUL bytes in the body itself, not escaped. */
        static const char nul_body[] = "{\"task\":\"pre\0train\",\"model\":{\"preset\":\"llama-3-70b\"}}";
        run_body("raw NUL bytes in the body", ep, method, path, "application/json", extra, nul_body,
                 sizeof nul_body - 1);
        run_body_acc("wrong content type", ep, acc, method, path, "text/html", extra, "<html>", 6);
        assert_still_serving(ep);
    }
}

/* Nesting far beyond any decoder's limit: a recursive parser without one
 * would overflow the worker's stack. */
static void run_deep_nesting(void)
{
    size_t depth = 200000;
    char *arr = malloc(depth * 2);
    memset(arr, '[', depth);
    memset(arr + depth, ']', depth);
    char *obj = malloc(depth * 6 + 8);
    size_t n = 0;
    for (size_t i = 0; i < depth; i++) {
        memcpy(obj + n, "{\"a\":", 5);
        n += 5;
    }
    obj[n++] = '1';
    memset(obj + n, '}', depth);
    n += depth;
    for (size_t e = 0; e < sizeof json_endpoints / sizeof json_endpoints[0]; e++) {
        char path[256];
        const char *extra = auth_headers(json_endpoints[e].auth);
        with_plan(json_endpoints[e].path, path, sizeof path);
        run_body("200000 nested arrays", json_endpoints[e].endpoint, json_endpoints[e].method, path,
                 "application/json", extra, arr, depth * 2);
        run_body("200000 nested objects", json_endpoints[e].endpoint, json_endpoints[e].method, path,
                 "application/json", extra, obj, n);
    }
    free(arr);
    free(obj);
    assert_still_serving("deep nesting");
}

/* Bodies over the limits: declared (refused before reading) and chunked
 * (no declared length: must be cut off at the limit). */
static void run_oversize(void)
{
    size_t big = (2u << 20) + 17; /* over the 1 MiB JSON limit of the default server */
    char *body = malloc(big);
    memset(body, ' ', big);
    body[0] = '[';
    body[big - 1] = ']';
    run_body("2 MiB JSON body", "recommend", "POST", "/api/v1/recommend", "application/json", NULL, body, big);
    run_body("2 MiB JSON body", "teams", "POST", "/api/v1/teams", "application/json", NULL, body, big);

    /* Declared larger than the report limit: refused before a byte is read. */
    static const char declared[] =
        "POST /api/v1/plans/1/reports HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
        "Authorization: Bearer gpp_x\r\nContent-Length: 999999999999\r\n\r\nabc";
    RAW("declared 1 TB report", "reports", ACCEPT_4XX, declared);

    /* Chunked JSON over the limit, in 64 KiB chunks. */
    size_t chunk = 65536, chunks = 40;
    size_t cap = 256 + chunks * (chunk + 16);
    char *req = malloc(cap);
    size_t n = (size_t)snprintf(req, cap,
                                "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                "Transfer-Encoding: chunked\r\n\r\n");
    for (size_t i = 0; i < chunks; i++) {
        n += (size_t)snprintf(req + n, cap - n, "%zx\r\n", chunk);
        memset(req + n, ' ', chunk);
        n += chunk;
        memcpy(req + n, "\r\n", 2);
        n += 2;
    }
    memcpy(req + n, "0\r\n\r\n", 5);
    n += 5;
    run_raw("2.5 MiB chunked JSON body", "recommend", ACCEPT_4XX, req, n);
    free(req);
    free(body);

    /* A 40 KiB header line, and 700 header lines (max_request_size is 16 KiB). */
    size_t hl = 40000;
    char *hreq = malloc(hl + 256);
    n = (size_t)snprintf(hreq, 256, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(hreq + n, 'a', hl);
    n += hl;
    memcpy(hreq + n, "\r\n\r\n", 4);
    run_raw("40 KiB header value", "healthz", ACCEPT_4XX, hreq, n + 4);
    free(hreq);
    char *many = malloc(700 * 32 + 128);
    n = (size_t)snprintf(many, 128, "GET /healthz HTTP/1.1\r\nHost: x\r\n");
    for (int i = 0; i < 700; i++)
        n += (size_t)snprintf(many + n, 40, "X-H%03d: %020d\r\n", i, i);
    memcpy(many + n, "\r\n", 2);
    run_raw("700 header lines (20 KiB)", "healthz", ACCEPT_4XX, many, n + 2);
    free(many);
    /* A 20 KiB path. */
    char *lpath = malloc(20100);
    n = (size_t)snprintf(lpath, 64, "GET /");
    memset(lpath + n, 'p', 20000);
    n += 20000;
    n += (size_t)snprintf(lpath + n, 64, " HTTP/1.1\r\nHost: x\r\n\r\n");
    run_raw("20 KiB path", "static", ACCEPT_4XX, lpath, n);
    free(lpath);
    assert_still_serving("oversize requests");
}

static void run_framing(void)
{
    RAW("garbage instead of a request line", "any", ACCEPT_4XX, "GARBAGE\r\n\r\n");
    RAW("method only", "any", ACCEPT_4XX, "GET\r\n\r\n");
    RAW("binary noise", "any", ACCEPT_4XX, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n");
    RAW("HTTP/9.9", "healthz", ACCEPT_4XX, "GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n");
    RAW("HTTP/0.9 style", "healthz", ACCEPT_4XX, "GET /healthz\r\n\r\n");
    RAW("header without a colon", "healthz", ACCEPT_ANY_BELOW_500, "GET /healthz HTTP/1.1\r\nHost x\r\nBroken\r\n\r\n");
    RAW("space before the colon", "healthz", ACCEPT_ANY_BELOW_500, "GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n");
    RAW("NUL in a header name", "healthz", ACCEPT_ANY_BELOW_500, "GET /healthz HTTP/1.1\r\nHo\0st: x\r\n\r\n");
    RAW("NUL in the path", "healthz", ACCEPT_4XX, "GET /heal\0thz HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("NUL in the method", "recommend", ACCEPT_4XX, "PO\0ST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
    RAW("percent-encoded NUL in the path", "static", ACCEPT_4XX, "GET /index.html%00.js HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("percent-encoded NUL in an id", "plans", ACCEPT_4XX, "GET /api/v1/plans/1%00 HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("Content-Length negative", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n{}");
    RAW("Content-Length not a number", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}");
    RAW("Content-Length overflowing 64 bits", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 99999999999999999999999\r\n\r\n{}");
    RAW("two different Content-Lengths", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        "Content-Length: 40\r\n\r\n{}");
    RAW("body shorter than Content-Length", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"a\":");
    RAW("body shorter than Content-Length", "teams", ACCEPT_4XX,
        "POST /api/v1/teams HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{}");
    RAW("both Transfer-Encoding and Content-Length", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\n"
        "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
    RAW("both Transfer-Encoding and Content-Length, smuggled request", "teams", ACCEPT_4XX,
        "POST /api/v1/teams HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 6\r\n"
        "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/v1/plans HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("both Transfer-Encoding and Content-Length", "reports", ACCEPT_4XX,
        "POST /api/v1/plans/1/reports HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
        "Transfer-Encoding: chunked\r\nAuthorization: Bearer gpp_x\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
    RAW("chunk size not hex", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "zz\r\n{}\r\n0\r\n\r\n");
    RAW("chunk size of 2^64-1", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "ffffffffffffffff\r\n{}\r\n0\r\n\r\n");
    RAW("negative chunk size", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "-5\r\n{}\r\n0\r\n\r\n");
    RAW("chunked body without the last chunk", "estimate", ACCEPT_4XX,
        "POST /api/v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "2\r\n{}\r\n");
    RAW("chunk longer than announced", "estimate", ACCEPT_4XX,
        "POST /api/v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "1\r\n{}}}}}\r\n0\r\n\r\n");
    RAW("unknown transfer coding", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n{}");
    RAW("obfuscated Transfer-Encoding", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        "Transfer-Encoding : chunked\r\n\r\n{}");
    RAW("bare LF line ends with a bad body", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\nHost: x\nContent-Type: application/json\nContent-Length: 1\n\n{");
    RAW("folded header line", "recommend", ACCEPT_4XX,
        "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type:\r\n application/json\r\nContent-Length: 1\r\n\r\n{");
    assert_still_serving("framing");

    RAW("unknown method", "healthz", ACCEPT_4XX, "FROBNICATE /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("lower-case method", "healthz", ACCEPT_4XX, "get /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("PROPFIND", "static", ACCEPT_4XX, "PROPFIND / HTTP/1.1\r\nHost: x\r\nDepth: 1\r\n\r\n");
    RAW("MKCOL", "static", ACCEPT_4XX, "MKCOL /newdir HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("PUT a static file", "static", ACCEPT_4XX, "PUT /index.html HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nowned");
    RAW("DELETE a static file", "static", ACCEPT_4XX, "DELETE /index.html HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("CONNECT", "any", ACCEPT_4XX, "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n");
    RAW("TRACE", "healthz", ACCEPT_4XX, "TRACE /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("PATCH", "recommend", ACCEPT_4XX,
        "PATCH /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    RAW("GET on a POST endpoint", "recommend", ACCEPT_4XX, "GET /api/v1/recommend HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("DELETE on the collection", "plans", ACCEPT_4XX, "DELETE /api/v1/plans HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("a 300-byte method", "any", ACCEPT_4XX,
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        " / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_still_serving("methods");
}

static void run_paths(void)
{
    /* Dot segments are removed before routing (RFC 3986 5.2.4), so "/./../index.html"
     * is the index page itself: a 200 there is right, as long as nothing outside
     * web/ ever comes back. */
    static const struct {
        const char *path;
        enum accept acc;
    } traversal[] = {
        {"/../../etc/passwd", ACCEPT_4XX},
        {"/%2e%2e/%2e%2e/etc/passwd", ACCEPT_4XX},
        {"/..%2f..%2fetc%2fpasswd", ACCEPT_4XX},
        {"/%252e%252e/%252e%252e/etc/passwd", ACCEPT_4XX},
        {"/.git/config", ACCEPT_4XX},
        {"/web/../../CMakeLists.txt", ACCEPT_4XX},
        {"/..\\..\\etc\\passwd", ACCEPT_4XX},
        {"/%5c..%5c..%5cetc%5cpasswd", ACCEPT_4XX},
        {"//etc/passwd", ACCEPT_4XX},
        {"/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd", ACCEPT_4XX},
        {"/./../index.html", ACCEPT_ANY_BELOW_500},
        {"/.env", ACCEPT_4XX},
        {"/index.html/..%2f..%2f..%2fetc%2fpasswd", ACCEPT_4XX},
        {"/favicon.svg%2f..%2f..%2fCMakeLists.txt", ACCEPT_4XX},
        {"/%2fetc%2fpasswd", ACCEPT_4XX},
        {"/proc/self/environ", ACCEPT_4XX},
    };
    static const char *const secrets[] = {"root:x:", "root:*:", "cmake_minimum_required",
                                          "repositoryformatversion", "PATH=", "SQLite format"};
    for (size_t i = 0; i < sizeof traversal / sizeof traversal[0]; i++) {
        char req[512], name[200];
        struct answer a;
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", traversal[i].path);
        snprintf(name, sizeof name, "path traversal %s", traversal[i].path);
        int fd = raw_connect(srv.port, 8000);
        ck_assert_int_ge(fd, 0);
        raw_send(fd, req, (size_t)n);
        shutdown(fd, SHUT_WR);
        raw_read(fd, &a);
        close(fd);
        judge(name, "static", traversal[i].acc, &a);
        for (size_t k = 0; a.body && k < sizeof secrets / sizeof secrets[0]; k++)
            ck_assert_msg(!contains(a.body, a.body_len, secrets[k]),
                          "[static] %s: served a file outside web/", name);
        free(a.body);
    }
    static const char *const bad_pct[] = {
        "/%", "/%z", "/%zz", "/%4", "/index.html%", "/api/v1/plans/%ff%fe", "/api/v1/plans/%",
        "/api/v1/plans/%G1", "/api/v1/plans/abc", "/api/v1/plans/-1", "/api/v1/plans/99999999999999999999999",
        "/api/v1/plans/1e5", "/api/v1/plans/0x10", "/api/v1/plans/1/reports/%00",
        "/api/v1/shares/%ZZ", "/api/v1/tokens/%2e%2e", "/s/%00.json", "/s/..%2f..%2fetc%2fpasswd.csv",
    };
    for (size_t i = 0; i < sizeof bad_pct / sizeof bad_pct[0]; i++) {
        char req[512];
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", bad_pct[i]);
        char name[200];
        snprintf(name, sizeof name, "bad path or id %s", bad_pct[i]);
        run_raw(name, strncmp(bad_pct[i], "/api/", 5) == 0 ? "plans" : "static", ACCEPT_4XX, req, (size_t)n);
    }
    RAW("absolute URI to another host", "static", ACCEPT_ANY_BELOW_500,
        "GET http://evil.test/../../etc/passwd HTTP/1.1\r\nHost: evil.test\r\n\r\n");
    RAW("asterisk target", "any", ACCEPT_ANY_BELOW_500, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_still_serving("paths");
}

/* Uploads and credentials: malformed auth, multipart without structure. */
static void run_uploads(void)
{
    static const char *const auth[] = {
        "Authorization: Bearer\r\n",
        "Authorization: Bearer \x01\x02\x03\r\n",
        "Authorization: Basic Zm9vOmJhcg==\r\n",
        "Authorization: Bearer gpp_\r\n",
        "Authorization: Bearer gpp_\xff\xfe\r\n",
        "Cookie: gpuplan_session=\x7f\x7f; gpuplan_session=x\r\n",
    };
    for (size_t i = 0; i < sizeof auth / sizeof auth[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "malformed credentials #%zu", i + 1);
        run_body(name, "reports", "POST", "/api/v1/plans/1/reports", "text/plain", auth[i], "#wrong 0\n", 9);
    }
    static const struct {
        const char *name, *type, *body;
    } multipart[] = {
        {"multipart without a boundary", "multipart/form-data", "--x\r\n\r\nabc\r\n--x--\r\n"},
        {"multipart with an empty boundary", "multipart/form-data; boundary=", "--\r\n\r\nabc\r\n----\r\n"},
        {"multipart with no closing delimiter", "multipart/form-data; boundary=b",
         "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nabc"},
        {"multipart with no part headers end", "multipart/form-data; boundary=b",
         "--b\r\nContent-Disposition: form-data; name=\"file\"\r\nabc\r\n--b--\r\n"},
        {"multipart with only the closing delimiter", "multipart/form-data; boundary=b", "--b--\r\n"},
        {"multipart with a quoted boundary that never appears", "multipart/form-data; boundary=\"zz\"",
         "--b\r\n\r\nabc\r\n--b--\r\n"},
        {"multipart with a 300-byte boundary", "multipart/form-data; boundary=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
         "--b\r\n\r\nabc\r\n--b--\r\n"},
        {"JSON upload with content of the wrong type", "application/json", "{\"content\":42}"},
        {"JSON upload that is not JSON", "application/json", "{\"content\":\"abc"},
        {"upload of an unsupported type", "image/png", "\x89PNG\r\n\x1a\n"},
    };
    char path[128];
    with_plan("/api/v1/plans/{plan}/reports", path, sizeof path);
    const char *bearer = have_team ? bearer_header
                                   : "Authorization: Bearer gpp_0000000000000000000000000000000000000000000\r\n";
    for (size_t i = 0; i < sizeof multipart / sizeof multipart[0]; i++)
        run_body(multipart[i].name, "reports", "POST", path, multipart[i].type, bearer, multipart[i].body,
                 strlen(multipart[i].body));

    /* With a valid token: what is wrong is the report or its headers. */
    char hdr[1024], key[400];
    static const char nul_text[] = "#wrong 0\n\0\0\0binary";
    run_body("empty report", "reports", "POST", path, "text/plain", bearer, "", 0);
    run_body("report with NUL bytes", "reports", "POST", path, "text/plain", bearer, nul_text, sizeof nul_text - 1);
    memset(key, 'k', 300);
    key[300] = '\0';
    snprintf(hdr, sizeof hdr, "%sIdempotency-Key: %s\r\n", bearer, key);
    run_body("300-byte Idempotency-Key", "reports", "POST", path, "text/plain", hdr, "#wrong 0\n", 9);
    snprintf(hdr, sizeof hdr, "%sX-Report-Source: ci\x1b[31m\x01job\r\n", bearer);
    run_body("control bytes in X-Report-Source", "reports", "POST", path, "text/plain", hdr, "#wrong 0\n", 9);
    run_body("upload to a plan that does not exist", "reports", "POST", "/api/v1/plans/999999/reports", "text/plain",
             bearer, "#wrong 0\n", 9);
    run_body("upload to a plan id that is not a number", "reports", "POST", "/api/v1/plans/1x/reports",
             "text/plain", bearer, "#wrong 0\n", 9);
    assert_still_serving("uploads");
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Slow clients, bounded to a few seconds in all: the server must keep
 * answering others while a connection trickles or stalls. */
static void run_slow(void)
{
    /* Headers one byte at a time over about 1.5 s, then a body that is wrong. */
    static const char req[] = "POST /api/v1/recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              "Content-Length: 5\r\n\r\n{\"a\":";
    int fd = raw_connect(srv.port, 8000);
    ck_assert_int_ge(fd, 0);
    for (size_t i = 0; i < sizeof req - 1; i++) {
        raw_send(fd, req + i, 1);
        sleep_ms(1500 / (long)(sizeof req));
    }
    struct answer a;
    raw_read(fd, &a);
    close(fd);
    judge("headers trickled one byte at a time", "recommend", ACCEPT_4XX, &a);
    free(a.body);

    /* Connections that stall mid-header, and a body that stalls half-way:
     * meanwhile the server answers everyone else. civetweb gives each
     * connection a worker thread until request_timeout_ms (30 s), so a
     * stalled client holds a worker: the test stalls half of the 16 the
     * e2e server runs, and a deployment needs more workers than stalled
     * clients it must survive (or a proxy that buffers requests). */
    enum { STALLED = 8 };
    int stalled[STALLED + 1];
    for (int i = 0; i < STALLED; i++) {
        stalled[i] = raw_connect(srv.port, 8000);
        ck_assert_int_ge(stalled[i], 0);
        raw_send(stalled[i], "GET /healthz HTTP/1.1\r\nHo", 25);
    }
    stalled[STALLED] = raw_connect(srv.port, 8000);
    ck_assert_int_ge(stalled[STALLED], 0);
    static const char half[] = "POST /api/v1/teams HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               "Content-Length: 1000\r\n\r\n{\"team\":\"";
    raw_send(stalled[STALLED], half, sizeof half - 1);
    for (int i = 0; i < 5; i++) {
        assert_still_serving("stalled clients");
        sleep_ms(200);
    }
    for (int i = 0; i <= STALLED; i++) {
        shutdown(stalled[i], SHUT_WR);
        raw_read(stalled[i], &a);
        close(stalled[i]);
        judge("connection stalled then closed", i == STALLED ? "teams" : "healthz",
              i == STALLED ? ACCEPT_4XX : ACCEPT_ANY_BELOW_500, &a);
        free(a.body);
    }
    /* A connection opened and closed without a byte. */
    fd = raw_connect(srv.port, 8000);
    ck_assert_int_ge(fd, 0);
    close(fd);
    assert_still_serving("slow clients");
}

static void start_server(void)
{
    char why[512];
    /* Sixteen workers (e2e default): the stalled clients above take some of them. */
    ck_assert_int_eq(e2e_start(&srv, NULL, NULL), 0);
    int rc = storm_setup(&srv, &team, why, sizeof why);
    ck_assert_msg(rc >= 0, "cannot set up a team: %s", why);
    have_team = rc == 0;
    if (have_team) {
        snprintf(session_headers, sizeof session_headers, "Cookie: %s\r\nX-CSRF-Token: %s\r\n", team.cookie,
                 team.csrf);
        snprintf(bearer_header, sizeof bearer_header, "Authorization: Bearer %s\r\n", team.tokens[0]);
    }
}

static void stop_server(void)
{
    ck_assert_int_eq(e2e_stop(&srv), 0);
}

START_TEST(malformed_json_bodies_get_4xx_problems_on_every_endpoint) { run_json_corpus(); }
END_TEST
START_TEST(deeply_nested_json_is_refused_without_crashing) { run_deep_nesting(); }
END_TEST
START_TEST(oversize_bodies_headers_and_paths_are_refused) { run_oversize(); }
END_TEST
START_TEST(broken_framing_and_unknown_methods_are_refused) { run_framing(); }
END_TEST
START_TEST(traversal_and_bad_percent_encoding_never_reach_a_file) { run_paths(); }
END_TEST
START_TEST(malformed_uploads_and_credentials_are_refused) { run_uploads(); }
END_TEST
START_TEST(slow_and_stalled_clients_do_not_stop_the_server) { run_slow(); }
END_TEST

/* Runs last: the tests share one server and one count (no fork between them). */
START_TEST(the_corpus_holds_at_least_100_cases)
{
    printf("badinput: %d malformed requests, none answered 5xx, the server kept serving\n", cases_run);
    ck_assert_int_ge(cases_run, 100);
}
END_TEST

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("badinput");
    TCase *tc = tcase_create("corpus");
    /* One server for the whole corpus: what one case does to it, the next
     * case and every /healthz check must survive. */
    tcase_add_unchecked_fixture(tc, start_server, stop_server);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, malformed_json_bodies_get_4xx_problems_on_every_endpoint);
    tcase_add_test(tc, deeply_nested_json_is_refused_without_crashing);
    tcase_add_test(tc, oversize_bodies_headers_and_paths_are_refused);
    tcase_add_test(tc, broken_framing_and_unknown_methods_are_refused);
    tcase_add_test(tc, traversal_and_bad_percent_encoding_never_reach_a_file);
    tcase_add_test(tc, malformed_uploads_and_credentials_are_refused);
    tcase_add_test(tc, slow_and_stalled_clients_do_not_stop_the_server);
    tcase_add_test(tc, the_corpus_holds_at_least_100_cases);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
