/* db.c: opening connections, migrations, health checks and backup.
 *
 * Every connection gets the same settings (WAL so readers never block the
 * writer, foreign keys on, a busy timeout so concurrent writers queue rather
 * than fail, synchronous=FULL so an acknowledged write survives power loss).
 * Migrations are compiled into the binary; each runs in one transaction that
 * also bumps PRAGMA user_version, so a crash mid-migration leaves the old
 * version intact and the next start tries again. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

#define DB_BUSY_TIMEOUT_MS 10000

enum status db_fail(struct db *db, const char *what, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s", what, db && db->sql ? sqlite3_errmsg(db->sql) : "no connection");
    return ST_DB;
}

/* Through the statement cache: BEGIN, COMMIT and the committer's
 * SAVEPOINT/RELEASE run for every upload, and compiling them each time
 * cost more than running them. */
enum status db_exec(struct db *db, const char *sql, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = SQLITE_DONE;
    if (db_prepare(db, sql, &st, NULL, 0) != ST_OK)
        rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW)
        ; /* PRAGMA journal_mode answers a row */
    if (rc != SQLITE_DONE) {
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", sql, sqlite3_errmsg(db->sql));
        db_finish(db, st);
        return ST_DB;
    }
    db_finish(db, st);
    return ST_OK;
}

/* Writers of this process take turns in arrival order before they ask
 * SQLite for the write lock. SQLite's busy handler polls with growing sleeps
 * (up to 100 ms), so under a steady stream of writers a waiter keeps missing
 * the moment the lock is free and can starve past the busy timeout: the load
 * test saw "BEGIN IMMEDIATE: database is locked" reach clients as 503s with
 * 64 concurrent uploads. A ticket queue hands the turn over at once and in
 * order; the busy timeout is left for other processes (gpuplan backup, a
 * second server) sharing the file. */
#define TURN_SLOTS 64 /* waiters wait on the slot of their ticket: a hand-over wakes one, not all */
static pthread_mutex_t turn_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv[TURN_SLOTS];
static pthread_once_t turn_once = PTHREAD_ONCE_INIT;
static unsigned long turn_next, turn_serving;

static void turn_init(void)
{
    for (int i = 0; i < TURN_SLOTS; i++)
        pthread_cond_init(&turn_cv[i], NULL);
}

static void writer_turn_take(struct db *db)
{
    if (db->writer_turn)
        return; /* already ours: BEGIN inside a transaction fails as SQLite says, no self-deadlock */
    pthread_once(&turn_once, turn_init);
    pthread_mutex_lock(&turn_mu);
    unsigned long mine = turn_next++;
    while (mine != turn_serving)
        pthread_cond_wait(&turn_cv[mine % TURN_SLOTS], &turn_mu);
    pthread_mutex_unlock(&turn_mu);
    db->writer_turn = 1;
}

static void writer_turn_give(struct db *db)
{
    if (!db->writer_turn)
        return;
    db->writer_turn = 0;
    pthread_mutex_lock(&turn_mu);
    turn_serving++;
    /* Broadcast on the slot: more than TURN_SLOTS waiters share slots, and
     * those whose ticket is not yet served go back to waiting. */
    pthread_cond_broadcast(&turn_cv[turn_serving % TURN_SLOTS]);
    pthread_mutex_unlock(&turn_mu);
}

enum status db_begin_write(struct db *db, char *err, size_t errlen)
{
    int took = !db->writer_turn;
    writer_turn_take(db);
    enum status st = db_exec(db, "BEGIN IMMEDIATE", err, errlen);
    if (st != ST_OK && took)
        writer_turn_give(db);
    return st;
}

enum status db_commit(struct db *db, char *err, size_t errlen)
{
    enum status st = db_exec(db, "COMMIT", err, errlen);
    if (st != ST_OK)
        db_rollback(db);
    else
        writer_turn_give(db);
    return st;
}

void db_rollback(struct db *db)
{
    if (!sqlite3_get_autocommit(db->sql))
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    writer_turn_give(db);
}

