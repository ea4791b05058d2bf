/* engine.h: the public face of the planner module `engine`.
 *
 * The planner turns a training workload (model, task, tokens, precision,
 * deadline, budget) and a hardware catalog into plans: three tiers from a
 * search (engine_recommend) or one evaluation of a fixed cluster
 * (engine_estimate). Everything here is a plain value with fixed arrays so a
 * caller can keep results on the stack or copy them with `=`; the module does
 * no I/O, reads no clock, allocates nothing and keeps no globals. The catalog
 * comes in as an argument (db_catalog_load fills it from SQL rows), results go
 * out as structs, and the JSON/HTTP/CLI layers translate.
 *
 * Units follow API.md: GiB for memory, GB/s (`_gbs`) and Gb/s (`_gbps`), USD,
 * days/hours/minutes as named. A double that is "absent" is NaN. */
#ifndef GPUPLAN_ENGINE_H
#define GPUPLAN_ENGINE_H

#include <stddef.h>

#include "expectations.h"
#include "status.h"

/* Changes when the same request can get another answer: saved plans keep
 * it, and a plan's revision diff names it. 1.1.0: NVL72's
 * 72-GPU NVLink domain in the step model, estimates judged against the
 * deadline and budget, needed budgets and deadlines rounded up, shapes of
 * params-only MoE models, storage tier costs, T3's ib_write_bw floors.
 * 1.2.0: a node wider than its scale-up groups (bridged PCIe pairs, H200
 * NVL's 4-way groups, PCIe-only cards) times DP, PP and TP beyond a group
 * at the node's PCIe busbw and expects it (node_busbw_gbs); tiers that do
 * not fit write null, not 0; a figure that is not 0 is never written 0;
 * plans list the gpu.model expectation. */
#define ENGINE_VERSION "1.2.0"

#define ENGINE_ID_MAX 40
#define ENGINE_NAME_MAX 64
#define ENGINE_SOURCE_MAX 240
#define ENGINE_DATE_MAX 12

#define CATALOG_GPUS_MAX 40
#define CATALOG_FABRICS_MAX 16
#define CATALOG_STORAGE_MAX 8
#define CATALOG_MODELS_MAX 48
#define WORKLOAD_GPUS_ALLOWED_MAX 40

/* ---------------------------------------------------------------- catalog */

/* How the GPUs inside one node reach each other (R12-R15). */
enum engine_link {
    LINK_PCIE = 0,        /* through PCIe switches / CPU root complex */
    LINK_NVLINK_BRIDGE,   /* NVLink bridge between 2 (or 4) PCIe cards */
    LINK_NVSWITCH,        /* NVLink + NVSwitch, all-to-all at full speed */
    LINK_XGMI_MESH,       /* AMD Infinity Fabric point-to-point mesh */
    LINK_ETHERNET_SCALEUP /* Intel Gaudi on-die RoCE ports */
};

/* GPU generation drives the efficiency model (F4 MFU by generation). */
enum engine_gen {
    GEN_AMPERE = 0,
    GEN_ADA,
    GEN_HOPPER,
    GEN_BLACKWELL,
    GEN_CDNA3,
    GEN_GAUDI3,
    GEN_COUNT
};

/* How far a catalog price can be trusted (migrations/0003). */
enum engine_price_conf {
    PRICE_QUOTE = 0,                  /* current list price read at the source */
    PRICE_SECONDARY,                  /* published price via press/aggregators (volatile) */
    PRICE_ESTIMATE,                   /* our own estimate */
    PRICE_ASSUMPTION                  /* someone's accounting assumption, not a market price */
};

struct engine_gpu {
    char id[ENGINE_ID_MAX];           /* "h100-sxm-80gb" */
    char name[ENGINE_NAME_MAX];
    char vendor[16];
    enum engine_gen gen;
    double memory_gib;                /* usable device memory */
    double mem_bw_gbs;
    double bf16_tflops;               /* dense, FP32 accumulate */
    double fp8_tflops;                /* dense; 0 when the card has no FP8 */
    double tdp_w;
    enum engine_link link;
    double scaleup_gbs;               /* per GPU, bidirectional, as vendors quote */
    int scaleup_domain;               /* GPUs that share the scale-up link */
    int nvlinks;                      /* NVLinks per GPU pair seen by topo -m (T5) */
    double intra_busbw_gbs;           /* all_reduce busbw over the scale-up domain (T1) */
    int pcie_gen;
    int per_node;                     /* GPUs per server as sold (8 for HGX) */
    int per_node_min;                 /* smallest server offered (1 for PCIe cards) */
    double default_fabric_gbps;       /* per-GPU NIC rate of the typical cloud node */
    double cloud_usd_per_gpu_hour;
    double server_usd;                /* one server with per_node GPUs, no fabric */
    char price_as_of[ENGINE_DATE_MAX];
    char price_source[ENGINE_SOURCE_MAX];
    char source[ENGINE_SOURCE_MAX];
    int restricted;                   /* not generally sold/rented: only when named in gpus_allowed */
    char availability_note[ENGINE_SOURCE_MAX];
    enum engine_price_conf cloud_price_conf, server_price_conf;
    /* RDMA ports on the chip that leave the node (Gaudi 3: 3 x 200 GbE of
     * its 24; migrations/0004). Such a GPU needs no NIC (R16): its fabric is
     * switch ports and cables, at most ports x port rate per GPU. 0 = NICs. */
    int scaleout_ports;
    double scaleout_port_gbps;
    char scaleout_source[ENGINE_SOURCE_MAX];
};

