/* cli_report.c: `gpuplan parse FILE...` and `gpuplan check --plan PLAN.json
 * [--tier T] FILE...`, plus report_analyze(), the same path for the server's
 * report upload.
 *
 * Several files are parsed one by one and their sections joined, so a
 * section never spans two files; a file whose text holds no known tool
 * output is an error for `parse` (exit 2) but only missing evidence for
 * `check`, which then says which expectations had none. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "server_int.h"

#define REPORT_FILE_LIMIT ((size_t)1 << 30)
#define PLAN_FILE_LIMIT ((size_t)16 << 20)
#define EXPECTATIONS_MAX 64

static void print_json(cJSON *doc)
{
    char *s = cJSON_Print(doc);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        cJSON_free(s);
    }
}

/* Parses every file into one report; caller frees *out with report_free. */
static int parse_files(int argc, char **argv, struct report **out, int *empty_file)
{
    struct report *all = NULL;
    char err[256];
    *empty_file = 0;
    for (int i = 0; i < argc; i++) {
        char *text = NULL;
        size_t len = 0;
        struct report *rep = NULL;
        enum status st = cli_read_file(argv[i], REPORT_FILE_LIMIT, &text, &len, err, sizeof(err));
        if (st != ST_OK) {
            cli_error(argv[i], "%s", err);
            report_free(all);
            return 2;
        }
        st = report_parse(text, len, &rep);
        free(text);
        if (st != ST_OK) {
            cli_error(argv[i], "%s", status_str(st));
            report_free(all);
            return 2;
        }
        if (rep->section_count == 0) {
            cli_error(argv[i], "no known tool output found (%zu lines)", rep->lines);
            *empty_file = 1;
        }
        if (!all) {
            all = rep;
            continue;
        }
        st = report_append(all, rep);
        report_free(rep);
        if (st != ST_OK) {
            cli_error(argv[i], "%s", status_str(st));
            report_free(all);
            return 2;
        }
    }
    *out = all;
    return 0;
}

static void parse_usage(FILE *f)
{
    fprintf(f, "usage: gpuplan parse FILE...\n"
               "\n"
               "Reads raw output of preflight and benchmark tools (nvidia-smi, nvidia-smi topo -m,\n"
               "nccl-tests, perftest, ibstat/ibstatus/ibv_devinfo, fio, dcgmi diag, nvbandwidth,\n"
               "lscpu, cpupower, ethtool, dcgmproftester, gpu_burn), even when pasted, quoted or\n"
               "cut, and prints the facts\n"
               "as JSON: {\"sections\": [...], \"unrecognized_lines\": N}. Values that cannot be\n"
               "read are null. FILE may be - for standard input.\n"
               "\n"
               "exit status: 0 parsed, 2 unreadable file or no known tool output\n");
}

int cli_parse(int argc, char **argv)
{
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            parse_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("parse", "unknown option %s (see gpuplan parse --help)", argv[i]);
            return 2;
        }
        break;
    }
    if (i >= argc) {
        parse_usage(stderr);
        return 2;
    }
    struct report *rep = NULL;
    int empty = 0;
    int rc = parse_files(argc - i, argv + i, &rep, &empty);
    if (rc)
        return rc;
    cJSON *doc = json_report_sections(rep);
    report_free(rep);
    if (!doc) {
        cli_error("parse", "out of memory");
        return 2;
    }
    print_json(doc);
    cJSON_Delete(doc);
    return empty ? 2 : 0;
}

static void check_usage(FILE *f)
{
    fprintf(f, "usage: gpuplan check --plan PLAN.json [--tier TIER] FILE...\n"
               "\n"
               "Judges the reports in FILE... against the expectations of one tier of a saved\n"
               "plan ({\"tier\", \"recommendation\"}), a recommendation ({\"tiers\": [...]}) or an\n"
               "estimate ({\"expectations\": [...]}). TIER is minimum, recommended or performance\n"
               "(default: the saved plan's tier, else recommended). Prints\n"
               "{\"verdict\", \"findings\", \"no_evidence\", ...}; an expectation without evidence\n"
               "is unknown, never pass.\n"
               "\n"
               "exit status: 0 verdict pass, warn or unknown; 1 fail; 2 error\n");
}

