/* engine_int.h: what the planner's source files share and nobody else sees:
 * the per-layout time model (F2-F10) and the helpers that fill a plan. */
#ifndef GPUPLAN_ENGINE_INT_H
#define GPUPLAN_ENGINE_INT_H

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "engine.h"

/* Always inlined: the search's walks and lists call these for every layout,
 * and a call keeps every part it stores (and its arguments' checks), where
 * inlined only the operations the caller needs remain. */
#define EVAL_INLINE static inline __attribute__((always_inline))

/* Everything about one layout on one cluster that the time model needs. The
 * workload-only parts (FLOPs per token, parameter counts) are computed once per
 * request and reused for every layout the search scores. */
struct eval_ctx {
    const struct engine_model *m;
    const struct engine_workload *w;
    struct engine_param_count pc;
    int seq;
    double fpt_model;           /* model FLOPs per token (F2/F3, no recompute) */
    double fpt_attn_fwd;        /* forward attention-core FLOPs per token (for recompute) */
    double fpt_hw[3];           /* hardware FLOPs per token by recompute index (F2, recompute counted) */
    double batch_seqs;          /* target global batch in sequences */
    int moe_layers;
    double lora_base_bytes;     /* F7 frozen base (LoRA/QLoRA), 0 otherwise */
    double lora_adapters;       /* F7 adapter parameters (LoRA/QLoRA), 0 otherwise */
    double ckpt_bytes;          /* F10 checkpoint size (engine_ckpt_bytes), found once */
    int eff_width;              /* GEMM width the efficiency model sees (MoE experts narrower) */
    /* Storage rows by kind (STORAGE_KIND_*), looked up once when the pricing
     * of many candidates binds the catalog (eval_ctx_bind_storage); NULL
     * storage_cat means look each up by name. */
    const struct catalog *storage_cat;
    const struct engine_storage *storage_by_kind[5];
};

enum { STORAGE_LOCAL_NVME, STORAGE_NAS, STORAGE_PARALLEL_FS, STORAGE_OBJECT, STORAGE_ARCHIVE };
void eval_ctx_bind_storage(struct eval_ctx *ctx, const struct catalog *c);

struct eval_hw {
    const struct engine_gpu *g;
    int n, per_node;
    double nic_busbw_per_gpu_gbs;   /* inter-node busbw available per GPU */
    double intra_busbw_gbs;         /* all_reduce over the node's GPUs (node_busbw_gbs, or measured) */
    double group_busbw_gbs;         /* inside one scale-up group: TP up to tp_reach */
    double peak_tflops;             /* at the workload precision */
    double eff_scale;               /* uncertainty: kernel efficiency multiplier */
    double bw_scale;                /* uncertainty: bandwidth multiplier */
    double matmul_tflops;           /* measured sustained GEMM rate, NaN = catalog */
};

struct eval_out {
    double step_s, tokens_per_s, mfu, hfu, comm_fraction, bubble_fraction;
    double t_compute, t_tp, t_pp, t_dp, t_moe, t_exposed, achieved_tflops;
    double eff;                     /* kernel efficiency used */
    int global_batch, grad_accum;
};

/* engine_memory in two steps for the search: the model states depend on tp,
 * pp, dp, ep, zero and offload only, so they are computed once for every
 * micro-batch size and recompute level; finish adds activations and
 * overhead. Together they equal engine_memory bit for bit. */
void engine_memory_states(const struct engine_workload *w, const struct engine_parallel *p,
                          const struct engine_param_count *pc, double lora_base_bytes, double lora_adapters,
                          struct engine_memory *mem);
/* engine_memory_states in two steps for the search, whose ZeRO stages and
 * offload share a layout's shards: the parts that read tp, pp, dp and ep
 * (per parameter class: unsharded and sharded by dp), then the states at a
 * stage from them with the same operations, so the same doubles. */
struct engine_states_parts {
    double K, wbytes;           /* optimizer and weight bytes per parameter */
    double full, shard;         /* trainable parameters per GPU, unsharded and under ZeRO (dp) */
    double full_w, shard_w;     /* LoRA: the frozen base's bytes, unsharded and under ZeRO-3 */
    int lora;
};
/* x's bits: what a memo compares, so that -0 and 0 differ and a NaN
 * equals itself (engine_plan.c's text memos, engine_search.c's pricing keys). */
static inline unsigned long long double_bits(double x)
{
    unsigned long long b;
    memcpy(&b, &x, sizeof b);
    return b;
}
/* LoRA or QLoRA: trains adapters only. */
static inline int eval_is_lora(const struct engine_workload *w)
{
    return w->task == TASK_LORA || w->task == TASK_QLORA;
}
/* F5/F7 model states of one GPU (weights, gradients, optimizer, host
 * offload) for a layout: what engine_memory_pre holds besides activations
 * and overhead, and what the search's memory bound starts from. Inline:
 * the search's lists ask it for every layout (some 500 a request). */
