/* engine_cost.c: the one cost model, used both to rank clusters in the
 * search and to report a plan's cost line by line.
 *
 * Before this file the search ranked clusters with a shortcut (GPU-hours or
 * servers + NICs) while the plan's bill of materials also priced storage and
 * the switches, so two tiers could swap order once costed and the search had
 * to patch the result. Now there is one path: plan_cost() builds the fabric
 * (R16-R20), storage tiers (F11, R27-R35), power (R10) and the bill of
 * materials (cloud: F4c billed hours + storage for the run; buy: servers,
 * NICs, switches, optics, storage, electricity) from a handful of plan
 * fields, and engine_run_time() gives the wall time (F4, F4b start-up, F10
 * goodput) both callers feed it. Every step is a few dozen flops, so the
 * search can cost each candidate cluster exactly (a few hundred per
 * recommendation) and a tier's reported cost is the cost it was ranked by. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_int.h"

#define ELECTRICITY_USD_PER_KWH 0.10   /* assumption: US industrial average, 2025 */

/* The date of the electricity price, padded as the catalog's dates are. */
static const char ELECTRICITY_AS_OF[ENGINE_DATE_MAX] = "2025-06-01";

/* One bill-of-materials line. Without texts (the search pricing a scratch
 * plan, where only the total counts) the line keeps its numbers and the
 * running total, in the same order, but no strings are written (as_of may
 * then be NULL). The date is a whole date field (the catalog's, or
 * ELECTRICITY_AS_OF), copied whole. */
/* engine_copy_str for a terminated string, by strlen, which the compiler
 * works out for a literal (bom() is inlined and its items are literals):
 * a few moves where strnlen and memcpy were two calls. */
static inline __attribute__((always_inline)) void copy_lit(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len > n - 1)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static inline __attribute__((always_inline)) void bom(struct engine_plan *pl, int texts, const char *item,
                                                     const char *desc, double qty, double unit,
                                                     const char (*as_of)[ENGINE_DATE_MAX])
{
    struct plan_bom_line *b;
    if (pl->n_bom >= PLAN_BOM_MAX || qty <= 0)
        return;
    b = &pl->bom[pl->n_bom++];
    if (texts) {
        copy_lit(b->item, sizeof b->item, item);
        if (desc != b->description)   /* else formatted there already (plan_cost_priced) */
            copy_lit(b->description, sizeof b->description, desc);
        memcpy(b->as_of, *as_of, sizeof b->as_of);
    }
    b->quantity = qty;
    b->unit_usd = unit;
    b->total_usd = qty * unit;
    pl->bom_total_usd += b->total_usd;
}

double engine_round_up(double x, double step)
{
    return ceil(x / step) * step;
}

const struct engine_fabric *engine_fabric_find(const struct catalog *c, enum engine_fabric_kind kind, double gbps)
{
    const struct engine_fabric *best = NULL;
    for (int i = 0; i < c->n_fabrics; i++) {
        const struct engine_fabric *f = &c->fabrics[i];
        if (f->kind != kind)
            continue;
        if (fabs(f->gbps - gbps) < 1e-6)
            return f;
        /* Otherwise the slowest port at least as fast as asked. */
        if (f->gbps >= gbps && (!best || f->gbps < best->gbps))
            best = f;
    }
    return best;
}

const struct engine_fabric *engine_fabric_by_id(const struct catalog *c, const char *id)
{
    for (int i = 0; i < c->n_fabrics; i++)
        if (strcmp(c->fabrics[i].id, id) == 0)
            return &c->fabrics[i];
    return NULL;
}

/* The rate one fabric port runs at: the on-chip port's rate for GPUs that
 * carry their own RDMA ports, else the per-GPU NIC rate itself. */
double engine_port_gbps(const struct engine_gpu *g, double gbps_per_gpu)
{
    return g->scaleout_ports > 0 ? g->scaleout_port_gbps : gbps_per_gpu;
}

/* The most a GPU can send into the fabric: its on-chip ports (R16/R17), or
 * what one PCIe NIC per GPU can carry: a Gen4 x16 slot saturates near
 * 200 Gb/s per direction, Gen5 near 400, Gen6 near 800 (R9, T4). */
double engine_fabric_cap_gbps(const struct engine_gpu *g)
{
    if (g->scaleout_ports > 0)
        return g->scaleout_ports * g->scaleout_port_gbps;
    return g->pcie_gen >= 6 ? 800.0 : g->pcie_gen == 5 ? 400.0 : g->pcie_gen == 4 ? 200.0 : 100.0;
}

