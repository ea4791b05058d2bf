/* http_reports.c: benchmark reports uploaded against a plan, their
 * verdicts, verdict history and re-checks.
 *
 * A report arrives as text/plain, as multipart/form-data (every file part,
 * joined, as CI tools and `gpuplan submit` send several outputs at once) or
 * as JSON {"content": "..."}. The raw text is kept so it can be re-parsed
 * later. Idempotency-Key makes retries safe: the same key with the same
 * text answers the stored report; the same key with other text is 422.
 * A failing verdict queues the team's report.fail webhooks in the same
 * transaction as the report itself. That write goes through the server's
 * committer (db_batch_submit), which commits concurrent uploads together
 * so they share one fsync; parsing and judging stay on the worker. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

#define KEY_MAX 200
#define SOURCE_MAX 512
/* A report list page: 100 by default (what the list held before it paged,
 * so a client that does not page sees the same answer), 500 at most. */
#define REPORTS_LISTED 100
#define REPORTS_LISTED_MAX 500

/* Copies a header value of printable ASCII, at most max bytes; 0 after answering 400. */
static int header_text(struct http_req *req, const char *name, size_t max, char *out, size_t outlen)
{
    const char *v = http_header(req, name);
    out[0] = '\0';
    if (!v)
        return 1;
    size_t n = strlen(v);
    if (n == 0 || n > max || n >= outlen) {
        http_problem(req, 400, name, "%s must be 1 to %zu characters", name, max);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e) {
            http_problem(req, 400, name, "%s must be printable ASCII", name);
            return 0;
        }
    }
    memcpy(out, v, n + 1);
    return 1;
}

/* memmem and strcasestr are GNU extensions; these two are all we need of them. */
static const char *find(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
    if (nlen == 0 || hlen < nlen)
        return NULL;
    for (size_t i = 0; i + nlen <= hlen; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
            return hay + i;
    return NULL;
}

static const char *find_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return hay;
    return NULL;
}

/* The value of param (boundary=..., name=...) in a header value, unquoted. */
static int header_param(const char *h, const char *param, char *out, size_t outlen)
{
    size_t pl = strlen(param);
    for (const char *p = h; (p = find_nocase(p, param)) != NULL; p += pl) {
        if (p != h && p[-1] != ';' && p[-1] != ' ' && p[-1] != '\t')
            continue;
        if (p[pl] != '=')
            continue;
        const char *v = p + pl + 1, *end;
        if (*v == '"') {
            v++;
            end = strchr(v, '"');
        } else {
            end = v + strcspn(v, "; \t\r\n");
        }
        if (!end || (size_t)(end - v) >= outlen || end == v)
            return 0;
        memcpy(out, v, (size_t)(end - v));
        out[end - v] = '\0';
        return 1;
    }
    return 0;
}

/* Joins the file parts of a multipart/form-data body into out. 0 on a malformed body. */
static int multipart_text(const char *body, size_t len, const char *boundary, struct sbuf *out)
{
    char delim[200];
    int dl = snprintf(delim, sizeof delim, "--%s", boundary);
    if (dl <= 2 || dl >= (int)sizeof delim)
        return 0;
    const char *end = body + len;
    const char *p = find(body, len, delim, (size_t)dl);
    int parts = 0;
    while (p) {
        p += dl;
        if (end - p >= 2 && p[0] == '-' && p[1] == '-')
            break; /* closing delimiter */
        if (end - p < 2 || p[0] != '\r' || p[1] != '\n')
            return 0;
        p += 2;
        const char *hend = find(p, (size_t)(end - p), "\r\n\r\n", 4);
        if (!hend)
            return 0;
        char headers[1024];
        size_t hl = (size_t)(hend - p) < sizeof headers - 1 ? (size_t)(hend - p) : sizeof headers - 1;
        memcpy(headers, p, hl);
        headers[hl] = '\0';
        const char *content = hend + 4;
        char ndelim[204];
        int nl = snprintf(ndelim, sizeof ndelim, "\r\n%s", delim);
        const char *next = find(content, (size_t)(end - content), ndelim, (size_t)nl);
        if (!next)
            return 0;
        char name[128] = "", filename[256] = "";
        const char *cd = find_nocase(headers, "content-disposition:");
        if (cd) {
            header_param(cd, "name", name, sizeof name);
            header_param(cd, "filename", filename, sizeof filename);
        }
        if (filename[0] || strcmp(name, "file") == 0 || strcmp(name, "files") == 0 ||
            strcmp(name, "report") == 0 || strcmp(name, "content") == 0) {
            if (out->len && out->buf[out->len - 1] != '\n')
                sbuf_add(out, "\n", 1);
            sbuf_add(out, content, (size_t)(next - content));
            parts++;
        }
        p = next + 2; /* at the delimiter */
    }
    return parts > 0 && !out->failed;
}

