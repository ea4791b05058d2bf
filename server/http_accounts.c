/* http_accounts.c: team sign-up, sign-in and sign-out, invites, the team
 * and its members.
 *
 * PBKDF2 runs only here (sign-up, invite acceptance, sign-in), never on
 * ordinary requests. Sign-in is rate limited per account and per client
 * address by counting recent failures in the database (so limits hold
 * across worker threads and restarts) before any hashing happens (the
 * limits are serve flags, 5 and 30 per 15 minutes by default); an
 * unknown account spends the same hashing time as a wrong password so
 * answers do not reveal which emails exist. Creating accounts (sign-up,
 * invite acceptance) hashes too, so it is limited per address as well. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

#define PASSWORD_MIN 12
#define PASSWORD_MAX 1024
#define LOGIN_WINDOW_S (15 * 60)
#define SIGNUP_MAX_PER_ADDRESS 10
#define INVITE_DAYS_DEFAULT 7
#define INVITE_DAYS_MAX 30

static cJSON *account_doc(const struct db_user *u, const char *csrf)
{
    cJSON *doc = cJSON_CreateObject(), *team = cJSON_AddObjectToObject(doc, "team"),
          *user = cJSON_AddObjectToObject(doc, "user");
    cJSON_AddNumberToObject(team, "id", (double)u->team_id);
    cJSON_AddStringToObject(team, "name", u->team_name);
    cJSON_AddNumberToObject(user, "id", (double)u->id);
    cJSON_AddStringToObject(user, "email", u->email);
    cJSON_AddStringToObject(user, "role", u->role);
    if (csrf)
        cJSON_AddStringToObject(doc, "csrf_token", csrf);
    return doc;
}

/* Lower-cases and checks an email address into out; 0 after answering 400. */
static int email_normalize(struct http_req *req, const char *in, char *out, size_t outlen)
{
    size_t n = strlen(in);
    const char *at = strchr(in, '@');
    if (n < 3 || n >= outlen || n > 254 || !at || at == in || !at[1] || strchr(at + 1, '@')) {
        http_problem(req, 400, "email", "email must look like name@domain");
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c <= 0x20 || c == 0x7f) {
            http_problem(req, 400, "email", "email must not contain spaces or control characters");
            return 0;
        }
        out[i] = (char)tolower(c);
    }
    out[n] = '\0';
    return 1;
}

static int password_check(struct http_req *req, const char *pw)
{
    size_t n = strlen(pw);
    if (n < PASSWORD_MIN || n > PASSWORD_MAX) {
        http_problem(req, 400, "password", "password must be %d to %d characters long", PASSWORD_MIN, PASSWORD_MAX);
        return 0;
    }
    return 1;
}

/* Starts a session for u and answers status with the account document. */
static void answer_with_session(struct http_req *req, int status, const struct db_user *u)
{
    char cookie[300], csrf[65];
    enum status st = http_session_start(req, u->id, cookie, sizeof cookie, csrf, sizeof csrf);
    if (st != ST_OK) {
        http_problem_status(req, st, "cannot start a session");
        return;
    }
    http_json_with(req, status, cookie, account_doc(u, csrf));
    crypto_wipe(cookie, sizeof cookie);
}

/* Counts an account creation from this address; 0 after answering 429 (or 503). */
static int creation_allowed(struct http_req *req, struct db *db)
{
    char addr[64], subject[80], err[256] = "";
    int n = 0;
    long long now = (long long)time(NULL);
    http_client_addr(req, addr, sizeof addr);
    snprintf(subject, sizeof subject, "signup:%s", addr);
    if (db_login_failure_count(db, subject, now - LOGIN_WINDOW_S, &n, err, sizeof err) != ST_OK ||
        (n < SIGNUP_MAX_PER_ADDRESS && db_login_failure_add(db, subject, now, err, sizeof err) != ST_OK)) {
        http_problem_status(req, ST_DB, err);
        return 0;
    }
    if (n >= SIGNUP_MAX_PER_ADDRESS) {
        char retry[64];
        snprintf(retry, sizeof retry, "Retry-After: %d\r\n", LOGIN_WINDOW_S);
        http_problem_headers(req, 429, retry, "too many accounts created from this address; try again later");
        return 0;
    }
    return 1;
}

