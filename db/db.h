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
    DB_OPEN_ANY_VERSION = 1 << 2, /* skip the schema version check (backup of an old or new file) */
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

/* Groups several domain calls into one write transaction (an event and its
 * webhook outbox rows, say). Domain functions never open a transaction of
 * their own while one is open. */
enum status db_tx_begin(struct db *db, char *err, size_t errlen);
enum status db_tx_commit(struct db *db, char *err, size_t errlen);
void db_tx_rollback(struct db *db);

/* ---- group commit (db_batch.c) ----
 * A batcher is one committer thread with its own connection. Writers that
 * arrive while a commit is in progress wait in its queue; the committer then
 * runs all of them (at most DB_BATCH_MAX) in one transaction, each job
 * inside its own savepoint, and ends it with one COMMIT, so they share one
 * fsync instead of paying for one each. */
#define DB_BATCH_MAX 64
struct db_batcher;
struct db_batch_stats {
    long long batches, jobs; /* committed transactions and the jobs they carried */
    int largest;             /* the most jobs one transaction carried */
    int pending;             /* jobs waiting for the committer now */
};
/* Opens the committer's connection to path (schema already current) and
 * starts its thread. On success *out is set; free it with db_batcher_free(). */
enum status db_batcher_new(const char *path, struct db_batcher **out, char *err, size_t errlen);
/* Runs the jobs still queued, stops the thread and closes its connection.
 * Call it once no thread submits any more. NULL is a no-op. */
void db_batcher_free(struct db_batcher *b);
/* Runs fn(db, arg, err, errlen) on the committer's connection inside a
 * write transaction and blocks until that transaction is durably committed.
 * fn writes through domain functions; what it returns is kept for this job
 * alone: ST_OK keeps its writes, any other status rolls back to the job's
 * savepoint (its writes only) and is returned here with fn's message. When
 * the transaction as a whole fails (BEGIN, COMMIT, a lost transaction) every
 * job of it gets that error and none of its writes are kept. fn runs on the
 * committer thread: it may use only db and what arg points at, and any
 * outputs it stores there are valid once this returns ST_OK. Never call
 * this while holding a write transaction on another connection: the
 * committer would wait for it forever. */
enum status db_batch_submit(struct db_batcher *b,
                            enum status (*fn)(struct db *db, void *arg, char *err, size_t errlen), void *arg,
                            char *err, size_t errlen);
void db_batcher_stats(struct db_batcher *b, struct db_batch_stats *out);

/* Text sizes shared by the domain structs. */
#define DB_EMAIL_MAX 255
#define DB_NAME_MAX 201
#define DB_HASH_MAX 65      /* sha256 hex + NUL */
#define DB_ROLE_MAX 8
#define DB_TIER_MAX 16
#define DB_SOURCE_MAX 513
#define DB_KEY_MAX 201
#define DB_URL_MAX 2001

/* ---- teams, users, sessions, invites, login failures (db_team.c) ---- */
struct db_user {
    long long id, team_id;
    char email[DB_EMAIL_MAX];
    char role[DB_ROLE_MAX];        /* owner | member */
    char team_name[DB_NAME_MAX];
    long long created_at;
};

/* Creates a team and its first user (owner) in one transaction.
 * ST_CONFLICT when the email is taken. */
enum status db_team_create(struct db *db, const char *team_name, const char *email, const char *password_hash,
                           long long now, struct db_user *out, char *err, size_t errlen);
/* The user with this email and the stored password hash. ST_NOTFOUND if none. */
enum status db_user_by_email(struct db *db, const char *email, struct db_user *out, char *hash, size_t hashlen,
                             char *err, size_t errlen);
/* Calls fn for each member of the team, oldest first. */
enum status db_team_members(struct db *db, long long team_id,
                            int (*fn)(void *ud, const struct db_user *u), void *ud, char *err, size_t errlen);
