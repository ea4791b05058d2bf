/* test_report.c: the report module's parsers and checker, one behaviour per
 * test. Inputs are small texts written here to isolate one rule each; the
 * real samples are covered by the fixture runner (tests/data/reports). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "engine.h"
#include "report.h"
#include "report_int.h"

static struct report *parse(const char *text)
{
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse(text, strlen(text), &rep), ST_OK);
    ck_assert_ptr_nonnull(rep);
    return rep;
}

static const struct report_section *first(const struct report *rep, enum report_kind k)
{
    for (size_t i = 0; i < rep->section_count; i++)
        if (rep->sections[i].kind == k)
            return &rep->sections[i];
    return NULL;
}

static struct expectation exp_min(const char *id, double min)
{
    struct expectation e;
    memset(&e, 0, sizeof(e));
    snprintf(e.id, sizeof(e.id), "%s", id);
    e.min = min;
    e.max = NAN;
    return e;
}

static struct expectation exp_max(const char *id, double max)
{
    struct expectation e = exp_min(id, NAN);
    e.max = max;
    return e;
}

static struct expectation exp_val(const char *id, const char *v)
{
    struct expectation e = exp_min(id, NAN);
    snprintf(e.value, sizeof(e.value), "%s", v);
    return e;
}

static const struct report_finding *finding(const struct report_verdict *v, const char *id)
{
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->findings[i].id, id) == 0)
            return &v->findings[i];
    return NULL;
}

static struct report_verdict verdict;

static enum report_severity judge(const char *text, struct expectation e, const char *id)
{
    struct report *rep = parse(text);
    report_check(&e, 1, rep, &verdict);
    report_free(rep);
    const struct report_finding *f = finding(&verdict, id);
    ck_assert_msg(f != NULL, "no finding %s", id);
    return f->severity;
}

/* ---- shared input pieces ---- */

static const char *NCCL_HDR =
    "# nThread 1 nGpus 8 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5\n"
    "#  Rank  0 Group  0 Pid 1 on nodeA device  0 [0x18] NVIDIA H100 80GB HBM3\n"
    "#  Rank  7 Group  0 Pid 1 on nodeA device  7 [0xdb] NVIDIA H100 80GB HBM3\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";

static char *nccl_text(const char *rows, const char *footer)
{
    static char buf[8192];
    snprintf(buf, sizeof(buf), "%s%s%s", NCCL_HDR, rows, footer);
    return buf;
}

static const char *ROW_SMALL =
    "     8388608       2097152     float     sum      -1    60.1  139.57  244.25      0    60.0  139.81  244.67      0\n";
static const char *ROW_LARGE_300 =
    "  4294967296    1073741824     float     sum      -1  25000  171.80  300.65      0  25010  171.73  300.53      0\n";
static const char *ROW_LARGE_480 =
    "  4294967296    1073741824     float     sum      -1  15600  275.32  481.81      0  15610  275.14  481.50      0\n";

/* ---- parser ---- */

START_TEST(parse_nccl_reads_current_layout_and_ignores_the_avg_footer)
{
    struct report *rep = parse(nccl_text(ROW_SMALL, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 12.5\n"));
    const struct report_section *s = first(rep, REPORT_NCCL);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.nccl.ranks, 8);
    ck_assert_int_eq(s->u.nccl.nodes, 1);
    ck_assert_double_eq_tol(s->u.nccl.busbw_largest_gbs, 244.67, 1e-9);
    ck_assert_double_eq_tol(s->u.nccl.busbw_avg_gbs, 12.5, 1e-9);
    ck_assert_str_eq(s->u.nccl.collective, "all_reduce");
    ck_assert_double_eq(s->u.nccl.wrong_total, 0);
    report_free(rep);
}
END_TEST

START_TEST(parse_nccl_reads_old_error_column)
{
    struct report *rep = parse(
        "       65536          8192   float    16.57    1.98    1.98  0e+00    13.83    2.37    2.37  1e-03\n");
    const struct report_section *s = first(rep, REPORT_NCCL);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.nccl.wrong_is_error_column, 1);
    ck_assert_double_eq(s->u.nccl.wrong_total, 1);   /* one nonzero error cell */
    ck_assert_double_eq_tol(s->u.nccl.busbw_peak_gbs, 2.37, 1e-9);
    report_free(rep);
}
END_TEST

START_TEST(parse_nccl_skips_info_lines_between_rows)
{
    char text[8192];
    snprintf(text, sizeof(text), "%s%s%s%s", NCCL_HDR, ROW_SMALL,
             "nodeA:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n", ROW_LARGE_480);
    struct report *rep = parse(text);
    ck_assert_uint_eq(rep->section_count, 1);
    ck_assert_int_eq(rep->sections[0].u.nccl.row_count, 2);
    ck_assert_uint_eq(rep->unrecognized_lines, 0);
    report_free(rep);
}
END_TEST

START_TEST(parse_nccl_sums_nonzero_wrong_and_counts_warn_lines)
{
    struct report *rep = parse(nccl_text(
        "  4294967296    1073741824     float     sum      -1  15600  275.32  481.81      4  15610  275.14  481.50      1\n",
        "host:1:2 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion with error 12\n"));
    const struct report_section *s = first(rep, REPORT_NCCL);
    ck_assert_double_eq(s->u.nccl.wrong_total, 5);
    ck_assert_int_eq(s->u.nccl.nccl_warnings, 1);
    report_free(rep);
}
END_TEST

START_TEST(parse_nccl_reads_a_header_whose_hash_markdown_ate)
{
    struct report *rep = parse(
        "      size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "  4294967296    1073741824     float     sum      -1  15600  275.32  481.81      0  15610  275.14  481.50      0\n"
        "Avg bus bandwidth    : 400.1\n");
    const struct report_section *s = first(rep, REPORT_NCCL);
    ck_assert_ptr_nonnull(s);
    ck_assert_double_eq_tol(s->u.nccl.busbw_largest_gbs, 481.81, 1e-9);
    ck_assert_double_eq_tol(s->u.nccl.busbw_avg_gbs, 400.1, 1e-9);
    report_free(rep);
}
END_TEST

START_TEST(parse_topo_finds_worst_path_and_fewest_nvlinks)
{
    struct report *rep = parse("\tGPU0\tGPU1\tGPU2\tCPU Affinity\n"
                               "GPU0\t X \tNV12\tNV6\t0-7\n"
                               "GPU1\tNV12\t X \tPIX\t0-7\n"
                               "GPU2\tNV6\tPIX\t X \t0-7\n");
    const struct report_section *s = first(rep, REPORT_TOPO);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.topo.gpu_count, 3);
    ck_assert_int_eq(s->u.topo.nic_count, 0);
    ck_assert_int_eq(s->u.topo.link_worst, TOPO_CELL_PIX);
    ck_assert_int_eq(s->u.topo.nvlink_min, 0);
    ck_assert_int_eq(s->u.topo.pairs_read, 3);
    report_free(rep);
}
END_TEST

START_TEST(parse_topo_counts_pairs_a_cut_matrix_does_not_show)
{
    struct report *rep = parse("        GPU0    GPU1    GPU2    GPU3\n"
                               "GPU0     X      NV18    NV18    NV18\n"
                               "GPU1    NV18     X      NV18    NV18\n");
    const struct report_section *s = first(rep, REPORT_TOPO);
    ck_assert_int_eq(s->u.topo.pairs_total, 6);
    ck_assert_int_eq(s->u.topo.pairs_read, 5);
    ck_assert_int_eq(s->u.topo.nvlink_min, 18);
    ck_assert_int_gt(s->issue_count, 0);
    report_free(rep);
}
END_TEST

/* nvidia-smi writes its topo header underlined (ESC[4m ... ESC[0m) even to
 * a file, as the H200 capture in tests/data/reports/nvidia-smi-topo shows;
 * read plain, the header is lost and NIC columns pass for GPUs. */
START_TEST(parse_topo_reads_a_header_underlined_with_escapes)
{
    struct report *rep =
        parse("\t\x1b[4mGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
              "GPU0\t X \tNV18\tPIX\tSYS\t0-15\t0\t\tN/A\n"
              "GPU1\tNV18\t X \tSYS\tPIX\t16-31\t1\t\tN/A\n"
              "NIC0\tPIX\tSYS\t X \tSYS\n"
              "NIC1\tSYS\tPIX\tSYS\t X \n");
    const struct report_section *s = first(rep, REPORT_TOPO);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.topo.gpu_count, 2);
    ck_assert_int_eq(s->u.topo.nic_count, 2);
    ck_assert_int_eq(s->u.topo.link_worst, 18);
    ck_assert_int_eq(s->u.topo.pairs_read, 1);
    ck_assert_str_eq(s->u.topo.col_names[2], "NIC0");
    ck_assert_str_eq(s->u.topo.cpu_affinity[1], "16-31");
    ck_assert_int_eq(s->issue_count, 0);
    ck_assert_int_eq((int)rep->unrecognized_lines, 0);
    report_free(rep);
}
END_TEST

START_TEST(parse_topo_reads_rows_and_legend_lines_holding_escapes)
{
    struct report *rep = parse("$ nvidia-smi topo -m\n"
                               "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
                               "GPU0\t X \t\x1b[1;32mNV12\x1b[0m\t0-7\x1b[0m\t0\n"
                               "GPU1\t\x1b[1;32mNV12\x1b[0m\t X \t\x1b(B\x1b[m0-7\t0\n"
                               "\n"
                               "\x1b[1mLegend:\x1b[0m\n"
                               "\n"
                               "  X    = Self\n"
                               "  NV#  = Connection traversing a bonded set of # NVLinks\n");
    const struct report_section *s = first(rep, REPORT_TOPO);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.topo.gpu_count, 2);
    ck_assert_int_eq(s->u.topo.link_worst, 12);
    ck_assert_int_eq(s->u.topo.pairs_read, 1);
    ck_assert_str_eq(s->u.topo.cpu_affinity[0], "0-7");
    ck_assert_str_eq(s->u.topo.cpu_affinity[1], "0-7");
    ck_assert_str_eq(s->u.topo.numa_affinity[1], "0");
    ck_assert_int_eq(s->issue_count, 0);
    ck_assert_int_eq((int)rep->section_count, 1);
    ck_assert_int_eq((int)rep->unrecognized_lines, 0);
    report_free(rep);
}
END_TEST

/* One GPU: the -p2p row ("X" alone) tells nothing; the header (GPU columns
 * only, no affinity titles) says it is a -p2p matrix. */
START_TEST(parse_topo_takes_a_one_gpu_underlined_p2p_matrix_as_p2p)
{
    struct report *rep = parse(" \t\x1b[4mGPU0\t\x1b[0m\n"
                               " GPU0\tX\t\n"
                               "\n"
                               "Legend:\n"
                               "\n"
                               "  X    = Self\n"
                               "  OK   = Status Ok\n");
    const struct report_section *s = first(rep, REPORT_TOPO);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.topo.has_p2p, 1);
    ck_assert_int_eq(s->u.topo.has_link, 0);
    ck_assert_int_eq(s->u.topo.gpu_count, 1);
    ck_assert_str_eq(s->tool, "nvidia-smi topo -p2p");
    ck_assert_int_eq(s->issue_count, 0);
    ck_assert_int_eq((int)rep->unrecognized_lines, 0);
    report_free(rep);
}
END_TEST

/* A cut JSON document takes every line after it as a possible part of it
 * until a strong start marker: the underlined header must be one. */
START_TEST(parse_topo_underlined_header_ends_a_cut_json_document)
{
    struct report *rep = parse("{\n"
                               "  \"fio version\" : \"fio-3.36\",\n"
                               "  \"jobs\" : [\n"
                               "\t\x1b[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
                               "GPU0\t X \tNV18\t0-15\t0\t\tN/A\n"
                               "GPU1\tNV18\t X \t0-15\t0\t\tN/A\n");
    const struct report_section *s = first(rep, REPORT_TOPO);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.topo.gpu_count, 2);
    ck_assert_int_eq(s->u.topo.nvlink_min, 18);
    ck_assert_int_eq(s->issue_count, 0);
    report_free(rep);
}
END_TEST

START_TEST(parse_perftest_converts_mb_per_sec_to_gbps)
{
    struct report *rep = parse("                    RDMA_Write BW Test\n"
                               " Link type       : Ethernet\n"
                               " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
                               " 65536      5000             11000.00            10000.00               0.16\n");
    const struct report_section *s = first(rep, REPORT_PERFTEST);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->u.perf.test, "ib_write_bw");
    ck_assert_str_eq(s->u.perf.link_layer, "Ethernet");
    ck_assert_double_eq_tol(s->u.perf.bw_avg_gbps, 10000.0 * 1048576 * 8 / 1e9, 1e-9);
    report_free(rep);
}
END_TEST

START_TEST(parse_strips_email_quotes_and_tmux_borders)
{
    struct report *rep = parse("> CA 'mlx5_0'\n"
                               "> \tPort 1:\n"
                               "> \t\tState: Active\n"
                               "\xe2\x94\x82\t\tRate: 400        \xe2\x94\x82\n"
                               "\xe2\x94\x82\t\tLink layer: InfiniBand\n");
    const struct report_section *s = first(rep, REPORT_IB_PORTS);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.ib.ports_active, 1);
    ck_assert_double_eq(s->u.ib.ports[0].rate_gbps, 400);
    report_free(rep);
}
END_TEST

START_TEST(parse_ibstat_flags_bad_lid_only_on_infiniband)
{
    struct report *rep = parse("CA 'a'\n\tPort 1:\n\t\tState: Active\n\t\tBase lid: 0\n\t\tLink layer: Ethernet\n"
                               "CA 'b'\n\tPort 1:\n\t\tState: Active\n\t\tBase lid: 65535\n\t\tLink layer: InfiniBand\n");
    const struct report_section *s = first(rep, REPORT_IB_PORTS);
    ck_assert_int_eq(s->u.ib.ports_total, 2);
    ck_assert_int_eq(s->u.ib.ports_bad_lid, 1);
    report_free(rep);
}
END_TEST

START_TEST(parse_ibstatus_reads_hex_lid_and_rate)
{
    struct report *rep = parse("Infiniband device 'mlx5_0' port 1 status:\n"
                               "\tbase lid:\t 0x1a\n\tstate:\t\t 4: ACTIVE\n\tphys state:\t 5: LinkUp\n"
                               "\trate:\t\t 200 Gb/sec (4X HDR)\n\tlink_layer:\t InfiniBand\n");
    const struct report_section *s = first(rep, REPORT_IB_PORTS);
    ck_assert_str_eq(s->tool, "ibstatus");
    ck_assert_double_eq(s->u.ib.ports[0].base_lid, 26);
    ck_assert_double_eq(s->u.ib.ports[0].rate_gbps, 200);
    ck_assert_str_eq(s->u.ib.ports[0].state, "Active");
    report_free(rep);
}
END_TEST

START_TEST(parse_nvidia_smi_q_keeps_max_and_current_apart)
{
    struct report *rep = parse("==============NVSMI LOG==============\n"
                               "Attached GPUs                             : 1\n"
                               "GPU 00000000:18:00.0\n"
                               "    Product Name                          : NVIDIA H100 80GB HBM3\n"
                               "            PCIe Generation\n"
                               "                Max                       : 5\n"
                               "                Current                   : 1\n"
                               "            Link Width\n"
                               "                Max                       : 16x\n"
                               "                Current                   : 8x\n"
                               "    MIG Mode\n"
                               "        Current                           : Disabled\n"
                               "        Pending                           : Disabled\n");
    const struct report_section *s = first(rep, REPORT_GPU);
    ck_assert_int_eq(s->u.gpu.pcie_gen_max, 5);
    ck_assert_int_eq(s->u.gpu.info[0].pcie_gen_current, 1);
    ck_assert_int_eq(s->u.gpu.pcie_width_max, 16);
    ck_assert_int_eq(s->u.gpu.pcie_width_min_current, 8);
    ck_assert_int_eq(s->u.gpu.remap_pending, -1);   /* MIG's Pending is not a remap */
    report_free(rep);
}
END_TEST

