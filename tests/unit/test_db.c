/* test_db.c: the db module: connection settings, migrations, health checks,
 * backup, and group commit (db_batch.c). */
#include <check.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

static char dir[64];
static char path[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gpuplan-db-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
}

static void teardown(void)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(open_applies_every_migration_and_sets_user_version)
{
    struct db *db = NULL;
    char err[256];
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_int_ge(db_migrations_latest(), 1);
    ck_assert_int_eq(db_schema_version(db), db_migrations_latest());
    db_close(db);
}
END_TEST

START_TEST(every_connection_uses_wal_foreign_keys_busy_timeout_and_full_sync)
{
    struct db *db = NULL;
    char err[256], v[32];
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_pragma_text(db, "journal_mode", v, sizeof v), ST_OK);
    ck_assert_str_eq(v, "wal");
    ck_assert_int_eq(db_pragma_text(db, "foreign_keys", v, sizeof v), ST_OK);
    ck_assert_str_eq(v, "1");
    ck_assert_int_eq(db_pragma_text(db, "synchronous", v, sizeof v), ST_OK);
    ck_assert_str_eq(v, "2"); /* FULL */
    ck_assert_int_eq(db_pragma_text(db, "busy_timeout", v, sizeof v), ST_OK);
    ck_assert_int_ge(strtol(v, NULL, 10), 1000);
    ck_assert_int_eq(db_pragma_text(db, "page_size", v, sizeof v), ST_INVALID);
    db_close(db);
}
END_TEST

START_TEST(migrating_twice_is_a_no_op)
{
    struct db *db = NULL;
    char err[256];
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    int v = db_schema_version(db);
    ck_assert_int_eq(db_migrate(db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_schema_version(db), v);
    db_close(db);
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_schema_version(db), v);
    db_close(db);
}
END_TEST

START_TEST(a_newer_database_is_refused_and_left_alone)
{
    sqlite3 *raw = NULL;
    struct db *db = NULL;
    char err[256] = "";
    ck_assert_int_eq(sqlite3_open(path, &raw), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(raw, "PRAGMA user_version = 4242", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_TOONEW);
    ck_assert_ptr_null(db);
    ck_assert_ptr_nonnull(strstr(err, "newer"));
    ck_assert_int_eq(db_open(path, 0, &db, err, sizeof err), ST_TOONEW);
    ck_assert_int_eq(sqlite3_open(path, &raw), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, NULL);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(st, 0), 4242);
    sqlite3_finalize(st);
    sqlite3_close(raw);
}
END_TEST

START_TEST(an_unmigrated_database_is_refused_without_the_migrate_flag)
{
    struct db *db = NULL;
    char err[256] = "";
    ck_assert_int_eq(db_open(path, 0, &db, err, sizeof err), ST_DB);
    ck_assert_ptr_nonnull(strstr(err, "older"));
}
END_TEST

START_TEST(ping_quick_check_and_integrity_check_pass_on_a_fresh_database)
{
    struct db *db = NULL;
    char err[256];
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_ping(db), ST_OK);
    ck_assert_int_eq(db_quick_check(db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_integrity_check(db, err, sizeof err), ST_OK);
    db_close(db);
}
END_TEST

