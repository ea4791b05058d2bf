/* json_plan.c: cJSON <-> planner structs (workload, estimate request,
 * recommendation, plan, catalog).
 *
 * The decoder is strict because its input is untrusted: every key is known,
 * every value has the expected JSON type, numbers are finite and in range,
 * integers are whole, counts are not negative, strings fit their buffers, and
 * duplicate keys are refused. Each failure names the field with its path
 * ("model.layers", "gpus_allowed[2]") so the CLI's one-line error and the
 * problem+json "field" member say exactly what to fix. The encoder writes
 * every name API.md fixes and adds detail freely; numbers are rounded to
 * what the models can justify so the output reads cleanly. Plan answers are
 * written straight to text (jw_*, json_write.c), the server's hot path; the
 * cJSON forms parse that text. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>   /* front_scan4's gathers, in its AVX2 function only */
#define FRONT_AVX2 1
#endif

#include <cjson/cJSON.h>

#include "engine.h"
#include "server_int.h"

/* ------------------------------------------------------------ decoding */

struct dec {
    char *field;
    size_t fieldlen;
    char *err;
    size_t errlen;
};

static enum status fail(struct dec *d, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum status fail(struct dec *d, const char *field, const char *fmt, ...)
{
    va_list ap;
    char why[256];
    va_start(ap, fmt);
    if (vsnprintf(why, sizeof why, fmt, ap) < 0)
        why[0] = '\0';
    va_end(ap);
    if (d->field && d->fieldlen && snprintf(d->field, d->fieldlen, "%s", field) < 0)
        d->field[0] = '\0';
    if (d->err && d->errlen && snprintf(d->err, d->errlen, "%s: %s", field, why) < 0)
        d->err[0] = '\0';
    return ST_INVALID;
}

/* A field's path, prefix and key ("model." "layers"), for a failure's
 * message: written only when one is reported (a valid body names no path). */
static const char *path_of(char path[96], const char *prefix, const char *key)
{
    if (snprintf(path, 96, "%s%s", prefix, key) < 0)
        path[0] = '\0';
    return path;
}

/* cJSON_GetObjectItemCaseSensitive, step for step (the first child whose
 * key is name; a child without a key ends the search), inline and with
 * the first bytes compared before strcmp: a body's ~15 lookups each walked
 * its ~10 keys through a library call and strcmp. */
static inline const cJSON *item_of(const cJSON *obj, const char *name)
{
    const cJSON *it;
    if (!obj || !name)
        return NULL;
    for (it = obj->child; it && it->string; it = it->next)
        if (it->string[0] == name[0] && strcmp(name, it->string) == 0)
            return it;
    return NULL;
}

/* Refuses keys outside `known` (at most 32 names) and duplicate keys; with
 * slot (one entry a known name), each name's member is left in its entry
 * (NULL: absent), which is then what item_of finds for it. The first
 * member that is unknown or repeats an earlier one's name is the one
 * named, as a walk over the earlier members would find it. */
#define KNOWN_MAX 32
static enum status check_keys(struct dec *d, const cJSON *obj, const char *prefix, const char *const *known,
                              const cJSON **slot)
{
    char path[96];
    const cJSON *own[KNOWN_MAX];
    int nk = 0;
    while (known[nk] && nk < KNOWN_MAX)
        nk++;
    if (!slot)
        slot = own;
    for (int i = 0; i < nk; i++)
        slot[i] = NULL;
    for (const cJSON *it = obj->child; it; it = it->next) {
        int k = -1;
        for (int i = 0; it->string && i < nk; i++)
            if (it->string[0] == known[i][0] && strcmp(it->string, known[i]) == 0) {
                k = i;
                break;
            }
        if (k < 0)
            return fail(d, path_of(path, prefix, it->string ? it->string : "?"), "unknown field");
        if (slot[k])
            return fail(d, path_of(path, prefix, it->string), "duplicate field");
        slot[k] = it;
    }
    return ST_OK;
}

/* A number in [lo, hi]; absent (v NULL) leaves *out alone. */
static enum status get_num_v(struct dec *d, const cJSON *v, const char *prefix, const char *key, double lo, double hi,
                             double *out)
{
    char path[96];
    if (!v)
        return ST_OK;
    if (!cJSON_IsNumber(v))
        return fail(d, path_of(path, prefix, key), "must be a number");
    if (!isfinite(v->valuedouble))
        return fail(d, path_of(path, prefix, key), "must be a finite number");
    if (v->valuedouble < lo || v->valuedouble > hi)
        return fail(d, path_of(path, prefix, key), "%g is out of range (%g..%g)", v->valuedouble, lo, hi);
    *out = v->valuedouble;
    return ST_OK;
}

static enum status get_num(struct dec *d, const cJSON *obj, const char *prefix, const char *key, double lo,
                           double hi, double *out)
{
    return get_num_v(d, item_of(obj, key), prefix, key, lo, hi, out);
}

static enum status get_int_v(struct dec *d, const cJSON *v, const char *prefix, const char *key, int lo, int hi,
                             int *out)
{
    double x = NAN;
    enum status st = get_num_v(d, v, prefix, key, lo, hi, &x);
    char path[96];
    if (st != ST_OK || isnan(x))
        return st;
    if (x != floor(x))
        return fail(d, path_of(path, prefix, key), "must be a whole number");
    *out = (int)x;
    return ST_OK;
}

static enum status get_int(struct dec *d, const cJSON *obj, const char *prefix, const char *key, int lo, int hi,
                           int *out)
{
    return get_int_v(d, item_of(obj, key), prefix, key, lo, hi, out);
}

static enum status get_str_v(struct dec *d, const cJSON *v, const char *prefix, const char *key, char *out,
                             size_t outlen, int *present)
{
    char path[96];
    size_t n;
    if (present)
        *present = 0;
    if (!v)
        return ST_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return fail(d, path_of(path, prefix, key), "must be a string");
    n = strlen(v->valuestring);
    if (n >= outlen || !n)
        return fail(d, path_of(path, prefix, key), "must be 1 to %zu characters", outlen - 1);
    memcpy(out, v->valuestring, n + 1);
    if (present)
        *present = 1;
    return ST_OK;
}

static enum status get_str(struct dec *d, const cJSON *obj, const char *prefix, const char *key, char *out,
                           size_t outlen, int *present)
{
    return get_str_v(d, item_of(obj, key), prefix, key, out, outlen, present);
}

/* A string that must be one of `names`; returns the index via *out. */
static enum status get_enum_v(struct dec *d, const cJSON *v, const char *prefix, const char *key,
                              const char *const *names, int *out)
{
    char buf[32];
    int present = 0;
    char path[96];
    enum status st = get_str_v(d, v, prefix, key, buf, sizeof buf, &present);
    if (st != ST_OK || !present)
        return st;
    for (int i = 0; names[i]; i++)
        if (strcmp(buf, names[i]) == 0) {
            *out = i;
            return ST_OK;
        }
    return fail(d, path_of(path, prefix, key), "unknown value \"%s\"", buf);
}

static enum status get_enum(struct dec *d, const cJSON *obj, const char *prefix, const char *key,
                            const char *const *names, int *out)
{
    return get_enum_v(d, item_of(obj, key), prefix, key, names, out);
}

static enum status decode_model(struct dec *d, const cJSON *m, struct engine_workload *w)
{
    static const char *const known[] = {"preset", "params_b", "active_params_b", "layers", "hidden", "heads",
        "kv_heads", "ffn_hidden", "vocab", "experts", "experts_active", "shared_experts", "moe_ffn_hidden",
        "dense_layers", "gated", "tied_embeddings", NULL};
    struct engine_model *x = &w->model;
    int has_preset = 0;
    enum status st;

    if (!cJSON_IsObject(m))
        return fail(d, "model", "must be an object: {\"preset\": ID} or {\"params_b\": N, ...}");
    if ((st = check_keys(d, m, "model.", known, NULL)) != ST_OK)
        return st;
    if ((st = get_str(d, m, "model.", "preset", w->preset, sizeof w->preset, &has_preset)) != ST_OK)
        return st;
    if (has_preset) {
        if (m->child && (m->child->next || strcmp(m->child->string, "preset") != 0))
            return fail(d, "model", "give either a preset or an explicit shape, not both");
        return ST_OK;
    }
    if (!item_of(m, "params_b"))
        return fail(d, "model.params_b", "required when no preset is given");
    {
        int gated = -1, tied = 0;
        if ((st = get_num(d, m, "model.", "params_b", 1e-4, 1e5, &x->params_b)) != ST_OK ||
            (st = get_num(d, m, "model.", "active_params_b", 1e-4, 1e5, &x->active_params_b)) != ST_OK ||
            (st = get_int(d, m, "model.", "layers", 1, 2000, &x->layers)) != ST_OK ||
            (st = get_int(d, m, "model.", "hidden", 64, 262144, &x->hidden)) != ST_OK ||
            (st = get_int(d, m, "model.", "heads", 1, 4096, &x->heads)) != ST_OK ||
            (st = get_int(d, m, "model.", "kv_heads", 1, 4096, &x->kv_heads)) != ST_OK ||
            (st = get_int(d, m, "model.", "ffn_hidden", 1, 1048576, &x->ffn_hidden)) != ST_OK ||
            (st = get_int(d, m, "model.", "vocab", 1, 10000000, &x->vocab)) != ST_OK ||
            (st = get_int(d, m, "model.", "experts", 0, 4096, &x->experts)) != ST_OK ||
            (st = get_int(d, m, "model.", "experts_active", 1, 4096, &x->experts_active)) != ST_OK ||
            (st = get_int(d, m, "model.", "shared_experts", 0, 64, &x->shared_experts)) != ST_OK ||
            (st = get_int(d, m, "model.", "moe_ffn_hidden", 1, 1048576, &x->moe_ffn_hidden)) != ST_OK ||
            (st = get_int(d, m, "model.", "dense_layers", 0, 2000, &x->dense_layers)) != ST_OK)
            return st;
        {
            const cJSON *g = item_of(m, "gated");
            const cJSON *t = item_of(m, "tied_embeddings");
            if (g && !cJSON_IsBool(g))
                return fail(d, "model.gated", "must be true or false");
            if (t && !cJSON_IsBool(t))
                return fail(d, "model.tied_embeddings", "must be true or false");
            gated = g ? cJSON_IsTrue(g) : -1;
            tied = t ? cJSON_IsTrue(t) : 0;
        }
        /* Modern decoders are SwiGLU; an explicit shape without the flag is
         * taken as gated when its FFN width looks like one (8/3 h rounded). */
        if (gated < 0)
            gated = x->ffn_hidden > 0 && x->hidden > 0 && x->ffn_hidden != 4 * x->hidden;
        x->gated = gated;
        x->tied_embeddings = tied;
        if (x->active_params_b > x->params_b)
            return fail(d, "model.active_params_b", "exceeds params_b");
        if (x->dense_layers > 0 && x->layers > 0 && x->dense_layers >= x->layers)
            return fail(d, "model.dense_layers", "must be below layers");
    }
    return ST_OK;
}

static const char *const TASKS[] = {"pretrain", "finetune", "lora", "qlora", NULL};
static const char *const PRECISIONS[] = {"bf16", "fp16", "fp8", "fp32", NULL};
static const char *const PRICINGS[] = {"cloud", "buy", NULL};
static const char *const OPTIMIZERS[] = {"adamw", "adamw-8bit", NULL};
static const char *const ATTENTIONS[] = {"flash", "standard", NULL};
static const char *const RECOMPUTES[] = {"none", "selective", "full", NULL};
static const char *const FABRIC_KINDS[] = {"none", "roce", "infiniband", NULL};

/* A workload's keys, in the order of the known lists (WORKLOAD_KEYS) and of
 * their slots (WK_*: check_keys leaves each member there). */
#define WORKLOAD_KEY_LIST(X)                                                                                           \
    X(MODEL, "model") X(TASK, "task") X(TOKENS_B, "tokens_b") X(SEQ_LEN, "seq_len") X(PRECISION, "precision")        \
    X(DEADLINE_DAYS, "deadline_days") X(BUDGET_USD, "budget_usd") X(PRICING, "pricing")                               \
    X(DATASET_TB, "dataset_tb") X(GPUS_ALLOWED, "gpus_allowed") X(MAX_GPUS, "max_gpus")                               \
    X(GLOBAL_BATCH_TOKENS, "global_batch_tokens") X(OPTIMIZER, "optimizer") X(LORA_RANK, "lora_rank")                \
    X(ATTENTION, "attention")
#define WK_ID(id, name) WK_##id,
#define WK_NAME(id, name) name,
enum { WORKLOAD_KEY_LIST(WK_ID) WK_COUNT };
#define WORKLOAD_KEYS WORKLOAD_KEY_LIST(WK_NAME)

/* The workload's members, from the slots check_keys filled (k: WK_*). */
static enum status decode_workload_fields(struct dec *d, const cJSON *const *k, struct engine_workload *w)
{
    enum status st;
    int e;
    const cJSON *m = k[WK_MODEL];
    const cJSON *ga;

    if (!m)
        return fail(d, "model", "required");
    if ((st = decode_model(d, m, w)) != ST_OK)
        return st;
    if (!k[WK_TOKENS_B])
        return fail(d, "tokens_b", "required (training tokens in billions)");
    e = w->task;
    if ((st = get_enum_v(d, k[WK_TASK], "", "task", TASKS, &e)) != ST_OK)
        return st;
    w->task = (enum engine_task)e;
    e = w->precision;
    if ((st = get_enum_v(d, k[WK_PRECISION], "", "precision", PRECISIONS, &e)) != ST_OK)
        return st;
    w->precision = (enum engine_precision)e;
    e = w->pricing;
    if ((st = get_enum_v(d, k[WK_PRICING], "", "pricing", PRICINGS, &e)) != ST_OK)
        return st;
    w->pricing = (enum engine_pricing)e;
    e = w->optimizer;
    if ((st = get_enum_v(d, k[WK_OPTIMIZER], "", "optimizer", OPTIMIZERS, &e)) != ST_OK)
        return st;
    w->optimizer = (enum engine_optimizer)e;
    e = w->standard_attention;
    if ((st = get_enum_v(d, k[WK_ATTENTION], "", "attention", ATTENTIONS, &e)) != ST_OK)
        return st;
    w->standard_attention = e;
    if ((st = get_num_v(d, k[WK_TOKENS_B], "", "tokens_b", 1e-6, 1e6, &w->tokens_b)) != ST_OK ||
        (st = get_int_v(d, k[WK_SEQ_LEN], "", "seq_len", 16, 2097152, &w->seq_len)) != ST_OK ||
        (st = get_num_v(d, k[WK_DEADLINE_DAYS], "", "deadline_days", 0.001, 36500, &w->deadline_days)) != ST_OK ||
        (st = get_num_v(d, k[WK_BUDGET_USD], "", "budget_usd", 1, 1e13, &w->budget_usd)) != ST_OK ||
        (st = get_num_v(d, k[WK_DATASET_TB], "", "dataset_tb", 0, 1e7, &w->dataset_tb)) != ST_OK ||
        (st = get_num_v(d, k[WK_GLOBAL_BATCH_TOKENS], "", "global_batch_tokens", 1, 1e9, &w->global_batch_tokens)) !=
            ST_OK ||
        (st = get_int_v(d, k[WK_MAX_GPUS], "", "max_gpus", 1, 1000000, &w->max_gpus)) != ST_OK ||
        (st = get_int_v(d, k[WK_LORA_RANK], "", "lora_rank", 1, 4096, &w->lora_rank)) != ST_OK)
        return st;
    ga = k[WK_GPUS_ALLOWED];
    if (ga) {
        int i = 0;
        const cJSON *it;
        char path[48];
        if (!cJSON_IsArray(ga))
            return fail(d, "gpus_allowed", "must be an array of GPU ids");
        if (cJSON_GetArraySize(ga) > WORKLOAD_GPUS_ALLOWED_MAX)
            return fail(d, "gpus_allowed", "more than %d entries", WORKLOAD_GPUS_ALLOWED_MAX);
        if (cJSON_GetArraySize(ga) == 0)
            return fail(d, "gpus_allowed", "must not be empty (leave it out to allow every GPU)");
        cJSON_ArrayForEach(it, ga) {
            if (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0] ||
                strlen(it->valuestring) >= ENGINE_ID_MAX) {
                if (snprintf(path, sizeof path, "gpus_allowed[%d]", i) < 0)
                    path[0] = '\0';
                return fail(d, path, "must be a GPU id string");
            }
            memcpy(w->gpus_allowed[i], it->valuestring, strlen(it->valuestring) + 1);
            i++;
        }
        w->n_gpus_allowed = i;
    }
    return ST_OK;
}

