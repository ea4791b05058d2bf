/* report.h: the public face of the `report` module, which reads the raw text
 * of preflight and benchmark tools (nvidia-smi, nccl-tests, perftest, ibstat,
 * fio, dcgmi, nvbandwidth, lscpu/cpupower, ethtool, dcgmproftester and
 * gpu_burn) into typed facts, and
 * judges those facts against a plan's expectations.
 *
 * Pure C: libc and libm only, no I/O, no clock, no globals. Numbers that the
 * text does not show are NaN (JSON null); counts that the text does not show
 * are -1. Nothing is guessed: a value appears only when it was read.
 *
 * Memory: report_parse() returns one heap object (free with report_free());
 * sections are plain values with fixed arrays, so nothing points back into
 * the input text, which the caller may release right after parsing. */
#ifndef GPUPLAN_REPORT_H
#define GPUPLAN_REPORT_H

#include <stddef.h>
#include "expectations.h"
#include "status.h"

enum report_kind {
    REPORT_TOPO = 0,
    REPORT_NCCL,
    REPORT_PERFTEST,
    REPORT_IB_PORTS,
    REPORT_GPU,
    REPORT_FIO,
    REPORT_DCGM,
    REPORT_NVBANDWIDTH,
    REPORT_CPU,
    REPORT_NIC,
    REPORT_GEMM,
    REPORT_KIND_COUNT
};

/* The API.md name of a kind ("topo", "nccl", ...). */
const char *report_kind_name(enum report_kind kind);

#define REPORT_NAME_LEN 64     /* device, GPU, CPU names; longer text is cut */
#define REPORT_SHORT_LEN 24    /* codes and versions */
#define REPORT_ISSUES_MAX 6
#define REPORT_ISSUE_LEN 120
#define REPORT_SECTIONS_MAX 256

/* ---- topo: nvidia-smi topo -m / -p2p ---------------------------------- */

#define TOPO_DIM_MAX 48        /* matrix columns (GPUs + NICs) and rows */

/* Matrix cell codes. NV# is stored as its link count (1..99). */
enum topo_cell {
    TOPO_CELL_NONE = 0,        /* not shown (cut, or beyond the row) */
    TOPO_CELL_PIX = 100, TOPO_CELL_PXB, TOPO_CELL_PHB, TOPO_CELL_NODE, TOPO_CELL_SYS,
    TOPO_CELL_X = 110,         /* self */
    TOPO_CELL_P2P_OK = 120, TOPO_CELL_P2P_NS, TOPO_CELL_P2P_GNS, TOPO_CELL_P2P_CNS,
    TOPO_CELL_P2P_TNS, TOPO_CELL_P2P_DR, TOPO_CELL_P2P_U,
    TOPO_CELL_OTHER = 200      /* printed but not a known code */
};

struct report_topo {
    int gpu_count;             /* GPU columns in the header; -1 unknown */
    int nic_count;             /* NIC columns; -1 when columns were elided or absent */
    int link_worst;            /* worst GPU-GPU cell over pairs read (enum topo_cell
                                  or NV count); 0 when no pair was read */
    int nvlink_min;            /* fewest NVLinks over pairs read; 0 if a pair has
                                  none; -1 when no pair was read */
    int pairs_total, pairs_read;
    int p2p_worst;             /* worst -p2p cell (TOPO_CELL_P2P_*), 0 if no p2p matrix */
    int p2p_pairs_ok, p2p_pairs_read;
    int cols, rows;            /* link matrix */
    char col_names[TOPO_DIM_MAX][12];
    char row_names[TOPO_DIM_MAX][12];
    unsigned char cells[TOPO_DIM_MAX][TOPO_DIM_MAX];   /* [row][col] */
    char cpu_affinity[TOPO_DIM_MAX][32];
    char numa_affinity[TOPO_DIM_MAX][12];
    int has_link, has_p2p;
    int p2p_cols, p2p_rows;    /* private parser state from here on */
    int cur_matrix;            /* 0 none, 1 link, 2 p2p, 3 pending (header seen) */
    int pend_cols;
    char pend_names[TOPO_DIM_MAX][12];
    unsigned char p2p[TOPO_DIM_MAX][TOPO_DIM_MAX];
};

