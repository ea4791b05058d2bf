/* http_plans.c: a team's saved plans, their revisions and diffs.
 *
 * Creating or revising a plan with a workload runs the planner once and
 * stores the workload, the engine version and the whole recommendation,
 * so a saved plan reads back exactly as it was computed even after the
 * engine or its prices change. Choosing a tier, renaming or revising is a
 * new revision; old revisions stay readable. Lists page by id cursor
 * (stable under inserts, unlike offsets). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "engine.h"
#include "server_int.h"

#define LIST_DEFAULT 20
#define LIST_MAX 100
#define DIFF_MAX 500

static int tier_ok(const char *t)
{
    return strcmp(t, "minimum") == 0 || strcmp(t, "recommended") == 0 || strcmp(t, "performance") == 0;
}

cJSON *http_plan_doc(const struct db_plan *p)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *w = cJSON_Parse(p->workload_json), *r = cJSON_Parse(p->recommendation_json);
    if (!doc || !w || !r) {
        cJSON_Delete(doc);
        cJSON_Delete(w);
        cJSON_Delete(r);
        return NULL;
    }
    cJSON_AddNumberToObject(doc, "id", (double)p->id);
    cJSON_AddStringToObject(doc, "title", p->title);
    cJSON_AddNumberToObject(doc, "revision", p->revision);
    cJSON_AddNumberToObject(doc, "current_revision", p->current_revision);
    cJSON_AddStringToObject(doc, "tier", p->tier);
    cJSON_AddStringToObject(doc, "engine_version", p->engine_version);
    cJSON_AddItemToObject(doc, "workload", w);
    cJSON_AddItemToObject(doc, "recommendation", r);
    json_add_time(doc, "created_at", p->created_at);
    json_add_time(doc, "updated_at", p->updated_at);
    json_add_time(doc, "revision_created_at", p->revision_created_at);
    return doc;
}

static void reply_plan(struct http_req *req, int status, struct db *db, long long team_id, long long plan_id,
                       int revision)
{
    struct db_plan p;
    char err[256] = "";
    enum status st = db_plan_get(db, team_id, plan_id, revision, &p, err, sizeof err);
    if (st != ST_OK) {
        http_reply_error(req, st, revision ? "plan revision" : "plan", err);
        return;
    }
    cJSON *doc = http_plan_doc(&p);
    db_plan_release(&p);
    if (!doc) {
        http_problem(req, 500, NULL, "the stored plan cannot be read back");
        return;
    }
    http_json(req, status, doc);
}

/* The planner over JSON, as POST /api/v1/recommend runs it. ST_INVALID with
 * err naming the workload field. Caller frees *out with cJSON_Delete. */
static enum status recommend(const struct app *app, const cJSON *workload, cJSON **out, char *field,
                             size_t fieldlen, char *err, size_t errlen)
{
    struct engine_workload w;
    struct engine_recommendation *rec = NULL;
    char why[512] = "";
    enum status st;

    if (!app->catalog) {
        snprintf(err, errlen, "the catalog is not loaded");
        return ST_INTERNAL;
    }
    field[0] = '\0';
    if ((st = json_workload_decode(workload, &w, field, fieldlen, why, sizeof why)) != ST_OK ||
        (st = engine_workload_resolve(&w, app->catalog, why, sizeof why)) != ST_OK) {
        snprintf(err, errlen, "%s", why);
        if (!field[0])
            json_field_from_error(why, field, fieldlen);
        return st == ST_NOMEM ? st : ST_INVALID;
    }
    if (!(rec = calloc(1, sizeof *rec)))
        return ST_NOMEM;
    st = engine_recommend(app->catalog, &w, rec, why, sizeof why);
    if (st == ST_OK) {
        *out = json_recommendation_encode(app->catalog, &w, rec);
        if (!*out)
            st = ST_NOMEM;
    } else {
        snprintf(err, errlen, "%s", why);
        json_field_from_error(why, field, fieldlen);
        if (st != ST_NOMEM)
            st = ST_INVALID;
    }
    free(rec);
    return st;
}

