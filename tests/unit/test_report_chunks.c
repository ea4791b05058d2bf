/* test_report_chunks.c: the chunked, multi-threaded report parse
 * (report_parse_opts) against the one-thread parse of the same input,
 * compared field by field and through the JSON rendering (report_same.c).
 * Inputs: every fixture under tests/data/reports in several random orders
 * with the bench's NCCL INFO noise between lines, random cuts of them, more
 * sections than REPORT_SECTIONS_MAX, CRLF line ends, one section across
 * every chunk, NUL bytes, no final newline, nothing at all; chunk layouts
 * from a few bytes to a third of the input, and on small inputs a chunk
 * boundary at every line. The random choices come from a fixed seed, so a
 * failure names an input that can be made again. */
#define _GNU_SOURCE   /* sched_setaffinity, CPU_SET */
#include <check.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "report_int.h"
#include "report_same.h"

struct buf {
    char *p;
    size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = realloc(b->p, cap);
        ck_assert_ptr_nonnull(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void buf_adds(struct buf *b, const char *z)
{
    buf_add(b, z, strlen(z));
}

/* The fixture inputs, each its own text. */
static struct buf fixtures[256];
static size_t nfix;

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_dir(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    char *names[512];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 512)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    /* a fixed order, whatever the file system's */
    qsort(names, n, sizeof(names[0]), name_cmp);
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        struct stat st;
        int w = snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        ck_assert(w > 0 && w < (int)sizeof(path));
        size_t ln = strlen(names[i]);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth < 4) {
            load_dir(path, depth + 1);
        } else if (!strstr(names[i], ".expected.") && ln > 5 &&
                   (strcmp(names[i] + ln - 4, ".txt") == 0 || strcmp(names[i] + ln - 4, ".log") == 0 ||
                    strcmp(names[i] + ln - 5, ".json") == 0) &&
                   nfix < sizeof(fixtures) / sizeof(fixtures[0])) {
            FILE *f = fopen(path, "rb");
            ck_assert_ptr_nonnull(f);
            char chunk[65536];
            size_t r;
            while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
                buf_add(&fixtures[nfix], chunk, r);
            fclose(f);
            nfix++;
        }
        free(names[i]);
    }
}

static void load_fixtures(void)
{
    if (nfix == 0)
        load_dir(TESTDATA "/reports", 0);
    ck_assert_uint_gt(nfix, 20);
}

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
    /* xorshift64*: fixed seed per test, so failures repeat */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (unsigned)((rng_state * 2685821657736338717ull) >> 33) % (n ? n : 1);
}

static const char *const noise[] = {
    "gpu-a17:88123:88190 [3] NCCL INFO Channel 07/0 : 3[3] -> 4[4] via P2P/CUMEM/read\n",
    "gpu-a17:88123:88191 [5] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB ib0:10.0.0.17<0>\n",
    "gpu-a17:88123:88190 [0] NCCL INFO comm 0x5612 rank 0 nRanks 64 nNodes 8 localRanks 8 localRank 0 MNNVL 0\n",
};

/* Appends text with a noise line after every `every`-th line (0: none). */
static void add_noisy(struct buf *b, const char *s, size_t n, unsigned every, size_t *k)
{
    const char *end = s + n;
    unsigned line = 0;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t ln = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
        buf_add(b, s, ln);
        s += ln;
        if (every && ++line % every == 0)
            buf_adds(b, noise[(*k)++ % 3]);
    }
}

