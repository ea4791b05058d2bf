-- 0002_catalog: the hardware and model catalog the planner reads, as data.
-- The engine never hard-codes a GPU, fabric, storage kind or model: db_catalog_load
-- reads these rows into struct catalog. Every row names its source; figures marked
-- "unconfirmed" or "estimate" could not be checked against a primary source (see
-- shared data/hardware.csv). Prices are volatile snapshots with an as-of date.
-- Units: GiB for memory, GB/s for bandwidth (bidirectional where vendors quote it),
-- dense TFLOP/s, W, Gb/s for network ports, USD.

CREATE TABLE catalog_gpu (
    id                     TEXT PRIMARY KEY,      -- <model>-<form>-<memory>
    name                   TEXT NOT NULL,
    vendor                 TEXT NOT NULL,
    generation             TEXT NOT NULL CHECK (generation IN ('ampere','ada','hopper','blackwell','cdna3','gaudi3')),
    memory_gib             DOUBLE PRECISION NOT NULL,
    mem_bw_gbs             DOUBLE PRECISION NOT NULL,
    bf16_tflops            DOUBLE PRECISION NOT NULL,  -- dense, FP32 accumulate
    fp8_tflops             DOUBLE PRECISION NOT NULL,  -- dense; 0 = no FP8
    tdp_w                  DOUBLE PRECISION NOT NULL,
    scaleup_link           TEXT NOT NULL CHECK (scaleup_link IN ('pcie','nvlink-bridge','nvswitch','xgmi-mesh','ethernet')),
    scaleup_gbs            DOUBLE PRECISION NOT NULL,  -- per GPU, bidirectional
    scaleup_domain         INTEGER NOT NULL,           -- GPUs sharing the scale-up link
    nvlinks                INTEGER NOT NULL,           -- NV# between a GPU pair in topo -m (T5)
    intra_busbw_gbs        DOUBLE PRECISION NOT NULL,  -- all_reduce busbw in one node (T1)
    pcie_gen               INTEGER NOT NULL,
    per_node               INTEGER NOT NULL,           -- GPUs per server as usually sold
    per_node_min           INTEGER NOT NULL,           -- smallest server offered
    default_fabric_gbps    DOUBLE PRECISION NOT NULL,  -- NIC rate per GPU in a typical node
    cloud_usd_per_gpu_hour DOUBLE PRECISION NOT NULL,
    server_usd             DOUBLE PRECISION NOT NULL,  -- one server with per_node GPUs, no fabric
    price_as_of            TEXT NOT NULL,
    price_source           TEXT NOT NULL,
    source                 TEXT NOT NULL
);

CREATE TABLE catalog_fabric (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    kind              TEXT NOT NULL CHECK (kind IN ('roce','infiniband')),
    gbps              DOUBLE PRECISION NOT NULL,  -- port line rate
    busbw_per_nic_gbs DOUBLE PRECISION NOT NULL,  -- realised NCCL busbw per NIC (T2)
    nic_usd           DOUBLE PRECISION NOT NULL,
    switch_radix      INTEGER NOT NULL,           -- ports at this rate per switch
    switch_usd        DOUBLE PRECISION NOT NULL,
    port_usd          DOUBLE PRECISION NOT NULL,
    cable_usd         DOUBLE PRECISION NOT NULL,  -- one link: two transceivers + fibre, or a DAC
    switch_kw         DOUBLE PRECISION NOT NULL,
    as_of             TEXT NOT NULL,
    source            TEXT NOT NULL
);

CREATE TABLE catalog_storage (
    id                TEXT PRIMARY KEY CHECK (id IN ('local-nvme','nas','parallel-fs','object','archive')),
    name              TEXT NOT NULL,
    read_gbs_per_tb   DOUBLE PRECISION NOT NULL,  -- throughput that grows with capacity (F11)
    write_gbs_per_tb  DOUBLE PRECISION NOT NULL,
    read_gbs_max      DOUBLE PRECISION NOT NULL,  -- 0 = no ceiling
    write_gbs_max     DOUBLE PRECISION NOT NULL,
    min_tb            DOUBLE PRECISION NOT NULL,
    usd_per_tb_month  DOUBLE PRECISION NOT NULL,
    usd_per_tb_buy    DOUBLE PRECISION NOT NULL,
    as_of             TEXT NOT NULL,
    source            TEXT NOT NULL
);