void db_column_copy(sqlite3_stmt *st, int col, char *out, size_t outlen)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    if (!outlen)
        return;
    snprintf(out, outlen, "%s", t ? (const char *)t : "");
}

char *db_column_dup(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    if (!t)
        return NULL;
    int n = sqlite3_column_bytes(st, col);
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    memcpy(s, t, (size_t)n);
    s[n] = '\0';
    return s;
}

int db_bind_text(sqlite3_stmt *st, int idx, const char *s)
{
    return s ? sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, idx);
}

int db_bind_id(sqlite3_stmt *st, int idx, long long v)
{
    return v ? sqlite3_bind_int64(st, idx, v) : sqlite3_bind_null(st, idx);
}

enum status db_step_done(struct db *db, sqlite3_stmt *st, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE || rc == SQLITE_ROW)
        return ST_OK;
    if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY) {
        if (err && errlen)
            snprintf(err, errlen, "%s: already exists", what);
        return ST_CONFLICT;
    }
    return db_fail(db, what, err, errlen);
}

enum status db_step_id(struct db *db, sqlite3_stmt *st, const char *what, long long *id, char *err, size_t errlen)
{
    enum status rc = ST_OK;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
    } else if (step == SQLITE_DONE) {
        rc = ST_NOTFOUND;
    } else if (step == SQLITE_CONSTRAINT_UNIQUE || step == SQLITE_CONSTRAINT_PRIMARYKEY) {
        if (err && errlen)
            snprintf(err, errlen, "%s: already exists", what);
        rc = ST_CONFLICT;
    } else {
        rc = db_fail(db, what, err, errlen);
    }
    db_finish(db, st);
    return rc;
}

enum status db_write_ints(struct db *db, const char *sql, const long long *args, int n, int must_change,
                          const char *what, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, sql, &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 1, args[i]);
    rc = db_step_done(db, st, what, err, errlen);
    if (rc == ST_OK && must_change && db_changes(db) == 0)
        rc = ST_NOTFOUND;
    db_finish(db, st);
    return rc;
}

enum status db_rows_end(struct db *db, sqlite3_stmt *st, int step, enum status rc, const char *what, char *err,
                        size_t errlen)
{
    if (rc == ST_OK && step != SQLITE_ROW && step != SQLITE_DONE)
        rc = db_fail(db, what, err, errlen);
    db_finish(db, st);
    return rc;
}

int db_changes(struct db *db)
{
    return sqlite3_changes(db->sql);
}

enum status db_tx_begin(struct db *db, char *err, size_t errlen)
{
    return db_begin_write(db, err, errlen);
}

enum status db_tx_commit(struct db *db, char *err, size_t errlen)
{
    return db_commit(db, err, errlen);
}

void db_tx_rollback(struct db *db)
{
    db_rollback(db);
}

enum status db_tx_enter(struct db *db, int *owned, char *err, size_t errlen)
{
    *owned = sqlite3_get_autocommit(db->sql) != 0;
    return *owned ? db_begin_write(db, err, errlen) : ST_OK;
}

enum status db_tx_leave(struct db *db, int owned, enum status st, char *err, size_t errlen)
{
    if (!owned)
        return st;
    if (st == ST_OK)
        return db_commit(db, err, errlen);
    db_rollback(db);
    return st;
}

int db_migrations_latest(void)
{
    return db_migrations_count ? db_migrations[db_migrations_count - 1].version : 0;
}

