/* server_int.h: what the files of server/ share.
 *
 * server/ translates: command lines, HTTP and JSON in, structs to engine and
 * db, structs back out. civetweb stays in http*.c, cJSON in json_*.c and the
 * http helpers, mbedTLS in crypto.c, libcurl in client*.c. */
#ifndef GPUPLAN_SERVER_INT_H
#define GPUPLAN_SERVER_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "status.h"

struct cJSON;
struct db;
struct mg_connection;
struct mg_request_info;
struct mg_context;
struct catalog;
struct thread_slot;
struct engine_workload;
struct engine_estimate_request;
struct engine_recommendation;
struct engine_plan;
struct http_req;

#define GPUPLAN_VERSION "0.1.0"

/* ---- logging (log.c). Only the server logs; never secrets or bodies. ---- */
enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };
void log_set_level(enum log_level min);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- command line (main.c, cli_*.c) ---- */
struct command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;
};
/* Prints "gpuplan: <what>: <why>" on stderr. */
void cli_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads a whole file ("-" is stdin) into a NUL-terminated heap buffer, at most
 * limit bytes; caller frees with free(). */
enum status cli_read_file(const char *path, size_t limit, char **out, size_t *len, char *err, size_t errlen);
/* Parses a whole decimal number within [lo, hi]; the one checked number parser. */
enum status parse_long(const char *s, long lo, long hi, long *out);

int cli_serve(int argc, char **argv);
int cli_recommend(int argc, char **argv);
int cli_estimate(int argc, char **argv);

/* ---- planner JSON (json_plan.c) ----
 * Decoders fill the struct or name the offending field ("model.layers") in
 * field and say why in err ("model.layers: must be a whole number"). */
enum status json_parse(const char *text, size_t len, struct cJSON **out, char *err, size_t errlen);
enum status json_workload_decode(const struct cJSON *o, struct engine_workload *w, char *field, size_t fieldlen,
                                 char *err, size_t errlen);
enum status json_estimate_decode(const struct cJSON *o, struct engine_estimate_request *r, char *field,
                                 size_t fieldlen, char *err, size_t errlen);
/* Splits the field name off an engine message "field: why". */
void json_field_from_error(const char *err, char *field, size_t fieldlen);
/* Encoders return a new tree; caller frees with cJSON_Delete. */
struct cJSON *json_recommendation_encode(const struct catalog *c, const struct engine_workload *w,
                                         const struct engine_recommendation *r);
struct cJSON *json_estimate_encode(const struct engine_workload *w, const struct engine_plan *p);
struct cJSON *json_catalog_encode(const struct catalog *c);

/* ---- planner commands and handlers (cli_plan.c, http_engine.c) ---- */
/* Loads the catalog from a private in-memory database migrated from the
 * embedded SQL. Caller frees *out with free(). */
enum status plan_catalog_open(struct catalog **out, char *err, size_t errlen);
int http_recommend(struct http_req *req);
int http_estimate(struct http_req *req);
int http_catalog(struct http_req *req);
int cli_parse(int argc, char **argv);   /* cli_report.c */
int cli_check(int argc, char **argv);

/* ---- reports (json_report.c, cli_report.c) ---- */
struct report;
struct report_verdict;
struct expectation;
/* {"sections": [...], "unrecognized_lines": N} per API.md; NULL when out of
 * memory. Caller frees with cJSON_Delete. */
struct cJSON *json_report_sections(const struct report *rep);
/* {"verdict", "findings", "no_evidence"}; NULL when out of memory. */
struct cJSON *json_report_verdict(const struct report_verdict *v);
/* The expectations of one tier of a saved plan, a recommendation or an
 * estimate (tier NULL: the saved plan's tier, else "recommended"). Writes at
 * most max entries to out, the count to *n, the tier's name to tier_out and
 * the tier object (borrowed from plan) to *tier_obj. */
enum status json_report_expectations(const struct cJSON *plan, const char *tier,
                                     struct expectation *out, size_t max, size_t *n,
                                     char *tier_out, size_t tier_len,
                                     const struct cJSON **tier_obj, char *err, size_t errlen);