START_TEST(parse_dcgm_counts_per_gpu_results_on_continuation_rows)
{
    struct report *rep = parse("| GPU Memory                | Pass - GPU: 1                                  |\n"
                               "|                           | Fail - GPU: 0                                  |\n"
                               "| Info                      | GPU 0 Fail to allocate: out of memory          |\n"
                               "|                           | Pass maybe later                               |\n");
    const struct report_section *s = first(rep, REPORT_DCGM);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.dcgm.pass, 1);
    ck_assert_int_eq(s->u.dcgm.fail, 1);
    ck_assert_str_eq(s->u.dcgm.failed_tests[0], "GPU Memory");
    report_free(rep);
}
END_TEST

START_TEST(parse_fio_text_prefers_group_bandwidth_in_decimal_mb)
{
    struct report *rep = parse("seq: (g=0): rw=read, bs=(R) 1024KiB-1024KiB, ioengine=libaio, iodepth=32\n"
                               "fio-3.36\n"
                               "  read: IOPS=2861, BW=2861MiB/s (3000MB/s)(167GiB/60001msec)\n"
                               "Run status group 0 (all jobs):\n"
                               "   READ: bw=2861MiB/s (3000MB/s), 2861MiB/s-2861MiB/s (3000MB/s-3000MB/s), io=167GiB (180GB)\n");
    const struct report_section *s = first(rep, REPORT_FIO);
    ck_assert_double_eq_tol(s->u.fio.read_bw_mbs, 3000, 1e-9);
    ck_assert_double_eq_tol(s->u.fio.read_iops, 2861, 1e-9);
    ck_assert(isnan(s->u.fio.write_bw_mbs));
    report_free(rep);
}
END_TEST

START_TEST(parse_cpupower_keeps_two_runs_as_two_sections)
{
    struct report *rep = parse("# cpupower frequency-info\n"
                               "                  The governor \"performance\" may decide which speed to use\n"
                               "# cpupower frequency-info\n"
                               "                  The governor \"powersave\" may decide which speed to use\n");
    ck_assert_uint_eq(rep->section_count, 2);
    ck_assert_str_eq(rep->sections[0].u.cpu.governor, "performance");
    ck_assert_str_eq(rep->sections[1].u.cpu.governor, "powersave");
    report_free(rep);
}
END_TEST

START_TEST(parse_ethtool_uses_phy_pause_total_instead_of_summing_priorities)
{
    struct report *rep = parse("NIC statistics:\n     rx_prio3_pause: 10\n     rx_pause_ctrl_phy: 10\n"
                               "     tx_pause_ctrl_phy: 2\n     rx_crc_errors_phy: 3\n");
    const struct report_section *s = first(rep, REPORT_NIC);
    ck_assert_double_eq(s->u.nic.rx_pause, 10);
    ck_assert_double_eq(s->u.nic.tx_pause, 2);
    ck_assert_double_eq(s->u.nic.errors, 3);
    report_free(rep);
}
END_TEST

START_TEST(parse_splits_a_preflight_log_into_one_section_per_tool)
{
    struct report *rep = parse("$ ibstat\nCA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n"
                               "$ lscpu\nArchitecture:        x86_64\nCPU(s):              64\n"
                               "nvbandwidth Version: v0.5\nRunning host_to_device_memcpy_ce.\n"
                               "SUM host_to_device_memcpy_ce 411.10\n");
    ck_assert_uint_eq(rep->section_count, 3);
    ck_assert_int_eq(rep->sections[0].kind, REPORT_IB_PORTS);
    ck_assert_int_eq(rep->sections[1].kind, REPORT_CPU);
    ck_assert_int_eq(rep->sections[1].u.cpu.threads, 64);
    ck_assert_int_eq(rep->sections[2].kind, REPORT_NVBANDWIDTH);
    ck_assert_double_eq_tol(rep->sections[2].u.nvbw.tests[0].sum_gbs, 411.10, 1e-9);
    report_free(rep);
}
END_TEST

START_TEST(parse_gemm_reads_exponent_rates_and_leaves_out_the_ramp_up_second)
{
    struct report *rep = parse(
        "Skipping CreateDcgmGroups() since DCGM validation is disabled\n"
        "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 (1.78e+05 gflops).\n"
        "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 (1.89e+05 gflops).\n"
        "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 (1.9e+05 gflops).\n");
    const struct report_section *s = first(rep, REPORT_GEMM);
    ck_assert_ptr_nonnull(s);
    const struct report_gemm *g = &s->u.gemm;
    ck_assert_str_eq(g->tool, "dcgmproftester");
    ck_assert_str_eq(g->test, "TensorEngineActive");
    ck_assert_str_eq(g->precision, "fp16");
    ck_assert_int_eq(g->test_id, 1004);
    ck_assert_int_eq(g->samples, 2);
    ck_assert_double_eq_tol(g->tflops_median, 189.5, 1e-9);
    ck_assert_double_eq_tol(g->tflops_min, 189, 1e-9);
    ck_assert_str_eq(g->rows[0].worker, "0:0");
    ck_assert_double_eq_tol(g->rows[0].tflops_last, 190, 1e-9);
    report_free(rep);
}
END_TEST

START_TEST(parse_gemm_reads_quoted_gpu_burn_with_negative_error_counts)
{
    struct report *rep = parse(
        "> 100.0%  proc'd: 10 (5000 Gflop/s) - 10 (4000 Gflop/s)   errors: 0 - -524288000  "
        "(WARNING!)   temps: 60 C - 86 C \n"
        "> \n> Tested 2 GPUs:\n>         GPU 0: OK\n>         GPU 1: FAULTY\n");
    const struct report_section *s = first(rep, REPORT_GEMM);
    ck_assert_ptr_nonnull(s);
    const struct report_gemm *g = &s->u.gemm;
    ck_assert_str_eq(g->tool, "gpu_burn");
    ck_assert_int_eq(g->row_count, 2);
    ck_assert_double_eq(g->rows[0].errors, 0);
    ck_assert_double_eq(g->rows[1].errors, -524288000.0);
    ck_assert_double_eq(g->rows[1].temp_c, 86);
    ck_assert_double_eq_tol(g->rows[1].tflops_last, 4.0, 1e-9);
    ck_assert_str_eq(g->rows[1].status, "FAULTY");
    ck_assert_int_eq(g->gpus_ok, 1);
    ck_assert_int_eq(g->gpus_faulty, 1);
    ck_assert_uint_eq(rep->unrecognized_lines, 0);
    report_free(rep);
}
END_TEST

START_TEST(parse_gemm_keeps_what_a_line_cut_mid_list_shows)
{
    struct report *rep = parse(
        "Initialized device 0 with 11441 MB of memory (11351 MB available, using 10216 MB of "
        "it), using DOUBLES\n"
        "50.0%  proc'd: 5 (3000 Gflop/s) - 6 (31");
    const struct report_section *s = first(rep, REPORT_GEMM);
    ck_assert_ptr_nonnull(s);
    const struct report_gemm *g = &s->u.gemm;
    ck_assert_str_eq(g->precision, "fp64");
    ck_assert_int_eq(g->row_count, 1);
    ck_assert_double_eq_tol(g->rows[0].tflops_last, 3.0, 1e-9);
    ck_assert(isnan(g->rows[0].temp_c));
    ck_assert(isnan(g->rows[0].errors));
    ck_assert_int_eq(g->gpus_ok, -1);
    report_free(rep);
    /* a dcgmproftester line cut before "gflops)" holds no rate */
    rep = parse("TensorEngineActive: generated ???, dcgm 0.000 (27450.3 gflops)\n"
                "TensorEngineActive: generated ???, dcgm 0.000 (2735");
    s = first(rep, REPORT_GEMM);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.gemm.samples, 0);
    ck_assert(isnan(s->u.gemm.tflops_median));
    report_free(rep);
}
END_TEST

START_TEST(parse_gemm_names_gpus_from_the_list_gpu_burn_prints_first)
{
    struct report *rep = parse(
        "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-6b15ee7a-dc27-9450-1be9-43cff0faef9b)\n"
        "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-0fcbc6b5-7be5-2b6f-7f19-436f8e9a760e)\n"
        "Initialized device 0 with 81038 MB of memory (80614 MB available, using 72552 MB of "
        "it), using FLOATS, using Tensor Cores\n"
        "Initialized device 1 with 81038 MB of memory (80614 MB available, using 72552 MB of "
        "it), using FLOATS, using Tensor Cores\n"
        "50.0%  proc'd: 10 (60000 Gflop/s) - 10 (59000 Gflop/s)   errors: 0 - 0   temps: 50 C - 51 C \n");
    ck_assert_uint_eq(rep->section_count, 1);
    ck_assert_uint_eq(rep->unrecognized_lines, 0);
    const struct report_gemm *g = &rep->sections[0].u.gemm;
    ck_assert_str_eq(g->tool, "gpu_burn");
    ck_assert_int_eq(rep->sections[0].first_line, 1);
    ck_assert_int_eq(g->row_count, 2);
    ck_assert_str_eq(g->rows[0].name, "NVIDIA A100-SXM4-80GB");
    ck_assert_str_eq(g->rows[1].name, "NVIDIA A100-SXM4-80GB");
    /* -tc: the inputs are still FP32; the tool does not say which tensor
     * math cuBLAS picked, so the precision is not turned into tf32 */
    ck_assert_int_eq(g->tensor_cores, 1);
    ck_assert_str_eq(g->precision, "fp32");
    report_free(rep);
    /* under -i 1 gpu_burn still lists every GPU but tests one column:
     * which name is the column's is not said, so none is given */
    rep = parse(
        "$ ./gpu_burn -i 1 10\n"
        "GPU 0: Tesla K80 (UUID: GPU-6b15ee7a-dc27-9450-1be9-43cff0faef9b)\n"
        "GPU 1: Tesla P100 (UUID: GPU-0fcbc6b5-7be5-2b6f-7f19-436f8e9a760e)\n"
        "50.0%  proc'd: 10 (6000 Gflop/s)   errors: 0   temps: 50 C \n");
    g = &first(rep, REPORT_GEMM)->u.gemm;
    ck_assert_int_eq(g->row_count, 1);
    ck_assert_str_eq(g->rows[0].name, "");
    ck_assert_int_eq(g->tensor_cores, 0);
    report_free(rep);
}
END_TEST

START_TEST(parse_gemm_leaves_bare_nvidia_smi_list_output_alone)
{
    /* the same lines without gpu_burn after them are no gemm run */
    struct report *rep = parse(
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-6b15ee7a-dc27-9450-1be9-43cff0faef9b)\n"
        "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-0fcbc6b5-7be5-2b6f-7f19-436f8e9a760e)\n"
        "\n"
        "all done\n");
    ck_assert_uint_eq(rep->section_count, 0);
    ck_assert_uint_eq(rep->unrecognized_lines, 3);
    report_free(rep);
    /* nor dcgmproftester's, which never prints them: its section opens at
     * its own first line and the list stays unrecognized */
    rep = parse(
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-6b15ee7a-dc27-9450-1be9-43cff0faef9b)\n"
        "Skipping CreateDcgmGroups() since DCGM validation is disabled\n"
        "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 (6.1e+05 gflops).\n");
    ck_assert_uint_eq(rep->section_count, 1);
    ck_assert_uint_eq(rep->unrecognized_lines, 1);
    ck_assert_int_eq(rep->sections[0].first_line, 2);
    ck_assert_str_eq(rep->sections[0].u.gemm.tool, "dcgmproftester");
    report_free(rep);
    /* after `nvidia-smi -L` on a command line the list is nvidia-smi's */
    rep = parse(
        "$ nvidia-smi -L\n"
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-6b15ee7a-dc27-9450-1be9-43cff0faef9b)\n");
    ck_assert_ptr_null(first(rep, REPORT_GEMM));
    ck_assert_ptr_nonnull(first(rep, REPORT_GPU));
    report_free(rep);
}
END_TEST

START_TEST(parse_gemm_takes_the_test_id_from_the_command_line)
{
    struct report *rep = parse(
        "$ dcgmproftester12 --no-dcgm-validation -t 1004 -d 120\n"
        "TensorEngineActive: generated ???, dcgm 0.000 (27450.3 gflops)\n"
        "TensorEngineActive: generated ???, dcgm 0.000 (27520.2 gflops)\n");
    const struct report_section *s = first(rep, REPORT_GEMM);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.gemm.test_id, 1004);
    report_free(rep);
    /* a list of loads names no single one */
    rep = parse("$ dcgmproftester12 --no-dcgm-validation -t 1004,1005 -d 120\n"
                "TensorEngineActive: generated ???, dcgm 0.000 (27450.3 gflops)\n");
    ck_assert_int_eq(first(rep, REPORT_GEMM)->u.gemm.test_id, -1);
    report_free(rep);
}
END_TEST

START_TEST(check_warns_when_the_tensor_gemm_is_below_60_percent_of_peak)
{
    struct report *rep = parse(
        "Worker 0:0[1004]: TensorEngineActive: generated ???, dcgm 0.000 (240000.0 gflops)\n"
        "Worker 0:0[1004]: TensorEngineActive: generated ???, dcgm 0.000 (250000.0 gflops)\n");
    struct expectation e = exp_min(EXP_GEMM_TFLOPS, EXP_GEMM_PEAK_FRACTION * 989);
    report_check(&e, 1, rep, &verdict);
    const struct report_finding *f = finding(&verdict, EXP_GEMM_TFLOPS);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_WARN);
    ck_assert_double_eq_tol(f->observed, 250, 1e-9);
    e = exp_min(EXP_GEMM_TFLOPS, EXP_GEMM_PEAK_FRACTION * 312);
    report_check(&e, 1, rep, &verdict);
    ck_assert_int_eq(finding(&verdict, EXP_GEMM_TFLOPS)->severity, SEV_PASS);
    report_free(rep);
}
END_TEST

START_TEST(check_fails_gpu_burn_that_died_even_when_it_says_ok)
{
    struct report *rep = parse(
        "50.0%  proc'd: -1 (0 Gflop/s) - 9 (5000 Gflop/s)   errors: 1641686072  (DIED!)- 0   "
        "temps: 33 C - 29 C \nNo clients are alive!  Aborting\nTested 2 GPUs:\n  GPU 0: OK\n"
        "  GPU 1: OK\n");
    report_check(NULL, 0, rep, &verdict);
    ck_assert_int_eq(verdict.verdict, SEV_FAIL);
    ck_assert_int_eq(finding(&verdict, "gemm.died")->severity, SEV_FAIL);
    ck_assert_int_eq(finding(&verdict, "gemm.not_run")->severity, SEV_FAIL);
    /* the dead GPU's garbage count is the death, not a second finding */
    ck_assert_ptr_null(finding(&verdict, "gemm.errors"));
    report_free(rep);
}
END_TEST

START_TEST(measured_takes_the_tensor_gemm_median_but_not_gpu_burn_or_mig)
{
    struct report_measured m;
    struct report *rep = parse(
        "TensorEngineActive: generated ???, dcgm 0.000 (100000.0 gflops)\n"
        "TensorEngineActive: generated ???, dcgm 0.000 (300000.0 gflops)\n"
        "TensorEngineActive: generated ???, dcgm 0.000 (320000.0 gflops)\n"
        "gpu_burn -d 60\n"
        "100.0%  proc'd: 9 (19000 Gflop/s)   errors: 0   temps: 60 C\n");
    ck_assert_uint_eq(rep->section_count, 2);
    report_measured_extract(rep, &m);
    ck_assert_double_eq_tol(m.matmul_tflops, 310, 1e-9);
    report_free(rep);
    rep = parse("gpu_burn -d 60\n100.0%  proc'd: 9 (19000 Gflop/s)   errors: 0   temps: 60 C\n");
    report_measured_extract(rep, &m);
    ck_assert(isnan(m.matmul_tflops));
    report_free(rep);
    rep = parse("Worker 0:1[1004]: TensorEngineActive: generated ???, dcgm 0.000 (107000.0 gflops)\n"
                "Worker 0:1[1004]: TensorEngineActive: generated ???, dcgm 0.000 (108000.0 gflops)\n"
                "CUDA_VISIBLE_DEVICES: MIG-GPU-5fd15f35-e148-2992-4ecb-9825e534f253/2/0\n");
    report_measured_extract(rep, &m);
    ck_assert(isnan(m.matmul_tflops));
    report_free(rep);
}
END_TEST

/* nvidia-smi's default table as it prints it, less its timestamp line:
 * the box's top border, the banner, one GPU. */
