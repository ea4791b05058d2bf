/* http.c: civetweb set-up, routing, request bodies, replies and errors.
 *
 * One civetweb handler receives every request and dispatches on a static
 * route table (http_routes.c); anything no route claims is a static file
 * under web/. Every reply goes through http_send() so each one carries the
 * security headers and is counted in the access log (one line per request:
 * method, path, status, bytes, milliseconds). Each worker thread owns one
 * SQLite connection, opened on first use and closed when the thread ends;
 * report uploads write through one shared committer instead (db_batch.c),
 * which http_start starts and http_stop stops after the last request. */
#include <arpa/inet.h>
#include <civetweb.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <ucontext.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

#if defined(__SANITIZE_ADDRESS__)
#define GPUPLAN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUPLAN_ASAN 1
#endif
#endif
#ifndef GPUPLAN_ASAN
#define GPUPLAN_ASAN 0
#endif
#if GPUPLAN_ASAN
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif
/* valgrind's client requests (no-ops outside valgrind), where its header is */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define GPUPLAN_VALGRIND 1
#endif
#endif
#ifndef GPUPLAN_VALGRIND
#define GPUPLAN_VALGRIND 0
#endif

#define SECURITY_HEADERS                                                                        \
    "Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; "       \
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "            \
    "frame-ancestors 'none'; form-action 'self'\r\n"                                            \
    "X-Content-Type-Options: nosniff\r\n"                                                       \
    "Referrer-Policy: no-referrer\r\n"                                                          \
    "X-Frame-Options: DENY\r\n"                                                                 \
    "Cross-Origin-Opener-Policy: same-origin\r\n"

/* Each civetweb worker thread owns a slot (init_thread's return value): its
 * database connection, its handler stack and its plan memo (what uploads
 * last parsed).
 *
 * Debian's civetweb is built with 100 KiB thread stacks (USE_STACK_SIZE), too
 * small for the planner's search state and for cJSON's recursion on deeply
 * nested input. So handlers do not run on the worker's stack but on the
 * slot's own 8 MiB one (mmap'd on first use, committed as it is touched,
 * with a guard page below it): the worker switches to it with swapcontext,
 * and the handler switches back when it returns. Same thread, no scheduler:
 * a handler used to run on a companion thread with a big stack, handed the
 * request and waited for through a condition variable. Those two hand-offs
 * per request were two context switches and about four futex calls, and
 * under 64 connections on two cores each was a wait in a run queue of 128
 * threads: GET /healthz went from ~27k to ~37k requests/s without them and
 * a recommend answered from the search memo from ~14k to ~22k, with the
 * tail shorter too. The connection is only ever used by its worker thread.
 * In an ASan build the switches go through its fiber interface (it warns
 * once at the first swapcontext that it does not fully support them, and
 * the annotations are what it asks for); under valgrind the stack is
 * registered as one. tests/e2e/test_badinput.c's 200,000-deep bodies crash
 * a handler left on the worker's stack. */
#define HANDLER_STACK_BYTES (8u << 20)

struct thread_slot {
    struct db *db;
    struct plan_memo *plans; /* http_reports.c: the plan document uploads here last checked against */
    /* run_handler's stack and the two contexts it switches between */
    char *stack_map;         /* the mapping: a guard page, then the stack; NULL until first use */
    size_t map_len;
    int stack_failed;        /* the stack could not be made: handlers run on the worker's (logged once) */
    ucontext_t worker_ctx, handler_ctx;
    http_handler fn;
    struct http_req *req;
    /* AddressSanitizer's view of the switches (its fiber interface; unused
     * in other builds) */
    void *worker_fake, *handler_fake;
    const void *worker_bottom;
    size_t worker_size;
    int worker_root;         /* the worker's stack is a LeakSanitizer root region (handler_main) */
#if GPUPLAN_VALGRIND
    unsigned vg_stack;
#endif
};

/* The slot whose handler context is being entered (only its worker thread
 * switches to it): handler_main's way to its slot, as makecontext passes
 * only ints. */
static _Thread_local struct thread_slot *entering_slot;

