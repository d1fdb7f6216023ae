-- Latency from a model server's own histogram (the agent's --scrape) cannot be finer than the server's buckets: such
-- a row carries, for each sketch key, the relative error of the value it stands for (Infinity for the server's open
-- top bucket). NULL: the agent's own sketch, within its 0.8 %. The rollups keep the widest error per key.
ALTER TABLE "latency_samples" ADD COLUMN "bucket_errors" REAL[];
ALTER TABLE "latency_1m" ADD COLUMN "bucket_errors" REAL[];
ALTER TABLE "latency_1h" ADD COLUMN "bucket_errors" REAL[];
ALTER TABLE "latency_region_1m" ADD COLUMN "bucket_errors" REAL[];
ALTER TABLE "latency_region_1h" ADD COLUMN "bucket_errors" REAL[];

-- One row per scraped model server per report: whether the scrape worked, the request rate, the mean latency and
-- queue time over the interval (means from the server's sums and counts, never percentiles), the queue and batch
-- gauges, and the latency series the agent's bound left out.
CREATE TABLE "server_samples" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "name" TEXT NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "requests_per_s" REAL,
    "latency_mean_ms" REAL,
    "queue_mean_ms" REAL,
    "waiting" REAL,
    "running" REAL,
    "batch_size" REAL,
    "dropped_series" INTEGER NOT NULL,
    "error" TEXT,
    CONSTRAINT "server_samples_pkey" PRIMARY KEY ("host_id", "ts", "name")
) PARTITION BY RANGE ("ts");
INSERT INTO "inferwatch_daily_partitioned" ("parent") VALUES ('server_samples');
SELECT inferwatch_ensure_partitions((now() - interval '7 days')::date, (now() + interval '2 days')::date);

CREATE TABLE "server_samples_1m" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "name" TEXT NOT NULL,
    "samples" INTEGER NOT NULL,
    "ok_count" INTEGER NOT NULL,
    "requests_per_s_avg" REAL, "requests_per_s_max" REAL,
    "latency_mean_ms_avg" REAL, "latency_mean_ms_max" REAL,
    "queue_mean_ms_avg" REAL, "queue_mean_ms_max" REAL,
    "waiting_avg" REAL, "waiting_max" REAL,
    "running_avg" REAL, "running_max" REAL,
    "batch_size_avg" REAL, "batch_size_max" REAL,
    CONSTRAINT "server_samples_1m_pkey" PRIMARY KEY ("host_id", "ts", "name")
) PARTITION BY RANGE ("ts");
CREATE TABLE "server_samples_1h" (LIKE "server_samples_1m" INCLUDING DEFAULTS, CONSTRAINT "server_samples_1h_pkey" PRIMARY KEY ("host_id", "ts", "name")) PARTITION BY RANGE ("ts");

CREATE OR REPLACE FUNCTION "inferwatch_ensure_rollup_partitions"(first_day DATE, last_day DATE) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    base TEXT;
    day DATE;
    month DATE;
    created INTEGER := 0;
    partition_name TEXT;
BEGIN
    FOREACH base IN ARRAY ARRAY['host_samples', 'disk_samples', 'process_samples', 'cgroup_samples',
                                'probe', 'latency', 'latency_region', 'server_samples'] LOOP
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

-- The rollup partitions that exist for the other bases exist for the new one too.
SELECT inferwatch_ensure_rollup_partitions(min(ts)::date, max(ts)::date) FROM latency_1m HAVING count(*) > 0;
