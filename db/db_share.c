/* db_share.c: read-only share links for procurement.
 *
 * Only the SHA-256 of a share token is stored. A lookup by token returns
 * the share whether live, revoked or expired, so the page can answer 410
 * Gone for a link that once worked and 404 for one that never did. */
#include <string.h>

#include "db_int.h"

#define SHARE_COLUMNS "id, plan_id, team_id, created_by, created_at, expires_at, revoked_at"

static void read_share(sqlite3_stmt *st, struct db_share *s)
{
    memset(s, 0, sizeof *s);
    s->id = sqlite3_column_int64(st, 0);
    s->plan_id = sqlite3_column_int64(st, 1);
    s->team_id = sqlite3_column_int64(st, 2);
    s->created_by = sqlite3_column_int64(st, 3);
    s->created_at = sqlite3_column_int64(st, 4);
    s->expires_at = sqlite3_column_int64(st, 5);
    s->revoked_at = sqlite3_column_int64(st, 6);
}

enum status db_share_insert(struct db *db, long long team_id, long long plan_id, const char *token_hash,
                            long long created_by, long long now, long long expires_at, long long *id,
                            char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    /* The SELECT makes the insert itself prove the plan belongs to the team. */
    enum status rc = db_prepare(db,
                                "INSERT INTO shares (plan_id, team_id, token_hash, created_by, created_at, expires_at) "
                                "SELECT id, team_id, ?, ?, ?, ? FROM plans WHERE id = ? AND team_id = ? RETURNING id",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, token_hash);
    db_bind_id(st, 2, created_by);
    sqlite3_bind_int64(st, 3, now);
    sqlite3_bind_int64(st, 4, expires_at);
    sqlite3_bind_int64(st, 5, plan_id);
    sqlite3_bind_int64(st, 6, team_id);
    return db_step_id(db, st, "cannot insert share", id, err, errlen);
}

enum status db_share_list(struct db *db, long long team_id, long long plan_id,
                          int (*fn)(void *ud, const struct db_share *s), void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    struct db_share s;
    enum status rc = db_prepare(db,
                                "SELECT " SHARE_COLUMNS " FROM shares WHERE plan_id = ? AND team_id = ? ORDER BY id DESC",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, plan_id);
    sqlite3_bind_int64(st, 2, team_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        read_share(st, &s);
        if (fn(ud, &s) != 0)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot list shares", err, errlen);
}

enum status db_share_revoke(struct db *db, long long team_id, long long share_id, long long now,
                            char *err, size_t errlen)
{
    const long long args[] = {now, share_id, team_id};
    return db_write_ints(db, "UPDATE shares SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND team_id = ?",
                         args, 3, 1, "cannot revoke share", err, errlen);
}

enum status db_share_by_token(struct db *db, const char *token_hash, struct db_share *out, char *err,
                              size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "SELECT " SHARE_COLUMNS " FROM shares WHERE token_hash = ?", &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, token_hash);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        read_share(st, out);
    else
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read share", err, errlen);
    db_finish(db, st);
    return rc;
}