/* Runs the planner on workload; writes the texts to store. 0 after answering. */
static int compute(struct http_req *req, const cJSON *workload, char **workload_text, char **rec_text,
                   char *engine_version, size_t evlen)
{
    char err[512] = "", field[96] = "", path[128];
    cJSON *rec = NULL;
    enum status st = recommend(req->app, workload, &rec, field, sizeof field, err, sizeof err);
    if (st == ST_INVALID) {
        /* Name the field as the request spells it: workload.model.preset. */
        snprintf(path, sizeof path, "workload%s%s", field[0] ? "." : "", field);
        http_problem(req, 400, path, "workload: %s", err);
        return 0;
    }
    if (st != ST_OK) {
        http_problem_status(req, st, err);
        return 0;
    }
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(rec, "engine_version");
    snprintf(engine_version, evlen, "%s", cJSON_IsString(ev) ? ev->valuestring : "unknown");
    *workload_text = cJSON_PrintUnformatted(workload);
    *rec_text = cJSON_PrintUnformatted(rec);
    cJSON_Delete(rec);
    if (!*workload_text || !*rec_text) {
        cJSON_free(*workload_text);
        cJSON_free(*rec_text);
        *workload_text = *rec_text = NULL;
        http_problem(req, 500, NULL, "out of memory");
        return 0;
    }
    return 1;
}

int http_plan_create(struct http_req *req)
{
    static const char *const fields[] = {"title", "workload", "tier", NULL};
    struct auth a;
    const char *title = NULL, *tier = "recommended";
    char *wtext = NULL, *rtext = NULL, ev[64], err[256] = "";
    long long id = 0;
    cJSON *body = NULL;

    if (!http_auth(req, AUTH_MEMBER, &a))
        return 0;
    if (!(body = http_body_json(req)))
        return 0;
    if (!http_fields_known(req, body, fields) || http_field_string(req, body, "title", 1, 200, &title) < 0 ||
        http_field_string(req, body, "tier", 0, 16, &tier) < 0)
        goto out;
    if (!tier_ok(tier)) {
        http_problem(req, 400, "tier", "tier must be minimum, recommended or performance");
        goto out;
    }
    const cJSON *workload = cJSON_GetObjectItemCaseSensitive(body, "workload");
    if (!cJSON_IsObject(workload)) {
        http_problem(req, 400, "workload", "workload must be an object (see POST /api/v1/recommend)");
        goto out;
    }
    if (!compute(req, workload, &wtext, &rtext, ev, sizeof ev))
        goto out;
    struct db *db = http_db(req);
    enum status st = db ? db_plan_insert(db, a.team_id, a.user_id, title, tier, wtext, rtext, ev,
                                         (long long)time(NULL), &id, err, sizeof err)
                        : ST_DB;
    if (st != ST_OK)
        http_problem_status(req, st, err);
    else
        reply_plan(req, 201, db, a.team_id, id, 0);
out:
    cJSON_free(wtext);
    cJSON_free(rtext);
    cJSON_Delete(body);
    return 0;
}

struct list_ctx {
    cJSON *items;
    int n, limit;
    long long last_id;
};

static int add_plan(void *ud, const struct db_plan *p)
{
    struct list_ctx *c = ud;
    if (c->n == c->limit) {
        c->n++; /* one more than the page: there is a next page */
        return 1;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)p->id);
    cJSON_AddStringToObject(o, "title", p->title);
    cJSON_AddNumberToObject(o, "revision", p->current_revision);
    cJSON_AddStringToObject(o, "tier", p->tier);
    cJSON_AddStringToObject(o, "engine_version", p->engine_version);
    json_add_time(o, "created_at", p->created_at);
    json_add_time(o, "updated_at", p->updated_at);
    cJSON_AddItemToArray(c->items, o);
    c->n++;
    c->last_id = p->id;
    return 0;
}

