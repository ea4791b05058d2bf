/* report_gemm.c: GEMM load generators seen in preflight logs: NVIDIA's
 * dcgmproftester (one line per second per worker, "TensorEngineActive:
 * generated ???, dcgm 0.000 (250362.2 gflops)") and wilicc/gpu-burn (one
 * progress line per interval with every GPU's rate, error count and
 * temperature, then "Tested N GPUs:" and one OK/FAULTY line per GPU).
 *
 * The two tools measure different things and the facts say which: the
 * dcgmproftester field name is kept as printed (only TensorEngineActive is
 * a 16-bit tensor-core GEMM), gpu_burn's FLOATS/DOUBLES as printed. Rates
 * are kept per row as a ring of the latest steady samples, so a long run's
 * median is over its end (the part that ran hot), and memory stays fixed.
 * Steady means: for dcgmproftester every sample after a worker's first,
 * which covers the ramp-up second; for gpu_burn every sample once the GPU
 * has finished an iteration (before that it prints "0 (0 Gflop/s)").
 * gpu_burn first runs `nvidia-smi -L`; those "GPU n: NAME (UUID: ...)"
 * lines open a section that is only held (sec->held) until gpu_burn's own
 * lines follow, so a bare `nvidia-smi -L` listing is not taken for a run. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

int gemm_detect(const struct line *l)
{
    /* Most lines asked are no tool's: the markers that open a line are
     * told apart by their first byte, and the rest all hold "flop",
     * "burn" or "dcgmproftester", which the pair set rules out in a few
     * bit tests. */
    const char *s = l->s;
    size_t n = l->len;
    switch (n ? s[0] : '\0') {
    case 'I':
        if (span_starts(s, n, "Initialized device ") &&
            (line_find(l, "using FLOATS") || line_find(l, "using DOUBLES")))
            return DETECT_STRONG;
        break;
    case 'B':
        if (span_starts(s, n, "Burning for "))
            return DETECT_STRONG;
        break;
    case 'G':
        /* `nvidia-smi -L`, which gpu_burn runs before its test: a weak
         * start that gemm_line holds until gpu_burn's own lines follow */
        if (span_starts(s, n, "GPU ") && n > 4 && s[4] >= '0' && s[4] <= '9' &&
            line_find(l, " (UUID: GPU-"))
            return DETECT_WEAK;
        break;
    case 'C':
        if (span_starts(s, n, "Couldn't init a GPU test"))
            return DETECT_STRONG;
        break;
    case 'R':
        if (span_starts(s, n, "Run length not specified"))
            return DETECT_STRONG;
        break;
    case 'T':
        if (span_starts(s, n, "Tested ") && line_find(l, " GPUs:"))
            return DETECT_STRONG;
        break;
    case 'S':
        if (span_starts(s, n, "Skipping ") && line_find_a(l, "since DCGM validation is disabled", 6))
            return DETECT_STRONG;
        break;
    default:
        break;
    }
    if (line_find_raw_a(l, "flop", 0)) {
        if (line_find_raw_a(l, "gflops)", 6) && line_find_raw(l, ": generated"))
            return DETECT_STRONG;
        if (line_find_raw_a(l, "Gflop/s)", 5) && line_find_raw(l, "proc'd:"))
            return DETECT_STRONG;
    }
    if (line_find_raw_a(l, "burn", 0) &&
        (line_find_raw_a(l, "gpu_burn", 3) || line_find_raw_a(l, "gpu-burn", 3)))
        return DETECT_STRONG;
    if (line_find_raw_a(l, "dcgmproftester", 0))
        return DETECT_STRONG;
    return 0;
}

void gemm_init(struct report_section *sec)
{
    struct report_gemm *g = &sec->u.gemm;
    /* rows and names are read only up to row_count / where named says
     * (row_new clears each row): clearing their 8 kB for every section
     * cost more than the rest of a short section's parse */
    memset(g, 0, offsetof(struct report_gemm, rows));
    g->listed = 0;
    g->named = 0;
    g->test_id = -1;
    g->gpus_ok = g->gpus_faulty = -1;
    g->tested = -1;
    g->tflops_median = g->tflops_min = g->tflops_max = NAN;
}

static void set_tool(struct report_section *sec, const char *tool)
{
    struct report_gemm *g = &sec->u.gemm;
    sec->held = 0;
    if (!g->tool[0]) {
        text_set(g->tool, sizeof(g->tool), tool);
        text_set(sec->tool, sizeof(sec->tool), tool);
    }
}