/* Removes a member of the team (never the last owner). ST_NOTFOUND, ST_CONFLICT. */
enum status db_user_delete(struct db *db, long long team_id, long long user_id, char *err, size_t errlen);

enum status db_session_insert(struct db *db, const char *id_hash, long long user_id, const char *csrf_token,
                              long long now, long long expires_at, char *err, size_t errlen);
/* The user of a live session and its CSRF token. ST_NOTFOUND when missing or expired. */
enum status db_session_get(struct db *db, const char *id_hash, long long now, struct db_user *out,
                           char *csrf, size_t csrflen, char *err, size_t errlen);
enum status db_session_delete(struct db *db, const char *id_hash, char *err, size_t errlen);
/* Deletes expired sessions and login failures older than before. */
enum status db_purge_expired(struct db *db, long long now, long long before, char *err, size_t errlen);

struct db_invite {
    long long id, team_id;
    char role[DB_ROLE_MAX];
    long long created_at, expires_at, used_at;
    char used_by_email[DB_EMAIL_MAX];
};
enum status db_invite_insert(struct db *db, long long team_id, const char *token_hash, const char *role,
                             long long created_by, long long now, long long expires_at, long long *id,
                             char *err, size_t errlen);
enum status db_invite_list(struct db *db, long long team_id, int (*fn)(void *ud, const struct db_invite *i),
                           void *ud, char *err, size_t errlen);
enum status db_invite_delete(struct db *db, long long team_id, long long invite_id, char *err, size_t errlen);
/* ST_OK when the invite exists and is open; ST_NOTFOUND, ST_GONE otherwise
 * (a cheap check before spending PBKDF2 time on the new password). */
enum status db_invite_check(struct db *db, const char *token_hash, long long now, char *err, size_t errlen);
/* Creates the invited user and marks the invite used, in one transaction.
 * ST_NOTFOUND for an unknown token, ST_GONE when used or expired,
 * ST_CONFLICT when the email is taken. */
enum status db_invite_accept(struct db *db, const char *token_hash, const char *email, const char *password_hash,
                             long long now, struct db_user *out, char *err, size_t errlen);

/* Failed sign-ins (and sign-up attempts, under their own subject) for rate limits. */
enum status db_login_failure_add(struct db *db, const char *subject, long long now, char *err, size_t errlen);
enum status db_login_failure_count(struct db *db, const char *subject, long long since, int *count,
                                   char *err, size_t errlen);
enum status db_login_failure_clear(struct db *db, const char *subject, char *err, size_t errlen);

/* ---- API tokens (db_token.c) ---- */
struct db_token {
    long long id, team_id;
    char name[101];
    char prefix[16];
    long long created_by, created_at, last_used_at, revoked_at; /* 0 when never / not */
};
enum status db_token_insert(struct db *db, long long team_id, const char *name, const char *token_hash,
                            const char *prefix, long long created_by, long long now, long long *id,
                            char *err, size_t errlen);
enum status db_token_list(struct db *db, long long team_id, int (*fn)(void *ud, const struct db_token *t),
                          void *ud, char *err, size_t errlen);
/* ST_NOTFOUND when no such token in the team (or already revoked). */
enum status db_token_revoke(struct db *db, long long team_id, long long token_id, long long now,
                            char *err, size_t errlen);
/* Looks a live token up by its hash; records last use at most once a minute
 * so a busy CI token does not turn every read into a write. */
enum status db_token_auth(struct db *db, const char *token_hash, long long now, struct db_token *out,
                          char *err, size_t errlen);

/* ---- plans and revisions (db_plan.c) ---- */
struct db_plan {
    long long id, team_id;
    char title[DB_NAME_MAX];
    int revision;            /* the revision this struct holds */
    int current_revision;
    char tier[DB_TIER_MAX];
    char engine_version[64];
    char *workload_json;      /* heap, NULL in lists; db_plan_release frees */
    char *recommendation_json;
    long long created_at, updated_at, revision_created_at;
};
void db_plan_release(struct db_plan *p);

