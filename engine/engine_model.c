/* engine_model.c: the named formulas of the planner (DOMAIN.md F1-F10).
 *
 * Each function is one formula with its assumptions written next to it, so a
 * reader can check a number the planner prints against the paper it comes
 * from. The time model is evaluated tens of thousands of times per
 * recommendation, so it works on precomputed per-request values (eval_ctx)
 * and does only arithmetic: no allocation, no strings, no branches on ids.
 * eval_time is split by what each part reads (the layout: eval_pre_fill; the
 * GPU: eval_achieved, eval_hwc_fill; both: eval_step), and the memory
 * figures by what reads the ZeRO stage, so that the search computes each
 * part once and combines them; every expression keeps its operations in
 * their order, so the parts give the same doubles as the whole. */
#include <math.h>
#include <string.h>

#include "engine_int.h"

/* ------------------------------------------------------------------ F1 */

/* F1: parameters of a decoder-only transformer from its shape.
 * attention = 2h^2 (Q, O) + 2*h*(h*kv/a) (K, V under GQA);
 * MLP = 3*h*f gated (SwiGLU) or 2*h*f; MoE layers hold `experts` routed
 * experts plus `shared_experts`, each an MLP of width moe_ffn_hidden, and a
 * router h*experts; only top-k routed + shared experts are active per token.
 * The first `dense_layers` layers of an MoE model use the dense MLP (DeepSeek).
 * Norms 2h per layer plus a final norm; embeddings V*h, doubled when the
 * output head is not tied. Multi-head latent attention (DeepSeek-V3) is
 * counted as standard attention with kv = heads: within ~10% of its real
 * projection size, which moves the total by under 1%. */
struct engine_param_count engine_params(const struct engine_model *m)
{
    struct engine_param_count pc = {0};
    double h = m->hidden, L = m->layers, a = m->heads > 0 ? m->heads : 1;
    double kv = m->kv_heads > 0 ? m->kv_heads : a;
    double f = m->ffn_hidden > 0 ? m->ffn_hidden : 4.0 * h;
    double mats = m->gated ? 3.0 : 2.0;
    double attn = 2.0 * h * h + 2.0 * h * (h * kv / a);
    double norms = 2.0 * h;
    double dense_mlp = mats * h * f;
    double emb = (double)m->vocab * h * (m->tied_embeddings ? 1.0 : 2.0);
    double total, active, expert = 0, largest;

    if (m->experts > 0) {
        double fm = m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : f;
        double one = mats * h * fm;
        double router = h * m->experts;
        double Ld = m->dense_layers, Lm = L - Ld;
        double k = m->experts_active > 0 ? m->experts_active : 1;
        double moe_total = (m->experts + m->shared_experts) * one + router;
        double moe_active = (k + m->shared_experts) * one + router;
        total = emb + Ld * (attn + dense_mlp + norms) + Lm * (attn + moe_total + norms) + h;
        active = emb + Ld * (attn + dense_mlp + norms) + Lm * (attn + moe_active + norms) + h;
        expert = Lm * m->experts * one;
        largest = attn + moe_total + norms;
    } else {
        total = emb + L * (attn + dense_mlp + norms) + h;
        active = total;
        largest = attn + dense_mlp + norms;
    }
    /* A declared count (preset or user) wins: it is what the authors trained;
     * the shape then only refines FLOPs and activations. The expert share is
     * scaled with it so memory sharding stays consistent. */
    if (m->params_b > 0 && total > 0) {
        double scale = m->params_b * 1e9 / total;
        expert *= scale;
        total = m->params_b * 1e9;
        active = m->active_params_b > 0 ? m->active_params_b * 1e9 : active * scale;
    } else if (m->params_b > 0) {
        total = m->params_b * 1e9;
        active = m->active_params_b > 0 ? m->active_params_b * 1e9 : total;
    }
    pc.total = total;
    pc.active = active;
    pc.embedding = emb;
    pc.expert = expert;
    pc.largest_layer = largest;
    return pc;
}

/* ------------------------------------------------------------------ F5 */

/* F5, ZeRO paper s3.1 and s5: mixed-precision Adam keeps 2 bytes of 16-bit
 * weights, 2 bytes of 16-bit gradients and K = 12 bytes of optimizer state
 * (fp32 master 4 + momentum 4 + variance 4) per parameter. ZeRO-1 shards the
 * optimizer over dp, ZeRO-2 also the gradients, ZeRO-3/FSDP also the weights.
 * 8-bit Adam (bitsandbytes) keeps m and v in one byte each: K = 4 + 2. For
 * 7.5B parameters on 64 GPUs this gives 120 / 31.4 / 16.6 / 1.88 GB. */