int http_team_create(struct http_req *req)
{
    static const char *const fields[] = {"team", "email", "password", NULL};
    const char *team = NULL, *email_in = NULL, *pw = NULL;
    char email[256], hash[CRYPTO_PASSWORD_HASH_MAX], err[256] = "";
    struct db_user u;
    cJSON *body = NULL;
    struct db *db;
    enum status st;

    if (!req->app->signup_open) {
        http_problem(req, 403, NULL, "sign-up is closed on this server; ask a team owner for an invite");
        return 0;
    }
    if (!(body = http_body_json(req)))
        return 0;
    if (!http_fields_known(req, body, fields) || http_field_string(req, body, "team", 1, 200, &team) < 0 ||
        http_field_string(req, body, "email", 1, 254, &email_in) < 0 ||
        http_field_string(req, body, "password", 1, PASSWORD_MAX, &pw) < 0 ||
        !email_normalize(req, email_in, email, sizeof email) || !password_check(req, pw))
        goto out;
    if (!(db = http_db(req))) {
        http_problem_status(req, ST_DB, "cannot open the database");
        goto out;
    }
    if (!creation_allowed(req, db))
        goto out;
    st = crypto_password_hash(pw, CRYPTO_PBKDF2_ITERATIONS, hash, sizeof hash);
    if (st == ST_OK)
        st = db_team_create(db, team, email, hash, (long long)time(NULL), &u, err, sizeof err);
    crypto_wipe(hash, sizeof hash);
    if (st == ST_CONFLICT)
        http_problem(req, 409, "email", "an account with this email already exists");
    else if (st != ST_OK)
        http_problem_status(req, st, err);
    else
        answer_with_session(req, 201, &u);
out:
    if (pw)
        crypto_wipe((char *)pw, strlen(pw));
    if (req->body) /* the raw JSON held the password too */
        crypto_wipe(req->body, req->body_len);
    cJSON_Delete(body);
    return 0;
}

static int over_limit(struct db *db, const char *subject, int max, int *over, char *err, size_t errlen)
{
    int n = 0;
    if (db_login_failure_count(db, subject, (long long)time(NULL) - LOGIN_WINDOW_S, &n, err, errlen) != ST_OK)
        return -1;
    *over = n >= max;
    return 0;
}

int http_session_create(struct http_req *req)
{
    static const char *const fields[] = {"email", "password", NULL};
    const char *email_in = NULL, *pw = NULL;
    char email[256], addr[64], subj_email[300], subj_addr[80], stored[CRYPTO_PASSWORD_HASH_MAX] = "",
         err[256] = "";
    struct db_user u;
    cJSON *body = NULL;
    struct db *db;
    int over_email = 0, over_addr = 0;
    enum status st;

    if (!(body = http_body_json(req)))
        return 0;
    if (!http_fields_known(req, body, fields) || http_field_string(req, body, "email", 1, 254, &email_in) < 0 ||
        http_field_string(req, body, "password", 1, PASSWORD_MAX, &pw) < 0 ||
        !email_normalize(req, email_in, email, sizeof email))
        goto out;
    if (!(db = http_db(req))) {
        http_problem_status(req, ST_DB, "cannot open the database");
        goto out;
    }
    http_client_addr(req, addr, sizeof addr);
    snprintf(subj_email, sizeof subj_email, "email:%s", email);
    snprintf(subj_addr, sizeof subj_addr, "ip:%s", addr);
    if (over_limit(db, subj_email, req->app->login_max_account, &over_email, err, sizeof err) != 0 ||
        over_limit(db, subj_addr, req->app->login_max_address, &over_addr, err, sizeof err) != 0) {
        http_problem_status(req, ST_DB, err);
        goto out;
    }
    if (over_email || over_addr) {
        char retry[64];
        snprintf(retry, sizeof retry, "Retry-After: %d\r\n", LOGIN_WINDOW_S);
        http_problem_headers(req, 429, retry, "%s",
                             over_email ? "too many failed sign-ins for this account; try again later"
                                        : "too many failed sign-ins from this address; try again later");
        goto out;
    }
    st = db_user_by_email(db, email, &u, stored, sizeof stored, err, sizeof err);
    if (st != ST_OK && st != ST_NOTFOUND) {
        http_problem_status(req, st, err);
        goto out;
    }
    int ok = 0;
    if (st == ST_OK)
        ok = crypto_password_verify(pw, stored);
    else
        crypto_password_burn(pw);
    crypto_wipe(stored, sizeof stored);
    if (!ok) {
        long long now = (long long)time(NULL);
        if (db_login_failure_add(db, subj_email, now, err, sizeof err) != ST_OK ||
            db_login_failure_add(db, subj_addr, now, err, sizeof err) != ST_OK)
            log_msg(LOG_ERROR, "cannot record a failed sign-in: %s", err);
        http_problem(req, 401, NULL, "wrong email or password");
        goto out;
    }
    db_login_failure_clear(db, subj_email, err, sizeof err);
    answer_with_session(req, 200, &u);
out:
    if (pw)
        crypto_wipe((char *)pw, strlen(pw));
    if (req->body) /* the raw JSON held the password too */
        crypto_wipe(req->body, req->body_len);
    cJSON_Delete(body);
    return 0;
}

