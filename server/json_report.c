/* json_report.c: the JSON shapes of the report module (API.md "Parsed report
 * facts" and "Verdict"), and the decoder that pulls a tier's expectations out
 * of a saved plan or a recommendation.
 *
 * Every value the parser could not read is JSON null, never 0 or "": the
 * engine marks unknown numbers NaN, unknown counts -1 and unknown text "",
 * and the small writers below turn each of those into null. A writer that
 * fails to allocate marks the builder, and the whole document is dropped
 * (NULL) rather than returned with holes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine.h"
#include "report.h"
#include "server_int.h"

struct jb {
    int oom;
};

static cJSON *jb_add(struct jb *b, cJSON *obj, const char *key, cJSON *item)
{
    if (!item) {
        b->oom = 1;
        return NULL;
    }
    if (cJSON_IsArray(obj))
        cJSON_AddItemToArray(obj, item);
    else
        cJSON_AddItemToObject(obj, key, item);
    return item;
}

static void num(struct jb *b, cJSON *o, const char *k, double v)
{
    jb_add(b, o, k, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static void cnt(struct jb *b, cJSON *o, const char *k, int v)
{
    jb_add(b, o, k, v >= 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static void str(struct jb *b, cJSON *o, const char *k, const char *v)
{
    jb_add(b, o, k, v && v[0] ? cJSON_CreateString(v) : cJSON_CreateNull());
}

static void boolean(struct jb *b, cJSON *o, const char *k, int v)
{
    jb_add(b, o, k, v < 0 ? cJSON_CreateNull() : cJSON_CreateBool(v));
}

static cJSON *obj(struct jb *b, cJSON *o, const char *k)
{
    return jb_add(b, o, k, cJSON_CreateObject());
}

static cJSON *arr(struct jb *b, cJSON *o, const char *k)
{
    return jb_add(b, o, k, cJSON_CreateArray());
}

static void topo_facts(struct jb *b, cJSON *f, const struct report_topo *t)
{
    char buf[16];
    cnt(b, f, "gpu_count", t->gpu_count);
    cnt(b, f, "nic_count", t->nic_count);
    str(b, f, "gpu_link_worst", t->link_worst ? report_topo_cell_str(t->link_worst, buf, sizeof(buf)) : "");
    cnt(b, f, "nvlink_min", t->nvlink_min);
    cnt(b, f, "gpu_pairs", t->has_link ? t->pairs_total : -1);
    cnt(b, f, "gpu_pairs_read", t->has_link ? t->pairs_read : -1);
    str(b, f, "p2p_worst", t->p2p_worst ? report_topo_cell_str(t->p2p_worst, buf, sizeof(buf)) : "");
    cnt(b, f, "p2p_pairs_ok", t->has_p2p ? t->p2p_pairs_ok : -1);
    cnt(b, f, "p2p_pairs_read", t->has_p2p ? t->p2p_pairs_read : -1);
    cJSON *m = obj(b, f, "matrix");
    if (!m)
        return;
    cJSON *cols = arr(b, m, "columns");
    for (int c = 0; cols && c < t->cols; c++)
        jb_add(b, cols, NULL, cJSON_CreateString(t->col_names[c]));
    cJSON *rows = arr(b, m, "rows");
    for (int r = 0; rows && r < t->rows; r++) {
        cJSON *row = obj(b, rows, NULL);
        if (!row)
            return;
        str(b, row, "name", t->row_names[r]);
        cJSON *cells = arr(b, row, "cells");
        for (int c = 0; cells && c < t->cols; c++)
            str(b, cells, NULL, t->cells[r][c] ? report_topo_cell_str(t->cells[r][c], buf, sizeof(buf)) : "");
        str(b, row, "cpu_affinity", t->cpu_affinity[r]);
        str(b, row, "numa_affinity", t->numa_affinity[r]);
    }
}

static void quartet(struct jb *b, cJSON *o, const char *k, double time, double alg, double bus,
                    double wrong)
{
    cJSON *q = obj(b, o, k);
    if (!q)
        return;
    num(b, q, "time_us", time);
    num(b, q, "algbw_gbs", alg);
    num(b, q, "busbw_gbs", bus);
    num(b, q, "wrong", wrong);
}

static void nccl_facts(struct jb *b, cJSON *f, const struct report_nccl *c)
{
    str(b, f, "collective", c->collective);
    if (!c->collective[0] && c->candidates[0]) {
        cJSON *cand = arr(b, f, "collective_candidates");
        char buf[sizeof(c->candidates)];
        snprintf(buf, sizeof(buf), "%s", c->candidates);
        char *p = buf;
        while (cand && p && *p) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            jb_add(b, cand, NULL, cJSON_CreateString(p));
            p = comma ? comma + 1 : NULL;
        }
    }
    cnt(b, f, "ranks", c->ranks);
    cnt(b, f, "nodes", c->nodes);
    num(b, f, "busbw_peak_gbs", c->busbw_peak_gbs);
    num(b, f, "busbw_largest_gbs", c->busbw_largest_gbs);
    num(b, f, "busbw_avg_gbs", c->busbw_avg_gbs);
    num(b, f, "largest_size_b", c->largest_size_b);
    num(b, f, "wrong_total", c->wrong_total);
    str(b, f, "wrong_column", isnan(c->wrong_total) ? "" : c->wrong_is_error_column ? "error" : "#wrong");
    num(b, f, "out_of_bounds", c->oob_values);
    cnt(b, f, "nccl_warnings", c->nccl_warnings);
    cJSON *w = arr(b, f, "warnings");
    for (int i = 0; w && i < c->nccl_warnings && i < NCCL_WARN_KEEP; i++)
        jb_add(b, w, NULL, cJSON_CreateString(c->warnings[i]));
    str(b, f, "algo", c->algo);
    str(b, f, "network", c->net);
    str(b, f, "gpu_name", c->gpu_name);
    cJSON *names = arr(b, f, "gpu_names");
    if (names && c->gpu_name[0])
        jb_add(b, names, NULL, cJSON_CreateString(c->gpu_name));
    for (int i = 0; names && i < c->other_gpu_count && i < 3; i++)
        jb_add(b, names, NULL, cJSON_CreateString(c->other_gpus[i]));
    cJSON *rows = arr(b, f, "rows");
    for (int i = 0; rows && i < c->row_count; i++) {
        const struct report_nccl_row *r = &c->rows[i];
        cJSON *o = obj(b, rows, NULL);
        if (!o)
            return;
        num(b, o, "size_b", r->size_b);
        num(b, o, "count", r->count);
        str(b, o, "type", r->type);
        str(b, o, "redop", r->redop);
        num(b, o, "root", r->root);
        quartet(b, o, "out_of_place", r->oop_time_us, r->oop_algbw_gbs, r->oop_busbw_gbs, r->oop_wrong);
        quartet(b, o, "in_place", r->ip_time_us, r->ip_algbw_gbs, r->ip_busbw_gbs, r->ip_wrong);
    }
}

static void perf_facts(struct jb *b, cJSON *f, const struct report_perftest *p)
{
    str(b, f, "test", p->test);
    str(b, f, "link_layer", p->link_layer);
    num(b, f, "bw_avg_gbps", p->bw_avg_gbps);
    num(b, f, "bw_peak_gbps", p->bw_peak_gbps);
    num(b, f, "lat_typical_us", p->lat_typical_us);
    num(b, f, "largest_bytes", p->largest_bytes);
    num(b, f, "lat_bytes", p->lat_bytes);
    boolean(b, f, "bidirectional", p->bidirectional);
    str(b, f, "device", p->device);
    cnt(b, f, "qps", p->qps);
    num(b, f, "mtu_b", p->mtu_b);
    str(b, f, "units", p->units);
    cJSON *rows = arr(b, f, "rows");
    for (int i = 0; rows && i < p->row_count; i++) {
        const struct report_perf_row *r = &p->rows[i];
        cJSON *o = obj(b, rows, NULL);
        if (!o)
            return;
        num(b, o, "bytes", r->bytes);
        num(b, o, "iterations", r->iterations);
        if (p->is_latency) {
            num(b, o, "t_min_us", r->t_min_us);
            num(b, o, "t_max_us", r->t_max_us);
            num(b, o, "t_typical_us", r->t_typical_us);
            num(b, o, "t_avg_us", r->t_avg_us);
            num(b, o, "t_p99_us", r->t_p99_us);
            num(b, o, "t_p999_us", r->t_p999_us);
        } else {
            num(b, o, "bw_peak_gbps", r->bw_peak_gbps);
            num(b, o, "bw_avg_gbps", r->bw_avg_gbps);
            num(b, o, "msg_rate_mpps", r->msg_rate_mpps);
        }
    }
}

static void ib_facts(struct jb *b, cJSON *f, const struct report_ib_ports *ib)
{
    cnt(b, f, "ports_total", ib->ports_total);
    cnt(b, f, "ports_active", ib->ports_active);
    cJSON *rates = arr(b, f, "active_rates_gbps");
    cJSON *layers = arr(b, f, "link_layers");
    for (int i = 0; rates && layers && i < ib->port_count; i++) {
        const struct report_ib_port *p = &ib->ports[i];
        if (strcmp(p->state, "Active") == 0)
            num(b, rates, NULL, p->rate_gbps);
        if (!p->link_layer[0])
            continue;
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= strcmp(ib->ports[j].link_layer, p->link_layer) == 0;
        if (!seen)
            jb_add(b, layers, NULL, cJSON_CreateString(p->link_layer));
    }
    cnt(b, f, "ports_bad_lid", ib->ports_bad_lid);
    cnt(b, f, "ports_declared", ib->ports_declared);
    cnt(b, f, "unreadable_devices", ib->panics);
    cJSON *ports = arr(b, f, "ports");
    for (int i = 0; ports && i < ib->port_count; i++) {
        const struct report_ib_port *p = &ib->ports[i];
        cJSON *o = obj(b, ports, NULL);
        if (!o)
            return;
        str(b, o, "ca", p->ca);
        cnt(b, o, "port", p->port);
        str(b, o, "state", p->state);
        str(b, o, "phys_state", p->phys_state);
        num(b, o, "rate_gbps", p->rate_gbps);
        num(b, o, "base_lid", p->base_lid);
        num(b, o, "sm_lid", p->sm_lid);
        str(b, o, "link_layer", p->link_layer);
        str(b, o, "firmware", p->fw);
        num(b, o, "active_mtu", p->active_mtu);
    }
}

static void gpu_facts(struct jb *b, cJSON *f, const struct report_gpu *g)
{
    cnt(b, f, "gpu_count", g->gpu_count);
    cJSON *names = arr(b, f, "gpu_names");
    for (int i = 0; names && i < g->info_count; i++)
        if (g->info[i].name[0])
            jb_add(b, names, NULL, cJSON_CreateString(g->info[i].name));
    cnt(b, f, "pcie_gen_max", g->pcie_gen_max);
    cnt(b, f, "pcie_width_max", g->pcie_width_max);
    cnt(b, f, "pcie_width_min_current", g->pcie_width_min_current);
    num(b, f, "ecc_uncorrectable", g->ecc_uncorrectable);
    cnt(b, f, "remap_pending", g->remap_pending);
    str(b, f, "driver_version", g->driver);
    str(b, f, "cuda_version", g->cuda);
    cJSON *gpus = arr(b, f, "gpus");
    for (int i = 0; gpus && i < g->info_count; i++) {
        const struct report_gpu_info *gi = &g->info[i];
        cJSON *o = obj(b, gpus, NULL);
        if (!o)
            return;
        str(b, o, "name", gi->name);
        str(b, o, "bus_id", gi->bus_id);
        cnt(b, o, "pcie_gen_max", gi->pcie_gen_max);
        cnt(b, o, "pcie_gen_current", gi->pcie_gen_current);
        cnt(b, o, "pcie_width_max", gi->pcie_width_max);
        cnt(b, o, "pcie_width_current", gi->pcie_width_current);
        num(b, o, "ecc_uncorrectable", gi->ecc_uncorrectable);
        boolean(b, o, "remap_pending", gi->remap_pending);
        boolean(b, o, "remap_failure", gi->remap_failure);
        num(b, o, "pcie_replays", gi->replays);
        num(b, o, "temp_c", gi->temp_c);
        num(b, o, "power_w", gi->power_w);
        num(b, o, "power_cap_w", gi->power_cap_w);
        num(b, o, "memory_total_mib", gi->memory_total_mib);
        str(b, o, "perf_state", gi->perf_state);
        num(b, o, "power_cap_default_w", gi->power_cap_default_w);
        num(b, o, "sm_clock_mhz", gi->sm_clock_mhz);
        num(b, o, "sm_clock_max_mhz", gi->sm_clock_max_mhz);
        /* The reasons read as Active, of those whose state was shown; null
         * when the output shows none (a reason not shown is not "not active"). */
        if (!gi->clock_reasons_shown) {
            jb_add(b, o, "clock_event_reasons", cJSON_CreateNull());
        } else {
            cJSON *r = arr(b, o, "clock_event_reasons");
            for (int k = 0; r && k < CLK_REASON_COUNT; k++)
                if (gi->clock_reasons_active & (1u << k))
                    jb_add(b, r, NULL, cJSON_CreateString(report_clock_reason_name(k)));
        }
    }
    if (g->csv_cols > 0) {
        cJSON *q = obj(b, f, "query");
        for (int c = 0; q && c < g->csv_cols; c++) {
            cJSON *col = arr(b, q, g->csv_names[c]);
            for (int i = 0; col && i < g->info_count; i++)
                str(b, col, NULL, g->csv_values[i][c]);
        }
    }
}

