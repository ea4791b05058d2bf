/* test_engine.c: the planner's Check suite.
 *
 * Formulas against the papers they come from (ZeRO table, R2, F1 against
 * published parameter counts, Young/Daly), properties of the search that must
 * hold for any workload (memory fits, tp*pp*dp*cp = GPUs, tier ordering,
 * deadline and budget honoured, ZeRO-3 memory falls with GPUs), input checks
 * that name the field, and the guard on the median error against published
 * runs. The catalog comes from the migrations through the db module, as in
 * production. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "engine.h"
#include "published_runs.h"

static struct catalog *cat;

static void setup(void)
{
    struct db *db = NULL;
    char err[256];
    cat = calloc(1, sizeof *cat);
    ck_assert_ptr_nonnull(cat);
    ck_assert_int_eq(db_open(":memory:", DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_msg(db_catalog_load(db, cat, err, sizeof err) == ST_OK, "%s", err);
    db_close(db);
}

static void teardown(void)
{
    free(cat);
    cat = NULL;
}

static void workload(struct engine_workload *w, const char *preset, double tokens_b)
{
    char err[256];
    engine_workload_init(w);
    snprintf(w->preset, sizeof w->preset, "%s", preset);
    w->tokens_b = tokens_b;
    ck_assert_msg(engine_workload_resolve(w, cat, err, sizeof err) == ST_OK, "%s", err);
}

static struct engine_recommendation *recommend(const struct engine_workload *w)
{
    char err[256];
    struct engine_recommendation *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(engine_recommend(cat, w, r, err, sizeof err) == ST_OK, "%s", err);
    return r;
}

static int within(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

/* ---------------------------------------------------------------- formulas */

START_TEST(zero_states_match_the_zero_paper_table)
{
    /* ZeRO paper Figure 1: 7.5B parameters, N_d = 64: 120 / 31.4 / 16.6 / 1.9 GB. */
    double psi = 7.5e9;
    ck_assert(within(engine_model_states_bytes(psi, 0, 64, OPT_ADAMW) / 1e9, 120.0, 0.02));
    ck_assert(within(engine_model_states_bytes(psi, 1, 64, OPT_ADAMW) / 1e9, 31.4, 0.02));
    ck_assert(within(engine_model_states_bytes(psi, 2, 64, OPT_ADAMW) / 1e9, 16.6, 0.02));
    ck_assert(within(engine_model_states_bytes(psi, 3, 64, OPT_ADAMW) / 1e9, 1.9, 0.02));
}
END_TEST

START_TEST(r2_seven_billion_weights_are_14_gb_and_states_exceed_70_gb)
{
    struct engine_workload w;
    struct engine_param_count pc;
    workload(&w, "llama-2-7b", 1);
    pc = engine_params(&w.model);
    ck_assert(within(pc.total * 2.0 / 1e9, 14.0, 0.05));
    ck_assert(engine_model_states_bytes(pc.total, 0, 1, OPT_ADAMW) / 1e9 > 70.0);
}
END_TEST

START_TEST(eight_bit_adam_shrinks_optimizer_state)
{
    ck_assert(engine_model_states_bytes(7e9, 0, 1, OPT_ADAMW_8BIT) < engine_model_states_bytes(7e9, 0, 1, OPT_ADAMW));
    ck_assert(within(engine_model_states_bytes(1e9, 0, 1, OPT_ADAMW_8BIT), 10e9, 1e-9));
}
END_TEST

START_TEST(f1_counts_parameters_of_published_shapes)
{
    /* Shape-only counts (declared totals removed) against the published sizes. */
    static const struct { const char *id; double total_b, active_b, tol; } cases[] = {
        {"llama-2-7b", 6.74, 6.74, 0.02},
        {"llama-3-70b", 70.6, 70.6, 0.02},
        {"llama-3.1-405b", 405.85, 405.85, 0.02},
        {"mixtral-8x7b", 46.7, 12.9, 0.02},
        {"deepseek-v3", 671, 37, 0.05},
        {"qwen2.5-72b", 72.7, 72.7, 0.02},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct engine_model m = *catalog_model_find(cat, cases[i].id);
        struct engine_param_count pc;
        m.params_b = 0;
        m.active_params_b = 0;
        pc = engine_params(&m);
        ck_assert_msg(within(pc.total / 1e9, cases[i].total_b, cases[i].tol), "%s total %.2f", cases[i].id,
                      pc.total / 1e9);
        ck_assert_msg(within(pc.active / 1e9, cases[i].active_b, cases[i].tol), "%s active %.2f", cases[i].id,
                      pc.active / 1e9);
    }
}
END_TEST

START_TEST(young_daly_interval_matches_the_worked_example)
{
    /* facts s4: delta 60 s, M = 11,160 s: Young 1,157 s; Daly first order ~1,100 s. */
    double t = engine_ckpt_interval_s(60.0, 11160.0);
    ck_assert_msg(t > 1080 && t < 1180, "%f", t);
    ck_assert(engine_ckpt_interval_s(100.0, 40.0) == 40.0);
}
END_TEST

