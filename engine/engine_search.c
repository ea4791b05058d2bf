/* engine_search.c: workload checking, the layout search and the three tiers.
 *
 * The search is GPU type x server size x node count x TP x PP x DP x EP x
 * ZeRO x recompute x micro-batch. It stays fast by (1) walking node counts on
 * a geometric grid (1, 2, 3, 4, 6, 8, 12, ...) instead of every integer,
 * (2) rejecting a node count before any layout when even full ZeRO-3 sharding
 * over every GPU cannot hold the model states (a lower bound on memory), and
 * (3) trying recompute levels cheapest-first and stopping at the first that
 * fits, because more recompute never speeds a layout up, and (4) skipping,
 * per micro-batch size, what bounds prove changes nothing: a memory lower
 * bound over every recompute level above the card, and once a layout fits,
 * a step-time lower bound (compute and bubble only) no better than the best
 * so far. The model states are computed once per tp/pp/dp/ep/ZeRO/offload
 * and shared by every micro-batch size and recompute level. The bounds only
 * skip work: tests/unit/test_engine_golden.c holds the answers bit for bit.
 * (5) A recommendation's search (no part of the layout fixed) lists, once
 * per GPU count, the layouts it walks with everything about them that does
 * not read the GPU type (memory figures, the step time's layout terms), and
 * the GPU types with that count walk the list together as it is built, each
 * with the same tests and the same doubles as its own walk (count_walk;
 * tests/unit/test_engine_search.c compares it with the walk over random
 * workloads).
 * For each cluster it keeps only the fastest layout: on a fixed cluster the
 * fastest layout is also the cheapest, so the tiers can be chosen among
 * clusters alone. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>   /* the pricing's two-lane path (a compiler header, no library) */
#include <immintrin.h>   /* its four-lane path's gather, in AVX2_FN functions only */
#endif

#include "engine_int.h"

#define DAYS_CAP 1095.0          /* plans longer than 3 years are not offered as "minimum" */
#define DEFAULT_DEADLINE_DAYS 90.0
#define DEFAULT_MAX_GPUS 65536

/* ------------------------------------------------------------ names */

const char *engine_tier_name(enum engine_tier t)
{
    static const char *const names[] = {"minimum", "recommended", "performance"};
    return (unsigned)t < TIER_COUNT ? names[t] : "?";
}

const char *engine_task_name(enum engine_task t)
{
    static const char *const names[] = {"pretrain", "finetune", "lora", "qlora"};
    return (unsigned)t < 4 ? names[t] : "?";
}

const char *engine_precision_name(enum engine_precision p)
{
    static const char *const names[] = {"bf16", "fp16", "fp8", "fp32"};
    return (unsigned)p < 4 ? names[p] : "?";
}

const char *engine_recompute_name(enum engine_recompute r)
{
    static const char *const names[] = {"none", "selective", "full"};
    return (unsigned)r < 3 ? names[r] : "?";
}

const char *engine_fabric_kind_name(enum engine_fabric_kind k)
{
    static const char *const names[] = {"none", "roce", "infiniband"};
    return (unsigned)k < 3 ? names[k] : "?";
}

const char *engine_price_conf_name(enum engine_price_conf p)
{
    static const char *const names[] = {"quote", "secondary", "estimate", "assumption"};
    return (unsigned)p < 4 ? names[p] : "?";
}

/* ------------------------------------------------------------ catalog */

const struct engine_gpu *catalog_gpu_find(const struct catalog *c, const char *id)
{
    for (int i = 0; i < c->n_gpus; i++)
        if (strcmp(c->gpus[i].id, id) == 0)
            return &c->gpus[i];
    return NULL;
}

const struct engine_model *catalog_model_find(const struct catalog *c, const char *id)
{
    for (int i = 0; i < c->n_models; i++)
        if (strcmp(c->models[i].id, id) == 0)
            return &c->models[i];
    return NULL;
}

const struct engine_storage *catalog_storage_find(const struct catalog *c, const char *id)
{
    for (int i = 0; i < c->n_storage; i++)
        if (strcmp(c->storage[i].id, id) == 0)
            return &c->storage[i];
    return NULL;
}

static int bad_num(double v, double lo, double hi)
{
    return isnan(v) || v < lo || v > hi;
}

enum status catalog_validate(const struct catalog *c, char *err, size_t errlen)
{
    if (c->n_gpus < 1 || c->n_gpus > CATALOG_GPUS_MAX || c->n_fabrics < 1 ||
        c->n_fabrics > CATALOG_FABRICS_MAX || c->n_storage < 1 || c->n_storage > CATALOG_STORAGE_MAX ||
        c->n_models < 0 || c->n_models > CATALOG_MODELS_MAX) {
        snprintf(err, errlen, "catalog: row counts out of range");
        return ST_INVALID;
    }
    for (int i = 0; i < c->n_gpus; i++) {
        const struct engine_gpu *g = &c->gpus[i];
        const char *field = NULL;
        if (bad_num(g->memory_gib, 1, 4096)) field = "memory_gib";
        else if (bad_num(g->mem_bw_gbs, 1, 1e6)) field = "mem_bw_gbs";
        else if (bad_num(g->bf16_tflops, 1, 1e6)) field = "bf16_tflops";
        else if (bad_num(g->fp8_tflops, 0, 1e6)) field = "fp8_tflops";
        else if (bad_num(g->intra_busbw_gbs, 0.1, 1e5)) field = "intra_busbw_gbs";
        else if (g->per_node < 1 || g->per_node > 72 || g->per_node_min < 1 || g->per_node_min > g->per_node)
            field = "per_node";
        else if (g->scaleup_domain < 1) field = "scaleup_domain";
        else if (bad_num(g->cloud_usd_per_gpu_hour, 0.01, 1e4)) field = "cloud_usd_per_gpu_hour";
        else if (bad_num(g->server_usd, 1, 1e8)) field = "server_usd";
        else if (bad_num(g->default_fabric_gbps, 1, 1e4)) field = "default_fabric_gbps";
        else if ((unsigned)g->gen >= GEN_COUNT) field = "gen";
        else if (g->scaleout_ports < 0 || g->scaleout_ports > 64 ||
                 (g->scaleout_ports > 0 && bad_num(g->scaleout_port_gbps, 1, 1e4)))
            field = "scaleout_ports";
        if (field) {
            snprintf(err, errlen, "catalog gpu %s: %s out of range", g->id, field);
            return ST_INVALID;
        }
    }
    for (int i = 0; i < c->n_fabrics; i++) {
        const struct engine_fabric *f = &c->fabrics[i];
        if (bad_num(f->gbps, 1, 1e5) || bad_num(f->busbw_per_nic_gbs, 0.1, 1e4) || f->switch_radix < 4) {
            snprintf(err, errlen, "catalog fabric %s: rate, busbw or radix out of range", f->id);
            return ST_INVALID;
        }
    }
    for (int i = 0; i < c->n_models; i++) {
        const struct engine_model *m = &c->models[i];
        if (m->layers < 1 || m->hidden < 64 || m->heads < 1 || m->vocab < 1) {
            snprintf(err, errlen, "catalog model %s: incomplete shape", m->id);
            return ST_INVALID;
        }
    }
    return ST_OK;
}

/* ------------------------------------------------------------ workload */

void engine_workload_init(struct engine_workload *w)
{
    memset(w, 0, sizeof *w);
    w->task = TASK_PRETRAIN;
    w->precision = PREC_BF16;
    w->optimizer = OPT_ADAMW;
    w->pricing = PRICING_CLOUD;
    w->global_batch_tokens = NAN;
    w->deadline_days = NAN;
    w->budget_usd = NAN;
    w->dataset_tb = NAN;
}

void engine_measured_init(struct engine_measured *m)
{
    m->intra_busbw_gbs = NAN;
    m->inter_busbw_gbs = NAN;
    m->matmul_tflops = NAN;
}

void engine_estimate_request_init(struct engine_estimate_request *r)
{
    memset(r, 0, sizeof *r);
    engine_workload_init(&r->workload);
    r->cluster.fabric_gbps_per_gpu = NAN;
    r->parallel.zero = -1;
    r->parallel.recompute = -1;
    engine_measured_init(&r->measured);
}

/* Fills shape gaps from params_b: F1 inverted with the aspect ratio of the
 * Llama/GPT families (about 128 hidden units per layer, head size 128),
 * ungated 4h MLP, 32k vocabulary. A rough shape only refines FLOPs and
 * activation memory; the declared parameter count stays authoritative.
 * A layer holds 4h^2 of attention and 8h^2 of MLP per expert (F1: MoE
 * multiplies the MLP by experts), so with L = h / 128 the total is
 * h^3 / 128 * (4 + 8 E): an MoE's hidden comes from that, not from the
 * dense 12 h^2, which gave 671B with 256 experts one layer of hidden
 * 19328 (and 23B active for DeepSeek-V3's 37B). */
static void model_complete(struct engine_model *m)
{
    double n = m->params_b * 1e9;
    double per_layer_h2 = 4.0 + 8.0 * (m->experts > 0 ? m->experts : 1);   /* a layer's parameters / h^2 */

    if (m->vocab <= 0)
        m->vocab = 32000;
    if (m->hidden <= 0) {
        double h = cbrt(n * 128.0 / per_layer_h2);
        int hi = (int)(h / 128.0 + 0.5) * 128;
        m->hidden = hi < 128 ? 128 : hi;
    }
    if (m->layers <= 0) {
        double body = n - 2.0 * (double)m->vocab * m->hidden;
        int L = (int)(body / (per_layer_h2 * m->hidden * m->hidden) + 0.5);
        m->layers = L < 1 ? 1 : L;
    }
    if (m->heads <= 0) {
        m->heads = m->hidden / 128 > 0 ? m->hidden / 128 : 1;
        while (m->hidden % m->heads != 0 && m->heads > 1)
            m->heads--;
    }
    if (m->kv_heads <= 0)
        m->kv_heads = m->heads;
    if (m->ffn_hidden <= 0)
        m->ffn_hidden = 4 * m->hidden;
    if (m->experts > 0 && m->experts_active <= 0)
        m->experts_active = m->experts < 2 ? m->experts : 2;
    if (m->seq_len <= 0)
        m->seq_len = 4096;
    if (m->params_b <= 0) {
        struct engine_param_count pc = engine_params(m);
        m->params_b = pc.total / 1e9;
    }
}

#define FAIL(fmt, ...) do { snprintf(err, errlen, fmt, __VA_ARGS__); return ST_INVALID; } while (0)

enum status engine_workload_resolve(struct engine_workload *w, const struct catalog *c, char *err, size_t errlen)
{
    struct engine_model *m = &w->model;

    if (w->preset[0]) {
        const struct engine_model *pm = catalog_model_find(c, w->preset);
        if (!pm)
            FAIL("model.preset: unknown preset \"%s\" (GET /api/v1/catalog lists them)", w->preset);
        *m = *pm;
    } else if (!(m->params_b > 0)) {
        FAIL("%s: either model.preset or model.params_b is required", "model");
    }
    if (bad_num(m->params_b, 1e-4, 1e5))
        FAIL("model.params_b: %g is out of range (0.0001..100000)", m->params_b);
    if (m->layers < 0 || m->layers > 2000) FAIL("model.layers: %d is out of range (1..2000)", m->layers);
    if (m->hidden < 0 || m->hidden > 262144) FAIL("model.hidden: %d is out of range (64..262144)", m->hidden);
    if (m->heads < 0 || m->heads > 4096) FAIL("model.heads: %d is out of range (1..4096)", m->heads);
    if (m->kv_heads < 0 || (m->heads > 0 && m->kv_heads > m->heads))
        FAIL("model.kv_heads: %d must be between 1 and heads", m->kv_heads);
    if (m->ffn_hidden < 0 || m->ffn_hidden > 1048576) FAIL("model.ffn_hidden: %d is out of range", m->ffn_hidden);
    if (m->vocab < 0 || m->vocab > 10000000) FAIL("model.vocab: %d is out of range", m->vocab);
    if (m->experts < 0 || m->experts > 4096) FAIL("model.experts: %d is out of range (0..4096)", m->experts);
    if (m->experts_active < 0 || (m->experts > 0 && m->experts_active > m->experts))
        FAIL("model.experts_active: %d must be between 1 and experts", m->experts_active);
    if (m->hidden > 0 && m->hidden < 64) FAIL("model.hidden: %d is out of range (64..262144)", m->hidden);
    if (m->hidden > 0 && m->heads > 0 && m->hidden % m->heads != 0)
        FAIL("model.heads: %d does not divide hidden %d", m->heads, m->hidden);
    if (m->heads > 0 && m->kv_heads > 0 && m->heads % m->kv_heads != 0)
        FAIL("model.kv_heads: %d does not divide heads %d", m->kv_heads, m->heads);
    model_complete(m);
    {
        struct engine_param_count pc = engine_params(m);
        if (pc.active <= 0 || pc.active > pc.total * 1.0001)
            FAIL("model.experts_active: active parameters %.3g exceed total %.3g", pc.active, pc.total);
    }
    if (bad_num(w->tokens_b, 1e-6, 1e6)) FAIL("tokens_b: %g is out of range (0.000001..1000000)", w->tokens_b);
    if (w->seq_len != 0 && (w->seq_len < 16 || w->seq_len > 2097152))
        FAIL("seq_len: %d is out of range (16..2097152)", w->seq_len);
    if (!isnan(w->deadline_days) && bad_num(w->deadline_days, 0.001, 36500))
        FAIL("deadline_days: %g is out of range (0.001..36500)", w->deadline_days);
    if (!isnan(w->budget_usd) && bad_num(w->budget_usd, 1, 1e13))
        FAIL("budget_usd: %g is out of range (1..1e13)", w->budget_usd);
    if (!isnan(w->dataset_tb) && bad_num(w->dataset_tb, 0, 1e7))
        FAIL("dataset_tb: %g is out of range (0..1e7)", w->dataset_tb);
    if (!isnan(w->global_batch_tokens) && bad_num(w->global_batch_tokens, 1, 1e9))
        FAIL("global_batch_tokens: %g is out of range (1..1e9)", w->global_batch_tokens);
    if (w->max_gpus < 0 || w->max_gpus > 1000000) FAIL("max_gpus: %d is out of range (1..1000000)", w->max_gpus);
    if (w->lora_rank < 0 || w->lora_rank > 4096) FAIL("lora_rank: %d is out of range (1..4096)", w->lora_rank);
    if (w->n_gpus_allowed < 0 || w->n_gpus_allowed > WORKLOAD_GPUS_ALLOWED_MAX)
        FAIL("gpus_allowed: more than %d entries", WORKLOAD_GPUS_ALLOWED_MAX);
    for (int i = 0; i < w->n_gpus_allowed; i++)
        if (!catalog_gpu_find(c, w->gpus_allowed[i]))
            FAIL("gpus_allowed[%d]: unknown GPU \"%s\"", i, w->gpus_allowed[i]);
    return ST_OK;
}

/* ------------------------------------------------------------ search */

struct limits {             /* layout parts fixed by an estimate request (0 = free) */
    int tp, pp, dp, ep, cp, zero, recompute, micro_batch, global_batch, vpp, offload;
    int fixed_cluster;      /* estimate: the GPU count is given, so the batch may grow to fill it */
};

struct cand {
    int gi, per_node, nodes, n;
    struct engine_parallel par;
    double fabric_gbps;
    double tokens_per_s;        /* eval_time's at that fabric (cand_fabric) */
    double mem_gib, days, cost;
    /* Found by a count's walkers (the layout lists): its step time on the
     * search's hardware for the cluster (the walk's, eval_time's step_s
     * there) and its tokens a step, and when have_ref, in ref par's step
     * parts (walker_best) */
    int from_list, have_ref;
    double step_s, tokens_step;
    struct eval_ref ref;
};

/* eval_achieved at micro-batch 1, 2, 4 (cp 1) on one GPU type: rate and
 * kernel efficiency */
struct gpu_ach {
    double rate[3], eff[3];
};