static void fio_facts(struct jb *b, cJSON *f, const struct report_fio *x)
{
    num(b, f, "read_bw_mbs", x->read_bw_mbs);
    num(b, f, "write_bw_mbs", x->write_bw_mbs);
    num(b, f, "read_iops", x->read_iops);
    num(b, f, "write_iops", x->write_iops);
    str(b, f, "format", x->format);
    str(b, f, "version", x->version);
    cnt(b, f, "jobs", x->jobs);
    str(b, f, "rw", x->rw);
    str(b, f, "ioengine", x->ioengine);
    str(b, f, "bs", x->bs);
    num(b, f, "iodepth", x->iodepth);
    cJSON *pat = arr(b, f, "patterns");
    for (int i = 0; pat && i < FIO_PATTERNS; i++)
        if (x->patterns & (1u << i))
            jb_add(b, pat, NULL, cJSON_CreateString(report_fio_pattern_name(i)));
}

static void dcgm_facts(struct jb *b, cJSON *f, const struct report_dcgm *d)
{
    cnt(b, f, "pass", d->pass);
    cnt(b, f, "fail", d->fail);
    cnt(b, f, "warn", d->warn);
    cnt(b, f, "skip", d->skip);
    cJSON *ft = arr(b, f, "failed_tests");
    for (int i = 0; ft && i < d->failed_count; i++)
        jb_add(b, ft, NULL, cJSON_CreateString(d->failed_tests[i]));
    str(b, f, "format", d->format);
    str(b, f, "dcgm_version", d->dcgm_version);
    str(b, f, "driver_version", d->driver);
    cnt(b, f, "level", d->level);
}

