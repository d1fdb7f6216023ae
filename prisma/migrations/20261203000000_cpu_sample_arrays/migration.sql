-- Per-CPU values as one row per report: each column is an array in the report's CPU order. Eight rows of one
-- report cost PostgreSQL eight heap tuples and eight index entries; one row of arrays costs one of each. In the
-- ingest benchmark (8 CPUs) PostgreSQL's CPU per report fell ≈ 30 % and the per-CPU bytes from ≈ 1.0 KB to 0.55 KB
-- (BENCHMARKS.md, fifth session). Readers keep seeing one row per CPU through the view `cpu_samples`.
CREATE TABLE "cpu_sample_arrays" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "cpu" SMALLINT[] NOT NULL,
    "user_pct" REAL[] NOT NULL,
    "nice_pct" REAL[] NOT NULL,
    "system_pct" REAL[] NOT NULL,
    "iowait_pct" REAL[] NOT NULL,
    "irq_pct" REAL[] NOT NULL,
    "softirq_pct" REAL[] NOT NULL,
    "steal_pct" REAL[] NOT NULL,
    "idle_pct" REAL[] NOT NULL,
    CONSTRAINT "cpu_sample_arrays_pkey" PRIMARY KEY ("host_id", "ts")
) PARTITION BY RANGE ("ts");

-- The same daily partitions cpu_samples has, so its rows can move over.
DO $$
DECLARE
    part RECORD;
BEGIN
    FOR part IN
        SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'cpu_samples'::regclass
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF "cpu_sample_arrays" %s',
                       replace(part.name, 'cpu_samples_', 'cpu_sample_arrays_'), part.bound);
    END LOOP;
END;
$$;

INSERT INTO "cpu_sample_arrays"
SELECT host_id, ts, array_agg(cpu ORDER BY cpu), array_agg(user_pct ORDER BY cpu), array_agg(nice_pct ORDER BY cpu),
       array_agg(system_pct ORDER BY cpu), array_agg(iowait_pct ORDER BY cpu), array_agg(irq_pct ORDER BY cpu),
       array_agg(softirq_pct ORDER BY cpu), array_agg(steal_pct ORDER BY cpu), array_agg(idle_pct ORDER BY cpu)
  FROM "cpu_samples"
 GROUP BY host_id, ts;

DROP TABLE "cpu_samples";

CREATE VIEW "cpu_samples" AS
SELECT a.host_id, a.ts, u.cpu, u.user_pct, u.nice_pct, u.system_pct, u.iowait_pct, u.irq_pct, u.softirq_pct,
       u.steal_pct, u.idle_pct
  FROM "cpu_sample_arrays" a
 CROSS JOIN LATERAL unnest(a.cpu, a.user_pct, a.nice_pct, a.system_pct, a.iowait_pct, a.irq_pct, a.softirq_pct,
                           a.steal_pct, a.idle_pct)
       AS u(cpu, user_pct, nice_pct, system_pct, iowait_pct, irq_pct, softirq_pct, steal_pct, idle_pct);

CREATE OR REPLACE FUNCTION "inferwatch_ensure_partitions"(first_day DATE, last_day DATE) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    parent TEXT;
    day DATE;
    created INTEGER := 0;
    partition_name TEXT;
BEGIN
    FOREACH parent IN ARRAY ARRAY['report_ledger', 'host_samples', 'cpu_sample_arrays', 'disk_samples',
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