EVAL_INLINE void engine_states_parts(const struct engine_workload *w, int tp, int pp, int dp, int ep,
                                     const struct engine_param_count *pc, double lora_base_bytes,
                                     double lora_adapters, struct engine_states_parts *sp)
{
    tp = tp > 0 ? tp : 1;
    pp = pp > 0 ? pp : 1;
    dp = dp > 0 ? dp : 1;
    ep = ep > 0 ? ep : 1;
    sp->K = w->optimizer == OPT_ADAMW_8BIT ? 6.0 : 12.0;
    sp->wbytes = w->precision == PREC_FP32 ? 4.0 : 2.0;
    sp->lora = eval_is_lora(w);
    if (sp->lora) {
        /* F7: the frozen base at engine_lora_base_bytes (bf16, or NF4 for
         * QLoRA with embeddings and head left in bf16), sharded by dp under
         * ZeRO-3/FSDP; the adapters are ordinary trainable parameters whose
         * 16-bit weights, gradients and K bytes of optimizer state shard
         * like F5's. */
        double base = lora_base_bytes / (double)(tp * pp);
        double adapters = lora_adapters / (double)(tp * pp);
        double d = dp;
        sp->full_w = base;
        sp->shard_w = base / d;
        sp->full = adapters;
        sp->shard = adapters / d;
    } else {
        double dense = (pc->total - pc->expert) / (double)(tp * pp);
        double expert = pc->expert / (double)(tp * pp * ep);
        int dpe = dp / ep > 0 ? dp / ep : 1;   /* data-parallel degree of expert weights */
        double d = dp, de = dpe;
        /* Split engine_model_states_bytes into its three parts so the plan
         * can show them; the sum equals it for wbytes = 2. */
        sp->full = dense + expert;
        sp->shard = dense / d + expert / de;
    }
}
static inline void engine_states_of(const struct engine_states_parts *sp, int zero, int offload,
                                    struct engine_memory *mem)
{
    memset(mem, 0, sizeof *mem);
    if (sp->lora) {
        mem->weights = (zero >= 3 ? sp->shard_w : sp->full_w) + 2.0 * (zero >= 3 ? sp->shard : sp->full);
        mem->gradients = 2.0 * (zero >= 2 ? sp->shard : sp->full);
        mem->optimizer = sp->K * (zero >= 1 ? sp->shard : sp->full);
    } else {
        mem->weights = sp->wbytes * (zero >= 3 ? sp->shard : sp->full);
        mem->gradients = 2.0 * (zero >= 2 ? sp->shard : sp->full);
        mem->optimizer = sp->K * (zero >= 1 ? sp->shard : sp->full);
    }
    if (offload) {
        mem->host_offload = mem->optimizer;
        mem->optimizer = 0;
    }
}
void engine_memory_finish(const struct engine_model *m, const struct engine_workload *w,
                          const struct engine_parallel *p, int seq_len, const struct engine_param_count *pc,
                          double lora_base_bytes, struct engine_memory *mem);
/* engine_memory_finish in two steps for the search, whose micro-batch
 * sizes and recompute levels share activations across ZeRO stages: F6
 * activations of p (p's ZeRO stage and offload not read), then overhead and
 * total on top of the states in *mem. */
double engine_memory_activations(const struct engine_model *m, const struct engine_workload *w,
                                 const struct engine_parallel *p, int seq_len);
void engine_memory_add(const struct engine_workload *w, const struct engine_parallel *p,
                       const struct engine_param_count *pc, double lora_base_bytes, double activations,
                       struct engine_memory *mem);
/* engine_memory_activations at recompute levels 0, 1 and 2 (p's level not
 * read) for ctx's workload and sequence, and eval_memory_lower_bound_act
 * in *lb_act, from the parts they share: the same doubles. */
struct eval_ctx;
void engine_memory_activations3(const struct eval_ctx *ctx, const struct engine_parallel *p, double act[3],
                                double *lb_act);
/* The micro-batches in flight on the first stage (F6): all that
 * engine_memory_activations3 reads of dp, global batch and ZeRO (the rest
 * is tp, cp, pp, vpp, micro-batch size and the workload). */
static inline int engine_finish_micro(const struct engine_parallel *p)   /* micro-batches a step (F6) */
{
    int dp = p->dp > 0 ? p->dp : 1;
    int gb = p->global_batch > 0 ? p->global_batch : dp;
    int mb = p->micro_batch > 0 ? p->micro_batch : 1;
    return gb / (dp * mb) > 0 ? gb / (dp * mb) : 1;
}
static inline int engine_act_in_flight(const struct engine_parallel *p)
{
    int micro_batches = engine_finish_micro(p), pp = p->pp > 0 ? p->pp : 1;
    int in_flight = micro_batches < pp ? micro_batches : pp;
    return in_flight < 1 ? 1 : in_flight;
}
/* engine_memory_add's ZeRO-3 prefetch term at tp, and its overhead and
 * total from the states' sum, the activations and that term (added when
 * zero3). */
double engine_memory_zero3_extra(const struct engine_workload *w, int tp, const struct engine_param_count *pc,
                                 double lora_base_bytes);
static inline double engine_memory_total_of(double states, double act, int zero3, double zero3_extra, double *other)
{
    double o = 2.0 * (1024.0 * 1024.0 * 1024.0) + 0.05 * (states + act);
    if (zero3)
        o += zero3_extra;
    *other = o;
    return states + act + o;
}
/* engine_memory with the per-request parts precomputed (eval_ctx). */
struct engine_memory engine_memory_pre(const struct engine_model *m, const struct engine_workload *w,
                                       const struct engine_parallel *p, int seq_len,
                                       const struct engine_param_count *pc, double lora_base_bytes,
                                       double lora_adapters);

/* Search bounds (engine_model.c): never above the exact figure, so the
 * search may skip what they rule out without changing its answer. */
double eval_memory_lower_bound_gib(const struct eval_ctx *ctx, const struct engine_parallel *p,
                                   const struct engine_memory *states);
/* eval_memory_lower_bound_gib in two steps: the activations part (reads
 * neither the ZeRO stage nor offload), then the bound from the states. */
double eval_memory_lower_bound_act(const struct eval_ctx *ctx, const struct engine_parallel *p);
static inline double eval_memory_lower_bound_of(const struct engine_memory *st, double act)
{
    double states = st->weights + st->gradients + st->optimizer, gib = 1024.0 * 1024.0 * 1024.0;
    return (states + act + 2.0 * gib + 0.05 * (states + act)) / gib * (1.0 - 1e-9);
}
double eval_score_lower_bound(const struct eval_ctx *ctx, const struct eval_hw *hw, const struct engine_parallel *p);
int eval_global_batch(const struct eval_ctx *ctx, const struct engine_parallel *p);

void eval_fill_hw(struct eval_hw *hw, const struct engine_gpu *g, int n, int per_node, double fabric_gbps,
                  const struct catalog *c, const struct engine_workload *w, const struct engine_measured *meas);
/* eval_fill_hw in two steps, for a search that fills many with the same
 * GPU type and rate: the fabric's realised busbw per NIC over its line rate
 * (the catalog row of g's port at that rate, else T2's 0.92), then the
 * rest with it. */
double eval_fabric_ratio(const struct catalog *c, const struct engine_gpu *g, double fabric_gbps);
void eval_fill_hw_ratio(struct eval_hw *hw, const struct engine_gpu *g, int n, int per_node, double fabric_gbps,
                        double ratio, const struct engine_workload *w, const struct engine_measured *meas);
