/* http_shares.c: read-only share links for procurement, and the pages
 * they open.
 *
 * A share token is "gps_" and 256 random bits; only its SHA-256 is
 * stored, and it opens exactly one thing: the shared plan's page, JSON and
 * CSV under /s/. Those need no login, so they reveal only the plan and its
 * bill of materials. A revoked or expired link answers 410 Gone; an unknown
 * one 404. The access log records the route pattern, never the token, and
 * the pages are sent with no-store and no-referrer so the token does not
 * travel onwards. The CSV follows RFC 4180 and defuses spreadsheet
 * formulas (sbuf_add_csv). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

#define SHARE_DAYS_DEFAULT 30
#define SHARE_DAYS_MAX 365
#define SHARE_HEADERS "Cache-Control: no-store\r\nX-Robots-Tag: noindex, nofollow\r\n"

static cJSON *share_item(const struct db_share *s)
{
    long long now = (long long)time(NULL);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)s->id);
    cJSON_AddNumberToObject(o, "plan_id", (double)s->plan_id);
    json_add_time(o, "created_at", s->created_at);
    json_add_time(o, "expires_at", s->expires_at);
    json_add_time(o, "revoked_at", s->revoked_at);
    cJSON_AddStringToObject(o, "state", s->revoked_at ? "revoked" : s->expires_at <= now ? "expired" : "live");
    return o;
}

int http_share_create(struct http_req *req)
{
    static const char *const fields[] = {"expires_days", NULL};
    struct auth a;
    struct db_plan plan;
    long days = SHARE_DAYS_DEFAULT;
    char token[80], hash[65], err[256] = "", url[128];
    long long id = 0, now = (long long)time(NULL);
    cJSON *body = NULL;

    long long plan_id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!plan_id)
        return 0;
    /* An empty body means all defaults. */
    const char *cl = http_header(req, "Content-Length");
    if (cl && strcmp(cl, "0") != 0) {
        if (!(body = http_body_json(req)))
            return 0;
        if (!http_fields_known(req, body, fields) ||
            http_field_long(req, body, "expires_days", 0, 1, SHARE_DAYS_MAX, &days) < 0)
            goto out;
    }
    struct db *db = http_db(req);
    enum status st = db ? db_plan_get(db, a.team_id, plan_id, 0, &plan, err, sizeof err) : ST_DB;
    if (st != ST_OK) {
        http_reply_error(req, st, "plan", err);
        goto out;
    }
    long long expires = now + days * 86400;
    st = crypto_token("gps_", 32, token, sizeof token);
    if (st == ST_OK) {
        crypto_sha256_hex(token, strlen(token), hash);
        st = db_tx_begin(db, err, sizeof err);
    }
    if (st == ST_OK)
        st = db_share_insert(db, a.team_id, plan_id, hash, a.user_id, now, expires, &id, err, sizeof err);
    if (st == ST_OK) {
        cJSON *ev = cJSON_CreateObject();
        cJSON_AddNumberToObject(ev, "plan_id", (double)plan_id);
        cJSON_AddStringToObject(ev, "plan_title", plan.title);
        cJSON_AddNumberToObject(ev, "share_id", (double)id);
        cJSON_AddNumberToObject(ev, "revision", plan.revision);
        json_add_time(ev, "expires_at", expires);
        st = webhook_enqueue(db, a.team_id, "plan.shared", ev, err, sizeof err);
        cJSON_Delete(ev);
    }
    if (st == ST_OK)
        st = db_tx_commit(db, err, sizeof err);
    else
        db_tx_rollback(db);
    db_plan_release(&plan);
    if (st != ST_OK) {
        crypto_wipe(token, sizeof token);
        http_problem_status(req, st, err);
        goto out;
    }
    webhook_notify();
    snprintf(url, sizeof url, "/s/%s", token);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "id", (double)id);
    cJSON_AddStringToObject(doc, "token", token);
    cJSON_AddStringToObject(doc, "url", url);
    json_add_time(doc, "expires_at", expires);
    http_json(req, 201, doc);
    crypto_wipe(token, sizeof token);
    crypto_wipe(url, sizeof url);
