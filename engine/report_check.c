/* report_check.c: judges parsed report sections against a plan tier's
 * expectations, and flags what is wrong whatever the plan says (a port that
 * is down, #wrong results, uncorrectable ECC errors).
 *
 * One function per expectation id gathers the evidence from every section
 * of the matching kind and keeps the worst observation (several nodes may be
 * uploaded together). Missing or unreadable evidence is `unknown`, never
 * `pass`; a cut output that shows no fault yet is `unknown` too, since the
 * part not shown could hold one (DOMAIN.md T10). Each finding cites the
 * rule it rests on and carries a remediation hint taken from those rules. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

const char *report_severity_name(enum report_severity sev)
{
    switch (sev) {
    case SEV_PASS: return "pass";
    case SEV_WARN: return "warn";
    case SEV_FAIL: return "fail";
    case SEV_SKIP: return "skip";
    case SEV_UNKNOWN: return "unknown";
    }
    return "unknown";
}

struct ctx {
    const struct report *rep;
    const struct expectation *exp;
    size_t nexp;
    struct report_verdict *out;
};

static struct report_finding *finding(struct ctx *c, const char *id, enum report_severity sev,
                                      const char *rule, int section, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static struct report_finding *finding(struct ctx *c, const char *id, enum report_severity sev,
                                      const char *rule, int section, const char *fmt, ...)
{
    struct report_verdict *v = c->out;
    if (v->count >= VERDICT_FINDINGS_MAX) {
        v->dropped++;
        return NULL;
    }
    struct report_finding *f = &v->findings[v->count++];
    memset(f, 0, sizeof(*f));
    snprintf(f->id, sizeof(f->id), "%s", id);
    f->severity = sev;
    f->observed = f->expected = NAN;
    snprintf(f->rule, sizeof(f->rule), "%s", rule);
    f->section = section;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof(f->message), fmt, ap);
    va_end(ap);
    return f;
}

static void hint(struct report_finding *f, const char *text)
{
    if (f)
        snprintf(f->hint, sizeof(f->hint), "%s", text);
}

static void obs(struct report_finding *f, double o, double e)
{
    if (f) {
        f->observed = o;
        f->expected = e;
    }
}

static void obs_text(struct report_finding *f, const char *o, const char *e)
{
    if (f) {
        /* a name longer than the field is cut, as the section's own text is */
        snprintf(f->observed_text, sizeof(f->observed_text), "%.*s",
                 (int)sizeof(f->observed_text) - 1, o ? o : "");
        snprintf(f->expected_text, sizeof(f->expected_text), "%.*s",
                 (int)sizeof(f->expected_text) - 1, e ? e : "");
    }
}

static const char *why(const struct expectation *e, const char *dflt)
{
    return e && e->why[0] ? e->why : dflt;
}

static void no_evidence(struct ctx *c, const struct expectation *e, const char *what)
{
    struct report_finding *f = finding(c, e->id, SEV_UNKNOWN, why(e, ""), -1,
                                       "no evidence: the reports hold no %s", what);
    if (f) {
        f->expected = !isnan(e->min) ? e->min : e->max;
        snprintf(f->expected_text, sizeof(f->expected_text), "%s", e->value);
    }
    struct report_verdict *v = c->out;
    if (v->no_evidence_count < 32)
        snprintf(v->no_evidence[v->no_evidence_count], EXPECTATION_ID_MAX, "%s", e->id);
    v->no_evidence_count++;
}

static int has_exp(const struct ctx *c, const char *id)
{
    for (size_t i = 0; i < c->nexp; i++)
        if (strcmp(c->exp[i].id, id) == 0)
            return 1;
    return 0;
}

/* ---- topology ------------------------------------------------------------ */

static int path_badness(const char *s)
{
    static const char *const order[] = {"NV", "PIX", "PXB", "PHB", "NODE", "SYS"};
    for (int i = 0; i < 6; i++)
        if (strncmp(s, order[i], strlen(order[i])) == 0)
            return i;
    return -1;
}

static int cell_badness(int cell)
{
    if (cell >= 1 && cell <= 99)
        return 0;
    if (cell >= TOPO_CELL_PIX && cell <= TOPO_CELL_SYS)
        return 1 + cell - TOPO_CELL_PIX;
    return -1;
}

static void check_topo_link(struct ctx *c, const struct expectation *e)
{
    int want = path_badness(e->value);
    int best_sec = -1, worst = -1, partial = 0;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_TOPO || !s->u.topo.link_worst)
            continue;
        int b = cell_badness(s->u.topo.link_worst);
        if (b > worst) {
            worst = b;
            best_sec = (int)i;
        }
        partial |= s->u.topo.pairs_read < s->u.topo.pairs_total;
    }
    if (best_sec < 0 || want < 0) {
        no_evidence(c, e, "GPU-GPU path from nvidia-smi topo -m");
        return;
    }
    const struct report_topo *t = &c->rep->sections[best_sec].u.topo;
    char cell[16];
    report_topo_cell_str(t->link_worst, cell, sizeof(cell));
    struct report_finding *f;
    if (worst > want) {
        f = finding(c, e->id, SEV_FAIL, why(e, "R12,R14"), best_sec,
                    "GPU pairs talk over %s where the plan needs %s%s: collectives inside the "
                    "node will run at PCIe/CPU speed",
                    cell, e->value, want == 0 ? " (NVLink/NVSwitch between every pair)" : "");
        hint(f, "Check the node is the planned NVLink/NVSwitch (HGX) model, that NVLink bridges "
                "are seated and the fabric manager runs; keep tensor parallelism inside the "
                "NVLink domain (R12, R15, F8).");
    } else if (partial) {
        f = finding(c, e->id, SEV_UNKNOWN, why(e, "R14"), best_sec,
                    "the pairs shown are %s, but %d of %d GPU pairs are not shown (output cut)",
                    cell, t->pairs_total - t->pairs_read, t->pairs_total);
        hint(f, "Upload the full `nvidia-smi topo -m` output.");
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, "R14"), best_sec,
                    "every GPU pair is %s or better (worst path %s)", e->value, cell);
    }
    obs_text(f, cell, e->value);
}

static void check_nvlink_min(struct ctx *c, const struct expectation *e)
{
    int sec = -1, worst = 1000, partial = 0;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_TOPO || s->u.topo.nvlink_min < 0)
            continue;
        if (s->u.topo.nvlink_min < worst) {
            worst = s->u.topo.nvlink_min;
            sec = (int)i;
        }
        partial |= s->u.topo.pairs_read < s->u.topo.pairs_total;
    }
    if (sec < 0) {
        no_evidence(c, e, "NVLink counts from nvidia-smi topo -m");
        return;
    }
    struct report_finding *f;
    if (!isnan(e->min) && worst < e->min) {
        if (worst == 0)
            f = finding(c, e->id, SEV_FAIL, why(e, "T5,R12"), sec,
                        "a GPU pair has no NVLink at all (plan: NV%.0f or more)", e->min);
        else
            f = finding(c, e->id, SEV_FAIL, why(e, "T5,R12"), sec,
                        "a GPU pair has only %d NVLinks (plan: NV%.0f): links are down", worst,
                        e->min);
        hint(f, "Run `nvidia-smi nvlink -s` to find the inactive links; reseat or RMA the "
                "baseboard/bridge; check the fabric manager (T5).");
    } else if (partial) {
        f = finding(c, e->id, SEV_UNKNOWN, why(e, "T5"), sec,
                    "pairs shown have at least %d NVLinks, but the matrix is cut", worst);
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, "T5"), sec, "every GPU pair has at least %d NVLinks",
                    worst);
    }
    obs(f, worst, e->min);
}

/* A count that must reach e->min: the worst section decides. Returns the
 * finding (NULL: none, or no evidence). */
static struct report_finding *check_min_count(struct ctx *c, const struct expectation *e,
                                              enum report_kind kind,
                                              int (*get)(const struct report_section *),
                                              const char *what, const char *rule,
                                              const char *fail_hint)
{
    int sec = -1, worst = 0x7fffffff;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != kind)
            continue;
        int v = get(s);
        if (v < 0)
            continue;
        if (v < worst) {
            worst = v;
            sec = (int)i;
        }
    }
    if (sec < 0) {
        no_evidence(c, e, what);
        return NULL;
    }
    struct report_finding *f;
    if (!isnan(e->min) && worst < e->min)
        f = finding(c, e->id, SEV_FAIL, why(e, rule), sec, "%s: %d, the plan needs %.0f", what,
                    worst, e->min);
    else if (!isnan(e->max) && worst > e->max)
        f = finding(c, e->id, SEV_FAIL, why(e, rule), sec, "%s: %d, the plan allows %.0f", what,
                    worst, e->max);
    else
        f = finding(c, e->id, SEV_PASS, why(e, rule), sec, "%s: %d", what, worst);
    if (f && f->severity == SEV_FAIL)
        hint(f, fail_hint);
    obs(f, worst, !isnan(e->min) ? e->min : e->max);
    return f;
}

static int topo_gpus(const struct report_section *s) { return s->u.topo.gpu_count; }
static int topo_nics(const struct report_section *s) { return s->u.topo.nic_count; }
static int gpu_count(const struct report_section *s) { return s->u.gpu.gpu_count; }
static int cpu_threads(const struct report_section *s) { return s->u.cpu.threads; }
static int gpu_gen(const struct report_section *s) { return s->u.gpu.pcie_gen_max; }

/* ---- GPUs an nvidia-smi output attaches but does not show ---------------- */

/* The per-GPU readings the node-level GPU checks rest on. */
enum gpu_field { GF_GEN, GF_WIDTH, GF_ECC, GF_REMAP, GF_NAME };

static int gpu_field_read(const struct report_gpu_info *gi, enum gpu_field f)
{
    switch (f) {
    case GF_GEN: return gi->pcie_gen_max >= 0;
    case GF_WIDTH: return gi->pcie_width_current >= 0;
    case GF_ECC: return !isnan(gi->ecc_uncorrectable);
    case GF_REMAP: return gi->remap_pending >= 0;
    case GF_NAME: return gi->name[0] != '\0';
    }
    return 0;
}

/* GPUs section s counts ("Attached GPUs", or the rows of a table) but shows
 * no reading of f for: an `nvidia-smi -q` cut after its first GPUs. */
static int gpu_field_missing(const struct report_section *s, enum gpu_field f)
{
    const struct report_gpu *g = &s->u.gpu;
    int read = 0;
    for (int k = 0; k < g->info_count; k++)
        read += gpu_field_read(&g->info[k], f);
    return g->gpu_count > read ? g->gpu_count - read : 0;
}

/* GPUs whose reading of f no output shows, over the GPU sections that show
 * it at all (a section with no reading of f is no evidence either way). A
 * section's gap is filled by another kind of nvidia-smi output (table, -q,
 * CSV) of as many GPUs that shows f for all of them: one node's CI log
 * holds the table and -q together. A fault among the GPUs shown still
 * fails; only a pass becomes unknown (T10). */
static int gpu_unshown(const struct report *rep, enum gpu_field f)
{
    int missing = 0;
    for (size_t i = 0; i < rep->section_count; i++) {
        const struct report_section *s = &rep->sections[i];
        if (s->kind != REPORT_GPU)
            continue;
        int m = gpu_field_missing(s, f);
        if (m == 0 || m == s->u.gpu.gpu_count)
            continue;
        int filled = 0;
        for (size_t j = 0; j < rep->section_count && !filled; j++) {
            const struct report_section *o = &rep->sections[j];
            filled = j != i && o->kind == REPORT_GPU && o->u.gpu.gpu_count == s->u.gpu.gpu_count &&
                     strcmp(o->tool, s->tool) != 0 && gpu_field_missing(o, f) == 0;
        }
        if (!filled)
            missing += m;
    }
    return missing;
}