static void nvbw_facts(struct jb *b, cJSON *f, const struct report_nvbandwidth *n)
{
    cJSON *tests = arr(b, f, "tests");
    for (int i = 0; tests && i < n->test_count; i++) {
        const struct report_nvbw_test *t = &n->tests[i];
        cJSON *o = obj(b, tests, NULL);
        if (!o)
            return;
        str(b, o, "name", t->name);
        num(b, o, "sum_gbs", t->sum_gbs);
        num(b, o, "min_gbs", t->min_gbs);
        num(b, o, "max_gbs", t->max_gbs);
        cnt(b, o, "cells", t->cells);
    }
    cnt(b, f, "failed", n->failed);
    cJSON *w = arr(b, f, "waived");
    for (int i = 0; w && i < n->waived_count && i < 4; i++)
        jb_add(b, w, NULL, cJSON_CreateString(n->waived[i]));
    str(b, f, "version", n->version);
    cnt(b, f, "device_count", n->device_count > 0 ? n->device_count : -1);
}

static void cpu_facts(struct jb *b, cJSON *f, const struct report_cpu *c)
{
    str(b, f, "model_name", c->model_name);
    cnt(b, f, "sockets", c->sockets);
    cnt(b, f, "threads", c->threads);
    str(b, f, "governor", c->governor);
    cnt(b, f, "cores_per_socket", c->cores_per_socket);
    cnt(b, f, "threads_per_core", c->threads_per_core);
    cnt(b, f, "numa_nodes", c->numa_nodes);
    str(b, f, "driver", c->driver);
    num(b, f, "hw_min_mhz", c->hw_min_mhz);
    num(b, f, "hw_max_mhz", c->hw_max_mhz);
    num(b, f, "policy_min_mhz", c->policy_min_mhz);
    num(b, f, "policy_max_mhz", c->policy_max_mhz);
    num(b, f, "current_mhz", c->current_mhz);
}

