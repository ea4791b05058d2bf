/* published_runs.c: published training runs as engine estimate requests.
 *
 * Each CSV row says what a team ran (model shape, GPU type and count, layout,
 * precision, batch) and what it got (tokens/s per GPU, TFLOP/s per GPU under a
 * stated convention, or GPU-hours for a whole run). This file turns the first
 * part into an engine_estimate_request and the second into one comparable
 * number; the engine sees only the request. Rows on hardware outside the
 * catalog (TPUs, V100) or without a comparable figure are skipped with a
 * reason, so the benchmark can list them. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "published_runs.h"

enum {
    C_ID, C_MODEL, C_ORG, C_YEAR, C_CATEGORY, C_ARCH, C_PARAMS, C_ACTIVE, C_LAYERS, C_HIDDEN, C_HEADS, C_KV,
    C_FFN, C_SEQ, C_VOCAB, C_GBT, C_TOKENS, C_PRECISION, C_GPU, C_COUNT, C_TP, C_PP, C_DP, C_CP, C_EP,
    C_SHARDING, C_WALL, C_GPU_HOURS, C_TPS, C_STEP, C_TFLOPS, C_MFU, C_HFU, C_CONVENTION, C_NCOLS = 41
};

#define FIELD_MAX 1024

struct row {
    char f[C_NCOLS][FIELD_MAX];
};

/* One CSV record (RFC 4180 quoting) starting at *p; advances *p. */
static int csv_record(const char **p, struct row *r)
{
    const char *s = *p;
    int col = 0;
    size_t len = 0;
    int quoted = 0;

    if (!*s)
        return 0;
    memset(r, 0, sizeof *r);
    for (;;) {
        char ch = *s;
        if (quoted) {
            if (!ch)
                break;
            if (ch == '"' && s[1] == '"') {
                if (col < C_NCOLS && len + 1 < FIELD_MAX)
                    r->f[col][len++] = '"';
                s += 2;
                continue;
            }
            if (ch == '"') {
                quoted = 0;
                s++;
                continue;
            }
            if (col < C_NCOLS && len + 1 < FIELD_MAX)
                r->f[col][len++] = ch;
            s++;
            continue;
        }
        if (ch == '"') {
            quoted = 1;
            s++;
            continue;
        }
        if (ch == ',' || ch == '\n' || ch == '\r' || !ch) {
            if (col < C_NCOLS)
                r->f[col][len] = '\0';
            col++;
            len = 0;
            if (ch == ',') {
                s++;
                continue;
            }
            while (*s == '\r' || *s == '\n') {
                s++;
                if (s[-1] == '\n')
                    break;
            }
            break;
        }
        if (col < C_NCOLS && len + 1 < FIELD_MAX)
            r->f[col][len++] = ch;
        s++;
    }
    *p = s;
    return 1;
}

/* The leading number of a field ("~150 (149.77 ...)", "<=60"), NaN when none. */
static double num(const char *s)
{
    char *end;
    double v;
    while (*s == ' ' || *s == '~' || *s == '<' || *s == '=' || *s == '>')
        s++;
    if (!isdigit((unsigned char)*s) && *s != '.')
        return NAN;
    v = strtod(s, &end);
    if (end == s)
        return NAN;
    if (*end == 'M')
        v *= 1e6;
    else if (*end == 'B')
        v *= 1e9;
    else if (*end == 'T')
        v *= 1e12;
    return v;
}

/* The integer after a tag such as "TP" in "TP4 PP8", 0 when absent. */
static int tag_int(const char *s, const char *tag)
{
    size_t n = strlen(tag);
    for (const char *p = strstr(s, tag); p; p = strstr(p + 1, tag)) {
        if (p > s && isalpha((unsigned char)p[-1]))
            continue;
        if (isdigit((unsigned char)p[n]))
            return (int)strtol(p + n, NULL, 10);
    }
    return 0;
}