double engine_default_fabric_gbps(const struct engine_gpu *g)
{
    double cap = g->scaleout_ports > 0 ? engine_fabric_cap_gbps(g) : INFINITY;
    return g->default_fabric_gbps < cap ? g->default_fabric_gbps : cap;
}

static double fabric_cost_per_gpu(const struct engine_fabric *f)
{
    return f->nic_usd + 2.0 * f->port_usd + 2.0 * f->cable_usd;
}

/* The time model of one layout on one cluster, as both the search and the
 * plan run it: one node talks over its scale-up link only. */
void engine_eval_cluster(const struct catalog *c, const struct eval_ctx *ctx, const struct engine_gpu *g, int n,
                         int per_node, int nodes, double rate, const struct engine_measured *meas, double eff_scale,
                         double bw_scale, const struct engine_parallel *par, struct eval_out *ev)
{
    struct eval_hw hw;
    eval_fill_hw(&hw, g, n, per_node, nodes > 1 ? rate : 0.0, c, ctx->w, meas);
    if (nodes == 1 && (!meas || isnan(meas->inter_busbw_gbs)))
        hw.nic_busbw_per_gpu_gbs = hw.intra_busbw_gbs;
    hw.eff_scale = eff_scale;
    hw.bw_scale = bw_scale;
    eval_time(ctx, &hw, par, ev);
}

/* engine_eval_cluster on nodes > 1 at rate, without measurements or
 * scales, from ref's parts when given (eval_time_ref), else from par. */
static double step_at(const struct catalog *c, const struct eval_ctx *ctx, const struct engine_gpu *g, int n,
                      int per_node, const struct engine_parallel *par, const struct eval_ref *ref,
                      const struct eval_hw *hw_at, double rate, struct eval_out *ev)
{
    struct eval_hw hw;
    if (!ref) {
        if (!hw_at) {
            engine_eval_cluster(c, ctx, g, n, per_node, 2, rate, NULL, 1.0, 1.0, par, ev);
            return ev->step_s;
        }
        eval_time(ctx, hw_at, par, ev);
        return ev->step_s;
    }
    if (!hw_at) {
        eval_fill_hw(&hw, g, n, per_node, rate, c, ctx->w, NULL);
        hw_at = &hw;
    }
    eval_time_ref(ctx, hw_at, ref, ev);
    return ev->step_s;
}

/* Fabric rate per GPU for a multi-node cluster. Cloud nodes come with the
 * GPU's usual rate. Buying, the slowest catalog port rate within what the GPU
 * can feed (R9) and at least 200 Gb/s from 100B parameters up (R35) that
 * slows the step by at most 1% against the usual rate: a cheaper fabric that
 * costs no time. On-chip ports are already paid for with the card, so such
 * GPUs use all of them. Fills *ev with the time model at the chosen rate. */
double engine_choose_fabric_gbps(const struct catalog *c, const struct eval_ctx *ctx, const struct engine_gpu *g,
                                 int n, int per_node, const struct engine_parallel *par, const struct eval_ref *ref,
                                 const struct eval_hw *hw_usual, struct eval_out *ev)
{
    double rate = engine_default_fabric_gbps(g), cap = engine_fabric_cap_gbps(g);
    double floor_gbps = ctx->pc.total >= 100e9 ? 200.0 : 100.0, step_default, rates[CATALOG_FABRICS_MAX];
    int nr = 0;

    step_default = step_at(c, ctx, g, n, per_node, par, ref, hw_usual, rate, ev);
    if (engine_fabric_rate_fixed(ctx, g))
        return rate;
    for (int i = 0; i < c->n_fabrics; i++) {
        int dup = 0;
        for (int j = 0; j < nr; j++)
            dup |= fabs(rates[j] - c->fabrics[i].gbps) < 1e-6;
        if (!dup && c->fabrics[i].gbps <= cap && c->fabrics[i].gbps >= floor_gbps)
            rates[nr++] = c->fabrics[i].gbps;
    }
    for (int i = 1; i < nr; i++)   /* ascending */
        for (int j = i; j > 0 && rates[j] < rates[j - 1]; j--) {
            double t = rates[j]; rates[j] = rates[j - 1]; rates[j - 1] = t;
        }
    for (int i = 0; i < nr && rates[i] < rate; i++) {
        struct eval_out e;
        if (step_at(c, ctx, g, n, per_node, par, ref, NULL, rates[i], &e) <= step_default * 1.01) {
            *ev = e;
            return rates[i];
        }
    }
    return rate;
}