START_TEST(recompute_and_tensor_parallel_shrink_activations)
{
    struct engine_workload w;
    struct engine_parallel p = {.tp = 1, .pp = 1, .dp = 1, .ep = 1, .cp = 1, .zero = 0, .micro_batch = 1,
                                .global_batch = 1, .vpp = 1};
    struct engine_memory none, sel, full, tp8;
    workload(&w, "gpt-3-175b", 1);
    p.recompute = RECOMPUTE_NONE;
    none = engine_memory(&w.model, &w, &p, 2048);
    p.recompute = RECOMPUTE_SELECTIVE;
    sel = engine_memory(&w.model, &w, &p, 2048);
    p.recompute = RECOMPUTE_FULL;
    full = engine_memory(&w.model, &w, &p, 2048);
    p.recompute = RECOMPUTE_NONE;
    p.tp = 8;
    tp8 = engine_memory(&w.model, &w, &p, 2048);
    ck_assert(sel.activations < none.activations);
    ck_assert(full.activations < sel.activations / 5);
    ck_assert(tp8.activations < none.activations / 6);
}
END_TEST

START_TEST(qlora_needs_less_memory_than_lora_and_lora_less_than_full)
{
    struct engine_workload w;
    struct engine_parallel p = {.tp = 1, .pp = 1, .dp = 1, .ep = 1, .cp = 1, .zero = 0,
                                .recompute = RECOMPUTE_FULL, .micro_batch = 1, .global_batch = 1, .vpp = 1};
    struct engine_memory full, lora, qlora;
    workload(&w, "llama-2-70b", 1);
    full = engine_memory(&w.model, &w, &p, 4096);
    w.task = TASK_LORA;
    lora = engine_memory(&w.model, &w, &p, 4096);
    w.task = TASK_QLORA;
    qlora = engine_memory(&w.model, &w, &p, 4096);
    ck_assert(lora.total < full.total / 5);
    ck_assert(qlora.total < lora.total / 2.5);
    /* QLoRA s1: a 65B model fine-tunes in under 48 GB. */
    ck_assert_msg(qlora.total / 1e9 < 52, "%f GB", qlora.total / 1e9);
}
END_TEST

/* ---------------------------------------------------------------- properties */

START_TEST(more_gpus_never_raise_memory_per_gpu_under_zero3)
{
    struct engine_workload w;
    double last = INFINITY;
    workload(&w, "llama-3-70b", 1);
    for (int dp = 1; dp <= 4096; dp *= 2) {
        struct engine_parallel p = {.tp = 1, .pp = 1, .dp = dp, .ep = 1, .cp = 1, .zero = 3,
                                    .recompute = RECOMPUTE_FULL, .micro_batch = 1, .global_batch = 4096, .vpp = 1};
        struct engine_memory m = engine_memory(&w.model, &w, &p, 8192);
        ck_assert_msg(m.total <= last, "dp %d: %f > %f", dp, m.total, last);
        last = m.total;
    }
}
END_TEST

static void check_plan_invariants(const struct engine_plan *p, const char *what)
{
    if (p->gpu_index < 0)
        return;
    ck_assert_msg(p->par.tp * p->par.pp * p->par.dp * (p->par.cp > 0 ? p->par.cp : 1) == p->count,
                  "%s: tp %d pp %d dp %d != %d", what, p->par.tp, p->par.pp, p->par.dp, p->count);
    ck_assert_msg(p->count == p->per_node * p->nodes, "%s: count", what);
    ck_assert_msg(p->mem_per_gpu_gib <= p->mem_capacity_gib, "%s: %.1f GiB > %.1f", what, p->mem_per_gpu_gib,
                  p->mem_capacity_gib);
    ck_assert_msg(p->days > 0 && p->days_low <= p->days && p->days <= p->days_high, "%s: days", what);
    ck_assert_msg(p->cost_usd > 0 && p->cost_low_usd <= p->cost_usd && p->cost_usd <= p->cost_high_usd,
                  "%s: cost", what);
    ck_assert_msg(p->mfu > 0 && p->mfu < 1 && p->goodput > 0 && p->goodput <= 1, "%s: mfu/goodput", what);
    ck_assert_msg(p->n_expectations > 0 && p->n_rationale > 0, "%s: explained", what);
    ck_assert_msg(fabs(p->bom_total_usd - p->cost_usd) < 1.0, "%s: bom %.0f != cost %.0f", what, p->bom_total_usd,
                  p->cost_usd);
    if (p->nodes > 1) {
        ck_assert_msg(p->nics_per_node == p->per_node, "%s: one NIC per GPU (R16)", what);
        ck_assert_msg(p->fabric_kind != FABRIC_NONE, "%s: multi-node needs RDMA", what);
    }
}