enum status json_workload_decode(const cJSON *o, struct engine_workload *w, char *field, size_t fieldlen,
                                 char *err, size_t errlen)
{
    static const char *const known[] = {WORKLOAD_KEYS NULL};
    struct dec d = {field, fieldlen, err, errlen};
    const cJSON *slot[WK_COUNT];
    enum status st;

    engine_workload_init(w);
    if (!cJSON_IsObject(o))
        return fail(&d, "workload", "must be a JSON object");
    if ((st = check_keys(&d, o, "", known, slot)) != ST_OK)
        return st;
    return decode_workload_fields(&d, slot, w);
}

enum status json_estimate_decode(const cJSON *o, struct engine_estimate_request *r, char *field, size_t fieldlen,
                                 char *err, size_t errlen)
{
    static const char *const known[] = {WORKLOAD_KEYS "cluster", "parallel", "measured", NULL};
    static const char *const ckeys[] = {"gpu", "count", "per_node", "fabric_gbps_per_gpu", "fabric", NULL};
    static const char *const pkeys[] = {"tp", "pp", "dp", "ep", "cp", "zero", "recompute", "micro_batch",
                                        "global_batch", "vpp", "offload", NULL};
    static const char *const mkeys[] = {"intra_busbw_gbs", "inter_busbw_gbs", "matmul_tflops", NULL};
    struct dec d = {field, fieldlen, err, errlen};
    const cJSON *slot[WK_COUNT + 3];   /* the workload's, then cluster, parallel, measured */
    const cJSON *c, *p, *m;
    enum status st;
    int present = 0, e;

    engine_estimate_request_init(r);
    if (!cJSON_IsObject(o))
        return fail(&d, "estimate", "must be a JSON object");
    if ((st = check_keys(&d, o, "", known, slot)) != ST_OK ||
        (st = decode_workload_fields(&d, slot, &r->workload)) != ST_OK)
        return st;
    c = item_of(o, "cluster");
    if (!c)
        return fail(&d, "cluster", "required: {\"gpu\", \"count\", \"per_node\", \"fabric_gbps_per_gpu\"}");
    if (!cJSON_IsObject(c))
        return fail(&d, "cluster", "must be an object");
    if ((st = check_keys(&d, c, "cluster.", ckeys, NULL)) != ST_OK ||
        (st = get_str(&d, c, "cluster.", "gpu", r->cluster.gpu, sizeof r->cluster.gpu, &present)) != ST_OK)
        return st;
    if (!present)
        return fail(&d, "cluster.gpu", "required");
    if (!item_of(c, "count"))
        return fail(&d, "cluster.count", "required");
    e = 0;
    if ((st = get_int(&d, c, "cluster.", "count", 1, 1000000, &r->cluster.count)) != ST_OK ||
        (st = get_int(&d, c, "cluster.", "per_node", 1, 72, &r->cluster.per_node)) != ST_OK ||
        (st = get_num(&d, c, "cluster.", "fabric_gbps_per_gpu", 1, 100000, &r->cluster.fabric_gbps_per_gpu)) != ST_OK ||
        (st = get_enum(&d, c, "cluster.", "fabric", FABRIC_KINDS, &e)) != ST_OK)
        return st;
    r->cluster.fabric_kind = (enum engine_fabric_kind)e;

    p = item_of(o, "parallel");
    if (p) {
        const cJSON *off;
        if (!cJSON_IsObject(p))
            return fail(&d, "parallel", "must be an object");
        if ((st = check_keys(&d, p, "parallel.", pkeys, NULL)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "tp", 1, 1024, &r->parallel.tp)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "pp", 1, 1024, &r->parallel.pp)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "dp", 1, 1000000, &r->parallel.dp)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "ep", 1, 4096, &r->parallel.ep)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "cp", 1, 64, &r->parallel.cp)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "zero", 0, 3, &r->parallel.zero)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "micro_batch", 1, 4096, &r->parallel.micro_batch)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "global_batch", 1, 10000000, &r->parallel.global_batch)) != ST_OK ||
            (st = get_int(&d, p, "parallel.", "vpp", 1, 64, &r->parallel.vpp)) != ST_OK)
            return st;
        e = r->parallel.recompute;
        if ((st = get_enum(&d, p, "parallel.", "recompute", RECOMPUTES, &e)) != ST_OK)
            return st;
        r->parallel.recompute = e;
        off = item_of(p, "offload");
        if (off && !cJSON_IsBool(off))
            return fail(&d, "parallel.offload", "must be true or false");
        r->parallel.offload = off ? cJSON_IsTrue(off) : 0;
    }
    m = item_of(o, "measured");
    if (m) {
        if (!cJSON_IsObject(m))
            return fail(&d, "measured", "must be an object");
        if ((st = check_keys(&d, m, "measured.", mkeys, NULL)) != ST_OK ||
            (st = get_num(&d, m, "measured.", "intra_busbw_gbs", 0.01, 1e5, &r->measured.intra_busbw_gbs)) != ST_OK ||
            (st = get_num(&d, m, "measured.", "inter_busbw_gbs", 0.01, 1e5, &r->measured.inter_busbw_gbs)) != ST_OK ||
            (st = get_num(&d, m, "measured.", "matmul_tflops", 0.01, 1e5, &r->measured.matmul_tflops)) != ST_OK)
            return st;
    }
    return ST_OK;
}

/* The engine's own messages start with the field ("tokens_b: ..."): split
 * that off for problem+json. */
void json_field_from_error(const char *err, char *field, size_t fieldlen)
{
    size_t n = strcspn(err, ":");
    if (!fieldlen)
        return;
    if (err[n] != ':' || n >= fieldlen || strchr(err, ' ') < err + n) {
        field[0] = '\0';
        return;
    }
    memcpy(field, err, n);
    field[n] = '\0';
}

enum status json_parse(const char *text, size_t len, cJSON **out, char *err, size_t errlen)
{
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!doc) {
        size_t at = end && end >= text ? (size_t)(end - text) : 0;
        snprintf(err, errlen, "body: not valid JSON (near byte %zu)", at);
        return ST_INVALID;
    }
    /* Only whitespace may follow the value. */
    while (end && (size_t)(end - text) < len && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
        end++;
    if (end && (size_t)(end - text) < len && *end) {
        cJSON_Delete(doc);
        snprintf(err, errlen, "body: unexpected data after the JSON value");
        return ST_INVALID;
    }
    *out = doc;
    return ST_OK;
}

/* ---- small bodies without cJSON's allocations (json_parse_small)
 *
 * A recommend body is ~200 bytes and ~10 values; cJSON_ParseWithLengthOpts
 * allocates a node and a string per value and cJSON_Delete frees them, ~14k
 * instructions of a memo hit's ~230k. json_parse_small builds the very
 * tree cJSON would (same types, keys, strings, doubles, valueint, order,
 * next/prev/child links) in caller-held nodes, over a copy of the text
 * whose closing quotes become the strings' NULs, for the plain JSON such
 * bodies are: it takes only strict JSON with no escapes in strings, no
 * control bytes, shallow nesting and short numbers, and gives up (0) on
 * anything else, which then goes through json_parse as before. So every
 * body either yields the tree cJSON yields for it or goes the old way,
 * and every error message (always the old path's) is unchanged. Where it
 * accepts, cJSON accepts the same bytes the same way: its whitespace is
 * any byte <= 32 (here four of them), its number is the longest run of
 * [0-9+-eE.] (a strict JSON number is such a run, ended by a separator,
 * and strtod reads all of it here, so also there: cJSON turns '.' into the
 * locale's decimal point, and strtod reading a '.' whole means that is
 * '.'), its strings are copied byte for byte when they hold no backslash,
 * and json_parse allows only the four whitespace bytes after the value
 * (or a NUL: then this gives up). test_server_units and fuzz_plan_json
 * compare the two trees on mutated bodies. */

#define SMALL_DEPTH 8

struct small_in {
    char *p, *end;
    const char *lim;   /* the end of the text's array: 16 bytes may be read up to it */
    cJSON *node;
    int n, cap;
};

static void small_ws(struct small_in *m)
{
    while (m->p < m->end && (*m->p == ' ' || *m->p == '\n' || *m->p == '\r' || *m->p == '\t'))
        m->p++;
}

static cJSON *small_node(struct small_in *m)
{
    cJSON *it;
    if (m->n >= m->cap)
        return NULL;
    it = &m->node[m->n++];
    memset(it, 0, sizeof *it);
    return it;
}

/* At '"': the string's text, NUL-terminated in place; NULL to give up. */
static char *small_string(struct small_in *m)
{
    char *s = ++m->p;
#ifdef __SSE2__
    /* 16 bytes at a time to the first quote, backslash or control byte
     * (the NUL after the text is one: a string running past the end meets
     * it, and the loop below says NULL as it would have at the end). */
    while (m->p + 16 <= m->lim) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)m->p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                                   _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x));   /* x <= 0x1f, unsigned */
        int mask = _mm_movemask_epi8(hit);
        if (mask) {
            m->p += __builtin_ctz((unsigned)mask);
            break;
        }
        m->p += 16;
    }
#endif
    while (m->p < m->end) {
        unsigned char c = (unsigned char)*m->p;
        if (c == '"') {
            *m->p++ = '\0';
            return s;
        }
        if (c < 0x20 || c == '\\')
            return NULL;
        m->p++;
    }
    return NULL;
}

static int small_digits(struct small_in *m)
{
    char *from = m->p;
    while (m->p < m->end && *m->p >= '0' && *m->p <= '9')
        m->p++;
    return m->p > from;
}