/* F4 + F4b + F10: wall days = start-up + tokens / throughput / goodput. */
struct run_time engine_run_time(const struct eval_ctx *ctx, const struct engine_gpu *g, int n, int nodes,
                                double tokens_per_s, double fail_scale)
{
    struct run_time rt = engine_run_fixed(ctx, g, n, nodes, fail_scale);
    rt.days = engine_run_days(ctx, rt.startup_s, rt.gp.goodput, tokens_per_s);
    return rt;
}

struct run_time engine_run_fixed(const struct eval_ctx *ctx, const struct engine_gpu *g, int n, int nodes,
                                 double fail_scale)
{
    struct run_time rt;
    rt.startup_s = engine_startup_s(nodes, engine_load_bytes_per_node(ctx, nodes));
    rt.gp = eval_goodput(n, engine_ckpt_bytes(ctx) / n, engine_pcie_gbs(g->pcie_gen), fail_scale, rt.startup_s);
    rt.days = 0;
    return rt;
}

/* The storage kinds' ids, each padded with NULs to a plan's kind field:
 * storage_tier copies the whole field (a few moves, no length to find). */
static const char STORAGE_KIND_IDS[5][ENGINE_ID_MAX] = {"local-nvme", "nas", "parallel-fs", "object", "archive"};
/* The tiers' names, padded alike to a plan's tier field (storage_needs). */
static const char TIER_HOT[8] = "hot", TIER_WARM[8] = "warm", TIER_COLD[8] = "cold";

void eval_ctx_bind_storage(struct eval_ctx *ctx, const struct catalog *c)
{
    for (int i = 0; i < 5; i++)
        ctx->storage_by_kind[i] = catalog_storage_find(c, STORAGE_KIND_IDS[i]);
    ctx->storage_cat = c;
}

/* The lookup by name, for a context not bound to c: out of line, so that
 * the bound path (every candidate of a search) saves no registers for it. */
static __attribute__((noinline, cold)) const struct engine_storage *storage_by_name(const struct catalog *c, int kind)
{
    return catalog_storage_find(c, STORAGE_KIND_IDS[kind]);
}

static const struct engine_storage *storage_kind(const struct eval_ctx *ctx, const struct catalog *c, int kind)
{
    if (ctx->storage_cat == c)
        return ctx->storage_by_kind[kind];
    return storage_by_name(c, kind);
}

/* Storage capacity (TB) a tier of kind s needs to hold need_tb and deliver
 * the bandwidths: parallel file systems and NVMe scale throughput with
 * capacity (F11). */
static double storage_cap_tb(const struct engine_storage *s, double need_tb, double need_write_gbs,
                             double need_read_gbs);

/* The capacity the bandwidths alone need (-INFINITY when none). Taking the
 * larger of it and need_tb picks what comparing need_tb with each
 * bandwidth's capacity in turn picks, NaNs included (a comparison with NaN
 * is false either way), so the cluster's part can be found once and the
 * data's part per request (engine_cloud_cost_fixed). */
static double storage_bw_tb(const struct engine_storage *s, double need_write_gbs, double need_read_gbs)
{
    double bw = -INFINITY;
    if (s->write_gbs_per_tb > 0 && need_write_gbs / s->write_gbs_per_tb > bw)
        bw = need_write_gbs / s->write_gbs_per_tb;
    if (s->read_gbs_per_tb > 0 && need_read_gbs / s->read_gbs_per_tb > bw)
        bw = need_read_gbs / s->read_gbs_per_tb;
    return bw;
}

/* The capacity bought for a need of cap TB: the catalog's least size, then
 * whole units. */
static double storage_cap_finish(const struct engine_storage *s, double cap)
{
    if (cap < s->min_tb)
        cap = s->min_tb;
    return engine_round_up(cap, cap < 10 ? 0.5 : 10.0);
}

static double storage_cap_tb(const struct engine_storage *s, double need_tb, double need_write_gbs,
                             double need_read_gbs)
{
    double bw = storage_bw_tb(s, need_write_gbs, need_read_gbs);
    return storage_cap_finish(s, bw > need_tb ? bw : need_tb);
}

/* What a tier costs: month-priced for the run when rented, bought outright.
 * A bought node's local NVMe comes with the server (the bill's servers line
 * says "CPUs, RAM, local NVMe" and the bill has no line for it), as a
 * rented node's comes with the instance (0 a month): 0, so that the tiers'
 * usd add up to the bill's storage, not $100 a TB more. */
static double storage_usd(const struct engine_storage *s, int kind, double cap, double days,
                          enum engine_pricing pricing)
{
    if (pricing == PRICING_CLOUD)
        return cap * s->usd_per_tb_month * (days > 0 ? days / 30.0 : 1.0);
    return kind == STORAGE_LOCAL_NVME ? 0 : cap * s->usd_per_tb_buy;
}