/* Every fixture once, in a random order, noise after every `every` lines. */
static void shuffled_corpus(struct buf *b, unsigned every)
{
    size_t order[256], k = 0;
    for (size_t i = 0; i < nfix; i++)
        order[i] = i;
    for (size_t i = nfix; i > 1; i--) {
        size_t j = rnd((unsigned)i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < nfix; i++) {
        add_noisy(b, fixtures[order[i]].p, fixtures[order[i]].len, every, &k);
        if (fixtures[order[i]].len && fixtures[order[i]].p[fixtures[order[i]].len - 1] != '\n')
            buf_adds(b, "\n");
    }
}

static size_t compared;
static size_t cap = REPORT_SECTIONS_MAX;   /* sections kept (report_parse_capped) */

/* The chunked parse under opts equals the one-thread parse. */
static void check_same(const char *text, size_t len, unsigned threads, size_t min_chunk,
                       const char *what)
{
    struct report *one = NULL, *many = NULL;
    struct report_parse_opts o1 = {.threads = 1}, o = {.threads = threads, .min_chunk = min_chunk};
    ck_assert_int_eq(report_parse_capped(text, len, &o1, cap, &one), ST_OK);
    ck_assert_int_eq(report_parse_capped(text, len, &o, cap, &many), ST_OK);
    char why[512];
    int same = report_same(one, many, why, sizeof(why));
    ck_assert_msg(same, "%s (%zu bytes, threads %u, min_chunk %zu, cap %zu): %s", what, len,
                  threads, min_chunk, cap, why);
    report_free(one);
    report_free(many);
    compared++;
}

/* A spread of layouts: chunks of a few bytes up to a third of the input. */
static void check_layouts(const char *text, size_t len, const char *what)
{
    static const unsigned threads[] = {2, 3, 5, 8, 16, 64, 256};
    for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
        check_same(text, len, threads[i], 1, what);
        check_same(text, len, threads[i], 1 + rnd(4096), what);
    }
    check_same(text, len, 4, len / 3 ? len / 3 : 1, what);
    check_same(text, len, 2, len / 2 ? len / 2 : 1, what);
}

START_TEST(chunked_parse_equals_one_thread_on_shuffled_fixtures_with_noise)
{
    load_fixtures();
    rng_state = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 6; round++) {
        struct buf b = {0};
        shuffled_corpus(&b, round == 0 ? 0 : 1 + (unsigned)round % 5);
        check_layouts(b.p, b.len, "shuffled fixtures");
        free(b.p);
    }
}
END_TEST

START_TEST(chunked_parse_equals_one_thread_on_random_cuts)
{
    load_fixtures();
    rng_state = 0x1234567890abcdefull;
    struct buf all = {0};
    shuffled_corpus(&all, 4);
    for (int round = 0; round < 40; round++) {
        /* a few random slices, each cut mid-line at both ends */
        struct buf b = {0};
        int pieces = 1 + (int)rnd(4);
        for (int i = 0; i < pieces; i++) {
            size_t a = rnd((unsigned)all.len), n = rnd(20000);
            if (n > all.len - a)
                n = all.len - a;
            buf_add(&b, all.p + a, n);
        }
        check_same(b.p, b.len, 2 + rnd(30), 1 + rnd(2000), "random cut");
        check_same(b.p, b.len, 256, 1, "random cut");
        free(b.p);
    }
    free(all.p);
}
END_TEST

START_TEST(chunked_parse_equals_one_thread_past_the_section_cap)
{
    load_fixtures();
    rng_state = 0x5555aaaa1234ull;
    struct buf b = {0};
    for (int i = 0; i < 4; i++)
        shuffled_corpus(&b, i % 2 ? 3 : 0);
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse_opts(b.p, b.len, &(struct report_parse_opts){.threads = 1}, &rep),
                     ST_OK);
    /* the input holds more sections than the cap keeps */
    ck_assert_uint_eq(rep->section_count, REPORT_SECTIONS_MAX);
    ck_assert_uint_gt(rep->sections_dropped, 50);
    report_free(rep);
    check_layouts(b.p, b.len, "past the cap");
    /* a boundary just before and just after the cap's last section */
    for (unsigned t = 2; t < 12; t++)
        check_same(b.p, b.len, t, 1, "past the cap");
    free(b.p);
}
END_TEST

START_TEST(chunked_parse_keeps_the_first_sections_under_a_small_cap)
{
    /* The cap at a few sections: chunk parsers count it from their own
     * first section, so the merge must keep the input's first ones, count
     * the rest as dropped, and parse on itself where a chunk parser
     * dropped a section the input keeps. */
    load_fixtures();
    rng_state = 0x77aa55ull;
    static const size_t caps[] = {0, 1, 2, 3, 5, 8, 9, 17, 40};
    for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
        struct buf b = {0};
        shuffled_corpus(&b, 1 + (unsigned)c % 4);
        cap = caps[c];
        check_layouts(b.p, b.len, "small cap");
        for (unsigned t = 2; t < 10; t++)
            check_same(b.p, b.len, t, 1, "small cap");
        cap = REPORT_SECTIONS_MAX;
        free(b.p);
    }
    struct report *rep = NULL;
    struct buf b = {0};
    shuffled_corpus(&b, 0);
    ck_assert_int_eq(report_parse_capped(b.p, b.len, &(struct report_parse_opts){.threads = 5,
                                         .min_chunk = 1}, 3, &rep), ST_OK);
    ck_assert_uint_eq(rep->section_count, 3);
    ck_assert_uint_gt(rep->sections_dropped, 40);
    report_free(rep);
    free(b.p);
}
END_TEST

