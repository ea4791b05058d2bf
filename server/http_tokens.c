/* http_tokens.c: team API tokens for CI (owner only).
 *
 * A token is "gpp_" and 256 random bits in hex. It is shown once, in the
 * reply that creates it; the database keeps its SHA-256 and a short prefix
 * so a list can tell tokens apart without revealing them. */
#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

#define TOKEN_PREFIX_SHOWN 8 /* "gpp_" and four hex digits */

int http_token_create(struct http_req *req)
{
    static const char *const fields[] = {"name", NULL};
    struct auth a;
    const char *name = NULL;
    char token[80], hash[65], prefix[16], err[256] = "";
    long long id = 0;
    cJSON *body = NULL;

    if (!http_auth(req, AUTH_OWNER, &a))
        return 0;
    if (!(body = http_body_json(req)))
        return 0;
    if (!http_fields_known(req, body, fields) || http_field_string(req, body, "name", 1, 100, &name) < 0)
        goto out;
    enum status st = crypto_token("gpp_", 32, token, sizeof token);
    if (st == ST_OK) {
        crypto_sha256_hex(token, strlen(token), hash);
        snprintf(prefix, sizeof prefix, "%.*s", TOKEN_PREFIX_SHOWN, token);
        st = db_token_insert(http_db(req), a.team_id, name, hash, prefix, a.user_id, (long long)time(NULL), &id,
                             err, sizeof err);
    }
    if (st != ST_OK) {
        http_problem_status(req, st, err);
        goto out;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "id", (double)id);
    cJSON_AddStringToObject(doc, "name", name);
    cJSON_AddStringToObject(doc, "token", token);
    cJSON_AddStringToObject(doc, "prefix", prefix);
    http_json(req, 201, doc);
    crypto_wipe(token, sizeof token);
out:
    cJSON_Delete(body);
    return 0;
}

static int add_token(void *ud, const struct db_token *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)t->id);
    cJSON_AddStringToObject(o, "name", t->name);
    cJSON_AddStringToObject(o, "prefix", t->prefix);
    json_add_time(o, "created_at", t->created_at);
    json_add_time(o, "last_used_at", t->last_used_at);
    json_add_time(o, "revoked_at", t->revoked_at);
    cJSON_AddItemToArray(ud, o);
    return 0;
}

int http_token_list(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    if (!http_auth(req, AUTH_OWNER, &a))
        return 0;
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items");
    enum status st = db_token_list(http_db(req), a.team_id, add_token, items, err, sizeof err);
    http_reply_list(req, doc, st, NULL, err);
    return 0;
}

int http_token_delete(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    long long id = http_auth_id(req, AUTH_OWNER, &a);
    if (!id)
        return 0;
    enum status st = db_token_revoke(http_db(req), a.team_id, id, (long long)time(NULL), err, sizeof err);
    http_reply_deleted(req, st, "token", err);
    return 0;
}