double engine_model_states_bytes(double psi, int zero, int dp, enum engine_optimizer opt)
{
    double K = opt == OPT_ADAMW_8BIT ? 6.0 : 12.0;
    double d = dp > 0 ? dp : 1;

    switch (zero) {
    case 0: return (2.0 + 2.0 + K) * psi;
    case 1: return 4.0 * psi + K * psi / d;
    case 2: return 2.0 * psi + (2.0 + K) * psi / d;
    default: return (2.0 + 2.0 + K) * psi / d;
    }
}

/* LoRA adapters (F7): rank r on every linear of every layer (q, k, v, o and
 * the MLP matrices), r*(d_in + d_out) parameters per matrix. */
static double lora_adapter_params(const struct engine_model *m, int rank)
{
    double h = m->hidden, a = m->heads > 0 ? m->heads : 1;
    double kv = m->kv_heads > 0 ? m->kv_heads : a;
    double f = m->ffn_hidden > 0 ? m->ffn_hidden : 4.0 * h;
    double hkv = h * kv / a;
    double attn = (h + h) + (h + hkv) + (h + hkv) + (h + h);
    double mlp = m->gated ? 3.0 * (h + f) : 2.0 * (h + f);
    if (m->experts > 0) {
        double fm = m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : f;
        mlp = (m->gated ? 3.0 : 2.0) * (h + fm) * (m->experts + m->shared_experts);
    }
    return (double)m->layers * rank * (attn + mlp);
}

/* F7 frozen base bytes: LoRA keeps it in bf16 (2 B/param); QLoRA stores
 * the linear layers in NF4 with double quantisation, 4 + 0.127 bits = 0.52
 * B/param (QLoRA s3; memory-facts s3), while the embedding and output head
 * stay in bf16 (bitsandbytes quantises nn.Linear layers of the blocks only),
 * which for a 128k vocabulary is 2B+ parameters at 4x the NF4 cost. */
double engine_lora_base_bytes(const struct engine_model *m, const struct engine_workload *w)
{
    struct engine_param_count pc = engine_params(m);
    double emb = pc.embedding < pc.total ? pc.embedding : 0.0;
    if (w->task != TASK_QLORA)
        return 2.0 * pc.total;
    return 0.52 * (pc.total - emb) + 2.0 * emb;
}

static int lora_rank(const struct engine_workload *w)
{
    return w->lora_rank > 0 ? w->lora_rank : 16;
}

static int is_lora(const struct engine_workload *w)
{
    return w->task == TASK_LORA || w->task == TASK_QLORA;
}

static double fpt_hw_at(const struct eval_ctx *ctx, int ri);

/* ------------------------------------------------------------------ F6 */

/* F6, Korthikanti et al. 2022, with FlashAttention (the 5as^2b score tensors
 * are never stored) and sequence parallelism whenever tp > 1, so every term
 * divides by tp (and by context-parallel cp). For gated MLPs and GQA the
 * 34*s*b*h per layer becomes s*b*(18h + 4f) (memory-facts.md s2.5, an
 * engineering approximation that equals 34sbh for f = 4h); MoE layers store
 * the MLP tensors of every token for each of its top-k experts.
 * Selective recompute (with FlashAttention) recomputes the MLP activation
 * function and norms: s*b*(18h + 2f). Full recompute keeps 2*s*b*h per layer
 * (the layer input) plus one layer's working set.
 * Pipeline: the first stage holds min(pp, m) micro-batches of its L/pp
 * layers, i.e. L layers' worth when m >= pp, times (1 + (pp-1)/(pp*v)) when
 * interleaved. The output layer adds fp32 logits s*b*V*4/tp. */
struct act_common {
    double layer;                /* one layer's full set (with the standard-attention scores) */
    double layer_fa;             /* the same without them (FlashAttention) */
    double sel, full;            /* what selective and full recompute keep per layer */
    double per_stage, in_flight, pp, v, logits;
};

static void act_common(const struct engine_model *m, const struct engine_workload *w, const struct engine_parallel *p,
                       int seq, int micro_batches, struct act_common *a)
{
    double h = m->hidden, s = seq, b = p->micro_batch > 0 ? p->micro_batch : 1;
    double f = m->ffn_hidden > 0 ? m->ffn_hidden : 4.0 * h;
    double t = (p->tp > 0 ? p->tp : 1) * (p->cp > 0 ? p->cp : 1);
    double pp = p->pp > 0 ? p->pp : 1, v = p->vpp > 0 ? p->vpp : 1;
    double in_flight;

    if (m->experts > 0) {
        double fm = m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : f;
        f = fm * ((m->experts_active > 0 ? m->experts_active : 1) + m->shared_experts);
    }
    a->layer = s * b * (18.0 * h + 4.0 * f) / t;
    a->layer_fa = a->layer;
    if (w->standard_attention)   /* Korthikanti's 5as^2b score, softmax and dropout tensors */
        a->layer += 5.0 * (m->heads > 0 ? m->heads : 1) * s * s * b / t;
    /* selective: recompute the attention core and the MLP activation function */
    a->sel = s * b * (18.0 * h + 2.0 * f) / t;
    a->full = 2.0 * s * b * h / t;
    in_flight = micro_batches < pp ? micro_batches : pp;
    if (in_flight < 1)
        in_flight = 1;
    a->per_stage = (double)m->layers / pp;
    a->in_flight = in_flight;
    a->pp = pp;
    a->v = v;
    a->logits = s * b * (double)m->vocab * 4.0 / (p->tp > 0 ? p->tp : 1);
}