START_TEST(chunked_parse_refuses_a_splice_that_needs_a_section_the_chunk_dropped)
{
    /* tests/data/report-chunks/README.md: under a cap of 2 and 3 chunks a
     * chunk parser meets the one-thread state only after its own count
     * passed the cap, so it dropped a section the input keeps */
    FILE *f = fopen(TESTDATA "/report-chunks/gpu-burn-fio-nccl-cut-mix.txt", "rb");
    ck_assert_ptr_nonnull(f);
    struct buf b = {0};
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
        buf_add(&b, chunk, r);
    fclose(f);
    for (cap = 1; cap <= 4; cap++)
        for (unsigned t = 2; t <= 8; t++)
            check_same(b.p, b.len, t, 1, "refused splice");
    cap = REPORT_SECTIONS_MAX;
    free(b.p);
}
END_TEST

START_TEST(chunked_parse_equals_one_thread_when_a_chunk_logs_past_its_event_cap)
{
    /* An nccl-tests table, then 200000 lines no kind takes: the table's
     * section stays open over them (they are counted unrecognized), while
     * a chunk parser starting among them has none open and logs one event
     * per line, past its log's cap, before the next tool's banner. */
    struct buf b = {0};
    buf_adds(&b, "# nThread 1 nGpus 8 minBytes 8 maxBytes 4294967296 step: 2(factor)\n"
                 "#       size         count      type   redop    root     time   algbw   busbw "
                 "#wrong     time   algbw   busbw #wrong\n"
                 "           8             2     float     sum      -1    10.1   0.00   0.00      0"
                 "    10.0   0.00   0.00      0\n");
    for (int i = 0; i < 200000; i++)
        buf_adds(&b, "hello\n");
    buf_adds(&b, "NVSMI LOG\n\nDriver Version : 535.54.03\nCUDA Version : 12.2\n");
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse_opts(b.p, b.len, &(struct report_parse_opts){.threads = 1}, &rep),
                     ST_OK);
    ck_assert_uint_eq(rep->section_count, 2);
    ck_assert_uint_ge(rep->unrecognized_lines, 200000);
    report_free(rep);
    for (unsigned t = 2; t < 6; t++)
        check_same(b.p, b.len, t, 1, "past the event cap");
    check_same(b.p, b.len, 64, 1, "past the event cap");
    free(b.p);
}
END_TEST

START_TEST(chunked_parse_equals_one_thread_with_crlf_nul_and_no_final_newline)
{
    load_fixtures();
    rng_state = 0xc0ffeeull;
    struct buf src = {0}, b = {0};
    shuffled_corpus(&src, 5);
    for (size_t i = 0; i < src.len; i++) {
        if (src.p[i] == '\n')
            buf_adds(&b, "\r\n");
        else
            buf_add(&b, src.p + i, 1);
    }
    check_layouts(b.p, b.len, "CRLF");
    /* NUL bytes and bare CRs inside lines */
    for (size_t i = 0; i < b.len; i += 1 + rnd(300))
        b.p[i] = rnd(2) ? '\0' : '\r';
    check_layouts(b.p, b.len, "NUL and CR");
    /* no final newline: the last line ends at the input's end */
    while (b.len && (b.p[b.len - 1] == '\n' || b.p[b.len - 1] == '\r'))
        b.len--;
    check_layouts(b.p, b.len, "no final newline");
    free(src.p);
    free(b.p);
}
END_TEST

