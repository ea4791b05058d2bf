/* published_runs.h: turns tests/data/published-runs.csv into estimate requests
 * and compares the engine's estimate with what each run published. Shared by
 * the unit test that guards the median error and the engine benchmark that
 * prints the per-run table. The engine never sees this file or the runs'
 * names: each row becomes an ordinary estimate request (model shape, GPU,
 * count, layout, precision) and only the published figure is compared. */
#ifndef GPUPLAN_PUBLISHED_RUNS_H
#define GPUPLAN_PUBLISHED_RUNS_H

#include "engine.h"

#define RUNS_MAX 128

enum run_metric { RUN_SKIP = 0, RUN_TOKENS_PER_S, RUN_GPU_HOURS };

struct run {
    char id[64];
    char gpu_type[32];
    enum run_metric metric;
    char skip_reason[160];
    double published;      /* tokens/s per GPU, or GPU-hours */
    double estimated;
    double error;          /* estimated / published - 1 */
    struct engine_estimate_request req;
};

struct runs {
    struct run runs[RUNS_MAX];
    int n;
};

/* Reads and converts the CSV. Returns 0 on success, -1 when the file cannot
 * be read (message in err). */
int runs_load(const char *path, const struct catalog *c, struct runs *out, char *err, size_t errlen);

/* Estimates every comparable run; returns how many were compared and writes
 * the median of |error| to *median_abs_error. */
int runs_evaluate(const struct catalog *c, struct runs *rs, double *median_abs_error);

#endif
