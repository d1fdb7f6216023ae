// `npm run bench -- fleet`: the fleet API (GET /api/v1/fleet and /sparklines) over the queries bench's 10,000 hosts.
// BENCH_FLEET_DATABASE=<name> reuses a database an earlier `--keep` run left behind instead of generating one.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { openDatabase } from '../lib/db/open';
import { getFleetPage, getFleetSparklines } from '../lib/fleet';
import type { CompareParams } from '../lib/protocol/read-api/compare';
import type { FleetParams } from '../lib/protocol/read-api/fleet';
import { compareHosts } from '../lib/series';
import { adminStatement, fillFleetDatabase } from './_fleet-database';
import { FLEET_HOSTS, LATENCY_NAME, REGION, REGION_HOSTS } from './_queries-generate';
import { rowsOf } from '../tests/support/rows';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const reuse = process.env.BENCH_FLEET_DATABASE;
const keep = process.argv.includes('--keep') || reuse !== undefined;

const admin = (statement: string) => adminStatement(baseUrl, statement);

async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await fn();
    runs.push(performance.now() - started);
  }
  return [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
}

const name = reuse ?? `qbench_fleet_${randomBytes(4).toString('hex')}`;
if (!reuse) await admin(`CREATE DATABASE "${name}"`);
const url = new URL(baseUrl);
url.pathname = `/${name}`;
const db = await openDatabase({ kind: 'server', url: url.toString() });
try {
  const [stored] = reuse ? await rowsOf<{ end_ms: string }>(db.sql, 'SELECT end_ms FROM bench_fleet_meta') : [];
  const endMs = stored ? Number(stored.end_ms) : Math.floor(Date.now() / 10_000) * 10_000;
  const now = new Date(endMs);
  if (!reuse) {
    console.log(`generating into ${name}`);
    await fillFleetDatabase(db, url.toString(), endMs);
    await db.sql.exec(`CREATE TABLE bench_fleet_meta AS SELECT ${endMs}::text AS end_ms`);
  }
  const page = (params: FleetParams) => async () => JSON.stringify(await getFleetPage(db, { limit: 50, ...params }, { now }));
  const firstPage = await getFleetPage(db, { limit: 50 }, { now });
  const ids = firstPage.hosts.map((host) => host.id);
  const regionIds = Array.from({ length: 50 }, (_, i) => i + 1);
  // As the compare page asks: its chart's 1,500 points, so a day is read per minute.
  const compare = (rangeMs: number) => () =>
    compareHosts(
      db,
      {
        metric: 'latency_p99', latency: LATENCY_NAME, scope: { kind: 'region', region: REGION }, rank: 'avg', limit: 20,
        from: new Date(endMs - rangeMs), to: now, maxPoints: 1500,
      } satisfies CompareParams,
      { now },
    ).then((response) => JSON.stringify(response));
  const cases: [string, () => Promise<unknown>, string][] = [
    ['fleet_page_ms', page({}), `default (attention) order, page 1 of ${firstPage.pageInfo.pages}, ${firstPage.tiles.hosts} hosts`],
    ['fleet_page_steal_ms', page({ sort: 'steal' }), 'sorted by steal'],
    ['fleet_page_text_ms', page({ q: 'host-12', status: ['ok'] }), 'text and status filters'],
    ['fleet_page_p99_sort_ms', page({ sort: 'p99' }), `sorted by p99: p99 of every host (${REGION_HOSTS} with latency)`],
    ['fleet_page_disk_sort_ms', page({ sort: 'diskQueue' }), 'sorted by disk queue: every host\'s newest disks'],
    ['sparklines_steal_ms', () => getFleetSparklines(db, { ids: regionIds, metric: 'steal' }, { now }), '50 hosts × 60 min'],
    ['sparklines_p99_ms', () => getFleetSparklines(db, { ids: regionIds, metric: 'p99' }, { now }), '50 hosts × 60 min of histograms'],
    ['compare_p99_1h_ms', compare(3_600_000), `compare latency p99 of ${REGION_HOSTS} hosts × 1 h, top 20 per minute`],
    ['compare_p99_24h_ms', compare(86_400_000), `compare latency p99 of ${REGION_HOSTS} hosts × 24 h, top 20 per minute`],
  ];
  void ids;
  const result: Record<string, number> = {};
  console.log(`median of ${RUNS} warm runs, lib call + JSON.stringify, ${FLEET_HOSTS + 1} hosts\n| figure | ms | what |\n|---|---|---|`);
  for (const [key, fn, what] of cases) {
    result[key] = Number((await medianMs(fn)).toFixed(1));
    console.log(`| ${key} | ${result[key]} | ${what} |`);
  }
  if (process.env.BENCH_WRITE_JSON) fs.writeFileSync(process.env.BENCH_WRITE_JSON, JSON.stringify(result));
  console.log(JSON.stringify(result));
} finally {
  await db.close();
  if (!keep) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  else console.log(`kept ${name}`);
}