enum engine_fabric_kind { FABRIC_NONE = 0, FABRIC_ROCE, FABRIC_INFINIBAND };

struct engine_fabric {
    char id[ENGINE_ID_MAX];           /* "ib-ndr", "roce-400" */
    char name[ENGINE_NAME_MAX];
    enum engine_fabric_kind kind;
    double gbps;                      /* port line rate */
    double busbw_per_nic_gbs;         /* realised NCCL busbw per NIC (T2) */
    double nic_usd;
    int switch_radix;                 /* ports at this rate per switch */
    double switch_usd;
    double port_usd;                  /* switch cost per port */
    double cable_usd;                 /* one optic/cable link estimate */
    double switch_kw;
    char as_of[ENGINE_DATE_MAX];
    char source[ENGINE_SOURCE_MAX];
};

struct engine_storage {
    char id[ENGINE_ID_MAX];           /* local-nvme | nas | parallel-fs | object | archive */
    char name[ENGINE_NAME_MAX];
    double read_gbs_per_tb;           /* throughput that scales with capacity (F11) */
    double write_gbs_per_tb;
    double read_gbs_max;              /* per deployment ceiling, 0 = none */
    double write_gbs_max;
    double min_tb;
    double usd_per_tb_month;
    double usd_per_tb_buy;
    char as_of[ENGINE_DATE_MAX];
    char source[ENGINE_SOURCE_MAX];
};

/* A model shape. Zero means "unknown"; engine_model_complete() fills the
 * gaps from params_b (F1 inverted with a typical aspect ratio). */
struct engine_model {
    char id[ENGINE_ID_MAX];
    char name[ENGINE_NAME_MAX];
    double params_b;                  /* declared total; 0 = from shape (F1) */
    double active_params_b;           /* declared active (MoE); 0 = from shape */
    int layers, hidden, heads, kv_heads, ffn_hidden, vocab;
    int experts, experts_active, shared_experts, moe_ffn_hidden, dense_layers;
    int gated;                        /* 1 = SwiGLU (3 matrices), 0 = GELU (2) */
    int tied_embeddings;
    int seq_len;                      /* default training sequence length */
    char source[ENGINE_SOURCE_MAX];
};

struct catalog {
    struct engine_gpu gpus[CATALOG_GPUS_MAX];
    int n_gpus;
    struct engine_fabric fabrics[CATALOG_FABRICS_MAX];
    int n_fabrics;
    struct engine_storage storage[CATALOG_STORAGE_MAX];
    int n_storage;
    struct engine_model models[CATALOG_MODELS_MAX];
    int n_models;
};

const struct engine_gpu *catalog_gpu_find(const struct catalog *c, const char *id);
const struct engine_model *catalog_model_find(const struct catalog *c, const char *id);
const struct engine_storage *catalog_storage_find(const struct catalog *c, const char *id);
/* Checks every row for values the formulas cannot use (zero memory, zero
 * peak...); names the row and field in err. */
enum status catalog_validate(const struct catalog *c, char *err, size_t errlen);

/* ---------------------------------------------------------------- workload */

enum engine_task { TASK_PRETRAIN = 0, TASK_FINETUNE, TASK_LORA, TASK_QLORA };
enum engine_precision { PREC_BF16 = 0, PREC_FP16, PREC_FP8, PREC_FP32 };
enum engine_pricing { PRICING_CLOUD = 0, PRICING_BUY };
enum engine_optimizer { OPT_ADAMW = 0, OPT_ADAMW_8BIT };
enum engine_recompute { RECOMPUTE_NONE = 0, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL };

struct engine_workload {
    char preset[ENGINE_ID_MAX];       /* "" when the shape is explicit */
    struct engine_model model;        /* resolved by engine_workload_resolve */
    enum engine_task task;
    double tokens_b;
    int seq_len;                      /* 0 = model default */
    enum engine_precision precision;
    enum engine_optimizer optimizer;
    int lora_rank;                    /* 0 = 16 */
    int standard_attention;           /* 1 = no FlashAttention: scores materialised (older stacks) */
    double global_batch_tokens;       /* NaN = chosen by the engine */
    double deadline_days;             /* NaN = none */
    double budget_usd;                /* NaN = none */
    enum engine_pricing pricing;
    double dataset_tb;                /* NaN = from tokens (F11) */
    char gpus_allowed[WORKLOAD_GPUS_ALLOWED_MAX][ENGINE_ID_MAX];
    int n_gpus_allowed;               /* 0 = whole catalog */
    int max_gpus;                     /* 0 = no cap */
};