/* 10^k for 0 <= k <= 22, exact doubles (5^22 < 2^53). */
static const double SMALL_P10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The double strtod reads from the strict JSON number [s, end), without
 * strtod, when it is M x 10^e with M of at most 15 digits and |e| <= 22:
 * M and 10^|e| are exact doubles, and one IEEE multiplication or division
 * rounds their exact product or quotient (the number's exact value) to
 * nearest, as strtod rounds it (Clinger's fast path); the sign is the
 * last step, as rounding to nearest is symmetric ("-0" is -0.0 as well).
 * 0 for any other number (strtod reads it). */
static int small_exact(const char *s, const char *end, double *out)
{
    unsigned long long m = 0;
    int digits = 0, scale = 0, neg = 0, e = 0, eneg = 0, edigits = 0;
    double x;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    for (; s < end && *s >= '0' && *s <= '9'; s++, digits++)
        m = m * 10 + (unsigned)(*s - '0');
    if (s < end && *s == '.')
        for (s++; s < end && *s >= '0' && *s <= '9'; s++, digits++, scale++)
            m = m * 10 + (unsigned)(*s - '0');
    if (digits > 15)
        return 0;
    if (s < end) {   /* the exponent (the grammar was checked: e or E, a sign, digits) */
        s++;
        if (*s == '+' || *s == '-')
            eneg = *s++ == '-';
        /* digits past the fourth are only counted: e would overflow */
        for (; s < end; s++, edigits++)
            if (edigits < 4)
                e = e * 10 + (*s - '0');
        if (edigits > 3)
            return 0;
        if (eneg)
            e = -e;
    }
    e -= scale;
    if (e < -22 || e > 22)
        return 0;
    x = (double)m;
    x = e >= 0 ? x * SMALL_P10[e] : x / SMALL_P10[-e];
    *out = neg ? -x : x;
    return 1;
}

/* A strict JSON number, set as parse_number sets it. */
static int small_number(struct small_in *m, cJSON *it)
{
    char *s = m->p, buf[64], *after = NULL;
    size_t n;
    double x;
    if (*m->p == '-')
        m->p++;
    if (m->p < m->end && *m->p == '0')
        m->p++;
    else if (!small_digits(m))
        return 0;
    if (m->p < m->end && *m->p == '.') {
        m->p++;
        if (!small_digits(m))
            return 0;
    }
    if (m->p < m->end && (*m->p == 'e' || *m->p == 'E')) {
        m->p++;
        if (m->p < m->end && (*m->p == '+' || *m->p == '-'))
            m->p++;
        if (!small_digits(m))
            return 0;
    }
    n = (size_t)(m->p - s);
    if (n >= sizeof buf)   /* cJSON reads at most 63 bytes of a number */
        return 0;
    if (!small_exact(s, m->p, &x)) {
        memcpy(buf, s, n);
        buf[n] = '\0';
        x = strtod(buf, &after);
        if (after != buf + n)
            return 0;
    }
    it->valuedouble = x;
    if (x >= INT_MAX)
        it->valueint = INT_MAX;
    else if (x <= (double)INT_MIN)
        it->valueint = INT_MIN;
    else
        it->valueint = (int)x;
    it->type = cJSON_Number;
    return 1;
}

static int small_value(struct small_in *m, cJSON *it, int depth);

/* An object ('{', keys) or an array ('['): children linked as cJSON links
 * them (next; prev to the one before, the first's to the last). */
static int small_list(struct small_in *m, cJSON *it, int depth, int object)
{
    cJSON *head = NULL, *cur = NULL;
    char close = object ? '}' : ']';
    if (depth >= SMALL_DEPTH)
        return 0;
    m->p++;
    small_ws(m);
    if (m->p < m->end && *m->p == close) {
        m->p++;
        it->type = object ? cJSON_Object : cJSON_Array;
        return 1;
    }
    for (;;) {
        cJSON *c = small_node(m);
        char *key = NULL;
        if (!c)
            return 0;
        small_ws(m);
        if (object) {
            if (m->p >= m->end || *m->p != '"' || !(key = small_string(m)))
                return 0;
            small_ws(m);
            if (m->p >= m->end || *m->p != ':')
                return 0;
            m->p++;
            small_ws(m);
        }
        if (!small_value(m, c, depth + 1))
            return 0;
        c->string = key;
        if (!head) {
            head = cur = c;
        } else {
            cur->next = c;
            c->prev = cur;
            cur = c;
        }
        small_ws(m);
        if (m->p < m->end && *m->p == ',') {
            m->p++;
            continue;
        }
        if (m->p < m->end && *m->p == close) {
            m->p++;
            break;
        }
        return 0;
    }
    head->prev = cur;
    it->child = head;
    it->type = object ? cJSON_Object : cJSON_Array;
    return 1;
}

static int small_value(struct small_in *m, cJSON *it, int depth)
{
    size_t left = (size_t)(m->end - m->p);
    if (!left)
        return 0;
    switch (*m->p) {
    case '{':
        return small_list(m, it, depth, 1);
    case '[':
        return small_list(m, it, depth, 0);
    case '"':
        it->type = cJSON_String;
        return (it->valuestring = small_string(m)) != NULL;
    case 't':
        if (left < 4 || memcmp(m->p, "true", 4) != 0)
            return 0;
        m->p += 4;
        it->type = cJSON_True;
        it->valueint = 1;
        return 1;
    case 'f':
        if (left < 5 || memcmp(m->p, "false", 5) != 0)
            return 0;
        m->p += 5;
        it->type = cJSON_False;
        return 1;
    case 'n':
        if (left < 4 || memcmp(m->p, "null", 4) != 0)
            return 0;
        m->p += 4;
        it->type = cJSON_NULL;
        return 1;
    default:
        if (*m->p == '-' || (*m->p >= '0' && *m->p <= '9'))
            return small_number(m, it);
        return 0;
    }
}

int json_parse_small(const char *text, size_t len, struct json_small *s, cJSON **out)
{
    struct small_in m;
    cJSON *root;
    if (!text || len == 0 || len >= sizeof s->text)
        return 0;
    memcpy(s->text, text, len);
    s->text[len] = '\0';
    m.p = s->text;
    m.end = s->text + len;
    m.lim = s->text + sizeof s->text;
    m.node = s->node;
    m.n = 0;
    m.cap = JSON_SMALL_NODES;
    root = small_node(&m);
    small_ws(&m);
    if (!small_value(&m, root, 0))
        return 0;
    small_ws(&m);
    if (m.p != m.end)
        return 0;
    *out = root;
    return 1;
}

/* ------------------------------------------------------------ encoding */

/* 10^k for -30 <= k <= 22 at TEN_ALL[k + 30], the literals. From 0 on
 * they are exact doubles (5^22 < 2^53), and pow(10, k) gives the same: its
 * error is under one ulp (glibc: 0.52) and an exact double that is not a
 * power of two has no other double that near. Below 0 they are the
 * nearest doubles, which pow(10, k) gives too (within 0.52 ulp). So the
 * table only saves the call (~250 roundings an answer, sig's to tens,
 * thousands or 10^21 among them); test_server_units checks that the two
 * agree. */
static const double TEN_ALL[53] = {1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20,
                                   1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,
                                   1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,   1e2,
                                   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,
                                   1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22};

/* rnd's factor: 10^digits */
static inline __attribute__((always_inline)) double rnd_f(int digits)
{
    return (unsigned)(digits + 30) <= 52u ? TEN_ALL[digits + 30] : pow(10.0, digits);
}

/* The factor rnd rounds with, as jw_round_f takes it: 10^digits from 0 on,
 * -10^-digits below (a multiple of 10^-digits is k * 10^-digits, both
 * exact up to 10^22, where k / 10^digits would divide by an inexact
 * 1e-5 and give 104499999.99999999 for 1045e5). */
static inline __attribute__((always_inline)) double rnd_unit(int digits)
{
    return digits >= 0 ? rnd_f(digits) : -rnd_f(-digits);
}

static inline __attribute__((always_inline)) double rnd(double x, int digits)
{
    if (!isfinite(x))
        return x;
    return jw_round_f(x, rnd_unit(digits));
}

/* rnd rounded up (toward +infinity): a budget or deadline a tier would
 * need (need_budget_usd, need_deadline_days) must not be written below
 * what the tier needs, or that budget asked for again would still miss
 * the plan by the rounding. */
static double rnd_up(double x, int digits)
{
    double u = rnd_unit(digits), v;
    if (!isfinite(x))
        return x;
    v = u > 0 ? ceil(x * u) / u : ceil(x / -u) * -u;
    if (v < x)   /* x * u rounded down to a whole number */
        v = u > 0 ? (ceil(x * u) + 1.0) / u : v + -u;
    return v;
}

/* floor(log10(a)) for a finite a > 0, without log10 where the answer is
 * sure: from a's binary exponent e, log10(a) lies in [0.30103 e,
 * 0.30103 (e + 1)), so one or two comparisons with the powers of ten find
 * m with 10^m <= a < 10^(m+1). Where a is within a relative 1e-9 of either
 * bound, log10(a) is within ~4e-10 of an integer and floor(log10(a)) is
 * whatever libm's rounding makes it: log10 is called, as before. Away from
 * the bounds log10(a) is at least 4e-10 from any integer, far more than
 * log10's error (a few ulp of a number below 310, ~1e-13), so floor gives m
 * (the table's powers below 1 are within an ulp of 10^m, inside the
 * margin). test_server_units checks it against floor(log10(a)). */
static const double TEN_POW[71] = {
    1e-35, 1e-34, 1e-33, 1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21,
    1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,  1e-8,  1e-7,  1e-6,
    1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,   1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,
    1e10,  1e11,  1e12,  1e13,  1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22,  1e23,  1e24,
    1e25,  1e26,  1e27,  1e28,  1e29,  1e30,  1e31,  1e32,  1e33,  1e34,  1e35};
#define TEN_POW_0 35   /* TEN_POW[TEN_POW_0 + m] = 10^m */

int json_floor_log10(double a)
{
    uint64_t bits;
    int e, m;
    memcpy(&bits, &a, sizeof bits);
    e = (int)((bits >> 52) & 0x7ff) - 1023;
    if (!(a > 0) || e < -110 || e > 110)   /* subnormals, and beyond the table: |m| <= 34 below */
        return (int)floor(log10(a));
    m = e * 1233 / 4096;   /* within one of floor(e log10(2)) (1233 / 4096 ~ log10(2)); the loops settle m */
    while (m + 1 <= 34 && a >= TEN_POW[TEN_POW_0 + m + 1])
        m++;
    while (m >= -34 && a < TEN_POW[TEN_POW_0 + m])
        m--;
    if (m < -34 || m + 1 > 34 || a < TEN_POW[TEN_POW_0 + m] * (1 + 1e-9) ||
        a > TEN_POW[TEN_POW_0 + m + 1] * (1 - 1e-9))
        return (int)floor(log10(a));
    return m;
}

/* Significant-figure rounding for quantities that span orders of magnitude. */
static double sig(double x, int digits)
{
    if (!isfinite(x) || x == 0)
        return x;
    int mag = json_floor_log10(fabs(x));
    return rnd(x, digits - 1 - mag);
}

/* sig rounded up (rnd_up); a value that rounds up into the next decade
 * (9999.5 to 4 figures) is 10^(mag+1), which has those figures too. */
static double sig_up(double x, int digits)
{
    if (!isfinite(x) || x == 0)
        return x;
    return rnd_up(x, digits - 1 - json_floor_log10(fabs(x)));
}

/* rnd, but never 0 for a value that is not: a figure that rounds to 0 at
 * its decimals (a LoRA job's 0.004 GB/s, 0.003 days, a $0.30 storage
 * line) is written to NZ_FIGURES significant figures instead, so that a
 * small need never reads as none. Every other value is rnd's. */
#define NZ_FIGURES 2
static inline __attribute__((always_inline)) double rnd_nz(double x, int digits)
{
    double r = rnd(x, digits);
    return r == 0 && x != 0 && isfinite(x) ? sig(x, NZ_FIGURES) : r;
}

/* The plan answers are written straight to text (json_write.c's jw_*),
 * not built as a cJSON tree and printed: the hot path of POST
 * /api/v1/recommend, ~1,500 values per answer. json_*_encode parse that text
 * for callers that want a tree; tests/unit/test_engine_golden.c holds the
 * documents to those the tree encoder wrote. */
/* jw_str_in for a char array member, its size taken with sizeof; a
 * pointer in its place does not compile (the array of size -1). */
#define jw_str_arr(j, key, arr)                                                                                        \
    jw_str_in((j), (key), (arr),                                                                                       \
              sizeof(arr) + 0 * sizeof(char[1 - 2 * __builtin_types_compatible_p(__typeof__(arr), __typeof__(&(arr)[0]))]))

/* jw_num of rnd_nz(x, digits) and of sig(x, digits), tagged
 * (jw_num_raw_hit): an x that is the recorded one is taken without
 * rounding it again. The tag names the function and its digits, so one
 * tag is one f. NZ marks rnd_nz (every decimals-rounded figure is). */
#define TAG_RND(digits) (64u + 1u + (unsigned)((digits) + 32))
#define TAG_SIG(digits) (128u + 1u + (unsigned)((digits) + 32))
#define NZ 1024u
static JW_INLINE void num_rnd_nz(struct jw *j, const char *key, double x, int digits)
{
    size_t klen = strlen(key);
    uint64_t kk = JW_KK_TAG(klen, TAG_RND(digits) | NZ);
    if (!jw_num_raw_hit(j, key, kk, x))
        jw_num_tagged(j, key, klen, kk, x, rnd_nz(x, digits), digits);
}

static JW_INLINE void num_sig(struct jw *j, const char *key, double x, int digits)
{
    size_t klen = strlen(key);
    uint64_t kk = JW_KK_TAG(klen, TAG_SIG(digits));
    if (!jw_num_raw_hit(j, key, kk, x))
        jw_num_tagged(j, key, klen, kk, x, sig(x, digits), 0);
}

/* The same members as holes of a tier's template (jw_hole_num, "tier
 * templates" below), read from the plan field src; outside a template's
 * writing they are num_rnd_nz and num_sig. The formats are the tags, which
 * plan_fx computes again; TIMES_24 marks a value written as the field
 * times 24 (hours from days). */
#define TIMES_24 256u
/* UP marks a value rounded up (rnd_up, sig_up): its holes have no factor,
 * every patch asks plan_fx (only an infeasible tier writes one). */
#define UP 512u
/* From 10^-digits up rnd's factor rounds |x| to at least one unit, never
 * 0, so rnd_nz is jw_round_f(x, f) there; below it (0 and NaN too) the
 * patch asks plan_fx. */
static JW_INLINE void hole_rnd_nz(struct jw *j, const char *key, const double *src, int digits)
{
    if (j->key)
        jw_hole_num(j, key, strlen(key), TAG_RND(digits) | NZ, src, rnd_nz(*src, digits), digits, rnd_unit(digits),
                    1.0, rnd_f(-digits), DBL_MAX);
    else
        num_rnd_nz(j, key, *src, digits);
}

/* The magnitudes a within which json_floor_log10(a) is m without its
 * log10 (its own bounds, the same expressions, so the same doubles) and
 * sig's factor there: sig(y, digits) is jw_round_f(y, f) for y with
 * lo <= |y| <= hi. A patch then rounds a new value of that decade (most
 * of them: days, FLOPs and budgets move by less than a factor of ten
 * between memo hits) without calling plan_fx, json_floor_log10 and pow's
 * table. 0 (no range: plan_fx decides) for 0, NaN, infinities, |m| > 30
 * (there json_floor_log10 may take libm's word) and a at a bound. */
static double sig_range(double y, int digits, double *lo, double *hi)
{
    double a = fabs(y);
    int m;
    *lo = *hi = 0;
    if (!isfinite(y) || y == 0)
        return 0;
    m = json_floor_log10(a);
    if (m < -30 || m > 30)
        return 0;
    *lo = TEN_POW[TEN_POW_0 + m] * (1 + 1e-9);
    *hi = TEN_POW[TEN_POW_0 + m + 1] * (1 - 1e-9);
    return rnd_unit(digits - 1 - m);
}

static JW_INLINE void hole_sig(struct jw *j, const char *key, const double *src, int digits, unsigned times_24)
{
    double x = times_24 ? *src * 24.0 : *src;
    if (j->key) {
        double lo, hi, f = sig_range(x, digits, &lo, &hi);
        jw_hole_num(j, key, strlen(key), TAG_SIG(digits) | times_24, src, sig(x, digits), 0, f,
                    times_24 ? 24.0 : 1.0, lo, hi);
    } else {
        num_sig(j, key, x, digits);
    }
}

/* rnd and sig holes rounded up (UP): never below the field (so never 0
 * for a need that is not). v is the rounded value, places the decimals
 * written (0 for significant figures). */
static void hole_up(struct jw *j, const char *key, const double *src, unsigned fmt, double v, int places)
{
    if (j->key) {
        jw_hole_num(j, key, strlen(key), fmt, src, v, places, 0, 1.0, 0.0, 0.0);
    } else {
        size_t klen = strlen(key);
        uint64_t kk = JW_KK_TAG(klen, fmt);
        if (!jw_num_raw_hit(j, key, kk, *src))
            jw_num_tagged(j, key, klen, kk, *src, v, places);
    }
}

static void hole_rnd_up(struct jw *j, const char *key, const double *src, int digits)
{
    hole_up(j, key, src, TAG_RND(digits) | UP, rnd_up(*src, digits), digits);
}

static void hole_sig_up(struct jw *j, const char *key, const double *src, int digits)
{
    hole_up(j, key, src, TAG_SIG(digits) | UP, sig_up(*src, digits), 0);
}

/* jw_num's member (fmt 0: the value is the field) */
static JW_INLINE void hole_num(struct jw *j, const char *key, const double *src)
{
    if (j->key)
        jw_hole_num(j, key, strlen(key), 0, src, *src, 0, 0, 1.0, 0.0, 0.0);
    else
        jw_num(j, key, *src);
}

static JW_INLINE size_t key_len(const char *key)
{
    return key ? strlen(key) : 0;
}

/* jw_str_arr's member */
#define hole_str_arr(j, k, arr)                                                                                        \
    do {                                                                                                               \
        if ((j)->key)                                                                                                  \
            jw_hole_str((j), (k), key_len(k), (arr), sizeof(arr));                                                     \
        else                                                                                                           \
            jw_str_arr((j), (k), (arr));                                                                               \
    } while (0)

/* A number hole's value again from its input: what the call that made the
 * hole computed (rnd or sig of its digits, of the field or of 24 times
 * it, or the field itself). */
static double plan_fx(unsigned fmt, double x)
{
    if (fmt & TIMES_24) {
        fmt &= ~TIMES_24;
        x *= 24.0;
    }
    if (fmt & NZ)
        return rnd_nz(x, (int)((fmt & ~NZ) - 64u - 1u) - 32);
    if (fmt & UP) {
        fmt &= ~UP;
        if (fmt >= 128u + 1u)
            return sig_up(x, (int)(fmt - 128u - 1u) - 32);
        return rnd_up(x, (int)(fmt - 64u - 1u) - 32);
    }
    if (fmt == 0)
        return x;
    if (fmt >= 128u + 1u)
        return sig(x, (int)(fmt - 128u - 1u) - 32);
    return rnd(x, (int)(fmt - 64u - 1u) - 32);
}

/* ---- the parts of a plan that are cached as text (json_plan_cache)
 *
 * A plan's hardware members (gpu, parallel, memory, interconnect, fabric)
 * and its expectations come from the cluster and its layout, which the
 * search memo keeps from one request to the next, while the time, cost,
 * storage and bill of materials follow tokens_b, the deadline, the budget
 * and the dataset. Writing those ~70 numbers and ~80 strings a tier again
 * on every memo hit was about a third of the writer's work. So they are
 * written once as text and spliced in again whenever the values they are
 * written from are the same, byte for byte; nothing here relies on which
 * inputs they depend on (a changed value is a miss). The cached text can
 * never be stale by construction: each part is written from one key and
 * nothing else (write_hw reads only struct hw_key, and strings whose text
 * the key holds; write_expectations reads only n_expectations and
 * expectations[0, n)), and a cached text is used only when that key
 * compares equal in full (memcmp) to the one it was written from. */

/* Every value write_hw writes, copied out of the plan (strings as their
 * text, so that the key compares them by content). */
struct hw_key {
    char gpu_id[ENGINE_ID_MAX], gpu_name[ENGINE_NAME_MAX], fabric_id[ENGINE_ID_MAX];
    char recompute[24], intra_node[24], topology[24], oversub[8];
    int count, per_node, nodes;
    struct engine_parallel par;
    double mem[8];
    double gpu_gpu_gbs, intra_busbw_gbs, fabric_gbps_per_gpu, inter_busbw_gbs;
    int fabric_kind, nics_per_node, ports_per_node, lossless;
    int leaf, spine, core, links;
    int fits;   /* every string fitted its field: the key may be cached */
};

/* The strings write_hw writes, as the plan holds them: a string longer
 * than its field in the key is still written whole (then fits is 0 and the
 * text is not kept); when every one fits, their text is the key's. */
struct hw_strs {
    const char *gpu_id, *gpu_name, *fabric_id, *recompute, *intra_node, *topology;
};

static int key_str(char *dst, size_t n, const char *s)
{
    size_t len = strlen(s);
    if (len >= n) {   /* the key cannot hold it: nothing is cached */
        memcpy(dst, s, n - 1);
        dst[n - 1] = '\0';
        return 0;
    }
    memcpy(dst, s, len + 1);
    return 1;
}

/* memset first: the key is compared with memcmp, padding and the bytes
 * after each string's NUL included. */
static void hw_key_fill(struct hw_key *k, struct hw_strs *t, const struct engine_plan *p)
{
    memset(k, 0, sizeof *k);
    t->gpu_id = p->gpu_id;
    t->gpu_name = p->gpu_name;
    t->fabric_id = p->fabric_id;
    t->recompute = p->recompute_name ? p->recompute_name : "none";
    t->intra_node = p->intra_node ? p->intra_node : "pcie";
    t->topology = p->topology ? p->topology : "single-node";
    k->fits = key_str(k->gpu_id, sizeof k->gpu_id, t->gpu_id) & key_str(k->gpu_name, sizeof k->gpu_name, t->gpu_name) &
              key_str(k->fabric_id, sizeof k->fabric_id, t->fabric_id) &
              key_str(k->recompute, sizeof k->recompute, t->recompute) &
              key_str(k->intra_node, sizeof k->intra_node, t->intra_node) &
              key_str(k->topology, sizeof k->topology, t->topology);
    /* truncated to 7 characters, as the answer always has (no 'fits') */
    key_str(k->oversub, sizeof k->oversub, p->oversubscription ? p->oversubscription : "1:1");
    k->count = p->count;
    k->per_node = p->per_node;
    k->nodes = p->nodes;
    k->par = p->par;
    k->mem[0] = p->mem_per_gpu_gib;
    k->mem[1] = p->mem_capacity_gib;
    k->mem[2] = p->mem_weights_gib;
    k->mem[3] = p->mem_gradients_gib;
    k->mem[4] = p->mem_optimizer_gib;
    k->mem[5] = p->mem_activations_gib;
    k->mem[6] = p->mem_other_gib;
    k->mem[7] = p->host_offload_gib;
    k->gpu_gpu_gbs = p->gpu_gpu_gbs;
    k->intra_busbw_gbs = p->intra_busbw_gbs;
    k->fabric_gbps_per_gpu = p->fabric_gbps_per_gpu;
    k->inter_busbw_gbs = p->inter_busbw_gbs;
    k->fabric_kind = (int)p->fabric_kind;
    k->nics_per_node = p->nics_per_node;
    k->ports_per_node = p->scaleout_ports_per_node;
    k->lossless = p->lossless;
    k->leaf = p->switches_leaf;
    k->spine = p->switches_spine;
    k->core = p->switches_core;
    k->links = p->links;
}

/* gpu, parallel, memory, interconnect and fabric: from k and, for the
 * strings, t (the same text as k's when k->fits). */
static void write_hw(struct jw *j, const struct hw_key *k, const struct hw_strs *t)
{
    jw_obj(j, "gpu");
    jw_str(j, "id", t->gpu_id);
    jw_str(j, "name", t->gpu_name);
    jw_num(j, "count", k->count);
    jw_num(j, "per_node", k->per_node);
    jw_num(j, "nodes", k->nodes);
    jw_end(j);

    jw_obj(j, "parallel");
    jw_num(j, "tp", k->par.tp);
    jw_num(j, "pp", k->par.pp);
    jw_num(j, "dp", k->par.dp);
    jw_num(j, "zero", k->par.zero < 0 ? 0 : k->par.zero);
    jw_str(j, "recompute", t->recompute);
    jw_num(j, "micro_batch", k->par.micro_batch);
    jw_num(j, "ep", k->par.ep);
    jw_num(j, "cp", k->par.cp);
    jw_num(j, "vpp", k->par.vpp);
    jw_num(j, "global_batch", k->par.global_batch);
    jw_bool(j, "offload", k->par.offload);
    jw_end(j);

    jw_obj(j, "memory");
    num_rnd_nz(j, "per_gpu_gib", k->mem[0], 1);
    num_rnd_nz(j, "capacity_gib", k->mem[1], 1);
    num_rnd_nz(j, "weights_gib", k->mem[2], 2);
    num_rnd_nz(j, "gradients_gib", k->mem[3], 2);
    num_rnd_nz(j, "optimizer_gib", k->mem[4], 2);
    num_rnd_nz(j, "activations_gib", k->mem[5], 2);
    num_rnd_nz(j, "other_gib", k->mem[6], 2);
    num_rnd_nz(j, "host_offload_gib", k->mem[7], 2);
    jw_end(j);

    jw_obj(j, "interconnect");
    jw_str(j, "intra_node", t->intra_node);
    num_rnd_nz(j, "gpu_gpu_gbs", k->gpu_gpu_gbs, 1);
    num_rnd_nz(j, "intra_busbw_gbs", k->intra_busbw_gbs, 1);
    jw_end(j);

    jw_obj(j, "fabric");
    jw_str(j, "type", engine_fabric_kind_name((enum engine_fabric_kind)k->fabric_kind));
    jw_str(j, "id", t->fabric_id);
    jw_num(j, "gbps_per_gpu", k->fabric_gbps_per_gpu);
    jw_num(j, "nics_per_node", k->nics_per_node);
    jw_num(j, "ports_per_node", k->ports_per_node);
    jw_str(j, "topology", t->topology);
    jw_str(j, "oversubscription", k->oversub);
    jw_bool(j, "lossless", k->lossless);
    num_rnd_nz(j, "inter_busbw_gbs", k->inter_busbw_gbs, 1);
    jw_obj(j, "switches");
    jw_num(j, "leaf", k->leaf);
    jw_num(j, "spine", k->spine);
    jw_num(j, "core", k->core);
    jw_end(j);
    jw_num(j, "links", k->links);
    jw_end(j);
}

/* The expectations array: from n_expectations and expectations[0, n) alone. */
static void write_expectations(struct jw *j, const struct engine_plan *p)
{
    jw_arr(j, "expectations");
    for (int i = 0; i < p->n_expectations; i++) {
        const struct expectation *e = &p->expectations[i];
        jw_obj(j, NULL);
        jw_str(j, "id", e->id);
        if (!isnan(e->min))
            num_rnd_nz(j, "min", e->min, 1);
        if (!isnan(e->max))
            num_rnd_nz(j, "max", e->max, 1);
        if (e->value[0])
            jw_str(j, "value", e->value);
        if (e->unit[0])
            jw_str(j, "unit", e->unit);
        jw_str(j, "why", e->why);
        jw_end(j);
    }
    jw_end(j);
}

/* A plan object's first members: its tier (with_tier), whether it is
 * feasible and, when not, why and what budget or deadline would make it. */
static void write_head(struct jw *j, const struct engine_plan *p, int with_tier, enum engine_tier tier)
{
    if (with_tier)
        jw_str(j, "tier", engine_tier_name(tier));
    jw_bool(j, "feasible", p->feasible);
    if (!p->feasible) {
        hole_str_arr(j, "why", p->why);
        /* rounded up: that budget or deadline asked for does make it feasible */
        hole_sig_up(j, "need_budget_usd", &p->need_budget_usd, 4);
        hole_rnd_up(j, "need_deadline_days", &p->need_deadline_days, 1);
    }
}

/* The rationale and warnings arrays, each text a hole (a plan that fits
 * and one that does not write them alike). */
static void write_texts(struct jw *j, const struct engine_plan *p)
{
    jw_arr(j, "rationale");
    for (int i = 0; i < p->n_rationale; i++) {
        jw_obj(j, NULL);
        jw_str_arr(j, "rule", p->rationale[i].rule);
        hole_str_arr(j, "text", p->rationale[i].text);
        jw_end(j);
    }
    jw_end(j);
    jw_arr(j, "warnings");
    for (int i = 0; i < p->n_warnings; i++)
        hole_str_arr(j, NULL, p->warnings[i]);
    jw_end(j);
}

/* A part's text as the writer puts it after a separator: members of the
 * enclosing object, the first without its comma. */
struct frag {
    char *text;
    size_t len;
};

#define CACHE_SLOTS 8

struct hw_slot {
    struct hw_key key;
    struct frag f;
    struct jw_tpl *tpl[TIER_COUNT];   /* each tier's last text with this cluster (below); NULL until needed */
    struct jw_rec *rec;   /* the last tier written anew with this cluster (below) */
};

struct exp_slot {
    int n;
    struct expectation e[PLAN_EXPECTATIONS_MAX];
    struct frag f;
};

/* The recorded parts of an answer (jw_rec, json_write.c): what comes
 * before the tiers and what comes after them. On a memo hit most of each
 * part's calls have the key and value they had the last time, so its text
 * is mostly copied from the last answer's. The tiers between them are
 * patched from templates (jw_tpl, "tier templates" below), and written
 * with a recording of their cluster when their template does not fit. */
enum { REC_HEAD, REC_TAIL, REC_PARTS };
struct cand_order;

struct json_plan_cache {
    struct hw_slot hw[CACHE_SLOTS];
    struct exp_slot exp[CACHE_SLOTS];
    int hw_next, exp_next;   /* the slot a new text replaces (round robin) */
    /* the slots each tier last used: compared first (the same cluster
     * serves a tier from one answer to the next; a miss compares all) */
    int hw_last[TIER_COUNT], exp_last[TIER_COUNT];
    size_t last_len;         /* the last answer's length: the next one's buffer is sized from it */
    struct cand_order *order;   /* write_frontier's working array, order_cap entries */
    int order_cap;
    int hint[64], n_hint;       /* the last frontier's candidates (write_frontier visits them first) */
    unsigned long long used, written;
    struct jw_rec *rec[REC_PARTS];   /* NULL when it could not be made: that part is written in full */
    struct jw_key key;   /* the key of the tier being written (tier_key) */
    /* the template each tier was last written with, and each tier's own
     * for clusters that have no slot (NULL until needed) */
    struct jw_tpl *last[TIER_COUNT], *own[TIER_COUNT];
};

void json_plan_cache_stats(const struct json_plan_cache *cache, unsigned long long *used, unsigned long long *written)
{
    *used = cache ? cache->used : 0;
    *written = cache ? cache->written : 0;
}

void json_plan_cache_replay_stats(const struct json_plan_cache *cache, unsigned long long *taken,
                                  unsigned long long *written)
{
    *taken = *written = 0;
    for (int i = 0; cache && i < REC_PARTS + CACHE_SLOTS; i++) {
        unsigned long long t, w;
        jw_rec_stats(i < REC_PARTS ? cache->rec[i] : cache->hw[i - REC_PARTS].rec, &t, &w);
        *taken += t;
        *written += w;
    }
    /* and the tiers' templates: calls covered by a patch, values written */
    for (int i = 0; cache && i < (CACHE_SLOTS + 1) * TIER_COUNT; i++) {
        unsigned long long t, w;
        jw_tpl_stats(i < TIER_COUNT ? cache->own[i] : cache->hw[i / TIER_COUNT - 1].tpl[i % TIER_COUNT], &t, &w);
        *taken += t;
        *written += w;
    }
}

struct json_plan_cache *json_plan_cache_new(void)
{
    struct json_plan_cache *c = calloc(1, sizeof(struct json_plan_cache));
    for (int i = 0; c && i < REC_PARTS; i++)
        c->rec[i] = jw_rec_new();
    for (int i = 0; c && i < CACHE_SLOTS; i++)
        c->hw[i].rec = jw_rec_new();
    return c;
}

void json_plan_cache_free(struct json_plan_cache *cache)
{
    if (!cache)
        return;
    for (int i = 0; i < REC_PARTS; i++)
        jw_rec_free(cache->rec[i]);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        free(cache->hw[i].f.text);
        free(cache->exp[i].f.text);
        for (int t = 0; t < TIER_COUNT; t++)
            jw_tpl_free(cache->hw[i].tpl[t]);
        jw_rec_free(cache->hw[i].rec);
    }
    for (int t = 0; t < TIER_COUNT; t++)
        jw_tpl_free(cache->own[t]);
    jw_key_release(&cache->key);
    free(cache->order);
    free(cache);
}

/* A written part at its own size: the writer's buffer starts at 32 KB (a
 * whole answer), and 16 kept parts a thread would hold 0.5 MB. */
static struct frag frag_fit(char *text, size_t len)
{
    struct frag f = {text, len};
    char *small = text ? realloc(text, len + 1) : NULL;
    if (small)
        f.text = small;
    return f;
}

/* The members a writer puts out, written on their own (level 0 of a
 * writer of their own: "a":...,"b":...). NULL text when writing failed. */
static struct frag frag_of_hw(const struct hw_key *k, const struct hw_strs *t)
{
    struct jw sub;
    size_t len = 0;
    char *text;
    jw_init(&sub);
    write_hw(&sub, k, t);
    text = jw_finish(&sub, &len);
    return frag_fit(text, len);
}

static struct frag frag_of_exp(const struct engine_plan *p)
{
    struct jw sub;
    size_t len = 0;
    char *text;
    jw_init(&sub);
    write_expectations(&sub, p);
    text = jw_finish(&sub, &len);
    return frag_fit(text, len);
}

/* The slot with the cached text for k, written and kept first if no slot
 * holds it; NULL when k cannot be cached or memory ran out (the caller
 * writes). */
static struct hw_slot *cache_hw(struct json_plan_cache *c, const struct hw_key *k, const struct hw_strs *t, int *last)
{
    struct hw_slot *s;
    struct frag f;
    if (!k->fits)
        return NULL;
    for (int n = 0; n <= CACHE_SLOTS; n++) {
        int i = n == 0 ? *last : n - 1;   /* the tier's last slot, then all of them */
        if (c->hw[i].f.text && memcmp(&c->hw[i].key, k, sizeof *k) == 0) {
            c->used++;
            *last = i;
            return &c->hw[i];
        }
    }
    f = frag_of_hw(k, t);
    if (!f.text)
        return NULL;
    *last = c->hw_next;
    s = &c->hw[c->hw_next];
    c->hw_next = (c->hw_next + 1) % CACHE_SLOTS;
    c->written++;
    free(s->f.text);
    memcpy(&s->key, k, sizeof *k);   /* padding too: the slots compare with memcmp */
    s->f = f;
    return s;
}

/* The expectations compare as stored: expect() clears each one before
 * filling it, so equal expectations are equal bytes (other bytes would
 * only cost a miss, since the text is written from these same bytes). */
static const struct exp_slot *cache_exp(struct json_plan_cache *c, const struct engine_plan *p, int *last)
{
    struct exp_slot *s;
    struct frag f;
    int n = p->n_expectations;
    if (n < 0 || n > PLAN_EXPECTATIONS_MAX)
        return NULL;
    for (int m = 0; m <= CACHE_SLOTS; m++) {
        int i = m == 0 ? *last : m - 1;   /* the tier's last slot, then all of them */
        if (c->exp[i].f.text && c->exp[i].n == n &&
            memcmp(c->exp[i].e, p->expectations, sizeof p->expectations[0] * (size_t)n) == 0) {
            c->used++;
            *last = i;
            return &c->exp[i];
        }
    }
    f = frag_of_exp(p);
    if (!f.text)
        return NULL;
    *last = c->exp_next;
    s = &c->exp[c->exp_next];
    c->exp_next = (c->exp_next + 1) % CACHE_SLOTS;
    c->written++;
    free(s->f.text);
    s->n = n;
    memcpy(s->e, p->expectations, sizeof p->expectations[0] * (size_t)n);
    s->f = f;
    return s;
}

/* Splices a part's text in at the writer's level; 0 (nothing written)
 * when there is none. */
static int frag_put(struct jw *j, const struct frag *f)
{
    if (!f)
        return 0;
    jw_raw_members(j, f->text, f->len);
    return 1;
}

/* What a tier's members splice in from the cache (both NULL without
 * one: then they are written), and the hardware key they were found by. */
struct tier_parts {
    struct hw_key hk;
    struct hw_strs hs;
    struct hw_slot *hslot;
    const struct exp_slot *eslot;
};

/* jw_null for each key of a list (NULL-terminated) */
static void nulls(struct jw *j, const char *const *keys)
{
    for (; *keys; keys++)
        jw_null(j, *keys);
}

/* The members of a plan that does not fit (engine_plan_fits): the same
 * names, in the same order, as a plan that fits, never dropped, and null
 * where there is no value. A figure of 0 (0 days, $0, 0 GPUs, TP 0) read
 * as a plan that costs nothing; the catalog's defaults the engine leaves
 * in such a plan ("pcie", "single-node", "cloud") named hardware that was
 * never chosen. What has a value is written: the why, and for an
 * estimate (a catalog GPU) the cluster asked for, the memory per GPU its
 * leanest layout needs (when one matched the given parallel settings)
 * and the card's capacity. Everything written here but the holes (the
 * why and its texts, the needs) is read from the fields tier_key holds
 * or is literal, so a template of it stays exact. */
static void write_unfit_members(struct jw *j, const struct engine_plan *p, int with_tier, enum engine_tier tier)
{
    static const char *const par[] = {"tp", "pp", "dp", "zero", "recompute", "micro_batch", "ep", "cp", "vpp",
                                      "global_batch", "offload", NULL};
    static const char *const mem[] = {"weights_gib", "gradients_gib", "optimizer_gib", "activations_gib",
                                      "other_gib", "host_offload_gib", NULL};
    static const char *const fab[] = {"type", "id", "gbps_per_gpu", "nics_per_node", "ports_per_node", "topology",
                                      "oversubscription", "lossless", "inter_busbw_gbs", NULL};
    static const char *const sw[] = {"leaf", "spine", "core", NULL};
    static const char *const ckpt[] = {"size_gb", "interval_min", "keep", "write_gbs", "stall_s", "async",
                                       "atomic_rename", NULL};
    static const char *const time_k[] = {"days", "days_low", "days_high", "hours", "startup_min", "gpu_hours",
                                         "tokens_per_s", "step_time_s", "mfu", "hfu", "achieved_tflops_per_gpu",
                                         "comm_fraction", "bubble_fraction", "goodput", "mtbf_job_h",
                                         "flops_total", NULL};
    const int cluster = p->gpu_index >= 0;   /* an estimate's cluster: the GPU and counts asked for */

    write_head(j, p, with_tier, tier);
    jw_obj(j, "gpu");
    if (cluster) {
        jw_str_arr(j, "id", p->gpu_id);
        jw_str_arr(j, "name", p->gpu_name);
        jw_num(j, "count", p->count);
        jw_num(j, "per_node", p->per_node);
        jw_num(j, "nodes", p->nodes);
    } else {
        static const char *const gpu[] = {"id", "name", "count", "per_node", "nodes", NULL};
        nulls(j, gpu);
    }
    jw_end(j);
    jw_obj(j, "parallel");
    nulls(j, par);
    jw_end(j);
    jw_obj(j, "memory");
    if (cluster && p->mem_per_gpu_gib > 0)
        num_rnd_nz(j, "per_gpu_gib", p->mem_per_gpu_gib, 1);
    else
        jw_null(j, "per_gpu_gib");
    if (cluster)
        num_rnd_nz(j, "capacity_gib", p->mem_capacity_gib, 1);
    else
        jw_null(j, "capacity_gib");
    nulls(j, mem);
    jw_end(j);
    jw_obj(j, "interconnect");
    {
        static const char *const ic[] = {"intra_node", "gpu_gpu_gbs", "intra_busbw_gbs", NULL};
        nulls(j, ic);
    }
    jw_end(j);
    jw_obj(j, "fabric");
    nulls(j, fab);
    jw_obj(j, "switches");
    nulls(j, sw);
    jw_end(j);
    jw_null(j, "links");
    jw_end(j);
    jw_obj(j, "storage");
    jw_arr(j, "tiers");
    jw_end(j);
    jw_obj(j, "checkpoint");
    nulls(j, ckpt);
    jw_end(j);
    jw_null(j, "dataset_tb");
    jw_null(j, "read_gbs");
    jw_end(j);
    jw_obj(j, "host");
    {
        static const char *const host[] = {"cpu_threads_per_node", "ram_gb_per_node", "cpu_governor", NULL};
        nulls(j, host);
    }
    jw_end(j);
    jw_null(j, "power_kw");
    jw_obj(j, "time");
    nulls(j, time_k);
    jw_end(j);
    jw_obj(j, "cost");
    {
        static const char *const cost[] = {"usd", "usd_low", "usd_high", "basis", NULL};
        nulls(j, cost);
    }
    /* the members a priced plan of a catalog GPU has */
    if (cluster && p->basis == PRICING_CLOUD)
        jw_null(j, "billed_hours_per_gpu");
    if (cluster)
        jw_null(j, "price_confidence");
    jw_end(j);
    write_expectations(j, p);
    write_texts(j, p);
    jw_arr(j, "bom");
    jw_end(j);
    jw_null(j, "bom_total_usd");
}

/* The members of a plan object (the caller opens and closes it). The
 * values that follow the tokens, the deadline, the budget or the dataset
 * (days, costs, the texts citing them) are a tier template's holes
 * (hole_*): no block holds one. */
static void write_plan_members(struct jw *j, const struct engine_plan *p, int with_tier, enum engine_tier tier,
                               const struct tier_parts *tp)
{
    if (!engine_plan_fits(p)) {
        write_unfit_members(j, p, with_tier, tier);
        return;
    }
    write_head(j, p, with_tier, tier);
    if (tp->hslot)
        frag_put(j, &tp->hslot->f);
    else
        write_hw(j, &tp->hk, &tp->hs);

    jw_obj(j, "storage");
    jw_arr(j, "tiers");
    for (int i = 0; i < p->n_storage; i++) {
        jw_obj(j, NULL);
        /* a storage tier's names, then its figures as holes: its
         * capacity and rates may follow the dataset and the run's
         * length, its price the run's length */
        if (!jw_block(j, "storage tier", &p->storage[i], offsetof(struct plan_storage_tier, capacity_tb))) {
            jw_str_arr(j, "tier", p->storage[i].tier);
            jw_str_arr(j, "kind", p->storage[i].kind);
            jw_block_end(j);
        }
        hole_rnd_nz(j, "capacity_tb", &p->storage[i].capacity_tb, 2);
        hole_rnd_nz(j, "read_gbs", &p->storage[i].read_gbs, 2);
        hole_rnd_nz(j, "write_gbs", &p->storage[i].write_gbs, 2);
        hole_rnd_nz(j, "usd", &p->storage[i].usd, 0);
        jw_end(j);
    }
    jw_end(j);
    /* Blocks (jw_block): members from their key's values alone, checked
     * as one comparison; the values are copied into a local key where the
     * plan holds them apart or with padding between. */
    {
        const double ck[5] = {p->ckpt_size_gb, p->ckpt_interval_min, p->ckpt_keep, p->ckpt_write_gbs, p->ckpt_stall_s};
        if (!jw_block(j, "checkpoint block", ck, sizeof ck)) {
            jw_obj(j, "checkpoint");
            num_rnd_nz(j, "size_gb", ck[0], 1);
            num_rnd_nz(j, "interval_min", ck[1], 1);
            jw_num(j, "keep", ck[2]);
            num_sig(j, "write_gbs", ck[3], 3);   /* a rate: LoRA needs a few MB/s */
            num_rnd_nz(j, "stall_s", ck[4], 1);
            jw_bool(j, "async", 1);
            jw_bool(j, "atomic_rename", 1);
            jw_end(j);
            jw_block_end(j);
        }
    }
    hole_rnd_nz(j, "dataset_tb", &p->dataset_tb, 3);
    hole_sig(j, "read_gbs", &p->read_gbs, 3, 0);   /* the job's read rate (F11): small for fine-tunes */
    jw_end(j);

    {
        const double host[3] = {p->cpu_threads_per_node, p->ram_gb_per_node, p->power_kw};
        if (!jw_block(j, "host block", host, sizeof host)) {
            jw_obj(j, "host");
            jw_num(j, "cpu_threads_per_node", host[0]);
            jw_num(j, "ram_gb_per_node", host[1]);
            jw_str(j, "cpu_governor", "performance");
            jw_end(j);
            num_rnd_nz(j, "power_kw", host[2], 1);
            jw_block_end(j);
        }
    }

    jw_obj(j, "time");
    hole_rnd_nz(j, "days", &p->days, 2);
    hole_rnd_nz(j, "days_low", &p->days_low, 2);
    hole_rnd_nz(j, "days_high", &p->days_high, 2);
    hole_sig(j, "hours", &p->days, 3, TIMES_24);
    num_rnd_nz(j, "startup_min", p->startup_s / 60.0, 1);
    hole_rnd_nz(j, "gpu_hours", &p->gpu_hours, 0);
    {
        /* the layout's rates: the same for any tokens */
        const double tk[9] = {p->tokens_per_s,    p->step_time_s,   p->mfu,     p->hfu,       p->achieved_tflops,
                              p->comm_fraction, p->bubble_fraction, p->goodput, p->mtbf_job_h};
        if (!jw_block(j, "layout rates", tk, sizeof tk)) {
            num_sig(j, "tokens_per_s", tk[0], 5);
            num_sig(j, "step_time_s", tk[1], 4);
            num_rnd_nz(j, "mfu", tk[2], 3);
            num_rnd_nz(j, "hfu", tk[3], 3);
            num_rnd_nz(j, "achieved_tflops_per_gpu", tk[4], 1);
            num_rnd_nz(j, "comm_fraction", tk[5], 3);
            num_rnd_nz(j, "bubble_fraction", tk[6], 3);
            num_rnd_nz(j, "goodput", tk[7], 3);
            num_sig(j, "mtbf_job_h", tk[8], 3);
            jw_block_end(j);
        }
    }
    hole_sig(j, "flops_total", &p->flops_total, 4, 0);
    jw_end(j);

    jw_obj(j, "cost");
    hole_rnd_nz(j, "usd", &p->cost_usd, 0);
    hole_rnd_nz(j, "usd_low", &p->cost_low_usd, 0);
    hole_rnd_nz(j, "usd_high", &p->cost_high_usd, 0);
    {
        int buy = p->basis == PRICING_BUY, billed = p->basis == PRICING_CLOUD && p->gpu_index >= 0,
            priced = p->gpu_index >= 0;
        jw_str(j, "basis", buy ? "buy" : "cloud");
        if (billed)   /* whole hours: it follows the run's length */
            hole_num(j, "billed_hours_per_gpu", &p->billed_hours);
        if (priced)
            jw_str(j, "price_confidence", engine_price_conf_name(p->price_conf));
    }
    jw_end(j);

    if (tp->eslot)
        frag_put(j, &tp->eslot->f);
    else
        write_expectations(j, p);
    write_texts(j, p);
    jw_arr(j, "bom");
    for (int i = 0; i < p->n_bom; i++) {
        const struct plan_bom_line *b = &p->bom[i];
        jw_obj(j, NULL);
        jw_str_arr(j, "item", b->item);
        hole_str_arr(j, "description", b->description);   /* it cites the run's length */
        hole_rnd_nz(j, "quantity", &b->quantity, 1);   /* gpu-hours: the run's length */
        hole_rnd_nz(j, "unit_usd", &b->unit_usd, 2);
        hole_rnd_nz(j, "total_usd", &b->total_usd, 0);
        jw_str_arr(j, "as_of", b->as_of);
        jw_end(j);
    }
    jw_end(j);
    hole_rnd_nz(j, "bom_total_usd", &p->bom_total_usd, 0);
}

/* ---- tier templates
 * A memo hit's tier is the last one's text but for its holes (the values
 * write_plan_members writes with hole_*, read from the plan's fields):
 * when the tier's key (tier_key: every other value write_plan_members
 * writes from) is the one its template was written from, the text is
 * the template's with the holes whose fields changed written anew
 * (jw_tpl_patch, json_write.c). The template a tier was last written with
 * is tried first; on a miss, the one of its cluster's hardware slot (the
 * same cluster gives a plan of the same form, so a thread that serves
 * several workloads in turn patches each tier from the last one with its
 * cluster, not from another workload's), else the tier is written anew,
 * replaying the cluster's recording, and kept as that template. */

/* The plan's fields outside the holes that write_plan_members writes from,
 * as ranges of struct engine_plan, but for the arrays and the flag and
 * counts (tier_key's head). The
 * hardware's strings that are pointers point to the engine's literals,
 * which never change: their addresses stand for their text. Padding is
 * compared too: the plans come from the engine's memory, whose padding
 * is only ever copied, so it can only cost a miss. */
static const struct {
    size_t from, to;
} TIER_FIXED[] = {
    /* the cluster: GPU, layout, memory, interconnect, fabric */
    {offsetof(struct engine_plan, gpu_index), offsetof(struct engine_plan, storage)},
    /* n_storage, the checkpoint (and the padding before dataset_tb) */
    {offsetof(struct engine_plan, n_storage), offsetof(struct engine_plan, dataset_tb)},
    /* cpu threads, RAM, power */
    {offsetof(struct engine_plan, cpu_threads_per_node), offsetof(struct engine_plan, days)},
    /* the layout's rates */
    {offsetof(struct engine_plan, tokens_per_s), offsetof(struct engine_plan, flops_total)},
    /* mtbf_job_h, startup_s */
    {offsetof(struct engine_plan, mtbf_job_h), offsetof(struct engine_plan, billed_hours)},
    /* basis, price_conf */
    {offsetof(struct engine_plan, basis), offsetof(struct engine_plan, expectations)},
};

/* Whether a char array holds its string's end: the writers read a string
 * to its NUL, so one without an end within its array is not keyed by the
 * array alone. A word at a time (the last one overlapping). */
static JW_INLINE int has_nul(const char *s, size_t cap)
{
    for (size_t i = 0; i < cap; i += 8) {
        uint64_t w;
        memcpy(&w, s + (i + 8 <= cap ? i : cap - 8), 8);
        if ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL)
            return 1;
    }
    return 0;
}

