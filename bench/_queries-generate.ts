import type { Sql } from '../lib/db/sql';
import { GAUGE_ROLLUPS } from '../lib/series/tables';
import { gaugeRollupSql, latencyRollupSql, regionLatencyRollupSql } from '../lib/series/rollup-sql';
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../lib/protocol/time';

export const FLEET_HOSTS = 10_000;
export const REGION_HOSTS = 1_000;
export const REGION = 'oslo';
export const LATENCY_NAME = 'request';

async function timed(label: string, fn: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await fn();
  console.log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const HOST_GAUGES = `30 + random() * 20, 5 + random() * 5, random() * 3,
  CASE WHEN random() < 0.01 THEN 20 + random() * 30 ELSE random() * 2 END,
  40 + random() * 10, random() * 8, random() * 5, random() * 3, random()`;
const HOST_COLUMNS = `host_id, ts, interval_ms, cpu_user_pct, cpu_system_pct, cpu_iowait_pct, cpu_steal_pct, cpu_idle_pct,
  load1, psi_cpu_some_avg10, psi_io_some_avg10, psi_mem_some_avg10`;


/** Where the latency histograms start: a whole hour, so every closed hour holds 60 of them per host. */
export const latencyStartMs = (endMs: number) => floorTo(endMs - DAY_MS, HOUR_MS);

/**
 * Hosts 1…1,000 (region oslo): 24 h of host samples at 10 s and a latency histogram per host and minute
 * (on the minute, shape (7·host + epoch minute) mod 32, from the hour before `end − 24 h`);
 * host 10,001 (region lab): 30 days at 10 s; hosts 1,001…10,000: one newest sample each, for the fleet summary.
 */
export async function generateBenchData(sqls: Sql[], endMs: number): Promise<void> {
  const sql = sqls[0]!;
  const end = new Date(endMs);
  const dayAgo = new Date(endMs - DAY_MS);
  await timed('hosts', () =>
    sql.query(
      `INSERT INTO hosts (id, hostname, region, labels, token_hash, last_seen_at)
       SELECT i, 'host-' || i, CASE WHEN i <= $1 THEN $2 WHEN i > $3 THEN 'lab' ELSE (ARRAY['frankfurt','paris','helsinki'])[1 + i % 3] END,
              jsonb_build_object('model', CASE WHEN i % 2 = 0 THEN 'llama' ELSE 'mistral' END), 'bench-' || i, $4
       FROM generate_series(1, $3::int + 1) i`,
      [REGION_HOSTS, REGION, FLEET_HOSTS, end],
    ),
  );
  await sql.query(`SELECT setval(pg_get_serial_sequence('hosts', 'id'), $1)`, [FLEET_HOSTS + 1]);
  const slices = sqls.length;
  await timed(`host_samples: ${REGION_HOSTS} hosts × 24 h at 10 s`, () =>
    Promise.all(
      sqls.map((s, i) =>
        s.query(
          `INSERT INTO host_samples (${HOST_COLUMNS})
           SELECT h, t, 10000, ${HOST_GAUGES}
           FROM generate_series(1, $1) h, generate_series($2::timestamptz, $3::timestamptz - interval '10 seconds', interval '10 seconds') t
           WHERE h % $4 = $5`,
          [REGION_HOSTS, dayAgo, end, slices, i],
        ),
      ),
    ),
  );
  await timed('host_samples: 1 host × 30 days at 10 s', () =>
    sql.query(
      `INSERT INTO host_samples (${HOST_COLUMNS})
       SELECT $1, t, 10000, ${HOST_GAUGES}
       FROM generate_series($2::timestamptz, $3::timestamptz - interval '10 seconds', interval '10 seconds') t`,
      [FLEET_HOSTS + 1, new Date(endMs - 30 * DAY_MS), end],
    ),
  );
  await timed(`host_samples: newest report of ${FLEET_HOSTS - REGION_HOSTS} more hosts`, () =>
    sql.query(
      `INSERT INTO host_samples (${HOST_COLUMNS})
       SELECT h, $3::timestamptz - interval '10 seconds', 10000, ${HOST_GAUGES} FROM generate_series($1::int, $2::int) h`,
      [REGION_HOSTS + 1, FLEET_HOSTS, end],
    ),
  );
  await sql.query(
    `UPDATE hosts h SET last_report_ts = s.ts FROM (SELECT host_id, max(ts) AS ts FROM host_samples GROUP BY host_id) s
     WHERE s.host_id = h.id`,
  );
  // 32 histogram shapes around 10–60 ms with a slow tail: 30 keys each (key 145 ≈ 10.3 ms, γ ≈ 1.016).
  await sql.exec(`CREATE TABLE bench_shapes AS
    SELECT v AS id, array_agg((145 + 4 * i + (v % 3))::smallint ORDER BY i) AS keys,
           array_agg((CASE WHEN i < 25 THEN 20 + floor(random() * 60) ELSE floor(random() * 4) END)::bigint ORDER BY i) AS counts
    FROM generate_series(0, 31) v, generate_series(0, 29) i GROUP BY v`);
  await timed(`latency_samples: ${REGION_HOSTS} hosts × 24–25 h, one histogram per minute`, () =>
    Promise.all(
      sqls.map((s, i) =>
        s.query(
          `INSERT INTO latency_samples (host_id, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
           SELECT h, t, $6, '', c.total, c.total * 25.0, 10, 400, 0, b.keys, b.counts
           FROM generate_series(1, $1) h,
                generate_series($2::timestamptz, $3::timestamptz - interval '1 millisecond', interval '1 minute') t,
                bench_shapes b,
                LATERAL (SELECT sum(x)::bigint AS total FROM unnest(b.counts) x) c
           WHERE b.id = (h * 7 + (extract(epoch FROM t)::bigint / 60)) % 32 AND h % $4 = $5`,
          [REGION_HOSTS, new Date(latencyStartMs(endMs)), end, slices, i, LATENCY_NAME],
        ),
      ),
    ),
  );
  await sql.exec('ANALYZE');
}

const MERGE_SHAPES = (source: string) => `SELECT id, array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts, sum(c)::bigint AS total
  FROM (SELECT id, u.k, sum(u.c)::bigint AS c FROM (${source}) s, unnest(s.keys, s.counts) u(k, c) GROUP BY 1, 2) x GROUP BY id`;

/**
 * The rollups of every closed minute and hour, written in bulk rather than by rollUp. Equivalent by construction:
 * host gauges and per-host latency minutes (with their quantiles) by rollUp's own statements over the whole range at
 * once; a histogram merged over a set of rows depends only on which shapes it sums, so per-host hours (shape offset
 * (7·host + hour's minute) mod 32) and region minutes (minute mod 32) are merged once per distinct offset in SQL and
 * assigned; region hours by rollUp's own statement from region minutes.
 */
export async function generateRollups(sqls: Sql[], endMs: number): Promise<void> {
  const sql = sqls[0]!;
  const minuteEnd = new Date(floorTo(endMs, MINUTE_MS));
  const hourEnd = new Date(floorTo(endMs, HOUR_MS));
  const start = new Date(endMs - 31 * DAY_MS);
  await sql.query('SELECT inferwatch_ensure_rollup_partitions($1::date, $2::date)', [start.toISOString().slice(0, 10), minuteEnd.toISOString().slice(0, 10)]);
  const host = GAUGE_ROLLUPS.find((spec) => spec.base === 'host_samples')!;
  // Two halves of the range on two connections: buckets never span the split (a whole hour).
  const split = new Date(floorTo(endMs - 12 * HOUR_MS, HOUR_MS));
  await timed('host_samples_1m (rollUp statement, whole range)', () =>
    Promise.all([sqls[0]!.query(gaugeRollupSql(host, '1m'), [start, split]), (sqls[1] ?? sql).query(gaugeRollupSql(host, '1m'), [split, minuteEnd])]),
  );
  await timed('host_samples_1h (rollUp statement, whole range)', () => sql.query(gaugeRollupSql(host, '1h'), [start, hourEnd]));
  await timed('latency_1m and latency_quantiles_1m (rollUp statement, whole range)', () =>
    Promise.all([
      sqls[0]!.query(latencyRollupSql('1m'), [start, split]),
      (sqls[1] ?? sql).query(latencyRollupSql('1m'), [split, minuteEnd]),
    ]),
  );
  await timed('latency_1h: 32 merged hour shapes, assigned per host and hour', async () => {
    await sql.exec(`CREATE TABLE bench_hour_shapes AS ${MERGE_SHAPES(
      'SELECT s0 AS id, b.keys, b.counts FROM generate_series(0, 31) s0 CROSS JOIN generate_series(0, 59) j JOIN bench_shapes b ON b.id = (s0 + j) % 32',
    )}`);
    await sql.query(
      `INSERT INTO latency_1h (host_id, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
       SELECT h, t, $4, '', s.total, s.total * 25.0, 10, 400, 0, s.keys, s.counts
       FROM generate_series(1, $1::int) h, generate_series($2::timestamptz, $3::timestamptz - interval '1 hour', interval '1 hour') t,
            bench_hour_shapes s
       WHERE s.id = (h * 7 + (extract(epoch FROM t)::bigint / 60)) % 32`,
      [REGION_HOSTS, new Date(latencyStartMs(endMs)), hourEnd, LATENCY_NAME],
    );
  });
  await timed('latency_region_1m: 32 merged region-minute shapes, assigned per minute', async () => {
    await sql.query(
      `CREATE TABLE bench_region_shapes AS ${MERGE_SHAPES(
        `SELECT r AS id, b.keys, b.counts FROM generate_series(0, 31) r CROSS JOIN generate_series(1, ${REGION_HOSTS}) h JOIN bench_shapes b ON b.id = (h * 7 + r) % 32`,
      )}`,
    );
    await sql.query(
      `INSERT INTO latency_region_1m (region, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
       SELECT $3, t, $4, '', s.total, s.total * 25.0, 10, 400, 0, s.keys, s.counts
       FROM generate_series($1::timestamptz, $2::timestamptz - interval '1 millisecond', interval '1 minute') t, bench_region_shapes s
       WHERE s.id = (extract(epoch FROM t)::bigint / 60) % 32`,
      [new Date(latencyStartMs(endMs)), minuteEnd, REGION, LATENCY_NAME],
    );
  });
  await timed('latency_region_1h (rollUp statement from region minutes)', () =>
    sql.query(regionLatencyRollupSql('1h'), [new Date(latencyStartMs(endMs)), hourEnd]),
  );
  await sql.query(
    `INSERT INTO series_rollup_watermarks (resolution, rolled_until, latency_quantiles_from) VALUES ('1m', $1, $3), ('1h', $2, NULL)
     ON CONFLICT (resolution) DO UPDATE SET rolled_until = EXCLUDED.rolled_until, latency_quantiles_from = EXCLUDED.latency_quantiles_from`,
    [minuteEnd, hourEnd, start],
  );
  await sql.exec('DROP TABLE bench_shapes, bench_hour_shapes, bench_region_shapes; ANALYZE');
}
