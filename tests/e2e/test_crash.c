/* test_crash.c: kill -9 the server in the middle of an upload storm, three
 * times, restarting it on the same database file each time. After every
 * restart: PRAGMA integrity_check is ok, every report that got a 201 before
 * any of the kills is in the file, /readyz answers 200 and a new upload is
 * acknowledged. An answer lost with the process is expected; a 5xx, a
 * SQLITE_BUSY or a lost acknowledged report is not.
 *
 * Exits 77 (skipped) on a build without the team and report endpoints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "storm.h"

#define UPLOADERS 32
#define ROUNDS 3

static int check(int ok, const char *what)
{
    printf("crash: %s: %s\n", what, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

int main(void)
{
    static const char *const extra[] = {"--threads", "64", "--quiet", NULL};
    struct e2e_server srv;
    struct storm_team team;
    pthread_t threads[UPLOADERS];
    char why[512], integrity[256], db_path[300];
    long *all = NULL;
    size_t nall = 0;
    int failed = 0;

    if (e2e_start(&srv, NULL, extra) != 0) {
        fprintf(stderr, "crash: the server did not start\n");
        return 1;
    }
    snprintf(db_path, sizeof db_path, "%s", srv.db_path);
    int rc = storm_setup(&srv, &team, why, sizeof why);
    if (rc == 1) {
        printf("crash: skipped: this build has no team/report endpoints\n");
        e2e_stop(&srv);
        return 77;
    }
    if (rc != 0) {
        fprintf(stderr, "crash: setup failed: %s\n", why);
        e2e_stop(&srv);
        return 1;
    }
    srand((unsigned)time(NULL));

    for (int round = 1; round <= ROUNDS; round++) {
        struct storm s;
        storm_init(&s, &srv, &team);
        if (storm_start(&s, threads, UPLOADERS, 0) != 0)
            return 1;
        /* Kill somewhere between 1.5 and 3 s into the storm, mid-commit as likely as not. */
        usleep((useconds_t)(1500000 + rand() % 1500000));
        e2e_kill(&srv);
        storm_join(&s, threads, UPLOADERS);
        printf("crash: round %d: killed with SIGKILL after %ld acknowledged uploads (%ld requests got no answer: in flight at the kill or sent after it)\n", round,
               s.uploads, s.transport_errors);
        if (s.first_error[0])
            printf("crash: first unexpected answer: %s\n", s.first_error);
        failed |= check(s.server_errors == 0 && s.busy_errors == 0 && s.other_errors == 0,
                        "no 5xx, SQLITE_BUSY or unexpected status before the kill");
        failed |= check(s.uploads > 0, "uploads were acknowledged before the kill");
        long *na = realloc(all, (nall + s.nacked + 1) * sizeof *all);
        if (!na)
            return 1;
        all = na;
        memcpy(all + nall, s.acked, s.nacked * sizeof *all);
        nall += s.nacked;
        storm_release(&s);

        /* Restart on the same file: SQLite recovers the WAL on open. */
        if (e2e_start(&srv, db_path, extra) != 0) {
            printf("crash: round %d: the server did not restart on %s\n", round, db_path);
            free(all);
            return 1;
        }
        failed |= check(storm_integrity_ok(db_path, integrity, sizeof integrity), "integrity_check after restart");
        long missing = storm_missing_reports(db_path, all, nall);
        printf("crash: round %d: %zu acknowledged reports so far, %ld missing, %ld rows\n", round, nall, missing,
               storm_count_reports(db_path));
        failed |= check(missing == 0, "every acknowledged report survived");

        struct e2e_resp r;
        failed |= check(e2e_request(&srv, "GET", "/readyz", NULL, NULL, 0, &r) == 0 && r.status == 200,
                        "readyz after restart");
        e2e_resp_release(&r);
        char path[128], auth[200];
        snprintf(path, sizeof path, "/api/v1/plans/%ld/reports", team.plan_id);
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", team.tokens[0]);
        const char *h[] = {"Content-Type: text/plain", auth, NULL};
        static const char text[] = "#  size count type redop root time algbw busbw #wrong\n";
        failed |= check(e2e_request(&srv, "POST", path, h, text, sizeof text - 1, &r) == 0 && r.status == 201,
                        "an upload after restart is acknowledged");
        e2e_resp_release(&r);
    }
    failed |= check(e2e_stop(&srv) == 0, "clean stop at the end");
    free(all);
    printf("crash: %s\n", failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
