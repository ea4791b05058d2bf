# Writes NAME.expected.json for the synthetic report cases in
# tests/data/reports/synthetic/, which cover what the shared real samples
# lack. Values follow from how each input was written (see the inputs).
import json, os, sys

N = None
H100 = "NVIDIA H100 80GB HBM3"
cases = {
 "nccl-wrong-nonzero.txt": ({"sections": [{"kind": "nccl", "tool": "all_reduce_perf", "facts": {
     "collective": "all_reduce", "ranks": 8, "nodes": 1, "busbw_peak_gbs": 476.05,
     "busbw_largest_gbs": 476.05, "busbw_avg_gbs": 449.413, "wrong_total": 6, "out_of_bounds": 6,
     "wrong_column": "#wrong", "nccl_warnings": 0}}], "unrecognized_lines": 0}),
 "nccl-markdown-ate-hash-info-between-rows.txt": ({"sections": [{"kind": "nccl", "facts": {
     "collective": "all_reduce", "ranks": 8, "nodes": 1, "busbw_peak_gbs": 477.47,
     "busbw_largest_gbs": 477.47, "busbw_avg_gbs": 465.751, "largest_size_b": 4294967296,
     "wrong_total": 0, "out_of_bounds": 0,
     "rows": [{"size_b": 536870912}, {"size_b": 1073741824}, {"size_b": 2147483648},
              {"size_b": 4294967296}]}}], "unrecognized_lines": 0}),
 "dcgm-all-pass-r3.txt": ({"sections": [{"kind": "dcgm", "facts": {"pass": 15, "fail": 0,
     "warn": 0, "skip": 0, "failed_tests": [], "dcgm_version": "3.3.5",
     "driver_version": "550.54.15"}}], "unrecognized_lines": 0}),
 "ethtool-roce-pause-and-crc.txt": ({"sections": [{"kind": "nic", "facts": {"driver": "mlx5_core",
     "firmware": "28.39.1002 (MT_0000000838)", "rx_pause": 15320, "tx_pause": 311, "errors": 49,
     "discards": 1033}}], "unrecognized_lines": 0}),
 # A write job: fio's JSON still lists "read" with io_bytes 0, runtime 0 and bw 0. Nothing
 # was read, so the read facts are null, as in the text output (not a read rate of 0).
 "fio-3.36-json.json": ({"sections": [{"kind": "fio", "facts": {"format": "json",
     "version": "fio-3.36", "read_bw_mbs": None, "read_iops": None,
     "write_bw_mbs": {"$approx": 3579.139413, "$rel": 1e-6}, "write_iops": {"$approx": 3413.333333},
     "jobs": 1}}], "unrecognized_lines": 0}),
 "nvidia-smi-q-x8-link.txt": ({"sections": [{"kind": "gpu", "tool": "nvidia-smi -q", "facts": {
     "gpu_count": 2, "gpu_names": ["NVIDIA L40S", "NVIDIA L40S"], "pcie_gen_max": 4,
     "pcie_width_max": 16, "pcie_width_min_current": 8, "ecc_uncorrectable": 2,
     "remap_pending": 1,
     "gpus": [{"pcie_width_current": 8, "pcie_gen_current": 4, "ecc_uncorrectable": 2,
               "remap_pending": True},
              {"pcie_width_current": 16, "pcie_gen_current": 1, "ecc_uncorrectable": 0,
               "remap_pending": False}]}}], "unrecognized_lines": 0}),
 "ibstat-polling-and-bad-lid.txt": ({"sections": [{"kind": "ib_ports", "tool": "ibstat", "facts": {
     "ports_total": 3, "ports_active": 2, "active_rates_gbps": [400, 200],
     "link_layers": ["InfiniBand"], "ports_bad_lid": 1}}], "unrecognized_lines": 0}),
 "healthy-8xh100-preflight.log": ({"sections": [
     {"kind": "topo", "facts": {"gpu_count": 8, "nic_count": 8, "gpu_link_worst": "NV18",
                                "nvlink_min": 18, "gpu_pairs_read": 28}},
     {"kind": "gpu", "tool": "nvidia-smi --query-gpu", "facts": {"gpu_count": 8,
                                "gpu_names": [H100] * 8, "pcie_gen_max": 5, "pcie_width_max": 16,
                                "pcie_width_min_current": 16, "ecc_uncorrectable": 0,
                                "remap_pending": 0}},
     {"kind": "nccl", "tool": "all_reduce_perf", "facts": {"collective": "all_reduce", "ranks": 8,
                                "nodes": 1, "busbw_largest_gbs": 486.10, "busbw_avg_gbs": 440.613,
                                "wrong_total": 0, "nccl_warnings": 0}},
     {"kind": "ib_ports", "facts": {"ports_total": 8, "ports_active": 8,
                                "active_rates_gbps": [400] * 8, "link_layers": ["InfiniBand"],
                                "ports_bad_lid": 0}},
     {"kind": "perftest", "tool": "ib_write_bw", "facts": {"link_layer": "IB",
                                "bw_avg_gbps": 392.48, "bw_peak_gbps": 392.61,
                                "largest_bytes": 8388608}},
     {"kind": "dcgm", "facts": {"pass": 9, "fail": 0, "skip": 0}},
     {"kind": "cpu", "tool": "lscpu", "facts": {"threads": 192, "sockets": 2,
                                "model_name": "Intel(R) Xeon(R) Platinum 8468"}},
     {"kind": "cpu", "tool": "cpupower frequency-info", "facts": {"governor": "performance"}},
     {"kind": "nic", "facts": {"rx_pause": 0, "tx_pause": 0, "errors": 0}}],
   "unrecognized_lines": 2}),
}
# ---- clock event (throttle) reasons and power, per GPU. The -q case is an old driver's
# (470) layout: "Clocks Throttle Reasons", "Power Readings" with "Power Draw", "Power Limit"
# and "Enforced Power Limit" (which wins); GPU 0 is held by its power brake (the Dell C4130
# V100 pattern, SM 382 MHz), GPU 1 by its thermal protection at 89 C, GPU 2 has its limit
# lowered to 200 of 300 W, GPU 3 shows "HW Slowdown" with no child lines. The CSVs carry the
# same states as the .active bit mask (NVML bit order) and as clocks_event_reasons.* columns.
V100 = "Tesla V100-SXM2-32GB"
def v100(bus, **f): return {"bus_id": bus, "name": V100, "sm_clock_max_mhz": 1530, **f}
def h100(bus, **f): return {"bus_id": bus, "name": H100, "sm_clock_max_mhz": 1980, **f}
cases.update({
 "nvidia-smi-q-470-throttle-reasons-hw-slowdown.txt": ({"sections": [{"kind": "gpu",
     "tool": "nvidia-smi -q", "facts": {"gpu_count": 4, "gpu_names": [V100] * 4,
     "driver_version": "470.182.03", "cuda_version": "11.4", "gpus": [
     v100("00000000:1A:00.0", temp_c=38, power_w=41.20, power_cap_w=300, power_cap_default_w=300,
          sm_clock_mhz=382, perf_state="P0",
          clock_event_reasons=["hw_slowdown", "hw_power_brake_slowdown"]),
     v100("00000000:1C:00.0", temp_c=89, power_w=212.35, power_cap_w=300, sm_clock_mhz=945,
          clock_event_reasons=["hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown"]),
     v100("00000000:1D:00.0", temp_c=64, power_w=199.53, power_cap_w=200,
          power_cap_default_w=300, sm_clock_mhz=1155, clock_event_reasons=["sw_power_cap"]),
     v100("00000000:1E:00.0", temp_c=71, power_w=160.08, sm_clock_mhz=705,
          clock_event_reasons=["hw_slowdown"])]}}], "unrecognized_lines": 0}),
 "nvidia-smi-query-throttle-reasons-active-mask.txt": ({"sections": [{"kind": "gpu",
     "tool": "nvidia-smi --query-gpu", "facts": {"gpu_count": 4, "gpus": [
     v100("00000000:1A:00.0", power_w=41.20, power_cap_w=300, power_cap_default_w=300,
          sm_clock_mhz=382, clock_event_reasons=["hw_slowdown", "hw_power_brake_slowdown"]),
     v100("00000000:1C:00.0", temp_c=89, sm_clock_mhz=945,
          clock_event_reasons=["hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown"]),
     v100("00000000:1D:00.0", power_cap_w=200, power_cap_default_w=300,
          clock_event_reasons=["sw_power_cap"]),
     v100("00000000:1E:00.0", sm_clock_mhz=135, clock_event_reasons=["gpu_idle"])]}}],
   "unrecognized_lines": 0}),
 "nvidia-smi-query-clocks-event-reasons-columns.txt": ({"sections": [{"kind": "gpu",
     "tool": "nvidia-smi --query-gpu", "facts": {"gpu_count": 2, "gpus": [
     h100("00000000:18:00.0", power_w=697.12, power_cap_w=700, power_cap_default_w=700,
          sm_clock_mhz=1755, temp_c=N, clock_event_reasons=["sw_power_cap"]),
     h100("00000000:2A:00.0", power_w=402.77, sm_clock_mhz=1095,
          clock_event_reasons=["hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown"])]}}],
   "unrecognized_lines": 0}),
})

