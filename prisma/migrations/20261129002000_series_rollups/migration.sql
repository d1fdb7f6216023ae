-- Rollups of the raw series: 1-minute (daily partitions, kept 35 d) and 1-hour (monthly partitions, kept 400 d).
-- Every gauge keeps avg AND max per bucket (a steal spike must not average away) and `samples` (raw rows folded in),
-- so coarser buckets are weighted averages of finer ones. Written only by lib/series/rollup.ts (upserts).

CREATE TABLE "host_samples_1m" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "samples" INTEGER NOT NULL,
    "cpu_user_pct_avg" REAL, "cpu_user_pct_max" REAL,
    "cpu_system_pct_avg" REAL, "cpu_system_pct_max" REAL,
    "cpu_iowait_pct_avg" REAL, "cpu_iowait_pct_max" REAL,
    "cpu_steal_pct_avg" REAL, "cpu_steal_pct_max" REAL,
    "cpu_idle_pct_avg" REAL, "cpu_idle_pct_max" REAL,
    "load1_avg" REAL, "load1_max" REAL,
    "psi_cpu_some_avg10_avg" REAL, "psi_cpu_some_avg10_max" REAL,
    "psi_io_some_avg10_avg" REAL, "psi_io_some_avg10_max" REAL,
    "psi_mem_some_avg10_avg" REAL, "psi_mem_some_avg10_max" REAL,
    -- Per-CPU steal folded in: at each report the most-stolen CPU, then avg/max of that over the bucket.
    "cpu_steal_worst_cpu_pct_avg" REAL, "cpu_steal_worst_cpu_pct_max" REAL,
    CONSTRAINT "host_samples_1m_pkey" PRIMARY KEY ("host_id", "ts")
) PARTITION BY RANGE ("ts");
CREATE TABLE "host_samples_1h" (LIKE "host_samples_1m" INCLUDING DEFAULTS, CONSTRAINT "host_samples_1h_pkey" PRIMARY KEY ("host_id", "ts")) PARTITION BY RANGE ("ts");

CREATE TABLE "disk_samples_1m" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "device" TEXT NOT NULL,
    "samples" INTEGER NOT NULL,
    "read_iops_avg" REAL, "read_iops_max" REAL,
    "write_iops_avg" REAL, "write_iops_max" REAL,
    "read_await_ms_avg" REAL, "read_await_ms_max" REAL,
    "write_await_ms_avg" REAL, "write_await_ms_max" REAL,
    "queue_depth_avg" REAL, "queue_depth_max" REAL,
    "util_pct_avg" REAL, "util_pct_max" REAL,
    CONSTRAINT "disk_samples_1m_pkey" PRIMARY KEY ("host_id", "ts", "device")
) PARTITION BY RANGE ("ts");
CREATE TABLE "disk_samples_1h" (LIKE "disk_samples_1m" INCLUDING DEFAULTS, CONSTRAINT "disk_samples_1h_pkey" PRIMARY KEY ("host_id", "ts", "device")) PARTITION BY RANGE ("ts");

CREATE TABLE "process_samples_1m" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "name" TEXT NOT NULL,
    "samples" INTEGER NOT NULL,
    "cpu_cores_avg" REAL, "cpu_cores_max" REAL,
    "threads_avg" REAL, "threads_max" REAL,
    "voluntary_cs_per_s_avg" REAL, "voluntary_cs_per_s_max" REAL,
    "nonvoluntary_cs_per_s_avg" REAL, "nonvoluntary_cs_per_s_max" REAL,
    CONSTRAINT "process_samples_1m_pkey" PRIMARY KEY ("host_id", "ts", "name")
) PARTITION BY RANGE ("ts");
CREATE TABLE "process_samples_1h" (LIKE "process_samples_1m" INCLUDING DEFAULTS, CONSTRAINT "process_samples_1h_pkey" PRIMARY KEY ("host_id", "ts", "name")) PARTITION BY RANGE ("ts");