#define SMI_TABLE                                                                              \
    "+-----------------------------------------------------------------------------------------+\n" \
    "| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |\n" \
    "+-----------------------------------------+------------------------+----------------------+\n" \
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n" \
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n" \
    "|=========================================+========================+======================|\n" \
    "|   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |                    0 |\n" \
    "| N/A   36C    P0             79W /  700W |       0MiB / 143771MiB |      0%      Default |\n" \
    "+-----------------------------------------+------------------------+----------------------+\n"

/* The lines a parse of text leaves unrecognized. */
static size_t unrec_of(const char *text, size_t len)
{
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse(text, len, &rep), ST_OK);
    size_t n = rep->unrecognized_lines;
    report_free(rep);
    return n;
}

/* What the line stamp adds to the unrecognized lines of before + after
 * (1: it is unrecognized, 0: it is taken as some output's). */
static size_t stamp_cost(const char *before, const char *stamp, const char *after)
{
    char text[4096];
    int n = snprintf(text, sizeof(text), "%s%s%s", before, stamp, after);
    ck_assert(n > 0 && n < (int)sizeof(text));
    size_t with = unrec_of(text, (size_t)n);
    n = snprintf(text, sizeof(text), "%s%s", before, after);
    return with - unrec_of(text, (size_t)n);
}

START_TEST(parse_nvidia_smi_table_takes_its_timestamp_only_when_the_table_follows)
{
    /* the stamp nvidia-smi prints above its box, padded with blanks as it
     * prints it, is the table's, like the border under it: nothing is
     * left unrecognized and the section still opens at the banner */
    struct report *rep = parse("Mon Nov 30 17:36:48 2026       \n" SMI_TABLE);
    ck_assert_uint_eq(rep->unrecognized_lines, 0);
    ck_assert_uint_eq(rep->section_count, 1);
    ck_assert_int_eq(rep->sections[0].kind, REPORT_GPU);
    ck_assert_int_eq(rep->sections[0].first_line, 3);
    ck_assert_int_eq(rep->sections[0].u.gpu.gpu_count, 1);
    report_free(rep);
    /* ctime's blank-padded day; after the command line (its section is
     * open when the stamp comes); with CRLF line ends; quoted; two
     * captures in a row; after another tool's table */
    ck_assert_uint_eq(stamp_cost("$ nvidia-smi\n", "Mon Oct  2 13:30:03 2023       \n", SMI_TABLE), 0);
    ck_assert_uint_eq(stamp_cost("", "Fri Dec 15 13:33:36 2023       \r\n",
                                 "+------------------------------------------------------+\r\n"
                                 "| NVIDIA-SMI 530.30.02   Driver Version: 530.30.02      |\r\n"),
                      0);
    ck_assert_uint_eq(stamp_cost("", "> Sun Apr 23 23:14:19 2023\n",
                                 "> +------------------------------------------------------+\n"
                                 "> | NVIDIA-SMI 525.85.12   Driver Version: 525.85.12      |\n"),
                      0);
    ck_assert_uint_eq(stamp_cost("Mon Nov 30 17:36:48 2026\n" SMI_TABLE "\n",
                                 "Mon Nov 30 17:38:53 2026\n", SMI_TABLE),
                      0);
    static const char two[] = "Mon Nov 30 17:36:48 2026\n" SMI_TABLE "\n"
                              "Mon Nov 30 17:38:53 2026\n" SMI_TABLE;
    ck_assert_uint_eq(unrec_of(two, sizeof(two) - 1), 0);
    ck_assert_uint_eq(
        stamp_cost("#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
                   "     1048576        262144     float     sum      -1    52.1   20.12   35.21      0\n",
                   "Tue Jun  6 14:11:59 2023\n", SMI_TABLE),
        0);
    /* a date line that no table follows at once stays unrecognized:
     * alone, last with no newline, before a blank line, before a box that
     * is not nvidia-smi's, before a border the input ends after, and inside
     * a table where the next box is its processes' */
    ck_assert_uint_eq(stamp_cost("", "Mon Nov 30 17:40:01 2026\n", ""), 1);
    ck_assert_uint_eq(stamp_cost("", "Mon Nov 30 17:40:01 2026", ""), 1);
    ck_assert_uint_eq(stamp_cost("", "Mon Nov 30 17:40:01 2026\n", "\n" SMI_TABLE), 1);
    ck_assert_uint_eq(stamp_cost("", "Mon Nov 30 17:40:01 2026\n",
                                 "+---------------------------+------------------------------------------------+\n"
                                 "| Diagnostic                | Result                                         |\n"),
                      1);
    ck_assert_uint_eq(stamp_cost("", "Mon Nov 30 17:40:01 2026\n",
                                 "+-----------------------------------------------------------------------------+\n"),
                      1);
    ck_assert_uint_eq(stamp_cost(SMI_TABLE, "Mon Nov 30 17:40:01 2026\n",
                                 "\n"
                                 "+-----------------------------------------------------------------------------------------+\n"
                                 "| Processes:                                                                              |\n"
                                 "|  No running processes found                                                             |\n"),
                      1);
    /* the answer is the place's, not the text's: the same stamp text
     * once lone and once above the table, in either order */
    ck_assert_uint_eq(stamp_cost("Mon Nov 30 17:40:01 2026\n\n", "Mon Nov 30 17:40:01 2026\n",
                                 SMI_TABLE),
                      0);
    ck_assert_uint_eq(stamp_cost("Mon Nov 30 17:40:01 2026\n" SMI_TABLE, "Mon Nov 30 17:40:01 2026\n",
                                 "\n"),
                      1);
    /* the names are the locale's: nvidia-smi under de_DE prints "Di Dez",
     * "Mär" (UTF-8), so any names of letters are taken in ctime's form */
    ck_assert_uint_eq(stamp_cost("", "Di Dez  1 00:36:15 2026\n", SMI_TABLE), 0);
    ck_assert_uint_eq(stamp_cost("", "Mi M\xc3\xa4r  4 09:00:00 2026\n", SMI_TABLE), 0);
    ck_assert_uint_eq(stamp_cost("", "Mox Nov 30 17:40:01 2026\n", SMI_TABLE), 0);
    ck_assert_uint_eq(stamp_cost("", "Mon Nox 30 17:40:01 2026\n", SMI_TABLE), 0);
    ck_assert_uint_eq(stamp_cost("", "Di Dez  1 00:36:15 2026\n", ""), 1);
    /* nor is any other line of that shape: `date`'s form (it names the
     * zone, nvidia-smi never does), a name with a digit or of one letter
     * or of none, a digit short */
    ck_assert_uint_eq(stamp_cost("", "Mon Nov 30 17:40:01 UTC 2026\n", SMI_TABLE), 1);
    ck_assert_uint_eq(stamp_cost("", "M0n Nov 30 17:40:01 2026\n", SMI_TABLE), 1);
    ck_assert_uint_eq(stamp_cost("", "D Dez  1 00:36:15 2026\n", SMI_TABLE), 1);
    ck_assert_uint_eq(stamp_cost("", "Mon \xc3\xa4\xc3\xa4  1 00:36:15 2026\n", SMI_TABLE), 1);
    ck_assert_uint_eq(stamp_cost("", "Mon Nov 30 17:40:1  2026\n", SMI_TABLE), 1);
}
END_TEST

START_TEST(parse_nvidia_smi_timestamp_reads_nothing_past_the_input)
{
    /* the stamp and the box cut at every byte, in a buffer of exactly that
     * size (no NUL after it): the look at the lines after the stamp stops
     * at the input's end, and only a banner that shows "Driver Version"
     * makes the stamp the table's */
    static const char text[] =
        "Mon Nov 30 17:36:48 2026\n"
        "+-----------------------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |\n";
    size_t full = sizeof(text) - 1, stamp = 25;
    size_t banner = (size_t)(strstr(text, "Driver Version") - text) + strlen("Driver Version");
    for (size_t len = 1; len <= full; len++) {
        char *cut = malloc(len);
        memcpy(cut, text, len);
        size_t rest = len > stamp ? unrec_of(text + stamp, len - stamp) : 0;
        ck_assert_uint_eq(unrec_of(cut, len), rest + (len >= banner ? 0 : 1));
        free(cut);
    }
}
END_TEST

START_TEST(parse_survives_binary_and_unterminated_input)
{
    char junk[4096];
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (char)((i * 2654435761u) >> 13);
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse(junk, sizeof(junk), &rep), ST_OK);
    report_free(rep);
    /* a buffer that ends mid-number with no NUL after it */
    char *cut = malloc(5);
    memcpy(cut, "GPU0 ", 5);
    ck_assert_int_eq(report_parse(cut, 5, &rep), ST_OK);
    report_free(rep);
    free(cut);
    /* a lone '#' (an nccl-tests blank line) as the very last byte */
    char *hash = malloc(1);
    hash[0] = '#';
    ck_assert_int_eq(report_parse(hash, 1, &rep), ST_OK);
    ck_assert_uint_eq(rep->unrecognized_lines, 0);
    report_free(rep);
    free(hash);
}
END_TEST

START_TEST(parse_caps_sections_and_counts_the_rest)
{
    size_t n = REPORT_SECTIONS_MAX + 10;
    char *text = malloc(n * 32);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, 32, "analyzing CPU %zu:\n", i);
    struct report *rep = NULL;
    ck_assert_int_eq(report_parse(text, len, &rep), ST_OK);
    ck_assert_uint_eq(rep->section_count, REPORT_SECTIONS_MAX);
    ck_assert_uint_eq(rep->sections_dropped, 10);
    report_free(rep);
    free(text);
}
END_TEST

/* ---- text helpers against byte-loop references ---- */

/* A small generator (xorshift64*): the same draws on every run. */
static uint64_t draw(uint64_t *st)
{
    *st ^= *st >> 12;
    *st ^= *st << 25;
    *st ^= *st >> 27;
    return *st * 2685821657736338717ull;
}

/* Random text over a few bytes the helpers treat specially, in lengths that
 * cross the 16- and 32-byte steps. */
static size_t draw_text(uint64_t *st, char *buf, size_t cap, const char *alpha, size_t na)
{
    size_t len = (size_t)(draw(st) % cap);
    for (size_t i = 0; i < len; i++)
        buf[i] = alpha[draw(st) % na];
    return len;
}

/* A random line: up to most-1 pieces drawn from pieces, joined into buf
 * while they fit (the draws: the count, then each piece). Its length. */
static size_t join_pieces(const char *const *pieces, size_t npieces, unsigned most, uint64_t *st, char *buf,
                          size_t cap)
{
    size_t len = 0, want = (size_t)(draw(st) % most);
    for (size_t i = 0; i < want; i++) {
        const char *pc = pieces[draw(st) % npieces];
        size_t n = strlen(pc);
        if (len + n > cap)
            break;
        memcpy(buf + len, pc, n);
        len += n;
    }
    return len;
}

/* buf's len bytes copied to the end of block (cap bytes, from malloc), so
 * that a read past the text is a read past the heap block (caught by the
 * sanitizer builds). */
static char *at_block_end(char *block, size_t cap, const char *buf, size_t len)
{
    char *heap = block + cap - len;
    memcpy(heap, buf, len);
    return heap;
}

static size_t ref_line_scan(const char *s, size_t avail, size_t *rb)
{
    size_t i = 0;
    *rb = LINE_NO_BRACKET;
    for (; i < avail && s[i] != '\n'; i++)
        if (s[i] == ']' && *rb == LINE_NO_BRACKET)
            *rb = i;
    return i;
}

START_TEST(line_scan_matches_a_byte_loop_on_random_text)
{
    /* each text is copied to the end of a heap block, so that a read past
     * avail is caught by the sanitizer build */
    char *block = malloc(160);
    static const char alpha[] = "aaaaaaaa    ]]\t[\n\n";
    static const char sparse[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n";
    char buf[160];
    uint64_t st = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 2000000; k++) {
        /* dense ']' and newlines; none at all; then both rare, as in logs */
        size_t len = k % 3 == 0   ? draw_text(&st, buf, sizeof(buf), alpha, sizeof(alpha) - 1)
                     : k % 3 == 1 ? draw_text(&st, buf, sizeof(buf), alpha, sizeof(alpha) - 3)
                                  : draw_text(&st, buf, sizeof(buf), sparse, sizeof(sparse) - 1);
        char *heap = block + 160 - len;
        memcpy(heap, buf, len);
        size_t rb, rb_ref;
        size_t ll = line_scan(heap, len, &rb);
        size_t ll_ref = ref_line_scan(heap, len, &rb_ref);
        /* checked only on a mismatch: each Check assertion writes to its
         * log, which would be most of the time of millions of cases */
        if (ll != ll_ref || rb != rb_ref) {
            ck_assert_uint_eq(ll, ll_ref);
            ck_assert_uint_eq(rb, rb_ref);
        }
    }
    free(block);
}
END_TEST

/* nccl_info_quiet's claim, held to nccl_line itself: an INFO line it calls
 * quiet is taken (TAKE_YES) by an NCCL section that has read a header and a
 * row, and leaves every byte of the section as it was; its end is the line's
 * newline (or the text's end). Lines are INFO lines built from pieces that
 * make nccl_line read them (WARN markers, the three messages info_line
 * reads, a leading digit or '#', an 'N' before the ']'), with the rest of
 * the input after them. */
START_TEST(nccl_info_quiet_lines_change_nothing_in_an_nccl_section)
{
    static const char *const heads[] = {
        "gpu-a17:88123:88190 [3]", "NODE1:1:2 [0]", "1.2.3.4:5:6 [1]", "# h:1:2 [0]", "x [7]",
        "gpuNCCL WARN:1:2 [0]", "host-with-a-long-name-for-the-window:12345:67890 [5]", "[2]",
    };
    static const char *const msgs[] = {
        "Channel 07/0 : 3[3] -> 4[4] via P2P/CUMEM/read", "comm 0x5612 rank 0 nRanks 64 nNodes 8",
        "NCCL_ALGO set by environment to Ring", "Using network IB", "NET/IB : Using [0]mlx5_0:1/IB",
        "NCCL WARN Cuda failure", "W", "N", " ", "", "\t", "Using", "comm", "NCCL_ALG",
        "8 2 float sum -1 36.47 0.00 0.00 0", "NCCL INFO comm 0x1 nRanks 2", "x]y",
    };
    static const char *const tails[] = {"\n", "\nnext line\n", "", "   \n", "\r\n", " W\n", "`\n"};
    static const char *const pre[] = {
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
        "     8388608       2097152     float     sum      -1    60.1  139.57  244.25      0    60.0  139.81  244.67      0",
    };
    char text[4096];
    struct report_section *sec = malloc(sizeof(*sec)), *was = malloc(sizeof(*sec));
    char *block = malloc(sizeof(text));
    struct line l;
    /* the section as the driver has it mid-table */
    memset(was, 0, sizeof(*was));
    memset(&l, 0, sizeof(l));
    was->kind = REPORT_NCCL;
    nccl_init(was);
    for (int i = 0; i < 2; i++) {
        line_clean(pre[i], strlen(pre[i]), &l);
        ck_assert_int_eq(nccl_line(was, &l), TAKE_YES);
    }
    ck_assert_int_eq(was->u.nccl.row_count, 1);
    uint64_t st = 0x2545F4914F6CDD1Dull;
    int quiet = 0;
    for (int k = 0; k < 60000; k++) {
        size_t len = (size_t)snprintf(text, sizeof(text), "%s NCCL INFO %s%s%s",
                                      heads[draw(&st) % (sizeof(heads) / sizeof(heads[0]))],
                                      msgs[draw(&st) % (sizeof(msgs) / sizeof(msgs[0]))],
                                      msgs[draw(&st) % (sizeof(msgs) / sizeof(msgs[0]))],
                                      tails[draw(&st) % (sizeof(tails) / sizeof(tails[0]))]);
        if (draw(&st) % 4 == 0)
            text[11 + draw(&st) % 20] = (char)" NW]\n"[draw(&st) % 5];
        char *heap = at_block_end(block, sizeof(text), text, len);
        size_t rb, ll = line_scan(heap, len, &rb), e = 0;
        if (rb == LINE_NO_BRACKET || rb + 11 > len || !span_starts(heap + rb, len - rb, "] NCCL INFO") ||
            (line_debris((unsigned char)heap[0]) & DEBRIS_OPEN))
            continue;
        if (!nccl_info_quiet(heap, len, rb, &e))
            continue;
        quiet++;
        ck_assert_uint_eq(e, ll);
        memcpy(sec, was, sizeof(*sec));
        line_clean(heap, ll, &l);
        l.info = nccl_is_info(&l);
        ck_assert_int_ne(l.info, 0);
        ck_assert_int_eq(nccl_line(sec, &l), TAKE_YES);
        if (memcmp(was, sec, sizeof(*sec)) != 0)
            ck_abort_msg("nccl_info_quiet said quiet, nccl_line changed the section: \"%.*s\"",
                         (int)ll, heap);
    }
    /* many drawn lines are quiet, and many are not */
    ck_assert_int_gt(quiet, 6000);
    ck_assert_int_lt(quiet, 45000);
    free(block);
    free(sec);
    free(was);
}
END_TEST