static void rec_warn(struct engine_recommendation *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rec_warn(struct engine_recommendation *r, const char *fmt, ...)
{
    va_list ap;
    if (r->n_warnings >= PLAN_WARNINGS_MAX)
        return;
    va_start(ap, fmt);
    engine_vfmt(r->warnings[r->n_warnings], PLAN_TEXT_MAX, fmt, ap);
    va_end(ap);
    r->n_warnings++;
}

/* A model given as a shape and a params_b that the shape does not hold
 * (F1 off by more than a quarter): the declared count sizes the memory,
 * the shape the FLOPs and activations (engine_params), so the plan mixes
 * two models; say so, with both numbers. 7B declared with 1 layer of
 * hidden 64 was planned as a 7B model running a 0.004B model's FLOPs
 * while its F1 text read "7.0B parameters from 1 layers, hidden 64".
 * Presets are consistent by construction; shape parts filled from
 * params_b (model_complete) follow it. Writes the text into buf (n bytes)
 * and returns 1 when there is something to say. */
static int shape_warning(const struct engine_workload *w, char *buf, size_t n)
{
    struct engine_model m = w->model;
    double shape_b;
    if (w->preset[0] || !(w->model.params_b > 0))
        return 0;
    m.params_b = m.active_params_b = 0;
    shape_b = engine_params(&m).total / 1e9;
    if (!(shape_b > 0) || (shape_b <= 1.25 * w->model.params_b && shape_b >= 0.8 * w->model.params_b))
        return 0;
    snprintf(buf, n,
             "model: the shape (%d layers, hidden %d, FFN %d, vocabulary %d) holds %.3gB parameters by F1, not the "
             "declared params_b %g: memory follows the declared count, FLOPs and activations the shape; check both",
             m.layers, m.hidden, m.ffn_hidden, m.vocab, shape_b, w->model.params_b);
    return 1;
}

static int named_in_allowed(const struct engine_workload *w, const char *id)
{
    for (int i = 0; i < w->n_gpus_allowed; i++)
        if (strcmp(w->gpus_allowed[i], id) == 0)
            return 1;
    return 0;
}

/* A GPU the search may use: every GPU when gpus_allowed is empty except
 * those the catalog marks restricted (export-control SKUs and the like,
 * migrations/0003), which only a workload that names them gets. */
static int allowed(const struct engine_workload *w, const struct engine_gpu *g)
{
    if (w->n_gpus_allowed == 0)
        return !g->restricted;
    return named_in_allowed(w, g->id);
}

static double gib_of(double bytes)
{
    return bytes / (1024.0 * 1024.0 * 1024.0);
}

/* Interleaved virtual stages: 2 chunks per device when every chunk keeps at
 * least 2 layers (Megatron's interleaved 1F1B; F9). */
static int pick_vpp(int layers, int pp)
{
    if (pp <= 1)
        return 1;
    if (layers % (pp * 2) == 0 && layers / (pp * 2) >= 2)
        return 2;
    return 1;
}

double eval_fabric_ratio(const struct catalog *c, const struct engine_gpu *g, double fabric_gbps)
{
    double port = engine_port_gbps(g, fabric_gbps);

    for (int i = 0; i < c->n_fabrics; i++)
        if (fabs(c->fabrics[i].gbps - port) < 1e-6)
            return c->fabrics[i].busbw_per_nic_gbs / (c->fabrics[i].gbps / 8.0);
    return 0.92;   /* realised NCCL busbw per NIC / line rate (T2: 46/50) */
}

void eval_fill_hw_ratio(struct eval_hw *hw, const struct engine_gpu *g, int n, int per_node, double fabric_gbps,
                        double ratio, const struct engine_workload *w, const struct engine_measured *meas)
{
    memset(hw, 0, sizeof *hw);
    hw->g = g;
    hw->n = n;
    hw->per_node = per_node;
    hw->nic_busbw_per_gpu_gbs = fabric_gbps / 8.0 * ratio;
    hw->intra_busbw_gbs = per_node > 1 ? node_busbw_gbs(g, per_node) : 1e6;
    hw->group_busbw_gbs = per_node > 1 ? g->intra_busbw_gbs : 1e6;
    hw->peak_tflops = eval_peak_tflops(g, w->precision);
    hw->eff_scale = 1.0;
    hw->bw_scale = 1.0;
    hw->matmul_tflops = NAN;
    if (meas) {
        /* the node's nccl-tests all_reduce: the group's too where the
         * node is one group */
        if (!isnan(meas->intra_busbw_gbs) && meas->intra_busbw_gbs > 0) {
            hw->intra_busbw_gbs = meas->intra_busbw_gbs;
            if (per_node <= g->scaleup_domain)
                hw->group_busbw_gbs = meas->intra_busbw_gbs;
        }
        if (!isnan(meas->inter_busbw_gbs) && meas->inter_busbw_gbs > 0)
            hw->nic_busbw_per_gpu_gbs = meas->inter_busbw_gbs / per_node;
        if (!isnan(meas->matmul_tflops) && meas->matmul_tflops > 0)
            hw->matmul_tflops = meas->matmul_tflops;
    }
}

void eval_fill_hw(struct eval_hw *hw, const struct engine_gpu *g, int n, int per_node, double fabric_gbps,
             const struct catalog *c, const struct engine_workload *w, const struct engine_measured *meas)
{
    eval_fill_hw_ratio(hw, g, n, per_node, fabric_gbps, eval_fabric_ratio(c, g, fabric_gbps), w, meas);
}

/* How far the search may round the global batch up to fill dp x micro-batch:
 * 25%, but never past the critical batch of 16M tokens (Llama 3 405B's final
 * batch, arXiv:2407.21783 s3.4.1; beyond it more tokens per step stop buying
 * fewer steps) unless the workload itself asks for a larger batch. */
#define CRITICAL_BATCH_TOKENS 16e6

static double batch_cap_seqs(const struct eval_ctx *ctx)
{
    double cap = ctx->batch_seqs * 1.25, crit = CRITICAL_BATCH_TOKENS / ctx->seq;
    if (cap > crit)
        cap = ctx->batch_seqs > crit ? ctx->batch_seqs : crit;
    return cap;
}

/* Fastest layout that fits one cluster. Returns 1 and fills best's par,
 * mem_gib and tokens_per_s (eval_time's, which cand_keep reads when the
 * caller, an estimate, keeps it as it is) when one fits; otherwise 0 and *min_mem_gib is the smallest per-GPU memory seen.
 * The walk every other path answers as: an estimate's, and the free
 * search's when a count's list does not fit (count_walk). */
static int best_layout(const struct eval_ctx *ctx, const struct eval_hw *hw, const struct limits *lim,
                       struct cand *best, double *min_mem_gib, long *evaluated)
{
    const struct engine_model *m = ctx->m;
    const struct engine_workload *w = ctx->w;
    const struct engine_gpu *g = hw->g;
    int n = hw->n, found = 0;
    int tp_max = g->scaleup_domain > 1 ? g->scaleup_domain : hw->per_node;
    /* Plan to 97% of the card: allocator spikes and NCCL channel buffers
     * come on top of the modelled 5% fragmentation. */
    double cap = g->memory_gib * 0.97;
    int cp = lim->cp > 0 ? lim->cp : 1;
    int free_batch = !lim->global_batch && !lim->dp && !lim->fixed_cluster;
    double batch_cap = batch_cap_seqs(ctx), best_score = INFINITY;
    if (tp_max > 16)
        tp_max = 16;
    if (tp_max > n)
        tp_max = n;
    *min_mem_gib = INFINITY;
    /* A fixed part of the layout (estimate) is tried as given, even when it
     * is not a power of two (Megatron's PP 35, llm-foundry's micro-batch 6). */
    for (int tp = lim->tp ? lim->tp : 1; tp <= (lim->tp ? lim->tp : tp_max); tp *= 2) {
        if (!engine_fits_tp(m, tp) && !lim->tp)
            continue;
        for (int pp = lim->pp ? lim->pp : 1; pp <= (lim->pp ? lim->pp : m->layers) && pp <= n; pp *= 2) {
            if (n % (tp * pp * cp) != 0)
                continue;
            int dp = n / (tp * pp * cp), vpp = pick_vpp(m->layers, pp);
            if (lim->dp && dp != lim->dp)
                continue;
            if (dp > ctx->batch_seqs && !lim->global_batch && !lim->dp && !lim->fixed_cluster)
                continue;   /* more replicas than the global batch has sequences */
            /* The global batch bounds data parallelism: each replica must get
             * at least pp micro-batches per step, or 1F1B cannot fill its
             * pipeline (bubble (p-1)/m >= (p-1)/p, F9; Megatron's interleaved
             * schedule refuses m < p outright). So dp <= B / pp; Llama 3 405B
             * ran exactly at that bound: 2,048 sequences over DP 128 x PP 16. */
            if (pp > 1 && !lim->global_batch && !lim->dp && !lim->fixed_cluster &&
                ceil(ctx->batch_seqs / dp) < pp)
                continue;
            /* Expert parallelism beyond 64 ranks only adds all-to-all hops
             * (DeepSeek-V3 trained with EP64); the search stops there. */
            int ep_max = m->experts > 0 ? (m->experts < 64 ? m->experts : 64) : 1;
            for (int ep = lim->ep ? lim->ep : 1; ep <= (lim->ep ? lim->ep : ep_max); ep *= 2) {
                if (ep > 1 && dp % ep != 0)
                    continue;
                for (int zero = (dp > 1 ? 1 : 0); zero <= (dp > 1 ? 3 : 0); zero++) {
                    if (lim->zero >= 0 && zero != lim->zero && !(dp == 1 && lim->zero > 0))
                        continue;
                    if (pp > 1 && zero >= 2 && lim->zero < 0)
                        continue;   /* gradient sharding fights gradient accumulation across stages */
                    for (int off = 0; off <= 1; off++) {
                        if (lim->offload >= 0 && off != lim->offload)
                            continue;
                        if (off && (found || w->task == TASK_LORA || w->task == TASK_QLORA))
                            continue;  /* offload only as the last rung of the ladder (R40) */
                        struct engine_parallel ps = {0};
                        struct engine_memory states;
                        int have_states = 0;
                        ps.tp = tp; ps.pp = pp; ps.dp = dp; ps.ep = ep; ps.cp = cp;
                        ps.zero = zero; ps.offload = off;
#define NEED_STATES()                                                                                          \
    do {                                                                                                       \
        if (!have_states) {                                                                                    \
            engine_memory_states(w, &ps, &ctx->pc, ctx->lora_base_bytes, ctx->lora_adapters, &states);         \
            have_states = 1;                                                                                   \
        }                                                                                                      \
    } while (0)
                        for (int b = lim->micro_batch ? lim->micro_batch : 1; b <= (lim->micro_batch ? lim->micro_batch : 4);
                             b *= 2) {
                            if (!lim->micro_batch && b > 1 && (pp > 1 || dp * b > ctx->batch_seqs))
                                continue;   /* keep the pipeline fed / the global batch as asked */
                            struct engine_parallel pb = {0};
                            pb.tp = tp; pb.pp = pp; pb.dp = dp; pb.ep = ep; pb.cp = cp;
                            pb.zero = zero; pb.micro_batch = b; pb.offload = off;
                            pb.global_batch = lim->global_batch ? lim->global_batch : (int)ctx->batch_seqs;
                            pb.vpp = lim->vpp ? lim->vpp : vpp;
                            /* Skip what provably changes nothing: a layout that
                             * cannot fit at any recompute level (unless its
                             * memory could still be the least seen, which the
                             * "does not fit" message reports), and once a layout
                             * fits, one the batch cap refuses or whose best case
                             * cannot beat the best so far. */
                            {
                                double lbm;
                                NEED_STATES();
                                lbm = eval_memory_lower_bound_gib(ctx, &pb, &states);
                                if (lbm > cap && (found || lbm >= *min_mem_gib))
                                    continue;
                                if (found && free_batch && eval_global_batch(ctx, &pb) > batch_cap)
                                    continue;
                                if (found && eval_score_lower_bound(ctx, hw, &pb) >= best_score)
                                    continue;
                            }
                            for (int rc = 0; rc <= 2; rc++) {
                                struct engine_parallel p = pb;
                                struct engine_memory mem;
                                double mgib;
                                if (lim->recompute >= 0 && rc != lim->recompute)
                                    continue;
                                p.recompute = rc;
                                NEED_STATES();
                                mem = states;
                                engine_memory_finish(m, w, &p, ctx->seq, &ctx->pc, ctx->lora_base_bytes, &mem);
                                mgib = gib_of(mem.total);
                                if (mgib < *min_mem_gib)
                                    *min_mem_gib = mgib;
                                if (mgib > cap)
                                    continue;
                                struct eval_out ev;
                                eval_time(ctx, hw, &p, &ev);
                                (*evaluated)++;
                                if (free_batch && ev.global_batch > batch_cap)
                                    break;   /* would inflate the global batch (convergence) */
                                if (!found || ev.step_s / ev.global_batch < best_score) {
                                    best->par = p;
                                    best->par.global_batch = ev.global_batch;
                                    best->tokens_per_s = ev.tokens_per_s;
                                    best->mem_gib = mgib;
                                    best_score = ev.step_s / ev.global_batch;
                                    found = 1;
                                }
                                break;   /* less recompute always runs faster: stop at the first fit */
                            }
                        }
                    }
                }
            }
        }
    }
#undef NEED_STATES
    return found;
}

/* ------------------------------------------------------------ free search */

/* The free search (no part of the layout fixed: every recommendation),
 * with the same answer as best_layout's walk, decision for decision, and
 * the same count of layouts scored. Its clusters are grouped by GPU count
 * (count_chains), and per count, once (count_walk):
 * - the list (struct engine_layout_memo): the layouts best_layout walks
 *   for n in its order (tp, pp, ep, ZeRO, offload, micro-batch), with every
 *   test of that walk that reads neither the GPU type nor what was found
 *   so far already applied, each layout's memory figures (the lower bound,
 *   and the total at each recompute level), whether its global batch is
 *   within the cap, and what its step time reads of it (eval_pre_fill).
 *   One group per tp, so that a GPU type walks the groups up to its
 *   tp_max, as the walk's tp loop stops there.
 * - the walks of every GPU type with that count (struct walker), together,
 *   as the list is built (layout_group_build, walk_entry, walk_offload):
 *   each with the tests that read the card (memory cap), what it found
 *   (offload only as the last rung, the batch cap and the score bound once
 *   a layout fits) and the step time from eval_step, whose operations are
 *   eval_time's in its order, and eval_achieved's rate per micro-batch size
 *   computed once per GPU type.
 * So every comparison sees the same doubles as the walk's and takes the
 * same branch: the same layout, memory and count. A layout the walk scores
 * counts as scored whether or not its step is finished: its step is taken
 * only as far as needed to see it lose (eval_step_beats' prefixes, which
 * the step can only exceed), and not at all where what follows does not
 * read it (the batch cap before any layout fits). What a step time reads
 * of the card is a handful of its own scalars (eval_hwc) against the
 * layout's parts, so the walks share the list and the entry's tests that
 * read no card (the batch cap), and every division is still each card's.
 * Walking as the list is built leaves out of it the offload layouts that
 * every walker passes by (it had found a layout before), about four in five
 * of them. The chosen layout's time model is left to the caller: where its
 * cluster runs on the hardware the walk timed it on (walk_step_kept) the
 * walk's own step gives its throughput, else it times it at the fabric it
 * picks from the list's parts (eval_time_ref).
 * Across counts, a search keeps what a list reads of a layout but not of
 * the count: a tp group's activations by pp, micro-batch and micro-batches
 * in flight (memo->acts). Per search, engine_run_fixed by count, nodes and
 * PCIe generation (cand_keep).
 * tests/unit/test_engine_search.c compares both over random workloads, and
 * every candidate with the plain models for its cluster. */

/* A count's list in the memo: where each tp group's entries start, and
 * how many. */
struct engine_layout_list {
    int n;                            /* GPU count */
    int first[ENGINE_LAYOUT_TP_GROUPS], count[ENGINE_LAYOUT_TP_GROUPS];
};

/* Empties the memo for a search: no layout, no activations kept. */
static void layout_memo_empty(struct engine_layout_memo *memo)
{
    memo->n_entries = 0;
    memo->n_bases = 0;
    /* only in_flight says whether a slot holds anything (0: empty; a
     * search's is at least 1): 240 stores, where a memset of the 9.6 KB
     * costs a rep stosb of as many bytes */
    for (int t = 0; t < ENGINE_LAYOUT_TP_GROUPS; t++)
        for (int p = 0; p < ENGINE_LAYOUT_PP_LOGS; p++)
            for (int b = 0; b < 3; b++)
                memo->acts[t][p][b].in_flight = 0;
}

/* The layout of entry e at recompute level rc, as best_layout's walk
 * builds it (global batch: the workload's). */
static void entry_parallel(const struct eval_ctx *ctx, const struct engine_layout_memo *memo,
                           const struct engine_layout_entry *e, int rc, struct engine_parallel *p)
{
    const struct engine_layout_base *bs = &memo->bases[e->base];
    memset(p, 0, sizeof *p);
    p->tp = bs->pre.tp; p->pp = bs->pre.pp; p->dp = bs->pre.dp; p->ep = bs->pre.ep; p->cp = bs->pre.cp;
    p->zero = e->zero; p->micro_batch = bs->pre.b; p->offload = e->z.offload;
    p->global_batch = (int)ctx->batch_seqs;
    p->vpp = bs->vpp;
    p->recompute = rc;
}

/* One GPU type's walk of a count's list (best_layout under free limits,
 * as the comment above says): what best_layout keeps between layouts. */
struct walker {
    const struct engine_layout_entry *best_e;
    double cap;                       /* best_layout's plan limit */
    double nach[3];                   /* eval_time's n x achieved at micro-batch 1, 2, 4 (cp 1) */
    double best_score, best_mgib, min_mem;
    double best_step;                 /* the step time of best_e at best_rc (best_score x its gbs) */
    /* eval_dp_bw of the last model-parallel size scored (n is fixed, so
     * the size gives dp) */
    double dp_bw;
    int dp_mp, tp_max, found, best_rc;
    int tail_nonneg;                  /* eval_step_beats may stop early (walker_init) */
    long scored;
    struct eval_hwc hc;
};

/* Whether every layout's step parts that eval_step_beats may leave out
 * (tp_q, pp_q, moe_q, and dp_q and opt_q, from psi) are >= 0 (or NaN) for
 * ctx: eval_pre_fill_base makes them products and quotients of the GPU
 * count's factors (each >= 1), the sequence, the model's shape and the
 * parameter counts, which are so when these are. */
static int parts_nonneg(const struct eval_ctx *ctx)
{
    return ctx->seq > 0 && ctx->m->hidden > 0 && ctx->m->layers > 0 && ctx->moe_layers >= 0 &&
           ctx->pc.total - ctx->pc.expert >= 0 && ctx->pc.expert >= 0 && ctx->lora_adapters >= 0;
}

/* Walker k of cluster hw in two steps: what does not read the GPU count
 * (walker_init_card; ctx_nonneg: parts_nonneg of the search), so that the
 * node grid's clusters of one GPU type start from one such walker, then
 * what does (walker_init_count). */
static void walker_init_card(struct walker *k, const struct eval_hw *hw, int ctx_nonneg)
{
    const struct engine_gpu *g = hw->g;

    k->best_e = NULL;
    k->best_mgib = 0;
    k->best_step = 0;
    k->dp_bw = 0;
    k->dp_mp = 0;
    k->found = 0;
    k->best_rc = 0;
    k->scored = 0;
    k->cap = g->memory_gib * 0.97;
    k->best_score = INFINITY;
    k->min_mem = INFINITY;
    eval_hwc_fill(&k->hc, hw);   /* reads neither hw->n nor what a count changes */
    /* the bandwidths the left-out terms divide by (mem_bw08 divides only
     * t_comp, which is always taken); 0 or NaN: the whole step */
    k->tail_nonneg = ctx_nonneg && k->hc.bw_intra > 0 && k->hc.bw_group > 0 && k->hc.bw_nic > 0 && k->hc.mem_bw9 > 0;
}

static void walker_init_count(struct walker *k, const struct eval_hw *hw, const struct gpu_ach *ach)
{
    int tp_max = hw->g->scaleup_domain > 1 ? hw->g->scaleup_domain : hw->per_node;

    if (tp_max > 16)
        tp_max = 16;
    if (tp_max > hw->n)
        tp_max = hw->n;
    k->tp_max = tp_max;
    for (int bi = 0; bi < 3; bi++)
        k->nach[bi] = hw->n * ach->rate[bi];
}

/* The walk at entry e before a layout fits: the least memory seen is kept
 * (the caller reads it only when none fits) and decides which layouts that
 * do not fit are looked at. */
static inline __attribute__((always_inline)) void walk_unfound(struct walker *k, const struct engine_layout_entry *e,
                                                              const struct engine_layout_base *bases)
{
    const double lbm = e->lower_bound_gib;
    if (lbm > k->cap && lbm >= k->min_mem)
        return;
    const struct engine_layout_base *bs = &bases[e->base];
    const struct engine_step_pre *pre = &bs->pre;
#pragma GCC unroll 3
    for (int rc = 0; rc <= 2; rc++) {
        double mgib = e->mem_gib[rc];
        struct eval_parts t;
        if (mgib < k->min_mem)
            k->min_mem = mgib;
        if (mgib > k->cap)
            continue;
        k->scored++;
        if (!e->batch_ok)
            return;   /* would inflate the global batch (convergence): scored, its step never read */
        if (pre->model_par != k->dp_mp) {
            k->dp_mp = pre->model_par;
            k->dp_bw = pre->dp > 1 ? eval_dp_bw(pre, &k->hc) : 0.0;
        }
        eval_step_bw(pre, &e->z, rc, &k->hc, k->nach[e->bi], k->dp_bw, &t);
        k->best_e = e;
        k->best_rc = rc;
        k->best_mgib = mgib;
        k->best_score = t.step / bs->gbs;
        k->best_step = t.step;
        k->found = 1;
        return;   /* less recompute always runs faster: stop at the first fit */
    }
}

/* The walk at entry e once a layout fits, past the tests of its memory
 * bound against the card and of its global batch against the cap: the
 * score bound, and the score. */
static inline __attribute__((always_inline)) void walk_found_fits(struct walker *k,
                                                                 const struct engine_layout_entry *e,
                                                                 const struct engine_layout_base *bs)
{
    const struct engine_step_pre *pre = &bs->pre;
    const double na = k->nach[e->bi];
    struct eval_step_head h;
    double score;
    int rc = 0;
    /* eval_score_lower_bound, from the same parts */
    double t_comp = pre->comp[0] / na;
    if (t_comp * bs->bubble1 / bs->gbs * (1.0 - 1e-9) >= k->best_score)
        return;
    /* less recompute always runs faster: the first level that fits */
    if (e->mem_gib[0] > k->cap) {
        if (e->mem_gib[1] > k->cap) {
            if (e->mem_gib[2] > k->cap)
                return;
            rc = 2;
        } else {
            rc = 1;
        }
    }
    k->scored++;
    /* most scored layouts lose, most of them seen from the step's first
     * terms (eval_step_beats, in its two steps) */
    if (eval_step_head(pre, rc, &k->hc, na, bs->bubble1, bs->gbs, k->best_score, k->tail_nonneg, &h))
        return;
    if (pre->model_par != k->dp_mp) {
        k->dp_mp = pre->model_par;
        k->dp_bw = pre->dp > 1 ? eval_dp_bw(pre, &k->hc) : 0.0;
    }
    if (eval_step_tail(pre, &e->z, &k->hc, k->dp_bw, bs->gbs, k->best_score, &h, &score, &k->best_step)) {
        k->best_e = e;
        k->best_rc = rc;
        k->best_mgib = e->mem_gib[rc];
        k->best_score = score;
    }
}

/* The walk at entry e once a layout fits: the same tests with found set,
 * less the least memory (not read any more). The offload layouts it passes
 * by are the caller's (walk_offload). */
static inline void walk_found(struct walker *k, const struct engine_layout_entry *e,
                              const struct engine_layout_base *bases)
{
    if (e->lower_bound_gib > k->cap || !e->batch_ok)
        return;
    walk_found_fits(k, e, &bases[e->base]);
}

/* Walker k into fnd, kept by plan limit, largest first: an entry's memory
 * bound then rules out a tail of it at once. */
static void found_insert(struct walker **fnd, int *nf, struct walker *k)
{
    int i = (*nf)++;
    while (i > 0 && fnd[i - 1]->cap < k->cap) {
        fnd[i] = fnd[i - 1];
        i--;
    }
    fnd[i] = k;
}

/* The walkers of one count in one tp group (those whose tp_max reaches
 * it): not yet found (unf), and found (fnd, by plan limit, largest first).
 * Walkers do not read each other, so in what order they take an entry does
 * not matter, and what reads only the entry (its global batch against the
 * cap) is asked once for all of them. */
struct walk_set {
    struct walker *unf[CATALOG_GPUS_MAX], *fnd[CATALOG_GPUS_MAX];
    int nu, nf;
    int tp_min;                       /* the least tp_max among them */
};

/* Every walker of ks, none found yet; ks by plan limit, largest first
 * (count_chains orders each count's clusters so). */
static void walk_set_init(struct walk_set *ws, struct walker *ks, int nk)
{
    ws->nu = nk;
    ws->nf = 0;
    ws->tp_min = 16;
    for (int i = 0; i < nk; i++) {
        ws->unf[i] = &ks[i];
        if (ks[i].tp_max < ws->tp_min)
            ws->tp_min = ks[i].tp_max;
    }
}

/* Leaves in ws the walkers of group gx (fnd in its order); 0 when none
 * walks it (nor, as tp_max only grows with gx, a later one). */
static int walk_set_group(struct walk_set *ws, int gx)
{
    if (1 << gx > ws->tp_min) {
        int nu = 0, nf = 0;
        ws->tp_min = 16;
        for (int i = 0; i < ws->nu; i++)
            if (1 << gx <= ws->unf[i]->tp_max)
                ws->unf[nu++] = ws->unf[i];
        for (int i = 0; i < ws->nf; i++)
            if (1 << gx <= ws->fnd[i]->tp_max)
                ws->fnd[nf++] = ws->fnd[i];
        ws->nu = nu;
        ws->nf = nf;
        for (int i = 0; i < nu; i++)
            if (ws->unf[i]->tp_max < ws->tp_min)
                ws->tp_min = ws->unf[i]->tp_max;
        for (int i = 0; i < nf; i++)
            if (ws->fnd[i]->tp_max < ws->tp_min)
                ws->tp_min = ws->fnd[i]->tp_max;
    }
    return ws->nu + ws->nf > 0;
}

/* Every walker of ws at entry e, no offload. */
static inline __attribute__((always_inline)) void walk_entry(struct walk_set *ws, const struct engine_layout_entry *e,
                                                            const struct engine_layout_base *bases)
{
    if (e->batch_ok) {
        const struct engine_layout_base *bs = &bases[e->base];
        const double lbm = e->lower_bound_gib;
        struct walker *const *fnd = ws->fnd;
        const int nf = ws->nf;
        for (int i = 0; i < nf && !(lbm > fnd[i]->cap); i++)
            walk_found_fits(fnd[i], e, bs);
    }
    for (int i = 0; i < ws->nu;) {
        struct walker *k = ws->unf[i];
        walk_unfound(k, e, bases);
        if (k->found) {   /* it walks on as found, from the next entry */
            found_insert(ws->fnd, &ws->nf, k);
            ws->unf[i] = ws->unf[--ws->nu];
        } else {
            i++;
        }
    }
}

/* Every walker of ws at the sizes of one offload layout, e to end. Offload
 * only as the last rung of the ladder (R40): the walk asks once per offload
 * layout, before its micro-batch sizes, so a walker that had found a layout
 * before passes them all by (the caller need not even list them when every
 * walker had), and one that finds a size here reads the next ones as
 * found. */
static void walk_offload(struct walk_set *ws, const struct engine_layout_entry *e,
                         const struct engine_layout_entry *end, const struct engine_layout_base *bases)
{
    for (int i = 0; i < ws->nu;) {
        struct walker *k = ws->unf[i];
        for (const struct engine_layout_entry *r = e; r < end; r++) {
            if (k->found)
                walk_found(k, r, bases);
            else
                walk_unfound(k, r, bases);
        }
        if (k->found) {
            found_insert(ws->fnd, &ws->nf, k);
            ws->unf[i] = ws->unf[--ws->nu];
        } else {
            i++;
        }
    }
}

/* Appends the group of tp = 1 << gx to list l: best_layout's walk under
 * free limits (cp 1, global batch from the workload) for that tp, with the
 * tests that read neither the card nor what was found, and walks ws's
 * walkers over each micro-batch size run as it is listed (walk_entry,
 * walk_offload). An offload layout that no walker would read (each had
 * found a layout before it) is not listed. 0 when the memo cannot hold the
 * group within max_entries and max_bases (the walkers are then part way). */
static int layout_group_build(const struct eval_ctx *ctx, struct engine_layout_memo *memo,
                              struct engine_layout_list *l, int gx, int max_entries, int max_bases,
                              struct walk_set *ws)
{
    const struct engine_model *m = ctx->m;
    const struct engine_workload *w = ctx->w;
    const int n = l->n, tp = 1 << gx, cp = 1, first = memo->n_entries;
    const int lora = w->task == TASK_LORA || w->task == TASK_QLORA;
    const double batch_cap = batch_cap_seqs(ctx);
    const double zero3_extra = engine_memory_zero3_extra(w, tp, &ctx->pc, ctx->lora_base_bytes);
    int k = first, nbase = memo->n_bases;

    if (engine_fits_tp(m, tp)) {
        for (int pp = 1, pp_log = 0; pp <= m->layers && pp <= n; pp *= 2, pp_log++) {
            if (n % (tp * pp * cp) != 0)
                continue;
            int dp = n / (tp * pp * cp);
            if (dp > ctx->batch_seqs)
                continue;
            /* best_layout's ceil(B / dp) < pp, as B / dp <= pp - 1 (pp
             * is a whole number) */
            if (pp > 1 && ctx->batch_seqs / dp <= pp - 1)
                continue;
            int vpp = pick_vpp(m->layers, pp);
            int ep_max = m->experts > 0 ? (m->experts < 64 ? m->experts : 64) : 1;
            for (int ep = 1; ep <= ep_max; ep *= 2) {
                if (ep > 1 && dp % ep != 0)
                    continue;
                /* What reads the micro-batch size but not the ZeRO stage or
                 * offload, once per size: the step's parts (a base), the
                 * activations at each recompute level and the bound's
                 * activations. The walk skips a size above 1 when pp > 1 or
                 * dp x size exceeds the batch, and then every larger size. */
                double act[3][3], lb_act[3];
                int nb = 0, base0 = nbase;
                for (int b = 1, bi = 0; b <= 4; b *= 2, bi++) {
                    struct engine_parallel pb = {0};
                    struct engine_layout_base *bs;
                    if (b > 1 && (pp > 1 || dp * b > ctx->batch_seqs))
                        break;
                    if (nbase >= max_bases)
                        return 0;
                    bs = &memo->bases[nbase++];
                    pb.tp = tp; pb.pp = pp; pb.dp = dp; pb.ep = ep; pb.cp = cp;
                    pb.micro_batch = b;
                    pb.global_batch = (int)ctx->batch_seqs;
                    pb.vpp = vpp;
                    /* eval_pre_fill_base of pb; each entry has its own z */
                    eval_pre_fill_parts(ctx, tp, pp, dp, cp, ep, b, vpp, pb.global_batch, &bs->pre, 7u);
                    bs->bubble1 = 1.0 + bs->pre.bubble;
                    bs->gbs = bs->pre.gbs;
                    bs->vpp = vpp;
                    if (pp_log < ENGINE_LAYOUT_PP_LOGS) {
                        /* the same inputs as another count's: the same doubles */
                        struct engine_layout_act *a = &memo->acts[gx][pp_log][bi];
                        int in_flight = engine_act_in_flight(&pb);
                        if (a->in_flight != in_flight) {
                            engine_memory_activations3(ctx, &pb, a->act, &a->lb);
                            a->in_flight = in_flight;
                        }
                        memcpy(act[bi], a->act, sizeof a->act);
                        lb_act[bi] = a->lb;
                    } else {
                        engine_memory_activations3(ctx, &pb, act[bi], &lb_act[bi]);
                    }
                    nb++;
                }
                /* engine_memory_states' shards, once for every ZeRO stage */
                struct engine_states_parts sp;
                engine_states_parts(w, tp, pp, dp, ep, &ctx->pc, ctx->lora_base_bytes, ctx->lora_adapters, &sp);
                struct engine_step_zero zq[3];
                for (int zero = (dp > 1 ? 1 : 0); zero <= (dp > 1 ? 3 : 0); zero++) {
                    if (pp > 1 && zero >= 2)
                        continue;
                    /* eval_pre_zero of each size at this stage; offload
                     * sets only its flag */
                    for (int bi = 0; bi < nb; bi++)
                        eval_pre_zero(ctx, &memo->bases[base0 + bi].pre, zero, 0, &zq[bi]);
                    for (int off = 0; off <= 1; off++) {
                        struct engine_memory states;
                        if (off && (lora || ws->nu == 0))
                            continue;
                        if (k + nb > max_entries)
                            return 0;
                        engine_states_of(&sp, zero, off, &states);
                        /* engine_memory_add's sum of the states and ZeRO-3 term
                         * (added as 0.0 below stage 3: the overhead, a positive
                         * double, stays as it is, and no branch is taken) */
                        const double st_sum = states.weights + states.gradients + states.optimizer;
                        const double z3 = zero >= 3 ? zero3_extra : 0.0;
                        for (int bi = 0; bi < nb; bi++) {
                            struct engine_layout_entry *e = &memo->entries[k++];
                            const struct engine_step_pre *pre = &memo->bases[base0 + bi].pre;
                            const double *a = act[bi];
                            double other;
                            e->z = zq[bi];
                            e->z.offload = (unsigned char)(off != 0);
                            e->lower_bound_gib = eval_memory_lower_bound_of(&states, lb_act[bi]);
                            e->mem_gib[0] = gib_of(engine_memory_total_of(st_sum, a[0], 1, z3, &other));
                            e->mem_gib[1] = gib_of(engine_memory_total_of(st_sum, a[1], 1, z3, &other));
                            e->mem_gib[2] = gib_of(engine_memory_total_of(st_sum, a[2], 1, z3, &other));
                            e->base = base0 + bi;
                            e->zero = (unsigned char)zero;
                            e->bi = (unsigned char)bi;
                            e->batch_ok = !(pre->gbs > batch_cap);
                        }
                        if (off) {
                            walk_offload(ws, &memo->entries[k - nb], &memo->entries[k], memo->bases);
                        } else {
                            for (int j = k - nb; j < k; j++)
                                walk_entry(ws, &memo->entries[j], memo->bases);
                        }
                    }
                }
            }
        }
    }
    l->first[gx] = first;
    l->count[gx] = k - first;
    memo->n_entries = k;
    memo->n_bases = nbase;
    return 1;
}

/* Whether the candidate's time model (cand_fabric) runs on the hardware
 * hw the walk timed the cluster on, so that the walk's step is its step:
 * on several nodes, when engine_choose_fabric_gbps answers g's usual rate
 * without trying another (a rented cluster, or GPUs with their own
 * scale-out ports: it times the cluster at hw_usual, cluster_hw's, and
 * returns), and on one node, when cluster_hw's NIC figure is already the
 * scale-up link cand_fabric gives it (every server of more than one GPU). */
static int walk_step_kept(const struct eval_ctx *ctx, const struct engine_gpu *g, int nodes,
                          const struct eval_hw *hw)
{
    if (nodes > 1)
        return engine_fabric_rate_fixed(ctx, g);
    return hw->nic_busbw_per_gpu_gbs == hw->intra_busbw_gbs;
}

/* What the caller of a walk keeps of the layout walker k found: its layout
 * and memory, its step at the walk's hardware, and when need_ref, in
 * best->ref what its time model reads of the list (for a caller that times
 * it at another fabric rate). */
static void walker_best(const struct eval_ctx *ctx, const struct engine_layout_memo *memo, const struct walker *k,
                        const struct gpu_ach *ach, int need_ref, struct cand *best)
{
    const struct engine_layout_entry *e = k->best_e;
    const struct engine_layout_base *bs = &memo->bases[e->base];

    entry_parallel(ctx, memo, e, k->best_rc, &best->par);
    best->par.global_batch = bs->pre.gbs;   /* eval_time's global_batch */
    best->mem_gib = k->best_mgib;
    best->from_list = 1;
    best->step_s = k->best_step;
    best->tokens_step = bs->pre.tokens_step;
    best->have_ref = need_ref;
    if (!need_ref)
        return;
    /* what eval_time computes of that layout before the bandwidths:
     * eval_pre_fill gives the same parts for global batch gbs (the same
     * micro-batch count) at the entry's stage and offload */
    best->ref.pre = bs->pre;
    best->ref.pre.z = e->z;
    best->ref.ri = eval_rc_index(k->best_rc);
    best->ref.achieved = ach->rate[e->bi];
    best->ref.eff = ach->eff[e->bi];
}

/* The fabric rate of a candidate cluster (engine_choose_fabric_gbps) and
 * its throughput at that rate: what the search keeps of a cluster. None of
 * it depends on the tokens, deadline, budget or dataset size, which only
 * price it (cand_cost). */
static void cand_fabric(const struct catalog *c, const struct eval_ctx *ctx, struct cand *cd,
                        const struct eval_hw *hw_search)
{
    const struct engine_gpu *g = &c->gpus[cd->gi];
    struct eval_out ev;
    const struct eval_ref *ref = cd->have_ref ? &cd->ref : NULL;

    cd->fabric_gbps = 0;
    if (cd->from_list && walk_step_kept(ctx, g, cd->nodes, hw_search)) {
        /* eval_time_ref at the hardware the walk timed it on (at the usual
         * rate, eval_fill_hw's; on one node, with its scale-up link for the
         * NICs, which cluster_hw gave the walk), so eval_out_of's step is
         * the walk's (eval_step_bw, the same hardware, parts, level and
         * rate) and its tokens per second tokens_step / step */
        if (cd->nodes > 1)
            cd->fabric_gbps = engine_default_fabric_gbps(g);
        cd->tokens_per_s = cd->tokens_step / cd->step_s;
        return;
    }
    if (cd->nodes > 1) {
        cd->fabric_gbps = engine_choose_fabric_gbps(c, ctx, g, cd->n, cd->per_node, &cd->par, ref, hw_search, &ev);
    } else if (ref) {
        /* engine_eval_cluster on one node, from the lists' parts: the
         * search's hardware (eval_fill_hw at rate 0) with its scale-up
         * link for the NICs */
        struct eval_hw hw = *hw_search;
        hw.nic_busbw_per_gpu_gbs = hw.intra_busbw_gbs;
        eval_time_ref(ctx, &hw, ref, &ev);
    } else {
        engine_eval_cluster(c, ctx, g, cd->n, cd->per_node, 1, 0, NULL, 1.0, 1.0, &cd->par, &ev);
    }
    cd->tokens_per_s = ev.tokens_per_s;
}

/* Days and cost of a candidate cluster, exactly as its plan will report
 * them: wall time with start-up and goodput (engine_run_time) at the
 * throughput of its fabric rate, and the whole bill of materials
 * (plan_cost, on a scratch plan). One cost model ranks and reports, so the
 * tiers' order cannot change once they are costed line by line. A rented
 * cluster's bill is GPU-hours and storage only: engine_cloud_cost_usd sums
 * it from the same helpers without filling the scratch plan, and the days
 * come from the start-up and goodput the search kept (engine_run_fixed),
 * so only the steps that read the tokens run here. */
static void cand_cost(const struct catalog *c, const struct eval_ctx *ctx, struct engine_candidate *cd,
                      struct engine_plan *scratch, struct cloud_cost_memo *memo)
{
    const struct engine_gpu *g = &c->gpus[cd->gi];
    struct run_time rt;

    if (ctx->w->pricing == PRICING_CLOUD) {
        cd->days = engine_run_days(ctx, cd->startup_s, cd->goodput, cd->tokens_per_s);
        cd->cost = engine_cloud_cost_cand(memo, cd, cd->days, g->cloud_usd_per_gpu_hour);
        return;
    }
    rt = engine_run_time(ctx, g, cd->n, cd->nodes, cd->tokens_per_s, 1.0);
    scratch->gpu_index = cd->gi;
    scratch->count = cd->n;
    scratch->per_node = cd->per_node;
    scratch->nodes = cd->nodes;
    scratch->fabric_gbps_per_gpu = cd->fabric_gbps;
    scratch->fabric_kind = FABRIC_NONE;
    scratch->days = rt.days;
    scratch->days_low = scratch->days_high = 0;
    scratch->tokens_per_s = cd->tokens_per_s;
    plan_cost_at(c, ctx, scratch, &rt.gp, 0);
    cd->days = rt.days;
    cd->cost = scratch->cost_usd;
}

#ifdef __SSE2__
/* The columns price_cloud reads (struct engine_price_cols), from the
 * candidates and the catalog, candidate i at index base + i; the entry
 * after the last is a copy of it (the pair of an odd one). 0 when a
 * candidate's GPU is not in the catalog. */
static int price_cols_fill(const struct catalog *c, const struct engine_candidate *cands, int nc, int big10,
                           int big100, struct engine_price_cols *pc, int base)
{
    const int n_gpus = c->n_gpus;
    const unsigned long long warm_all = big10 ? ~0ULL : 0, cold_all = big100 ? ~0ULL : 0;
    for (int k = 0; k < nc; k++) {
        const struct engine_candidate *cd = &cands[k];
        const int i = base + k, gi = cd->gi;
        if (gi < 0 || gi >= n_gpus)
            return 0;
        pc->startup_s[i] = cd->startup_s;
        pc->tokens_per_s[i] = cd->tokens_per_s;
        pc->goodput[i] = cd->goodput;
        pc->gpus[i] = cd->n;
        pc->usd_per_gpu_hour[i] = c->gpus[gi].cloud_usd_per_gpu_hour;
        int known = cd->hot_kind >= 0 && cd->hot_kind < 3;
        pc->hot_bw_tb[i] = known ? cd->hot_bw_tb : -INFINITY;
        pc->hot_bw_month_usd[i] = cd->hot_bw_month_usd > 0 ? cd->hot_bw_month_usd : 0.0;
        pc->cache_month_usd[i] = cd->nodes > 2 && cd->cache_month_usd > 0 ? cd->cache_month_usd : 0.0;
        pc->hot_kind_at[i] = known ? cd->hot_kind : 3;
        pc->warm_always[i] = (cd->nodes > 1 ? ~0ULL : 0) | warm_all;
        pc->cold_always[i] = (cd->n >= 256 ? ~0ULL : 0) | cold_all;
    }
    if (nc > 0) {   /* the entry after the last: a copy of it */
        const int i = base + nc;
        pc->startup_s[i] = pc->startup_s[i - 1];
        pc->tokens_per_s[i] = pc->tokens_per_s[i - 1];
        pc->goodput[i] = pc->goodput[i - 1];
        pc->gpus[i] = pc->gpus[i - 1];
        pc->usd_per_gpu_hour[i] = pc->usd_per_gpu_hour[i - 1];
        pc->hot_bw_tb[i] = pc->hot_bw_tb[i - 1];
        pc->hot_bw_month_usd[i] = pc->hot_bw_month_usd[i - 1];
        pc->cache_month_usd[i] = pc->cache_month_usd[i - 1];
        pc->hot_kind_at[i] = pc->hot_kind_at[i - 1];
        pc->warm_always[i] = pc->warm_always[i - 1];
        pc->cold_always[i] = pc->cold_always[i - 1];
    }
    return 1;
}

/* out's price_cols ready for these candidates: made unless they are
 * theirs already (the same tag, catalog, count and size classes), the
 * seeds cleared when made. 0 when a candidate's GPU is not in the catalog. */
static int cols_ready(const struct catalog *c, const struct cloud_cost_memo *m, struct engine_recommendation *out,
                      int base)
{
    struct engine_price_cols *pc = &out->price_cols;
    int nc = out->n_candidates;
    if (out->candidates_from != 0 && pc->from == out->candidates_from && pc->catalog == c && pc->n == nc &&
        pc->big10 == m->big10 && pc->big100 == m->big100)
        return 1;
    pc->from = 0;
    pc->priced = 0;
    if (!price_cols_fill(c, out->candidates, nc, m->big10, m->big100, pc, base))
        return 0;
    pc->from = out->candidates_from;
    pc->catalog = c;
    pc->n = nc;
    pc->big10 = m->big10;
    pc->big100 = m->big100;
    for (int x = 0; x < ENGINE_PRICE_SEEDS; x++)
        pc->seed[x] = -1;
    return 1;
}

static inline __m128d cols_mask(const unsigned long long *col, int j)
{
    return _mm_castsi128_pd(_mm_load_si128((const __m128i *)(const void *)&col[j]));
}

/* The index where the price columns are 16-byte aligned (the same for all:
 * their sizes are multiples of 16 bytes), where price_cols_fill put
 * candidate 0; every pass over the columns starts there. */
static inline int cols_base(const struct engine_price_cols *pc)
{
    return ((uintptr_t)(const void *)pc->startup_s & 15) != 0;
}

/* The hot tier's monthly price for the data by kind (hot_kind_at's 0..2),
 * 0 where the bill would not add it (not > 0: NaN, none) and for no kind. */
static inline void hot_month_prices(const struct cloud_cost_memo *m, double out[4])
{
    for (int k = 0; k < 3; k++)
        out[k] = m->hot_month_usd[k] > 0 ? m->hot_month_usd[k] : 0.0;
    out[3] = 0.0;
}

/* Days and cost of every candidate of a rented cluster, what cand_cost's
 * rented branch computes (engine_run_days with the tokens the memo holds,
 * then engine_cloud_cost_cand), two candidates at a time (SSE2: the path
 * of a CPU without AVX2; price_cloud4 is the other) from out's
 * price_cols (made ready by price_cloud): the
 * same IEEE operations in the same order on each lane, so the same doubles.
 * - days: (startup + tokens / throughput / goodput) / 86400;
 * - billed hours: engine_ceil(days x 24 - 1e-9), at least 1. For x in
 *   [0, 2^52), (x + 2^52) - 2^52 is x rounded to an integer (to nearest),
 *   and adding 1 when that is below x gives ceil(x), as engine_ceil's
 *   truncation does; max with 1 is the floor (max gives 1 for h = 1 too).
 *   A pair with any other x (negative, huge, NaN) is priced by the scalar
 *   code. There days > 0, so the months are days / 30;
 * - the bill: 0 + GPU-hours when positive, then hot tier, node cache, warm
 *   and cold tiers, each added when positive (adding +0 instead leaves the
 *   sum as it is: it is never -0), a tier the candidate lacks costing 0 (or
 *   NaN) here, so that it is not added, as it is left out there. */
static void price_cloud2(const struct cloud_cost_memo *m, struct engine_recommendation *out)
{
    struct engine_price_cols *pc = &out->price_cols;
    struct engine_candidate *cands = out->candidates;
    int nc = out->n_candidates;
    const __m128d tokens = _mm_set1_pd(m->tokens), zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0);
    const __m128d big = _mm_set1_pd(0x1p52), day_s = _mm_set1_pd(86400.0), h24 = _mm_set1_pd(24.0);
    const __m128d eps = _mm_set1_pd(1e-9), d30 = _mm_set1_pd(30.0), week = _mm_set1_pd(7.0);
    /* Every tier's monthly price here (these two, the hot ones below and
     * in the columns) is 0 where the bill would not add it (not > 0: NaN,
     * none): months is finite and > 0 on the pair path, so price x months
     * is > 0 or (underflow) +0 when price > 0, and +0 when it is 0, where
     * adding +0 leaves the sum (never -0) as it is, as not adding does. */
    const __m128d need = _mm_set1_pd(m->hot_need_tb);
    const __m128d warm = _mm_set1_pd(m->warm_month_usd > 0 ? m->warm_month_usd : 0.0);
    const __m128d cold = _mm_set1_pd(m->cold_month_usd > 0 ? m->cold_month_usd : 0.0);
    /* the hot tier's price for the data by kind (hot_kind_at), 0 for none */
    double hot_month[4];
    hot_month_prices(m, hot_month);

    const int base = cols_base(pc);

    for (int i = 0; i < nc; i += 2) {
        const int j = base + i;   /* the pair's column index */
        __m128d d, x, r, h, qty, months, total, u, over, hot, gpus;
        d = _mm_div_pd(_mm_div_pd(tokens, _mm_load_pd(&pc->tokens_per_s[j])), _mm_load_pd(&pc->goodput[j]));
        d = _mm_div_pd(_mm_add_pd(_mm_load_pd(&pc->startup_s[j]), d), day_s);
        x = _mm_sub_pd(_mm_mul_pd(d, h24), eps);
        if (_mm_movemask_pd(_mm_and_pd(_mm_cmpge_pd(x, zero), _mm_cmplt_pd(x, big))) != 3) {
            double dl[2];
            _mm_storeu_pd(dl, d);
            for (int l = 0; l < 2; l++) {
                struct engine_candidate *cd = &cands[i + l];
                if (i + l >= nc) {   /* an odd count's pair: a copy of the last, as in the other columns */
                    pc->days[j + l] = pc->days[j + l - 1];
                    pc->cost[j + l] = pc->cost[j + l - 1];
                    break;
                }
                cd->days = pc->days[j + l] = dl[l];
                cd->cost = pc->cost[j + l] = engine_cloud_cost_cand(m, cd, dl[l], pc->usd_per_gpu_hour[j + l]);
            }
            continue;
        }
        r = _mm_sub_pd(_mm_add_pd(x, big), big);
        h = _mm_add_pd(r, _mm_and_pd(_mm_cmplt_pd(r, x), one));
        h = _mm_max_pd(h, one);
        gpus = _mm_load_pd(&pc->gpus[j]);
        qty = _mm_mul_pd(h, gpus);
        total = _mm_and_pd(_mm_cmpgt_pd(qty, zero),
                           _mm_add_pd(zero, _mm_mul_pd(qty, _mm_load_pd(&pc->usd_per_gpu_hour[j]))));
        months = _mm_div_pd(d, d30);
        /* the hot tier: at its bandwidth's capacity when that exceeds the
         * data's, else the kind's price for the data; 0 for no kind (its
         * capacity -inf is never over) */
        over = _mm_cmpgt_pd(_mm_load_pd(&pc->hot_bw_tb[j]), need);
        hot = _mm_setr_pd(hot_month[pc->hot_kind_at[j]], hot_month[pc->hot_kind_at[j + 1]]);
        hot = _mm_or_pd(_mm_and_pd(over, _mm_load_pd(&pc->hot_bw_month_usd[j])), _mm_andnot_pd(over, hot));
        total = _mm_add_pd(total, _mm_mul_pd(hot, months));
        total = _mm_add_pd(total, _mm_mul_pd(_mm_load_pd(&pc->cache_month_usd[j]), months));
        u = _mm_mul_pd(warm, months);
        total = _mm_add_pd(total, _mm_and_pd(_mm_or_pd(cols_mask(pc->warm_always, j), _mm_cmpge_pd(d, one)), u));
        u = _mm_mul_pd(cold, months);
        total = _mm_add_pd(total, _mm_and_pd(_mm_and_pd(cols_mask(pc->cold_always, j), _mm_cmpge_pd(d, week)), u));
        _mm_store_pd(&pc->cost[j], total);
        _mm_store_pd(&pc->days[j], d);
        _mm_storel_pd(&cands[i].days, d);
        _mm_storel_pd(&cands[i].cost, total);
        if (i + 1 < nc) {
            _mm_storeh_pd(&cands[i + 1].days, d);
            _mm_storeh_pd(&cands[i + 1].cost, total);
        }
    }
}

