# Writes NAME.expected.json for the gemm samples (dcgmproftester, gpu_burn).
# Every rate, error count and temperature below was typed in by reading the
# input file (see INDEX.md); medians are computed here from those typed lists,
# never taken from the parser's output.
#   dcgmproftester: steady samples = each worker's samples after its first
#   (the first second ramps up). gpu_burn: steady samples = those printed
#   after the GPU finished an iteration (proc'd > 0 and a nonzero rate).
#   Rates in TFLOPS = printed gflops / 1000.
import json, os, statistics, sys

N = None
def A(x, rel=1e-6): return {"$approx": x, "$rel": rel}

def pt_row(worker, gflops):
    steady = [g / 1000 for g in gflops[1:]]
    return {"gpu": N, "worker": worker, "name": N, "tflops": A(gflops[-1] / 1000),
            "tflops_median": A(statistics.median(steady)) if steady else N,
            "errors": N, "status": N, "temp_c": N, "samples": len(steady)}

def proftester(rows, test_id, mig=False):
    steady = [g / 1000 for _, gs in rows for g in gs[1:]]
    return {"kind": "gemm", "tool": "dcgmproftester", "facts": {
        "tool": "dcgmproftester", "test": "TensorEngineActive", "test_id": test_id,
        "precision": "fp16", "gpus": [pt_row(w, gs) for w, gs in rows],
        "tflops_median": A(statistics.median(steady)), "tflops_min": A(min(steady)),
        "tflops_max": A(max(steady)), "samples": len(steady), "gpus_ok": N,
        "gpus_faulty": N, "died": False, "init_failed": False, "mig": mig}}

def burn_row(gpu, samples, errors, temp, status=N, died=False, name=N):
    # samples: (proc'd, Gflop/s) per progress line, as printed; name: the
    # model from the "GPU n: NAME (UUID: ...)" line, None where the input
    # has no such line
    steady = [r / 1000 for p, r in samples if p > 0 and r > 0]
    return {"gpu": gpu, "worker": N, "name": name,
            "tflops": A(samples[-1][1] / 1000) if samples else N,
            "tflops_median": A(statistics.median(steady)) if steady else N,
            "errors": errors, "status": status, "temp_c": temp, "samples": len(steady),
            "died": died}

def burn(test, rows, ok=N, faulty=N, died=False, init_failed=False, tensor_cores=False):
    # tensor_cores: the "Initialized device" line ends ", using Tensor Cores"
    # (-tc); precision stays that of the inputs, the tool names no other
    return {"kind": "gemm", "tool": "gpu_burn", "facts": {
        "tool": "gpu_burn", "test": test,
        "precision": {"FLOATS": "fp32", "DOUBLES": "fp64"}.get(test),
        "tensor_cores": tensor_cores,
        "gpus": rows, "gpus_ok": ok, "gpus_faulty": faulty, "died": died,
        "init_failed": init_failed}}

def pooled(*lists):
    v = [r / 1000 for l in lists for p, r in l if p > 0 and r > 0]
    if not v:
        return {"tflops_median": N, "tflops_min": N, "tflops_max": N, "samples": 0}
    return {"tflops_median": A(statistics.median(v)), "tflops_min": A(min(v)),
            "tflops_max": A(max(v)), "samples": len(v)}

T4 = [26723.0, 27450.3, 27520.2, 27386.5, 27294.1, 27304.2, 27220.1, 27193.2, 27139.5,
      27125.2, 26985.2, 27282.3, 27413.9, 27366.0, 27378.1, 27244.6]
A100 = [250362.2, 252917.0, 253971.7, 253700.2, 252599.0, 253134.6, 252676.7, 252861.4,
        252764.1, 253109.4]
MIG0 = [102659.5, 107747.3, 108107.6, 108001.2]
MIG1 = [102659.8, 107787.3, 108102.3]
OPER = [1.78e+05, 1.89e+05, 1.89e+05, 1.89e+05, 1.89e+05, 1.89e+05]
TINY = [20.4, 20.4, 20.4]
CN = [74380.8, 75398.9, 75787.6, 77173.9, 75669.5]

I12 = [(18000, 6311), (12600, 6440), (11700, 6490), (11700, 6457), (11700, 6451), (10800, 6454),
       (10800, 6446), (10800, 6461), (10800, 6480), (10800, 6411), (10800, 6660), (11700, 6532),
       (10800, 6523), (10800, 6490), (10800, 6432), (10800, 6439)]