/* nic_counter_key against the plain answer: every byte a letter, digit or
 * one of "_.-[]", and a bit for each word found anywhere by a search. */
START_TEST(nic_counter_key_matches_a_search_for_each_word)
{
    static const char *const words[] = {"_rx", "_tx", "pause", "duration", "transition", "storm",
                                        "err", "crc", "fcs", "discard", "out_of_buffer"};
    static const char *const pieces[] = {
        "_rx", "_tx", "pause", "duration", "transition", "storm", "err", "crc", "fcs", "discard",
        "out_of_buffer", "_r", "_t", "pa", "du", "di", "tr", "st", "er", "cr", "fc", "ou", "rx",
        "tx", "_", "x", "e", "s", "packets", "bytes", "[0]", ".", "-", "Q9", " ", ":", "/",
        "\xE2", "out_of_buf",
    };
    char buf[80];
    char *block = malloc(sizeof(buf));
    uint64_t st = 0x9E3779B97F4A7C15ull;
    int counters = 0;
    for (int k = 0; k < 400000; k++) {
        size_t len = join_pieces(pieces, sizeof(pieces) / sizeof(pieces[0]), 12, &st, buf, sizeof(buf));
        char *heap = at_block_end(block, sizeof(buf), buf, len);
        int want = len >= 1 && len <= 64;
        for (size_t i = 0; want && i < len; i++) {
            unsigned char c = (unsigned char)heap[i];
            want = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '.' || c == '-' || c == '[' || c == ']';
        }
        unsigned want_w = 0, got_w = 0xDEAD;
        for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
            size_t n = strlen(words[w]);
            for (size_t i = 0; i + n <= len; i++)
                if (memcmp(heap + i, words[w], n) == 0) {
                    want_w |= 1u << w;
                    break;
                }
        }
        int got = nic_counter_key(heap, len, &got_w);
        counters += got;
        if (got != want || (got && got_w != want_w))
            ck_abort_msg("nic_counter_key(\"%.*s\") = %d %#x, by search %d %#x", (int)len, heap, got,
                         got_w, want, want_w);
    }
    ck_assert_int_gt(counters, 10000);
    free(block);
}
END_TEST

/* line_clean as it was before its one-load exits: chains of byte tests. */
static int ref_box_at(const char *s, size_t len)
{
    return len >= 3 && (unsigned char)s[0] == 0xE2 &&
           ((unsigned char)s[1] == 0x94 || (unsigned char)s[1] == 0x95);
}

static void ref_line_clean(const char *s, size_t len, struct line *l)
{
    int indent = 0;
    for (;;) {
        if (len && (*s == ' ' || *s == '\t' || *s == '\r')) {
            indent += *s == '\t' ? 8 : 1;
            s++;
            len--;
        } else if (len && *s == '>' && (len == 1 || s[1] == ' ' || s[1] == '\t' || s[1] == '>')) {
            s++;
            len--;
            indent = 0;
        } else if (len && *s == '`') {
            s++;
            len--;
        } else if (ref_box_at(s, len)) {
            s += 3;
            len -= 3;
            indent = 0;
        } else {
            break;
        }
    }
    while (len) {
        char c = s[len - 1];
        if (c == ' ' || c == '\t' || c == '\r' || c == '`')
            len--;
        else if (len >= 3 && ref_box_at(s + len - 3, 3))
            len -= 3;
        else
            break;
    }
    l->raw = s;
    l->raw_len = len;
    l->indent = indent;
    l->hashed = 0;
    if (len && *s == '#') {
        l->hashed = 1;
        s++;
        len--;
        while (len && (*s == ' ' || *s == '\t')) {
            s++;
            len--;
        }
    }
    l->s = s;
    l->len = len;
    if (len == 0)
        l->raw_len = 0;
}

START_TEST(line_clean_matches_byte_tests_on_random_lines)
{
    /* pieces of paste debris (blanks, quote marks, backticks, box
     * characters and their parts) around a little text */
    static const char *const pieces[] = {
        " ", " ", " ", "        ", "\t", "\r", ">", "> ", ">>", "`", "#", "# ", "a", "b7",
        "\xE2\x94\x80", "\xE2\x95\xBF", "\xE2\x94", "\xE2", "\x94", "\xE2\x93\x80", "-",
    };
    char buf[96];
    char *block = malloc(sizeof(buf));
    uint64_t st = 0x2545F4914F6CDD1Dull;
    for (int k = 0; k < 2000000; k++) {
        size_t len = join_pieces(pieces, sizeof(pieces) / sizeof(pieces[0]), 24, &st, buf, sizeof(buf));
        char *heap = at_block_end(block, sizeof(buf), buf, len);
        struct line a, b;
        memset(&a, 0, sizeof(a));
        memset(&b, 0, sizeof(b));
        line_clean(heap, len, &a);
        ref_line_clean(heap, len, &b);
        if (a.raw != b.raw || a.raw_len != b.raw_len || a.s != b.s || a.len != b.len ||
            a.indent != b.indent || a.hashed != b.hashed)
            ck_abort_msg("line_clean differs on \"%.*s\"", (int)len, heap);
    }
    free(block);
}
END_TEST

START_TEST(strong_possible_matches_its_table_loop_on_random_lines)
{
    /* whole strong substrings, pieces of them (a pair short), the first
     * bytes of lead markers and filler, so that both answers are common */
    static const char *const pieces[] = {
        "NCCL WARN", "NCCL WAR", "_perf", "_per", " Test", "Test", "ib_", "ib", "Waiting for client",
        " to connect", "nvidia-smi", "nvidia-sm", "NVSMI LOG", "NVSMI LO", "NVIDIA-SMI ",
        "Successfully ran diagnostic", "Successfully ran diag", "dcgmi diag", "dcgmi dia",
        "Diagnostic\"", "Diagnostic", "nvbandwidth", "nvbandwidt", ": (g", ": (", "\"fio version\"",
        "\"fio version", "cpupower frequency-info", "cpupower frequency", "lscpu", "lscp",
        "ethtool -", "ethtool ", "ibstat", "ibsta", "ibv_devinfo", "ibv_devinf", "flop", "flo",
        "burn", "bur", "dcgmproftester", "dcgmproftest", "size", "GPU0", "x", "a,b", "q.r", " ",
        "  ", "|", "-", "W", "N", "S", "\v",
    };
    char buf[120];
    struct line_pairs pairs;
    memset(&pairs, 0, sizeof(pairs));
    uint64_t st = 0x9E3779B97F4A7C15ull;
    int seen[2] = {0, 0};
    for (int k = 0; k < 400000; k++) {
        size_t len = join_pieces(pieces, sizeof(pieces) / sizeof(pieces[0]), 5, &st, buf, sizeof(buf));
        struct line l;
        memset(&l, 0, sizeof(l));
        line_clean(buf, len, &l);
        l.pairs = &pairs;
        pairs.searches = 0;
        int got = report_strong_possible(&l);
        pairs.searches = 0;
        int ref = report_strong_possible_ref(&l);
        if (got != ref)
            ck_abort_msg("strong_possible %d, its table loop %d on \"%.*s\"", got, ref, (int)len,
                         buf);
        seen[ref != 0]++;
    }
    /* both answers drawn often: the test can tell a substring left out */
    ck_assert_int_gt(seen[0], 50000);
    ck_assert_int_gt(seen[1], 50000);
}
END_TEST

static const char *ref_find(const char *s, size_t len, const char *lit, size_t n)
{
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, lit, n) == 0)
            return s + i;
    return NULL;
}

START_TEST(span_find_matches_a_naive_search_on_random_text)
{
    /* a small alphabet, so that literals occur, start falsely and overlap */
    static const char alpha[] = "ab  Tt_";
    char buf[80], lit[8];
    char *block = malloc(sizeof(buf));
    uint64_t st = 0x5851F42D4C957F2Dull;
    for (int k = 0; k < 2000000; k++) {
        size_t len = draw_text(&st, buf, sizeof(buf), alpha, sizeof(alpha) - 1);
        size_t n = 1 + (size_t)(draw(&st) % (sizeof(lit) - 1));
        for (size_t i = 0; i < n; i++)
            lit[i] = alpha[draw(&st) % (sizeof(alpha) - 1)];
        char *heap = at_block_end(block, sizeof(buf), buf, len);
        const char *got = span_find_n(heap, len, lit, n), *want = ref_find(heap, len, lit, n);
        if (got != want)
            ck_abort_msg("span_find_n(\"%.*s\", \"%.*s\") differs", (int)len, heap, (int)n, lit);
    }
    free(block);
}
END_TEST

START_TEST(span_trim_matches_a_byte_loop_on_random_text)
{
    static const char alpha[] = "        \t\r\vxy:";
    char buf[48];
    char *block = malloc(sizeof(buf));
    uint64_t st = 0x94D049BB133111EBull;
    for (int k = 0; k < 2000000; k++) {
        size_t len = draw_text(&st, buf, sizeof(buf), alpha, sizeof(alpha) - 1);
        char *heap = at_block_end(block, sizeof(buf), buf, len);
        const char *a = heap, *b = heap;
        size_t al = len, bl = len;
        span_trim(&a, &al);
        /* blanks and CR off the front, then off the back */
        while (bl && (*b == ' ' || *b == '\t' || *b == '\v' || *b == '\f' || *b == '\r')) {
            b++;
            bl--;
        }
        while (bl && (b[bl - 1] == ' ' || b[bl - 1] == '\t' || b[bl - 1] == '\v' ||
                      b[bl - 1] == '\f' || b[bl - 1] == '\r'))
            bl--;
        /* an all-blank span may end anywhere in itself: only its length counts */
        if (al != bl || (al && a != b))
            ck_abort_msg("span_trim(\"%.*s\") differs", (int)len, heap);
    }
    free(block);
}
END_TEST

START_TEST(span_has_pair_ci_matches_a_byte_loop_on_random_text)
{
    static const char alpha[] = "sSmMx \x13\x33";
    char buf[64];
    char *block = malloc(sizeof(buf));
    uint64_t st = 0xBF58476D1CE4E5B9ull;
    for (int k = 0; k < 2000000; k++) {
        size_t len = draw_text(&st, buf, sizeof(buf), alpha, sizeof(alpha) - 1);
        char *heap = at_block_end(block, sizeof(buf), buf, len);
        int want = 0;
        for (size_t i = 0; i + 1 < len && !want; i++)
            want = (heap[i] | 0x20) == 's' && (heap[i + 1] | 0x20) == 'm';
        if (span_has_pair_ci(heap, len, 's', 'm') != want)
            ck_abort_msg("span_has_pair_ci(\"%.*s\") differs", (int)len, heap);
    }
    free(block);
}
END_TEST

/* Blank-separated tokens one byte at a time: ' ', '\t', '\v', '\f'. */
static int ref_tok_split(const char *s, size_t len, struct tok *out, int max)
{
    int n = 0;
    size_t i = 0;
    if (max > TOK_MAX)
        max = TOK_MAX;
    while (n < max) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f'))
            i++;
        if (i == len)
            break;
        size_t b = i;
        while (i < len && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f'))
            i++;
        out[n].s = s + b;
        out[n].len = i - b;
        n++;
    }
    return n;
}

/* Two splits agree: as many tokens, each at the same address and length. */
static int same_toks(const struct tok *a, int na, const struct tok *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (a[i].s != b[i].s || a[i].len != b[i].len)
            return 0;
    return 1;
}

START_TEST(tok_split_matches_a_byte_loop_on_random_text)
{
    /* blanks of every kind, other control bytes (\n, \r, \x01) that are
     * not blanks, and long runs, in lines that cross the 16- and 8-byte steps */
    static const char alpha[] = "ab7.      \t\v\f\n\r\x01";
    char buf[160];
    char *block = malloc(sizeof(buf));
    struct tok a[TOK_MAX], b[TOK_MAX];
    uint64_t st = 0x2127599BF4325C37ull;
    for (int k = 0; k < 1000000; k++) {
        size_t len = draw_text(&st, buf, sizeof(buf), alpha,
                               (k & 1) ? 10 : sizeof(alpha) - 1);   /* spaces and words only */
        int max = 1 + (int)(draw(&st) % 70);
        char *heap = at_block_end(block, sizeof(buf), buf, len);
        int na = tok_split(heap, len, a, max), nb = ref_tok_split(heap, len, b, max);
        if (!same_toks(a, na, b, nb))
            ck_abort_msg("tok_split(\"%.*s\", %d) differs", (int)len, heap, max);
    }
    free(block);
}
END_TEST

/* The comma splitter it replaced: one byte at a time. */
static int ref_csv_split(const char *s, size_t len, struct tok *out, int max)
{
    int n = 0;
    size_t b = 0;
    for (size_t i = 0; i <= len && n < max; i++) {
        if (i == len || s[i] == ',') {
            const char *f = s + b;
            size_t fl = i - b;
            span_trim(&f, &fl);
            out[n].s = f;
            out[n].len = fl;
            n++;
            b = i + 1;
        }
    }
    return n;
}

START_TEST(csv_split_matches_a_byte_loop_on_random_text)
{
    /* commas dense and sparse, padding around fields, in lines that cross
     * the 8-byte steps; the text ends a heap block (sanitizer builds) */
    static const char alpha[] = "ab.7 ,,\t\r";
    static const char sparse[] = "aaaaaaaaaaaaaaaaaaaaaa   ,";
    char buf[120];
    char *block = malloc(sizeof(buf));
    struct tok a[GPU_CSV_COLS], b[GPU_CSV_COLS];
    uint64_t st = 0x6A09E667F3BCC909ull;
    for (int k = 0; k < 1000000; k++) {
        size_t len = (k & 1) ? draw_text(&st, buf, sizeof(buf), alpha, sizeof(alpha) - 1)
                             : draw_text(&st, buf, sizeof(buf), sparse, sizeof(sparse) - 1);
        int max = 1 + (int)(draw(&st) % GPU_CSV_COLS);
        char *heap = at_block_end(block, sizeof(buf), buf, len);
        int na = csv_split(heap, len, a, max), nb = ref_csv_split(heap, len, b, max);
        if (!same_toks(a, na, b, nb))
            ck_abort_msg("csv_split(\"%.*s\", %d) differs", (int)len, heap, max);
    }
    free(block);
}
END_TEST

START_TEST(num_parse_matches_the_general_reader_on_random_tokens)
{
    /* num_parse_suffix reads a token with the general prefix reader and
     * takes it whole unless one k/m/g letter ends it: for tokens not ending
     * in such a letter it is the reference num_parse must agree with, value
     * bit for bit; tokens that do end in one are never plain numbers. */
    static const char alpha[] = "0123456789012345678901234567890123456789..--++eEkx ";
    char buf[28];
    uint64_t st = 0xD1B54A32D192ED03ull;
    char *block = malloc(sizeof(buf));
    for (int k = 0; k < 3000000; k++) {
        size_t len = draw_text(&st, buf, (k & 1) ? 8 : sizeof(buf), alpha, sizeof(alpha) - 1);
        char *heap = at_block_end(block, sizeof(buf), buf, len);
        double v = -7, r = -7;
        int got = num_parse(heap, len, &v);
        int want = len > 0 && !strchr("kKmMgG", heap[len - 1]) && num_parse_suffix(heap, len, &r);
        if (got != want || (got && memcmp(&v, &r, sizeof(v)) != 0))
            ck_abort_msg("num_parse(\"%.*s\") = %d %.17g, reference %d %.17g", (int)len, heap,
                         got, v, want, r);
    }
    free(block);
}
END_TEST

/* num_parse_lo against num_parse, value bit for bit, on random tokens after
 * random bytes of their line (lo: the line's start), each line copied to a
 * heap block of its own size, so that a read outside it is caught by the
 * sanitizer builds. */