/* The candidates whose cost is not above limit, in order, into set (the
 * count returned), from the cost column price_cloud2 just wrote: two
 * comparisons at a time, each as !(cost > limit). */
static int near_from_cols2(const struct engine_price_cols *pc, int nc, double limit, int *set)
{
    const int base = cols_base(pc);
    const __m128d lim = _mm_set1_pd(limit);
    /* by the pair's mask of costs above limit: how many of the two stay */
    static const unsigned char stay[4] = {2, 1, 1, 0};
    int n = 0, i = 0;
    for (; i + 1 < nc; i += 2) {
        int over = _mm_movemask_pd(_mm_cmpgt_pd(_mm_load_pd(&pc->cost[base + i]), lim));
        set[n] = i;                    /* kept when the first stays */
        set[n + !(over & 1)] = i + 1;  /* the second, after it if it stays */
        n += stay[over];
    }
    if (i < nc) {
        set[n] = i;
        n += !(pc->cost[base + i] > limit);
    }
    return n;
}

/* The four-lane path, for a CPU with AVX2 (cpu_avx2): built for it alone
 * (a function attribute; no other code here takes AVX instructions), so
 * a CPU without it never runs them and takes the two-lane path above. */
#define AVX2_FN __attribute__((target("avx2")))

static int cpu_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}