START_TEST(chunked_parse_equals_one_thread_where_a_stamp_ends_a_chunk)
{
    /* nvidia-smi's timestamp is its table's only when the box follows it
     * (report_gpu.c's gpu_table_stamp looks at the next two lines): with
     * a boundary at every line, the stamp ends a chunk and the box opens
     * the next, and a chunk parser must look past its own chunk, as the
     * one-thread parse does, up to the input's end and no further. The
     * stamps above a box follow lines that leave no section open (a
     * blank line first, then an lscpu line, whose section the stamp
     * ends), where a chunk's parse is spliced in from its first line on.
     * Between the tables, stamps no box follows: lone, before a blank
     * line, before a border the input ends after. */
    static const char table[] =
        "Mon Nov 30 17:36:48 2026       \n"
        "+-----------------------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |\n"
        "|   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |                    0 |\n"
        "+-----------------------------------------+------------------------+----------------------+\n";
    struct buf b = {0};
    buf_adds(&b, "\n");
    for (int i = 0; i < 3; i++) {
        if (i > 0)
            buf_adds(&b, "Architecture:        x86_64\n");
        buf_adds(&b, table);
        buf_adds(&b, "Mon Nov 30 17:40:01 2026\n\n");
        buf_adds(&b, "Mon Nov 30 17:40:02 2026\n");
    }
    buf_adds(&b, "Mon Nov 30 17:40:03 2026\n"
                 "+-----------------------------------------------------------------------------------------+\n");
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse(b.p, b.len, &rep), ST_OK);
    ck_assert_uint_eq(rep->unrecognized_lines, 7);
    report_free(rep);
    for (unsigned t = 2; t <= 256; t = t < 16 ? t + 1 : t * 2)
        check_same(b.p, b.len, t, 1, "stamps");
    /* every cut of it, so that the input ends inside the box */
    for (size_t len = 1; len < b.len; len += 7)
        check_same(b.p, len, 64, 1, "stamps cut");
    free(b.p);
}
END_TEST

START_TEST(chunked_parse_equals_one_thread_on_one_section_across_every_chunk)
{
    /* an nccl-tests table of 20000 rows: one section from the first line to
     * the last, so no chunk's parse can be spliced */
    struct buf b = {0};
    buf_adds(&b, "# nThread 1 nGpus 8 minBytes 8 maxBytes 4294967296 step: 2(factor)\n"
                 "#       size         count      type   redop    root     time   algbw   busbw "
                 "#wrong     time   algbw   busbw #wrong\n");
    for (int i = 0; i < 20000; i++) {
        char row[200];
        int n = snprintf(row, sizeof(row),
                         "   %10d %12d     float     sum      -1   %6.1f  %5.2f  %5.2f      0   "
                         "%6.1f  %5.2f  %5.2f      0\n",
                         8 * (i + 1), 2 * (i + 1), 10.0 + i % 7, 1.0 + i % 13, 2.0 + i % 11,
                         11.0 + i % 5, 1.5 + i % 3, 2.5 + i % 9);
        ck_assert(n > 0 && n < (int)sizeof(row));
        buf_add(&b, row, (size_t)n);
    }
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse_opts(b.p, b.len, &(struct report_parse_opts){.threads = 1}, &rep),
                     ST_OK);
    ck_assert_uint_eq(rep->section_count, 1);
    report_free(rep);
    check_layouts(b.p, b.len, "one section");
    free(b.p);
}
END_TEST

START_TEST(chunked_parse_equals_one_thread_with_a_boundary_at_every_line)
{
    load_fixtures();
    rng_state = 0xfeedull;
    /* each fixture alone, and small mixes: with min_chunk 1 and as many
     * chunks as bytes (up to 256), every line starts a chunk; fewer chunks
     * move the boundaries across the lines */
    for (size_t f = 0; f < nfix; f++) {
        const struct buf *x = &fixtures[f];
        size_t len = x->len < 4000 ? x->len : 4000;
        for (unsigned t = 2; t <= 256; t = t < 16 ? t + 1 : t * 2)
            check_same(x->p, len, t, 1, "one fixture");
    }
    for (int round = 0; round < 20; round++) {
        struct buf b = {0};
        size_t k = 0;
        for (int i = 0; i < 3; i++) {
            const struct buf *x = &fixtures[rnd((unsigned)nfix)];
            size_t a = rnd((unsigned)x->len), n = 40 + rnd(120);
            add_noisy(&b, x->p + a, n < x->len - a ? n : x->len - a, 1 + rnd(3), &k);
        }
        size_t len = b.len < 256 ? b.len : 256;
        check_same(b.p, len, 256, 1, "small mix");
        for (unsigned t = 2; t < 40; t++)
            check_same(b.p, len, t, 1, "small mix");
        free(b.p);
    }
}
END_TEST

