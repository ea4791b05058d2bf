/* db_webhook.c: team webhooks and the delivery outbox.
 *
 * An event writes its delivery rows in the same transaction as the change
 * that caused it (the outbox pattern), so an event is never lost and never
 * sent for a change that rolled back. The background worker reads due rows
 * and records each attempt; nothing here talks to the network. The HMAC
 * secret is stored as is because the worker needs it to sign. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

enum status db_webhook_insert(struct db *db, long long team_id, const char *url, const char *secret,
                              const char *events, long long created_by, long long now, long long *id,
                              char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "INSERT INTO webhooks (team_id, url, secret, events, created_by, created_at) "
                                "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, team_id);
    db_bind_text(st, 2, url);
    db_bind_text(st, 3, secret);
    db_bind_text(st, 4, events);
    db_bind_id(st, 5, created_by);
    sqlite3_bind_int64(st, 6, now);
    return db_step_id(db, st, "cannot insert webhook", id, err, errlen);
}

enum status db_webhook_list(struct db *db, long long team_id, int (*fn)(void *ud, const struct db_webhook *w),
                            void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT id, team_id, url, events, created_at FROM webhooks "
                                "WHERE team_id = ? AND disabled_at IS NULL ORDER BY id",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, team_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_webhook w;
        memset(&w, 0, sizeof w);
        w.id = sqlite3_column_int64(st, 0);
        w.team_id = sqlite3_column_int64(st, 1);
        db_column_copy(st, 2, w.url, sizeof w.url);
        db_column_copy(st, 3, w.events, sizeof w.events);
        w.created_at = sqlite3_column_int64(st, 4);
        if (fn(ud, &w) != 0)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot list webhooks", err, errlen);
}

enum status db_webhook_delete(struct db *db, long long team_id, long long webhook_id, char *err, size_t errlen)
{
    const long long args[] = {webhook_id, team_id};
    return db_write_ints(db, "DELETE FROM webhooks WHERE id = ? AND team_id = ?", args, 2, 1,
                         "cannot delete webhook", err, errlen);
}

enum status db_webhook_exists(struct db *db, long long team_id, long long webhook_id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "SELECT 1 FROM webhooks WHERE id = ? AND team_id = ?", &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, webhook_id);
    sqlite3_bind_int64(st, 2, team_id);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW)
        rc = step == SQLITE_DONE ? ST_NOTFOUND : db_fail(db, "cannot read webhook", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_webhook_enqueue(struct db *db, long long team_id, const char *event, const char *payload,
                               long long now, int *queued, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    /* events is a comma-separated list; wrapping both sides in commas makes
     * the match exact ("plan.shared" never matches "plan.shared2"). */
    enum status rc = db_prepare(db,
                                "INSERT INTO webhook_deliveries (webhook_id, event, payload, next_attempt_at, created_at) "
                                "SELECT id, ?, ?, ?, ? FROM webhooks WHERE team_id = ? AND disabled_at IS NULL "
                                "AND (',' || events || ',') LIKE ('%,' || ? || ',%')",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, event);
    db_bind_text(st, 2, payload);
    sqlite3_bind_int64(st, 3, now);
    sqlite3_bind_int64(st, 4, now);
    sqlite3_bind_int64(st, 5, team_id);
    db_bind_text(st, 6, event);
    rc = db_step_done(db, st, "cannot queue webhook delivery", err, errlen);
    if (rc == ST_OK && queued)
        *queued = db_changes(db);
    db_finish(db, st);
    return rc;
}

void db_delivery_release(struct db_delivery *d)
{
    if (!d)
        return;
    if (d->secret) {
        /* The signing key: overwrite before freeing (volatile so it is not optimised out). */
        for (volatile char *p = d->secret; *p; p++)
            *p = 0;
    }
    free(d->secret);
    free(d->payload);
    d->secret = d->payload = NULL;
}