/* A pass over GPUs that are not all shown becomes unknown; f may be NULL. */
static void gpu_pass_unshown(struct ctx *c, struct report_finding *f, enum gpu_field field)
{
    if (!f || f->severity != SEV_PASS)
        return;
    int n = gpu_unshown(c->rep, field);
    if (n == 0)
        return;
    f->severity = SEV_UNKNOWN;
    size_t len = strlen(f->message);
    snprintf(f->message + len, sizeof(f->message) - len,
             ", but %d attached GPU(s) are not shown (output cut)", n);
    hint(f, "Upload the whole `nvidia-smi -q` output, every GPU's block (T10).");
}

/* ---- GPU model (gpu.model) ----------------------------------------------- */

/* The names NVML gives the catalog's NVIDIA cards, as nvidia-smi's table,
 * -q ("Product Name") and --query-gpu name, the nccl-tests rank lines and
 * gpu_burn's list print them, normalized (model_norm): "NVIDIA H100 80GB
 * HBM3" is the SXM5 card, "NVIDIA H100 PCIe" and "NVIDIA H100 NVL" the PCIe
 * ones; "NVIDIA H200" the SXM card and "NVIDIA H200 NVL" the PCIe one; the
 * A100s name form and memory ("NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB
 * PCIe"). family is a word every name of the card holds: a whole name
 * without it cannot be that card (a V100 on an H100 plan), one with it but
 * no exact match (a GH200, an H100 vGPU profile) cannot be judged. The ids
 * are the catalog's (migrations/0002_catalog.sql); a catalog card not
 * listed here (AMD, Intel: nvidia-smi never names them) maps to nothing. */
struct gpu_model {
    const char *id;
    const char *family;
    const char *names[2];
};

static const struct gpu_model gpu_models[] = {
    {"a100-sxm-40gb", "A100", {"A100 SXM4 40GB", NULL}},
    {"a100-sxm-80gb", "A100", {"A100 SXM4 80GB", "A100 SXM 80GB"}},
    {"a100-pcie-40gb", "A100", {"A100 PCIE 40GB", NULL}},
    {"a100-pcie-80gb", "A100", {"A100 80GB PCIE", "A100 PCIE 80GB"}},
    {"h100-sxm-80gb", "H100", {"H100 80GB HBM3", "H100 SXM5 80GB"}},
    {"h100-pcie-80gb", "H100", {"H100 PCIE", NULL}},
    {"h100-nvl-94gb", "H100", {"H100 NVL", NULL}},
    {"h800-sxm-80gb", "H800", {"H800", NULL}},
    {"h200-sxm-141gb", "H200", {"H200", NULL}},
    {"h200-nvl-141gb", "H200", {"H200 NVL", NULL}},
    {"b200-sxm-180gb", "B200", {"B200", NULL}},
    {"gb200-nvl-186gb", "GB200", {"GB200", NULL}},
    {"gb300-nvl-279gb", "GB300", {"GB300", NULL}},
    {"l40s-pcie-48gb", "L40S", {"L40S", NULL}},
    {"l4-pcie-24gb", "L4", {"L4", NULL}},
    {"a10-pcie-24gb", "A10", {"A10", NULL}},
    {"rtx4090-pcie-24gb", "4090", {"GEFORCE RTX 4090", NULL}},
    {"rtx5090-pcie-32gb", "5090", {"GEFORCE RTX 5090", NULL}},
    {"rtx6000ada-pcie-48gb", "ADA", {"RTX 6000 ADA GENERATION", NULL}},
};
#define GPU_MODELS (sizeof(gpu_models) / sizeof(gpu_models[0]))

/* name in upper case, '-' '_' and blank runs as one space, a leading
 * "NVIDIA" and "Tesla" left out; *cut is set when it ends in "..." (the
 * default table cuts a long name so), which is then left out too. */
static void model_norm(const char *name, char *buf, size_t len, int *cut)
{
    size_t o = 0;
    int sp = 1;
    for (const char *s = name; *s && o + 1 < len; s++) {
        char ch = *s;
        if (ch == '-' || ch == '_' || ch == ' ' || ch == '\t') {
            if (!sp)
                buf[o++] = ' ';
            sp = 1;
            continue;
        }
        buf[o++] = ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
        sp = 0;
    }
    buf[o] = '\0';
    *cut = 0;
    while (o > 0 && (buf[o - 1] == ' ' || buf[o - 1] == '.')) {
        *cut |= buf[o - 1] == '.';
        buf[--o] = '\0';
    }
    static const char *const lead[] = {"NVIDIA ", "TESLA "};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(lead[i]);
        if (strncmp(buf, lead[i], n) == 0)
            memmove(buf, buf + n, strlen(buf + n) + 1);
    }
}

/* The catalog id a normalized name is; NULL when no card fits, or when a
 * cut name could be more than one. */
static const char *model_id(const char *norm, int cut)
{
    const char *hit = NULL;
    size_t n = strlen(norm);
    if (n == 0)
        return NULL;
    for (size_t i = 0; i < GPU_MODELS; i++)
        for (int k = 0; k < 2 && gpu_models[i].names[k]; k++) {
            const char *nm = gpu_models[i].names[k];
            if (cut ? strncmp(nm, norm, n) != 0 : strcmp(nm, norm) != 0)
                continue;
            if (hit && strcmp(hit, gpu_models[i].id) != 0)
                return NULL;
            hit = gpu_models[i].id;
        }
    return hit;
}

const char *report_gpu_model_entry(size_t i, const char *const **names)
{
    if (i >= GPU_MODELS)
        return NULL;
    if (names)
        *names = gpu_models[i].names;
    return gpu_models[i].id;
}

static const char *model_family(const char *id)
{
    for (size_t i = 0; i < GPU_MODELS; i++)
        if (strcmp(gpu_models[i].id, id) == 0)
            return gpu_models[i].family;
    return NULL;
}

/* Whether the normalized name holds word as a whole word. */
static int has_word(const char *norm, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = norm; (p = strstr(p, word)) != NULL; p++)
        if ((p == norm || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

/* What the names shown say of the plan's card: the first name of another
 * card, the first that cannot be judged, and the first two that differ. */
struct model_seen {
    const char *want, *family;       /* plan id and its family; NULL plan-free/unknown */
    int names;
    int other_sec, unk_sec, mixed_sec, first_sec;
    const char *other_id;            /* the other card's catalog id, NULL when unmapped */
    char other[REPORT_NAME_LEN], unk[REPORT_NAME_LEN];
    char first[REPORT_NAME_LEN], first_norm[REPORT_NAME_LEN], mixed[REPORT_NAME_LEN];
    const char *first_id;
    int first_cut;
};

/* Two normalized names of different cards: ids that differ, or (either
 * unmapped) texts that differ where neither is a cut form of the other. */
static int model_differs(const char *a, int acut, const char *aid, const char *b, int bcut,
                         const char *bid)
{
    if (aid && bid)
        return strcmp(aid, bid) != 0;
    size_t al = strlen(a), bl = strlen(b);
    if (acut && al <= bl && strncmp(a, b, al) == 0)
        return 0;
    if (bcut && bl <= al && strncmp(a, b, bl) == 0)
        return 0;
    return strcmp(a, b) != 0;
}

static void model_see(struct model_seen *m, int sec, const char *name)
{
    char norm[REPORT_NAME_LEN];
    int cut;
    if (!name[0])
        return;
    model_norm(name, norm, sizeof(norm), &cut);
    if (!norm[0])
        return;
    const char *id = model_id(norm, cut);
    if (m->names++ == 0) {
        m->first_sec = sec;
        m->first_id = id;
        m->first_cut = cut;
        snprintf(m->first, sizeof(m->first), "%s", name);
        snprintf(m->first_norm, sizeof(m->first_norm), "%s", norm);
    } else if (m->mixed_sec < 0 &&
               model_differs(m->first_norm, m->first_cut, m->first_id, norm, cut, id)) {
        m->mixed_sec = sec;
        snprintf(m->mixed, sizeof(m->mixed), "%s", name);
    }
    if (!m->want)
        return;
    int other = id ? strcmp(id, m->want) != 0 : m->family && !cut && !has_word(norm, m->family);
    if (other && m->other_sec < 0) {
        m->other_sec = sec;
        m->other_id = id;
        snprintf(m->other, sizeof(m->other), "%s", name);
    } else if (!other && !id && m->unk_sec < 0) {
        m->unk_sec = sec;
        snprintf(m->unk, sizeof(m->unk), "%s", name);
    }
}

/* Every GPU name the reports show: nvidia-smi (each GPU of the table, -q
 * or CSV), the names of an nccl-tests run's rank lines, gpu_burn's list. */
static void model_collect(const struct report *rep, struct model_seen *m)
{
    m->other_sec = m->unk_sec = m->mixed_sec = m->first_sec = -1;
    for (size_t i = 0; i < rep->section_count; i++) {
        const struct report_section *s = &rep->sections[i];
        if (s->kind == REPORT_GPU)
            for (int k = 0; k < s->u.gpu.info_count; k++)
                model_see(m, (int)i, s->u.gpu.info[k].name);
        else if (s->kind == REPORT_NCCL) {
            model_see(m, (int)i, s->u.nccl.gpu_name);
            for (int k = 0; k < s->u.nccl.other_gpu_count && k < 3; k++)
                model_see(m, (int)i, s->u.nccl.other_gpus[k]);
        }
        else if (s->kind == REPORT_GEMM)
            for (int r = 0; r < s->u.gemm.row_count; r++)
                model_see(m, (int)i, s->u.gemm.rows[r].name);
    }
}

static const char *MODEL_FIX =
    "These are not the cards the plan was sized and priced for: get the planned nodes or "
    "re-plan for the card you have (its memory, bandwidth and peak set every figure, R5, R6); "
    "one instance type can hold another card in another zone (R11).";

static void check_gpu_model(struct ctx *c, const struct expectation *e)
{
    struct model_seen m;
    memset(&m, 0, sizeof(m));
    m.want = e->value[0] ? e->value : NULL;
    m.family = m.want ? model_family(m.want) : NULL;
    model_collect(c->rep, &m);
    if (m.names == 0) {
        no_evidence(c, e, "GPU name (nvidia-smi, nccl-tests rank lines or gpu_burn)");
        return;
    }
    struct report_finding *f;
    if (!m.want) {
        f = finding(c, e->id, SEV_UNKNOWN, why(e, "R5,R6"), m.first_sec,
                    "the plan names no GPU model to compare \"%s\" with", m.first);
        obs_text(f, m.first, "");
        return;
    }
    if (m.other_sec >= 0) {
        f = finding(c, e->id, SEV_FAIL, why(e, "R5,R6"), m.other_sec,
                    "the GPUs shown include %s (%s), the plan is built on %s", m.other,
                    m.other_id ? m.other_id : "not a catalog card", m.want);
        hint(f, MODEL_FIX);
        obs_text(f, m.other, m.want);
        return;
    }
    if (m.mixed_sec >= 0) {
        f = finding(c, e->id, SEV_FAIL, why(e, "R5,R6"), m.mixed_sec,
                    "the reports show different GPU models: %s and %s; the plan is built on %s",
                    m.first, m.mixed, m.want);
        hint(f, MODEL_FIX);
        obs_text(f, m.mixed, m.want);
        return;
    }
    if (m.unk_sec >= 0) {
        f = finding(c, e->id, SEV_UNKNOWN, why(e, "R5,R6"), m.unk_sec,
                    "the GPU name \"%s\" does not map to one catalog card, so it cannot be "
                    "judged against the plan's %s", m.unk, m.want);
        hint(f, "Upload `nvidia-smi -q` (its Product Name is not cut) or `nvidia-smi "
                "--query-gpu=name,memory.total --format=csv` (T10).");
        obs_text(f, m.unk, m.want);
        return;
    }
    f = finding(c, e->id, SEV_PASS, why(e, "R5,R6"), m.first_sec,
                "every GPU name shown (%d) is the plan's %s (%s)", m.names, m.want, m.first);
    obs_text(f, m.first, m.want);
    gpu_pass_unshown(c, f, GF_NAME);
}

/* Without a plan: GPUs of different models in one upload still fail (a
 * synchronous job runs at the slowest card's pace, R4). */
static void check_gpu_mixed(struct ctx *c)
{
    struct model_seen m;
    memset(&m, 0, sizeof(m));
    model_collect(c->rep, &m);
    if (m.mixed_sec < 0)
        return;
    struct report_finding *f =
        finding(c, EXP_GPU_MODEL, SEV_FAIL, "R4,R6", m.mixed_sec,
                "the reports show different GPU models: %s and %s", m.first, m.mixed);
    hint(f, "A synchronous job runs at its slowest GPU's pace and sizes memory by its smallest: "
            "build the cluster from one card (R4, R6).");
    obs_text(f, m.mixed, m.first);
}

static void check_pcie_width(struct ctx *c, const struct expectation *e)
{
    int sec = -1, worst = 1000;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind == REPORT_GPU && s->u.gpu.pcie_width_min_current >= 0 &&
            s->u.gpu.pcie_width_min_current < worst) {
            worst = s->u.gpu.pcie_width_min_current;
            sec = (int)i;
        }
    }
    if (sec < 0) {
        no_evidence(c, e, "PCIe link width from nvidia-smi -q or --query-gpu");
        return;
    }
    struct report_finding *f;
    if (!isnan(e->min) && worst < e->min) {
        f = finding(c, e->id, SEV_FAIL, why(e, "R9,T6"), sec,
                    "a GPU runs at PCIe x%d, the plan needs x%.0f: x8 loses 15%% or more, x4 "
                    "cripples it", worst, e->min);
        hint(f, "Move the GPU to a full x16 slot that shares no lanes, reseat it and check "
                "riser/retimer cables; a width below max is a fault (R9, T6).");
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, "R9,T6"), sec, "every GPU shown runs at x%d or "
                    "wider", worst);
        gpu_pass_unshown(c, f, GF_WIDTH);
    }
    obs(f, worst, e->min);
}

