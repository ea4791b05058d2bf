/* db_team.c: teams, users, sessions, invites and failed-login records.
 *
 * Only hashes of secrets reach these tables: the caller hashes session ids
 * and invite tokens (SHA-256) and passwords (PBKDF2) before calling, so
 * this file never holds a secret it could leak. Writes that span several
 * rows (a team and its owner, an invite and the user it creates) run in one
 * transaction so a crash never leaves half of them. */
#include <stdio.h>
#include <string.h>

#include "db_int.h"

static void read_user(sqlite3_stmt *st, struct db_user *u)
{
    /* Column order of every user query: id, team_id, email, role, team name, created_at. */
    memset(u, 0, sizeof *u);
    u->id = sqlite3_column_int64(st, 0);
    u->team_id = sqlite3_column_int64(st, 1);
    db_column_copy(st, 2, u->email, sizeof u->email);
    db_column_copy(st, 3, u->role, sizeof u->role);
    db_column_copy(st, 4, u->team_name, sizeof u->team_name);
    u->created_at = sqlite3_column_int64(st, 5);
}

#define USER_COLUMNS "u.id, u.team_id, u.email, u.role, t.name, u.created_at"

static enum status user_insert(struct db *db, long long team_id, const char *email, const char *hash,
                               const char *role, long long now, long long *id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "INSERT INTO users (team_id, email, password_hash, role, created_at) "
                                "VALUES (?, ?, ?, ?, ?) RETURNING id",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, team_id);
    db_bind_text(st, 2, email);
    db_bind_text(st, 3, hash);
    db_bind_text(st, 4, role);
    sqlite3_bind_int64(st, 5, now);
    rc = db_step_id(db, st, "cannot insert user", id, err, errlen);
    if (rc == ST_CONFLICT)
        snprintf(err, errlen, "email: an account with this email already exists");
    return rc;
}

static enum status user_by_id(struct db *db, long long id, struct db_user *out, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " USER_COLUMNS " FROM users u JOIN teams t ON t.id = u.team_id "
                                "WHERE u.id = ?",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        read_user(st, out);
    else
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read user", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_team_create(struct db *db, const char *team_name, const char *email, const char *password_hash,
                           long long now, struct db_user *out, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    long long team_id = 0, user_id = 0;
    int owned;
    enum status rc = db_tx_enter(db, &owned, err, errlen);
    if (rc != ST_OK)
        return rc;
    if ((rc = db_prepare(db, "INSERT INTO teams (name, created_at) VALUES (?, ?) RETURNING id", &st, err,
                         errlen)) != ST_OK)
        goto out;
    db_bind_text(st, 1, team_name);
    sqlite3_bind_int64(st, 2, now);
    rc = db_step_id(db, st, "cannot insert team", &team_id, err, errlen);
    st = NULL;
    if (rc != ST_OK)
        goto out;
    if ((rc = user_insert(db, team_id, email, password_hash, "owner", now, &user_id, err, errlen)) != ST_OK)
        goto out;
    rc = user_by_id(db, user_id, out, err, errlen);
out:
    db_finish(db, st);
    return db_tx_leave(db, owned, rc, err, errlen);
}

enum status db_user_by_email(struct db *db, const char *email, struct db_user *out, char *hash, size_t hashlen,
                             char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " USER_COLUMNS ", u.password_hash FROM users u "
                                "JOIN teams t ON t.id = u.team_id WHERE u.email = ?",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, email);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        read_user(st, out);
        db_column_copy(st, 6, hash, hashlen);
    } else {
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read user", err, errlen);
    }
    db_finish(db, st);
    return rc;
}

