/* fuzz_plan_json.c: libFuzzer target for the planner's input path: any bytes
 * as a request body go through json_parse, the workload and estimate
 * decoders, engine_workload_resolve, the planner and the JSON encoders. None
 * of it may crash, leak or trip the sanitizers, whatever the input.
 *
 * Build by hand until the fuzz harness (issue 7) wires it into CMake:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iengine -Idb -Iserver \
 *     tests/fuzz/fuzz_plan_json.c server/json_plan.c server/cli_plan.c server/cli_common.c \
 *     server/log.c engine/engine_*.c engine/status.c db/db.c db/db_catalog.c \
 *     build/db/migrations_data.c -lsqlite3 -lcjson -lm -o fuzz_plan_json */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine.h"
#include "server_int.h"

static struct catalog *cat;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[256];
    (void)argc;
    (void)argv;
    if (plan_catalog_open(&cat, err, sizeof err) != ST_OK)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512], field[96];
    cJSON *doc = NULL;
    struct engine_workload w;
    struct engine_estimate_request *q = malloc(sizeof *q);
    struct engine_recommendation *r = malloc(sizeof *r);
    struct engine_plan *p = malloc(sizeof *p);

    if (!q || !r || !p)
        goto out;
    if (json_parse((const char *)data, size, &doc, err, sizeof err) != ST_OK)
        goto out;
    if (json_workload_decode(doc, &w, field, sizeof field, err, sizeof err) == ST_OK &&
        engine_workload_resolve(&w, cat, err, sizeof err) == ST_OK &&
        engine_recommend(cat, &w, r, err, sizeof err) == ST_OK)
        cJSON_Delete(json_recommendation_encode(cat, &w, r));
    if (json_estimate_decode(doc, q, field, sizeof field, err, sizeof err) == ST_OK &&
        engine_workload_resolve(&q->workload, cat, err, sizeof err) == ST_OK &&
        engine_estimate(cat, q, p, err, sizeof err) == ST_OK)
        cJSON_Delete(json_estimate_encode(&q->workload, p));
out:
    cJSON_Delete(doc);
    free(p);
    free(r);
    free(q);
    return 0;
}