START_TEST(tiers_are_ordered_and_honour_deadline_and_budget)
{
    static const struct { const char *preset; double tokens_b, deadline, budget; enum engine_task task;
                          enum engine_pricing pricing; } cases[] = {
        {"llama-2-7b", 200, 14, 200000, TASK_PRETRAIN, PRICING_CLOUD},
        {"llama-3-70b", 2000, 60, 20e6, TASK_PRETRAIN, PRICING_CLOUD},
        {"llama-3-8b", 1, 2, NAN, TASK_LORA, PRICING_CLOUD},
        {"mixtral-8x7b", 500, 30, NAN, TASK_PRETRAIN, PRICING_BUY},
        {"llama-3.1-405b", 15600, 90, NAN, TASK_PRETRAIN, PRICING_CLOUD},
        {"qwen2.5-7b", 5, 3, 50000, TASK_QLORA, PRICING_BUY},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct engine_workload w;
        struct engine_recommendation *r;
        const struct engine_plan *mn, *rc, *pf;
        workload(&w, cases[i].preset, cases[i].tokens_b);
        w.deadline_days = cases[i].deadline;
        w.budget_usd = cases[i].budget;
        w.task = cases[i].task;
        w.pricing = cases[i].pricing;
        r = recommend(&w);
        mn = &r->tiers[TIER_MINIMUM];
        rc = &r->tiers[TIER_RECOMMENDED];
        pf = &r->tiers[TIER_PERFORMANCE];
        for (int t = 0; t < TIER_COUNT; t++)
            check_plan_invariants(&r->tiers[t], cases[i].preset);
        ck_assert_msg(rc->feasible, "%s: recommended infeasible: %s", cases[i].preset, rc->why);
        ck_assert_msg(rc->days <= cases[i].deadline, "%s: %.1f days > deadline", cases[i].preset, rc->days);
        if (!isnan(cases[i].budget))
            ck_assert_msg(rc->cost_usd <= cases[i].budget, "%s: over budget", cases[i].preset);
        ck_assert_msg(mn->cost_usd <= rc->cost_usd + 0.5 && mn->cost_usd <= pf->cost_usd + 0.5,
                      "%s: minimum is not cheapest", cases[i].preset);
        ck_assert_msg(pf->days <= rc->days + 1e-9 && pf->days <= mn->days + 1e-9, "%s: performance is not fastest",
                      cases[i].preset);
        free(r);
    }
}
END_TEST

/* Random workloads from a fixed seed: the invariants hold for all of them. */
START_TEST(random_workloads_keep_every_invariant)
{
    static const char *const presets[] = {"llama-2-7b", "llama-3-8b", "llama-3-70b", "mixtral-8x7b", "qwen2.5-14b",
                                          "llama-3.2-1b", "gpt-3-175b", "deepseek-v3", "qwen2.5-72b", "dbrx"};
    unsigned long long x = 0x9e3779b97f4a7c15ULL;
    for (int k = 0; k < 40; k++) {
        struct engine_workload w;
        struct engine_recommendation *r;
        char what[96];
#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
        const char *preset = presets[NEXT() % (sizeof presets / sizeof presets[0])];
        workload(&w, preset, 1.0 + (double)(NEXT() % 3000));
        w.task = (enum engine_task)(NEXT() % 4);
        if (w.task != TASK_PRETRAIN)
            w.tokens_b = 0.01 + (double)(NEXT() % 50);
        w.pricing = NEXT() % 2 ? PRICING_BUY : PRICING_CLOUD;
        w.precision = NEXT() % 3 == 0 ? PREC_FP8 : PREC_BF16;
        w.deadline_days = NEXT() % 4 == 0 ? NAN : 1.0 + (double)(NEXT() % 120);
        w.budget_usd = NEXT() % 3 == 0 ? NAN : 1e4 * (double)(1 + NEXT() % 5000);
        w.max_gpus = NEXT() % 2 ? 0 : (int)(8 << (NEXT() % 12));
        snprintf(what, sizeof what, "case %d %s task %d", k, preset, (int)w.task);
        r = recommend(&w);
        for (int t = 0; t < TIER_COUNT; t++) {
            const struct engine_plan *p = &r->tiers[t];
            check_plan_invariants(p, what);
            if (p->gpu_index >= 0 && w.max_gpus > 0)
                ck_assert_msg(p->count <= w.max_gpus, "%s: max_gpus", what);
        }
        if (r->tiers[TIER_RECOMMENDED].feasible) {
            const struct engine_plan *rc = &r->tiers[TIER_RECOMMENDED];
            ck_assert_msg(isnan(w.deadline_days) || rc->days <= w.deadline_days, "%s: deadline", what);
            ck_assert_msg(isnan(w.budget_usd) || rc->cost_usd <= w.budget_usd, "%s: budget", what);
            ck_assert_msg(r->tiers[TIER_MINIMUM].cost_usd <= rc->cost_usd + 0.5, "%s: minimum not cheapest", what);
            if (r->tiers[TIER_PERFORMANCE].feasible)
                ck_assert_msg(r->tiers[TIER_PERFORMANCE].days <= rc->days + 1e-9, "%s: performance slower", what);
        } else {
            ck_assert_msg(r->tiers[TIER_RECOMMENDED].why[0], "%s: infeasible without a reason", what);
        }
        free(r);
#undef NEXT
    }
}
END_TEST

START_TEST(recommend_respects_gpus_allowed_and_max_gpus)
{
    struct engine_workload w;
    struct engine_recommendation *r;
    char err[256];
    workload(&w, "llama-3-70b", 1000);
    snprintf(w.gpus_allowed[0], sizeof w.gpus_allowed[0], "a100-sxm-80gb");
    snprintf(w.gpus_allowed[1], sizeof w.gpus_allowed[1], "h100-sxm-80gb");
    w.n_gpus_allowed = 2;
    w.max_gpus = 256;
    ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_OK);
    r = recommend(&w);
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct engine_plan *p = &r->tiers[t];
        ck_assert(strcmp(p->gpu_id, "a100-sxm-80gb") == 0 || strcmp(p->gpu_id, "h100-sxm-80gb") == 0);
        ck_assert_int_le(p->count, 256);
    }
    free(r);
}
END_TEST

START_TEST(impossible_deadline_says_what_would_work)
{
    struct engine_workload w;
    struct engine_recommendation *r;
    workload(&w, "llama-3.1-405b", 15600);
    w.deadline_days = 30;
    w.budget_usd = 10e6;
    w.max_gpus = 4096;
    r = recommend(&w);
    ck_assert(!r->tiers[TIER_RECOMMENDED].feasible);
    ck_assert(strlen(r->tiers[TIER_RECOMMENDED].why) > 10);
    ck_assert(!isnan(r->tiers[TIER_RECOMMENDED].need_deadline_days) ||
              !isnan(r->tiers[TIER_RECOMMENDED].need_budget_usd));
    ck_assert_int_gt(r->n_warnings, 0);
    free(r);
}
END_TEST