static const char *gpu_id_for(const char *t)
{
    if (strcmp(t, "A100-80GB") == 0) return "a100-sxm-80gb";
    if (strcmp(t, "A100-40GB") == 0) return "a100-sxm-40gb";
    if (strcmp(t, "H100-80GB") == 0) return "h100-sxm-80gb";
    if (strcmp(t, "B200") == 0) return "b200-sxm-180gb";
    if (strcmp(t, "GB200") == 0) return "gb200-nvl-186gb";
    if (strcmp(t, "GB300") == 0) return "gb300-nvl-279gb";
    return NULL;
}

/* Benchmarks of released models name the model instead of its shape; use the
 * catalog preset with that shape. */
static const char *preset_for(const char *model)
{
    char low[128];
    size_t i;
    for (i = 0; model[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)model[i]);
    low[i] = '\0';
    if (strstr(low, "llama3.1_405b")) return "llama-3.1-405b";
    if (strstr(low, "llama3_70b")) return "llama-3-70b";
    if (strstr(low, "llama3_8b")) return "llama-3-8b";
    if (strstr(low, "deepseekv3")) return "deepseek-v3";
    return NULL;
}

static void shape_from(struct engine_model *m, const struct row *r)
{
    m->layers = (int)num(r->f[C_LAYERS]);
    m->hidden = (int)num(r->f[C_HIDDEN]);
    m->heads = isnan(num(r->f[C_HEADS])) ? 0 : (int)num(r->f[C_HEADS]);
    m->kv_heads = isnan(num(r->f[C_KV])) ? m->heads : (int)num(r->f[C_KV]);
    m->ffn_hidden = isnan(num(r->f[C_FFN])) ? 0 : (int)num(r->f[C_FFN]);
    m->vocab = isnan(num(r->f[C_VOCAB])) ? 51200 : (int)num(r->f[C_VOCAB]);
    if (m->heads > 0 && m->hidden % m->heads != 0)
        m->heads = 0;
}

static int has(const char *s, const char *needle)
{
    return strstr(s, needle) != NULL;
}