int http_multipart_report(const char *content_type, const char *body, size_t len, char **text, size_t *textlen)
{
    char boundary[180];
    struct sbuf b = {0};
    if (!header_param(content_type, "boundary", boundary, sizeof boundary))
        return 0;
    if (!multipart_text(body, len, boundary, &b)) {
        sbuf_release(&b);
        return -1;
    }
    *text = sbuf_detach(&b, textlen);
    return 1; /* *text is NULL only when out of memory; the caller answers that */
}

/* Reads the report text from the body in any of the three accepted forms.
 * Returns 1 with *text (heap) and *len, or 0 after answering. */
static int report_text(struct http_req *req, char **text, size_t *len)
{
    const char *type = http_header(req, "Content-Type");
    *text = NULL;
    if (!http_body(req, req->app->report_limit))
        return 0;
    if (!type || strncasecmp(type, "text/plain", 10) == 0) {
        *text = malloc(req->body_len + 1);
        if (!*text) {
            http_problem(req, 500, NULL, "out of memory");
            return 0;
        }
        memcpy(*text, req->body, req->body_len + 1);
        *len = req->body_len;
    } else if (strncasecmp(type, "multipart/form-data", 19) == 0) {
        int r = http_multipart_report(type, req->body, req->body_len, text, len);
        if (r == 0) {
            http_problem(req, 400, "Content-Type", "multipart/form-data needs a boundary");
            return 0;
        }
        if (r < 0) {
            http_problem(req, 400, "file", "the multipart body is malformed or holds no file part");
            return 0;
        }
    } else if (strncasecmp(type, "application/json", 16) == 0) {
        cJSON *doc = cJSON_ParseWithLength(req->body, req->body_len);
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "content");
        if (!cJSON_IsObject(doc) || !cJSON_IsString(c)) {
            cJSON_Delete(doc);
            http_problem(req, 400, "content", "a JSON upload must be {\"content\": \"<report text>\"}");
            return 0;
        }
        *len = strlen(c->valuestring);
        *text = strdup(c->valuestring);
        cJSON_Delete(doc);
    } else {
        http_problem(req, 415, "Content-Type", "send the report as text/plain, multipart/form-data or application/json");
        return 0;
    }
    if (!*text) {
        http_problem(req, 500, NULL, "out of memory");
        return 0;
    }
    if (*len == 0 || memchr(*text, '\0', *len)) {
        free(*text);
        *text = NULL;
        http_problem(req, 400, "content", *len == 0 ? "the report is empty" : "the report must be text, not binary");
        return 0;
    }
    /* Blank lines only (a CI step whose tools printed nothing): nothing to
     * judge and nothing worth storing, as an empty body. */
    size_t i = 0;
    while (i < *len && ((*text)[i] == ' ' || (*text)[i] == '\t' || (*text)[i] == '\r' ||
                        (*text)[i] == '\n' || (*text)[i] == '\f' || (*text)[i] == '\v'))
        i++;
    if (i == *len) {
        free(*text);
        *text = NULL;
        http_problem(req, 400, "content", "the report is empty: it holds only whitespace");
        return 0;
    }
    return 1;
}

static void add_history_item(cJSON *arr, const struct db_report_check *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "revision", c->revision);
    cJSON_AddStringToObject(o, "tier", c->tier);
    cJSON_AddStringToObject(o, "verdict", c->verdict);
    json_add_time(o, "checked_at", c->checked_at);
    cJSON_AddItemToArray(arr, o);
}