/* A total that must stay at or under e->max (errors, failures). Returns the
 * finding (NULL: none, or no evidence). */
static struct report_finding *check_max_total(struct ctx *c, const struct expectation *e,
                                              enum report_kind kind,
                                              double (*get)(const struct report_section *),
                                              const char *what, const char *rule,
                                              const char *fail_hint)
{
    double total = NAN;
    int sec = -1;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != kind)
            continue;
        double v = get(s);
        if (isnan(v))
            continue;
        total = isnan(total) ? v : total + v;
        if (sec < 0 || v > 0)
            sec = (int)i;
    }
    if (isnan(total)) {
        no_evidence(c, e, what);
        return NULL;
    }
    double lim = isnan(e->max) ? 0 : e->max;
    struct report_finding *f;
    if (total > lim) {
        f = finding(c, e->id, SEV_FAIL, why(e, rule), sec, "%s: %.0f (allowed: %.0f)", what, total,
                    lim);
        hint(f, fail_hint);
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, rule), sec, "%s: %.0f", what, total);
    }
    obs(f, total, lim);
    return f;
}

static double gpu_ecc(const struct report_section *s) { return s->u.gpu.ecc_uncorrectable; }
static double gpu_remap(const struct report_section *s)
{
    return s->u.gpu.remap_pending < 0 ? NAN : s->u.gpu.remap_pending;
}
static double nccl_wrong(const struct report_section *s)
{
    const struct report_nccl *n = &s->u.nccl;
    if (isnan(n->wrong_total) && isnan(n->oob_values))
        return NAN;
    return (isnan(n->wrong_total) ? 0 : n->wrong_total) + (isnan(n->oob_values) ? 0 : n->oob_values);
}
static double nccl_warns(const struct report_section *s) { return s->u.nccl.nccl_warnings; }
static double nic_errors(const struct report_section *s) { return s->u.nic.errors; }
static double nic_pause(const struct report_section *s)
{
    const struct report_nic *n = &s->u.nic;
    if (isnan(n->rx_pause) && isnan(n->tx_pause))
        return NAN;
    return (isnan(n->rx_pause) ? 0 : n->rx_pause) + (isnan(n->tx_pause) ? 0 : n->tx_pause);
}

/* A failed nccl.warnings finding quotes the first WARN text of its
 * section, as the plan-free one does: the count alone says nothing of the
 * link, QP or topology the text names. */
static void warn_text(struct ctx *c, struct report_finding *f)
{
    if (!f || f->severity != SEV_FAIL || f->section < 0)
        return;
    const struct report_nccl *n = &c->rep->sections[f->section].u.nccl;
    if (n->nccl_warnings <= 0 || !n->warnings[0][0])
        return;
    size_t len = strlen(f->message);
    snprintf(f->message + len, sizeof(f->message) - len, "; first: %s", n->warnings[0]);
}

/* ---- collectives --------------------------------------------------------- */

static int is_allreduce(const struct report_nccl *n, int *assumed)
{
    *assumed = 0;
    if (strcmp(n->collective, "all_reduce") == 0)
        return 1;
    if (!n->collective[0] && strstr(n->candidates, "all_reduce")) {
        *assumed = 1;
        return 1;
    }
    return 0;
}

#define NCCL_LARGE_B (64.0 * 1048576.0)

static void check_busbw(struct ctx *c, const struct expectation *e, int inter)
{
    int plan_inter = has_exp(c, EXP_NCCL_INTER_BUSBW);
    int sec = -1, small = -1, unplaced = -1, assumed_any = 0;
    double worst = NAN;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_NCCL)
            continue;
        const struct report_nccl *n = &s->u.nccl;
        int assumed;
        if (!is_allreduce(n, &assumed) || isnan(n->busbw_largest_gbs))
            continue;
        /* One node, or a node count the output does not show in a plan
         * with no cross-node fabric. */
        int is_inter = n->nodes >= 2;
        if (n->nodes < 0 && (inter || plan_inter)) {
            if (unplaced < 0 ||
                n->largest_size_b > c->rep->sections[unplaced].u.nccl.largest_size_b)
                unplaced = (int)i;
            continue;
        }
        if (is_inter != inter)
            continue;
        if (n->largest_size_b < NCCL_LARGE_B) {
            small = (int)i;
            continue;
        }
        if (isnan(worst) || n->busbw_largest_gbs < worst) {
            worst = n->busbw_largest_gbs;
            sec = (int)i;
            assumed_any = assumed;
        }
    }
    const char *where = inter ? "across nodes" : "inside one node";
    if (sec < 0) {
        if (small >= 0) {
            struct report_finding *f =
                finding(c, e->id, SEV_UNKNOWN, why(e, "T2"), small,
                        "all_reduce %s was run only up to %.0f MiB; bus bandwidth is judged at "
                        "the largest sizes (>= 64 MiB)",
                        where, c->rep->sections[small].u.nccl.largest_size_b / 1048576.0);
            hint(f, "Rerun all_reduce_perf with -b 8 -e 8G -f 2 (T2).");
            obs(f, c->rep->sections[small].u.nccl.busbw_largest_gbs, e->min);
            return;
        }
        if (unplaced >= 0) {
            /* A result is there, but not whether it ran in one node or across
             * nodes: said so, not "no evidence". */
            const struct report_nccl *u = &c->rep->sections[unplaced].u.nccl;
            struct report_finding *f =
                finding(c, e->id, SEV_UNKNOWN, why(e, inter ? "T2" : "T1"), unplaced,
                        "an all_reduce result (%.1f GB/s at %.0f MiB) does not show how many "
                        "nodes ran it, so it cannot be judged %s",
                        u->busbw_largest_gbs, u->largest_size_b / 1048576.0, where);
            hint(f, "Upload the whole all_reduce_perf output, with its '#  Rank N ... on HOST' "
                    "lines (T1, T2).");
            obs(f, u->busbw_largest_gbs, e->min);
            return;
        }
        no_evidence(c, e, inter ? "multi-node all_reduce_perf result" :
                                  "single-node all_reduce_perf result");
        return;
    }
    const struct report_nccl *n = &c->rep->sections[sec].u.nccl;
    double ratio = worst / e->min;
    char note[96] = "";
    if (assumed_any)
        snprintf(note, sizeof(note), " (the output does not name the collective; the table fits "
                                     "all_reduce)");
    enum report_severity sev = ratio >= 0.9 ? SEV_PASS : ratio >= 0.7 ? SEV_WARN : SEV_FAIL;
    /* T2: across nodes only Ring gives a NIC-bound figure; Tree, NVLS and
     * CollNet/SHARP can exceed what the NICs carry, so their pass proves
     * nothing of the fabric. */
    int not_ring = inter && n->algo[0] &&
                   !(strlen(n->algo) == 4 && span_starts_ci(n->algo, 4, "ring"));
    if (not_ring) {
        size_t nl = strlen(note);
        snprintf(note + nl, sizeof(note) - nl, " (NCCL_ALGO=%s, not Ring)", n->algo);
        if (sev == SEV_PASS)
            sev = SEV_UNKNOWN;
    }
    struct report_finding *f =
        finding(c, e->id, sev, why(e, inter ? "T2" : "T1"), sec,
                "all_reduce bus bandwidth %s: %.1f GB/s at %.0f MiB, %.0f%% of the expected "
                "%.0f GB/s%s (the \"Avg bus bandwidth\" footer averages all sizes and is not "
                "used)",
                where, worst, n->largest_size_b / 1048576.0, ratio * 100, e->min, note);
    obs(f, worst, e->min);
    if (not_ring) {
        hint(f, "Rerun across nodes with NCCL_ALGO=Ring: Tree, NVLS and CollNet/SHARP can exceed "
                "what the NICs carry, so only Ring's busbw measures the fabric (T2).");
        return;
    }
    if (sev == SEV_PASS)
        return;
    if (!inter) {
        hint(f, "Check `nvidia-smi topo -m` for PCIe/SYS paths and NVLinks down, NCCL_P2P_DISABLE "
                "or NCCL_P2P_LEVEL in the environment, and GPU clocks/power caps (R12-R14, T1).");
        return;
    }
    /* R25: cross-node at ~30% of one node's figure pointed at switch buffers. */
    double intra = NAN;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_nccl *m = &c->rep->sections[i].u.nccl;
        int a;
        if (c->rep->sections[i].kind == REPORT_NCCL && m->nodes == 1 && is_allreduce(m, &a) &&
            !isnan(m->busbw_largest_gbs) && (isnan(intra) || m->busbw_largest_gbs > intra))
            intra = m->busbw_largest_gbs;
    }
    if (!isnan(intra) && intra > 0 && worst / intra > 0.2 && worst / intra < 0.45) {
        char h[FINDING_MSG_LEN];
        snprintf(h, sizeof(h),
                 "Cross-node busbw is %.0f%% of the single-node %.0f GB/s, the pattern R25 traced "
                 "to too-small switch PFC buffers: check PFC priorities match on switch and NIC "
                 "and ECN thresholds are not too aggressive (R23-R25).",
                 worst / intra * 100, intra);
        hint(f, h);
    } else {
        hint(f, "Validate bottom-up: ib_write_bw between the two nodes, port rates (ibstat), "
                "GPUDirect RDMA in the NCCL log (GDRDMA), NCCL_ALGO=Ring for a NIC-bound figure, "
                "then PFC/ECN on the switch (R17, R23, R24, T2).");
    }
}

/* ---- RDMA ---------------------------------------------------------------- */