static double act_total(const struct act_common *a, double kept, int full)
{
    double total = kept * a->per_stage * a->in_flight;
    if (a->pp > 1 && a->v > 1)
        total *= 1.0 + (a->pp - 1.0) / (a->pp * a->v);
    if (full)
        total += a->layer;
    return total + a->logits;
}

/* eval_memory_lower_bound_gib's activations (see there) from the parts
 * engine_memory_activations uses: x = layers per stage x micro-batches in
 * flight x the interleaving factor; min(selective x X, full x X + one
 * layer without scores) + logits. */
static double eval_memory_lower_bound_act_of(const struct act_common *a)
{
    double x = a->per_stage * a->in_flight, sel, full;
    if (a->pp > 1 && a->v > 1)
        x *= 1.0 + (a->pp - 1.0) / (a->pp * a->v);
    sel = a->sel * x;
    full = a->full * x + a->layer_fa;
    return (sel < full ? sel : full) + a->logits;
}

static double activation_bytes(const struct engine_model *m, const struct engine_workload *w,
                               const struct engine_parallel *p, int seq, int micro_batches)
{
    struct act_common a;
    double kept;

    act_common(m, w, p, seq, micro_batches, &a);
    switch (p->recompute) {
    case RECOMPUTE_NONE: kept = a.layer; break;
    case RECOMPUTE_SELECTIVE: kept = a.sel; break;
    default: kept = a.full; break;
    }
    return act_total(&a, kept, p->recompute == RECOMPUTE_FULL);
}

/* F5 + F6 + F7: everything one GPU holds for a layout. `other` is CUDA/NCCL
 * context and workspace (2 GiB, what nvidia-smi shows for an idle PyTorch
 * process with NCCL initialised), ZeRO-3 prefetch buffers (two gathered
 * layers) and 5% allocator fragmentation. */
struct engine_memory engine_memory(const struct engine_model *m, const struct engine_workload *w,
                                   const struct engine_parallel *p, int seq_len)
{
    struct engine_param_count pc = engine_params(m);
    double base = is_lora(w) ? engine_lora_base_bytes(m, w) : 0.0;
    double adapters = is_lora(w) ? lora_adapter_params(m, lora_rank(w)) : 0.0;
    return engine_memory_pre(m, w, p, seq_len, &pc, base, adapters);
}

/* engine_memory with the per-workload parts (F1 counts, F7 base bytes and
 * adapter parameters) given: the search calls this for every layout, and
 * those parts do not change within a request. Same operations in the same
 * order as before they were hoisted, so the same bits. */
/* F5/F7 model states of one GPU (weights, gradients, optimizer, host
 * offload) for a layout: what engine_memory_pre holds besides activations
 * and overhead, and what the search's memory bound starts from. */
static void model_states(const struct engine_workload *w, const struct engine_parallel *p,
                         const struct engine_param_count *pcp, double lora_base_bytes, double lora_adapters,
                         struct engine_memory *mem)
{
    struct engine_states_parts sp;
    engine_states_parts(w, p->tp, p->pp, p->dp, p->ep, pcp, lora_base_bytes, lora_adapters, &sp);
    engine_states_of(&sp, p->zero < 0 ? 1 : p->zero, p->offload, mem);
}

struct engine_memory engine_memory_pre(const struct engine_model *m, const struct engine_workload *w,
                                       const struct engine_parallel *p, int seq_len,
                                       const struct engine_param_count *pcp, double lora_base_bytes,
                                       double lora_adapters)
{
    struct engine_memory mem = {0};
    model_states(w, p, pcp, lora_base_bytes, lora_adapters, &mem);
    engine_memory_finish(m, w, p, seq_len, pcp, lora_base_bytes, &mem);
    return mem;
}

void engine_memory_states(const struct engine_workload *w, const struct engine_parallel *p,
                          const struct engine_param_count *pc, double lora_base_bytes, double lora_adapters,
                          struct engine_memory *mem)
{
    memset(mem, 0, sizeof *mem);
    model_states(w, p, pc, lora_base_bytes, lora_adapters, mem);
}