/* Not 0 when a and b differ in their first n bytes: words (of 16 bytes
 * from 16 on, else of 8) xor-ed and or-ed (the last one overlapping), no
 * call and no branch per word, for the ranges of a few dozen bytes
 * (longer ones go to memcmp). */
static JW_INLINE uint64_t key_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    uint64_t d = 0, x, y;
    size_t i = 0;
    if (n < 8) {
        for (; i < n; i++)
            d |= (uint64_t)(a[i] ^ b[i]);
        return d;
    }
#ifdef __SSE2__
    if (n >= 16) {   /* sixteen bytes a step (SSE2, in every x86-64), the last one overlapping */
        __m128i acc = _mm_setzero_si128();
        for (; i + 16 <= n; i += 16)
            acc = _mm_or_si128(acc, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
                                                  _mm_loadu_si128((const __m128i *)(const void *)(b + i))));
        if (i < n)
            acc = _mm_or_si128(acc, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(a + n - 16)),
                                                  _mm_loadu_si128((const __m128i *)(const void *)(b + n - 16))));
        return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(acc, _mm_setzero_si128())) ^ 0xFFFFu;
    }
#endif
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        d |= x ^ y;
    }
    if (i < n) {
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        d |= x ^ y;
    }
    return d;
}

/* The tier's key: what its text outside the holes is written from. Its
 * strings are whole arrays (each holds its end: has_nul, checked when the
 * key is made; equal arrays hold their ends too), its counts are checked
 * first; the expectations are their bytes, as cache_exp compares them.
 * With cmp (a template's key, cmplen bytes) the key is compared with it
 * in place, and 1 returned when they are equal; else it is written to k
 * (k->bad when the tier cannot be keyed) and 0 returned. */
