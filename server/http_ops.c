/* http_ops.c: what operators and tools read: Prometheus metrics and the
 * OpenAPI description. Both are public (no secrets in either), cheap, and
 * never touch the database (the committer's counters are read in memory). */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "server_int.h"
#include "search_memo.h"

int http_metrics(struct http_req *req)
{
    size_t len = 0;
    char tail[4096];
    unsigned long long hits, misses, kept, declined, mhits, mmisses;
    int taken, waiting;
    struct db_batch_stats bs = {0};
    char *text = metrics_render(&len);
    if (!text) {
        http_problem(req, 500, NULL, "cannot render metrics");
        return 0;
    }
    resp_cache_stats(req->app->plan_cache, &hits, &misses);
    resp_cache_admissions(req->app->plan_cache, &kept, &declined);
    search_memo_stats(req->app->search_memo, &mhits, &mmisses);
    rec_pool_stats(req->app->rec_pool, &taken, &waiting);
    if (req->app->batcher)
        db_batcher_stats(req->app->batcher, &bs);
    int n = snprintf(tail, sizeof tail,
                     "# HELP gpuplan_plan_cache_lookups_total Planner answers looked up by request body.\n"
                     "# TYPE gpuplan_plan_cache_lookups_total counter\n"
                     "gpuplan_plan_cache_lookups_total{result=\"hit\"} %llu\n"
                     "gpuplan_plan_cache_lookups_total{result=\"miss\"} %llu\n"
                     "# HELP gpuplan_plan_cache_answers_total Answers offered to the plan cache: kept, or "
                     "declined as the first of their body (kept when it comes again).\n"
                     "# TYPE gpuplan_plan_cache_answers_total counter\n"
                     "gpuplan_plan_cache_answers_total{result=\"kept\"} %llu\n"
                     "gpuplan_plan_cache_answers_total{result=\"declined\"} %llu\n"
                     "# HELP gpuplan_search_memo_lookups_total Recommend layout searches looked up by workload "
                     "without tokens, deadline, budget and dataset size (on plan cache misses).\n"
                     "# TYPE gpuplan_search_memo_lookups_total counter\n"
                     "gpuplan_search_memo_lookups_total{result=\"hit\"} %llu\n"
                     "gpuplan_search_memo_lookups_total{result=\"miss\"} %llu\n"
                     /* Group commit (db_batch.c): writes per transaction is how many
                      * uploads share one fsync; the queue shows a committer falling behind. */
                     "# HELP gpuplan_db_group_commit_transactions_total Transactions the committer ran.\n"
                     "# TYPE gpuplan_db_group_commit_transactions_total counter\n"
                     "gpuplan_db_group_commit_transactions_total %lld\n"
                     "# HELP gpuplan_db_group_commit_writes_total Writes (report uploads) those transactions carried.\n"
                     "# TYPE gpuplan_db_group_commit_writes_total counter\n"
                     "gpuplan_db_group_commit_writes_total %lld\n"
                     "# HELP gpuplan_db_group_commit_largest The most writes one transaction carried.\n"
                     "# TYPE gpuplan_db_group_commit_largest gauge\n"
                     "gpuplan_db_group_commit_largest %d\n"
                     "# HELP gpuplan_db_group_commit_queued Writes waiting for the committer now.\n"
                     "# TYPE gpuplan_db_group_commit_queued gauge\n"
                     "gpuplan_db_group_commit_queued %d\n"
                     /* The planner's admission (http_engine.c's scratch pool): a
                      * queue that stays long is a server short of cores. */
                     "# HELP gpuplan_planner_in_flight Recommend requests in the planner now.\n"
                     "# TYPE gpuplan_planner_in_flight gauge\n"
                     "gpuplan_planner_in_flight %d\n"
                     "# HELP gpuplan_planner_waiting Recommend requests waiting for the planner now, "
                     "served first come first served.\n"
                     "# TYPE gpuplan_planner_waiting gauge\n"
                     "gpuplan_planner_waiting %d\n",
                     hits, misses, kept, declined, mhits, mmisses, bs.batches, bs.jobs, bs.largest, bs.pending,
                     taken, waiting);
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
