// `npm run bench -- queries`: read-path timings over generated data on the local PostgreSQL server.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { openDatabase } from '../lib/db/open';
import { ensurePartitions } from '../lib/db/partitions';
import { poolSql, type Sql } from '../lib/db/sql';
import { getFleetSummary } from '../lib/fleet';
import { getHostSeries, getLatencyQuantiles, rollUp } from '../lib/series';
import { floorTo } from '../lib/protocol/time';
import { FLEET_HOSTS, LATENCY_NAME, REGION, REGION_HOSTS, generateBenchData, generateRollups } from './_queries-generate';
import { adminStatement } from './_fleet-database';
import { rowsOf } from '../tests/support/rows';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const keep = process.argv.includes('--keep');

const admin = (statement: string) => adminStatement(baseUrl, statement);

async function medianMs(fn: () => Promise<unknown>): Promise<{ medianMs: number; runs: number[] }> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await fn();
    runs.push(performance.now() - started);
  }
  const sorted = [...runs].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)]!, runs };
}

const ROLLUP_TABLES = ['host_samples_1m', 'host_samples_1h', 'latency_1m', 'latency_quantiles_1m', 'latency_1h', 'latency_region_1m', 'latency_region_1h'];

async function setWatermarks(sql: Sql, marks: { '1m': Date; '1h': Date }) {
  await sql.query(
    `INSERT INTO series_rollup_watermarks (resolution, rolled_until) VALUES ('1m', $1), ('1h', $2)
     ON CONFLICT (resolution) DO UPDATE SET rolled_until = EXCLUDED.rolled_until`,
    [marks['1m'], marks['1h']],
  );
}