static struct report_gemm_row *row_new(struct report_gemm *g)
{
    if (g->row_count >= GEMM_ROWS_MAX) {
        g->rows_dropped++;
        return NULL;
    }
    struct report_gemm_row *r = &g->rows[g->row_count++];
    /* all but the ring of samples, which is read only below samples
     * (gemm_finish): 384 of its bytes cleared per GPU per run for nothing */
    memset(r, 0, offsetof(struct report_gemm_row, keep));
    r->gpu = -1;
    r->tflops_last = r->tflops_median = r->errors = r->temp_c = NAN;
    return r;
}

static inline struct report_gemm_row *row_gpu(struct report_gemm *g, int gpu)
{
    /* gpu_burn's columns make rows 0, 1, 2, ... in order, so GPU n's row
     * is most often row n: looked at first, it spares a walk per GPU per
     * line. A GPU (n >= 0) has at most one row (only this function makes
     * them; worker rows have gpu -1), so it is the walk's answer too. */
    if (gpu >= 0 && gpu < g->row_count && g->rows[gpu].gpu == gpu)
        return &g->rows[gpu];
    for (int i = 0; i < g->row_count; i++)
        if (g->rows[i].gpu == gpu)
            return &g->rows[i];
    struct report_gemm_row *r = row_new(g);
    if (r)
        r->gpu = gpu;
    return r;
}

static struct report_gemm_row *row_worker(struct report_gemm *g, const char *s, size_t len)
{
    for (int i = 0; i < g->row_count; i++)
        if (span_eq_z(s, len, g->rows[i].worker))
            return &g->rows[i];
    struct report_gemm_row *r = row_new(g);
    if (r)
        span_copy(r->worker, sizeof(r->worker), s, len);
    return r;
}

static void row_sample(struct report_gemm_row *r, double tflops, int steady)
{
    r->seen++;
    r->tflops_last = tflops;
    if (tflops > 0)
        r->rated = 1;
    if (!steady)
        return;
    r->keep[r->samples % GEMM_KEEP] = tflops;
    r->samples++;
}

/* Precision of a dcgmproftester field: the tensor engine's load is an FP16
 * matrix-multiply-accumulate (the tool's -t 1004); the FPnn pipe loads say
 * their width in their names. */
static void field_precision(struct report_gemm *g)
{
    if (str_is(g->test, "TensorEngineActive"))
        text_set(g->precision, sizeof(g->precision), "fp16");
    else if (strstr(g->test, "FP64"))
        text_set(g->precision, sizeof(g->precision), "fp64");
    else if (strstr(g->test, "FP32"))
        text_set(g->precision, sizeof(g->precision), "fp32");
    else if (strstr(g->test, "FP16"))
        text_set(g->precision, sizeof(g->precision), "fp16");
}

/* "[Worker 0:0[1004]: ]TensorEngineActive: generated ???, dcgm ... (N gflops)[.]" */
static int dcgmpt_rate(struct report_section *sec, const struct line *l, const char *gf,
                       const char *gen)
{
    struct report_gemm *g = &sec->u.gemm;
    const char *s = l->s;
    if (!gen || gf <= s)
        return 0;
    /* the rate: the number between the last '(' before "gflops)" and it */
    const char *p = gf;
    while (p > s && p[-1] != '(')
        p--;
    if (p == s)
        return 0;
    const char *q = p;
    while (q < gf && *q != ' ')
        q++;
    double v;
    if (!num_parse(p, (size_t)(q - p), &v))
        return 0;
    /* the worker prefix and the test id */
    const char *name = s;
    const char *wk = NULL;
    size_t wlen = 0;
    if (span_starts(s, l->len, "Worker ")) {
        wk = s + 7;
        const char *c = wk;
        while (c < gen && *c != '[' && *c != ' ' && *c != ']')
            c++;
        wlen = (size_t)(c - wk);
        const char *br = memchr(c, '[', (size_t)(gen - c));
        if (br) {
            double id;
            const char *cl = memchr(br, ']', (size_t)(gen - br));
            if (cl && num_parse(br + 1, (size_t)(cl - br - 1), &id))
                g->test_id = (int)id;
        }
        const char *colon = span_find(c, (size_t)(gen - c), "]: ");
        if (colon)
            name = colon + 3;
    }
    if (name < gen && !g->test[0]) {
        span_copy(g->test, sizeof(g->test), name, (size_t)(gen - name));
        field_precision(g);
    }
    struct report_gemm_row *r = wk ? row_worker(g, wk, wlen) : row_worker(g, "", 0);
    if (r)
        row_sample(r, v / 1000.0, r->seen > 0);
    return 1;
}

