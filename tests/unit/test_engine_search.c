/* test_engine_search.c: the free search's layout lists against the walk.
 *
 * engine_recommend_search finds each cluster's layout from per-count lists,
 * built once per count and walked by all the GPU types of that count
 * together as they are built (engine_search.c, count_walk); estimates and
 * a count whose list does not fit walk every layout (best_layout). Both
 * must give the same answer bit for bit and score the same number of
 * layouts (configs_evaluated is in the recorded JSON answers). The golden
 * test holds 48 recorded workloads; this one draws several hundred random
 * ones (shapes dense and MoE, tasks, precisions, optimizers, sequence
 * lengths, batch sizes, standard attention, max_gpus, gpus_allowed, buy or
 * rent) and compares the two paths on each: every candidate and tier with
 * %a (golden_dump.h), the count and the least memory seen. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "engine.h"
#include "engine_int.h"
#include "unit/catalog_fixture.h"
#include "unit/golden_dump.h"

/* Deterministic pseudo-random numbers (xorshift64*): varied, repeatable. */
static unsigned long long rng_next(unsigned long long *st)
{
    *st ^= *st >> 12;
    *st ^= *st << 25;
    *st ^= *st >> 27;
    return *st * 2685821657736338717ULL;
}

static int rnd_int(unsigned long long *st, int lo, int hi)
{
    return lo + (int)(rng_next(st) >> 33) % (hi - lo + 1);
}

static double rnd_log(unsigned long long *st, double lo, double hi)
{
    double u = (double)(rng_next(st) >> 11) / 9007199254740992.0;
    return lo * pow(hi / lo, u);
}

/* A random workload: a catalog preset or a shape of its own (dense or
 * MoE), with the other inputs drawn too. 0 when it does not resolve. */
static int random_workload(unsigned long long *st, struct engine_workload *w)
{
    char err[256];
    engine_workload_init(w);
    if (cat->n_models > 0 && rnd_int(st, 0, 2) == 0) {
        snprintf(w->preset, sizeof w->preset, "%s", cat->models[rnd_int(st, 0, cat->n_models - 1)].id);
    } else {
        struct engine_model *m = &w->model;
        int heads = 1 << rnd_int(st, 2, 7);
        m->hidden = heads * (rnd_int(st, 0, 1) ? 128 : 64);
        m->heads = heads;
        m->kv_heads = heads >> rnd_int(st, 0, 3);
        m->layers = rnd_int(st, 2, 128);
        m->ffn_hidden = rnd_int(st, 0, 3) == 0 ? 0 : m->hidden * rnd_int(st, 2, 4);
        m->vocab = rnd_int(st, 0, 1) ? 32000 : 128256;
        m->gated = rnd_int(st, 0, 1);
        m->tied_embeddings = rnd_int(st, 0, 3) == 0;
        if (rnd_int(st, 0, 3) == 0) {
            m->experts = 1 << rnd_int(st, 2, 7);
            m->experts_active = rnd_int(st, 1, m->experts < 8 ? m->experts : 8);
            m->shared_experts = rnd_int(st, 0, 1);
            m->moe_ffn_hidden = rnd_int(st, 0, 1) ? m->hidden / 2 : 0;
            m->dense_layers = rnd_int(st, 0, m->layers / 4);
        }
        m->params_b = rnd_int(st, 0, 2) == 0 ? 0 : rnd_log(st, 0.05, 800);
    }
    w->task = (enum engine_task)rnd_int(st, 0, 3);
    w->precision = (enum engine_precision)rnd_int(st, 0, 3);
    w->optimizer = rnd_int(st, 0, 3) == 0 ? OPT_ADAMW_8BIT : OPT_ADAMW;
    w->tokens_b = rnd_log(st, 0.01, 30000);
    {
        static const int seqs[] = {0, 512, 1024, 2048, 4096, 8192, 32768, 131072};
        w->seq_len = seqs[rnd_int(st, 0, 7)];
    }
    if (rnd_int(st, 0, 3) == 0)
        w->global_batch_tokens = rnd_log(st, 1e4, 3e7);
    w->standard_attention = rnd_int(st, 0, 7) == 0;
    if (rnd_int(st, 0, 2) == 0)
        w->lora_rank = 1 << rnd_int(st, 2, 8);
    if (rnd_int(st, 0, 1))
        w->deadline_days = rnd_log(st, 1, 1000);
    if (rnd_int(st, 0, 1))
        w->budget_usd = rnd_log(st, 1e3, 1e9);
    w->pricing = rnd_int(st, 0, 2) == 0 ? PRICING_BUY : PRICING_CLOUD;
    if (rnd_int(st, 0, 1))
        w->max_gpus = (int)rnd_log(st, 1, 200000);
    if (rnd_int(st, 0, 3) == 0) {
        /* a random subset, restricted GPUs included */
        for (int i = 0; i < cat->n_gpus && w->n_gpus_allowed < WORKLOAD_GPUS_ALLOWED_MAX; i++)
            if (rnd_int(st, 0, 2) == 0)
                snprintf(w->gpus_allowed[w->n_gpus_allowed++], ENGINE_ID_MAX, "%s", cat->gpus[i].id);
    }
    return engine_workload_resolve(w, cat, err, sizeof err) == ST_OK;
}