/* Adds a tier to the plan; returns its catalog row, NULL when none was
 * added (the bill of materials' lines take their date from it). */
static const struct engine_storage *storage_tier(struct engine_plan *pl, const struct eval_ctx *ctx,
                                                 const struct catalog *c, const char *tier, int kind_idx,
                                                 double need_tb, double need_write_gbs, double need_read_gbs,
                                                 double days, enum engine_pricing pricing, int texts)
{
    const struct engine_storage *s = storage_kind(ctx, c, kind_idx);
    struct plan_storage_tier *t;
    double cap;
    if (!s || pl->n_storage >= PLAN_STORAGE_TIERS_MAX)
        return NULL;
    cap = storage_cap_tb(s, need_tb, need_write_gbs, need_read_gbs);
    t = &pl->storage[pl->n_storage++];
    /* A scratch plan (no texts) needs only the kind, which the bought
     * cluster's bill reads; every number below is written either way, so
     * with the names copied whole (padded, NULs after them) every byte of
     * the tier is written. */
    _Static_assert(sizeof t->tier == sizeof TIER_HOT && sizeof t->kind == sizeof STORAGE_KIND_IDS[0],
                   "the padded names fill the fields");
    _Static_assert(sizeof *t == sizeof t->tier + sizeof t->kind + 4 * sizeof(double), "no padding");
    if (texts)
        memcpy(t->tier, tier, sizeof t->tier);
    memcpy(t->kind, STORAGE_KIND_IDS[kind_idx], sizeof t->kind);
    t->capacity_tb = cap;
    t->read_gbs = cap * s->read_gbs_per_tb;
    if (s->read_gbs_max > 0 && t->read_gbs > s->read_gbs_max)
        t->read_gbs = s->read_gbs_max;
    t->write_gbs = cap * s->write_gbs_per_tb;
    if (s->write_gbs_max > 0 && t->write_gbs > s->write_gbs_max)
        t->write_gbs = s->write_gbs_max;
    t->usd = storage_usd(s, kind_idx, cap, days, pricing);
    return s;
}

/* The storage tiers a run needs, in the order the plan lists them (F10,
 * F11, R27-R35): one rule for the reported plan (plan_cost_at) and for the
 * pricing of candidates (engine_cloud_cost_usd). Returns how many. */
struct storage_need {
    const char *tier;   /* TIER_HOT, TIER_WARM or TIER_COLD (storage_tier copies 8 bytes) */
    int kind;
    double need_tb, write_gbs, read_gbs;
};

/* The rules storage_needs applies, apart so that the candidates' pricing
 * (engine_cloud_cost_fixed, _memo_init, _cand) applies the same ones. */
static double hot_need_tb(double dataset_tb, int ckpt_keep, double ckpt_size_gb)
{
    return dataset_tb * 1.2 + ckpt_keep * ckpt_size_gb / 1000.0;
}

static int hot_kind(const struct eval_ctx *ctx, const struct catalog *c, int nodes, double ckpt_write_gbs)
{
    const struct engine_storage *nas;
    if (nodes <= 2)
        return STORAGE_LOCAL_NVME;
    nas = storage_kind(ctx, c, STORAGE_NAS);
    return nodes <= 8 && nas && ckpt_write_gbs <= nas->write_gbs_max ? STORAGE_NAS : STORAGE_PARALLEL_FS;
}

/* Local NVMe cache on every node of more than two for hot shards (R29). */
static double cache_need_tb(int nodes, int per_node)
{
    return nodes * 3.84 * (per_node > 4 ? 2 : 1);
}

/* The warm and cold tiers' rules: engine_needs_warm, engine_needs_cold
 * (engine_int.h). */
static double warm_need_tb(double dataset_tb, double ckpt_size_gb)
{
    return dataset_tb + 10.0 * ckpt_size_gb / 1000.0;
}

static double cold_need_tb(double dataset_tb, double ckpt_size_gb)
{
    return dataset_tb + 3.0 * ckpt_size_gb / 1000.0;
}