START_TEST(a_model_too_large_for_max_gpus_is_infeasible_with_a_reason)
{
    struct engine_workload w;
    struct engine_recommendation *r;
    workload(&w, "llama-3.1-405b", 100);
    w.max_gpus = 2;
    r = recommend(&w);
    for (int t = 0; t < TIER_COUNT; t++) {
        ck_assert(!r->tiers[t].feasible);
        ck_assert(strstr(r->tiers[t].why, "does not fit") != NULL);
    }
    free(r);
}
END_TEST

/* Fixed costs (F4b start-up, F4c billing): a job of minutes on hundreds of
 * GPUs pays an hour on every one, so small jobs stay on one node. */
START_TEST(small_jobs_stay_on_one_node_because_start_up_and_billing_are_paid)
{
    static const struct { const char *preset; enum engine_task task; double tokens_b; } cases[] = {
        {"llama-2-7b", TASK_LORA, 0.5},
        {"llama-2-70b", TASK_QLORA, 0.2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct engine_workload w;
        struct engine_recommendation *r;
        workload(&w, cases[i].preset, cases[i].tokens_b);
        w.task = cases[i].task;
        r = recommend(&w);
        for (int t = 0; t < TIER_COUNT; t++) {
            const struct engine_plan *p = &r->tiers[t];
            ck_assert_msg(p->feasible, "%s %s: %s", cases[i].preset, engine_tier_name(t), p->why);
            /* Wall time includes the start-up, cost whole billed hours. */
            ck_assert_msg(p->startup_s >= 300 && p->days * 86400.0 >= p->startup_s, "%s: start-up", cases[i].preset);
            ck_assert_msg(p->billed_hours >= 1 && p->billed_hours >= p->days * 24.0 - 1e-6 &&
                          p->cost_usd >= p->count * p->billed_hours *
                                             cat->gpus[p->gpu_index].cloud_usd_per_gpu_hour - 0.5,
                          "%s %s: billing", cases[i].preset, engine_tier_name(t));
            ck_assert_msg(p->nodes <= 4 && p->count <= 32, "%s %s: %d GPUs in %d nodes for %.2f h",
                          cases[i].preset, engine_tier_name(t), p->count, p->nodes, p->days * 24.0);
        }
        ck_assert_msg(r->tiers[TIER_MINIMUM].nodes == 1 && r->tiers[TIER_RECOMMENDED].nodes == 1,
                      "%s: minimum/recommended on one node", cases[i].preset);
        free(r);
    }
}
END_TEST

/* Near-ties in cost go to fewer nodes, then fewer GPUs, and the plan says
 * so; never to a plan slower than the deadline or dearer than recommended. */
START_TEST(near_ties_go_to_the_simpler_cluster_and_say_so)
{
    static const double tokens[] = {5, 500};
    for (size_t k = 0; k < sizeof tokens / sizeof tokens[0]; k++) {
        struct engine_workload w;
        struct engine_recommendation *r;
        const struct engine_plan *mn, *rc;
        int said = 0;
        workload(&w, "llama-2-7b", tokens[k]);
        w.task = TASK_LORA;
        r = recommend(&w);
        mn = &r->tiers[TIER_MINIMUM];
        rc = &r->tiers[TIER_RECOMMENDED];
        for (int i = 0; i < rc->n_rationale; i++)
            said |= strcmp(rc->rationale[i].rule, "R33") == 0 && strstr(rc->rationale[i].text, "simpler") != NULL;
        ck_assert_msg(said, "%g B tokens: recommended does not explain its near-tie", tokens[k]);
        /* Whatever a tier names as the cheapest plan must be the larger one. */
        for (int t = 0; t < TIER_COUNT; t++)
            for (int i = 0; i < r->tiers[t].n_rationale; i++) {
                int n = 0, nodes = 0;
                char gpu[ENGINE_ID_MAX];
                const struct engine_plan *p = &r->tiers[t];
                if (sscanf(p->rationale[i].text, "the cheapest plan (%d x %39s in %d node", &n, gpu, &nodes) != 3)
                    continue;
                ck_assert_msg(p->nodes < nodes || (p->nodes == nodes && p->count < n),
                              "%g B %s: chose %d GPUs in %d nodes over the cheapest %d in %d", tokens[k],
                              engine_tier_name(t), p->count, p->nodes, n, nodes);
            }
        ck_assert_msg(mn->nodes <= rc->nodes && mn->cost_usd <= rc->cost_usd + 0.5, "%g B: minimum %d nodes $%.0f, "
                      "recommended %d nodes $%.0f", tokens[k], mn->nodes, mn->cost_usd, rc->nodes, rc->cost_usd);
        if (k == 0)
            ck_assert_msg(rc->count == 1, "5 B tokens: %d GPUs where one costs within 3%%", rc->count);
        else
            ck_assert_msg(rc->nodes <= 2, "500 B tokens: %d nodes", rc->nodes);
        free(r);
    }
}
END_TEST

/* R3, R33: one 24-80 GB card fine-tunes a 7B model with LoRA, and wins on cost. */
START_TEST(a_single_card_wins_a_small_lora_job)
{
    struct engine_workload w;
    struct engine_recommendation *r;
    const struct engine_plan *mn;
    workload(&w, "llama-2-7b", 0.5);
    w.task = TASK_LORA;
    r = recommend(&w);
    mn = &r->tiers[TIER_MINIMUM];
    ck_assert_msg(mn->count == 1, "minimum uses %d x %s", mn->count, mn->gpu_id);
    ck_assert_msg(mn->mem_capacity_gib >= 24 && mn->mem_capacity_gib <= 80, "%s", mn->gpu_id);
    ck_assert_msg(r->tiers[TIER_RECOMMENDED].count == 1, "recommended uses %d", r->tiers[TIER_RECOMMENDED].count);
    free(r);
    /* Consumer cards have a price and are planned when allowed (R33). */
    for (int k = 0; k < 2; k++) {
        char err[256];
        workload(&w, "llama-2-7b", 0.5);
        w.task = TASK_LORA;
        snprintf(w.gpus_allowed[0], sizeof w.gpus_allowed[0], "%s", k ? "rtx5090-pcie-32gb" : "rtx4090-pcie-24gb");
        w.n_gpus_allowed = 1;
        ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_OK);
        r = recommend(&w);
        {
            int single = 0;
            for (int i = 0; i < r->n_candidates; i++)
                single |= r->candidates[i].n == 1;
            ck_assert_msg(single, "%s: no single-card candidate", w.gpus_allowed[0]);
        }
        /* One card needs full recompute (1.5x the LoRA FLOPs); two cards
         * with ZeRO-3 may undercut it, but never more than one node. */
        ck_assert_msg(r->tiers[TIER_MINIMUM].feasible && r->tiers[TIER_MINIMUM].count <= 2, "%s: %d cards",
                      w.gpus_allowed[0], r->tiers[TIER_MINIMUM].count);
        free(r);
    }
}
END_TEST

