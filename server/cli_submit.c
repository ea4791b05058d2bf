/* cli_submit.c: `gpuplan submit`: upload benchmark output from CI and turn
 * the verdict into an exit status (and optionally a JUnit file).
 *
 * All files go up in one multipart request, so the server judges them
 * together as one report. A network error or a 5xx is retried with
 * exponential backoff, every attempt carrying the same Idempotency-Key, so
 * a retry after a lost reply returns the report already stored instead of
 * adding a second one. The token comes from --token or GPUPLAN_TOKEN and is
 * wiped from memory after use; it never appears in messages. A file in which
 * no known tool's output is found is named on stderr, as `gpuplan check`
 * does, before the upload: its verdict can only be unknown, which exits 0,
 * and a CI job whose benchmark printed nothing useful should say so. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "server_int.h"

#define SUBMIT_FILE_MAX (16u << 20)
#define SUBMIT_FILES_MAX 64

static void submit_help(FILE *out)
{
    fprintf(out,
            "usage: gpuplan submit --server URL --plan ID [options] FILE...\n"
            "\n"
            "Uploads benchmark and preflight output as one report against a saved plan and\n"
            "prints the verdict.\n"
            "\n"
            "  --server URL      gpuplan server, e.g. https://gpuplan.example.com\n"
            "  --plan ID         the plan's id\n"
            "  --token T         team API token (default: $GPUPLAN_TOKEN)\n"
            "  --source TEXT     where the report comes from (a CI job URL); sent as X-Report-Source\n"
            "                    (default: the job URL from GitLab, GitHub Actions or Jenkins variables)\n"
            "  --json            print the server's JSON answer instead of a summary\n"
            "  --junit FILE      also write a JUnit XML file, one testcase per finding\n"
            "  --retries N       retries on network errors and 5xx answers (default 4)\n"
            "  --help            this text\n"
            "\n"
            "exit status: 0 verdict pass, warn or unknown; 1 fail; 2 usage, network or server error\n");
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const char *jstr(const cJSON *o, const char *name, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* A finding's observed or expected value as text. */
static void value_text(const cJSON *v, char *out, size_t outlen)
{
    if (cJSON_IsNumber(v))
        snprintf(out, outlen, "%g", v->valuedouble);
    else if (cJSON_IsString(v))
        snprintf(out, outlen, "%s", v->valuestring);
    else if (cJSON_IsBool(v))
        snprintf(out, outlen, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else
        snprintf(out, outlen, "n/a");
}

static int write_junit(const char *path, const cJSON *doc, long long plan_id, char *err, size_t errlen)
{
    struct sbuf b = {0};
    const cJSON *findings = cJSON_GetObjectItemCaseSensitive(doc, "findings"), *f;
    int tests = 0, failures = 0, skipped = 0;
    cJSON_ArrayForEach(f, findings)
    {
        const char *sev = jstr(f, "severity", "unknown");
        tests++;
        failures += strcmp(sev, "fail") == 0;
        skipped += strcmp(sev, "skip") == 0 || strcmp(sev, "unknown") == 0;
    }
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(doc, "id");
    char suite[96];
    snprintf(suite, sizeof suite, "gpuplan plan %lld report %.0f", plan_id, cJSON_IsNumber(rid) ? rid->valuedouble : 0);
    sbuf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sbuf_addf(&b, "<testsuites name=\"gpuplan\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", tests, failures,
              skipped);
    sbuf_adds(&b, "  <testsuite name=\"");
    sbuf_add_xml(&b, suite);
    sbuf_addf(&b, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n", tests, failures, skipped);
    cJSON_ArrayForEach(f, findings)
    {
        char obs[64], exp[64];
        const char *sev = jstr(f, "severity", "unknown"), *id = jstr(f, "id", "finding");
        const char *msg = jstr(f, "message", ""), *rule = jstr(f, "rule", "");
        value_text(cJSON_GetObjectItemCaseSensitive(f, "observed"), obs, sizeof obs);
        value_text(cJSON_GetObjectItemCaseSensitive(f, "expected"), exp, sizeof exp);
        sbuf_adds(&b, "    <testcase classname=\"gpuplan.");
        sbuf_add_xml(&b, id);
        sbuf_adds(&b, "\" name=\"");
        sbuf_add_xml(&b, id);
        sbuf_adds(&b, "\">\n");
        if (strcmp(sev, "fail") == 0) {
            sbuf_adds(&b, "      <failure type=\"fail\" message=\"");
            sbuf_add_xml(&b, msg);
            sbuf_adds(&b, "\">observed ");
            sbuf_add_xml(&b, obs);
            sbuf_adds(&b, ", expected ");
            sbuf_add_xml(&b, exp);
            sbuf_adds(&b, " (rule ");
            sbuf_add_xml(&b, rule);
            sbuf_adds(&b, ")</failure>\n");
        } else if (strcmp(sev, "skip") == 0 || strcmp(sev, "unknown") == 0) {
            sbuf_addf(&b, "      <skipped message=\"%s: ", sev);
            sbuf_add_xml(&b, msg);
            sbuf_adds(&b, "\"/>\n");
        } else {
            sbuf_addf(&b, "      <system-out>%s: ", sev);
            sbuf_add_xml(&b, msg);
            sbuf_adds(&b, " (observed ");
            sbuf_add_xml(&b, obs);
            sbuf_adds(&b, ", expected ");
            sbuf_add_xml(&b, exp);
            sbuf_adds(&b, ")</system-out>\n");
        }
        sbuf_adds(&b, "    </testcase>\n");
    }
    sbuf_adds(&b, "  </testsuite>\n</testsuites>\n");
    size_t len = 0;
    char *text = sbuf_detach(&b, &len);
    FILE *fp = text ? fopen(path, "w") : NULL;
    int ok = fp && fwrite(text, 1, len, fp) == len;
    if (fp && fclose(fp) != 0)
        ok = 0;
    free(text);
    if (!ok)
        snprintf(err, errlen, "cannot write %s", path);
    return ok ? 0 : -1;
}

static void print_summary(const cJSON *doc)
{
    const cJSON *findings = cJSON_GetObjectItemCaseSensitive(doc, "findings"), *f, *id = cJSON_GetObjectItem(doc, "id");
    printf("verdict: %s (report %.0f, %d findings)\n", jstr(doc, "verdict", "unknown"),
           cJSON_IsNumber(id) ? id->valuedouble : 0, cJSON_GetArraySize(findings));
    cJSON_ArrayForEach(f, findings)
    {
        char obs[64], exp[64];
        value_text(cJSON_GetObjectItemCaseSensitive(f, "observed"), obs, sizeof obs);
        value_text(cJSON_GetObjectItemCaseSensitive(f, "expected"), exp, sizeof exp);
        printf("  %-7s %s: observed %s, expected %s: %s\n", jstr(f, "severity", "unknown"), jstr(f, "id", "?"), obs,
               exp, jstr(f, "message", ""));
    }
}

/* The running CI job's URL, from the variables GitLab, GitHub Actions and
 * Jenkins set, so reports name their job without extra flags. */
static const char *ci_job_url(char *buf, size_t buflen)
{
    const char *v;
    if ((v = getenv("CI_JOB_URL")) && *v) /* GitLab */
        return v;
    if ((v = getenv("BUILD_URL")) && *v) /* Jenkins */
        return v;
    const char *srv = getenv("GITHUB_SERVER_URL"), *repo = getenv("GITHUB_REPOSITORY"), *run = getenv("GITHUB_RUN_ID");
    if (srv && repo && run && *srv && *repo && *run &&
        snprintf(buf, buflen, "%s/%s/actions/runs/%s", srv, repo, run) < (int)buflen)
        return buf;
    return NULL;
}

int cli_submit(int argc, char **argv)
{
    static const struct option opts[] = {
        {"server", required_argument, NULL, 's'}, {"plan", required_argument, NULL, 'p'},
        {"token", required_argument, NULL, 't'},  {"source", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},         {"junit", required_argument, NULL, 'u'},
        {"retries", required_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *server = NULL, *source = NULL, *junit = NULL;
    char token[128] = "", url[2200], key[64], err[512] = "", auth[160], src_header[600], key_header[96];
    long plan = 0, retries = 4;
    int c, as_json = 0, rc = 2, nfiles = 0;
    struct client_part parts[SUBMIT_FILES_MAX];
    char *texts[SUBMIT_FILES_MAX] = {0};
    struct client_response resp = {0};
    cJSON *doc = NULL;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': server = optarg; break;
        case 'p':
            if (parse_long(optarg, 1, 1L << 53, &plan) != ST_OK) {
                cli_error("submit", "--plan: expected a plan id (a positive number), got '%s'", optarg);
                return 2;
            }
            break;
        case 't':
            if (snprintf(token, sizeof token, "%s", optarg) >= (int)sizeof token) {
                cli_error("submit", "--token: too long to be a gpuplan token");
                return 2;
            }
            break;
        case 'o': source = optarg; break;
        case 'j': as_json = 1; break;
        case 'u': junit = optarg; break;
        case 'r':
            if (parse_long(optarg, 0, 10, &retries) != ST_OK) {
                cli_error("submit", "--retries: expected 0 to 10, got '%s'", optarg);
                return 2;
            }
            break;
        case 'h': submit_help(stdout); return 0;
        default: submit_help(stderr); return 2;
        }
    }
    char ci_url[600];
    if (!source)
        source = ci_job_url(ci_url, sizeof ci_url);
    if (!token[0] && getenv("GPUPLAN_TOKEN"))
        snprintf(token, sizeof token, "%s", getenv("GPUPLAN_TOKEN"));
    if (!server || !plan) {
        cli_error("submit", "--server and --plan are required (see gpuplan submit --help)");
        goto out;
    }
    if (!token[0]) {
        cli_error("submit", "no API token: pass --token or set GPUPLAN_TOKEN");
        goto out;
    }
    if (optind >= argc) {
        cli_error("submit", "no report files given (see gpuplan submit --help)");
        goto out;
    }
    if (argc - optind > SUBMIT_FILES_MAX) {
        cli_error("submit", "at most %d files per report", SUBMIT_FILES_MAX);
        goto out;
    }
    if (source && strlen(source) > 512) {
        cli_error("submit", "--source: at most 512 characters");
        goto out;
    }
    for (int i = optind; i < argc; i++, nfiles++) {
        size_t len = 0;
        if (cli_read_file(argv[i], SUBMIT_FILE_MAX, &texts[nfiles], &len, err, sizeof err) != ST_OK) {
            cli_error("submit", "%s", err);
            goto out;
        }
        struct report *rep = NULL;
        if (report_parse(texts[nfiles], len, &rep) == ST_OK && rep->section_count == 0)
            cli_error(argv[i], "no known tool output found (%zu lines)", rep->lines);
        report_free(rep);
        parts[nfiles].name = "file";
        parts[nfiles].filename = strcmp(argv[i], "-") == 0 ? "stdin.txt" : basename_of(argv[i]);
        parts[nfiles].data = texts[nfiles];
        parts[nfiles].len = len;
    }
    size_t sl = strlen(server);
    while (sl && server[sl - 1] == '/')
        sl--;
    if (snprintf(url, sizeof url, "%.*s/api/v1/plans/%ld/reports", (int)sl, server, plan) >= (int)sizeof url) {
        cli_error("submit", "--server: URL too long");
        goto out;
    }
    if (crypto_token("submit-", 16, key, sizeof key) != ST_OK) {
        cli_error("submit", "cannot generate an Idempotency-Key");
        goto out;
    }
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    snprintf(key_header, sizeof key_header, "Idempotency-Key: %s", key);
    const char *headers[5];
    int nh = 0;
    headers[nh++] = auth;
    headers[nh++] = key_header;
    headers[nh++] = "Accept: application/json";
    if (source) {
        snprintf(src_header, sizeof src_header, "X-Report-Source: %s", source);
        headers[nh++] = src_header;
    }
    headers[nh] = NULL;
    struct client_request rq = {.method = "POST", .url = url, .headers = headers, .parts = parts, .nparts = nfiles,
                                .timeout_s = 120};
    enum status st = ST_IO;
    long delay_ms = 500;
    for (long attempt = 0; attempt <= retries; attempt++) {
        client_response_release(&resp);
        st = client_send(&rq, &resp, err, sizeof err);
        if (st == ST_OK && resp.status < 500)
            break;
        if (attempt < retries) {
            sleep_ms(delay_ms);
            delay_ms *= 2;
        }
    }
    crypto_wipe(auth, sizeof auth);
    if (st != ST_OK) {
        cli_error("submit", "cannot reach %.*s: %s", (int)sl, server, err);
        goto out;
    }
    doc = cJSON_ParseWithLength(resp.body, resp.len);
    if (resp.status != 201 && resp.status != 200) {
        const char *detail = jstr(doc, "detail", NULL);
        cli_error("submit", "the server answered %ld: %s", resp.status,
                  detail ? detail : "no explanation (is --server a gpuplan server?)");
        goto out;
    }
    if (!cJSON_IsObject(doc) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "verdict"))) {
        cli_error("submit", "the server's answer holds no verdict (is --server a gpuplan server?)");
        goto out;
    }
    if (junit && write_junit(junit, doc, plan, err, sizeof err) != 0) {
        cli_error("submit", "%s", err);
        goto out;
    }
    if (as_json)
        printf("%.*s\n", (int)resp.len, resp.body);
    else
        print_summary(doc);
    rc = strcmp(jstr(doc, "verdict", ""), "fail") == 0 ? 1 : 0;
out:
    crypto_wipe(token, sizeof token);
    for (int i = 0; i < nfiles; i++)
        free(texts[i]);
    cJSON_Delete(doc);
    client_response_release(&resp);
    return rc;
}
