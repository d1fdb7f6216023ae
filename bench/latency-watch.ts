// `npm run bench -- latency-watch`: what the findings cycle's latency input costs on 10,000 hosts × 3 series — the
// steady cycle (one newly rolled minute), the cycle a closed hour arrives in, and the whole engine cycle with and
// without it — beside the plain SQL that reads the same rows, interleaved in the same run.
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../lib/db/open';
import { ensurePartitions } from '../lib/db/partitions';
import { FindingsEngine } from '../lib/findings/engine/engine';
import { LatencyWatch } from '../lib/findings/engine/latency-watch';
import { FINDING_RULES } from '../lib/findings/registry';
import { MINUTE_MS, HOUR_MS } from '../lib/protocol/time';
import { FLEET_HOSTS, LATENCY_NAMES, generateLatencyFleet } from './_latency-fleet-generate';
import { adminStatement } from './_fleet-database';
import { rowsOf } from '../tests/support/rows';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** One host in a hundred has its p99 planted 2.6 × higher over the newest 28 minutes, so causes are read for them. */
const REGRESSED_EVERY = 100;

const admin = (statement: string) => adminStatement(baseUrl, statement);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmtRuns = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const name = `qbench_latency_${randomBytes(4).toString('hex')}`;
await admin(`CREATE DATABASE "${name}"`);
const url = new URL(baseUrl);
url.pathname = `/${name}`;
const db = await openDatabase({ kind: 'server', url: url.toString() });
try {
  const endMs = Math.floor(Date.now() / 10_000) * 10_000;
  await ensurePartitions(db.sql, new Date(endMs), 3, 2);
  console.log(`generating ${FLEET_HOSTS} hosts × ${LATENCY_NAMES.length} latency series into ${name}`);
  const { minuteMark } = await generateLatencyFleet(db.sql, endMs);
  await db.sql.query(
    `UPDATE latency_1m SET keys = ARRAY(SELECT k + 60 FROM unnest(keys) k)::smallint[]
      WHERE host_id % $1 = 0 AND ts >= $2`,
    [REGRESSED_EVERY, new Date(minuteMark.getTime() - 28 * MINUTE_MS)],
  );
  const setMinuteMark = (ms: number) =>
    db.sql.query(`UPDATE series_rollup_watermarks SET rolled_until = $1 WHERE resolution = '1m'`, [new Date(ms)]);
  const now = new Date(endMs + 1_000);
  const ids = Array.from({ length: FLEET_HOSTS }, (_, i) => i + 1);
  const plainMinute = (ms: number) =>
    db.sql.query('SELECT host_id, name, ts, count, zero_count, min, max, keys, counts FROM latency_1m WHERE host_id = ANY($1::int4[]) AND ts = $2', [ids, new Date(ms)]);

  // Steady state: the watermark moves a minute per cycle, so each cycle reads the one minute rolled since the last.
  const startMs = minuteMark.getTime() - 2 * RUNS * MINUTE_MS;
  await setMinuteMark(startMs);
  const watch = new LatencyWatch({ minutesPerCycle: 15, hoursPerCycle: 24 });
  const coldMs = await time(() => watch.read(db.sql));
  const watchRuns: number[] = [];
  const watchCpu: number[] = [];
  const plainRuns: number[] = [];
  let flagged = 0;
  for (let run = 0; run < RUNS; run++) {
    const mark = startMs + (run + 1) * MINUTE_MS;
    await setMinuteMark(mark);
    plainRuns.push(await time(() => plainMinute(mark - MINUTE_MS)));
    let facts: Awaited<ReturnType<LatencyWatch['read']>> | undefined;
    const cpu = process.cpuUsage();
    watchRuns.push(await time(async () => (facts = await watch.read(db.sql))));
    const used = process.cpuUsage(cpu);
    watchCpu.push((used.user + used.system) / 1000);
    flagged = [...facts!.values()].filter((f) => f.series.some((s) => s.observed)).length;
  }

  // The cycle a closed hour arrives in: one hour of 30,000 histograms read in full, beside its plain read.
  const hourFrom = Math.floor((startMs - 15 * MINUTE_MS) / HOUR_MS) * HOUR_MS - HOUR_MS;
  const hourRuns: number[] = [];
  const plainHourRuns: number[] = [];
  for (let run = 0; run < Math.min(RUNS, 3); run++) {
    plainHourRuns.push(
      await time(() =>
        db.sql.query('SELECT host_id, name, ts, count, zero_count, min, max, keys, counts FROM latency_1h WHERE host_id = ANY($1::int4[]) AND ts = $2', [ids, new Date(hourFrom)]),
      ),
    );
    const fresh = new LatencyWatch({ minutesPerCycle: 0, hoursPerCycle: 1 });
    hourRuns.push(await time(() => fresh.read(db.sql)));
  }

  // The whole findings cycle, every rule, with the latency input and without it; a minute is rolled before each.
  const engineStartMs = minuteMark.getTime() - RUNS * MINUTE_MS;
  await setMinuteMark(engineStartMs);
  const withLatency = new FindingsEngine(db);
  const without = new FindingsEngine(db, { rules: FINDING_RULES.filter((r) => r.id !== 'latency.p99-regression') });
  // Filled as after a start: a few minutes and hours per cycle.
  for (let i = 0; i < 14; i++) await withLatency.runCycle(now);
  await without.runCycle(now);
  const cycleWith: number[] = [];
  const cycleWithout: number[] = [];
  const last = { with: '', without: '' };
  const phases = (r: Awaited<ReturnType<FindingsEngine['runCycle']>>) =>
    `${r.readMs.toFixed(0)} read, ${r.evaluateMs.toFixed(0)} rules, ${r.writeMs.toFixed(0)} write, ${r.verdicts} verdicts`;
  for (let run = 0; run < RUNS; run++) {
    await setMinuteMark(engineStartMs + (run + 1) * MINUTE_MS);
    cycleWithout.push(await time(async () => (last.without = phases(await without.runCycle(now)))));
    cycleWith.push(await time(async () => (last.with = phases(await withLatency.runCycle(now)))));
  }
  const [latencyFindings] = await rowsOf<{ n: number }>(db.sql,
    `SELECT count(*)::int AS n FROM findings WHERE rule_id = 'latency.p99-regression' AND state = 'open'`,
  );

  console.log(`cold first read (15 minutes and 24 hours): ${coldMs.toFixed(0)} ms`);
  console.log(`steady read: ${fmtRuns(watchRuns)} ms (this process's CPU: ${fmtRuns(watchCpu)} ms); plain read of the same minute: ${fmtRuns(plainRuns)} ms; ${flagged} hosts' causes read`);
  console.log(`closed-hour read: ${fmtRuns(hourRuns)} ms; plain read of the same hour: ${fmtRuns(plainHourRuns)} ms`);
  console.log(`engine cycle without latency: ${fmtRuns(cycleWithout)} ms (last: ${last.without})`);
  console.log(`engine cycle with latency: ${fmtRuns(cycleWith)} ms (last: ${last.with}); ${latencyFindings!.n} latency findings open`);
  const mem = process.memoryUsage();
  console.log(
    JSON.stringify({
      bench: 'latency-watch',
      hosts: FLEET_HOSTS,
      series: FLEET_HOSTS * LATENCY_NAMES.length,
      steady_read_ms: Math.round(median(watchRuns)),
      steady_read_cpu_ms: Math.round(median(watchCpu)),
      plain_minute_read_ms: Math.round(median(plainRuns)),
      hour_read_ms: Math.round(median(hourRuns)),
      plain_hour_read_ms: Math.round(median(plainHourRuns)),
      cold_read_ms: Math.round(coldMs),
      hosts_explained: flagged,
      latency_findings: latencyFindings!.n,
      cycle_without_latency_ms: Math.round(median(cycleWithout)),
      cycle_with_latency_ms: Math.round(median(cycleWith)),
      heap_used_mb: Math.round(mem.heapUsed / 1e6),
    }),
  );
} finally {
  await db.close();
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