CREATE TABLE catalog_model (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    params_b        DOUBLE PRECISION NOT NULL,  -- as published
    active_params_b DOUBLE PRECISION NOT NULL,
    layers          INTEGER NOT NULL,
    hidden          INTEGER NOT NULL,
    heads           INTEGER NOT NULL,
    kv_heads        INTEGER NOT NULL,
    ffn_hidden      INTEGER NOT NULL,           -- dense MLP width
    vocab           INTEGER NOT NULL,
    experts         INTEGER NOT NULL,           -- routed experts, 0 = dense
    experts_active  INTEGER NOT NULL,           -- top-k
    shared_experts  INTEGER NOT NULL,
    moe_ffn_hidden  INTEGER NOT NULL,
    dense_layers    INTEGER NOT NULL,           -- leading layers with the dense MLP in MoE models
    gated           INTEGER NOT NULL,           -- 1 = SwiGLU
    tied_embeddings INTEGER NOT NULL,
    seq_len         INTEGER NOT NULL,           -- pre-training sequence length
    source          TEXT NOT NULL
);

-- GPUs. Compute, memory, TDP and links from shared data/hardware.csv (datasheets as cited
-- there). intra_busbw_gbs: DOMAIN.md T1 where it gives one, otherwise 0.9 x per-direction
-- link bandwidth (derived, unconfirmed) or ~0.7 x per-direction PCIe for cards without
-- NVLink. Cloud prices: marketplace snapshots; server prices: street estimates (secondary).
INSERT INTO catalog_gpu VALUES
('a100-sxm-40gb','NVIDIA A100 40GB SXM4','NVIDIA','ampere',40,1555,312,0,400,'nvswitch',600,8,12,228,4,8,8,200,1.29,180000,'2025-06-01',
 'cloud: Lambda on-demand 2024 (llm.c discussion #481, secondary); server: DGX A100 launch list $199k (press, secondary)',
 'NVIDIA A100 datasheet via hardware.csv; T1 busbw'),
('a100-sxm-80gb','NVIDIA A100 80GB SXM4','NVIDIA','ampere',80,2039,312,0,400,'nvswitch',600,8,12,228,4,8,8,200,1.99,200000,'2026-01-15',
 'cloud: pricegpu marketplace range 1.49-2.49 early 2026 (secondary, volatile); server: HGX A100 street estimate (unconfirmed)',
 'NVIDIA A100 datasheet via hardware.csv; T1 busbw'),
('a100-pcie-40gb','NVIDIA A100 40GB PCIe','NVIDIA','ampere',40,1555,312,0,250,'nvlink-bridge',600,2,12,100,4,8,1,100,1.29,110000,'2024-06-01',
 'cloud: Lambda on-demand 2024 (llm.c #481, secondary); server: 8 cards + chassis estimate (unconfirmed)',
 'NVIDIA A100 datasheet via hardware.csv; bridge busbw derived (unconfirmed)'),
('a100-pcie-80gb','NVIDIA A100 80GB PCIe','NVIDIA','ampere',80,1935,312,0,300,'nvlink-bridge',600,2,12,100,4,8,1,100,1.49,130000,'2026-01-15',
 'cloud: low end of the A100 marketplace range (estimate); server: 8 cards + chassis estimate (unconfirmed)',
 'NVIDIA A100 datasheet via hardware.csv; bridge busbw derived (unconfirmed)'),
('h100-sxm-80gb','NVIDIA H100 80GB SXM5','NVIDIA','hopper',80,3350,989.4,1978.9,700,'nvswitch',900,8,18,460,5,8,8,400,2.99,300000,'2026-01-15',
 'cloud: pricegpu marketplace 2.49-3.99 early 2026 (secondary; AWS cut P5 up to 45% June 2025); server: HGX H100 street estimate (unconfirmed)',
 'NVIDIA H100 whitepaper v1.04 via hardware.csv; T1 busbw'),
('h100-pcie-80gb','NVIDIA H100 80GB PCIe','NVIDIA','hopper',80,2000,756,1513,350,'nvlink-bridge',600,2,12,116,5,8,1,200,2.25,230000,'2026-01-15',
 'cloud: estimate below SXM marketplace range (unconfirmed); server: 8 cards + chassis estimate (unconfirmed)',
 'NVIDIA H100 whitepaper Table 3 PCIe column, PB-11133 via hardware.csv; T1 2xH100 PCIe bridge ~116'),