static int tier_key(struct jw_key *k, const struct engine_plan *p, int tier, int first, const unsigned char *cmp,
                    size_t cmplen)
{
    size_t need = 0;
    unsigned char *o = NULL;
    const unsigned char *c = cmp, *cend = cmp ? cmp + cmplen : NULL;
    const int head[8] = {tier, first, p->feasible, p->n_expectations, p->n_rationale, p->n_warnings, p->n_bom, 0};
    uint64_t diff = 0;   /* the compared words' differences, or-ed (tested at the end) */
    /* n bytes from src: written at o, or compared with c */
#define KEY(src, n)                                                                                                    \
    do {                                                                                                               \
        if (cmp) {                                                                                                     \
            if ((size_t)(cend - c) < (n))                                                                              \
                return 0;                                                                                              \
            if ((n) > 64 ? memcmp(c, (src), (n)) != 0 : 0)                                                            \
                return 0;                                                                                              \
            if ((n) <= 64)                                                                                             \
                diff |= key_diff(c, (const unsigned char *)(src), (n));                                                \
            c += (n);                                                                                                  \
        } else {                                                                                                       \
            memcpy(o, (src), (n));                                                                                     \
            o += (n);                                                                                                  \
        }                                                                                                              \
    } while (0)
    if (p->n_storage < 0 || p->n_storage > PLAN_STORAGE_TIERS_MAX || p->n_rationale < 0 ||
        p->n_rationale > PLAN_RATIONALE_MAX || p->n_bom < 0 || p->n_bom > PLAN_BOM_MAX || p->n_warnings < 0 ||
        p->n_warnings > PLAN_WARNINGS_MAX || p->n_expectations < 0 || p->n_expectations > PLAN_EXPECTATIONS_MAX ||
        (!cmp && (!has_nul(p->gpu_id, sizeof p->gpu_id) || !has_nul(p->gpu_name, sizeof p->gpu_name) ||
                  !has_nul(p->fabric_id, sizeof p->fabric_id)))) {
        if (!cmp)
            k->bad = 1;
        return 0;
    }
    if (!cmp) {
        jw_key_reset(k);
        for (size_t i = 0; i < sizeof TIER_FIXED / sizeof TIER_FIXED[0]; i++)
            need += TIER_FIXED[i].to - TIER_FIXED[i].from;
        need += sizeof head + sizeof p->expectations + sizeof p->storage[0] * PLAN_STORAGE_TIERS_MAX +
                16 * PLAN_RATIONALE_MAX + (sizeof p->bom[0].item + sizeof p->bom[0].as_of) * PLAN_BOM_MAX;
        if (!jw_key_reserve(k, need))   /* the most a tier can need: written in place below */
            return 0;
        o = k->p;
    }
    KEY(head, sizeof head);
    for (size_t i = 0; i < sizeof TIER_FIXED / sizeof TIER_FIXED[0]; i++)
        KEY((const char *)p + TIER_FIXED[i].from, TIER_FIXED[i].to - TIER_FIXED[i].from);
    if (cmp) {   /* ~2 KB: the library's vector compare */
        size_t n = sizeof p->expectations[0] * (size_t)p->n_expectations;
        if ((size_t)(cend - c) < n || memcmp(c, p->expectations, n) != 0)
            return 0;
        c += n;
    } else {
        KEY(p->expectations, sizeof p->expectations[0] * (size_t)p->n_expectations);
    }
    for (int i = 0; i < p->n_storage; i++) {
        const struct plan_storage_tier *st = &p->storage[i];
        if (!cmp && (!has_nul(st->tier, sizeof st->tier) || !has_nul(st->kind, sizeof st->kind))) {
            k->bad = 1;
            return 0;
        }
        KEY(st->tier, sizeof st->tier);
        KEY(st->kind, sizeof st->kind);
    }
    _Static_assert(sizeof p->rationale[0].rule == 16, "a rule is 16 bytes");
#ifdef __SSE2__
    if (cmp) {
        /* the rules compared 16 bytes a step, their differences or-ed
         * (KEY's compare, without its checks per rule) */
        __m128i acc = _mm_setzero_si128();
        if ((size_t)(cend - c) < 16 * (size_t)p->n_rationale)
            return 0;
        for (int i = 0; i < p->n_rationale; i++, c += 16)
            acc = _mm_or_si128(acc, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)p->rationale[i].rule),
                                                  _mm_loadu_si128((const __m128i *)(const void *)c)));
        diff |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(acc, _mm_setzero_si128())) ^ 0xFFFFu;
    } else