/* Sets the defaults above (NaNs, pricing cloud, bf16...). */
void engine_workload_init(struct engine_workload *w);
/* Looks up the preset (if any), fills model shape gaps, checks ranges and the
 * gpus_allowed ids. Names the offending field in err. */
enum status engine_workload_resolve(struct engine_workload *w, const struct catalog *c,
                                    char *err, size_t errlen);

/* A parallel layout. Zero (or -1 for zero/recompute) means "engine chooses". */
struct engine_parallel {
    int tp, pp, dp, ep, cp;
    int zero;                         /* 0..3, -1 = choose */
    int recompute;                    /* enum engine_recompute, -1 = choose */
    int micro_batch;
    int global_batch;                 /* sequences per step */
    int vpp;                          /* interleaved stages per device (F9) */
    int offload;                      /* optimizer state in host RAM (ZeRO-Offload) */
};

/* Values measured on the real cluster (from reports) that replace catalog
 * assumptions in an estimate. NaN = absent.
 * - intra_busbw_gbs: nccl-tests all_reduce busbw at the largest message on
 *   one node (T1), GB/s.
 * - inter_busbw_gbs: the same across two or more nodes with every GPU taking
 *   part, GB/s; it is about NICs per node x per-NIC busbw (T2), so a report
 *   that only has ib_write_bw per NIC (Gb/s) converts as
 *   nics_per_node * gbps / 8 * 0.92.
 * - matmul_tflops: sustained dense GEMM rate per GPU at the plan's precision. */
struct engine_measured {
    double intra_busbw_gbs;
    double inter_busbw_gbs;
    double matmul_tflops;
};

void engine_measured_init(struct engine_measured *m);

struct engine_cluster {
    char gpu[ENGINE_ID_MAX];
    int count;
    int per_node;                     /* 0 = catalog default */
    double fabric_gbps_per_gpu;       /* NaN = GPU's default */
    enum engine_fabric_kind fabric_kind; /* FABRIC_NONE = engine chooses */
};

struct engine_estimate_request {
    struct engine_workload workload;
    struct engine_cluster cluster;
    struct engine_parallel parallel;
    struct engine_measured measured;
};

void engine_estimate_request_init(struct engine_estimate_request *r);

/* ---------------------------------------------------------------- plans */

#define PLAN_EXPECTATIONS_MAX 32
#define PLAN_RATIONALE_MAX 28
#define PLAN_WARNINGS_MAX 8
#define PLAN_BOM_MAX 12
#define PLAN_STORAGE_TIERS_MAX 4
#define PLAN_TEXT_MAX 280

enum engine_tier { TIER_MINIMUM = 0, TIER_RECOMMENDED, TIER_PERFORMANCE, TIER_COUNT };

struct plan_rationale {
    char rule[16];                    /* "R34", "F5", "T1" */
    char text[PLAN_TEXT_MAX];
};

struct plan_storage_tier {
    char tier[8];                     /* hot | warm | cold */
    char kind[ENGINE_ID_MAX];         /* local-nvme | nas | parallel-fs | object | archive */
    double capacity_tb, read_gbs, write_gbs;
    double usd;                       /* purchase or month-priced for the run */
};

struct plan_bom_line {
    char item[32];                    /* servers, gpu-hours, nics, switches, optics, storage */
    char description[96];
    double quantity, unit_usd, total_usd;
    char as_of[ENGINE_DATE_MAX];
};

struct engine_plan {
    int feasible;
    char why[PLAN_TEXT_MAX];          /* why infeasible; "" when feasible */
    double need_budget_usd;           /* budget that would make it feasible; NaN */
    double need_deadline_days;        /* deadline that would make it feasible; NaN */

    int gpu_index;                    /* into catalog->gpus, -1 when none */
    char gpu_id[ENGINE_ID_MAX];
    char gpu_name[ENGINE_NAME_MAX];
    int count, per_node, nodes;

    struct engine_parallel par;       /* fully chosen */
    const char *recompute_name;

    double mem_per_gpu_gib, mem_capacity_gib, mem_weights_gib, mem_gradients_gib,
           mem_optimizer_gib, mem_activations_gib, mem_other_gib, host_offload_gib;

    const char *intra_node;           /* nvswitch | nvlink-bridge | pcie | ... */
    double gpu_gpu_gbs;               /* scale-up bandwidth per GPU */
    double intra_busbw_gbs;           /* assumed or measured */

    enum engine_fabric_kind fabric_kind;
    char fabric_id[ENGINE_ID_MAX];
    double fabric_gbps_per_gpu, fabric_port_gbps;
    int nics_per_node;                /* NICs bought per node (0 with on-chip ports) */
    int scaleout_ports_per_node;      /* fabric ports per node: NICs or on-chip ports */
    const char *topology;             /* single-node | single-switch | leaf-spine | fat-tree */
    const char *oversubscription;
    int lossless;
    int switches_leaf, switches_spine, switches_core, links;
    double inter_busbw_gbs;           /* per node, assumed or measured */