static void convert(const struct catalog *c, const struct row *rows, int nrows, const struct row *r, struct run *out)
{
    struct engine_estimate_request *q = &out->req;
    struct engine_workload *w = &q->workload;
    const char *gid = gpu_id_for(r->f[C_GPU]);
    const char *preset = preset_for(r->f[C_MODEL]);
    const char *sh = r->f[C_SHARDING], *conv = r->f[C_CONVENTION], *notes = r->f[40];
    double params = num(r->f[C_PARAMS]), active = num(r->f[C_ACTIVE]);
    double tps = num(r->f[C_TPS]), tflops = num(r->f[C_TFLOPS]), gpuh = num(r->f[C_GPU_HOURS]);
    double tokens = isdigit((unsigned char)r->f[C_TOKENS][0]) ? num(r->f[C_TOKENS]) : NAN, count = num(r->f[C_COUNT]), seq = num(r->f[C_SEQ]);
    const struct row *shape_row = r;
    char err[256];

    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%.63s", r->f[C_ID]);
    snprintf(out->gpu_type, sizeof out->gpu_type, "%.31s", r->f[C_GPU]);
    engine_estimate_request_init(q);
    if (!gid) {
        snprintf(out->skip_reason, sizeof out->skip_reason, "GPU %.40s not in the catalog", r->f[C_GPU]);
        return;
    }
    if (isnan(count) || count < 1) {
        snprintf(out->skip_reason, sizeof out->skip_reason, "GPU count not stated");
        return;
    }
    /* Rows without a shape borrow it from a row of the same size (the
     * Megatron-LM Table 2 runs use the Table 1 models). */
    if (isnan(num(r->f[C_LAYERS])) && !preset)
        for (int i = 0; i < nrows; i++)
            if (!isnan(num(rows[i].f[C_LAYERS])) && fabs(num(rows[i].f[C_PARAMS]) - params) < 0.05) {
                shape_row = &rows[i];
                break;
            }
    if (preset) {
        snprintf(w->preset, sizeof w->preset, "%s", preset);
    } else {
        w->model.params_b = params;
        w->model.active_params_b = isnan(active) ? params : active;
        if (!isnan(num(shape_row->f[C_LAYERS])))
            shape_from(&w->model, shape_row);
    }
    if (isnan(seq))
        seq = tag_int(sh, "seq") ? tag_int(sh, "seq") : 2048;
    w->seq_len = (int)seq;
    w->tokens_b = isnan(tokens) ? 100.0 : tokens / 1e9;
    /* FlashAttention (2022) reached the common stacks in 2023; earlier runs
     * materialised the attention scores. */
    w->standard_attention = !isnan(num(r->f[C_YEAR])) && num(r->f[C_YEAR]) < 2023;
    w->precision = has(r->f[C_PRECISION], "fp8") || has(r->f[C_PRECISION], "FP8") ? PREC_FP8 : PREC_BF16;

    /* Global batch: "4M" tokens, "512 seq", "GBS128", or microbatch x
     * grad_accum x GPUs (llm-foundry). */
    {
        const char *g = r->f[C_GBT];
        double v = num(g);
        if (!isnan(v) && has(g, "seq") && !(g[0] && isdigit((unsigned char)g[0]) && has(g, "M (")))
            q->parallel.global_batch = (int)v;
        else if (!isnan(v))
            w->global_batch_tokens = v;
        if (tag_int(sh, "GBS"))
            q->parallel.global_batch = tag_int(sh, "GBS");
        if (tag_int(sh, "microbatch=") && tag_int(sh, "grad_accum="))
            q->parallel.global_batch = tag_int(sh, "microbatch=") * tag_int(sh, "grad_accum=") * (int)count;
    }

    snprintf(q->cluster.gpu, sizeof q->cluster.gpu, "%s", gid);
    q->cluster.count = (int)count;
    {
        const struct engine_gpu *g = catalog_gpu_find(c, gid);
        if (g && q->cluster.count % g->per_node != 0)
            q->cluster.per_node = q->cluster.count < g->per_node ? q->cluster.count : 1;
    }

    /* Layout as published; what is missing the engine chooses. */
    q->parallel.tp = isnan(num(r->f[C_TP])) ? tag_int(sh, "TP") : (int)num(r->f[C_TP]);
    q->parallel.pp = isnan(num(r->f[C_PP])) ? tag_int(sh, "PP") : (int)num(r->f[C_PP]);
    q->parallel.dp = isnan(num(r->f[C_DP])) ? 0 : (int)num(r->f[C_DP]);
    q->parallel.cp = isnan(num(r->f[C_CP])) ? tag_int(sh, "CP") : (int)num(r->f[C_CP]);
    q->parallel.ep = isnan(num(r->f[C_EP])) ? tag_int(sh, "EP") : (int)num(r->f[C_EP]);
    q->parallel.vpp = tag_int(sh, "VP");
    if (tag_int(notes, "M=")) {
        int mp = tag_int(notes, "M=");
        q->parallel.tp = mp >= 8 ? 8 : mp;
        q->parallel.pp = mp >= 8 ? mp / 8 : 1;
        q->parallel.dp = q->cluster.count / mp;
    }
    if (tag_int(notes, "microbatch="))
        q->parallel.micro_batch = tag_int(notes, "microbatch=");
    if (tag_int(sh, "microbatch="))
        q->parallel.micro_batch = tag_int(sh, "microbatch=");
    if (has(sh, "FSDP") || has(sh, "ZeRO-3")) {
        q->parallel.zero = 3;
        if (!q->parallel.tp)
            q->parallel.tp = 1;
        if (!q->parallel.pp)
            q->parallel.pp = 1;
    } else if (has(sh, "ZeRO-1") || has(sh, "distributed optimizer")) {
        q->parallel.zero = 1;
    }
    if (q->parallel.tp && q->parallel.pp && q->parallel.cp == 0 && q->parallel.dp == 0 &&
        q->cluster.count % (q->parallel.tp * q->parallel.pp) == 0)
        q->parallel.dp = q->cluster.count / (q->parallel.tp * q->parallel.pp);
    if (q->parallel.tp && q->parallel.pp && q->parallel.dp &&
        q->parallel.tp * q->parallel.pp * q->parallel.dp * (q->parallel.cp ? q->parallel.cp : 1) != q->cluster.count)
        q->parallel.dp = 0;
    if (has(sh, "act.ckpt=True") || has(notes, "Full activation checkpointing") || has(conv, "recompute") ||
        has(conv, "RECOMPUTE") || has(conv, "incl. activation"))
        q->parallel.recompute = RECOMPUTE_FULL;
    else if (has(sh, "act.ckpt=False"))
        q->parallel.recompute = RECOMPUTE_NONE;

    if (engine_workload_resolve(w, c, err, sizeof err) != ST_OK) {
        snprintf(out->skip_reason, sizeof out->skip_reason, "request rejected: %.80s", err);
        return;
    }

    /* The published figure, best first: measured tokens/s per GPU; TFLOP/s
     * per GPU converted back to tokens/s under its stated convention; GPU-hours
     * of a whole run (with restarts and evaluation in it). */
    if (!isnan(tps)) {
        out->metric = RUN_TOKENS_PER_S;
        out->published = tps;
    } else if (!isnan(tflops) && conv[0]) {
        const struct engine_model *m = &w->model;
        double fpt;
        if (has(conv, "8*N"))
            fpt = 8.0 * m->params_b * 1e9;
        else {
            /* Megatron-LM eq. 3 counts 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h))
             * per iteration of B sequences of s tokens; per token: */
            double l = m->layers, h = m->hidden, s = w->seq_len, V = m->vocab;
            fpt = 96.0 * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
        }
        out->metric = RUN_TOKENS_PER_S;
        out->published = tflops * 1e12 / fpt;
    } else if (!isnan(gpuh) && !isnan(tokens)) {
        out->metric = RUN_GPU_HOURS;
        out->published = gpuh;
    } else {
        snprintf(out->skip_reason, sizeof out->skip_reason, "no comparable figure (tokens/s, TFLOP/s with "
                 "convention, or GPU-hours with tokens)");
    }
}