W = -524288000
E12 = [0, W, W, W, W, 0, 0, 0, 0, W, 0, W, 0, 0, W, 0]
T12 = [51, 45, 48, 50, 49, 46, 46, 50, 51, 47, 46, 50, 50, 47, 47, 52]
K80 = [(636, 2085), (636, 2085), (1908, 2273)]
A500 = [(10, 2047), (20, 3500), (30, 3519)]
G0_96 = [(81, 47174), (162, 52502), (162, 52502), (324, 52371), (405, 52045)]
G1_96 = [(0, 0), (81, 46929), (162, 51733), (243, 52472), (324, 51946)]
K40 = [(446, 74)]
M4000 = [(6636, 423)]
E69 = [-533715488] * 7 + [1278531568]
T69 = [30, 30, 30, 30, 29, 31, 30, 30]
DEAD = [(-1, 0)] * 4
IDLE = [(0, 0)] * 4

def with_pool(sec, *lists):
    sec["facts"].update(pooled(*lists))
    return sec

cases = {
 "dcgmproftester/flatcar-t4-tensor-27tflops.txt": ([proftester([(N, T4)], N)], 0),
 "dcgmproftester/dcgm-docs-a100-worker-250tflops.txt": ([proftester([("0:0", A100)], 1004)], 0),
 "dcgmproftester/dcgm-docs-a100-mig-2workers-snip.txt":
     ([proftester([("0:0", MIG0), ("0:1", MIG1)], 1004, mig=True)], 1),   # "snip...snip"
 "dcgmproftester/gpu-operator-blog-a100-v12-exponent-elided.txt":
     ([proftester([("0:0", OPER)], 1004)], 0),
 "dcgmproftester/k8s-blog-tiny-20gflops.txt": ([proftester([("0:0", TINY)], 1004)], 0),
 "dcgmproftester/cn-notes-75tflops-cut-top.txt": ([proftester([(N, CN)], N)], 0),
 "gpu-burn/issue12-16gpu-negative-errors-all-faulty.txt": ([with_pool(burn(N,
     [burn_row(i, [I12[i]], E12[i], T12[i], "FAULTY") for i in range(16)], faulty=16),
     *[[x] for x in I12])], 0),
 "gpu-burn/issue8-k80-healthy-summary.txt": ([with_pool(burn("FLOATS",
     [burn_row(0, K80, 0, 66, name="Tesla K80")]), K80)], 0),
 "gpu-burn/issue124-a500-healthy.txt": ([with_pool(burn("FLOATS",
     [burn_row(0, A500, 0, 53, name="NVIDIA RTX A500 Embedded GPU")]), A500)], 0),
 "gpu-burn/issue124-a2000-no-progress-says-ok.txt": ([with_pool(burn("FLOATS",
     [burn_row(0, [], N, N, "OK", name="NVIDIA RTX A2000 Embedded GPU")], ok=1,
     init_failed=True))], 0),
 # the four "GPU n: Tesla K80 (UUID ...)" lines (gpu_burn's `nvidia-smi -L`)
 # open the section, held until "Couldn't init a GPU test" shows it is
 # gpu_burn's; the SNIP line and the cut last line: 2 lines nobody takes
 "gpu-burn/issue52-4xk80-init-failed-died-snip-cut.txt": ([with_pool(burn("FLOATS",
     [burn_row(0, DEAD, -1903218736, 33, died=True, name="Tesla K80"),
      burn_row(1, IDLE[:1] * 4, 0, 29, name="Tesla K80"),
      burn_row(2, IDLE[:1] * 4, 0, 37, name="Tesla K80"),
      burn_row(3, IDLE[:1] * 4, 0, 31, name="Tesla K80")],
     died=True, init_failed=True))], 2),
 "gpu-burn/issue96-2x4090-second-gpu-ramp-cut.txt": ([with_pool(burn("FLOATS",
     [burn_row(0, G0_96, 0, 69, name="NVIDIA GeForce RTX 4090"),
      burn_row(1, G1_96, 0, 67, name="NVIDIA GeForce RTX 4090")]), G0_96, G1_96)], 0),
 # one progress line inside the poster's quotes: all 8 processes died
 # (proc'd -1, 0 Gflop/s), garbage error counts, then "No clients are
 # alive!  Aborting" (closing quote glued on); no "Tested" summary
 "gpu-burn/issue69-8gpu-all-died-quoted.txt": ([with_pool(burn(N,
     [burn_row(i, [(-1, 0)], E69[i], T69[i], died=True) for i in range(8)], died=True),
     *[[(-1, 0)] for i in range(8)])], 0),
 # "13.1%  proc'd" is cut before its numbers
 "gpu-burn/issue1-k40m-m4000-doubles-93c-cut.txt": ([with_pool(burn("DOUBLES",
     [burn_row(0, K40, 0, 93, name="Tesla K40m"),
      burn_row(1, M4000, 0, 57, name="Quadro M4000")]), K40, M4000)], 1),
}

root = sys.argv[1]
for path, (sections, unrec) in cases.items():
    doc = {"sections": sections, "unrecognized_lines": unrec}
    stem = path[:path.rindex(".")]
    with open(os.path.join(root, stem + ".expected.json"), "w") as out:
        json.dump(doc, out, indent=1)
        out.write("\n")
print(len(cases), "cases")
