/* metrics.c: Prometheus counters and the latency histogram, rendered as
 * the text exposition format at /metrics.
 *
 * Labels come from a closed set (route patterns of the route table, not
 * raw paths; HTTP methods; statuses), so the series count stays bounded
 * whatever clients send. One mutex guards everything: an update is a few
 * additions, far cheaper than the request it counts. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

#define MAX_SERIES 512
static const double buckets_s[] = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define NBUCKETS (sizeof buckets_s / sizeof buckets_s[0])

struct req_series {
    const char *route;   /* static strings: route patterns and fixed names */
    char method[8];
    int status;
    unsigned long long count;
};

struct latency_series {
    const char *route;
    char method[8];
    unsigned long long bucket[NBUCKETS];
    unsigned long long count;
    double sum_s;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct req_series reqs[MAX_SERIES];
static int nreqs;
static struct latency_series lats[MAX_SERIES];
static int nlats;
static unsigned long long verdicts[4]; /* pass, warn, fail, unknown */
static unsigned long long db_errors;
static unsigned long long hooks[3];    /* delivered, retry, failed */
static unsigned long long overflow;    /* updates dropped because the table was full */

static const char *const verdict_names[] = {"pass", "warn", "fail", "unknown"};
static const char *const hook_names[] = {"delivered", "retry", "failed"};

static const char *known_method(const char *m)
{
    static const char *const methods[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(m, methods[i]) == 0)
            return methods[i];
    return "OTHER";
}

void metrics_request(const char *route, const char *method, int status, double ms)
{
    const char *m = known_method(method ? method : "");
    double s = ms / 1000.0;
    int i;
    if (!route)
        route = "unknown";
    pthread_mutex_lock(&lock);
    for (i = 0; i < nreqs; i++)
        if (reqs[i].route == route && reqs[i].status == status && strcmp(reqs[i].method, m) == 0)
            break;
    if (i == nreqs && nreqs < MAX_SERIES) {
        reqs[i].route = route;
        snprintf(reqs[i].method, sizeof reqs[i].method, "%s", m);
        reqs[i].status = status;
        nreqs++;
    }
    if (i < nreqs)
        reqs[i].count++;
    else
        overflow++;
    for (i = 0; i < nlats; i++)
        if (lats[i].route == route && strcmp(lats[i].method, m) == 0)
            break;
    if (i == nlats && nlats < MAX_SERIES) {
        lats[i].route = route;
        snprintf(lats[i].method, sizeof lats[i].method, "%s", m);
        nlats++;
    }
    if (i < nlats) {
        for (size_t b = 0; b < NBUCKETS; b++)
            if (s <= buckets_s[b])
                lats[i].bucket[b]++;
        lats[i].count++;
        lats[i].sum_s += s;
    }
    pthread_mutex_unlock(&lock);
}

void metrics_report(const char *verdict)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < 4; i++)
        if (verdict && strcmp(verdict, verdict_names[i]) == 0)
            verdicts[i]++;
    pthread_mutex_unlock(&lock);
}

void metrics_db_error(void)
{
    pthread_mutex_lock(&lock);
    db_errors++;
    pthread_mutex_unlock(&lock);
}

void metrics_webhook(const char *outcome)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < 3; i++)
        if (outcome && strcmp(outcome, hook_names[i]) == 0)
            hooks[i]++;
    pthread_mutex_unlock(&lock);
}

/* Route patterns are ours, but escape anyway: a label value must not break the format. */
static void add_label(struct sbuf *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            sbuf_add(b, "\\", 1);
        if (*v == '\n')
            sbuf_adds(b, "\\n");
        else
            sbuf_add(b, v, 1);
    }
}

char *metrics_render(size_t *len)
{
    struct sbuf b = {0};
    pthread_mutex_lock(&lock);
    sbuf_adds(&b, "# HELP gpuplan_http_requests_total HTTP requests by route pattern, method and status.\n"
                  "# TYPE gpuplan_http_requests_total counter\n");
    for (int i = 0; i < nreqs; i++) {
        sbuf_adds(&b, "gpuplan_http_requests_total{route=\"");
        add_label(&b, reqs[i].route);
        sbuf_addf(&b, "\",method=\"%s\",status=\"%d\"} %llu\n", reqs[i].method, reqs[i].status, reqs[i].count);
    }
    sbuf_adds(&b, "# HELP gpuplan_http_request_duration_seconds Time from request to reply, by route pattern.\n"
                  "# TYPE gpuplan_http_request_duration_seconds histogram\n");
    for (int i = 0; i < nlats; i++) {
        for (size_t k = 0; k < NBUCKETS; k++) {
            sbuf_adds(&b, "gpuplan_http_request_duration_seconds_bucket{route=\"");
            add_label(&b, lats[i].route);
            sbuf_addf(&b, "\",method=\"%s\",le=\"%g\"} %llu\n", lats[i].method, buckets_s[k], lats[i].bucket[k]);
        }
        sbuf_adds(&b, "gpuplan_http_request_duration_seconds_bucket{route=\"");
        add_label(&b, lats[i].route);
        sbuf_addf(&b, "\",method=\"%s\",le=\"+Inf\"} %llu\n", lats[i].method, lats[i].count);
        sbuf_adds(&b, "gpuplan_http_request_duration_seconds_sum{route=\"");
        add_label(&b, lats[i].route);
        sbuf_addf(&b, "\",method=\"%s\"} %.6f\n", lats[i].method, lats[i].sum_s);
        sbuf_adds(&b, "gpuplan_http_request_duration_seconds_count{route=\"");
        add_label(&b, lats[i].route);
        sbuf_addf(&b, "\",method=\"%s\"} %llu\n", lats[i].method, lats[i].count);
    }
    sbuf_adds(&b, "# HELP gpuplan_reports_total Report verdicts computed (uploads and re-checks).\n"
                  "# TYPE gpuplan_reports_total counter\n");
    for (int i = 0; i < 4; i++)
        sbuf_addf(&b, "gpuplan_reports_total{verdict=\"%s\"} %llu\n", verdict_names[i], verdicts[i]);
    sbuf_addf(&b, "# HELP gpuplan_db_errors_total Database operations that failed.\n"
                  "# TYPE gpuplan_db_errors_total counter\n"
                  "gpuplan_db_errors_total %llu\n", db_errors);
    sbuf_adds(&b, "# HELP gpuplan_webhook_deliveries_total Webhook delivery attempts by outcome.\n"
                  "# TYPE gpuplan_webhook_deliveries_total counter\n");
    for (int i = 0; i < 3; i++)
        sbuf_addf(&b, "gpuplan_webhook_deliveries_total{outcome=\"%s\"} %llu\n", hook_names[i], hooks[i]);
    sbuf_addf(&b, "# HELP gpuplan_metrics_dropped_total Updates not recorded because the series table was full.\n"
                  "# TYPE gpuplan_metrics_dropped_total counter\n"
                  "gpuplan_metrics_dropped_total %llu\n", overflow);
    pthread_mutex_unlock(&lock);
    return sbuf_detach(&b, len);
}