enum status db_plan_insert(struct db *db, long long team_id, long long user_id, const char *title,
                           const char *tier, const char *workload_json, const char *recommendation_json,
                           const char *engine_version, long long now, long long *id, char *err, size_t errlen);
/* A plan of the team at revision (0 = current). ST_NOTFOUND otherwise. */
enum status db_plan_get(struct db *db, long long team_id, long long plan_id, int revision, struct db_plan *out,
                        char *err, size_t errlen);
/* A new revision; NULL arguments keep the current value. Writes the new number to *revision. */
enum status db_plan_revise(struct db *db, long long team_id, long long plan_id, long long user_id,
                           const char *title, const char *tier, const char *workload_json,
                           const char *recommendation_json, const char *engine_version, long long now,
                           int *revision, char *err, size_t errlen);
/* ST_OK when the team has the plan, ST_NOTFOUND otherwise (no JSON read). */
enum status db_plan_exists(struct db *db, long long team_id, long long plan_id, char *err, size_t errlen);
enum status db_plan_delete(struct db *db, long long team_id, long long plan_id, char *err, size_t errlen);
/* Newest first; only ids below before_id when before_id > 0; title_filter
 * (or NULL) matches anywhere in the title, case-insensitively. At most limit rows. */
enum status db_plan_list(struct db *db, long long team_id, const char *title_filter, long long before_id,
                         int limit, int (*fn)(void *ud, const struct db_plan *p), void *ud,
                         char *err, size_t errlen);
/* Every revision of a plan, oldest first (no JSON bodies). */
enum status db_plan_revisions(struct db *db, long long team_id, long long plan_id,
                              int (*fn)(void *ud, const struct db_plan *p), void *ud, char *err, size_t errlen);

/* ---- reports (db_report.c) ---- */
struct db_report {
    long long id, plan_id, team_id;
    int revision;
    char tier[DB_TIER_MAX];
    char *content;            /* heap; NULL in lists */
    char sha256[DB_HASH_MAX];
    long long size_bytes;
    char *sections_json;      /* heap; NULL in lists */
    char verdict[8];
    char *findings_json;      /* heap; NULL in lists */
    char *calibration_json;   /* heap; {"measured", "calibration"} or NULL when nothing was measured */
    char source[DB_SOURCE_MAX];
    long long user_id, token_id;
    char idempotency_key[DB_KEY_MAX];
    long long created_at, checked_at;
};
void db_report_release(struct db_report *r);

/* Inserts r (id ignored) and its first verdict history row; writes the new id.
 * ST_CONFLICT when the plan already has a report with that idempotency key. */
enum status db_report_insert(struct db *db, const struct db_report *r, long long *id, char *err, size_t errlen);
enum status db_report_get(struct db *db, long long team_id, long long plan_id, long long report_id,
                          struct db_report *out, char *err, size_t errlen);
enum status db_report_by_key(struct db *db, long long plan_id, const char *key, struct db_report *out,
                             char *err, size_t errlen);
/* Newest first, without content, sections or findings: at most limit
 * reports whose id is below before_id (0: from the newest). */
enum status db_report_list(struct db *db, long long team_id, long long plan_id, long long before_id,
                           int limit, int (*fn)(void *ud, const struct db_report *r), void *ud, char *err,
                           size_t errlen);
/* Calls fn with each report of the plan, content included, for a re-check. */
enum status db_report_each_full(struct db *db, long long team_id, long long plan_id,
                                int (*fn)(void *ud, const struct db_report *r), void *ud, char *err, size_t errlen);
/* Stores a new verdict for the report and appends it to its history. */
enum status db_report_recheck(struct db *db, long long report_id, int revision, const char *tier,
                              const char *sections_json, const char *verdict, const char *findings_json,
                              const char *calibration_json, long long now, char *err, size_t errlen);
