/* http_auth.c: who is asking. Cookie sessions for people, bearer tokens
 * for CI, and the CSRF rule that ties them together.
 *
 * A session cookie carries 256 random bits; the database holds only their
 * SHA-256, so a copy of the database opens no session. A bearer token is
 * checked the same way: one SHA-256 and one indexed lookup, no PBKDF2, so
 * authenticated requests stay cheap. A browser sends cookies on its own,
 * so any state-changing request that authenticates by cookie must also
 * carry the session's CSRF token in X-CSRF-Token (a page on another origin
 * cannot read it); bearer tokens are never sent by a browser unasked and
 * need no such header. */
#include <civetweb.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "db.h"
#include "server_int.h"

#define SESSION_COOKIE "gpuplan_session"
#define SESSION_TTL_S (7 * 24 * 3600)

void http_client_addr(struct http_req *req, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", req->ri->remote_addr);
}

static int is_write(const char *method)
{
    return strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0 && strcmp(method, "OPTIONS") != 0;
}

static int auth_token(struct http_req *req, unsigned need, const char *value, struct auth *out)
{
    char hash[65], err[256] = "";
    struct db_token t;
    struct db *db = http_db(req);
    enum status st;

    if (!(need & AUTH_TOKEN_OK)) {
        http_problem(req, 403, NULL, "API tokens are accepted only for report uploads and reads; sign in instead");
        return 0;
    }
    if (strncmp(value, "gpp_", 4) != 0 || strlen(value) != 4 + 64) {
        http_problem(req, 401, NULL, "the bearer token is not a gpuplan API token");
        return 0;
    }
    crypto_sha256_hex(value, strlen(value), hash);
    if (!db) {
        http_problem_status(req, ST_DB, "cannot open the database");
        return 0;
    }
    st = db_token_auth(db, hash, (long long)time(NULL), &t, err, sizeof err);
    if (st == ST_NOTFOUND) {
        http_problem(req, 401, NULL, "the API token is unknown or revoked");
        return 0;
    }
    if (st != ST_OK) {
        http_problem_status(req, st, err);
        return 0;
    }
    memset(out, 0, sizeof *out);
    out->team_id = t.team_id;
    out->token_id = t.id;
    snprintf(out->role, sizeof out->role, "token");
    return 1;
}

int http_session_hash(struct http_req *req, char hash[65])
{
    const char *cookies = http_header(req, "Cookie");
    char sid[128] = "";
    if (!cookies || mg_get_cookie(cookies, SESSION_COOKIE, sid, sizeof sid) <= 0)
        return 0;
    crypto_sha256_hex(sid, strlen(sid), hash);
    crypto_wipe(sid, sizeof sid);
    return 1;
}

int http_auth(struct http_req *req, unsigned need, struct auth *out)
{
    const char *authz = http_header(req, "Authorization");
    const char *cookies = http_header(req, "Cookie");
    char sid[128] = "", hash[65], err[256] = "";
    struct db_user u;
    struct db *db;
    enum status st;

    if (authz && *authz) {
        if (strncasecmp(authz, "Bearer ", 7) != 0) {
            http_problem(req, 401, NULL, "the Authorization header must be 'Bearer <token>'");
            return 0;
        }
        char token[128];
        snprintf(token, sizeof token, "%s", authz + 7);
        int ok = auth_token(req, need, token, out);
        crypto_wipe(token, sizeof token);
        return ok;
    }
    if (!cookies || mg_get_cookie(cookies, SESSION_COOKIE, sid, sizeof sid) <= 0) {
        http_problem(req, 401, NULL, "sign in or send an API token");
        return 0;
    }
    crypto_sha256_hex(sid, strlen(sid), hash);
    crypto_wipe(sid, sizeof sid);
    if (!(db = http_db(req))) {
        http_problem_status(req, ST_DB, "cannot open the database");
        return 0;
    }
    memset(out, 0, sizeof *out);
    st = db_session_get(db, hash, (long long)time(NULL), &u, out->csrf, sizeof out->csrf, err, sizeof err);
    if (st == ST_NOTFOUND) {
        http_problem(req, 401, NULL, "the session has expired or was ended; sign in again");
        return 0;
    }
    if (st != ST_OK) {
        http_problem_status(req, st, err);
        return 0;
    }
    if (is_write(req->method)) {
        const char *csrf = http_header(req, "X-CSRF-Token");
        if (!csrf || !crypto_equal_str(csrf, out->csrf)) {
            http_problem(req, 403, "X-CSRF-Token", "a signed-in change needs the X-CSRF-Token header of the session");
            return 0;
        }
    }
    if ((need & AUTH_OWNER) && strcmp(u.role, "owner") != 0) {
        http_problem(req, 403, NULL, "only a team owner may do this");
        return 0;
    }
    out->team_id = u.team_id;
    out->user_id = u.id;
    snprintf(out->role, sizeof out->role, "%s", u.role);
    snprintf(out->email, sizeof out->email, "%s", u.email);
    snprintf(out->team_name, sizeof out->team_name, "%s", u.team_name);
    return 1;
}

enum status http_session_start(struct http_req *req, long long user_id, char *cookie, size_t cookielen,
                               char *csrf, size_t csrflen)
{
    char sid[65], hash[65], err[256] = "";
    long long now = (long long)time(NULL);
    struct db *db = http_db(req);
    enum status st;

    if (!db)
        return ST_DB;
    if ((st = crypto_token("", 32, sid, sizeof sid)) != ST_OK || (st = crypto_token("", 32, csrf, csrflen)) != ST_OK)
        return st;
    crypto_sha256_hex(sid, strlen(sid), hash);
    st = db_session_insert(db, hash, user_id, csrf, now, now + SESSION_TTL_S, err, sizeof err);
    if (st == ST_OK) {
        if (snprintf(cookie, cookielen, "Set-Cookie: %s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Lax%s\r\n",
                     SESSION_COOKIE, sid, SESSION_TTL_S, req->app->secure_cookies ? "; Secure" : "") >=
            (int)cookielen)
            st = ST_INTERNAL;
    } else {
        log_msg(LOG_ERROR, "cannot start session: %s", err);
    }
    crypto_wipe(sid, sizeof sid);
    return st;
}
