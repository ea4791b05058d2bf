/* fuzz_plan_json.c: libFuzzer target for the planner's input path: any bytes
 * as a request body go through json_parse, the workload and estimate
 * decoders, engine_workload_resolve, the planner and the JSON encoders. None
 * of it may crash, leak or trip the sanitizers, whatever the input.
 * Built by tests/fuzz/CMakeLists.txt (clang, scripts/fuzz.sh); a short run
 * is the fuzz_short test of `make test`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine.h"
#include "server_int.h"

static struct catalog *cat;
static struct json_small small;

/* Every member a reader of the tree can see, links included. */
static int same_tree(const cJSON *a, const cJSON *b)
{
    const cJSON *x, *y;
    if (a->type != b->type || a->valueint != b->valueint ||
        memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) != 0 ||
        (a->string == NULL) != (b->string == NULL) || (a->string && strcmp(a->string, b->string) != 0) ||
        (a->valuestring == NULL) != (b->valuestring == NULL) ||
        (a->valuestring && strcmp(a->valuestring, b->valuestring) != 0) || (a->child == NULL) != (b->child == NULL))
        return 0;
    for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
        if (!same_tree(x, y) || (x->next == NULL) != (y->next == NULL) ||
            (x->next && (x->next->prev != x || y->next->prev != y)) ||
            (!x->next && (a->child->prev != x || b->child->prev != y)))
            return 0;
    }
    return !x && !y;
}

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
    {
        cJSON *fast = NULL;
        int took = json_parse_small((const char *)data, size, &small, &fast);
        if (json_parse((const char *)data, size, &doc, err, sizeof err) != ST_OK) {
            if (took)
                abort();   /* the small reader took what cJSON refuses */
            goto out;
        }
        if (took && !same_tree(fast, doc))
            abort();
    }
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