/* One candidate's days and cost as cand_cost's rented branch computes them
 * (engine_run_days, engine_cloud_cost_cand), from its columns at index j,
 * into it and the columns: price_cloud's scalar path. */
static inline void price_one(const struct cloud_cost_memo *m, struct engine_price_cols *pc,
                             struct engine_candidate *cd, int j)
{
    double d = (pc->startup_s[j] + m->tokens / pc->tokens_per_s[j] / pc->goodput[j]) / 86400.0;
    cd->days = pc->days[j] = d;
    cd->cost = pc->cost[j] = engine_cloud_cost_cand(m, cd, d, pc->usd_per_gpu_hour[j]);
}

/* Four doubles, and four masks of all ones or 0 (GCC's vector extension,
 * in AVX2_FN functions one 256-bit register each; built without AVX they
 * would live in memory). A comparison of two v4d is a v4i of masks. */
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));

/* The four masks' sign bits as bits 0..3 (one vmovmskpd; reading the
 * lanes one by one took ~9 instructions): 0 when no lane is set, 15 when
 * all are. */
AVX2_FN static inline int lanes_set(v4i m)
{
    return _mm256_movemask_pd((__m256d)m);
}

/* Days and cost of every candidate of a rented cluster, what cand_cost's
 * rented branch computes (engine_run_days with the tokens the memo holds,
 * then engine_cloud_cost_cand), four candidates at a time from out's
 * price_cols (made ready by price_cloud): the
 * same IEEE operations in the same order on each lane, so the same doubles.
 * - days: (startup + tokens / throughput / goodput) / 86400;
 * - billed hours: engine_ceil(days x 24 - 1e-9), at least 1. For x in
 *   [0, 2^52), (x + 2^52) - 2^52 is x rounded to an integer (to nearest),
 *   and adding 1 when that is below x gives ceil(x), as engine_ceil's
 *   truncation does; the larger of that and 1 is the floor (1 for h = 1
 *   too). A candidate with any other x (negative, huge, NaN) is priced
 *   again by the scalar code after the pass (what the pass wrote for it is
 *   written over), and so are the last nc % 4. There days > 0, so the
 *   months are days / 30;
 * - the bill: 0 + GPU-hours when positive, then hot tier, node cache, warm
 *   and cold tiers, each added when positive (adding +0 instead leaves the
 *   sum as it is: it is never -0), a tier the candidate lacks costing 0 (or
 *   NaN) here, so that it is not added, as it is left out there.
 * No multiply feeds an add
 * as one rounding: neither build enables FMA.
 * For a CPU with AVX2, where the four lanes are one instruction: a memo
 * hit's pricing of ~340 candidates takes ~5.7k instructions here, ~14.5k
 * in price_cloud2. */
AVX2_FN static void price_cloud4(const struct cloud_cost_memo *m, struct engine_recommendation *out)
{
    struct engine_price_cols *pc = &out->price_cols;
    struct engine_candidate *cands = out->candidates;
    int nc = out->n_candidates, i = 0;
    v4i out_of_range = {0, 0, 0, 0};   /* lanes whose x was not in [0, 2^52) */
#define V4(x) ((v4d){(x), (x), (x), (x)})
    const v4d tokens = V4(m->tokens), zero = V4(0.0), one = V4(1.0), big = V4(0x1p52), day_s = V4(86400.0);
    const v4d h24 = V4(24.0), eps = V4(1e-9), d30 = V4(30.0), week = V4(7.0);
    /* Every tier's monthly price here (these two, the hot ones below and
     * in the columns) is 0 where the bill would not add it (not > 0: NaN,
     * none): months is finite and > 0 on the vector path, so price x months
     * is > 0 or (underflow) +0 when price > 0, and +0 when it is 0, where
     * adding +0 leaves the sum (never -0) as it is, as not adding does. */
    const v4d need = V4(m->hot_need_tb);
    const v4d warm = V4(m->warm_month_usd > 0 ? m->warm_month_usd : 0.0);
    const v4d cold = V4(m->cold_month_usd > 0 ? m->cold_month_usd : 0.0);
#undef V4
    /* the hot tier's price for the data by kind (hot_kind_at), 0 for none */
    double hot_month[4];
    hot_month_prices(m, hot_month);

    const int base = cols_base(pc);

    /* the columns' four doubles (or masks) from index k, aligned or not */
#define LOAD(v, col, k) memcpy(&(v), &pc->col[k], sizeof(v))
    for (; i + 4 <= nc; i += 4) {
        const int j = base + i;   /* the four's column index */
        v4d d, x, r, h, qty, months, total, u, hot, col, bw_usd;
        v4i mask, over, always;
        LOAD(x, tokens_per_s, j);
        d = tokens / x;
        LOAD(x, goodput, j);
        d = d / x;
        LOAD(x, startup_s, j);
        d = (x + d) / day_s;
        x = d * h24 - eps;
        out_of_range |= ~((v4i)(x >= zero) & (v4i)(x < big));
        r = (x + big) - big;
        h = r + (v4d)((v4i)(r < x) & (v4i)one);
        mask = (v4i)(h > one);
        h = (v4d)((mask & (v4i)h) | (~mask & (v4i)one));
        LOAD(col, gpus, j);
        qty = h * col;
        LOAD(col, usd_per_gpu_hour, j);
        total = (v4d)((v4i)(qty > zero) & (v4i)(zero + qty * col));
        months = d / d30;
        /* the hot tier: at its bandwidth's capacity when that exceeds the
         * data's, else the kind's price for the data; 0 for no kind (its
         * capacity -inf is never over) */
        LOAD(col, hot_bw_tb, j);
        over = (v4i)(col > need);
        hot = (v4d)_mm256_i32gather_pd(hot_month, _mm_loadu_si128((const __m128i *)(const void *)&pc->hot_kind_at[j]),
                                       8);   /* hot_month[hot_kind_at[j + l]] in lane l */
        LOAD(bw_usd, hot_bw_month_usd, j);
        hot = (v4d)((over & (v4i)bw_usd) | (~over & (v4i)hot));
        total = total + hot * months;
        LOAD(col, cache_month_usd, j);
        total = total + col * months;
        u = warm * months;
        LOAD(always, warm_always, j);
        total = total + (v4d)((always | (v4i)(d >= one)) & (v4i)u);
        u = cold * months;
        LOAD(always, cold_always, j);
        total = total + (v4d)((always & (v4i)(d >= week)) & (v4i)u);
        memcpy(&pc->cost[j], &total, sizeof total);
        memcpy(&pc->days[j], &d, sizeof d);
        for (int l = 0; l < 4; l++) {
            cands[i + l].days = d[l];
            cands[i + l].cost = total[l];
        }
    }
#undef LOAD
    /* a lane out of range anywhere: those candidates again by the scalar
     * code (the same test on the same x) */
    if (out_of_range[0] | out_of_range[1] | out_of_range[2] | out_of_range[3])
        for (int k = 0; k < i; k++) {
            double x = pc->days[base + k] * 24.0 - 1e-9;
            if (!(x >= 0 && x < 0x1p52))
                price_one(m, pc, &cands[k], base + k);
        }
    for (; i < nc; i++)
        price_one(m, pc, &cands[i], base + i);
}

/* The candidates whose cost is not above limit, in order, into set (the
 * count returned), from the cost column price_cloud just wrote: four
 * comparisons at a time, each as !(cost > limit), passing over a four all
 * above it (most are). */
AVX2_FN static int near_from_cols4(const struct engine_price_cols *pc, int nc, double limit, int *set)
{
    const int base = cols_base(pc);
    const v4d lim = {limit, limit, limit, limit};
    int n = 0, i = 0;
    for (; i + 4 <= nc; i += 4) {
        v4d k;
        v4i over;
        memcpy(&k, &pc->cost[base + i], sizeof k);
        over = (v4i)(k > lim);
        if (lanes_set(over) == 15)
            continue;
        for (int l = 0; l < 4; l++) {
            set[n] = i + l;
            n += !over[l];
        }
    }
    for (; i < nc; i++) {
        set[n] = i;
        n += !(pc->cost[base + i] > limit);
    }
    return n;
}

/* What price_cloud2 and price_cloud4 read besides the columns: the memo's
 * values, as their bits (the size classes, which the columns were made
 * for, too). */
static void price_key(const struct cloud_cost_memo *m, unsigned long long key[8])
{
    const double v[7] = {m->tokens,           m->hot_need_tb,    m->hot_month_usd[0], m->hot_month_usd[1],
                         m->hot_month_usd[2], m->warm_month_usd, m->cold_month_usd};
    _Static_assert(sizeof v + sizeof key[0] == sizeof ((struct engine_price_cols *)0)->priced_key, "one key");
    memcpy(key, v, sizeof v);
    key[7] = (unsigned long long)(m->big10 != 0) | (unsigned long long)(m->big100 != 0) << 1;
}

/* Days and cost of every candidate of a rented cluster into the candidates
 * and the columns (price_cloud4 with AVX2, else price_cloud2; wide says
 * which), the columns made ready first. Columns that were not made again
 * and were last priced from the same values (priced_key: all these read
 * of the request) hold the same days and costs already: the candidates
 * get those, a copy where the pricing is a few divisions, a dozen
 * additions and masks per candidate. 0, with nothing priced, when a
 * candidate's GPU is not in the catalog. */
static int price_cloud(const struct catalog *c, const struct cloud_cost_memo *m, struct engine_recommendation *out,
                       int wide)
{
    struct engine_price_cols *pc = &out->price_cols;
    struct engine_candidate *cands = out->candidates;
    const int nc = out->n_candidates, base = cols_base(pc);
    unsigned long long key[8];
    if (nc <= 0)
        return 1;
    if (!cols_ready(c, m, out, base))
        return 0;
    price_key(m, key);
    if (pc->priced && memcmp(pc->priced_key, key, sizeof key) == 0) {
        /* two candidates at a time: each one's days and cost side by side
         * in one store */
        _Static_assert(offsetof(struct engine_candidate, cost) == offsetof(struct engine_candidate, days) + 8,
                       "days, then cost");
        int i = 0;
        for (; i + 2 <= nc; i += 2) {
            __m128d d = _mm_load_pd(&pc->days[base + i]), k = _mm_load_pd(&pc->cost[base + i]);
            _mm_storeu_pd(&cands[i].days, _mm_unpacklo_pd(d, k));
            _mm_storeu_pd(&cands[i + 1].days, _mm_unpackhi_pd(d, k));
        }
        if (i < nc) {
            cands[i].days = pc->days[base + i];
            cands[i].cost = pc->cost[base + i];
        }
        return 1;
    }
    pc->priced = 0;
    if (wide)
        price_cloud4(m, out);
    else
        price_cloud2(m, out);
    memcpy(pc->priced_key, key, sizeof key);
    pc->priced = 1;
    return 1;
}
#endif