static void check_ib_active(struct ctx *c, const struct expectation *e)
{
    int sec = -1, worst = 0x7fffffff, cut = 0;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_IB_PORTS || s->u.ib.ports_total == 0)
            continue;
        if (s->u.ib.ports_active < worst) {
            worst = s->u.ib.ports_active;
            sec = (int)i;
            cut = s->u.ib.ports_declared > s->u.ib.ports_total || s->u.ib.panics > 0;
        }
    }
    if (sec < 0) {
        no_evidence(c, e, "port list from ibstat, ibstatus or ibv_devinfo");
        return;
    }
    struct report_finding *f;
    if (!isnan(e->min) && worst < e->min && cut)
        f = finding(c, e->id, SEV_UNKNOWN, why(e, "T9"), sec,
                    "%d active ports shown, the plan needs %.0f, but the listing is cut or a "
                    "device could not be read", worst, e->min);
    else if (!isnan(e->min) && worst < e->min) {
        f = finding(c, e->id, SEV_FAIL, why(e, "T9,R17"), sec,
                    "%d active RDMA ports, the plan needs %.0f", worst, e->min);
        hint(f, "Bring the missing ports up (cabling, optics, switch port, `ibstat`); every GPU "
                "needs its NIC for the planned fabric bandwidth (R17, T9).");
    } else
        f = finding(c, e->id, SEV_PASS, why(e, "T9"), sec, "%d active RDMA ports", worst);
    obs(f, worst, e->min);
}

static void check_ib_rate(struct ctx *c, const struct expectation *e)
{
    int sec = -1;
    double worst = NAN;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_IB_PORTS)
            continue;
        for (int p = 0; p < s->u.ib.port_count; p++) {
            const struct report_ib_port *pt = &s->u.ib.ports[p];
            if (strcmp(pt->state, "Active") != 0 || isnan(pt->rate_gbps))
                continue;
            if (isnan(worst) || pt->rate_gbps < worst) {
                worst = pt->rate_gbps;
                sec = (int)i;
            }
        }
    }
    if (sec < 0) {
        no_evidence(c, e, "rate of an active RDMA port");
        return;
    }
    struct report_finding *f;
    if (!isnan(e->min) && worst < e->min) {
        f = finding(c, e->id, SEV_FAIL, why(e, "T9"), sec,
                    "an active port runs at %g Gb/s, the plan needs %.0f Gb/s", worst, e->min);
        hint(f, "A port below its rated speed (NDR 400, HDR 200, EDR 100) points at a cable, "
                "optic or switch port setting; check `ibstat`/`ethtool` on both ends (T9, R39).");
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, "T9"), sec, "every active port runs at %g Gb/s or "
                    "faster", worst);
    }
    obs(f, worst, e->min);
}

static void check_link_layer(struct ctx *c, const struct expectation *e)
{
    int sec = -1, bad = 0, seen = 0;
    char got[16] = "";
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind == REPORT_IB_PORTS) {
            for (int p = 0; p < s->u.ib.port_count; p++) {
                const struct report_ib_port *pt = &s->u.ib.ports[p];
                if (strcmp(pt->state, "Active") != 0 || !pt->link_layer[0])
                    continue;
                seen = 1;
                if (strcmp(pt->link_layer, e->value) != 0 && !bad) {
                    bad = 1;
                    sec = (int)i;
                    snprintf(got, sizeof(got), "%s", pt->link_layer);
                } else if (sec < 0) {
                    sec = (int)i;
                    snprintf(got, sizeof(got), "%s", pt->link_layer);
                }
            }
        } else if (s->kind == REPORT_PERFTEST && s->u.perf.link_layer[0]) {
            const char *ll = strcmp(s->u.perf.link_layer, "IB") == 0 ? "InfiniBand" : s->u.perf.link_layer;
            seen = 1;
            if (strcmp(ll, e->value) != 0 && !bad) {
                bad = 1;
                sec = (int)i;
                snprintf(got, sizeof(got), "%s", ll);
            } else if (sec < 0) {
                sec = (int)i;
                snprintf(got, sizeof(got), "%s", ll);
            }
        }
    }
    if (!seen) {
        no_evidence(c, e, "link layer of an active RDMA port");
        return;
    }
    struct report_finding *f;
    if (bad) {
        f = finding(c, e->id, SEV_FAIL, why(e, "R16,R17"), sec,
                    "an active RDMA port is %s, the plan is built on %s", got, e->value);
        hint(f, strcmp(e->value, "InfiniBand") == 0
                    ? "The plan assumes an InfiniBand fabric; RoCE needs lossless Ethernet (PFC/ECN) "
                      "to come close (R17, R23)."
                    : "The plan assumes RoCE on Ethernet; check the port's link type (mlxconfig "
                      "LINK_TYPE) matches the switch (R17).");
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, "R17"), sec, "active RDMA ports are %s", got);
    }
    obs_text(f, got, e->value);
}

static void check_write_bw(struct ctx *c, const struct expectation *e)
{
    int sec = -1, small = -1;
    double worst = NAN, need = e->min;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_PERFTEST || strcmp(s->u.perf.test, "ib_write_bw") != 0 ||
            isnan(s->u.perf.bw_avg_gbps))
            continue;
        if (s->u.perf.largest_bytes < 65536) {
            small = (int)i;
            continue;
        }
        double bw = s->u.perf.bw_avg_gbps;
        /* A bidirectional test reports both directions together. */
        if (s->u.perf.bidirectional == 1)
            bw /= 2;
        if (isnan(worst) || bw < worst) {
            worst = bw;
            sec = (int)i;
        }
    }
    if (sec < 0) {
        if (small >= 0) {
            struct report_finding *f = finding(c, e->id, SEV_UNKNOWN, why(e, "T3"), small,
                        "ib_write_bw shows results only up to %.0f bytes; bandwidth is judged at "
                        "large messages (T3 uses 8 MB)", c->rep->sections[small].u.perf.largest_bytes);
            hint(f, "Rerun ib_write_bw -s 8388608 (or -a to the end) with --report_gbits.");
            return;
        }
        no_evidence(c, e, "ib_write_bw result at a large message size");
        return;
    }
    double ratio = worst / need;
    enum report_severity sev = ratio >= 1 ? SEV_PASS : ratio >= 0.9 ? SEV_WARN : SEV_FAIL;
    struct report_finding *f =
        finding(c, e->id, sev, why(e, "T3"), sec,
                "ib_write_bw average %.1f Gb/s per direction at %.0f bytes, %.0f%% of the %.0f Gb/s "
                "threshold", worst, c->rep->sections[sec].u.perf.largest_bytes, ratio * 100, need);
    if (sev != SEV_PASS)
        hint(f, "Check the port rate (ibstat), PCIe width of the NIC, MTU, and that the test "
                "pinned the NIC's NUMA node; then switch QoS/PFC for RoCE (T3, R18, R23).");
    obs(f, worst, need);
}

/* ---- nvbandwidth, storage, host ----------------------------------------- */

static void check_nvbw(struct ctx *c, const struct expectation *e, int d2d)
{
    int sec = -1, waived = -1;
    double worst = NAN;
    char name[48] = "";
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_NVBANDWIDTH)
            continue;
        const struct report_nvbandwidth *n = &s->u.nvbw;
        for (int k = 0; k < n->waived_count && k < 4; k++)
            if ((d2d && strncmp(n->waived[k], "device_to_device", 16) == 0) ||
                (!d2d && strncmp(n->waived[k], "host_to_device", 14) == 0))
                waived = (int)i;
        for (int t = 0; t < n->test_count; t++) {
            const struct report_nvbw_test *te = &n->tests[t];
            int match = d2d ? strncmp(te->name, "device_to_device", 16) == 0 &&
                                  !strstr(te->name, "bidirectional")
                            : strncmp(te->name, "host_to_device", 14) == 0 &&
                                  !strstr(te->name, "bidirectional");
            if (!match || isnan(te->min_gbs))
                continue;
            if (isnan(worst) || te->min_gbs < worst) {
                worst = te->min_gbs;
                sec = (int)i;
                snprintf(name, sizeof(name), "%s", te->name);
            }
        }
    }
    if (sec < 0) {
        if (waived >= 0) {
            struct report_finding *f = finding(c, e->id, SEV_UNKNOWN, why(e, d2d ? "T5" : "T4"),
                        waived, "nvbandwidth waived the %s test: it could not run here",
                        d2d ? "device_to_device" : "host_to_device");
            hint(f, d2d ? "A waived GPU-to-GPU copy means no peer access (no NVLink/P2P): "
                          "check `nvidia-smi topo -m` (R13)." : "");
            return;
        }
        no_evidence(c, e, d2d ? "nvbandwidth device_to_device result" :
                                "nvbandwidth host_to_device result");
        return;
    }
    double ratio = worst / e->min;
    enum report_severity sev = ratio >= 1 ? SEV_PASS : ratio >= 0.9 ? SEV_WARN : SEV_FAIL;
    struct report_finding *f = finding(c, e->id, sev, why(e, d2d ? "T5" : "T4"), sec,
                                       "%s: slowest GPU %.1f GB/s, threshold %.0f GB/s", name,
                                       worst, e->min);
    if (sev != SEV_PASS)
        hint(f, d2d ? "Slow GPU-to-GPU copies: count active NVLinks (nvidia-smi nvlink -s) and "
                      "check the fabric manager (T5)."
                    : "Slow host-to-GPU copies: check the PCIe generation and width of that GPU "
                      "(nvidia-smi -q), NUMA pinning, and IOMMU settings (R9, T4, T6).");
    obs(f, worst, e->min);
}

/* Whether a fio section's jobs ran the pattern an expectation is about:
 * checkpoints are large sequential writes (F10, R31; R27: "large blocks")
 * and training data is read sequentially, throughput-bound (R27), so
 * storage.write_mbs takes rw=write jobs and storage.read_mbs rw=read jobs.
 * A section whose direction also holds other jobs' bytes (random or mixed
 * jobs, run in the same group, sum into one figure) cannot be split and
 * does not match; a section that shows no rw at all does not either. */
static int fio_matches(const struct report_fio *f, int write)
{
    unsigned want = write ? FIO_SEQ_WRITE : FIO_SEQ_READ;
    unsigned spoil = FIO_MIXED | FIO_OTHER | (write ? FIO_RAND_WRITE : FIO_RAND_READ);
    return (f->patterns & want) && !(f->patterns & spoil);
}

/* The smallest block of a checkpoint-write job: a 4 KiB (often fsync'd)
 * sequential write measures latency-bound small I/O, not the large-block
 * bandwidth a checkpoint is written at (R27, F10). DOMAIN.md and the seed guide give
 * no block size for training reads (only "sequential, throughput-bound"),
 * so reads are judged at any block size. */
#define FIO_CKPT_BS (1024.0 * 1024.0)

/* Whether a matching write section's jobs wrote blocks too small to stand
 * for checkpoints (an unshown block size is not held against it). */
static int fio_small_blocks(const struct report_fio *f, int write)
{
    return write && f->write_bs < FIO_CKPT_BS;
}

/* "randwrite", "randwrite+mixed": the patterns of a section, for a message. */
static void fio_pattern_text(unsigned patterns, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < FIO_PATTERNS && o < len; i++)
        if (patterns & (1u << i)) {
            int n = snprintf(buf + o, len - o, "%s%s", o ? "+" : "", report_fio_pattern_name(i));
            if (n < 0)
                break;
            o += (size_t)n;
        }
    if (!buf[0])
        snprintf(buf, len, "no rw shown");
}

/* "4 KiB", "512 KiB", "1 MiB": a block size for a message. */
static void fio_bs_text(double bs, char *buf, size_t len)
{
    if (bs >= 1048576.0 && fmod(bs, 1048576.0) == 0)
        snprintf(buf, len, "%.0f MiB", bs / 1048576.0);
    else if (bs >= 1024.0 && fmod(bs, 1024.0) == 0)
        snprintf(buf, len, "%.0f KiB", bs / 1024.0);
    else
        snprintf(buf, len, "%.0f B", bs);
}

