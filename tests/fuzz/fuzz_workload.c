/* fuzz_workload.c: libFuzzer target for the planner's JSON input: the body
 * of POST /api/v1/recommend and /api/v1/estimate as the handlers treat it
 * (json_parse, json_workload_decode / json_estimate_decode,
 * engine_workload_resolve), then, for input that decodes, the engine itself
 * and the response encoder.
 *
 * Every input goes through both decoders. The oracle is the sanitizers plus
 * the handlers' contract: a decoder that fails must have said why. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "server_int.h"

static struct catalog *cat;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char err[512];
    if (plan_catalog_open(&cat, err, sizeof err) != ST_OK) {
        fprintf(stderr, "fuzz_workload: %s\n", err);
        abort();
    }
    return 0;
}

static void encode_and_drop(cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    if (doc && !text)
        abort(); /* an encoder that built a tree cJSON cannot print */
    cJSON_free(text);
    cJSON_Delete(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *doc = NULL;
    char err[512] = "", field[96] = "";
    if (size > (64u << 10))
        return 0; /* the server's JSON limit keeps bodies small; so does this */
    if (json_parse((const char *)data, size, &doc, err, sizeof err) != ST_OK) {
        if (!err[0])
            abort(); /* a 400 must say why */
        return 0;
    }

    struct engine_workload w;
    err[0] = '\0';
    if (json_workload_decode(doc, &w, field, sizeof field, err, sizeof err) == ST_OK &&
        engine_workload_resolve(&w, cat, err, sizeof err) == ST_OK) {
        struct engine_recommendation *rec = calloc(1, sizeof *rec);
        if (rec && engine_recommend(cat, &w, rec, err, sizeof err) == ST_OK)
            encode_and_drop(json_recommendation_encode(&w, rec));
        free(rec);
    } else if (!err[0]) {
        abort();
    }

    struct engine_estimate_request *er = calloc(1, sizeof *er);
    struct engine_plan *plan = calloc(1, sizeof *plan);
    err[0] = '\0';
    if (er && plan && json_estimate_decode(doc, er, field, sizeof field, err, sizeof err) == ST_OK &&
        engine_workload_resolve(&er->workload, cat, err, sizeof err) == ST_OK &&
        engine_estimate(cat, er, plan, err, sizeof err) == ST_OK)
        encode_and_drop(json_estimate_encode(&er->workload, plan));
    free(plan);
    free(er);
    cJSON_Delete(doc);
    return 0;
}
