/* engine_plan.c: everything in a plan around the chosen GPUs and layout.
 *
 * Given a cluster and a parallel layout (from the search or a fixed
 * estimate), this fills the parts a buyer and an operator need: the
 * intra-node link and RDMA fabric with its switch count, storage tiers and
 * checkpoint policy, host CPU/RAM, power, time and cost with low/high bounds,
 * the benchmark values the built cluster must reach (expectations.h ids, T
 * values scaled to this hardware), rationale citing DOMAIN.md ids with the
 * numbers behind them, warnings, and a bill of materials. It runs three
 * times per recommendation, so clarity wins over speed here. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine_int.h"

#define ELECTRICITY_USD_PER_KWH 0.10   /* assumption: US industrial average, 2025 */
#define BYTES_PER_TOKEN 4.0            /* ~4 bytes of UTF-8 per token; uint32 token ids */
#define COMM_TARGET 0.20               /* R37: communication above 20% of step time needs tuning */

void plan_add_rationale(struct engine_plan *pl, const char *rule, const char *fmt, ...)
{
    va_list ap;
    struct plan_rationale *r;
    if (pl->n_rationale >= PLAN_RATIONALE_MAX)
        return;
    r = &pl->rationale[pl->n_rationale++];
    snprintf(r->rule, sizeof r->rule, "%s", rule);
    va_start(ap, fmt);
    if (vsnprintf(r->text, sizeof r->text, fmt, ap) < 0)
        r->text[0] = '\0';
    va_end(ap);
}

void plan_add_warning(struct engine_plan *pl, const char *fmt, ...)
{
    va_list ap;
    if (pl->n_warnings >= PLAN_WARNINGS_MAX)
        return;
    va_start(ap, fmt);
    if (vsnprintf(pl->warnings[pl->n_warnings], PLAN_TEXT_MAX, fmt, ap) < 0)
        pl->warnings[pl->n_warnings][0] = '\0';
    va_end(ap);
    pl->n_warnings++;
}

/* Bounded formatting for descriptions; a long catalog name is cut, which is
 * fine for display text. */
static void fmt_text(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fmt_text(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(dst, n, fmt, ap) < 0)
        dst[0] = '\0';
    va_end(ap);
}

static void expect(struct engine_plan *pl, const char *id, double min, double max, const char *value,
                   const char *unit, const char *why)
{
    struct expectation *e;
    if (pl->n_expectations >= PLAN_EXPECTATIONS_MAX)
        return;
    e = &pl->expectations[pl->n_expectations++];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->min = min;
    e->max = max;
    snprintf(e->value, sizeof e->value, "%s", value ? value : "");
    snprintf(e->unit, sizeof e->unit, "%s", unit ? unit : "");
    snprintf(e->why, sizeof e->why, "%s", why);
}

static void bom(struct engine_plan *pl, const char *item, const char *desc, double qty, double unit,
                const char *as_of)
{
    struct plan_bom_line *b;
    if (pl->n_bom >= PLAN_BOM_MAX || qty <= 0)
        return;
    b = &pl->bom[pl->n_bom++];
    snprintf(b->item, sizeof b->item, "%s", item);
    snprintf(b->description, sizeof b->description, "%s", desc);
    b->quantity = qty;
    b->unit_usd = unit;
    b->total_usd = qty * unit;
    snprintf(b->as_of, sizeof b->as_of, "%s", as_of);
    pl->bom_total_usd += b->total_usd;
}

static const char *link_name(enum engine_link l)
{
    switch (l) {
    case LINK_NVSWITCH: return "nvswitch";
    case LINK_NVLINK_BRIDGE: return "nvlink-bridge";
    case LINK_XGMI_MESH: return "infinity-fabric";
    case LINK_ETHERNET_SCALEUP: return "roce-scaleup";
    default: return "pcie";
    }
}

static const struct engine_fabric *fabric_find(const struct catalog *c, enum engine_fabric_kind kind, double gbps)
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

static double fabric_cost_per_gpu(const struct engine_fabric *f)
{
    return f->nic_usd + 2.0 * f->port_usd + 2.0 * f->cable_usd;
}

/* PCIe caps what one NIC per GPU can carry: a Gen4 x16 slot saturates near
 * 200 Gb/s per direction, Gen5 near 400, Gen6 near 800 (R9, T4). */
static double nic_cap_gbps(int pcie_gen)
{
    return pcie_gen >= 6 ? 800.0 : pcie_gen == 5 ? 400.0 : pcie_gen == 4 ? 200.0 : 100.0;
}

static void eval_at(const struct catalog *c, const struct eval_ctx *ctx, const struct engine_plan *pl,
                    const struct engine_gpu *g, double rate, const struct engine_measured *meas, double eff_scale,
                    double bw_scale, struct eval_out *ev)
{
    struct eval_hw hw;
    eval_fill_hw(&hw, g, pl->count, pl->per_node, pl->nodes > 1 ? rate : 0.0, c, ctx->w, meas);
    if (pl->nodes == 1 && (!meas || isnan(meas->inter_busbw_gbs)))
        hw.nic_busbw_per_gpu_gbs = hw.intra_busbw_gbs;
    hw.eff_scale = eff_scale;
    hw.bw_scale = bw_scale;
    eval_time(ctx, &hw, &pl->par, ev);
}

