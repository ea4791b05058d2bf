/* db.h: the storage module, the only code that knows SQL or sqlite3.h.
 *
 * A struct db is one SQLite connection, configured on open (WAL, foreign
 * keys, busy timeout, synchronous=FULL). Use one per thread. Callers see
 * domain functions only (db_plan_insert, db_report_list, ...), never a raw
 * statement. Errors are enum status plus a message in a caller buffer. */
#ifndef GPUPLAN_DB_H
#define GPUPLAN_DB_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct db;
struct catalog;

enum db_open_flags {
    DB_OPEN_MIGRATE = 1 << 0,  /* apply pending migrations (the server does this once at start) */
    DB_OPEN_READONLY = 1 << 1, /* open without write access (backup source, inspection) */
};

/* Opens (creating if needed) the database at path, ":memory:" for a private
 * in-memory one. Without DB_OPEN_MIGRATE the schema must already be current.
 * A database written by a newer gpuplan is refused with ST_TOONEW.
 * On success *out is set; free it with db_close(). */
enum status db_open(const char *path, unsigned flags, struct db **out, char *err, size_t errlen);
void db_close(struct db *db);

/* The schema version stored in the file (PRAGMA user_version). */
int db_schema_version(struct db *db);
/* The newest migration this binary knows. */
int db_migrations_latest(void);
/* Applies pending migrations, each in one transaction that also sets user_version. */
enum status db_migrate(struct db *db, char *err, size_t errlen);

/* Answers when the database answers a trivial query (/healthz). */
enum status db_ping(struct db *db);
/* PRAGMA quick_check (/readyz). */
enum status db_quick_check(struct db *db, char *err, size_t errlen);
/* PRAGMA integrity_check; ST_OK only when it says "ok". */
enum status db_integrity_check(struct db *db, char *err, size_t errlen);

/* Reads one PRAGMA as text into out (for tests and diagnostics). */
enum status db_pragma_text(struct db *db, const char *name, char *out, size_t outlen);

/* Copies the whole database to dest_path with SQLite's online backup API,
 * safe while other connections (the running server) write. */
enum status db_backup_to(struct db *db, const char *dest_path, char *err, size_t errlen);

/* Reads the GPU/fabric/storage/model catalog (migration 0002) into *out and
 * validates it. out is large (~150 KB): callers usually heap-allocate it. */
enum status db_catalog_load(struct db *db, struct catalog *out, char *err, size_t errlen);

#endif