    struct plan_storage_tier storage[PLAN_STORAGE_TIERS_MAX];
    int n_storage;
    double ckpt_size_gb, ckpt_interval_min, ckpt_write_gbs, ckpt_stall_s;
    int ckpt_keep;
    double dataset_tb, read_gbs;

    int cpu_threads_per_node;
    double ram_gb_per_node;
    double power_kw;

    double days, days_low, days_high, gpu_hours, tokens_per_s, step_time_s;
    double mfu, hfu, comm_fraction, bubble_fraction, goodput, achieved_tflops;
    double flops_total;               /* model FLOPs of the whole job (F2/F3) */
    double mtbf_job_h;
    double startup_s;                 /* F4b: submission to first productive step */
    double billed_hours;              /* F4c: hours billed per GPU (cloud), 0 when bought */
    double cost_usd, cost_low_usd, cost_high_usd;
    enum engine_pricing basis;
    enum engine_price_conf price_conf;  /* confidence of the GPU price the cost rests on */

    struct expectation expectations[PLAN_EXPECTATIONS_MAX];
    int n_expectations;
    struct plan_rationale rationale[PLAN_RATIONALE_MAX];
    int n_rationale;
    char warnings[PLAN_WARNINGS_MAX][PLAN_TEXT_MAX];
    int n_warnings;
    struct plan_bom_line bom[PLAN_BOM_MAX];
    int n_bom;
    double bom_total_usd;
};

/* Whether the plan has a cluster layout: one that "does not fit" (no
 * parallel layout of any allowed cluster, or of an estimate's cluster,
 * fits memory or the given parallel settings) holds only its why and,
 * for an estimate, the cluster asked for with the memory its leanest
 * layout needs and the card's capacity. Every other figure of such a plan
 * has no value (the encoders write null, never 0 days or $0). A plan that
 * fits but misses the deadline or budget has a layout (and all figures). */
static inline int engine_plan_fits(const struct engine_plan *p)
{
    return p->par.tp >= 1;
}

/* One cluster the search scored, with its fastest layout that fits. The
 * search keeps them in the recommendation (the caller's memory) so the engine
 * needs neither the heap nor a large stack; they also describe the cost/time
 * frontier the tiers were picked from. */
struct engine_candidate {
    int gi, per_node, nodes, n;       /* catalog GPU index, GPUs per node, nodes, GPUs */
    struct engine_parallel par;
    double fabric_gbps;               /* per GPU, chosen with the cluster; 0 on one node */
    double tokens_per_s, mem_gib, days, cost;   /* days and cost exactly as the plan reports them */
    /* The cluster's start-up (F4b) and checkpoint goodput (F10) at the
     * nominal failure rate: they read no tokens, so the search fills them
     * once and pricing (again on every memo hit) only divides the tokens. */
    double startup_s, goodput, ckpt_interval_s;
    /* The parts of a rented cluster's storage bill that read no tokens
     * (engine_cloud_cost_fixed), filled by the search as well: the hot
     * tier's storage kind (-1: not in the catalog), the capacity its
     * checkpoint and read bandwidths need (F11; -INFINITY when none) and the
     * monthly price of the tier at that capacity, and the monthly price of
     * the per-node NVMe cache of more than two nodes (NaN: none). */
    int hot_kind;
    double hot_bw_tb, hot_bw_month_usd, cache_month_usd;
};

#define ENGINE_CANDIDATES_MAX 2048

/* Engine-internal (engine_int.h: eval_pre_fill, eval_step): what eval_time's
 * step time reads of a layout and the workload but not of the hardware, as
 * the leading parts of its expressions, evaluated in the same order, so that
 * eval_step's step is eval_time's bit for bit. By recompute level (0 none, 1
 * selective, 2 full) where it differs; the parts that read the ZeRO stage
 * and offload apart (struct engine_step_zero, eval_pre_zero), so that the
 * stages of one layout share the rest. */
struct engine_step_zero {
    double dp_q, opt_q;               /* F8 DP and optimizer terms before / bandwidth */
    unsigned char zero3, offload;
};
struct engine_step_pre {
    double tokens_step;               /* global batch x sequence length */
    double bubble;                    /* F9 (p-1)/(v*m) */
    double comp[3];                   /* hardware FLOPs per token x tokens_step */
    double sa[3];                     /* standard attention's HBM term before / bandwidth (0: FlashAttention) */
    double tp_q[3];                   /* F8 TP term before / bandwidth */
    double pp_q, moe_q;               /* F8 PP and MoE terms before / bandwidth */
    double psi;                       /* parameters of this GPU's model-parallel shard */
    struct engine_step_zero z;        /* for the layout's own ZeRO stage and offload */
    int tp, pp, dp, cp, ep, b, micro, gbs, n;
    int model_par, ep_tp;             /* tp x pp x cp, ep x tp */
    unsigned char std_attn, moe;
};