/* Text of a topo cell code ("NV12", "SYS", "GNS"); buf needs 8 bytes. */
const char *report_topo_cell_str(int cell, char *buf, size_t len);

/* ---- nccl: nccl-tests *_perf output and NCCL logs ---------------------- */

#define NCCL_ROWS_MAX 64
#define NCCL_WARN_KEEP 4
#define NCCL_WARN_LEN 256      /* a NET/IB completion error names its peer, then
                                  the status and "vendor err N" at the end */

struct report_nccl_row {
    double size_b, count, oop_time_us, oop_algbw_gbs, oop_busbw_gbs, oop_wrong;
    double ip_time_us, ip_algbw_gbs, ip_busbw_gbs, ip_wrong;
    char type[12], redop[8];
    double root;
};

struct report_nccl {
    char collective[16];       /* "" unknown */
    char candidates[40];       /* when collective is unknown: what the table fits,
                                  e.g. "all_reduce,sendrecv" */
    int ranks, nodes;          /* -1 unknown */
    double busbw_peak_gbs, busbw_largest_gbs, busbw_avg_gbs, largest_size_b;
    double wrong_total;        /* NaN when no #wrong/error column was read */
    int wrong_is_error_column; /* old layout: "error" column (max error, not a count) */
    double oob_values;         /* "Out of bounds values : N", NaN if absent */
    int nccl_warnings;
    char warnings[NCCL_WARN_KEEP][NCCL_WARN_LEN];
    char algo[12];             /* NCCL_ALGO from the log, "" unknown */
    char net[16];              /* "IB", "Socket", "" unknown (NCCL "Using network") */
    char gpu_name[REPORT_NAME_LEN];
    int other_gpu_count;       /* rank lines' GPU names other than gpu_name, up to 3 */
    char other_gpus[3][REPORT_NAME_LEN];
    int row_count, rows_dropped;
    struct report_nccl_row rows[NCCL_ROWS_MAX];
    /* private parser state */
    int layout_cols;           /* columns before time in the header: 3..5, 0 unknown */
    int have_header;
    unsigned host_hash[16];
    int host_count;
    int max_rank;
    int nnodes_info, nranks_info;
};

/* ---- perftest ------------------------------------------------------------ */

#define PERF_ROWS_MAX 40

struct report_perf_row {
    double bytes, iterations, bw_peak_gbps, bw_avg_gbps, msg_rate_mpps;
    double t_min_us, t_max_us, t_typical_us, t_avg_us, t_p99_us, t_p999_us;
};

struct report_perftest {
    char test[16];             /* "ib_write_bw", "ib_send_lat", ... "" unknown */
    int bidirectional;         /* -1 unknown */
    int is_latency;
    char link_layer[12];       /* "IB" or "Ethernet", "" unknown */
    char device[24];
    int qps;                   /* -1 unknown */
    double mtu_b;
    char units[12];            /* as printed: "MB/sec", "Gb/sec", "usec" */
    double bw_avg_gbps, bw_peak_gbps, lat_typical_us, largest_bytes;
    double lat_bytes;          /* message size of lat_typical_us (the smallest) */
    int peak_not_measured;
    int row_count, rows_dropped;
    struct report_perf_row rows[PERF_ROWS_MAX];
    /* private parser state */
    int col_map[12];           /* header column -> field */
    int ncols;
    double unit_to_gbps;       /* 0 when the table header was not seen */
    int in_table;
    int title_seen;
};

/* ---- ib_ports: ibstat, ibstatus, ibv_devinfo ----------------------------- */

#define IB_PORTS_MAX 32

struct report_ib_port {
    char ca[24];
    int port;                  /* -1 unknown */
    char state[16];            /* "Active", "Down", "Initializing", "Polling", "" */
    char phys_state[20];       /* "LinkUp", "Disabled", "Polling", "" */
    double rate_gbps;          /* NaN unknown */
    double base_lid, sm_lid;   /* NaN unknown */
    char link_layer[12];       /* "InfiniBand", "Ethernet", "" */
    char fw[24];
    double active_mtu;
};