static int storage_needs(const struct eval_ctx *ctx, const struct catalog *c, int n, int per_node, int nodes,
                         double days, double dataset_tb, double ckpt_size_gb, int ckpt_keep, double ckpt_write_gbs,
                         double read_gbs, struct storage_need need[PLAN_STORAGE_TIERS_MAX])
{
    double hot_tb = hot_need_tb(dataset_tb, ckpt_keep, ckpt_size_gb);
    int k = 0;
    need[k++] = (struct storage_need){TIER_HOT, hot_kind(ctx, c, nodes, ckpt_write_gbs), hot_tb, ckpt_write_gbs,
                                     read_gbs};
    if (nodes > 2)
        need[k++] = (struct storage_need){TIER_HOT, STORAGE_LOCAL_NVME, cache_need_tb(nodes, per_node), 0, 0};
    if (engine_needs_warm(ctx, nodes, days))
        need[k++] = (struct storage_need){TIER_WARM, STORAGE_OBJECT, warm_need_tb(dataset_tb, ckpt_size_gb), 0, 0};
    if (engine_needs_cold(ctx, n, days))
        need[k++] = (struct storage_need){TIER_COLD, STORAGE_ARCHIVE, cold_need_tb(dataset_tb, ckpt_size_gb), 0, 0};
    return k;
}

static double dataset_tb_of(const struct engine_workload *w)
{
    return !isnan(w->dataset_tb) ? w->dataset_tb : w->tokens_b * 1e9 * ENGINE_BYTES_PER_TOKEN / 1e12;
}

/* Fabric (R16-R20): kind, port rate, ports per node, topology from radix. */
static const struct engine_fabric *plan_fabric(const struct catalog *c, const struct engine_gpu *g,
                                               struct engine_plan *pl)
{
    const struct engine_fabric *f;
    double rate = pl->fabric_gbps_per_gpu;
    int nodes = pl->nodes, per_node = pl->per_node, onchip = g->scaleout_ports > 0;

    pl->switches_leaf = pl->switches_spine = pl->switches_core = pl->links = 0;
    pl->fabric_id[0] = '\0';
    if (nodes <= 1) {
        pl->fabric_kind = FABRIC_NONE;
        pl->fabric_gbps_per_gpu = 0;
        pl->fabric_port_gbps = 0;
        pl->topology = "single-node";
        pl->oversubscription = "1:1";
        pl->lossless = 0;
        pl->nics_per_node = 0;
        pl->scaleout_ports_per_node = 0;
        return NULL;
    }
    if (onchip) {
        /* The card's own RoCE v2 ports (R16/R17): Ethernet switches only. */
        pl->fabric_kind = FABRIC_ROCE;
    } else if (pl->fabric_kind == FABRIC_NONE) {
        if (pl->basis == PRICING_CLOUD)
            pl->fabric_kind = (g->link == LINK_NVSWITCH && strcmp(g->vendor, "NVIDIA") == 0) ? FABRIC_INFINIBAND
                                                                                              : FABRIC_ROCE;
        else {
            const struct engine_fabric *ib = engine_fabric_find(c, FABRIC_INFINIBAND, rate);
            const struct engine_fabric *ro = engine_fabric_find(c, FABRIC_ROCE, rate);
            pl->fabric_kind = ro && (!ib || fabric_cost_per_gpu(ro) <= fabric_cost_per_gpu(ib)) ? FABRIC_ROCE
                                                                                                 : FABRIC_INFINIBAND;
        }
    }
    f = engine_fabric_find(c, pl->fabric_kind, engine_port_gbps(g, rate));
    if (!f && !onchip)
        f = engine_fabric_find(c, pl->fabric_kind == FABRIC_ROCE ? FABRIC_INFINIBAND : FABRIC_ROCE, rate);
    if (f)
        pl->fabric_kind = f->kind;
    if (onchip) {
        int ports = (int)ceil(rate / g->scaleout_port_gbps - 1e-9);
        if (ports < 1)
            ports = 1;
        if (ports > g->scaleout_ports)
            ports = g->scaleout_ports;
        pl->nics_per_node = 0;
        pl->scaleout_ports_per_node = per_node * ports;
    } else {
        pl->nics_per_node = per_node;   /* R16: one NIC per GPU for GPUDirect RDMA */
        pl->scaleout_ports_per_node = per_node;
    }
    pl->fabric_port_gbps = f ? f->gbps : engine_port_gbps(g, rate);
    engine_copy_str(pl->fabric_id, sizeof pl->fabric_id, f ? f->id : "");
    {
        int radix = f ? f->switch_radix : 64;
        int e = nodes * pl->scaleout_ports_per_node;
        if (e <= radix) {
            pl->topology = "single-switch";
            pl->switches_leaf = 1;
            pl->links = e;
        } else if ((double)e <= (double)radix * radix / 2.0) {
            pl->topology = "leaf-spine";
            pl->switches_leaf = (e + radix / 2 - 1) / (radix / 2);
            pl->switches_spine = (pl->switches_leaf * (radix / 2) + radix - 1) / radix;
            pl->links = e + pl->switches_leaf * (radix / 2);
        } else {
            /* Three-tier fat-tree (k-ary): E/(k/2) leaves, as many
             * aggregation switches, E/k core switches; 5E/k in all. */
            pl->topology = "fat-tree";
            pl->switches_leaf = (e + radix / 2 - 1) / (radix / 2);
            pl->switches_spine = pl->switches_leaf;
            pl->switches_core = (e + radix - 1) / radix;
            pl->links = 3 * e;
        }
    }
    pl->oversubscription = "1:1";
    pl->lossless = 1;
    return f;
}