/* The free search's working memory (engine_search.c), kept in the caller's
 * recommendation like the candidates: the search's clusters in its order,
 * and for one GPU count at a time the layouts the search walks (tp, pp, ep,
 * ZeRO, offload, micro-batch, in its order, one group per tp), each with
 * what it costs in memory (F5-F7) and what its step time reads of it. None
 * of it reads the GPU type, so the GPU types with that count (most are 8
 * per server) walk the list together, each with its own tests, and only
 * compare and divide. A layout's ZeRO stages and offload share one base
 * (tp, pp, dp, ep, micro-batch). A count whose list does not fit is walked
 * layout by layout. Not part of the answer; engine_recommend_search
 * empties it. */
#define ENGINE_LAYOUT_ENTRIES_MAX 8192
#define ENGINE_LAYOUT_BASES_MAX 2048
#define ENGINE_LAYOUT_TP_GROUPS 5    /* tp 1, 2, 4, 8, 16 */
struct engine_layout_base {
    struct engine_step_pre pre;       /* its z unused: each entry has its own */
    double bubble1, gbs;              /* 1 + pre.bubble and pre.gbs: the same doubles, ready */
    int vpp;
};
struct engine_layout_entry {
    struct engine_step_zero z;
    double lower_bound_gib;           /* eval_memory_lower_bound_gib over every recompute level */
    double mem_gib[3];                /* per recompute level, engine_memory_finish's total */
    int base;                         /* index in bases */
    unsigned char zero;
    unsigned char bi;                 /* micro-batch 1 << bi */
    unsigned char batch_ok;           /* its global batch is within the search's cap */
};
/* F6 activations of a tp group, pp = 1 << pp_log and micro-batch 1 << bi
 * (engine_memory_activations3), which read the GPU count only through the
 * micro-batches in flight: kept per search for the next count with the same
 * in_flight (0: empty). */
#define ENGINE_LAYOUT_PP_LOGS 16
#define ENGINE_RUN_FIXED_SLOTS 128
struct engine_layout_act {
    int in_flight;
    double act[3], lb;
};
/* One cluster of the search (a GPU type on `nodes` servers of per_node) and
 * what its walk found: at most one per candidate. */
struct engine_search_cluster {
    int gi, per_node, nodes, n;
    int next;                         /* the next cluster of the same n, -1: none */
    int found;                        /* a layout fits: its candidate is in candidates[this index]
                                       * until the search moves it to its place */
    long scored;                      /* layouts scored (configs_evaluated) */
    double min_mem_gib;               /* none found: the least per-GPU memory seen */
};
struct engine_layout_memo {
    int n_entries, n_bases;
    int cap_entries;                  /* entries it may hold (at most ENGINE_LAYOUT_ENTRIES_MAX) */
    long lists;                       /* GPU counts walked from a list */
    long walked;                      /* clusters walked because their count's list did not fit */
    struct engine_search_cluster clusters[ENGINE_CANDIDATES_MAX];
    struct engine_layout_entry entries[ENGINE_LAYOUT_ENTRIES_MAX];
    struct engine_layout_base bases[ENGINE_LAYOUT_BASES_MAX];
    struct engine_layout_act acts[ENGINE_LAYOUT_TP_GROUPS][ENGINE_LAYOUT_PP_LOGS][3];
    /* engine_run_fixed of the search's clusters by GPU count, node count
     * and PCIe generation (all it reads of one), with the node cache's
     * monthly price (engine_cloud_cache_month_usd), open addressing (n 0:
     * empty); engine_recommend_search empties it */
    struct engine_run_fixed_slot {
        int n, nodes, gen;
        double startup_s, goodput, interval_s, cache_month_usd;
    } run_fixed[ENGINE_RUN_FIXED_SLOTS];
};

/* What the first step of completing a plan (the cluster's part: time model,
 * memory, fabric, checkpoints, most texts) hands the second (the part that
 * follows the tokens and the dataset): the start-up, goodput and throughput
 * of the expected, low and high cases, the fabric rate and catalog row
 * (-1: none), the rationale entries the second step writes (-1: past the
 * list's end) and where its run-length warning goes. Engine-internal. */
struct engine_plan_fixed {
    double startup_s[3], goodput[3], tokens_per_s[3];
    double rate;
    int fabric;
    int r_flops, r_days, r_scale, r_data, r_cost;
    int warn_at;
};

/* The pricing's working memory (engine_recommend_price): the cluster parts
 * of plans it completed, each for one catalog, one workload less tokens_b,
 * deadline_days, budget_usd and dataset_tb, and one cluster and layout,
 * which a later pricing of the same search result reuses (the tiers of
 * consecutive requests mostly show the same clusters). A slot is used only
 * when all of that compares equal; the catalog is compared by address, so a
 * catalog must not change in place while recommendation memory priced with
 * it is priced again without a search in between (engine_recommend_search
 * clears this; the server's catalog never changes). Not part of the answer. */
/* A text the pricing writes again for each request (plan_priced's
 * rationale, its run-length warning, the bill lines), kept with what its
 * conversions printed (engine_vfmt_memo, engine_int.h): the next text from
 * the same format string whose every %d and %s is equal and every number
 * prints the same digits (its form: rounded digits, decimals, sign,
 * exponent) is this text, copied instead of formatted. Days and costs move
 * with tokens_b, but mostly below the digits a text shows. */