struct report_ib_ports {
    char tool[12];
    int ports_total, ports_active;
    int ports_bad_lid;         /* -1 when no port's LID and link layer were readable */
    int ports_declared;        /* "Number of ports"/phys_port_cnt totals, -1 if none */
    int port_count;
    int ports_dropped;
    int panics;                /* "ibpanic" lines: devices that could not be read */
    struct report_ib_port ports[IB_PORTS_MAX];
    /* private parser state */
    char cur_ca[24];
    char cur_fw[24];
    int expect_ports;
    double width_x;            /* ibv_devinfo -v active_width, for the rate */
};

/* ---- gpu: nvidia-smi table, -q, --query-gpu CSV -------------------------- */

#define GPU_MAX 16
#define GPU_CSV_COLS 24

/* Why the driver holds a GPU's clocks down ("Clocks Event Reasons" in -q of
 * current drivers, "Clocks Throttle Reasons" in older ones, the CSV's
 * clocks_event_reasons.* / clocks_throttle_reasons.*). The order is NVML's
 * bit order (nvmlClocksEventReason*: GpuIdle 0x1 ... DisplayClockSetting
 * 0x100), so the CSV's ".active" bit mask maps onto it unchanged. */
enum report_clock_reason {
    CLK_GPU_IDLE = 0, CLK_APPLICATIONS_CLOCKS, CLK_SW_POWER_CAP, CLK_HW_SLOWDOWN, CLK_SYNC_BOOST,
    CLK_SW_THERMAL, CLK_HW_THERMAL, CLK_HW_POWER_BRAKE, CLK_DISPLAY_CLOCK, CLK_REASON_COUNT
};

/* The fact name of a reason ("sw_power_cap", the CSV's suffix), NULL out of range. */
const char *report_clock_reason_name(int reason);

struct report_gpu_info {
    char name[REPORT_NAME_LEN];
    char bus_id[24];
    int pcie_gen_max, pcie_gen_current, pcie_width_max, pcie_width_current;  /* -1 */
    double ecc_uncorrectable;  /* NaN unknown */
    int remap_pending;         /* 1 yes, 0 no, -1 unknown */
    int remap_failure;
    double replays;
    double temp_c, power_w, power_cap_w, memory_total_mib;
    char perf_state[8];
    double power_cap_default_w;        /* "Default Power Limit", power.default_limit */
    double sm_clock_mhz, sm_clock_max_mhz;  /* "Clocks"/"Max Clocks" SM, clocks.sm/.max.sm */
    unsigned clock_reasons_shown;      /* bit per enum report_clock_reason: state read */
    unsigned clock_reasons_active;     /* bit per reason: read as Active */
};

struct report_gpu {
    char tool[24];             /* "nvidia-smi", "nvidia-smi -q", "nvidia-smi --query-gpu" */
    char driver[REPORT_SHORT_LEN], cuda[REPORT_SHORT_LEN];
    int gpu_count;             /* -1 unknown */
    int pcie_gen_max, pcie_width_max, pcie_width_min_current;   /* worst over GPUs read */
    double ecc_uncorrectable;
    int remap_pending;         /* GPUs with a pending remap, -1 unknown */
    int info_count, info_dropped;
    struct report_gpu_info info[GPU_MAX];
    int csv_cols;
    char csv_names[GPU_CSV_COLS][40];
    char csv_values[GPU_MAX][GPU_CSV_COLS][24];
    /* private parser state */
    int sub;                   /* which -q subsection a "Max"/"Current" key belongs to */
    int ecc_scope;             /* 0 none, 1 volatile, 2 aggregate */
    double ecc_vol, ecc_agg;
    int table_row_pending;
    signed char csv_fact[GPU_CSV_COLS];  /* per column: the csv_facts entry it feeds, -1 none */
};

/* ---- fio ----------------------------------------------------------------- */

/* fio's rw= patterns, as bits of report_fio.patterns. */
enum report_fio_pattern {
    FIO_SEQ_READ = 1u << 0,    /* read */
    FIO_RAND_READ = 1u << 1,   /* randread */
    FIO_SEQ_WRITE = 1u << 2,   /* write */
    FIO_RAND_WRITE = 1u << 3,  /* randwrite */
    FIO_MIXED = 1u << 4,       /* rw, readwrite, randrw */
    FIO_OTHER = 1u << 5        /* trim, randtrim, trimwrite, anything else */
};
#define FIO_PATTERNS 6

/* The name of pattern bit i ("read", "randread", "write", "randwrite",
 * "mixed", "other"), NULL out of range. */