int runs_load(const char *path, const struct catalog *c, struct runs *out, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    long size;
    const char *p;
    struct row *rows = NULL;
    int nrows = 0, rc = -1;

    if (!fp) {
        snprintf(err, errlen, "cannot open %s", path);
        return -1;
    }
    if (fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0)
        goto out;
    buf = malloc((size_t)size + 1);
    rows = calloc(RUNS_MAX + 1, sizeof *rows);
    if (!buf || !rows || fread(buf, 1, (size_t)size, fp) != (size_t)size)
        goto out;
    buf[size] = '\0';
    p = buf;
    if (!csv_record(&p, &rows[0]))   /* header */
        goto out;
    while (nrows < RUNS_MAX && csv_record(&p, &rows[nrows]))
        if (rows[nrows].f[C_ID][0])
            nrows++;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < nrows; i++)
        convert(c, rows, nrows, &rows[i], &out->runs[out->n++]);
    rc = 0;
out:
    if (rc != 0)
        snprintf(err, errlen, "cannot read %s", path);
    free(rows);
    free(buf);
    fclose(fp);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int runs_evaluate(const struct catalog *c, struct runs *rs, double *median_abs_error)
{
    double errs[RUNS_MAX];
    int n = 0;
    char err[256];

    for (int i = 0; i < rs->n; i++) {
        struct run *r = &rs->runs[i];
        struct engine_plan plan;
        if (r->metric == RUN_SKIP)
            continue;
        if (engine_estimate(c, &r->req, &plan, err, sizeof err) != ST_OK) {
            snprintf(r->skip_reason, sizeof r->skip_reason, "estimate rejected: %.80s", err);
            r->metric = RUN_SKIP;
            continue;
        }
        if (!plan.feasible) {
            /* A published layout the memory model says cannot fit is a model
             * error too: count it as 100% off rather than hide it. */
            r->estimated = NAN;
            r->error = 1.0;
            snprintf(r->skip_reason, sizeof r->skip_reason, "estimated infeasible: %.80s", plan.why);
        } else {
            r->estimated = r->metric == RUN_GPU_HOURS ? plan.gpu_hours : plan.tokens_per_s / plan.count;
            r->error = r->estimated / r->published - 1.0;
        }
        errs[n++] = fabs(r->error);
    }
    qsort(errs, (size_t)n, sizeof errs[0], cmp_double);
    *median_abs_error = n == 0 ? NAN : (n % 2 ? errs[n / 2] : 0.5 * (errs[n / 2 - 1] + errs[n / 2]));
    return n;
}