static void nic_facts(struct jb *b, cJSON *f, const struct report_nic *n)
{
    str(b, f, "driver", n->driver);
    num(b, f, "rx_pause", n->rx_pause);
    num(b, f, "tx_pause", n->tx_pause);
    num(b, f, "errors", n->errors);
    num(b, f, "discards", n->discards);
    cnt(b, f, "counters", n->counters);
    str(b, f, "version", n->version);
    str(b, f, "firmware", n->firmware);
    str(b, f, "bus_info", n->bus_info);
}

static void gemm_facts(struct jb *b, cJSON *f, const struct report_gemm *g)
{
    str(b, f, "tool", g->tool);
    str(b, f, "test", g->test);
    cnt(b, f, "test_id", g->test_id);
    str(b, f, "precision", g->precision);
    cJSON *rows = arr(b, f, "gpus");
    for (int i = 0; rows && i < g->row_count; i++) {
        const struct report_gemm_row *r = &g->rows[i];
        cJSON *o = obj(b, rows, NULL);
        if (!o)
            return;
        cnt(b, o, "gpu", r->gpu);
        str(b, o, "worker", r->worker);
        str(b, o, "name", r->name);
        num(b, o, "tflops", r->tflops_last);
        num(b, o, "tflops_median", r->tflops_median);
        num(b, o, "errors", r->errors);
        str(b, o, "status", r->status);
        num(b, o, "temp_c", r->temp_c);
        cnt(b, o, "samples", r->samples);
        boolean(b, o, "died", r->died);
    }
    num(b, f, "tflops_median", g->tflops_median);
    num(b, f, "tflops_min", g->tflops_min);
    num(b, f, "tflops_max", g->tflops_max);
    cnt(b, f, "samples", g->samples);
    cnt(b, f, "gpus_ok", g->gpus_ok);
    cnt(b, f, "gpus_faulty", g->gpus_faulty);
    boolean(b, f, "died", g->died);
    boolean(b, f, "init_failed", g->init_failed);
    boolean(b, f, "mig", g->mig);
    boolean(b, f, "tensor_cores", g->tensor_cores);
}