const char *report_fio_pattern_name(int i);

/* Entry i of the GPU name table gpu.model judges by (report_check.c): its
 * catalog id, and in *names (when not NULL) up to two normalized NVML names
 * (the second may be NULL); NULL past the table's end. For tests that keep
 * the table and the catalog in step. */
const char *report_gpu_model_entry(size_t i, const char *const **names);

struct report_fio {
    char format[8];            /* "text" or "json" */
    char version[16];
    double read_bw_mbs, write_bw_mbs, read_iops, write_iops;   /* MB/s = 10^6 B/s */
    int jobs;                  /* job header lines or JSON jobs seen */
    char rw[16], ioengine[16], bs[24];
    double iodepth;
    unsigned patterns;         /* enum report_fio_pattern bits of every job's rw
                                  (text job headers; JSON job options, else the
                                  global options); 0 when none is shown */
    double write_bs;           /* smallest write block size, bytes, of the
                                  sequential-write (rw=write) jobs: the (W) bs of
                                  text headers, JSON job or global bs, else fio's
                                  4 KiB default; NAN when no such job shows one.
                                  Internal: not in the report JSON */
    /* private parser state */
    char json_global_rw[16];   /* JSON "global options" rw, for jobs without their own */
    int json_job_open, json_job_rw;
    unsigned json_job_pat;     /* the pattern bit of the open JSON job's own rw */
    double json_global_bs, json_job_bs;   /* write bs, bytes; NAN when not shown */
    double job_read_bw, job_write_bw, job_read_iops, job_write_iops;
    double grp_read_bw, grp_write_bw;
    int json_depth, json_dir, json_dir_depth, json_in_jobs;
    double json_bw[2], json_bw_bytes[2], json_iops[2];
    double json_io[2], json_runtime[2];   /* io_bytes (or io_kbytes), runtime: summed */
    int json_seen[2];
};

/* ---- dcgm ---------------------------------------------------------------- */

#define DCGM_FAILED_KEEP 8

struct report_dcgm {
    char format[8];            /* "text" or "json" */
    int pass, fail, warn, skip;
    char failed_tests[DCGM_FAILED_KEEP][40];
    int failed_count;
    char dcgm_version[REPORT_SHORT_LEN], driver[REPORT_SHORT_LEN];
    char category[24];
    int cut;                   /* 1: the output ends before the table's bottom
                                  border (text) or the JSON document's close:
                                  tests after the cut are not shown */
    int level;                 /* the run level: the command line's -r/--run (1-4,
                                  short/medium/long/xlong) when shown, else the
                                  categories of a whole output (Stress 3,
                                  Integration or Hardware 2, Deployment alone 1);
                                  0: -r named tests, not a level; -1 unknown */
    /* private parser state */
    int run_level;             /* from the command line; -1 not shown */
    unsigned categories;       /* bit 0 Deployment, 1 Integration, 2 Hardware, 3 Stress */
    char cur_test[40];
    int in_note;               /* inside an Info/Warning annotation */
    int closed;                /* text: the last table line read is the bottom border */
    int json_depth;            /* JSON: braces and brackets open */
};

/* ---- nvbandwidth --------------------------------------------------------- */

#define NVBW_TESTS_MAX 24

struct report_nvbw_test {
    char name[48];
    double sum_gbs;            /* the tool's SUM line, NaN if not printed */
    double min_gbs, max_gbs;   /* over matrix cells read, NaN if none */
    int cells;
};

struct report_nvbandwidth {
    char version[16];
    int device_count;          /* "Device N:" lines */
    int failed;                /* tests that printed an error */
    int waived_count;
    char waived[4][48];
    int test_count, tests_dropped;
    struct report_nvbw_test tests[NVBW_TESTS_MAX];
    /* private parser state */
    int in_matrix;
};

/* ---- cpu: lscpu, cpupower frequency-info --------------------------------- */

struct report_cpu {
    char tool[24];
    char model_name[REPORT_NAME_LEN];
    int sockets, threads, cores_per_socket, threads_per_core, numa_nodes;
    char governor[16];
    char driver[24];
    double hw_min_mhz, hw_max_mhz, policy_min_mhz, policy_max_mhz, current_mhz;
    /* private parser state */
    int analyzing_seen;
    int policy_pending;
};

