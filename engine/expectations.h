/* expectations.h: the vocabulary shared by the planner, which promises
 * benchmark values for a plan tier, and the report checker, which compares
 * parsed tool output against them.
 *
 * An expectation is one measurable promise: an id from the list below, a
 * numeric bound (min and/or max, NaN when absent) or an expected string
 * value, and the rule/threshold ids it rests on (DOMAIN.md R/F/T).
 * In JSON it is {"id", "min"?, "max"?, "value"?, "unit"?, "why"}. */
#ifndef GPUPLAN_EXPECTATIONS_H
#define GPUPLAN_EXPECTATIONS_H

/* Topology, from `nvidia-smi topo -m` (kind "topo"). */
#define EXP_TOPO_GPU_COUNT    "topo.gpu_count"      /* min: GPUs per node */
#define EXP_TOPO_GPU_LINK     "topo.gpu_link"       /* value: worst acceptable GPU-GPU path:
                                                       "NV" (every pair NVLink), "PIX", "PXB",
                                                       "PHB", "NODE", "SYS" (best to worst) */
#define EXP_TOPO_NVLINK_MIN   "topo.nvlink_min"     /* min: NVLinks on every GPU pair (NV#) */
#define EXP_TOPO_NIC_COUNT    "topo.nic_count"      /* min: RDMA NICs per node */
/* GPUs, from nvidia-smi (kind "gpu"). */
#define EXP_GPU_COUNT         "gpu.count"           /* min: GPUs per node */
#define EXP_GPU_MODEL         "gpu.model"           /* value: the plan's catalog GPU id
                                                       ("h100-sxm-80gb"); the server adds it
                                                       from the tier's gpu.id (R5, R6) */
#define EXP_GPU_PCIE_GEN      "gpu.pcie_gen"        /* min: PCIe generation (max capability) */
#define EXP_GPU_PCIE_WIDTH    "gpu.pcie_width"      /* min: PCIe lanes, current width (R9, T6) */
#define EXP_GPU_ECC_UNCORR    "gpu.ecc_uncorrectable" /* max: 0 (T7) */
#define EXP_GPU_REMAP_PENDING "gpu.remap_pending"   /* max: 0 (T7) */
/* Collectives, from nccl-tests (kind "nccl"). GB/s bus bandwidth. */
#define EXP_NCCL_INTRA_BUSBW  "nccl.allreduce.intra_busbw_gbs" /* min (T1) */
#define EXP_NCCL_INTER_BUSBW  "nccl.allreduce.inter_busbw_gbs" /* min (T2) */
#define EXP_NCCL_WRONG        "nccl.wrong"          /* max: 0 (T8) */
#define EXP_NCCL_WARNINGS     "nccl.warnings"       /* max: 0 (T8) */
/* RDMA, from ibstat/ibstatus/ibv_devinfo (kind "ib_ports") and perftest. */
#define EXP_IB_PORTS_ACTIVE   "ib.ports_active"     /* min: active ports per node */
#define EXP_IB_RATE           "ib.rate_gbps"        /* min: port rate, Gb/s (T9) */
#define EXP_IB_LINK_LAYER     "ib.link_layer"       /* value: "InfiniBand" or "Ethernet" */
#define EXP_IB_WRITE_BW       "ib.write_bw_gbps"    /* min: ib_write_bw largest message (T3) */
/* Host<->GPU and GPU<->GPU copies, from nvbandwidth (kind "nvbandwidth"). */
#define EXP_NVBW_H2D          "nvbandwidth.h2d_gbs" /* min: per GPU host to device (T4) */
#define EXP_NVBW_D2D          "nvbandwidth.d2d_gbs" /* min: per GPU pair over NVLink (T5) */
/* Storage, from fio (kind "fio"). MB/s. */
#define EXP_STORAGE_READ      "storage.read_mbs"    /* min: per node data read (F11, R27) */
#define EXP_STORAGE_WRITE     "storage.write_mbs"   /* min: per node checkpoint write (F10) */
/* Host, from lscpu / cpupower (kind "cpu"). */
#define EXP_CPU_GOVERNOR      "cpu.governor"        /* value: "performance" (R38) */
#define EXP_CPU_THREADS       "cpu.threads"         /* min: CPU threads per node (R8, R26) */
/* Health, from dcgmi diag (kind "dcgm") and ethtool -S (kind "nic"). */
#define EXP_DCGM_FAIL         "dcgm.fail"           /* max: 0 (T10) */
#define EXP_NIC_ERRORS        "nic.errors"          /* max: 0 (R39) */
#define EXP_NIC_PAUSE         "nic.pause"           /* max: pause frames tolerated (R23, R39) */
/* Compute, from dcgmproftester -t 1004 (kind "gemm"): its 16-bit tensor-core
 * load. min: EXP_GEMM_PEAK_FRACTION of the GPU's dense 16-bit peak (F4);
 * the load is not a tuned GEMM, so falling short is a warning only. */
#define EXP_GEMM_TFLOPS       "gemm.tflops_16bit"
#define EXP_GEMM_PEAK_FRACTION 0.6

#define EXPECTATION_ID_MAX 48
#define EXPECTATION_VALUE_MAX 24

struct expectation {
    char id[EXPECTATION_ID_MAX];
    double min;                          /* NaN when there is no lower bound */
    double max;                          /* NaN when there is no upper bound */
    char value[EXPECTATION_VALUE_MAX];   /* expected text value, "" when numeric */
    char unit[12];                       /* "GB/s", "Gb/s", "MB/s", "" */
    char why[24];                        /* rule/threshold ids, e.g. "T1" or "R9,T6" */
};

#endif