#endif
    {
        for (int i = 0; i < p->n_rationale; i++) {
            const char *rule = p->rationale[i].rule;
            if (!cmp && !has_nul(rule, 16)) {
                k->bad = 1;
                return 0;
            }
            KEY(rule, 16);
        }
    }
    for (int i = 0; i < p->n_bom; i++) {
        const struct plan_bom_line *bl = &p->bom[i];
        if (!cmp && (!has_nul(bl->item, sizeof bl->item) || !has_nul(bl->as_of, sizeof bl->as_of))) {
            k->bad = 1;
            return 0;
        }
        KEY(bl->item, sizeof bl->item);
        KEY(bl->as_of, sizeof bl->as_of);
    }
#undef KEY
    if (cmp)
        return c == cend && diff == 0;
    k->n = (size_t)(o - k->p);
    return 0;
}

/* Whether tier p's key is t's: then t's text may be patched. */
static int tier_key_is(const struct jw_tpl *t, const struct engine_plan *p, int tier, int first)
{
    size_t len = 0;
    const unsigned char *key = jw_tpl_key(t, &len);
    return key && tier_key(NULL, p, tier, first, key, len);
}

static void write_tier(struct jw *j, const struct engine_plan *p, enum engine_tier tier,
                       struct json_plan_cache *cache)
{
    struct tier_parts tp;
    struct jw_tpl **home, *tpl;
    int ti = tier >= 0 && tier < TIER_COUNT ? tier : 0;
    size_t at;