// A prefix of its own: other benchmarks and tests drop their databases by prefix.
const name = `qbench_series_${randomBytes(4).toString('hex')}`;
await admin(`CREATE DATABASE "${name}"`);
const url = new URL(baseUrl);
url.pathname = `/${name}`;
const db = await openDatabase({ kind: 'server', url: url.toString() });
try {
  const endMs = Math.floor(Date.now() / 10_000) * 10_000;
  const now = new Date(endMs);
  const started = performance.now();
  console.log(`generating into ${name}`);
  await ensurePartitions(db.sql, now, 31, 2);
  const extra = new pg.Pool({ connectionString: url.toString(), max: 1 });
  extra.on('error', (err) => console.error(`bench pool: ${err.message}`));
  const sqls = [db.sql, poolSql(extra)];
  await generateBenchData(sqls, endMs);
  const rollupsStarted = performance.now();
  await generateRollups(sqls, endMs);
  await extra.end();
  console.log(`  rollups written in bulk: ${((performance.now() - rollupsStarted) / 1000).toFixed(1)} s`);

  // The last closed hour again through rollUp itself: timed, and its rows must equal the bulk-written ones.
  const hourEnd = floorTo(endMs, 3_600_000);
  const sliceFrom = new Date(hourEnd - 3_600_000);
  for (const table of ROLLUP_TABLES) await db.sql.query(`CREATE TABLE bench_snap_${table} AS SELECT * FROM ${table} WHERE ts >= $1`, [sliceFrom]);
  await setWatermarks(db.sql, { '1m': sliceFrom, '1h': sliceFrom });
  const sliceStarted = performance.now();
  // The data is complete, so nothing needs to settle before it is rolled.
  const sliceResult = await rollUp(db.sql, now, { settleMs: 0, maxChunks: 200 });
  const rollupSliceMs = performance.now() - sliceStarted;
  const sliceMinutes = (floorTo(endMs, 60_000) - sliceFrom.getTime()) / 60_000;
  let differing = 0;
  for (const table of ROLLUP_TABLES) {
    const [row] = await rowsOf<{ n: number }>(db.sql,
      `SELECT (SELECT count(*) FROM (TABLE bench_snap_${table} EXCEPT ALL SELECT * FROM ${table} WHERE ts >= $1) a)::int
            + (SELECT count(*) FROM (SELECT * FROM ${table} WHERE ts >= $1 EXCEPT ALL TABLE bench_snap_${table}) b)::int AS n`,
      [sliceFrom],
    );
    differing += row!.n;
    await db.sql.exec(`DROP TABLE bench_snap_${table}`);
  }
  console.log(
    `  rollUp of the last ${sliceMinutes} minutes and 1 hour (upserting over the bulk rows): ${(rollupSliceMs / 1000).toFixed(1)} s,` +
      ` caught up ${sliceResult.caughtUp}; rows differing from the bulk-written ones: ${differing}`,
  );
  if (differing > 0 || !sliceResult.caughtUp) throw new Error('bulk-written rollups differ from rollUp');
  const oneMinute = await medianMs(async () => {
    await setWatermarks(db.sql, { '1m': new Date(floorTo(endMs, 60_000) - 60_000), '1h': new Date(hourEnd) });
    await rollUp(db.sql, now, { settleMs: 0 });
  });
  console.log(`  rollUp of one minute of ${REGION_HOSTS} hosts (median of ${RUNS}): ${oneMinute.medianMs.toFixed(0)} ms`);
  await db.sql.exec('ANALYZE');
  const generationS = (performance.now() - started) / 1000;
  console.log(`generation total: ${generationS.toFixed(0)} s\n`);

  const host30d = await medianMs(() =>
    getHostSeries(db, { hostId: FLEET_HOSTS + 1, metric: 'cpu_steal', from: new Date(endMs - 30 * 86_400_000), to: now }, { now }),
  );
  const series = await getHostSeries(db, { hostId: FLEET_HOSTS + 1, metric: 'cpu_steal', from: new Date(endMs - 30 * 86_400_000), to: now }, { now });
  // "Now" is off the hour, so this also reads 1-minute and raw edges.
  const regionP99 = await medianMs(() =>
    getLatencyQuantiles(db, { scope: { kind: 'region', region: REGION }, name: LATENCY_NAME, from: new Date(endMs - 86_400_000), to: now }),
  );
  const latency = await getLatencyQuantiles(db, { scope: { kind: 'region', region: REGION }, name: LATENCY_NAME, from: new Date(endMs - 86_400_000), to: now });
  const fleetP99 = await medianMs(() =>
    getLatencyQuantiles(db, { scope: { kind: 'fleet' }, name: LATENCY_NAME, from: new Date(endMs - 86_400_000), to: now }),
  );
  const fleet = await medianMs(() => getFleetSummary(db, {}, { now }));
  const summary = await getFleetSummary(db, {}, { now });

  const rows = [
    ['host_30d_ms', host30d.medianMs, 100, `${series.resolution}, ${series.series[0]?.points.length} points`],
    ['region_p99_ms', regionP99.medianMs, 300, `${REGION_HOSTS} hosts × 24 h, count ${latency.total.count}, p99 ${latency.total.p99?.toFixed(2)} ms`],
    ['fleet_summary_ms', fleet.medianMs, 300, `${summary.hosts.length} hosts, newest sample by bounded backward index scan`],
    ['fleet_p99_ms', fleetP99.medianMs, 300, `fleet scope, same 24 h (region rollups of every region merged)`],
    ['rollup_minute_ms', oneMinute.medianMs, 60_000, `rollUp of one closed minute of ${REGION_HOSTS} hosts (gauges, latency, region)`],
  ] as const;
  console.log(`median of ${RUNS} warm runs (wall time of the lib call over loopback, JSON shaping included)`);
  console.log('| figure | median ms | target ms | what |\n|---|---|---|---|');
  for (const [key, ms, target, what] of rows) console.log(`| ${key} | ${ms.toFixed(1)} | < ${target} | ${what} |`);
  const result = {
    host_30d_ms: Number(host30d.medianMs.toFixed(1)),
    region_p99_ms: Number(regionP99.medianMs.toFixed(1)),
    fleet_summary_ms: Number(fleet.medianMs.toFixed(1)),
    fleet_p99_ms: Number(fleetP99.medianMs.toFixed(1)),
    rollup_minute_ms: Number(oneMinute.medianMs.toFixed(1)),
    rollup_last_hour_s: Number((rollupSliceMs / 1000).toFixed(1)),
    generation_s: Number(generationS.toFixed(0)),
  };
  if (process.env.BENCH_WRITE_JSON) fs.writeFileSync(process.env.BENCH_WRITE_JSON, JSON.stringify(result));
  console.log(JSON.stringify(result));
} finally {
  await db.close();
  if (!keep) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