cJSON *json_report_sections(const struct report *rep)
{
    struct jb b = {0};
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON *secs = arr(&b, root, "sections");
    for (size_t i = 0; secs && i < rep->section_count && !b.oom; i++) {
        const struct report_section *s = &rep->sections[i];
        cJSON *o = obj(&b, secs, NULL);
        if (!o)
            break;
        str(&b, o, "kind", report_kind_name(s->kind));
        str(&b, o, "tool", s->tool);
        cJSON *f = obj(&b, o, "facts");
        if (!f)
            break;
        switch (s->kind) {
        case REPORT_TOPO: topo_facts(&b, f, &s->u.topo); break;
        case REPORT_NCCL: nccl_facts(&b, f, &s->u.nccl); break;
        case REPORT_PERFTEST: perf_facts(&b, f, &s->u.perf); break;
        case REPORT_IB_PORTS: ib_facts(&b, f, &s->u.ib); break;
        case REPORT_GPU: gpu_facts(&b, f, &s->u.gpu); break;
        case REPORT_FIO: fio_facts(&b, f, &s->u.fio); break;
        case REPORT_DCGM: dcgm_facts(&b, f, &s->u.dcgm); break;
        case REPORT_NVBANDWIDTH: nvbw_facts(&b, f, &s->u.nvbw); break;
        case REPORT_CPU: cpu_facts(&b, f, &s->u.cpu); break;
        case REPORT_NIC: nic_facts(&b, f, &s->u.nic); break;
        case REPORT_GEMM: gemm_facts(&b, f, &s->u.gemm); break;
        case REPORT_KIND_COUNT: break;
        }
        cJSON *iss = arr(&b, o, "issues");
        for (int k = 0; iss && k < s->issue_count; k++)
            jb_add(&b, iss, NULL, cJSON_CreateString(s->issues[k]));
        cJSON *lines = arr(&b, o, "lines");
        if (lines) {
            num(&b, lines, NULL, s->first_line);
            num(&b, lines, NULL, s->last_line);
        }
    }
    num(&b, root, "unrecognized_lines", (double)rep->unrecognized_lines);
    num(&b, root, "sections_dropped", (double)rep->sections_dropped);
    if (b.oom) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

static void value(struct jb *b, cJSON *o, const char *k, double v, const char *text)
{
    if (isfinite(v))
        num(b, o, k, v);
    else
        str(b, o, k, text);
}

cJSON *json_report_verdict(const struct report_verdict *v)
{
    struct jb b = {0};
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    str(&b, root, "verdict", report_severity_name(v->verdict));
    cJSON *fs = arr(&b, root, "findings");
    for (size_t i = 0; fs && i < v->count && !b.oom; i++) {
        const struct report_finding *f = &v->findings[i];
        cJSON *o = obj(&b, fs, NULL);
        if (!o)
            break;
        str(&b, o, "id", f->id);
        str(&b, o, "severity", report_severity_name(f->severity));
        value(&b, o, "observed", f->observed, f->observed_text);
        value(&b, o, "expected", f->expected, f->expected_text);
        str(&b, o, "message", f->message);
        str(&b, o, "rule", f->rule);
        str(&b, o, "hint", f->hint);
        cnt(&b, o, "section", f->section);
    }
    cJSON *ne = arr(&b, root, "no_evidence");
    for (size_t i = 0; ne && i < v->no_evidence_count && i < 32; i++)
        jb_add(&b, ne, NULL, cJSON_CreateString(v->no_evidence[i]));
    if (v->dropped)
        num(&b, root, "findings_dropped", (double)v->dropped);
    if (b.oom) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* ---- expectations out of a plan ---------------------------------------- */

static enum status copy_str(const cJSON *o, const char *key, char *dst, size_t len, int idx,
                            char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it || cJSON_IsNull(it))
        return ST_OK;
    if (!cJSON_IsString(it) || !it->valuestring) {
        snprintf(err, errlen, "expectations[%d].%s: must be a string", idx, key);
        return ST_INVALID;
    }
    if (strlen(it->valuestring) >= len) {
        snprintf(err, errlen, "expectations[%d].%s: longer than %zu characters", idx, key, len - 1);
        return ST_INVALID;
    }
    snprintf(dst, len, "%s", it->valuestring);
    return ST_OK;
}

static enum status copy_num(const cJSON *o, const char *key, double *dst, int idx, char *err,
                            size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *dst = NAN;
    if (!it || cJSON_IsNull(it))
        return ST_OK;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) {
        snprintf(err, errlen, "expectations[%d].%s: must be a number", idx, key);
        return ST_INVALID;
    }
    *dst = it->valuedouble;
    return ST_OK;
}

/* The expectations array of the chosen tier: a saved plan {"tier",
 * "recommendation": {...}}, a recommendation {"tiers": [...]}, or a single
 * evaluation {"expectations": [...]} (estimate). */
