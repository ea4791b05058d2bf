/* report_same.h: whether two parses of one input are the same report (the
 * differential tests of the chunked parse, tests/unit/test_report_chunks.c
 * and tests/fuzz/fuzz_parse.c). */
#ifndef GPUPLAN_REPORT_SAME_H
#define GPUPLAN_REPORT_SAME_H

#include <stddef.h>

struct report;

/* 1 when a and b hold the same counters and sections; else 0 with the
 * first difference written to why. */
int report_same(const struct report *a, const struct report *b, char *why, size_t whylen);

#endif