int cli_check(int argc, char **argv)
{
    const char *plan_path = NULL, *tier = NULL;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            check_usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--plan") == 0 && i + 1 < argc) {
            plan_path = argv[++i];
        } else if (strcmp(argv[i], "--tier") == 0 && i + 1 < argc) {
            tier = argv[++i];
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("check", "unknown or incomplete option %s (see gpuplan check --help)", argv[i]);
            return 2;
        } else {
            break;
        }
    }
    if (!plan_path) {
        cli_error("check", "--plan PLAN.json is required (see gpuplan check --help)");
        return 2;
    }
    if (i >= argc) {
        cli_error("check", "no report FILE given (see gpuplan check --help)");
        return 2;
    }
    char err[256];
    char *ptext = NULL;
    size_t plen = 0;
    enum status st = cli_read_file(plan_path, PLAN_FILE_LIMIT, &ptext, &plen, err, sizeof(err));
    if (st != ST_OK) {
        cli_error(plan_path, "%s", err);
        return 2;
    }
    cJSON *plan = cJSON_ParseWithLength(ptext, plen);
    free(ptext);
    if (!plan) {
        cli_error(plan_path, "not valid JSON");
        return 2;
    }
    struct report *rep = NULL;
    int empty = 0;
    int rc = parse_files(argc - i, argv + i, &rep, &empty);
    if (rc) {
        cJSON_Delete(plan);
        return rc;
    }
    cJSON *verdict = NULL;
    st = report_judge(rep, plan, tier, NULL, &verdict, err, sizeof(err));
    report_free(rep);
    cJSON_Delete(plan);
    if (st != ST_OK) {
        cli_error(plan_path, "%s", err);
        return 2;
    }
    print_json(verdict);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(verdict, "verdict");
    rc = cJSON_IsString(v) && strcmp(v->valuestring, "fail") == 0 ? 1 : 0;
    cJSON_Delete(verdict);
    return rc;
}

enum status report_judge(const struct report *rep, const cJSON *plan, const char *tier,
                         const struct catalog *cat, cJSON **out_verdict, char *err, size_t errlen)
{
    struct expectation *exps = NULL;
    struct report_verdict *v = NULL;
    size_t n = 0;
    char tier_name[24] = "";
    const cJSON *tier_obj = NULL;
    enum status st = ST_NOMEM;
    cJSON *doc = NULL;
    exps = calloc(EXPECTATIONS_MAX, sizeof(*exps));
    v = malloc(sizeof(*v));
    if (!exps || !v) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (plan) {
        st = json_report_expectations(plan, tier, exps, EXPECTATIONS_MAX, &n, tier_name,
                                      sizeof(tier_name), &tier_obj, err, errlen);
        if (st != ST_OK)
            goto out;
    }
    report_check(exps, n, rep, v);
    doc = json_report_verdict(v);
    if (!doc) {
        st = ST_NOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (tier_name[0])
        cJSON_AddStringToObject(doc, "tier", tier_name);
    cJSON_AddNumberToObject(doc, "expectations", (double)n);
    json_report_calibration(doc, rep, plan, tier_obj, cat);
    *out_verdict = doc;
    doc = NULL;
    st = ST_OK;
out:
    cJSON_Delete(doc);
    free(exps);
    free(v);
    return st;
}

enum status report_analyze(const char *text, size_t len, const cJSON *plan_or_null,
                           const char *tier, const struct catalog *cat, cJSON **out_sections, cJSON **out_verdict, char *err,
                           size_t errlen)
{
    struct report *rep = NULL;
    cJSON *sections = NULL, *verdict = NULL;
    enum status st = report_parse(text, len, &rep);
    if (st != ST_OK) {
        snprintf(err, errlen, "report: %s", status_str(st));
        return st;
    }
    sections = json_report_sections(rep);
    if (!sections) {
        st = ST_NOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    st = report_judge(rep, plan_or_null, tier, cat, &verdict, err, errlen);
    if (st != ST_OK)
        goto out;
    *out_sections = sections;
    *out_verdict = verdict;
    sections = verdict = NULL;
out:
    cJSON_Delete(sections);
    cJSON_Delete(verdict);
    report_free(rep);
    return st;
}