/* gpu_burn's lists are "a - b - c": one entry per GPU in column order,
 * '-' separators, and a negative count is a number, not a separator. */
static void burn_rates(struct report_gemm *g, const char *s, size_t len)
{
    struct tok t[TOK_MAX];
    int k = tok_split(s, len, t, TOK_MAX);
    int gpu = 0;
    for (int i = 0; i + 1 < k; i++) {
        /* "proc'd N (G Gflop/s)": the iteration count, then the rate */
        if (t[i].len < 2 || t[i].s[0] != '(' || !tok_eq(&t[i + 1], "Gflop/s)"))
            continue;
        double rate, done = NAN;
        if (!num_parse(t[i].s + 1, t[i].len - 1, &rate))
            continue;
        if (i > 0)
            num_parse(t[i - 1].s, t[i - 1].len, &done);
        struct report_gemm_row *r = row_gpu(g, gpu);
        if (r) {
            /* gpu_burn prints 0 Gflop/s until a GPU has finished an
             * iteration (and -1 iterations once its process died) */
            int steady = rate > 0 && !(done <= 0);
            row_sample(r, rate / 1000.0, steady);
        }
        gpu++;
    }
}

static void burn_errors(struct report_gemm *g, const char *s, size_t len)
{
    struct tok t[TOK_MAX];
    int k = tok_split(s, len, t, TOK_MAX);
    int gpu = -1;
    for (int i = 0; i < k; i++) {
        double v;
        if (tok_eq(&t[i], "-"))
            continue;
        if (t[i].s[0] == '(') {
            /* "(WARNING!)-" / "(DIED!)-": a marker on the GPU just read */
            if (gpu >= 0 && span_starts(t[i].s, t[i].len, "(DIED!)")) {
                struct report_gemm_row *r = row_gpu(g, gpu);
                if (r)
                    r->died = 1;
                g->died = 1;
            }
            continue;
        }
        if (!num_parse(t[i].s, t[i].len, &v))
            break;
        gpu++;
        struct report_gemm_row *r = row_gpu(g, gpu);
        if (r)
            r->errors = v;
    }
}

static void burn_temps(struct report_gemm *g, const char *s, size_t len)
{
    struct tok t[TOK_MAX];
    int k = tok_split(s, len, t, TOK_MAX);
    int gpu = -1;
    for (int i = 0; i < k; i++) {
        double v;
        if (tok_eq(&t[i], "-") || tok_eq(&t[i], "C"))
            continue;
        /* a number must be followed by its "C": a cut line ends "64" */
        if (!num_parse(t[i].s, t[i].len, &v) || i + 1 >= k || !tok_eq(&t[i + 1], "C"))
            break;
        gpu++;
        struct report_gemm_row *r = row_gpu(g, gpu);
        if (r)
            r->temp_c = v;
    }
}

/* "50.0%  proc'd: 636 (2085 Gflop/s) - ...   errors: 0 - ...   temps: 64 C - ..." */
static void burn_progress(struct report_section *sec, const struct line *l, const char *pd)
{
    struct report_gemm *g = &sec->u.gemm;
    const char *e = l->s + l->len;
    const char *from = pd + 7;
    const char *err = span_find(from, (size_t)(e - from), "errors:");
    const char *tmp = span_find(from, (size_t)(e - from), "temps:");
    burn_rates(g, from, (size_t)((err ? err : tmp ? tmp : e) - from));
    if (err)
        burn_errors(g, err + 7, (size_t)((tmp && tmp > err ? tmp : e) - (err + 7)));
    if (tmp)
        burn_temps(g, tmp + 6, (size_t)(e - (tmp + 6)));
}

/* The command line's "-t 1004" (or "--fieldId 1004"): the load asked for,
 * for logs whose rate lines carry no "[1004]". A list ("-t 1004,1005")
 * names several loads, so it gives no single id. */