START_TEST(num_parse_lo_matches_num_parse_on_random_cells)
{
    static const char alpha[] = "0123456789012345678901234567890123456789....--+eEx N";
    char buf[32];
    uint64_t st = 0x6A09E667F3BCC909ull;
    int fast = 0;
    for (int k = 0; k < 1000000; k++) {
        size_t pre = (size_t)(draw(&st) % 13);
        size_t len = pre + draw_text(&st, buf + pre, 11, alpha, sizeof(alpha) - 1);
        for (size_t i = 0; i < pre; i++)
            buf[i] = alpha[draw(&st) % (sizeof(alpha) - 1)];
        if (len == 0)
            continue;
        char *line = malloc(len);
        memcpy(line, buf, len);
        double v = -7, r = -7;
        int got = num_parse_lo(line + pre, len - pre, &v, line);
        int want = num_parse(line + pre, len - pre, &r);
        fast += got && len >= 8 && len - pre <= 8;
        if (got != want || memcmp(&v, &r, sizeof(v)) != 0)
            ck_abort_msg("num_parse_lo(\"%.*s\" after %zu bytes) = %d %.17g, num_parse %d %.17g",
                         (int)(len - pre), line + pre, pre, got, v, want, r);
        free(line);
    }
    ck_assert_int_gt(fast, 20000);
}
END_TEST

/* ---- checker ---- */

static const char *TOPO_PCIE = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tSYS\t0-7\nGPU1\tSYS\t X \t0-7\n";
static const char *TOPO_NV = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\t0-7\nGPU1\tNV18\t X \t0-7\n";

/* ---- GPU clocks and power (R10) ---- */

/* One GPU in driver 580's -q layout; the reasons' states, the GPU's average
 * and instantaneous draw and its limit are filled in. The memory's and the
 * module's readings, printed after it under the same keys, must never be
 * taken for the GPU's. */
#define Q_CLOCKS \
    "==============NVSMI LOG==============\n" \
    "Attached GPUs                             : 1\n" \
    "GPU 00000000:18:00.0\n" \
    "    Product Name                          : NVIDIA H100 80GB HBM3\n" \
    "    Clocks Event Reasons\n" \
    "        Idle                              : Not Active\n" \
    "        SW Power Cap                      : %s\n" \
    "        HW Slowdown                       : %s\n" \
    "            HW Thermal Slowdown           : %s\n" \
    "            HW Power Brake Slowdown       : %s\n" \
    "        SW Thermal Slowdown               : %s\n" \
    "    Clocks Event Reasons Counters\n" \
    "        SW Power Capping                  : 6248667 us\n" \
    "        SW Thermal Slowdown               : 0 us\n" \
    "    Temperature\n" \
    "        GPU Current Temp                  : 71 C\n" \
    "    GPU Power Readings\n" \
    "        Average Power Draw                : %s\n" \
    "        Instantaneous Power Draw          : %s\n" \
    "        Current Power Limit               : %s\n" \
    "        Default Power Limit               : 700.00 W\n" \
    "    GPU Memory Power Readings \n" \
    "        Average Power Draw                : 95.00 W\n" \
    "        Instantaneous Power Draw          : 96.00 W\n" \
    "    Module Power Readings\n" \
    "        Average Power Draw                : 1010.00 W\n" \
    "        Current Power Limit               : 1200.00 W\n" \
    "    Clocks\n" \
    "        Graphics                          : 1755 MHz\n" \
    "        SM                                : 1755 MHz\n" \
    "    Max Clocks\n" \
    "        Graphics                          : 1980 MHz\n" \
    "        SM                                : 1980 MHz\n"

#define NA "Not Active"

static struct report *q_clocks(const char *swcap, const char *hw, const char *hwt,
                               const char *brake, const char *swt, const char *avg,
                               const char *inst, const char *limit)
{
    char buf[4096];
    int n = snprintf(buf, sizeof(buf), Q_CLOCKS, swcap, hw, hwt, brake, swt, avg, inst, limit);
    ck_assert(n > 0 && (size_t)n < sizeof(buf));
    return parse(buf);
}

static const struct report_gpu_info *gpu0(const struct report *rep)
{
    const struct report_section *s = first(rep, REPORT_GPU);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.gpu.info_count, 1);
    return &s->u.gpu.info[0];
}

static const struct report_finding *judge_free(struct report *rep, const char *id)
{
    report_check(NULL, 0, rep, &verdict);
    report_free(rep);
    return finding(&verdict, id);
}

START_TEST(parse_nvidia_smi_q_reads_the_gpus_power_not_the_memorys_or_modules)
{
    struct report *rep = q_clocks("Active", NA, NA, NA, NA, "693.00 W", "700.85 W", "700.00 W");
    const struct report_gpu_info *g = gpu0(rep);
    ck_assert_double_eq_tol(g->power_w, 693.0, 1e-9);     /* the average, as power.draw */
    ck_assert_double_eq_tol(g->power_cap_w, 700.0, 1e-9);
    ck_assert_double_eq_tol(g->power_cap_default_w, 700.0, 1e-9);
    ck_assert_double_eq_tol(g->sm_clock_mhz, 1755.0, 1e-9);
    ck_assert_double_eq_tol(g->sm_clock_max_mhz, 1980.0, 1e-9);
    report_free(rep);
    /* an average of N/A leaves the instantaneous draw; the memory's 95 W
     * and the module's 1010 W are never the GPU's */
    rep = q_clocks("Active", NA, NA, NA, NA, "N/A", "702.10 W", "700.00 W");
    ck_assert_double_eq_tol(gpu0(rep)->power_w, 702.1, 1e-9);
    report_free(rep);
    rep = q_clocks("Active", NA, NA, NA, NA, "N/A", "N/A", "700.00 W");
    ck_assert(isnan(gpu0(rep)->power_w));
    report_free(rep);
}
END_TEST

START_TEST(parse_clock_event_reasons_keeps_active_apart_from_shown)
{
    struct report *rep = q_clocks(NA, "Active", NA, "Active", NA, "41.20 W", "N/A", "700.00 W");
    const struct report_gpu_info *g = gpu0(rep);
    ck_assert_uint_eq(g->clock_reasons_active,
                      (1u << CLK_HW_SLOWDOWN) | (1u << CLK_HW_POWER_BRAKE));
    /* six reasons shown, Idle included; Sync Boost etc. not shown */
    ck_assert_uint_eq(g->clock_reasons_shown,
                      (1u << CLK_GPU_IDLE) | (1u << CLK_SW_POWER_CAP) | (1u << CLK_HW_SLOWDOWN) |
                          (1u << CLK_HW_THERMAL) | (1u << CLK_HW_POWER_BRAKE) |
                          (1u << CLK_SW_THERMAL));
    report_free(rep);
    /* older drivers: "Clocks Throttle Reasons", "Power Readings", "Power Draw" */
    rep = parse("==============NVSMI LOG==============\n"
                "Attached GPUs                             : 1\n"
                "GPU 00000000:1A:00.0\n"
                "    Clocks Throttle Reasons\n"
                "        SW Power Cap                      : Not Active\n"
                "        HW Slowdown                       : Active\n"
                "            HW Thermal Slowdown           : Active\n"
                "        SW Thermal Slowdown               : N/A\n"
                "    Power Readings\n"
                "        Power Draw                        : 212.35 W\n"
                "        Power Limit                       : 300.00 W\n"
                "        Enforced Power Limit              : 250.00 W\n");
    g = gpu0(rep);
    ck_assert_uint_eq(g->clock_reasons_active, (1u << CLK_HW_SLOWDOWN) | (1u << CLK_HW_THERMAL));
    ck_assert_uint_eq(g->clock_reasons_shown & (1u << CLK_SW_THERMAL), 0);   /* N/A: not read */
    ck_assert_double_eq_tol(g->power_w, 212.35, 1e-9);
    ck_assert_double_eq_tol(g->power_cap_w, 250.0, 1e-9);   /* the enforced limit wins */
    report_free(rep);
}
END_TEST

START_TEST(parse_query_csv_reads_clocks_limits_and_the_reason_mask)
{
    struct report *rep = parse(
        "index, pci.bus_id, power.draw.instant [W], power.draw.average [W], power.limit [W], "
        "enforced.power.limit [W], power.default_limit [W], clocks.sm [MHz], clocks.max.sm [MHz], "
        "clocks_throttle_reasons.active, clocks_event_reasons.sw_thermal_slowdown\n"
        "0, 00000000:1A:00.0, 50.00 W, 41.20 W, 300.00 W, 250.00 W, 300.00 W, 382 MHz, 1530 MHz, "
        "0x0000000000000088, Active\n");
    const struct report_gpu_info *g = gpu0(rep);
    ck_assert_double_eq_tol(g->power_w, 41.2, 1e-9);
    ck_assert_double_eq_tol(g->power_cap_w, 250.0, 1e-9);
    ck_assert_double_eq_tol(g->power_cap_default_w, 300.0, 1e-9);
    ck_assert_double_eq_tol(g->sm_clock_mhz, 382.0, 1e-9);
    ck_assert_double_eq_tol(g->sm_clock_max_mhz, 1530.0, 1e-9);
    /* 0x88 = HW Slowdown (0x8) + HW Power Brake (0x80), NVML's bits */
    ck_assert_uint_eq(g->clock_reasons_active, (1u << CLK_HW_SLOWDOWN) |
                                                   (1u << CLK_HW_POWER_BRAKE) |
                                                   (1u << CLK_SW_THERMAL));
    ck_assert_uint_eq(g->clock_reasons_shown, (1u << CLK_REASON_COUNT) - 1);
    report_free(rep);
}
END_TEST

START_TEST(check_passes_sw_power_cap_at_the_limit_and_names_the_clock)
{
    const struct report_finding *f = judge_free(
        q_clocks("Active", NA, NA, NA, NA, "693.00 W", "700.85 W", "700.00 W"), "gpu.sw_power_cap");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_PASS);
    ck_assert_str_eq(f->rule, "R10");
    ck_assert_double_eq_tol(f->observed, 693.0, 1e-9);
    ck_assert_double_eq_tol(f->expected, 700.0, 1e-9);
    ck_assert_ptr_nonnull(strstr(f->message, "SM clock 1755 of 1980 MHz"));
    ck_assert_int_eq(verdict.verdict, SEV_PASS);
}
END_TEST

START_TEST(check_warns_sw_power_cap_far_below_the_limit)
{
    const struct report_finding *f = judge_free(
        q_clocks("Active", NA, NA, NA, NA, "15.65 W", "N/A", "700.00 W"), "gpu.sw_power_cap");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_WARN);
    ck_assert_str_eq(f->rule, "R10,R11");
    ck_assert_ptr_nonnull(strstr(f->hint, "nvidia-smi -pl"));
    ck_assert_int_eq(verdict.verdict, SEV_WARN);
}
END_TEST

START_TEST(check_is_unknown_for_sw_power_cap_between_or_without_a_draw)
{
    const struct report_finding *f = judge_free(
        q_clocks("Active", NA, NA, NA, NA, "450.00 W", "N/A", "700.00 W"), "gpu.sw_power_cap");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_UNKNOWN);
    f = judge_free(q_clocks("Active", NA, NA, NA, NA, "N/A", "N/A", "700.00 W"), "gpu.sw_power_cap");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_UNKNOWN);
    ck_assert_int_eq(verdict.verdict, SEV_UNKNOWN);
}
END_TEST

START_TEST(check_warns_when_the_power_limit_is_below_the_default)
{
    struct report *rep = q_clocks("Active", NA, NA, NA, NA, "498.00 W", "N/A", "500.00 W");
    const struct report_finding *f = judge_free(rep, "gpu.power_limit_lowered");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_WARN);
    ck_assert_double_eq_tol(f->observed, 500.0, 1e-9);
    ck_assert_double_eq_tol(f->expected, 700.0, 1e-9);
    /* at the lowered limit the cap is no pass: the one finding is the limit */
    ck_assert_ptr_null(finding(&verdict, "gpu.sw_power_cap"));
    /* a lowered limit warns even while the cap is not active */
    f = judge_free(q_clocks(NA, NA, NA, NA, NA, "98.00 W", "N/A", "500.00 W"),
                   "gpu.power_limit_lowered");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_WARN);
}
END_TEST

START_TEST(check_fails_hw_thermal_and_power_brake_and_warns_sw_thermal)
{
    const struct report_finding *f = judge_free(
        q_clocks(NA, "Active", "Active", NA, "Active", "300.00 W", "N/A", "700.00 W"),
        "gpu.hw_thermal_slowdown");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_FAIL);
    ck_assert_str_eq(f->rule, "R10");
    ck_assert_ptr_nonnull(strstr(f->message, "71 C"));
    ck_assert_double_eq_tol(f->observed, 1755.0, 1e-9);
    f = finding(&verdict, "gpu.sw_thermal_slowdown");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_WARN);
    /* the named cause stands for its parent: no second, vaguer finding */
    ck_assert_ptr_null(finding(&verdict, "gpu.hw_slowdown"));
    f = judge_free(q_clocks(NA, "Active", NA, "Active", NA, "41.20 W", "N/A", "700.00 W"),
                   "gpu.hw_power_brake");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_FAIL);
    ck_assert_ptr_nonnull(strstr(f->hint, "PSU"));
    ck_assert_int_eq(verdict.verdict, SEV_FAIL);
}
END_TEST

START_TEST(check_warns_on_hw_slowdown_with_no_cause_named)
{
    const struct report_finding *f = judge_free(
        q_clocks(NA, "Active", NA, NA, NA, "300.00 W", "N/A", "700.00 W"), "gpu.hw_slowdown");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_WARN);
    ck_assert_str_eq(f->rule, "R10");
}
END_TEST

START_TEST(check_says_nothing_of_reasons_not_active_or_not_shown)
{
    static const char *ids[] = {"gpu.sw_power_cap", "gpu.power_limit_lowered", "gpu.hw_slowdown",
                                "gpu.hw_thermal_slowdown", "gpu.hw_power_brake",
                                "gpu.sw_thermal_slowdown"};
    judge_free(q_clocks(NA, NA, NA, NA, NA, "79.27 W", "79.40 W", "700.00 W"), ids[0]);
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        ck_assert_ptr_null(finding(&verdict, ids[i]));
    /* "N/A" states are not "Active" either */
    judge_free(q_clocks("N/A", "N/A", "N/A", "N/A", "N/A", "79.27 W", "N/A", "700.00 W"), ids[0]);
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        ck_assert_ptr_null(finding(&verdict, ids[i]));
}
END_TEST

START_TEST(check_fails_a_pcie_path_where_nvswitch_is_planned)
{
    ck_assert_int_eq(judge(TOPO_PCIE, exp_val(EXP_TOPO_GPU_LINK, "NV"), EXP_TOPO_GPU_LINK), SEV_FAIL);
    ck_assert_int_eq(verdict.verdict, SEV_FAIL);
    ck_assert_int_eq(judge(TOPO_NV, exp_val(EXP_TOPO_GPU_LINK, "NV"), EXP_TOPO_GPU_LINK), SEV_PASS);
}
END_TEST

START_TEST(check_fails_when_nvlinks_are_down)
{
    const char *t = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV12\t0-7\nGPU1\tNV12\t X \t0-7\n";
    ck_assert_int_eq(judge(t, exp_min(EXP_TOPO_NVLINK_MIN, 18), EXP_TOPO_NVLINK_MIN), SEV_FAIL);
}
END_TEST

START_TEST(check_is_unknown_when_a_cut_matrix_shows_no_fault)
{
    const char *t = "GPU0 GPU1 GPU2\nGPU0 X NV18 NV18\n";
    ck_assert_int_eq(judge(t, exp_val(EXP_TOPO_GPU_LINK, "NV"), EXP_TOPO_GPU_LINK), SEV_UNKNOWN);
}
END_TEST

START_TEST(check_grades_busbw_at_90_and_70_percent_of_expected)
{
    ck_assert_int_eq(judge(nccl_text(ROW_LARGE_480, ""), exp_min(EXP_NCCL_INTRA_BUSBW, 460),
                           EXP_NCCL_INTRA_BUSBW), SEV_PASS);
    ck_assert_int_eq(judge(nccl_text(ROW_LARGE_480, ""), exp_min(EXP_NCCL_INTRA_BUSBW, 560),
                           EXP_NCCL_INTRA_BUSBW), SEV_WARN);
    ck_assert_int_eq(judge(nccl_text(ROW_LARGE_300, ""), exp_min(EXP_NCCL_INTRA_BUSBW, 460),
                           EXP_NCCL_INTRA_BUSBW), SEV_FAIL);
}
END_TEST