void plan_cost(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
               const struct goodput *gp)
{
    plan_cost_at(c, ctx, pl, gp, 1);
}

void plan_cost_at(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                  const struct goodput *gp, int texts)
{
    plan_cost_priced(c, ctx, pl, plan_cost_fixed(c, ctx, pl, gp, texts), texts, NULL);
}

const struct engine_fabric *plan_cost_fixed(const struct catalog *c, const struct eval_ctx *ctx,
                                            struct engine_plan *pl, const struct goodput *gp, int texts)
{
    const struct engine_gpu *g = &c->gpus[pl->gpu_index];
    const struct engine_workload *w = ctx->w;
    int per_node = pl->per_node, nodes = pl->nodes;
    const struct engine_fabric *f;

    /* A rented cluster's bill is GPU-hours and storage (F4c): the search's
     * scratch plans (no texts) skip the fabric and power, which only a
     * bought cluster pays for. */
    int cost_only_cloud = !texts && w->pricing == PRICING_CLOUD;

    pl->basis = w->pricing;
    pl->price_conf = w->pricing == PRICING_CLOUD ? g->cloud_price_conf : g->server_price_conf;
    f = cost_only_cloud ? NULL : plan_fabric(c, g, pl);

    /* ---- checkpoints (F10, R31, R32) and the read rate (F11) */
    pl->read_gbs = pl->tokens_per_s * ENGINE_BYTES_PER_TOKEN * 2.0 / 1e9;   /* x2 for shuffling and re-reads */
    pl->ckpt_size_gb = engine_ckpt_bytes(ctx) / 1e9;
    pl->ckpt_interval_min = gp->interval_s / 60.0;
    pl->ckpt_stall_s = gp->delta_s;
    pl->ckpt_keep = 3;
    pl->ckpt_write_gbs = pl->ckpt_size_gb / (0.5 * gp->interval_s);   /* persist within half an interval */

    /* ---- power (R10): GPU TDP x1.25 for the host's share, 1.2 kW per server, switches */
    {
        double sw = pl->switches_leaf + pl->switches_spine + pl->switches_core;
        if (!cost_only_cloud)
            pl->power_kw = nodes * (per_node * g->tdp_w * 1.25 / 1000.0 + 1.2) + sw * (f ? f->switch_kw : 1.5);
    }
    return f;
}

