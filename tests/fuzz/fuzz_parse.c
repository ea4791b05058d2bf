/* fuzz_parse.c: libFuzzer target over the whole report path: report_parse()
 * on arbitrary bytes, then report_check() against a plan that holds every
 * expectation id (so every checker branch reads the parsed sections), the
 * measured-value extraction, and report_append(). The input is copied into a
 * buffer of exactly its size, without a NUL, so AddressSanitizer catches any
 * read past the end. Differential too: each input is also parsed cut into
 * small chunks on 2..4 threads (report_parse_opts, a layout chosen by the
 * input's first bytes; for a quarter of them under a cap of a few sections),
 * and the run aborts when that report differs from the one-thread parse in
 * any counter, section header or JSON fact. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_int.h"
#include "report_same.h"

static const struct {
    const char *id;
    double min, max;
    const char *value;
} plan[] = {
    {EXP_TOPO_GPU_COUNT, 8, NAN, ""}, {EXP_TOPO_GPU_LINK, NAN, NAN, "NV"},
    {EXP_TOPO_NVLINK_MIN, 18, NAN, ""}, {EXP_TOPO_NIC_COUNT, 8, NAN, ""},
    {EXP_GPU_COUNT, 8, NAN, ""}, {EXP_GPU_PCIE_GEN, 5, NAN, ""}, {EXP_GPU_PCIE_WIDTH, 16, NAN, ""},
    {EXP_GPU_ECC_UNCORR, NAN, 0, ""}, {EXP_GPU_REMAP_PENDING, NAN, 0, ""},
    {EXP_NCCL_INTRA_BUSBW, 460, NAN, ""}, {EXP_NCCL_INTER_BUSBW, 370, NAN, ""},
    {EXP_NCCL_WRONG, NAN, 0, ""}, {EXP_NCCL_WARNINGS, NAN, 0, ""},
    {EXP_IB_PORTS_ACTIVE, 8, NAN, ""}, {EXP_IB_RATE, 400, NAN, ""},
    {EXP_IB_LINK_LAYER, NAN, NAN, "InfiniBand"}, {EXP_IB_WRITE_BW, 375, NAN, ""},
    {EXP_NVBW_H2D, 48, NAN, ""}, {EXP_NVBW_D2D, 335, NAN, ""},
    {EXP_STORAGE_READ, 2000, NAN, ""}, {EXP_STORAGE_WRITE, 3000, NAN, ""},
    {EXP_CPU_GOVERNOR, NAN, NAN, "performance"}, {EXP_CPU_THREADS, 96, NAN, ""},
    {EXP_DCGM_FAIL, NAN, 0, ""}, {EXP_NIC_ERRORS, NAN, 0, ""}, {EXP_NIC_PAUSE, NAN, 1000, ""},
    {"no.such.check", 1, NAN, ""},
};
#define NPLAN (sizeof(plan) / sizeof(plan[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct expectation exps[NPLAN];
    static struct report_verdict verdict;
    static int ready;
    if (!ready) {
        for (size_t i = 0; i < NPLAN; i++) {
            snprintf(exps[i].id, sizeof(exps[i].id), "%s", plan[i].id);
            exps[i].min = plan[i].min;
            exps[i].max = plan[i].max;
            snprintf(exps[i].value, sizeof(exps[i].value), "%s", plan[i].value);
        }
        ready = 1;
    }
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    struct report *rep = NULL;
    if (report_parse(text, size, &rep) == ST_OK) {
        struct report_measured m;
        report_check(exps, NPLAN, rep, &verdict);
        report_check(NULL, 0, rep, &verdict);
        report_measured_extract(rep, &m);
        struct report *twice = NULL;
        if (report_parse(text, size, &twice) == ST_OK) {
            if (report_append(twice, rep) == ST_OK && twice->section_count < rep->section_count)
                abort();    /* appending never loses sections under the cap */
            report_free(twice);
        }
        /* 2..4 chunks of at least 1..64 bytes: boundaries land on many
         * different lines of the small inputs libFuzzer makes (more chunks
         * an input cost more in thread starts than they found) */
        struct report_parse_opts o = {
            .threads = 2 + (size > 0 ? data[0] % 3 : 0),
            .min_chunk = 1 + (size > 1 ? data[1] % 64 : 0),
        };
        /* a quarter of the inputs under a cap of 1..4 sections, where
         * chunk parsers pass the cap long before the whole input does */
        size_t cap = size > 2 && (data[2] & 3) == 0 ? 1 + (size_t)(data[2] >> 2) % 4
                                                    : REPORT_SECTIONS_MAX;
        struct report *chunked = NULL, *one = NULL;
        const struct report_parse_opts o1 = {.threads = 1};
        if (cap != REPORT_SECTIONS_MAX && report_parse_capped(text, size, &o1, cap, &one) != ST_OK)
            one = NULL;
        const struct report *base = cap == REPORT_SECTIONS_MAX ? rep : one;
        if (base && report_parse_capped(text, size, &o, cap, &chunked) == ST_OK) {
            char why[512];
            if (!report_same(base, chunked, why, sizeof(why))) {
                fprintf(stderr,
                        "fuzz_parse: chunked parse (threads %u, min_chunk %zu, cap %zu) differs: %s\n",
                        o.threads, o.min_chunk, cap, why);
                abort();
            }
            report_free(chunked);
        }
        report_free(one);
        report_free(rep);
    }
    free(text);
    return 0;
}