static const cJSON *find_expectations(const cJSON *doc, const char *tier, const cJSON **tier_obj,
                                      char *tier_out, size_t tier_len, char *err, size_t errlen)
{
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(doc, "recommendation");
    const cJSON *saved_tier = cJSON_GetObjectItemCaseSensitive(doc, "tier");
    if (!tier && cJSON_IsString(saved_tier))
        tier = saved_tier->valuestring;
    if (!cJSON_IsObject(rec))
        rec = doc;
    const cJSON *tiers = cJSON_GetObjectItemCaseSensitive(rec, "tiers");
    if (cJSON_IsArray(tiers)) {
        if (!tier)
            tier = "recommended";
        const cJSON *t;
        cJSON_ArrayForEach(t, tiers) {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "tier");
            if (cJSON_IsString(name) && strcmp(name->valuestring, tier) == 0) {
                snprintf(tier_out, tier_len, "%s", tier);
                *tier_obj = t;
                const cJSON *e = cJSON_GetObjectItemCaseSensitive(t, "expectations");
                if (!cJSON_IsArray(e)) {
                    snprintf(err, errlen, "tiers[%s].expectations: missing or not an array", tier);
                    return NULL;
                }
                return e;
            }
        }
        snprintf(err, errlen, "tier: no tier named '%s' in the plan", tier);
        return NULL;
    }
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(rec, "expectations");
    if (cJSON_IsArray(e)) {
        snprintf(tier_out, tier_len, "%s", tier ? tier : "");
        *tier_obj = rec;
        return e;
    }
    snprintf(err, errlen, "plan: neither a saved plan, a recommendation nor an estimate "
                          "(no \"tiers\" or \"expectations\")");
    return NULL;
}

/* The card a tier was sized for is a promise too: a tier whose expectations
 * count its GPUs (gpu.count) and that names its catalog GPU (gpu.id) gets a
 * gpu.model expectation with that id, unless it carries one. Plans saved
 * before the check existed hold no such expectation, so it is added here,
 * when they are judged, not when they are made. No room, or an id longer
 * than an expectation value holds, adds nothing. */
static void add_model_expectation(const cJSON *tier, struct expectation *out, size_t max,
                                  size_t *k)
{
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(tier, "gpu");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(gpu, "id");
    if (!cJSON_IsString(id) || !id->valuestring[0] || *k >= max ||
        strlen(id->valuestring) >= sizeof(out->value))
        return;
    int counted = 0;
    for (size_t i = 0; i < *k; i++) {
        if (strcmp(out[i].id, EXP_GPU_MODEL) == 0)
            return;
        counted |= strcmp(out[i].id, EXP_GPU_COUNT) == 0;
    }
    if (!counted)
        return;
    struct expectation *x = &out[(*k)++];
    memset(x, 0, sizeof(*x));
    snprintf(x->id, sizeof(x->id), "%s", EXP_GPU_MODEL);
    x->min = x->max = NAN;
    snprintf(x->value, sizeof(x->value), "%s", id->valuestring);
    snprintf(x->why, sizeof(x->why), "R5,R6");
}

enum status json_report_expectations(const cJSON *plan, const char *tier, struct expectation *out,
                                     size_t max, size_t *n, char *tier_out, size_t tier_len,
                                     const cJSON **tier_obj, char *err, size_t errlen)
{
    const cJSON *tobj = NULL;
    if (!cJSON_IsObject(plan)) {
        snprintf(err, errlen, "plan: must be a JSON object");
        return ST_INVALID;
    }
    const cJSON *exps = find_expectations(plan, tier, &tobj, tier_out, tier_len, err, errlen);
    if (!exps)
        return ST_INVALID;
    size_t k = 0;
    int idx = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, exps) {
        if (k >= max) {
            snprintf(err, errlen, "expectations: more than %zu entries", max);
            return ST_TOOLARGE;
        }
        if (!cJSON_IsObject(e)) {
            snprintf(err, errlen, "expectations[%d]: must be an object", idx);
            return ST_INVALID;
        }
        struct expectation *x = &out[k];
        memset(x, 0, sizeof(*x));
        enum status st;
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (!cJSON_IsString(id) || !id->valuestring[0]) {
            snprintf(err, errlen, "expectations[%d].id: missing or not a string", idx);
            return ST_INVALID;
        }
        if ((st = copy_str(e, "id", x->id, sizeof(x->id), idx, err, errlen)) != ST_OK ||
            (st = copy_num(e, "min", &x->min, idx, err, errlen)) != ST_OK ||
            (st = copy_num(e, "max", &x->max, idx, err, errlen)) != ST_OK ||
            (st = copy_str(e, "unit", x->unit, sizeof(x->unit), idx, err, errlen)) != ST_OK ||
            (st = copy_str(e, "why", x->why, sizeof(x->why), idx, err, errlen)) != ST_OK)
            return st;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "value");
        if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
            /* a numeric "value" is an exact expectation: min = max = value */
            x->min = x->max = v->valuedouble;
        } else if ((st = copy_str(e, "value", x->value, sizeof(x->value), idx, err, errlen)) != ST_OK) {
            return st;
        }
        k++;
        idx++;
    }
    add_model_expectation(tobj, out, max, &k);
    if (tier_obj)
        *tier_obj = tobj;
    *n = k;
    return ST_OK;
}