out:
    cJSON_Delete(body);
    return 0;
}

static int add_share(void *ud, const struct db_share *s)
{
    cJSON_AddItemToArray(ud, share_item(s));
    return 0;
}

int http_share_list(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    long long plan_id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!plan_id)
        return 0;
    struct db *db = http_db(req);
    if (!http_plan_owned(req, db, a.team_id, plan_id))
        return 0;
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items");
    enum status st = db_share_list(db, a.team_id, plan_id, add_share, items, err, sizeof err);
    http_reply_list(req, doc, st, NULL, err);
    return 0;
}

int http_share_delete(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    long long id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!id)
        return 0;
    enum status st = db_share_revoke(http_db(req), a.team_id, id, (long long)time(NULL), err, sizeof err);
    http_reply_deleted(req, st, "share", err);
    return 0;
}

/* ---- the shared pages ---- */

/* The plan behind a share token, or 0 after answering 404/410. */
static int shared_plan(struct http_req *req, struct db_plan *plan, long long *expires_at)
{
    struct db_share s;
    char hash[65], err[256] = "";
    const char *token = req->params[0];
    size_t n = strlen(token);
    int ok = n == 4 + 64 && strncmp(token, "gps_", 4) == 0;
    for (size_t i = 4; ok && i < n; i++)
        ok = (token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f');
    if (!ok) {
        http_problem(req, 404, NULL, "no such share link");
        return 0;
    }
    crypto_sha256_hex(token, n, hash);
    struct db *db = http_db(req);
    enum status st = db ? db_share_by_token(db, hash, &s, err, sizeof err) : ST_DB;
    if (st == ST_NOTFOUND) {
        http_problem(req, 404, NULL, "no such share link");
        return 0;
    }
    if (st != ST_OK) {
        http_problem_status(req, st, err);
        return 0;
    }
    if (s.revoked_at || s.expires_at <= (long long)time(NULL)) {
        http_problem(req, 410, NULL, s.revoked_at ? "this share link was revoked" : "this share link has expired");
        return 0;
    }
    st = db_plan_get(db, s.team_id, s.plan_id, 0, plan, err, sizeof err);
    if (st != ST_OK) {
        if (st == ST_NOTFOUND)
            http_problem(req, 410, NULL, "the shared plan was deleted");
        else
            http_problem_status(req, st, err);
        return 0;
    }
    *expires_at = s.expires_at;
    return 1;
}

static double num_or_nan(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_or(const cJSON *o, const char *name, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* Whether a shared tier has a cluster: one that does not fit has no GPU
 * count and no days (null since the engine says so; 0 GPUs or 0 days in a
 * plan saved before, which are no figures either), so its page and CSV
 * label it and print no summary, bill or total as figures. */
static int tier_has_cluster(const cJSON *t)
{
    double count = num_or_nan(cJSON_GetObjectItemCaseSensitive(t, "gpu"), "count");
    double days = num_or_nan(cJSON_GetObjectItemCaseSensitive(t, "time"), "days");
    return isfinite(count) && count >= 1 && isfinite(days) &&
           !(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(t, "feasible")) && days <= 0);
}

/* The share document: what the JSON form returns and the page and CSV render. */
static cJSON *share_doc(const struct db_plan *plan, long long expires_at)
{
    cJSON *rec = cJSON_Parse(plan->recommendation_json), *w = cJSON_Parse(plan->workload_json);
    if (!rec || !w) {
        cJSON_Delete(rec);
        cJSON_Delete(w);
        return NULL;
    }
    cJSON *doc = cJSON_CreateObject(), *p = cJSON_AddObjectToObject(doc, "plan");
    cJSON_AddStringToObject(p, "title", plan->title);
    cJSON_AddNumberToObject(p, "revision", plan->revision);
    cJSON_AddStringToObject(p, "chosen_tier", plan->tier);
    cJSON_AddStringToObject(p, "engine_version", plan->engine_version);
    json_add_time(p, "updated_at", plan->updated_at);
    cJSON_AddItemToObject(doc, "workload", w);
    cJSON *tiers = cJSON_AddArrayToObject(doc, "tiers");
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(rec, "tiers"))
    {
        cJSON *o = cJSON_CreateObject();
        static const char *const keep[] = {"tier", "feasible", "why", "gpu", "fabric", "storage", "time", "cost"};
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, keep[i]);
            if (v)
                cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
        }
        const cJSON *bom = cJSON_GetObjectItemCaseSensitive(t, "bom");
        cJSON_AddItemToObject(o, "bom", cJSON_IsArray(bom) ? cJSON_Duplicate(bom, 1) : cJSON_CreateArray());
        const cJSON *total = cJSON_GetObjectItemCaseSensitive(t, "bom_total_usd");
        if (cJSON_IsNumber(total)) {
            cJSON_AddNumberToObject(o, "bom_total_usd", total->valuedouble);
        } else if (cJSON_IsNull(total)) {
            cJSON_AddNullToObject(o, "bom_total_usd");   /* a tier that does not fit: no bill, not $0 */
        } else {
            double sum = 0;
            const cJSON *line;
            cJSON_ArrayForEach(line, bom)
            {
                double v = num_or_nan(line, "total_usd");
                if (isfinite(v))
                    sum += v;
            }
            cJSON_AddNumberToObject(o, "bom_total_usd", sum);
        }
        cJSON_AddItemToArray(tiers, o);
    }
    json_add_time(doc, "expires_at", expires_at);
    cJSON_Delete(rec);
    return doc;
}

