# Writes NAME.expected.json for the shared real fixtures. The facts below were
# written by reading each input file by hand (see INDEX.md for what each
# shows); they are not copied from the parser's output.
import json, os, sys

N = None
def A(x, rel=0.001): return {"$approx": x, "$rel": rel}
MB = 1048576 * 8 / 1e9   # perftest MB/sec (2^20 B/s) to Gb/s

def nccl(tool=None, **f): return {"kind": "nccl", **({"tool": tool} if tool else {}), "facts": f}
def topo(**f): return {"kind": "topo", "facts": f}
def perf(tool, **f): return {"kind": "perftest", "tool": tool, "facts": f}
def ib(tool, **f): return {"kind": "ib_ports", "tool": tool, "facts": f}
def gpu(tool, **f): return {"kind": "gpu", "tool": tool, "facts": f}
def dcgm(**f): return {"kind": "dcgm", "tool": "dcgmi diag", "facts": f}
def fio(**f): return {"kind": "fio", "tool": "fio", "facts": f}
def nvbw(**f): return {"kind": "nvbandwidth", "tool": "nvbandwidth", "facts": f}
def cpu(tool, **f): return {"kind": "cpu", "tool": tool, "facts": f}
def nic(**f): return {"kind": "nic", "facts": f}

H100 = "NVIDIA H100 80GB HBM3"
cases = {
 # ---- nccl-tests
 "nccl-tests/llm-insights-2gpu-node-p2p-disabled-busbw3.9.txt": ([nccl(collective=N, ranks=N, nodes=N,
     busbw_peak_gbs=4.02, busbw_largest_gbs=3.71, busbw_avg_gbs=3.85845, largest_size_b=8589934592,
     wrong_total=0, out_of_bounds=0, nccl_warnings=0)], 0),
 "nccl-tests/llm-insights-2gpu-nvlink-busbw47.txt": ([nccl(collective=N, ranks=N, nodes=N,
     busbw_peak_gbs=47.49, busbw_largest_gbs=47.49, busbw_avg_gbs=47.4509, wrong_total=0,
     nccl_warnings=0)], 0),
 "nccl-tests/moc-roce-sendrecv-2node-4gpu-busbw5.8-interleaved-info.txt": ([nccl(ranks=8, nodes=2,
     busbw_peak_gbs=5.86, busbw_largest_gbs=5.86, busbw_avg_gbs=5.80752, largest_size_b=26843545600,
     wrong_total=0, out_of_bounds=0, nccl_warnings=0, algo="RING", network="IB",
     gpu_name=H100)], 0),
 "nccl-tests/nccl-1435-all-gather-2gpu-bf16-cut.txt": ([nccl(collective=N, ranks=N,
     busbw_peak_gbs=144.59, busbw_largest_gbs=140.24, busbw_avg_gbs=N, largest_size_b=117440512,
     wrong_total=0, out_of_bounds=N, nccl_warnings=0)], 0),
 "nccl-tests/nccl-340-old-format-2gpu-cut.txt": ([nccl(collective=N, ranks=N,
     busbw_peak_gbs=21.86, busbw_largest_gbs=21.86, busbw_avg_gbs=6.6972, largest_size_b=134217728,
     wrong_total=0, wrong_column="error", out_of_bounds=0)], 0),
 "nccl-tests/nccl-928-ib-error4-vendor-err-81-inline-backtick.txt": ([nccl(collective=N, ranks=N,
     busbw_peak_gbs=N, busbw_largest_gbs=N, busbw_avg_gbs=N, wrong_total=N, nccl_warnings=3)], None),
 "nccl-tests/nccl-tests-107-2node-10gbe-nompi-duplicated-header-cut.txt": ([nccl("all_reduce_perf",
     collective="all_reduce", ranks=1, nodes=2, busbw_peak_gbs=N, busbw_largest_gbs=N,
     busbw_avg_gbs=N, wrong_total=N, gpu_name="Tesla V100-SXM2-16GB")], 0),
 "nccl-tests/nccl-tests-131-nccl-warn-p2p-disabled-cut.txt": ([nccl(collective=N, ranks=2, nodes=1,
     busbw_peak_gbs=N, busbw_largest_gbs=N, wrong_total=N, nccl_warnings=2, network="Socket")], 2),
 "nccl-tests/nccl-tests-232-2node-1gpu-tree-cut.txt": ([nccl(collective=N, ranks=N, nodes=N,
     busbw_peak_gbs=41.52, busbw_largest_gbs=41.52, busbw_avg_gbs=N, largest_size_b=33554432,
     wrong_total=0)], 0),
 "nccl-tests/nccl-tests-287-alltoall-1gpu-busbw0-na.txt": ([nccl(collective=N, ranks=1, nodes=1,
     busbw_peak_gbs=0, busbw_largest_gbs=0, busbw_avg_gbs=0, wrong_total=0, out_of_bounds=0,
     gpu_name="NVIDIA GeForce RTX 5090")], 0),
 "nccl-tests/oci-oke-2node-a100-busbw238.txt": ([nccl("all_reduce_perf", collective="all_reduce",
     ranks=16, nodes=2, busbw_peak_gbs=237.94, busbw_largest_gbs=237.94, busbw_avg_gbs=66.4834,
     largest_size_b=8589934592, wrong_total=0, out_of_bounds=0, nccl_warnings=0,
     gpu_name="NVIDIA A100-SXM4-40GB")], 0),
 # ---- nvidia-smi topo
 "nvidia-smi-topo/club3090-1125-wrapped-garbled.txt": ([topo(gpu_count=2, nic_count=0,
     gpu_link_worst="NODE", nvlink_min=0, p2p_worst="NS")], 0),
 "nvidia-smi-topo/club3090-1229-2x5090-phb-tabs.txt": ([topo(gpu_count=2, nic_count=0,
     gpu_link_worst="PHB", nvlink_min=0, p2p_worst=N)], 0),
 "nvidia-smi-topo/club3090-1229-p2p-rw-gns-tabs.txt": ([topo(gpu_count=2, nic_count=N,
     gpu_link_worst=N, nvlink_min=N, p2p_worst="GNS", p2p_pairs_ok=0)], 0),
 "nvidia-smi-topo/deepep-145-8xh-nv18-18nic-cut.txt": ([topo(gpu_count=8, nic_count=18,
     gpu_link_worst="NV18", nvlink_min=18, gpu_pairs=28, gpu_pairs_read=22)], 0),
 "nvidia-smi-topo/k8s-53497-old-format-mlx4-pix-phb-cut.txt": ([topo(gpu_count=8, nic_count=1,
     gpu_link_worst="SYS", nvlink_min=0, gpu_pairs=28, gpu_pairs_read=25)], 0),
 "nvidia-smi-topo/llm-insights-dgx-a100-nv12-abbrev.txt": ([topo(gpu_count=8, nic_count=N,
     gpu_link_worst="NV12", nvlink_min=12, gpu_pairs=28, gpu_pairs_read=28)], 0),
 "nvidia-smi-topo/miss-alignment-106-4xl40s-node-sys-nics.txt": ([topo(gpu_count=4, nic_count=2,
     gpu_link_worst="SYS", nvlink_min=0, gpu_pairs=6, gpu_pairs_read=6)], 0),
 "nvidia-smi-topo/nccl-1505-dgx-a100-nv12-12nic-cut.txt": ([topo(gpu_count=8, nic_count=12,
     gpu_link_worst="NV12", nvlink_min=12, gpu_pairs_read=25)], 0),
 "nvidia-smi-topo/sglang-13973-8xh-nv18-9nic-cut.txt": ([topo(gpu_count=8, nic_count=9,
     gpu_link_worst="NV18", nvlink_min=18, gpu_pairs_read=27)], 0),
 # ---- perftest
 "ib_read_bw/stmatengss-mlx4-qdr-sweep-cpufreq-warning.txt": ([perf("ib_read_bw", test="ib_read_bw",
     link_layer="IB", bw_avg_gbps=A(3666.44 * MB), bw_peak_gbps=A(3667.22 * MB),
     lat_typical_us=N, largest_bytes=8388608, device="mlx4_0")], 0),
 "ib_send_lat/stmatengss-mlx4-qdr-sweep.txt": ([perf("ib_send_lat", test="ib_send_lat",
     link_layer="IB", bw_avg_gbps=N, bw_peak_gbps=N, lat_typical_us=1.07, lat_bytes=2)], 0),
 "ib_write_bw/ngc-multinode-perf-108-bidir-no-peak-cut.txt": ([perf("ib_write_bw",
     test="ib_write_bw", link_layer=N, bidirectional=True, bw_avg_gbps=N, bw_peak_gbps=N, qps=2,
     device="mlx5_3")], 0),
 "ib_write_bw/perftest-132-email-quoted-ib-sweep-cut.txt": ([perf("ib_write_bw",
     test="ib_write_bw", link_layer="IB", bw_avg_gbps=0.17, largest_bytes=8, units="Gb/sec")], 0),
 "ib_write_bw/perftest-234-roce-mbsec-server-cut.txt": ([perf("ib_write_bw", test="ib_write_bw",
     link_layer="Ethernet", bw_avg_gbps=N, bw_peak_gbps=N, units="MB/sec")], 0),
 "ib_write_bw/perftest-pr214-indented-ib-header-cut.txt": ([perf("ib_write_bw", test="ib_write_bw",
     link_layer="IB", bw_avg_gbps=N, device="ibp5")], 0),
 # ---- ibstat / ibstatus / ibv_devinfo
 "ibstat/azhpc-diag-59-ibpanic-unindented.txt": ([ib("ibstat", ports_total=1, ports_active=0,
     active_rates_gbps=[], link_layers=["InfiniBand"], ports_bad_lid=1)], 0),
 "ibstat/geerlingguy-sbc-92-gb10-roce200-one-disabled-cut.txt": ([ib("ibstat", ports_total=3,
     ports_active=2, active_rates_gbps=[200, 200], link_layers=["Ethernet"], ports_bad_lid=0,
     ports_declared=4)], 0),
 "ibstat/gpud-pr752-partial-ibpanic.txt": ([ib("ibstat", ports_total=1, ports_active=1,
     active_rates_gbps=[200], link_layers=["InfiniBand"], ports_bad_lid=0)], 0),
 "ibstat/gpud-pr99-down-disabled.txt": ([ib("ibstat", ports_total=1, ports_active=0,
     active_rates_gbps=[], link_layers=[], ports_bad_lid=N)], 0),
 "ibstat/lshca-79-rate-2.5.txt": ([ib("ibstat", ports_total=1, ports_active=1,
     active_rates_gbps=[2.5], link_layers=[], ports_bad_lid=N)], 0),
 "ibstat/mooncake-1999-roce200-disabled-cut.txt": ([ib("ibstat", ports_total=3, ports_active=2,
     active_rates_gbps=[200, 200], link_layers=["Ethernet"], ports_bad_lid=0)], 0),
 "ibstat/rdma-core-847-ibwarn-debug-cut.txt": ([ib("ibstat", ports_total=2, ports_active=1,
     active_rates_gbps=[56], link_layers=["InfiniBand"], ports_bad_lid=N)], 0),
 "ibstat/stmatengss-tmux-pane-border-mlx4-qdr.txt": ([ib("ibstat", ports_total=2, ports_active=1,
     active_rates_gbps=[40], link_layers=["InfiniBand", "Ethernet"], ports_bad_lid=0)], 0),
 "ibstatus/azhpc-diag-59-unindented-an0-40g-cut.txt": ([ib("ibstatus", ports_total=1,
     ports_active=1, active_rates_gbps=[40], link_layers=[], ports_bad_lid=N)], 0),
 "ibv_devinfo/ompi-9087-verbose-unindented-cut.txt": ([ib("ibv_devinfo", ports_total=0,
     ports_active=0, active_rates_gbps=[], ports_declared=1)], 0),
 "ibv_devinfo/stmatengss-mlx4-2port-eth-port-down-padded.txt": ([ib("ibv_devinfo", ports_total=2,
     ports_active=1, active_rates_gbps=[N], link_layers=["InfiniBand", "Ethernet"],
     ports_bad_lid=0)], 0),
 # ---- nvidia-smi
 "nvidia-smi-q/cubecos-312-d-memory-performance-rtxpro6000-cut.txt": ([gpu("nvidia-smi -q",
     gpu_count=4, gpu_names=[], pcie_gen_max=N, pcie_width_max=N, pcie_width_min_current=N,
     ecc_uncorrectable=N, remap_pending=N, driver_version="580.105.06")], 0),
 "nvidia-smi-q/thamada-8xh100-sxm-first-gpu-replays7-excerpt.txt": ([gpu("nvidia-smi -q",
     gpu_count=8, gpu_names=[H100, H100], pcie_gen_max=5, pcie_width_max=16,
     pcie_width_min_current=16, ecc_uncorrectable=0, remap_pending=0, cuda_version="12.7")], 0),
 "nvidia-smi-q/thamada-a10-vm-passthrough-swpowercap-active.txt": ([gpu("nvidia-smi -q",
     gpu_count=1, gpu_names=["NVIDIA A10"], pcie_gen_max=4, pcie_width_max=16,
     pcie_width_min_current=16, ecc_uncorrectable=0, remap_pending=0)], 0),
 "nvidia-smi-query-csv/nvidia-settings-80-throttle-supported-inline.txt": ([gpu(
     "nvidia-smi --query-gpu", gpu_count=1, gpu_names=[], pcie_width_min_current=N,
     query={"clocks_throttle_reasons.supported": ["0x00000000000001FF"]})], 0),
 "nvidia-smi/thamada-8xh100-sxm-table.txt": ([gpu("nvidia-smi", gpu_count=8, gpu_names=[H100] * 8,
     pcie_gen_max=N, pcie_width_min_current=N, ecc_uncorrectable=0, remap_pending=N,
     driver_version="565.57.01", cuda_version="12.7")], 0),
 # ---- dcgmi diag
 "dcgmi-diag/dcgm-139-r3-json-skips-elided-cut.txt": ([dcgm(pass_=0, fail=0, warn=0, skip=5,
     failed_tests=[], format="json")], 0),
 "dcgmi-diag/dcgm-55-r3-deployment-pass-cut.txt": ([dcgm(pass_=9, fail=0, warn=0, skip=0,
     failed_tests=[])], 0),
 "dcgmi-diag/go-dcgm-52-r2-gpu0-fail-fragment.txt": ([dcgm(pass_=1, fail=1, warn=0, skip=0,
     failed_tests=["GPU Memory"])], 0),
 "dcgmi-diag/go-dcgm-52-r2-header-cut.txt": ([dcgm(pass_=8, fail=0, skip=0,
     dcgm_version="3.3.1", driver_version="535.129.03")], 0),
 "dcgmi-diag/nccl-tests-264-r3-fail-early-8xh100-cut.txt": ([dcgm(pass_=5, fail=0, skip=0,
     dcgm_version="3.3.8", driver_version="560.35.03")], 0),
 # ---- fio
 "fio/fio-1890-multijob-nvmeof-header-cut.txt": ([fio(read_bw_mbs=N, write_bw_mbs=N, read_iops=N,
     write_iops=N, jobs=8, rw="randread", ioengine="io_uring", iodepth=32)], 0),
 "fio/fio-272-json-2.15-usec-fields-cut.json.txt": ([fio(read_bw_mbs=A(153412 * 1024 / 1e6),
     write_bw_mbs=N, read_iops=A(299.633362), write_iops=N, format="json", version="fio-2.15")], 0),
 "fio/fio-430-text-preamble-then-json-old-2.20-cut.txt": ([fio(read_bw_mbs=A(249785 * 1024 / 1e6),
     write_bw_mbs=N, read_iops=A(1951.452427), write_iops=N, format="json", version="fio-2.20")], 0),
 "fio/k8s-homelab-optane-raw-fdatasync-4k.txt": ([fio(read_bw_mbs=N, write_bw_mbs=76.4,
     read_iops=N, write_iops=18600, format="text", version="fio-3.25")], 0),
 # ---- nvbandwidth
 "nvbandwidth/nvbandwidth-13-2x2080ti-d2d-waived.txt": ([nvbw(tests=[], failed=0,
     waived=["device_to_device_memcpy_write_ce"], device_count=2)], 0),
 "nvbandwidth/nvbandwidth-15-8x4090-h2d-d2h-cut.txt": ([nvbw(tests=[
     {"name": "host_to_device_memcpy_ce", "sum_gbs": 205.04, "min_gbs": 23.90, "max_gbs": 26.38},
     {"name": "device_to_host_memcpy_ce", "sum_gbs": 214.28, "min_gbs": 26.25, "max_gbs": 27.11},
     {"name": "host_to_device_bidirectional_memcpy_ce", "sum_gbs": N}], failed=0)], 0),
 "nvbandwidth/nvbandwidth-24-h100-sm-h2d-35-d2h-53-quoted.txt": ([nvbw(tests=[
     {"name": "host_to_device_memcpy_sm", "sum_gbs": N, "min_gbs": 35.03, "max_gbs": 35.39},
     {"name": "device_to_host_memcpy_sm", "sum_gbs": N, "min_gbs": 52.76, "max_gbs": 52.78}])], 0),
 # ---- cpu
 "cpupower/laptop-mode-tools-39-performance-vs-powersave-elided.txt": ([
     cpu("cpupower frequency-info", governor="performance", policy_min_mhz=1200, policy_max_mhz=3200),
     cpu("cpupower frequency-info", governor="powersave", policy_min_mhz=1200, policy_max_mhz=3200)], 0),
 "cpupower/mate-applets-173-backtick-garbled-powersave.txt": ([cpu("cpupower frequency-info",
     governor="powersave", driver="intel_pstate", hw_min_mhz=500, hw_max_mhz=2000, current_mhz=800,
     model_name=N)], 0),
 "cpupower/tlp-764-amd-pstate-epp-pinned-400mhz.txt": ([cpu("cpupower frequency-info",
     governor="powersave", driver="amd-pstate-epp", policy_min_mhz=400, policy_max_mhz=400,
     current_mhz=399, hw_max_mhz=4460)], 0),
 "lscpu/gbm-perf-59-2x-epyc-9r14-smt-off-cut.txt": ([cpu("lscpu",
     model_name="AMD EPYC 9R14 96-Core Processor", sockets=2, threads=192, threads_per_core=1,
     cores_per_socket=96, governor=N, numa_nodes=N)], 0),
 "lscpu/kepler-1288-old-flat-epyc-8434p-nps8-cut.txt": ([cpu("lscpu",
     model_name="AMD EPYC 8434P 48-Core Processor", sockets=1, threads=96, threads_per_core=2,
     numa_nodes=8, governor=N)], 0),
 # ---- ethtool
 "ethtool/ethq-21-mlx4en-trailing-spaces-elided.txt": ([nic(driver="mlx4_en", rx_pause=N,
     tx_pause=N, errors=N, firmware="2.42.5000")], 0),
 "ethtool/ethq-8-mlx5-connectx4-i-and-S-cut.txt": ([nic(driver="mlx5_core", rx_pause=N,
     tx_pause=N, errors=N, bus_info="0000:af:00.0")], None),
}