int http_session_get(struct http_req *req)
{
    struct auth a;
    if (!http_auth(req, AUTH_MEMBER, &a))
        return 0;
    struct db_user u;
    memset(&u, 0, sizeof u);
    u.id = a.user_id;
    u.team_id = a.team_id;
    snprintf(u.email, sizeof u.email, "%s", a.email);
    snprintf(u.role, sizeof u.role, "%s", a.role);
    snprintf(u.team_name, sizeof u.team_name, "%s", a.team_name);
    http_json(req, 200, account_doc(&u, a.csrf));
    return 0;
}

int http_session_delete(struct http_req *req)
{
    struct auth a;
    char hash[65], err[256] = "", clear[200];
    if (!http_auth(req, AUTH_MEMBER, &a))
        return 0;
    if (http_session_hash(req, hash)) {
        enum status st = db_session_delete(http_db(req), hash, err, sizeof err);
        if (st != ST_OK) {
            http_problem_status(req, st, err);
            return 0;
        }
    }
    snprintf(clear, sizeof clear, "Set-Cookie: gpuplan_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax%s\r\n",
             req->app->secure_cookies ? "; Secure" : "");
    http_send(req, 204, "application/json", clear, NULL, 0);
    return 0;
}

static int add_member(void *ud, const struct db_user *u)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)u->id);
    cJSON_AddStringToObject(o, "email", u->email);
    cJSON_AddStringToObject(o, "role", u->role);
    json_add_time(o, "created_at", u->created_at);
    cJSON_AddItemToArray(ud, o);
    return 0;
}

int http_team_get(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    if (!http_auth(req, AUTH_MEMBER, &a))
        return 0;
    cJSON *doc = cJSON_CreateObject(), *team = cJSON_AddObjectToObject(doc, "team");
    cJSON_AddNumberToObject(team, "id", (double)a.team_id);
    cJSON_AddStringToObject(team, "name", a.team_name);
    cJSON *members = cJSON_AddArrayToObject(doc, "members");
    enum status st = db_team_members(http_db(req), a.team_id, add_member, members, err, sizeof err);
    http_reply_list(req, doc, st, NULL, err);
    return 0;
}

int http_member_delete(struct http_req *req)
{
    return http_delete_team_row(req, AUTH_OWNER, db_user_delete, "member");
}

int http_invite_create(struct http_req *req)
{
    static const char *const fields[] = {"role", "expires_days", NULL};
    struct auth a;
    const char *role = "member";
    long days = INVITE_DAYS_DEFAULT;
    char token[80], hash[65], err[256] = "", url[128];
    long long id = 0, now = (long long)time(NULL);
    cJSON *body = NULL;

    if (!http_auth(req, AUTH_OWNER, &a))
        return 0;
    if (!(body = http_body_json(req)))
        return 0;
    if (!http_fields_known(req, body, fields) || http_field_string(req, body, "role", 0, 8, &role) < 0 ||
        http_field_long(req, body, "expires_days", 0, 1, INVITE_DAYS_MAX, &days) < 0)
        goto out;
    if (strcmp(role, "member") != 0 && strcmp(role, "owner") != 0) {
        http_problem(req, 400, "role", "role must be member or owner");
        goto out;
    }
    enum status st = crypto_token("gpi_", 32, token, sizeof token);
    if (st == ST_OK) {
        crypto_sha256_hex(token, strlen(token), hash);
        st = db_invite_insert(http_db(req), a.team_id, hash, role, a.user_id, now, now + days * 86400, &id, err,
                              sizeof err);
    }
    if (st != ST_OK) {
        http_problem_status(req, st, err);
        goto out;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "id", (double)id);
    cJSON_AddStringToObject(doc, "token", token);
    snprintf(url, sizeof url, "/#/join/%s", token);
    cJSON_AddStringToObject(doc, "url", url);
    cJSON_AddStringToObject(doc, "role", role);
    json_add_time(doc, "expires_at", now + days * 86400);
    http_json(req, 201, doc);
    crypto_wipe(token, sizeof token);
    crypto_wipe(url, sizeof url);
out:
    cJSON_Delete(body);
    return 0;
}

