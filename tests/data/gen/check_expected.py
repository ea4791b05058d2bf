# Writes NAME.expected.json for the verdict cases in tests/data/checks/: each
# input judged against plan-2x8xh100.json (the recommended tier). The
# expected findings follow from how each input was assembled (see the README
# there): which faults were put in and which tools were left out.
import json, os, sys

def F(i, sev, **kw): return {"id": i, "severity": sev, **kw}
C = "$contains"
cases = {
 # Its DCGM run is `dcgmi diag -r 1` (the quick deployment checks): all pass, but acceptance
 # needs the long run (-r 3), so dcgm.fail warns and the verdict is warn, not unknown.
 "healthy-node.log": {"$exit": 0, "verdict": "warn", "tier": "recommended",
     "no_evidence": [C, "nccl.allreduce.inter_busbw_gbs", "nvbandwidth.h2d_gbs", "storage.read_mbs",
                     "storage.write_mbs"],
     "findings": [C, F("nccl.allreduce.intra_busbw_gbs", "pass", observed=486.10, expected=460),
                  F("topo.gpu_link", "pass", observed="NV18"), F("ib.write_bw_gbps", "pass"),
                  F("cpu.governor", "pass"), F("dcgm.fail", "warn", observed=0, rule="T10"),
                  F("nic.pause", "pass")],
     "measured": {"intra_busbw_gbs": 486.10, "inter_busbw_gbs": None}},
 "degraded-node.log": {"$exit": 1, "verdict": "fail",
     "findings": [C, F("topo.gpu_link", "fail", observed="SYS", expected="NV", rule="R12,R14"),
                  F("topo.nvlink_min", "fail", observed=0),
                  F("gpu.pcie_width", "fail", observed=8, expected=16),
                  F("gpu.pcie_width_degraded", "fail"),
                  F("gpu.ecc_uncorrectable", "fail", observed=2),
                  F("gpu.remap_pending", "fail", observed=1),
                  F("nccl.allreduce.intra_busbw_gbs", "fail", observed={"$approx": 303.03}),
                  F("nccl.warnings", "fail", observed=1, rule="T8"),
                  F("ib.rate_gbps", "fail", observed=200), F("ib.port_state", "fail"),
                  F("ib.lid", "fail", observed=0, rule="T9"),
                  F("cpu.governor", "warn", observed="powersave", rule="R38"),
                  F("dcgm.fail", "fail", observed=1, rule="T10"),
                  F("nic.errors", "fail", observed=49), F("nic.pause", "fail", observed=15631),
                  F("storage.write_mbs", "unknown", observed=76.4)]},
 "cross-node-30-percent.log": {"$exit": 1, "verdict": "fail",
     "findings": [C, F("nccl.allreduce.intra_busbw_gbs", "pass"),
                  F("nccl.allreduce.inter_busbw_gbs", "fail", rule="T2")],
     "measured": {"intra_busbw_gbs": {"$approx": 484.85}, "inter_busbw_gbs": {"$approx": 141.41}}},
 "intra-busbw-87-percent.log": {"$exit": 0, "verdict": "warn",
     "findings": [C, F("nccl.allreduce.intra_busbw_gbs", "warn", observed={"$approx": 404.04})]},
 "dcgm-skips-only.txt": {"$exit": 0, "verdict": "unknown",
     "findings": [C, F("dcgm.fail", "skip", rule="T10")]},
}
# GPU clocks and power (R10, R11), from nvidia-smi -q alone: the plan's gpu expectations find
# one GPU (or four) where 8 a node are planned, which fails (exit 1); the findings listed are
# the plan-free clock and power ones.
cases.update({
 "h200-load-sw-power-cap-at-limit.txt": {"$exit": 1,
     "findings": [C, F("gpu.sw_power_cap", "pass", observed=693, expected=700, rule="R10")]},
 "a10-vm-sw-power-cap-far-below-limit.txt": {"$exit": 1,
     "findings": [C, F("gpu.sw_power_cap", "warn", observed=15.65, expected=150, rule="R10,R11")]},
 "v100-old-driver-hw-slowdowns-lowered-limit.txt": {"$exit": 1, "verdict": "fail",
     "findings": [C, F("gpu.hw_power_brake", "fail", observed=382, expected=1530, rule="R10"),
                  F("gpu.hw_thermal_slowdown", "fail", observed=945, expected=1530, rule="R10"),
                  F("gpu.sw_thermal_slowdown", "warn", observed=945, rule="R10"),
                  F("gpu.power_limit_lowered", "warn", observed=200, expected=300,
                    rule="R10,R11"),
                  F("gpu.hw_slowdown", "warn", observed=705, expected=1530, rule="R10")]},
})