# ---- clockev: power, SM clocks and clock event reasons per GPU (gpus[] entries), read by hand.
# The power draw is the GPU's own (driver 580: "Average Power Draw" under "GPU Power Readings",
# never the memory's or module's); clock_event_reasons lists the reasons shown as Active.
def gq(bus, **f): return {"bus_id": bus, **f}
H200 = "NVIDIA H200"
H200_Q = dict(gpu_count=1, gpu_names=[H200], pcie_gen_max=5, pcie_width_max=16,
              pcie_width_min_current=16, ecc_uncorrectable=0, remap_pending=0,
              driver_version="580.159.04", cuda_version="13.0")
H200_GPU = dict(name=H200, pcie_gen_max=5, pcie_gen_current=5, pcie_width_max=16,
                pcie_width_current=16, ecc_uncorrectable=0, remap_pending=False,
                remap_failure=False, pcie_replays=3, power_cap_w=700, power_cap_default_w=700,
                memory_total_mib=143771, perf_state="P0", sm_clock_max_mhz=1980)
cases.update({
 "nvidia-smi-q/gpuplan-h200-vm-580-idle-79w.txt": ([gpu("nvidia-smi -q", **H200_Q,
     gpus=[gq("00000000:00:06.0", **H200_GPU, temp_c=36, power_w=79.27, sm_clock_mhz=345,
              clock_event_reasons=["gpu_idle"])])], 0),
 "nvidia-smi-q/gpuplan-h200-vm-580-bf16-load-693w-swpowercap-active.txt": ([gpu("nvidia-smi -q",
     **H200_Q, gpus=[gq("00000000:00:06.0", **H200_GPU, temp_c=58, power_w=693.00,
                        sm_clock_mhz=1470, clock_event_reasons=["sw_power_cap"])])], 0),
})
# Existing -q samples: the new per-GPU facts they show (their summary facts above unchanged).
cases["nvidia-smi-q/thamada-a10-vm-passthrough-swpowercap-active.txt"][0][0]["facts"]["gpus"] = [
    gq("00000000:08:00.0", temp_c=33, power_w=15.65, power_cap_w=150, power_cap_default_w=150,
       sm_clock_mhz=0, sm_clock_max_mhz=1695, perf_state="P8",
       clock_event_reasons=["sw_power_cap"])]
