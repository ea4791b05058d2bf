/* test_ops.c: operations end to end: `gpuplan backup` while the database is
 * being written, /readyz failing on a damaged database file, and a started
 * server's workers holding their database connections already.
 *
 * The writer is a second connection in this process inserting rows one
 * transaction at a time while the server is up on the same file, which is
 * exactly what the backup must survive: pages changing under the copy. Each
 * row's id is one more than the last, so a consistent snapshot holds exactly
 * the ids 1..n with no gap; a torn copy would show a gap or fail its check. */
#include <check.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "storm.h"

struct writer {
    const char *path;
    volatile int stop;
    long written;
    int failed;
};

static void *writer_run(void *arg)
{
    struct writer *w = arg;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open(w->path, &db) != SQLITE_OK) {
        w->failed = 1;
        return NULL;
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_exec(db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
    if (sqlite3_prepare_v2(db, "INSERT INTO teams (name, created_at) VALUES (?, 0)", -1, &st, NULL) != SQLITE_OK) {
        w->failed = 1;
        sqlite3_close(db);
        return NULL;
    }
    /* Rows of a few hundred bytes so the table spans many pages and the
     * backup copies pages that keep changing. */
    char name[200];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    while (!w->stop) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) {
            w->failed = 1;
            break;
        }
        sqlite3_reset(st);
        w->written++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return NULL;
}