static void check_fio(struct ctx *c, const struct expectation *e, int write)
{
    int sec = -1, other = -1, small = -1;
    double best = NAN, other_v = NAN, small_v = NAN;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_FIO)
            continue;
        double v = write ? s->u.fio.write_bw_mbs : s->u.fio.read_bw_mbs;
        if (isnan(v))
            continue;
        if (!fio_matches(&s->u.fio, write)) {
            if (other < 0)
                other = (int)i, other_v = v;
            continue;
        }
        if (fio_small_blocks(&s->u.fio, write)) {
            if (small < 0)
                small = (int)i, small_v = v;
            continue;
        }
        if (!isnan(best) && v <= best)
            continue;
        best = v;
        sec = (int)i;
    }
    const char *pat = write ? "sequential write (rw=write)" : "sequential read (rw=read)";
    if (sec < 0 && small >= 0) {
        char bs[24];
        fio_bs_text(c->rep->sections[small].u.fio.write_bs, bs, sizeof(bs));
        struct report_finding *f =
            finding(c, e->id, SEV_UNKNOWN, why(e, "F10,R31,R27"), small,
                    "fio shows sequential write bandwidth (%.0f MB/s) only from jobs with %s "
                    "blocks; checkpoint writes are large-block writes, judged from a "
                    "sequential write job with bs of 1 MiB or more", small_v, bs);
        hint(f, "Run fio --rw=write --bs=1M --direct=1 --size=10G --numjobs=4 "
                "--group_reporting on the checkpoint target (F10, R27).");
        obs(f, small_v, e->min);
        return;
    }
    if (sec < 0 && other >= 0) {
        char got[48];
        fio_pattern_text(c->rep->sections[other].u.fio.patterns, got, sizeof(got));
        struct report_finding *f =
            finding(c, e->id, SEV_UNKNOWN, why(e, write ? "F10,R31" : "F11,R27"), other,
                    "fio shows %s bandwidth (%.0f MB/s) only from jobs of another pattern (%s); "
                    "%s are judged from a %s job", write ? "write" : "read", other_v, got,
                    write ? "checkpoint writes" : "training data reads", pat);
        hint(f, write ? "Run fio with rw=write and a large block size (bs=1M or more, "
                        "direct=1) on the checkpoint target (F10, R27)."
                      : "Run fio with rw=read and a large block size (bs=1M or more, direct=1) "
                        "on the data path (R27).");
        obs(f, other_v, e->min);
        return;
    }
    if (sec < 0) {
        no_evidence(c, e, write ? "fio write bandwidth" : "fio read bandwidth");
        return;
    }
    double ratio = best / e->min;
    enum report_severity sev = ratio >= 1 ? SEV_PASS : ratio >= 0.9 ? SEV_WARN : SEV_FAIL;
    struct report_finding *f =
        finding(c, e->id, sev, why(e, write ? "F10,R31" : "F11,R27"), sec,
                "fio %s %.0f MB/s (best %s run), the plan needs %.0f MB/s%s",
                write ? "write" : "read", best, pat, e->min,
                write ? " for checkpoint writes" : " for training data reads");
    if (sev != SEV_PASS)
        hint(f, write ? "Checkpoints will stall training longer than planned: write to a faster "
                        "tier (local NVMe, then drain), or lengthen the interval (F10, R29-R31)."
                      : "The data path cannot feed the GPUs: prefetch hot data to local NVMe or "
                        "use a parallel file system (R28, R29); check fio used large sequential "
                        "reads (R27).");
    obs(f, best, e->min);
}

static void check_governor(struct ctx *c, const struct expectation *e)
{
    int sec = -1, bad = 0;
    char got[16] = "";
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_CPU || !s->u.cpu.governor[0])
            continue;
        int b = strcmp(s->u.cpu.governor, e->value[0] ? e->value : "performance") != 0;
        if (sec < 0 || (b && !bad)) {
            sec = (int)i;
            bad = b;
            snprintf(got, sizeof(got), "%s", s->u.cpu.governor);
        }
    }
    if (sec < 0) {
        no_evidence(c, e, "CPU governor from cpupower frequency-info");
        return;
    }
    struct report_finding *f;
    if (bad) {
        f = finding(c, e->id, SEV_WARN, why(e, "R38"), sec,
                    "CPU frequency governor is \"%s\"; data loading runs 10-20%% slower than with "
                    "\"performance\"", got);
        hint(f, "cpupower frequency-set -g performance (and persist it, e.g. tuned profile "
                "throughput-performance) (R38).");
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, "R38"), sec, "CPU governor is \"%s\"", got);
    }
    obs_text(f, got, e->value[0] ? e->value : "performance");
}

/* DCGM's level names (dcgmi diag -r). */
static const char *dcgm_level_name(int level)
{
    static const char *const names[] = {"named tests", "-r 1 (short)", "-r 2 (medium)",
                                        "-r 3 (long)", "-r 4 (xlong)"};
    return level >= 0 && level <= 4 ? names[level] : "level not shown";
}

static void check_dcgm(struct ctx *c, const struct expectation *e)
{
    int sec = -1, pass = 0, fail = 0, skip = 0, warn = 0, cut = -1;
    /* the lowest level run (0: named tests), and a section with none shown */
    int low = -1, low_level = 99, unleveled = -1;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_DCGM)
            continue;
        const struct report_dcgm *d = &s->u.dcgm;
        if (d->pass + d->fail + d->warn + d->skip == 0)
            continue;
        if (sec < 0 || d->fail > 0)
            sec = (int)i;
        if (d->cut && cut < 0)
            cut = (int)i;
        pass += d->pass;
        fail += d->fail;
        skip += d->skip;
        warn += d->warn;
        if (d->level < 0 && unleveled < 0)
            unleveled = (int)i;
        if (d->level >= 0 && d->level < low_level) {
            low_level = d->level;
            low = (int)i;
        }
    }
    if (sec < 0) {
        no_evidence(c, e, "dcgmi diag result");
        return;
    }
    double lim = isnan(e->max) ? 0 : e->max;
    struct report_finding *f;
    if (fail > lim) {
        const struct report_dcgm *d = &c->rep->sections[sec].u.dcgm;
        f = finding(c, e->id, SEV_FAIL, why(e, "T10"), sec,
                    "dcgmi diag: %d failed (first: %s), %d passed, %d skipped", fail,
                    d->failed_count ? d->failed_tests[0] : "?", pass, skip);
        hint(f, "Read the failing test's message, reset or drain the GPU, rerun at -r 3; an "
                "uncorrectable memory failure needs an RMA (T7, T10).");
    } else if (skip > 0) {
        f = finding(c, e->id, SEV_SKIP, why(e, "T10"), sec,
                    "dcgmi diag: %d skipped, %d passed; a skipped test is never a pass", skip, pass);
        hint(f, "Find why tests were skipped (missing CUDA, GPU busy, level too low) and rerun "
                "`dcgmi diag -r 3` (T10).");
    } else if (warn > 0) {
        f = finding(c, e->id, SEV_WARN, why(e, "T10"), sec, "dcgmi diag: %d warnings, %d passed",
                    warn, pass);
    } else if (cut >= 0) {
        /* What is shown passed, but the tests after the cut are not shown
         * (at -r 3 those are the hardware and stress ones): not a pass. */
        f = finding(c, e->id, SEV_UNKNOWN, why(e, "T10"), cut,
                    "dcgmi diag: the %d results shown passed, but the output is cut in %s; "
                    "the tests after the cut are not shown",
                    pass, c->rep->sections[cut].u.dcgm.category[0]
                              ? c->rep->sections[cut].u.dcgm.category : "the last row");
        hint(f, "Upload the whole `dcgmi diag -r 3` output, down to the table's bottom border "
                "(T10).");
    } else if (low >= 0 && low_level < 3) {
        /* Acceptance is the long run: -r 1 checks the software deployment
         * only, -r 2 adds a short PCIe and memory pass; the targeted stress,
         * power and SM stress tests that find a failing GPU run at -r 3. */
        f = finding(c, e->id, SEV_WARN, why(e, "T10"), low,
                    "dcgmi diag %s: all %d results passed, but a plan's acceptance needs the "
                    "long diagnostics (-r 3): the %s tests did not run",
                    dcgm_level_name(low_level), pass,
                    low_level == 2 ? "stress" : "hardware and stress");
        hint(f, "Run `dcgmi diag -r 3` on every node with the GPUs idle (it adds the PCIe, "
                "memory, targeted stress and power and SM stress tests) and upload it (T10).");
    } else if (unleveled >= 0) {
        f = finding(c, e->id, SEV_UNKNOWN, why(e, "T10"), unleveled,
                    "dcgmi diag: the %d results shown passed, but the output shows neither the "
                    "command's -r level nor its test categories, so the long diagnostics "
                    "cannot be told to have run", pass);
        hint(f, "Upload the whole `dcgmi diag -r 3` output, with its command line or its "
                "category rows (T10).");
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, "T10"), sec, "dcgmi diag %s: all %d results "
                    "passed", dcgm_level_name(low_level), pass);
    }
    obs(f, fail, lim);
}

/* ---- compute: dcgmproftester -t 1004 --------------------------------------- */

static int is_tensor16(const struct report_gemm *g)
{
    return str_is(g->tool, "dcgmproftester") && str_is(g->test, "TensorEngineActive");
}

/* The worst worker's steady median against a fraction of the 16-bit peak.
 * dcgmproftester's load is a fixed-shape GEMM meant to keep the tensor
 * engine busy, not a tuned cuBLAS run: a low figure points at clocks,
 * power or a MIG slice, and is a warning, never a failure. */
static void check_gemm(struct ctx *c, const struct expectation *e)
{
    int sec = -1, mig = 0;
    double worst = NAN;
    for (size_t i = 0; i < c->rep->section_count; i++) {
        const struct report_section *s = &c->rep->sections[i];
        if (s->kind != REPORT_GEMM || !is_tensor16(&s->u.gemm))
            continue;
        const struct report_gemm *g = &s->u.gemm;
        for (int r = 0; r < g->row_count; r++) {
            double v = g->rows[r].tflops_median;
            if (isnan(v))
                continue;
            if (isnan(worst) || v < worst) {
                worst = v;
                sec = (int)i;
                mig = g->mig;
            }
        }
    }
    if (sec < 0 || isnan(e->min)) {
        no_evidence(c, e, "dcgmproftester -t 1004 (TensorEngineActive) rates");
        return;
    }
    double peak = e->min / EXP_GEMM_PEAK_FRACTION;
    struct report_finding *f;
    if (worst < e->min) {
        f = finding(c, e->id, SEV_WARN, why(e, "F4"), sec,
                    "dcgmproftester 16-bit tensor GEMM: %.1f TFLOPS (steady median, worst GPU) "
                    "is %.0f%% of the %.0f TFLOPS dense peak%s",
                    worst, 100.0 * worst / peak, peak,
                    mig ? "; the run was on a MIG slice, which holds only part of the GPU" : "");
        hint(f, "Check clocks and power: nvidia-smi -q -d PERFORMANCE (Clocks Throttle Reasons), "
                "power cap and temperature (R10); compute time scales with the rate (F4).");
    } else {
        f = finding(c, e->id, SEV_PASS, why(e, "F4"), sec,
                    "dcgmproftester 16-bit tensor GEMM: %.1f TFLOPS (steady median, worst GPU), "
                    "%.0f%% of the %.0f TFLOPS dense peak", worst, 100.0 * worst / peak, peak);
    }
    obs(f, worst, e->min);
}

/* gpu_burn: per-GPU health. Its GEMM is FP32 (FLOATS) or FP64 (DOUBLES), so
 * its rate says nothing about the 16-bit rate a training plan runs at and is
 * never used to calibrate; what it does tell is whether every GPU computed
 * correctly, stayed alive, ran at all, and kept pace with its peers. */
