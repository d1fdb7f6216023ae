-- A report's disks as one row of arrays, as its CPUs are (20261203000000_cpu_sample_arrays): each column holds the
-- report's disks in its order. Four disks were four heap tuples and four index entries per report; now one. Readers
-- keep seeing one row per disk through the view `disk_samples`.
CREATE TABLE "disk_sample_arrays" (
    "host_id" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "device" TEXT[] NOT NULL,
    "read_iops" REAL[] NOT NULL,
    "write_iops" REAL[] NOT NULL,
    "read_bytes_per_s" DOUBLE PRECISION[] NOT NULL,
    "write_bytes_per_s" DOUBLE PRECISION[] NOT NULL,
    "read_await_ms" REAL[] NOT NULL,
    "write_await_ms" REAL[] NOT NULL,
    "queue_depth" REAL[] NOT NULL,
    "in_flight" INTEGER[] NOT NULL,
    "util_pct" REAL[] NOT NULL,
    CONSTRAINT "disk_sample_arrays_pkey" PRIMARY KEY ("host_id", "ts")
) PARTITION BY RANGE ("ts");

-- The same daily partitions disk_samples has, so its rows can move over.
DO $$
DECLARE
    part RECORD;
BEGIN
    FOR part IN
        SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'disk_samples'::regclass
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF "disk_sample_arrays" %s',
                       replace(part.name, 'disk_samples_', 'disk_sample_arrays_'), part.bound);
    END LOOP;
END;
$$;

INSERT INTO "disk_sample_arrays"
SELECT host_id, ts, array_agg(device ORDER BY device), array_agg(read_iops ORDER BY device),
       array_agg(write_iops ORDER BY device), array_agg(read_bytes_per_s ORDER BY device),
       array_agg(write_bytes_per_s ORDER BY device), array_agg(read_await_ms ORDER BY device),
       array_agg(write_await_ms ORDER BY device), array_agg(queue_depth ORDER BY device),
       array_agg(in_flight ORDER BY device), array_agg(util_pct ORDER BY device)
  FROM "disk_samples"
 GROUP BY host_id, ts;

DROP TABLE "disk_samples";

CREATE VIEW "disk_samples" AS
SELECT a.host_id, a.ts, u.device, u.read_iops, u.write_iops, u.read_bytes_per_s, u.write_bytes_per_s,
       u.read_await_ms, u.write_await_ms, u.queue_depth, u.in_flight, u.util_pct
  FROM "disk_sample_arrays" a
 CROSS JOIN LATERAL unnest(a.device, a.read_iops, a.write_iops, a.read_bytes_per_s, a.write_bytes_per_s,
                           a.read_await_ms, a.write_await_ms, a.queue_depth, a.in_flight, a.util_pct)
       AS u(device, read_iops, write_iops, read_bytes_per_s, write_bytes_per_s, read_await_ms, write_await_ms,
            queue_depth, in_flight, util_pct);

-- The daily-partitioned raw tables, listed in a table so that a migration adding or replacing one inserts a row
-- instead of redefining the function below once more.
CREATE TABLE "inferwatch_daily_partitioned" ("parent" TEXT PRIMARY KEY);
INSERT INTO "inferwatch_daily_partitioned" ("parent")
VALUES ('report_ledger'), ('host_samples'), ('cpu_sample_arrays'), ('disk_sample_arrays'), ('cgroup_samples'),
       ('process_samples'), ('latency_samples'), ('probe_samples');

CREATE OR REPLACE FUNCTION "inferwatch_ensure_partitions"(first_day DATE, last_day DATE) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    parent TEXT;
    day DATE;
    created INTEGER := 0;
    partition_name TEXT;
BEGIN
    FOR parent IN SELECT p.parent FROM "inferwatch_daily_partitioned" p ORDER BY p.parent LOOP
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