int http_plan_list(struct http_req *req)
{
    struct auth a;
    char buf[256], err[256] = "";
    long limit = LIST_DEFAULT, cursor = 0;
    const char *q = NULL;

    if (!http_auth(req, AUTH_MEMBER, &a))
        return 0;
    if (http_query(req, "limit", buf, sizeof buf) && parse_long(buf, 1, LIST_MAX, &limit) != ST_OK) {
        http_problem(req, 400, "limit", "limit must be a whole number from 1 to %d", LIST_MAX);
        return 0;
    }
    if (http_query(req, "cursor", buf, sizeof buf) && buf[0] && parse_long(buf, 1, 1L << 53, &cursor) != ST_OK) {
        http_problem(req, 400, "cursor", "cursor must be the 'next' value of an earlier page");
        return 0;
    }
    char qbuf[201];
    if (http_query(req, "q", qbuf, sizeof qbuf) && qbuf[0])
        q = qbuf;
    cJSON *doc = cJSON_CreateObject();
    struct list_ctx c = {cJSON_AddArrayToObject(doc, "items"), 0, (int)limit, 0};
    enum status st = db_plan_list(http_db(req), a.team_id, q, cursor, (int)limit + 1, add_plan, &c, err, sizeof err);
    if (st != ST_OK) {
        cJSON_Delete(doc);
        http_problem_status(req, st, err);
        return 0;
    }
    http_list_next(doc, c.n > c.limit, c.last_id);
    http_json(req, 200, doc);
    return 0;
}

int http_plan_get(struct http_req *req)
{
    struct auth a;
    char buf[32];
    long rev = 0;
    long long id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!id)
        return 0;
    if (http_query(req, "revision", buf, sizeof buf) && parse_long(buf, 1, 1000000, &rev) != ST_OK) {
        http_problem(req, 400, "revision", "revision must be a whole number from 1");
        return 0;
    }
    reply_plan(req, 200, http_db(req), a.team_id, id, (int)rev);
    return 0;
}

/* A new revision from the fields of body that are present. */
static void revise(struct http_req *req, const struct auth *a, long long id, const cJSON *body, int tier_only)
{
    static const char *const fields[] = {"title", "workload", "tier", NULL};
    static const char *const tier_fields[] = {"tier", NULL};
    const char *title = NULL, *tier = NULL;
    char *wtext = NULL, *rtext = NULL, ev[64] = "", err[256] = "";
    int rev = 0;

    if (!http_fields_known(req, body, tier_only ? tier_fields : fields) ||
        http_field_string(req, body, "title", 0, 200, &title) < 0 ||
        http_field_string(req, body, "tier", tier_only, 16, &tier) < 0)
        return;
    if (tier && !tier_ok(tier)) {
        http_problem(req, 400, "tier", "tier must be minimum, recommended or performance");
        return;
    }
    const cJSON *workload = cJSON_GetObjectItemCaseSensitive(body, "workload");
    if (workload && !cJSON_IsObject(workload)) {
        http_problem(req, 400, "workload", "workload must be an object");
        return;
    }
    if (!title && !tier && !workload) {
        http_problem(req, 400, NULL, "nothing to change: give title, tier or workload");
        return;
    }
    struct db *db = http_db(req);
    /* Check ownership before spending planner time on someone else's plan. */
    if (!http_plan_owned(req, db, a->team_id, id))
        return;
    if (workload && !compute(req, workload, &wtext, &rtext, ev, sizeof ev))
        return;
    enum status st = db_plan_revise(db, a->team_id, id, a->user_id, title, tier, wtext, rtext, workload ? ev : NULL,
                        (long long)time(NULL), &rev, err, sizeof err);
    cJSON_free(wtext);
    cJSON_free(rtext);
    if (st != ST_OK)
        http_reply_error(req, st, "plan", err);
    else
        reply_plan(req, 200, db, a->team_id, id, rev);
}

int http_plan_update(struct http_req *req)
{
    struct auth a;
    long long id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!id)
        return 0;
    cJSON *body = http_body_json(req);
    if (body)
        revise(req, &a, id, body, 0);
    cJSON_Delete(body);
    return 0;
}

int http_plan_tier(struct http_req *req)
{
    struct auth a;
    long long id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!id)
        return 0;
    cJSON *body = http_body_json(req);
    if (body)
        revise(req, &a, id, body, 1);
    cJSON_Delete(body);
    return 0;
}

int http_plan_delete(struct http_req *req)
{
    return http_delete_team_row(req, AUTH_MEMBER, db_plan_delete, "plan");
}

static int add_revision(void *ud, const struct db_plan *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "revision", p->revision);
    cJSON_AddStringToObject(o, "title", p->title);
    cJSON_AddStringToObject(o, "tier", p->tier);
    cJSON_AddStringToObject(o, "engine_version", p->engine_version);
    json_add_time(o, "created_at", p->revision_created_at);
    cJSON_AddItemToArray(ud, o);
    return 0;
}