static double round_up(double x, double step)
{
    return ceil(x / step) * step;
}

/* Storage capacity needed to deliver a bandwidth: parallel file systems and
 * NVMe scale throughput with capacity (F11). */
static void storage_tier(struct engine_plan *pl, const struct catalog *c, const char *tier, const char *kind,
                         double need_tb, double need_write_gbs, double need_read_gbs, double days,
                         enum engine_pricing pricing)
{
    const struct engine_storage *s = catalog_storage_find(c, kind);
    struct plan_storage_tier *t;
    double cap = need_tb;
    if (!s || pl->n_storage >= PLAN_STORAGE_TIERS_MAX)
        return;
    if (s->write_gbs_per_tb > 0 && need_write_gbs / s->write_gbs_per_tb > cap)
        cap = need_write_gbs / s->write_gbs_per_tb;
    if (s->read_gbs_per_tb > 0 && need_read_gbs / s->read_gbs_per_tb > cap)
        cap = need_read_gbs / s->read_gbs_per_tb;
    if (cap < s->min_tb)
        cap = s->min_tb;
    cap = round_up(cap, cap < 10 ? 0.5 : 10.0);
    t = &pl->storage[pl->n_storage++];
    memset(t, 0, sizeof *t);
    snprintf(t->tier, sizeof t->tier, "%s", tier);
    snprintf(t->kind, sizeof t->kind, "%s", kind);
    t->capacity_tb = cap;
    t->read_gbs = cap * s->read_gbs_per_tb;
    if (s->read_gbs_max > 0 && t->read_gbs > s->read_gbs_max)
        t->read_gbs = s->read_gbs_max;
    t->write_gbs = cap * s->write_gbs_per_tb;
    if (s->write_gbs_max > 0 && t->write_gbs > s->write_gbs_max)
        t->write_gbs = s->write_gbs_max;
    if (pricing == PRICING_CLOUD)
        t->usd = cap * s->usd_per_tb_month * (days > 0 ? days / 30.0 : 1.0);
    else
        t->usd = cap * s->usd_per_tb_buy;
}