/* ---- calibration --------------------------------------------------------
 * The measured busbw replaces the engine's assumption in an estimate of the
 * tier's own cluster and layout; the change the engine finds is applied to
 * the plan's time and cost ("at the measured 151 GB/s the 60-day plan takes
 * 84 days"). This needs the workload, which a saved plan carries and a bare
 * recommendation does not. */

static double num_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* An estimate request for the tier's cluster; NULL when the tier lacks one. */
static cJSON *calib_request(const cJSON *workload, const cJSON *tier, const struct report_measured *m)
{
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(tier, "gpu");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(gpu, "id");
    double count = num_at(tier, "gpu", "count"), per_node = num_at(tier, "gpu", "per_node");
    if (!cJSON_IsString(id) || !isfinite(count) || count < 1)
        return NULL;
    cJSON *req = cJSON_Duplicate(workload, 1);
    if (!req)
        return NULL;
    cJSON *cl = cJSON_AddObjectToObject(req, "cluster");
    if (!cl) {
        cJSON_Delete(req);
        return NULL;
    }
    cJSON_AddStringToObject(cl, "gpu", id->valuestring);
    cJSON_AddNumberToObject(cl, "count", count);
    if (isfinite(per_node) && per_node >= 1)
        cJSON_AddNumberToObject(cl, "per_node", per_node);
    double fab = num_at(tier, "fabric", "gbps_per_gpu");
    if (isfinite(fab) && fab >= 1)
        cJSON_AddNumberToObject(cl, "fabric_gbps_per_gpu", fab);
    const cJSON *ftype = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tier, "fabric"), "type");
    if (cJSON_IsString(ftype) && (strcmp(ftype->valuestring, "roce") == 0 ||
                                  strcmp(ftype->valuestring, "infiniband") == 0 ||
                                  strcmp(ftype->valuestring, "none") == 0))
        cJSON_AddStringToObject(cl, "fabric", ftype->valuestring);
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(tier, "parallel");
    if (cJSON_IsObject(par)) {
        static const char *const keys[] = {"tp", "pp", "dp", "ep", "cp", "zero", "recompute",
                                           "micro_batch", "global_batch", "vpp", "offload", NULL};
        cJSON *p = cJSON_AddObjectToObject(req, "parallel");
        for (int i = 0; p && keys[i]; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(par, keys[i]);
            /* zero values mean "not set" in the encoder for the optional ints */
            if (v && !(cJSON_IsNumber(v) && v->valuedouble < 1 && strcmp(keys[i], "zero") != 0))
                cJSON_AddItemToObject(p, keys[i], cJSON_Duplicate(v, 1));
        }
    }
    if (m) {
        cJSON *mo = cJSON_AddObjectToObject(req, "measured");
        if (mo && isfinite(m->intra_busbw_gbs))
            cJSON_AddNumberToObject(mo, "intra_busbw_gbs", m->intra_busbw_gbs);
        if (mo && isfinite(m->inter_busbw_gbs))
            cJSON_AddNumberToObject(mo, "inter_busbw_gbs", m->inter_busbw_gbs);
        if (mo && isfinite(m->matmul_tflops))
            cJSON_AddNumberToObject(mo, "matmul_tflops", m->matmul_tflops);
    }
    return req;
}

static enum status calib_estimate(const struct catalog *cat, const cJSON *req,
                                  struct engine_plan *out, char *err, size_t errlen)
{
    struct engine_estimate_request *r = calloc(1, sizeof(*r));
    char field[64];
    enum status st = ST_NOMEM;
    if (!r)
        return st;
    if ((st = json_estimate_decode(req, r, field, sizeof(field), err, errlen)) == ST_OK &&
        (st = engine_workload_resolve(&r->workload, cat, err, errlen)) == ST_OK)
        st = engine_estimate(cat, r, out, err, errlen);
    free(r);
    return st;
}

