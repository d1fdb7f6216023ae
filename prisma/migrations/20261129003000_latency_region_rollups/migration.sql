-- Region-level latency rollups: the merged histogram of every host of a region per bucket, so region and fleet
-- quantiles read a few rows per hour instead of one per host. Hosts keep the region they enrolled with.
CREATE TABLE "latency_region_1m" (
    "region" TEXT NOT NULL,
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
    CONSTRAINT "latency_region_1m_pkey" PRIMARY KEY ("name", "region", "tags", "ts")
) PARTITION BY RANGE ("ts");
CREATE TABLE "latency_region_1h" (LIKE "latency_region_1m" INCLUDING DEFAULTS, CONSTRAINT "latency_region_1h_pkey" PRIMARY KEY ("name", "region", "tags", "ts")) PARTITION BY RANGE ("ts");

-- (host, minute) pairs that received reports older than the rollup's lateness window: the next rollup pass
-- re-rolls exactly these. Filled by ingest only for late reports.
CREATE TABLE "rollup_dirty_minutes" (
    "host_id" INTEGER NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "rollup_dirty_minutes_pkey" PRIMARY KEY ("host_id", "minute")
);

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
                                'probe', 'latency', 'latency_region'] LOOP
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

-- Backfill from the per-host rollups already written, so the two agree from the start.
SELECT inferwatch_ensure_rollup_partitions(min(ts)::date, max(ts)::date) FROM latency_1m HAVING count(*) > 0;
SELECT inferwatch_ensure_rollup_partitions(min(ts)::date, max(ts)::date) FROM latency_1h HAVING count(*) > 0;
INSERT INTO "latency_region_1m" (region, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
SELECT s.region, s.ts, s.name, s.tags, s.count, s.sum, s.min, s.max, s.zero_count, coalesce(m.keys, '{}'), coalesce(m.counts, '{}')
FROM (SELECT h.region, x.ts, x.name, x.tags, sum(x.count)::bigint AS count, sum(x.sum) AS sum, min(x.min) AS min,
             max(x.max) AS max, sum(x.zero_count)::bigint AS zero_count
      FROM latency_1m x JOIN hosts h ON h.id = x.host_id GROUP BY 1, 2, 3, 4) s
LEFT JOIN (SELECT region, ts, name, tags, array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts
           FROM (SELECT h.region, x.ts, x.name, x.tags, u.k, sum(u.c)::bigint AS c
                 FROM latency_1m x JOIN hosts h ON h.id = x.host_id, unnest(x.keys, x.counts) AS u(k, c)
                 GROUP BY 1, 2, 3, 4, 5) k
           GROUP BY 1, 2, 3, 4) m USING (region, ts, name, tags);
INSERT INTO "latency_region_1h" (region, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
SELECT s.region, s.ts, s.name, s.tags, s.count, s.sum, s.min, s.max, s.zero_count, coalesce(m.keys, '{}'), coalesce(m.counts, '{}')
FROM (SELECT h.region, x.ts, x.name, x.tags, sum(x.count)::bigint AS count, sum(x.sum) AS sum, min(x.min) AS min,
             max(x.max) AS max, sum(x.zero_count)::bigint AS zero_count
      FROM latency_1h x JOIN hosts h ON h.id = x.host_id GROUP BY 1, 2, 3, 4) s
LEFT JOIN (SELECT region, ts, name, tags, array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts
           FROM (SELECT h.region, x.ts, x.name, x.tags, u.k, sum(u.c)::bigint AS c
                 FROM latency_1h x JOIN hosts h ON h.id = x.host_id, unnest(x.keys, x.counts) AS u(k, c)
                 GROUP BY 1, 2, 3, 4, 5) k
           GROUP BY 1, 2, 3, 4) m USING (region, ts, name, tags);