static void limits_free(struct limits *l)
{
    memset(l, 0, sizeof *l);
    l->zero = -1;
    l->recompute = -1;
    l->offload = -1;
}

/* engine_run_fixed of the search's clusters at fail scale 1 (start-up,
 * goodput, checkpoint interval), which reads the GPU type only through its
 * PCIe generation: kept per search by GPU count, node count and generation
 * in memo->run_fixed (most GPU types share a count and a generation with
 * another), the same doubles for the same inputs. */
static void run_fixed_at(struct engine_layout_memo *m, const struct catalog *c, const struct eval_ctx *ctx,
                         const struct engine_gpu *g, int n, int nodes, int per_node, struct engine_candidate *out)
{
    /* the multiplicative hash's top bits: GPU counts are mostly multiples
     * of 8, which a product's low bits do not spread */
    _Static_assert(ENGINE_RUN_FIXED_SLOTS == 128, "7 bits");
    unsigned h = (((unsigned)n * 1021u + (unsigned)nodes * 31u + (unsigned)g->pcie_gen) * 2654435761u) >> 25;
    struct engine_run_fixed_slot *sl = NULL;
    struct run_time rt;
    for (int k = 0; k < 8; k++) {
        struct engine_run_fixed_slot *x = &m->run_fixed[(h + (unsigned)k) % ENGINE_RUN_FIXED_SLOTS];
        if (x->n == n && x->nodes == nodes && x->gen == g->pcie_gen) {
            out->startup_s = x->startup_s;
            out->goodput = x->goodput;
            out->ckpt_interval_s = x->interval_s;
            out->cache_month_usd = x->cache_month_usd;
            return;
        }
        if (x->n == 0) {
            sl = x;
            break;
        }
    }
    rt = engine_run_fixed(ctx, g, n, nodes, 1.0);
    out->startup_s = rt.startup_s;
    out->goodput = rt.gp.goodput;
    out->ckpt_interval_s = rt.gp.interval_s;
    out->cache_month_usd = engine_cloud_cache_month_usd(c, ctx, nodes, per_node);
    if (sl) {
        sl->cache_month_usd = out->cache_month_usd;
        sl->n = n;
        sl->nodes = nodes;
        sl->gen = g->pcie_gen;
        sl->startup_s = rt.startup_s;
        sl->goodput = rt.gp.goodput;
        sl->interval_s = rt.gp.interval_s;
    }
}

/* Keeps a scored cluster with its start-up and goodput (engine_run_fixed)
 * and the token-free parts of its rented bill (engine_cloud_cost_fixed),
 * which every later pricing of it reuses. rf: the search's memory, whose
 * run_fixed it uses (NULL: none). Inline: ~320 a cold request. */
static inline __attribute__((always_inline)) void cand_keep(const struct catalog *c, const struct eval_ctx *ctx,
                                                            struct engine_candidate *out, const struct cand *cd,
                                                            struct engine_layout_memo *rf)
{
    const struct engine_gpu *g = &c->gpus[cd->gi];
    if (rf) {
        /* per_node = n / nodes in every cluster of the search, so the key
         * (n, nodes) gives the node cache's shape too */
        run_fixed_at(rf, c, ctx, g, cd->n, cd->nodes, cd->per_node, out);
    } else {
        struct run_time rt = engine_run_fixed(ctx, g, cd->n, cd->nodes, 1.0);
        out->startup_s = rt.startup_s;
        out->goodput = rt.gp.goodput;
        out->ckpt_interval_s = rt.gp.interval_s;
        out->cache_month_usd = engine_cloud_cache_month_usd(c, ctx, cd->nodes, cd->per_node);
    }
    out->gi = cd->gi;
    out->per_node = cd->per_node;
    out->nodes = cd->nodes;
    out->n = cd->n;
    out->par = cd->par;
    out->fabric_gbps = cd->fabric_gbps;
    out->tokens_per_s = cd->tokens_per_s;
    out->mem_gib = cd->mem_gib;
    out->days = cd->days;
    out->cost = cd->cost;
    engine_cloud_cost_hot(c, ctx, out);   /* engine_cloud_cost_fixed, its cache part above */
}

/* A tier's plan for a candidate, before plan_complete. Only the members
 * before the lists are cleared (1.2 KB of the 18): the lists (expectations,
 * rationale, warnings, bill of materials) are valid up to their counts,
 * which start at 0 here, and every entry is written whole before it is
 * counted; nobody reads past a count (test_engine_golden prices into tiers
 * full of 0xa5 bytes and compares whole answers). Clearing all of it cost
 * more than the rest of the pricing of a cluster. */
static void plan_from_cand(const struct catalog *c, const struct engine_candidate *cd, struct engine_plan *pl)
{
    const struct engine_gpu *g = &c->gpus[cd->gi];
    memset(pl, 0, offsetof(struct engine_plan, expectations));
    pl->n_expectations = 0;
    pl->n_rationale = 0;
    pl->n_warnings = 0;
    pl->n_bom = 0;
    pl->bom_total_usd = 0;
    pl->feasible = 1;
    pl->need_budget_usd = NAN;
    pl->need_deadline_days = NAN;
    pl->gpu_index = cd->gi;
    engine_copy_str(pl->gpu_id, sizeof pl->gpu_id, g->id);
    engine_copy_str(pl->gpu_name, sizeof pl->gpu_name, g->name);
    pl->count = cd->n;
    pl->per_node = cd->per_node;
    pl->nodes = cd->nodes;
    pl->par = cd->par;
    pl->fabric_gbps_per_gpu = cd->fabric_gbps;
    pl->fabric_kind = FABRIC_NONE;
}

/* The workload with the four inputs the pricing reads and the search does
 * not blanked, as plan memo slots are keyed (the recommendation's blank_w),
 * and a context on it, made on the first miss: plan_cluster runs on it, so
 * it cannot depend on them. */
struct blank_ctx {
    const struct engine_workload *w;
    struct eval_ctx ctx;
    int ready;
    /* the tiers the last pricing priced for this tokens_b and dataset_tb
     * (bit t): where plan_for_cand looks for another tier's plan */
    unsigned same;
};

/* engine.h. */
int engine_workload_blanked_eq(const struct engine_workload *a, const struct engine_workload *b)
{
    static const size_t at[] = {offsetof(struct engine_workload, tokens_b),
                                offsetof(struct engine_workload, deadline_days),
                                offsetof(struct engine_workload, budget_usd),
                                offsetof(struct engine_workload, dataset_tb)};
    const char *pa = (const char *)a, *pb = (const char *)b;
    size_t from = 0;
    _Static_assert(offsetof(struct engine_workload, tokens_b) < offsetof(struct engine_workload, deadline_days) &&
                       offsetof(struct engine_workload, deadline_days) <
                           offsetof(struct engine_workload, budget_usd) &&
                       offsetof(struct engine_workload, budget_usd) < offsetof(struct engine_workload, dataset_tb),
                   "the four in this order");
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        unsigned long long bits;
        memcpy(&bits, pb + at[i], sizeof bits);
        if (bits != 0 || memcmp(pa + from, pb + from, at[i] - from) != 0)
            return 0;
        from = at[i] + sizeof(double);
    }
    return memcmp(pa + from, pb + from, sizeof *a - from) == 0;
}

/* What the tier choice (engine_recommend_price after plan_for_cand) writes
 * in a tier's plan, back to the slot's plan (src): feasible, the needs and
 * why (plan_cluster and plan_priced write none of them, so the slot's are
 * what a pricing leaves there), and the rationale count (note_near_tie's
 * note goes after the slot's entries). It writes nothing else of a plan;
 * a new write there must be undone here too (test_engine's
 * tiers_priced_again_for_the_same_tokens_equal_tiers_priced_afresh). */
static void tier_choice_undo(struct engine_plan *pl, const struct engine_plan *src)
{
    pl->feasible = src->feasible;
    memcpy(pl->why, src->why, sizeof pl->why);
    pl->need_budget_usd = src->need_budget_usd;
    pl->need_deadline_days = src->need_deadline_days;
    pl->n_rationale = src->n_rationale;
}

/* dst's lists' counts (and the bill's total) as src's: the copies below
 * fill the entries first. */
static inline void plan_counts_copy(struct engine_plan *dst, const struct engine_plan *src)
{
    dst->n_expectations = src->n_expectations;
    dst->n_rationale = src->n_rationale;
    dst->n_warnings = src->n_warnings;
    dst->n_bom = src->n_bom;
    dst->bom_total_usd = src->bom_total_usd;
}

/* dst = src up to its lists' counts, each entry whole: a tier's plan into
 * another, where the whole struct (18 KB) is mostly past the counts. */
static void plan_copy_whole(struct engine_plan *dst, const struct engine_plan *src)
{
    memcpy(dst, src, offsetof(struct engine_plan, expectations));
    memcpy(dst->expectations, src->expectations, sizeof src->expectations[0] * (size_t)src->n_expectations);
    memcpy(dst->rationale, src->rationale, sizeof src->rationale[0] * (size_t)src->n_rationale);
    memcpy(dst->warnings, src->warnings, sizeof src->warnings[0] * (size_t)src->n_warnings);
    memcpy(dst->bom, src->bom, sizeof src->bom[0] * (size_t)src->n_bom);
    plan_counts_copy(dst, src);
}

/* dst = src up to src's lists' counts: a slot's plan into a tier without
 * moving the unused rest (18 KB a plan; the texts end at their NUL, and
 * the slot knows their lengths, text_len). The texts of the rationale
 * entries plan_priced writes next (the slot's fx.r_*) are left out: it
 * writes each whole, NUL included, whatever the entry held.
 * held: dst holds this slot's plan as the last pricing left it (tier_from).
 * A pricing writes a tier's members before the lists, its bill, the texts
 * of those rationale entries, rationale entries after the slot's (the
 * near-tie note) and the warnings from the run-length warning's place on
 * (fx.warn_at: plan_priced moves the later ones down); the rest of the
 * lists (the expectations, every rationale rule, the other rationale texts
 * and the warnings before that place) it never writes, so they are still
 * the slot's, and only the parts it writes are copied. */
static void plan_copy_counted(struct engine_plan *dst, const struct engine_plan_memo *slot, int held)
{
    const struct engine_plan *src = &slot->plan;
    const int rewritten[] = {slot->fx.r_flops, slot->fx.r_days, slot->fx.r_scale, slot->fx.r_data, slot->fx.r_cost};
    unsigned long long skip = 0;
    int w0 = 0;
    memcpy(dst, src, offsetof(struct engine_plan, expectations));
    if (held) {
        w0 = slot->fx.warn_at >= 0 && slot->fx.warn_at < src->n_warnings ? slot->fx.warn_at : src->n_warnings;
    } else {
        for (size_t k = 0; k < sizeof rewritten / sizeof rewritten[0]; k++)
            if (rewritten[k] >= 0 && rewritten[k] < 64)
                skip |= 1ULL << rewritten[k];
        memcpy(dst->expectations, src->expectations, sizeof src->expectations[0] * (size_t)src->n_expectations);
        for (int i = 0; i < src->n_rationale; i++) {
            memcpy(dst->rationale[i].rule, src->rationale[i].rule, sizeof dst->rationale[i].rule);
            if (!(i < 64 && (skip >> i & 1)))
                memcpy(dst->rationale[i].text, src->rationale[i].text, (size_t)slot->text_len[i] + 1);
        }
    }
    dst->n_expectations = src->n_expectations;
    dst->n_rationale = src->n_rationale;
    for (int i = w0; i < src->n_warnings; i++)
        memcpy(dst->warnings[i], src->warnings[i], (size_t)slot->text_len[PLAN_RATIONALE_MAX + i] + 1);
    dst->n_warnings = src->n_warnings;
    dst->n_bom = 0;
    dst->bom_total_usd = 0;
}

/* A tier's plan for candidate cd: plan_cluster's part from the
 * recommendation's plan memo when a slot holds it for this catalog, this
 * workload less the four pricing inputs and this cluster and layout (else
 * completed on the blanked workload and kept in the least recently used
 * slot, a new fill), then plan_priced for the full workload. The same
 * bytes as plan_from_cand + plan_complete: plan_complete is these two
 * steps. Tier t (pl) then holds the slot's fill (tier_from). Where the
 * tier, or another one, holds that fill priced for the same tokens_b and
 * dataset_tb already (tier_from), the plan is that one, less what the
 * tier choice wrote (tier_choice_undo): no plan_priced. */
static struct engine_text_memo *plan_for_cand(const struct catalog *c, const struct eval_ctx *ctx,
                                              struct blank_ctx *b, struct engine_recommendation *out,
                                              const struct engine_candidate *cd, int t)
{
    struct engine_plan *pl = &out->tiers[t];
    struct engine_tier_from *from = &out->tier_from[t];
    struct engine_plan_memo *slot = NULL, *victim = &out->plan_memo[0];
    for (int i = 0; i < ENGINE_PLAN_MEMO_SLOTS; i++) {
        struct engine_plan_memo *s = &out->plan_memo[i];
        if (s->catalog == c && s->gi == cd->gi && s->n == cd->n && s->per_node == cd->per_node &&
            s->nodes == cd->nodes && memcmp(&s->par, &cd->par, sizeof cd->par) == 0 &&
            memcmp(&s->fabric_gbps, &cd->fabric_gbps, sizeof cd->fabric_gbps) == 0 &&
            (s->w_stamp == out->blank_stamp || memcmp(&s->w, b->w, sizeof *b->w) == 0)) {
            s->w_stamp = out->blank_stamp;   /* b->w is blank_w */
            slot = s;
            break;
        }
        if (s->used < victim->used)
            victim = s;
    }
    if (!slot) {
        slot = victim;
        if (!b->ready) {
            eval_ctx_init(&b->ctx, &b->w->model, b->w);
            b->ready = 1;
        }
        plan_from_cand(c, cd, &slot->plan);
        plan_cluster(c, &b->ctx, &slot->plan, NULL, &slot->fx, slot->cluster_texts);
        for (int i = 0; i < slot->plan.n_rationale; i++)
            slot->text_len[i] = (unsigned short)strnlen(slot->plan.rationale[i].text, PLAN_TEXT_MAX - 1);
        for (int i = 0; i < slot->plan.n_warnings; i++)
            slot->text_len[PLAN_RATIONALE_MAX + i] = (unsigned short)strnlen(slot->plan.warnings[i], PLAN_TEXT_MAX - 1);
        slot->catalog = c;
        slot->w = *b->w;
        slot->w_stamp = out->blank_stamp;
        slot->gi = cd->gi;
        slot->n = cd->n;
        slot->per_node = cd->per_node;
        slot->nodes = cd->nodes;
        slot->par = cd->par;
        slot->fabric_gbps = cd->fabric_gbps;
        slot->filled = ++out->plan_memo_tick;
    }
    slot->used = ++out->plan_memo_tick;
    const int held = from->slot == slot && from->filled == slot->filled && slot->filled != 0;
    const unsigned long long tokens_bits = double_bits(ctx->w->tokens_b), dataset_bits = double_bits(ctx->w->dataset_tb);
    if (held && from->tokens_bits == tokens_bits && from->dataset_bits == dataset_bits) {
        /* plan_priced would write what it wrote there for the same inputs */
        tier_choice_undo(pl, &slot->plan);
        return slot->texts;
    }
    /* Another tier holding the slot's fill priced for the same inputs (the
     * last pricing showed the cluster in another tier): its plan, less what
     * a tier choice wrote in it (this pricing's comes after every tier's
     * plan is made, so a tier it made already has none). */
    for (int u = 0; u < TIER_COUNT && (b->same & ~(1u << t)) != 0; u++) {
        const struct engine_tier_from *fu = &out->tier_from[u];
        if (u != t && fu->slot == slot && fu->filled == slot->filled && slot->filled != 0 &&
            fu->tokens_bits == tokens_bits && fu->dataset_bits == dataset_bits) {
            plan_copy_whole(pl, &out->tiers[u]);
            *from = *fu;
            tier_choice_undo(pl, &slot->plan);
            return slot->texts;
        }
    }
    plan_copy_counted(pl, slot, held);
    from->slot = slot;
    from->filled = slot->filled;
    from->tokens_bits = tokens_bits;
    from->dataset_bits = dataset_bits;
    plan_priced(c, ctx, pl, &slot->fx, slot->texts);
    return slot->texts;
}

/* Tier dst shows the plan tier src (t_src) got from plan_for_cand in this
 * pricing: src's copy, and dst takes its tier_from. Where dst holds the
 * same slot's fill (tier_from), the parts no pricing writes are equal
 * already, and only the members before the lists, the counts and what
 * plan_priced writes in the lists (the texts of the slot's fx.r_*
 * entries, the warnings from fx.warn_at on, the bill) are copied; where
 * dst's plan was also priced for the same tokens_b and dataset_tb, those
 * list parts are equal too (plan_for_cand says why). Else all of it: an
 * 18 KB plan, much of it past the lists' counts. */
static void tier_copy(struct engine_recommendation *out, int t_dst, int t_src)
{
    struct engine_plan *dst = &out->tiers[t_dst];
    const struct engine_plan *src = &out->tiers[t_src];
    struct engine_tier_from *fd = &out->tier_from[t_dst];
    const struct engine_tier_from *fs = &out->tier_from[t_src];
    const struct engine_plan_memo *slot = fs->slot;
    if (!slot || fd->slot != slot || fd->filled != fs->filled || fs->filled == 0) {
        plan_copy_whole(dst, src);
        *fd = *fs;
        return;
    }
    memcpy(dst, src, offsetof(struct engine_plan, expectations));
    if (fd->tokens_bits != fs->tokens_bits || fd->dataset_bits != fs->dataset_bits) {
        const int rewritten[] = {slot->fx.r_flops, slot->fx.r_days, slot->fx.r_scale, slot->fx.r_data,
                                 slot->fx.r_cost};
        int w0 = slot->fx.warn_at >= 0 && slot->fx.warn_at < src->n_warnings ? slot->fx.warn_at : src->n_warnings;
        for (size_t k = 0; k < sizeof rewritten / sizeof rewritten[0]; k++)
            if (rewritten[k] >= 0 && rewritten[k] < src->n_rationale)
                memcpy(dst->rationale[rewritten[k]].text, src->rationale[rewritten[k]].text,
                       sizeof dst->rationale[0].text);
        memcpy(dst->warnings[w0], src->warnings[w0], sizeof dst->warnings[0] * (size_t)(src->n_warnings - w0));
        memcpy(dst->bom, src->bom, sizeof dst->bom[0] * (size_t)src->n_bom);
    }
    plan_counts_copy(dst, src);
    *fd = *fs;
}

static void plan_empty(struct engine_plan *pl, const char *why)
{
    memset(pl, 0, sizeof *pl);
    pl->feasible = 0;
    pl->gpu_index = -1;
    pl->need_budget_usd = NAN;
    pl->need_deadline_days = NAN;
    pl->intra_node = "pcie";
    pl->topology = "single-node";
    pl->oversubscription = "1:1";
    pl->recompute_name = "none";
    snprintf(pl->why, sizeof pl->why, "%s", why);
}

/* Costs within 3% are a tie: the cost model's own spread (prices, MFU) is far
 * wider, so simplicity decides. */
#define NEAR_TIE 0.03

/* A scan's pick so far (i -1: none) with its days and cost beside it, so
 * that a comparison reads no candidate but the new one (the picked one is
 * not written again). */