('h100-nvl-94gb','NVIDIA H100 NVL 94GB','NVIDIA','hopper',94,3900,835.5,1670.5,400,'nvlink-bridge',600,2,12,116,5,8,1,400,2.50,280000,'2026-01-15',
 'cloud and server: estimates (unconfirmed)',
 'nvidia.com H100 spec table (NVL column, sparse halved) via hardware.csv; busbw as H100 PCIe bridge (T1)'),
('h800-sxm-80gb','NVIDIA H800 80GB SXM5','NVIDIA','hopper',80,3350,989.4,1978.9,700,'nvswitch',400,8,8,180,5,8,8,400,2.00,300000,'2024-12-27',
 'cloud: DeepSeek-V3 report Table 1 rental assumption $2/GPU-h; server: as HGX H100 (unconfirmed)',
 'DeepSeek-V3 report s3.1 via hardware.csv; NVLink 400 GB/s unconfirmed; busbw derived 0.9 x 200'),
('h200-sxm-141gb','NVIDIA H200 141GB SXM','NVIDIA','hopper',141,4800,989.4,1978.9,700,'nvswitch',900,8,18,431,5,8,8,400,3.50,350000,'2026-01-15',
 'cloud: estimate between H100 marketplace and AWS p5e Capacity Block 5.408 (pre-2025, secondary); server: estimate (unconfirmed)',
 'nvidia.com H200 spec table via hardware.csv; T1 busbw'),
('h200-nvl-141gb','NVIDIA H200 NVL 141GB','NVIDIA','hopper',141,4800,835.5,1670.5,600,'nvlink-bridge',900,4,18,300,5,8,1,400,3.00,320000,'2026-01-15',
 'cloud and server: estimates (unconfirmed)',
 'nvidia.com H200 spec table (NVL column) via hardware.csv; compute unconfirmed; 4-way bridge busbw derived (unconfirmed)'),
('b200-sxm-180gb','NVIDIA B200 180GB (HGX/DGX B200)','NVIDIA','blackwell',180,8000,2250,4500,1000,'nvswitch',1800,8,18,820,5,8,8,400,5.50,500000,'2026-01-15',
 'cloud: estimate (unconfirmed); server: DGX B200 press estimate (secondary)',
 'DGX B200 datasheet totals / 8, glennklockwood B200 via hardware.csv; host PCIe Gen5 (inferred); busbw derived 0.9 x 900 (unconfirmed)'),
('gb200-nvl-186gb','NVIDIA GB200 NVL72 (per Blackwell GPU)','NVIDIA','blackwell',186,8000,2500,5000,1200,'nvswitch',1800,72,18,850,6,4,4,400,6.50,170000,'2026-01-15',
 'cloud: estimate (unconfirmed); server: NVL72 rack ~$3M / 18 compute trays of 4 GPUs (press, secondary)',
 'nvidia.com GB200 NVL72 spec table / 72 via hardware.csv; busbw derived (unconfirmed)'),
('gb300-nvl-279gb','NVIDIA GB300 NVL72 (per Blackwell Ultra GPU)','NVIDIA','blackwell',279,8000,2500,5000,1400,'nvswitch',1800,72,18,850,6,4,4,800,8.00,200000,'2026-01-15',
 'cloud and server: estimates (unconfirmed)',
 'verda.com B200 vs GB300 blog via hardware.csv (secondary); busbw derived (unconfirmed)'),
('l40s-pcie-48gb','NVIDIA L40S 48GB','NVIDIA','ada',48,864,362.05,733,350,'pcie',0,1,0,22,4,8,1,200,0.99,90000,'2026-01-15',
 'cloud and server: estimates (unconfirmed)',
 'NVIDIA L40S datasheet (mullet.se transcription) via hardware.csv; PCIe busbw 0.7 x 31.5 (derived)'),
('l4-pcie-24gb','NVIDIA L4 24GB','NVIDIA','ada',24,300,121,242.5,72,'pcie',0,1,0,22,4,8,1,100,0.60,45000,'2026-01-15',
 'cloud and server: estimates (unconfirmed)',
 'NVIDIA L4 datasheet via hardware.csv; PCIe busbw derived'),