static void check_gpu_burn(struct ctx *c, const struct report_gemm *g, int si)
{
    struct report_finding *f;
    int faults = 0;
    const char *fix = "Replace or reseat the GPU; check dmesg for Xid errors and run "
                      "dcgmi diag -r 3 (T7, T10).";
    if (g->gpus_faulty > 0) {
        f = finding(c, "gemm.gpu_faulty", SEV_FAIL, "T7,T10", si,
                    "gpu_burn: %d of %d GPUs FAULTY (wrong GEMM results)", g->gpus_faulty,
                    g->gpus_faulty + (g->gpus_ok > 0 ? g->gpus_ok : 0));
        hint(f, fix);
        obs(f, g->gpus_faulty, 0);
        faults++;
    }
    int bad = 0, first = -1;
    double first_v = NAN;
    for (int r = 0; r < g->row_count; r++) {
        double v = g->rows[r].errors;
        if (!isnan(v) && v != 0 && !g->rows[r].died) {
            if (first < 0)
                first = g->rows[r].gpu, first_v = v;
            bad++;
        }
    }
    if (bad > 0) {
        f = finding(c, "gemm.errors", SEV_FAIL, "T7,T10", si,
                    "gpu_burn: %d GPU(s) with nonzero error counts (GPU %d: %.0f%s)", bad, first,
                    first_v, first_v < 0 ? ", a negative count: the counter overflowed" : "");
        hint(f, fix);
        obs(f, first_v, 0);
        faults++;
    }
    if (g->died) {
        int n = 0;
        for (int r = 0; r < g->row_count; r++)
            n += g->rows[r].died;
        f = finding(c, "gemm.died", SEV_FAIL, "T7,T10", si,
                    "gpu_burn: the test process died on %d GPU(s) (DIED!)", n);
        hint(f, fix);
        faults++;
    }
    if (g->init_failed) {
        f = finding(c, "gemm.not_run", SEV_FAIL, "T10", si,
                    "gpu_burn: the test did not run on every GPU (init failed or no rate "
                    "printed)%s", g->gpus_ok > 0 ? ", yet it reported OK" : "");
        hint(f, "gpu_burn says OK and exits 0 when its test never started: read the "
                "'Couldn't init' error, check the CUDA/driver install, and rerun (T10).");
        faults++;
    }
    /* A GPU more than 10% below its peers' median: one card held back */
    double last[GEMM_ROWS_MAX];
    int nl = 0;
    for (int r = 0; r < g->row_count; r++)
        if (g->rows[r].tflops_last > 0)
            last[nl++] = g->rows[r].tflops_last;
    if (nl >= 2) {
        double sorted[GEMM_ROWS_MAX];
        memcpy(sorted, last, (size_t)nl * sizeof(*sorted));
        for (int a = 1; a < nl; a++)
            for (int b = a; b > 0 && sorted[b - 1] > sorted[b]; b--) {
                double t = sorted[b];
                sorted[b] = sorted[b - 1];
                sorted[b - 1] = t;
            }
        double med = nl % 2 ? sorted[nl / 2] : (sorted[nl / 2 - 1] + sorted[nl / 2]) / 2.0;
        for (int r = 0; r < g->row_count; r++) {
            double v = g->rows[r].tflops_last;
            if (v > 0 && v < 0.9 * med) {
                f = finding(c, "gemm.gpu_slow", SEV_WARN, "R10", si,
                            "gpu_burn: GPU %d runs %.2f TFLOPS, %.0f%% below its peers' median "
                            "%.2f", g->rows[r].gpu, v, 100.0 * (1.0 - v / med), med);
                hint(f, "Check power cap, temperature and clocks: nvidia-smi -q -d PERFORMANCE "
                        "(Clocks Throttle Reasons) (R10).");
                obs(f, v, med);
                faults++;
            }
        }
    }
    for (int r = 0; r < g->row_count; r++) {
        double t = g->rows[r].temp_c;
        if (!isnan(t) && t >= 85) {
            f = finding(c, "gemm.temperature", SEV_WARN, "R10", si,
                        "gpu_burn: GPU %d at %.0f C under load", g->rows[r].gpu, t);
            hint(f, "Sustained core temperatures above 80 C throttle clocks: check airflow, "
                    "fans and the cooling loop (R10).");
            obs(f, t, 85);
            faults++;
        }
    }
    if (faults)
        return;
    if (g->tested >= 0 && g->gpus_ok > 0) {
        f = finding(c, "gemm.health", SEV_PASS, "T10", si,
                    "gpu_burn: %d GPU(s) OK, no errors; its %s GEMM is a health check, not the "
                    "16-bit rate the plan runs at, and is not used to calibrate", g->gpus_ok,
                    str_is(g->test, "DOUBLES") ? "FP64" : "FP32");
    } else {
        f = finding(c, "gemm.health", SEV_UNKNOWN, "T10", si,
                    "gpu_burn: no final OK/FAULTY verdict in the output (cut or hung); no fault "
                    "in the part shown. Its FP32/FP64 rate is not used to calibrate");
    }
}

/* ---- GPU clocks and power (R10) ----------------------------------------- */

/* SW Power Cap is the driver holding clocks so the draw stays at the power
 * limit: with the draw at 90% of the limit or more the load has reached the
 * limit, which is GPU Boost working as designed (today's H200 under a bf16
 * matmul: 693 of 700 W). Below half the limit the cap cannot be the load's:
 * the limit the GPU enforces is not the one it shows (a VM host capping
 * power, R11), or the reading is broken. In between a short sample cannot
 * tell a load that touches the limit in bursts from a hidden cap, so the
 * finding is unknown rather than a guess. */
#define POWER_AT_LIMIT 0.90
#define POWER_FAR_BELOW 0.50
/* A limit set below the card's default by more than rounding: lowered. */
#define POWER_LIMIT_LOWERED 0.99

static int reason_on(const struct report_gpu_info *gi, int r)
{
    return (gi->clock_reasons_active >> r) & 1u;
}

/* "SM 1470 of 1980 MHz", or what the output leaves out. */
static void sm_text(const struct report_gpu_info *gi, char *buf, size_t len)
{
    if (!isnan(gi->sm_clock_mhz) && !isnan(gi->sm_clock_max_mhz))
        snprintf(buf, len, "SM clock %.0f of %.0f MHz", gi->sm_clock_mhz, gi->sm_clock_max_mhz);
    else if (!isnan(gi->sm_clock_mhz))
        snprintf(buf, len, "SM clock %.0f MHz (max not shown)", gi->sm_clock_mhz);
    else
        snprintf(buf, len, "SM clock not shown");
}

static void temp_text(const struct report_gpu_info *gi, char *buf, size_t len)
{
    if (!isnan(gi->temp_c))
        snprintf(buf, len, " at %.0f C", gi->temp_c);
    else
        buf[0] = '\0';
}

/* The clock event reasons read as Active, judged per GPU: a hardware
 * slowdown with its cause named fails (the thermal or power-brake protection
 * cuts core clocks by half or more, NVML), one with no cause named and the
 * driver's thermal slowdown warn, SW Power Cap passes at the limit and
 * warns far below it or under a lowered limit. Nothing is said of a reason
 * not shown, nor of Idle, Sync Boost or the clock settings. */
static void check_gpu_clocks(struct ctx *c, const struct report_gpu_info *gi, int si)
{
    struct report_finding *f;
    const char *who = gi->bus_id[0] ? gi->bus_id : "?";
    char sm[64], temp[24];
    sm_text(gi, sm, sizeof(sm));
    temp_text(gi, temp, sizeof(temp));
    int thermal = reason_on(gi, CLK_HW_THERMAL), brake = reason_on(gi, CLK_HW_POWER_BRAKE);
    if (thermal) {
        f = finding(c, "gpu.hw_thermal_slowdown", SEV_FAIL, "R10", si,
                    "GPU %s: HW Thermal Slowdown is active%s: the GPU's thermal protection cuts "
                    "its clocks (%s)", who, temp, sm);
        hint(f, "Fix the cooling: airflow, fans, inlet temperature, heatsink or cold-plate "
                "contact and the coolant loop; sustained core temperatures above 80 C throttle "
                "clocks (R10).");
        obs(f, gi->sm_clock_mhz, gi->sm_clock_max_mhz);
    }
    if (brake) {
        f = finding(c, "gpu.hw_power_brake", SEV_FAIL, "R10", si,
                    "GPU %s: HW Power Brake Slowdown is active: the board's power-brake signal "
                    "cuts its clocks (%s)", who, sm);
        hint(f, "Power delivery asserts the brake: check the PSUs (a failed unit, lost "
                "redundancy, an undersized supply), power cables and the BMC's power policy "
                "(R10).");
        obs(f, gi->sm_clock_mhz, gi->sm_clock_max_mhz);
    }
    if (reason_on(gi, CLK_HW_SLOWDOWN) && !thermal && !brake) {
        /* Neither child is named: NVML's other causes are power spikes
         * tripping the fast-trigger protection, or a clock change at the
         * moment of the sample, which one sample cannot rule out. */
        f = finding(c, "gpu.hw_slowdown", SEV_WARN, "R10", si,
                    "GPU %s: HW Slowdown is active%s with no thermal or power-brake cause shown: "
                    "the hardware cuts core clocks by half or more (%s)", who, temp, sm);
        hint(f, "Sample again under load: if it stays, check the power delivery (PSUs, cables: "
                "draw spikes trip the fast-trigger protection) and the cooling (R10).");
        obs(f, gi->sm_clock_mhz, gi->sm_clock_max_mhz);
    }
    if (reason_on(gi, CLK_SW_THERMAL)) {
        f = finding(c, "gpu.sw_thermal_slowdown", SEV_WARN, "R10", si,
                    "GPU %s: SW Thermal Slowdown is active%s: the driver lowers clocks to keep "
                    "the GPU or its memory under their temperature limit (%s)", who, temp, sm);
        hint(f, "Improve the cooling before benchmarking or training: airflow, fans, inlet "
                "temperature; sustained temperatures above 80 C throttle clocks (R10).");
        obs(f, gi->sm_clock_mhz, gi->sm_clock_max_mhz);
    }
    double draw = gi->power_w, cap = gi->power_cap_w, dflt = gi->power_cap_default_w;
    int capped = reason_on(gi, CLK_SW_POWER_CAP);
    if (!isnan(cap) && !isnan(dflt) && cap < POWER_LIMIT_LOWERED * dflt) {
        f = finding(c, "gpu.power_limit_lowered", SEV_WARN, "R10,R11", si,
                    "GPU %s: power limit %g W is below the card's default %g W%s (%s)", who,
                    cap, dflt, capped ? "; SW Power Cap is holding its clocks" : "", sm);
        hint(f, "Someone lowered it (nvidia-smi -pl) or the host caps it: restore the default "
                "with nvidia-smi -pl as root, or ask the provider; a lower limit lowers the "
                "clocks under load (R10, R11).");
        obs(f, cap, dflt);
        return;
    }
    if (!capped)
        return;
    if (isnan(draw) || isnan(cap) || cap <= 0) {
        f = finding(c, "gpu.sw_power_cap", SEV_UNKNOWN, "R10", si,
                    "GPU %s: SW Power Cap is active, but the output shows no %s: a GPU at its "
                    "limit under load cannot be told from one capped below it (%s)", who,
                    isnan(draw) ? "power draw" : "power limit", sm);
        hint(f, "Capture nvidia-smi -q (GPU Power Readings: draw and limits) during the "
                "load (R10).");
        return;
    }
    double share = draw / cap;
    if (share >= POWER_AT_LIMIT) {
        f = finding(c, "gpu.sw_power_cap", SEV_PASS, "R10", si,
                    "GPU %s: SW Power Cap is active at %g of %g W: the load has reached the "
                    "power limit, normal GPU Boost behaviour (%s)", who, draw, cap, sm);
    } else if (share < POWER_FAR_BELOW) {
        f = finding(c, "gpu.sw_power_cap", SEV_WARN, "R10,R11", si,
                    "GPU %s: SW Power Cap is active at %g of %g W (%.0f%%): clocks are held "
                    "far below the power limit it shows (%s)", who, draw, cap, 100.0 * share, sm);
        hint(f, "Something caps power below the limit shown: a limit lowered with nvidia-smi "
                "-pl, or the VM host capping it (ask the provider); rerun under load and compare "
                "the clocks with Max Clocks (R10, R11).");
    } else {
        f = finding(c, "gpu.sw_power_cap", SEV_UNKNOWN, "R10", si,
                    "GPU %s: SW Power Cap is active at %g of %g W (%.0f%%): one sample cannot "
                    "tell a load touching the limit in bursts from a cap below it (%s)", who, draw,
                    cap, 100.0 * share, sm);
        hint(f, "Sample nvidia-smi -q during steady full load: at the limit the cap is normal; "
                "far below it, look for a lowered or host-set limit (R10, R11).");
    }
    obs(f, draw, cap);
}