static void command_test_id(struct report_gemm *g, const char *s, size_t n)
{
    /* both options open with '-': lines without one (dcgmproftester's
     * "Skipping ... since DCGM validation" lines, asked until an id is
     * known) are not split into tokens at all */
    if (!memchr(s, '-', n))
        return;
    struct tok t[TOK_MAX];
    int k = tok_split(s, n, t, TOK_MAX);
    for (int i = 0; i + 1 < k; i++) {
        double v;
        if ((tok_eq(&t[i], "-t") || tok_eq(&t[i], "--fieldId")) &&
            num_parse(t[i + 1].s, t[i + 1].len, &v) && v >= 0 && v < 100000 && v == floor(v)) {
            g->test_id = (int)v;
            return;
        }
    }
}

/* "GPU 0: Tesla K80 (UUID: GPU-b578...)": gpu_burn runs `nvidia-smi -L`
 * before its test; the model names wait in g->names until gemm_finish
 * knows the list matches the tested columns. */
static void burn_gpu_name(struct report_gemm *g, double n, const char *st, size_t sl)
{
    const char *u = span_find(st, sl, " (UUID:");
    if (!u || !(n >= 0 && n < GEMM_ROWS_MAX))
        return;
    int gpu = (int)n;
    size_t nl = (size_t)(u - st);
    span_trim(&st, &nl);
    if (nl == 0 || nl >= sizeof(g->names[0]))
        return;
    if (!(g->named & 1u << gpu))
        g->listed++;
    g->named |= 1u << gpu;
    span_copy(g->names[gpu], sizeof(g->names[0]), st, nl);
}

/* The markers gemm_line looks for in a line's text past dcgmproftester's
 * rate lines: searched once a text and noted (line_note_put), as each run
 * prints the same banner and device lines again; the searches are made
 * directly, anchored on bytes rare in these tools' lines ('v' and 'f';
 * "burn" before either spelling of gpu_burn), which on short lines costs
 * less than building the pair set. */
enum {
    GM_PROGRESS = 1,           /* "proc'd:" and "Gflop/s" in l->s */
    GM_PT = 2,                 /* "since DCGM validation is disabled" or
                                  "dcgmproftester" in l->raw */
    GM_BURN = 4,               /* "burn" and "gpu_burn" or "gpu-burn" in l->raw */
};

static unsigned gemm_marks(const struct line *l)
{
    unsigned m;
    if (line_note_get(l, REPORT_GEMM, &m))
        return m;
    const char *s = l->s, *raw = l->raw;
    size_t n = l->len, rl = l->raw_len;
    m = 0;
    if (span_find_at(s, n, LIT_N("proc'd:"), 4) && span_find(s, n, "Gflop/s"))
        m |= GM_PROGRESS;
    if (span_find_at(raw, rl, LIT_N("since DCGM validation is disabled"), 11) ||
        span_find_at(raw, rl, LIT_N("dcgmproftester"), 7))
        m |= GM_PT;
    if (span_find_at(raw, rl, LIT_N("burn"), 0) &&
        (span_find_at(raw, rl, LIT_N("gpu_burn"), 3) ||
         span_find_at(raw, rl, LIT_N("gpu-burn"), 3)))
        m |= GM_BURN;
    line_note_put(l, REPORT_GEMM, m);
    return m;
}