static char *handler_stack_base(const struct thread_slot *slot)
{
    return slot->stack_map + (slot->map_len - HANDLER_STACK_BYTES);
}

/* AddressSanitizer's fiber interface around each switch (no-ops in other
 * builds): to_handler says which way. Before: the stack being entered, and
 * where to keep the leaving side's fake stack. After: the arriving side's
 * fake stack back, and on the handler's side the worker stack it came from
 * (for the way back). */
static void switch_begin(struct thread_slot *slot, int to_handler)
{
#if GPUPLAN_ASAN
    if (to_handler)
        __sanitizer_start_switch_fiber(&slot->worker_fake, handler_stack_base(slot), HANDLER_STACK_BYTES);
    else
        __sanitizer_start_switch_fiber(&slot->handler_fake, slot->worker_bottom, slot->worker_size);
#else
    (void)slot; (void)to_handler;
#endif
}

static void switch_end(struct thread_slot *slot, int on_handler)
{
#if GPUPLAN_ASAN
    if (on_handler) {
        __sanitizer_finish_switch_fiber(slot->handler_fake, &slot->worker_bottom, &slot->worker_size);
        /* LeakSanitizer scans a thread's current stack only: while a
         * handler runs, the worker's frames (dispatch's request and its
         * body) would go unscanned, and a leak check then (libFuzzer runs
         * one after an input) reports what they hold. So the worker's
         * stack (100 KiB) is a root region for as long as the slot lives;
         * between requests the handler's stack holds nothing live. */
        if (!slot->worker_root && slot->worker_bottom) {
            __lsan_register_root_region(slot->worker_bottom, slot->worker_size);
            slot->worker_root = 1;
        }
    } else {
        __sanitizer_finish_switch_fiber(slot->worker_fake, NULL, NULL);
    }
#else
    (void)slot; (void)on_handler;
#endif
}

/* The handler context's life: one request per entry, then back to the
 * worker; never returns (the mapping is dropped when the thread ends, with
 * this frame suspended at the switch). */
static void handler_main(void)
{
    for (;;) {
        struct thread_slot *slot = entering_slot;
        switch_end(slot, 1);
        slot->fn(slot->req);
        switch_begin(slot, 0);
        swapcontext(&slot->handler_ctx, &slot->worker_ctx);
    }
}

/* The slot's handler stack and context; 0 when they cannot be made. */
static int handler_stack_make(struct thread_slot *slot)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t guard = page > 0 ? (size_t)page : 4096;
    size_t len = HANDLER_STACK_BYTES + guard;
    char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                     -1, 0);
    if (map == MAP_FAILED)
        return 0;
    if (mprotect(map, guard, PROT_NONE) != 0 || getcontext(&slot->handler_ctx) != 0) {
        munmap(map, len);
        return 0;
    }
    slot->stack_map = map;
    slot->map_len = len;
    slot->handler_ctx.uc_stack.ss_sp = handler_stack_base(slot);
    slot->handler_ctx.uc_stack.ss_size = HANDLER_STACK_BYTES;
    slot->handler_ctx.uc_link = NULL;
    makecontext(&slot->handler_ctx, handler_main, 0);
#if GPUPLAN_VALGRIND
    slot->vg_stack = VALGRIND_STACK_REGISTER(handler_stack_base(slot), handler_stack_base(slot) + HANDLER_STACK_BYTES);
#endif
    return 1;
}

static void handler_stack_free(struct thread_slot *slot)
{
    if (!slot->stack_map)
        return;
#if GPUPLAN_VALGRIND
    VALGRIND_STACK_DEREGISTER(slot->vg_stack);
#endif
#if GPUPLAN_ASAN
    if (slot->worker_root)
        __lsan_unregister_root_region(slot->worker_bottom, slot->worker_size);
#endif
    munmap(slot->stack_map, slot->map_len);
    slot->stack_map = NULL;
}

/* Runs fn(req) on the slot's big stack; on the calling thread's own only if
 * that stack cannot be made (then logged). */