static int add_history(void *ud, const struct db_report_check *c)
{
    add_history_item(ud, c);
    return 0;
}

static void report_summary(cJSON *o, const struct db_report *r)
{
    cJSON_AddNumberToObject(o, "id", (double)r->id);
    cJSON_AddNumberToObject(o, "plan_id", (double)r->plan_id);
    cJSON_AddStringToObject(o, "verdict", r->verdict);
    cJSON_AddNumberToObject(o, "revision", r->revision);
    cJSON_AddStringToObject(o, "tier", r->tier);
    cJSON_AddStringToObject(o, "sha256", r->sha256);
    cJSON_AddNumberToObject(o, "size_bytes", (double)r->size_bytes);
    if (r->source[0])
        cJSON_AddStringToObject(o, "source", r->source);
    else
        cJSON_AddNullToObject(o, "source");
    cJSON_AddStringToObject(o, "uploaded_by", r->token_id ? "token" : "user");
    if (r->token_id)
        cJSON_AddNumberToObject(o, "token_id", (double)r->token_id);
    if (r->user_id)
        cJSON_AddNumberToObject(o, "user_id", (double)r->user_id);
    json_add_time(o, "created_at", r->created_at);
    json_add_time(o, "checked_at", r->checked_at);
}

/* Lifts {"measured", "calibration"} (what the measured busbw means for
 * the plan's time and cost) into o, as `gpuplan check` prints them, and
 * frees cal. Nothing when the report measured nothing (cal NULL). */
static void add_calibration(cJSON *o, cJSON *cal)
{
    static const char *const keys[] = {"measured", "calibration", NULL};
    for (int i = 0; cal && keys[i]; i++) {
        cJSON *item = cJSON_DetachItemFromObjectCaseSensitive(cal, keys[i]);
        if (item)
            cJSON_AddItemToObject(o, keys[i], item);
    }
    cJSON_Delete(cal);
}

/* The report document but its history, from r's fields and the parsed
 * sections, findings and calibration documents (taken over and freed; cal
 * may be NULL). NULL when sections or findings is missing. */
static cJSON *report_doc_of(const struct db_report *r, cJSON *sections, cJSON *findings, cJSON *cal)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc || !sections || !findings) {
        cJSON_Delete(cal);
        cJSON_Delete(doc);
        cJSON_Delete(sections);
        cJSON_Delete(findings);
        return NULL;
    }
    report_summary(doc, r);
    cJSON_AddItemToObject(doc, "findings", findings);
    /* sections_json is the parser's whole document: lift its parts to the top. */
    cJSON *list = cJSON_DetachItemFromObjectCaseSensitive(sections, "sections");
    cJSON *unrec = cJSON_DetachItemFromObjectCaseSensitive(sections, "unrecognized_lines");
    cJSON_AddItemToObject(doc, "sections", list ? list : cJSON_CreateArray());
    if (unrec)
        cJSON_AddItemToObject(doc, "unrecognized_lines", unrec);
    cJSON_Delete(sections);
    add_calibration(doc, cal);
    return doc;
}

/* The full stored report document; NULL when stored JSON does not read back. */
static cJSON *report_doc(struct db *db, const struct db_report *r, int with_content)
{
    char err[256];
    cJSON *doc = report_doc_of(r, cJSON_Parse(r->sections_json), cJSON_Parse(r->findings_json),
                               r->calibration_json ? cJSON_Parse(r->calibration_json) : NULL);
    if (!doc)
        return NULL;
    cJSON *hist = cJSON_AddArrayToObject(doc, "history");
    db_report_history(db, r->id, add_history, hist, err, sizeof err);
    if (with_content)
        cJSON_AddStringToObject(doc, "content", r->content);
    return doc;
}

struct analysis {
    char verdict[8];
    /* Stored texts, heap (free()): json_write_cjson writes the bytes
     * cJSON_PrintUnformatted did before, at a third of its cost. */
    char *sections_text;
    char *findings_text;
    char *calibration_text; /* NULL when the report measured nothing */
    /* The documents the texts were written from, settled by
     * json_write_cjson_settle: each is what parsing its text gives, so an
     * answer is built from them without parsing the texts back. */
    cJSON *sections_doc, *findings_doc, *calibration_doc;
};