/* Activations, overhead and the total on top of the model states already in
 * *mem (engine_memory_states for the same tp, pp, dp, ep, zero, offload). */
static int finish_micro(const struct engine_parallel *p)
{
    return engine_finish_micro(p);
}

double engine_memory_activations(const struct engine_model *m, const struct engine_workload *w,
                                 const struct engine_parallel *p, int seq_len)
{
    int seq = seq_len > 0 ? seq_len : (w->seq_len > 0 ? w->seq_len : m->seq_len);
    return activation_bytes(m, w, p, seq, finish_micro(p));
}

void engine_memory_activations3(const struct eval_ctx *ctx, const struct engine_parallel *p, double act[3],
                                double *lb_act)
{
    struct act_common a;
    act_common(ctx->m, ctx->w, p, ctx->seq, finish_micro(p), &a);
    act[RECOMPUTE_NONE] = act_total(&a, a.layer, 0);
    act[RECOMPUTE_SELECTIVE] = act_total(&a, a.sel, 0);
    act[RECOMPUTE_FULL] = act_total(&a, a.full, 1);
    *lb_act = eval_memory_lower_bound_act_of(&a);
}

void engine_memory_add(const struct engine_workload *w, const struct engine_parallel *p,
                       const struct engine_param_count *pcp, double lora_base_bytes, double activations,
                       struct engine_memory *mem)
{
    int tp = p->tp > 0 ? p->tp : 1;
    int zero = p->zero < 0 ? 1 : p->zero;
    double states;

    mem->activations = activations;
    states = mem->weights + mem->gradients + mem->optimizer;
    mem->total = engine_memory_total_of(states, activations, zero >= 3,
                                        zero >= 3 ? engine_memory_zero3_extra(w, tp, pcp, lora_base_bytes) : 0.0,
                                        &mem->other);
}

double engine_memory_zero3_extra(const struct engine_workload *w, int tp, const struct engine_param_count *pcp,
                                 double lora_base_bytes)
{
    /* two gathered layers in flight, at the bytes/param the weights are stored in */
    return 2.0 * (is_lora(w) ? lora_base_bytes / pcp->total : 2.0) * pcp->largest_layer / tp;
}

void engine_memory_finish(const struct engine_model *m, const struct engine_workload *w,
                          const struct engine_parallel *p, int seq_len, const struct engine_param_count *pcp,
                          double lora_base_bytes, struct engine_memory *mem)
{
    engine_memory_add(w, p, pcp, lora_base_bytes, engine_memory_activations(m, w, p, seq_len), mem);
}

/* A lower bound, in GiB, on the total engine_memory_finish gives layout p
 * (model states in *st) at any recompute level. Activations (F6): no
 * recompute keeps X full layer sets and selective X selective sets (X =
 * layers per stage x micro-batches in flight x the interleaving factor),
 * full keeps X layer inputs plus one full layer; a full set is never below
 * the selective one, so the least is min(selective, full) with the
 * standard-attention scores (which only add) left out; the fp32 logits are
 * in every level. Lowered by 1e-9 so rounding can never put it above the
 * exact figure: the search skips a micro-batch size whose bound does not
 * fit the card, without changing what it finds. */
double eval_memory_lower_bound_act(const struct eval_ctx *ctx, const struct engine_parallel *p)
{
    struct act_common a;
    act_common(ctx->m, ctx->w, p, ctx->seq, finish_micro(p), &a);
    return eval_memory_lower_bound_act_of(&a);
}

double eval_memory_lower_bound_gib(const struct eval_ctx *ctx, const struct engine_parallel *p,
                                   const struct engine_memory *st)
{
    return eval_memory_lower_bound_of(st, eval_memory_lower_bound_act(ctx, p));
}

/* ------------------------------------------------------------------ F2/F3 */

/* F2 (Megatron, PaLM appendix B): training FLOPs per token are
 * 6 * (matmul parameters) for forward + backward plus the attention core,
 * 12*L*s*h for full attention, halved here because causal FlashAttention
 * skips the masked half (NVIDIA's benchmark formula counts it in full and so
 * reads a few points higher at long sequences). MoE uses active parameters.
 * The input embedding is a lookup, not a matmul, so it is left out.
 * F3: LoRA and QLoRA skip the weight gradients of the frozen base:
 * 4 * N (forward 2N + activation gradients 2N). */
double engine_flops_per_token(const struct engine_model *m, const struct engine_workload *w, int seq_len)
{
    struct engine_param_count pc = engine_params(m);
    double input_emb = (double)m->vocab * m->hidden;
    double nmm = pc.active - (m->tied_embeddings ? 0.0 : input_emb);
    double attn = 6.0 * (double)m->layers * seq_len * m->hidden * 0.5;

    if (nmm < pc.active * 0.5)
        nmm = pc.active * 0.5;
    if (is_lora(w))
        return 4.0 * nmm + attn * 2.0 / 3.0;
    return 6.0 * nmm + attn;
}