static char *dump(const struct engine_recommendation *r)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ck_assert_ptr_nonnull(f);
    golden_dump_recommendation(f, r);
    fprintf(f, "configs_evaluated %ld\n", r->configs_evaluated);
    gd_num(f, "min_mem_gib", r->min_mem_gib);
    fprintf(f, "min_mem_gpu %d\n", r->min_mem_gpu);
    fclose(f);
    return out;
}

/* First differing line of two dumps, for the failure message. */
static void first_difference(const char *a, const char *b, char *out, size_t n)
{
    const char *p = a, *q = b;
    while (*p && *p == *q) {
        p++;
        q++;
    }
    while (p > a && p[-1] != '\n')
        p--;
    snprintf(out, n, "%.160s", p);
}

START_TEST(the_layout_lists_give_the_walks_answers_for_random_workloads)
{
    struct engine_recommendation *lists = malloc(sizeof *lists), *walk = malloc(sizeof *walk);
    unsigned long long st = 0x9e3779b97f4a7c15ULL;
    int compared = 0, with_candidates = 0, tries = 0, shared = 0;
    char err[256];

    ck_assert_ptr_nonnull(lists);
    ck_assert_ptr_nonnull(walk);
    /* caller memory holds leftovers, as a pooled recommendation does */
    memset(lists, 0xa5, sizeof *lists);
    memset(walk, 0x5a, sizeof *walk);
    while (compared < 400 && tries < 4000) {
        struct engine_workload w;
        char *a, *b, diff[200];
        tries++;
        if (!random_workload(&st, &w))
            continue;
        ck_assert_int_eq(engine_recommend_search_at(cat, &w, lists, err, sizeof err, 1), ST_OK);
        ck_assert_int_eq(engine_recommend_search_at(cat, &w, walk, err, sizeof err, 0), ST_OK);
        ck_assert_int_eq(lists->layout_memo.walked, 0);   /* every count's list fits the whole memo */
        shared += lists->layout_memo.lists > 0;
        ck_assert_int_eq(engine_recommend_price(cat, &w, lists, err, sizeof err), ST_OK);
        ck_assert_int_eq(engine_recommend_price(cat, &w, walk, err, sizeof err), ST_OK);
        a = dump(lists);
        b = dump(walk);
        if (strcmp(a, b) != 0) {
            first_difference(a, b, diff, sizeof diff);
            ck_abort_msg("workload %d (preset \"%s\", %d layers, task %d, precision %d, max_gpus %d): the lists' "
                         "answer differs from the walk's at: %s",
                         tries, w.preset, w.model.layers, (int)w.task, (int)w.precision, w.max_gpus, diff);
        }
        free(a);
        free(b);
        with_candidates += lists->n_candidates > 0;
        compared++;
    }
    ck_assert_int_eq(compared, 400);
    ck_assert_msg(with_candidates >= 200, "only %d of the workloads had candidates", with_candidates);
    ck_assert_msg(shared >= 200, "only %d of the workloads were walked from lists", shared);
    free(lists);
    free(walk);
}
END_TEST

/* Lists with little room: a count whose list does not fit is walked
 * layout by layout, from wherever its walkers had got to (the walkers walk
 * the list as it is built), the others from their lists. Still the walk's
 * answers. */
