// `npm run bench -- queries`: read-path timings over generated data on the local PostgreSQL server.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { openDatabase } from '../lib/db/open';
import { ensurePartitions } from '../lib/db/partitions';
import { poolSql } from '../lib/db/sql';
import { getFleetSummary } from '../lib/fleet';
import { getHostSeries, getLatencyQuantiles, rollUp } from '../lib/series';
import { FLEET_HOSTS, LATENCY_NAME, REGION, REGION_HOSTS, generateBenchData } from './_queries-generate';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const keep = process.argv.includes('--keep');

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

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

const name = `inferwatch_bench_${randomBytes(4).toString('hex')}`;
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
  await generateBenchData([db.sql, poolSql(extra)], endMs);
  await extra.end();
  let rolled;
  const rollStarted = performance.now();
  do {
    rolled = await rollUp(db.sql, now, { startAt: new Date(endMs - 31 * 86_400_000), maxChunks: 200 });
  } while (!rolled.caughtUp);
  await db.sql.exec('ANALYZE');
  console.log(`  rollUp (31 days, 1m + 1h): ${((performance.now() - rollStarted) / 1000).toFixed(1)} s`);
  const generationS = (performance.now() - started) / 1000;
  console.log(`generation total: ${generationS.toFixed(0)} s\n`);

  const host30d = await medianMs(() =>
    getHostSeries(db.sql, { hostId: FLEET_HOSTS + 1, metric: 'cpu_steal', from: new Date(endMs - 30 * 86_400_000), to: now, now }),
  );
  const series = await getHostSeries(db.sql, { hostId: FLEET_HOSTS + 1, metric: 'cpu_steal', from: new Date(endMs - 30 * 86_400_000), to: now, now });
  // "Now" is off the hour, so this also reads 1-minute and raw edges.
  const regionP99 = await medianMs(() =>
    getLatencyQuantiles(db.sql, { scope: { kind: 'region', region: REGION }, name: LATENCY_NAME, from: new Date(endMs - 86_400_000), to: now }),
  );
  const latency = await getLatencyQuantiles(db.sql, { scope: { kind: 'region', region: REGION }, name: LATENCY_NAME, from: new Date(endMs - 86_400_000), to: now });
  const fleet = await medianMs(() => getFleetSummary(db.sql, { now }));
  const fleetByLastReportTs = await medianMs(() => getFleetSummary(db.sql, { now, useLastReportTs: true }));
  const summary = await getFleetSummary(db.sql, { now });

  const rows = [
    ['host_30d_ms', host30d.medianMs, 100, `${series.resolution}, ${series.series[0]?.points.length} points`],
    ['region_p99_ms', regionP99.medianMs, 300, `${REGION_HOSTS} hosts × 24 h, count ${latency.total.count}, p99 ${latency.total.p99?.toFixed(2)} ms`],
    ['fleet_summary_ms', fleet.medianMs, 300, `${summary.hosts.length} hosts, newest sample by bounded backward index scan`],
    ['fleet_summary_last_report_ts_ms', fleetByLastReportTs.medianMs, 300, 'same, via ts = hosts.last_report_ts'],
  ] as const;
  console.log(`median of ${RUNS} warm runs (wall time of the lib call over loopback, JSON shaping included)`);
  console.log('| figure | median ms | target ms | what |\n|---|---|---|---|');
  for (const [key, ms, target, what] of rows) console.log(`| ${key} | ${ms.toFixed(1)} | < ${target} | ${what} |`);
  const result = {
    host_30d_ms: Number(host30d.medianMs.toFixed(1)),
    region_p99_ms: Number(regionP99.medianMs.toFixed(1)),
    fleet_summary_ms: Number(fleet.medianMs.toFixed(1)),
    fleet_summary_last_report_ts_ms: Number(fleetByLastReportTs.medianMs.toFixed(1)),
    generation_s: Number(generationS.toFixed(0)),
  };
  if (process.env.BENCH_WRITE_JSON) fs.writeFileSync(process.env.BENCH_WRITE_JSON, JSON.stringify(result));
  console.log(JSON.stringify(result));
} finally {
  await db.close();
  if (!keep) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
