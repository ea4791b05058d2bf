/* http_webhooks.c: a team's webhooks and their delivery log.
 *
 * Owners register and remove webhooks; every member can read them and the
 * delivery log. The signing secret is returned once, at creation (it is
 * stored because the sender needs it to sign, but never shown again).
 * Sending happens in webhook.c, never here. Registration refuses what it
 * can judge without DNS: a scheme other than http/https, and a host that is
 * an address literal outside the public internet (unless the server runs
 * with --webhook-allow-private). Host names are judged at delivery, on the
 * addresses they then resolve to (client.c), where rebinding cannot dodge. */
#include <cjson/cJSON.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

static const char *const known_events[] = {"report.fail", "plan.shared", NULL};

static int url_ok(const char *u)
{
    if (strncasecmp(u, "http://", 7) != 0 && strncasecmp(u, "https://", 8) != 0)
        return 0;
    for (const char *p = u; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            return 0;
    return strlen(u) >= 10;
}

static void add_events(cJSON *o, const char *events)
{
    cJSON *arr = cJSON_AddArrayToObject(o, "events");
    for (int i = 0; known_events[i]; i++) {
        size_t n = strlen(known_events[i]);
        for (const char *p = events; (p = strstr(p, known_events[i])) != NULL; p += n) {
            if ((p == events || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) {
                cJSON_AddItemToArray(arr, cJSON_CreateString(known_events[i]));
                break;
            }
        }
    }
}

int http_webhook_create(struct http_req *req)
{
    static const char *const fields[] = {"url", "events", NULL};
    struct auth a;
    const char *url = NULL;
    char events[128] = "", secret[80], err[256] = "";
    long long id = 0, now = (long long)time(NULL);
    cJSON *body = NULL;

    if (!http_auth(req, AUTH_OWNER, &a))
        return 0;
    if (!(body = http_body_json(req)))
        return 0;
    if (!http_fields_known(req, body, fields) || http_field_string(req, body, "url", 1, 2000, &url) < 0)
        goto out;
    if (!url_ok(url)) {
        http_problem(req, 400, "url", "url must be an http:// or https:// URL without spaces");
        goto out;
    }
    enum addr_class cls;
    char host[64];
    if (!req->app->webhook_allow_private && url_host_literal_class(url, &cls, host, sizeof host) &&
        cls != ADDR_PUBLIC) {
        http_problem(req, 400, "url",
                     "url: %s is a %s address; webhooks reach only public addresses unless the server "
                     "runs with --webhook-allow-private", host, addr_class_str(cls));
        goto out;
    }
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(body, "events");
    if (ev && !cJSON_IsNull(ev)) {
        const cJSON *it;
        if (!cJSON_IsArray(ev) || cJSON_GetArraySize(ev) == 0) {
            http_problem(req, 400, "events", "events must be a non-empty list of event names");
            goto out;
        }
        cJSON_ArrayForEach(it, ev)
        {
            int known = 0;
            for (int i = 0; known_events[i] && cJSON_IsString(it); i++)
                known |= strcmp(it->valuestring, known_events[i]) == 0;
            if (!known) {
                http_problem(req, 400, "events", "events: unknown event (known: report.fail, plan.shared)");
                goto out;
            }
            if (!strstr(events, it->valuestring)) {
                size_t l = strlen(events);
                snprintf(events + l, sizeof events - l, "%s%s", l ? "," : "", it->valuestring);
            }
        }
    } else {
        snprintf(events, sizeof events, "report.fail,plan.shared");
    }
    enum status st = crypto_token("whsec_", 32, secret, sizeof secret);
    if (st == ST_OK)
        st = db_webhook_insert(http_db(req), a.team_id, url, secret, events, a.user_id, now, &id, err, sizeof err);
    if (st != ST_OK) {
        crypto_wipe(secret, sizeof secret);
        http_problem_status(req, st, err);
        goto out;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "id", (double)id);
    cJSON_AddStringToObject(doc, "url", url);
    add_events(doc, events);
    cJSON_AddStringToObject(doc, "secret", secret);
    json_add_time(doc, "created_at", now);
    http_json(req, 201, doc);
    crypto_wipe(secret, sizeof secret);
out:
    cJSON_Delete(body);
    return 0;
}

static int add_webhook(void *ud, const struct db_webhook *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)w->id);
    cJSON_AddStringToObject(o, "url", w->url);
    add_events(o, w->events);
    json_add_time(o, "created_at", w->created_at);
    cJSON_AddItemToArray(ud, o);
    return 0;
}

int http_webhook_list(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    if (!http_auth(req, AUTH_MEMBER, &a))
        return 0;
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items");
    enum status st = db_webhook_list(http_db(req), a.team_id, add_webhook, items, err, sizeof err);
    http_reply_list(req, doc, st, NULL, err);
    return 0;
}

int http_webhook_delete(struct http_req *req)
{
    return http_delete_team_row(req, AUTH_OWNER, db_webhook_delete, "webhook");
}

static int add_delivery(void *ud, const struct db_delivery *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)d->id);
    cJSON_AddStringToObject(o, "event", d->event);
    cJSON_AddStringToObject(o, "state", d->state);
    cJSON_AddNumberToObject(o, "attempts", d->attempts);
    if (d->last_status)
        cJSON_AddNumberToObject(o, "last_status", d->last_status);
    else
        cJSON_AddNullToObject(o, "last_status");
    if (d->last_error[0])
        cJSON_AddStringToObject(o, "last_error", d->last_error);
    else
        cJSON_AddNullToObject(o, "last_error");
    json_add_time(o, "created_at", d->created_at);
    json_add_time(o, "next_attempt_at", strcmp(d->state, "pending") == 0 ? d->next_attempt_at : 0);
    json_add_time(o, "delivered_at", d->delivered_at);
    cJSON_AddItemToArray(ud, o);
    return 0;
}

int http_webhook_deliveries(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    long long id = http_auth_id(req, AUTH_MEMBER, &a);
    if (!id)
        return 0;
    struct db *db = http_db(req);
    enum status st = db ? db_webhook_exists(db, a.team_id, id, err, sizeof err) : ST_DB;
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items");
    if (st == ST_OK)
        st = db_delivery_list(db, a.team_id, id, 100, add_delivery, items, err, sizeof err);
    http_reply_list(req, doc, st, "webhook", err);
    return 0;
}
