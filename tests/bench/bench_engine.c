/* bench_engine.c: how fast and how right the planner is.
 *
 * Speed: the full recommend for llama-3.1-405b with max_gpus 16384 over the
 * whole catalog, repeated on one core; prints layouts scored per second and
 * the latency (target <= 50 ms). Accuracy: every comparable run of
 * tests/data/published-runs.csv as an engine estimate, published vs estimated
 * throughput (tokens/s per GPU) or GPU-hours, the error of each and the
 * median |error| (target <= 15%). The catalog comes from the migrations
 * through the db module, exactly as the CLI loads it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "engine.h"
#include "published_runs.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *csv = argc > 1 ? argv[1] : TESTDATA "/published-runs.csv";
    char err[256];
    struct db *db = NULL;
    struct catalog *c = calloc(1, sizeof *c);
    struct engine_recommendation *rec = calloc(1, sizeof *rec);
    struct runs *rs = calloc(1, sizeof *rs);
    struct engine_workload w;
    int rc = 1, reps = 20, compared;
    double best = INFINITY, total = 0, median;

    if (!c || !rec || !rs)
        goto out;
    if (db_open(":memory:", DB_OPEN_MIGRATE, &db, err, sizeof err) != ST_OK ||
        db_catalog_load(db, c, err, sizeof err) != ST_OK) {
        fprintf(stderr, "bench_engine: catalog: %s\n", err);
        goto out;
    }
    engine_workload_init(&w);
    snprintf(w.preset, sizeof w.preset, "llama-3.1-405b");
    w.tokens_b = 15600;
    w.deadline_days = 90;
    w.max_gpus = 16384;
    if (engine_workload_resolve(&w, c, err, sizeof err) != ST_OK) {
        fprintf(stderr, "bench_engine: workload: %s\n", err);
        goto out;
    }
    for (int i = 0; i < reps; i++) {
        double t0 = now_s();
        if (engine_recommend(c, &w, rec, err, sizeof err) != ST_OK) {
            fprintf(stderr, "bench_engine: recommend: %s\n", err);
            goto out;
        }
        double dt = now_s() - t0;
        total += dt;
        if (dt < best)
            best = dt;
    }
    printf("recommend llama-3.1-405b, 15.6T tokens, 90 days, max_gpus 16384, %d GPU types:\n", c->n_gpus);
    printf("  latency best %.2f ms, mean %.2f ms (target <= 50 ms)\n", best * 1e3, total / reps * 1e3);
    printf("  layouts scored %ld per recommend, %.0f configurations/s\n", rec->configs_evaluated,
           rec->configs_evaluated / best);
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct engine_plan *p = &rec->tiers[t];
        printf("  %-11s %s x %d tp%d pp%d dp%d: %.1f days, $%.3gM, MFU %.2f%s\n", engine_tier_name(t), p->gpu_id,
               p->count, p->par.tp, p->par.pp, p->par.dp, p->days, p->cost_usd / 1e6, p->mfu,
               p->feasible ? "" : " (infeasible)");
    }

    /* The HTTP benchmark's body (scripts/bench-http.sh): what one cold
     * POST /api/v1/recommend costs the server in the planner alone. */
    {
        struct engine_workload w2;
        double best2 = INFINITY, total2 = 0;
        int reps2 = 200;
        engine_workload_init(&w2);
        snprintf(w2.preset, sizeof w2.preset, "llama-3-70b");
        w2.tokens_b = 15000;
        w2.seq_len = 8192;
        w2.deadline_days = 90;
        w2.budget_usd = 5e6;
        if (engine_workload_resolve(&w2, c, err, sizeof err) != ST_OK) {
            fprintf(stderr, "bench_engine: workload: %s\n", err);
            goto out;
        }
        for (int i = 0; i < reps2; i++) {
            double t0 = now_s(), dt;
            w2.tokens_b = 15000 + i;   /* as post_distinct.lua varies it */
            if (engine_recommend(c, &w2, rec, err, sizeof err) != ST_OK) {
                fprintf(stderr, "bench_engine: recommend: %s\n", err);
                goto out;
            }
            dt = now_s() - t0;
            total2 += dt;
            if (dt < best2)
                best2 = dt;
        }
        printf("recommend llama-3-70b, seq 8192 (the HTTP benchmark body), %d runs:\n", reps2);
        printf("  latency best %.3f ms, mean %.3f ms; layouts scored %ld per recommend\n", best2 * 1e3,
               total2 / reps2 * 1e3, rec->configs_evaluated);
    }

    if (runs_load(csv, c, rs, err, sizeof err) != 0) {
        fprintf(stderr, "bench_engine: %s\n", err);
        goto out;
    }
    compared = runs_evaluate(c, rs, &median);
    printf("\npublished runs (%s):\n", csv);
    printf("  %-46s %-10s %-12s %12s %12s %8s\n", "run", "gpu", "metric", "published", "estimated", "error");
    for (int i = 0; i < rs->n; i++) {
        const struct run *r = &rs->runs[i];
        if (r->metric == RUN_SKIP)
            continue;
        printf("  %-46s %-10s %-12s %12.1f %12.1f %+7.1f%%%s%s\n", r->id, r->gpu_type,
               r->metric == RUN_GPU_HOURS ? "gpu-hours" : "tokens/s/gpu", r->published, r->estimated,
               100.0 * r->error, r->skip_reason[0] ? "  " : "", r->skip_reason);
    }
    printf("  skipped:\n");
    for (int i = 0; i < rs->n; i++)
        if (rs->runs[i].metric == RUN_SKIP)
            printf("    %-44s %s\n", rs->runs[i].id, rs->runs[i].skip_reason);
    printf("  compared %d runs, median |error| %.1f%% (target <= 15%%)\n", compared, 100.0 * median);
    rc = 0;
out:
    db_close(db);
    free(rs);
    free(rec);
    free(c);
    return rc;
}