static void analysis_release(struct analysis *a)
{
    free(a->sections_text);
    free(a->findings_text);
    free(a->calibration_text);
    cJSON_Delete(a->sections_doc);
    cJSON_Delete(a->findings_doc);
    cJSON_Delete(a->calibration_doc);
    a->sections_text = a->findings_text = a->calibration_text = NULL;
    a->sections_doc = a->findings_doc = a->calibration_doc = NULL;
}

/* Moves "measured" and "calibration" out of a verdict into their own
 * object; NULL when it has neither. */
static cJSON *calibration_obj(cJSON *verdict)
{
    cJSON *m = cJSON_DetachItemFromObjectCaseSensitive(verdict, "measured");
    cJSON *c = cJSON_DetachItemFromObjectCaseSensitive(verdict, "calibration");
    if (!m && !c)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    if (m)
        cJSON_AddItemToObject(o, "measured", m);
    if (c)
        cJSON_AddItemToObject(o, "calibration", c);
    return o;
}

/* A worker thread's memo of the last plan document it built. Turning the
 * stored plan back into JSON (its recommendation is some 27 kB) was 40% of
 * an upload's instructions, and a CI system uploads many reports against the
 * same plan. The plan row is still read on every upload (it is what says
 * the team owns the plan), and the memo is used only when that row equals
 * the one the document was built from in every field, the texts compared
 * whole: a revised, renamed or re-created plan can never be answered from
 * it. It belongs to one thread (handlers of one slot run one at a time), so
 * it needs no lock. */
struct plan_memo {
    struct db_plan plan; /* the row doc was built from; owns its two texts */
    cJSON *doc;          /* http_plan_doc(&plan) */
};

void plan_memo_free(struct plan_memo *m)
{
    if (!m)
        return;
    cJSON_Delete(m->doc);
    db_plan_release(&m->plan);
    free(m);
}

static int plan_same(const struct db_plan *a, const struct db_plan *b)
{
    return a->id == b->id && a->team_id == b->team_id && a->revision == b->revision &&
           a->current_revision == b->current_revision && a->created_at == b->created_at &&
           a->updated_at == b->updated_at && a->revision_created_at == b->revision_created_at &&
           strcmp(a->title, b->title) == 0 && strcmp(a->tier, b->tier) == 0 &&
           strcmp(a->engine_version, b->engine_version) == 0 &&
           strcmp(a->workload_json, b->workload_json) == 0 &&
           strcmp(a->recommendation_json, b->recommendation_json) == 0;
}

/* The saved plan document of plan, read-only: from the thread's memo when
 * plan is the row it was built from, else built (and memoised). *owned is
 * set when the caller must cJSON_Delete it (no memo could hold it). NULL
 * when the stored JSON cannot be read back. */
static const cJSON *plan_doc(struct http_req *req, const struct db_plan *plan, cJSON **owned)
{
    struct plan_memo **memo = http_plan_memo(req);
    *owned = NULL;
    if (memo && *memo && plan_same(&(*memo)->plan, plan))
        return (*memo)->doc;
    cJSON *doc = http_plan_doc(plan);
    if (!doc)
        return NULL;
    struct plan_memo *m = memo ? *memo : NULL;
    if (memo && !m)
        m = calloc(1, sizeof *m);
    char *w = m ? strdup(plan->workload_json) : NULL, *r = m ? strdup(plan->recommendation_json) : NULL;
    if (!w || !r) {
        free(w);
        free(r);
        if (memo && !*memo)
            free(m);
        *owned = doc;
        return doc;
    }
    cJSON_Delete(m->doc);
    db_plan_release(&m->plan);
    m->plan = *plan;
    m->plan.workload_json = w;
    m->plan.recommendation_json = r;
    m->doc = doc;
    *memo = m;
    return doc;
}

/* Parses and checks text against the plan's chosen tier. The checker gets
 * the saved plan whole, as `gpuplan check --plan` reads one: its workload is
 * what lets calibration re-estimate the tier with measured busbw. It only
 * reads the document, so the thread's memoised one serves.
 * 0 after answering. */