int http_share_json(struct http_req *req)
{
    struct db_plan plan;
    long long expires_at = 0;
    if (!shared_plan(req, &plan, &expires_at))
        return 0;
    cJSON *doc = share_doc(&plan, expires_at);
    db_plan_release(&plan);
    if (!doc) {
        http_problem(req, 500, NULL, "the stored plan cannot be read back");
        return 0;
    }
    http_json_with(req, 200, "X-Robots-Tag: noindex, nofollow\r\n", doc);
    return 0;
}

/* Cents, but a figure that is not 0 never reads 0.00 (a few cents of
 * storage, 0.004 TB-months): two significant figures then, as the plan. */
static void csv_number(struct sbuf *b, double v)
{
    if (isfinite(v))
        sbuf_addf(b, v != 0 && fabs(v) < 0.005 ? "%.2g" : "%.2f", v);
}

int http_share_csv(struct http_req *req)
{
    struct db_plan plan;
    struct sbuf b = {0};
    long long expires_at = 0;
    char name_header[300];
    if (!shared_plan(req, &plan, &expires_at))
        return 0;
    cJSON *doc = share_doc(&plan, expires_at);
    db_plan_release(&plan);
    if (!doc) {
        http_problem(req, 500, NULL, "the stored plan cannot be read back");
        return 0;
    }
    sbuf_adds(&b, "plan,revision,tier,chosen,item,description,quantity,unit_usd,total_usd,as_of\r\n");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(doc, "plan"), *t, *line;
    const char *title = str_or(p, "title", "");
    const char *chosen = str_or(p, "chosen_tier", "");
    int revision = (int)num_or_nan(p, "revision");
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(doc, "tiers"))
    {
        const char *tier = str_or(t, "tier", "");
        cJSON_ArrayForEach(line, cJSON_GetObjectItemCaseSensitive(t, "bom"))
        {
            sbuf_add_csv(&b, title);
            sbuf_addf(&b, ",%d,", revision);
            sbuf_add_csv(&b, tier);
            sbuf_adds(&b, strcmp(tier, chosen) == 0 ? ",yes," : ",no,");
            sbuf_add_csv(&b, str_or(line, "item", ""));
            sbuf_add(&b, ",", 1);
            sbuf_add_csv(&b, str_or(line, "description", ""));
            sbuf_add(&b, ",", 1);
            csv_number(&b, num_or_nan(line, "quantity"));
            sbuf_add(&b, ",", 1);
            csv_number(&b, num_or_nan(line, "unit_usd"));
            sbuf_add(&b, ",", 1);
            csv_number(&b, num_or_nan(line, "total_usd"));
            sbuf_add(&b, ",", 1);
            sbuf_add_csv(&b, str_or(line, "as_of", ""));
            sbuf_adds(&b, "\r\n");
        }
        /* The tier's total, as its page shows it (bom_total_usd), in the
         * same columns: item "total", no quantity, unit price or date. A
         * tier that does not fit has no bill: its total is empty, and
         * says why. */
        sbuf_add_csv(&b, title);
        sbuf_addf(&b, ",%d,", revision);
        sbuf_add_csv(&b, tier);
        sbuf_adds(&b, strcmp(tier, chosen) == 0 ? ",yes,total," : ",no,total,");
        if (tier_has_cluster(t)) {
            sbuf_adds(&b, "Bill of materials total,,,");
            csv_number(&b, num_or_nan(t, "bom_total_usd"));
        } else {
            sbuf_adds(&b, "Does not fit: no bill of materials,,,");
        }
        sbuf_adds(&b, ",\r\n");
    }
    cJSON_Delete(doc);
    size_t len = 0;
    char *text = sbuf_detach(&b, &len);
    if (!text) {
        http_problem(req, 500, NULL, "out of memory");
        return 0;
    }
    snprintf(name_header, sizeof name_header,
             SHARE_HEADERS "Content-Disposition: attachment; filename=\"gpuplan-bom.csv\"\r\n");
    http_send(req, 200, "text/csv; charset=utf-8; header=present", name_header, text, len);
    free(text);
    return 0;
}

