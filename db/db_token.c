/* db_token.c: team API tokens for CI.
 *
 * The table holds the SHA-256 of each token, never the token. Looking one
 * up is a single indexed equality match on that hash (the UNIQUE index), so
 * authenticating a CI request costs one hash and one B-tree probe; the
 * last-used time is written at most once a minute per token. */
#include <string.h>

#include "db_int.h"

#define TOKEN_COLUMNS "id, team_id, name, prefix, created_by, created_at, last_used_at, revoked_at"

static void read_token(sqlite3_stmt *st, struct db_token *t)
{
    memset(t, 0, sizeof *t);
    t->id = sqlite3_column_int64(st, 0);
    t->team_id = sqlite3_column_int64(st, 1);
    db_column_copy(st, 2, t->name, sizeof t->name);
    db_column_copy(st, 3, t->prefix, sizeof t->prefix);
    t->created_by = sqlite3_column_int64(st, 4);
    t->created_at = sqlite3_column_int64(st, 5);
    t->last_used_at = sqlite3_column_int64(st, 6);
    t->revoked_at = sqlite3_column_int64(st, 7);
}

enum status db_token_insert(struct db *db, long long team_id, const char *name, const char *token_hash,
                            const char *prefix, long long created_by, long long now, long long *id,
                            char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "INSERT INTO api_tokens (team_id, name, token_hash, prefix, created_by, created_at) "
                                "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, team_id);
    db_bind_text(st, 2, name);
    db_bind_text(st, 3, token_hash);
    db_bind_text(st, 4, prefix);
    db_bind_id(st, 5, created_by);
    sqlite3_bind_int64(st, 6, now);
    return db_step_id(db, st, "cannot insert token", id, err, errlen);
}

enum status db_token_list(struct db *db, long long team_id, int (*fn)(void *ud, const struct db_token *t),
                          void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    struct db_token t;
    enum status rc = db_prepare(db, "SELECT " TOKEN_COLUMNS " FROM api_tokens WHERE team_id = ? ORDER BY id DESC",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, team_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        read_token(st, &t);
        if (fn(ud, &t) != 0)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot list tokens", err, errlen);
}

enum status db_token_revoke(struct db *db, long long team_id, long long token_id, long long now,
                            char *err, size_t errlen)
{
    const long long args[] = {now, token_id, team_id};
    return db_write_ints(db, "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND team_id = ? AND revoked_at IS NULL",
                         args, 3, 1, "cannot revoke token", err, errlen);
}

enum status db_token_auth(struct db *db, const char *token_hash, long long now, struct db_token *out,
                          char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " TOKEN_COLUMNS " FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, token_hash);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        read_token(st, out);
    else
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read token", err, errlen);
    db_finish(db, st);
    st = NULL;
    if (rc != ST_OK || out->last_used_at > now - 60)
        return rc;
    if (db_prepare(db, "UPDATE api_tokens SET last_used_at = ? WHERE id = ?", &st, err, errlen) == ST_OK) {
        sqlite3_bind_int64(st, 1, now);
        sqlite3_bind_int64(st, 2, out->id);
        /* A failed bookkeeping write must not refuse a valid token. */
        if (db_step_done(db, st, "cannot record token use", err, errlen) == ST_OK)
            out->last_used_at = now;
        db_finish(db, st);
    }
    return ST_OK;
}