/* ---- findings that need no plan ----------------------------------------- */

/* A cpufreq policy ceiling below this fraction of the hardware maximum is a
 * cap, not rounding (policies are set in whole frequency steps). */
#define CPU_POLICY_CAPPED 0.9

/* nvidia-smi topo -p2p: GPU pairs without peer-to-peer access move their
 * data through host memory (R13); the code names why. */
static void check_p2p(struct ctx *c, const struct report_topo *t, int si)
{
    if (t->p2p_pairs_read <= 0 || t->p2p_pairs_ok >= t->p2p_pairs_read)
        return;
    static const char *const why_not[] = {
        "", "not supported", "the GPU does not support it", "the chipset does not support it",
        "the topology does not support it", "disabled by a registry key", "status unknown"};
    int k = t->p2p_worst - TOPO_CELL_P2P_OK;
    char code[16];
    report_topo_cell_str(t->p2p_worst, code, sizeof(code));
    struct report_finding *f =
        finding(c, "topo.p2p", SEV_WARN, "R13", si,
                "GPU peer-to-peer is unavailable for %d of %d GPU pairs (%s: %s): NCCL moves "
                "their data through host memory", t->p2p_pairs_read - t->p2p_pairs_ok,
                t->p2p_pairs_read, code, k > 0 && k <= 6 ? why_not[k] : "not OK");
    hint(f, "Consumer GPUs have P2P disabled by the driver (GNS); on data-centre GPUs check "
            "that the BIOS and kernel leave PCIe ACS and the IOMMU out of the GPUs' path "
            "(iommu=pt) and that the GPUs share a PCIe switch, or use NVLink (R12, R13).");
    obs(f, t->p2p_pairs_ok, t->p2p_pairs_read);
}

/* The expectation of id the plan holds, NULL when none. */
static const struct expectation *exp_of(const struct ctx *c, const char *id)
{
    for (size_t i = 0; i < c->nexp; i++)
        if (strcmp(c->exp[i].id, id) == 0)
            return &c->exp[i];
    return NULL;
}

/* A port not Active whose physical state is Disabled was switched off (by
 * the switch, mlxlink or ibportstate): a spare beside the node's active
 * ports, not a link that fails to come up, unless the plan needs more
 * active ports than the node shows. A node with no active port at all has
 * nothing the port is a spare of. A port Polling or Down with its link
 * enabled is trying and failing. */
static int port_spare(const struct ctx *c, const struct report_ib_ports *ib,
                      const struct report_ib_port *pt)
{
    if (strcmp(pt->phys_state, "Disabled") != 0 || ib->ports_active < 1)
        return 0;
    const struct expectation *e = exp_of(c, EXP_IB_PORTS_ACTIVE);
    return !e || isnan(e->min) || ib->ports_active >= e->min;
}

/* What a spare port's finding adds: the plan's count met, or no count. */
static void spare_note(const struct ctx *c, const struct report_ib_ports *ib, char *buf,
                       size_t len)
{
    const struct expectation *e = exp_of(c, EXP_IB_PORTS_ACTIVE);
    if (e && !isnan(e->min))
        snprintf(buf, len, "the node's %d active port(s) meet the plan's %.0f", ib->ports_active,
                 e->min);
    else
        snprintf(buf, len, "no plan count says whether the node needs it");
}

static void plan_free(struct ctx *c)
{
    const struct report *rep = c->rep;
    for (size_t i = 0; i < rep->section_count; i++) {
        const struct report_section *s = &rep->sections[i];
        int si = (int)i;
        struct report_finding *f;
        switch (s->kind) {
        case REPORT_TOPO:
            check_p2p(c, &s->u.topo, si);
            break;
        case REPORT_IB_PORTS:
            for (int p = 0; p < s->u.ib.port_count; p++) {
                const struct report_ib_port *pt = &s->u.ib.ports[p];
                char where[48];
                snprintf(where, sizeof(where), "%s port %d", pt->ca[0] ? pt->ca : "?", pt->port);
                if (strcmp(pt->state, "Active") != 0 && pt->state[0] &&
                    port_spare(c, &s->u.ib, pt)) {
                    char note[80];
                    spare_note(c, &s->u.ib, note, sizeof(note));
                    f = finding(c, "ib.port_state", SEV_WARN, "T9", si,
                                "%s is %s, physical state Disabled: switched off on purpose, not a "
                                "link fault; %s", where, pt->state, note);
                    hint(f, "A spare or unused port: leave it, or enable it (switch port, "
                            "mlxlink/ibportstate) if the node should use it; a port that should "
                            "carry traffic must be Active/LinkUp (T9).");
                    obs_text(f, pt->state, "Active");
                } else if (strcmp(pt->state, "Active") != 0 && pt->state[0]) {
                    f = finding(c, "ib.port_state", SEV_FAIL, "T9", si,
                                "%s is %s (physical state %s)", where, pt->state,
                                pt->phys_state[0] ? pt->phys_state : "not shown");
                    hint(f, strcmp(pt->state, "Initializing") == 0
                                ? "Link is up but no subnet manager configured the port: start "
                                  "opensm or check the fabric's SM (T9, R22)."
                                : "Check cable, optic and switch port; a disabled port must be "
                                  "enabled on the switch or with mlxlink (T9, R39).");
                    obs_text(f, pt->state, "Active");
                }
                int down = strcmp(pt->state, "Down") == 0 || strcmp(pt->phys_state, "Disabled") == 0;
                if (!down && strcmp(pt->link_layer, "InfiniBand") == 0 && !isnan(pt->base_lid) &&
                    (pt->base_lid == 0 || pt->base_lid == 65535)) {
                    f = finding(c, "ib.lid", SEV_FAIL, "T9", si,
                                "%s has LID %.0f on InfiniBand: no subnet manager assignment",
                                where, pt->base_lid);
                    hint(f, "Run a subnet manager (opensm or the switch's SM) and check the "
                            "port's partition (T9).");
                    obs(f, pt->base_lid, NAN);
                }
                if (strcmp(pt->state, "Active") == 0 && !isnan(pt->rate_gbps) && pt->rate_gbps < 25 &&
                    !has_exp(c, EXP_IB_RATE)) {
                    f = finding(c, "ib.rate_gbps", SEV_WARN, "T9", si,
                                "%s is active at only %g Gb/s", where, pt->rate_gbps);
                    hint(f, "The link negotiated far below any data-centre rate: check cable, "
                            "optic and the switch port speed (T9, R39).");
                    obs(f, pt->rate_gbps, NAN);
                }
            }
            if (s->u.ib.panics > 0) {
                f = finding(c, "ib.devices", SEV_UNKNOWN, "T9", si,
                            "%d RDMA device(s) could not be read (ibpanic)", s->u.ib.panics);
                hint(f, "An Accelerated-Networking or SR-IOV VF may be listed without IB state; "
                        "check the device exists and the driver is loaded.");
            }
            break;
        case REPORT_NCCL:
            if (!has_exp(c, EXP_NCCL_WRONG) && !isnan(nccl_wrong(s)) && nccl_wrong(s) > 0) {
                f = finding(c, EXP_NCCL_WRONG, SEV_FAIL, "T8", si,
                            "nccl-tests found %.0f wrong results: data corruption", nccl_wrong(s));
                hint(f, "Wrong results mean corruption on a GPU, NVLink or NIC path: bisect with "
                        "subsets of GPUs/nodes and run dcgmi diag -r 3 (T8).");
                obs(f, nccl_wrong(s), 0);
            }
            if (!has_exp(c, EXP_NCCL_WARNINGS) && s->u.nccl.nccl_warnings > 0) {
                f = finding(c, EXP_NCCL_WARNINGS, SEV_FAIL, "T8", si, "%d NCCL WARN line(s): %s",
                            s->u.nccl.nccl_warnings, s->u.nccl.warnings[0]);
                hint(f, "Read the WARN text: NET/IB completion errors point at the link or QP "
                        "(R18, R22); 'could not find a path' at the topology (R13).");
                obs(f, s->u.nccl.nccl_warnings, 0);
            }
            break;
        case REPORT_GPU: {
            const struct report_gpu *g = &s->u.gpu;
            for (int k = 0; k < g->info_count; k++) {
                const struct report_gpu_info *gi = &g->info[k];
                if (gi->pcie_width_current >= 0 && gi->pcie_width_max > 0 &&
                    gi->pcie_width_current < gi->pcie_width_max) {
                    f = finding(c, "gpu.pcie_width_degraded", SEV_FAIL, "T6,R9", si,
                                "GPU %s runs at PCIe x%d of x%d", gi->bus_id[0] ? gi->bus_id : "?",
                                gi->pcie_width_current, gi->pcie_width_max);
                    hint(f, "A current width below max is a fault: reseat the GPU, check the "
                            "slot and riser (T6, R9).");
                    obs(f, gi->pcie_width_current, gi->pcie_width_max);
                }
                if (gi->remap_failure == 1) {
                    f = finding(c, "gpu.remap_failure", SEV_FAIL, "T7", si,
                                "GPU %s reports a row-remapping failure", gi->bus_id);
                    hint(f, "A remap failure means the GPU ran out of spare rows: RMA (T7).");
                }
                check_gpu_clocks(c, gi, si);
            }
            if (!has_exp(c, EXP_GPU_ECC_UNCORR) && g->ecc_uncorrectable > 0) {
                f = finding(c, EXP_GPU_ECC_UNCORR, SEV_FAIL, "T7", si,
                            "%.0f uncorrectable ECC error(s)", g->ecc_uncorrectable);
                hint(f, "Drain the GPU, reset it, rerun dcgmi diag -r 3; repeated errors need an "
                        "RMA (T7).");
                obs(f, g->ecc_uncorrectable, 0);
            }
            if (!has_exp(c, EXP_GPU_REMAP_PENDING) && g->remap_pending > 0) {
                f = finding(c, EXP_GPU_REMAP_PENDING, SEV_FAIL, "T7", si,
                            "%d GPU(s) with a row remap pending", g->remap_pending);
                hint(f, "Reset the GPU (or reboot) to apply the pending remap, then recheck (T7).");
                obs(f, g->remap_pending, 0);
            }
            break;
        }
        case REPORT_DCGM:
            if (!has_exp(c, EXP_DCGM_FAIL)) {
                const struct report_dcgm *d = &s->u.dcgm;
                if (d->fail > 0) {
                    f = finding(c, EXP_DCGM_FAIL, SEV_FAIL, "T10", si, "dcgmi diag: %d failed "
                                "(first: %s)", d->fail, d->failed_count ? d->failed_tests[0] : "?");
                    hint(f, "Read the failing test's message, reset the GPU and rerun (T10).");
                    obs(f, d->fail, 0);
                } else if (d->skip > 0) {
                    f = finding(c, EXP_DCGM_FAIL, SEV_SKIP, "T10", si,
                                "dcgmi diag: %d test(s) skipped; a skip is never a pass", d->skip);
                    obs(f, 0, 0);
                }
            }
            break;
        case REPORT_CPU:
            if (!has_exp(c, EXP_CPU_GOVERNOR) && s->u.cpu.governor[0] &&
                strcmp(s->u.cpu.governor, "performance") != 0) {
                f = finding(c, EXP_CPU_GOVERNOR, SEV_WARN, "R38", si,
                            "CPU governor is \"%s\", not \"performance\"", s->u.cpu.governor);
                hint(f, "cpupower frequency-set -g performance (R38).");
                obs_text(f, s->u.cpu.governor, "performance");
            }
            /* A policy whose ceiling sits far under the hardware's: the CPU
             * cannot reach its speed whatever the governor (TLP issue 764:
             * 400 MHz - 400 MHz on a 4.46 GHz part). */
            if (s->u.cpu.policy_max_mhz > 0 && s->u.cpu.hw_max_mhz > 0 &&
                s->u.cpu.policy_max_mhz < CPU_POLICY_CAPPED * s->u.cpu.hw_max_mhz) {
                f = finding(c, "cpu.frequency_capped", SEV_WARN, "R38,R36", si,
                            "the CPU frequency policy caps the CPU at %.0f MHz of the hardware's "
                            "%.0f MHz (%.0f%%): data loading and the communication stack run "
                            "slower", s->u.cpu.policy_max_mhz, s->u.cpu.hw_max_mhz,
                            100.0 * s->u.cpu.policy_max_mhz / s->u.cpu.hw_max_mhz);
                hint(f, "Raise the policy's ceiling (cpupower frequency-set -u with the hardware "
                        "maximum, governor performance) and find what lowered it: a power "
                        "profile (tuned, TLP, power-profiles-daemon), a BIOS power cap, or boost "
                        "switched off (R38, R36).");
                obs(f, s->u.cpu.policy_max_mhz, s->u.cpu.hw_max_mhz);
            }
            break;
        case REPORT_PERFTEST:
            for (int k = 0; k < s->issue_count; k++)
                if (strstr(s->issues[k], "CPU frequency")) {
                    f = finding(c, "cpu.frequency", SEV_WARN, "R38", si,
                                "perftest saw CPU frequencies below maximum during the run");
                    hint(f, "Set the performance governor before benchmarking (R38).");
                }
            break;
        case REPORT_NIC:
            if (!has_exp(c, EXP_NIC_ERRORS) && s->u.nic.errors > 0) {
                f = finding(c, EXP_NIC_ERRORS, SEV_WARN, "R39", si,
                            "%.0f NIC error counter(s) counted (%s)", s->u.nic.errors,
                            s->u.nic.driver[0] ? s->u.nic.driver : "NIC");
                hint(f, "Check optics, cables and switch CRC/FCS counters bottom-up (R39).");
                obs(f, s->u.nic.errors, 0);
            }
            if (!has_exp(c, EXP_NIC_PAUSE) && nic_pause(s) > 0) {
                f = finding(c, EXP_NIC_PAUSE, SEV_WARN, "R23,R39", si,
                            "%.0f pause frames (rx %.0f, tx %.0f): the link is back-pressured",
                            nic_pause(s), isnan(s->u.nic.rx_pause) ? 0 : s->u.nic.rx_pause,
                            isnan(s->u.nic.tx_pause) ? 0 : s->u.nic.tx_pause);
                hint(f, "Check PFC priorities match between switch and NIC and ECN thresholds "
                        "(R23); persistent pauses point at a congested or slow receiver (R39).");
                obs(f, nic_pause(s), 0);
            }
            break;
        case REPORT_GEMM:
            if (str_is(s->u.gemm.tool, "gpu_burn"))
                check_gpu_burn(c, &s->u.gemm, si);
            break;
        default:
            break;
        }
    }
}