static void html_money(struct sbuf *b, double v)
{
    if (!isfinite(v)) {
        sbuf_adds(b, "&mdash;");
        return;
    }
    /* Below a cent, two significant figures: a figure that is not 0
     * never reads $0.00. */
    if (v != 0 && fabs(v) < 0.005) {
        sbuf_addf(b, "%s$%.2g", v < 0 ? "-" : "", fabs(v));
        return;
    }
    /* Small prices (electricity per kWh, GPU-hours) keep their cents. */
    if (fabs(v) < 100 && v != floor(v)) {
        sbuf_addf(b, "%s$%.2f", v < 0 ? "-" : "", fabs(v));
        return;
    }
    /* Thousands separators by hand: printf's ' flag depends on the locale. */
    char digits[32];
    long long whole = llround(v);
    snprintf(digits, sizeof digits, "%lld", whole < 0 ? -whole : whole);
    size_t n = strlen(digits);
    sbuf_adds(b, whole < 0 ? "-$" : "$");
    for (size_t i = 0; i < n; i++) {
        sbuf_add(b, &digits[i], 1);
        if ((n - i - 1) % 3 == 0 && i + 1 < n)
            sbuf_add(b, ",", 1);
    }
}

static void html_number(struct sbuf *b, double v)
{
    /* Fixed notation: %g turns a million GPU-hours into 1.07692e+06; but
     * a figure below 0.05 that is not 0 keeps two significant figures
     * (%.1f wrote 0.004 TB-months as 0.0). */
    if (isfinite(v) && v != 0 && fabs(v) < 0.05)
        sbuf_addf(b, "%.2g", v);
    else if (isfinite(v))
        sbuf_addf(b, v == floor(v) ? "%.0f" : "%.1f", v);
    else
        sbuf_adds(b, "&mdash;");
}

