/* db_plan.c: plans and their revisions.
 *
 * A plan row holds what changes in place (title, current revision, times);
 * every change of content is a new plan_revisions row, so earlier
 * revisions stay readable and diffable. Every query is scoped by team_id in
 * its WHERE clause: another team's plan is simply not found. Optional
 * filters are bound as values that match everything (a '%' pattern, the
 * largest id) rather than spliced into the SQL, so each statement has one
 * fixed text that SQLite and PostgreSQL both prepare. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

#define PLAN_COLUMNS                                                                                   \
    "p.id, p.team_id, r.title, r.revision, p.current_revision, r.tier, r.engine_version, "           \
    "r.workload_json, r.recommendation_json, p.created_at, p.updated_at, r.created_at"

static void read_plan(sqlite3_stmt *st, struct db_plan *p, int with_json)
{
    memset(p, 0, sizeof *p);
    p->id = sqlite3_column_int64(st, 0);
    p->team_id = sqlite3_column_int64(st, 1);
    db_column_copy(st, 2, p->title, sizeof p->title);
    p->revision = sqlite3_column_int(st, 3);
    p->current_revision = sqlite3_column_int(st, 4);
    db_column_copy(st, 5, p->tier, sizeof p->tier);
    db_column_copy(st, 6, p->engine_version, sizeof p->engine_version);
    if (with_json) {
        p->workload_json = db_column_dup(st, 7);
        p->recommendation_json = db_column_dup(st, 8);
    }
    p->created_at = sqlite3_column_int64(st, 9);
    p->updated_at = sqlite3_column_int64(st, 10);
    p->revision_created_at = sqlite3_column_int64(st, 11);
}

void db_plan_release(struct db_plan *p)
{
    if (!p)
        return;
    free(p->workload_json);
    free(p->recommendation_json);
    p->workload_json = p->recommendation_json = NULL;
}

enum status db_plan_insert(struct db *db, long long team_id, long long user_id, const char *title,
                           const char *tier, const char *workload_json, const char *recommendation_json,
                           const char *engine_version, long long now, long long *id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    long long plan_id = 0;
    int owned;
    enum status rc = db_tx_enter(db, &owned, err, errlen);
    if (rc != ST_OK)
        return rc;
    if ((rc = db_prepare(db,
                         "INSERT INTO plans (team_id, title, current_revision, created_by, created_at, updated_at) "
                         "VALUES (?, ?, 1, ?, ?, ?) RETURNING id",
                         &st, err, errlen)) != ST_OK)
        goto out;
    sqlite3_bind_int64(st, 1, team_id);
    db_bind_text(st, 2, title);
    db_bind_id(st, 3, user_id);
    sqlite3_bind_int64(st, 4, now);
    sqlite3_bind_int64(st, 5, now);
    rc = db_step_id(db, st, "cannot insert plan", &plan_id, err, errlen);
    st = NULL;
    if (rc != ST_OK)
        goto out;
    if ((rc = db_prepare(db,
                         "INSERT INTO plan_revisions (plan_id, revision, title, tier, workload_json, "
                         "recommendation_json, engine_version, created_by, created_at) "
                         "VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?)",
                         &st, err, errlen)) != ST_OK)
        goto out;
    sqlite3_bind_int64(st, 1, plan_id);
    db_bind_text(st, 2, title);
    db_bind_text(st, 3, tier);
    db_bind_text(st, 4, workload_json);
    db_bind_text(st, 5, recommendation_json);
    db_bind_text(st, 6, engine_version);
    db_bind_id(st, 7, user_id);
    sqlite3_bind_int64(st, 8, now);
    if ((rc = db_step_done(db, st, "cannot insert plan revision", err, errlen)) != ST_OK)
        goto out;
    *id = plan_id;
out:
    db_finish(db, st);
    return db_tx_leave(db, owned, rc, err, errlen);
}

enum status db_plan_get(struct db *db, long long team_id, long long plan_id, int revision, struct db_plan *out,
                        char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " PLAN_COLUMNS " FROM plans p JOIN plan_revisions r ON r.plan_id = p.id "
                                "WHERE p.id = ? AND p.team_id = ? AND r.revision = COALESCE(?, p.current_revision)",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, plan_id);
    sqlite3_bind_int64(st, 2, team_id);
    db_bind_id(st, 3, revision);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        read_plan(st, out, 1);
        if (!out->workload_json || !out->recommendation_json) {
            db_plan_release(out);
            rc = ST_NOMEM;
        }
    } else {
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read plan", err, errlen);
    }
    db_finish(db, st);
    return rc;
}

enum status db_plan_revise(struct db *db, long long team_id, long long plan_id, long long user_id,
                           const char *title, const char *tier, const char *workload_json,
                           const char *recommendation_json, const char *engine_version, long long now,
                           int *revision, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rev = 0, owned;
    enum status rc = db_tx_enter(db, &owned, err, errlen);
    if (rc != ST_OK)
        return rc;
    if ((rc = db_prepare(db,
                         "INSERT INTO plan_revisions (plan_id, revision, title, tier, workload_json, "
                         "recommendation_json, engine_version, created_by, created_at) "
                         "SELECT r.plan_id, r.revision + 1, COALESCE(?, r.title), COALESCE(?, r.tier), "
                         "COALESCE(?, r.workload_json), COALESCE(?, r.recommendation_json), "
                         "COALESCE(?, r.engine_version), ?, ? "
                         "FROM plans p JOIN plan_revisions r ON r.plan_id = p.id AND r.revision = p.current_revision "
                         "WHERE p.id = ? AND p.team_id = ? RETURNING revision",
                         &st, err, errlen)) != ST_OK)
        goto out;
    db_bind_text(st, 1, title);
    db_bind_text(st, 2, tier);
    db_bind_text(st, 3, workload_json);
    db_bind_text(st, 4, recommendation_json);
    db_bind_text(st, 5, engine_version);
    db_bind_id(st, 6, user_id);
    sqlite3_bind_int64(st, 7, now);
    sqlite3_bind_int64(st, 8, plan_id);
    sqlite3_bind_int64(st, 9, team_id);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot insert plan revision", err, errlen);
        goto out;
    }
    rev = sqlite3_column_int(st, 0);
    db_finish(db, st);
    st = NULL;
    if ((rc = db_prepare(db,
                         "UPDATE plans SET current_revision = ?, updated_at = ?, "
                         "title = (SELECT title FROM plan_revisions WHERE plan_id = ? AND revision = ?) "
                         "WHERE id = ? AND team_id = ?",
                         &st, err, errlen)) != ST_OK)
        goto out;
    sqlite3_bind_int(st, 1, rev);
    sqlite3_bind_int64(st, 2, now);
    sqlite3_bind_int64(st, 3, plan_id);
    sqlite3_bind_int(st, 4, rev);
    sqlite3_bind_int64(st, 5, plan_id);
    sqlite3_bind_int64(st, 6, team_id);
    if ((rc = db_step_done(db, st, "cannot update plan", err, errlen)) != ST_OK)
        goto out;
    *revision = rev;
out:
    db_finish(db, st);
    return db_tx_leave(db, owned, rc, err, errlen);
}

enum status db_plan_exists(struct db *db, long long team_id, long long plan_id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "SELECT 1 FROM plans WHERE id = ? AND team_id = ?", &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, plan_id);
    sqlite3_bind_int64(st, 2, team_id);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW)
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read plan", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_plan_delete(struct db *db, long long team_id, long long plan_id, char *err, size_t errlen)
{
    const long long args[] = {plan_id, team_id};
    return db_write_ints(db, "DELETE FROM plans WHERE id = ? AND team_id = ?", args, 2, 1, "cannot delete plan",
                         err, errlen);
}

/* Turns a user's filter into a LIKE pattern matching it anywhere, with the
 * pattern characters % and _ (and the escape itself) taken literally. */