START_TEST(check_never_judges_busbw_by_the_avg_footer)
{
    /* Only small messages plus a high footer: no evidence at large sizes. */
    ck_assert_int_eq(judge(nccl_text(ROW_SMALL, "# Avg bus bandwidth    : 999\n"),
                           exp_min(EXP_NCCL_INTRA_BUSBW, 460), EXP_NCCL_INTRA_BUSBW), SEV_UNKNOWN);
}
END_TEST

START_TEST(check_hints_pfc_buffers_when_cross_node_is_30_percent_of_intra)
{
    char text[16384];
    snprintf(text, sizeof(text), "%s%s"
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296\n"
             "#  Rank  0 Group  0 Pid 1 on nodeA device  0 [0x18] NVIDIA H100 80GB HBM3\n"
             "#  Rank 15 Group  0 Pid 1 on nodeB device  7 [0xdb] NVIDIA H100 80GB HBM3\n"
             "  4294967296    1073741824     float     sum      -1  60000   71.58  134.22      0  60000   71.58  134.22      0\n",
             NCCL_HDR, ROW_LARGE_480);
    ck_assert_int_eq(judge(text, exp_min(EXP_NCCL_INTER_BUSBW, 370), EXP_NCCL_INTER_BUSBW), SEV_FAIL);
    const struct report_finding *f = finding(&verdict, EXP_NCCL_INTER_BUSBW);
    ck_assert_ptr_nonnull(strstr(f->hint, "PFC"));
    ck_assert_ptr_nonnull(strstr(f->hint, "R25"));
}
END_TEST

START_TEST(check_fails_wrong_results_and_nccl_warn_lines)
{
    const char *rows =
        "  4294967296    1073741824     float     sum      -1  15600  275.32  481.81      2  15610  275.14  481.50      0\n";
    ck_assert_int_eq(judge(nccl_text(rows, ""), exp_max(EXP_NCCL_WRONG, 0), EXP_NCCL_WRONG), SEV_FAIL);
    ck_assert_int_eq(judge("h:1:2 [0] misc.cc:1 NCCL WARN Cuda failure 'out of memory'\n",
                           exp_max(EXP_NCCL_WARNINGS, 0), EXP_NCCL_WARNINGS), SEV_FAIL);
    /* without a plan, too */
    ck_assert_int_eq(judge(nccl_text(rows, ""), exp_min("unrelated.id", 1), EXP_NCCL_WRONG), SEV_FAIL);
}
END_TEST

static const char *IB_MIX = "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
                            "\t\tRate: 200\n\t\tBase lid: 7\n\t\tLink layer: InfiniBand\n"
                            "CA 'mlx5_1'\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Polling\n"
                            "\t\tRate: 10\n\t\tBase lid: 0\n\t\tLink layer: InfiniBand\n";

START_TEST(check_fails_ports_down_wrong_rate_and_bad_lid)
{
    ck_assert_int_eq(judge(IB_MIX, exp_min(EXP_IB_RATE, 400), EXP_IB_RATE), SEV_FAIL);
    ck_assert_int_eq(judge(IB_MIX, exp_min(EXP_IB_PORTS_ACTIVE, 2), EXP_IB_PORTS_ACTIVE), SEV_FAIL);
    ck_assert_ptr_nonnull(finding(&verdict, "ib.port_state"));
    ck_assert_int_eq(finding(&verdict, "ib.port_state")->severity, SEV_FAIL);
    ck_assert_int_eq(judge("CA 'x'\n\tPort 1:\n\t\tState: Active\n\t\tBase lid: 65535\n\t\tLink layer: InfiniBand\n",
                           exp_min("unrelated.id", 1), "ib.lid"), SEV_FAIL);
}
END_TEST

START_TEST(check_grades_ib_write_bw_against_t3)
{
    const char *t = "                    RDMA_Write BW Test\n"
                    " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
                    " 8388608    5000             300.10             299.80               0.0045\n";
    ck_assert_int_eq(judge(t, exp_min(EXP_IB_WRITE_BW, 375), EXP_IB_WRITE_BW), SEV_FAIL);
    ck_assert_int_eq(judge(t, exp_min(EXP_IB_WRITE_BW, 185), EXP_IB_WRITE_BW), SEV_PASS);
}
END_TEST

static const char *SMI_X8 = "==============NVSMI LOG==============\nAttached GPUs : 1\nGPU 00000000:18:00.0\n"
                            "            PCIe Generation\n                Max : 4\n"
                            "            Link Width\n                Max : 16x\n                Current : 8x\n"
                            "    ECC Errors\n        Aggregate\n            DRAM Uncorrectable : 3\n"
                            "    Remapped Rows\n        Pending : Yes\n";

START_TEST(check_fails_pcie_width_and_generation_below_plan)
{
    ck_assert_int_eq(judge(SMI_X8, exp_min(EXP_GPU_PCIE_WIDTH, 16), EXP_GPU_PCIE_WIDTH), SEV_FAIL);
    ck_assert_int_eq(judge(SMI_X8, exp_min(EXP_GPU_PCIE_GEN, 5), EXP_GPU_PCIE_GEN), SEV_FAIL);
    /* width below the GPU's own max fails without a plan (T6) */
    ck_assert_ptr_nonnull(finding(&verdict, "gpu.pcie_width_degraded"));
}
END_TEST

START_TEST(check_fails_uncorrectable_ecc_and_pending_remap)
{
    ck_assert_int_eq(judge(SMI_X8, exp_max(EXP_GPU_ECC_UNCORR, 0), EXP_GPU_ECC_UNCORR), SEV_FAIL);
    ck_assert_int_eq(judge(SMI_X8, exp_max(EXP_GPU_REMAP_PENDING, 0), EXP_GPU_REMAP_PENDING), SEV_FAIL);
}
END_TEST

START_TEST(check_warns_on_a_governor_other_than_performance)
{
    const char *t = "analyzing CPU 0:\n  current policy: frequency should be within 800 MHz and 3.80 GHz.\n"
                    "                  The governor \"powersave\" may decide which speed to use\n";
    ck_assert_int_eq(judge(t, exp_val(EXP_CPU_GOVERNOR, "performance"), EXP_CPU_GOVERNOR), SEV_WARN);
    ck_assert_int_eq(verdict.verdict, SEV_WARN);
}
END_TEST

START_TEST(check_treats_dcgm_skip_as_skip_and_fail_as_fail)
{
    ck_assert_int_eq(judge("| PCIe                      | Skip                                           |\n",
                           exp_max(EXP_DCGM_FAIL, 0), EXP_DCGM_FAIL), SEV_SKIP);
    ck_assert_int_eq(verdict.verdict, SEV_UNKNOWN);
    ck_assert_int_eq(judge("| PCIe                      | Fail - GPU: 3                                  |\n",
                           exp_max(EXP_DCGM_FAIL, 0), EXP_DCGM_FAIL), SEV_FAIL);
}
END_TEST

START_TEST(check_warns_on_pause_frames_and_link_errors)
{
    const char *t = "NIC statistics:\n     rx_pause_ctrl_phy: 500\n     rx_crc_errors_phy: 2\n";
    ck_assert_int_eq(judge(t, exp_max(EXP_NIC_PAUSE, 100), EXP_NIC_PAUSE), SEV_FAIL);
    ck_assert_int_eq(judge(t, exp_max(EXP_NIC_ERRORS, 0), EXP_NIC_ERRORS), SEV_FAIL);
    /* without a plan: warnings, citing R39 */
    ck_assert_int_eq(judge(t, exp_min("unrelated.id", 1), EXP_NIC_ERRORS), SEV_WARN);
}
END_TEST

START_TEST(check_compares_fio_with_planned_read_and_write_rates)
{
    const char *t = "j: (g=0): rw=write, bs=(R) 1024KiB-1024KiB, ioengine=libaio, iodepth=16\n"
                    "  write: IOPS=1000, BW=954MiB/s (1000MB/s)(56GiB/60001msec)\n";
    ck_assert_int_eq(judge(t, exp_min(EXP_STORAGE_WRITE, 2000), EXP_STORAGE_WRITE), SEV_FAIL);
    ck_assert_int_eq(judge(t, exp_min(EXP_STORAGE_WRITE, 950), EXP_STORAGE_WRITE), SEV_PASS);
    ck_assert_int_eq(judge(t, exp_min(EXP_STORAGE_READ, 950), EXP_STORAGE_READ), SEV_UNKNOWN);
}
END_TEST

START_TEST(check_lists_expectations_without_evidence_and_never_passes_them)
{
    struct report *rep = parse(TOPO_NV);
    struct expectation e[2] = {exp_val(EXP_TOPO_GPU_LINK, "NV"), exp_min(EXP_NCCL_INTRA_BUSBW, 460)};
    report_check(e, 2, rep, &verdict);
    report_free(rep);
    ck_assert_int_eq(verdict.verdict, SEV_UNKNOWN);
    ck_assert_uint_eq(verdict.no_evidence_count, 1);
    ck_assert_str_eq(verdict.no_evidence[0], EXP_NCCL_INTRA_BUSBW);
}
END_TEST

START_TEST(check_without_plan_or_reports_is_unknown)
{
    struct report *rep = parse("hello\n");
    report_check(NULL, 0, rep, &verdict);
    report_free(rep);
    ck_assert_int_eq(verdict.verdict, SEV_UNKNOWN);
}
END_TEST

START_TEST(measured_takes_the_worst_large_message_busbw_per_scope)
{
    struct report *rep = parse(nccl_text(ROW_LARGE_480, ""));
    struct report_measured m;
    report_measured_extract(rep, &m);
    report_free(rep);
    ck_assert_double_eq_tol(m.intra_busbw_gbs, 481.81, 1e-9);
    ck_assert(isnan(m.inter_busbw_gbs));
    ck_assert(isnan(m.matmul_tflops));
}
END_TEST

/* A NET/IB completion error puts its diagnosis last ("with error 4, ...
 * vendor err 81 (Send)", NCCL issue 928): the kept WARN text holds it. */
START_TEST(parse_nccl_keeps_a_net_ib_warning_to_its_vendor_error)
{
    struct report *rep = parse(
        "H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion "
        "from peer fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, "
        "vendor err 81 (Send)\n"
        "H100-2:19989:20082 [1] NCCL INFO transport/net.cc:1008 -> 6\n");
    const struct report_section *s = first(rep, REPORT_NCCL);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->u.nccl.nccl_warnings, 1);
    const char *w = s->u.nccl.warnings[0];
    ck_assert_str_eq(w + strlen(w) - strlen("vendor err 81 (Send)"), "vendor err 81 (Send)");
    ck_assert(strncmp(w, "NET/IB : Got completion from peer", 33) == 0);
    report_free(rep);
}
END_TEST

/* With the plan's nccl.warnings expectation the failed finding quotes the
 * first WARN text too, not only the count. */
START_TEST(check_quotes_the_first_nccl_warning_against_a_plan)
{
    struct report *rep = parse(
        "H100-1:9821:9920 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from "
        "peer fe80::966d:ae03:8b:df50%ib0<44413> with error 4, opcode 32613, len 32613, vendor "
        "err 81 (Send)\n");
    struct expectation e = exp_max(EXP_NCCL_WARNINGS, 0);
    report_check(&e, 1, rep, &verdict);
    const struct report_finding *f = finding(&verdict, EXP_NCCL_WARNINGS);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->severity, SEV_FAIL);
    ck_assert_ptr_nonnull(strstr(f->message, "with error 4"));
    ck_assert_ptr_nonnull(strstr(f->message, "vendor err 81 (Send)"));
    report_free(rep);
}
END_TEST

/* T2: across nodes only Ring's busbw is NIC-bound; a Tree run meeting the
 * threshold proves nothing of the fabric (unknown), a Ring run passes. */
START_TEST(check_does_not_pass_a_cross_node_busbw_measured_without_ring)
{
    static const char head[] =
        "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824 step: 2(factor) warmup iters: "
        "5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#\n"
        "# Using devices\n"
        "#  Rank  0 Group  0 Pid     43 on host-a device  0 [0x0f] NVIDIA H100 80GB HBM3\n"
        "#  Rank  1 Group  0 Pid     43 on host-b device  0 [0x0f] NVIDIA H100 80GB HBM3\n";
    static const char table[] =
        "#\n"
        "#                                                              out-of-place               "
        "        in-place\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
        "time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
        "(us)  (GB/s)  (GB/s)\n"
        "  1073741824     268435456     float     sum      -1   5000.0  214.75  214.75      0   "
        "5000.0  214.75  214.75      0\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 214.75\n";
    char text[4096];
    struct expectation e = exp_min(EXP_NCCL_INTER_BUSBW, 200);
    for (int tree = 0; tree < 2; tree++) {
        snprintf(text, sizeof text, "%s%s%s", head,
                 tree ? "host-a:43:43 [0] NCCL INFO NCCL_ALGO set by environment to Tree\n" : "",
                 table);
        struct report *rep = parse(text);
        const struct report_section *s = first(rep, REPORT_NCCL);
        ck_assert_ptr_nonnull(s);
        ck_assert_int_eq(s->u.nccl.nodes, 2);
        report_check(&e, 1, rep, &verdict);
        const struct report_finding *f = finding(&verdict, EXP_NCCL_INTER_BUSBW);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(f->severity, tree ? SEV_UNKNOWN : SEV_PASS);
        if (tree) {
            ck_assert_ptr_nonnull(strstr(f->message, "NCCL_ALGO=Tree"));
            ck_assert_ptr_nonnull(strstr(f->hint, "NCCL_ALGO=Ring"));
        }
        report_free(rep);
    }
}
END_TEST

/* ---- gpu.model: the card the plan was sized for ---- */

/* nvidia-smi's table of two H100 SXM5 GPUs (thamada/nvidia-smi's rows). */
#define SMI_TABLE_H100                                                                         \
    "+-----------------------------------------------------------------------------------------+\n" \
    "| NVIDIA-SMI 565.57.01              Driver Version: 565.57.01      CUDA Version: 12.7     |\n" \
    "|-----------------------------------------+------------------------+----------------------+\n" \
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n" \
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n" \
    "|=========================================+========================+======================|\n" \
    "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |\n" \
    "| N/A   30C    P0             75W /  700W |       1MiB /  81559MiB |      0%      Default |\n" \
    "+-----------------------------------------+------------------------+----------------------+\n" \
    "|   1  NVIDIA H100 80GB HBM3          On  |   00000000:2A:00.0 Off |                    0 |\n" \
    "| N/A   31C    P0             76W /  700W |       1MiB /  81559MiB |      0%      Default |\n" \
    "+-----------------------------------------+------------------------+----------------------+\n"

static char *csv_names(const char *a, const char *b)
{
    static char buf[256];
    snprintf(buf, sizeof(buf), "index, name, pci.bus_id\n0, %s, 00000000:18:00.0\n%s%s%s", a,
             b ? "1, " : "", b ? b : "", b ? ", 00000000:19:00.0\n" : "");
    return buf;
}

static enum report_severity model(const char *text, const char *plan_id)
{
    return judge(text, exp_val(EXP_GPU_MODEL, plan_id), EXP_GPU_MODEL);
}

START_TEST(check_fails_a_gpu_model_other_than_the_plans_and_names_both)
{
    /* the H100 table on a B200 plan: gpu.count alone would pass it */
    ck_assert_int_eq(model(SMI_TABLE_H100, "b200-sxm-180gb"), SEV_FAIL);
    const struct report_finding *f = finding(&verdict, EXP_GPU_MODEL);
    ck_assert_str_eq(f->observed_text, "NVIDIA H100 80GB HBM3");
    ck_assert_str_eq(f->expected_text, "b200-sxm-180gb");
    ck_assert_ptr_nonnull(strstr(f->message, "NVIDIA H100 80GB HBM3"));
    ck_assert_ptr_nonnull(strstr(f->message, "b200-sxm-180gb"));
    ck_assert_int_eq(verdict.verdict, SEV_FAIL);
    ck_assert_int_eq(model(SMI_TABLE_H100, "h100-sxm-80gb"), SEV_PASS);
    /* a card no catalog row is, without the plan's family in its name */
    ck_assert_int_eq(model(csv_names("Tesla V100-SXM2-32GB", NULL), "h100-sxm-80gb"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("NVIDIA GH200 480GB", NULL), "h100-sxm-80gb"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("NVIDIA GH200 480GB", NULL), "gb200-nvl-186gb"), SEV_FAIL);
}
END_TEST