struct pick {
    int i;
    double days, cost;
};

static void pick(struct pick *p, int i, double days, double cost)
{
    p->i = i;
    p->days = days;
    p->cost = cost;
}

/* Whether days and cost are cheaper than the pick, the faster of equal
 * costs; the first of equals stays. */
static int cheaper(const struct pick *p, double days, double cost)
{
    return p->i < 0 || cost < p->cost || (cost == p->cost && days < p->days);
}

/* The picks the pricing makes from days and costs alone, in one pass in
 * candidate order, each the comparisons of its own loop (the tier choice
 * depends on the order of ties):
 * - the cheapest overall and the cheapest within min_days_cap (the
 *   minimum tier's pool is one or the other, by any_short);
 * - the cheapest meeting deadline and budget (recommended);
 * - the cheapest meeting the deadline and the fastest within budget
 *   (what the answer says when nothing meets both);
 * - the fastest overall, first of equals (performance when nothing fits
 *   the budget).
 * The cheapest and the fastest overall take the first candidate whatever
 * it is (no pick yet): given to them before the pass, which then compares
 * with a pick that is always there (candidate 0 against itself changes
 * nothing). */
struct scans {
    struct pick min_all, min_short, rec, cheap_dl, fast_b, fast_all;
    int any_short;
    double deadline, budget, min_days_cap;
};

static inline void scan_cand(struct scans *s, int i, double d, double k)
{
    if (d <= DAYS_CAP)
        s->any_short = 1;
    if (k < s->min_all.cost || (k == s->min_all.cost && d < s->min_all.days))   /* cheaper(), a pick there */
        pick(&s->min_all, i, d, k);
    if (d <= s->min_days_cap && cheaper(&s->min_short, d, k))
        pick(&s->min_short, i, d, k);
    /* recommended's !(d > deadline || k > budget) and the cheapest on
     * time's d <= deadline are both false past the deadline (most
     * candidates of a short one); NaN days take the other branch */
    if (!(d > s->deadline)) {
        if (!(k > s->budget) && cheaper(&s->rec, d, k))
            pick(&s->rec, i, d, k);
        if (d <= s->deadline && (s->cheap_dl.i < 0 || k < s->cheap_dl.cost))
            pick(&s->cheap_dl, i, d, k);
    }
    if (k <= s->budget && (s->fast_b.i < 0 || d < s->fast_b.days))
        pick(&s->fast_b, i, d, k);
    if (d < s->fast_all.days)
        pick(&s->fast_all, i, d, k);
}

#ifdef __SSE2__
/* The smaller of a and b, a NaN b leaving a (INFINITY: none). */
static inline double min_num(double a, double b)
{
    return b < a ? b : a;
}

/* The larger of a and b, a NaN b leaving a (-INFINITY: none yet). */
static inline double max_num(double a, double b)
{
    return b > a ? b : a;
}

/* scan_cand over every candidate from price_cloud's days and cost columns,
 * two at a time (scan_cols2, after price_cloud2) or four (scan_cols4, with
 * AVX2), passing over the pairs or fours that cannot hold a pick's answer.
 * Without NaN days or costs every pick compares by a strict weak order
 * (cost then days, cost alone, or days alone) and keeps the first of
 * equals, so its answer is the first candidate of its set (its days and
 * budget tests) with the least key, and scan_cand over any subsequence of
 * the candidates that holds every candidate of that least key (in order)
 * gives the same answer. A candidate whose key is above that of one in the
 * set (the pick so far, or a seed: any candidate, e.g. last pricing's
 * pick, tested against the set now) is not one of them: a pair or four
 * goes through scan_cand only when one of them could be (most cannot), and
 * scan_cols4's last nc % 4 always do:
 * - cheapest (overall, within the cap, recommended): cost <= the pick's
 *   and the seed's, or with neither, its days test (the cap or the
 *   deadline); cheapest on time: the same, by the deadline;
 * - fastest within budget: days <= the pick's and the seed's, or with
 *   neither, cost <= budget; fastest overall: days <= the pick's;
 * - any_short: days <= DAYS_CAP until it is set (a seed within it sets
 *   it: it says only whether one is).
 * First one test for all of them (cost <= the largest of their cost limits
 * or days <= the largest of their days limits), then pick by pick. A NaN
 * days or cost anywhere breaks the order: the scan starts again over every
 * candidate as it was (s as given), and seeds are not used. */
enum { SEED_MIN_ALL, SEED_MIN_SHORT, SEED_REC, SEED_CHEAP_DL, SEED_FAST_B, SEED_FAST_ALL, SEEDS };
_Static_assert(SEEDS == ENGINE_PRICE_SEEDS, "a seed for each pick");

/* The seeds' keys where a seed is in its set (else +inf), for either scan;
 * a seed within DAYS_CAP sets any_short. */
static inline void seed_keys(const struct engine_price_cols *pc, int nc, int base, struct scans *s,
                             double *seed_k, double *seed_d)
{
    for (int x = 0; x < SEEDS; x++) {
        int j = pc->seed[x];
        double d, k;
        int in;
        seed_k[x] = seed_d[x] = INFINITY;
        if (j < 0 || j >= nc)
            continue;
        d = pc->days[base + j];
        k = pc->cost[base + j];
        if (isnan(d) || isnan(k))
            continue;
        if (d <= DAYS_CAP)
            s->any_short = 1;
        switch (x) {
        case SEED_MIN_SHORT: in = d <= s->min_days_cap; break;
        case SEED_REC: in = d <= s->deadline && k <= s->budget; break;
        case SEED_CHEAP_DL: in = d <= s->deadline; break;
        case SEED_FAST_B: in = k <= s->budget; break;
        default: in = 1; break;
        }
        if (in) {
            seed_k[x] = k;
            seed_d[x] = d;
        }
    }
}

/* The scans' limits (struct scans above): a cost-keyed pick's is its cost
 * and the seed's, or (none and no seed) +inf with its days test; days-keyed
 * alike; k and d are the largest, for the one test of all picks at once. */
struct scan_limits {
    double all, fast, min_short, rec, cheap_dl, fast_b, k, d, any;
};

static inline struct scan_limits scan_limits(const struct scans *s, const double *seed_k,
                                             const double *seed_d)
{
#define KLIM(p, x) min_num((p).i < 0 ? INFINITY : (p).cost, seed_k[x])
#define DLIM(p, x) min_num((p).i < 0 ? INFINITY : (p).days, seed_d[x])
#define NONE(p, x) ((p).i < 0 && isinf(seed_k[x]))
    struct scan_limits l;
    double k_ = KLIM(s->min_all, SEED_MIN_ALL), d_ = DLIM(s->fast_all, SEED_FAST_ALL);
    l.all = k_;
    l.fast = d_;
    l.min_short = KLIM(s->min_short, SEED_MIN_SHORT);
    l.rec = KLIM(s->rec, SEED_REC);
    l.cheap_dl = KLIM(s->cheap_dl, SEED_CHEAP_DL);
    l.fast_b = DLIM(s->fast_b, SEED_FAST_B);
    k_ = NONE(s->min_short, SEED_MIN_SHORT) ? k_ : max_num(k_, KLIM(s->min_short, SEED_MIN_SHORT));
    d_ = NONE(s->min_short, SEED_MIN_SHORT) ? max_num(d_, s->min_days_cap) : d_;
    k_ = NONE(s->rec, SEED_REC) ? k_ : max_num(k_, KLIM(s->rec, SEED_REC));
    k_ = NONE(s->cheap_dl, SEED_CHEAP_DL) ? k_ : max_num(k_, KLIM(s->cheap_dl, SEED_CHEAP_DL));
    d_ = NONE(s->rec, SEED_REC) || NONE(s->cheap_dl, SEED_CHEAP_DL) ? max_num(d_, s->deadline) : d_;
    d_ = NONE(s->fast_b, SEED_FAST_B) ? d_ : max_num(d_, DLIM(s->fast_b, SEED_FAST_B));
    k_ = NONE(s->fast_b, SEED_FAST_B) ? max_num(k_, s->budget) : k_;
    d_ = s->any_short ? d_ : max_num(d_, DAYS_CAP);
    l.k = k_;
    l.d = d_;
    l.any = s->any_short ? NAN : DAYS_CAP;
#undef NONE
#undef DLIM
#undef KLIM
    return l;
}

/* The scans' limits, each splat across the lanes by SPLAT (a pricing
 * dialect's: _mm_set1_pd for two lanes, V4 for four) into the scan's
 * t_* locals: what scan_cols2 and scan_cols4 ask after every candidate
 * they keep (their LIMITS()). */
#define SCAN_LIMITS_SET(SPLAT)                                                                     \
    do {                                                                                           \
        const struct scan_limits l_ = scan_limits(s, seed_k, seed_d);                              \
        t_all = SPLAT(l_.all);                                                                     \
        t_fast = SPLAT(l_.fast);                                                                   \
        t_short = SPLAT(l_.min_short);                                                             \
        t_rec = SPLAT(l_.rec);                                                                     \
        t_cheap = SPLAT(l_.cheap_dl);                                                              \
        t_fast_b = SPLAT(l_.fast_b);                                                               \
        t_k = SPLAT(l_.k);                                                                         \
        t_d = SPLAT(l_.d);                                                                         \
        t_any = SPLAT(l_.any);                                                                     \
    } while (0)

/* This pricing's picks: the next one's seeds. */
static inline void save_seeds(struct engine_price_cols *pc, const struct scans *s)
{
    pc->seed[SEED_MIN_ALL] = s->min_all.i;
    pc->seed[SEED_MIN_SHORT] = s->min_short.i;
    pc->seed[SEED_REC] = s->rec.i;
    pc->seed[SEED_CHEAP_DL] = s->cheap_dl.i;
    pc->seed[SEED_FAST_B] = s->fast_b.i;
    pc->seed[SEED_FAST_ALL] = s->fast_all.i;
}

static __attribute__((noinline)) void scan_cols2(struct engine_price_cols *pc, int nc, struct scans *s)
{
    const int base = cols_base(pc);
    const __m128d dl = _mm_set1_pd(s->deadline), bud = _mm_set1_pd(s->budget), cap = _mm_set1_pd(s->min_days_cap);
    const struct scans s0 = *s;
    /* the seeds' keys where a seed is in its set (else +inf) */
    double seed_k[SEEDS], seed_d[SEEDS];
    __m128d t_all, t_short, t_rec, t_cheap, t_fast_b, t_fast, t_any, t_k, t_d;
    seed_keys(pc, nc, base, s, seed_k, seed_d);
#define LIMITS() SCAN_LIMITS_SET(_mm_set1_pd)
    LIMITS();
    for (int i = 0; i < nc; i += 2) {
        const __m128d d = _mm_load_pd(&pc->days[base + i]), k = _mm_load_pd(&pc->cost[base + i]);
        const __m128d nan = _mm_cmpunord_pd(d, k);
        __m128d m = _mm_or_pd(nan, _mm_or_pd(_mm_cmple_pd(k, t_k), _mm_cmple_pd(d, t_d)));
        if (_mm_movemask_pd(m) == 0)
            continue;
        if (_mm_movemask_pd(nan) != 0) {   /* a NaN: every candidate, in order */
            *s = s0;
            for (int j = 0; j < nc; j++)
                scan_cand(s, j, pc->days[base + j], pc->cost[base + j]);
            break;
        }
        {
            /* pick by pick (a pick with neither its own nor a seed has
             * limit +inf: its days and budget tests alone) */
            const __m128d on_time = _mm_cmple_pd(d, dl), in_budget = _mm_cmple_pd(k, bud);
            m = _mm_or_pd(_mm_cmple_pd(k, t_all), _mm_and_pd(_mm_cmple_pd(d, cap), _mm_cmple_pd(k, t_short)));
            m = _mm_or_pd(m, _mm_and_pd(on_time, _mm_or_pd(_mm_and_pd(in_budget, _mm_cmple_pd(k, t_rec)),
                                                           _mm_cmple_pd(k, t_cheap))));
            m = _mm_or_pd(m, _mm_and_pd(in_budget, _mm_cmple_pd(d, t_fast_b)));
            m = _mm_or_pd(m, _mm_or_pd(_mm_cmple_pd(d, t_fast), _mm_cmple_pd(d, t_any)));
            if (_mm_movemask_pd(m) == 0)
                continue;
        }
        scan_cand(s, i, pc->days[base + i], pc->cost[base + i]);
        if (i + 1 < nc)
            scan_cand(s, i + 1, pc->days[base + i + 1], pc->cost[base + i + 1]);
        LIMITS();
    }
#undef LIMITS
    save_seeds(pc, s);
}

AVX2_FN static __attribute__((noinline)) void scan_cols4(struct engine_price_cols *pc, int nc, struct scans *s)
{
    const int base = cols_base(pc);
#define V4(x) ((v4d){(x), (x), (x), (x)})
#define LE(a, b) ((v4i)((a) <= (b)))
    const v4d dl = V4(s->deadline), bud = V4(s->budget), cap = V4(s->min_days_cap);
    const struct scans s0 = *s;
    /* the seeds' keys where a seed is in its set (else +inf) */
    double seed_k[SEEDS], seed_d[SEEDS];
    v4d t_all, t_short, t_rec, t_cheap, t_fast_b, t_fast, t_any, t_k, t_d;
    int i = 0, saw_nan = 0;
    seed_keys(pc, nc, base, s, seed_k, seed_d);
#define LIMITS() SCAN_LIMITS_SET(V4)
    LIMITS();
    for (; i + 4 <= nc; i += 4) {
        v4d d, k;
        v4i m, nan;
        memcpy(&d, &pc->days[base + i], sizeof d);
        memcpy(&k, &pc->cost[base + i], sizeof k);
        /* cost <= t_k or days <= t_d, or either NaN (the limits never
         * are): not both above */
        m = ~((v4i)(k > t_k) & (v4i)(d > t_d));
        if (!lanes_set(m))
            continue;
        nan = (v4i)(d != d) | (v4i)(k != k);
        if (lanes_set(nan)) {
            saw_nan = 1;
            break;
        }
        {
            /* pick by pick (a pick with neither its own nor a seed has
             * limit +inf: its days and budget tests alone) */
            const v4i on_time = LE(d, dl), in_budget = LE(k, bud);
            m = LE(k, t_all) | (LE(d, cap) & LE(k, t_short));
            m |= on_time & ((in_budget & LE(k, t_rec)) | LE(k, t_cheap));
            m |= in_budget & LE(d, t_fast_b);
            m |= LE(d, t_fast) | LE(d, t_any);
            if (!lanes_set(m))
                continue;
        }
        for (int l = 0; l < 4; l++)
            scan_cand(s, i + l, d[l], k[l]);
        LIMITS();
    }
    /* the last nc % 4 each through scan_cand (a few more than the pass
     * would take give the same picks); a NaN anywhere: every candidate as
     * it was, in order */
    for (int j = i; j < nc && !saw_nan; j++)
        saw_nan = isnan(pc->days[base + j]) || isnan(pc->cost[base + j]);
    if (saw_nan) {
        *s = s0;
        i = 0;
    }
    for (; i < nc; i++)
        scan_cand(s, i, pc->days[base + i], pc->cost[base + i]);
#undef LIMITS
#undef LE
#undef V4
    save_seeds(pc, s);
}
#endif

/* Fewer nodes, then fewer GPUs, then cheaper. */
static int simpler(const struct engine_candidate *a, const struct engine_candidate *b)
{
    if (a->nodes != b->nodes)
        return a->nodes < b->nodes;
    if (a->n != b->n)
        return a->n < b->n;
    return a->cost < b->cost;
}

/* Says in the plan that a near-tie was settled towards the simpler cluster. */
static void note_near_tie(const struct catalog *c, struct engine_plan *pl, const struct engine_candidate *chosen,
                          const struct engine_candidate *cheapest)
{
    if (chosen == cheapest || (chosen->nodes == cheapest->nodes && chosen->n == cheapest->n))
        return;
    plan_add_rationale(pl, "R33", "the cheapest plan (%d x %s in %d node%s, $%.0f) costs within %.0f%% of this one "
                       "($%.0f with %d GPUs in %d node%s, %.1f%% more): fewer nodes and GPUs are simpler to get and "
                       "operate", cheapest->n, c->gpus[cheapest->gi].id, cheapest->nodes, cheapest->nodes > 1 ? "s" : "",
                       cheapest->cost, 100.0 * NEAR_TIE, chosen->cost, chosen->n, chosen->nodes,
                       chosen->nodes > 1 ? "s" : "", 100.0 * (chosen->cost / cheapest->cost - 1.0));
}

/* Geometric grid of node counts: 1 2 3 4 6 8 12 16 24 32 ... */
static int next_nodes(int x)
{
    if (x < 4)
        return x + 1;
    int p = 1 << (31 - __builtin_clz((unsigned)x));   /* the largest power of two <= x */
    return x == p ? p + p / 2 : p * 2;
}

/* The search's start: every member zero except what is written whole
 * before anyone reads it: the tiers (the pricing writes each whole), the
 * candidates (valid up to n_candidates, each written whole) and the plan
 * memo's plans (a slot is read only when its catalog is set), and the
 * pricing's columns (read only when their tag, set 0 here, matches).
 * Clearing those too was 460 of the 790 KB. A member added to the
 * recommendation is cleared here unless it lies in one of those four. */
static void recommendation_clear(struct engine_recommendation *out)
{
    char *p = (char *)out;
    size_t tiers = offsetof(struct engine_recommendation, tiers);
    size_t cands = offsetof(struct engine_recommendation, candidates);
    size_t memo = offsetof(struct engine_recommendation, plan_memo);
    size_t cols = offsetof(struct engine_recommendation, price_cols);
    memset(p, 0, tiers);
    memset(p + tiers + sizeof out->tiers, 0, cands - tiers - sizeof out->tiers);
    size_t lm = offsetof(struct engine_recommendation, layout_memo);
    memset(p + cands + sizeof out->candidates, 0, lm - cands - sizeof out->candidates);
    /* the layout lists: their layouts are read only through a list */
    layout_memo_empty(&out->layout_memo);
    out->layout_memo.lists = 0;
    out->layout_memo.walked = 0;
    out->layout_memo.cap_entries = ENGINE_LAYOUT_ENTRIES_MAX;
    memset(p + lm + sizeof out->layout_memo, 0, memo - lm - sizeof out->layout_memo);
    for (int i = 0; i < ENGINE_PLAN_MEMO_SLOTS; i++)
        memset(&out->plan_memo[i], 0, offsetof(struct engine_plan_memo, w));
    memset(p + memo + sizeof out->plan_memo, 0, cols - memo - sizeof out->plan_memo);
    out->price_cols.from = 0;   /* its columns are read only for a matching tag */
    memset(p + cols + sizeof out->price_cols, 0, sizeof *out - cols - sizeof out->price_cols);
}

enum status engine_recommend_search(const struct catalog *c, const struct engine_workload *w,
                                    struct engine_recommendation *out, char *err, size_t errlen)
{
    return engine_recommend_search_at(c, w, out, err, errlen, 1);
}

/* What the search reads of one GPU type besides the card: eval_achieved at
 * micro-batch 1, 2, 4 (cp 1) and eval_fill_hw's fabric ratio at rate 0
 * (one node) and at the GPU's usual rate (more). */
struct gpu_search {
    struct gpu_ach ach;
    double rate_multi, ratio_one, ratio_multi;
    /* eval_fill_hw_ratio at the usual rate on full servers, which reads the
     * GPU count only into hw.n: every node grid cluster's but for n; and
     * walker_init_card of it */
    struct eval_hw hw_multi;
    struct walker walker_multi;
};

/* Whether cl is on its GPU type's node grid (full servers, several). */
static int cluster_is_grid(const struct gpu_search *gs, const struct engine_search_cluster *cl)
{
    return cl->nodes > 1 && cl->per_node == gs->hw_multi.per_node;
}