void report_check(const struct expectation *exp, size_t n, const struct report *rep,
                  struct report_verdict *out)
{
    memset(out, 0, sizeof(*out));
    struct ctx c = {rep, exp, exp ? n : 0, out};
    for (size_t i = 0; i < c.nexp; i++) {
        const struct expectation *e = &exp[i];
        const char *id = e->id;
        if (strcmp(id, EXP_TOPO_GPU_COUNT) == 0)
            check_min_count(&c, e, REPORT_TOPO, topo_gpus, "GPUs in nvidia-smi topo -m", "R15",
                            "GPUs are missing from the node: check nvidia-smi, the driver and "
                            "the PCIe bus (lspci).");
        else if (strcmp(id, EXP_TOPO_GPU_LINK) == 0)
            check_topo_link(&c, e);
        else if (strcmp(id, EXP_TOPO_NVLINK_MIN) == 0)
            check_nvlink_min(&c, e);
        else if (strcmp(id, EXP_TOPO_NIC_COUNT) == 0)
            check_min_count(&c, e, REPORT_TOPO, topo_nics, "NICs in nvidia-smi topo -m", "R17",
                            "RDMA NICs are missing: the planned fabric bandwidth per GPU needs "
                            "them (R16, R17).");
        else if (strcmp(id, EXP_GPU_COUNT) == 0)
            check_min_count(&c, e, REPORT_GPU, gpu_count, "GPUs in nvidia-smi", "R5",
                            "GPUs are missing: check nvidia-smi, the driver and lspci.");
        else if (strcmp(id, EXP_GPU_MODEL) == 0)
            check_gpu_model(&c, e);
        else if (strcmp(id, EXP_GPU_PCIE_GEN) == 0)
            gpu_pass_unshown(&c, check_min_count(&c, e, REPORT_GPU, gpu_gen,
                             "PCIe generation (max)", "R9,T6",
                             "The GPU links below the planned PCIe generation: check BIOS "
                             "slot settings and risers (R9, T4)."), GF_GEN);
        else if (strcmp(id, EXP_GPU_PCIE_WIDTH) == 0)
            check_pcie_width(&c, e);
        else if (strcmp(id, EXP_GPU_ECC_UNCORR) == 0)
            gpu_pass_unshown(&c, check_max_total(&c, e, REPORT_GPU, gpu_ecc,
                             "uncorrectable ECC errors", "T7",
                             "Drain the GPU, reset it, rerun dcgmi diag -r 3; repeated errors "
                             "need an RMA (T7)."), GF_ECC);
        else if (strcmp(id, EXP_GPU_REMAP_PENDING) == 0)
            gpu_pass_unshown(&c, check_max_total(&c, e, REPORT_GPU, gpu_remap,
                             "GPUs with a row remap pending", "T7",
                             "Reset the GPU to apply the remap, then recheck (T7)."), GF_REMAP);
        else if (strcmp(id, EXP_NCCL_INTRA_BUSBW) == 0)
            check_busbw(&c, e, 0);
        else if (strcmp(id, EXP_NCCL_INTER_BUSBW) == 0)
            check_busbw(&c, e, 1);
        else if (strcmp(id, EXP_NCCL_WRONG) == 0)
            check_max_total(&c, e, REPORT_NCCL, nccl_wrong, "nccl-tests wrong results", "T8",
                            "Wrong results mean corruption on a GPU, NVLink or NIC path: bisect "
                            "with subsets of GPUs/nodes and run dcgmi diag -r 3 (T8).");
        else if (strcmp(id, EXP_NCCL_WARNINGS) == 0)
            warn_text(&c, check_max_total(&c, e, REPORT_NCCL, nccl_warns, "NCCL WARN lines", "T8",
                            "Read the WARN text: NET/IB completion errors point at the link or "
                            "QP (R18, R22); 'could not find a path' at the topology (R13)."));
        else if (strcmp(id, EXP_IB_PORTS_ACTIVE) == 0)
            check_ib_active(&c, e);
        else if (strcmp(id, EXP_IB_RATE) == 0)
            check_ib_rate(&c, e);
        else if (strcmp(id, EXP_IB_LINK_LAYER) == 0)
            check_link_layer(&c, e);
        else if (strcmp(id, EXP_IB_WRITE_BW) == 0)
            check_write_bw(&c, e);
        else if (strcmp(id, EXP_NVBW_H2D) == 0)
            check_nvbw(&c, e, 0);
        else if (strcmp(id, EXP_NVBW_D2D) == 0)
            check_nvbw(&c, e, 1);
        else if (strcmp(id, EXP_STORAGE_READ) == 0)
            check_fio(&c, e, 0);
        else if (strcmp(id, EXP_STORAGE_WRITE) == 0)
            check_fio(&c, e, 1);
        else if (strcmp(id, EXP_CPU_GOVERNOR) == 0)
            check_governor(&c, e);
        else if (strcmp(id, EXP_CPU_THREADS) == 0)
            check_min_count(&c, e, REPORT_CPU, cpu_threads, "CPU threads (lscpu)", "R8,R26",
                            "Too few CPU threads for data loading and the communication stack "
                            "(R8, R26, R36).");
        else if (strcmp(id, EXP_DCGM_FAIL) == 0)
            check_dcgm(&c, e);
        else if (strcmp(id, EXP_NIC_ERRORS) == 0)
            check_max_total(&c, e, REPORT_NIC, nic_errors, "NIC error counters", "R39",
                            "Check optics, cables and switch CRC/FCS counters bottom-up (R39).");
        else if (strcmp(id, EXP_GEMM_TFLOPS) == 0)
            check_gemm(&c, e);
        else if (strcmp(id, EXP_NIC_PAUSE) == 0)
            check_max_total(&c, e, REPORT_NIC, nic_pause, "NIC pause frames", "R23,R39",
                            "Check PFC priorities and ECN thresholds on switch and NIC (R23).");
        else {
            struct report_finding *f = finding(&c, id, SEV_UNKNOWN, why(e, ""), -1,
                                               "this gpuplan has no check for this expectation");
            (void)f;
        }
    }
    plan_free(&c);
    if (!has_exp(&c, EXP_GPU_MODEL))
        check_gpu_mixed(&c);

    int any_fail = 0, any_warn = 0, any_unknown = 0;
    for (size_t i = 0; i < out->count; i++) {
        enum report_severity s = out->findings[i].severity;
        any_fail |= s == SEV_FAIL;
        any_warn |= s == SEV_WARN;
        any_unknown |= s == SEV_UNKNOWN || s == SEV_SKIP;
    }
    out->verdict = any_fail ? SEV_FAIL : any_warn ? SEV_WARN :
                   (any_unknown || out->count == 0) ? SEV_UNKNOWN : SEV_PASS;
}

void report_measured_extract(const struct report *rep, struct report_measured *out)
{
    out->intra_busbw_gbs = out->inter_busbw_gbs = out->matmul_tflops = NAN;
    for (size_t i = 0; i < rep->section_count; i++) {
        const struct report_section *s = &rep->sections[i];
        if (s->kind == REPORT_GEMM) {
            /* Only dcgmproftester's 16-bit tensor load is a GEMM rate at a
             * training precision; gpu_burn's FP32/FP64 rate is not. A MIG
             * slice holds part of a GPU, so its rate is not a GPU's. The
             * slowest GPU sets the pace of a synchronous job. */
            const struct report_gemm *g = &s->u.gemm;
            if (!is_tensor16(g) || g->mig)
                continue;
            for (int r = 0; r < g->row_count; r++) {
                double v = g->rows[r].tflops_median;
                if (v > 0 && (isnan(out->matmul_tflops) || v < out->matmul_tflops))
                    out->matmul_tflops = v;
            }
            continue;
        }
        if (s->kind != REPORT_NCCL)
            continue;
        const struct report_nccl *n = &s->u.nccl;
        int assumed;
        if (!is_allreduce(n, &assumed) || assumed || isnan(n->busbw_largest_gbs) ||
            n->largest_size_b < NCCL_LARGE_B || n->nodes < 1)
            continue;
        /* The worst node is what a synchronous job runs at. */
        double *dst = n->nodes >= 2 ? &out->inter_busbw_gbs : &out->intra_busbw_gbs;
        if (isnan(*dst) || n->busbw_largest_gbs < *dst)
            *dst = n->busbw_largest_gbs;
    }
}
