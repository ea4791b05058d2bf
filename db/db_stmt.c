/* db_stmt.c: each connection's cache of prepared statements.
 *
 * Compiling SQL is most of what a short query costs: profiling report
 * uploads showed sqlite3_prepare_v2 at a third of the server's CPU, spent
 * re-parsing the same dozen statement texts (token lookup, plan read,
 * report insert, SAVEPOINT ...) on every request. So db_prepare hands out a
 * statement this connection compiled before when the text matches, and
 * db_finish resets it (bindings cleared, any read it held ended) instead of
 * finalizing it. A connection belongs to one thread, so the cache needs no
 * lock.
 *
 * The key is the SQL text itself, not the pointer: a few statements are
 * built in buffers (PRAGMA user_version = N). A statement still in use
 * (a nested query of the same text) is not handed out twice: the second
 * caller gets a fresh one that db_finish finalizes. When every slot is
 * full the least recently used idle one is finalized to make room. SQLite
 * re-compiles a cached statement by itself after a schema change. */
#include <string.h>

#include "db_int.h"

static unsigned sql_hash(const char *sql)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)sql; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

enum status db_prepare(struct db *db, const char *sql, sqlite3_stmt **out, char *err, size_t errlen)
{
    unsigned h = sql_hash(sql);
    struct db_stmt_slot *victim = NULL;
    int in_use = 0;

    for (int i = 0; i < DB_STMT_CACHE; i++) {
        struct db_stmt_slot *s = &db->stmts[i];
        if (s->st && s->hash == h && strcmp(sqlite3_sql(s->st), sql) == 0) {
            if (s->busy) {
                in_use = 1; /* nested use of the same text: an uncached one below */
                break;
            }
            s->busy = 1;
            s->used = ++db->stmt_clock;
            *out = s->st;
            return ST_OK;
        }
        if (!s->busy && (!victim || (victim->st && (!s->st || s->used < victim->used))))
            victim = s;
    }
    if (in_use || !victim) {
        if (sqlite3_prepare_v2(db->sql, sql, -1, out, NULL) != SQLITE_OK) {
            *out = NULL;
            return db_fail(db, "cannot prepare statement", err, errlen);
        }
        return ST_OK;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        *out = NULL;
        return db_fail(db, "cannot prepare statement", err, errlen);
    }
    if (!st) { /* only whitespace or a comment: nothing to cache */
        *out = NULL;
        return ST_OK;
    }
    sqlite3_finalize(victim->st);
    victim->st = st;
    victim->hash = h;
    victim->busy = 1;
    victim->used = ++db->stmt_clock;
    *out = st;
    return ST_OK;
}

void db_finish(struct db *db, sqlite3_stmt *st)
{
    if (!st)
        return;
    for (int i = 0; i < DB_STMT_CACHE; i++) {
        if (db->stmts[i].st == st) {
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            db->stmts[i].busy = 0;
            return;
        }
    }
    sqlite3_finalize(st);
}

void db_stmt_cache_clear(struct db *db)
{
    for (int i = 0; i < DB_STMT_CACHE; i++) {
        sqlite3_finalize(db->stmts[i].st);
        db->stmts[i].st = NULL;
        db->stmts[i].busy = 0;
    }
}