/* F7: QLoRA 70B is ~36 GB of NF4 base (+ bf16 embeddings), adapters and
 * activations: two 48 GB cards hold it (QLoRA s1: 65B in < 48 GB per GPU). */
START_TEST(qlora_70b_fits_two_48_gb_cards)
{
    struct engine_estimate_request q;
    struct engine_plan p;
    char err[256];
    engine_estimate_request_init(&q);
    snprintf(q.workload.preset, sizeof q.workload.preset, "llama-2-70b");
    q.workload.task = TASK_QLORA;
    q.workload.tokens_b = 0.2;
    ck_assert_int_eq(engine_workload_resolve(&q.workload, cat, err, sizeof err), ST_OK);
    ck_assert(within(engine_lora_base_bytes(&q.workload.model, &q.workload) / 1e9, 36.6, 0.05));
    snprintf(q.cluster.gpu, sizeof q.cluster.gpu, "l40s-pcie-48gb");
    q.cluster.count = 2;
    ck_assert_msg(engine_estimate(cat, &q, &p, err, sizeof err) == ST_OK, "%s", err);
    ck_assert_msg(p.feasible, "%s", p.why);
    ck_assert_msg(p.mem_per_gpu_gib < 40, "%.1f GiB per card", p.mem_per_gpu_gib);
    snprintf(q.cluster.gpu, sizeof q.cluster.gpu, "a100-pcie-80gb");
    q.cluster.count = 1;
    ck_assert_msg(engine_estimate(cat, &q, &p, err, sizeof err) == ST_OK, "%s", err);
    ck_assert_msg(p.feasible, "one 80 GB card: %s", p.why);
}
END_TEST

/* Restricted SKUs (H800) only when named; estimated prices are flagged. */
START_TEST(restricted_gpus_are_planned_only_when_named)
{
    static const char *const presets[] = {"llama-2-7b", "llama-3-70b", "mixtral-8x7b", "deepseek-v3"};
    struct engine_workload w;
    struct engine_recommendation *r;
    char err[256];
    ck_assert(catalog_gpu_find(cat, "h800-sxm-80gb")->restricted);
    ck_assert_int_eq(catalog_gpu_find(cat, "h800-sxm-80gb")->cloud_price_conf, PRICE_ASSUMPTION);
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        int said = 0;
        workload(&w, presets[i], 100);
        r = recommend(&w);
        for (int t = 0; t < TIER_COUNT; t++)
            ck_assert_msg(strcmp(r->tiers[t].gpu_id, "h800-sxm-80gb") != 0, "%s %s", presets[i],
                          engine_tier_name(t));
        for (int k = 0; k < r->n_warnings; k++)
            said |= strstr(r->warnings[k], "h800-sxm-80gb") != NULL;
        ck_assert_msg(said, "%s: no word on the left-out H800", presets[i]);
        free(r);
    }
    workload(&w, "llama-3-70b", 100);
    snprintf(w.gpus_allowed[0], sizeof w.gpus_allowed[0], "h800-sxm-80gb");
    w.n_gpus_allowed = 1;
    ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_OK);
    r = recommend(&w);
    {
        const struct engine_plan *p = &r->tiers[TIER_RECOMMENDED];
        int restricted = 0, price = 0;
        ck_assert_str_eq(p->gpu_id, "h800-sxm-80gb");
        for (int k = 0; k < p->n_warnings; k++) {
            restricted |= strstr(p->warnings[k], "restricted") != NULL;
            price |= strstr(p->warnings[k], "assumption") != NULL;
        }
        ck_assert_msg(restricted && price, "named H800 plan must warn about availability and its price");
    }
    free(r);
}
END_TEST