# Cut outputs that show no fault: what is shown passing is not the run passing (T10).
cases.update({
 # dcgmi diag -r 3 cut after the Deployment checks (DCGM issue 55): the Integration,
 # Hardware and Stress tests are not shown, so dcgm.fail is unknown, not pass.
 "dcgm-r3-cut-after-deployment.txt": {"$exit": 0, "verdict": "unknown",
     "findings": [C, F("dcgm.fail", "unknown", observed=0, rule="T10")]},
 # nvidia-smi -q of 8 attached H100s cut after the first GPU's block (thamada/nvidia-smi):
 # one GPU shows Gen5 x16, no ECC error and no pending remap; the other seven show nothing,
 # so those four checks are unknown, not pass. The GPU count (Attached GPUs: 8) passes.
 "nvidia-smi-q-8xh100-cut-after-first-gpu.txt": {"$exit": 0, "verdict": "unknown",
     "findings": [C, F("gpu.count", "pass", observed=8),
                  F("gpu.pcie_gen", "unknown", observed=5),
                  F("gpu.pcie_width", "unknown", observed=16),
                  F("gpu.ecc_uncorrectable", "unknown", observed=0),
                  F("gpu.remap_pending", "unknown", observed=0)]},
 # The same node's default nvidia-smi table (8 GPUs, Volatile Uncorr. ECC 0 on each) before
 # that cut -q, as one CI log holds both: the table shows every GPU's ECC count, so ECC
 # passes; PCIe and row remaps are only in -q, and stay unknown.
 "nvidia-smi-table-and-cut-q-8xh100.txt": {"$exit": 0, "verdict": "unknown",
     "findings": [C, F("gpu.ecc_uncorrectable", "pass", observed=0),
                  F("gpu.pcie_width", "unknown", observed=16),
                  F("gpu.remap_pending", "unknown", observed=0)]},
})
# fio 3.36 JSON of a write job (sequential 1 MiB writes): its "read" object is all zeros
# because no read ran. The read check has no evidence (unknown), not a 0 MB/s failure.
cases.update({
 "fio-3.36-write-job.json": {"$exit": 0, "verdict": "unknown",
     "no_evidence": [C, "storage.read_mbs"],
     "findings": [C, F("storage.read_mbs", "unknown"),
                  F("storage.write_mbs", "pass", observed={"$approx": 3579.139413})]},
})
# cpupower frequency-info of an amd-pstate-epp host whose policy is 400 MHz - 400 MHz under
# hardware limits of 400 MHz - 4.46 GHz (TLP issue 764): beside the powersave governor (R38),
# the policy caps the CPU at 9% of its speed: cpu.frequency_capped warns.
cases.update({
 "cpupower-policy-pinned-400mhz.txt": {"$exit": 0, "verdict": "warn",
     "findings": [C, F("cpu.governor", "warn", observed="powersave", rule="R38"),
                  F("cpu.frequency_capped", "warn", observed=400, expected=4460,
                    rule="R38,R36")]},
})
# An all_reduce table pasted without its header (LLM-Insights: 2x A40, 47.5 GB/s at 8 GiB):
# nothing shows whether one node or two ran it, and the plan has both expectations. Each is
# unknown and says so, with the figure read (not "no evidence": the result is there).
cases.update({
 "nccl-table-without-rank-lines.txt": {"$exit": 0, "verdict": "unknown",
     "findings": [C, F("nccl.allreduce.intra_busbw_gbs", "unknown", observed=47.49),
                  F("nccl.allreduce.inter_busbw_gbs", "unknown", observed=47.49)]},
})
# nvidia-smi topo -p2p r of two RTX 5090 (club-3090 issue 1229): GNS, the GPUs do not support
# peer-to-peer; NCCL falls back to copies through host memory (R13): topo.p2p warns. The
# plan's 8 GPUs a node fail on the GPU count (exit 1).
cases.update({
 "topo-p2p-gns-2x5090.txt": {"$exit": 1, "verdict": "fail",
     "findings": [C, F("topo.p2p", "warn", observed=0, expected=1, rule="R13"),
                  F("topo.gpu_count", "fail", observed=2)]},
})

# fio's 4 KiB fdatasync'd sequential write (copy of reports/fio/k8s-homelab-optane-raw-
# fdatasync-4k): 76.4 MB/s of small synced writes is not the large-block bandwidth a checkpoint
# gets (R27, F10): storage.write_mbs is unknown with the figure, not a fail of the plan's 3000.
cases.update({
 "fio-4k-fdatasync-write.txt": {"$exit": 0, "verdict": "unknown",
     "no_evidence": [C, "storage.read_mbs"],
     "findings": [C, F("storage.write_mbs", "unknown", observed=76.4, expected=3000)]},
})

root = sys.argv[1]
for name, doc in cases.items():
    stem = name[:name.rindex(".")]
    with open(os.path.join(root, stem + ".expected.json"), "w") as out:
        json.dump(doc, out, indent=1)
        out.write("\n")
print(len(cases), "cases")