static int analyze(struct http_req *req, const char *text, size_t len, const struct db_plan *plan,
                   struct analysis *out)
{
    char err[512] = "";
    cJSON *owned = NULL, *sections = NULL, *verdict = NULL;
    const cJSON *saved = plan_doc(req, plan, &owned);
    memset(out, 0, sizeof *out);
    if (!saved) {
        http_problem(req, 500, NULL, "the stored plan cannot be read back");
        return 0;
    }
    enum status st = report_analyze(text, len, saved, plan->tier, req->app->catalog, &sections, &verdict, err,
                                    sizeof err);
    cJSON_Delete(owned);
    if (st != ST_OK) {
        if (st == ST_INVALID)
            http_problem(req, 400, "content", "%s", err);
        else
            http_problem_status(req, st, err);
        return 0;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(verdict, "verdict");
    cJSON *f = cJSON_GetObjectItemCaseSensitive(verdict, "findings");
    snprintf(out->verdict, sizeof out->verdict, "%s", cJSON_IsString(v) ? v->valuestring : "unknown");
    out->calibration_doc = calibration_obj(verdict);
    out->calibration_text = out->calibration_doc ? json_write_cjson_settle(out->calibration_doc, NULL) : NULL;
    out->findings_doc = cJSON_IsArray(f) ? cJSON_DetachItemViaPointer(verdict, f) : cJSON_CreateArray();
    out->findings_text = out->findings_doc ? json_write_cjson_settle(out->findings_doc, NULL) : NULL;
    out->sections_doc = sections;
    out->sections_text = sections ? json_write_cjson_settle(sections, NULL) : NULL;
    cJSON_Delete(verdict);
    if (!out->sections_text || !out->findings_text) {
        analysis_release(out);
        http_problem(req, 500, NULL, "the checker returned no verdict");
        return 0;
    }
    metrics_report(out->verdict);
    return 1;
}

/* The report.fail event's data. "failed" lists the failing findings (id,
 * message; FAIL_EVENT_FINDINGS at most), so a receiver (a chat bot, an
 * incident tool) can say what failed without fetching the report. */
#define FAIL_EVENT_FINDINGS 16
static cJSON *fail_event(const struct db_plan *plan, long long report_id, const char *verdict, const char *source,
                         int revision, const char *tier, const cJSON *findings)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddNumberToObject(d, "plan_id", (double)plan->id);
    cJSON_AddStringToObject(d, "plan_title", plan->title);
    cJSON_AddNumberToObject(d, "report_id", (double)report_id);
    cJSON_AddStringToObject(d, "verdict", verdict);
    cJSON_AddNumberToObject(d, "revision", revision);
    cJSON_AddStringToObject(d, "tier", tier);
    if (source && *source)
        cJSON_AddStringToObject(d, "source", source);
    else
        cJSON_AddNullToObject(d, "source");
    cJSON *failed = cJSON_AddArrayToObject(d, "failed");
    const cJSON *f;
    int n = 0;
    cJSON_ArrayForEach(f, findings)
    {
        const cJSON *sev = cJSON_GetObjectItemCaseSensitive(f, "severity");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(f, "id");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(f, "message");
        if (!failed || n >= FAIL_EVENT_FINDINGS || !cJSON_IsString(sev) || strcmp(sev->valuestring, "fail") != 0 ||
            !cJSON_IsString(id))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", id->valuestring);
        cJSON_AddStringToObject(o, "message", cJSON_IsString(msg) ? msg->valuestring : "");
        cJSON_AddItemToArray(failed, o);
        n++;
    }
    return d;
}

/* One upload's write, run by the committer inside a transaction it may
 * share with other uploads: the report (and its first history row) and, on
 * a fail verdict, the team's report.fail deliveries. A failure rolls back
 * this upload's rows only. */
struct upload_write {
    const struct db_report *r;
    const struct db_plan *plan;
    const cJSON *findings; /* the verdict's findings, for the event */
    long long rid; /* out: the new report's id */
    int queued;    /* out: webhook deliveries were queued */
};