void plan_cost_priced(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                      const struct engine_fabric *f, int texts, struct engine_text_memo *bom_memo)
{
    const struct engine_gpu *g = &c->gpus[pl->gpu_index];
    const struct engine_workload *w = ctx->w;
    int n = pl->count, per_node = pl->per_node, nodes = pl->nodes;
    const char (*as_of)[ENGINE_DATE_MAX] = &g->price_as_of;
    char buf[96];
    const struct engine_storage *row[PLAN_STORAGE_TIERS_MAX];   /* pl->storage[i]'s catalog row */

    buf[0] = '\0';
    _Static_assert(sizeof buf == sizeof pl->bom[0].description, "buf holds what a description holds");
    /* A bill line's text through the memo kept for its index (NULL: none). */
#define BOM_MEMO (bom_memo && pl->n_bom < PLAN_BOM_MAX ? &bom_memo[pl->n_bom] : NULL)
    /* A bill line's text is written where bom() keeps it, the next line's
     * description (buf when the list is full): bom() then need not copy it.
     * The same bytes: buf is as large as a description. */
#define BOM_DST (pl->n_bom < PLAN_BOM_MAX ? pl->bom[pl->n_bom].description : buf)
    /* ---- storage (F11, R27-R35) */
    pl->dataset_tb = dataset_tb_of(w);
    pl->n_storage = 0;
    {
        struct storage_need need[PLAN_STORAGE_TIERS_MAX];
        int k = storage_needs(ctx, c, n, per_node, nodes, pl->days, pl->dataset_tb, pl->ckpt_size_gb, pl->ckpt_keep,
                              pl->ckpt_write_gbs, pl->read_gbs, need);
        for (int i = 0; i < k; i++) {
            const struct engine_storage *s = storage_tier(pl, ctx, c, need[i].tier, need[i].kind, need[i].need_tb,
                                                          need[i].write_gbs, need[i].read_gbs, pl->days, w->pricing,
                                                          texts);
            if (s)
                row[pl->n_storage - 1] = s;
        }
    }

    /* ---- bill of materials; the cost is its total */
    pl->n_bom = 0;
    pl->bom_total_usd = 0;
    if (w->pricing == PRICING_CLOUD) {
        double gpu_usd, rest;
        pl->billed_hours = engine_billed_hours(pl->days * 24.0);
        if (texts)
            engine_fmt_memo(BOM_MEMO, BOM_DST, sizeof buf, "%s GPU-hours: %d GPUs x %.0f billed h (whole hours, F4c)",
                            g->name, n, pl->billed_hours);
        bom(pl, texts, "gpu-hours", BOM_DST, pl->billed_hours * n, g->cloud_usd_per_gpu_hour, as_of);
        for (int i = 0; i < pl->n_storage; i++)
            if (pl->storage[i].usd > 0) {
                /* a run under 0.05 days is not "0.0 days": two figures there */
                if (texts)
                    engine_fmt_memo(BOM_MEMO, BOM_DST, sizeof buf,
                                    pl->days < 0.05 ? "%s %s storage, %.1f TB for %.2g days"
                                                    : "%s %s storage, %.1f TB for %.1f days",
                                    pl->storage[i].tier, pl->storage[i].kind, pl->storage[i].capacity_tb, pl->days);
                bom(pl, texts, "storage", BOM_DST, 1, pl->storage[i].usd,
                    texts ? &row[i]->as_of : NULL);
            }
        pl->cost_usd = pl->bom_total_usd;
        gpu_usd = pl->billed_hours * n * g->cloud_usd_per_gpu_hour;
        rest = pl->cost_usd - gpu_usd;
        if (pl->days_low > 0 && pl->days_high > 0) {
            pl->cost_low_usd = n * engine_billed_hours(pl->days_low * 24.0) * g->cloud_usd_per_gpu_hour +
                               rest * pl->days_low / pl->days;
            pl->cost_high_usd = n * engine_billed_hours(pl->days_high * 24.0) * g->cloud_usd_per_gpu_hour +
                                rest * pl->days_high / pl->days;
        }
    } else {
        double server = g->server_usd * (double)per_node / g->per_node;
        double energy_kwh = pl->power_kw * pl->days * 24.0, fixed;
        pl->billed_hours = 0;
        if (texts)
            engine_fmt_memo(BOM_MEMO, BOM_DST, sizeof buf, "server with %d x %s, CPUs, RAM, local NVMe", per_node,
                            g->name);
        bom(pl, texts, "servers", BOM_DST, nodes, server, as_of);
        if (f) {
            if (pl->nics_per_node > 0) {
                if (texts)
                    engine_fmt_memo(BOM_MEMO, BOM_DST, sizeof buf, "%s NIC, %.0f Gb/s (one per GPU, R16)", f->name,
                                    f->gbps);
                bom(pl, texts, "nics", BOM_DST, (double)nodes * pl->nics_per_node, f->nic_usd, &f->as_of);
            }
            if (texts)
                engine_fmt_memo(BOM_MEMO, BOM_DST, sizeof buf, "%s switch, %d ports (%s)", f->name, f->switch_radix,
                                pl->topology);
            bom(pl, texts, "switches", BOM_DST, pl->switches_leaf + pl->switches_spine + pl->switches_core,
                f->switch_usd, &f->as_of);
            if (texts)
                engine_fmt_memo(BOM_MEMO, BOM_DST, sizeof buf, "optics/cables, %.0f Gb/s links (estimate)", f->gbps);
            bom(pl, texts, "optics", BOM_DST, pl->links, f->cable_usd, &f->as_of);
        }
        for (int i = 0; i < pl->n_storage; i++)
            if (pl->storage[i].usd > 0 && strcmp(pl->storage[i].kind, "local-nvme") != 0) {
                if (texts)
                    engine_fmt_memo(BOM_MEMO, BOM_DST, sizeof buf, "%s %s storage", pl->storage[i].tier,
                                    pl->storage[i].kind);
                bom(pl, texts, "storage", BOM_DST, pl->storage[i].capacity_tb,
                    pl->storage[i].usd / pl->storage[i].capacity_tb,
                    texts ? &row[i]->as_of : NULL);
            }
        fixed = pl->bom_total_usd;
        bom(pl, texts, "electricity", "electricity for the run at $0.10/kWh (assumption; PUE not included)", energy_kwh,
            ELECTRICITY_USD_PER_KWH, &ELECTRICITY_AS_OF);
        pl->cost_usd = pl->bom_total_usd;
        if (pl->days_low > 0 && pl->days_high > 0) {
            pl->cost_low_usd = fixed + (pl->cost_usd - fixed) * pl->days_low / pl->days;
            pl->cost_high_usd = fixed + (pl->cost_usd - fixed) * pl->days_high / pl->days;
        }
    }
#undef BOM_MEMO
#undef BOM_DST
}