/* Counts teams and checks their ids run 1..n without a gap. */
static long count_contiguous_teams(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long n = -1;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT count(*), coalesce(min(id), 1), coalesce(max(id), 0) FROM teams",
                                        -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    n = sqlite3_column_int64(st, 0);
    ck_assert_int_eq(sqlite3_column_int64(st, 1), 1);
    ck_assert_int_eq(sqlite3_column_int64(st, 2), n);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static void assert_integrity_ok(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

START_TEST(backup_while_the_database_is_written_is_consistent_and_verified)
{
    struct e2e_server srv;
    struct e2e_resp r;
    struct writer w;
    pthread_t th;
    char out[400], wal[420];

    ck_assert_int_eq(e2e_start(&srv, NULL, NULL), 0);
    memset(&w, 0, sizeof w);
    w.path = srv.db_path;
    ck_assert_int_eq(pthread_create(&th, NULL, writer_run, &w), 0);
    while (w.written < 200 && !w.failed)
        usleep(1000);

    long prev = 0;
    for (int round = 0; round < 5; round++) {
        char *so = NULL, *se = NULL;
        snprintf(out, sizeof out, "%s/backup.db", srv.dir);
        long before = w.written;
        const char *argv[] = {"gpuplan", "backup", "--db", srv.db_path, out, NULL};
        int rc = e2e_run(argv, NULL, &so, &se);
        long after = w.written;
        ck_assert_msg(rc == 0, "backup exited %d: %s", rc, se);
        ck_assert_ptr_nonnull(strstr(so, "integrity ok"));
        free(so);
        free(se);

        /* One file, no WAL beside it, that passes the full check by itself. */
        snprintf(wal, sizeof wal, "%s-wal", out);
        ck_assert_int_ne(access(wal, F_OK), 0);
        assert_integrity_ok(out);
        long n = count_contiguous_teams(out);
        ck_assert_msg(n >= before && n <= after + 1, "copy holds %ld rows, writer was at %ld..%ld", n, before, after);
        ck_assert_int_ge(n, prev);
        prev = n;
        /* The server went on serving meanwhile. */
        ck_assert_int_eq(e2e_request(&srv, "GET", "/readyz", NULL, NULL, 0, &r), 0);
        ck_assert_int_eq(r.status, 200);
        e2e_resp_release(&r);
    }
    w.stop = 1;
    pthread_join(th, NULL);
    ck_assert_int_eq(w.failed, 0);
    ck_assert(prev > 200);

    /* A copy restores: a server starts on it and is ready. */
    struct e2e_server restored;
    ck_assert_int_eq(e2e_start(&restored, out, NULL), 0);
    ck_assert_int_eq(e2e_request(&restored, "GET", "/readyz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_stop(&restored), 0);
    ck_assert_int_eq(e2e_stop(&srv), 0);
}
END_TEST

/* The server itself writing: 16 CI clients upload reports through HTTP
 * while backups run. Report ids are assigned in commit order with no gaps
 * (nothing is deleted), so a consistent copy holds a run of ids with no hole. */
START_TEST(backup_while_the_server_takes_uploads_is_consistent)
{
    struct e2e_server srv;
    struct storm_team team;
    struct storm s;
    pthread_t threads[16];
    char why[512], out[400];
    static const char *const extra[] = {"--threads", "40", "--quiet", NULL};

    ck_assert_int_eq(e2e_start(&srv, NULL, extra), 0);
    int rc = storm_setup(&srv, &team, why, sizeof why);
    ck_assert_msg(rc == 0, "setup: %s", rc == 1 ? "no report endpoints in this build" : why);
    storm_init(&s, &srv, &team);
    ck_assert_int_eq(storm_start(&s, threads, 16, 0), 0);
    while (s.uploads < 50 && !s.server_errors)
        usleep(10000);
    for (int round = 0; round < 3; round++) {
        char *so = NULL, *se = NULL;
        snprintf(out, sizeof out, "%s/backup-%d.db", srv.dir, round);
        pthread_mutex_lock(&s.lock);
        long before = (long)s.nacked;
        pthread_mutex_unlock(&s.lock);
        const char *argv[] = {"gpuplan", "backup", "--db", srv.db_path, out, NULL};
        int brc = e2e_run(argv, NULL, &so, &se);
        ck_assert_msg(brc == 0, "backup exited %d: %s", brc, se);
        free(so);
        free(se);
        assert_integrity_ok(out);

        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;
        ck_assert_int_eq(sqlite3_open_v2(out, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT count(*), coalesce(min(id), 1), coalesce(max(id), 0) FROM reports",
                                            -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        long n = sqlite3_column_int64(st, 0), lo = sqlite3_column_int64(st, 1), hi = sqlite3_column_int64(st, 2);
        sqlite3_finalize(st);
        sqlite3_close(db);
        ck_assert_msg(n == hi - lo + 1, "the copy has holes: %ld rows with ids %ld..%ld", n, lo, hi);
        ck_assert_msg(n >= before, "the copy holds %ld reports, %ld were acknowledged before it began", n, before);
    }
    storm_join(&s, threads, 16);
    ck_assert_msg(s.server_errors == 0 && s.busy_errors == 0 && s.other_errors == 0, "uploads: %s", s.first_error);
    storm_release(&s);
    ck_assert_int_eq(e2e_stop(&srv), 0);
}
END_TEST

START_TEST(backup_refuses_a_missing_database_and_bad_usage)
{
    char *so = NULL, *se = NULL;
    const char *help[] = {"gpuplan", "backup", "--help", NULL};
    ck_assert_int_eq(e2e_run(help, NULL, &so, &se), 0);
    ck_assert_ptr_nonnull(strstr(so, "--db"));
    free(so);
    free(se);

    const char *missing[] = {"gpuplan", "backup", "--db", "/nonexistent/gpuplan.db", "/tmp/x.db", NULL};
    ck_assert_int_eq(e2e_run(missing, NULL, &so, &se), 1);
    ck_assert_ptr_nonnull(strstr(se, "gpuplan: backup: cannot open database"));
    free(so);
    free(se);
    ck_assert_int_ne(access("/nonexistent/gpuplan.db", F_OK), 0);

    const char *noout[] = {"gpuplan", "backup", "--db", "x.db", NULL};
    ck_assert_int_eq(e2e_run(noout, NULL, &so, &se), 2);
    free(so);
    free(se);
}
END_TEST

/* Overwrites the root pages of the team data (teams, users, plans, reports
 * and their indexes) with a byte pattern no b-tree page has. The schema's own
 * pages and the catalog the server loads at start stay intact, so the file
 * opens and the server starts; quick_check reads every page and meets the
 * garbage, as would the first request that touches team data. */
static void corrupt_table_roots(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long pages[256], page_size = 0;
    int n = 0;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    page_size = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    ck_assert(page_size >= 512 && page_size <= 65536);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE rootpage > 1 AND tbl_name IN "
                                        "('teams', 'users', 'plans', 'plan_revisions', 'reports')", -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW && n < 256)
        pages[n++] = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    ck_assert_int_ge(n, 3);

    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    char *junk = malloc((size_t)page_size);
    ck_assert_ptr_nonnull(junk);
    memset(junk, 0x5a, (size_t)page_size);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(pwrite(fd, junk, (size_t)page_size, (off_t)(pages[i] - 1) * page_size), (ssize_t)page_size);
    free(junk);
    fsync(fd);
    close(fd);
}

START_TEST(readyz_fails_when_the_database_file_is_damaged)
{
    struct e2e_server a, b;
    struct e2e_resp r;
    char path[300], wal[320];

    /* A migrated database, closed cleanly so everything is in the main file. */
    ck_assert_int_eq(e2e_start(&a, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s", a.db_path);
    ck_assert_int_eq(e2e_stop(&a), 0);
    snprintf(wal, sizeof wal, "%s-wal", path);
    ck_assert_int_ne(access(wal, F_OK), 0);
    corrupt_table_roots(path);

    ck_assert_int_eq(e2e_start(&b, path, NULL), 0);
    /* Alive: the process answers. Not ready: the file fails quick_check. */
    ck_assert_int_eq(e2e_request(&b, "GET", "/healthz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_request(&b, "GET", "/readyz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 503);
    char type[128];
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Content-Type", type, sizeof type));
    ck_assert_str_eq(type, "application/problem+json");
    ck_assert_ptr_nonnull(strstr(r.body, "quick_check"));
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_stop(&b), 0);

    /* and backup refuses to produce a copy of it */
    char out[400], *so = NULL, *se = NULL;
    snprintf(out, sizeof out, "%s/backup.db", b.dir);
    const char *argv[] = {"gpuplan", "backup", "--db", path, out, NULL};
    ck_assert_int_eq(e2e_run(argv, NULL, &so, &se), 1);
    ck_assert_int_ne(access(out, F_OK), 0);
    free(so);
    free(se);
}
END_TEST

/* How many of process pid's open files are path itself (not its -wal or
 * -shm): one per SQLite connection on it. */
static int open_count(pid_t pid, const char *path)
{
    char dir[64], link[512], target[512];
    int n = 0;
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));) {
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t len = readlink(link, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        n += strcmp(target, path) == 0;
    }
    closedir(d);
    return n;
}

/* A server that says it is up (its port file written) has every request
 * worker's database connection open: the first clients after a start do not
 * wait for them. Started here under a soft limit of 128 open files, which 100
 * workers' connections (two descriptors each) outgrow: serve raises it. */
START_TEST(a_started_server_has_every_worker_connected_past_a_low_files_limit)
{
    struct e2e_server s;
    struct e2e_resp r;
    struct rlimit was, low;
    char path[320], *log_text;
    const char *extra[] = {"--threads", "100", NULL};

    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &was), 0);
    if (was.rlim_max != RLIM_INFINITY && was.rlim_max < 400)
        return;   /* a hard limit this low cannot hold 100 workers at all */
    low = was;
    low.rlim_cur = 128;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
    int started = e2e_start(&s, NULL, extra);
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &was), 0);
    ck_assert_int_eq(started, 0);
    ck_assert_ptr_nonnull(realpath(s.db_path, path));
    /* every worker's, plus the report committer's */
    ck_assert_int_ge(open_count(s.pid, path), 100);
    ck_assert_int_eq(e2e_request(&s, "GET", "/healthz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_stop(&s), 0);
    char log_path[300];
    snprintf(log_path, sizeof log_path, "%s/server.log", s.dir);
    log_text = e2e_read_file(log_path);
    ck_assert_ptr_nonnull(log_text);
    ck_assert_msg(!strstr(log_text, "worker start"), "a worker could not set up: %s", log_text);
    free(log_text);
}
END_TEST

int main(void)
{

    Suite *s = suite_create("ops");
    TCase *tc = tcase_create("backup and readiness");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, backup_while_the_database_is_written_is_consistent_and_verified);
    tcase_add_test(tc, backup_while_the_server_takes_uploads_is_consistent);
    tcase_add_test(tc, backup_refuses_a_missing_database_and_bad_usage);
    tcase_add_test(tc, readyz_fails_when_the_database_file_is_damaged);
    tcase_add_test(tc, a_started_server_has_every_worker_connected_past_a_low_files_limit);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
