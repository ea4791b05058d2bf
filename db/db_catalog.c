/* db_catalog.c: reads the hardware and model catalog (migrations/0002_catalog.sql)
 * into the engine's struct catalog.
 *
 * The catalog is data, not code: the planner gets plain structs and never
 * sees SQL, and the migration is the single source of truth for the CLI (an
 * in-memory database) and the server (its file). The whole catalog is read
 * in one pass per table; rows beyond the engine's fixed array sizes are an
 * error rather than a silent truncation, and the result is validated before
 * it is handed out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "engine.h"

static enum engine_gen gen_parse(const char *s, int *ok)
{
    static const char *const names[GEN_COUNT] = {"ampere", "ada", "hopper", "blackwell", "cdna3", "gaudi3"};
    for (int i = 0; i < GEN_COUNT; i++)
        if (strcmp(s, names[i]) == 0)
            return (enum engine_gen)i;
    *ok = 0;
    return GEN_AMPERE;
}

static enum engine_link link_parse(const char *s, int *ok)
{
    if (strcmp(s, "pcie") == 0) return LINK_PCIE;
    if (strcmp(s, "nvlink-bridge") == 0) return LINK_NVLINK_BRIDGE;
    if (strcmp(s, "nvswitch") == 0) return LINK_NVSWITCH;
    if (strcmp(s, "xgmi-mesh") == 0) return LINK_XGMI_MESH;
    if (strcmp(s, "ethernet") == 0) return LINK_ETHERNET_SCALEUP;
    *ok = 0;
    return LINK_PCIE;
}

static enum engine_price_conf price_conf_parse(const char *s, int *ok)
{
    if (strcmp(s, "quote") == 0) return PRICE_QUOTE;
    if (strcmp(s, "secondary") == 0) return PRICE_SECONDARY;
    if (strcmp(s, "estimate") == 0) return PRICE_ESTIMATE;
    if (strcmp(s, "assumption") == 0) return PRICE_ASSUMPTION;
    *ok = 0;
    return PRICE_ESTIMATE;
}

static enum status load_gpus(struct db *db, struct catalog *c, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
        "SELECT id, name, vendor, generation, memory_gib, mem_bw_gbs, bf16_tflops, fp8_tflops, tdp_w, "
        "scaleup_link, scaleup_gbs, scaleup_domain, nvlinks, intra_busbw_gbs, pcie_gen, per_node, per_node_min, "
        "default_fabric_gbps, cloud_usd_per_gpu_hour, server_usd, price_as_of, price_source, source, "
        "availability, availability_note, cloud_price_confidence, server_price_confidence, "
        "scaleout_ports, scaleout_port_gbps, scaleout_source "
        "FROM catalog_gpu ORDER BY rowid", &st, err, errlen);
    int r;
    if (rc != ST_OK)
        return rc;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct engine_gpu *g;
        char text[32];
        int ok = 1;
        if (c->n_gpus >= CATALOG_GPUS_MAX) {
            snprintf(err, errlen, "catalog_gpu: more than %d rows", CATALOG_GPUS_MAX);
            rc = ST_TOOLARGE;
            goto out;
        }
        g = &c->gpus[c->n_gpus];
        memset(g, 0, sizeof *g);
        db_column_copy(st, 0, g->id, sizeof g->id);
        db_column_copy(st, 1, g->name, sizeof g->name);
        db_column_copy(st, 2, g->vendor, sizeof g->vendor);
        db_column_copy(st, 3, text, sizeof text);
        g->gen = gen_parse(text, &ok);
        g->memory_gib = sqlite3_column_double(st, 4);
        g->mem_bw_gbs = sqlite3_column_double(st, 5);
        g->bf16_tflops = sqlite3_column_double(st, 6);
        g->fp8_tflops = sqlite3_column_double(st, 7);
        g->tdp_w = sqlite3_column_double(st, 8);
        db_column_copy(st, 9, text, sizeof text);
        g->link = link_parse(text, &ok);
        g->scaleup_gbs = sqlite3_column_double(st, 10);
        g->scaleup_domain = sqlite3_column_int(st, 11);
        g->nvlinks = sqlite3_column_int(st, 12);
        g->intra_busbw_gbs = sqlite3_column_double(st, 13);
        g->pcie_gen = sqlite3_column_int(st, 14);
        g->per_node = sqlite3_column_int(st, 15);
        g->per_node_min = sqlite3_column_int(st, 16);
        g->default_fabric_gbps = sqlite3_column_double(st, 17);
        g->cloud_usd_per_gpu_hour = sqlite3_column_double(st, 18);
        g->server_usd = sqlite3_column_double(st, 19);
        db_column_copy(st, 20, g->price_as_of, sizeof g->price_as_of);
        db_column_copy(st, 21, g->price_source, sizeof g->price_source);
        db_column_copy(st, 22, g->source, sizeof g->source);
        db_column_copy(st, 23, text, sizeof text);
        g->restricted = strcmp(text, "restricted") == 0;
        db_column_copy(st, 24, g->availability_note, sizeof g->availability_note);
        db_column_copy(st, 25, text, sizeof text);
        g->cloud_price_conf = price_conf_parse(text, &ok);
        db_column_copy(st, 26, text, sizeof text);
        g->server_price_conf = price_conf_parse(text, &ok);
        g->scaleout_ports = sqlite3_column_int(st, 27);
        g->scaleout_port_gbps = sqlite3_column_double(st, 28);
        db_column_copy(st, 29, g->scaleout_source, sizeof g->scaleout_source);
        if (!ok) {
            snprintf(err, errlen, "catalog_gpu %s: unknown generation, scaleup_link or price confidence", g->id);
            rc = ST_INVALID;
            goto out;
        }
        c->n_gpus++;
    }
    if (r != SQLITE_DONE)
        rc = db_fail(db, "cannot read catalog_gpu", err, errlen);
out:
    db_finish(db, st);
    return rc;
}

static enum status load_fabrics(struct db *db, struct catalog *c, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
        "SELECT id, name, kind, gbps, busbw_per_nic_gbs, nic_usd, switch_radix, switch_usd, port_usd, "
        "cable_usd, switch_kw, as_of, source FROM catalog_fabric ORDER BY rowid", &st, err, errlen);
    int r;
    if (rc != ST_OK)
        return rc;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct engine_fabric *f;
        char kind[16];
        if (c->n_fabrics >= CATALOG_FABRICS_MAX) {
            snprintf(err, errlen, "catalog_fabric: more than %d rows", CATALOG_FABRICS_MAX);
            rc = ST_TOOLARGE;
            goto out;
        }
        f = &c->fabrics[c->n_fabrics];
        memset(f, 0, sizeof *f);
        db_column_copy(st, 0, f->id, sizeof f->id);
        db_column_copy(st, 1, f->name, sizeof f->name);
        db_column_copy(st, 2, kind, sizeof kind);
        f->kind = strcmp(kind, "infiniband") == 0 ? FABRIC_INFINIBAND : FABRIC_ROCE;
        f->gbps = sqlite3_column_double(st, 3);
        f->busbw_per_nic_gbs = sqlite3_column_double(st, 4);
        f->nic_usd = sqlite3_column_double(st, 5);
        f->switch_radix = sqlite3_column_int(st, 6);
        f->switch_usd = sqlite3_column_double(st, 7);
        f->port_usd = sqlite3_column_double(st, 8);
        f->cable_usd = sqlite3_column_double(st, 9);
        f->switch_kw = sqlite3_column_double(st, 10);
        db_column_copy(st, 11, f->as_of, sizeof f->as_of);
        db_column_copy(st, 12, f->source, sizeof f->source);
        c->n_fabrics++;
    }
    if (r != SQLITE_DONE)
        rc = db_fail(db, "cannot read catalog_fabric", err, errlen);
out:
    db_finish(db, st);
    return rc;
}

static enum status load_storage(struct db *db, struct catalog *c, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
        "SELECT id, name, read_gbs_per_tb, write_gbs_per_tb, read_gbs_max, write_gbs_max, min_tb, "
        "usd_per_tb_month, usd_per_tb_buy, as_of, source FROM catalog_storage ORDER BY rowid", &st, err, errlen);
    int r;
    if (rc != ST_OK)
        return rc;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct engine_storage *s;
        if (c->n_storage >= CATALOG_STORAGE_MAX) {
            snprintf(err, errlen, "catalog_storage: more than %d rows", CATALOG_STORAGE_MAX);
            rc = ST_TOOLARGE;
            goto out;
        }
        s = &c->storage[c->n_storage];
        memset(s, 0, sizeof *s);
        db_column_copy(st, 0, s->id, sizeof s->id);
        db_column_copy(st, 1, s->name, sizeof s->name);
        s->read_gbs_per_tb = sqlite3_column_double(st, 2);
        s->write_gbs_per_tb = sqlite3_column_double(st, 3);
        s->read_gbs_max = sqlite3_column_double(st, 4);
        s->write_gbs_max = sqlite3_column_double(st, 5);
        s->min_tb = sqlite3_column_double(st, 6);
        s->usd_per_tb_month = sqlite3_column_double(st, 7);
        s->usd_per_tb_buy = sqlite3_column_double(st, 8);
        db_column_copy(st, 9, s->as_of, sizeof s->as_of);
        db_column_copy(st, 10, s->source, sizeof s->source);
        c->n_storage++;
    }
    if (r != SQLITE_DONE)
        rc = db_fail(db, "cannot read catalog_storage", err, errlen);
out:
    db_finish(db, st);
    return rc;
}

static enum status load_models(struct db *db, struct catalog *c, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    enum status rc = db_prepare(db,
        "SELECT id, name, params_b, active_params_b, layers, hidden, heads, kv_heads, ffn_hidden, vocab, "
        "experts, experts_active, shared_experts, moe_ffn_hidden, dense_layers, gated, tied_embeddings, "
        "seq_len, source FROM catalog_model ORDER BY rowid", &st, err, errlen);
    int r;
    if (rc != ST_OK)
        return rc;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct engine_model *m;
        if (c->n_models >= CATALOG_MODELS_MAX) {
            snprintf(err, errlen, "catalog_model: more than %d rows", CATALOG_MODELS_MAX);
            rc = ST_TOOLARGE;
            goto out;
        }
        m = &c->models[c->n_models];
        memset(m, 0, sizeof *m);
        db_column_copy(st, 0, m->id, sizeof m->id);
        db_column_copy(st, 1, m->name, sizeof m->name);
        m->params_b = sqlite3_column_double(st, 2);
        m->active_params_b = sqlite3_column_double(st, 3);
        m->layers = sqlite3_column_int(st, 4);
        m->hidden = sqlite3_column_int(st, 5);
        m->heads = sqlite3_column_int(st, 6);
        m->kv_heads = sqlite3_column_int(st, 7);
        m->ffn_hidden = sqlite3_column_int(st, 8);
        m->vocab = sqlite3_column_int(st, 9);
        m->experts = sqlite3_column_int(st, 10);
        m->experts_active = sqlite3_column_int(st, 11);
        m->shared_experts = sqlite3_column_int(st, 12);
        m->moe_ffn_hidden = sqlite3_column_int(st, 13);
        m->dense_layers = sqlite3_column_int(st, 14);
        m->gated = sqlite3_column_int(st, 15);
        m->tied_embeddings = sqlite3_column_int(st, 16);
        m->seq_len = sqlite3_column_int(st, 17);
        db_column_copy(st, 18, m->source, sizeof m->source);
        c->n_models++;
    }
    if (r != SQLITE_DONE)
        rc = db_fail(db, "cannot read catalog_model", err, errlen);
out:
    db_finish(db, st);
    return rc;
}

enum status db_catalog_load(struct db *db, struct catalog *out, char *err, size_t errlen)
{
    /* Read into a scratch copy so *out is written only on success. */
    struct catalog *c = calloc(1, sizeof *c);
    enum status rc;

    if (!c) {
        snprintf(err, errlen, "catalog: out of memory");
        return ST_NOMEM;
    }
    if ((rc = load_gpus(db, c, err, errlen)) == ST_OK && (rc = load_fabrics(db, c, err, errlen)) == ST_OK &&
        (rc = load_storage(db, c, err, errlen)) == ST_OK && (rc = load_models(db, c, err, errlen)) == ST_OK &&
        (rc = catalog_validate(c, err, errlen)) == ST_OK)
        *out = *c;
    free(c);
    return rc;
}
