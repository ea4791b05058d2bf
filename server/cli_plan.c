/* cli_plan.c: `gpuplan recommend` and `gpuplan estimate`.
 *
 * Both read one JSON document (a file or stdin), load the catalog from a
 * private in-memory database migrated from the embedded SQL (the same rows
 * the server serves), run the pure planner and print the same JSON the REST
 * API returns. Invalid input exits 2 with one line naming the field; a
 * failure of our own (catalog, memory) exits 1. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "db.h"
#include "engine.h"
#include "server_int.h"

#define PLAN_INPUT_LIMIT (1u << 20)

enum status plan_catalog_open(struct catalog **out, char *err, size_t errlen)
{
    struct db *db = NULL;
    struct catalog *c = calloc(1, sizeof *c);
    enum status st;

    if (!c) {
        snprintf(err, errlen, "out of memory");
        return ST_NOMEM;
    }
    st = db_open(":memory:", DB_OPEN_MIGRATE, &db, err, errlen);
    if (st == ST_OK)
        st = db_catalog_load(db, c, err, errlen);
    db_close(db);
    if (st != ST_OK) {
        free(c);
        return st;
    }
    *out = c;
    return ST_OK;
}

static void help(FILE *out, const char *cmd)
{
    if (strcmp(cmd, "recommend") == 0)
        fprintf(out,
                "usage: gpuplan recommend [FILE|-]\n"
                "\n"
                "Reads a workload (JSON, from FILE or standard input) and prints three hardware plans,\n"
                "minimum, recommended and performance, as JSON (the body of POST /api/v1/recommend).\n"
                "\n"
                "  {\"model\": {\"preset\": \"llama-3-70b\"}, \"task\": \"pretrain\", \"tokens_b\": 15000,\n"
                "   \"seq_len\": 8192, \"precision\": \"bf16\", \"deadline_days\": 90, \"budget_usd\": 5000000,\n"
                "   \"pricing\": \"cloud\"}\n"
                "\n"
                "Optional: global_batch_tokens, dataset_tb, gpus_allowed, max_gpus, optimizer (adamw,\n"
                "adamw-8bit), lora_rank, attention (flash, standard). Exit 0 ok, 2 invalid input.\n");
    else
        fprintf(out,
                "usage: gpuplan estimate [FILE|-]\n"
                "\n"
                "Reads a workload plus a fixed cluster and prints one evaluation as JSON (the body of\n"
                "POST /api/v1/estimate):\n"
                "\n"
                "  {..workload.., \"cluster\": {\"gpu\": \"a100-sxm-80gb\", \"count\": 2048, \"per_node\": 8,\n"
                "   \"fabric_gbps_per_gpu\": 200},\n"
                "   \"parallel\": {\"tp\", \"pp\", \"dp\", \"zero\", \"recompute\", \"micro_batch\", \"global_batch\"},\n"
                "   \"measured\": {\"intra_busbw_gbs\", \"inter_busbw_gbs\", \"matmul_tflops\"}}\n"
                "\n"
                "parallel and measured are optional; missing parts of the layout are chosen by the\n"
                "engine, measured values replace the catalog's assumptions. Exit 0 ok, 2 invalid input.\n");
}

static int run(int argc, char **argv, int estimate)
{
    const char *cmd = argv[0], *path = "-";
    char err[512], field[96];
    char *text = NULL;
    size_t len = 0;
    cJSON *doc = NULL, *outdoc = NULL;
    struct catalog *cat = NULL;
    struct engine_recommendation *rec = NULL;
    struct engine_estimate_request *req = NULL;
    struct engine_plan *plan = NULL;
    char *printed = NULL;
    enum status st;
    int rc = 2;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help(stdout, cmd);
            return 0;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            cli_error(cmd, "unknown option '%s' (see gpuplan %s --help)", argv[i], cmd);
            return 2;
        }
        if (i != argc - 1) {
            cli_error(cmd, "expected one input file (see gpuplan %s --help)", cmd);
            return 2;
        }
        path = argv[i];
    }
    if ((st = cli_read_file(path, PLAN_INPUT_LIMIT, &text, &len, err, sizeof err)) != ST_OK) {
        cli_error(cmd, "%s", err);
        return 2;
    }
    if (json_parse(text, len, &doc, err, sizeof err) != ST_OK) {
        cli_error(cmd, "%s", err);
        goto out;
    }
    if (plan_catalog_open(&cat, err, sizeof err) != ST_OK) {
        cli_error(cmd, "cannot load the catalog: %s", err);
        rc = 1;
        goto out;
    }
    if (!estimate) {
        struct engine_workload w;
        rec = calloc(1, sizeof *rec);
        if (!rec) {
            cli_error(cmd, "out of memory");
            rc = 1;
            goto out;
        }
        if (json_workload_decode(doc, &w, field, sizeof field, err, sizeof err) != ST_OK ||
            engine_workload_resolve(&w, cat, err, sizeof err) != ST_OK ||
            engine_recommend(cat, &w, rec, err, sizeof err) != ST_OK) {
            cli_error(cmd, "%s", err);
            goto out;
        }
        outdoc = json_recommendation_encode(cat, &w, rec);
    } else {
        req = calloc(1, sizeof *req);
        plan = calloc(1, sizeof *plan);
        if (!req || !plan) {
            cli_error(cmd, "out of memory");
            rc = 1;
            goto out;
        }
        if (json_estimate_decode(doc, req, field, sizeof field, err, sizeof err) != ST_OK ||
            engine_workload_resolve(&req->workload, cat, err, sizeof err) != ST_OK ||
            engine_estimate(cat, req, plan, err, sizeof err) != ST_OK) {
            cli_error(cmd, "%s", err);
            goto out;
        }
        outdoc = json_estimate_encode(&req->workload, plan);
    }
    printed = outdoc ? cJSON_Print(outdoc) : NULL;
    if (!printed) {
        cli_error(cmd, "cannot encode the result");
        rc = 1;
        goto out;
    }
    fputs(printed, stdout);
    fputc('\n', stdout);
    rc = 0;
out:
    cJSON_free(printed);
    cJSON_Delete(outdoc);
    cJSON_Delete(doc);
    free(plan);
    free(req);
    free(rec);
    free(cat);
    free(text);
    return rc;
}

int cli_recommend(int argc, char **argv)
{
    return run(argc, argv, 0);
}

int cli_estimate(int argc, char **argv)
{
    return run(argc, argv, 1);
}