/* ---- nic: ethtool -i / -S ------------------------------------------------ */

struct report_nic {
    char driver[24], version[24], firmware[40], bus_info[24];
    double rx_pause, tx_pause; /* NaN when no pause counter was printed */
    double errors;             /* NaN when no error counter was printed */
    double discards;
    int counters;
    /* private parser state */
    double rx_pause_phy, tx_pause_phy;
    int have_rx_pause_phy, have_tx_pause_phy;
};

/* ---- gemm: dcgmproftester (-t 1004 and others), gpu_burn ---------------- */

#define GEMM_ROWS_MAX 16
#define GEMM_KEEP 48           /* steady samples kept per row (the latest) */

struct report_gemm_row {
    int gpu;                   /* gpu_burn column index; -1 for dcgmproftester */
    char worker[12];           /* dcgmproftester "Worker A:B" label, "" when unprefixed */
    char name[48];             /* gpu_burn: the model from its "GPU N: NAME (UUID: ...)"
                                  list, "" when not printed */
    double tflops_last;        /* the last rate printed, NaN if none */
    double tflops_median;      /* median over this row's steady samples, NaN if none */
    double errors;             /* gpu_burn: last error count printed (may be
                                  negative: an overflowed counter), NaN unknown */
    int died;                  /* gpu_burn "(DIED!)" marker on this GPU */
    char status[8];            /* gpu_burn final "OK" / "FAULTY", "" not printed */
    double temp_c;             /* last temperature, NaN unknown */
    int samples;               /* steady samples seen (may exceed GEMM_KEEP) */
    int rated;                 /* any sample with a nonzero rate */
    /* private parser state */
    int seen;                  /* rate lines seen, ramp-up included */
    double keep[GEMM_KEEP];    /* ring of the latest steady samples */
};

struct report_gemm {
    char tool[16];             /* "dcgmproftester" or "gpu_burn" */
    char test[24];             /* field name ("TensorEngineActive"), "FLOATS", "DOUBLES" */
    int test_id;               /* dcgmproftester -t id read off "[1004]" or the
                                  command line's "-t 1004", -1 unknown */
    char precision[8];         /* "fp16" (tensor), "fp32", "fp64"; "" not printed */
    int mig;                   /* CUDA_VISIBLE_DEVICES names a MIG slice: 1, else 0 */
    int tensor_cores;          /* gpu_burn -tc: "using Tensor Cores" printed: 1, else 0 */
    double tflops_median, tflops_min, tflops_max;   /* over steady samples, NaN if none */
    int samples;               /* steady samples over all rows */
    int gpus_ok, gpus_faulty;  /* gpu_burn "GPU N: OK/FAULTY" lines; -1 when none */
    int died;                  /* any "(DIED!)" or "No clients are alive" */
    int init_failed;           /* "Couldn't init a GPU test", or a GPU said OK
                                  without ever printing a nonzero rate */
    int row_count, rows_dropped;
    struct report_gemm_row rows[GEMM_ROWS_MAX];
    /* private parser state */
    int tested;                /* "Tested N GPUs:" seen: N, else -1 */
    int listed;                /* "GPU N: NAME (UUID: ...)" lines read */
    unsigned named;            /* bit N set: names[N] holds GPU N's NAME */
    char names[GEMM_ROWS_MAX][48];   /* read only where named says so */
};

struct report_section {
    enum report_kind kind;
    char tool[40];
    int first_line, last_line;       /* 1-based lines of the input */
    int issue_count;
    char issues[REPORT_ISSUES_MAX][REPORT_ISSUE_LEN];
    int held;                        /* parser state: non-blank lines taken while
                                        the section holds nothing of its own yet
                                        (gemm: `nvidia-smi -L` lines gpu_burn
                                        prints first); if it closes so, it is
                                        dropped and they count as unrecognized */
    union {
        struct report_topo topo;
        struct report_nccl nccl;
        struct report_perftest perf;
        struct report_ib_ports ib;
        struct report_gpu gpu;
        struct report_fio fio;
        struct report_dcgm dcgm;
        struct report_nvbandwidth nvbw;
        struct report_cpu cpu;
        struct report_nic nic;
        struct report_gemm gemm;
    } u;
};