/* The search's hardware for cluster cl: eval_fill_hw on one node (its
 * scale-up link for the NICs) or at the GPU's usual fabric rate. */
static __attribute__((noinline)) void cluster_hw_fill(const struct catalog *c, const struct engine_workload *w,
                                                      const struct gpu_search *gs,
                                                      const struct engine_search_cluster *cl, struct eval_hw *hw)
{
    const struct engine_gpu *g = &c->gpus[cl->gi];

    eval_fill_hw_ratio(hw, g, cl->n, cl->per_node, cl->nodes > 1 ? gs->rate_multi : 0.0,
                       cl->nodes > 1 ? gs->ratio_multi : gs->ratio_one, w, NULL);
    if (cl->nodes <= 1)
        hw->nic_busbw_per_gpu_gbs = node_busbw_gbs(g, cl->per_node);
}

/* (The node grid's copy inline, the rest out of line: most clusters are
 * on the grid, and the fill's calls cost the copy its saved registers.) */
static inline __attribute__((always_inline)) void cluster_hw(const struct catalog *c, const struct engine_workload *w,
                                                             const struct gpu_search *gs,
                                                             const struct engine_search_cluster *cl,
                                                             struct eval_hw *hw)
{
    if (cluster_is_grid(gs, cl)) {
        *hw = gs->hw_multi;
        hw->n = cl->n;
        return;
    }
    cluster_hw_fill(c, w, gs, cl, hw);
}

/* A walk's answer for cluster ci: its count and least memory, and when a
 * layout fits, the candidate in candidates[ci] (engine_recommend_search_at
 * moves it to its place). */
static void cluster_done(const struct catalog *c, const struct eval_ctx *ctx, struct engine_recommendation *out,
                         int ci, int found, struct cand *cd, const struct eval_hw *hw, double min_mem_gib,
                         long scored)
{
    struct engine_search_cluster *cl = &out->layout_memo.clusters[ci];

    cl->found = found;
    cl->scored = scored;
    cl->min_mem_gib = min_mem_gib;
    if (!found)
        return;
    cd->gi = cl->gi;
    cd->per_node = cl->per_node;
    cd->nodes = cl->nodes;
    cd->n = cl->n;
    cand_fabric(c, ctx, cd, hw);
    cand_keep(c, ctx, &out->candidates[ci], cd, &out->layout_memo);
}

/* Cluster ci walked layout by layout (best_layout). */
static void cluster_walk(const struct catalog *c, const struct eval_ctx *ctx, const struct limits *lim,
                         const struct gpu_search *gs, struct engine_recommendation *out, int ci)
{
    struct eval_hw hw;
    struct cand cd;
    double mm;
    long scored = 0;
    int found;

    cluster_hw(c, ctx->w, &gs[out->layout_memo.clusters[ci].gi], &out->layout_memo.clusters[ci], &hw);
    found = best_layout(ctx, &hw, lim, &cd, &mm, &scored);
    cd.from_list = 0;
    cd.have_ref = 0;
    cluster_done(c, ctx, out, ci, found, &cd, &hw, mm, scored);
}

/* The clusters of one GPU count, from the first, ci, along their next:
 * the count's list built once and walked by all of them together as it is
 * built (layout_group_build, group by group up to the largest tp_max among
 * them); when the memo cannot hold it, each walked layout by layout. */
static void count_walk(const struct catalog *c, const struct eval_ctx *ctx, const struct limits *lim,
                       const struct gpu_search *gs, struct engine_recommendation *out, int ci)
{
    struct engine_layout_memo *memo = &out->layout_memo;
    struct engine_search_cluster *cls = memo->clusters;
    struct walker ks[CATALOG_GPUS_MAX];
    struct eval_hw hws[CATALOG_GPUS_MAX];
    struct walk_set ws;
    int idx[CATALOG_GPUS_MAX], nk = 0, fits = 1;
    struct engine_layout_list l;
    const int ctx_nonneg = parts_nonneg(ctx);

    /* at most one cluster of each GPU type has this count: its small
     * servers' counts are below its server size, its node grid's at or
     * above it */
    for (int i = ci; i >= 0 && nk < CATALOG_GPUS_MAX; i = cls[i].next) {
        const struct gpu_search *gt = &gs[cls[i].gi];
        cluster_hw(c, ctx->w, gt, &cls[i], &hws[nk]);
        if (cluster_is_grid(gt, &cls[i]))
            ks[nk] = gt->walker_multi;
        else
            walker_init_card(&ks[nk], &hws[nk], ctx_nonneg);
        walker_init_count(&ks[nk], &hws[nk], &gt->ach);
        idx[nk++] = i;
    }
    /* the list of this count only: the one before it has been read */
    memo->n_entries = 0;
    memo->n_bases = 0;
    memset(&l, 0, sizeof l);
    l.n = cls[ci].n;
    walk_set_init(&ws, ks, nk);
    for (int gx = 0; gx < ENGINE_LAYOUT_TP_GROUPS && fits && walk_set_group(&ws, gx); gx++)
        fits = layout_group_build(ctx, memo, &l, gx, memo->cap_entries, ENGINE_LAYOUT_BASES_MAX, &ws);
    if (!fits) {
        for (int j = 0; j < nk; j++) {
            cluster_walk(c, ctx, lim, gs, out, idx[j]);
            memo->walked++;
        }
        return;
    }
    memo->lists++;
    for (int j = 0; j < nk; j++) {
        struct cand cd;
        if (ks[j].found)
            walker_best(ctx, memo, &ks[j], &gs[cls[idx[j]].gi].ach,
                        !walk_step_kept(ctx, &c->gpus[cls[idx[j]].gi], cls[idx[j]].nodes, &hws[j]), &cd);
        cluster_done(c, ctx, out, idx[j], ks[j].found, &cd, &hws[j], ks[j].min_mem, ks[j].scored);
    }
}

/* The clusters' chains by GPU count, each by GPU memory, largest first
 * (the walkers' plan limits, walk_set_init), from its first cluster:
 * cls[i].next, and in heads the first cluster of each count. The clusters
 * of GPU type gi are cls[first[gi]] up to cls[end[gi]]. Returns how many
 * counts. */
static int count_chains(const struct catalog *c, struct engine_search_cluster *cls, int ncl, const int *first,
                        const int *end, int *heads)
{
    /* open addressing by n, at most half full: each slot holds the first
     * and the last cluster of one count */
    enum { SLOTS_MAX = 4096 };
    _Static_assert(SLOTS_MAX >= 2 * ENGINE_CANDIDATES_MAX, "the table is at most half full");
    int slot_first[SLOTS_MAX], slot_last[SLOTS_MAX], order[CATALOG_GPUS_MAX], nheads = 0;
    unsigned slots = 64;

    for (int gi = 0; gi < c->n_gpus; gi++) {   /* by memory, largest first */
        int j = gi;
        for (; j > 0 && c->gpus[order[j - 1]].memory_gib < c->gpus[gi].memory_gib; j--)
            order[j] = order[j - 1];
        order[j] = gi;
    }
    while (slots < 2u * (unsigned)ncl)
        slots *= 2;
    for (unsigned s = 0; s < slots; s++)
        slot_first[s] = -1;
    for (int o = 0; o < c->n_gpus; o++) {
        for (int i = first[order[o]]; i < end[order[o]]; i++) {
            unsigned h = ((unsigned)cls[i].n * 2654435761u) >> 16 & (slots - 1);
            while (slot_first[h] >= 0 && cls[slot_first[h]].n != cls[i].n)
                h = (h + 1) & (slots - 1);
            cls[i].next = -1;
            if (slot_first[h] < 0) {
                slot_first[h] = i;
                heads[nheads++] = i;
            } else {
                cls[slot_last[h]].next = i;
            }
            slot_last[h] = i;
        }
    }
    return nheads;
}

enum status engine_recommend_search_at(const struct catalog *c, const struct engine_workload *w,
                                       struct engine_recommendation *out, char *err, size_t errlen, int lists)
{
    static const int small_nodes[] = {1, 2, 4, 8};
    struct eval_ctx ctx;
    struct engine_candidate *cands = out->candidates;
    struct engine_search_cluster *cls = out->layout_memo.clusters;
    struct gpu_search gs[CATALOG_GPUS_MAX];
    int cl_first[CATALOG_GPUS_MAX], cl_end[CATALOG_GPUS_MAX];
    int nc = 0, ncl = 0, max_gpus = w->max_gpus > 0 ? w->max_gpus : DEFAULT_MAX_GPUS;
    struct limits lim;
    long evaluated = 0;
    double min_mem_all = INFINITY;
    const char *min_mem_gpu = "";

    if (w->model.layers < 1 || w->model.hidden < 1) {
        snprintf(err, errlen, "model: workload is not resolved");
        return ST_INVALID;
    }
    recommendation_clear(out);
    for (int i = 0; i < ENGINE_RUN_FIXED_SLOTS; i++)
        out->layout_memo.run_fixed[i].n = 0;   /* empty (run_fixed_at reads a slot only by its n) */
    if (lists > 1 && lists < ENGINE_LAYOUT_ENTRIES_MAX)
        out->layout_memo.cap_entries = lists;
    eval_ctx_init(&ctx, &w->model, w);
    eval_ctx_bind_storage(&ctx, c);
    limits_free(&lim);
    out->params_b = ctx.pc.total / 1e9;
    out->active_params_b = ctx.pc.active / 1e9;
    {
        char shape[PLAN_TEXT_MAX];
        if (shape_warning(w, shape, sizeof shape))
            rec_warn(out, "%s", shape);
    }

    /* The clusters, GPU type by GPU type. At most 40 GPU types, each with 3
     * small servers and a node grid of at most 41 steps (max_gpus is at
     * most 1e6), fill fewer than ENGINE_CANDIDATES_MAX: every cluster has a
     * candidate slot of its own. */
    for (int gi = 0; gi < c->n_gpus; gi++) {
        const struct engine_gpu *g = &c->gpus[gi];
        cl_first[gi] = cl_end[gi] = ncl;
        if (!allowed(w, g)) {
            if (g->restricted && w->n_gpus_allowed == 0)
                rec_warn(out, "%s left out: restricted availability (%s); name it in gpus_allowed to plan with it",
                         g->id, g->availability_note);
            continue;
        }
        /* Lower bound on per-GPU memory: the model states (and for LoRA the
         * frozen base) spread over every GPU with ZeRO-3 plus 2 GiB of context. */
        double lb_bytes;
        if (w->task == TASK_LORA || w->task == TASK_QLORA)
            lb_bytes = engine_lora_base_bytes(&w->model, w);
        else
            lb_bytes = engine_model_states_bytes(ctx.pc.total, 3, 1, w->optimizer);
        /* what the walks read of this GPU type besides the card (eval_fill_hw
         * sets the same peak and scales for every count) */
        gs[gi].rate_multi = engine_default_fabric_gbps(g);
        gs[gi].ratio_one = eval_fabric_ratio(c, g, 0.0);
        gs[gi].ratio_multi = eval_fabric_ratio(c, g, gs[gi].rate_multi);
        eval_fill_hw_ratio(&gs[gi].hw_multi, g, 0, g->per_node, gs[gi].rate_multi, gs[gi].ratio_multi, w, NULL);
        walker_init_card(&gs[gi].walker_multi, &gs[gi].hw_multi, parts_nonneg(&ctx));
        {
            struct eval_hw hw1;
            eval_fill_hw(&hw1, g, 1, 1, 0.0, c, w, NULL);
            for (int bi = 0; bi < 3; bi++)
                gs[gi].ach.rate[bi] = eval_achieved(&ctx, &hw1, 1 << bi, 1, &gs[gi].ach.eff[bi]);
        }
        /* Servers smaller than a full one, single node (PCIe cards). */
        for (int si = 0; si < 4; si++) {
            int per_node = small_nodes[si], n = per_node;
            if (per_node < g->per_node_min || per_node >= g->per_node || n > max_gpus)
                continue;
            if (gib_of(lb_bytes / n) + 2.0 > g->memory_gib)
                continue;
            if (ncl < ENGINE_CANDIDATES_MAX)
                cls[ncl++] = (struct engine_search_cluster){.gi = gi, .per_node = per_node, .nodes = 1, .n = n};
        }
        /* Full servers on the geometric node-count grid. A scale-up domain
         * that spans servers (GB200/GB300 NVL72: 18 trays of 4 GPUs on one
         * NVLink Switch fabric) is racked, cabled, sold and in practice
         * rented whole, so such GPUs come in whole domains: 72, 144, 216... */
        int unit = g->scaleup_domain > g->per_node ? g->scaleup_domain / g->per_node : 1;
        for (int k = 1; (long)k * unit * g->per_node <= max_gpus; k = next_nodes(k)) {
            int nodes = k * unit, per_node = g->per_node, n = per_node * nodes;
            if (gib_of(lb_bytes / n) + 2.0 > g->memory_gib)
                continue;
            if (ncl < ENGINE_CANDIDATES_MAX)
                cls[ncl++] = (struct engine_search_cluster){.gi = gi, .per_node = per_node, .nodes = nodes, .n = n};
        }
        cl_end[gi] = ncl;
    }
    /* Each cluster's walk. From the lists, the clusters of one count walk
     * together, count by count; without, each alone, in order. Walks do
     * not read each other (each finds its cluster's fastest layout), so
     * the order changes nothing. */
    if (lists) {
        int heads[ENGINE_CANDIDATES_MAX], nheads = count_chains(c, cls, ncl, cl_first, cl_end, heads);
        for (int h = 0; h < nheads; h++)
            count_walk(c, &ctx, &lim, gs, out, heads[h]);
    } else {
        for (int i = 0; i < ncl; i++)
            cluster_walk(c, &ctx, &lim, gs, out, i);
    }
    /* The candidates in the search's order (GPU type, then cluster size),
     * moved down from their clusters' slots (nc <= i). */
    for (int i = 0; i < ncl; i++) {
        evaluated += cls[i].scored;
        if (cls[i].found) {
            if (nc != i)
                cands[nc] = cands[i];
            nc++;
        } else if (cls[i].min_mem_gib < min_mem_all) {
            min_mem_all = cls[i].min_mem_gib;
            min_mem_gpu = c->gpus[cls[i].gi].id;
        }
    }
    out->configs_evaluated = evaluated;
    out->n_candidates = nc;
    out->min_mem_gib = min_mem_all;
    out->min_mem_gpu = -1;
    for (int gi = 0; gi < c->n_gpus; gi++)
        if (min_mem_gpu == c->gpus[gi].id)
            out->min_mem_gpu = gi;
    return ST_OK;
}

enum status engine_recommend_price(const struct catalog *c, const struct engine_workload *w,
                                   struct engine_recommendation *out, char *err, size_t errlen)
{
    struct eval_ctx ctx;
    struct cloud_cost_memo memo;
    struct blank_ctx blank;
    struct engine_candidate *cands = out->candidates;
    int nc = out->n_candidates, max_gpus = w->max_gpus > 0 ? w->max_gpus : DEFAULT_MAX_GPUS;
    double min_mem_all = out->min_mem_gib;
    const char *min_mem_gpu = out->min_mem_gpu >= 0 && out->min_mem_gpu < c->n_gpus ? c->gpus[out->min_mem_gpu].id : "";
    double deadline = isnan(w->deadline_days) ? DEFAULT_DEADLINE_DAYS : w->deadline_days;
    double budget = isnan(w->budget_usd) ? INFINITY : w->budget_usd;
    /* plan_cost's scratch space while the candidates are priced: a tier
     * the caller's memory already holds, filled for real afterwards. */
    struct engine_plan *scratch = &out->tiers[TIER_PERFORMANCE];

    if (w->model.layers < 1 || w->model.hidden < 1 || nc < 0 || nc > ENGINE_CANDIDATES_MAX) {
        snprintf(err, errlen, "model: workload is not resolved");
        return ST_INVALID;
    }
    eval_ctx_init(&ctx, &w->model, w);
    _Static_assert(sizeof out->storage_by_kind == sizeof ctx.storage_by_kind, "the same rows");
    if (out->storage_cat == c) {
        memcpy(ctx.storage_by_kind, out->storage_by_kind, sizeof ctx.storage_by_kind);
        ctx.storage_cat = c;
    } else {
        eval_ctx_bind_storage(&ctx, c);
        memcpy(out->storage_by_kind, ctx.storage_by_kind, sizeof out->storage_by_kind);
        out->storage_cat = c;
    }
    engine_cloud_cost_memo_init(&memo, c, &ctx);
    /* A bought cluster is priced on the scratch plan (cand_cost's other
     * branch), which plan_cost_at reads beyond the members cand_cost sets:
     * cleared here, so pricing reads nothing the caller's memory held
     * before. Every tier is then written whole up to its lists' counts
     * below (plan_for_cand, tier_copy, plan_empty). */
    if (w->pricing != PRICING_CLOUD) {
        out->tier_from[TIER_PERFORMANCE].slot = NULL;
        memset(scratch, 0, sizeof *scratch);
    }
    /* Each candidate priced, then the scans that need nothing but the
     * prices in one pass (struct scans). */
    int imin = -1, irec = -1, iperf = -1, any_short = 0;
    double min_days_cap = deadline > DAYS_CAP ? deadline : DAYS_CAP;
    struct scans sc = {{-1, 0, 0}, {-1, 0, 0}, {-1, 0, 0}, {-1, 0, 0}, {-1, 0, 0}, {-1, 0, 0}, 0, deadline, budget,
                       min_days_cap};
    const int cloud = w->pricing == PRICING_CLOUD;
    const struct cloud_cost_memo mm = memo;   /* a copy no store into a candidate can touch */
    /* Every candidate's days and cost first: the rented ones two at a time
     * (price_cloud, where SSE2 is), the others one by one; then the scans,
     * over the stored values. */
#ifdef __SSE2__
    const int priced = cloud;
    const int wide = priced && out->price_cols.lanes != 2 && cpu_avx2();   /* four lanes at a time, else two */
    if (priced && !price_cloud(c, &mm, out, wide)) {
        snprintf(err, errlen, "search result does not match the catalog");
        return ST_INVALID;
    }
#else
    const int priced = 0;
#endif
    for (int i = 0; i < nc && !priced; i++) {
        if (cands[i].gi < 0 || cands[i].gi >= c->n_gpus) {
            snprintf(err, errlen, "search result does not match the catalog");
            return ST_INVALID;
        }
        if (cloud) {
            /* cand_cost's rented branch, with what it reads of the request
             * in locals (tokens x 1e9 as engine_run_days computes it) */
            const struct engine_candidate *cd = &cands[i];
            double d = (cd->startup_s + mm.tokens / cd->tokens_per_s / cd->goodput) / 86400.0;
            cands[i].cost = engine_cloud_cost_cand(&mm, cd, d, c->gpus[cd->gi].cloud_usd_per_gpu_hour);
            cands[i].days = d;
        } else {
            cand_cost(c, &ctx, &cands[i], scratch, &memo);
        }
    }
    if (nc > 0) {
        pick(&sc.min_all, 0, cands[0].days, cands[0].cost);
        pick(&sc.fast_all, 0, cands[0].days, cands[0].cost);   /* as `ifast = 0` then i = 1.. did */
    }
#ifdef __SSE2__
    if (priced)
        (wide ? scan_cols4 : scan_cols2)(&out->price_cols, nc, &sc);
#endif
    for (int i = 0; i < nc && !priced; i++)
        scan_cand(&sc, i, cands[i].days, cands[i].cost);
    irec = sc.rec.i;
    any_short = sc.any_short;
    struct pick min_all = sc.min_all, min_short = sc.min_short;
    int icheap_dl = sc.cheap_dl.i, ifast_b = sc.fast_b.i, ifast_all = sc.fast_all.i;