CREATE TABLE "cgroup_samples_1m" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "path" TEXT NOT NULL,
    "samples" INTEGER NOT NULL,
    "usage_cores_avg" REAL, "usage_cores_max" REAL,
    "throttled_pct_avg" REAL, "throttled_pct_max" REAL,
    "throttled_ms_per_s_avg" REAL, "throttled_ms_per_s_max" REAL,
    CONSTRAINT "cgroup_samples_1m_pkey" PRIMARY KEY ("host_id", "ts", "path")
) PARTITION BY RANGE ("ts");
CREATE TABLE "cgroup_samples_1h" (LIKE "cgroup_samples_1m" INCLUDING DEFAULTS, CONSTRAINT "cgroup_samples_1h_pkey" PRIMARY KEY ("host_id", "ts", "path")) PARTITION BY RANGE ("ts");

CREATE TABLE "probe_1m" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "name" TEXT NOT NULL,
    "samples" INTEGER NOT NULL,
    "ok_count" INTEGER NOT NULL,
    "connect_ms_avg" REAL, "connect_ms_max" REAL,
    "response_ms_avg" REAL, "response_ms_max" REAL,
    CONSTRAINT "probe_1m_pkey" PRIMARY KEY ("host_id", "ts", "name")
) PARTITION BY RANGE ("ts");
CREATE TABLE "probe_1h" (LIKE "probe_1m" INCLUDING DEFAULTS, CONSTRAINT "probe_1h_pkey" PRIMARY KEY ("host_id", "ts", "name")) PARTITION BY RANGE ("ts");

-- Merged histograms: counts summed per key (the key is a pure function of the value, see lib/sketch/mapping.ts).
CREATE TABLE "latency_1m" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "name" TEXT NOT NULL,
    "tags" TEXT NOT NULL,
    "count" BIGINT NOT NULL,
    "sum" DOUBLE PRECISION NOT NULL,
    "min" DOUBLE PRECISION NOT NULL,
    "max" DOUBLE PRECISION NOT NULL,
    "zero_count" BIGINT NOT NULL,
    "keys" SMALLINT[] NOT NULL,
    "counts" BIGINT[] NOT NULL,
    CONSTRAINT "latency_1m_pkey" PRIMARY KEY ("host_id", "ts", "name", "tags")
) PARTITION BY RANGE ("ts");
CREATE TABLE "latency_1h" (LIKE "latency_1m" INCLUDING DEFAULTS, CONSTRAINT "latency_1h_pkey" PRIMARY KEY ("host_id", "ts", "name", "tags")) PARTITION BY RANGE ("ts");

-- How far each resolution is rolled up: every bucket that ends at or before rolled_until is complete.
CREATE TABLE "series_rollup_watermarks" (
    "resolution" TEXT NOT NULL,
    "rolled_until" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "series_rollup_watermarks_pkey" PRIMARY KEY ("resolution")
);

-- Creates daily partitions of the 1-minute rollups and monthly partitions of the 1-hour rollups covering
-- [first_day, last_day]; idempotent.
CREATE FUNCTION "inferwatch_ensure_rollup_partitions"(first_day DATE, last_day DATE) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    base TEXT;
    day DATE;
    month DATE;
    created INTEGER := 0;
    partition_name TEXT;
BEGIN
    FOREACH base IN ARRAY ARRAY['host_samples', 'disk_samples', 'process_samples', 'cgroup_samples',
                                'probe', 'latency'] LOOP
        day := first_day;
        WHILE day <= last_day LOOP
            partition_name := base || '_1m_p' || to_char(day, 'YYYYMMDD');
            IF to_regclass(partition_name) IS NULL THEN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                               partition_name, base || '_1m', day::text || ' 00:00:00+00',
                               (day + 1)::text || ' 00:00:00+00');
                created := created + 1;
            END IF;
            day := day + 1;
        END LOOP;
        month := date_trunc('month', first_day)::date;
        WHILE month <= last_day LOOP
            partition_name := base || '_1h_p' || to_char(month, 'YYYYMM');
            IF to_regclass(partition_name) IS NULL THEN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                               partition_name, base || '_1h', month::text || ' 00:00:00+00',
                               (month + interval '1 month')::date::text || ' 00:00:00+00');
                created := created + 1;
            END IF;
            month := (month + interval '1 month')::date;
        END LOOP;
    END LOOP;
    RETURN created;
END;
$$;