    tp.hslot = NULL;
    tp.eslot = NULL;
    if (cache && cache->last[ti] && tier_key_is(cache->last[ti], p, ti, j->first[j->depth]) &&
        jw_tpl_patch(j, cache->last[ti], p, plan_fx))
        return;
    hw_key_fill(&tp.hk, &tp.hs, p);
    if (!cache) {
        write_plan_members(j, p, 1, tier, &tp);
        return;
    }
    {
        unsigned long long written = cache->written;
        tp.hslot = cache_hw(cache, &tp.hk, &tp.hs, &cache->hw_last[ti]);
        tp.eslot = cache_exp(cache, p, &cache->exp_last[ti]);
        if (tp.hslot && cache->written != written) {
            /* A cluster not seen before (a new model shape, most often):
             * written with its new slot's recording, but not kept as a
             * template until it comes again (a memo hit's cluster does),
             * which spares one-off answers the template's copies. */
            cache->last[ti] = NULL;
            jw_rec_begin(j, tp.hslot->rec);
            write_plan_members(j, p, 1, tier, &tp);
            jw_rec_end(j);
            return;
        }
    }
    home = tp.hslot ? &tp.hslot->tpl[ti] : &cache->own[ti];
    if (!*home)
        *home = jw_tpl_new();
    tpl = *home;
    if (tpl != cache->last[ti] && tier_key_is(tpl, p, ti, j->first[j->depth]) && jw_tpl_patch(j, tpl, p, plan_fx)) {
        cache->last[ti] = tpl;
        return;
    }
    cache->last[ti] = tpl;
    if (!tpl) {
        write_plan_members(j, p, 1, tier, &tp);
        return;
    }
    tier_key(&cache->key, p, ti, j->first[j->depth], NULL, 0);
    /* written anew (replaying the cluster's last tier written so), and
     * kept as the template */
    at = jw_tpl_begin(j, &cache->key);
    jw_rec_begin(j, tp.hslot ? tp.hslot->rec : NULL);
    write_plan_members(j, p, 1, tier, &tp);
    jw_rec_end(j);
    jw_tpl_store(j, tpl, at, p, sizeof *p);
}

static void write_model(struct jw *j, const struct engine_workload *w, double params_b, double active_b)
{
    const struct engine_model *m = &w->model;
    /* one block (in the answer's recorded head), keyed by the values it
     * writes: the preset's text and the numbers */
    struct {
        char preset[sizeof w->preset];
        double v[11];
    } k;
    memset(&k, 0, sizeof k);
    memcpy(k.preset, w->preset, sizeof k.preset);
    k.preset[sizeof k.preset - 1] = '\0';
    k.v[0] = params_b;
    k.v[1] = active_b;
    k.v[2] = m->layers;
    k.v[3] = m->hidden;
    k.v[4] = m->heads;
    k.v[5] = m->kv_heads;
    k.v[6] = m->ffn_hidden;
    k.v[7] = m->vocab;
    k.v[8] = m->experts;
    k.v[9] = m->experts_active;
    k.v[10] = w->seq_len > 0 ? w->seq_len : m->seq_len;
    if (jw_block(j, "model block", &k, sizeof k))
        return;
    jw_obj(j, "model");
    if (k.preset[0])
        jw_str(j, "preset", k.preset);
    num_sig(j, "params_b", k.v[0], 4);
    num_sig(j, "active_params_b", k.v[1], 4);
    jw_num(j, "layers", k.v[2]);
    jw_num(j, "hidden", k.v[3]);
    jw_num(j, "heads", k.v[4]);
    jw_num(j, "kv_heads", k.v[5]);
    jw_num(j, "ffn_hidden", k.v[6]);
    jw_num(j, "vocab", k.v[7]);
    jw_num(j, "experts", k.v[8]);
    jw_num(j, "experts_active", k.v[9]);
    jw_num(j, "seq_len", k.v[10]);
    jw_end(j);
    jw_block_end(j);
}

/* Candidates by days, then cost, then their place in the list: the order a
 * stable sort of the candidates gives, on indices (a fraction of the bytes
 * to move). */
struct cand_order {
    double days, cost;
    int i;
};

static int cand_by_days(const void *a, const void *b)
{
    const struct cand_order *x = a, *y = b;
    if (x->days != y->days)
        return x->days < y->days ? -1 : 1;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The frontier by sorting: every candidate in (days, cost, index) order,
 * kept when cheaper than all before it. Any input, NaN included (then the
 * comparisons are no order and qsort's own steps decide, as they always
 * have); only frontier's fallback for NaN runs it. */
static void frontier_sorted(const struct engine_recommendation *r, struct cand_order *order, int *kept_out)
{
    double best_cost = INFINITY;
    int kept = 0;
    for (int i = 0; i < r->n_candidates; i++) {
        order[i].days = r->candidates[i].days;
        order[i].cost = r->candidates[i].cost;
        order[i].i = i;
    }
    qsort(order, (size_t)r->n_candidates, sizeof *order, cand_by_days);
    for (int i = 0; i < r->n_candidates && kept < 64; i++) {
        if (order[i].cost >= best_cost)
            continue;
        best_cost = order[i].cost;
        order[kept++] = order[i];
    }
    *kept_out = kept;
}

/* The same frontier in one pass, without sorting the ~340 candidates for
 * the ~10 it keeps. A candidate is kept by the sorted walk exactly when no
 * candidate before it in (days, cost, index) order costs as little or less
 * (nor is its cost infinite); that relation is transitive, so the set of
 * candidates kept so far, in that order, decides each newcomer: it is kept
 * unless its predecessor in the set costs as little, and it drops the
 * successors that cost as much or more (the set's costs fall along it, so
 * those are the ones right after it). The first 64 of the final set are
 * the walk's 64. Comparisons of NaN are not an order: then sorting decides. */
/* The state of frontier's set: its size and its slowest candidate's days
 * and cost (set[n - 1]), +inf days while it is empty, so that no candidate
 * is after it. */
struct front {
    int n;
    double last_days, last_cost;
    double first_days, first_cost;   /* set[0]'s: +inf days while empty */
    unsigned changes;                /* counts the changes of the set (front_scan4 reads it) */
};

/* Candidate i offered to the set; 0 when its days or cost is NaN (then
 * sorting decides). */
static inline __attribute__((always_inline)) int front_add(struct front *f, struct cand_order *set,
                                                           const struct engine_candidate *k, int i)
{
    int at = f->n, end;
    /* Most candidates are slower than the slowest kept and cost as much:
     * then that one is the predecessor, and the newcomer goes (what the
     * steps below decide for it too; false for NaN). */
    if (k->days > f->last_days && k->cost >= f->last_cost)
        return 1;
    /* Nor does one slower than the fastest kept that costs as much (that
     * one is before it and costs as little: it goes too). */
    if (k->days > f->first_days && k->cost >= f->first_cost)
        return 1;
    struct cand_order x = {k->days, k->cost, i};
    if (isnan(x.days) || isnan(x.cost))
        return 0;
    /* its place: back from the end past those after it (by days alone
     * unless the days are equal, the rare case cand_by_days settles) */
    while (at > 0 &&
           (x.days < set[at - 1].days || (x.days == set[at - 1].days && cand_by_days(&x, &set[at - 1]) < 0)))
        at--;
    if (x.cost >= (at > 0 ? set[at - 1].cost : INFINITY))
        return 1;
    end = at;
    while (end < f->n && set[end].cost >= x.cost)
        end++;
    /* set[at, end) go; x takes their place */
    memmove(&set[at + 1], &set[end], (size_t)(f->n - end) * sizeof *set);
    f->n += 1 - (end - at);
    set[at] = x;
    f->last_days = set[f->n - 1].days;
    f->last_cost = set[f->n - 1].cost;
    f->first_days = set[0].days;
    f->first_cost = set[0].cost;
    f->changes++;
    return 1;
}

#ifdef FRONT_AVX2
/* All candidates offered to the set in turn, as frontier's plain loop
 * offers them, four at a time where the set drops all four outright: a
 * lane whose candidate is slower than one of four members of the set (its
 * fastest, its slowest and two between) that costs as little goes without
 * front_add, as does one offered before (offered: a bit per candidate;
 * front_add drops a candidate the second time); the others go to
 * front_add one by one, in order. The set used for the four is the one
 * before them: a candidate dropped for being after one of its members
 * that costs as little is after one that has been offered, so it could
 * never be kept, whatever came later (frontier's comment), and front_add
 * would drop it as well. The members' days rise and their costs fall
 * along the set, so "slower than a member costing as little" is "costs as
 * much as the cheapest of the members it is slower than": that cost is
 * blended in member by member (NaN while it is slower than none), then
 * compared once. The compares are ordered (false for NaN, which front_add
 * then sees). 0 when front_add met a NaN. Built for AVX2 alone (a
 * function attribute), run on a CPU that has it (__builtin_cpu_supports);
 * the gathers read days and cost out of the candidates' records, 128
 * bytes apart. */
__attribute__((target("avx2"))) static int front_scan4(struct front *f, struct cand_order *set,
                                                       const struct engine_candidate *k, int nc,
                                                       const uint64_t *offered)
{
    const __m256i at = _mm256_set_epi64x(3 * (long long)sizeof *k, 2 * (long long)sizeof *k, (long long)sizeof *k, 0);
    const __m256d none = _mm256_set1_pd(NAN);
    __m256d d0, d1, d2, d3, c0, c1, c2, c3;
    int i = 0;
    /* the members: set[0], set[n / 3], set[2n / 3], set[n - 1] (+inf days while empty) */
#define FRONT_MEMBERS()                                                                                                \
    do {                                                                                                               \
        int m1 = f->n / 3, m2 = 2 * f->n / 3, m3 = f->n - 1;                                                           \
        d0 = _mm256_set1_pd(f->n > 0 ? set[0].days : INFINITY);                                                        \
        c0 = _mm256_set1_pd(f->n > 0 ? set[0].cost : 0);                                                               \
        d1 = _mm256_set1_pd(f->n > 0 ? set[m1].days : INFINITY);                                                       \
        c1 = _mm256_set1_pd(f->n > 0 ? set[m1].cost : 0);                                                              \
        d2 = _mm256_set1_pd(f->n > 0 ? set[m2].days : INFINITY);                                                       \
        c2 = _mm256_set1_pd(f->n > 0 ? set[m2].cost : 0);                                                              \
        d3 = _mm256_set1_pd(f->n > 0 ? set[m3].days : INFINITY);                                                       \
        c3 = _mm256_set1_pd(f->n > 0 ? set[m3].cost : 0);                                                              \
    } while (0)
    FRONT_MEMBERS();
    for (; i + 4 <= nc; i += 4) {
        __m256d d = _mm256_i64gather_pd(&k[i].days, at, 1), c = _mm256_i64gather_pd(&k[i].cost, at, 1), lim;
        lim = _mm256_blendv_pd(none, c0, _mm256_cmp_pd(d, d0, _CMP_GT_OQ));
        lim = _mm256_blendv_pd(lim, c1, _mm256_cmp_pd(d, d1, _CMP_GT_OQ));
        lim = _mm256_blendv_pd(lim, c2, _mm256_cmp_pd(d, d2, _CMP_GT_OQ));
        lim = _mm256_blendv_pd(lim, c3, _mm256_cmp_pd(d, d3, _CMP_GT_OQ));
        unsigned left = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(c, lim, _CMP_GE_OQ)) ^ 15u;
        if (!left)
            continue;
        /* i is a multiple of 4: its four bits are in one word */
        left &= ~(unsigned)(offered[i >> 6] >> (i & 63));
        if (!left)
            continue;
        unsigned changes = f->changes;
        for (; left; left &= left - 1) {
            int l = __builtin_ctz(left);
            if (!front_add(f, set, &k[i + l], i + l))
                return 0;
        }
        if (f->changes != changes)
            FRONT_MEMBERS();
    }
#undef FRONT_MEMBERS
    for (; i < nc; i++)
        if (!(offered[i >> 6] >> (i & 63) & 1) && !front_add(f, set, &k[i], i))
            return 0;
    return 1;
}
#endif