static enum status upload_write(struct db *db, void *arg, char *err, size_t errlen)
{
    struct upload_write *w = arg;
    enum status st = db_report_insert(db, w->r, &w->rid, err, errlen);
    if (st == ST_OK && strcmp(w->r->verdict, "fail") == 0) {
        cJSON *ev = fail_event(w->plan, w->rid, w->r->verdict, w->r->source, w->plan->revision, w->plan->tier,
                               w->findings);
        st = webhook_enqueue(db, w->r->team_id, "report.fail", ev, err, errlen);
        cJSON_Delete(ev);
        w->queued = st == ST_OK;
    }
    return st;
}

/* Answers with the stored report for an Idempotency-Key, or 422 for another body. */
static void replay(struct http_req *req, struct db *db, long long plan_id, const char *key, const char *sha)
{
    struct db_report r;
    char err[256] = "";
    enum status st = db_report_by_key(db, plan_id, key, &r, err, sizeof err);
    if (st != ST_OK) {
        http_problem_status(req, st, err);
        return;
    }
    if (strcmp(r.sha256, sha) != 0) {
        db_report_release(&r);
        http_problem(req, 422, "Idempotency-Key",
                     "this Idempotency-Key was already used with a different report; use a new key");
        return;
    }
    cJSON *doc = report_doc(db, &r, 0);
    db_report_release(&r);
    if (!doc)
        http_problem(req, 500, NULL, "the stored report cannot be read back");
    else
        http_json_with(req, 201, "Idempotent-Replayed: true\r\n", doc);
}

int http_report_create(struct http_req *req)
{
    struct auth a;
    struct db_plan plan;
    struct db_report r;
    struct analysis an = {0};
    char key[KEY_MAX + 1], source[SOURCE_MAX + 1], err[256] = "";
    char *text = NULL;
    size_t len = 0;
    int have_plan = 0;
    long long rid = 0;
    struct db *db;
    enum status st;

    long long plan_id = http_auth_id(req, AUTH_MEMBER | AUTH_TOKEN_OK, &a);
    if (!plan_id)
        return 0;
    if (!header_text(req, "Idempotency-Key", KEY_MAX, key, sizeof key) ||
        !header_text(req, "X-Report-Source", SOURCE_MAX, source, sizeof source))
        return 0;
    if (!(db = http_db(req))) {
        http_problem_status(req, ST_DB, "cannot open the database");
        return 0;
    }
    st = db_plan_get(db, a.team_id, plan_id, 0, &plan, err, sizeof err);
    if (st != ST_OK) {
        http_reply_error(req, st, "plan", err);
        return 0;
    }
    have_plan = 1;
    if (!report_text(req, &text, &len))
        goto out;
    memset(&r, 0, sizeof r);
    crypto_sha256_hex(text, len, r.sha256);
    if (key[0]) {
        struct db_report old;
        st = db_report_by_key(db, plan_id, key, &old, err, sizeof err);
        if (st == ST_OK) {
            db_report_release(&old);
            replay(req, db, plan_id, key, r.sha256);
            goto out;
        }
        if (st != ST_NOTFOUND) {
            http_problem_status(req, st, err);
            goto out;
        }
    }
    if (!analyze(req, text, len, &plan, &an))
        goto out;
    long long now = (long long)time(NULL);
    r.plan_id = plan_id;
    r.team_id = a.team_id;
    r.revision = plan.revision;
    snprintf(r.tier, sizeof r.tier, "%s", plan.tier);
    r.content = text;
    r.size_bytes = (long long)len;
    r.sections_json = an.sections_text;
    snprintf(r.verdict, sizeof r.verdict, "%s", an.verdict);
    r.findings_json = an.findings_text;
    r.calibration_json = an.calibration_text;
    snprintf(r.source, sizeof r.source, "%s", source);
    r.user_id = a.user_id;
    r.token_id = a.token_id;
    snprintf(r.idempotency_key, sizeof r.idempotency_key, "%s", key);
    r.created_at = r.checked_at = now;

    struct upload_write w = {&r, &plan, an.findings_doc, 0, 0};
    st = db_batch_submit(req->app->batcher, upload_write, &w, err, sizeof err);
    if (st == ST_CONFLICT && key[0]) {
        /* Another upload with this key won the race (perhaps in the same
         * batch, committed by now): answer as a replay. */
        replay(req, db, plan_id, key, r.sha256);
        goto out;
    }
    if (st != ST_OK) {
        http_problem_status(req, st, err);
        goto out;
    }
    rid = w.rid;
    if (w.queued)
        webhook_notify();
    /* The answer is built from what was just committed, not read back:
     * r holds every stored field (SQLite keeps text byte for byte), the
     * settled documents are what parsing the stored texts gives, and the
     * history is the one row the insert wrote. Reading the row back and
     * parsing its 10 kB of JSON again cost a quarter of an upload. */
    r.id = rid;
    struct db_report_check first;
    memset(&first, 0, sizeof first);
    first.revision = r.revision;
    snprintf(first.tier, sizeof first.tier, "%s", r.tier);
    snprintf(first.verdict, sizeof first.verdict, "%s", r.verdict);
    first.checked_at = r.checked_at;
    cJSON *doc = report_doc_of(&r, an.sections_doc, an.findings_doc, an.calibration_doc);
    an.sections_doc = an.findings_doc = an.calibration_doc = NULL; /* report_doc_of took them */
    if (doc)
        add_history_item(cJSON_AddArrayToObject(doc, "history"), &first);
    if (!doc)
        http_problem(req, 500, NULL, "the stored report cannot be read back");
    else
        http_json(req, 201, doc);
out:
    analysis_release(&an);
    free(text);
    if (have_plan)
        db_plan_release(&plan);
    return 0;
}

