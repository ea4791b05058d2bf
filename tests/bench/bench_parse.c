/* bench_parse.c: report parsing throughput and memory on a large preflight
 * log, beside `grep -c` on the same file in the same run.
 *
 * The log (>= 100 MB by default) is built from every report fixture under
 * tests/data/reports, concatenated over and over with NCCL_DEBUG=INFO noise
 * lines between outputs and between table rows, the way a long multi-node
 * preflight log looks. Figures: MB/s of report_parse() on the file's bytes
 * already in memory, MB/s of the file read, MB/s of `LC_ALL=C grep -c` over
 * the file (its own process, file in the page cache after our read), and the
 * process's peak RSS against the input size. report_parse is timed twice
 * per round: on one thread (report_parse_opts, threads = 1) and with its
 * default threads (the CPUs it may run on, at most eight, 8 MiB or more a
 * thread, taking pieces in turn); parses and grep alternate, REPS rounds; best and median are
 * printed with their ratios to grep. usage: [BENCH_REPORTS_DIR=DIR] bench_parse [MB] */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

struct buf {
    char *p;
    size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1 << 20;
        while (cap < b->len + n)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

/* Appends every .txt and .log input (not the expected files) below dir. */
static int add_inputs(struct buf *b, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d || depth > 4)
        return d ? closedir(d), 0 : 0;
    while ((e = readdir(d)) != NULL) {
        char path[1024];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
            continue;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            add_inputs(b, path, depth + 1);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (strstr(e->d_name, ".expected.") || n < 5 ||
            (strcmp(e->d_name + n - 4, ".txt") != 0 && strcmp(e->d_name + n - 4, ".log") != 0))
            continue;
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        char chunk[65536];
        size_t r;
        while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
            buf_add(b, chunk, r);
        fclose(f);
        buf_add(b, "\n", 1);
    }
    closedir(d);
    return 0;
}