enum status db_team_members(struct db *db, long long team_id,
                            int (*fn)(void *ud, const struct db_user *u), void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    struct db_user u;
    enum status rc = db_prepare(db,
                                "SELECT " USER_COLUMNS " FROM users u JOIN teams t ON t.id = u.team_id "
                                "WHERE u.team_id = ? ORDER BY u.id",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, team_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        read_user(st, &u);
        if (fn(ud, &u) != 0)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot list members", err, errlen);
}

enum status db_user_delete(struct db *db, long long team_id, long long user_id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    struct db_user u;
    int owned, owners = 0;
    enum status rc = db_tx_enter(db, &owned, err, errlen);
    if (rc != ST_OK)
        return rc;
    if ((rc = user_by_id(db, user_id, &u, err, errlen)) != ST_OK)
        goto out;
    if (u.team_id != team_id) {
        rc = ST_NOTFOUND;
        goto out;
    }
    if (strcmp(u.role, "owner") == 0) {
        if ((rc = db_prepare(db, "SELECT count(*) FROM users WHERE team_id = ? AND role = 'owner'", &st, err,
                             errlen)) != ST_OK)
            goto out;
        sqlite3_bind_int64(st, 1, team_id);
        if (sqlite3_step(st) == SQLITE_ROW)
            owners = sqlite3_column_int(st, 0);
        db_finish(db, st);
        st = NULL;
        if (owners <= 1) {
            snprintf(err, errlen, "a team keeps at least one owner");
            rc = ST_CONFLICT;
            goto out;
        }
    }
    if ((rc = db_prepare(db, "DELETE FROM users WHERE id = ? AND team_id = ?", &st, err, errlen)) != ST_OK)
        goto out;
    sqlite3_bind_int64(st, 1, user_id);
    sqlite3_bind_int64(st, 2, team_id);
    rc = db_step_done(db, st, "cannot delete user", err, errlen);
out:
    db_finish(db, st);
    return db_tx_leave(db, owned, rc, err, errlen);
}

enum status db_session_insert(struct db *db, const char *id_hash, long long user_id, const char *csrf_token,
                              long long now, long long expires_at, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, expires_at) "
                                "VALUES (?, ?, ?, ?, ?)",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, id_hash);
    sqlite3_bind_int64(st, 2, user_id);
    db_bind_text(st, 3, csrf_token);
    sqlite3_bind_int64(st, 4, now);
    sqlite3_bind_int64(st, 5, expires_at);
    rc = db_step_done(db, st, "cannot insert session", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_session_get(struct db *db, const char *id_hash, long long now, struct db_user *out,
                           char *csrf, size_t csrflen, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " USER_COLUMNS ", s.csrf_token FROM sessions s "
                                "JOIN users u ON u.id = s.user_id JOIN teams t ON t.id = u.team_id "
                                "WHERE s.id_hash = ? AND s.expires_at > ?",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, id_hash);
    sqlite3_bind_int64(st, 2, now);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        read_user(st, out);
        db_column_copy(st, 6, csrf, csrflen);
    } else {
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read session", err, errlen);
    }
    db_finish(db, st);
    return rc;
}

