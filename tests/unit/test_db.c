/* test_db.c: the db module: connection settings, migrations, health checks, backup. */
#include <check.h>
#include <sqlite3.h>
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
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
