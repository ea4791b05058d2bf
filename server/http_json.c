/* http_json.c: the small helpers handlers use to read JSON requests and
 * path parameters and to write JSON replies.
 *
 * Every refusal answers 400 with the offending field named, so handlers
 * read as a list of fields and never format errors themselves. Numbers are
 * checked to be integral and within range before use; strings are checked
 * for length (the database has matching CHECK constraints). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

cJSON *http_body_json(struct http_req *req)
{
    const char *type = http_header(req, "Content-Type");
    if (type && strncasecmp(type, "application/json", 16) != 0) {
        http_problem(req, 415, NULL, "expected Content-Type: application/json");
        return NULL;
    }
    if (!http_body(req, req->app->json_limit))
        return NULL;
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(req->body, req->body_len, &end, 0);
    if (!doc) {
        http_problem(req, 400, NULL, "the body is not valid JSON");
        return NULL;
    }
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        http_problem(req, 400, NULL, "the body must be a JSON object");
        return NULL;
    }
    return doc;
}

int http_fields_known(struct http_req *req, const cJSON *obj, const char *const *allowed)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        int ok = 0;
        for (int i = 0; allowed[i] && !ok; i++)
            ok = it->string && strcmp(it->string, allowed[i]) == 0;
        if (!ok) {
            http_problem(req, 400, it->string ? it->string : "", "unknown field '%.64s'",
                         it->string ? it->string : "");
            return 0;
        }
    }
    return 1;
}

int http_field_string(struct http_req *req, const cJSON *obj, const char *name, int required, size_t maxlen,
                      const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v || cJSON_IsNull(v)) {
        if (!required)
            return 0;
        http_problem(req, 400, name, "%s is required", name);
        return -1;
    }
    if (!cJSON_IsString(v) || !v->valuestring) {
        http_problem(req, 400, name, "%s must be a string", name);
        return -1;
    }
    size_t n = strlen(v->valuestring);
    if (n == 0 || n > maxlen) {
        http_problem(req, 400, name, "%s must be 1 to %zu bytes long", name, maxlen);
        return -1;
    }
    *out = v->valuestring;
    return 1;
}

int http_field_long(struct http_req *req, const cJSON *obj, const char *name, int required, long lo, long hi,
                    long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v || cJSON_IsNull(v)) {
        if (!required)
            return 0;
        http_problem(req, 400, name, "%s is required", name);
        return -1;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || floor(v->valuedouble) != v->valuedouble ||
        v->valuedouble < (double)lo || v->valuedouble > (double)hi) {
        http_problem(req, 400, name, "%s must be a whole number from %ld to %ld", name, lo, hi);
        return -1;
    }
    *out = (long)v->valuedouble;
    return 1;
}

long long http_param_id(struct http_req *req, int index)
{
    long v = 0;
    if (index >= req->nparams || parse_long(req->params[index], 1, 1L << 53, &v) != ST_OK) {
        http_problem(req, 404, NULL, "no such object");
        return 0;
    }
    return v;
}

void http_json_with(struct http_req *req, int status, const char *extra_headers, cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    char headers[1024];
    cJSON_Delete(doc);
    if (!text) {
        http_problem(req, 500, NULL, "cannot encode the response");
        return;
    }
    snprintf(headers, sizeof headers, "Cache-Control: no-store\r\n%s", extra_headers ? extra_headers : "");
    http_send(req, status, "application/json", headers, text, strlen(text));
    cJSON_free(text);
}

long long http_auth_id(struct http_req *req, unsigned need, struct auth *a)
{
    return http_auth(req, need, a) ? http_param_id(req, 0) : 0;
}

void http_reply_error(struct http_req *req, enum status st, const char *what, const char *err)
{
    if (st == ST_NOTFOUND && what)
        http_problem(req, 404, NULL, "no such %s", what);
    else
        http_problem_status(req, st, err);
}

void http_reply_list(struct http_req *req, cJSON *doc, enum status st, const char *what, const char *err)
{
    if (st == ST_OK) {
        http_json(req, 200, doc);
        return;
    }
    cJSON_Delete(doc);
    http_reply_error(req, st, what, err);
}

void http_list_next(cJSON *doc, int more, long long last_id)
{
    if (more) {
        char next[32];
        snprintf(next, sizeof next, "%lld", last_id);
        cJSON_AddStringToObject(doc, "next", next);
    } else {
        cJSON_AddNullToObject(doc, "next");
    }
}

void http_reply_deleted(struct http_req *req, enum status st, const char *what, const char *err)
{
    if (st == ST_OK)
        http_send(req, 204, "application/json", NULL, NULL, 0);
    else
        http_reply_error(req, st, what, err);
}

int http_delete_team_row(struct http_req *req, unsigned need, http_team_row_delete_fn del, const char *what)
{
    struct auth a;
    char err[256] = "";
    long long id = http_auth_id(req, need, &a);
    if (!id)
        return 0;
    http_reply_deleted(req, del(http_db(req), a.team_id, id, err, sizeof err), what, err);
    return 0;
}

int http_plan_owned(struct http_req *req, struct db *db, long long team_id, long long plan_id)
{
    char err[256] = "";
    enum status st = db ? db_plan_exists(db, team_id, plan_id, err, sizeof err) : ST_DB;
    if (st != ST_OK)
        http_reply_error(req, st, "plan", db ? err : "cannot open the database");
    return st == ST_OK;
}

void json_add_time(cJSON *obj, const char *name, long long t)
{
    char buf[32];
    struct tm tm;
    time_t tt = (time_t)t;
    if (!t || !gmtime_r(&tt, &tm) || !strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm)) {
        cJSON_AddNullToObject(obj, name);
        return;
    }
    cJSON_AddStringToObject(obj, name, buf);
}