void plan_complete(const struct catalog *c, const struct eval_ctx *ctx, struct engine_plan *pl,
                   const struct engine_measured *meas, int choose_fabric)
{
    const struct engine_gpu *g = &c->gpus[pl->gpu_index];
    const struct engine_workload *w = ctx->w;
    const struct engine_model *m = ctx->m;
    int n = pl->count, per_node = pl->per_node, nodes = pl->nodes;
    struct eval_out ev, lo, hi;
    struct engine_memory mem;
    struct goodput gp, gp_lo, gp_hi;
    double rate, ckpt_bytes, gib = 1024.0 * 1024.0 * 1024.0;
    const struct engine_fabric *f = NULL;
    char buf[96];
    const char *as_of = g->price_as_of;

    /* ---- fabric rate: the GPU's default (what the search assumed), or for
     * purchases the slowest catalog port rate, within what PCIe can feed
     * (R9) and at least 200 Gb/s from 100B parameters up (R35), that does not
     * slow the step by more than 1% against the default: a cheaper fabric
     * that costs no time. */
    rate = pl->fabric_gbps_per_gpu > 0 ? pl->fabric_gbps_per_gpu : g->default_fabric_gbps;
    if (nodes > 1 && choose_fabric) {
        double cap = nic_cap_gbps(g->pcie_gen), floor_gbps = ctx->pc.total >= 100e9 ? 200.0 : 100.0;
        double rates[CATALOG_FABRICS_MAX], step_default;
        int nr = 0;
        eval_at(c, ctx, pl, g, rate, meas, 1.0, 1.0, &ev);
        step_default = ev.step_s;
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
            eval_at(c, ctx, pl, g, rates[i], meas, 1.0, 1.0, &ev);
            if (ev.step_s <= step_default * 1.01) {
                rate = rates[i];
                break;
            }
        }
    }
    if (nodes == 1)
        rate = 0;
    pl->fabric_gbps_per_gpu = rate;

    /* ---- time, expected and bounds (F2, F4, F8, F9, F10). The range comes
     * from +-15% kernel efficiency, +25%/-30% bandwidth and 0.5x/3x failure
     * rates (Llama 3 vs research-cluster rates). */
    eval_at(c, ctx, pl, g, rate, meas, 1.0, 1.0, &ev);
    eval_at(c, ctx, pl, g, rate, meas, 1.15, 1.25, &lo);
    eval_at(c, ctx, pl, g, rate, meas, 0.85, 0.70, &hi);
    pl->par.global_batch = ev.global_batch;
    ckpt_bytes = engine_ckpt_bytes(ctx);
    pl->startup_s = engine_startup_s(nodes, engine_load_bytes_per_node(ctx, nodes));
    gp = eval_goodput(n, ckpt_bytes / n, engine_pcie_gbs(g->pcie_gen), 1.0, pl->startup_s);
    gp_lo = eval_goodput(n, ckpt_bytes / n, engine_pcie_gbs(g->pcie_gen), 0.5, pl->startup_s);
    gp_hi = eval_goodput(n, ckpt_bytes / n, engine_pcie_gbs(g->pcie_gen), 3.0, pl->startup_s);
    pl->tokens_per_s = ev.tokens_per_s;
    pl->step_time_s = ev.step_s;
    pl->mfu = ev.mfu;
    pl->hfu = ev.hfu;
    pl->comm_fraction = ev.comm_fraction;
    pl->bubble_fraction = ev.bubble_fraction;
    pl->goodput = gp.goodput;
    pl->achieved_tflops = ev.achieved_tflops;
    pl->mtbf_job_h = gp.mtbf_h;
    pl->flops_total = ctx->fpt_model * w->tokens_b * 1e9;
    /* F4 + F4b: wall time = start-up + tokens / throughput / goodput. */
    pl->days = (pl->startup_s + w->tokens_b * 1e9 / ev.tokens_per_s / gp.goodput) / 86400.0;
    pl->days_low = (pl->startup_s + w->tokens_b * 1e9 / lo.tokens_per_s / gp_lo.goodput) / 86400.0;
    pl->days_high = (pl->startup_s + w->tokens_b * 1e9 / hi.tokens_per_s / gp_hi.goodput) / 86400.0;
    pl->gpu_hours = pl->days * 24.0 * n;
    pl->recompute_name = engine_recompute_name((enum engine_recompute)pl->par.recompute);

    /* ---- memory (F5, F6, F7) */
    mem = engine_memory(m, w, &pl->par, ctx->seq);
    pl->mem_weights_gib = mem.weights / gib;
    pl->mem_gradients_gib = mem.gradients / gib;
    pl->mem_optimizer_gib = mem.optimizer / gib;
    pl->mem_activations_gib = mem.activations / gib;
    pl->mem_other_gib = mem.other / gib;
    pl->mem_per_gpu_gib = mem.total / gib;
    pl->mem_capacity_gib = g->memory_gib;
    pl->host_offload_gib = mem.host_offload / gib;

    /* ---- scale-up link (R12-R15) */
    pl->intra_node = per_node > 1 ? link_name(g->link) : "none";
    if (per_node > 1 && g->link == LINK_NVLINK_BRIDGE && per_node > 2)
        pl->intra_node = "nvlink-bridge";   /* bridged pairs; pairs talk over PCIe */
    pl->gpu_gpu_gbs = per_node > 1 ? g->scaleup_gbs : 0;
    if (per_node > 1 && g->link == LINK_PCIE)
        pl->gpu_gpu_gbs = 2.0 * engine_pcie_gbs(g->pcie_gen);
    pl->intra_busbw_gbs = meas && !isnan(meas->intra_busbw_gbs) ? meas->intra_busbw_gbs : g->intra_busbw_gbs;

    /* ---- fabric (R16-R23) */
    if (nodes > 1) {
        if (pl->fabric_kind == FABRIC_NONE) {
            if (w->pricing == PRICING_CLOUD)
                pl->fabric_kind = (g->link == LINK_NVSWITCH && strcmp(g->vendor, "NVIDIA") == 0)
                                      ? FABRIC_INFINIBAND : FABRIC_ROCE;
            else {
                const struct engine_fabric *ib = fabric_find(c, FABRIC_INFINIBAND, rate);
                const struct engine_fabric *ro = fabric_find(c, FABRIC_ROCE, rate);
                pl->fabric_kind = ro && (!ib || fabric_cost_per_gpu(ro) <= fabric_cost_per_gpu(ib))
                                      ? FABRIC_ROCE : FABRIC_INFINIBAND;
            }
        }
        f = fabric_find(c, pl->fabric_kind, rate);
        if (!f)
            f = fabric_find(c, pl->fabric_kind == FABRIC_ROCE ? FABRIC_INFINIBAND : FABRIC_ROCE, rate);
        if (f)
            pl->fabric_kind = f->kind;
        pl->nics_per_node = per_node;   /* R16: one NIC per GPU for GPUDirect RDMA */
        pl->fabric_port_gbps = f ? f->gbps : rate;
        snprintf(pl->fabric_id, sizeof pl->fabric_id, "%s", f ? f->id : "");
        pl->inter_busbw_gbs = meas && !isnan(meas->inter_busbw_gbs)
                                  ? meas->inter_busbw_gbs
                                  : pl->nics_per_node * (f ? f->busbw_per_nic_gbs : rate / 8.0 * 0.92);
        {
            int radix = f ? f->switch_radix : 64;
            int e = nodes * pl->nics_per_node;
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
    } else {
        pl->fabric_kind = FABRIC_NONE;
        pl->topology = "single-node";
        pl->oversubscription = "1:1";
        pl->lossless = 0;
        pl->nics_per_node = 0;
    }

    /* ---- storage and checkpoints (F10, F11, R27-R35) */
    pl->dataset_tb = !isnan(w->dataset_tb) ? w->dataset_tb : w->tokens_b * 1e9 * BYTES_PER_TOKEN / 1e12;
    pl->read_gbs = ev.tokens_per_s * BYTES_PER_TOKEN * 2.0 / 1e9;   /* x2 for shuffling and re-reads */
    pl->ckpt_size_gb = ckpt_bytes / 1e9;
    pl->ckpt_interval_min = gp.interval_s / 60.0;
    pl->ckpt_stall_s = gp.delta_s;
    pl->ckpt_keep = 3;
    pl->ckpt_write_gbs = pl->ckpt_size_gb / (0.5 * gp.interval_s);   /* persist within half an interval */
    {
        double hot_tb = pl->dataset_tb * 1.2 + pl->ckpt_keep * pl->ckpt_size_gb / 1000.0;
        if (nodes <= 2) {
            storage_tier(pl, c, "hot", "local-nvme", hot_tb, pl->ckpt_write_gbs, pl->read_gbs, pl->days,
                         w->pricing);
        } else {
            const struct engine_storage *nas = catalog_storage_find(c, "nas");
            int use_nas = nodes <= 8 && nas && pl->ckpt_write_gbs <= nas->write_gbs_max;
            storage_tier(pl, c, "hot", use_nas ? "nas" : "parallel-fs", hot_tb, pl->ckpt_write_gbs, pl->read_gbs,
                         pl->days, w->pricing);
            /* Local NVMe cache on every node for hot shards (R29). */
            storage_tier(pl, c, "hot", "local-nvme", nodes * 3.84 * (per_node > 4 ? 2 : 1), 0, 0, pl->days,
                         w->pricing);
        }
        /* Warm object tier (R29 two-layer pattern, R35): the durable home
         * of the dataset and of checkpoint copies. Needed as soon as a
         * checkpoint is spread over several nodes' local disks (losing one
         * node loses the checkpoint), the run lasts a day or more, or the
         * model is 10B+; a single-node job of hours keeps to local NVMe
         * (R33: do not over-design). */
        if (nodes > 1 || pl->days >= 1.0 || ctx->pc.total >= 10e9)
            storage_tier(pl, c, "warm", "object", pl->dataset_tb + 10.0 * pl->ckpt_size_gb / 1000.0, 0, 0,
                         pl->days, w->pricing);
        /* Cold archive (R35) keeps history and intermediate models of a
         * large, long run; a run of under a week leaves little history. */
        if ((ctx->pc.total >= 100e9 || n >= 256) && pl->days >= 7.0)
            storage_tier(pl, c, "cold", "archive", pl->dataset_tb + 3.0 * pl->ckpt_size_gb / 1000.0, 0, 0,
                         pl->days, w->pricing);
    }

    /* ---- host (R8, R26) and power (R10) */
    {
        int threads = per_node * 7 + 2 * pl->nics_per_node + 4;   /* main + 6 loader workers per GPU */
        if (threads < 16)
            threads = 16;
        pl->cpu_threads_per_node = (int)round_up(threads, 16);
        /* R8: RAM holds preprocessed batches, the dataset index and one or
         * two checkpoint copies. Per node: 64 GB for the OS, page cache and
         * CUDA/NCCL host buffers; 16 GB per GPU for its loader workers'
         * prefetched batches; pinned staging as large as what the node's
         * GPUs hold or one copy of the node's checkpoint share, whichever is
         * more (async checkpoints stage each GPU's shard in host RAM, F10;
         * offloaded optimizer state is already there and is not staged
         * twice); plus ZeRO-Offload state (R40). At least 128 GB (R8). A
         * full 8 x B200 plan lands near 1.6 TB (DGX B200: 2 TB), a full
         * GB200 tray near 0.9 TB (Grace: 2 x 480 GB). */
        double offload_gb = pl->host_offload_gib * per_node * gib / 1e9;
        double node_gpu_gb = per_node * pl->mem_per_gpu_gib * gib / 1e9;
        double ckpt_share = pl->ckpt_size_gb / nodes - offload_gb;
        double ram = 64.0 + 16.0 * per_node + (node_gpu_gb > ckpt_share ? node_gpu_gb : ckpt_share) + offload_gb;
        if (ram < 128)
            ram = 128;
        pl->ram_gb_per_node = round_up(ram, 64);
    }
    {
        double sw = pl->switches_leaf + pl->switches_spine + pl->switches_core;
        pl->power_kw = nodes * (per_node * g->tdp_w * 1.25 / 1000.0 + 1.2) + sw * (f ? f->switch_kw : 1.5);
    }

    /* ---- cost and bill of materials */
    pl->basis = w->pricing;
    pl->price_conf = w->pricing == PRICING_CLOUD ? g->cloud_price_conf : g->server_price_conf;
    pl->n_bom = 0;
    pl->bom_total_usd = 0;
    if (w->pricing == PRICING_CLOUD) {
        pl->billed_hours = engine_billed_hours(pl->days * 24.0);
        fmt_text(buf, sizeof buf, "%s GPU-hours: %d GPUs x %.0f billed h (whole hours, F4c)", g->name, n,
                 pl->billed_hours);
        bom(pl, "gpu-hours", buf, pl->billed_hours * n, g->cloud_usd_per_gpu_hour, as_of);
        for (int i = 0; i < pl->n_storage; i++)
            if (pl->storage[i].usd > 0) {
                fmt_text(buf, sizeof buf, "%s %s storage, %.1f TB for %.1f days", pl->storage[i].tier,
                         pl->storage[i].kind, pl->storage[i].capacity_tb, pl->days);
                bom(pl, "storage", buf, 1, pl->storage[i].usd, catalog_storage_find(c, pl->storage[i].kind)->as_of);
            }
        pl->cost_usd = pl->bom_total_usd;
        {
            double gpu_usd = pl->billed_hours * n * g->cloud_usd_per_gpu_hour, rest = pl->cost_usd - gpu_usd;
            pl->cost_low_usd = n * engine_billed_hours(pl->days_low * 24.0) * g->cloud_usd_per_gpu_hour +
                               rest * pl->days_low / pl->days;
            pl->cost_high_usd = n * engine_billed_hours(pl->days_high * 24.0) * g->cloud_usd_per_gpu_hour +
                                rest * pl->days_high / pl->days;
        }
    } else {
        double server = g->server_usd * (double)per_node / g->per_node;
        double energy_kwh = pl->power_kw * pl->days * 24.0, fixed;
        fmt_text(buf, sizeof buf, "server with %d x %s, CPUs, RAM, local NVMe", per_node, g->name);
        bom(pl, "servers", buf, nodes, server, as_of);
        if (f) {
            fmt_text(buf, sizeof buf, "%s NIC, %.0f Gb/s (one per GPU, R16)", f->name, f->gbps);
            bom(pl, "nics", buf, (double)nodes * pl->nics_per_node, f->nic_usd, f->as_of);
            fmt_text(buf, sizeof buf, "%s switch, %d ports (%s)", f->name, f->switch_radix, pl->topology);
            bom(pl, "switches", buf, pl->switches_leaf + pl->switches_spine + pl->switches_core, f->switch_usd,
                f->as_of);
            fmt_text(buf, sizeof buf, "optics/cables, %.0f Gb/s links (estimate)", f->gbps);
            bom(pl, "optics", buf, pl->links, f->cable_usd, f->as_of);
        }
        for (int i = 0; i < pl->n_storage; i++)
            if (pl->storage[i].usd > 0 && strcmp(pl->storage[i].kind, "local-nvme") != 0) {
                fmt_text(buf, sizeof buf, "%s %s storage", pl->storage[i].tier, pl->storage[i].kind);
                bom(pl, "storage", buf, pl->storage[i].capacity_tb,
                    pl->storage[i].usd / pl->storage[i].capacity_tb,
                    catalog_storage_find(c, pl->storage[i].kind)->as_of);
            }
        fixed = pl->bom_total_usd;
        bom(pl, "electricity", "electricity for the run at $0.10/kWh (assumption; PUE not included)", energy_kwh,
            ELECTRICITY_USD_PER_KWH, "2025-06-01");
        pl->cost_usd = pl->bom_total_usd;
        pl->cost_low_usd = fixed + (pl->cost_usd - fixed) * pl->days_low / pl->days;
        pl->cost_high_usd = fixed + (pl->cost_usd - fixed) * pl->days_high / pl->days;
    }

    /* ---- expectations: what the built cluster must show (R24 bottom-up) */
    pl->n_expectations = 0;
    {
        int nvidia = strcmp(g->vendor, "NVIDIA") == 0;
        double h2d = g->pcie_gen >= 6 ? 96.0 : g->pcie_gen == 5 ? 48.0 : g->pcie_gen == 4 ? 24.0 : 12.0;
        expect(pl, EXP_GPU_COUNT, per_node, NAN, NULL, "", "R5");
        if (nvidia) {
            expect(pl, EXP_TOPO_GPU_COUNT, per_node, NAN, NULL, "", "R14");
            if (per_node > 1) {
                const char *worst = (g->link == LINK_NVSWITCH || (g->link == LINK_NVLINK_BRIDGE && per_node == 2))
                                        ? "NV" : "NODE";
                expect(pl, EXP_TOPO_GPU_LINK, NAN, NAN, worst, "", "R12,R13,R14");
                if (strcmp(worst, "NV") == 0 && g->nvlinks > 0)
                    expect(pl, EXP_TOPO_NVLINK_MIN, g->nvlinks, NAN, NULL, "", "T5");
            }
            expect(pl, EXP_GPU_PCIE_GEN, g->pcie_gen, NAN, NULL, "", "R9,T6");
            expect(pl, EXP_GPU_PCIE_WIDTH, 16, NAN, NULL, "lanes", "R9,T6");
            expect(pl, EXP_GPU_ECC_UNCORR, NAN, 0, NULL, "", "T7");
            expect(pl, EXP_GPU_REMAP_PENDING, NAN, 0, NULL, "", "T7");
            expect(pl, EXP_NVBW_H2D, h2d, NAN, NULL, "GB/s", "T4");
            if (per_node > 1 && g->link != LINK_PCIE)
                expect(pl, EXP_NVBW_D2D, 0.744 * g->scaleup_gbs / 2.0, NAN, NULL, "GB/s", "T5");
            expect(pl, EXP_DCGM_FAIL, NAN, 0, NULL, "", "T10");
        }
        if (per_node > 1)
            expect(pl, EXP_NCCL_INTRA_BUSBW, g->intra_busbw_gbs, NAN, NULL, "GB/s", "T1");
        if (nodes > 1 && f) {
            expect(pl, EXP_NCCL_INTER_BUSBW, pl->nics_per_node * f->busbw_per_nic_gbs, NAN, NULL, "GB/s", "T2,R25");
            if (nvidia)
                expect(pl, EXP_TOPO_NIC_COUNT, pl->nics_per_node, NAN, NULL, "", "R16");
            expect(pl, EXP_IB_PORTS_ACTIVE, pl->nics_per_node, NAN, NULL, "", "R22,T9");
            expect(pl, EXP_IB_RATE, f->gbps, NAN, NULL, "Gb/s", "T9");
            expect(pl, EXP_IB_LINK_LAYER, NAN, NAN, f->kind == FABRIC_INFINIBAND ? "InfiniBand" : "Ethernet", "",
                   "R17,R23");
            expect(pl, EXP_IB_WRITE_BW, 0.93 * f->gbps, NAN, NULL, "Gb/s", "T3");
            expect(pl, EXP_NIC_ERRORS, NAN, 0, NULL, "", "R39");
        }
        if (per_node > 1 || nodes > 1) {
            expect(pl, EXP_NCCL_WRONG, NAN, 0, NULL, "", "T8");
            expect(pl, EXP_NCCL_WARNINGS, NAN, 0, NULL, "", "T8");
        }
        {
            double read_mbs = pl->read_gbs * 1000.0 / nodes * 4.0;   /* 4x headroom over the steady rate */
            double write_mbs = pl->ckpt_write_gbs * 1000.0 / nodes;
            if (read_mbs < 1000.0)
                read_mbs = 1000.0;   /* R29: local NVMe cache reads at least 1 GB/s */
            expect(pl, EXP_STORAGE_READ, round_up(read_mbs, 10), NAN, NULL, "MB/s", "F11,R27");
            expect(pl, EXP_STORAGE_WRITE, round_up(write_mbs, 10), NAN, NULL, "MB/s", "F10,R31");
        }
        expect(pl, EXP_CPU_GOVERNOR, NAN, NAN, "performance", "", "R38");
        expect(pl, EXP_CPU_THREADS, pl->cpu_threads_per_node, NAN, NULL, "", "R8,R26");
    }

    /* ---- rationale: the numbers behind each choice */
    pl->n_rationale = 0;
    plan_add_rationale(pl, "F1", "%.1fB parameters (%.1fB active per token) from %d layers, hidden %d, %d/%d heads, "
                       "FFN %d%s, vocabulary %d", ctx->pc.total / 1e9, ctx->pc.active / 1e9, m->layers, m->hidden,
                       m->heads, m->kv_heads, m->ffn_hidden, m->gated ? " (SwiGLU)" : "", m->vocab);
    plan_add_rationale(pl, "R2", "16-bit weights alone take %.0f GB; with gradients and Adam state the model "
                       "states are %.0f GB before sharding", ctx->pc.total * 2.0 / 1e9,
                       engine_model_states_bytes(ctx->pc.total, 0, 1, w->optimizer) / 1e9);
    plan_add_rationale(pl, "F5", "TP %d x PP %d x DP %d%s with ZeRO-%d%s: weights %.1f, gradients %.1f, optimizer "
                       "%.1f GiB per GPU", pl->par.tp, pl->par.pp, pl->par.dp,
                       pl->par.ep > 1 ? " (experts split EP)" : "", pl->par.zero,
                       pl->par.offload ? " + optimizer offload to host RAM" : "", pl->mem_weights_gib,
                       pl->mem_gradients_gib, pl->mem_optimizer_gib);
    plan_add_rationale(pl, "F6", "activations %.1f GiB per GPU: seq %d, micro-batch %d, %s recompute, "
                       "FlashAttention%s, fp32 logits; total %.1f of %.0f GiB", pl->mem_activations_gib,
                       ctx->seq, pl->par.micro_batch, pl->recompute_name, pl->par.tp > 1 ? ", sequence parallel" : "",
                       pl->mem_per_gpu_gib, g->memory_gib);
    if (w->task == TASK_LORA || w->task == TASK_QLORA)
        plan_add_rationale(pl, "F7", "%s: frozen base %.1f GB (%s), rank-%d adapters on every linear layer "
                           "carry the optimizer state", engine_task_name(w->task),
                           engine_lora_base_bytes(m, w) / 1e9,
                           w->task == TASK_QLORA ? "NF4 0.52 B/param, embeddings and head in bf16" : "bf16",
                           w->lora_rank > 0 ? w->lora_rank : 16);
    plan_add_rationale(pl, "R40", "memory relief applied cheapest first: %s precision, %s recompute, gradient "
                       "accumulation x%d, ZeRO-%d%s", engine_precision_name(w->precision), pl->recompute_name,
                       ev.grad_accum, pl->par.zero, pl->par.offload ? ", CPU offload" : "");
    plan_add_rationale(pl, w->task == TASK_PRETRAIN || w->task == TASK_FINETUNE ? "F2" : "F3",
                       "%.3g model FLOPs per token x %.4g B tokens = %.3g FLOPs (recompute counted apart: HFU %.2f "
                       "vs MFU %.2f)", ctx->fpt_model, w->tokens_b, pl->flops_total, pl->hfu, pl->mfu);
    plan_add_rationale(pl, "F4", "%s at %.0f TFLOP/s dense %s peak x kernel efficiency %.2f (generation, "
                       "matrix width h/tp = %d, %d tokens per micro-batch) gives MFU %.2f, %.0f TFLOP/s per GPU",
                       g->name, eval_peak_tflops(g, w->precision), engine_precision_name(w->precision), ev.eff,
                       m->hidden / pl->par.tp, ctx->seq * pl->par.micro_batch, pl->mfu, pl->achieved_tflops);
    plan_add_rationale(pl, "F8", "exposed communication %.1f%% of a %.2f s step (TP %.3f s over %s, PP %.3f s, DP "
                       "%.3f s, MoE all-to-all %.3f s)", 100.0 * pl->comm_fraction, ev.step_s, ev.t_tp,
                       pl->intra_node, ev.t_pp, ev.t_dp, ev.t_moe);
    if (pl->par.pp > 1)
        plan_add_rationale(pl, "F9", "pipeline bubble (p-1)/(v*m) = (%d-1)/(%d*%d) = %.1f%% of compute",
                           pl->par.pp, pl->par.vpp, ev.grad_accum,
                           100.0 * (pl->par.pp - 1) / ((double)pl->par.vpp * ev.grad_accum));
    plan_add_rationale(pl, "F4", "%.4g tokens/s; %.3g days = start-up %.0f min (F4b: provisioning, warm-up, NCCL "
                       "init on %d node%s, loading weights/checkpoint) + tokens / throughput / goodput %.3f (range "
                       "%.3g-%.3g days)", pl->tokens_per_s, pl->days, pl->startup_s / 60.0, nodes, nodes > 1 ? "s" : "",
                       pl->goodput, pl->days_low, pl->days_high);
    if (per_node > 1)
        plan_add_rationale(pl, g->link == LINK_NVSWITCH ? "R15" : "R12",
                           "%s inside the node (%.0f GB/s per GPU, all_reduce busbw %.0f GB/s); TP %d kept inside "
                           "the %d-GPU scale-up domain", pl->intra_node, pl->gpu_gpu_gbs, g->intra_busbw_gbs,
                           pl->par.tp, g->scaleup_domain < per_node ? g->scaleup_domain : per_node);
    if (nodes > 1 && f) {
        plan_add_rationale(pl, "R16", "%d NICs per node, one per GPU for GPUDirect RDMA, %.0f Gb/s each (%s)",
                           pl->nics_per_node, f->gbps, f->name);
        plan_add_rationale(pl, "R37", "%.0f Gb/s per GPU leaves exposed communication at %.1f%% of step time "
                           "(above %.0f%% communication needs tuning)", rate, 100.0 * pl->comm_fraction, 100.0 * COMM_TARGET);
        plan_add_rationale(pl, "R19", "%s: %d endpoints on radix-%d switches: %d leaf, %d spine, %d core; %d links",
                           pl->topology, nodes * pl->nics_per_node, f->switch_radix, pl->switches_leaf,
                           pl->switches_spine, pl->switches_core, pl->links);
        plan_add_rationale(pl, "R20", "1:1 oversubscription: training all-reduces keep every port busy; 1:2-1:3 "
                           "congests in bursts");
        plan_add_rationale(pl, "R23", "%s", f->kind == FABRIC_ROCE
                           ? "RoCE v2 must be lossless: matching PFC priority on switch and NIC, ECN thresholds "
                             "not too aggressive"
                           : "InfiniBand is lossless by credit-based flow control; needs a subnet manager (T9)");
    }
    plan_add_rationale(pl, ctx->pc.total >= 100e9 ? "R35" : ctx->pc.total >= 10e9 ? "R34" : "R33",
                       "%.0fB parameters on %d GPU%s in %d node%s", ctx->pc.total / 1e9, n, n > 1 ? "s" : "",
                       nodes, nodes > 1 ? "s" : "");
    plan_add_rationale(pl, "F10", "checkpoint %.3g GB (14 B per trained parameter%s); job MTBF %.1f h at 2.2e-5 "
                       "failures per GPU-hour; async stall %.1f s; Young/Daly interval %.0f min; restart = start-up "
                       "%.0f min (F4b); goodput %.3f", pl->ckpt_size_gb,
                       w->task == TASK_LORA || w->task == TASK_QLORA ? ": the adapters only" : "", pl->mtbf_job_h,
                       pl->ckpt_stall_s, pl->ckpt_interval_min, pl->startup_s / 60.0, pl->goodput);
    plan_add_rationale(pl, "R32", "keep the last %d checkpoints; write to a temporary name, atomic rename, then "
                       "delete the oldest; persist at %.1f GB/s (within half an interval)", pl->ckpt_keep,
                       pl->ckpt_write_gbs);
    plan_add_rationale(pl, "F11", "dataset %.2f TB; training reads %.2f GB/s cluster-wide; %s hot tier%s",
                       pl->dataset_tb, pl->read_gbs, pl->n_storage > 0 ? pl->storage[0].kind : "no",
                       nodes > 2 ? " with local NVMe cache per node (R29)" : " (R28)");
    plan_add_rationale(pl, "R8", "%d CPU threads and %.0f GB RAM per node: data loaders, pinned buffers, async "
                       "checkpoint copies; cores reserved for the RDMA control path (R26)", pl->cpu_threads_per_node,
                       pl->ram_gb_per_node);
    if (w->pricing == PRICING_CLOUD)
        plan_add_rationale(pl, "R11", "$%.0f = %d GPUs x %.0f billed hours (F4c: whole hours, 1 h minimum) x $%.2f "
                           "per GPU-hour (%s price: %s, as of %s) plus storage; the same GPU differs across zones and "
                           "providers: benchmark before committing", pl->cost_usd, n, pl->billed_hours,
                           g->cloud_usd_per_gpu_hour, engine_price_conf_name(g->cloud_price_conf), g->price_source,
                           g->price_as_of);
    else
        plan_add_rationale(pl, "R5", "$%.0f = %d servers at $%.0f (%s, as of %s), fabric, storage and electricity; "
                           "hardware sized backwards from the job", pl->cost_usd, nodes,
                           g->server_usd * (double)per_node / g->per_node, g->price_source, g->price_as_of);
    plan_add_rationale(pl, "R10", "%.1f kW IT load (GPU TDP x1.25 for host share, 1.2 kW per server, switches); "
                       "keep GPU cores below 80 C", pl->power_kw);

    /* ---- warnings */
    pl->n_warnings = 0;
    /* Scaling efficiency: the share of a step spent in useful GEMMs. Exposed
     * communication (R37: above 20% needs tuning), the pipeline bubble (F9)
     * and the optimizer step are what more GPUs add; when they eat a quarter
     * of the step, or MFU falls below half of what the GPU's kernels reach
     * (F4 ceiling), each extra GPU buys little. A low ceiling alone (AMD,
     * Intel, QLoRA) is not a scaling problem. */
    {
        double useful = ev.step_s > 0 ? ev.t_compute / ev.step_s : 1.0;
        if (pl->comm_fraction > COMM_TARGET)
            plan_add_warning(pl, "communication-bound: exposed communication is %.0f%% of step time, above R37's "
                             "%.0f%%: tune or use fewer, better-connected GPUs", 100.0 * pl->comm_fraction,
                             100.0 * COMM_TARGET);
        if (useful < 0.75 || pl->mfu < 0.5 * ev.eff)
            plan_add_warning(pl, "poor scaling efficiency: %.0f%% of each step is useful compute (communication "
                             "%.0f%%, pipeline bubble %.0f%%), MFU %.2f against a kernel ceiling of %.2f on %d GPUs; "
                             "fewer GPUs would use each one better (R4, R37, F9)", 100.0 * useful,
                             100.0 * pl->comm_fraction, 100.0 * pl->bubble_fraction, pl->mfu, ev.eff, n);
    }
    if (pl->par.tp > 1 && g->link == LINK_PCIE)
        plan_add_warning(pl, "tensor parallel %d over PCIe only: NCCL P2P through the CPU root complex is slow "
                         "(R13)", pl->par.tp);
    if (w->precision == PREC_FP8 && !(g->fp8_tflops > 0))
        plan_add_warning(pl, "%s has no FP8 tensor cores: estimated at the BF16 rate", g->id);
    if (strncmp(g->id, "rtx", 3) == 0)
        plan_add_warning(pl, "%s is a consumer/workstation card: no NVLink, no datacenter support; fine for "
                         "small models and fine-tuning (R33)", g->id);
    if (pl->par.offload)
        plan_add_warning(pl, "optimizer state (%.1f GiB per GPU) lives in host RAM: the CPU Adam step adds "
                         "time (R40)", pl->host_offload_gib);
    if (ev.global_batch > ctx->batch_seqs * 1.5)
        plan_add_warning(pl, "data parallel %d forces a global batch of %d sequences, %.1fx the target; check "
                         "convergence", pl->par.dp, ev.global_batch, ev.global_batch / ctx->batch_seqs);
    if (pl->days > 365)
        plan_add_warning(pl, "the run takes %.0f days", pl->days);
    if (g->restricted)
        plan_add_warning(pl, "%s has restricted availability: %s", g->id, g->availability_note);
    if (pl->price_conf >= PRICE_ESTIMATE)
    {
        char price[48];
        if (w->pricing == PRICING_CLOUD)
            fmt_text(price, sizeof price, "$%.2f per GPU-hour", g->cloud_usd_per_gpu_hour);
        else
            fmt_text(price, sizeof price, "$%.0f per %d-GPU server", g->server_usd, g->per_node);
        plan_add_warning(pl, "price confidence: the cost rests on %s for %s (%s, as of %s), %s; get a quote "
                         "before committing", price, g->id,
                         pl->price_conf == PRICE_ASSUMPTION ? "an accounting assumption, not a market price"
                                                            : "our estimate, not a published price",
                         g->price_as_of, "see the catalog source");
    }
}

double engine_plan_days_at(const struct catalog *c, const struct engine_workload *w, const struct engine_plan *plan,
                           const struct engine_measured *m)
{
    struct eval_ctx ctx;
    struct eval_out ev;
    struct goodput gp;
    const struct engine_gpu *g;

    if (plan->gpu_index < 0 || plan->gpu_index >= c->n_gpus || plan->count < 1 || !plan->feasible ||
        plan->par.tp < 1 || plan->par.pp < 1 || plan->par.dp < 1)
        return NAN;
    g = &c->gpus[plan->gpu_index];
    eval_ctx_init(&ctx, &w->model, w);
    if (plan->par.global_batch > 0)
        ctx.batch_seqs = plan->par.global_batch;
    eval_at(c, &ctx, plan, g, plan->fabric_gbps_per_gpu, m, 1.0, 1.0, &ev);
    {
        double start = engine_startup_s(plan->nodes, engine_load_bytes_per_node(&ctx, plan->nodes));
        gp = eval_goodput(plan->count, engine_ckpt_bytes(&ctx) / plan->count, engine_pcie_gbs(g->pcie_gen), 1.0,
                          start);
        return (start + w->tokens_b * 1e9 / ev.tokens_per_s / gp.goodput) / 86400.0;
    }
}
