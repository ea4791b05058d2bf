-- 0004_report_calibration: what a report's measured figures mean for the plan.
-- When a report carries measured busbw (nccl-tests all_reduce) the checker
-- re-estimates the plan's tier with it ("at the measured 141 GB/s the 58-day
-- plan takes 56.2 days"). The upload stores that block beside the verdict so
-- it reads back with the report and moves with every re-check. NULL when the
-- report measured nothing the planner can use.
ALTER TABLE reports ADD COLUMN calibration_json TEXT;