void eval_ctx_init(struct eval_ctx *ctx, const struct engine_model *m, const struct engine_workload *w);
double eval_peak_tflops(const struct engine_gpu *g, enum engine_precision p);
double eval_kernel_efficiency(const struct engine_gpu *g, enum engine_precision p, int hidden, int tp,
                              double tokens_per_microbatch);
void eval_time(const struct eval_ctx *ctx, const struct eval_hw *hw, const struct engine_parallel *p,
               struct eval_out *out);

/* eval_time in parts, so that a search can compute once what does not read
 * the hardware (eval_pre_fill: struct engine_step_pre, per layout and
 * workload) and per GPU type what does not read the layout (eval_hwc_fill,
 * eval_achieved), and then get each step time from eval_step with a few
 * divisions. eval_time itself is these three steps, so the step is the same
 * double either way: every expression keeps its operations in their order
 * (C evaluates a * b / c * d left to right, and the hardware's terms come
 * last in each, so the leading product is what the pre holds). */
#define TP_EXPOSED 0.6
#define PP_EXPOSED 0.5
#define MOE_EXPOSED 0.7
#define DP_OVERLAP 0.9
#define ZERO3_OVERLAP 0.85
#define DP_MIN_EXPOSED 0.05

/* A layout's step parts as a search's layout lists hold them (pre, with
 * the layout's ZeRO stage and offload in pre.z), its recompute index and
 * eval_achieved (rate and efficiency) at its micro-batch size on the GPU
 * type: what eval_time computes before the hardware's bandwidths.
 * eval_time_ref times it on hw with eval_time's last steps: the same
 * eval_out as eval_time for that layout on hw, without eval_pre_fill. */
struct eval_ref {
    struct engine_step_pre pre;
    int ri;
    double achieved, eff;
};
void eval_time_ref(const struct eval_ctx *ctx, const struct eval_hw *hw, const struct eval_ref *r,
                   struct eval_out *o);

/* The recompute level's index in engine_step_pre's arrays: eval_time reads
 * anything but selective and full as none. */
static inline int eval_rc_index(int recompute)
{
    return recompute == RECOMPUTE_SELECTIVE ? 1 : recompute == RECOMPUTE_FULL ? 2 : 0;
}

/* Fills e for layout p; the per-level arrays for the levels in rc_mask
 * (bit eval_rc_index). */
void eval_pre_fill(const struct eval_ctx *ctx, const struct engine_parallel *p, struct engine_step_pre *e,
                   unsigned rc_mask);
/* eval_pre_fill less its last step (e->z is left alone): for a search that
 * fills the ZeRO stages' parts apart. */
void eval_pre_fill_base(const struct eval_ctx *ctx, const struct engine_parallel *p, struct engine_step_pre *e,
                        unsigned rc_mask);
/* eval_pre_fill_base of a layout given by its parts (each >= 1, as
 * eval_pre_fill_base makes them; gbs: the global batch asked): its body,
 * inline for the search's lists, which fill some 700 a request. */
EVAL_INLINE void eval_pre_fill_parts(const struct eval_ctx *ctx, int tp, int pp, int dp, int cp, int ep, int b,
                                     int v, int gbs, struct engine_step_pre *e, unsigned rc_mask)
{
    const struct engine_model *m = ctx->m;
    const struct engine_workload *w = ctx->w;
    double s = ctx->seq, h = m->hidden;
    int micro = (gbs + dp * b - 1) / (dp * b);
    double tokens_step, psi;

    if (micro < 1)
        micro = 1;
    gbs = micro * dp * b;
    tokens_step = (double)gbs * s;
    e->tp = tp;
    e->pp = pp;
    e->dp = dp;
    e->cp = cp;
    e->ep = ep;
    e->b = b;
    e->micro = micro;
    e->gbs = gbs;
    e->n = tp * pp * dp * cp;
    e->model_par = tp * pp * cp;
    e->ep_tp = ep * tp;
    e->tokens_step = tokens_step;
    e->std_attn = w->standard_attention != 0;
    e->moe = ctx->moe_layers > 0 && ep > 1;
    const double tp_msg = (double)b * s / cp * h * 2.0, tp_layers = (double)m->layers / pp;
    /* unrolled: the search's lists fill every level (rc_mask 7), so each
     * level's tests fold away there */
#pragma GCC unroll 3
    for (int ri = 0; ri < 3; ri++) {
        if (!(rc_mask >> ri & 1u))
            continue;
        e->comp[ri] = ctx->fpt_hw[ri] * tokens_step;
        if (ri == 1 && (rc_mask & 1u)) {
            /* selective recompute reads what none does (the same
             * expressions of the same values below: the same doubles) */
            e->sa[1] = e->sa[0];
            e->tp_q[1] = e->tp_q[0];
            continue;
        }
        /* Without FlashAttention the a*s score matrix of every token is
         * written and read back by softmax, dropout and the AV product, about
         * 30 bytes per score over forward and backward (Korthikanti's 5as^2b
         * tensors, read and written), plus another forward's worth under full
         * recompute. That traffic runs at HBM speed, not tensor-core speed,
         * and is what makes small models slow on pre-2022 stacks (DOMAIN F6
         * s^2 term). */
        e->sa[ri] = 0;
        if (w->standard_attention) {
            double a = m->heads > 0 ? m->heads : 1;
            double per_token = 30.0 * (a / tp) * s * ((double)m->layers / pp);
            if (ri == 2)
                per_token *= 4.0 / 3.0;
            e->sa[ri] = tokens_step / ((double)dp * cp) * per_token;
        }
        /* F8 TP: 4 all-reduces of b*s*h 16-bit values per layer per
         * micro-batch (2 forward, 2 backward; +2 forward again with full
         * recompute). Inside the scale-up domain they run at the intra-node
         * busbw, outside it over the NICs. */
        e->tp_q[ri] = 0;
        if (tp > 1) {
            double count = 4.0 + (ri == 2 ? 2.0 : 0.0);
            e->tp_q[ri] = tp_layers * micro * count * 2.0 * (tp - 1) / tp * tp_msg;
        }
    }

    /* F9: 1F1B bubble (p-1)/(v*m). */
    e->bubble = pp > 1 ? (double)(pp - 1) / ((double)v * micro) : 0.0;
    /* F8 PP: activations b*s*h*2 bytes forward and their gradient backward
     * per micro-batch and virtual stage; over NICs when a stage boundary
     * crosses nodes (tp*pp*cp > GPUs per node). */
    e->pp_q = 0;
    if (pp > 1) {
        double msg = (double)b * s / cp * h * 2.0 / tp;
        e->pp_q = 2.0 * micro * v * msg;
    }
    /* F8 DP: gradients of this GPU's model-parallel shard, 2 bytes each
     * (bf16 reduction; 4 in fp32 training). All-reduce moves 2(d-1)/d of it
     * (ZeRO 0-2, same volume as reduce-scatter + all-gather); ZeRO-3 moves
     * 3(d-1)/d per micro-batch (gather forward, gather backward,
     * reduce-scatter). The ring runs at the NIC busbw of the DP ranks that
     * share a node, capped by the intra-node busbw (eval_step). ZeRO-3/FSDP
     * gathers each layer's parameters separately and does not reduce inside
     * the node first, so across nodes a GPU sees about its own NIC's
     * bandwidth, not the node aggregate (Megatron-LM 2021 Table 2: ZeRO-3
     * falls from 100 to 31 tokens/s/GPU from 384 to 1536 A100s at a fixed
     * batch). */
    psi = (ctx->pc.total - ctx->pc.expert) / (double)(tp * pp) + ctx->pc.expert / (double)(tp * pp * ep);
    if (eval_is_lora(w))
        psi = ctx->lora_adapters / (double)(tp * pp);
    e->psi = psi;
    /* F8 MoE: dispatch + combine, forward and backward, of every routed
     * token's hidden state to top-k experts; (ep-1)/ep of it leaves the GPU.
     * Inside a node when ep*tp fits the scale-up domain, where the
     * all-to-all runs over NVLink at about half the all-reduce busbw. */
    e->moe_q = 0;
    if (e->moe) {
        double k = m->experts_active > 0 ? m->experts_active : 1;
        double msg = (double)b * s / cp * h * 2.0 * k * (ep - 1.0) / ep / tp;
        e->moe_q = (double)ctx->moe_layers / pp * micro * 4.0 * msg;
    }
}