struct engine_num_form {
    unsigned long long u;             /* the digits, prec of them decimals */
    int prec, e;                      /* e: %g's exponent in d.ddde+XX, -1 for none */
    unsigned char neg, trim;          /* sign; trailing fraction zeros dropped (%g) */
};
#define ENGINE_TEXT_MEMO_CONV 14
struct engine_text_memo {
    const char *fmt;                  /* NULL: empty */
    size_t n;                         /* the destination's size */
    int nconv, len;                   /* conversions; the text's length */
    unsigned char kind[ENGINE_TEXT_MEMO_CONV];   /* 'd', 's', 'f', 'g' */
    unsigned char prec[ENGINE_TEXT_MEMO_CONV];
    unsigned short str_at[ENGINE_TEXT_MEMO_CONV];   /* %s: where in strs */
    unsigned char str_len[ENGINE_TEXT_MEMO_CONV];   /* %s: its length there */
    const char *str_ptr[ENGINE_TEXT_MEMO_CONV];     /* %s: the argument it was last equal to */
    unsigned short out_beg[ENGINE_TEXT_MEMO_CONV], out_end[ENGINE_TEXT_MEMO_CONV];   /* its bytes in text */
    unsigned short strs_len;
    unsigned long long bits[ENGINE_TEXT_MEMO_CONV];   /* %d: the int; %f, %g: the double's bits */
    struct engine_num_form form[ENGINE_TEXT_MEMO_CONV];
    /* %f, %g: doubles from keep_lo to keep_hi print as form does (an empty
     * range when none can be vouched for; NaN: not worked out yet, done
     * when a second double prints the form, engine_plan.c form_range) */
    double keep_lo[ENGINE_TEXT_MEMO_CONV], keep_hi[ENGINE_TEXT_MEMO_CONV];
    char strs[128];
    char text[PLAN_TEXT_MAX];
};
/* A plan memo slot's texts by where plan_priced writes them: the five
 * rationale texts, the warning, the bill lines by their index, then the
 * pricing's why texts of a tier showing the slot's cluster, by tier. */
enum { ENGINE_TEXT_R_FLOPS, ENGINE_TEXT_R_DAYS, ENGINE_TEXT_R_SCALE, ENGINE_TEXT_R_DATA, ENGINE_TEXT_R_COST,
       ENGINE_TEXT_WARN, ENGINE_TEXT_BOM, ENGINE_TEXT_WHY = ENGINE_TEXT_BOM + PLAN_BOM_MAX,
       ENGINE_TEXT_SITES = ENGINE_TEXT_WHY + TIER_COUNT };

#define ENGINE_PLAN_MEMO_SLOTS 4
#define ENGINE_CLUSTER_TEXTS (PLAN_RATIONALE_MAX + PLAN_WARNINGS_MAX)
struct engine_plan_memo {
    const struct catalog *catalog;    /* NULL: empty */
    unsigned long long used;
    unsigned long long filled;        /* the plan memo's tick when plan was made (0: never) */
    unsigned long long w_stamp;       /* w is the recommendation's blank_w of this stamp (0: not known) */
    struct engine_workload w;         /* the four pricing inputs 0 */
    int gi, per_node, nodes, n;
    struct engine_parallel par;
    double fabric_gbps;
    struct engine_plan_fixed fx;
    struct engine_plan plan;          /* valid up to its lists' counts */
    /* strlen of plan's rationale texts, then of its warnings */
    unsigned short text_len[PLAN_RATIONALE_MAX + PLAN_WARNINGS_MAX];
    /* Kept when the slot is refilled, as cluster_texts are: a text memo
     * checks every argument, so another cluster's texts at the same site
     * rewrite only what prints other bytes. */
    struct engine_text_memo texts[ENGINE_TEXT_SITES];
    /* plan_cluster's texts when it fills this slot: its rationale by
     * index, then its warnings by index (ENGINE_CLUSTER_TEXTS). Kept when
     * the slot is refilled and by the search's clearing: each memo
     * compares every argument its text printed, so a refill for another
     * workload or cluster rewrites only the numbers that print other
     * digits (a new model shape on the same cluster moves a few numbers of
     * its ~18 texts). */
    struct engine_text_memo cluster_texts[ENGINE_CLUSTER_TEXTS];
};