    if (nc == 0) {
        char why[PLAN_TEXT_MAX];
        if (isinf(min_mem_all))
            engine_fmt(why, sizeof why, "the model does not fit on any allowed GPU within max_gpus %d (R1, F5)",
                     max_gpus);
        else
            engine_fmt(why, sizeof why,
                     "the model does not fit within max_gpus %d: the leanest layout needs %.1f GiB per GPU "
                     "on %s (R1, F5, F6)", max_gpus, min_mem_all, min_mem_gpu);
        for (int t = 0; t < TIER_COUNT; t++) {
            plan_empty(&out->tiers[t], why);
            out->tier_from[t].slot = NULL;
        }
        rec_warn(out, "%s", why);
        return ST_OK;
    }

    /* Every candidate's days and cost are the ones its plan reports
     * (cand_price), so the tiers below are ordered by construction:
     * - recommended: cheapest meeting deadline and budget;
     * - performance: fastest within budget (or 1.5x recommended), a set that
     *   holds recommended, so never slower than it;
     * - minimum: cheapest that fits, over a set (plans within 3 years when
     *   any exist, or within the deadline) that holds both other tiers, so
     *   never dearer than either.
     * Near-ties (NEAR_TIE) may move recommended and minimum to a simpler
     * cluster, never above the cost of a tier they must undercut. */
#define IN_MIN_POOL(i) (!any_short || cands[i].days <= min_days_cap)
    imin = any_short ? min_short.i : min_all.i;
    /* The three scans below (recommended's and minimum's near-ties,
     * performance) each pass over a candidate that costs more than their
     * cost limit: recommended's near = cost(irec) x (1 + NEAR_TIE); the
     * performance cap, the budget or else 1.5 x a cost no higher than that
     * near (the near-tie's pick costs at most near, or is irec) or 1.5 x
     * cost(imin);
     * minimum's near, at most cost(imin) x (1 + NEAR_TIE). So they scan, in
     * the same order, only the candidates costing no more than the largest
     * of those (and any whose cost is NaN, which the performance scan does
     * not pass over): the same picks, a few candidates instead of all ~340
     * three times. A NaN limit (a NaN cost picked) keeps every candidate. */
    int near_set[ENGINE_CANDIDATES_MAX], n_near = 0;
    {
        double near_rec = irec >= 0 ? cands[irec].cost * (1.0 + NEAR_TIE) : -INFINITY;
        /* recommended after its near-tie costs at most near_rec, or is the
         * cheapest itself (more only if costs were negative) */
        double rec_top = irec >= 0 && cands[irec].cost > near_rec ? cands[irec].cost : near_rec;
        double cap = !isinf(budget) ? budget : 1.5 * (irec >= 0 ? rec_top : cands[imin].cost);
        double near_min = cands[imin].cost * (1.0 + NEAR_TIE);
        double limit = near_rec > cap ? near_rec : cap;
        if (near_min > limit)
            limit = near_min;
        if (isnan(near_rec) || isnan(cap) || isnan(near_min) || isnan(budget))
            limit = INFINITY;
#ifdef __SSE2__
        if (priced)
            n_near = (wide ? near_from_cols4 : near_from_cols2)(&out->price_cols, nc, limit, near_set);
#endif
        for (int i = 0; i < nc && !priced; i++) {
            near_set[n_near] = i;
            n_near += !(cands[i].cost > limit);
        }
    }
    /* ---- recommended: cheapest meeting deadline and budget (irec above). */
    int imin_cheapest = imin, irec_cheapest = -1;
    /* Near-ties (within NEAR_TIE of the cheapest) go to the plan with the
     * fewest nodes, then the fewest GPUs: fewer machines to get, wire and
     * keep healthy (R33: do not over-design). The simpler plan must still
     * meet the deadline and budget. */
    irec_cheapest = irec;
    if (irec >= 0) {
        double near = cands[irec].cost * (1.0 + NEAR_TIE);
        for (int k = 0; k < n_near; k++) {
            int i = near_set[k];
            if (cands[i].days <= deadline && cands[i].cost <= budget && cands[i].cost <= near &&
                simpler(&cands[i], &cands[irec]))
                irec = i;
        }
    }
    /* ---- performance: fastest within budget (or 1.5x recommended). */
    double perf_cap = budget;
    if (isinf(perf_cap))
        perf_cap = 1.5 * (irec >= 0 ? cands[irec].cost : cands[imin].cost);
    for (int k = 0; k < n_near; k++) {
        int i = near_set[k];
        if (cands[i].cost > perf_cap)
            continue;
        if (iperf < 0 || cands[i].days < cands[iperf].days ||
            (cands[i].days == cands[iperf].days && cands[i].cost < cands[iperf].cost))
            iperf = i;
    }
    /* ---- minimum near-tie: a simpler cluster no slower than the cheapest
     * (or the deadline), and never dearer than recommended or performance. */
    {
        double near = cands[imin].cost * (1.0 + NEAR_TIE);
        double slowest = deadline > cands[imin].days ? deadline : cands[imin].days;
        int best = imin;
        if (irec >= 0 && cands[irec].cost < near)
            near = cands[irec].cost;
        if (iperf >= 0 && cands[iperf].cost < near)
            near = cands[iperf].cost;
        for (int k = 0; k < n_near; k++) {
            int i = near_set[k];
            if (IN_MIN_POOL(i) && cands[i].cost <= near && cands[i].days <= slowest &&
                simpler(&cands[i], &cands[best]))
                best = i;
        }
        imin = best;
    }
#undef IN_MIN_POOL

    /* Build plans. Which cluster each tier shows is fixed first; a plan is
     * completed once per distinct cluster (plan_complete depends on the
     * cluster alone, and it is most of the pricing step's work) and copied
     * for a tier that shows the same one; then each tier gets its own notes. */
    struct engine_plan *pmin = &out->tiers[TIER_MINIMUM], *prec = &out->tiers[TIER_RECOMMENDED],
                       *pperf = &out->tiers[TIER_PERFORMANCE];
    int ishow = irec, ifast = iperf;
    if (irec < 0) {
        /* Say what would make it possible: the cheapest plan meeting the
         * deadline (needs more budget), or the fastest within budget (needs
         * a later deadline), both found while pricing. Show the first as the
         * plan body. */
        ishow = icheap_dl >= 0 ? icheap_dl : (ifast_b >= 0 ? ifast_b : imin);
        if (icheap_dl < 0) {
            /* Nothing meets the deadline: show the fastest plan overall. */
            for (int i = 0; i < nc; i++)
                if (ishow < 0 || cands[i].days < cands[ishow].days)
                    ishow = i;
            if (ifast_b < 0)
                ifast_b = ishow;
        }
    }
    if (iperf < 0)
        ifast = ifast_all;
    /* w blanked, with a stamp: the plan memo's slots compare with it once */
    if (out->blank_stamp == 0 || !engine_workload_blanked_eq(w, &out->blank_w)) {
        out->blank_w = *w;
        out->blank_w.tokens_b = 0;
        out->blank_w.deadline_days = 0;
        out->blank_w.budget_usd = 0;
        out->blank_w.dataset_tb = 0;
        out->blank_stamp = ++out->plan_memo_tick;
    }
    blank.w = &out->blank_w;
    blank.ready = 0;
    blank.same = 0;
    for (int t = 0; t < TIER_COUNT; t++)
        blank.same |= (unsigned)(out->tier_from[t].slot && out->tier_from[t].tokens_bits == double_bits(w->tokens_b) &&
                                 out->tier_from[t].dataset_bits == double_bits(w->dataset_tb))
                      << t;
    /* The why texts below go through the text memos of the slot that
     * holds the tier's cluster (tm_*), one site per tier. */
    struct engine_text_memo *tm_min, *tm_rec, *tm_perf;
    /* A tier copied from another holds what that one holds (tier_from). */
    tm_min = plan_for_cand(c, &ctx, &blank, out, &cands[imin], TIER_MINIMUM);
    if (ishow == imin) {
        tier_copy(out, TIER_RECOMMENDED, TIER_MINIMUM);
        tm_rec = tm_min;
    } else {
        tm_rec = plan_for_cand(c, &ctx, &blank, out, &cands[ishow], TIER_RECOMMENDED);
    }
    if (ifast == imin) {
        tier_copy(out, TIER_PERFORMANCE, TIER_MINIMUM);
        tm_perf = tm_min;
    } else if (ifast == ishow) {
        tier_copy(out, TIER_PERFORMANCE, TIER_RECOMMENDED);
        tm_perf = tm_rec;
    } else {
        tm_perf = plan_for_cand(c, &ctx, &blank, out, &cands[ifast], TIER_PERFORMANCE);
    }
    tm_min += ENGINE_TEXT_WHY + TIER_MINIMUM;
    tm_rec += ENGINE_TEXT_WHY + TIER_RECOMMENDED;
    tm_perf += ENGINE_TEXT_WHY + TIER_PERFORMANCE;

    note_near_tie(c, pmin, &cands[imin], &cands[imin_cheapest]);
    if (pmin->cost_usd > budget) {
        pmin->feasible = 0;
        pmin->need_budget_usd = pmin->cost_usd;
        engine_fmt_memo(tm_min, pmin->why, sizeof pmin->why,
                        "the cheapest plan that fits costs $%.0f, over the $%.0f budget", pmin->cost_usd, budget);
    }

    if (irec >= 0) {
        note_near_tie(c, prec, &cands[irec], &cands[irec_cheapest]);
    } else {
        prec->feasible = 0;
        if (icheap_dl >= 0)
            prec->need_budget_usd = cands[icheap_dl].cost;
        if (ifast_b >= 0)
            prec->need_deadline_days = cands[ifast_b].days;
        if (icheap_dl >= 0 && ifast_b >= 0)
            engine_fmt_memo(tm_rec, prec->why, sizeof prec->why,
                            "no plan meets %g days within $%.0f: meeting the deadline needs a budget of $%.0f; "
                            "within the budget the fastest plan takes %.1f days", deadline, budget,
                            prec->need_budget_usd, prec->need_deadline_days);
        else if (icheap_dl >= 0)
            engine_fmt_memo(tm_rec, prec->why, sizeof prec->why,
                            "no plan fits the $%.0f budget; meeting %g days needs a budget of $%.0f", budget,
                            deadline, prec->need_budget_usd);
        else if (ifast_b >= 0 && ifast_b != ishow)
            engine_fmt_memo(tm_rec, prec->why, sizeof prec->why,
                            "no allowed GPU count finishes in %g days (fastest: %.1f days with %d GPUs); within the "
                            "budget a deadline of %.1f days would work", deadline, cands[ishow].days, cands[ishow].n,
                            prec->need_deadline_days);
        else
            engine_fmt_memo(tm_rec, prec->why, sizeof prec->why,
                            "no allowed GPU count finishes in %g days; the fastest plan takes %.1f days with %d GPUs",
                            deadline, cands[ishow].days, cands[ishow].n);
    }

    if (iperf < 0) {
        pperf->feasible = 0;
        pperf->need_budget_usd = pperf->cost_usd;
        engine_fmt_memo(tm_perf, pperf->why, sizeof pperf->why,
                        "no plan fits within $%.0f; the fastest plan (%.1f days) costs $%.0f", perf_cap, pperf->days,
                        pperf->cost_usd);
    }

    if (isnan(w->deadline_days))
        rec_warn(out, "no deadline_days given: the recommended tier assumes %.0f days", DEFAULT_DEADLINE_DAYS);
    /* The performance tier is the fastest plan within budget (API.md), which
     * at scale can mean many GPUs for a modest gain: say what the extra GPUs
     * buy against the recommended plan. */
    if (prec->feasible && pperf->feasible && pperf->count > prec->count && pperf->days > 0) {
        double gpus = (double)pperf->count / prec->count, speed = prec->days / pperf->days;
        if (speed < 0.7 * gpus)
            rec_warn(out, "performance tier: %.1fx the GPUs of the recommended tier (%d vs %d) for %.1fx the speed "
                     "(%.0f%% scaling efficiency) at %.1fx the cost", gpus, pperf->count, prec->count, speed,
                     100.0 * speed / gpus, pperf->cost_usd / prec->cost_usd);
    }
    if (!prec->feasible)
        rec_warn(out, "recommended tier infeasible: %s", prec->why);
    if (any_short == 0)
        rec_warn(out, "every plan that fits takes more than 3 years; raise max_gpus or allow larger GPUs");
    return ST_OK;
}

enum status engine_recommend(const struct catalog *c, const struct engine_workload *w,
                             struct engine_recommendation *out, char *err, size_t errlen)
{
    enum status st = engine_recommend_search(c, w, out, err, errlen);
    if (st != ST_OK)
        return st;
    return engine_recommend_price(c, w, out, err, errlen);
}

/* ------------------------------------------------------------ estimate */

/* An estimate's cluster held to the workload's deadline and budget, as a
 * tier is (API.md: the estimate's feasible is a tier's): a cluster that
 * fits but takes longer than deadline_days or costs more than budget_usd
 * cannot be met, says why, and gives the deadline and budget it would
 * need (its own days and cost). Without this an estimate asked for 10 days
 * and $100 answered feasible for 41 days and $1.5M. */
static void estimate_judge_limits(const struct engine_workload *w, struct engine_plan *pl)
{
    int late = !isnan(w->deadline_days) && pl->days > w->deadline_days;
    int dear = !isnan(w->budget_usd) && pl->cost_usd > w->budget_usd;
    if (!pl->feasible || (!late && !dear))
        return;
    pl->feasible = 0;
    if (late)
        pl->need_deadline_days = pl->days;
    if (dear)
        pl->need_budget_usd = pl->cost_usd;
    if (late && dear)
        snprintf(pl->why, sizeof pl->why,
                 "this cluster takes %.1f days, over the %g-day deadline, and costs $%.0f, over the $%.0f budget "
                 "(F4, R5)", pl->days, w->deadline_days, pl->cost_usd, w->budget_usd);
    else if (late)
        snprintf(pl->why, sizeof pl->why, "this cluster takes %.1f days, over the %g-day deadline (F4, R5)", pl->days,
                 w->deadline_days);
    else
        snprintf(pl->why, sizeof pl->why, "this cluster costs $%.0f, over the $%.0f budget (R5)", pl->cost_usd,
                 w->budget_usd);
}

enum status engine_estimate(const struct catalog *c, const struct engine_estimate_request *req,
                            struct engine_plan *out, char *err, size_t errlen)
{
    const struct engine_workload *w = &req->workload;
    const struct engine_cluster *cl = &req->cluster;
    const struct engine_parallel *rp = &req->parallel;
    const struct engine_gpu *g = catalog_gpu_find(c, cl->gpu);
    struct eval_ctx ctx;
    struct eval_hw hw;
    struct limits lim;
    struct cand cd;
    double mm;
    long evaluated = 0;
    int per_node, nodes;
    double fabric;

    if (!g)
        FAIL("cluster.gpu: unknown GPU \"%s\"", cl->gpu);
    if (cl->count < 1 || cl->count > 1000000)
        FAIL("cluster.count: %d is out of range (1..1000000)", cl->count);
    per_node = cl->per_node > 0 ? cl->per_node : g->per_node;
    if (per_node > cl->count)
        per_node = cl->count;
    if (per_node > 72)
        FAIL("cluster.per_node: %d is out of range (1..72)", per_node);
    if (cl->count % per_node != 0)
        FAIL("cluster.count: %d is not a multiple of per_node %d", cl->count, per_node);
    nodes = cl->count / per_node;
    fabric = !isnan(cl->fabric_gbps_per_gpu) ? cl->fabric_gbps_per_gpu : engine_default_fabric_gbps(g);
    if (!(fabric > 0) || fabric > 1e5)
        FAIL("cluster.fabric_gbps_per_gpu: %g is out of range", fabric);
    if (g->scaleout_ports > 0 && fabric > engine_fabric_cap_gbps(g) + 1e-9)
        FAIL("cluster.fabric_gbps_per_gpu: %g exceeds the %s's on-chip scale-out ports (%d x %.0f Gb/s, R16/R17)",
             fabric, g->id, g->scaleout_ports, g->scaleout_port_gbps);
    if (rp->tp < 0 || rp->pp < 0 || rp->dp < 0 || rp->ep < 0 || rp->cp < 0 || rp->micro_batch < 0 ||
        rp->global_batch < 0 || rp->vpp < 0)
        FAIL("%s: negative values are not allowed", "parallel");
    if (rp->zero > 3)
        FAIL("parallel.zero: %d is out of range (0..3)", rp->zero);
    if (rp->recompute > 2)
        FAIL("parallel.recompute: %d is out of range", rp->recompute);
    {
        int prod = (rp->tp ? rp->tp : 1) * (rp->pp ? rp->pp : 1) * (rp->cp ? rp->cp : 1) * (rp->dp ? rp->dp : 1);
        if (cl->count % prod != 0 || (rp->tp && rp->pp && rp->dp && prod != cl->count))
            FAIL("parallel: tp*pp*cp*dp = %d does not match cluster.count %d", prod, cl->count);
    }
    if (rp->tp && (rp->tp & (rp->tp - 1)))
        FAIL("parallel.tp: %d must be a power of two", rp->tp);
    if (rp->pp && (rp->pp & (rp->pp - 1)) && !(rp->tp && rp->dp))
        FAIL("parallel.pp: %d must be a power of two unless tp and dp are given", rp->pp);
    if (rp->ep && (rp->ep & (rp->ep - 1)))
        FAIL("parallel.ep: %d must be a power of two", rp->ep);

    eval_ctx_init(&ctx, &w->model, w);
    limits_free(&lim);
    lim.tp = rp->tp; lim.pp = rp->pp; lim.dp = rp->dp; lim.ep = rp->ep; lim.cp = rp->cp;
    lim.zero = rp->zero; lim.recompute = rp->recompute; lim.micro_batch = rp->micro_batch;
    lim.global_batch = rp->global_batch; lim.vpp = rp->vpp;
    lim.offload = rp->offload ? 1 : -1;
    lim.fixed_cluster = 1;
    if (lim.global_batch)
        ctx.batch_seqs = lim.global_batch;

    eval_fill_hw(&hw, g, cl->count, per_node, nodes > 1 ? fabric : 0.0, c, w, &req->measured);
    if (nodes == 1 && (isnan(req->measured.inter_busbw_gbs)))
        hw.nic_busbw_per_gpu_gbs = hw.intra_busbw_gbs;
    memset(out, 0, sizeof *out);
    if (!best_layout(&ctx, &hw, &lim, &cd, &mm, &evaluated)) {
        char why[PLAN_TEXT_MAX];
        if (isinf(mm))
            snprintf(why, sizeof why, "no parallel layout of %d GPUs matches the given parallel settings",
                     cl->count);
        else
            snprintf(why, sizeof why,
                     "does not fit: the leanest layout needs %.1f GiB per GPU, the %s has %.0f GiB (R1, F5, F6)",
                     mm, g->id, g->memory_gib);
        plan_empty(out, why);
        out->gpu_index = (int)(g - c->gpus);
        snprintf(out->gpu_id, sizeof out->gpu_id, "%s", g->id);
        snprintf(out->gpu_name, sizeof out->gpu_name, "%s", g->name);
        out->count = cl->count;
        out->per_node = per_node;
        out->nodes = nodes;
        out->mem_per_gpu_gib = isinf(mm) ? 0 : mm;
        out->mem_capacity_gib = g->memory_gib;
        return ST_OK;
    }
    cd.gi = (int)(g - c->gpus);
    cd.per_node = per_node;
    cd.nodes = nodes;
    cd.n = cl->count;
    cd.days = 0;
    cd.cost = 0;
    {
        struct engine_candidate kept;
        cand_keep(c, &ctx, &kept, &cd, NULL);
        plan_from_cand(c, &kept, out);
    }
    out->fabric_gbps_per_gpu = nodes > 1 ? fabric : 0;
    out->fabric_kind = cl->fabric_kind;
    plan_complete(c, &ctx, out, &req->measured);
    estimate_judge_limits(w, out);
    {
        char shape[PLAN_TEXT_MAX];
        if (shape_warning(w, shape, sizeof shape))
            plan_add_warning(out, "%s", shape);
    }
    return ST_OK;
}