static void frontier(const struct engine_recommendation *r, const int *hint, int n_hint, struct cand_order *set,
                     int *kept_out)
{
    struct front f = {0, INFINITY, 0, INFINITY, 0, 0};
    const struct engine_candidate *k = r->candidates;
    int nc = r->n_candidates;
    /* The set kept from a set of candidates is the same whatever order they
     * come in (the relation above decides it), and a candidate that comes
     * twice is dropped the second time (its twin in the set, or whoever
     * dropped it, is before it and costs as little). So the candidates of
     * the last answer's frontier (hint: indices into this list, any that
     * fit) go first, and then all of them in turn: with a memo hit's answer
     * the set is then nearly whole from the start, and fewer candidates
     * are put in only to be dropped again. */
    _Static_assert(ENGINE_CANDIDATES_MAX % 64 == 0, "a bit for every candidate in offered's words");
    uint64_t offered[ENGINE_CANDIDATES_MAX / 64] = {0};   /* the hints offered: front_scan4 skips them */
    for (int h = 0; h < n_hint; h++) {
        if (hint[h] >= 0 && hint[h] < nc) {
            if (!front_add(&f, set, &k[hint[h]], hint[h]))
                goto nan;
            offered[hint[h] >> 6] |= 1ULL << (hint[h] & 63);
        }
    }
#ifdef FRONT_AVX2
    if (__builtin_cpu_supports("avx2")) {
        if (!front_scan4(&f, set, k, nc, offered))
            goto nan;
    } else
#endif
    {
        for (int i = 0; i < nc; i++)
            if (!front_add(&f, set, &k[i], i))
                goto nan;
    }
    *kept_out = f.n < 64 ? f.n : 64;
    return;
nan:
    frontier_sorted(r, set, kept_out);
}

/* The clusters no other cluster beats on both time and cost, fastest first:
 * the trade-off curve the three tiers were picked from. */
static void write_frontier(struct jw *j, const struct catalog *c, const struct engine_recommendation *r,
                           struct json_plan_cache *cache)
{
    int need = r->n_candidates > 0 ? r->n_candidates : 1, kept = 0;
    struct cand_order *order = NULL, *own = NULL;
    /* the cache's array (grown to the largest list seen), or one of its own */
    if (cache && cache->order_cap < need) {
        struct cand_order *p = realloc(cache->order, sizeof *p * (size_t)need);
        if (p) {
            cache->order = p;
            cache->order_cap = need;
        }
    }
    if (cache && cache->order_cap >= need)
        order = cache->order;
    else
        order = own = malloc(sizeof *order * (size_t)need);
    jw_arr(j, "frontier");
    if (!order) {
        jw_end(j);
        return;
    }
    frontier(r, cache ? cache->hint : NULL, cache ? cache->n_hint : 0, order, &kept);
    if (cache) {
        for (int i = 0; i < kept; i++)
            cache->hint[i] = order[i].i;
        cache->n_hint = kept;
    }
    for (int i = 0; i < kept; i++) {
        const struct engine_candidate *k = &r->candidates[order[i].i];
        /* the cluster's members as a block, keyed by the GPU's id text and
         * the counts (what they are written from) */
        struct {
            char gpu[sizeof c->gpus[0].id];
            double n[5];
        } key;
        memset(&key, 0, sizeof key);
        if (k->gi >= 0 && k->gi < c->n_gpus)
            memcpy(key.gpu, c->gpus[k->gi].id, sizeof key.gpu);
        key.gpu[sizeof key.gpu - 1] = '\0';
        key.n[0] = k->n;
        key.n[1] = k->nodes;
        key.n[2] = k->par.tp;
        key.n[3] = k->par.pp;
        key.n[4] = k->par.dp;
        jw_obj(j, NULL);
        if (!jw_block(j, "frontier cluster", &key, sizeof key)) {
            jw_str(j, "gpu", key.gpu);
            jw_num(j, "count", key.n[0]);
            jw_num(j, "nodes", key.n[1]);
            jw_num(j, "tp", key.n[2]);
            jw_num(j, "pp", key.n[3]);
            jw_num(j, "dp", key.n[4]);
            jw_block_end(j);
        }
        num_rnd_nz(j, "days", k->days, 2);
        num_rnd_nz(j, "cost_usd", k->cost, 0);
        jw_end(j);
    }
    jw_end(j);
    free(own);
}

char *json_recommendation_text(const struct catalog *c, const struct engine_workload *w,
                               const struct engine_recommendation *r, size_t *len)
{
    return json_recommendation_text_cached(c, w, r, NULL, len);
}

char *json_recommendation_text_cached(const struct catalog *c, const struct engine_workload *w,
                                      const struct engine_recommendation *r, struct json_plan_cache *cache,
                                      size_t *len)
{
    return json_recommendation_text_room(c, w, r, cache, 0, len);
}

char *json_recommendation_text_room(const struct catalog *c, const struct engine_workload *w,
                                    const struct engine_recommendation *r, struct json_plan_cache *cache,
                                    size_t room, size_t *len)
{
    struct jw j;
    char *text;
    size_t n = 0;
    /* The buffer at the last answer's size and some (answers of a workload
     * differ by a few bytes): one allocation, where starting at 32 KB and
     * doubling copied a 34 KB answer once on the way. The room in front is
     * for the server's HTTP head: the answer then leaves in one write
     * without being copied beside it (http_send_room). */
    jw_init_room(&j, room, cache && cache->last_len > 0 ? cache->last_len + cache->last_len / 8 + 1024 : 0);
    jw_obj(&j, NULL);
    if (cache)
        jw_rec_begin(&j, cache->rec[REC_HEAD]);
    jw_str(&j, "engine_version", ENGINE_VERSION);
    write_model(&j, w, r->params_b, r->active_params_b);
    jw_str(&j, "task", engine_task_name(w->task));
    jw_num(&j, "tokens_b", w->tokens_b);
    jw_str(&j, "precision", engine_precision_name(w->precision));
    jw_str(&j, "pricing", w->pricing == PRICING_BUY ? "buy" : "cloud");
    jw_rec_end(&j);
    jw_arr(&j, "tiers");
    for (int t = 0; t < TIER_COUNT; t++) {
        jw_obj(&j, NULL);
        write_tier(&j, &r->tiers[t], (enum engine_tier)t, cache);
        jw_end(&j);
    }
    jw_end(&j);
    if (cache)
        jw_rec_begin(&j, cache->rec[REC_TAIL]);
    jw_arr(&j, "warnings");
    for (int i = 0; i < r->n_warnings; i++)
        jw_str(&j, NULL, r->warnings[i]);
    jw_end(&j);
    jw_num(&j, "configs_evaluated", (double)r->configs_evaluated);
    write_frontier(&j, c, r, cache);
    jw_rec_end(&j);
    jw_end(&j);
    text = jw_finish(&j, &n);
    if (len)
        *len = n;
    if (cache && text)
        cache->last_len = n;
    return text;
}

char *json_estimate_text(const struct engine_workload *w, const struct engine_plan *p, size_t *len)
{
    struct jw j;
    struct engine_param_count pc = engine_params(&w->model);
    struct tier_parts tp;
    jw_init(&j);
    hw_key_fill(&tp.hk, &tp.hs, p);
    tp.hslot = NULL;
    tp.eslot = NULL;
    jw_obj(&j, NULL);
    write_plan_members(&j, p, 0, TIER_RECOMMENDED, &tp);
    jw_str(&j, "engine_version", ENGINE_VERSION);
    write_model(&j, w, pc.total / 1e9, pc.active / 1e9);
    jw_end(&j);
    return jw_finish(&j, len);
}

/* A tree of the written text, for callers that edit or embed it. */
static cJSON *parse_text(char *text, size_t len)
{
    cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    return doc;
}

cJSON *json_recommendation_encode(const struct catalog *c, const struct engine_workload *w,
                                  const struct engine_recommendation *r)
{
    size_t len = 0;
    char *text = json_recommendation_text(c, w, r, &len);
    return parse_text(text, len);
}

cJSON *json_estimate_encode(const struct engine_workload *w, const struct engine_plan *p)
{
    size_t len = 0;
    char *text = json_estimate_text(w, p, &len);
    return parse_text(text, len);
}

cJSON *json_catalog_encode(const struct catalog *c)
{
    static const char *const gens[GEN_COUNT] = {"ampere", "ada", "hopper", "blackwell", "cdna3", "gaudi3"};
    static const char *const links[] = {"pcie", "nvlink-bridge", "nvswitch", "xgmi-mesh", "ethernet"};
    cJSON *o = cJSON_CreateObject(), *arr;
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "engine_version", ENGINE_VERSION);
    arr = cJSON_AddArrayToObject(o, "gpus");
    for (int i = 0; i < c->n_gpus; i++) {
        const struct engine_gpu *g = &c->gpus[i];
        cJSON *t = cJSON_CreateObject(), *pr;
        cJSON_AddStringToObject(t, "id", g->id);
        cJSON_AddStringToObject(t, "name", g->name);
        cJSON_AddStringToObject(t, "vendor", g->vendor);
        cJSON_AddStringToObject(t, "generation", gens[g->gen]);
        cJSON_AddNumberToObject(t, "memory_gib", g->memory_gib);
        cJSON_AddNumberToObject(t, "mem_bw_gbs", g->mem_bw_gbs);
        cJSON_AddNumberToObject(t, "bf16_tflops", g->bf16_tflops);
        cJSON_AddNumberToObject(t, "fp8_tflops", g->fp8_tflops);
        cJSON_AddNumberToObject(t, "tdp_w", g->tdp_w);
        cJSON_AddStringToObject(t, "scaleup_link", links[g->link]);
        cJSON_AddNumberToObject(t, "scaleup_gbs", g->scaleup_gbs);
        cJSON_AddNumberToObject(t, "scaleup_domain", g->scaleup_domain);
        cJSON_AddNumberToObject(t, "nvlinks", g->nvlinks);
        cJSON_AddNumberToObject(t, "intra_busbw_gbs", g->intra_busbw_gbs);
        cJSON_AddNumberToObject(t, "pcie_gen", g->pcie_gen);
        cJSON_AddNumberToObject(t, "per_node", g->per_node);
        cJSON_AddNumberToObject(t, "default_fabric_gbps", g->default_fabric_gbps);
        if (g->scaleout_ports > 0) {
            cJSON_AddNumberToObject(t, "scaleout_ports", g->scaleout_ports);
            cJSON_AddNumberToObject(t, "scaleout_port_gbps", g->scaleout_port_gbps);
            cJSON_AddStringToObject(t, "scaleout_source", g->scaleout_source);
        }
        pr = cJSON_AddObjectToObject(t, "price");
        cJSON_AddNumberToObject(pr, "cloud_usd_per_gpu_hour", g->cloud_usd_per_gpu_hour);
        cJSON_AddNumberToObject(pr, "server_usd", g->server_usd);
        cJSON_AddNumberToObject(pr, "server_gpus", g->per_node);
        cJSON_AddStringToObject(pr, "as_of", g->price_as_of);
        cJSON_AddStringToObject(pr, "source", g->price_source);
        cJSON_AddStringToObject(pr, "cloud_confidence", engine_price_conf_name(g->cloud_price_conf));
        cJSON_AddStringToObject(pr, "server_confidence", engine_price_conf_name(g->server_price_conf));
        cJSON_AddStringToObject(t, "availability", g->restricted ? "restricted" : "global");
        if (g->availability_note[0])
            cJSON_AddStringToObject(t, "availability_note", g->availability_note);
        cJSON_AddStringToObject(t, "source", g->source);
        cJSON_AddItemToArray(arr, t);
    }
    arr = cJSON_AddArrayToObject(o, "fabrics");
    for (int i = 0; i < c->n_fabrics; i++) {
        const struct engine_fabric *f = &c->fabrics[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "id", f->id);
        cJSON_AddStringToObject(t, "name", f->name);
        cJSON_AddStringToObject(t, "type", engine_fabric_kind_name(f->kind));
        cJSON_AddNumberToObject(t, "gbps", f->gbps);
        cJSON_AddNumberToObject(t, "busbw_per_nic_gbs", f->busbw_per_nic_gbs);
        cJSON_AddNumberToObject(t, "nic_usd", f->nic_usd);
        cJSON_AddNumberToObject(t, "switch_radix", f->switch_radix);
        cJSON_AddNumberToObject(t, "switch_usd", f->switch_usd);
        cJSON_AddNumberToObject(t, "port_usd", f->port_usd);
        cJSON_AddNumberToObject(t, "cable_usd", f->cable_usd);
        cJSON_AddStringToObject(t, "as_of", f->as_of);
        cJSON_AddStringToObject(t, "source", f->source);
        cJSON_AddItemToArray(arr, t);
    }
    arr = cJSON_AddArrayToObject(o, "storage");
    for (int i = 0; i < c->n_storage; i++) {
        const struct engine_storage *s = &c->storage[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "kind", s->id);
        cJSON_AddStringToObject(t, "name", s->name);
        cJSON_AddNumberToObject(t, "read_gbs_per_tb", s->read_gbs_per_tb);
        cJSON_AddNumberToObject(t, "write_gbs_per_tb", s->write_gbs_per_tb);
        cJSON_AddNumberToObject(t, "usd_per_tb_month", s->usd_per_tb_month);
        cJSON_AddNumberToObject(t, "usd_per_tb_buy", s->usd_per_tb_buy);
        cJSON_AddStringToObject(t, "as_of", s->as_of);
        cJSON_AddStringToObject(t, "source", s->source);
        cJSON_AddItemToArray(arr, t);
    }
    arr = cJSON_AddArrayToObject(o, "presets");
    for (int i = 0; i < c->n_models; i++) {
        const struct engine_model *m = &c->models[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "id", m->id);
        cJSON_AddStringToObject(t, "name", m->name);
        cJSON_AddNumberToObject(t, "params_b", m->params_b);
        cJSON_AddNumberToObject(t, "active_params_b", m->active_params_b);
        cJSON_AddNumberToObject(t, "layers", m->layers);
        cJSON_AddNumberToObject(t, "hidden", m->hidden);
        cJSON_AddNumberToObject(t, "heads", m->heads);
        cJSON_AddNumberToObject(t, "kv_heads", m->kv_heads);
        cJSON_AddNumberToObject(t, "ffn_hidden", m->ffn_hidden);
        cJSON_AddNumberToObject(t, "vocab", m->vocab);
        cJSON_AddNumberToObject(t, "experts", m->experts);
        cJSON_AddNumberToObject(t, "experts_active", m->experts_active);
        cJSON_AddNumberToObject(t, "seq_len", m->seq_len);
        cJSON_AddStringToObject(t, "source", m->source);
        cJSON_AddItemToArray(arr, t);
    }
    return o;
}