START_TEST(chunked_parse_of_nothing_and_of_blank_lines_is_empty)
{
    const char *cases[] = {"", "\n", "\n\n\n\n\n\n\n\n", "x", "\r\n\r\n", "a\nb\nc"};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (unsigned t = 1; t < 10; t++)
            check_same(cases[i], strlen(cases[i]), t, 1, "tiny input");
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse_opts("", 0, &(struct report_parse_opts){.threads = 8, .min_chunk = 1},
                                       &rep), ST_OK);
    ck_assert_uint_eq(rep->section_count, 0);
    ck_assert_uint_eq(rep->lines, 0);
    report_free(rep);
}
END_TEST

START_TEST(default_parse_of_a_large_log_equals_one_thread)
{
    /* report_parse's own choice (the CPUs it may use, 8 MiB chunks) on a log
     * past the threshold, built the way bench_parse builds its log */
    load_fixtures();
    rng_state = 0xabcdefull;
    struct buf b = {0};
    while (b.len < ((size_t)17 << 20))
        shuffled_corpus(&b, 4);
    struct report *one = NULL, *dflt = NULL;
    ck_assert_int_eq(report_parse_opts(b.p, b.len, &(struct report_parse_opts){.threads = 1}, &one),
                     ST_OK);
    ck_assert_int_eq(report_parse(b.p, b.len, &dflt), ST_OK);
    char why[512];
    ck_assert_msg(report_same(one, dflt, why, sizeof(why)), "default parse: %s", why);
    report_free(one);
    report_free(dflt);
    free(b.p);
}
END_TEST

START_TEST(default_threads_are_the_cpus_the_process_may_run_on)
{
    /* A process held to one CPU (taskset, a container's cpuset) parses on
     * one thread by default however many CPUs the machine has online; with
     * its whole mask back, on as many as the mask holds (at most 8). */
    cpu_set_t all, one;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    int first = 0;
    while (!CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
    size_t held = report_parse_chunks((size_t)256 << 20, NULL);
    ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
    ck_assert_uint_eq(held, 1);
    size_t mask = (size_t)CPU_COUNT(&all);
    ck_assert_uint_eq(report_parse_chunks((size_t)256 << 20, NULL), mask < 8 ? mask : 8);
    /* fewer chunks than CPUs when the input has fewer 8 MiB pieces */
    ck_assert_uint_eq(report_parse_chunks((size_t)12 << 20, NULL), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report_chunks");
    TCase *c = tcase_create("differential");
    tcase_set_timeout(c, 600);
    tcase_add_test(c, chunked_parse_equals_one_thread_on_shuffled_fixtures_with_noise);
    tcase_add_test(c, chunked_parse_equals_one_thread_on_random_cuts);
    tcase_add_test(c, chunked_parse_equals_one_thread_past_the_section_cap);
    tcase_add_test(c, chunked_parse_keeps_the_first_sections_under_a_small_cap);
    tcase_add_test(c, chunked_parse_refuses_a_splice_that_needs_a_section_the_chunk_dropped);
    tcase_add_test(c, chunked_parse_equals_one_thread_when_a_chunk_logs_past_its_event_cap);
    tcase_add_test(c, chunked_parse_equals_one_thread_with_crlf_nul_and_no_final_newline);
    tcase_add_test(c, chunked_parse_equals_one_thread_where_a_stamp_ends_a_chunk);
    tcase_add_test(c, chunked_parse_equals_one_thread_on_one_section_across_every_chunk);
    tcase_add_test(c, chunked_parse_equals_one_thread_with_a_boundary_at_every_line);
    tcase_add_test(c, chunked_parse_of_nothing_and_of_blank_lines_is_empty);
    tcase_add_test(c, default_parse_of_a_large_log_equals_one_thread);
    tcase_add_test(c, default_threads_are_the_cpus_the_process_may_run_on);
    suite_add_tcase(s, c);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