# nvidia-smi-topo/sglang-13973-8xh-nv18-9nic-cut.txt with nvidia-smi's ANSI
# underline added around its header as nvidia-smi writes it to a file
# (ESC[4m before GPU0, ESC[0m after "GPU NUMA ID"; the real H200 capture
# shows it); every other byte as in that file. The nine NIC columns must be
# read as NICs, not as GPUs 8..16.
cases.update({
 "topo-8xh-nv18-9nic-ansi-underline-header.txt": ({"sections": [{"kind": "topo",
     "tool": "nvidia-smi topo -m", "facts": {"gpu_count": 8, "nic_count": 9,
     "gpu_link_worst": "NV18", "nvlink_min": 18, "gpu_pairs": 28, "gpu_pairs_read": 27,
     "matrix": {"columns": ["GPU%d" % i for i in range(8)] + ["NIC%d" % i for i in range(9)]}},
     "issues": ["the matrix is cut: a row ends early",
                "1 of 28 GPU pairs are not shown (output cut)"]}],
   "unrecognized_lines": 0}),
})
root = sys.argv[1]
for name, doc in cases.items():
    stem = name[:name.rindex(".")]
    with open(os.path.join(root, stem + ".expected.json"), "w") as out:
        json.dump(doc, out, indent=1)
        out.write("\n")
print(len(cases), "cases")
