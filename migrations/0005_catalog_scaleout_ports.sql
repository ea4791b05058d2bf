-- 0005_catalog_scaleout_ports: scale-out network ports built into the accelerator.
-- Most GPUs reach other nodes through a PCIe NIC per GPU (R16, GPUDirect RDMA), which a
-- plan must buy and cable. Intel Gaudi 3 carries 24 x 200 GbE RoCE v2 ports on the chip;
-- on the 8-card universal baseboard 21 of them wire the cards to each other (scale-up) and
-- 3 per card go to the board's OSFP cages for scale-out (shared data/hardware.csv, Gaudi 3
-- row: "24 x 200 GbE RoCE on-chip (21 for scale-up in 8-card board, 3 for scale-out)";
-- Intel Gaudi 3 Hot Chips 2024 slides and white paper). Such a node needs no NICs: its
-- fabric is switch ports, optics and cables only, and the ports' total speed
-- (3 x 200 = 600 Gb/s) bounds the per-GPU fabric rate.
-- scaleout_ports: on-chip RDMA ports per GPU that leave the node; 0 = the GPU needs NICs.
-- scaleout_port_gbps: line rate of one such port. scaleout_source: where the figure comes from.
-- Forward only: 0002 stays as landed.

ALTER TABLE catalog_gpu ADD COLUMN scaleout_ports INTEGER NOT NULL DEFAULT 0 CHECK (scaleout_ports >= 0);
ALTER TABLE catalog_gpu ADD COLUMN scaleout_port_gbps DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE catalog_gpu ADD COLUMN scaleout_source TEXT NOT NULL DEFAULT '';

-- 0002 modelled the Gaudi 3 scale-out as a 400 Gb/s NIC per card; the three on-chip
-- ports give 600 Gb/s per card, which is now the default rate.
UPDATE catalog_gpu SET scaleout_ports = 3, scaleout_port_gbps = 200, default_fabric_gbps = 600,
    scaleout_source = 'Intel Hot Chips 2024 via hardware.csv: 24 x 200 GbE on-chip, 3 per card scale-out'
    WHERE id = 'gaudi3-oam-128gb';
