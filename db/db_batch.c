/* db_batch.c: group commit, so that concurrent writers share one fsync.
 *
 * With synchronous=FULL every COMMIT waits for the disk (an fsync of the
 * WAL, about 2 ms here), and SQLite lets one writer in at a time, so writers
 * committing one by one top out near 1 / fsync time whatever the CPU could
 * do. Here one committer thread with its own connection takes every job
 * that queued up while it was busy, runs them in one transaction, and
 * commits once: the disk wait is paid per batch, not per job. With one job
 * waiting this is the plain transaction of before plus a hand-over to the
 * committer and back.
 *
 * Each job runs inside its own SAVEPOINT, so a job that fails (an
 * Idempotency-Key already taken, even by an earlier job of the same batch)
 * rolls back only its own writes and gets its own error. A submitter is
 * woken only after the COMMIT that holds its job returned, so a success
 * still means "durably on disk"; when the transaction itself fails, every
 * job of it gets that error. Jobs live on their submitters' stacks: the
 * queue needs no allocation, and a submitter waits on its own condition
 * variable, so finishing a batch wakes exactly its jobs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "db_int.h"

struct batch_job {
    enum status (*fn)(struct db *db, void *arg, char *err, size_t errlen);
    void *arg;
    char *err;
    size_t errlen;
    enum status st;
    int done;           /* set under the batcher's lock once st is final */
    pthread_cond_t cv;  /* the submitter waits here for done */
    struct batch_job *next;
};

struct db_batcher {
    struct db *db;       /* used by the committer thread only */
    pthread_t thread;
    pthread_mutex_t mu;  /* guards everything below */
    pthread_cond_t work; /* the committer waits here for jobs or stopping */
    struct batch_job *head, **tail;
    int stopping;
    struct db_batch_stats stats;
};

static void fail_all(struct batch_job **jobs, int n, enum status st, const char *msg)
{
    for (int i = 0; i < n; i++) {
        jobs[i]->st = st;
        if (jobs[i]->err && jobs[i]->errlen)
            snprintf(jobs[i]->err, jobs[i]->errlen, "%s", msg);
    }
}

/* Runs jobs[0..n) in one transaction and sets each job's status. */
static void run_batch(struct db *db, struct batch_job **jobs, int n)
{
    char err[512] = "";
    enum status st = db_begin_write(db, err, sizeof err);
    if (st != ST_OK) {
        fail_all(jobs, n, st, err);
        return;
    }
    for (int i = 0; i < n && st == ST_OK; i++) {
        struct batch_job *j = jobs[i];
        if ((st = db_exec(db, "SAVEPOINT job", err, sizeof err)) != ST_OK)
            break;
        j->st = j->fn(db, j->arg, j->err, j->errlen);
        if (j->st == ST_OK) {
            st = db_exec(db, "RELEASE job", err, sizeof err);
        } else if (sqlite3_get_autocommit(db->sql)) {
            /* SQLite rolled back the whole transaction (disk full, I/O
             * error): the jobs before this one lost their writes too. */
            st = j->st;
            snprintf(err, sizeof err, "%s", j->err && j->errlen ? j->err : "the transaction was rolled back");
        } else if ((st = db_exec(db, "ROLLBACK TO job", err, sizeof err)) == ST_OK) {
            st = db_exec(db, "RELEASE job", err, sizeof err);
        }
    }
    if (st == ST_OK)
        st = db_commit(db, err, sizeof err); /* rolls back when it fails */
    else
        db_rollback(db);
    if (st != ST_OK)
        fail_all(jobs, n, st, err);
}

static void *committer(void *arg)
{
    struct db_batcher *b = arg;
    struct batch_job *jobs[DB_BATCH_MAX];

    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (!b->head && !b->stopping)
            pthread_cond_wait(&b->work, &b->mu);
        if (!b->head)
            break; /* stopping, and nothing left to run */
        int n = 0;
        while (b->head && n < DB_BATCH_MAX) {
            jobs[n++] = b->head;
            b->head = b->head->next;
        }
        if (!b->head)
            b->tail = &b->head;
        b->stats.pending -= n;
        pthread_mutex_unlock(&b->mu);

        run_batch(b->db, jobs, n);

        pthread_mutex_lock(&b->mu);
        b->stats.batches++;
        b->stats.jobs += n;
        if (n > b->stats.largest)
            b->stats.largest = n;
        /* A woken submitter returns and its job leaves its stack as soon as
         * we unlock: no job is touched after this loop. */
        for (int i = 0; i < n; i++) {
            jobs[i]->done = 1;
            pthread_cond_signal(&jobs[i]->cv);
        }
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

enum status db_batcher_new(const char *path, struct db_batcher **out, char *err, size_t errlen)
{
    struct db_batcher *b = calloc(1, sizeof *b);
    enum status st;
    if (!b)
        return ST_NOMEM;
    b->tail = &b->head;
    if ((st = db_open(path, 0, &b->db, err, errlen)) != ST_OK) {
        free(b);
        return st;
    }
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->work, NULL);
    if (pthread_create(&b->thread, NULL, committer, b) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "cannot start the committer thread");
        pthread_cond_destroy(&b->work);
        pthread_mutex_destroy(&b->mu);
        db_close(b->db);
        free(b);
        return ST_NOMEM;
    }
    *out = b;
    return ST_OK;
}

void db_batcher_free(struct db_batcher *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->mu);
    b->stopping = 1;
    pthread_cond_signal(&b->work);
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL); /* the committer drains the queue first */
    pthread_cond_destroy(&b->work);
    pthread_mutex_destroy(&b->mu);
    db_close(b->db);
    free(b);
}

enum status db_batch_submit(struct db_batcher *b,
                            enum status (*fn)(struct db *db, void *arg, char *err, size_t errlen), void *arg,
                            char *err, size_t errlen)
{
    struct batch_job j = {fn, arg, err, errlen, ST_OK, 0, PTHREAD_COND_INITIALIZER, NULL};

    pthread_mutex_lock(&b->mu);
    if (b->stopping) {
        pthread_mutex_unlock(&b->mu);
        if (err && errlen)
            snprintf(err, errlen, "the database committer is shutting down");
        return ST_DB;
    }
    *b->tail = &j;
    b->tail = &j.next;
    b->stats.pending++;
    pthread_cond_signal(&b->work);
    while (!j.done)
        pthread_cond_wait(&j.cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
    pthread_cond_destroy(&j.cv);
    return j.st;
}

void db_batcher_stats(struct db_batcher *b, struct db_batch_stats *out)
{
    pthread_mutex_lock(&b->mu);
    *out = b->stats;
    pthread_mutex_unlock(&b->mu);
}