#define REPS 9

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double target_mb = argc > 1 ? strtod(argv[1], NULL) : 100;
    struct buf seed = {0}, log = {0};
    /* BENCH_REPORTS_DIR: the fixtures of a copy of the tree elsewhere (a
     * bigger machine that runs this binary from another checkout path). */
    const char *reports = getenv("BENCH_REPORTS_DIR") ? getenv("BENCH_REPORTS_DIR") : TESTDATA "/reports";
    add_inputs(&seed, reports, 0);
    if (seed.len == 0) {
        fprintf(stderr, "bench_parse: no fixtures under %s\n", reports);
        return 1;
    }
    /* Interleave NCCL INFO noise after every 4th line of the fixtures. */
    const char *noise[] = {
        "gpu-a17:88123:88190 [3] NCCL INFO Channel 07/0 : 3[3] -> 4[4] via P2P/CUMEM/read\n",
        "gpu-a17:88123:88191 [5] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB ib0:10.0.0.17<0>\n",
        "gpu-a17:88123:88190 [0] NCCL INFO comm 0x5612 rank 0 nRanks 64 nNodes 8 localRanks 8 localRank 0 MNNVL 0\n",
    };
    size_t k = 0;
    while (log.len < (size_t)(target_mb * 1e6)) {
        const char *p = seed.p, *end = seed.p + seed.len;
        int line = 0;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
            if (buf_add(&log, p, n) != 0)
                return 1;
            p += n;
            if (++line % 4 == 0) {
                const char *s = noise[k++ % 3];
                buf_add(&log, s, strlen(s));
            }
        }
    }
    free(seed.p);
    char path[] = "/tmp/gpuplan-bench-parse-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, log.p, log.len) != (ssize_t)log.len) {
        perror("bench_parse: temp file");
        return 1;
    }
    close(fd);
    size_t len = log.len;
    free(log.p);

    /* Read the file back the way `gpuplan parse` does (one buffer). */
    double t0 = now();
    FILE *f = fopen(path, "rb");
    char *text = malloc(len);
    if (!f || !text || fread(text, 1, len, f) != len) {
        perror("bench_parse: read");
        return 1;
    }
    fclose(f);
    double t_read = now() - t0;

    /* Parse and grep take turns, REPS times each, so that all see the same
     * machine load (other processes, frequency changes): each round runs
     * report_parse on one thread, grep, and report_parse with its default
     * threads; each figure is the best run (the machine's capability) and
     * the median (what one run should expect), and each parse is paired
     * with the grep run beside it. grep reads the file from the page cache,
     * warm from our read above; its time includes starting the process
     * (about 1 ms). */
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "LC_ALL=C grep -c 'NCCL INFO' %s", path);
    double tp1[REPS], tpn[REPS], tg[REPS], ratio1[REPS], ration[REPS];
    long matches = -1;
    size_t sections = 0, unrec = 0, lines = 0;
    const struct report_parse_opts one = {.threads = 1};
    for (int i = 0; i < REPS; i++) {
        for (int pass = 0; pass < 2; pass++) {
            struct report *rep = NULL;
            t0 = now();
            if (report_parse_opts(text, len, pass == 0 ? &one : NULL, &rep) != ST_OK) {
                fprintf(stderr, "bench_parse: out of memory\n");
                return 1;
            }
            (pass == 0 ? tp1 : tpn)[i] = now() - t0;
            size_t s = rep->section_count + rep->sections_dropped;
            if (pass == 1 && (s != sections || rep->unrecognized_lines != unrec ||
                              rep->lines != lines)) {
                fprintf(stderr, "bench_parse: the threaded parse differs from the one-thread parse\n");
                return 1;
            }
            sections = s;
            unrec = rep->unrecognized_lines;
            lines = rep->lines;
            report_free(rep);
            if (pass == 1)
                break;

            t0 = now();
            FILE *g = popen(cmd, "r");
            if (!g || fscanf(g, "%ld", &matches) != 1) {
                fprintf(stderr, "bench_parse: grep failed\n");
                return 1;
            }
            pclose(g);
            tg[i] = now() - t0;
        }
        ratio1[i] = tg[i] / tp1[i];
        ration[i] = tg[i] / tpn[i];
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mb = (double)len / 1e6;
    qsort(tp1, REPS, sizeof(double), cmp_double);
    qsort(tpn, REPS, sizeof(double), cmp_double);
    qsort(tg, REPS, sizeof(double), cmp_double);
    qsort(ratio1, REPS, sizeof(double), cmp_double);
    qsort(ration, REPS, sizeof(double), cmp_double);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("input: %.1f MB, %zu lines, %zu sections (%zu kept), %zu unrecognized lines\n", mb, lines,
           sections, sections > REPORT_SECTIONS_MAX ? (size_t)REPORT_SECTIONS_MAX : sections, unrec);
    printf("machine: %ld online CPUs; report_parse's default here (the CPUs it may run on): %zu threads\n",
           cpus, report_parse_chunks(len, NULL));
    printf("grep -c 'NCCL INFO': best %.0f MB/s, median %.0f MB/s (%ld matches, incl. process "
           "start)\n", mb / tg[0], mb / tg[REPS / 2], matches);
    printf("report_parse, 1 thread:  best %.0f MB/s, median %.0f MB/s (%d runs)\n", mb / tp1[0],
           mb / tp1[REPS / 2], REPS);
    printf("  / grep: best/best %.2f, median of paired runs %.2f, worst pair %.2f (goal >= 0.5)\n",
           tg[0] / tp1[0], ratio1[REPS / 2], ratio1[0]);
    printf("report_parse, %zu threads: best %.0f MB/s, median %.0f MB/s (%d runs)\n",
           report_parse_chunks(len, NULL), mb / tpn[0], mb / tpn[REPS / 2], REPS);
    printf("  / grep: best/best %.2f, median of paired runs %.2f, worst pair %.2f (goal >= 0.5)\n",
           tg[0] / tpn[0], ration[REPS / 2], ration[0]);
    /* grep's figure includes reading the file from the page cache; ours
     * parses a buffer already in memory. For the strictest comparison, the
     * one read into a fresh buffer (page faults included) plus the best parse. */
    printf("file read: %.3f s  %.0f MB/s; read + best parse (default threads): %.0f MB/s = %.2f x "
           "best grep\n", t_read, mb / t_read, mb / (t_read + tpn[0]), tg[0] / (t_read + tpn[0]));
    printf("peak RSS: %.1f MB = %.2f x input (goal <= 2; the input buffer itself is 1.00)\n",
           (double)ru.ru_maxrss / 1024.0, (double)ru.ru_maxrss * 1024.0 / (double)len);
    free(text);
    unlink(path);
    return 0;
}
