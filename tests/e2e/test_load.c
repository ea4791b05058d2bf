/* test_load.c: 64 CI clients upload reports with API tokens while 16 clients
 * call recommend, for LOAD_SECONDS (default 20) against the real server on
 * loopback. Passes when no answer is a 5xx, none mentions SQLITE_BUSY or a
 * locked database, every upload got its 201, and every report acknowledged
 * with a 201 is in the database file afterwards (opened read-only, looked up
 * by id), with no row that was not acknowledged.
 *
 * Exits 77 (skipped) on a build without the team and report endpoints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "storm.h"

#define UPLOADERS 64
#define RECOMMENDERS 16

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    /* A worker per connection (civetweb), so more workers than clients. */
    static const char *const extra[] = {"--threads", "100", "--quiet", NULL};
    struct e2e_server srv;
    struct storm_team team;
    struct storm s;
    pthread_t threads[UPLOADERS + RECOMMENDERS];
    char why[512], integrity[256];
    const char *env = getenv("LOAD_SECONDS");
    char *end = NULL;
    long seconds = env ? strtol(env, &end, 10) : 20;
    int failed = 0;

    if (env && (end == env || *end != '\0'))
        seconds = 20;   /* not a number: the default */
    if (seconds < 1 || seconds > 600)
        seconds = 20;
    if (e2e_start(&srv, NULL, extra) != 0) {
        fprintf(stderr, "load: the server did not start\n");
        return 1;
    }
    int rc = storm_setup(&srv, &team, why, sizeof why);
    if (rc == 1) {
        printf("load: skipped: this build has no team/report endpoints\n");
        e2e_stop(&srv);
        return 77;
    }
    if (rc != 0) {
        fprintf(stderr, "load: setup failed: %s\n", why);
        e2e_stop(&srv);
        return 1;
    }

    storm_init(&s, &srv, &team);
    double t0 = now_s();
    if (storm_start(&s, threads, UPLOADERS, RECOMMENDERS) != 0) {
        fprintf(stderr, "load: cannot start the client threads\n");
        return 1;
    }
    sleep((unsigned)seconds);
    storm_join(&s, threads, UPLOADERS + RECOMMENDERS);
    double dt = now_s() - t0;
    int stop_rc = e2e_stop(&srv);

    long missing = storm_missing_reports(srv.db_path, s.acked, s.nacked);
    long rows = storm_count_reports(srv.db_path);
    int intact = storm_integrity_ok(srv.db_path, integrity, sizeof integrity);
    printf("load: %.1f s, %d uploaders + %d recommend callers: %ld uploads acknowledged (%.0f/s), "
           "%ld recommends (%.0f/s)\n",
           dt, UPLOADERS, RECOMMENDERS, s.uploads, s.uploads / dt, s.recommends, s.recommends / dt);
    printf("load: 5xx %ld, SQLITE_BUSY %ld, other unexpected %ld, no answer %ld; in the database: %ld rows, "
           "%ld acknowledged ids missing; integrity_check: %s; clean stop: %s\n",
           s.server_errors, s.busy_errors, s.other_errors, s.transport_errors, rows, missing, integrity,
           stop_rc == 0 ? "yes" : "no");
    if (s.first_error[0])
        printf("load: first unexpected answer: %s\n", s.first_error);

    failed |= s.server_errors || s.busy_errors || s.other_errors || s.transport_errors;
    failed |= s.uploads == 0 || s.recommends == 0;
    failed |= missing != 0 || rows != (long)s.nacked || (size_t)s.uploads != s.nacked;
    failed |= !intact || stop_rc != 0;
    storm_release(&s);
    printf("load: %s\n", failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
