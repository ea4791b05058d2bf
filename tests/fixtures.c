/* fixtures.c: the data-driven fixture runner (curl's tests/data, jq's
 * jq.test): one case per file under tests/data/<area>/, one loop runs them all.
 *
 * A case is NAME.expected.json beside its input NAME.<ext> (ext without a
 * dot). The command comes from the nearest COMMAND file in the case's folder
 * or a parent (one line, e.g. "parse {input}" or "recommend {input}";
 * {input} is the input path, {dir} the case's folder), or from NAME.args.
 * The runner executes `gpuplan <command>`, parses stdout as JSON and checks
 * that everything in the expectation matches (see README.md in tests/data).
 *
 * usage: fixtures DATA_DIR [FILTER]     (GPUPLAN_BIN names the binary) */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e/e2e.h"

static int passed, failed;

static int num_close(double a, double e)
{
    return fabs(a - e) <= fmax(1e-9, 1e-6 * fabs(e));
}

/* Does actual satisfy expected? On mismatch writes a reason into why. */
static int match(const cJSON *exp, const cJSON *act, const char *path, char *why, size_t wlen)
{
    char sub[512];
    if (cJSON_IsObject(exp)) {
        const cJSON *approx = cJSON_GetObjectItem(exp, "$approx");
        const cJSON *lo = cJSON_GetObjectItem(exp, "$min");
        const cJSON *hi = cJSON_GetObjectItem(exp, "$max");
        if (approx || lo || hi) {
            if (!cJSON_IsNumber(act)) {
                snprintf(why, wlen, "%s: expected a number", path);
                return 0;
            }
            double a = act->valuedouble;
            if (approx) {
                const cJSON *rel = cJSON_GetObjectItem(exp, "$rel");
                double r = cJSON_IsNumber(rel) ? rel->valuedouble : 0.02;
                if (fabs(a - approx->valuedouble) > r * fabs(approx->valuedouble)) {
                    snprintf(why, wlen, "%s: %g is not within %g%% of %g", path, a, r * 100, approx->valuedouble);
                    return 0;
                }
            }
            if ((lo && a < lo->valuedouble) || (hi && a > hi->valuedouble)) {
                snprintf(why, wlen, "%s: %g outside [%g, %g]", path, a, lo ? lo->valuedouble : -INFINITY,
                         hi ? hi->valuedouble : INFINITY);
                return 0;
            }
            return 1;
        }
        if (!cJSON_IsObject(act)) {
            snprintf(why, wlen, "%s: expected an object", path);
            return 0;
        }
        for (const cJSON *e = exp->child; e; e = e->next) {
            if (e->string[0] == '$')
                continue;
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(act, e->string);
            snprintf(sub, sizeof sub, "%s.%s", path, e->string);
            if (!a) {
                snprintf(why, wlen, "%s: missing", sub);
                return 0;
            }
            if (!match(e, a, sub, why, wlen))
                return 0;
        }
        return 1;
    }
    if (cJSON_IsArray(exp)) {
        if (!cJSON_IsArray(act)) {
            snprintf(why, wlen, "%s: expected an array", path);
            return 0;
        }
        const cJSON *first = exp->child;
        if (cJSON_IsString(first) && strcmp(first->valuestring, "$contains") == 0) {
            int i = 0;
            for (const cJSON *e = first->next; e; e = e->next, i++) {
                int found = 0;
                char ignore[512];
                for (const cJSON *a = act->child; a && !found; a = a->next)
                    found = match(e, a, path, ignore, sizeof ignore);
                if (!found) {
                    char *t = cJSON_PrintUnformatted(e);
                    snprintf(why, wlen, "%s: no element matches %s", path, t ? t : "?");
                    cJSON_free(t);
                    return 0;
                }
            }
            return 1;
        }
        int ne = cJSON_GetArraySize(exp), na = cJSON_GetArraySize(act);
        if (ne != na) {
            snprintf(why, wlen, "%s: expected %d elements, got %d", path, ne, na);
            return 0;
        }
        const cJSON *a = act->child;
        int i = 0;
        for (const cJSON *e = exp->child; e; e = e->next, a = a->next, i++) {
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
            if (!match(e, a, sub, why, wlen))
                return 0;
        }
        return 1;
    }
    if (cJSON_IsNull(exp)) {
        if (!cJSON_IsNull(act)) {
            char *t = cJSON_PrintUnformatted(act);
            snprintf(why, wlen, "%s: expected null, got %s", path, t ? t : "?");
            cJSON_free(t);
            return 0;
        }
        return 1;
    }
    if (cJSON_IsNumber(exp)) {
        if (!cJSON_IsNumber(act) || !num_close(act->valuedouble, exp->valuedouble)) {
            char *t = cJSON_PrintUnformatted(act);
            snprintf(why, wlen, "%s: expected %g, got %s", path, exp->valuedouble, t ? t : "?");
            cJSON_free(t);
            return 0;
        }
        return 1;
    }
    if (cJSON_IsString(exp)) {
        if (!cJSON_IsString(act) || strcmp(act->valuestring, exp->valuestring) != 0) {
            char *t = cJSON_PrintUnformatted(act);
            snprintf(why, wlen, "%s: expected \"%s\", got %s", path, exp->valuestring, t ? t : "?");
            cJSON_free(t);
            return 0;
        }
        return 1;
    }
    if (cJSON_IsBool(exp)) {
        if (!cJSON_IsBool(act) || cJSON_IsTrue(act) != cJSON_IsTrue(exp)) {
            snprintf(why, wlen, "%s: expected %s", path, cJSON_IsTrue(exp) ? "true" : "false");
            return 0;
        }
        return 1;
    }
    snprintf(why, wlen, "%s: unsupported expectation", path);
    return 0;
}