void json_report_calibration(cJSON *verdict, const struct report *rep, const cJSON *plan,
                             const cJSON *tier_obj, const struct catalog *shared)
{
    struct report_measured m;
    report_measured_extract(rep, &m);
    if (isnan(m.intra_busbw_gbs) && isnan(m.inter_busbw_gbs) && isnan(m.matmul_tflops))
        return;
    struct jb b = {0};
    cJSON *o = obj(&b, verdict, "measured");
    if (!o)
        return;
    num(&b, o, "intra_busbw_gbs", m.intra_busbw_gbs);
    num(&b, o, "inter_busbw_gbs", m.inter_busbw_gbs);
    num(&b, o, "matmul_tflops", m.matmul_tflops);

    const cJSON *workload = cJSON_GetObjectItemCaseSensitive(plan, "workload");
    cJSON *cal = obj(&b, verdict, "calibration");
    if (!cal)
        return;
    if (!cJSON_IsObject(workload) || !tier_obj) {
        str(&b, cal, "message", "not calibrated: the plan file holds no workload (use a saved plan)");
        return;
    }
    /* dcgmproftester's rate is a 16-bit tensor GEMM; the engine reads a
     * measured rate as the GEMM rate at the plan's precision, which is the
     * same on the catalog's parts for bf16 and fp16 but about half of fp8's
     * (and not fp32's), so other plans keep the catalog's figure. */
    const cJSON *prec = cJSON_GetObjectItemCaseSensitive(workload, "precision");
    if (isfinite(m.matmul_tflops) &&
        !(cJSON_IsString(prec) && (strcmp(prec->valuestring, "bf16") == 0 ||
                                   strcmp(prec->valuestring, "fp16") == 0))) {
        str(&b, cal, "matmul_note", "the measured GEMM rate is a 16-bit tensor rate; the plan "
                                    "runs another precision, so compute keeps the catalog's peak");
        m.matmul_tflops = NAN;
        if (isnan(m.intra_busbw_gbs) && isnan(m.inter_busbw_gbs)) {
            str(&b, cal, "message", "not calibrated: no measured value applies to this plan");
            return;
        }
    }
    struct catalog *own = NULL;
    const struct catalog *cat = shared;
    struct engine_plan *base = calloc(1, sizeof(*base)), *meas = calloc(1, sizeof(*meas));
    cJSON *rq0 = calib_request(workload, tier_obj, NULL);
    cJSON *rq1 = calib_request(workload, tier_obj, &m);
    char err[256] = "";
    enum status st = ST_NOMEM;
    if (base && meas && rq0 && rq1) {
        if (!cat && (st = plan_catalog_open(&own, err, sizeof(err))) == ST_OK)
            cat = own;
        if (cat && (st = calib_estimate(cat, rq0, base, err, sizeof(err))) == ST_OK)
            st = calib_estimate(cat, rq1, meas, err, sizeof(err));
    }
    if (st != ST_OK || !(base->days > 0) || !isfinite(meas->days)) {
        char msg[320];
        snprintf(msg, sizeof(msg), "not calibrated: %s", err[0] ? err : "the tier has no cluster to estimate");
        str(&b, cal, "message", msg);
        goto out;
    }
    double plan_days = num_at(tier_obj, "time", "days");
    double plan_cost = num_at(tier_obj, "cost", "usd");
    double ratio = meas->days / base->days;
    double days = isfinite(plan_days) ? plan_days * ratio : meas->days;
    double cost = isfinite(plan_cost) && base->cost_usd > 0 ? plan_cost * meas->cost_usd / base->cost_usd
                                                            : meas->cost_usd;
    num(&b, cal, "plan_days", plan_days);
    num(&b, cal, "plan_cost_usd", plan_cost);
    num(&b, cal, "estimate_days", base->days);
    num(&b, cal, "estimate_days_measured", meas->days);
    num(&b, cal, "calibrated_days", days);
    num(&b, cal, "calibrated_cost_usd", cost);
    char what[160], gemm[56] = "";
    if (isfinite(m.matmul_tflops))
        snprintf(gemm, sizeof(gemm), "%.0f TFLOPS 16-bit GEMM rate per GPU", m.matmul_tflops);
    if (isfinite(m.inter_busbw_gbs) && isfinite(m.intra_busbw_gbs))
        snprintf(what, sizeof(what), "%.0f GB/s inter-node and %.0f GB/s intra-node busbw%s%s",
                 m.inter_busbw_gbs, m.intra_busbw_gbs, gemm[0] ? " and " : "", gemm);
    else if (isfinite(m.inter_busbw_gbs))
        snprintf(what, sizeof(what), "%.0f GB/s inter-node busbw%s%s", m.inter_busbw_gbs,
                 gemm[0] ? " and " : "", gemm);
    else if (isfinite(m.intra_busbw_gbs))
        snprintf(what, sizeof(what), "%.0f GB/s intra-node busbw%s%s", m.intra_busbw_gbs,
                 gemm[0] ? " and " : "", gemm);
    else
        snprintf(what, sizeof(what), "%s", gemm);
    char msg[320];
    double shown = isfinite(plan_days) ? plan_days : base->days;
    snprintf(msg, sizeof(msg), "at the measured %s the %.*f-day plan takes %.1f days (%+.0f%%) and "
             "costs $%.0f instead of $%.0f", what, shown < 10 ? 1 : 0, shown, days,
             (ratio - 1) * 100, cost, isfinite(plan_cost) ? plan_cost : base->cost_usd);
    str(&b, cal, "message", msg);
out:
    free(own);
    free(base);
    free(meas);
    cJSON_Delete(rq0);
    cJSON_Delete(rq1);
}