/* F9 and the critical batch bound data parallelism: each replica gets at
 * least pp micro-batches, the global batch stays within 1.25x the target and
 * 16M tokens; a plan that scales poorly says so. */
START_TEST(the_global_batch_bounds_data_parallelism)
{
    struct engine_workload w;
    struct engine_recommendation *r;
    workload(&w, "llama-3-70b", 15000);
    w.budget_usd = 50e6;
    r = recommend(&w);
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct engine_plan *p = &r->tiers[t];
        int warned = 0;
        double micro = (double)p->par.global_batch / (p->par.dp * p->par.micro_batch);
        ck_assert_msg(p->par.pp <= 1 || micro >= p->par.pp, "%s: %g micro-batches for pp %d", engine_tier_name(t),
                      micro, p->par.pp);
        ck_assert_msg(p->par.global_batch * 8192.0 <= 16e6, "%s: batch %d", engine_tier_name(t), p->par.global_batch);
        ck_assert_msg(p->bubble_fraction < 0.3, "%s: bubble %.2f", engine_tier_name(t), p->bubble_fraction);
        for (int k = 0; k < p->n_warnings; k++)
            warned |= strstr(p->warnings[k], "scaling efficiency") != NULL || strstr(p->warnings[k], "R37") != NULL;
        if (p->comm_fraction > 0.2 || p->bubble_fraction > 0.2)
            ck_assert_msg(warned, "%s: comm %.2f, bubble %.2f without a warning", engine_tier_name(t),
                          p->comm_fraction, p->bubble_fraction);
    }
    free(r);
}
END_TEST

static int has_storage(const struct engine_plan *p, const char *kind)
{
    for (int i = 0; i < p->n_storage; i++)
        if (strcmp(p->storage[i].kind, kind) == 0)
            return 1;
    return 0;
}

/* NVL72 racks come whole; host RAM is sized to what servers are built with;
 * storage tiers follow the run, not the model alone. */
START_TEST(plans_use_buildable_racks_hosts_and_storage)
{
    struct engine_workload w;
    struct engine_recommendation *r;
    struct engine_estimate_request q;
    struct engine_plan p;
    char err[256];

    for (int k = 0; k < 2; k++) {
        workload(&w, "llama-3-70b", k ? 1400 : 0.5);
        w.task = k ? TASK_PRETRAIN : TASK_LORA;
        w.pricing = k ? PRICING_BUY : PRICING_CLOUD;
        snprintf(w.gpus_allowed[0], sizeof w.gpus_allowed[0], "gb200-nvl-186gb");
        w.n_gpus_allowed = 1;
        ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_OK);
        r = recommend(&w);
        for (int t = 0; t < TIER_COUNT; t++)
            ck_assert_msg(r->tiers[t].count % 72 == 0, "%s: %d GB200 is not whole NVL72 racks", engine_tier_name(t),
                          r->tiers[t].count);
        free(r);
    }

    /* R8 host RAM: DGX B200 ships 2 TB, a GB200 tray's Grace CPUs 960 GB. */
    engine_estimate_request_init(&q);
    snprintf(q.workload.preset, sizeof q.workload.preset, "llama-3-70b");
    q.workload.tokens_b = 100;
    ck_assert_int_eq(engine_workload_resolve(&q.workload, cat, err, sizeof err), ST_OK);
    snprintf(q.cluster.gpu, sizeof q.cluster.gpu, "b200-sxm-180gb");
    q.cluster.count = 64;
    ck_assert_msg(engine_estimate(cat, &q, &p, err, sizeof err) == ST_OK && p.feasible, "%s", err);
    ck_assert_msg(p.ram_gb_per_node >= 1024 && p.ram_gb_per_node <= 2304, "B200 node RAM %.0f GB", p.ram_gb_per_node);
    snprintf(q.cluster.gpu, sizeof q.cluster.gpu, "gb200-nvl-186gb");
    q.cluster.count = 72;
    ck_assert_msg(engine_estimate(cat, &q, &p, err, sizeof err) == ST_OK && p.feasible, "%s", err);
    ck_assert_msg(p.ram_gb_per_node <= 1024, "GB200 tray RAM %.0f GB", p.ram_gb_per_node);

    /* A short fine-tune of a 405B model keeps no archive tier (R35 is about
     * long runs); a checkpoint spread over nodes gets a durable copy. */
    workload(&w, "llama-3.1-405b", 0.5);
    w.task = TASK_FINETUNE;
    r = recommend(&w);
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct engine_plan *pl = &r->tiers[t];
        ck_assert_msg(pl->days >= 7 || !has_storage(pl, "archive"), "%s: archive for a %.2f-day run",
                      engine_tier_name(t), pl->days);
        ck_assert_msg(pl->nodes == 1 || has_storage(pl, "object"), "%s: %d nodes without a durable tier",
                      engine_tier_name(t), pl->nodes);
    }
    free(r);
}
END_TEST

/* ---------------------------------------------------------------- estimate */

static void estimate_70b(struct engine_estimate_request *q)
{
    char err[256];
    engine_estimate_request_init(q);
    snprintf(q->workload.preset, sizeof q->workload.preset, "llama-3-70b");
    q->workload.tokens_b = 2000;
    ck_assert_int_eq(engine_workload_resolve(&q->workload, cat, err, sizeof err), ST_OK);
    snprintf(q->cluster.gpu, sizeof q->cluster.gpu, "h100-sxm-80gb");
    q->cluster.count = 1024;
    q->cluster.per_node = 8;
    q->cluster.fabric_gbps_per_gpu = 400;
}