static void run_handler(struct thread_slot *slot, http_handler fn, struct http_req *req)
{
    if (slot && !slot->stack_map && !slot->stack_failed && !handler_stack_make(slot)) {
        slot->stack_failed = 1;
        log_msg(LOG_ERROR, "cannot map a handler stack; running on the small worker stack");
    }
    if (!slot || !slot->stack_map) {
        fn(req);
        return;
    }
    slot->fn = fn;
    slot->req = req;
    entering_slot = slot;
    switch_begin(slot, 1);
    swapcontext(&slot->worker_ctx, &slot->handler_ctx);
    switch_end(slot, 0);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *reason(int status)
{
    if (status == 422) /* civetweb's own text for 422 is misspelled */
        return "Unprocessable Content";
    const char *r = mg_get_response_code_text(NULL, status);
    return r ? r : "";
}

#define HTTP_ONE_WRITE_MAX (256u << 10)

/* The reply's head in out (the caller's 8 KiB): its length, or -1 when the
 * request already has its reply or the head does not fit. *blen is the
 * body's bytes to send: none for HEAD, whose head still says len. */
static int reply_head(struct http_req *req, int status, const char *content_type, const char *extra_headers,
                      size_t len, char out[8192], size_t *blen)
{
    if (req->status)
        return -1; /* one reply per request */
    req->status = status;
    int head_only = req->method && strcmp(req->method, "HEAD") == 0;
    *blen = head_only ? 0 : len;
    int h = snprintf(out, 8192,
                     "HTTP/1.1 %d %s\r\n"
                     "Content-Type: %s\r\n"
                     "Content-Length: %zu\r\n"
                     SECURITY_HEADERS
                     "%s"
                     "\r\n",
                     status, reason(status), content_type, len, extra_headers ? extra_headers : "");
    if (h < 0 || h >= 8192)
        return -1; /* extra headers of 8 KiB are a bug of the caller; nothing sane to send */
    return h;
}

/* Head and body in one write from buf (head at buf, body after it). */
static void write_one(struct http_req *req, const char *buf, size_t h, size_t blen)
{
    if (mg_write(req->conn, buf, h + blen) > 0 && blen)
        req->bytes = (long long)blen;
}

/* The head in out[0, h) and then the body. */
static void send_after_head(struct http_req *req, char out[8192], size_t h, const void *body, size_t blen)
{
    /* Head and a small body leave in one write: one packet instead of two,
     * which matters for the many small JSON answers. */
    if (blen <= 8192 - h) {
        if (blen)
            memcpy(out + h, body, blen);
        write_one(req, out, h, blen);
        return;
    }
    /* A larger body (a 26 KB plan) still leaves in one write when it is
     * not huge: copying it beside the head costs less than the second
     * send, its segment and the client's second wake-up. (The planner's
     * answers avoid even the copy: http_send_room.) */
    if (blen <= HTTP_ONE_WRITE_MAX) {
        char *one = malloc(h + blen);
        if (one) {
            memcpy(one, out, h);
            memcpy(one + h, body, blen);
            write_one(req, one, h, blen);
            free(one);
            return;
        }
    }
    if (mg_write(req->conn, out, h) <= 0)
        return;
    int w = mg_write(req->conn, body, blen);
    if (w > 0)
        req->bytes = w;
}

void http_send(struct http_req *req, int status, const char *content_type, const char *extra_headers,
               const void *body, size_t len)
{
    char out[8192];
    size_t blen;
    int h = reply_head(req, status, content_type, extra_headers, len, out, &blen);
    if (h >= 0)
        send_after_head(req, out, (size_t)h, body, blen);
}

/* The recommend answer (~26 KB) was copied beside its head for every
 * request, a malloc and a 26 KB memcpy (~7% of the server's CPU under wrk
 * with the writer's own copies); its writer now keeps room in front of the
 * text, so only the ~600-byte head is copied, into that room. */
void http_send_room(struct http_req *req, int status, const char *content_type, const char *extra_headers,
                    char *body, size_t len, size_t room)
{
    char out[8192];
    size_t blen;
    int h = reply_head(req, status, content_type, extra_headers, len, out, &blen);
    if (h < 0)
        return;
    if (blen && (size_t)h <= room) {
        memcpy(body - h, out, (size_t)h);
        write_one(req, body - h, (size_t)h, blen);
        return;
    }
    send_after_head(req, out, (size_t)h, body, blen); /* HEAD, or a head longer than the room */
}

void http_json(struct http_req *req, int status, cJSON *doc)
{
    size_t len = 0;
    char *text = doc ? json_write(doc, &len) : NULL;
    cJSON_Delete(doc);
    if (!text) {
        http_problem(req, 500, NULL, "cannot encode the response");
        return;
    }
    http_send(req, status, "application/json", "Cache-Control: no-store\r\n", text, len);
    free(text);
}

static void problem_send_with(struct http_req *req, int status, const char *field, const char *detail,
                              const char *more_headers)
{
    cJSON *doc = cJSON_CreateObject();
    char *text = NULL, headers[512];
    const char *extra = headers;

    snprintf(headers, sizeof headers, "Cache-Control: no-store\r\n%s", more_headers ? more_headers : "");

    if (doc) {
        cJSON_AddStringToObject(doc, "type", "about:blank");
        cJSON_AddStringToObject(doc, "title", reason(status));
        cJSON_AddNumberToObject(doc, "status", status);
        cJSON_AddStringToObject(doc, "detail", detail);
        if (field)
            cJSON_AddStringToObject(doc, "field", field);
        /* A share path carries its token: name the route instead. */
        if (req->path)
            cJSON_AddStringToObject(doc, "instance",
                                    strncmp(req->path, "/s/", 3) != 0 ? req->path
                                    : req->route && strncmp(req->route, "/s/", 3) == 0 ? req->route
                                                                                       : "/s/{token}");
        text = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
    }
    if (status == 405)
        extra = "Cache-Control: no-store\r\nAllow: GET, HEAD, POST, PUT, DELETE\r\n";
    if (text) {
        http_send(req, status, "application/problem+json", extra, text, strlen(text));
        cJSON_free(text);
    } else {
        static const char fallback[] = "{\"title\":\"Internal Server Error\",\"status\":500}";
        http_send(req, 500, "application/problem+json", extra, fallback, sizeof fallback - 1);
    }
}

static void problem_send(struct http_req *req, int status, const char *field, const char *detail)
{
    problem_send_with(req, status, field, detail, NULL);
}

void http_problem_headers(struct http_req *req, int status, const char *extra_headers, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    problem_send_with(req, status, NULL, detail, extra_headers);
}

void http_problem(struct http_req *req, int status, const char *field, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    problem_send(req, status, field, detail);
}

void http_problem_status(struct http_req *req, enum status st, const char *msg)
{
    int code = 500;
    switch (st) {
    case ST_INVALID: code = 400; break;
    case ST_AUTH: code = 401; break;
    case ST_FORBIDDEN: code = 403; break;
    case ST_NOTFOUND: code = 404; break;
    case ST_CONFLICT: code = 409; break;
    case ST_GONE: code = 410; break;
    case ST_TOOLARGE: code = 413; break;
    case ST_UNSUPPORTED: code = 415; break;
    case ST_DB:
    case ST_TOONEW: code = 503; break;
    default: code = 500; break;
    }
    if (st == ST_DB)
        metrics_db_error();
    if (code >= 500)
        log_msg(LOG_ERROR, "%s %s: %s: %s", req->method, req->path, status_str(st), msg ? msg : "");
    problem_send(req, code, NULL, code >= 500 ? status_str(st) : (msg && *msg ? msg : status_str(st)));
}

const char *http_header(struct http_req *req, const char *name)
{
    return mg_get_header(req->conn, name);
}

const char *http_query(struct http_req *req, const char *name, char *buf, size_t buflen)
{
    const char *qs = req->ri->query_string;
    if (!qs || !buflen)
        return NULL;
    int n = mg_get_var(qs, strlen(qs), name, buf, buflen);
    return n >= 0 ? buf : NULL;
}

int http_body(struct http_req *req, size_t limit)
{
    long long declared = req->ri->content_length;
    size_t cap, len = 0;
    char *buf = NULL;

    if (req->body)
        return 1;
    if (declared > 0 && (unsigned long long)declared > limit) {
        http_problem(req, 413, NULL, "request body of %lld bytes exceeds the limit of %zu bytes", declared,
                     limit);
        return 0;
    }
    /* Chunked bodies have no declared length: read until the limit plus one byte. */
    cap = declared > 0 ? (size_t)declared : 8192;
    buf = malloc(cap + 1);
    if (!buf) {
        http_problem(req, 500, NULL, "out of memory");
        return 0;
    }
    for (;;) {
        if (len == cap) {
            /* A declared length is all civetweb reads (mg_read gives 0
             * after it): stop there, where doubling the buffer and asking
             * again cost every request a realloc and a read call. */
            if (cap > limit || (declared > 0 && len == (size_t)declared))
                break; /* (or it already holds limit+1 bytes) */
            size_t ncap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                http_problem(req, 500, NULL, "out of memory");
                return 0;
            }
            buf = nb;
            cap = ncap;
        }
        int r = mg_read(req->conn, buf + len, cap - len);
        if (r < 0) {
            free(buf);
            http_problem(req, 400, NULL, "the request body could not be read");
            return 0;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (len > limit) {
        free(buf);
        http_problem(req, 413, NULL, "request body exceeds the limit of %zu bytes", limit);
        return 0;
    }
    if (declared > 0 && len < (size_t)declared) {
        free(buf);
        http_problem(req, 400, NULL, "request body ended after %zu of %lld bytes", len, declared);
        return 0;
    }
    buf[len] = '\0';
    req->body = buf;
    req->body_len = len;
    return 1;
}

struct db *http_db(struct http_req *req)
{
    struct thread_slot *slot = req->thread;
    char err[256];
    if (!slot)
        return NULL;
    if (!slot->db && db_open(req->app->db_path, 0, &slot->db, err, sizeof err) != ST_OK) {
        log_msg(LOG_ERROR, "%s", err);
        slot->db = NULL;
    }
    return slot->db;
}

struct plan_memo **http_plan_memo(struct http_req *req)
{
    return req->thread ? &req->thread->plans : NULL;
}

/* Matches path against pattern segment by segment, capturing {x} segments. */
static int route_match(const char *pattern, const char *path, struct http_req *req)
{
    int n = 0;
    const char *p = pattern, *s = path;
    while (*p && *s) {
        if (*p == '{') {
            const char *pe = strchr(p, '}');
            const char *se = strchr(s, '/');
            size_t len = se ? (size_t)(se - s) : strlen(s);
            if (!pe)
                return 0;
            /* A literal after the capture in the same segment ("{token}.csv")
             * must end the segment; the capture is what precedes it. */
            const char *pse = strchr(pe + 1, '/');
            size_t suffix = pse ? (size_t)(pse - (pe + 1)) : strlen(pe + 1);
            if (len <= suffix || memcmp(s + len - suffix, pe + 1, suffix) != 0)
                return 0;
            size_t cap = len - suffix;
            if (cap >= sizeof req->params[0] || n >= 4)
                return 0;
            memcpy(req->params[n], s, cap);
            req->params[n][cap] = '\0';
            n++;
            p = pe + 1 + suffix;
            s += len;
            continue;
        }
        if (*p != *s)
            return 0;
        p++;
        s++;
    }
    if (*p || *s)
        return 0;
    req->nparams = n;
    return 1;
}

/* Each route's literal head, the pattern up to its first '{', measured once.
 * route_match compares a pattern's literal bytes one at a time, so a path
 * that does not begin with a route's head cannot match it: one memcmp says
 * so (walking the table byte by byte cost recommend, the table's 42nd
 * route, 3.3k instructions a request more). A pattern with no capture ("whole")
 * matches only the path equal to it. Routes past ROUTE_HEADS_MAX are left
 * to route_match alone (head 0, not whole). */
#define ROUTE_HEADS_MAX 128
static struct route_head {
    unsigned short len;
    unsigned char whole;
} route_heads[ROUTE_HEADS_MAX];
static pthread_once_t route_heads_once = PTHREAD_ONCE_INIT;

static void route_heads_measure(void)
{
    for (int i = 0; i < ROUTE_HEADS_MAX && http_routes[i].method; i++) {
        const char *pat = http_routes[i].pattern, *brace = strchr(pat, '{');
        route_heads[i].len = (unsigned short)(brace ? brace - pat : (ptrdiff_t)strlen(pat));
        route_heads[i].whole = !brace;
    }
}

/* Whether route i's pattern matches path (plen bytes), its captures in req
 * as route_match leaves them. */
static inline int route_at(int i, const char *path, size_t plen, struct http_req *req)
{
    const struct route_head h = i < ROUTE_HEADS_MAX ? route_heads[i] : (struct route_head){0, 0};
    if (h.whole) {
        if (plen != h.len || memcmp(http_routes[i].pattern, path, plen) != 0)
            return 0;
        req->nparams = 0;
        return 1;
    }
    if (plen < h.len || memcmp(http_routes[i].pattern, path, h.len) != 0)
        return 0;
    return route_match(http_routes[i].pattern, path, req);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes %XX escapes of a path into out. civetweb's own decoding is off
 * (decode_url=no) because it turns %00 into a NUL that silently ends the
 * path ("/api/v1/plans/1%00x" would reach plan 1, "/index.html%00.js" the
 * index page) and lets malformed escapes through. Here a NUL, a malformed
 * escape, a control byte or an overlong path is refused. Returns 0 on success. */
static int path_decode(const char *in, char *out, size_t outlen)
{
    size_t n = 0;
    for (const char *p = in; *p; p++) {
        int c = (unsigned char)*p;
        if (c == '%') {
            int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
            if (lo < 0)
                return -1;
            c = hi * 16 + lo;
            p += 2;
        }
        if (c < 0x20 || c == 0x7f) /* NUL, and newlines that would forge access-log lines */
            return -1;
        if (n + 1 >= outlen)
            return -1;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    return 0;
}

static int dispatch(struct mg_connection *conn, void *cbdata)
{
    struct http_req req;
    double t0 = now_ms();
    int path_matched = 0;
    char path[2049];

    memset(&req, 0, sizeof req);
    req.conn = conn;
    req.ri = mg_get_request_info(conn);
    req.app = cbdata;
    req.method = req.ri->request_method ? req.ri->request_method : "";
    req.path = req.ri->local_uri ? req.ri->local_uri : "/";
    req.route = "static";
    req.thread = mg_get_thread_pointer(conn);

    if (strlen(req.path) > 2048) {
        http_problem(&req, 414, NULL, "the request path is longer than 2048 bytes");
        goto out;
    }
    if (path_decode(req.path, path, sizeof path) != 0) {
        req.path = "-";
        http_problem(&req, 400, NULL, "the request path holds a malformed %%-escape or a control byte");
        goto out;
    }
    req.path = path;
    /* Refuse at the edge what no route would accept, before reading a byte of it. */
    size_t most = req.app->json_limit > req.app->report_limit ? req.app->json_limit : req.app->report_limit;
    if (req.ri->content_length > 0 && (unsigned long long)req.ri->content_length > most) {
        http_problem(&req, 413, NULL, "request body of %lld bytes exceeds the limit of %zu bytes",
                     req.ri->content_length, most);
        goto out;
    }
    pthread_once(&route_heads_once, route_heads_measure);
    size_t plen = strlen(req.path);
    for (int i = 0; http_routes[i].method; i++) {
        const struct http_route *r = &http_routes[i];
        if (!route_at(i, req.path, plen, &req))
            continue;
        path_matched = 1;
        if (strcmp(r->method, req.method) == 0 ||
            (strcmp(req.method, "HEAD") == 0 && strcmp(r->method, "GET") == 0)) {
            req.route = r->pattern;
            /* API and share handlers may take http_db() for granted: when the
             * database cannot be opened they never run. Health, metrics and
             * the API description answer on their own. */
            if ((strncmp(req.path, "/api/", 5) == 0 || strncmp(req.path, "/s/", 3) == 0) && !http_db(&req)) {
                http_problem(&req, 503, NULL, "the database cannot be opened");
                goto out;
            }
            run_handler(req.thread, r->fn, &req);
            goto out;
        }
    }
    if (path_matched) {
        req.route = "method-not-allowed";
        http_problem(&req, 405, NULL, "%s is not allowed on %s", req.method, req.path);
    } else if (strncmp(req.path, "/api/", 5) == 0) {
        req.route = "not-found";
        http_problem(&req, 404, NULL, "no such endpoint: %s", req.path);
    } else {
        http_static(&req);
    }
out:
    if (!req.status)
        http_problem(&req, 500, NULL, "the handler sent no reply");
    free(req.body);
    double ms = now_ms() - t0;
    metrics_request(req.route, req.method, req.status, ms);
    /* A path that carries a secret (a share token) is logged as its route pattern. */
    const char *logged = strncmp(req.path, "/s/", 3) != 0 ? req.path
                         : strncmp(req.route, "/s/", 3) == 0 ? req.route : "/s/{token}";
    log_msg(LOG_INFO, "%s %s %d %lldB %.1fms", req.method, logged, req.status, req.bytes, ms);
    return req.status; /* civetweb: a status > 0 means handled */
}

/* civetweb's own errors (malformed requests, oversized headers) as problem+json. */
static int on_http_error(struct mg_connection *conn, int status, const char *msg)
{
    struct http_req req;
    memset(&req, 0, sizeof req);
    req.conn = conn;
    req.ri = mg_get_request_info(conn);
    req.method = req.ri && req.ri->request_method ? req.ri->request_method : "?";
    req.path = req.ri && req.ri->local_uri ? req.ri->local_uri : NULL;
    /* civetweb answers an unknown HTTP version with 505. The fault is the
     * client's, and a 5xx would page whoever watches the error rate every
     * time a scanner sends "HTTP/9.9": answer 400 instead. */
    if (status == 505) {
        status = 400;
        msg = "unsupported HTTP version";
    }
    problem_send(&req, status, NULL, msg && *msg ? msg : reason(status));
    log_msg(LOG_INFO, "%s %s %d %lldB (rejected by http layer)", req.method,
            !req.path ? "-" : strncmp(req.path, "/s/", 3) == 0 ? "/s/{token}" : req.path,
            status, req.bytes);
    return 0;
}

static int on_log_message(const struct mg_connection *conn, const char *message)
{
    (void)conn;
    log_msg(LOG_WARN, "http: %s", message);
    return 1;
}

/* A request worker's slot, made as the worker starts: its database
 * connection is opened and its handler stack mapped here, not at its first
 * request, so a server that has just started (after a deploy, a crash) does
 * not make its first clients wait for up to as many SQLite opens and schema
 * reads as it has workers (~1 ms each). What fails here is tried again at
 * first use (http_db, run_handler), as before. http_start waits for every
 * worker to pass here before it says the server is up. */
static void *on_init_thread(const struct mg_context *ctx, int thread_type)
{
    if (thread_type != 1) /* 1: a worker that handles requests */
        return NULL;
    struct app *app = mg_get_user_data(ctx);
    struct thread_slot *slot = calloc(1, sizeof *slot);
    if (slot && app) {
        char err[512] = "";
        if (db_open(app->db_path, 0, &slot->db, err, sizeof err) != ST_OK) {
            log_msg(LOG_WARN, "worker start: %s (tried again at its first request)", err);
            slot->db = NULL;
        }
        if (!handler_stack_make(slot))
            log_msg(LOG_WARN, "worker start: cannot map a handler stack (tried again at its first request)");
    }
    if (app)
        atomic_fetch_add(&app->workers_ready, 1);
    return slot;
}

static void on_exit_thread(const struct mg_context *ctx, int thread_type, void *ptr)
{
    (void)ctx;
    (void)thread_type;
    struct thread_slot *slot = ptr;
    if (slot) {
        handler_stack_free(slot);
        db_close(slot->db);
        plan_memo_free(slot->plans);
        free(slot);
    }
}

enum status http_start(struct app *app, const char *listen, int port, int threads, int *port_out,
                       char *err, size_t errlen)
{
    char ports[300], nthreads[16];
    struct mg_callbacks cb;
    struct mg_server_port bound[4];

    if (snprintf(ports, sizeof ports, "%s:%d", listen, port) >= (int)sizeof ports)
        return ST_INVALID;
    snprintf(nthreads, sizeof nthreads, "%d", threads);
    const char *options[] = {
        "listening_ports", ports,
        "num_threads", nthreads,
        "request_timeout_ms", "30000",
        "keep_alive_timeout_ms", "5000",
        "enable_keep_alive", "yes",
        "max_request_size", "16384",
        "listen_backlog", "512",
        "decode_url", "no", /* dispatch() decodes, strictly (path_decode) */
        "tcp_nodelay", "1",
        NULL,
    };
    memset(&cb, 0, sizeof cb);
    cb.http_error = on_http_error;
    cb.log_message = on_log_message;
    cb.init_thread = on_init_thread;
    cb.exit_thread = on_exit_thread;

    enum status st = db_batcher_new(app->db_path, &app->batcher, err, errlen);
    if (st != ST_OK)
        return st;
    mg_init_library(0);
    app->ctx = mg_start(&cb, app, options);
    if (!app->ctx) {
        snprintf(err, errlen, "cannot listen on %s: %s", ports, errno ? strerror(errno) : "port in use?");
        db_batcher_free(app->batcher);
        app->batcher = NULL;
        return ST_IO;
    }
    mg_set_request_handler(app->ctx, "/", dispatch, app);
    /* Up means every worker is set up (on_init_thread): ~1 ms each, spread
     * over the cores. A worker that has not started within 10 s is left to
     * come when it does. */
    for (int waited_ms = 0; atomic_load(&app->workers_ready) < threads && waited_ms < 10000; waited_ms++)
        usleep(1000);
    if (atomic_load(&app->workers_ready) < threads)
        log_msg(LOG_WARN, "%d of %d request workers started within 10 s", atomic_load(&app->workers_ready), threads);
    int n = mg_get_server_ports(app->ctx, 4, bound);
    *port_out = n > 0 ? bound[0].port : port;
    return ST_OK;
}

/* civetweb's listener sleeps in poll() for up to two seconds before it
 * notices mg_stop(); a connection to our own port wakes it at once. The nudge
 * repeats until mg_stop() returns, since one that lands before the stop flag
 * is set is simply served (and closed) as an empty request. */
struct nudge {
    int port;
    atomic_int done;
};

static void *nudge_listener(void *arg)
{
    struct nudge *n = arg;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)n->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    while (!atomic_load(&n->done)) {
        usleep(50 * 1000);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0) {
            connect(fd, (struct sockaddr *)&sa, sizeof sa);
            close(fd);
        }
    }
    return NULL;
}

void http_stop(struct app *app)
{
    struct mg_server_port bound[1];
    struct nudge n = {0};
    pthread_t th;
    int nudging = 0;

    if (app->ctx) {
        if (mg_get_server_ports(app->ctx, 1, bound) == 1 && bound[0].protocol == 1) {
            n.port = bound[0].port;
            nudging = pthread_create(&th, NULL, nudge_listener, &n) == 0;
        }
        mg_stop(app->ctx); /* waits for in-flight requests to finish */
        atomic_store(&n.done, 1);
        if (nudging)
            pthread_join(th, NULL);
    }
    app->ctx = NULL;
    mg_exit_library();
    /* No handler runs any more, so nothing submits: the committer finishes
     * what is queued (nothing, as every submitter waited for its commit). */
    if (app->batcher) {
        struct db_batch_stats bs;
        db_batcher_stats(app->batcher, &bs);
        log_msg(LOG_INFO, "committer: %lld writes in %lld transactions (at most %d in one)", bs.jobs, bs.batches,
                bs.largest);
        db_batcher_free(app->batcher);
        app->batcher = NULL;
    }
}