/* The parts of layout e that read the ZeRO stage and offload (eval_pre_fill's
 * last step, into e->z), for any stage of the same layout. */
EVAL_INLINE void eval_pre_zero(const struct eval_ctx *ctx, const struct engine_step_pre *e, int zero, int offload,
                               struct engine_step_zero *z)
{
    const int dp = e->dp, micro = e->micro;
    const double psi = e->psi;

    z->zero3 = zero >= 3 && !eval_is_lora(ctx->w);
    z->offload = offload != 0;
    z->dp_q = 0;
    if (dp > 1) {
        double gbytes = ctx->w->precision == PREC_FP32 ? 4.0 : 2.0;
        if (z->zero3)
            z->dp_q = micro * 3.0 * (dp - 1.0) / dp * psi * gbytes;
        else
            z->dp_q = 2.0 * (dp - 1.0) / dp * psi * gbytes;
    }
    /* Optimizer step: memory-bound pass over this GPU's states (read and
     * write 16 bytes per parameter of its shard), over host DRAM at 50 GB/s
     * when offloaded (CPU Adam). */
    {
        double shard = psi / (zero >= 1 ? dp : 1);
        z->opt_q = shard * 16.0 * 2.0;
    }
}

/* eval_time's sustained FLOP/s of one GPU at micro-batch b and context
 * parallelism cp (F4), and the kernel efficiency in *eff. */
double eval_achieved(const struct eval_ctx *ctx, const struct eval_hw *hw, int b, int cp, double *eff);

struct eval_hwc {
    double bw_intra, bw_nic;          /* busbw x bw_scale, bytes/s */
    double bw_group;                  /* the scale-up group's busbw x bw_scale (TP inside it) */
    double bw_a2a;                    /* bw_intra x 0.5: the all-to-all inside the domain */
    double mem_bw9, mem_bw08;         /* HBM bytes/s, and x 0.8 (standard attention) */
    int per_node, scaleup;
    int domain;                       /* scaleup_reach: traffic among these GPUs runs at bw_intra */
    int tp_in;                        /* tp_reach: the largest tp inside the scale-up domain */
    int a2a_in;                       /* the largest ep x tp inside the domain */
};

/* The GPUs g's scale-up link joins in a cluster of per_node GPUs a node:
 * the node, or more where the domain spans nodes (GB200/GB300 NVL72:
 * NVLink Switch trays join 18 trays of 4 GPUs, hardware.csv's "72-GPU
 * domain"). It spans nodes only where the card's servers as sold are
 * smaller than its domain: 1-GPU H100 SXM servers share no NVLink. Traffic
 * among them runs at the intra-node busbw (R12, F8: keep TP inside the
 * NVLink domain), beyond them over the NICs. The step model (eval_hwc_fill)
 * and the plan's texts (plan_cluster) both take it from here. */
static inline int scaleup_reach(const struct engine_gpu *g, int per_node)
{
    return g->scaleup_domain > g->per_node ? g->scaleup_domain : per_node;
}

/* The largest TP inside scaleup_reach (a PCIe node's bridge pairs: 2). */
static inline int tp_reach(const struct engine_gpu *g, int per_node)
{
    int reach = scaleup_reach(g, per_node);
    return g->scaleup_domain < reach ? g->scaleup_domain : reach;
}

double engine_pcie_gbs(int gen);   /* per direction, x16 */
/* Realised all_reduce busbw over a PCIe x16 path, as a share of its
 * per-direction rate: the catalog's rule for cards without NVLink (L40S
 * 22 = 0.7 x 31.5 GB/s, migrations/0002_catalog.sql); derived, no
 * published 8-card figure exists in data/. */
#define PCIE_BUSBW_FRACTION 0.7