/* Default global batch (tokens) when the workload does not give one:
 * 2M tokens at 7B growing with N^0.4 (Llama: 4M at 65B; Llama 3 405B ended at
 * 16M), clamped to [0.25M, 16M]; fine-tuning uses at most 64 sequences. */
int engine_default_batch_seqs(const struct engine_model *m, const struct engine_workload *w, int seq)
{
    double tokens;
    struct engine_param_count pc = engine_params(m);
    double nb = pc.total / 1e9;

    if (!isnan(w->global_batch_tokens) && w->global_batch_tokens > 0)
        tokens = w->global_batch_tokens;
    else {
        tokens = 2.0e6 * pow(nb / 7.0 > 1e-3 ? nb / 7.0 : 1e-3, 0.4);
        if (tokens < 0.25e6) tokens = 0.25e6;
        if (tokens > 16e6) tokens = 16e6;
        if (w->task != TASK_PRETRAIN && tokens > 64.0 * seq)
            tokens = 64.0 * seq;
    }
    int seqs = (int)floor(tokens / seq + 0.5);
    return seqs > 0 ? seqs : 1;
}

void eval_ctx_init(struct eval_ctx *ctx, const struct engine_model *m, const struct engine_workload *w)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->m = m;
    ctx->w = w;
    ctx->pc = engine_params(m);
    ctx->seq = w->seq_len > 0 ? w->seq_len : (m->seq_len > 0 ? m->seq_len : 4096);
    ctx->fpt_model = engine_flops_per_token(m, w, ctx->seq);
    ctx->fpt_attn_fwd = 2.0 * (double)m->layers * ctx->seq * m->hidden * 0.5;
    for (int ri = 0; ri < 3; ri++)
        ctx->fpt_hw[ri] = fpt_hw_at(ctx, ri);
    ctx->batch_seqs = engine_default_batch_seqs(m, w, ctx->seq);
    ctx->moe_layers = m->experts > 0 ? m->layers - m->dense_layers : 0;
    ctx->lora_base_bytes = is_lora(w) ? engine_lora_base_bytes(m, w) : 0.0;
    ctx->lora_adapters = is_lora(w) ? lora_adapter_params(m, lora_rank(w)) : 0.0;
    /* MoE expert GEMMs are h x moe_ffn on a slice of the tokens: narrow
     * experts (DeepSeek-V3: 2048) run like a narrower model. */
    ctx->eff_width = m->hidden;
    if (m->experts > 0 && m->moe_ffn_hidden > 0 && m->moe_ffn_hidden < m->hidden)
        ctx->eff_width = (int)sqrt((double)m->hidden * m->moe_ffn_hidden);
}

/* ------------------------------------------------------------------ F4 */

double eval_peak_tflops(const struct engine_gpu *g, enum engine_precision p)
{
    switch (p) {
    case PREC_FP8: return g->fp8_tflops > 0 ? g->fp8_tflops : g->bf16_tflops;
    case PREC_FP32: return g->bf16_tflops * 0.5;  /* TF32 tensor cores: half of BF16 */
    default: return g->bf16_tflops;
    }
}

/* F4 efficiency model: the fraction of dense peak that transformer training
 * sustains on its GEMMs, by generation and precision, times a model-width
 * factor and a micro-batch factor:
 *   eta = eta_gen[gen][fp8] * h/(h + 2000) * t/(t + 128)
 * Element-wise work (norms, activations, residuals, optimizer) grows with
 * s*b*h while GEMM work grows with s*b*h^2, so its share falls as 1/h: a 2k
 * wide model reaches 50% of the ceiling, a 16k wide one 89%. t = tokens per
 * micro-batch (per-launch overheads). Tensor parallelism is not in the factor:
 * its cost is the communication modelled in eval_time.
 * eta_gen and the 2000 were fitted to published-runs.csv (Megatron-LM 2021,
 * llm-foundry, NeMo/Megatron-Bridge, Nemotron, Pythia, BLOOM, MT-NLG; 65
 * runs) by minimising the median |error| of the estimates against their
 * published throughput; the runs enter only through these constants. FP8
 * sustains a lower fraction of its doubled peak because attention, norms and
 * the quantisation epilogues stay in BF16. No published run in the file uses
 * AMD or Intel parts, so their ceilings are set conservatively (less mature
 * kernels and collectives) and are not calibrated; Ada uses Hopper's. */
static const double ETA_GEN[GEN_COUNT][2] = {
    [GEN_AMPERE] = {0.756, 0.756},
    [GEN_ADA] = {0.651, 0.441},
    [GEN_HOPPER] = {0.651, 0.441},
    [GEN_BLACKWELL] = {0.693, 0.462},
    [GEN_CDNA3] = {0.35, 0.25},
    [GEN_GAUDI3] = {0.32, 0.25},
};