cases["nvidia-smi-q/thamada-8xh100-sxm-first-gpu-replays7-excerpt.txt"][0][0]["facts"]["gpus"] = [
    gq("00000000:18:00.0", temp_c=30, power_w=100.89, power_cap_w=700, power_cap_default_w=700,
       sm_clock_mhz=345, sm_clock_max_mhz=1980, clock_event_reasons=["gpu_idle"]),
    gq("00000000:2A:00.0", power_w=N, sm_clock_mhz=N, clock_event_reasons=N)]
cases["nvidia-smi-q/cubecos-312-d-memory-performance-rtxpro6000-cut.txt"][0][0]["facts"]["gpus"] = [
    gq("00000000:42:00.0", perf_state="P8", power_w=N, sm_clock_mhz=N, clock_event_reasons=[])]
# ---- gpuplan device capture, 2026-11-30: one H200 in a Firecracker VM, driver
# 580.159.04 (idle, and under a bf16 matmul at 693 W). Read off each file by
# hand; the topo captures carry nvidia-smi's ANSI underline around the header.
H200 = "NVIDIA H200"
def topo_t(tool, issues, **f): return {"kind": "topo", "tool": tool, "facts": f, "issues": issues}
def h200(**f): return {"name": H200, "bus_id": "00000000:00:06.0", "memory_total_mib": 143771, **f}
cases.update({
 "nvidia-smi-topo/gpuplan-device-h200-1gpu-ansi-underline.txt": ([topo_t("nvidia-smi topo -m", [],
     gpu_count=1, nic_count=0, gpu_link_worst=N, nvlink_min=N, gpu_pairs=0, gpu_pairs_read=0,
     p2p_worst=N, matrix={"columns": ["GPU0"], "rows": [{"name": "GPU0", "cells": ["X"],
     "cpu_affinity": "0-15", "numa_affinity": "0"}]})], 0),
 "nvidia-smi-topo/gpuplan-device-h200-1gpu-p2p-r-ansi-underline.txt": ([topo_t(
     "nvidia-smi topo -p2p", [], gpu_count=1, nic_count=N, gpu_link_worst=N, nvlink_min=N,
     gpu_pairs=N, p2p_worst=N, p2p_pairs_ok=0, p2p_pairs_read=0)], 0),
 # The leading timestamp line ("Mon Nov 30 17:36:48 2026", blank-padded) is nvidia-smi's own,
 # printed above the box: the table's, so nothing is left unrecognized.
 "nvidia-smi/gpuplan-device-h200-idle-table.txt": ([gpu("nvidia-smi", gpu_count=1,
     gpu_names=[H200], pcie_gen_max=N, pcie_width_min_current=N, ecc_uncorrectable=0,
     remap_pending=N, driver_version="580.159.04", cuda_version="13.0", gpus=[h200(
     ecc_uncorrectable=0, temp_c=36, power_w=79, power_cap_w=700, perf_state="P0")])], 0),
 "nvidia-smi/gpuplan-device-h200-load-693w-table.txt": ([gpu("nvidia-smi", gpu_count=1,
     gpu_names=[H200], pcie_gen_max=N, pcie_width_min_current=N, ecc_uncorrectable=0,
     remap_pending=N, driver_version="580.159.04", cuda_version="13.0", gpus=[h200(
     ecc_uncorrectable=0, temp_c=59, power_w=693, power_cap_w=700, perf_state="P0")])], 0),
 "nvidia-smi-query-csv/gpuplan-device-h200-idle-query.csv": ([gpu("nvidia-smi --query-gpu",
     gpu_count=1, gpu_names=[H200], pcie_gen_max=5, pcie_width_max=16, pcie_width_min_current=16,
     ecc_uncorrectable=0, remap_pending=0, driver_version=N, gpus=[h200(pcie_gen_current=5,
     pcie_width_current=16, remap_pending=False, remap_failure=False, temp_c=36,
     power_w=79.27)], query={"power.draw": ["79.27 W"], "clocks.current.sm": ["345 MHz"],
     "clocks.max.sm": ["1980 MHz"]})], 0),
 "nvidia-smi-query-csv/gpuplan-device-h200-load-693w-query.csv": ([gpu("nvidia-smi --query-gpu",
     gpu_count=1, gpu_names=[H200], pcie_gen_max=5, pcie_width_max=16, pcie_width_min_current=16,
     ecc_uncorrectable=0, remap_pending=0, driver_version=N, gpus=[h200(pcie_gen_current=5,
     pcie_width_current=16, remap_pending=False, remap_failure=False, temp_c=58,
     power_w=693.05)], query={"power.draw": ["693.05 W"], "clocks.current.sm": ["1485 MHz"],
     "clocks.max.sm": ["1980 MHz"]})], 0),
 "lscpu/gpuplan-device-h200-vm-xeon-16c.txt": ([cpu("lscpu",
     model_name="Intel(R) Xeon(R) Processor", sockets=1, threads=16, threads_per_core=1,
     cores_per_socket=16, numa_nodes=1, governor=N, hw_min_mhz=N, hw_max_mhz=N,
     current_mhz=N)], 0),
})

