/* log.c: the server's one log, a line per event on stderr.
 *
 * Lines are "2026-11-29T18:00:00Z LEVEL message". A mutex keeps lines from
 * interleaving across worker threads. Callers must never pass secrets or
 * request bodies. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "server_int.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static enum log_level log_min = LOG_INFO;

void log_set_level(enum log_level min)
{
    log_min = min;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    static const char *const names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    char stamp[32];
    struct tm tm;
    time_t now;
    va_list ap;

    if (level < log_min)
        return;
    now = time(NULL);
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    pthread_mutex_lock(&log_lock);
    fprintf(stderr, "%s %s ", stamp, names[level]);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    pthread_mutex_unlock(&log_lock);
}