START_TEST(lists_with_little_room_give_the_walks_answers)
{
    struct engine_recommendation *lists = calloc(1, sizeof *lists), *walk = calloc(1, sizeof *walk);
    unsigned long long st = 0x2545f4914f6cdd1dULL;
    int compared = 0, walked = 0, both = 0;
    char err[256];

    ck_assert_ptr_nonnull(lists);
    ck_assert_ptr_nonnull(walk);
    while (compared < 60) {
        struct engine_workload w;
        char *a, *b;
        if (!random_workload(&st, &w))
            continue;
        ck_assert_int_eq(engine_recommend_search_at(cat, &w, walk, err, sizeof err, 0), ST_OK);
        ck_assert_int_eq(engine_recommend_price(cat, &w, walk, err, sizeof err), ST_OK);
        b = dump(walk);
        for (int room = 24; room <= 384; room *= 4) {
            ck_assert_int_eq(engine_recommend_search_at(cat, &w, lists, err, sizeof err, room), ST_OK);
            walked += lists->layout_memo.walked > 0;
            both += lists->layout_memo.walked > 0 && lists->layout_memo.lists > 0;
            ck_assert_int_eq(engine_recommend_price(cat, &w, lists, err, sizeof err), ST_OK);
            a = dump(lists);
            ck_assert_msg(strcmp(a, b) == 0, "workload %d, room for %d layouts: the lists' answer differs", compared,
                          room);
            free(a);
        }
        free(b);
        compared++;
    }
    ck_assert_msg(walked > 0 && both > 0, "walked %d, walked and listed in one search %d: a path was not reached",
                  walked, both);
    free(lists);
    free(walk);
}
END_TEST

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The search's shortcuts for a chosen cluster (activations kept across GPU
 * counts, model states shared by ZeRO stages, the time model from the
 * lists' step parts on the hardware the search filled, eval_fill_hw's
 * fabric ratio per GPU type, engine_run_fixed and the node cache's price
 * kept per count, node count and PCIe generation, the walk's own step where
 * the candidate runs on the hardware the walk timed it on) against the plain
 * models run for that cluster and layout alone: every candidate's memory,
 * fabric, throughput, start-up, goodput, checkpoint interval and rented
 * storage parts, bit for bit. Each of cand_fabric's paths is reached: a
 * bought fabric chosen among rates, a rented or own-port cluster at its
 * usual rate, a server of several GPUs and one of a single GPU. */
START_TEST(every_candidate_matches_the_plain_models_for_its_cluster)
{
    struct engine_recommendation *r = malloc(sizeof *r);
    unsigned long long st = 0x3c6ef372fe94f82bULL;
    int compared = 0, multi = 0, single = 0, chosen = 0, usual = 0, server = 0, one_gpu = 0;
    char err[256];

    ck_assert_ptr_nonnull(r);
    memset(r, 0xa5, sizeof *r);
    while (compared < 300) {
        struct engine_workload w;
        struct eval_ctx ctx;
        if (!random_workload(&st, &w))
            continue;
        ck_assert_int_eq(engine_recommend_search_at(cat, &w, r, err, sizeof err, 1), ST_OK);
        eval_ctx_init(&ctx, &w.model, &w);
        eval_ctx_bind_storage(&ctx, cat);
        for (int i = 0; i < r->n_candidates; i++) {
            const struct engine_candidate *cd = &r->candidates[i];
            const struct engine_gpu *g = &cat->gpus[cd->gi];
            struct engine_parallel par = cd->par;
            struct engine_memory mem;
            struct eval_out ev;
            struct run_time rt;
            double rate = 0;

            /* the memory figure is the layout's at the workload's batch
             * (the candidate keeps the batch its step runs) */
            par.global_batch = (int)ctx.batch_seqs;
            mem = engine_memory_pre(&w.model, &w, &par, ctx.seq, &ctx.pc, ctx.lora_base_bytes, ctx.lora_adapters);
            ck_assert_msg(same_double(cd->mem_gib, mem.total / (1024.0 * 1024.0 * 1024.0)),
                          "workload %d, candidate %d (%s x %d): memory %a, plain %a", compared, i, g->id, cd->n,
                          cd->mem_gib, mem.total / (1024.0 * 1024.0 * 1024.0));
            if (cd->nodes > 1) {
                rate = engine_choose_fabric_gbps(cat, &ctx, g, cd->n, cd->per_node, &cd->par, NULL, NULL, &ev);
                multi++;
                if (w.pricing == PRICING_BUY && g->scaleout_ports == 0)
                    chosen++;
                else
                    usual++;
            } else {
                engine_eval_cluster(cat, &ctx, g, cd->n, cd->per_node, 1, 0, NULL, 1.0, 1.0, &cd->par, &ev);
                single++;
                if (cd->n > 1)
                    server++;
                else
                    one_gpu++;
            }
            ck_assert_msg(same_double(cd->fabric_gbps, rate) && same_double(cd->tokens_per_s, ev.tokens_per_s),
                          "workload %d, candidate %d (%s x %d): fabric %a tokens/s %a, plain %a %a", compared, i,
                          g->id, cd->n, cd->fabric_gbps, cd->tokens_per_s, rate, ev.tokens_per_s);
            rt = engine_run_fixed(&ctx, g, cd->n, cd->nodes, 1.0);
            ck_assert_msg(same_double(cd->startup_s, rt.startup_s) && same_double(cd->goodput, rt.gp.goodput) &&
                              same_double(cd->ckpt_interval_s, rt.gp.interval_s),
                          "workload %d, candidate %d (%s x %d, %d nodes): start-up, goodput or checkpoint interval "
                          "differs from engine_run_fixed", compared, i, g->id, cd->n, cd->nodes);
            {
                struct engine_candidate plain = *cd;
                engine_cloud_cost_fixed(cat, &ctx, &plain);
                ck_assert_msg(plain.hot_kind == cd->hot_kind && same_double(plain.hot_bw_tb, cd->hot_bw_tb) &&
                                  same_double(plain.hot_bw_month_usd, cd->hot_bw_month_usd) &&
                                  same_double(plain.cache_month_usd, cd->cache_month_usd),
                              "workload %d, candidate %d (%s x %d, %d nodes): rented storage parts differ from "
                              "engine_cloud_cost_fixed", compared, i, g->id, cd->n, cd->nodes);
            }
        }
        compared++;
    }
    ck_assert_msg(multi > 1000 && single > 100, "only %d multi-node and %d one-node candidates compared", multi,
                  single);
    ck_assert_msg(chosen > 100 && usual > 100 && server > 50 && one_gpu > 10,
                  "cand_fabric's paths: bought fabric %d, usual rate %d, one server %d, one GPU %d: too few", chosen,
                  usual, server, one_gpu);
    free(r);
}
END_TEST