struct list_ctx {
    struct db *db;
    cJSON *items;
    int counts[4];
    int n, limit;
    long long last_id;
};

static int add_report(void *ud, const struct db_report *r)
{
    static const char *const names[] = {"pass", "warn", "fail", "unknown"};
    struct list_ctx *c = ud;
    char err[256];
    if (c->n == c->limit) {
        c->n++; /* one more than the page: there is a next page */
        return 1;
    }
    c->n++;
    c->last_id = r->id;
    cJSON *o = cJSON_CreateObject();
    report_summary(o, r);
    db_report_history(c->db, r->id, add_history, cJSON_AddArrayToObject(o, "history"), err, sizeof err);
    cJSON_AddItemToArray(c->items, o);
    for (int i = 0; i < 4; i++)
        if (strcmp(r->verdict, names[i]) == 0)
            c->counts[i]++;
    return 0;
}

int http_report_list(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    long long plan_id = http_auth_id(req, AUTH_MEMBER | AUTH_TOKEN_OK, &a);
    if (!plan_id)
        return 0;
    char buf[256];
    long limit = REPORTS_LISTED, cursor = 0;
    if (http_query(req, "limit", buf, sizeof buf) &&
        parse_long(buf, 1, REPORTS_LISTED_MAX, &limit) != ST_OK) {
        http_problem(req, 400, "limit", "limit must be a whole number from 1 to %d",
                     REPORTS_LISTED_MAX);
        return 0;
    }
    if (http_query(req, "cursor", buf, sizeof buf) && buf[0] &&
        parse_long(buf, 1, 1L << 53, &cursor) != ST_OK) {
        http_problem(req, 400, "cursor", "cursor must be the 'next' value of an earlier page");
        return 0;
    }
    struct db *db = http_db(req);
    if (!http_plan_owned(req, db, a.team_id, plan_id))
        return 0;
    cJSON *doc = cJSON_CreateObject();
    struct list_ctx c = {db, cJSON_AddArrayToObject(doc, "items"), {0, 0, 0, 0}, 0, (int)limit, 0};
    enum status st = db_report_list(db, a.team_id, plan_id, cursor, (int)limit + 1, add_report, &c,
                                    err, sizeof err);
    if (st != ST_OK) {
        http_reply_list(req, doc, st, NULL, err);
        return 0;
    }
    http_list_next(doc, c.n > c.limit, c.last_id);
    cJSON *counts = cJSON_AddObjectToObject(doc, "verdicts");
    cJSON_AddNumberToObject(counts, "pass", c.counts[0]);
    cJSON_AddNumberToObject(counts, "warn", c.counts[1]);
    cJSON_AddNumberToObject(counts, "fail", c.counts[2]);
    cJSON_AddNumberToObject(counts, "unknown", c.counts[3]);
    http_json(req, 200, doc);
    return 0;
}