('a10-pcie-24gb','NVIDIA A10 24GB','NVIDIA','ampere',24,600,125,0,150,'pcie',0,1,0,22,4,8,1,100,0.75,45000,'2026-01-15',
 'cloud and server: estimates (unconfirmed)',
 'NVIDIA A10 datasheet, baseten blog via hardware.csv (BF16 secondary); PCIe busbw derived'),
('rtx4090-pcie-24gb','NVIDIA GeForce RTX 4090','NVIDIA','ada',24,1008,165.2,165.2,450,'pcie',0,1,0,10,4,8,1,100,0.40,32000,'2026-01-15',
 'cloud: community marketplace estimate (unconfirmed); server: 8 cards at ~$2k + chassis (estimate)',
 'Ada whitepaper Appendix A via hardware.csv: FP32-accumulate rates; no GPU P2P on GeForce, busbw through host (estimate)'),
('rtx5090-pcie-32gb','NVIDIA GeForce RTX 5090','NVIDIA','blackwell',32,1792,209.5,419,575,'pcie',0,1,0,20,5,8,1,200,0.70,42000,'2026-01-15',
 'cloud and server: estimates (unconfirmed)',
 'spheron datasheet table, Linux Format May 2025 via hardware.csv; FP32-accumulate rates unconfirmed'),
('rtx6000ada-pcie-48gb','NVIDIA RTX 6000 Ada Generation','NVIDIA','ada',48,960,364.2,728.5,300,'pcie',0,1,0,22,4,8,1,100,0.80,85000,'2026-01-15',
 'cloud and server: estimates (unconfirmed)',
 'RTX 6000 Ada datasheet via cputronic, via hardware.csv; tensor rates unconfirmed'),
('mi300x-oam-192gb','AMD Instinct MI300X','AMD','cdna3',192,5300,1307.4,2614.9,750,'xgmi-mesh',896,8,0,310,5,8,8,400,1.85,250000,'2026-01-15',
 'cloud: gpu.blog neocloud 1.71-1.85 (secondary, volatile); server: estimate (unconfirmed)',
 'AMD MI300X data sheet via hardware.csv; RCCL busbw over the 7-link mesh estimated (unconfirmed)'),
('mi325x-oam-256gb','AMD Instinct MI325X','AMD','cdna3',256,6000,1307.4,2614.9,1000,'xgmi-mesh',896,8,0,310,5,8,8,400,2.25,300000,'2026-01-15',
 'cloud: awesomeagents MI325X page 2.00-2.25 (secondary, volatile); server: estimate (unconfirmed)',
 'AMD MI325X product page via hardware.csv; busbw as MI300X (unconfirmed)'),
('gaudi3-oam-128gb','Intel Gaudi 3 (HL-325L OAM)','Intel','gaudi3',128,3670,1835,1835,900,'ethernet',1200,8,0,250,5,8,8,400,2.50,165000,'2025-06-01',
 'cloud: estimate (unconfirmed); server: 8-accelerator kit ~$125k (press, secondary) + host',
 'Intel Gaudi 3 Hot Chips 2024 and white paper via hardware.csv; scale-out 3x200 GbE per card modelled as 400 Gb/s; busbw unconfirmed');

-- Fabrics. busbw_per_nic_gbs: T2 (NDR 46-49, HDR 23-24 GB/s), other rates scaled by the
-- same ~0.92 x line rate (derived). Radix: NVIDIA Quantum QM8700 (40 x HDR), QM9700
-- (64 x NDR), Quantum-X800 Q3400 (144 x XDR), Spectrum SN2700/SN4700/SN5400/SN5600.
-- Prices: street estimates from reseller listings and press (secondary, volatile).
INSERT INTO catalog_fabric VALUES
('roce-100','RoCE v2 100 GbE (ConnectX-6 Dx)','roce',100,11.5,900,32,15000,470,250,0.5,'2025-06-01',
 'rates: IBTA/IEEE as in facts 1.3; prices: reseller estimates (unconfirmed)'),
('roce-200','RoCE v2 200 GbE (ConnectX-6/7)','roce',200,23,1300,64,35000,550,700,0.9,'2025-06-01',
 'rates: facts 1.3; Llama 2 production cluster 200 Gb/s RoCE; prices: reseller estimates (unconfirmed)'),