/* The all_reduce busbw over all per_node GPUs of a node of card g (T1).
 * The catalog's intra_busbw_gbs is its scale-up group's figure: T1's ~116
 * GB/s is two H100 PCIe on one NVLink bridge (nccl-tests #194). A node
 * wider than the group (8 cards in bridged pairs, H200 NVL's 4-way groups)
 * runs its ring over PCIe between the groups, so it reaches what cards
 * without NVLink reach: PCIE_BUSBW_FRACTION x the per-direction x16 rate
 * (T4), 44.1 GB/s at Gen5, never above the group's. Every other node (one
 * NVSwitch or NVL72 group, a PCIe-only card) keeps the catalog's figure.
 * The step model times DP, PP and the all-to-all inside a node at this,
 * TP inside a group at the group's (eval_hwc_fill), and the plan expects
 * it of the node's nccl-tests run. */
static inline double node_busbw_gbs(const struct engine_gpu *g, int per_node)
{
    if (per_node <= g->scaleup_domain)
        return g->intra_busbw_gbs;
    double pcie = PCIE_BUSBW_FRACTION * engine_pcie_gbs(g->pcie_gen);
    return pcie < g->intra_busbw_gbs ? pcie : g->intra_busbw_gbs;
}

static inline void eval_hwc_fill(struct eval_hwc *c, const struct eval_hw *hw)
{
    c->bw_intra = hw->intra_busbw_gbs * hw->bw_scale * 1e9;
    c->bw_group = hw->group_busbw_gbs * hw->bw_scale * 1e9;
    c->bw_nic = hw->nic_busbw_per_gpu_gbs * hw->bw_scale * 1e9;
    c->mem_bw9 = hw->g->mem_bw_gbs * 1e9;
    c->mem_bw08 = hw->g->mem_bw_gbs * 1e9 * 0.8;
    c->per_node = hw->per_node > 0 ? hw->per_node : 1;
    c->scaleup = hw->g->scaleup_domain;
    c->bw_a2a = c->bw_intra * 0.5;
    c->domain = scaleup_reach(hw->g, c->per_node);
    c->tp_in = tp_reach(hw->g, c->per_node);
    c->a2a_in = c->domain;
}

struct eval_parts {
    double t_comp, t_tp, t_pp, t_dp, t_moe, exposed, t_opt, step;
};

/* F8/F9 step time of layout e (ZeRO stage and offload z) at recompute
 * index ri on hardware c, with nach = GPUs x eval_achieved (eval_pre_fill's
 * comments say why each term is what it is; the bandwidth each crosses is
 * chosen here: inside the scale-up domain or node at the intra-node busbw,
 * else over the NICs). Term by term below (eval_t_*), so that eval_step_bw
 * and eval_step_beats run the same operations on the same values. */
/* The DP ring's bandwidth of e on c (n = dp x model_par GPUs). */
static inline double eval_dp_bw(const struct engine_step_pre *e, const struct eval_hwc *c)
{
    const int per_node = c->per_node, model_par = e->model_par;
    int ranks_per_node;
    double bw;
    if (e->n <= c->domain)   /* n = dp x model_par */
        return c->bw_intra;
    ranks_per_node = model_par >= per_node ? 1 : per_node / model_par;
    if (ranks_per_node > e->dp)
        ranks_per_node = e->dp;
    bw = c->bw_nic * ranks_per_node;
    return bw > c->bw_intra ? c->bw_intra : bw;
}

EVAL_INLINE double eval_t_comp(const struct engine_step_pre *e, int ri, const struct eval_hwc *c, double nach)
{
    double t_comp = e->comp[ri] / nach;
    if (e->std_attn)
        t_comp += e->sa[ri] / c->mem_bw08;
    return t_comp;
}

EVAL_INLINE double eval_t_tp(const struct engine_step_pre *e, int ri, const struct eval_hwc *c)
{
    if (e->tp > 1) {
        /* inside a scale-up group at its busbw; across a node's groups
         * (bridged pairs, PCIe-only cards) over PCIe at the node's; wider
         * than the node (or NVL72 domain) over the NICs */
        double bw = e->tp <= c->tp_in ? c->bw_group : e->tp <= c->domain ? c->bw_intra : c->bw_nic;
        return e->tp_q[ri] / bw * TP_EXPOSED;
    }
    return 0;
}

EVAL_INLINE double eval_t_pp(const struct engine_step_pre *e, const struct eval_hwc *c)
{
    if (e->pp > 1) {
        double bw = e->model_par > c->domain ? c->bw_nic : c->bw_intra;
        return e->pp_q / bw * PP_EXPOSED;
    }
    return 0;
}

EVAL_INLINE double eval_t_dp(const struct engine_step_pre *e, const struct engine_step_zero *z,
                             const struct eval_hwc *c, double dp_bw, double t_comp)
{
    double bw = dp_bw, t, t_dp;
    if (e->dp <= 1)
        return 0;
    if (z->zero3) {
        if (e->n > c->domain && c->bw_nic < bw)
            bw = c->bw_nic;
        t = z->dp_q / bw;
        t_dp = t - t_comp * ZERO3_OVERLAP;
    } else {
        t = z->dp_q / bw;
        t_dp = t - t_comp / e->micro * (2.0 / 3.0) * DP_OVERLAP;
    }
    if (t_dp < t * DP_MIN_EXPOSED)
        t_dp = t * DP_MIN_EXPOSED;
    return t_dp;
}

EVAL_INLINE double eval_t_moe(const struct engine_step_pre *e, const struct eval_hwc *c)
{
    if (e->moe) {
        double bw = e->ep_tp <= c->a2a_in ? c->bw_a2a : c->bw_nic;
        return e->moe_q / bw * MOE_EXPOSED;
    }
    return 0;
}

EVAL_INLINE double eval_t_opt(const struct engine_step_zero *z, const struct eval_hwc *c)
{
    return z->opt_q / (z->offload ? 50e9 : c->mem_bw9);
}

/* eval_step with the DP ring's bandwidth given (eval_dp_bw of e on c): a
 * walk whose layouts share a model-parallel size (so, with the GPU count,
 * dp) finds it once. */