#define DELIVERY_COLUMNS                                                                               \
    "d.id, d.webhook_id, d.event, d.state, d.attempts, d.next_attempt_at, d.created_at, d.delivered_at, " \
    "d.last_status, d.last_error"

static void read_delivery(sqlite3_stmt *st, struct db_delivery *d)
{
    memset(d, 0, sizeof *d);
    d->id = sqlite3_column_int64(st, 0);
    d->webhook_id = sqlite3_column_int64(st, 1);
    db_column_copy(st, 2, d->event, sizeof d->event);
    db_column_copy(st, 3, d->state, sizeof d->state);
    d->attempts = sqlite3_column_int(st, 4);
    d->next_attempt_at = sqlite3_column_int64(st, 5);
    d->created_at = sqlite3_column_int64(st, 6);
    d->delivered_at = sqlite3_column_int64(st, 7);
    d->last_status = sqlite3_column_int(st, 8);
    db_column_copy(st, 9, d->last_error, sizeof d->last_error);
}

enum status db_delivery_due(struct db *db, long long now, int limit,
                            int (*fn)(void *ud, const struct db_delivery *d), void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " DELIVERY_COLUMNS ", w.url, w.secret, d.payload "
                                "FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id "
                                "WHERE d.state = 'pending' AND d.next_attempt_at <= ? "
                                "ORDER BY d.next_attempt_at, d.id LIMIT ?",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, now);
    sqlite3_bind_int(st, 2, limit);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_delivery d;
        read_delivery(st, &d);
        db_column_copy(st, 10, d.url, sizeof d.url);
        d.secret = db_column_dup(st, 11);
        d.payload = db_column_dup(st, 12);
        int stop = !d.secret || !d.payload;
        if (!stop)
            stop = fn(ud, &d);
        db_delivery_release(&d);
        if (stop)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot read due deliveries", err, errlen);
}

enum status db_delivery_update(struct db *db, long long id, const char *state, int attempts,
                               long long next_attempt_at, int last_status, const char *last_error,
                               long long delivered_at, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "UPDATE webhook_deliveries SET state = ?, attempts = ?, next_attempt_at = ?, "
                                "last_status = ?, last_error = ?, delivered_at = ? WHERE id = ?",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    db_bind_text(st, 1, state);
    sqlite3_bind_int(st, 2, attempts);
    sqlite3_bind_int64(st, 3, next_attempt_at);
    db_bind_id(st, 4, last_status);
    db_bind_text(st, 5, last_error && *last_error ? last_error : NULL);
    db_bind_id(st, 6, delivered_at);
    sqlite3_bind_int64(st, 7, id);
    rc = db_step_done(db, st, "cannot record delivery attempt", err, errlen);
    db_finish(db, st);
    return rc;
}

enum status db_delivery_list(struct db *db, long long team_id, long long webhook_id, int limit,
                             int (*fn)(void *ud, const struct db_delivery *d), void *ud, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
                                "SELECT " DELIVERY_COLUMNS " FROM webhook_deliveries d "
                                "JOIN webhooks w ON w.id = d.webhook_id "
                                "WHERE d.webhook_id = ? AND w.team_id = ? ORDER BY d.id DESC LIMIT ?",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    sqlite3_bind_int64(st, 1, webhook_id);
    sqlite3_bind_int64(st, 2, team_id);
    sqlite3_bind_int(st, 3, limit);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_delivery d;
        read_delivery(st, &d);
        if (fn(ud, &d) != 0)
            break;
    }
    return db_rows_end(db, st, step, rc, "cannot list deliveries", err, errlen);
}

enum status db_delivery_next_due(struct db *db, long long *at, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, "SELECT min(next_attempt_at) FROM webhook_deliveries WHERE state = 'pending'",
                                &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *at = sqlite3_column_int64(st, 0);
    else
        rc = db_fail(db, "cannot read next delivery", err, errlen);
    db_finish(db, st);
    return rc;
}