# ---- clockev: the SM clocks the H200 CSVs above show (clocks.current.sm, clocks.max.sm), now
# read as per-GPU facts; no clocks_event_reasons column, so no reasons (null).
for _csv, _sm in (("nvidia-smi-query-csv/gpuplan-device-h200-idle-query.csv", 345),
                  ("nvidia-smi-query-csv/gpuplan-device-h200-load-693w-query.csv", 1485)):
    cases[_csv][0][0]["facts"]["gpus"][0].update(sm_clock_mhz=_sm, sm_clock_max_mhz=1980,
                                                  clock_event_reasons=N)

# ---- gpuplan device capture, 2026-11-30, second batch: `nvidia-smi -q -d ...` subsets (what
# report_check's hints ask for) idle and under a bf16 matmul, and a --query-gpu CSV with the
# clock event reason columns and NVML's .active mask (0x4: sw_power_cap). A -d subset shows no
# Product Name, PCIe, ECC or memory: those facts are null. Read off each file by hand.
H200_D = dict(gpu_count=1, gpu_names=[], pcie_gen_max=N, pcie_width_max=N,
              pcie_width_min_current=N, ecc_uncorrectable=N, remap_pending=N,
              driver_version="580.159.04", cuda_version="13.0")
cases.update({
 "nvidia-smi-q/gpuplan-device-h200-q-d-performance-idle.txt": ([gpu("nvidia-smi -q", **H200_D,
     gpus=[gq("00000000:00:06.0", name=N, perf_state="P0", temp_c=N, power_w=N, power_cap_w=N,
              sm_clock_mhz=N, sm_clock_max_mhz=N, clock_event_reasons=["gpu_idle"])])], 0),
 "nvidia-smi-q/gpuplan-device-h200-q-d-power-clock-temperature-idle.txt": ([gpu("nvidia-smi -q",
     **H200_D, gpus=[gq("00000000:00:06.0", name=N, perf_state=N, temp_c=32, power_w=78.61,
                        power_cap_w=700, power_cap_default_w=700, sm_clock_mhz=345,
                        sm_clock_max_mhz=1980, clock_event_reasons=N)])], 0),
 "nvidia-smi-q/gpuplan-device-h200-q-d-performance-power-clock-load-690w.txt": ([gpu(
     "nvidia-smi -q", **H200_D, gpus=[gq("00000000:00:06.0", name=N, perf_state="P0", temp_c=N,
                                         power_w=690.18, power_cap_w=700, power_cap_default_w=700,
                                         sm_clock_mhz=1545, sm_clock_max_mhz=1980,
                                         clock_event_reasons=["sw_power_cap"])])], 0),
 "nvidia-smi-query-csv/gpuplan-device-h200-load-689w-reasons-query.csv": ([gpu(
     "nvidia-smi --query-gpu", gpu_count=1, gpu_names=[H200], pcie_gen_max=N, pcie_width_max=N,
     ecc_uncorrectable=N, remap_pending=N, gpus=[gq("00000000:00:06.0", name=H200, temp_c=N,
     power_w=689.29, power_cap_w=700, power_cap_default_w=700, sm_clock_mhz=1515,
     sm_clock_max_mhz=1980, memory_total_mib=N, clock_event_reasons=["sw_power_cap"])])], 0),
})

root = sys.argv[1]
for path, (sections, unrec) in cases.items():
    for s in sections:
        f = s["facts"]
        if "pass_" in f:
            f["pass"] = f.pop("pass_")
    doc = {"sections": sections}
    if unrec is not None:
        doc["unrecognized_lines"] = unrec
    stem = path[:path.rindex(".")]
    with open(os.path.join(root, stem + ".expected.json"), "w") as out:
        json.dump(doc, out, indent=1)
        out.write("\n")
print(len(cases), "cases")