int http_report_get(struct http_req *req)
{
    struct auth a;
    struct db_report r;
    char err[256] = "";
    long long plan_id = http_auth_id(req, AUTH_MEMBER | AUTH_TOKEN_OK, &a);
    if (!plan_id)
        return 0;
    long long rid = http_param_id(req, 1);
    if (!rid)
        return 0;
    struct db *db = http_db(req);
    enum status st = db ? db_report_get(db, a.team_id, plan_id, rid, &r, err, sizeof err) : ST_DB;
    if (st != ST_OK) {
        http_reply_error(req, st, "report", err);
        return 0;
    }
    cJSON *doc = report_doc(db, &r, 1);
    db_report_release(&r);
    if (!doc)
        http_problem(req, 500, NULL, "the stored report cannot be read back");
    else
        http_json(req, 200, doc);
    return 0;
}

struct recheck_ctx {
    struct http_req *req;
    struct db *db;
    const struct db_plan *plan;
    long long team_id;
    cJSON *items;
    int failed;       /* answered an error */
    int queued;
};

static int recheck_one(void *ud, const struct db_report *r)
{
    struct recheck_ctx *c = ud;
    struct analysis an;
    char err[256] = "";
    if (!analyze(c->req, r->content, (size_t)r->size_bytes, c->plan, &an)) {
        c->failed = 1;
        return 1;
    }
    enum status st = db_report_recheck(c->db, r->id, c->plan->revision, c->plan->tier, an.sections_text, an.verdict,
                                       an.findings_text, an.calibration_text, (long long)time(NULL), err,
                                       sizeof err);
    if (st == ST_OK && strcmp(an.verdict, "fail") == 0 && strcmp(r->verdict, "fail") != 0) {
        cJSON *ev = fail_event(c->plan, r->id, an.verdict, r->source, c->plan->revision, c->plan->tier,
                               an.findings_doc);
        st = webhook_enqueue(c->db, c->team_id, "report.fail", ev, err, sizeof err);
        cJSON_Delete(ev);
        c->queued = 1;
    }
    if (st != ST_OK) {
        http_problem_status(c->req, st, err);
        analysis_release(&an);
        c->failed = 1;
        return 1;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)r->id);
    cJSON_AddStringToObject(o, "previous_verdict", r->verdict);
    cJSON_AddNumberToObject(o, "previous_revision", r->revision);
    cJSON_AddStringToObject(o, "verdict", an.verdict);
    add_calibration(o, an.calibration_doc);
    an.calibration_doc = NULL; /* add_calibration took it */
    cJSON_AddItemToArray(c->items, o);
    analysis_release(&an);
    return 0;
}

int http_report_recheck(struct http_req *req)
{
    struct auth a;
    struct db_plan plan;
    char err[256] = "";
    long long plan_id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!plan_id)
        return 0;
    struct db *db = http_db(req);
    enum status st = db ? db_plan_get(db, a.team_id, plan_id, 0, &plan, err, sizeof err) : ST_DB;
    if (st != ST_OK) {
        http_reply_error(req, st, "plan", err);
        return 0;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "plan_id", (double)plan_id);
    cJSON_AddNumberToObject(doc, "revision", plan.revision);
    cJSON_AddStringToObject(doc, "tier", plan.tier);
    struct recheck_ctx c = {req, db, &plan, a.team_id, cJSON_AddArrayToObject(doc, "items"), 0, 0};
    /* One transaction: all reports move to the new revision, or none do. */
    st = db_tx_begin(db, err, sizeof err);
    if (st == ST_OK)
        st = db_report_each_full(db, a.team_id, plan_id, recheck_one, &c, err, sizeof err);
    if (st == ST_OK && !c.failed)
        st = db_tx_commit(db, err, sizeof err);
    else
        db_tx_rollback(db);
    db_plan_release(&plan);
    if (c.failed) {
        cJSON_Delete(doc);
        return 0;
    }
    if (st != ST_OK) {
        cJSON_Delete(doc);
        http_problem_status(req, st, err);
        return 0;
    }
    if (c.queued)
        webhook_notify();
    http_json(req, 200, doc);
    return 0;
}