static enum take burn_or_pt_line(struct report_section *sec, const struct line *l)
{
    struct report_gemm *g = &sec->u.gemm;
    const char *s = l->s;
    size_t n = l->len;
    const char *p;
    if (l->raw_len == 0)
        return TAKE_YES;
    /* dcgmproftester's rate lines, most of its output, are told by two
     * searches that both succeed: made directly (the answers line_find_raw
     * would give), they cost less than the line's pair set. */
    const char *gen;
    if ((p = span_find_at(l->raw, l->raw_len, LIT_N("gflops)"), 6)) != NULL &&
        (gen = span_find(l->raw, l->raw_len, ": generated")) != NULL) {
        if (g->tool[0] && !str_is(g->tool, "dcgmproftester"))
            return TAKE_END;
        set_tool(sec, "dcgmproftester");
        /* l->s is the tail of l->raw: a first match in raw that lies in
         * l->s is the first in l->s too, so only a match in the part cut
         * off ('#' and blanks, never these markers) is searched again */
        if (p < s)
            p = span_find(s, n, "gflops)");
        if (gen < s)
            gen = span_find(s, n, ": generated");
        if (p)
            dcgmpt_rate(sec, l, p, gen);
        return TAKE_YES;
    }
    /* Every other line: the markers its text holds (gemm_marks), then
     * where they are when one is there. gpu_burn's progress lines (long:
     * a column per GPU) first. */
    unsigned marks = gemm_marks(l);
    if ((marks & GM_PROGRESS) && (p = span_find_at(s, n, LIT_N("proc'd:"), 4)) != NULL) {
        if (g->tool[0] && !str_is(g->tool, "gpu_burn"))
            return TAKE_END;
        set_tool(sec, "gpu_burn");
        burn_progress(sec, l, p);
        return TAKE_YES;
    }
    /* The searches further down come only after a line's opening words
     * matched. */
    if (marks & GM_PT) {
        if (g->tool[0] && !str_is(g->tool, "dcgmproftester"))
            return TAKE_END;
        /* a new run after this one's rates: its own section */
        if (g->row_count > 0 && span_starts(s, n, "Skipping CreateDcgmGroups"))
            return TAKE_END;
        set_tool(sec, "dcgmproftester");
        if (g->test_id < 0)
            command_test_id(g, s, n);
        return TAKE_YES;
    }
    if (str_is(g->tool, "dcgmproftester") || (!g->tool[0] && !sec->held)) {
        if (span_starts(s, n, "CU_DEVICE_ATTRIBUTE_") || span_starts(s, n, "Max Memory bandwidth:") ||
            span_starts(s, n, "CudaInit completed") || span_starts(s, n, "DCGM CudaContext Init") ||
            (span_starts(s, n, "Worker ") && line_find(l, "]: Message:")))
            return TAKE_YES;
        if (span_starts(s, n, "CUDA_VISIBLE_DEVICES:")) {
            if (line_find(l, "MIG-"))
                g->mig = 1;
            return TAKE_YES;
        }
    }
    if (marks & GM_BURN) {
        if (g->tool[0] && !str_is(g->tool, "gpu_burn"))
            return TAKE_END;
        if (g->row_count > 0)
            return TAKE_END;   /* a second run's command line */
        set_tool(sec, "gpu_burn");
        return TAKE_YES;
    }
    if (str_is(g->tool, "gpu_burn") || !g->tool[0]) {
        if (span_starts(s, n, "Initialized device ")) {
            set_tool(sec, "gpu_burn");
            /* -tc: cublasSetMathMode(CUBLAS_TENSOR_OP_MATH) on the same
             * SGEMM/DGEMM; the tool does not say which tensor math the
             * library then picks, so the precision stays the inputs' */
            if (line_find(l, "using Tensor Cores"))
                g->tensor_cores = 1;
            if (line_find(l, "using FLOATS"))
                text_set(g->test, sizeof(g->test), "FLOATS"), text_set(g->precision, sizeof(g->precision), "fp32");
            else if (line_find(l, "using DOUBLES"))
                text_set(g->test, sizeof(g->test), "DOUBLES"), text_set(g->precision, sizeof(g->precision), "fp64");
            return TAKE_YES;
        }
        if (span_starts(s, n, "Couldn't init a GPU test")) {
            set_tool(sec, "gpu_burn");
            g->init_failed = 1;
            return TAKE_YES;
        }
        if (span_starts(s, n, "No clients are alive")) {
            g->died = 1;
            return TAKE_YES;
        }
        if (span_starts(s, n, "Tested ") && line_find(l, " GPUs:")) {
            double v;
            size_t end;
            set_tool(sec, "gpu_burn");
            if (num_scan(s + 7, n - 7, &v, &end))
                g->tested = (int)v;
            return TAKE_YES;
        }
        if (span_starts(s, n, "Burning for ") || span_starts(s, n, "Run length not specified") ||
            span_starts(s, n, "Using compare file")) {
            set_tool(sec, "gpu_burn");
            return TAKE_YES;
        }
        if (span_starts(s, n, "Results are ") || span_starts(s, n, "Summary at:") ||
            span_starts(s, n, "Killing processes") || span_starts(s, n, "Freed memory for dev") ||
            span_starts(s, n, "Uninitted cublas") || span_eq(s, n, "done") ||
            span_starts(s, n, "read["))
            return g->tool[0] ? TAKE_YES : TAKE_NO;
        if (span_starts(s, n, "GPU ") && (g->tool[0] || line_find(l, " (UUID: GPU-"))) {
            /* "GPU 0: OK" / "GPU 0: FAULTY" after "Tested", or the
             * "GPU 0: Tesla K80 (UUID: ...)" list before the run */
            double v;
            size_t end;
            const char *c = memchr(s, ':', n);
            if (!c || !num_scan(s + 4, (size_t)(c - s - 4), &v, &end))
                return TAKE_NO;
            const char *st = c + 1;
            size_t sl = (size_t)(s + n - st);
            span_trim(&st, &sl);
            int ok = span_eq(st, sl, "OK"), bad = span_eq(st, sl, "FAULTY");
            if (ok || bad) {
                struct report_gemm_row *r = row_gpu(g, (int)v);
                if (r)
                    text_set(r->status, sizeof(r->status), ok ? "OK" : "FAULTY");
                if (ok)
                    g->gpus_ok = (g->gpus_ok < 0 ? 0 : g->gpus_ok) + 1;
                else
                    g->gpus_faulty = (g->gpus_faulty < 0 ? 0 : g->gpus_faulty) + 1;
                return TAKE_YES;
            }
            if (!line_find(l, "(UUID:"))
                return TAKE_NO;
            /* before any gpu_burn line the list is only held (sec->held):
             * bare `nvidia-smi -L` output is no gemm run */
            if (!g->tool[0])
                sec->held++;
            burn_gpu_name(g, v, st, sl);
            return TAKE_YES;
        }
    }
    return TAKE_NO;
}

