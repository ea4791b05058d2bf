/* http_ops.c: what operators and tools read: Prometheus metrics and the
 * OpenAPI description. Both are public (no secrets in either), cheap, and
 * never touch the database. */
#include <stdlib.h>
#include <string.h>

#include "server_int.h"
#include "search_memo.h"

int http_metrics(struct http_req *req)
{
    size_t len = 0;
    char tail[1024];
    unsigned long long hits, misses, mhits, mmisses;
    char *text = metrics_render(&len);
    if (!text) {
        http_problem(req, 500, NULL, "cannot render metrics");
        return 0;
    }
    resp_cache_stats(req->app->plan_cache, &hits, &misses);
    search_memo_stats(req->app->search_memo, &mhits, &mmisses);
    int n = snprintf(tail, sizeof tail,
                     "# HELP gpuplan_plan_cache_lookups_total Planner answers looked up by request body.\n"
                     "# TYPE gpuplan_plan_cache_lookups_total counter\n"
                     "gpuplan_plan_cache_lookups_total{result=\"hit\"} %llu\n"
                     "gpuplan_plan_cache_lookups_total{result=\"miss\"} %llu\n"
                     "# HELP gpuplan_search_memo_lookups_total Recommend layout searches looked up by workload "
                     "without tokens, deadline, budget and dataset size (on plan cache misses).\n"
                     "# TYPE gpuplan_search_memo_lookups_total counter\n"
                     "gpuplan_search_memo_lookups_total{result=\"hit\"} %llu\n"
                     "gpuplan_search_memo_lookups_total{result=\"miss\"} %llu\n",
                     hits, misses, mhits, mmisses);
    char *all = n > 0 && (size_t)n < sizeof tail ? realloc(text, len + (size_t)n) : NULL;
    if (all) {
        memcpy(all + len, tail, (size_t)n);
        text = all;
        len += (size_t)n;
    }
    http_send(req, 200, "text/plain; version=0.0.4; charset=utf-8", "Cache-Control: no-store\r\n", text, len);
    free(text);
    return 0;
}

int http_openapi(struct http_req *req)
{
    http_send(req, 200, "application/json", "Cache-Control: no-cache\r\n", openapi_json, openapi_json_len);
    return 0;
}