#define ETA_WIDTH_H0 2000.0
#define ETA_TOKENS_T0 128.0

double eval_kernel_efficiency(const struct engine_gpu *g, enum engine_precision p, int hidden, int tp,
                              double tokens_per_microbatch)
{
    double h = hidden;
    int fp8 = p == PREC_FP8 && g->fp8_tflops > 0;
    double eta = ETA_GEN[g->gen][fp8];
    (void)tp;
    eta *= h / (h + ETA_WIDTH_H0);
    eta *= tokens_per_microbatch / (tokens_per_microbatch + ETA_TOKENS_T0);
    return eta;
}

/* ------------------------------------------------------------------ F8/F9 */

/* Overlap assumptions (what part of each communication is left on the
 * critical path). Megatron-style TP all-reduces sit between dependent GEMMs:
 * about 60% exposed even with async TP. Pipeline sends overlap with the
 * other micro-batches' compute except at warm-up/cool-down: 50%.
 * DP gradient reduction overlaps the backward pass of the last micro-batch
 * (bucketed all-reduce); ZeRO-3 gathers are prefetched one layer ahead and
 * overlap the same micro-batch's compute. MoE all-to-all: 70% exposed
 * (dispatch and combine block the expert GEMMs). */
/* (TP_EXPOSED, PP_EXPOSED, MOE_EXPOSED, DP_OVERLAP, ZERO3_OVERLAP and
 * DP_MIN_EXPOSED are in engine_int.h, where eval_step uses them.) */

double eval_achieved(const struct eval_ctx *ctx, const struct eval_hw *hw, int b, int cp, double *eff_out)
{
    double s = ctx->seq;
    double eff = eval_kernel_efficiency(hw->g, ctx->w->precision, ctx->eff_width, 0, (double)b * s / cp);
    double achieved;
    if (ctx->w->task == TASK_QLORA)
        eff *= 0.8;   /* NF4 dequantisation before every base GEMM (QLoRA s3) */
    if (!isnan(hw->matmul_tflops) && hw->matmul_tflops > 0) {
        /* A measured large-GEMM rate replaces peak * ceiling: cuBLAS reaches
         * ~80% of dense peak on large BF16 GEMMs, so keep the rest of the
         * efficiency model relative to that. */
        achieved = hw->matmul_tflops * 1e12 * (eff / 0.8);
    } else {
        achieved = hw->peak_tflops * 1e12 * eff * hw->eff_scale;
    }
    *eff_out = eff;
    return achieved;
}

/* Hardware FLOPs per token at recompute index ri: model FLOPs plus
 * recomputation, counted apart (F2). */
static double fpt_hw_at(const struct eval_ctx *ctx, int ri)
{
    double f = ctx->fpt_model;
    if (ri == 1)
        f += ctx->fpt_attn_fwd * 0.5;
    else if (ri == 2)
        f += is_lora(ctx->w) ? ctx->fpt_model * 0.5 : ctx->fpt_model / 3.0;
    return f;
}

void eval_pre_fill(const struct eval_ctx *ctx, const struct engine_parallel *p, struct engine_step_pre *e,
                   unsigned rc_mask)
{
    eval_pre_fill_base(ctx, p, e, rc_mask);
    eval_pre_zero(ctx, e, p->zero, p->offload, &e->z);
}

void eval_pre_fill_base(const struct eval_ctx *ctx, const struct engine_parallel *p, struct engine_step_pre *e,
                        unsigned rc_mask)
{
    eval_pre_fill_parts(ctx, p->tp > 0 ? p->tp : 1, p->pp > 0 ? p->pp : 1, p->dp > 0 ? p->dp : 1,
                        p->cp > 0 ? p->cp : 1, p->ep > 0 ? p->ep : 1, p->micro_batch > 0 ? p->micro_batch : 1,
                        p->vpp > 0 ? p->vpp : 1, p->global_batch > 0 ? p->global_batch : (int)ctx->batch_seqs, e,
                        rc_mask);
}

/* eval_time's last steps, from layout e's parts (ZeRO stage and offload
 * z) at recompute index ri and one GPU's sustained rate on hw. */