enum take gemm_line(struct report_section *sec, const struct line *l)
{
    /* a held `nvidia-smi -L` list followed by anything but gpu_burn's own
     * lines is not gpu_burn's: the section ends (and is dropped) */
    if (sec->held && l->raw_len > 0 &&
        (line_find_raw_a(l, "dcgmproftester", 0) || line_find_raw(l, ": generated") ||
         line_find_raw(l, "since DCGM validation")))
        return TAKE_END;
    enum take t = burn_or_pt_line(sec, l);
    return t == TAKE_NO && sec->held ? TAKE_END : t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* v ascending, as qsort with cmp_double sorts it. A section's rows hold a
 * few samples each, and glibc's qsort (a merge sort through a scratch
 * buffer) cost more than the rest of gemm_finish: a short list is sorted
 * in place by insertion. Both sorts are stable, and two stable sorts by the
 * same order give the same array (-0.0 and 0.0 keep their places); a NaN
 * makes cmp_double no order at all, so a list holding one, like a long
 * list, still goes to qsort. */
static void sort_doubles(double *v, int n)
{
    int small = n <= 32;
    for (int i = 0; small && i < n; i++)
        if (isnan(v[i]))
            small = 0;
    if (!small) {
        qsort(v, (size_t)n, sizeof(*v), cmp_double);
        return;
    }
    for (int i = 1; i < n; i++) {
        double x = v[i];
        int j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    sort_doubles(v, n);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void gemm_finish(struct report_section *sec)
{
    struct report_gemm *g = &sec->u.gemm;
    double all[GEMM_ROWS_MAX * GEMM_KEEP];
    int na = 0;
    g->samples = 0;
    for (int i = 0; i < g->row_count; i++) {
        struct report_gemm_row *r = &g->rows[i];
        int kept = r->samples < GEMM_KEEP ? r->samples : GEMM_KEEP;
        double v[GEMM_KEEP];
        memcpy(v, r->keep, (size_t)kept * sizeof(*v));
        memcpy(all + na, v, (size_t)kept * sizeof(*v));
        na += kept;
        r->tflops_median = median(v, kept);
        g->samples += r->samples;
        /* gpu_burn says OK for a GPU whose test never ran (its init
         * failed): no rate at all is not a pass */
        if (str_is(r->status, "OK") && !r->rated)
            g->init_failed = 1;
        /* the names list every GPU the machine has; the columns are the
         * GPUs tested (one, column 0, under -i N): names only when the
         * two counts agree */
        if (g->listed == g->row_count && r->gpu >= 0 && r->gpu < GEMM_ROWS_MAX &&
            (g->named & 1u << r->gpu))
            text_set(r->name, sizeof(r->name), g->names[r->gpu]);
    }
    if (na > 0) {
        g->tflops_median = median(all, na);
        g->tflops_min = all[0];
        g->tflops_max = all[na - 1];
    }
    if (g->rows_dropped)
        section_issue(sec, "more GPUs or workers than can be listed");
    if (str_is(g->tool, "gpu_burn") && g->tested < 0)
        section_issue(sec, "no \"Tested N GPUs\" summary (output cut, or the run hung)");
    if (g->row_count == 0)
        section_issue(sec, "no rate lines: the load did not run or the output was cut before it");
}