/* The command line for a case: NAME.args, else the nearest COMMAND file. */
static char *find_command(const char *dir, const char *name)
{
    char p[1200], d[1024];
    snprintf(p, sizeof p, "%s/%s.args", dir, name);
    char *t = e2e_read_file(p);
    if (t)
        return t;
    snprintf(d, sizeof d, "%s", dir);
    for (;;) {
        snprintf(p, sizeof p, "%s/COMMAND", d);
        if ((t = e2e_read_file(p)))
            return t;
        char *slash = strrchr(d, '/');
        if (!slash || slash == d)
            return NULL;
        *slash = '\0';
        if (strcmp(slash + 1, "data") == 0)
            return NULL; /* do not climb above tests/data */
    }
}

static void run_case(const char *dir, const char *name, const char *input)
{
    char why[1024] = "", inpath[1200];
    char *cmd = find_command(dir, name), *out = NULL, *err = NULL, *expect_text = NULL;
    const char *argv[40];
    char args[40][1400];
    int argc = 0;
    cJSON *exp = NULL, *act = NULL;
    int ok = 0;

    snprintf(inpath, sizeof inpath, "%s/%s", dir, input);
    if (!cmd) {
        snprintf(why, sizeof why, "no COMMAND file or %s.args", name);
        goto out;
    }
    argv[argc++] = "gpuplan";
    for (char *p = cmd; argc < 39;) {
        /* Words split on blanks; each is cut in place with a NUL. */
        char *w = p + strspn(p, " \t\r\n");
        if (!*w)
            break;
        p = w + strcspn(w, " \t\r\n");
        if (*p)
            *p++ = '\0';
        if (strcmp(w, "{input}") == 0)
            snprintf(args[argc], sizeof args[argc], "%s", inpath);
        else if (strncmp(w, "{dir}", 5) == 0)
            snprintf(args[argc], sizeof args[argc], "%s%s", dir, w + 5);
        else
            snprintf(args[argc], sizeof args[argc], "%s", w);
        argv[argc] = args[argc];
        argc++;
    }
    argv[argc] = NULL;

    char ep[1400];
    snprintf(ep, sizeof ep, "%s/%s.expected.json", dir, name);
    expect_text = e2e_read_file(ep);
    exp = expect_text ? cJSON_Parse(expect_text) : NULL;
    if (!exp) {
        snprintf(why, sizeof why, "cannot parse %.900s", ep);
        goto out;
    }
    int rc = e2e_run(argv, inpath, &out, &err);
    const cJSON *want_exit = cJSON_GetObjectItem(exp, "$exit");
    int want = cJSON_IsNumber(want_exit) ? want_exit->valueint : 0;
    if (rc != want) {
        snprintf(why, sizeof why, "exit status %d, expected %d; stderr: %.300s", rc, want, err ? err : "");
        goto out;
    }
    const cJSON *want_err = cJSON_GetObjectItem(exp, "$stderr");
    if (cJSON_IsString(want_err) && (!err || !strstr(err, want_err->valuestring))) {
        snprintf(why, sizeof why, "stderr lacks \"%s\": %.300s", want_err->valuestring, err ? err : "");
        goto out;
    }
    int only_meta = 1;
    for (const cJSON *e = exp->child; e; e = e->next)
        only_meta &= e->string[0] == '$';
    if (only_meta) {
        ok = 1;
        goto out;
    }
    act = cJSON_Parse(out ? out : "");
    if (!act) {
        snprintf(why, sizeof why, "output is not JSON: %.200s", out ? out : "");
        goto out;
    }
    ok = match(exp, act, "$", why, sizeof why);
out:
    if (ok) {
        passed++;
        printf("ok   %s/%s\n", dir, name);
    } else {
        failed++;
        printf("FAIL %s/%s: %s\n", dir, name, why);
    }
    cJSON_Delete(exp);
    cJSON_Delete(act);
    free(expect_text);
    free(cmd);
    free(out);
    free(err);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *dir, const char *filter, int depth)
{
    DIR *d = opendir(dir);
    char *names[4096];
    int n = 0;
    struct dirent *e;
    if (!d || depth > 8) {
        if (d)
            closedir(d);
        return;
    }
    while ((e = readdir(d)) && n < 4096) {
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    for (int i = 0; i < n; i++) {
        char p[1200];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            walk(p, filter, depth + 1);
            continue;
        }
        if (!has_suffix(names[i], ".expected.json"))
            continue;
        char stem[512];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(names[i]) - strlen(".expected.json")), names[i]);
        if (filter && !strstr(p, filter))
            continue;
        /* the input: STEM.<ext>, ext without a dot */
        const char *input = NULL;
        size_t sl = strlen(stem);
        for (int j = 0; j < n; j++) {
            const char *c = names[j];
            if (strncmp(c, stem, sl) == 0 && c[sl] == '.' && !strchr(c + sl + 1, '.') &&
                strcmp(c + sl + 1, "args") != 0)
                input = c;
        }
        if (!input) {
            failed++;
            printf("FAIL %s/%s: no input file %s.<ext>\n", dir, stem, stem);
            continue;
        }
        run_case(dir, stem, input);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
}