static void eval_out_of(const struct eval_ctx *ctx, const struct eval_hw *hw, const struct engine_step_pre *e,
                        const struct engine_step_zero *z, int ri, double achieved, double eff, struct eval_out *o)
{
    struct eval_hwc c;
    struct eval_parts t;
    double fpt_hw = ctx->fpt_hw[ri], step;
    int n;

    eval_hwc_fill(&c, hw);
    n = e->n;
    eval_step(e, z, ri, &c, n * achieved, &t);
    step = t.step;

    o->step_s = step;
    o->tokens_per_s = e->tokens_step / step;
    o->t_compute = t.t_comp;
    o->t_tp = t.t_tp;
    o->t_pp = t.t_pp;
    o->t_dp = t.t_dp;
    o->t_moe = t.t_moe;
    o->t_exposed = t.exposed;
    o->bubble_fraction = t.t_comp * e->bubble / step;
    o->comm_fraction = t.exposed / step;
    o->mfu = ctx->fpt_model * o->tokens_per_s / (n * hw->peak_tflops * 1e12);
    o->hfu = fpt_hw * o->tokens_per_s / (n * hw->peak_tflops * 1e12);
    o->achieved_tflops = ctx->fpt_model * o->tokens_per_s / n / 1e12;
    o->eff = eff;
    o->global_batch = e->gbs;
    o->grad_accum = e->micro;
}

void eval_time(const struct eval_ctx *ctx, const struct eval_hw *hw, const struct engine_parallel *p,
               struct eval_out *o)
{
    struct engine_step_pre e;
    int ri = eval_rc_index(p->recompute);
    double eff, achieved;

    eval_pre_fill(ctx, p, &e, 1u << ri);
    achieved = eval_achieved(ctx, hw, e.b, e.cp, &eff);
    eval_out_of(ctx, hw, &e, &e.z, ri, achieved, eff, o);
}

void eval_time_ref(const struct eval_ctx *ctx, const struct eval_hw *hw, const struct eval_ref *r,
                   struct eval_out *o)
{
    eval_out_of(ctx, hw, &r->pre, &r->pre.z, r->ri, r->achieved, r->eff, o);
}

/* A lower bound on eval_time's step_s / global_batch for layout p at any
 * recompute level: the compute time with model FLOPs only (recompute only
 * adds) stretched by the pipeline bubble, with no communication and no
 * optimizer step (both add). The same expressions as eval_time, lowered by
 * 1e-9 against rounding. The search skips layouts whose bound cannot beat
 * the best layout so far. */
double eval_score_lower_bound(const struct eval_ctx *ctx, const struct eval_hw *hw, const struct engine_parallel *p)
{
    int tp = p->tp > 0 ? p->tp : 1, pp = p->pp > 0 ? p->pp : 1, dp = p->dp > 0 ? p->dp : 1;
    int cp = p->cp > 0 ? p->cp : 1;
    int b = p->micro_batch > 0 ? p->micro_batch : 1, v = p->vpp > 0 ? p->vpp : 1;
    int n = tp * pp * dp * cp;
    double s = ctx->seq;
    int gbs = p->global_batch > 0 ? p->global_batch : (int)ctx->batch_seqs;
    int micro = (gbs + dp * b - 1) / (dp * b);
    double eff, achieved, t_comp, bubble;

    if (micro < 1)
        micro = 1;
    gbs = micro * dp * b;
    achieved = eval_achieved(ctx, hw, b, cp, &eff);
    t_comp = ctx->fpt_model * ((double)gbs * s) / (n * achieved);
    bubble = pp > 1 ? (double)(pp - 1) / ((double)v * micro) : 0.0;
    return t_comp * (1.0 + bubble) / gbs * (1.0 - 1e-9);
}

/* The global batch, in sequences, eval_time runs layout p at. */
int eval_global_batch(const struct eval_ctx *ctx, const struct engine_parallel *p)
{
    int dp = p->dp > 0 ? p->dp : 1, b = p->micro_batch > 0 ? p->micro_batch : 1;
    int gbs = p->global_batch > 0 ? p->global_batch : (int)ctx->batch_seqs;
    int micro = (gbs + dp * b - 1) / (dp * b);
    if (micro < 1)
        micro = 1;
    return micro * dp * b;
}

/* ------------------------------------------------------------------ F10 */

/* F10 checkpoint size: 14 bytes per parameter for full training (bf16
 * weights 2 + fp32 master 4 + Adam m, v 8; BLOOM 2.3 TB / 176B, Megatron
 * 13.8 TB / 1T); 8-bit Adam 8; LoRA saves only adapters with their state. */
double engine_ckpt_bytes(const struct eval_ctx *ctx)
{
    if (is_lora(ctx->w))
        return ctx->lora_adapters * 14.0;
    return ctx->pc.total * (ctx->w->optimizer == OPT_ADAMW_8BIT ? 8.0 : 14.0);
}

/* Young (1974) with Daly's (2006) correction: tau = sqrt(2 delta M) *
 * (1 + sqrt(delta/(2M))/3 + delta/(18M)) - delta, and M when delta >= 2M. */
