/* golden_dump.h: writes every field of a recommendation as text, doubles
 * with %a so that two dumps are equal exactly when the answers are equal bit
 * for bit. Shared by the golden test and the memo test (header-only: two
 * test programs use it). configs_evaluated is left out on purpose: it counts
 * the work done, not the answer. */
#ifndef GPUPLAN_GOLDEN_DUMP_H
#define GPUPLAN_GOLDEN_DUMP_H

#include <math.h>
#include <stdio.h>

#include "engine.h"

static inline void gd_num(FILE *f, const char *k, double v)
{
    if (isnan(v))
        fprintf(f, "%s nan\n", k);
    else
        fprintf(f, "%s %a\n", k, v);
}

static inline void gd_par(FILE *f, const struct engine_parallel *p)
{
    fprintf(f, "par %d %d %d %d %d z%d r%d mb%d gb%d v%d off%d\n", p->tp, p->pp, p->dp, p->ep, p->cp, p->zero,
            p->recompute, p->micro_batch, p->global_batch, p->vpp, p->offload);
}

static inline const char *gd_s(const char *s)
{
    return s ? s : "(null)";
}

static inline void golden_dump_plan(FILE *f, const struct engine_plan *p)
{
    fprintf(f, "feasible %d why %s\n", p->feasible, p->why);
    gd_num(f, "need_budget_usd", p->need_budget_usd);
    gd_num(f, "need_deadline_days", p->need_deadline_days);
    fprintf(f, "gpu %d %s %s count %d per_node %d nodes %d\n", p->gpu_index, p->gpu_id, p->gpu_name, p->count,
            p->per_node, p->nodes);
    gd_par(f, &p->par);
    fprintf(f, "recompute_name %s intra_node %s topology %s oversub %s\n", gd_s(p->recompute_name),
            gd_s(p->intra_node), gd_s(p->topology), gd_s(p->oversubscription));
    gd_num(f, "mem_per_gpu_gib", p->mem_per_gpu_gib);
    gd_num(f, "mem_capacity_gib", p->mem_capacity_gib);
    gd_num(f, "mem_weights_gib", p->mem_weights_gib);
    gd_num(f, "mem_gradients_gib", p->mem_gradients_gib);
    gd_num(f, "mem_optimizer_gib", p->mem_optimizer_gib);
    gd_num(f, "mem_activations_gib", p->mem_activations_gib);
    gd_num(f, "mem_other_gib", p->mem_other_gib);
    gd_num(f, "host_offload_gib", p->host_offload_gib);
    gd_num(f, "gpu_gpu_gbs", p->gpu_gpu_gbs);
    gd_num(f, "intra_busbw_gbs", p->intra_busbw_gbs);
    fprintf(f, "fabric %d %s nics %d ports %d lossless %d switches %d %d %d links %d\n", (int)p->fabric_kind,
            p->fabric_id, p->nics_per_node, p->scaleout_ports_per_node, p->lossless, p->switches_leaf,
            p->switches_spine, p->switches_core, p->links);
    gd_num(f, "fabric_gbps_per_gpu", p->fabric_gbps_per_gpu);
    gd_num(f, "fabric_port_gbps", p->fabric_port_gbps);
    gd_num(f, "inter_busbw_gbs", p->inter_busbw_gbs);
    for (int i = 0; i < p->n_storage; i++) {
        const struct plan_storage_tier *s = &p->storage[i];
        fprintf(f, "storage %s %s\n", s->tier, s->kind);
        gd_num(f, " capacity_tb", s->capacity_tb);
        gd_num(f, " read_gbs", s->read_gbs);
        gd_num(f, " write_gbs", s->write_gbs);
        gd_num(f, " usd", s->usd);
    }
    gd_num(f, "ckpt_size_gb", p->ckpt_size_gb);
    gd_num(f, "ckpt_interval_min", p->ckpt_interval_min);
    gd_num(f, "ckpt_write_gbs", p->ckpt_write_gbs);
    gd_num(f, "ckpt_stall_s", p->ckpt_stall_s);
    fprintf(f, "ckpt_keep %d cpu_threads %d\n", p->ckpt_keep, p->cpu_threads_per_node);
    gd_num(f, "dataset_tb", p->dataset_tb);
    gd_num(f, "read_gbs", p->read_gbs);
    gd_num(f, "ram_gb_per_node", p->ram_gb_per_node);
    gd_num(f, "power_kw", p->power_kw);
    gd_num(f, "days", p->days);
    gd_num(f, "days_low", p->days_low);
    gd_num(f, "days_high", p->days_high);
    gd_num(f, "gpu_hours", p->gpu_hours);
    gd_num(f, "tokens_per_s", p->tokens_per_s);
    gd_num(f, "step_time_s", p->step_time_s);
    gd_num(f, "mfu", p->mfu);
    gd_num(f, "hfu", p->hfu);
    gd_num(f, "comm_fraction", p->comm_fraction);
    gd_num(f, "bubble_fraction", p->bubble_fraction);
    gd_num(f, "goodput", p->goodput);
    gd_num(f, "achieved_tflops", p->achieved_tflops);
    gd_num(f, "flops_total", p->flops_total);
    gd_num(f, "mtbf_job_h", p->mtbf_job_h);
    gd_num(f, "startup_s", p->startup_s);
    gd_num(f, "billed_hours", p->billed_hours);
    gd_num(f, "cost_usd", p->cost_usd);
    gd_num(f, "cost_low_usd", p->cost_low_usd);
    gd_num(f, "cost_high_usd", p->cost_high_usd);
    fprintf(f, "basis %d price_conf %d\n", (int)p->basis, (int)p->price_conf);
    for (int i = 0; i < p->n_expectations; i++) {
        const struct expectation *e = &p->expectations[i];
        fprintf(f, "expect %s value %s unit %s why %s\n", e->id, e->value, e->unit, e->why);
        gd_num(f, " min", e->min);
        gd_num(f, " max", e->max);
    }
    for (int i = 0; i < p->n_rationale; i++)
        fprintf(f, "rationale %s %s\n", p->rationale[i].rule, p->rationale[i].text);
    for (int i = 0; i < p->n_warnings; i++)
        fprintf(f, "warning %s\n", p->warnings[i]);
    for (int i = 0; i < p->n_bom; i++) {
        const struct plan_bom_line *b = &p->bom[i];
        fprintf(f, "bom %s | %s | %s\n", b->item, b->description, b->as_of);
        gd_num(f, " quantity", b->quantity);
        gd_num(f, " unit_usd", b->unit_usd);
        gd_num(f, " total_usd", b->total_usd);
    }
    gd_num(f, "bom_total_usd", p->bom_total_usd);
}

static inline void golden_dump_recommendation(FILE *f, const struct engine_recommendation *r)
{
    gd_num(f, "params_b", r->params_b);
    gd_num(f, "active_params_b", r->active_params_b);
    for (int t = 0; t < TIER_COUNT; t++) {
        fprintf(f, "--- tier %d\n", t);
        golden_dump_plan(f, &r->tiers[t]);
    }
    for (int i = 0; i < r->n_warnings; i++)
        fprintf(f, "rec_warning %s\n", r->warnings[i]);
    fprintf(f, "n_candidates %d\n", r->n_candidates);
    for (int i = 0; i < r->n_candidates; i++) {
        const struct engine_candidate *c = &r->candidates[i];
        fprintf(f, "cand %d %d %d %d %a %a %a %a %a\n", c->gi, c->per_node, c->nodes, c->n, c->fabric_gbps,
                c->tokens_per_s, c->mem_gib, c->days, c->cost);
        gd_par(f, &c->par);
    }
}

#endif