/* plan_cost_at's cloud bill, summed in the same order from the same rules
 * and helpers (storage_needs' rules, storage_cap_tb, storage_usd,
 * engine_billed_hours) but without a plan to fill: bom() lines of quantity x
 * unit, the GPU-hours first, then each storage tier that costs anything
 * (quantity 1). The pricing step runs it for every candidate (~340 for a
 * 70B model) of every request, so what reads no tokens is found once: per
 * cluster by the search (the hot tier's kind and bandwidth capacity, the
 * NVMe cache), per request here (the capacities the dataset and checkpoints
 * set). A tier's cost is its capacity x monthly price x months, multiplied
 * in that order, so the first product is kept. test_engine checks that
 * ranked and reported costs agree, engine_golden that answers do not move. */
void engine_cloud_cost_fixed(const struct catalog *c, const struct eval_ctx *ctx, struct engine_candidate *cd)
{
    engine_cloud_cost_hot(c, ctx, cd);
    cd->cache_month_usd = engine_cloud_cache_month_usd(c, ctx, cd->nodes, cd->per_node);
}

void engine_cloud_cost_hot(const struct catalog *c, const struct eval_ctx *ctx, struct engine_candidate *cd)
{
    double ckpt_size_gb = engine_ckpt_bytes(ctx) / 1e9;
    double read_gbs = cd->tokens_per_s * ENGINE_BYTES_PER_TOKEN * 2.0 / 1e9;
    double ckpt_write_gbs = ckpt_size_gb / (0.5 * cd->ckpt_interval_s);
    int kind = hot_kind(ctx, c, cd->nodes, ckpt_write_gbs);
    const struct engine_storage *s = storage_kind(ctx, c, kind);

    cd->hot_kind = s ? kind : -1;
    cd->hot_bw_tb = -INFINITY;
    cd->hot_bw_month_usd = NAN;
    if (s) {
        cd->hot_bw_tb = storage_bw_tb(s, ckpt_write_gbs, read_gbs);
        cd->hot_bw_month_usd = storage_cap_finish(s, cd->hot_bw_tb) * s->usd_per_tb_month;
    }
}

double engine_cloud_cache_month_usd(const struct catalog *c, const struct eval_ctx *ctx, int nodes, int per_node)
{
    const struct engine_storage *s;
    if (nodes > 2 && (s = storage_kind(ctx, c, STORAGE_LOCAL_NVME)) != NULL)
        return storage_cap_tb(s, cache_need_tb(nodes, per_node), 0, 0) * s->usd_per_tb_month;
    return NAN;
}

void engine_cloud_cost_memo_init(struct cloud_cost_memo *m, const struct catalog *c, const struct eval_ctx *ctx)
{
    double ckpt_size_gb = engine_ckpt_bytes(ctx) / 1e9, dataset_tb = dataset_tb_of(ctx->w);
    const struct engine_storage *s;

    m->tokens = ctx->w->tokens_b * 1e9;
    m->big10 = ctx->pc.total >= 10e9;
    m->big100 = ctx->pc.total >= 100e9;
    /* the hot tier when its bandwidths need no more than its data */
    m->hot_need_tb = hot_need_tb(dataset_tb, 3, ckpt_size_gb);
    for (int k = 0; k < 3; k++) {
        s = storage_kind(ctx, c, k);
        m->hot_month_usd[k] = s ? storage_cap_finish(s, m->hot_need_tb) * s->usd_per_tb_month : NAN;
    }
    s = storage_kind(ctx, c, STORAGE_OBJECT);
    m->warm_month_usd = s ? storage_cap_tb(s, warm_need_tb(dataset_tb, ckpt_size_gb), 0, 0) * s->usd_per_tb_month
                          : NAN;
    s = storage_kind(ctx, c, STORAGE_ARCHIVE);
    m->cold_month_usd = s ? storage_cap_tb(s, cold_need_tb(dataset_tb, ckpt_size_gb), 0, 0) * s->usd_per_tb_month
                          : NAN;
}