struct db_report_check {
    int revision;
    char tier[DB_TIER_MAX];
    char verdict[8];
    long long checked_at;
};
/* The verdict history of one report, oldest first. */
enum status db_report_history(struct db *db, long long report_id,
                              int (*fn)(void *ud, const struct db_report_check *c), void *ud,
                              char *err, size_t errlen);

/* ---- shares (db_share.c) ---- */
struct db_share {
    long long id, plan_id, team_id;
    long long created_by, created_at, expires_at, revoked_at; /* revoked_at 0 when live */
};
enum status db_share_insert(struct db *db, long long team_id, long long plan_id, const char *token_hash,
                            long long created_by, long long now, long long expires_at, long long *id,
                            char *err, size_t errlen);
enum status db_share_list(struct db *db, long long team_id, long long plan_id,
                          int (*fn)(void *ud, const struct db_share *s), void *ud, char *err, size_t errlen);
/* ST_NOTFOUND when no such share in the team. Revoking twice is fine. */
enum status db_share_revoke(struct db *db, long long team_id, long long share_id, long long now,
                            char *err, size_t errlen);
/* The share with this token hash, live or not (the caller tells 410 from 404). */
enum status db_share_by_token(struct db *db, const char *token_hash, struct db_share *out, char *err,
                              size_t errlen);

/* ---- webhooks and their delivery outbox (db_webhook.c) ---- */
struct db_webhook {
    long long id, team_id;
    char url[DB_URL_MAX];
    char events[128];
    long long created_at;
};
enum status db_webhook_insert(struct db *db, long long team_id, const char *url, const char *secret,
                              const char *events, long long created_by, long long now, long long *id,
                              char *err, size_t errlen);
enum status db_webhook_list(struct db *db, long long team_id, int (*fn)(void *ud, const struct db_webhook *w),
                            void *ud, char *err, size_t errlen);
enum status db_webhook_delete(struct db *db, long long team_id, long long webhook_id, char *err, size_t errlen);
enum status db_webhook_exists(struct db *db, long long team_id, long long webhook_id, char *err, size_t errlen);
/* Queues payload for every webhook of the team subscribed to event; writes how many. */
enum status db_webhook_enqueue(struct db *db, long long team_id, const char *event, const char *payload,
                               long long now, int *queued, char *err, size_t errlen);

struct db_delivery {
    long long id, webhook_id;
    char event[32];
    char state[12];          /* pending | delivered | failed */
    int attempts;
    long long next_attempt_at, created_at, delivered_at;
    int last_status;         /* HTTP status of the last attempt, 0 when none */
    char last_error[256];
    /* Filled by db_delivery_due only (the worker needs them to send): */
    char url[DB_URL_MAX];
    char *secret;            /* heap; wiped and freed by db_delivery_release */
    char *payload;           /* heap */
};
void db_delivery_release(struct db_delivery *d);
/* Pending deliveries due at now, oldest first, at most limit; fn gets each with url, secret and payload. */
enum status db_delivery_due(struct db *db, long long now, int limit,
                            int (*fn)(void *ud, const struct db_delivery *d), void *ud, char *err, size_t errlen);
/* Records one attempt's outcome. */
enum status db_delivery_update(struct db *db, long long id, const char *state, int attempts,
                               long long next_attempt_at, int last_status, const char *last_error,
                               long long delivered_at, char *err, size_t errlen);
/* The delivery log of one webhook of the team, newest first. */
enum status db_delivery_list(struct db *db, long long team_id, long long webhook_id, int limit,
                             int (*fn)(void *ud, const struct db_delivery *d), void *ud, char *err, size_t errlen);
/* The earliest next_attempt_at of pending deliveries, 0 when none. */
enum status db_delivery_next_due(struct db *db, long long *at, char *err, size_t errlen);
/* Reads the GPU/fabric/storage/model catalog (migration 0002) into *out and
 * validates it. out is large (~150 KB): callers usually heap-allocate it. */
enum status db_catalog_load(struct db *db, struct catalog *out, char *err, size_t errlen);

#endif
