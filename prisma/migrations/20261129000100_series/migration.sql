-- Series tables: one row per (host, ts[, key]), range-partitioned by day so retention drops whole partitions.
-- They are written with COPY on the ingest path and read with raw SQL; Prisma treats them as external tables.

CREATE TABLE "report_ledger" (
    "host_id" INTEGER NOT NULL,
    "seq" BIGINT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "report_ledger_pkey" PRIMARY KEY ("host_id", "seq", "ts")
) PARTITION BY RANGE ("ts");

CREATE TABLE "host_samples" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "interval_ms" INTEGER NOT NULL,
    "cpu_user_pct" REAL,
    "cpu_nice_pct" REAL,
    "cpu_system_pct" REAL,
    "cpu_iowait_pct" REAL,
    "cpu_irq_pct" REAL,
    "cpu_softirq_pct" REAL,
    "cpu_steal_pct" REAL,
    "cpu_idle_pct" REAL,
    "online_cpus" SMALLINT,
    "ctxt_per_s" REAL,
    "load1" REAL,
    "load5" REAL,
    "load15" REAL,
    "procs_running" INTEGER,
    "procs_blocked" INTEGER,
    "psi_cpu_some_avg10" REAL,
    "psi_cpu_some_pct" REAL,
    "psi_io_some_avg10" REAL,
    "psi_io_some_pct" REAL,
    "psi_io_full_avg10" REAL,
    "psi_io_full_pct" REAL,
    "psi_mem_some_avg10" REAL,
    "psi_mem_some_pct" REAL,
    "psi_mem_full_avg10" REAL,
    "psi_mem_full_pct" REAL,
    "dropped_reports" INTEGER NOT NULL DEFAULT 0,
    "malformed_statsd" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "host_samples_pkey" PRIMARY KEY ("host_id", "ts")
) PARTITION BY RANGE ("ts");

CREATE TABLE "cpu_samples" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "cpu" SMALLINT NOT NULL,
    "user_pct" REAL NOT NULL,
    "nice_pct" REAL NOT NULL,
    "system_pct" REAL NOT NULL,
    "iowait_pct" REAL NOT NULL,
    "irq_pct" REAL NOT NULL,
    "softirq_pct" REAL NOT NULL,
    "steal_pct" REAL NOT NULL,
    "idle_pct" REAL NOT NULL,
    CONSTRAINT "cpu_samples_pkey" PRIMARY KEY ("host_id", "ts", "cpu")
) PARTITION BY RANGE ("ts");

CREATE TABLE "disk_samples" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "device" TEXT NOT NULL,
    "read_iops" REAL NOT NULL,
    "write_iops" REAL NOT NULL,
    "read_bytes_per_s" DOUBLE PRECISION NOT NULL,
    "write_bytes_per_s" DOUBLE PRECISION NOT NULL,
    "read_await_ms" REAL NOT NULL,
    "write_await_ms" REAL NOT NULL,
    "queue_depth" REAL NOT NULL,
    "in_flight" INTEGER NOT NULL,
    "util_pct" REAL NOT NULL,
    CONSTRAINT "disk_samples_pkey" PRIMARY KEY ("host_id", "ts", "device")
) PARTITION BY RANGE ("ts");

CREATE TABLE "cgroup_samples" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "path" TEXT NOT NULL,
    "quota_cores" REAL,
    "effective_cpus" REAL NOT NULL,
    "usage_cores" REAL NOT NULL,
    "throttled_periods_per_s" REAL NOT NULL,
    "throttled_pct" REAL NOT NULL,
    "throttled_ms_per_s" REAL NOT NULL,
    CONSTRAINT "cgroup_samples_pkey" PRIMARY KEY ("host_id", "ts", "path")
) PARTITION BY RANGE ("ts");

CREATE TABLE "process_samples" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "name" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "threads" INTEGER NOT NULL,
    "cpu_cores" REAL NOT NULL,
    "rss_bytes" DOUBLE PRECISION NOT NULL,
    "voluntary_cs_per_s" REAL NOT NULL,
    "nonvoluntary_cs_per_s" REAL NOT NULL,
    CONSTRAINT "process_samples_pkey" PRIMARY KEY ("host_id", "ts", "name", "pid")
) PARTITION BY RANGE ("ts");

-- Latency is kept as mergeable histograms (lib/sketch): summing counts per key over any set of rows gives the
-- histogram of their union, so region and fleet percentiles are exact up to the sketch's relative error.
CREATE TABLE "latency_samples" (
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
    CONSTRAINT "latency_samples_pkey" PRIMARY KEY ("host_id", "ts", "name", "tags")
) PARTITION BY RANGE ("ts");

CREATE TABLE "probe_samples" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "name" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "connect_ms" REAL,
    "response_ms" REAL,
    "error" TEXT,
    CONSTRAINT "probe_samples_pkey" PRIMARY KEY ("host_id", "ts", "name")
) PARTITION BY RANGE ("ts");

-- Creates the daily partitions of every series table for [first_day, last_day]; idempotent.
CREATE FUNCTION "inferwatch_ensure_partitions"(first_day DATE, last_day DATE) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    parent TEXT;
    day DATE;
    created INTEGER := 0;
    partition_name TEXT;
BEGIN
    FOREACH parent IN ARRAY ARRAY['report_ledger', 'host_samples', 'cpu_samples', 'disk_samples',
                                  'cgroup_samples', 'process_samples', 'latency_samples', 'probe_samples'] LOOP
        day := first_day;
        WHILE day <= last_day LOOP
            partition_name := parent || '_p' || to_char(day, 'YYYYMMDD');
            IF to_regclass(partition_name) IS NULL THEN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                               partition_name, parent, day::text || ' 00:00:00+00',
                               (day + 1)::text || ' 00:00:00+00');
                created := created + 1;
            END IF;
            day := day + 1;
        END LOOP;
    END LOOP;
    RETURN created;
END;
$$;