START_TEST(backup_copies_a_consistent_database)
{
    struct db *db = NULL, *copy = NULL;
    char err[256], dest[160];
    snprintf(dest, sizeof dest, "%s/backup.db", dir);
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_backup_to(db, dest, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_open(dest, 0, &copy, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_schema_version(copy), db_schema_version(db));
    ck_assert_int_eq(db_integrity_check(copy, err, sizeof err), ST_OK);
    db_close(copy);
    db_close(db);
}
END_TEST

START_TEST(opening_an_unwritable_path_names_the_file)
{
    struct db *db = NULL;
    char err[256] = "";
    ck_assert_int_eq(db_open("/nonexistent-dir/x/y.db", DB_OPEN_MIGRATE, &db, err, sizeof err), ST_DB);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent-dir/x/y.db"));
}
END_TEST

/* ---- group commit ---- */

#define WRITERS 8

/* The first job of a test: it holds the committer until `want` jobs are
 * queued behind it, so that they all land in the one next transaction. */
struct gate {
    struct db_batcher *b;
    int want;
    atomic_int running;
};

static enum status gate_job(struct db *db, void *arg, char *err, size_t errlen)
{
    struct gate *g = arg;
    struct db_batch_stats s;
    (void)db;
    (void)err;
    (void)errlen;
    atomic_store(&g->running, 1);
    for (int i = 0; i < 3000; i++) {
        db_batcher_stats(g->b, &s);
        if (s.pending >= g->want)
            break;
        usleep(2000);
    }
    return ST_OK;
}

static void *gate_thread(void *arg)
{
    struct gate *g = arg;
    char err[256];
    ck_assert_int_eq(db_batch_submit(g->b, gate_job, g, err, sizeof err), ST_OK);
    return NULL;
}

/* Starts the gate and waits until the committer is inside it. */
static void gate_start(struct gate *g, struct db_batcher *b, int want, pthread_t *th)
{
    g->b = b;
    g->want = want;
    atomic_init(&g->running, 0);
    ck_assert_int_eq(pthread_create(th, NULL, gate_thread, g), 0);
    while (!atomic_load(&g->running))
        usleep(1000);
}

struct writer {
    struct db_batcher *b;
    enum status (*fn)(struct db *db, void *arg, char *err, size_t errlen);
    char email[64];
    int refuse;          /* the job writes, then fails on its own */
    struct db_report *report;
    long long id;        /* out */
    enum status st;      /* out */
    char err[256];
};

static enum status team_job(struct db *db, void *arg, char *err, size_t errlen)
{
    struct writer *w = arg;
    struct db_user u;
    enum status st = db_team_create(db, "Team", w->email, "hash", 1, &u, err, errlen);
    if (st == ST_OK && w->refuse) {
        snprintf(err, errlen, "refused after writing");
        return ST_INVALID;
    }
    return st;
}

static enum status report_job(struct db *db, void *arg, char *err, size_t errlen)
{
    struct writer *w = arg;
    return db_report_insert(db, w->report, &w->id, err, errlen);
}

static void *writer_thread(void *arg)
{
    struct writer *w = arg;
    w->st = db_batch_submit(w->b, w->fn, w, w->err, sizeof w->err);
    return NULL;
}

/* Runs the writers behind a gate: all of them in one transaction. */
static void run_writers_in_one_batch(struct db_batcher *b, struct writer *w, int n)
{
    struct gate g;
    pthread_t gth, th[WRITERS];
    struct db_batch_stats s;
    gate_start(&g, b, n, &gth);
    for (int i = 0; i < n; i++) {
        w[i].b = b;
        ck_assert_int_eq(pthread_create(&th[i], NULL, writer_thread, &w[i]), 0);
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    pthread_join(gth, NULL);
    db_batcher_stats(b, &s);
    ck_assert_int_eq(s.largest, n);
    ck_assert_int_eq(s.pending, 0);
}

START_TEST(batched_writers_commit_together_and_a_failing_job_fails_alone)
{
    struct db *db = NULL;
    struct db_batcher *b = NULL;
    struct writer w[WRITERS];
    struct db_user u;
    struct db_batch_stats s;
    char err[256], hash[DB_HASH_MAX + 100];
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_team_create(db, "Taken", "taken@t.test", "hash", 1, &u, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_batcher_new(path, &b, err, sizeof err), ST_OK);

    memset(w, 0, sizeof w);
    for (int i = 0; i < WRITERS; i++) {
        w[i].fn = team_job;
        snprintf(w[i].email, sizeof w[i].email, "writer%d@t.test", i);
    }
    w[2].refuse = 1;                                               /* fails after its insert */
    snprintf(w[5].email, sizeof w[5].email, "taken@t.test"); /* fails on the unique email */
    run_writers_in_one_batch(b, w, WRITERS);
    db_batcher_stats(b, &s);
    ck_assert_int_eq(s.batches, 2); /* the gate's, then all the writers' */
    ck_assert_int_eq(s.jobs, WRITERS + 1);
    db_batcher_free(b);

    for (int i = 0; i < WRITERS; i++) {
        enum status want = i == 2 ? ST_INVALID : i == 5 ? ST_CONFLICT : ST_OK;
        ck_assert_msg(w[i].st == want, "writer %d: %s (%s)", i, status_str(w[i].st), w[i].err);
        enum status found = db_user_by_email(db, w[i].email, &u, hash, sizeof hash, err, sizeof err);
        ck_assert_int_eq(found, i == 2 ? ST_NOTFOUND : ST_OK);
    }
    ck_assert_str_eq(w[2].err, "refused after writing");
    db_close(db);
}
END_TEST

START_TEST(two_uploads_with_one_idempotency_key_in_one_batch_store_one_report)
{
    struct db *db = NULL;
    struct db_batcher *b = NULL;
    struct writer w[WRITERS];
    struct db_user u;
    struct db_report r, stored;
    long long plan_id = 0;
    char err[256];
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_team_create(db, "Team", "owner@t.test", "hash", 1, &u, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_plan_insert(db, u.team_id, u.id, "plan", "recommended", "{}", "{}", "test", 1, &plan_id,
                                    err, sizeof err),
                     ST_OK);
    memset(&r, 0, sizeof r);
    r.plan_id = plan_id;
    r.team_id = u.team_id;
    r.revision = 1;
    snprintf(r.tier, sizeof r.tier, "recommended");
    r.content = "report text";
    r.size_bytes = 11;
    snprintf(r.sha256, sizeof r.sha256, "00ff");
    r.sections_json = "{}";
    snprintf(r.verdict, sizeof r.verdict, "pass");
    r.findings_json = "[]";
    r.user_id = u.id;
    snprintf(r.idempotency_key, sizeof r.idempotency_key, "ci-run-1");
    r.created_at = r.checked_at = 1;
    ck_assert_int_eq(db_batcher_new(path, &b, err, sizeof err), ST_OK);

    memset(w, 0, sizeof w);
    for (int i = 0; i < WRITERS; i++) {
        w[i].fn = report_job;
        w[i].report = &r;
    }
    run_writers_in_one_batch(b, w, WRITERS);
    db_batcher_free(b);

    int won = -1;
    for (int i = 0; i < WRITERS; i++) {
        if (w[i].st == ST_OK) {
            ck_assert_msg(won < 0, "writers %d and %d both stored the report", won, i);
            won = i;
        } else {
            ck_assert_msg(w[i].st == ST_CONFLICT, "writer %d: %s (%s)", i, status_str(w[i].st), w[i].err);
            ck_assert_ptr_nonnull(strstr(w[i].err, "Idempotency-Key"));
        }
    }
    ck_assert_int_ge(won, 0);
    ck_assert_int_eq(db_report_by_key(db, plan_id, "ci-run-1", &stored, err, sizeof err), ST_OK);
    ck_assert_int_eq(stored.id, w[won].id);
    db_report_release(&stored);
    db_close(db);
}
END_TEST

static enum status count_job(struct db *db, void *arg, char *err, size_t errlen)
{
    struct db_user u;
    char email[64];
    int *n = arg;
    snprintf(email, sizeof email, "drain%d@t.test", (*n)++);
    return db_team_create(db, "Team", email, "hash", 1, &u, err, errlen);
}

START_TEST(a_lone_writer_commits_at_once_in_a_transaction_of_its_own)
{
    struct db *db = NULL;
    struct db_batcher *b = NULL;
    struct db_batch_stats s;
    struct db_user u;
    char err[256], hash[DB_HASH_MAX + 100];
    int n = 0;
    ck_assert_int_eq(db_open(path, DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_int_eq(db_batcher_new(path, &b, err, sizeof err), ST_OK);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(db_batch_submit(b, count_job, &n, err, sizeof err), ST_OK);
    db_batcher_stats(b, &s);
    ck_assert_int_eq(s.batches, 3);
    ck_assert_int_eq(s.largest, 1);
    /* Committed means visible to any other connection at once. */
    ck_assert_int_eq(db_user_by_email(db, "drain2@t.test", &u, hash, sizeof hash, err, sizeof err), ST_OK);
    db_batcher_free(b);
    db_batcher_free(NULL);
    db_close(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("db");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, open_applies_every_migration_and_sets_user_version);
    tcase_add_test(tc, every_connection_uses_wal_foreign_keys_busy_timeout_and_full_sync);
    tcase_add_test(tc, migrating_twice_is_a_no_op);
    tcase_add_test(tc, a_newer_database_is_refused_and_left_alone);
    tcase_add_test(tc, an_unmigrated_database_is_refused_without_the_migrate_flag);
    tcase_add_test(tc, ping_quick_check_and_integrity_check_pass_on_a_fresh_database);
    tcase_add_test(tc, backup_copies_a_consistent_database);
    tcase_add_test(tc, opening_an_unwritable_path_names_the_file);
    tcase_add_test(tc, batched_writers_commit_together_and_a_failing_job_fails_alone);
    tcase_add_test(tc, two_uploads_with_one_idempotency_key_in_one_batch_store_one_report);
    tcase_add_test(tc, a_lone_writer_commits_at_once_in_a_transaction_of_its_own);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