('roce-400','RoCE v2 400 GbE (ConnectX-7, Spectrum-4)','roce',400,46,2000,64,45000,700,1600,1.5,'2025-06-01',
 'rates: facts 1.3; Llama 3 400 Gb/s RoCE per GPU; prices: reseller estimates (unconfirmed)'),
('roce-800','RoCE v2 800 GbE (ConnectX-8, Spectrum-X SN5600)','roce',800,92,3000,64,70000,1100,2600,2.0,'2025-06-01',
 'rates: facts 1.3; busbw scaled from T2 (derived); prices: estimates (unconfirmed)'),
('ib-hdr','InfiniBand HDR 200 Gb/s (ConnectX-6, QM8700)','infiniband',200,23.5,1500,40,25000,625,700,0.75,'2025-06-01',
 'T2/T3/T9; DGX A100 8 x HDR (facts 1.3); prices: reseller estimates (unconfirmed)'),
('ib-ndr','InfiniBand NDR 400 Gb/s (ConnectX-7, QM9700)','infiniband',400,47,2300,64,45000,700,1800,1.7,'2025-06-01',
 'T2/T3/T9 (nccl-tests #290, #267); DGX H100 8 x 400G; prices: reseller estimates (unconfirmed)'),
('ib-xdr','InfiniBand XDR 800 Gb/s (ConnectX-8, Quantum-X800)','infiniband',800,94,3500,144,180000,1250,2800,4.5,'2025-06-01',
 'NVIDIA Quantum-X800 announcement (facts 1.3); busbw scaled from T2 (derived); prices: estimates (unconfirmed)');

-- Storage kinds. Throughput per TB: NVMe 7 GB/s read / 3 GB/s write per 3.84 TB Gen4 drive
-- (facts s2, unconfirmed vendor figures); parallel FS and object scale with capacity (F11);
-- Llama 3 Tectonic 2 TB/s sustained on 240 PB, 3FS 6.6 TiB/s on 180 nodes (facts s2).
-- Cloud local NVMe comes with the instance (0 per TB-month). Prices: public list prices
-- (S3 standard ~$0.023/GB-month, Glacier Deep Archive ~$0.001/GB-month) and estimates.
INSERT INTO catalog_storage VALUES
('local-nvme','Node-local NVMe SSD',1.8,0.8,0,0,3.84,0,100,'2025-06-01',
 'facts s2: p5.48xlarge 8 x 3.84 TB NVMe; Gen4 SSD ~7 GB/s read (unconfirmed); $/TB estimate'),
('nas','NAS (NFS filer)',0.1,0.05,10,5,10,100,200,'2025-06-01',
 'R28 (limited concurrency); cloud filer list prices ~$0.10/GB-month (estimate)'),
('parallel-fs','Parallel file system (Lustre, WEKA, GPFS, BeeGFS)',0.5,0.25,0,0,20,250,400,'2025-06-01',
 'R28; facts s2 (Tectonic, 3FS, Megatron 273 GB/s checkpoint writes); FSx-for-Lustre-class pricing (estimate)'),
('object','Object storage (S3-compatible)',0.05,0.05,0,0,1,21,30,'2025-06-01',
 'R28/R35 warm tier; S3 standard list price ~$0.021-0.023/GB-month'),
('archive','Archive (tape / deep archive)',0.005,0.01,0,0,1,1,10,'2025-06-01',
 'R35 cold tier; Glacier Deep Archive list price ~$0.00099/GB-month; tape estimate');

