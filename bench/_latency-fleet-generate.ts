import type { Sql } from '../lib/db/sql';
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../lib/protocol/time';

export const FLEET_HOSTS = 10_000;
export const LATENCY_NAMES = ['inference.request', 'inference.queue', 'tokenizer.encode'] as const;
const REGIONS = ['oslo', 'frankfurt', 'paris', 'helsinki'];
/** Raw samples cover the findings window and a little more; rollups cover the baseline day and its lead-up. */
const RAW_MS = 7 * MINUTE_MS;
const MINUTES_ROLLED = 30;
const HOURS_ROLLED = 26;

async function timed(label: string, fn: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await fn();
  console.log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const r = (scale: number, offset = 0) => `(${offset} + random() * ${scale})::real`;
const ra = (n: number, scale: number) => `ARRAY(SELECT ${r(scale)} FROM generate_series(1, ${n}) WHERE g IS NOT NULL)`;

/**
 * A fleet as the findings engine sees it each cycle: hosts in four regions, raw samples of the last minutes (8 CPUs,
 * 4 disks, a cgroup, 2 processes), 1-minute and 1-hour gauge rollups, three latency series per host as 1-minute
 * and 1-hour histograms (about 40 keys each) with their region rollups, and an inventory snapshot per host.
 * Returns the watermarks it set.
 */
export async function generateLatencyFleet(sql: Sql, endMs: number): Promise<{ minuteMark: Date; hourMark: Date }> {
  const end = new Date(endMs);
  const rawFrom = new Date(endMs - RAW_MS);
  const minuteMark = new Date(floorTo(endMs - 90_000, MINUTE_MS));
  const hourMark = new Date(floorTo(minuteMark.getTime(), HOUR_MS));
  const minutesFrom = new Date(minuteMark.getTime() - MINUTES_ROLLED * MINUTE_MS);
  const hoursFrom = new Date(hourMark.getTime() - HOURS_ROLLED * HOUR_MS);
  await sql.query('SELECT inferwatch_ensure_rollup_partitions($1::date, $2::date)', [
    new Date(endMs - 2 * DAY_MS).toISOString().slice(0, 10),
    end.toISOString().slice(0, 10),
  ]);
  await timed('hosts', () =>
    sql.query(
      `INSERT INTO hosts (id, hostname, region, labels, token_hash, last_seen_at, last_report_ts)
       SELECT i, 'host-' || i, ($2::text[])[1 + i % 4], '{"service":"ranker"}', 'bench-' || i, $3, $3
       FROM generate_series(1, $1::int) i`,
      [FLEET_HOSTS, REGIONS, end],
    ),
  );
  await sql.query(`SELECT setval(pg_get_serial_sequence('hosts', 'id'), $1)`, [FLEET_HOSTS]);
  const rawTimes = `generate_series(1, ${FLEET_HOSTS}) h, generate_series($1::timestamptz, $2::timestamptz - interval '10 seconds', interval '10 seconds') t, (SELECT 1 AS g) one`;
  await timed('raw host, CPU, disk, cgroup and process samples', async () => {
    await sql.query(
      `INSERT INTO host_samples (host_id, ts, interval_ms, cpu_user_pct, cpu_nice_pct, cpu_system_pct, cpu_iowait_pct,
         cpu_irq_pct, cpu_softirq_pct, cpu_steal_pct, cpu_idle_pct, load1, psi_cpu_some_avg10, psi_io_some_avg10,
         psi_mem_some_avg10, dropped_reports)
       SELECT h, t, 10000, ${r(40, 20)}, 0, ${r(10, 5)}, ${r(3)}, 0.2, 0.2, ${r(2)}, ${r(20, 20)}, ${r(8)}, ${r(5)}, ${r(3)}, ${r(1)}, 0
       FROM ${rawTimes} ORDER BY t, h`,
      [rawFrom, end],
    );
    await sql.query(
      `INSERT INTO cpu_sample_arrays SELECT h, t, '{0,1,2,3,4,5,6,7}', ${ra(8, 50)}, ${ra(8, 0)}, ${ra(8, 10)}, ${ra(8, 3)},
         ${ra(8, 0.5)}, ${ra(8, 0.5)}, ${ra(8, 2)}, ${ra(8, 40)} FROM ${rawTimes} ORDER BY t, h`,
      [rawFrom, end],
    );
    await sql.query(
      `INSERT INTO disk_sample_arrays SELECT h, t, '{vda,vdb,nvme0n1,nvme1n1}', ${ra(4, 300)}, ${ra(4, 200)},
         ARRAY[1e6,1e6,1e6,1e6]::float8[], ARRAY[1e6,1e6,1e6,1e6]::float8[], ${ra(4, 2)}, ${ra(4, 4)}, ${ra(4, 2)},
         '{0,1,0,2}', ${ra(4, 60)} FROM ${rawTimes} ORDER BY t, h`,
      [rawFrom, end],
    );
    await sql.query(
      `INSERT INTO cgroup_samples SELECT h, t, '/system.slice/inference.service', 6, 6, ${r(6)}, ${r(10)}, ${r(10)}, ${r(50)}
       FROM ${rawTimes} ORDER BY t, h`,
      [rawFrom, end],
    );
    await sql.query(
      `INSERT INTO process_samples SELECT h, t, p.name, p.pid, p.threads, ${r(4)}, 4e9, ${r(900)}, ${r(90)}
       FROM ${rawTimes}, (VALUES ('triton', 4242, 48), ('tokenizer', 4343, 8)) p(name, pid, threads) ORDER BY t, h`,
      [rawFrom, end],
    );
  });
  const gauges = (n: number, scale: number) =>
    Array.from({ length: n }, () => `${r(scale)}, ${r(scale * 1.5)}`).join(', ');
  await timed(`gauge rollups: ${MINUTES_ROLLED} minutes and ${HOURS_ROLLED} hours`, async () => {
    for (const [level, from, to, step] of [
      ['1m', minutesFrom, minuteMark, '1 minute'],
      ['1h', hoursFrom, hourMark, '1 hour'],
    ] as const) {
      const times = `generate_series(1, ${FLEET_HOSTS}) h, generate_series($1::timestamptz, $2::timestamptz - interval '${step}', interval '${step}') t`;
      await sql.query(`INSERT INTO host_samples_${level} SELECT h, t, 6, ${gauges(10, 5)} FROM ${times} ORDER BY t, h`, [from, to]);
      await sql.query(
        `INSERT INTO disk_samples_${level} SELECT h, t, d, 6, ${gauges(6, 3)} FROM ${times}, unnest('{vda,vdb,nvme0n1,nvme1n1}'::text[]) d ORDER BY t, h`,
        [from, to],
      );
      await sql.query(`INSERT INTO cgroup_samples_${level} SELECT h, t, '/system.slice/inference.service', 6, ${gauges(3, 5)} FROM ${times} ORDER BY t, h`, [from, to]);
    }
  });
  // Rows go in in time order, as the rollups write them: a minute's rows share pages.
  // 32 histogram shapes of 40 keys around 10–60 ms (key 145 ≈ 10.3 ms, γ ≈ 1.016), as the queries bench uses.
  await sql.exec(`CREATE TABLE bench_shapes AS
    SELECT v AS id, array_agg((145 + 3 * i + (v % 3))::smallint ORDER BY i) AS keys,
           array_agg((CASE WHEN i < 34 THEN 20 + floor(random() * 60) ELSE 1 + floor(random() * 4) END)::bigint ORDER BY i) AS counts
    FROM generate_series(0, 31) v, generate_series(0, 39) i GROUP BY v`);
  await timed(`latency histograms: ${FLEET_HOSTS} hosts × ${LATENCY_NAMES.length} series, 1 m and 1 h`, async () => {
    for (const [level, from, to, step] of [
      ['1m', minutesFrom, minuteMark, '1 minute'],
      ['1h', hoursFrom, hourMark, '1 hour'],
    ] as const) {
      const scale = level === '1m' ? 1 : 60;
      await sql.query(
        `INSERT INTO latency_${level} (host_id, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
         SELECT h, t, n, '', c.total * ${scale}, c.total * ${scale} * 25.0, 10, 400, 0, b.keys,
                ARRAY(SELECT x * ${scale} FROM unnest(b.counts) x)
         FROM generate_series(1, ${FLEET_HOSTS}) h,
              generate_series($1::timestamptz, $2::timestamptz - interval '${step}', interval '${step}') t,
              unnest($3::text[]) n, bench_shapes b, LATERAL (SELECT sum(x)::bigint AS total FROM unnest(b.counts) x) c
         WHERE b.id = (h * 7 + length(n) + (extract(epoch FROM t)::bigint / 60)) % 32 ORDER BY t, h`,
        [from, to, LATENCY_NAMES],
      );
      await sql.query(
        `INSERT INTO latency_region_${level} (region, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
         SELECT r, t, n, '', c.total * 2500, c.total * 2500 * 25.0, 10, 400, 0, b.keys, ARRAY(SELECT x * 2500 FROM unnest(b.counts) x)
         FROM unnest($3::text[]) r, generate_series($1::timestamptz, $2::timestamptz - interval '${step}', interval '${step}') t,
              unnest($4::text[]) n, bench_shapes b, LATERAL (SELECT sum(x)::bigint AS total FROM unnest(b.counts) x) c
         WHERE b.id = (length(r) + length(n) + (extract(epoch FROM t)::bigint / 60)) % 32`,
        [from, to, REGIONS, LATENCY_NAMES],
      );
    }
  });
  await timed('inventory snapshots', () =>
    sql.query(
      `INSERT INTO inventory_snapshots (host_id, hash, taken_at, data)
       SELECT h, 'h' || h, $2, jsonb_build_object(
         'hash', 'h' || h,
         'host', jsonb_build_object('kernel', '6.1.0-18-amd64', 'memTotalBytes', 32e9, 'onlineCpus', 8),
         'cpu', jsonb_build_object('vendor', 'GenuineIntel', 'model', 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz', 'sockets', 1,
           'cores', 8, 'threads', 8, 'numaNodes', 1, 'flags', '["fpu","sse4_2","avx","avx2","fma","avx512f"]'::jsonb,
           'flagsUniform', true, 'hypervisor', 'kvm', 'hypervisorVendor', 'KVMKVMKVM', 'governor', null),
         'disks', '[]'::jsonb, 'dataPaths', '[]'::jsonb,
         'cgroup', jsonb_build_object('path', '/', 'version', 2, 'quotaCores', null, 'cpusetCpus', null, 'effectiveCpus', 8),
         'processes', jsonb_build_array(jsonb_build_object('name', 'triton', 'pid', 4242, 'comm', 'tritonserver', 'threads', 48,
           'cpusAllowedList', '0-7', 'cpusAllowedCount', 8, 'env', jsonb_build_object('OMP_NUM_THREADS', '8'), 'cgroup', null,
           'logWarnings', '[]'::jsonb)))
       FROM generate_series(1, $1::int) h`,
      [FLEET_HOSTS, new Date(endMs - 2 * DAY_MS)],
    ),
  );
  await sql.query(
    `INSERT INTO series_rollup_watermarks (resolution, rolled_until) VALUES ('1m', $1), ('1h', $2)
     ON CONFLICT (resolution) DO UPDATE SET rolled_until = EXCLUDED.rolled_until`,
    [minuteMark, hourMark],
  );
  await sql.exec('DROP TABLE bench_shapes; ANALYZE');
  return { minuteMark, hourMark };
}
