/* storm.h: the CI flow as many clients at once, for the load and crash
 * tests: a team with API tokens and a plan, then threads that upload reports
 * (and call recommend) until told to stop, recording every report the
 * server acknowledged with 201 and every answer that breaks the rules. */
#ifndef GPUPLAN_STORM_H
#define GPUPLAN_STORM_H

#include <pthread.h>

#include "e2e.h"

#define STORM_TOKENS 8

struct storm_team {
    char cookie[400];
    char csrf[128];
    char tokens[STORM_TOKENS][128];
    long plan_id;
};

/* Signs up a team, makes STORM_TOKENS API tokens and one plan.
 * Returns 0; 1 when this build has no team endpoints (404); -1 on failure,
 * with the reason in why. */
int storm_setup(const struct e2e_server *srv, struct storm_team *team, char *why, size_t whylen);

struct storm {
    const struct e2e_server *srv;
    const struct storm_team *team;
    volatile int stop;
    pthread_mutex_t lock;
    /* Report ids the server acknowledged with 201 (heap, grows). */
    long *acked;
    size_t nacked, capacked;
    long uploads, recommends;
    long server_errors;   /* 5xx answers */
    long busy_errors;     /* answers that mention SQLITE_BUSY or a locked database */
    long other_errors;    /* 4xx or an unexpected status */
    long transport_errors; /* no HTTP answer (expected while the server is killed) */
    char first_error[512];
};

void storm_init(struct storm *s, const struct e2e_server *srv, const struct storm_team *team);
void storm_release(struct storm *s);
/* Starts n uploaders and m recommend callers; storm_join stops and joins them. */
int storm_start(struct storm *s, pthread_t *threads, int uploaders, int recommenders);
void storm_join(struct storm *s, pthread_t *threads, int n);

/* Opens the database file read-only and counts how many of the acked ids
 * are missing from the reports table. Returns -1 if it cannot read the file. */
long storm_missing_reports(const char *db_path, const long *ids, size_t n);
/* Rows in the reports table (read-only), or -1. */
long storm_count_reports(const char *db_path);
/* PRAGMA integrity_check on the file (read-only); 1 when it says ok. */
int storm_integrity_ok(const char *db_path, char *result, size_t resultlen);

#endif