int db_schema_version(struct db *db)
{
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(db->sql, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

enum status db_migrate(struct db *db, char *err, size_t errlen)
{
    enum status st = db_begin_write(db, err, errlen);
    if (st != ST_OK)
        return st;
    /* Read the version under the write lock: two processes starting at once
     * must not both apply the same migration. */
    int have = db_schema_version(db);
    db_rollback(db);
    if (have > db_migrations_latest()) {
        if (err && errlen)
            snprintf(err, errlen,
                     "database schema version %d is newer than this gpuplan (knows up to %d); "
                     "upgrade gpuplan or use another --db",
                     have, db_migrations_latest());
        return ST_TOONEW;
    }
    for (int i = 0; i < db_migrations_count; i++) {
        const struct db_migration *m = &db_migrations[i];
        char pragma[64];
        if ((st = db_begin_write(db, err, errlen)) != ST_OK)
            return st;
        if (db_schema_version(db) >= m->version) {
            db_rollback(db);
            continue;
        }
        char *msg = NULL;
        if (sqlite3_exec(db->sql, m->sql, NULL, NULL, &msg) != SQLITE_OK) {
            if (err && errlen)
                snprintf(err, errlen, "migration %04d_%s failed: %s", m->version, m->name,
                         msg ? msg : sqlite3_errmsg(db->sql));
            sqlite3_free(msg);
            db_rollback(db);
            return ST_DB;
        }
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
        if ((st = db_exec(db, pragma, err, errlen)) != ST_OK) {
            db_rollback(db);
            return st;
        }
        if ((st = db_commit(db, err, errlen)) != ST_OK)
            return st;
    }
    return ST_OK;
}

/* SQLite counts every allocation of every connection in one set of
 * statistics guarded by one global mutex. With 80 worker threads that mutex
 * was the most contended lock of the server under an upload storm (a tenth
 * of the CPU samples were futex calls from sqlite3Malloc), and nothing here
 * reads the statistics. Turned off once, before SQLite initializes: every
 * use of SQLite goes through db_open first. */
static pthread_once_t sqlite_once = PTHREAD_ONCE_INIT;

static void sqlite_setup(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); /* SQLITE_MISUSE if already initialized: harmless */
}

enum status db_open(const char *path, unsigned flags, struct db **out, char *err, size_t errlen)
{
    struct db *db = NULL;
    enum status st = ST_OK;
    int oflags = (flags & DB_OPEN_READONLY) ? SQLITE_OPEN_READONLY
                                            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

    pthread_once(&sqlite_once, sqlite_setup);
    db = calloc(1, sizeof *db);
    if (!db)
        return ST_NOMEM;
    oflags |= SQLITE_OPEN_NOMUTEX; /* one connection per thread */
    if (sqlite3_open_v2(path, &db->sql, oflags, NULL) != SQLITE_OK) {
        if (err && errlen)
            snprintf(err, errlen, "cannot open database %s: %s", path,
                     db->sql ? sqlite3_errmsg(db->sql) : "out of memory");
        st = ST_DB;
        goto out;
    }
    sqlite3_extended_result_codes(db->sql, 1);
    sqlite3_busy_timeout(db->sql, DB_BUSY_TIMEOUT_MS);
    if (!(flags & DB_OPEN_READONLY)) {
        /* journal_mode answers with the mode it got; an in-memory database says "memory". */
        if ((st = db_exec(db, "PRAGMA journal_mode=WAL", err, errlen)) != ST_OK)
            goto out;
    }
    if ((st = db_exec(db, "PRAGMA foreign_keys=ON", err, errlen)) != ST_OK ||
        (st = db_exec(db, "PRAGMA synchronous=FULL", err, errlen)) != ST_OK)
        goto out;

    if (flags & DB_OPEN_MIGRATE) {
        if ((st = db_migrate(db, err, errlen)) != ST_OK)
            goto out;
    } else if (!(flags & DB_OPEN_ANY_VERSION)) {
        int have = db_schema_version(db);
        if (have > db_migrations_latest()) {
            if (err && errlen)
                snprintf(err, errlen,
                         "database schema version %d is newer than this gpuplan (knows up to %d)",
                         have, db_migrations_latest());
            st = ST_TOONEW;
            goto out;
        }
        if (have < db_migrations_latest()) {
            if (err && errlen)
                snprintf(err, errlen, "database schema version %d is older than %d: start the server to migrate it",
                         have, db_migrations_latest());
            st = ST_DB;
            goto out;
        }
    }
out:
    if (st != ST_OK) {
        db_close(db);
        return st;
    }
    *out = db;
    return ST_OK;
}

void db_close(struct db *db)
{
    if (!db)
        return;
    writer_turn_give(db); /* closing rolls back an open transaction; the turn goes with it */
    db_stmt_cache_clear(db);
    sqlite3_close_v2(db->sql);
    free(db);
}

enum status db_ping(struct db *db)
{
    sqlite3_stmt *st = NULL;
    enum status rc = ST_DB;
    if (sqlite3_prepare_v2(db->sql, "SELECT 1", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1)
        rc = ST_OK;
    sqlite3_finalize(st);
    return rc;
}

static enum status check_pragma_ok(struct db *db, const char *sql, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db, sql, &st, err, errlen);
    if (rc != ST_OK)
        return rc;
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        rc = db_fail(db, sql, err, errlen);
    } else {
        const unsigned char *t = sqlite3_column_text(st, 0);
        if (!t || strcmp((const char *)t, "ok") != 0) {
            if (err && errlen)
                snprintf(err, errlen, "%s: %s", sql, t ? (const char *)t : "no answer");
            rc = ST_DB;
        }
    }
    db_finish(db, st);
    return rc;
}