EVAL_INLINE void eval_step_bw(const struct engine_step_pre *e, const struct engine_step_zero *z, int ri,
                              const struct eval_hwc *c, double nach, double dp_bw, struct eval_parts *o)
{
    double t_comp = eval_t_comp(e, ri, c, nach), t_tp = eval_t_tp(e, ri, c), t_pp = eval_t_pp(e, c);
    double t_dp = eval_t_dp(e, z, c, dp_bw, t_comp), t_moe = eval_t_moe(e, c), t_opt = eval_t_opt(z, c);
    double exposed = t_tp + t_pp + t_dp + t_moe;
    o->t_comp = t_comp;
    o->t_tp = t_tp;
    o->t_pp = t_pp;
    o->t_dp = t_dp;
    o->t_moe = t_moe;
    o->exposed = exposed;
    o->t_opt = t_opt;
    o->step = t_comp * (1.0 + e->bubble) + exposed + t_opt;
}

EVAL_INLINE void eval_step(const struct engine_step_pre *e, const struct engine_step_zero *z, int ri,
                           const struct eval_hwc *c, double nach, struct eval_parts *o)
{
    eval_step_bw(e, z, ri, c, nach, e->dp > 1 ? eval_dp_bw(e, c) : 0.0, o);
}

/* Whether eval_step_bw's step / gbs (gbs > 0) is below best, as a search
 * asks of each layout it scores; when it is, *score = step / gbs, the same
 * double. Most layouts a search scores lose, and most of those are seen to
 * lose from the first terms of the step:
 *   step = ((t_comp (1 + bubble) + exposed) + t_opt),
 *   exposed = ((t_tp + t_pp) + t_dp) + t_moe,
 * evaluated in that order (C's left to right, as eval_step_bw writes it).
 * Rounding to nearest is monotone: x <= y gives fl(x + z) <= fl(y + z) and
 * fl(x / g) <= fl(y / g) for g > 0, and fl(x + z) >= x for z >= 0. So when
 * every term after a prefix is >= 0 (or NaN, which makes the step NaN, and
 * NaN < best is false), the step is >= that prefix of its sum, and once
 * prefix / gbs >= best the step cannot be below best either: the answer is
 * 0 without the rest. The prefixes are a = t_comp (1 + bubble) (the rest:
 * exposed >= 0 and t_opt) and a + (t_tp + t_pp) (the rest: t_dp, t_moe,
 * t_opt), each the same double the step's sum holds at that point. The
 * terms are >= 0 when tail_nonneg says so: the caller's promise that the
 * layout's parts (tp_q, pp_q, moe_q, dp_q, opt_q) and c's bandwidths are
 * >= 0 (t_dp is at least t x 0.05, t = dp_q / bw >= 0); else the whole
 * step is taken. In two steps, so that a walk finds the DP ring's
 * bandwidth only for a layout the prefixes do not rule out:
 * eval_step_head (1: it loses; else the prefix in *h) and eval_step_tail
 * (which gives the step too, eval_step_bw's o->step, when it wins).
 * tests/unit/test_engine_search.c checks the answer and the score against
 * eval_step_bw's over random layouts, at thresholds an ulp either side. */
struct eval_step_head {
    double t_comp, a, tpp;            /* t_comp, t_comp (1 + bubble), t_tp + t_pp */
};

/* bubble1: 1 + e->bubble (the same double, which a caller may hold). */
EVAL_INLINE int eval_step_head(const struct engine_step_pre *e, int ri, const struct eval_hwc *c, double nach,
                               double bubble1, double gbs, double best, int tail_nonneg, struct eval_step_head *h)
{
    h->t_comp = eval_t_comp(e, ri, c, nach);
    h->a = h->t_comp * bubble1;
    if (tail_nonneg && h->a / gbs >= best)
        return 1;
    h->tpp = eval_t_tp(e, ri, c) + eval_t_pp(e, c);
    return tail_nonneg && (h->a + h->tpp) / gbs >= best;
}

EVAL_INLINE int eval_step_tail(const struct engine_step_pre *e, const struct engine_step_zero *z,
                               const struct eval_hwc *c, double dp_bw, double gbs, double best,
                               const struct eval_step_head *h, double *score, double *step_s)
{
    double exposed = h->tpp + eval_t_dp(e, z, c, dp_bw, h->t_comp) + eval_t_moe(e, c);
    double step = h->a + exposed + eval_t_opt(z, c);
    if (!(step / gbs < best))
        return 0;
    *score = step / gbs;
    *step_s = step;
    return 1;
}

EVAL_INLINE int eval_step_beats(const struct engine_step_pre *e, const struct engine_step_zero *z, int ri,
                                const struct eval_hwc *c, double nach, double dp_bw, double gbs, double best,
                                int tail_nonneg, double *score)
{
    struct eval_step_head h;
    double step;
    if (eval_step_head(e, ri, c, nach, 1.0 + e->bubble, gbs, best, tail_nonneg, &h))
        return 0;
    return eval_step_tail(e, z, c, dp_bw, gbs, best, &h, score, &step);
}

/* F10 goodput for n GPUs; fills MTBF, interval and stall. */
struct goodput {
    double mtbf_h, delta_s, interval_s, restart_s, goodput;
};
struct goodput eval_goodput(int n, double ckpt_bytes_per_gpu, double host_copy_gbs, double fail_scale,
                            double restart_s);
/* F4b: seconds from submission to the first productive step; what each node
 * reads to start (base weights for fine-tuning + its checkpoint share). */
double engine_startup_s(int nodes, double load_bytes_per_node);
double engine_load_bytes_per_node(const struct eval_ctx *ctx, int nodes);
/* F4c cloud billing: providers bill whole units per instance, and a rented
 * node is paid from start-up to release whether or not it trains:
 *   billed_hours = max(H_min, ceil(wall_hours / H_unit) * H_unit)
 * with H_unit = 1 h and H_min = 1 h (assumption: on-demand GPU clouds and
 * marketplaces bill per hour or per minute with a one-hour floor at many
 * providers; reserved capacity bills in days or weeks, which only makes the
 * rounding coarser). Cost = billed_hours x GPUs x price per GPU-hour. For long
 * runs this is the plain GPU-hour product; for a job of minutes it charges a
 * whole hour on every GPU, which is what makes 256 GPUs for 2 minutes cost
 * 256 GPU-hours, not 8. */
#define BILLING_UNIT_H 1.0
#define BILLING_MIN_H 1.0