struct engine_recommendation {
    double params_b, active_params_b;
    struct engine_plan tiers[TIER_COUNT];
    char warnings[PLAN_WARNINGS_MAX][PLAN_TEXT_MAX];
    int n_warnings;
    long configs_evaluated;           /* layouts scored by the search */
    double min_mem_gib;               /* search: least per-GPU memory seen when nothing fit (INFINITY) */
    int min_mem_gpu;                  /* search: catalog index of that GPU, -1 when none */
    int n_candidates;
    struct engine_candidate candidates[ENGINE_CANDIDATES_MAX];
    struct engine_layout_memo layout_memo;
    /* Not the engine's: a caller that copies a kept search result into this
     * memory (search_memo.c) tags which one, so that it can leave candidates
     * already here in place. engine_recommend_search sets 0 (its own result,
     * no tag); pricing neither reads nor writes it. */
    unsigned long long candidates_from;
    struct engine_plan_memo plan_memo[ENGINE_PLAN_MEMO_SLOTS];
    unsigned long long plan_memo_tick;
    /* Which slot's plan, made when (its filled), each tier holds the parts
     * of that no pricing writes again (the expectations, the rationale and
     * warnings plan_priced and the tier choice leave as they are), as the
     * last pricing copied them there: the next pricing of a tier showing
     * the same slot's plan copies only the rest (engine_search.c,
     * plan_for_cand). slot NULL: the tier holds nothing known. Zero in
     * memory from calloc or engine_recommend_search; a caller that writes
     * into the tiers, or copies tiers here without the plan memo they were
     * copied from, sets each slot to NULL. */
    struct engine_tier_from {
        const struct engine_plan_memo *slot;
        unsigned long long filled;
        /* The bits of the tokens_b and dataset_tb that pricing priced the
         * tier's plan for (plan_priced reads no other input the slot's
         * key leaves out): a tier holding its slot's fill priced for the
         * same two holds every byte a pricing would write there again,
         * less what the tier choice wrote after it (engine_search.c,
         * plan_for_cand). Meaningful only while slot is not NULL. */
        unsigned long long tokens_bits, dataset_bits;
    } tier_from[TIER_COUNT];
    /* The catalog's storage rows by kind (the eval context's), as the last
     * pricing found them in storage_cat (NULL: none), which a pricing with
     * the same catalog takes instead of looking them up by name; the
     * catalog compared by address, as the plan memo's is. Cleared by the
     * search, zero from calloc. */
    const struct catalog *storage_cat;
    const struct engine_storage *storage_by_kind[5];
    /* The last pricing's workload less the four pricing inputs (the plan
     * memo's key) and a stamp for it (0: none; the plan memo's tick when it
     * was taken): a slot whose w_stamp is this stamp holds this workload
     * without comparing its 2 KB again. Cleared by the search. */
    unsigned long long blank_stamp;
    struct engine_workload blank_w;
    /* The pricing's columns of what it reads of each candidate of a rented
     * cluster (engine_recommend_price prices two at a time from them). Made
     * again for every pricing but one of the same candidates: those tagged
     * candidates_from when that is not 0 (a tag names one search result,
     * which the tagger never changes under it), with the same catalog,
     * count and model size classes (big10, big100). Scratch, not part of the answer: a caller that tags candidates
     * in memory it did not get from calloc or engine_recommend_search (which
     * set it 0) sets from to 0 first. */
    struct engine_price_cols {
        unsigned long long from;        /* candidates_from the columns were made for; 0: none */
        const struct catalog *catalog;
        int n;
        /* ENGINE_PRICE_COLS entries each, an even count, so that every
         * column is 16-byte aligned at the same index (0 or 1): candidate i
         * is at that index + i, then a copy of the last (an odd one's pair) */
#define ENGINE_PRICE_COLS (ENGINE_CANDIDATES_MAX + 4)
        double startup_s[ENGINE_PRICE_COLS];
        double tokens_per_s[ENGINE_PRICE_COLS];
        double goodput[ENGINE_PRICE_COLS];
        double gpus[ENGINE_PRICE_COLS];
        double usd_per_gpu_hour[ENGINE_PRICE_COLS];
        double hot_bw_tb[ENGINE_PRICE_COLS];   /* -INFINITY when hot_kind is not 0..2 */
        double hot_bw_month_usd[ENGINE_PRICE_COLS];   /* 0 when not > 0 (NaN) */
        double cache_month_usd[ENGINE_PRICE_COLS];   /* 0 on two nodes or fewer, or when not > 0 */
        /* all ones or 0: the warm tier is needed whatever the days (more
         * than one node, or a model of 10B+: big10, made for that) */
        unsigned long long warm_always[ENGINE_PRICE_COLS];
        /* all ones or 0: the cold tier is needed after a week (256 GPUs or
         * more, or a model of 100B+: big100, made for that) */
        unsigned long long cold_always[ENGINE_PRICE_COLS];
        double cost[ENGINE_PRICE_COLS];   /* written by each pricing: the candidates' costs */
        double days[ENGINE_PRICE_COLS];   /* and their days */
        int hot_kind_at[ENGINE_PRICE_COLS];   /* hot_kind when 0..2, else 3 */
        /* the last pricing's picks of these candidates (-1: none), where
         * the next pricing's scans start looking: hints only, any value
         * gives the same answer (engine_search.c, scan_cols) */
#define ENGINE_PRICE_SEEDS 6
        int seed[ENGINE_PRICE_SEEDS];
        int big10, big100;
        /* the path the pricing takes over them: 0 the CPU's (four lanes
         * at a time with AVX2, else two), 2 two lanes whatever the CPU (so
         * that tests on a CPU with AVX2 compare the paths); zero from
         * calloc, never set by the engine */
        int lanes;
        /* What the last pricing priced cost and days from, beside the
         * columns (struct cloud_cost_memo's inputs of it, engine_int.h:
         * tokens, the storage tiers' needs and monthly prices, as their
         * bits), valid when priced is 1: a pricing of the same columns
         * from the same values finds every candidate's days and cost in
         * cost and days already. Made 0 with the columns (cols_ready). */
        unsigned long long priced_key[8];
        int priced;
    } price_cols;
};

