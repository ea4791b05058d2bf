/* db_report.c: uploaded reports, their verdicts and verdict history.
 *
 * The raw text is stored with its SHA-256 so reports can be re-parsed when
 * the parsers improve, and so an Idempotency-Key replay can be told from a
 * different body under the same key. The UNIQUE (plan_id, idempotency_key)
 * constraint, not a read-then-write check, decides which of two racing
 * uploads wins. Every verdict a report gets is appended to report_checks. */
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

#define REPORT_COLUMNS                                                                                 \
    "r.id, r.plan_id, r.team_id, r.revision, r.tier, r.sha256, r.size_bytes, r.verdict, r.source, "  \
    "r.user_id, r.token_id, r.idempotency_key, r.created_at, r.checked_at, "                        \
    "r.content, r.sections_json, r.findings_json, r.calibration_json"
#define REPORT_COLUMNS_SHORT                                                                           \
    "r.id, r.plan_id, r.team_id, r.revision, r.tier, r.sha256, r.size_bytes, r.verdict, r.source, "  \
    "r.user_id, r.token_id, r.idempotency_key, r.created_at, r.checked_at"

static int read_report(sqlite3_stmt *st, struct db_report *r, int full)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    r->plan_id = sqlite3_column_int64(st, 1);
    r->team_id = sqlite3_column_int64(st, 2);
    r->revision = sqlite3_column_int(st, 3);
    db_column_copy(st, 4, r->tier, sizeof r->tier);
    db_column_copy(st, 5, r->sha256, sizeof r->sha256);
    r->size_bytes = sqlite3_column_int64(st, 6);
    db_column_copy(st, 7, r->verdict, sizeof r->verdict);
    db_column_copy(st, 8, r->source, sizeof r->source);
    r->user_id = sqlite3_column_int64(st, 9);
    r->token_id = sqlite3_column_int64(st, 10);
    db_column_copy(st, 11, r->idempotency_key, sizeof r->idempotency_key);
    r->created_at = sqlite3_column_int64(st, 12);
    r->checked_at = sqlite3_column_int64(st, 13);
    if (!full)
        return 0;
    r->content = db_column_dup(st, 14);
    r->sections_json = db_column_dup(st, 15);
    r->findings_json = db_column_dup(st, 16);
    r->calibration_json = db_column_dup(st, 17); /* NULL when nothing was measured */
    if (!r->content || !r->sections_json || !r->findings_json) {
        db_report_release(r);
        return -1;
    }
    return 0;
}

void db_report_release(struct db_report *r)
{
    if (!r)
        return;
    free(r->content);
    free(r->sections_json);
    free(r->findings_json);
    free(r->calibration_json);
    r->content = r->sections_json = r->findings_json = r->calibration_json = NULL;
}

static enum status history_add(struct db *db, long long report_id, int revision, const char *tier,
                               const char *verdict, long long now, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "INSERT INTO report_checks (report_id, revision, tier, verdict, checked_at) "
                                "VALUES (?, ?, ?, ?, ?)",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, report_id);
    sqlite3_bind_int(st, 2, revision);
    db_bind_text(st, 3, tier);
    db_bind_text(st, 4, verdict);
    sqlite3_bind_int64(st, 5, now);
    rc = db_step_done(db, st, "cannot record verdict history", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_report_insert(struct db *db, const struct db_report *r, long long *id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    long long rid = 0;
    int owned;
    enum status rc = db_tx_enter(db, &owned, err, errlen);
    if (rc != ST_OK)
        return rc;
    if ((rc = db_prepare(db,
                         "INSERT INTO reports (plan_id, team_id, revision, tier, content, sha256, size_bytes, "
                         "sections_json, verdict, findings_json, source, user_id, token_id, idempotency_key, "
                         "created_at, checked_at, calibration_json) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                         "RETURNING id",
                         &st, err, errlen)) != ST_OK)
        goto out;
    sqlite3_bind_int64(st, 1, r->plan_id);
    sqlite3_bind_int64(st, 2, r->team_id);
    sqlite3_bind_int(st, 3, r->revision);
    db_bind_text(st, 4, r->tier);
    sqlite3_bind_text(st, 5, r->content, (int)r->size_bytes, SQLITE_TRANSIENT);
    db_bind_text(st, 6, r->sha256);
    sqlite3_bind_int64(st, 7, r->size_bytes);
    db_bind_text(st, 8, r->sections_json);
    db_bind_text(st, 9, r->verdict);
    db_bind_text(st, 10, r->findings_json);
    db_bind_text(st, 11, r->source[0] ? r->source : NULL);
    db_bind_id(st, 12, r->user_id);
    db_bind_id(st, 13, r->token_id);
    db_bind_text(st, 14, r->idempotency_key[0] ? r->idempotency_key : NULL);
    sqlite3_bind_int64(st, 15, r->created_at);
    sqlite3_bind_int64(st, 16, r->checked_at);
    db_bind_text(st, 17, r->calibration_json);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        rid = sqlite3_column_int64(st, 0);
    } else if (step == SQLITE_CONSTRAINT_UNIQUE) {
        snprintf(err, errlen, "Idempotency-Key: already used for this plan");
        rc = ST_CONFLICT;
        goto out;
    } else {
        rc = db_fail(db, "cannot insert report", err, errlen);
        goto out;
    }
    db_finish(db, st);
    st = NULL;
    if ((rc = history_add(db, rid, r->revision, r->tier, r->verdict, r->checked_at, err, errlen)) != ST_OK)
        goto out;
    *id = rid;
out:
    db_finish(db, st);
    return db_tx_leave(db, owned, rc, err, errlen);
}