enum status db_quick_check(struct db *db, char *err, size_t errlen)
{
    return check_pragma_ok(db, "PRAGMA quick_check", err, errlen);
}

enum status db_integrity_check(struct db *db, char *err, size_t errlen)
{
    return check_pragma_ok(db, "PRAGMA integrity_check", err, errlen);
}

enum status db_pragma_text(struct db *db, const char *name, char *out, size_t outlen)
{
    static const char *const allowed[] = {"journal_mode", "foreign_keys", "synchronous",
                                          "busy_timeout", "user_version"};
    char sql[64];
    int ok = 0;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        ok |= strcmp(name, allowed[i]) == 0;
    if (!ok)
        return ST_INVALID;
    snprintf(sql, sizeof sql, "PRAGMA %s", name);
    sqlite3_stmt *st = NULL;
    enum status rc = ST_DB;
    if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        db_column_copy(st, 0, out, outlen);
        rc = ST_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

enum status db_backup_to(struct db *db, const char *dest_path, char *err, size_t errlen)
{
    sqlite3 *dest = NULL;
    sqlite3_backup *bk = NULL;
    enum status rc = ST_OK;

    if (sqlite3_open_v2(dest_path, &dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        if (err && errlen)
            snprintf(err, errlen, "cannot open backup file %s: %s", dest_path,
                     dest ? sqlite3_errmsg(dest) : "out of memory");
        rc = ST_IO;
        goto out;
    }
    bk = sqlite3_backup_init(dest, "main", db->sql, "main");
    if (!bk) {
        if (err && errlen)
            snprintf(err, errlen, "cannot start backup: %s", sqlite3_errmsg(dest));
        rc = ST_DB;
        goto out;
    }
    /* Copy every page in one step, inside one read transaction on the source.
     * In WAL mode a reader never blocks writers, so the server keeps writing
     * while we copy a consistent snapshot. Copying in slices instead restarts
     * from page one whenever another connection writes, so under a steady
     * stream of uploads it would never finish. BUSY/LOCKED only happen while
     * a writer holds the lock during a WAL reset; wait and try again. */
    for (int tries = 0;; tries++) {
        int r = sqlite3_backup_step(bk, -1);
        if (r == SQLITE_DONE)
            break;
        if ((r == SQLITE_OK || r == SQLITE_BUSY || r == SQLITE_LOCKED) && tries < 2000) {
            sqlite3_sleep(5);
            continue;
        }
        if (err && errlen)
            snprintf(err, errlen, "backup failed: %s", sqlite3_errstr(r));
        rc = ST_DB;
        break;
    }
    sqlite3_backup_finish(bk);
    bk = NULL;
    /* The copied header says WAL; make the backup one self-contained file
     * (no -wal/-shm beside it) that can be copied or mailed as it is. */
    if (rc == ST_OK && sqlite3_exec(dest, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) != SQLITE_OK) {
        if (err && errlen)
            snprintf(err, errlen, "cannot finish backup file %s: %s", dest_path, sqlite3_errmsg(dest));
        rc = ST_IO;
    }
out:
    if (bk)
        sqlite3_backup_finish(bk);
    sqlite3_close_v2(dest);
    return rc;
}