struct report {
    struct report_section *sections;  /* section_count valid entries */
    size_t section_count;
    size_t sections_dropped;          /* parsed but over REPORT_SECTIONS_MAX */
    size_t unrecognized_lines;        /* non-blank lines no parser took */
    size_t lines;
};

/* Parse text (len bytes, need not be NUL-terminated). On ST_OK *out holds a
 * new report (possibly with zero sections); caller frees with report_free.
 * Fails only with ST_NOMEM. Never reads outside [text, text+len). */
enum status report_parse(const char *text, size_t len, struct report **out);
void report_free(struct report *rep);
/* Append src's sections to dst (both from report_parse; for several files
 * judged together). Sections beyond REPORT_SECTIONS_MAX are counted as
 * dropped. ST_NOMEM leaves dst as it was. */
enum status report_append(struct report *dst, const struct report *src);

/* How report_parse_opts may use threads. Zero fields take the defaults,
 * which report_parse uses: threads = the CPUs this process may run on (its
 * affinity mask; at most 8), min_chunk = 8 MiB, so that only inputs of
 * 16 MiB and more are parsed on several threads. */
#define REPORT_PARSE_THREADS_MAX 256
struct report_parse_opts {
    unsigned threads;          /* threads parsing at once at most (1: one
                                  thread; REPORT_PARSE_THREADS_MAX at most) */
    size_t min_chunk;          /* bytes each thread gets at least; the input
                                  is cut into pieces of at least an eighth of
                                  that, eight a thread, which the threads take
                                  in turn as they finish */
};
/* report_parse with the input cut into pieces at line starts, parsed on up
 * to opts->threads threads (the caller's and opts->threads - 1 POSIX
 * threads) and merged. The report is the one report_parse(..) gives with
 * one thread, in every field; opts NULL takes the defaults. */
enum status report_parse_opts(const char *text, size_t len, const struct report_parse_opts *opts,
                              struct report **out);
/* How many threads report_parse_opts plans for len bytes (each of them
 * given min_chunk bytes at least). */
size_t report_parse_chunks(size_t len, const struct report_parse_opts *opts);

/* ---- checker ------------------------------------------------------------- */

enum report_severity {
    SEV_PASS = 0, SEV_WARN, SEV_FAIL, SEV_SKIP, SEV_UNKNOWN
};
const char *report_severity_name(enum report_severity sev);

#define FINDING_TEXT_LEN 48
#define FINDING_MSG_LEN 256

struct report_finding {
    char id[EXPECTATION_ID_MAX];
    enum report_severity severity;
    double observed, expected;         /* NaN when not numeric or not known */
    char observed_text[FINDING_TEXT_LEN];  /* used when the value is text */
    char expected_text[FINDING_TEXT_LEN];
    char message[FINDING_MSG_LEN];
    char rule[24];
    char hint[FINDING_MSG_LEN];
    int section;                       /* index into report sections, -1 none */
};

#define VERDICT_FINDINGS_MAX 128

struct report_verdict {
    enum report_severity verdict;      /* pass, warn, fail or unknown */
    size_t count;
    size_t dropped;                    /* findings beyond VERDICT_FINDINGS_MAX */
    struct report_finding findings[VERDICT_FINDINGS_MAX];
    size_t no_evidence_count;          /* expectations with no evidence */
    char no_evidence[32][EXPECTATION_ID_MAX];
};

/* Judge rep against the n expectations of a plan tier (exp may be NULL when
 * n is 0: then only plan-free findings are made, e.g. a port that is down).
 * Writes *out (a plain value, no heap). */
void report_check(const struct expectation *exp, size_t n, const struct report *rep,
                  struct report_verdict *out);

/* ---- calibration --------------------------------------------------------- */

/* Measured values for a calibrated estimate; NaN when the reports hold none.
 * Same fields as the engine's struct engine_measured. */
struct report_measured {
    double intra_busbw_gbs;    /* best all_reduce busbw at the largest size, one node */
    double inter_busbw_gbs;    /* the same across nodes */
    double matmul_tflops;      /* dcgmproftester -t 1004 (16-bit tensor GEMM): the
                                  worst GPU's steady median, MIG slices left out */
};
void report_measured_extract(const struct report *rep, struct report_measured *out);

#endif