/* ceil without the library call (the pricing of ~340 candidates a request
 * bills each): below 2^52 in magnitude a double converts to a 64-bit integer
 * exactly after truncation towards zero, which is ceil for negative x and
 * one less than ceil for positive x with a fraction. Only the sign of a zero
 * can differ (ceil(-0.5) is -0.0), which the 1 h floor makes moot; NaN and
 * larger values go to ceil. */
static inline double engine_ceil(double x)
{
    double t;
    if (!(x > -4503599627370496.0 && x < 4503599627370496.0))
        return ceil(x);
    t = (double)(long long)x;
    return t < x ? t + 1.0 : t;
}

static inline double engine_billed_hours(double wall_hours)
{
    double h = engine_ceil(wall_hours / BILLING_UNIT_H - 1e-9) * BILLING_UNIT_H;
    return h < BILLING_MIN_H ? BILLING_MIN_H : h;
}


/* F10 checkpoint size (engine_model.c, ckpt_bytes_of), as eval_ctx_init
 * found it: pricing and the search read it for every candidate. */
static inline double engine_ckpt_bytes(const struct eval_ctx *ctx)
{
    return ctx->ckpt_bytes;
}
int engine_default_batch_seqs(const struct engine_model *m, const struct engine_workload *w, int seq);

#define ENGINE_BYTES_PER_TOKEN 4.0   /* ~4 bytes of UTF-8 per token; uint32 token ids (F11) */

/* The one cost model (engine_cost.c), shared by the search's ranking and the
 * plan's reported cost. */
struct run_time {
    double startup_s, days;
    struct goodput gp;
};
/* F4 + F4b + F10: wall time of n GPUs in `nodes` nodes at tokens_per_s. */
struct run_time engine_run_time(const struct eval_ctx *ctx, const struct engine_gpu *g, int n, int nodes,
                                double tokens_per_s, double fail_scale);
/* engine_run_time in two steps: the start-up and goodput of the cluster
 * (no tokens read; days left 0), then the days for the workload's tokens. */
struct run_time engine_run_fixed(const struct eval_ctx *ctx, const struct engine_gpu *g, int n, int nodes,
                                 double fail_scale);
static inline double engine_run_days(const struct eval_ctx *ctx, double startup_s, double goodput,
                                     double tokens_per_s)
{
    return (startup_s + ctx->w->tokens_b * 1e9 / tokens_per_s / goodput) / 86400.0;
}
/* A rented cluster's cost_usd exactly as plan_cost reports it (F4c billed
 * GPU-hours + storage for the run), without filling a plan: the pricing of
 * every candidate of a cloud recommendation, in two steps. The search fills
 * the candidate's storage parts that read no tokens (engine_cloud_cost_fixed:
 * the hot tier's kind, the capacity its bandwidth needs, the monthly prices
 * of the capacities that depend on the cluster alone); a pricing computes
 * once what depends on the tokens and the dataset but not on the cluster
 * (engine_cloud_cost_memo_init: the capacities the data sets) and then each
 * candidate's bill from its days (engine_cloud_cost_cand). */
void engine_cloud_cost_fixed(const struct catalog *c, const struct eval_ctx *ctx, struct engine_candidate *cd);
/* engine_cloud_cost_fixed in two parts: the hot tier (reads the
 * candidate's throughput and checkpoint interval) and the node cache's
 * monthly price, which reads only the node count and GPUs per node (NaN:
 * none), so a search keeps it per cluster shape. */
void engine_cloud_cost_hot(const struct catalog *c, const struct eval_ctx *ctx, struct engine_candidate *cd);
double engine_cloud_cache_month_usd(const struct catalog *c, const struct eval_ctx *ctx, int nodes, int per_node);
struct cloud_cost_memo {
    double tokens;                    /* tokens_b x 1e9, as engine_run_days multiplies it */
    int big10, big100;                /* the model's size against engine_needs_warm's and _cold's thresholds */
    double hot_need_tb;               /* what the hot tier must hold (F11) */
    double hot_month_usd[3];          /* by hot kind: its capacity for hot_need_tb x monthly price (NaN: none) */
    double warm_month_usd, cold_month_usd;   /* the same for the warm and cold tiers (NaN: none) */
};
void engine_cloud_cost_memo_init(struct cloud_cost_memo *m, const struct catalog *c, const struct eval_ctx *ctx);

/* Which storage tiers a run needs beyond the hot one (storage_needs):
 * warm object storage (R29 two-layer pattern, R35), the durable home of the
 * dataset and of checkpoint copies, as soon as a checkpoint is spread over
 * several nodes' local disks (losing one node loses the checkpoint), the
 * run lasts a day or more, or the model is 10B+; a single-node job of hours
 * keeps to local NVMe (R33: do not over-design). A cold archive (R35) keeps
 * history and intermediate models of a large, long run; a run of under a
 * week leaves little history. */
static inline int engine_needs_warm(const struct eval_ctx *ctx, int nodes, double days)
{
    return nodes > 1 || days >= 1.0 || ctx->pc.total >= 10e9;
}

static inline int engine_needs_cold(const struct eval_ctx *ctx, int n, double days)
{
    return (ctx->pc.total >= 100e9 || n >= 256) && days >= 7.0;
}

/* A candidate's rented bill for a run of `days` (inline: the pricing runs it
 * for each of ~340 candidates a request): the GPU-hours, then each tier
 * that costs anything, in storage_needs' order. A missing tier (NaN) is
 * left out as a tier costing nothing is: NaN > 0 is false. */
static inline double engine_cloud_cost_cand(const struct cloud_cost_memo *m, const struct engine_candidate *cd,
                                            double days, double usd_per_gpu_hour)
{
    double qty = engine_billed_hours(days * 24.0) * cd->n, total = 0, usd;
    double months = days > 0 ? days / 30.0 : 1.0;   /* storage_usd's rented months */

    if (qty > 0)
        total += qty * usd_per_gpu_hour;
    if (cd->hot_kind >= 0 && cd->hot_kind < 3) {
        usd = (cd->hot_bw_tb > m->hot_need_tb ? cd->hot_bw_month_usd : m->hot_month_usd[cd->hot_kind]) * months;
        if (usd > 0)
            total += usd;
    }
    if (cd->nodes > 2) {
        usd = cd->cache_month_usd * months;
        if (usd > 0)
            total += usd;
    }
    if (cd->nodes > 1 || days >= 1.0 || m->big10) {   /* engine_needs_warm */
        usd = m->warm_month_usd * months;
        if (usd > 0)
            total += usd;
    }
    if ((m->big100 || cd->n >= 256) && days >= 7.0) {   /* engine_needs_cold */
        usd = m->cold_month_usd * months;
        if (usd > 0)
            total += usd;
    }
    return total;
}
/* The time model of a layout on a cluster of `nodes` nodes at `rate` Gb/s
 * per GPU (ignored on one node), with measured values and uncertainty scales. */