START_TEST(check_tells_the_variants_of_one_gpu_apart)
{
    ck_assert_int_eq(model(csv_names("NVIDIA H100 PCIe", NULL), "h100-sxm-80gb"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("NVIDIA H100 PCIe", NULL), "h100-pcie-80gb"), SEV_PASS);
    ck_assert_int_eq(model(csv_names("NVIDIA H100 NVL", NULL), "h100-nvl-94gb"), SEV_PASS);
    ck_assert_int_eq(model(csv_names("NVIDIA H100 NVL", NULL), "h100-pcie-80gb"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("NVIDIA A100-SXM4-40GB", NULL), "a100-sxm-80gb"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("NVIDIA A100-SXM4-80GB", NULL), "a100-sxm-80gb"), SEV_PASS);
    ck_assert_int_eq(model(csv_names("NVIDIA A100 80GB PCIe", NULL), "a100-pcie-80gb"), SEV_PASS);
    ck_assert_int_eq(model(csv_names("NVIDIA A100-PCIE-40GB", NULL), "a100-pcie-40gb"), SEV_PASS);
    ck_assert_int_eq(model(csv_names("NVIDIA H200", NULL), "h200-sxm-141gb"), SEV_PASS);
    ck_assert_int_eq(model(csv_names("NVIDIA H200 NVL", NULL), "h200-sxm-141gb"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("NVIDIA L4", NULL), "l40s-pcie-48gb"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("NVIDIA A10", NULL), "a100-sxm-80gb"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("NVIDIA RTX 6000 Ada Generation", NULL),
                           "rtx6000ada-pcie-48gb"), SEV_PASS);
}
END_TEST

START_TEST(check_never_passes_a_gpu_name_it_cannot_map)
{
    /* the plan's family, but no catalog card: a vGPU profile, a cut table name */
    ck_assert_int_eq(model(csv_names("GRID H100-80C", NULL), "h100-sxm-80gb"), SEV_UNKNOWN);
    ck_assert_int_eq(model(csv_names("NVIDIA H100 ...", NULL), "h100-sxm-80gb"), SEV_UNKNOWN);
    ck_assert_int_eq(model(csv_names("NVIDIA RTX 6000 Ada Gene...", NULL),
                           "rtx6000ada-pcie-48gb"), SEV_PASS);
    /* a plan card nvidia-smi never names: only another catalog card fails */
    ck_assert_int_eq(model(csv_names("Tesla T4", NULL), "mi300x-oam-192gb"), SEV_UNKNOWN);
    ck_assert_int_eq(model(csv_names("NVIDIA H100 80GB HBM3", NULL), "mi300x-oam-192gb"),
                     SEV_FAIL);
    /* no name at all: no evidence */
    ck_assert_int_eq(model(TOPO_NV, "h100-sxm-80gb"), SEV_UNKNOWN);
    ck_assert_uint_eq(verdict.no_evidence_count, 1);
}
END_TEST

START_TEST(check_fails_mixed_gpu_models_with_or_without_a_plan)
{
    ck_assert_int_eq(model(csv_names("Tesla T4", "Tesla V100-SXM2-16GB"), "t4"), SEV_FAIL);
    ck_assert_int_eq(model(csv_names("GRID H100-80C", "GRID H100-40C"), "h100-sxm-80gb"),
                     SEV_FAIL);
    ck_assert_int_eq(judge(csv_names("Tesla T4", "Tesla V100-SXM2-16GB"),
                           exp_min("unrelated.id", 1), EXP_GPU_MODEL), SEV_FAIL);
    /* an nccl-tests run over two cards (nccl-tests issue 131: a GTX 1050 Ti
     * and a GTX 950): every rank line's name is read, not the first only */
    const char *ranks = "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
                        "#\n# Using devices\n"
                        "#   Rank  0 Pid  12345 on       host device  0 [0x01] NVIDIA GeForce GTX 1050 Ti\n"
                        "#   Rank  1 Pid  12345 on       host device  1 [0x03] NVIDIA GeForce GTX 950\n";
    struct report *nr = parse(ranks);
    const struct report_section *ns = first(nr, REPORT_NCCL);
    ck_assert_ptr_nonnull(ns);
    ck_assert_str_eq(ns->u.nccl.gpu_name, "NVIDIA GeForce GTX 1050 Ti");
    ck_assert_int_eq(ns->u.nccl.other_gpu_count, 1);
    ck_assert_str_eq(ns->u.nccl.other_gpus[0], "NVIDIA GeForce GTX 950");
    report_free(nr);
    ck_assert_int_eq(judge(ranks, exp_min("unrelated.id", 1), EXP_GPU_MODEL), SEV_FAIL);
    /* one card named by two tools (the table, the CSV): one model */
    struct report *rep = parse(SMI_TABLE_H100);
    struct report *more = parse(csv_names("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"));
    ck_assert_int_eq(report_append(rep, more), ST_OK);
    report_check(NULL, 0, rep, &verdict);
    ck_assert_ptr_null(finding(&verdict, EXP_GPU_MODEL));
    report_free(rep);
    report_free(more);
}
END_TEST

/* ---- ib: a disabled spare port ---- */

static const char *IB_SPARE = "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
                              "\t\tRate: 400\n\t\tBase lid: 7\n\t\tLink layer: InfiniBand\n"
                              "CA 'mlx5_1'\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Disabled\n"
                              "\t\tRate: 40\n\t\tBase lid: 0\n\t\tLink layer: InfiniBand\n";

START_TEST(check_warns_on_a_disabled_spare_port_when_the_active_ones_meet_the_plan)
{
    ck_assert_int_eq(judge(IB_SPARE, exp_min(EXP_IB_PORTS_ACTIVE, 1), "ib.port_state"), SEV_WARN);
    ck_assert_ptr_nonnull(strstr(finding(&verdict, "ib.port_state")->message, "mlx5_1 port 1"));
    ck_assert_int_eq(finding(&verdict, EXP_IB_PORTS_ACTIVE)->severity, SEV_PASS);
    ck_assert_int_eq(verdict.verdict, SEV_WARN);
    /* no plan count: a warning too, never a pass */
    ck_assert_int_eq(judge(IB_SPARE, exp_min("unrelated.id", 1), "ib.port_state"), SEV_WARN);
    /* the plan needs the disabled port: it fails */
    ck_assert_int_eq(judge(IB_SPARE, exp_min(EXP_IB_PORTS_ACTIVE, 2), "ib.port_state"), SEV_FAIL);
    ck_assert_int_eq(verdict.verdict, SEV_FAIL);
    /* a node whose only port is disabled has no port it is a spare of */
    const char *lone = "CA 'mlx5_8'\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Disabled\n"
                       "\t\tRate: 400\n\t\tLink layer: InfiniBand\n";
    ck_assert_int_eq(judge(lone, exp_min("unrelated.id", 1), "ib.port_state"), SEV_FAIL);
}
END_TEST

START_TEST(check_fails_a_polling_or_down_port_even_when_the_plan_count_is_met)
{
    /* IB_MIX: mlx5_1 is Down with its link enabled (Polling): it should be up */
    ck_assert_int_eq(judge(IB_MIX, exp_min(EXP_IB_PORTS_ACTIVE, 1), "ib.port_state"), SEV_FAIL);
    ck_assert_int_eq(verdict.verdict, SEV_FAIL);
    const char *down = "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
                       "\t\tRate: 400\n\t\tBase lid: 7\n\t\tLink layer: InfiniBand\n"
                       "CA 'mlx5_1'\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: LinkUp\n"
                       "\t\tLink layer: InfiniBand\n";
    ck_assert_int_eq(judge(down, exp_min(EXP_IB_PORTS_ACTIVE, 1), "ib.port_state"), SEV_FAIL);
}
END_TEST

/* ---- dcgm: the run level ---- */

#define DCGM_TOP                                                                        \
    "+---------------------------+------------------------------------------------+\n" \
    "| Diagnostic                | Result                                         |\n" \
    "+===========================+================================================+\n" \
    "|-----  Deployment  --------+------------------------------------------------|\n" \
    "| Denylist                  | Pass                                           |\n" \
    "| NVML Library              | Pass                                           |\n"
#define DCGM_STRESS                                                                     \
    "+-----  Integration  -------+------------------------------------------------+\n" \
    "| PCIe                      | Pass - All                                     |\n" \
    "+-----  Stress  ------------+------------------------------------------------+\n" \
    "| Targeted Stress           | Pass - All                                     |\n"
#define DCGM_BOTTOM "+---------------------------+------------------------------------------------+\n"

static int dcgm_level(const char *text)
{
    struct report *rep = parse(text);
    const struct report_section *s = first(rep, REPORT_DCGM);
    ck_assert_ptr_nonnull(s);
    int level = s->u.dcgm.level;
    report_free(rep);
    return level;
}

START_TEST(parse_dcgm_reads_the_run_level_from_the_command_or_the_categories)
{
    ck_assert_int_eq(dcgm_level("+ dcgmi diag -r 1\n" DCGM_TOP DCGM_BOTTOM), 1);
    ck_assert_int_eq(dcgm_level("$ dcgmi diag --run 3 --fail-early\n" DCGM_TOP DCGM_BOTTOM), 3);
    ck_assert_int_eq(dcgm_level("# /usr/bin/dcgmi diag -g 7 -r long\n" DCGM_TOP DCGM_BOTTOM), 3);
    ck_assert_int_eq(dcgm_level("dcgmi diag --run=2\n" DCGM_TOP DCGM_BOTTOM), 2);
    ck_assert_int_eq(dcgm_level("dcgmi diag -r 'pcie'\n" DCGM_TOP DCGM_BOTTOM), 0);
    /* no command line: the categories of a whole table */
    ck_assert_int_eq(dcgm_level(DCGM_TOP DCGM_BOTTOM), 1);
    ck_assert_int_eq(dcgm_level(DCGM_TOP DCGM_STRESS DCGM_BOTTOM), 3);
    /* cut: the categories after the cut are not shown */
    ck_assert_int_eq(dcgm_level(DCGM_TOP), -1);
}
END_TEST

START_TEST(check_warns_on_a_quick_dcgm_pass_and_fails_a_failure_at_any_level)
{
    struct expectation e = exp_max(EXP_DCGM_FAIL, 0);
    ck_assert_int_eq(judge("+ dcgmi diag -r 1\n" DCGM_TOP DCGM_BOTTOM, e, EXP_DCGM_FAIL), SEV_WARN);
    ck_assert_ptr_nonnull(strstr(finding(&verdict, EXP_DCGM_FAIL)->message, "-r 3"));
    ck_assert_int_eq(verdict.verdict, SEV_WARN);
    ck_assert_int_eq(judge(DCGM_TOP DCGM_BOTTOM, e, EXP_DCGM_FAIL), SEV_WARN);
    ck_assert_int_eq(judge("dcgmi diag -r 2\n" DCGM_TOP DCGM_BOTTOM, e, EXP_DCGM_FAIL), SEV_WARN);
    ck_assert_int_eq(judge("dcgmi diag -r 3\n" DCGM_TOP DCGM_STRESS DCGM_BOTTOM, e, EXP_DCGM_FAIL),
                     SEV_PASS);
    ck_assert_int_eq(judge(DCGM_TOP DCGM_STRESS DCGM_BOTTOM, e, EXP_DCGM_FAIL), SEV_PASS);
    ck_assert_int_eq(judge("+ dcgmi diag -r 1\n" DCGM_TOP
                           "| Persistence Mode          | Fail                                           |\n"
                           DCGM_BOTTOM, e, EXP_DCGM_FAIL), SEV_FAIL);
    /* results with no level shown: not a pass */
    ck_assert_int_eq(judge("| PCIe                      | Pass - All                                     |\n"
                           DCGM_BOTTOM, e, EXP_DCGM_FAIL), SEV_UNKNOWN);
}
END_TEST

/* ---- fio: each expectation from the jobs of its own pattern ---- */

START_TEST(check_judges_fio_expectations_only_by_jobs_of_their_pattern)
{
    const char *runs = "rnd: (g=0): rw=randwrite, bs=(R) 4096B-4096B, ioengine=libaio, iodepth=64\n"
                       "  write: IOPS=900k, BW=3516MiB/s (3686MB/s)(206GiB/60001msec)\n"
                       "seq: (g=0): rw=write, bs=(R) 1024KiB-1024KiB, ioengine=libaio, iodepth=16\n"
                       "  write: IOPS=1000, BW=954MiB/s (1000MB/s)(56GiB/60001msec)\n"
                       "rr: (g=0): rw=randread, bs=(R) 4096B-4096B, ioengine=libaio, iodepth=64\n"
                       "  read: IOPS=1200k, BW=4688MiB/s (4915MB/s)(275GiB/60001msec)\n";
    /* the 3686 MB/s random 4k writes are not checkpoint writes: 1000 MB/s is */
    ck_assert_int_eq(judge(runs, exp_min(EXP_STORAGE_WRITE, 2000), EXP_STORAGE_WRITE), SEV_FAIL);
    ck_assert(finding(&verdict, EXP_STORAGE_WRITE)->observed == 1000);
    /* random 4k reads only: training reads cannot be judged, neither pass nor fail */
    ck_assert_int_eq(judge(runs, exp_min(EXP_STORAGE_READ, 1000), EXP_STORAGE_READ), SEV_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(finding(&verdict, EXP_STORAGE_READ)->message, "randread"));
    /* a mixed job's figures are neither */
    const char *mixed = "m: (g=0): rw=randrw, bs=(R) 1024KiB-1024KiB, ioengine=libaio, iodepth=16\n"
                        "  read: IOPS=5000, BW=4768MiB/s (5000MB/s)(56GiB/60001msec)\n"
                        "  write: IOPS=5000, BW=4768MiB/s (5000MB/s)(56GiB/60001msec)\n";
    ck_assert_int_eq(judge(mixed, exp_min(EXP_STORAGE_WRITE, 1000), EXP_STORAGE_WRITE), SEV_UNKNOWN);
    ck_assert_int_eq(judge(mixed, exp_min(EXP_STORAGE_READ, 1000), EXP_STORAGE_READ), SEV_UNKNOWN);
    /* JSON: a job without rw of its own runs the global options' one */
    const char *json = "{\n  \"fio version\" : \"fio-3.36\",\n  \"global options\" : {\n"
                       "    \"rw\" : \"read\",\n    \"bs\" : \"1M\"\n  },\n  \"jobs\" : [\n    {\n"
                       "      \"jobname\" : \"data\",\n      \"job options\" : {\n"
                       "        \"numjobs\" : \"1\"\n      },\n      \"read\" : {\n"
                       "        \"io_bytes\" : 10000000000,\n        \"bw_bytes\" : 2000000000,\n"
                       "        \"runtime\" : 5000\n      }\n    }\n  ]\n}\n";
    ck_assert_int_eq(judge(json, exp_min(EXP_STORAGE_READ, 1500), EXP_STORAGE_READ), SEV_PASS);
}
END_TEST

/* ---- fio: checkpoint writes only from large-block sequential writes ---- */

static const char *fio_write_json(const char *global_bs, const char *job_bs, char *buf, size_t n)
{
    snprintf(buf, n,
             "{\n  \"fio version\" : \"fio-3.36\",\n  \"global options\" : {\n"
             "    \"rw\" : \"write\"%s%s%s\n  },\n  \"jobs\" : [\n    {\n"
             "      \"jobname\" : \"ckpt\",\n      \"job options\" : {\n"
             "        \"numjobs\" : \"1\"%s%s%s\n      },\n      \"write\" : {\n"
             "        \"io_bytes\" : 10000000000,\n        \"bw_bytes\" : 2000000000,\n"
             "        \"runtime\" : 5000\n      }\n    }\n  ]\n}\n",
             global_bs ? ",\n    \"bs\" : \"" : "", global_bs ? global_bs : "",
             global_bs ? "\"" : "", job_bs ? ",\n        \"bs\" : \"" : "", job_bs ? job_bs : "",
             job_bs ? "\"" : "");
    return buf;
}