START_TEST(estimate_keeps_the_given_layout_and_fills_the_rest)
{
    struct engine_estimate_request q;
    struct engine_plan p;
    char err[256];
    estimate_70b(&q);
    q.parallel.tp = 8;
    q.parallel.pp = 4;
    ck_assert_msg(engine_estimate(cat, &q, &p, err, sizeof err) == ST_OK, "%s", err);
    ck_assert(p.feasible);
    ck_assert_int_eq(p.par.tp, 8);
    ck_assert_int_eq(p.par.pp, 4);
    ck_assert_int_eq(p.par.dp, 32);
    check_plan_invariants(&p, "estimate");
}
END_TEST

START_TEST(measured_slow_fabric_lengthens_the_plan)
{
    struct engine_estimate_request q;
    struct engine_plan p;
    struct engine_measured m;
    char err[256];
    double nominal, slow;
    estimate_70b(&q);
    q.parallel.tp = 8;
    q.parallel.pp = 1;
    ck_assert_msg(engine_estimate(cat, &q, &p, err, sizeof err) == ST_OK, "%s", err);
    ck_assert_msg(p.feasible, "%s", p.why);
    engine_measured_init(&m);
    nominal = engine_plan_days_at(cat, &q.workload, &p, &m);
    ck_assert(within(nominal, p.days, 1e-6));
    m.inter_busbw_gbs = 151.0 / 8.0;   /* 151 Gb/s measured across nodes, in GB/s */
    slow = engine_plan_days_at(cat, &q.workload, &p, &m);
    ck_assert_msg(slow > nominal * 1.2, "%f vs %f", slow, nominal);
}
END_TEST

START_TEST(r3_one_80_gb_card_trains_a_7b_model_with_the_relief_ladder)
{
    struct engine_estimate_request q;
    struct engine_plan p;
    char err[256];
    engine_estimate_request_init(&q);
    snprintf(q.workload.preset, sizeof q.workload.preset, "llama-2-7b");
    q.workload.task = TASK_FINETUNE;
    q.workload.tokens_b = 1;
    ck_assert_int_eq(engine_workload_resolve(&q.workload, cat, err, sizeof err), ST_OK);
    snprintf(q.cluster.gpu, sizeof q.cluster.gpu, "a100-sxm-80gb");
    q.cluster.count = 1;
    ck_assert_msg(engine_estimate(cat, &q, &p, err, sizeof err) == ST_OK, "%s", err);
    ck_assert_msg(p.feasible, "%s", p.why);
    /* 16 B/param of states (108 GB) cannot sit on the card: optimizer state
     * goes to host RAM (R40), and the host is sized for it. */
    ck_assert(p.par.offload);
    ck_assert(p.host_offload_gib > 50);
    ck_assert(p.ram_gb_per_node >= 128);
    /* R3: fine-tuning a ~1B model fits one card without tricks. */
    snprintf(q.workload.preset, sizeof q.workload.preset, "llama-3.2-1b");
    ck_assert_int_eq(engine_workload_resolve(&q.workload, cat, err, sizeof err), ST_OK);
    ck_assert_msg(engine_estimate(cat, &q, &p, err, sizeof err) == ST_OK, "%s", err);
    ck_assert(p.feasible && !p.par.offload);
}
END_TEST

START_TEST(estimate_rejects_a_layout_that_does_not_match_the_cluster)
{
    struct engine_estimate_request q;
    struct engine_plan p;
    char err[256];
    estimate_70b(&q);
    q.parallel.tp = 8;
    q.parallel.pp = 4;
    q.parallel.dp = 8;
    ck_assert_int_eq(engine_estimate(cat, &q, &p, err, sizeof err), ST_INVALID);
    ck_assert(strncmp(err, "parallel", 8) == 0);
    estimate_70b(&q);
    snprintf(q.cluster.gpu, sizeof q.cluster.gpu, "nope");
    ck_assert_int_eq(engine_estimate(cat, &q, &p, err, sizeof err), ST_INVALID);
    ck_assert(strncmp(err, "cluster.gpu", 11) == 0);
}
END_TEST

/* ---------------------------------------------------------------- input */

START_TEST(resolve_names_the_field_it_rejects)
{
    struct engine_workload w;
    char err[256];
    engine_workload_init(&w);
    snprintf(w.preset, sizeof w.preset, "no-such-model");
    w.tokens_b = 1;
    ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_INVALID);
    ck_assert(strncmp(err, "model.preset", 12) == 0);

    engine_workload_init(&w);
    w.model.params_b = 7;
    w.tokens_b = -1;
    ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_INVALID);
    ck_assert(strncmp(err, "tokens_b", 8) == 0);

    engine_workload_init(&w);
    w.model.params_b = 7;
    w.tokens_b = 1;
    snprintf(w.gpus_allowed[0], sizeof w.gpus_allowed[0], "tpu-v9");
    w.n_gpus_allowed = 1;
    ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_INVALID);
    ck_assert(strncmp(err, "gpus_allowed[0]", 15) == 0);

    engine_workload_init(&w);
    w.model.params_b = 7;
    w.model.hidden = 4096;
    w.model.heads = 30;
    w.tokens_b = 1;
    ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_INVALID);
    ck_assert(strncmp(err, "model.heads", 11) == 0);
}
END_TEST