void engine_eval_cluster(const struct catalog *c, const struct eval_ctx *ctx, const struct engine_gpu *g, int n,
                         int per_node, int nodes, double rate, const struct engine_measured *meas, double eff_scale,
                         double bw_scale, const struct engine_parallel *par, struct eval_out *ev);
/* Whether engine_choose_fabric_gbps keeps g's usual fabric rate without
 * trying another: a rented cluster, or GPUs with their own scale-out ports.
 * The search's walk_step_kept reads the same rule, so that it reuses the
 * walk's step exactly where the chosen rate is the one the walk timed. */
static inline int engine_fabric_rate_fixed(const struct eval_ctx *ctx, const struct engine_gpu *g)
{
    return ctx->w->pricing != PRICING_BUY || g->scaleout_ports > 0;
}
/* Per-GPU fabric rate for a multi-node cluster (cloud: the usual rate; buy:
 * the cheapest that costs no time); *ev gets the time model at that rate.
 * ref, when not NULL, holds par's step parts (eval_time_ref: the same
 * times without eval_pre_fill at every rate tried); hw_usual, when not
 * NULL, is eval_fill_hw of the cluster at g's usual rate (no measurements),
 * which the search has at hand. */
double engine_choose_fabric_gbps(const struct catalog *c, const struct eval_ctx *ctx, const struct engine_gpu *g,
                                 int n, int per_node, const struct engine_parallel *par, const struct eval_ref *ref,
                                 const struct eval_hw *hw_usual, struct eval_out *ev);
/* Fabric, storage tiers, power, bill of materials and cost_usd from the
 * plan's gpu_index, count, per_node, nodes, fabric_gbps_per_gpu,
 * fabric_kind (FABRIC_NONE = choose), days, tokens_per_s (and days_low/high
 * for the cost range when set) and the checkpoint goodput figures. */
void plan_cost(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
               const struct goodput *gp);
/* plan_cost without the bill of materials' texts: the same numbers and
 * cost_usd, for the search's scratch plans. */
void plan_cost_at(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                  const struct goodput *gp, int texts);
/* plan_cost_at in two steps: what reads neither the tokens nor the dataset
 * (basis, fabric, checkpoints, read rate, power; returns the fabric row, NULL
 * when none), then storage tiers, bill of materials and cost from the days. */
const struct engine_fabric *plan_cost_fixed(const struct catalog *c, const struct eval_ctx *ctx,
                                            struct engine_plan *pl, const struct goodput *gp, int texts);
void plan_cost_priced(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                      const struct engine_fabric *f, int texts, struct engine_text_memo *bom_memo);
const struct engine_fabric *engine_fabric_find(const struct catalog *c, enum engine_fabric_kind kind, double gbps);
const struct engine_fabric *engine_fabric_by_id(const struct catalog *c, const char *id);
double engine_port_gbps(const struct engine_gpu *g, double gbps_per_gpu);
double engine_fabric_cap_gbps(const struct engine_gpu *g);
double engine_default_fabric_gbps(const struct engine_gpu *g);
double engine_round_up(double x, double step);

/* Plan filling (engine_plan.c): everything else around the cluster. */
/* snprintf(dst, n, "%s", src) without the format machinery (n >= 1): the
 * same bytes and the same truncation at n - 1, at a tenth of the cost. */
static inline void engine_copy_str(char *dst, size_t n, const char *src)
{
    size_t len = strnlen(src, n - 1);
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* vsnprintf(dst, n, fmt, ap) for the plan texts: the same bytes, the same
 * truncation (engine_plan.c says how). */
void engine_vfmt(char *dst, size_t n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* engine_vfmt with its arguments listed: bounded display text (a long catalog
 * name is cut, which is fine for descriptions). */
void engine_fmt(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* engine_vfmt through a text memo (struct engine_text_memo, engine.h): the
 * memo's text when the arguments print what its did, else formatted and
 * kept (a text vsnprintf writes is not kept). m NULL: engine_vfmt. */
void engine_vfmt_memo(struct engine_text_memo *m, char *dst, size_t n, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
void engine_fmt_memo(struct engine_text_memo *m, char *dst, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

void plan_complete(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                   const struct engine_measured *meas);
/* plan_complete in two steps (engine_plan.c): everything that reads neither
 * tokens_b, dataset_tb, deadline_days nor budget_usd (time model, memory,
 * links, fabric, checkpoints, power, host, expectations, most rationale and
 * warnings; *fx gets what the second step needs and where its texts go),
 * then what does. A recommendation keeps the first step's plans
 * (engine_plan_memo) for the next pricing of the same clusters. tm: NULL,
 * or ENGINE_CLUSTER_TEXTS text memos that plan_cluster's rationale and
 * warnings are written through (the same bytes, engine_vfmt_memo). */
void plan_cluster(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                  const struct engine_measured *meas, struct engine_plan_fixed *fx, struct engine_text_memo *tm);
void plan_priced(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                 const struct engine_plan_fixed *fx, struct engine_text_memo *tm);
void plan_add_rationale(struct engine_plan *pl, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void plan_add_warning(struct engine_plan *pl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* engine_recommend_search with the free search's layout lists (lists 1,
 * what engine_recommend_search does; lists > 1: lists holding at most that
 * many layouts, so that tests reach the walk of a count whose list does not
 * fit) or walking every layout as an estimate does (lists 0): the same
 * answer, for tests to compare. */
enum status engine_recommend_search_at(const struct catalog *c, const struct engine_workload *w,
                                       struct engine_recommendation *out, char *err, size_t errlen, int lists);

/* Derived helpers. */
int engine_fits_tp(const struct engine_model *m, int tp);

#endif
