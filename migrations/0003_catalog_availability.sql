-- 0003_catalog_availability: who can actually rent or buy a GPU, and how much a price
-- can be trusted. The planner leaves `restricted` GPUs out of a recommendation unless
-- the workload names them in gpus_allowed, and warns when a plan's cost rests on a
-- price that is only an estimate or an assumption.
-- availability: 'global' = sold and rented in most markets; 'restricted' = a SKU made
--   for one market (export-control variants) or otherwise not generally offered.
-- *_price_confidence: 'quote' = a current list price read at the source;
--   'secondary' = a published price seen through a secondary source (press, blogs,
--   marketplace aggregators; volatile); 'estimate' = our own estimate;
--   'assumption' = a figure someone assumed for their own accounting (not a market price).
-- Forward only: 0002 stays as landed; these columns default to the cautious values.

ALTER TABLE catalog_gpu ADD COLUMN availability TEXT NOT NULL DEFAULT 'global'
    CHECK (availability IN ('global','restricted'));
ALTER TABLE catalog_gpu ADD COLUMN availability_note TEXT NOT NULL DEFAULT '';
ALTER TABLE catalog_gpu ADD COLUMN cloud_price_confidence TEXT NOT NULL DEFAULT 'estimate'
    CHECK (cloud_price_confidence IN ('quote','secondary','estimate','assumption'));
ALTER TABLE catalog_gpu ADD COLUMN server_price_confidence TEXT NOT NULL DEFAULT 'estimate'
    CHECK (server_price_confidence IN ('quote','secondary','estimate','assumption'));

-- H800: the export-control Hopper SKU for China (shared data/interconnect-storage-failure-facts.md
-- s1.2 "H800 (China SKU)", caveat 9); its $2/GPU-hour is the rental rate the DeepSeek-V3
-- report assumed for its cost accounting (Table 1; hardware.csv price_basis "assumption, not a
-- market quote"), so it is an assumption, and its server price is copied from HGX H100.
UPDATE catalog_gpu SET availability = 'restricted',
    availability_note = 'export-control SKU for the China market (facts s1.2, caveat 9); not offered by most clouds',
    cloud_price_confidence = 'assumption'
    WHERE id = 'h800-sxm-80gb';

-- Cloud prices read from a published source (all secondary per 0002's price_source and
-- hardware.csv confidence "price secondary/volatile"): Lambda on-demand (llm.c #481),
-- pricegpu marketplace range, gpu.blog and awesomeagents neocloud ranges.
UPDATE catalog_gpu SET cloud_price_confidence = 'secondary'
    WHERE id IN ('a100-sxm-40gb','a100-sxm-80gb','a100-pcie-40gb','h100-sxm-80gb',
                 'mi300x-oam-192gb','mi325x-oam-256gb');
-- Server prices from press (DGX A100 launch list, NVL72 rack, Gaudi 3 kit, DGX B200).
UPDATE catalog_gpu SET server_price_confidence = 'secondary'
    WHERE id IN ('a100-sxm-40gb','gb200-nvl-186gb','gaudi3-oam-128gb','b200-sxm-180gb');

-- Consumer cards are rented on community marketplaces (per-GPU rates, volatile, no SLA);
-- the rates stay estimates but the source now says so plainly.
UPDATE catalog_gpu SET price_source =
    'cloud: community GPU marketplace rate, per card (estimate, volatile, no SLA); server: 8 cards at ~$2k + chassis (estimate)'
    WHERE id = 'rtx4090-pcie-24gb';
UPDATE catalog_gpu SET price_source =
    'cloud: community GPU marketplace rate, per card (estimate, volatile, no SLA); server: 8 cards + chassis (estimate)'
    WHERE id = 'rtx5090-pcie-32gb';