START_TEST(params_only_models_get_a_usable_shape)
{
    struct engine_workload w;
    struct engine_recommendation *r;
    char err[256];
    engine_workload_init(&w);
    w.model.params_b = 13;
    w.tokens_b = 100;
    ck_assert_int_eq(engine_workload_resolve(&w, cat, err, sizeof err), ST_OK);
    ck_assert_int_gt(w.model.layers, 10);
    ck_assert_int_eq(w.model.hidden % w.model.heads, 0);
    r = recommend(&w);
    ck_assert(r->tiers[TIER_MINIMUM].feasible);
    free(r);
}
END_TEST

START_TEST(catalog_holds_every_gpu_named_in_the_api)
{
    static const char *const ids[] = {"a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-40gb", "a100-pcie-80gb",
        "h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb", "h800-sxm-80gb", "h200-sxm-141gb", "h200-nvl-141gb",
        "b200-sxm-180gb", "gb200-nvl-186gb", "l40s-pcie-48gb", "l4-pcie-24gb", "a10-pcie-24gb", "rtx4090-pcie-24gb",
        "rtx5090-pcie-32gb", "rtx6000ada-pcie-48gb", "mi300x-oam-192gb", "mi325x-oam-256gb", "gaudi3-oam-128gb"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const struct engine_gpu *g = catalog_gpu_find(cat, ids[i]);
        ck_assert_msg(g != NULL, "%s missing", ids[i]);
        ck_assert_msg(g->price_as_of[0] && g->price_source[0] && g->source[0], "%s: no source", ids[i]);
    }
    ck_assert_ptr_nonnull(catalog_model_find(cat, "llama-3.1-405b"));
    ck_assert_ptr_nonnull(catalog_model_find(cat, "deepseek-v3"));
    ck_assert_ptr_nonnull(catalog_storage_find(cat, "parallel-fs"));
    ck_assert_int_ge(cat->n_fabrics, 7);
}
END_TEST

/* ---------------------------------------------------------------- accuracy */

START_TEST(median_error_on_published_runs_stays_within_15_percent)
{
    struct runs *rs = calloc(1, sizeof *rs);
    char err[256];
    double median;
    int n;
    ck_assert_ptr_nonnull(rs);
    ck_assert_msg(runs_load(TESTDATA "/published-runs.csv", cat, rs, err, sizeof err) == 0, "%s", err);
    n = runs_evaluate(cat, rs, &median);
    ck_assert_int_ge(n, 50);
    ck_assert_msg(median <= 0.15, "median |error| %.1f%% over %d runs", 100 * median, n);
    free(rs);
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *f = tcase_create("formulas"), *p = tcase_create("properties"), *e = tcase_create("estimate"),
          *i = tcase_create("input"), *a = tcase_create("accuracy");
    TCase *all[] = {f, p, e, i, a};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        tcase_add_checked_fixture(all[k], setup, teardown);
        tcase_set_timeout(all[k], 60);
    }
    tcase_add_test(f, zero_states_match_the_zero_paper_table);
    tcase_add_test(f, r2_seven_billion_weights_are_14_gb_and_states_exceed_70_gb);
    tcase_add_test(f, eight_bit_adam_shrinks_optimizer_state);
    tcase_add_test(f, f1_counts_parameters_of_published_shapes);
    tcase_add_test(f, young_daly_interval_matches_the_worked_example);
    tcase_add_test(f, recompute_and_tensor_parallel_shrink_activations);
    tcase_add_test(f, qlora_needs_less_memory_than_lora_and_lora_less_than_full);
    tcase_add_test(p, more_gpus_never_raise_memory_per_gpu_under_zero3);
    tcase_add_test(p, tiers_are_ordered_and_honour_deadline_and_budget);
    tcase_add_test(p, random_workloads_keep_every_invariant);
    tcase_add_test(p, recommend_respects_gpus_allowed_and_max_gpus);
    tcase_add_test(p, impossible_deadline_says_what_would_work);
    tcase_add_test(p, a_model_too_large_for_max_gpus_is_infeasible_with_a_reason);
    tcase_add_test(p, small_jobs_stay_on_one_node_because_start_up_and_billing_are_paid);
    tcase_add_test(p, a_single_card_wins_a_small_lora_job);
    tcase_add_test(p, near_ties_go_to_the_simpler_cluster_and_say_so);
    tcase_add_test(p, restricted_gpus_are_planned_only_when_named);
    tcase_add_test(p, the_global_batch_bounds_data_parallelism);
    tcase_add_test(p, plans_use_buildable_racks_hosts_and_storage);
    tcase_add_test(f, qlora_70b_fits_two_48_gb_cards);
    tcase_add_test(e, estimate_keeps_the_given_layout_and_fills_the_rest);
    tcase_add_test(e, measured_slow_fabric_lengthens_the_plan);
    tcase_add_test(e, estimate_rejects_a_layout_that_does_not_match_the_cluster);
    tcase_add_test(e, r3_one_80_gb_card_trains_a_7b_model_with_the_relief_ladder);
    tcase_add_test(i, resolve_names_the_field_it_rejects);
    tcase_add_test(i, params_only_models_get_a_usable_shape);
    tcase_add_test(i, catalog_holds_every_gpu_named_in_the_api);
    tcase_add_test(a, median_error_on_published_runs_stays_within_15_percent);
    suite_add_tcase(s, f);
    suite_add_tcase(s, p);
    suite_add_tcase(s, e);
    suite_add_tcase(s, i);
    suite_add_tcase(s, a);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(engine_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