-- Model presets with full shapes (config.json of each release or the paper tables cited).
INSERT INTO catalog_model VALUES
('llama-2-7b','Llama 2 7B',6.74,6.74,32,4096,32,32,11008,32000,0,0,0,0,0,1,0,4096,'Llama 2 paper (arXiv:2307.09288) Table 1; HF config.json'),
('llama-2-13b','Llama 2 13B',13.0,13.0,40,5120,40,40,13824,32000,0,0,0,0,0,1,0,4096,'Llama 2 paper Table 1; HF config.json'),
('llama-2-70b','Llama 2 70B',69.0,69.0,80,8192,64,8,28672,32000,0,0,0,0,0,1,0,4096,'Llama 2 paper Table 1 (GQA); HF config.json'),
('llama-3-8b','Llama 3 8B',8.03,8.03,32,4096,32,8,14336,128256,0,0,0,0,0,1,0,8192,'Meta Llama 3 model card; HF config.json'),
('llama-3-70b','Llama 3 70B',70.6,70.6,80,8192,64,8,28672,128256,0,0,0,0,0,1,0,8192,'Meta Llama 3 model card; HF config.json'),
('llama-3.1-8b','Llama 3.1 8B',8.03,8.03,32,4096,32,8,14336,128256,0,0,0,0,0,1,0,8192,'Llama 3 paper (arXiv:2407.21783) Table 3'),
('llama-3.1-70b','Llama 3.1 70B',70.6,70.6,80,8192,64,8,28672,128256,0,0,0,0,0,1,0,8192,'Llama 3 paper Table 3'),
('llama-3.1-405b','Llama 3.1 405B',405.85,405.85,126,16384,128,8,53248,128256,0,0,0,0,0,1,0,8192,'Llama 3 paper Table 3 (126 layers, 16384, 128/8 heads, FFN 53248)'),
('llama-3.2-1b','Llama 3.2 1B',1.24,1.24,16,2048,32,8,8192,128256,0,0,0,0,0,1,1,8192,'HF config.json (tied embeddings)'),
('llama-3.2-3b','Llama 3.2 3B',3.21,3.21,28,3072,24,8,8192,128256,0,0,0,0,0,1,1,8192,'HF config.json (tied embeddings)'),
('mistral-7b','Mistral 7B',7.24,7.24,32,4096,32,8,14336,32000,0,0,0,0,0,1,0,8192,'Mistral 7B paper (arXiv:2310.06825) Table 1'),
('mixtral-8x7b','Mixtral 8x7B',46.7,12.9,32,4096,32,8,14336,32000,8,2,0,14336,0,1,0,8192,'Mixtral paper (arXiv:2401.04088) Table 1'),
('qwen2.5-7b','Qwen2.5 7B',7.62,7.62,28,3584,28,4,18944,152064,0,0,0,0,0,1,0,4096,'Qwen2.5 technical report Table 1; HF config.json'),
('qwen2.5-14b','Qwen2.5 14B',14.7,14.7,48,5120,40,8,13824,152064,0,0,0,0,0,1,0,4096,'Qwen2.5 technical report Table 1; HF config.json'),
('qwen2.5-32b','Qwen2.5 32B',32.5,32.5,64,5120,40,8,27648,152064,0,0,0,0,0,1,0,4096,'Qwen2.5 technical report Table 1; HF config.json'),
('qwen2.5-72b','Qwen2.5 72B',72.7,72.7,80,8192,64,8,29568,152064,0,0,0,0,0,1,0,4096,'Qwen2.5 technical report Table 1; HF config.json'),
('deepseek-v3','DeepSeek-V3',671,37,61,7168,128,128,18432,129280,256,8,1,2048,3,1,0,4096,'DeepSeek-V3 report (arXiv:2412.19437) s4.2: 61 layers, 3 dense, 256 routed + 1 shared, top-8, MLA counted as MHA'),
('dbrx','DBRX 132B',132,36,40,6144,48,8,10752,100352,16,4,0,10752,0,1,0,32768,'Databricks DBRX announcement; HF config.json'),
('gpt-3-175b','GPT-3 175B',174.6,174.6,96,12288,96,96,49152,50257,0,0,0,0,0,0,1,2048,'Brown et al. 2020 Table 2.1'),
('nemotron-4-340b','Nemotron-4 340B',340,340,96,18432,96,8,73728,256000,0,0,0,0,0,0,0,4096,'Nemotron-4 340B report (arXiv:2406.11704) Table 1 (squared ReLU, GQA)'),
('bloom-176b','BLOOM 176B',176.247,176.247,70,14336,112,112,57344,250680,0,0,0,0,0,0,1,2048,'BLOOM paper (arXiv:2211.05100) s3; bigscience tr11 README'),
('pythia-6.9b','Pythia 6.9B',6.8563,6.8563,32,4096,32,32,16384,50304,0,0,0,0,0,0,0,2048,'Pythia paper (arXiv:2304.01373) Table 1');
