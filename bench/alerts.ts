// `npm run bench -- alerts`: one alert cycle of every shipped rule over 10,000 hosts, against one plain SQL query
// reading the same inputs, on generated data on the local PostgreSQL server.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { createChannel } from '../lib/alerts/channels/channel-store';
import { SecretBox } from '../lib/alerts/channels/secret-box';
import { DEFAULT_ALERT_RULES } from '../lib/alerts/default-rules';
import { AlertEngine, type AlertCycleResult } from '../lib/alerts/engine';
import { readBaselines } from '../lib/alerts/read/baselines';
import { ensureDefaultRules } from '../lib/alerts/store/rules';
import { openDatabase } from '../lib/db/open';
import { withoutJit } from '../lib/db/without-jit';
import { poolSql, type Sql } from '../lib/db/sql';
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../lib/protocol/time';
import { runHousekeeping } from '../lib/series/maintenance';
import { serverEnvironment } from '../lib/server/environment';
import { GAUGE_ROLLUPS } from '../lib/series/tables';
import { gaugeRollupSql } from '../lib/series/rollup-sql';
import { keyOf } from '../lib/sketch';
import { adminStatement } from './_fleet-database';
import { rowsOf } from '../tests/support/rows';

const HOSTS = Number(process.env.BENCH_HOSTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const REGIONS = ['oslo', 'frankfurt', 'paris', 'helsinki'];
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const keep = process.argv.includes('--keep');

const admin = (statement: string) => adminStatement(baseUrl, statement);

async function timed(label: string, fn: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await fn();
  console.log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * 10,000 hosts in 4 regions as a fleet looks in steady state at `end`: an hour of host and disk samples and of the
 * report ledger at 10 s (so the day's partitions hold four times what a cycle reads), the last 15 minutes also
 * rolled up (the 1-minute watermark 2 min behind, as maintenance leaves it), 20 min of per-CPU rows and of latency
 * histograms (one per report), 24 hourly rollups for the baselines, and 6 h of region histograms. 1 % of hosts have
 * a steal spike, 1 % a slow disk, 0.5 % stopped reporting a minute ago, one region's service is slow.
 */
async function generate(sqls: Sql[], endMs: number): Promise<void> {
  const sql = sqls[0]!;
  const end = new Date(endMs);
  const from = new Date(endMs - HOUR_MS);
  const recent = new Date(endMs - 20 * MINUTE_MS);
  const part = (i: number) => `h % ${sqls.length} = ${i}`;
  const each = (statement: (where: string) => string, params: unknown[]) => Promise.all(sqls.map((s, i) => s.query(statement(part(i)), params)));
  await timed('hosts', () =>
    sql.query(
      `INSERT INTO hosts (id, hostname, region, labels, token_hash, last_seen_at)
       SELECT h, 'host-' || h, ($2::text[])[1 + h % 4], jsonb_build_object('model', CASE WHEN h % 2 = 0 THEN 'llama' ELSE 'mistral' END),
              'bench-' || h, $3::timestamptz - CASE WHEN h % 200 = 7 THEN interval '60 seconds' ELSE interval '5 seconds' END
         FROM generate_series(1, $1::int) h`,
      [HOSTS, REGIONS, end],
    ),
  );
  await sql.query(`SELECT setval(pg_get_serial_sequence('hosts', 'id'), $1)`, [HOSTS]);
  // Host h reports at ts ≡ (h mod 10) s: reports spread over each 10 s as a real fleet's do.
  const series = `generate_series($2::timestamptz, $3::timestamptz, interval '10 seconds') t0, LATERAL (SELECT t0 + (h % 10) * interval '1 second' AS t) tt`;
  const live = `(h % 200 <> 7 OR t < $3::timestamptz - interval '60 seconds')`;
  await timed(`host_samples: ${HOSTS} hosts × 1 h at 10 s`, () =>
    each(
      (w) => `INSERT INTO host_samples (host_id, ts, interval_ms, cpu_user_pct, cpu_system_pct, cpu_iowait_pct, cpu_steal_pct, cpu_idle_pct, load1)
        SELECT h, t, 10000, 30 + random() * 20, 5 + random() * 5,
               CASE WHEN h % 100 = 3 THEN 25 + random() * 10 ELSE random() * 3 END,
               CASE WHEN h % 100 = 1 THEN 20 + random() * 20 ELSE random() * 2 END, 30, random() * 4
          FROM generate_series(1, $1::int) h, ${series} WHERE t <= $3 AND ${live} AND ${w}`,
      [HOSTS, from, end],
    ),
  );
  await timed('report_ledger: the same reports', () =>
    each(
      (w) => `INSERT INTO report_ledger (host_id, seq, ts, received_at)
        SELECT h, extract(epoch FROM t)::bigint / 10, t, t + interval '200 milliseconds'
          FROM generate_series(1, $1::int) h, ${series} WHERE t <= $3 AND ${live} AND ${w}`,
      [HOSTS, from, end],
    ),
  );
  await timed('disk_sample_arrays: 2 disks per report', () =>
    each(
      (w) => `INSERT INTO disk_sample_arrays
        SELECT h, t, '{vda,vdb}', ARRAY[random() * 100, random() * 50]::real[], ARRAY[random() * 100, random() * 50]::real[],
               '{1000000,500000}', '{2000000,100000}', ARRAY[CASE WHEN h % 100 = 5 THEN 80 ELSE random() * 2 END, random()]::real[],
               ARRAY[random() * 4, random()]::real[], ARRAY[CASE WHEN h % 100 = 5 THEN 9 ELSE random() END, random() * 0.1]::real[],
               '{0,0}', ARRAY[random() * 60, random() * 5]::real[]
          FROM generate_series(1, $1::int) h, ${series} WHERE t <= $3 AND ${live} AND ${w}`,
      [HOSTS, from, end],
    ),
  );
  await timed('cpu_sample_arrays: 4 vCPUs, last 20 min', () =>
    each(
      (w) => `INSERT INTO cpu_sample_arrays
        SELECT h, t, '{0,1,2,3}', '{40,40,40,40}', '{0,0,0,0}', '{10,10,10,10}', '{1,1,1,1}', '{0,0,0,0}', '{0,0,0,0}',
               CASE WHEN h % 100 = 1 THEN ARRAY[2, 1, 60, 55]::real[] ELSE ARRAY[random(), random(), random(), random()]::real[] END,
               '{49,49,49,49}'
          FROM generate_series(1, $1::int) h, ${series} WHERE t <= $3 AND ${live} AND ${w}`,
      [HOSTS, recent, end],
    ),
  );
  // A histogram per report: 30 buckets around 40 ms (key 233 ≈ 40 ms), slow ones (≈ 450 ms) in one region.
  const fast = keyOf(40);
  const slow = keyOf(450);
  await timed('latency_samples: one histogram per report, last 20 min', () =>
    each(
      (w) => `INSERT INTO latency_samples (host_id, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
        SELECT h, t, 'generate', '', 200, 200 * 45.0, 30, 500, 0,
               (SELECT array_agg(k ORDER BY k)::smallint[] FROM (SELECT ${fast} - 15 + i AS k FROM generate_series(0, 28) i UNION ALL SELECT ${slow}) ks),
               (SELECT array_agg(c ORDER BY k)::bigint[] FROM (SELECT ${fast} - 15 + i AS k, CASE WHEN h % 4 = 2 THEN 5 ELSE 6 END + (i % 3 = 0)::int AS c FROM generate_series(0, 28) i
                                                      UNION ALL SELECT ${slow}, CASE WHEN h % 4 = 2 THEN 40 ELSE 1 END) cs)
          FROM generate_series(1, $1::int) h, ${series} WHERE t <= $3 AND ${live} AND ${w}`,
      [HOSTS, recent, end],
    ),
  );
  const mark = new Date(floorTo(endMs, MINUTE_MS) - 2 * MINUTE_MS);
  for (const base of ['host_samples', 'disk_samples']) {
    const spec = GAUGE_ROLLUPS.find((s) => s.base === base)!;
    await timed(`${base}_1m (rollUp's statement, the last 15 closed minutes up to the watermark)`, () =>
      sql.query(gaugeRollupSql(spec, '1m'), [new Date(floorTo(endMs, MINUTE_MS) - 17 * MINUTE_MS), mark]),
    );
  }
  await timed('latency_region_1m: 6 h of region histograms', () =>
    sql.query(
      `INSERT INTO latency_region_1m (region, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
       SELECT r, t, 'generate', '', 1000 * 200, 1000 * 200 * 45.0, 30, 500, 0, ARRAY[${fast}, ${slow}]::smallint[],
              CASE WHEN r = 'paris' THEN ARRAY[800 * 200, 200 * 200]::bigint[] ELSE ARRAY[995 * 200, 5 * 200]::bigint[] END
         FROM unnest($1::text[]) r, generate_series($2::timestamptz, $3::timestamptz - interval '1 minute', interval '1 minute') t`,
      [REGIONS, new Date(floorTo(endMs, MINUTE_MS) - 6 * HOUR_MS), mark],
    ),
  );
  await timed(`host_samples_1h: ${HOSTS} hosts × 24 h (the baselines)`, () =>
    sql.query(
      `INSERT INTO host_samples_1h (host_id, ts, samples, cpu_steal_pct_avg, cpu_steal_pct_max)
       SELECT h, t, 360, random() * 2, 2 + random() * 5
         FROM generate_series(1, $1::int) h, generate_series($2::timestamptz, $3::timestamptz - interval '1 hour', interval '1 hour') t`,
      [HOSTS, new Date(floorTo(endMs, HOUR_MS) - DAY_MS), new Date(floorTo(endMs, HOUR_MS))],
    ),
  );
  await sql.query(
    `INSERT INTO series_rollup_watermarks (resolution, rolled_until) VALUES ('1m', $1), ('1h', $2)
     ON CONFLICT (resolution) DO UPDATE SET rolled_until = EXCLUDED.rolled_until`,
    [mark, new Date(floorTo(endMs, HOUR_MS))],
  );
  await sql.query(
    `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
     SELECT 'cpu.avx512-hidden', h, ($2::text[])[1 + h % 4], 'critical', 'open', 'AVX-512 hidden.', 'Pass the host CPU.', '{"values":[]}', $1, $1, $1
       FROM generate_series(1, $3::int, 1000) h`,
    [end, REGIONS, HOSTS],
  );
  await sql.exec('ANALYZE');
}

/**
 * The reference: one statement that reads what a cycle reads — the same rows of the same tables over the same
 * windows, host by host through the same primary keys, aggregated per host (and device, region) — and nothing
 * else: no rules, no state, no writes, no round trips.
 */
function referenceSql(): string {
  const perHost = (table: string, columns: string, where: string) =>
    `(SELECT count(*) FROM hosts h CROSS JOIN LATERAL (SELECT ${columns} FROM ${table} WHERE host_id = h.id AND ${where}) x)`;
  return `SELECT
  (SELECT count(*) FROM (SELECT id, region, labels FROM hosts) h) AS hosts,
  ${perHost('host_samples', "avg(cpu_steal_pct) FILTER (WHERE ts > $1::timestamptz - interval '1 minute'), avg(cpu_iowait_pct)", "ts >= $2 AND ts <= $1")} AS host_raw,
  ${perHost('host_samples_1m', 'sum(cpu_iowait_pct_avg * samples)', "ts >= $1::timestamptz - interval '5 minutes' AND ts < $2")} AS host_rolled,
  (SELECT count(*) FROM hosts h CROSS JOIN LATERAL (SELECT u.device, avg(u.q), avg(u.r), avg(u.w) FROM disk_sample_arrays a
     CROSS JOIN LATERAL unnest(a.device, a.queue_depth, a.read_await_ms, a.write_await_ms) u(device, q, r, w)
     WHERE a.host_id = h.id AND a.ts >= $2 AND a.ts <= $1 GROUP BY 1) x) AS disk_raw,
  (SELECT count(*) FROM hosts h CROSS JOIN LATERAL (SELECT device, sum(queue_depth_avg * samples), sum(read_await_ms_avg * samples), sum(write_await_ms_avg * samples)
     FROM disk_samples_1m WHERE host_id = h.id AND ts >= $1::timestamptz - interval '10 minutes' AND ts < $2 GROUP BY 1) x) AS disk_rolled,
  (SELECT count(*) FROM hosts h CROSS JOIN LATERAL (SELECT received_at FROM report_ledger WHERE host_id = h.id ORDER BY seq DESC LIMIT 1) r
     CROSS JOIN LATERAL (SELECT interval_ms FROM host_samples WHERE host_id = h.id ORDER BY ts DESC LIMIT 1) s) AS heard,
  (SELECT count(*) FROM (SELECT h.region, x.name, sum(x.count), sum((SELECT sum(c) FROM unnest(x.counts[width_bucket($3::smallint, x.keys) + 1:]) c))
     FROM hosts h CROSS JOIN LATERAL (SELECT name, count, keys, counts FROM latency_samples WHERE host_id = h.id AND ts >= $2 AND ts <= $1) x GROUP BY 1, 2) a) AS latency_raw,
  (SELECT count(*) FROM (SELECT region, name, sum(count), sum((SELECT sum(c) FROM unnest(counts[width_bucket($3::smallint, keys) + 1:]) c))
     FROM latency_region_1m WHERE ts >= $1::timestamptz - interval '6 hours' AND ts < $2 GROUP BY 1, 2) a) AS latency_rolled,
  (SELECT count(*) FROM findings WHERE state = 'open') AS findings,
  (SELECT count(*) FROM alerts WHERE state <> 'resolved') AS alerts`;
}

// A prefix of its own: other benchmarks and tests drop their databases by prefix.
const name = `qbench_alerts_${randomBytes(4).toString('hex')}`;
await admin(`CREATE DATABASE "${name}"`);
const url = new URL(baseUrl);
url.pathname = `/${name}`;
const db = await openDatabase({ kind: 'server', url: url.toString() });
try {
  const loadBefore = os.loadavg()[0]!;
  const endMs = floorTo(Date.now(), 10_000);
  const now = new Date(endMs);
  console.log(`generating into ${name}`);
  const started = performance.now();
  await runHousekeeping(db, now, serverEnvironment().retentionDays);
  const extra = new pg.Pool({ connectionString: url.toString(), max: 1 });
  extra.on('error', (err) => console.error(`bench pool: ${err.message}`));
  await generate([db.sql, poolSql(extra)], endMs);
  await extra.end();
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
  await createChannel(db, new SecretBox(randomBytes(32)), { kind: 'webhook', name: 'bench', url: 'http://127.0.0.1:9/', secret: randomBytes(16).toString('hex'), minSeverity: 'info', matchers: [], enabled: true }, { allowPrivate: true, allowedNetworks: [] });
  console.log(`generation total: ${((performance.now() - started) / 1000).toFixed(0)} s\n`);

  const engine = new AlertEngine(db, { publicUrl: 'http://inferwatch.bench', baselineRefreshMs: DAY_MS });
  // The first cycle opens the alerts and fills the 24-hour medians' cache; the ones after are the steady state.
  const firstStarted = performance.now();
  const first = await engine.runCycle(now);
  const firstMs = performance.now() - firstStarted;
  const cycles: { ms: number; result: AlertCycleResult }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const result = await engine.runCycle(now);
    cycles.push({ ms: performance.now() - t0, result });
  }
  const reference: number[] = [];
  const mark = new Date(floorTo(endMs, MINUTE_MS) - 2 * MINUTE_MS);
  for (let i = 0; i < RUNS + 1; i++) {
    const t0 = performance.now();
    await withoutJit(db.sql, (tx) => tx.query(referenceSql(), [now, mark, keyOf(200)]));
    if (i > 0) reference.push(performance.now() - t0);
  }
  const targetedIds = Array.from({ length: 1000 }, (_, i) => 1 + i * Math.floor(HOSTS / 1000));
  const targeted: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await engine.runCycle(now, targetedIds);
    targeted.push(performance.now() - t0);
  }
  const baselineStarted = performance.now();
  await readBaselines(db.sql, [{ series: 'cpu_steal', baselineMs: DAY_MS }], now);
  const baselineMs = performance.now() - baselineStarted;

  const [states] = await rowsOf<{ firing: number; pending: number; queued: number }>(db.sql,
    `SELECT count(*) FILTER (WHERE state = 'firing')::int AS firing, count(*) FILTER (WHERE state = 'pending')::int AS pending,
            (SELECT count(*)::int FROM alert_deliveries) AS queued FROM alerts`,
  );
  const loadAfter = os.loadavg()[0]!;
  const cycleMs = median(cycles.map((c) => c.ms));
  const inputReadMs = median(reference);
  const steady = cycles[Math.floor(cycles.length / 2)]!.result;
  console.log(`rules: ${steady.rules}, observations per cycle: ${steady.observations}; after the first cycle: ${states!.firing} firing, ${states!.pending} pending, ${states!.queued} notifications queued`);
  console.log(`first cycle (opens the alerts, reads the 24 h medians): ${firstMs.toFixed(0)} ms (transitions ${JSON.stringify(first.transitions)})`);
  console.log(`median of ${RUNS} warm runs`);
  console.log('| figure | ms | what |\n|---|---|---|');
  console.log(`| cycle_ms | ${cycleMs.toFixed(0)} | every shipped rule over ${HOSTS} hosts: read ${steady.readMs.toFixed(0)}, evaluate ${steady.evaluateMs.toFixed(0)}, write ${steady.writeMs.toFixed(0)} |`);
  console.log(`| input_read_ms | ${inputReadMs.toFixed(0)} | one plain SQL statement reading the same rows |`);
  console.log(`| targeted_cycle_ms | ${median(targeted).toFixed(0)} | after 1,000 hosts' ingest: the short-window rules over them |`);
  console.log(`| baseline_refresh_ms | ${baselineMs.toFixed(0)} | the 24 h steal medians of every host (cached, refreshed every 5 min) |`);
  const result = {
    hosts: HOSTS,
    rules: steady.rules,
    cycle_ms: Number(cycleMs.toFixed(1)),
    input_read_ms: Number(inputReadMs.toFixed(1)),
    cycle_to_input_read: Number((cycleMs / inputReadMs).toFixed(2)),
    cycle_read_ms: Number(steady.readMs.toFixed(1)),
    cycle_evaluate_ms: Number(steady.evaluateMs.toFixed(1)),
    cycle_write_ms: Number(steady.writeMs.toFixed(1)),
    first_cycle_ms: Number(firstMs.toFixed(1)),
    targeted_cycle_1000_hosts_ms: Number(median(targeted).toFixed(1)),
    baseline_refresh_ms: Number(baselineMs.toFixed(1)),
    firing: states!.firing,
    pending: states!.pending,
    // Other work shares these 2 cores: the 1-minute load average before generating and after the cycles.
    load_1m: [Number(loadBefore.toFixed(1)), Number(loadAfter.toFixed(1))],
  };
  if (process.env.BENCH_WRITE_JSON) fs.writeFileSync(process.env.BENCH_WRITE_JSON, JSON.stringify(result));
  console.log(JSON.stringify(result));
} finally {
  await db.close();
  if (!keep) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