const char *engine_tier_name(enum engine_tier t);
const char *engine_task_name(enum engine_task t);
const char *engine_precision_name(enum engine_precision p);
const char *engine_recompute_name(enum engine_recompute r);
const char *engine_fabric_kind_name(enum engine_fabric_kind k);
const char *engine_price_conf_name(enum engine_price_conf p);

/* Three tiers for the workload (already resolved). The recommendation is
 * large (~2 MB: the search's layout memo ~1 MB, the pricing's plan memo with
 * its text memos ~390 KB, 2,048 candidates ~330 KB, the price columns
 * ~200 KB): callers heap-allocate it. */
enum status engine_recommend(const struct catalog *c, const struct engine_workload *w,
                             struct engine_recommendation *out, char *err, size_t errlen);

/* engine_recommend in two steps. The search fills params, the search
 * warnings, configs_evaluated, min_mem_* and the candidates (cluster, layout,
 * fabric rate, throughput, memory, start-up, goodput, the storage bill's
 * token-free parts; days and cost 0): a function of the workload without
 * tokens_b, deadline_days, budget_usd and dataset_tb, which it never reads.
 * It empties the plan memo and leaves the tiers as they were. The pricing
 * step takes a recommendation holding exactly what the search filled (or a
 * copy of it, e.g. from a cache; the tiers may hold anything where
 * tier_from says nothing of them: pricing reads none of those bytes, only
 * the parts tier_from vouches for, and on success writes each tier whole
 * up to its lists' counts), prices every candidate for the full workload (writing each one's
 * days and cost, and reading nothing else it writes), picks the tiers and
 * keeps their clusters' plan parts in the plan memo. Search + price =
 * engine_recommend, bit for bit, whatever the plan memo held. */
enum status engine_recommend_search(const struct catalog *c, const struct engine_workload *w,
                                    struct engine_recommendation *out, char *err, size_t errlen);
enum status engine_recommend_price(const struct catalog *c, const struct engine_workload *w,
                                   struct engine_recommendation *out, char *err, size_t errlen);

/* Whether blanked is w with the four pricing inputs the search never reads
 * (tokens_b, deadline_days, budget_usd, dataset_tb) +0.0 and every other
 * byte equal, padding included: what comparing blanked with a blanked copy
 * of w says, without making the copy (2.3 KB). The search memo's keys and
 * the recommendation's blank_w are such blanked workloads. */
int engine_workload_blanked_eq(const struct engine_workload *w, const struct engine_workload *blanked);

/* One fixed cluster. req->workload must be resolved. */
enum status engine_estimate(const struct catalog *c, const struct engine_estimate_request *req,
                            struct engine_plan *out, char *err, size_t errlen);

/* ---------------------------------------------------------------- formulas
 * Exposed so tests and the report checker can use the same models. */

struct engine_param_count {
    double total, active;             /* parameters (not billions) */
    double embedding;                 /* input + output embedding matrices */
    double expert;                    /* routed-expert parameters (total) */
    double largest_layer;
};

/* F1 */
struct engine_param_count engine_params(const struct engine_model *m);

/* F5: model-state bytes per GPU (weights+grads+optimizer), ZeRO stage 0..3
 * over a data-parallel degree dp, for psi parameters held by this GPU's
 * model-parallel shard. Mixed-precision Adam: 2 + 2 + 12 bytes/param. */
double engine_model_states_bytes(double psi, int zero, int dp, enum engine_optimizer opt);

struct engine_memory {
    double weights, gradients, optimizer, activations, other, total; /* bytes per GPU */
    double host_offload;                                            /* bytes per GPU in host RAM */
};

/* F5+F6+F7: per-GPU memory of a layout. */
struct engine_memory engine_memory(const struct engine_model *m, const struct engine_workload *w,
                                   const struct engine_parallel *p, int seq_len);

/* F7: bytes of the frozen base model of a LoRA/QLoRA run (whole model). */
double engine_lora_base_bytes(const struct engine_model *m, const struct engine_workload *w);

/* F2/F3: model FLOPs per trained token (no recompute). */
double engine_flops_per_token(const struct engine_model *m, const struct engine_workload *w,
                              int seq_len);

/* F10: Young/Daly optimum checkpoint interval (seconds) for a stall of
 * delta_s and a job MTBF of mtbf_s. */
double engine_ckpt_interval_s(double delta_s, double mtbf_s);

/* How long a plan takes at a measured inter-node busbw (per node, GB/s), the
 * report checker's "at the measured X the plan takes Y days": re-runs the time
 * model of `plan` with that bandwidth. */
double engine_plan_days_at(const struct catalog *c, const struct engine_workload *w,
                           const struct engine_plan *plan, const struct engine_measured *m);

#endif