static enum status report_one(struct db *db, sqlite3_stmt *st, struct db_report *out, char *err, size_t errlen)
{
    enum status rc = ST_OK;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        if (read_report(st, out, 1) != 0)
            rc = ST_NOMEM;
    } else {
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read report", err, errlen);
    }
    db_finish(db, st);
    return rc;
}

enum status db_report_get(struct db *db, long long team_id, long long plan_id, long long report_id,
                          struct db_report *out, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " REPORT_COLUMNS " FROM reports r "
                                "WHERE r.id = ? AND r.plan_id = ? AND r.team_id = ?",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, report_id);
    sqlite3_bind_int64(st, 2, plan_id);
    sqlite3_bind_int64(st, 3, team_id);
    return report_one(db, st, out, err, errlen);
}

enum status db_report_by_key(struct db *db, long long plan_id, const char *key, struct db_report *out,
                             char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " REPORT_COLUMNS " FROM reports r WHERE r.plan_id = ? AND r.idempotency_key = ?",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, plan_id);
    db_bind_text(st, 2, key);
    return report_one(db, st, out, err, errlen);
}

/* sql binds ?1 plan, ?2 team, ?3 limit and, when it has it, ?4 the id the
 * rows must be below (before_id; 0: no bound). */
static enum status report_each(struct db *db, const char *sql, long long team_id, long long plan_id, int limit,
                               long long before_id, int full, int (*fn)(void *ud, const struct db_report *r),
                               void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    struct db_report r;
    enum status rc = db_prepare(db, sql, &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, plan_id);
    sqlite3_bind_int64(st, 2, team_id);
    sqlite3_bind_int(st, 3, limit);
    if (sqlite3_bind_parameter_count(st) >= 4)
        sqlite3_bind_int64(st, 4, before_id > 0 ? before_id : LLONG_MAX);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (read_report(st, &r, full) != 0) {
            rc = ST_NOMEM;
            break;
        }
        int stop = fn(ud, &r);
        db_report_release(&r);
        if (stop)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot list reports", err, errlen);
}

enum status db_report_list(struct db *db, long long team_id, long long plan_id, long long before_id,
                           int limit, int (*fn)(void *ud, const struct db_report *r), void *ud, char *err,
                           size_t errlen)
{
    return report_each(db,
                       "SELECT " REPORT_COLUMNS_SHORT " FROM reports r WHERE r.plan_id = ?1 AND "
                       "r.team_id = ?2 AND r.id < ?4 ORDER BY r.id DESC LIMIT ?3",
                       team_id, plan_id, limit, before_id, 0, fn, ud, err, errlen);
}

enum status db_report_each_full(struct db *db, long long team_id, long long plan_id,
                                int (*fn)(void *ud, const struct db_report *r), void *ud, char *err, size_t errlen)
{
    return report_each(db,
                       "SELECT " REPORT_COLUMNS " FROM reports r WHERE r.plan_id = ? AND r.team_id = ? "
                       "ORDER BY r.id LIMIT ?",
                       team_id, plan_id, 100000, 0, 1, fn, ud, err, errlen);
}

enum status db_report_recheck(struct db *db, long long report_id, int revision, const char *tier,
                              const char *sections_json, const char *verdict, const char *findings_json,
                              const char *calibration_json, long long now, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int owned;
    enum status rc = db_tx_enter(db, &owned, err, errlen);
    if (rc != ST_OK)
        return rc;
    if ((rc = db_prepare(db,
                         "UPDATE reports SET revision = ?, tier = ?, sections_json = ?, verdict = ?, "
                         "findings_json = ?, calibration_json = ?, checked_at = ? WHERE id = ?",
                         &st, err, errlen)) != ST_OK)
        goto out;
    sqlite3_bind_int(st, 1, revision);
    db_bind_text(st, 2, tier);
    db_bind_text(st, 3, sections_json);
    db_bind_text(st, 4, verdict);
    db_bind_text(st, 5, findings_json);
    db_bind_text(st, 6, calibration_json);
    sqlite3_bind_int64(st, 7, now);
    sqlite3_bind_int64(st, 8, report_id);
    if ((rc = db_step_done(db, st, "cannot update report", err, errlen)) != ST_OK)
        goto out;
    rc = history_add(db, report_id, revision, tier, verdict, now, err, errlen);
out:
    db_finish(db, st);
    return db_tx_leave(db, owned, rc, err, errlen);
}

enum status db_report_history(struct db *db, long long report_id,
                              int (*fn)(void *ud, const struct db_report_check *c), void *ud,
                              char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT revision, tier, verdict, checked_at FROM report_checks "
                                "WHERE report_id = ? ORDER BY id",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, report_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_report_check c;
        memset(&c, 0, sizeof c);
        c.revision = sqlite3_column_int(st, 0);
        db_column_copy(st, 1, c.tier, sizeof c.tier);
        db_column_copy(st, 2, c.verdict, sizeof c.verdict);
        c.checked_at = sqlite3_column_int64(st, 3);
        if (fn(ud, &c) != 0)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot read verdict history", err, errlen);
}