static char *like_pattern(const char *filter)
{
    size_t n = filter ? strlen(filter) : 0;
    char *p = malloc(2 * n + 3), *w = p;
    if (!p)
        return NULL;
    *w++ = '%';
    for (size_t i = 0; i < n; i++) {
        if (filter[i] == '%' || filter[i] == '_' || filter[i] == '\\')
            *w++ = '\\';
        *w++ = filter[i];
    }
    *w++ = '%';
    *w = '\0';
    return p;
}

enum status db_plan_list(struct db *db, long long team_id, const char *title_filter, long long before_id,
                         int limit, int (*fn)(void *ud, const struct db_plan *p), void *ud,
                         char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    struct db_plan p;
    char *pattern = like_pattern(title_filter);
    enum status rc;
    if (!pattern)
        return ST_NOMEM;
    rc = db_prepare(db,
                    "SELECT " PLAN_COLUMNS " FROM plans p JOIN plan_revisions r "
                    "ON r.plan_id = p.id AND r.revision = p.current_revision "
                    "WHERE p.team_id = ? AND p.id < ? AND lower(p.title) LIKE lower(?) ESCAPE '\\' "
                    "ORDER BY p.id DESC LIMIT ?",
                    &st, err, errlen);
    if (rc != ST_OK) {
        free(pattern);
        return rc;
    }
    sqlite3_bind_int64(st, 1, team_id);
    sqlite3_bind_int64(st, 2, before_id > 0 ? before_id : LLONG_MAX);
    db_bind_text(st, 3, pattern);
    sqlite3_bind_int(st, 4, limit);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        read_plan(st, &p, 0);
        if (fn(ud, &p) != 0)
            break;
    }
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        rc = db_fail(db, "cannot list plans", err, errlen);
    db_finish(db, st);
    free(pattern);
    return rc;
}

enum status db_plan_revisions(struct db *db, long long team_id, long long plan_id,
                              int (*fn)(void *ud, const struct db_plan *p), void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    struct db_plan p;
    int rows = 0;
    enum status rc = db_prepare(db,
                                "SELECT " PLAN_COLUMNS " FROM plans p JOIN plan_revisions r ON r.plan_id = p.id "
                                "WHERE p.id = ? AND p.team_id = ? ORDER BY r.revision",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, plan_id);
    sqlite3_bind_int64(st, 2, team_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        read_plan(st, &p, 0);
        if (fn(ud, &p) != 0)
            break;
    }
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        rc = db_fail(db, "cannot list revisions", err, errlen);
    else if (rows == 0)
        rc = ST_NOTFOUND;
    db_finish(db, st);
    return rc;
}