/* eval_step_beats (the walks' early exits) against eval_step_bw's whole
 * step over random layouts on random clusters, at thresholds on both sides
 * of the step and of each prefix the exits read, one ulp apart: the same
 * answer, and when the layout wins, the same score bit for bit. Each layout
 * is asked as it is and with the terms after a prefix made 0 or nearly so
 * (dp 1, no MoE, an optimizer step of 0 or of 2^-60 of the step; and tp 1,
 * pp 1), where the step is within an ulp of the prefix: an exit that stops
 * a hair too soon (a prefix compared with any margin, or a term counted in
 * the prefix that the step adds later) fails there. */
static void step_beats_case(const struct engine_step_pre *e, const struct engine_step_zero *z, int ri,
                            const struct eval_hwc *c, double nach, double dp_bw, const char *what, int *below,
                            int *exits_a, int *exits_tpp)
{
    struct eval_parts t;
    double gbs = e->gbs, a, tpp, score = 0, best[14];

    eval_step_bw(e, z, ri, c, nach, dp_bw, &t);
    a = t.t_comp * (1.0 + e->bubble);
    tpp = t.t_tp + t.t_pp;
    best[0] = t.step / gbs;
    best[1] = nextafter(best[0], INFINITY);
    best[2] = nextafter(best[0], 0.0);
    best[3] = a / gbs;
    best[4] = nextafter(best[3], INFINITY);
    best[5] = nextafter(best[3], 0.0);
    best[6] = (a + tpp) / gbs;
    best[7] = nextafter(best[6], INFINITY);
    best[8] = nextafter(best[6], 0.0);
    best[9] = INFINITY;
    best[10] = 0.0;
    best[11] = best[0] * 2.0;
    best[12] = best[0] * 0.5;
    best[13] = (best[0] + best[6]) * 0.5;
    for (int i = 0; i < 14; i++) {
        int want = t.step / gbs < best[i];
        for (int tail = 0; tail <= 1; tail++) {
            int got = eval_step_beats(e, z, ri, c, nach, dp_bw, gbs, best[i], tail, &score);
            ck_assert_msg(got == want,
                          "%s: tp %d pp %d dp %d ep %d b %d zero3 %d offload %d ri %d: beats %a says %d, the whole "
                          "step %a says %d (prefixes %a %a)",
                          what, e->tp, e->pp, e->dp, e->ep, e->b, z->zero3, z->offload, ri, best[i], got,
                          t.step / gbs, want, a / gbs, (a + tpp) / gbs);
            if (want)
                ck_assert_msg(same_double(score, t.step / gbs), "%s: score %a, the whole step's %a", what, score,
                              t.step / gbs);
        }
        *below += want;
        *exits_a += a / gbs >= best[i];
        *exits_tpp += a / gbs < best[i] && (a + tpp) / gbs >= best[i];
    }
}