START_TEST(check_judges_checkpoint_writes_only_by_blocks_of_1_mib_or_more)
{
    /* 4 KiB writes (the k8s-homelab shape): unknown, quoting figure and block size */
    const char *small = "j: (g=0): rw=write, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, "
                        "ioengine=sync, iodepth=1\n"
                        "  write: IOPS=18.6k, BW=72.8MiB/s (76.4MB/s)(22.0MiB/302msec)\n";
    ck_assert_int_eq(judge(small, exp_min(EXP_STORAGE_WRITE, 50), EXP_STORAGE_WRITE), SEV_UNKNOWN);
    const struct report_finding *f = finding(&verdict, EXP_STORAGE_WRITE);
    ck_assert(f->observed == 76.4);
    ck_assert_ptr_nonnull(strstr(f->message, "4 KiB"));
    ck_assert_ptr_nonnull(strstr(f->hint, "--rw=write --bs=1M --direct=1"));
    /* the (W) block size is the one a write job writes */
    const char *w1m = "j: (g=0): rw=write, bs=(R) 4096B-4096B, (W) 1024KiB-1024KiB, (T) 4096B-4096B, "
                      "ioengine=libaio, iodepth=16\n"
                      "  write: IOPS=1000, BW=954MiB/s (1000MB/s)(56GiB/60001msec)\n";
    ck_assert_int_eq(judge(w1m, exp_min(EXP_STORAGE_WRITE, 950), EXP_STORAGE_WRITE), SEV_PASS);
    /* fio 2: read/write block sizes split by '/'; 512 KiB is still too small */
    const char *old = "j: (g=0): rw=write, bs=4K-4K/512K-512K/512K-512K, ioengine=libaio, iodepth=16\n"
                      "  write: io=1024MB, bw=1000000KB/s, iops=1953, runt= 1000msec\n";
    ck_assert_int_eq(judge(old, exp_min(EXP_STORAGE_WRITE, 950), EXP_STORAGE_WRITE), SEV_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(finding(&verdict, EXP_STORAGE_WRITE)->message, "512 KiB"));
    /* a large-block job beside a small-block one is judged by itself */
    char both[1024];
    snprintf(both, sizeof(both), "%s%s", small, w1m);
    struct report *rep = parse(both);
    ck_assert_uint_eq(rep->section_count, 2);
    ck_assert_double_eq(rep->sections[0].u.fio.write_bs, 4096);
    ck_assert_double_eq(rep->sections[1].u.fio.write_bs, 1048576);
    report_free(rep);
    ck_assert_int_eq(judge(both, exp_min(EXP_STORAGE_WRITE, 2000), EXP_STORAGE_WRITE), SEV_FAIL);
    ck_assert(finding(&verdict, EXP_STORAGE_WRITE)->observed == 1000);
    /* JSON: the job's bs, else the global one, else fio's 4 KiB default; "r,w" splits */
    char js[1024];
    ck_assert_int_eq(judge(fio_write_json(NULL, NULL, js, sizeof(js)),
                           exp_min(EXP_STORAGE_WRITE, 1500), EXP_STORAGE_WRITE), SEV_UNKNOWN);
    ck_assert_int_eq(judge(fio_write_json("1M", NULL, js, sizeof(js)),
                           exp_min(EXP_STORAGE_WRITE, 1500), EXP_STORAGE_WRITE), SEV_PASS);
    ck_assert_int_eq(judge(fio_write_json("1M", "128k", js, sizeof(js)),
                           exp_min(EXP_STORAGE_WRITE, 1500), EXP_STORAGE_WRITE), SEV_UNKNOWN);
    ck_assert_int_eq(judge(fio_write_json(NULL, "4k,2m", js, sizeof(js)),
                           exp_min(EXP_STORAGE_WRITE, 1500), EXP_STORAGE_WRITE), SEV_PASS);
    /* reads keep any block size: DOMAIN.md gives training reads none (R27) */
    const char *rd = "j: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, ioengine=libaio, iodepth=64\n"
                     "  read: IOPS=500k, BW=1907MiB/s (2000MB/s)(56GiB/60001msec)\n";
    ck_assert_int_eq(judge(rd, exp_min(EXP_STORAGE_READ, 1500), EXP_STORAGE_READ), SEV_PASS);
}
END_TEST

/* ---- the GPU name table against the catalog ---- */

/* Catalog vendors whose cards are deliberately not in the name table:
 * nvidia-smi (and NVML, which the table's names come from) never names an
 * AMD or Intel card, so gpu.model has no names to match for them. */
static const char *const model_table_skips_vendor[] = {"AMD", "Intel"};

START_TEST(gpu_name_table_covers_every_nvidia_catalog_card)
{
    struct db *db = NULL;
    char err[256];
    struct catalog *c = calloc(1, sizeof *c);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(db_open(":memory:", DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_msg(db_catalog_load(db, c, err, sizeof err) == ST_OK, "%s", err);
    db_close(db);
    ck_assert_int_gt(c->n_gpus, 0);
    /* every catalog card: NVIDIA ones have names, other vendors are named here */
    for (int g = 0; g < c->n_gpus; g++) {
        const struct engine_gpu *gpu = &c->gpus[g];
        int skipped = 0;
        for (size_t v = 0; v < sizeof(model_table_skips_vendor) / sizeof(*model_table_skips_vendor);
             v++)
            skipped |= strcmp(gpu->vendor, model_table_skips_vendor[v]) == 0;
        ck_assert_msg(skipped || strcmp(gpu->vendor, "NVIDIA") == 0,
                      "catalog card %s has vendor %s: add its NVML names to gpu_models[] "
                      "(engine/report_check.c) or the vendor to model_table_skips_vendor",
                      gpu->id, gpu->vendor);
        const char *id;
        int found = 0;
        for (size_t i = 0; (id = report_gpu_model_entry(i, NULL)) != NULL; i++)
            found |= strcmp(id, gpu->id) == 0;
        if (skipped)
            ck_assert_msg(!found, "catalog card %s (%s) is in gpu_models[] but its vendor is "
                          "listed as absent", gpu->id, gpu->vendor);
        else
            ck_assert_msg(found, "NVIDIA catalog card %s has no entry in gpu_models[] "
                          "(engine/report_check.c): add the names NVML gives it", gpu->id);
    }
    /* every table entry: a catalog id, with at least one name */
    const char *id;
    const char *const *names;
    for (size_t i = 0; (id = report_gpu_model_entry(i, &names)) != NULL; i++) {
        ck_assert_msg(catalog_gpu_find(c, id) != NULL,
                      "gpu_models[] entry %s is not a catalog GPU id", id);
        ck_assert_msg(names[0] && names[0][0], "gpu_models[] entry %s has no name", id);
    }
    free(c);
}
END_TEST

/* ---- nvidia-smi outputs of several nodes in one file ---- */

START_TEST(parse_splits_consecutive_nvidia_smi_outputs_into_one_section_each)
{
    /* two tables pasted one after the other: the second node's banner
     * opens its own section, so counts are per output */
    struct report *rep = parse(SMI_TABLE_H100 SMI_TABLE);
    ck_assert_uint_eq(rep->section_count, 2);
    ck_assert_int_eq(rep->sections[0].u.gpu.gpu_count, 2);
    ck_assert_int_eq(rep->sections[1].u.gpu.gpu_count, 1);
    ck_assert_str_eq(rep->sections[1].u.gpu.info[0].name, "NVIDIA H200");
    ck_assert_uint_eq(rep->unrecognized_lines, 0);
    report_free(rep);
    /* the node with one GPU fails a plan of two a node; merged, three passed */
    ck_assert_int_eq(judge(SMI_TABLE_H100 SMI_TABLE, exp_min(EXP_GPU_COUNT, 2), EXP_GPU_COUNT),
                     SEV_FAIL);
    /* two --query-gpu CSVs: the second header is not a GPU row */
    static const char csv[] = "index, name, pci.bus_id\n0, NVIDIA H200, 00000000:00:06.0\n";
    char two[256];
    snprintf(two, sizeof(two), "%s%s", csv, csv);
    rep = parse(two);
    ck_assert_uint_eq(rep->section_count, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(rep->sections[i].u.gpu.gpu_count, 1);
        ck_assert_str_eq(rep->sections[i].u.gpu.info[0].name, "NVIDIA H200");
    }
    report_free(rep);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report");
    TCase *p = tcase_create("parse");
    tcase_add_test(p, parse_nccl_reads_current_layout_and_ignores_the_avg_footer);
    tcase_add_test(p, parse_nccl_reads_old_error_column);
    tcase_add_test(p, parse_nccl_skips_info_lines_between_rows);
    tcase_add_test(p, parse_nccl_sums_nonzero_wrong_and_counts_warn_lines);
    tcase_add_test(p, parse_nccl_reads_a_header_whose_hash_markdown_ate);
    tcase_add_test(p, parse_topo_finds_worst_path_and_fewest_nvlinks);
    tcase_add_test(p, parse_topo_counts_pairs_a_cut_matrix_does_not_show);
    tcase_add_test(p, parse_topo_reads_a_header_underlined_with_escapes);
    tcase_add_test(p, parse_topo_reads_rows_and_legend_lines_holding_escapes);
    tcase_add_test(p, parse_topo_takes_a_one_gpu_underlined_p2p_matrix_as_p2p);
    tcase_add_test(p, parse_topo_underlined_header_ends_a_cut_json_document);
    tcase_add_test(p, parse_perftest_converts_mb_per_sec_to_gbps);
    tcase_add_test(p, parse_strips_email_quotes_and_tmux_borders);
    tcase_add_test(p, parse_ibstat_flags_bad_lid_only_on_infiniband);
    tcase_add_test(p, parse_ibstatus_reads_hex_lid_and_rate);
    tcase_add_test(p, parse_nvidia_smi_q_keeps_max_and_current_apart);
    tcase_add_test(p, parse_nvidia_smi_q_reads_the_gpus_power_not_the_memorys_or_modules);
    tcase_add_test(p, parse_clock_event_reasons_keeps_active_apart_from_shown);
    tcase_add_test(p, parse_query_csv_reads_clocks_limits_and_the_reason_mask);
    tcase_add_test(p, parse_dcgm_counts_per_gpu_results_on_continuation_rows);
    tcase_add_test(p, parse_fio_text_prefers_group_bandwidth_in_decimal_mb);
    tcase_add_test(p, parse_cpupower_keeps_two_runs_as_two_sections);
    tcase_add_test(p, parse_ethtool_uses_phy_pause_total_instead_of_summing_priorities);
    tcase_add_test(p, parse_splits_a_preflight_log_into_one_section_per_tool);
    tcase_add_test(p, parse_gemm_reads_exponent_rates_and_leaves_out_the_ramp_up_second);
    tcase_add_test(p, parse_gemm_names_gpus_from_the_list_gpu_burn_prints_first);
    tcase_add_test(p, parse_gemm_leaves_bare_nvidia_smi_list_output_alone);
    tcase_add_test(p, parse_gemm_takes_the_test_id_from_the_command_line);
    tcase_add_test(p, parse_gemm_reads_quoted_gpu_burn_with_negative_error_counts);
    tcase_add_test(p, parse_gemm_keeps_what_a_line_cut_mid_list_shows);
    tcase_add_test(p, parse_nvidia_smi_table_takes_its_timestamp_only_when_the_table_follows);
    tcase_add_test(p, parse_nvidia_smi_timestamp_reads_nothing_past_the_input);
    tcase_add_test(p, parse_survives_binary_and_unterminated_input);
    tcase_add_test(p, parse_caps_sections_and_counts_the_rest);
    tcase_add_test(p, parse_nccl_keeps_a_net_ib_warning_to_its_vendor_error);
    suite_add_tcase(s, p);
    TCase *x = tcase_create("text");
    tcase_add_test(x, line_scan_matches_a_byte_loop_on_random_text);
    tcase_add_test(x, num_parse_matches_the_general_reader_on_random_tokens);
    tcase_add_test(x, num_parse_lo_matches_num_parse_on_random_cells);
    tcase_add_test(x, line_clean_matches_byte_tests_on_random_lines);
    tcase_add_test(x, nccl_info_quiet_lines_change_nothing_in_an_nccl_section);
    tcase_add_test(x, nic_counter_key_matches_a_search_for_each_word);
    tcase_add_test(x, strong_possible_matches_its_table_loop_on_random_lines);
    tcase_add_test(x, span_find_matches_a_naive_search_on_random_text);
    tcase_add_test(x, span_trim_matches_a_byte_loop_on_random_text);
    tcase_add_test(x, span_has_pair_ci_matches_a_byte_loop_on_random_text);
    tcase_add_test(x, tok_split_matches_a_byte_loop_on_random_text);
    tcase_add_test(x, csv_split_matches_a_byte_loop_on_random_text);
    suite_add_tcase(s, x);
    TCase *c = tcase_create("check");
    tcase_add_test(c, check_fails_a_pcie_path_where_nvswitch_is_planned);
    tcase_add_test(c, check_fails_when_nvlinks_are_down);
    tcase_add_test(c, check_is_unknown_when_a_cut_matrix_shows_no_fault);
    tcase_add_test(c, check_grades_busbw_at_90_and_70_percent_of_expected);
    tcase_add_test(c, check_never_judges_busbw_by_the_avg_footer);
    tcase_add_test(c, check_hints_pfc_buffers_when_cross_node_is_30_percent_of_intra);
    tcase_add_test(c, check_fails_wrong_results_and_nccl_warn_lines);
    tcase_add_test(c, check_fails_ports_down_wrong_rate_and_bad_lid);
    tcase_add_test(c, check_grades_ib_write_bw_against_t3);
    tcase_add_test(c, check_fails_pcie_width_and_generation_below_plan);
    tcase_add_test(c, check_fails_uncorrectable_ecc_and_pending_remap);
    tcase_add_test(c, check_warns_on_a_governor_other_than_performance);
    tcase_add_test(c, check_treats_dcgm_skip_as_skip_and_fail_as_fail);
    tcase_add_test(c, check_warns_on_pause_frames_and_link_errors);
    tcase_add_test(c, check_passes_sw_power_cap_at_the_limit_and_names_the_clock);
    tcase_add_test(c, check_warns_sw_power_cap_far_below_the_limit);
    tcase_add_test(c, check_is_unknown_for_sw_power_cap_between_or_without_a_draw);
    tcase_add_test(c, check_warns_when_the_power_limit_is_below_the_default);
    tcase_add_test(c, check_fails_hw_thermal_and_power_brake_and_warns_sw_thermal);
    tcase_add_test(c, check_warns_on_hw_slowdown_with_no_cause_named);
    tcase_add_test(c, check_says_nothing_of_reasons_not_active_or_not_shown);
    tcase_add_test(c, check_compares_fio_with_planned_read_and_write_rates);
    tcase_add_test(c, check_lists_expectations_without_evidence_and_never_passes_them);
    tcase_add_test(c, check_without_plan_or_reports_is_unknown);
    tcase_add_test(c, measured_takes_the_worst_large_message_busbw_per_scope);
    tcase_add_test(c, check_warns_when_the_tensor_gemm_is_below_60_percent_of_peak);
    tcase_add_test(c, check_fails_gpu_burn_that_died_even_when_it_says_ok);
    tcase_add_test(c, measured_takes_the_tensor_gemm_median_but_not_gpu_burn_or_mig);
    tcase_add_test(c, check_quotes_the_first_nccl_warning_against_a_plan);
    tcase_add_test(c, check_does_not_pass_a_cross_node_busbw_measured_without_ring);
    tcase_add_test(c, check_fails_a_gpu_model_other_than_the_plans_and_names_both);
    tcase_add_test(c, check_tells_the_variants_of_one_gpu_apart);
    tcase_add_test(c, check_never_passes_a_gpu_name_it_cannot_map);
    tcase_add_test(c, check_fails_mixed_gpu_models_with_or_without_a_plan);
    tcase_add_test(c, check_warns_on_a_disabled_spare_port_when_the_active_ones_meet_the_plan);
    tcase_add_test(c, check_fails_a_polling_or_down_port_even_when_the_plan_count_is_met);
    tcase_add_test(c, parse_dcgm_reads_the_run_level_from_the_command_or_the_categories);
    tcase_add_test(c, check_warns_on_a_quick_dcgm_pass_and_fails_a_failure_at_any_level);
    tcase_add_test(c, check_judges_fio_expectations_only_by_jobs_of_their_pattern);
    tcase_add_test(c, check_judges_checkpoint_writes_only_by_blocks_of_1_mib_or_more);
    tcase_add_test(c, gpu_name_table_covers_every_nvidia_catalog_card);
    tcase_add_test(c, parse_splits_consecutive_nvidia_smi_outputs_into_one_section_each);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
