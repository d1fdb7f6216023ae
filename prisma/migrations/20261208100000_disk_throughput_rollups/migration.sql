-- Disk throughput joins the disk rollups (read and written bytes per second, avg and max per bucket), so a host's
-- charts show it beyond the raw retention. Buckets rolled up before this migration have no value (a gap).
ALTER TABLE "disk_samples_1m"
    ADD COLUMN "read_bytes_per_s_avg" REAL, ADD COLUMN "read_bytes_per_s_max" REAL,
    ADD COLUMN "write_bytes_per_s_avg" REAL, ADD COLUMN "write_bytes_per_s_max" REAL;
ALTER TABLE "disk_samples_1h"
    ADD COLUMN "read_bytes_per_s_avg" REAL, ADD COLUMN "read_bytes_per_s_max" REAL,
    ADD COLUMN "write_bytes_per_s_avg" REAL, ADD COLUMN "write_bytes_per_s_max" REAL;