/* Adds "measured" (busbw from the reports) to a verdict and, when the tier
 * carries time and cost, how they change at the measured figures. */
void json_report_calibration(struct cJSON *verdict, const struct report *rep,
                             const struct cJSON *tier_obj);
/* Judges rep against plan (NULL: only plan-free findings). *out_verdict is
 * a new verdict document; caller frees with cJSON_Delete. */
enum status report_judge(const struct report *rep, const struct cJSON *plan, const char *tier,
                         struct cJSON **out_verdict, char *err, size_t errlen);
/* Parse an uploaded report and judge it: the server's report upload and the
 * CLI share this. On ST_OK the caller owns *out_sections and *out_verdict
 * (cJSON_Delete). plan_or_null: a saved plan or recommendation document. */
enum status report_analyze(const char *text, size_t len, const struct cJSON *plan_or_null,
                           const char *tier, struct cJSON **out_sections,
                           struct cJSON **out_verdict, char *err, size_t errlen);

/* ---- the running server (cli_serve.c, http.c) ---- */
struct app {
    char db_path[4096];
    char web_dir[4096];
    size_t json_limit;    /* bytes; larger JSON bodies get 413 */
    size_t report_limit;  /* bytes; larger report uploads get 413 */
    int signup_open;      /* POST /api/v1/teams allowed without an invite */
    int secure_cookies;   /* add Secure to cookies (behind TLS) */
    const struct catalog *catalog; /* loaded once at start, shared read-only */
    struct mg_context *ctx;
};

/* One HTTP exchange as the handlers see it. */
struct http_req {
    struct mg_connection *conn;
    const struct mg_request_info *ri;
    struct app *app;
    const char *method;
    const char *path;          /* decoded path, no query */
    const char *route;         /* the matched route pattern, for metrics and logs */
    char params[4][128];       /* {name} captures of the route pattern, in order */
    int nparams;
    char *body;                /* after http_body(): NUL-terminated, body_len bytes */
    size_t body_len;
    struct thread_slot *thread; /* the worker's slot: its database and handler runner */
    int status;                /* status sent, 0 until a reply went out */
    long long bytes;           /* body bytes sent */
};

typedef int (*http_handler)(struct http_req *req);
struct http_route {
    const char *method;   /* "GET", "POST", ... */
    const char *pattern;  /* "/api/v1/plans/{id}": {x} matches one non-empty segment */
    http_handler fn;
};
extern const struct http_route http_routes[]; /* http_routes.c, ends with {0} */

/* Starts civetweb on listen:port (port 0 = ephemeral); writes the port bound to *port_out. */
enum status http_start(struct app *app, const char *listen, int port, int threads, int *port_out,
                       char *err, size_t errlen);
/* Stops accepting, finishes in-flight requests, closes the per-thread databases. */
void http_stop(struct app *app);

/* The calling worker thread's database connection (opened on first use). NULL if it cannot open. */
struct db *http_db(struct http_req *req);

/* Reads the request body up to limit bytes. Returns 1 when req->body holds it;
 * 0 when it already answered (413 over the limit, 400 unreadable). */
int http_body(struct http_req *req, size_t limit);
/* A request header, or NULL. */
const char *http_header(struct http_req *req, const char *name);
/* A query parameter copied into buf; returns buf, or NULL when absent. */
const char *http_query(struct http_req *req, const char *name, char *buf, size_t buflen);

/* Sends a reply with the security headers every response carries.
 * extra_headers: NULL or CRLF-terminated header lines. */
void http_send(struct http_req *req, int status, const char *content_type, const char *extra_headers,
               const void *body, size_t len);
/* Sends doc as JSON and frees it (cJSON_Delete). A NULL doc is a 500. */
void http_json(struct http_req *req, int status, struct cJSON *doc);
/* Sends an RFC 9457 problem+json. field (or NULL) names the offending input. */
void http_problem(struct http_req *req, int status, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Maps a status to an HTTP error reply with message. */
void http_problem_status(struct http_req *req, enum status st, const char *msg);

/* Built-in handlers (http_core.c). */
int http_healthz(struct http_req *req);
int http_readyz(struct http_req *req);
int http_static(struct http_req *req);

#endif