enum status db_session_delete(struct db *db, const char *id_hash, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "DELETE FROM sessions WHERE id_hash = ?", &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, id_hash);
    rc = db_step_done(db, st, "cannot delete session", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_purge_expired(struct db *db, long long now, long long before, char *err, size_t errlen)
{
    static const char *const sql[] = {
        "DELETE FROM sessions WHERE expires_at <= ?",
        "DELETE FROM login_failures WHERE at < ?",
    };
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        const long long arg = i == 0 ? now : before;
        enum status rc = db_write_ints(db, sql[i], &arg, 1, 0, "cannot purge", err, errlen);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

enum status db_invite_insert(struct db *db, long long team_id, const char *token_hash, const char *role,
                             long long created_by, long long now, long long expires_at, long long *id,
                             char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "INSERT INTO invites (team_id, token_hash, role, created_by, created_at, expires_at) "
                                "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, team_id);
    db_bind_text(st, 2, token_hash);
    db_bind_text(st, 3, role);
    db_bind_id(st, 4, created_by);
    sqlite3_bind_int64(st, 5, now);
    sqlite3_bind_int64(st, 6, expires_at);
    return db_step_id(db, st, "cannot insert invite", id, err, errlen);
}

enum status db_invite_list(struct db *db, long long team_id, int (*fn)(void *ud, const struct db_invite *i),
                           void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT i.id, i.team_id, i.role, i.created_at, i.expires_at, i.used_at, u.email "
                                "FROM invites i LEFT JOIN users u ON u.id = i.used_by "
                                "WHERE i.team_id = ? ORDER BY i.id DESC",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, team_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_invite inv;
        memset(&inv, 0, sizeof inv);
        inv.id = sqlite3_column_int64(st, 0);
        inv.team_id = sqlite3_column_int64(st, 1);
        db_column_copy(st, 2, inv.role, sizeof inv.role);
        inv.created_at = sqlite3_column_int64(st, 3);
        inv.expires_at = sqlite3_column_int64(st, 4);
        inv.used_at = sqlite3_column_int64(st, 5);
        db_column_copy(st, 6, inv.used_by_email, sizeof inv.used_by_email);
        if (fn(ud, &inv) != 0)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot list invites", err, errlen);
}

enum status db_invite_delete(struct db *db, long long team_id, long long invite_id, char *err, size_t errlen)
{
    const long long args[] = {invite_id, team_id};
    return db_write_ints(db, "DELETE FROM invites WHERE id = ? AND team_id = ?", args, 2, 1,
                         "cannot delete invite", err, errlen);
}

enum status db_invite_check(struct db *db, const char *token_hash, long long now, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "SELECT expires_at, used_at FROM invites WHERE token_hash = ?", &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, token_hash);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        rc = sqlite3_column_int64(st, 1) || sqlite3_column_int64(st, 0) <= now ? ST_GONE : ST_OK;
    else
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read invite", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_invite_accept(struct db *db, const char *token_hash, const char *email, const char *password_hash,
                             long long now, struct db_user *out, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    long long invite_id = 0, team_id = 0, expires_at = 0, used_at = 0, user_id = 0;
    char role[DB_ROLE_MAX] = "";
    int owned;
    enum status rc = db_tx_enter(db, &owned, err, errlen);
    if (rc != ST_OK)
        return rc;
    if ((rc = db_prepare(db, "SELECT id, team_id, role, expires_at, used_at FROM invites WHERE token_hash = ?",
                         &st, err, errlen)) != ST_OK)
        goto out;
    db_bind_text(st, 1, token_hash);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read invite", err, errlen);
        goto out;
    }
    invite_id = sqlite3_column_int64(st, 0);
    team_id = sqlite3_column_int64(st, 1);
    db_column_copy(st, 2, role, sizeof role);
    expires_at = sqlite3_column_int64(st, 3);
    used_at = sqlite3_column_int64(st, 4);
    db_finish(db, st);
    st = NULL;
    if (used_at || expires_at <= now) {
        snprintf(err, errlen, "the invite was already used or has expired");
        rc = ST_GONE;
        goto out;
    }
    if ((rc = user_insert(db, team_id, email, password_hash, role, now, &user_id, err, errlen)) != ST_OK)
        goto out;
    if ((rc = db_prepare(db, "UPDATE invites SET used_at = ?, used_by = ? WHERE id = ?", &st, err, errlen)) != ST_OK)
        goto out;
    sqlite3_bind_int64(st, 1, now);
    sqlite3_bind_int64(st, 2, user_id);
    sqlite3_bind_int64(st, 3, invite_id);
    if ((rc = db_step_done(db, st, "cannot mark invite used", err, errlen)) != ST_OK)
        goto out;
    rc = user_by_id(db, user_id, out, err, errlen);
out:
    db_finish(db, st);
    return db_tx_leave(db, owned, rc, err, errlen);
}

enum status db_login_failure_add(struct db *db, const char *subject, long long now, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "INSERT INTO login_failures (subject, at) VALUES (?, ?)", &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, subject);
    sqlite3_bind_int64(st, 2, now);
    rc = db_step_done(db, st, "cannot record login failure", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_login_failure_count(struct db *db, const char *subject, long long since, int *count,
                                   char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "SELECT count(*) FROM login_failures WHERE subject = ? AND at >= ?", &st, err,
                                errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, subject);
    sqlite3_bind_int64(st, 2, since);
    if (sqlite3_step(st) == SQLITE_ROW)
        *count = sqlite3_column_int(st, 0);
    else
        rc = db_fail(db, "cannot count login failures", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_login_failure_clear(struct db *db, const char *subject, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "DELETE FROM login_failures WHERE subject = ?", &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, subject);
    rc = db_step_done(db, st, "cannot clear login failures", err, errlen);
    db_finish(db, st);
    return rc;
}