int http_share_page(struct http_req *req)
{
    struct db_plan plan;
    struct sbuf b = {0};
    long long expires_at = 0;
    if (!shared_plan(req, &plan, &expires_at))
        return 0;
    cJSON *doc = share_doc(&plan, expires_at);
    db_plan_release(&plan);
    if (!doc) {
        http_problem(req, 500, NULL, "the stored plan cannot be read back");
        return 0;
    }
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(doc, "plan"), *t, *line;
    const char *title = str_or(p, "title", "");
    const char *chosen = str_or(p, "chosen_tier", "");
    sbuf_adds(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  "<meta name=\"robots\" content=\"noindex\">"
                  "<link rel=\"stylesheet\" href=\"/share.css\"><title>");
    sbuf_add_html(&b, title);
    sbuf_adds(&b, " &middot; gpuplan</title></head>\n<body class=\"share\"><main>\n<h1>");
    sbuf_add_html(&b, title);
    sbuf_addf(&b, "</h1>\n<p class=\"meta\">Revision %d &middot; chosen tier <strong>", (int)num_or_nan(p, "revision"));
    sbuf_add_html(&b, chosen);
    sbuf_adds(&b, "</strong> &middot; engine ");
    sbuf_add_html(&b, str_or(p, "engine_version", ""));
    sbuf_adds(&b, " &middot; link expires ");
    sbuf_add_html(&b, str_or(doc, "expires_at", ""));
    sbuf_adds(&b, "</p>\n");
    /* What the plan is for, from the workload's plain fields. */
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(doc, "workload"), *f;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(w, "model");
    sbuf_adds(&b, "<dl class=\"workload\">");
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(model, "preset"))) {
        sbuf_adds(&b, "<dt>model</dt><dd>");
        sbuf_add_html(&b, str_or(model, "preset", ""));
        sbuf_adds(&b, "</dd>");
    } else if (isfinite(num_or_nan(model, "params_b"))) {
        sbuf_addf(&b, "<dt>model</dt><dd>%g B parameters</dd>", num_or_nan(model, "params_b"));
    }
    cJSON_ArrayForEach(f, w)
    {
        if (!f->string || (!cJSON_IsString(f) && !cJSON_IsNumber(f)))
            continue;
        sbuf_adds(&b, "<dt>");
        sbuf_add_html(&b, f->string);
        sbuf_adds(&b, "</dt><dd>");
        if (cJSON_IsString(f))
            sbuf_add_html(&b, f->valuestring);
        else
            sbuf_addf(&b, "%.15g", f->valuedouble); /* 5000000, not 5e+06 */
        sbuf_adds(&b, "</dd>");
    }
    sbuf_adds(&b, "</dl>\n");
    /* Relative links: the page lives at /s/TOKEN, so TOKEN.csv is its CSV. */
    sbuf_adds(&b, "<p class=\"downloads\">Bill of materials as <a href=\"");
    sbuf_add_html(&b, req->params[0]);
    sbuf_adds(&b, ".csv\">CSV</a> or <a href=\"");
    sbuf_add_html(&b, req->params[0]);
    sbuf_adds(&b, ".json\">JSON</a>.</p>\n");
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(doc, "tiers"))
    {
        const char *tier = str_or(t, "tier", "");
        const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(t, "gpu");
        const cJSON *feasible = cJSON_GetObjectItemCaseSensitive(t, "feasible");
        sbuf_adds(&b, "<section class=\"tier");
        if (strcmp(tier, chosen) == 0)
            sbuf_adds(&b, " chosen");
        sbuf_adds(&b, "\"><h2>");
        sbuf_add_html(&b, tier);
        if (strcmp(tier, chosen) == 0)
            sbuf_adds(&b, " (chosen)");
        sbuf_adds(&b, "</h2>\n");
        int has_cluster = tier_has_cluster(t);
        if (!has_cluster) {
            sbuf_adds(&b, "<p class=\"infeasible\">Does not fit: ");
            sbuf_add_html(&b, str_or(t, "why", "no cluster fits this tier"));
            sbuf_adds(&b, "</p>\n<p class=\"no-bom\">No cluster, so no bill of materials for this tier.</p>"
                          "</section>\n");
            continue;
        }
        if (cJSON_IsFalse(feasible)) {
            sbuf_adds(&b, "<p class=\"infeasible\">Not feasible: ");
            sbuf_add_html(&b, str_or(t, "why", "see the plan"));
            sbuf_adds(&b, "</p>\n");
        }
        if (gpu) {
            const cJSON *time_o = cJSON_GetObjectItemCaseSensitive(t, "time");
            const cJSON *cost = cJSON_GetObjectItemCaseSensitive(t, "cost");
            sbuf_adds(&b, "<p class=\"summary\">");
            html_number(&b, num_or_nan(gpu, "count"));
            sbuf_adds(&b, " &times; ");
            sbuf_add_html(&b, str_or(gpu, "name", str_or(gpu, "id", "")));
            sbuf_adds(&b, " in ");
            html_number(&b, num_or_nan(gpu, "nodes"));
            sbuf_adds(&b, " nodes");
            if (isfinite(num_or_nan(time_o, "days"))) {
                sbuf_addf(&b, " &middot; %.1f days", num_or_nan(time_o, "days"));
            }
            if (isfinite(num_or_nan(cost, "usd"))) {
                sbuf_adds(&b, " &middot; ");
                html_money(&b, num_or_nan(cost, "usd"));
                sbuf_adds(&b, " (");
                sbuf_add_html(&b, str_or(cost, "basis", ""));
                sbuf_adds(&b, ")");
            }
            sbuf_adds(&b, "</p>\n");
        }
        sbuf_adds(&b, "<table class=\"bom\"><thead><tr><th>Item</th><th>Description</th><th class=\"num\">Quantity</th>"
                      "<th class=\"num\">Unit price</th>"
                      "<th class=\"num\">Total</th><th>Price as of</th></tr></thead><tbody>\n");
        cJSON_ArrayForEach(line, cJSON_GetObjectItemCaseSensitive(t, "bom"))
        {
            /* data-label repeats the column's header on each cell: on a narrow
             * screen share.css stacks a row's cells, each captioned by its label. */
            sbuf_adds(&b, "<tr><td data-label=\"Item\">");
            sbuf_add_html(&b, str_or(line, "item", ""));
            sbuf_adds(&b, "</td><td data-label=\"Description\">");
            sbuf_add_html(&b, str_or(line, "description", ""));
            sbuf_adds(&b, "</td><td class=\"num\" data-label=\"Quantity\">");
            html_number(&b, num_or_nan(line, "quantity"));
            sbuf_adds(&b, "</td><td class=\"num\" data-label=\"Unit price\">");
            html_money(&b, num_or_nan(line, "unit_usd"));
            sbuf_adds(&b, "</td><td class=\"num\" data-label=\"Total\">");
            html_money(&b, num_or_nan(line, "total_usd"));
            sbuf_adds(&b, "</td><td data-label=\"Price as of\">");
            sbuf_add_html(&b, str_or(line, "as_of", ""));
            sbuf_adds(&b, "</td></tr>\n");
        }
        sbuf_adds(&b, "</tbody><tfoot><tr><th colspan=\"4\">Total</th><td class=\"num\" data-label=\"Total\">");
        html_money(&b, num_or_nan(t, "bom_total_usd"));
        sbuf_adds(&b, "</td><td></td></tr></tfoot></table></section>\n");
    }
    sbuf_adds(&b, "<p class=\"note\">Prices are estimates from gpuplan's catalog at the dates shown; "
                  "optics and cabling are estimated from the fabric topology.</p>\n</main></body></html>\n");
    cJSON_Delete(doc);
    size_t len = 0;
    char *text = sbuf_detach(&b, &len);
    if (!text) {
        http_problem(req, 500, NULL, "out of memory");
        return 0;
    }
    http_send(req, 200, "text/html; charset=utf-8", SHARE_HEADERS, text, len);
    free(text);
    return 0;
}