static int add_invite(void *ud, const struct db_invite *i)
{
    long long now = (long long)time(NULL);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)i->id);
    cJSON_AddStringToObject(o, "role", i->role);
    json_add_time(o, "created_at", i->created_at);
    json_add_time(o, "expires_at", i->expires_at);
    json_add_time(o, "used_at", i->used_at);
    if (i->used_by_email[0])
        cJSON_AddStringToObject(o, "used_by", i->used_by_email);
    else
        cJSON_AddNullToObject(o, "used_by");
    cJSON_AddStringToObject(o, "state", i->used_at ? "used" : i->expires_at <= now ? "expired" : "open");
    cJSON_AddItemToArray(ud, o);
    return 0;
}

int http_invite_list(struct http_req *req)
{
    struct auth a;
    char err[256] = "";
    if (!http_auth(req, AUTH_OWNER, &a))
        return 0;
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items");
    enum status st = db_invite_list(http_db(req), a.team_id, add_invite, items, err, sizeof err);
    http_reply_list(req, doc, st, NULL, err);
    return 0;
}

int http_invite_delete(struct http_req *req)
{
    return http_delete_team_row(req, AUTH_OWNER, db_invite_delete, "invite");
}

int http_invite_accept(struct http_req *req)
{
    static const char *const fields[] = {"token", "email", "password", NULL};
    const char *token = NULL, *email_in = NULL, *pw = NULL;
    char email[256], hash[CRYPTO_PASSWORD_HASH_MAX], token_hash[65], err[256] = "";
    struct db_user u;
    cJSON *body = NULL;
    struct db *db;
    enum status st;

    if (!(body = http_body_json(req)))
        return 0;
    if (!http_fields_known(req, body, fields) || http_field_string(req, body, "token", 1, 100, &token) < 0 ||
        http_field_string(req, body, "email", 1, 254, &email_in) < 0 ||
        http_field_string(req, body, "password", 1, PASSWORD_MAX, &pw) < 0 ||
        !email_normalize(req, email_in, email, sizeof email) || !password_check(req, pw))
        goto out;
    if (!(db = http_db(req))) {
        http_problem_status(req, ST_DB, "cannot open the database");
        goto out;
    }
    crypto_sha256_hex(token, strlen(token), token_hash);
    /* Refuse a bad token before spending hashing time on it. */
    st = db_invite_check(db, token_hash, (long long)time(NULL), err, sizeof err);
    if (st == ST_OK && !creation_allowed(req, db))
        goto out;
    if (st == ST_OK)
        st = crypto_password_hash(pw, CRYPTO_PBKDF2_ITERATIONS, hash, sizeof hash);
    if (st == ST_OK)
        st = db_invite_accept(db, token_hash, email, hash, (long long)time(NULL), &u, err, sizeof err);
    crypto_wipe(hash, sizeof hash);
    if (st == ST_NOTFOUND)
        http_problem(req, 404, "token", "no such invite");
    else if (st == ST_GONE)
        http_problem(req, 410, "token", "the invite was already used or has expired");
    else if (st == ST_CONFLICT)
        http_problem(req, 409, "email", "an account with this email already exists");
    else if (st != ST_OK)
        http_problem_status(req, st, err);
    else
        answer_with_session(req, 201, &u);
out:
    if (pw)
        crypto_wipe((char *)pw, strlen(pw));
    if (req->body) /* the raw JSON held the password too */
        crypto_wipe(req->body, req->body_len);
    if (token)
        crypto_wipe((char *)token, strlen(token));
    cJSON_Delete(body);
    return 0;
}