double engine_ckpt_interval_s(double delta_s, double mtbf_s)
{
    double x;
    if (delta_s <= 0 || mtbf_s <= 0)
        return 0;
    if (delta_s >= 2.0 * mtbf_s)
        return mtbf_s;
    x = delta_s / (2.0 * mtbf_s);
    return sqrt(2.0 * delta_s * mtbf_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

/* F4b job start-up, the fixed time every run (and every restart) pays
 * before the first step, which F4's "FLOPs / throughput" leaves out:
 *   T_start = T_provision + T_warmup + t_node * nodes + load_bytes_per_node / r_load
 * - T_provision = 300 s: scheduling, node provisioning and container start
 *   (assumption: cloud VMs take minutes to boot and pull a multi-GB image;
 *   a reserved Slurm cluster is faster, so this is the cautious end).
 * - T_warmup = 120 s: first steps with kernel autotuning / compilation and the
 *   data loader filling its prefetch queues (assumption).
 * - t_node = 0.25 s per node: NCCL bootstrap, rendezvous and per-node health
 *   checks, which grow with the node count (assumption: ~8 min at 2,048
 *   nodes, the size where Llama 3 saw an interruption every ~3 h; facts s3.1).
 * - load: every node reads what it needs to start: the base weights
 *   (2 B/param, fine-tuning) plus its share of the checkpoint (on a restart),
 *   at r_load = 2 GB/s per node from shared storage or the local NVMe cache
 *   (R29; assumption: one NIC's worth of a parallel FS, below NVMe's 7 GB/s).
 * facts s4's worked example budgets R = 10 min per restart; this gives 7-8
 * min for one node and ~16 min for 2,048 nodes of a 405B model. */
#define STARTUP_PROVISION_S 300.0
#define STARTUP_WARMUP_S 120.0
#define STARTUP_PER_NODE_S 0.25
#define STARTUP_LOAD_BPS 2.0e9

double engine_startup_s(int nodes, double load_bytes_per_node)
{
    double nd = nodes > 0 ? nodes : 1;
    return STARTUP_PROVISION_S + STARTUP_WARMUP_S + STARTUP_PER_NODE_S * nd + load_bytes_per_node / STARTUP_LOAD_BPS;
}

double engine_load_bytes_per_node(const struct eval_ctx *ctx, int nodes)
{
    double base = ctx->w->task == TASK_PRETRAIN ? 0.0 : 2.0 * ctx->pc.total;
    return base + engine_ckpt_bytes(ctx) / (nodes > 0 ? nodes : 1);
}

/* F4c cloud billing: engine_billed_hours (engine_int.h, inlined into the pricing of every candidate). */

/* F10 goodput. Failure rate 2.2e-5 per GPU-hour: Llama 3's 1.97e-5
 * unexpected interruptions plus its 11% planned ones (47 of 466); the high
 * case scales it 3x (Meta RSC research clusters), the low case 0.5x.
 * Checkpoints are asynchronous: the blocking stall is copying the GPU's shard
 * to pinned host memory over PCIe at half the link rate, plus 5 s of
 * barrier and metadata. The interval is Young/Daly clamped to 10-60 min
 * (R31). A restart costs a full job start-up (F4b: rescheduling, NCCL init,
 * reading the checkpoint back). Waste = delta/tau + tau/(2M) + R/M (first
 * order). */
struct goodput eval_goodput(int n, double ckpt_bytes_per_gpu, double host_copy_gbs, double fail_scale,
                            double restart_s)
{
    struct goodput g;
    double lambda = 2.2e-5 * fail_scale;
    double M, waste;

    g.mtbf_h = 1.0 / (lambda * (n > 0 ? n : 1));
    M = g.mtbf_h * 3600.0;
    g.delta_s = 5.0 + ckpt_bytes_per_gpu / (host_copy_gbs * 0.5 * 1e9);
    g.interval_s = engine_ckpt_interval_s(g.delta_s, M);
    if (g.interval_s < 600.0)
        g.interval_s = 600.0;
    if (g.interval_s > 3600.0)
        g.interval_s = 3600.0;
    g.restart_s = restart_s;
    waste = g.delta_s / g.interval_s + g.interval_s / (2.0 * M) + g.restart_s / M;
    g.goodput = 1.0 - waste;
    if (g.goodput < 0.2)
        g.goodput = 0.2;
    return g;
}

double engine_pcie_gbs(int gen)
{
    switch (gen) {
    case 3: return 15.75;
    case 4: return 31.5;
    case 5: return 63.0;
    case 6: return 121.0;
    default: return 15.75;
    }
}

/* TP must divide the attention heads (and KV heads under GQA, or be a
 * multiple of them) and the hidden size. */
int engine_fits_tp(const struct engine_model *m, int tp)
{
    int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
    if (tp <= 1)
        return 1;
    if (m->heads % tp != 0 || m->hidden % tp != 0)
        return 0;
    if (kv % tp != 0 && tp % kv != 0)
        return 0;
    return 1;
}
