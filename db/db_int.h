/* db_int.h: what the files of the db module share and nobody else sees. */
#ifndef GPUPLAN_DB_INT_H
#define GPUPLAN_DB_INT_H

#include <sqlite3.h>

#include "db.h"

/* Prepared statements a connection keeps for reuse (db_stmt.c). The upload
 * path uses about fifteen texts; the rest of the API shares what is left. */
#define DB_STMT_CACHE 48
struct db_stmt_slot {
    sqlite3_stmt *st;   /* NULL: a free slot */
    unsigned hash;      /* of the SQL text */
    int busy;           /* handed out by db_prepare, not yet back through db_finish */
    unsigned long used; /* stmt_clock at the last hand-out: the least recent idle slot is reused */
};

struct db {
    sqlite3 *sql;
    int writer_turn; /* holds the process's writer turn (db.c), between BEGIN and COMMIT/ROLLBACK */
    unsigned long stmt_clock;
    struct db_stmt_slot stmts[DB_STMT_CACHE];
};

struct db_migration {
    int version;
    const char *name;
    const char *sql;
};

/* Generated at build time from migrations/NNNN_name.sql (db/embed_migrations.cmake). */
extern const struct db_migration db_migrations[];
extern const int db_migrations_count;

/* Writes "what: sqlite message" into err. Always returns ST_DB. */
enum status db_fail(struct db *db, const char *what, char *err, size_t errlen);

/* Runs sql (no parameters, no rows) or fails with ST_DB and "sql: message". */
enum status db_exec(struct db *db, const char *sql, char *err, size_t errlen);

/* Prepares sql or fails with ST_DB and a message. The statement may come
 * from the connection's cache (db_stmt.c): give it back with db_finish,
 * never sqlite3_finalize. */
enum status db_prepare(struct db *db, const char *sql, sqlite3_stmt **out, char *err, size_t errlen);
/* Ends the use of a statement from db_prepare: a cached one is reset for
 * the next caller (ending any read it held), any other is finalized.
 * NULL is a no-op. */
void db_finish(struct db *db, sqlite3_stmt *st);
/* Finalizes every cached statement (before the connection closes). */
void db_stmt_cache_clear(struct db *db);

/* Transactions. Writers take the write lock up front (BEGIN IMMEDIATE) so two
 * connections never deadlock upgrading read locks; the busy timeout then
 * queues them instead of surfacing SQLITE_BUSY. */
enum status db_begin_write(struct db *db, char *err, size_t errlen);
enum status db_commit(struct db *db, char *err, size_t errlen);
void db_rollback(struct db *db);

/* Copies column text into a caller buffer, "" for NULL. */
void db_column_copy(sqlite3_stmt *st, int col, char *out, size_t outlen);
/* Returns a heap copy of column text (NULL for NULL); caller frees with free(). */
char *db_column_dup(sqlite3_stmt *st, int col);

/* Binds s as text, or NULL when s is NULL. */
int db_bind_text(sqlite3_stmt *st, int idx, const char *s);
/* Binds v, or NULL when v is 0 (optional foreign keys, unset times). */
int db_bind_id(sqlite3_stmt *st, int idx, long long v);
/* Steps st expecting no rows. A unique or primary-key violation is
 * ST_CONFLICT (with err set); anything else failing is ST_DB. */
enum status db_step_done(struct db *db, sqlite3_stmt *st, const char *what, char *err, size_t errlen);
/* Steps a statement that returns one id (INSERT ... RETURNING id) and
 * finishes it (db_finish): ST_OK with *id; ST_NOTFOUND when no row came back (an
 * INSERT ... SELECT that matched nothing); ST_CONFLICT on a unique
 * violation; ST_DB otherwise. */
enum status db_step_id(struct db *db, sqlite3_stmt *st, const char *what, long long *id, char *err, size_t errlen);
/* Prepares sql, binds args[0..n) to its parameters in order, steps it and
 * finishes it: the whole of a write whose parameters are all integers. With
 * must_change, changing no row is ST_NOTFOUND (the team has no such object). */
enum status db_write_ints(struct db *db, const char *sql, const long long *args, int n, int must_change,
                          const char *what, char *err, size_t errlen);
/* Ends a loop of sqlite3_step over rows: finishes st and answers rc, or
 * ST_DB when the last step was neither a row (the caller stopped early) nor
 * the end. */
enum status db_rows_end(struct db *db, sqlite3_stmt *st, int step, enum status rc, const char *what, char *err,
                        size_t errlen);
/* Rows changed by the last statement on this connection. */
int db_changes(struct db *db);

/* For domain functions that write several rows: opens a write transaction
 * unless the caller already holds one (*owned says which), and closes it
 * with commit or rollback by st. Returns the final status. */
enum status db_tx_enter(struct db *db, int *owned, char *err, size_t errlen);
enum status db_tx_leave(struct db *db, int owned, enum status st, char *err, size_t errlen);

#endif