START_TEST(the_steps_early_exits_answer_as_the_whole_step)
{
    unsigned long long st = 0x6a09e667f3bcc909ULL;
    int compared = 0, below = 0, exits_a = 0, exits_tpp = 0;

    while (compared < 3000) {
        struct engine_workload w;
        struct eval_ctx ctx;
        struct engine_parallel p = {0};
        struct engine_step_pre e, bare;
        struct engine_step_zero z;
        struct eval_hw hw;
        struct eval_hwc c;
        struct eval_parts t;
        const struct engine_gpu *g;
        double eff, nach, dp_bw;
        int ri, nodes;
        if (!random_workload(&st, &w))
            continue;
        eval_ctx_init(&ctx, &w.model, &w);
        g = &cat->gpus[rnd_int(&st, 0, cat->n_gpus - 1)];
        nodes = 1 << rnd_int(&st, 0, 6);
        p.tp = 1 << rnd_int(&st, 0, 4);
        p.pp = 1 << rnd_int(&st, 0, 4);
        p.cp = 1;
        p.ep = w.model.experts > 0 ? 1 << rnd_int(&st, 0, 3) : 1;
        p.dp = (1 << rnd_int(&st, 0, 8)) * p.ep;
        p.micro_batch = 1 << rnd_int(&st, 0, 2);
        p.zero = rnd_int(&st, 0, 3);
        p.offload = rnd_int(&st, 0, 1);
        p.recompute = rnd_int(&st, 0, 2);
        p.vpp = rnd_int(&st, 0, 1) ? 2 : 1;
        p.global_batch = (int)ctx.batch_seqs;
        ri = eval_rc_index(p.recompute);
        eval_pre_fill(&ctx, &p, &e, 7u);
        eval_fill_hw(&hw, g, e.n, e.n < g->per_node ? e.n : g->per_node, nodes > 1 ? g->default_fabric_gbps : 0.0,
                     cat, &w, NULL);
        eval_hwc_fill(&c, &hw);
        nach = e.n * eval_achieved(&ctx, &hw, e.b, e.cp, &eff);
        dp_bw = e.dp > 1 ? eval_dp_bw(&e, &c) : 0.0;
        step_beats_case(&e, &e.z, ri, &c, nach, dp_bw, "as it is", &below, &exits_a, &exits_tpp);
        /* nothing after the second prefix but an optimizer step of 0 or
         * of 2^-60 of the step */
        bare = e;
        bare.dp = 1;
        bare.moe = 0;
        z = e.z;
        eval_step_bw(&bare, &z, ri, &c, nach, dp_bw, &t);
        z.opt_q = rnd_int(&st, 0, 1) ? 0.0 : t.step * ldexp(1.0, -60) * (z.offload ? 50e9 : c.mem_bw9);
        step_beats_case(&bare, &z, ri, &c, nach, dp_bw, "no DP or MoE term", &below, &exits_a, &exits_tpp);
        /* and nothing after the first */
        bare.tp = 1;
        bare.pp = 1;
        step_beats_case(&bare, &z, ri, &c, nach, dp_bw, "compute only", &below, &exits_a, &exits_tpp);
        compared++;
    }
    ck_assert_msg(below > 10000 && exits_a > 10000 && exits_tpp > 3000,
                  "thresholds below the step %d, at or under the first prefix %d, the second %d: too few", below,
                  exits_a, exits_tpp);
}
END_TEST

static Suite *engine_search_suite(void)
{
    Suite *s = suite_create("engine_search");
    TCase *t = tcase_create("lists");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 300);
    tcase_add_test(t, the_layout_lists_give_the_walks_answers_for_random_workloads);
    tcase_add_test(t, lists_with_little_room_give_the_walks_answers);
    tcase_add_test(t, every_candidate_matches_the_plain_models_for_its_cluster);
    tcase_add_test(t, the_steps_early_exits_answer_as_the_whole_step);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(engine_search_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