/* The matcher's own rules, checked before any case runs. */
static int self_test(void)
{
    static const struct {
        const char *exp, *act;
        int want;
    } cases[] = {
        {"{\"a\":1}", "{\"a\":1,\"b\":2}", 1},
        {"{\"a\":1}", "{\"a\":2}", 0},
        {"{\"a\":null}", "{\"a\":null}", 1},
        {"{\"a\":null}", "{\"a\":0}", 0},
        {"{\"a\":null}", "{}", 0},
        {"{\"a\":[1,2]}", "{\"a\":[1,2]}", 1},
        {"{\"a\":[1,2]}", "{\"a\":[1,2,3]}", 0},
        {"{\"a\":[\"$contains\",2]}", "{\"a\":[1,2,3]}", 1},
        {"{\"a\":[\"$contains\",4]}", "{\"a\":[1,2,3]}", 0},
        {"{\"a\":{\"$approx\":100,\"$rel\":0.05}}", "{\"a\":104}", 1},
        {"{\"a\":{\"$approx\":100,\"$rel\":0.05}}", "{\"a\":106}", 0},
        {"{\"a\":{\"$min\":1,\"$max\":3}}", "{\"a\":2}", 1},
        {"{\"a\":{\"$min\":1,\"$max\":3}}", "{\"a\":4}", 0},
        {"{\"a\":\"x\"}", "{\"a\":\"x\"}", 1},
        {"{\"a\":true}", "{\"a\":false}", 0},
        {"{\"a\":{\"b\":[{\"c\":1}]}}", "{\"a\":{\"b\":[{\"c\":1,\"d\":2}]}}", 1},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[256];
        cJSON *e = cJSON_Parse(cases[i].exp), *a = cJSON_Parse(cases[i].act);
        int got = match(e, a, "$", why, sizeof why);
        if (got != cases[i].want) {
            printf("FAIL matcher: %s vs %s gave %d\n", cases[i].exp, cases[i].act, got);
            bad++;
        }
        cJSON_Delete(e);
        cJSON_Delete(a);
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fixtures DATA_DIR [FILTER]\n");
        return 2;
    }
    if (self_test())
        return 1;
    walk(argv[1], argc > 2 ? argv[2] : NULL, 0);
    printf("fixtures: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