int http_plan_revisions(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    long long id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!id)
        return 0;
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items");
    enum status st = db_plan_revisions(http_db(req), a.team_id, id, add_revision, items, err, sizeof err);
    http_reply_list(req, doc, st, "plan", err);
    return 0;
}

int http_plan_revision(struct http_req *req)
{
    struct auth a;
    long rev = 0;
    long long id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!id)
        return 0;
    if (parse_long(req->params[1], 1, 1000000, &rev) != ST_OK) {
        http_problem(req, 404, NULL, "no such plan revision");
        return 0;
    }
    reply_plan(req, 200, http_db(req), a.team_id, id, (int)rev);
    return 0;
}

int http_plan_diff(struct http_req *req)
{
    struct auth a;
    struct db_plan from, to;
    char buf[32], err[256] = "";
    long rfrom = 0, rto = 0;
    cJSON *wa = NULL, *wb = NULL, *ra = NULL, *rb = NULL;

    long long id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!id)
        return 0;
    if ((http_query(req, "from", buf, sizeof buf) && parse_long(buf, 1, 1000000, &rfrom) != ST_OK)) {
        http_problem(req, 400, "from", "from must be a revision number");
        return 0;
    }
    if ((http_query(req, "to", buf, sizeof buf) && parse_long(buf, 1, 1000000, &rto) != ST_OK)) {
        http_problem(req, 400, "to", "to must be a revision number");
        return 0;
    }
    struct db *db = http_db(req);
    enum status st = db_plan_get(db, a.team_id, id, (int)rto, &to, err, sizeof err);
    if (st != ST_OK) {
        http_reply_error(req, st, "plan or revision", err);
        return 0;
    }
    if (!rfrom)
        rfrom = to.revision > 1 ? to.revision - 1 : 1;
    st = db_plan_get(db, a.team_id, id, (int)rfrom, &from, err, sizeof err);
    if (st != ST_OK) {
        db_plan_release(&to);
        http_reply_error(req, st, "plan revision", err);
        return 0;
    }
    wa = cJSON_Parse(from.workload_json);
    wb = cJSON_Parse(to.workload_json);
    ra = cJSON_Parse(from.recommendation_json);
    rb = cJSON_Parse(to.recommendation_json);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "id", (double)id);
    cJSON_AddNumberToObject(doc, "from", from.revision);
    cJSON_AddNumberToObject(doc, "to", to.revision);
    cJSON *fields = cJSON_AddArrayToObject(doc, "fields");
    if (strcmp(from.title, to.title) != 0) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "path", "title");
        cJSON_AddStringToObject(c, "from", from.title);
        cJSON_AddStringToObject(c, "to", to.title);
        cJSON_AddItemToArray(fields, c);
    }
    if (strcmp(from.tier, to.tier) != 0) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "path", "tier");
        cJSON_AddStringToObject(c, "from", from.tier);
        cJSON_AddStringToObject(c, "to", to.tier);
        cJSON_AddItemToArray(fields, c);
    }
    if (strcmp(from.engine_version, to.engine_version) != 0) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "path", "engine_version");
        cJSON_AddStringToObject(c, "from", from.engine_version);
        cJSON_AddStringToObject(c, "to", to.engine_version);
        cJSON_AddItemToArray(fields, c);
    }
    json_diff(wa, wb, cJSON_AddArrayToObject(doc, "workload"), DIFF_MAX);
    cJSON *tiers = cJSON_AddObjectToObject(doc, "chosen_tier");
    cJSON_AddStringToObject(tiers, "from", from.tier);
    cJSON_AddStringToObject(tiers, "to", to.tier);
    json_diff(json_plan_tier(ra, from.tier), json_plan_tier(rb, to.tier), cJSON_AddArrayToObject(tiers, "changes"),
              DIFF_MAX);
    cJSON_Delete(wa);
    cJSON_Delete(wb);
    cJSON_Delete(ra);
    cJSON_Delete(rb);
    db_plan_release(&from);
    db_plan_release(&to);
    http_json(req, 200, doc);
    return 0;
}
