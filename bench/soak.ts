// `npm run bench -- soak [--minutes 10] [--agents 1000]`: the compiled server (`npm start`'s) against a fresh
// PostgreSQL database, N simulated agents reporting every 10 s (spread evenly) and 5 dashboard users polling the fleet
// and host pages for M minutes, and the same reports at the same time to a bare node:http server (what the machine and
// this process add to a request by themselves). Every request must succeed; the server's RSS must not grow more than
// 10 % from minute 2 to the end. Prints a table, then one JSON line.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { openDatabase } from '../lib/db/open';
import { startBareIngestServer } from './_bare-ingest-server';
import { cpuSeconds, ensureBuilt, startCompiledServer, type CompiledServer } from './_compiled-server';
import { adminStatement } from './_fleet-database';
import { runAgents } from './_soak-agents';
import { createViewerTokens, enrollAgents } from './_soak-setup';
import { sampleEveryMinute, type HistogramFigures } from './_soak-samples';
import { runDashboardUsers } from './_soak-users';
import { LatencyRecord } from './_timed-http';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MINUTES = arg('minutes', 10);
const AGENTS = arg('agents', 1_000);
const USERS = 5;
const REPORT_INTERVAL_MS = 10_000;
// The first figure of the two compared: by then every host has reported a dozen times and every page has been built.
const BASELINE_MINUTE = 2;
const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

if (!Number.isInteger(MINUTES) || MINUTES < BASELINE_MINUTE || !Number.isInteger(AGENTS) || AGENTS < 1) {
  console.error(`usage: npm run bench -- soak [--minutes N ≥ ${BASELINE_MINUTE}] [--agents N ≥ 1]`);
  process.exit(2);
}

const log = (message: string) => console.error(`[bench soak ${new Date().toISOString().slice(11, 19)}] ${message}`);
const loadAverage = () => Number(os.loadavg()[0]!.toFixed(2));

/** Time in µs that some task waited for a CPU (PSI); null on a kernel without it. */
function cpuPressureUs(): number | null {
  try {
    return Number(/^some .* total=(\d+)$/m.exec(fs.readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? NaN);
  } catch {
    return null;
  }
}

async function storedReports(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM report_ledger')).rows[0]!.n);
  } finally {
    await client.end();
  }
}

const loadAtStart = loadAverage();
await ensureBuilt(log);
const dbName = `iw_bench_soak_${randomBytes(4).toString('hex')}`;
await adminStatement(baseUrl, `CREATE DATABASE "${dbName}"`);
const dbUrl = Object.assign(new URL(baseUrl), { pathname: `/${dbName}` }).toString();
let server: CompiledServer | undefined;
let bare: Awaited<ReturnType<typeof startBareIngestServer>> | undefined;
try {
  log(`enrolling ${AGENTS} hosts and ${USERS} viewers into ${dbName}`);
  const db = await openDatabase({ kind: 'server', url: dbUrl });
  const agents = await enrollAgents(db, AGENTS);
  const viewerTokens = await createViewerTokens(db, USERS);
  await db.close();

  log('starting the compiled server and the bare node:http reference');
  server = await startCompiledServer(dbUrl, { INFERWATCH_DEMO: '0', INFERWATCH_LOCAL_AGENT: '0', INFERWATCH_LOCAL_SIGN_IN: '0' });
  bare = await startBareIngestServer();
  const records = { ingest: new LatencyRecord('ingest'), api: new LatencyRecord('API read'), pages: new LatencyRecord('page'), scrapes: new LatencyRecord('metrics scrape') };
  const reference = new LatencyRecord('reference (bare node:http)');
  log(`${MINUTES} min: ${AGENTS} agents every ${REPORT_INTERVAL_MS / 1000} s (${AGENTS / (REPORT_INTERVAL_MS / 1000)} reports/s), ${USERS} dashboard users`);
  const durationMs = MINUTES * 60_000;
  const serverCpuBefore = cpuSeconds(server.pid);
  const ownCpuBefore = process.cpuUsage();
  const pressureBefore = cpuPressureUs();
  const ownLoopDelay = monitorEventLoopDelay({ resolution: 10 });
  ownLoopDelay.enable();
  const loadStarted = performance.now();
  const [samples] = await Promise.all([
    sampleEveryMinute(server, viewerTokens[0]!, MINUTES, records.scrapes, log),
    runAgents(server.url, agents, REPORT_INTERVAL_MS, durationMs, records.ingest),
    runAgents(bare.url, agents.map((agent) => ({ ...agent })), REPORT_INTERVAL_MS, durationMs, reference),
    runDashboardUsers(server.url, viewerTokens, agents.map((agent) => agent.hostId), durationMs, records),
  ]);
  ownLoopDelay.disable();
  const wallMs = performance.now() - loadStarted;
  const share = (ms: number) => Math.round((1000 * ms) / wallMs) / 10;
  const ownCpu = process.cpuUsage(ownCpuBefore);
  const pressureAfter = cpuPressureUs();
  const serverCpuPct = share((cpuSeconds(server.pid) - serverCpuBefore) * 1000);
  const loadAtEnd = loadAverage();
  const reportsStored = await storedReports(dbUrl);

  const minuteWindows = Array.from({ length: MINUTES }, (_, minute) => [loadStarted + minute * 60_000, loadStarted + (minute + 1) * 60_000] as const);
  const rssMin2 = samples[BASELINE_MINUTE - 1]!.rssMb;
  const inside = samples.at(-1)!;
  const rssEnd = inside.rssMb;
  const errors = Object.values(records).reduce((sum, record) => sum + record.failures, 0);
  const figures = {
    errors,
    ingest_p99_ms: records.ingest.percentileMs(99),
    read_p99_ms: records.api.percentileMs(99),
    rss_mb_min2: rssMin2,
    // At the end of the run: minute 10 of the default run.
    rss_mb_min10: rssEnd,
    rss_growth_pct: Math.round(((rssEnd - rssMin2) / rssMin2) * 1000) / 10,
    reports_sent: records.ingest.done,
    reads_done: records.api.done,
    load_avg_1m_start: loadAtStart,
    load_avg_1m_end: loadAtEnd,
    reports_stored: reportsStored,
    ingest_p50_ms: records.ingest.percentileMs(50),
    ingest_p99_ms_by_minute: minuteWindows.map(([from, to]) => records.ingest.percentileMs(99, from, to)),
    reference_ingest_p50_ms: reference.percentileMs(50),
    reference_ingest_p99_ms: reference.percentileMs(99),
    ingest_inside_server: { request: inside.ingestRequest, queue_wait: inside.ingestQueueWait, flush: inside.ingestFlush },
    read_p50_ms: records.api.percentileMs(50),
    read_p99_ms_by_minute: minuteWindows.map(([from, to]) => records.api.percentileMs(99, from, to)),
    pages_done: records.pages.done,
    page_p99_ms: records.pages.percentileMs(99),
    errors_by_kind: Object.fromEntries(Object.entries(records).map(([kind, record]) => [kind, record.failures])),
    error_reasons: Object.fromEntries(Object.entries(records).filter(([, record]) => record.failures > 0).map(([kind, record]) => [kind, Object.fromEntries(record.failureReasons)])),
    errors_by_minute: minuteWindows.map(([from, to]) => Object.values(records).reduce((sum, record) => sum + record.failuresWithin(from, to), 0)),
    rss_mb_by_minute: samples.map((sample) => sample.rssMb),
    heap_used_mb_by_minute: samples.map((sample) => sample.heapUsedMb),
    heap_total_mb_by_minute: samples.map((sample) => sample.heapTotalMb),
    external_mb_by_minute: samples.map((sample) => sample.externalMb),
    server_loop_delay_p99_ms_by_minute: samples.map((sample) => sample.loopDelayP99Ms),
    server_loop_delay_max_ms_by_minute: samples.map((sample) => sample.loopDelayMaxMs),
    generator_loop_delay_p99_ms: Math.round(ownLoopDelay.percentile(99) / 1e5) / 10,
    server_cpu_pct: serverCpuPct,
    generator_cpu_pct: share((ownCpu.user + ownCpu.system) / 1000),
    cpu_pressure_some_pct: pressureBefore === null || pressureAfter === null ? null : share((pressureAfter - pressureBefore) / 1000),
    agents: AGENTS,
    users: USERS,
    minutes: MINUTES,
  };
  const list = (values: (number | null)[]) => values.join(', ');
  console.log('| figure | value |');
  console.log('|---|---|');
  console.log(`| errors (ingest, API reads, pages, /metrics scrapes) | ${errors} (${Object.values(figures.errors_by_kind).join(', ')}) |`);
  for (const [kind, reasons] of Object.entries(figures.error_reasons)) {
    console.log(`| ${kind} errors by reason | ${Object.entries(reasons).map(([reason, n]) => `${n}× ${reason}`).join('; ')} |`);
  }
  console.log(`| errors each minute (by when the request started) | ${list(figures.errors_by_minute)} |`);
  console.log(`| reports sent / stored | ${figures.reports_sent} / ${figures.reports_stored} |`);
  console.log(`| ingest p50 / p99 | ${figures.ingest_p50_ms} / ${figures.ingest_p99_ms} ms |`);
  console.log(`| ingest p99 each minute | ${list(figures.ingest_p99_ms_by_minute)} ms |`);
  console.log(`| reference: the same reports at the same time to a bare node:http server, p50 / p99 | ${figures.reference_ingest_p50_ms} / ${figures.reference_ingest_p99_ms} ms |`);
  const figuresOf = (h: HistogramFigures | null) => (h ? `${h.meanMs} / ≤ ${h.p99AtMostMs ?? '∞'}` : 'n/a');
  console.log(`| inside the server (its ingest histograms), mean / p99 bucket: body in hand → answer; queue wait; flush | ${figuresOf(inside.ingestRequest)}; ${figuresOf(inside.ingestQueueWait)}; ${figuresOf(inside.ingestFlush)} ms |`);
  console.log(`| API reads done, p50 / p99 | ${figures.reads_done}, ${figures.read_p50_ms} / ${figures.read_p99_ms} ms |`);
  console.log(`| API read p99 each minute | ${list(figures.read_p99_ms_by_minute)} ms |`);
  console.log(`| pages loaded, p99 | ${figures.pages_done}, ${figures.page_p99_ms} ms |`);
  console.log(`| server RSS at minute ${BASELINE_MINUTE} → minute ${MINUTES} | ${rssMin2} → ${rssEnd} MB (${figures.rss_growth_pct} %) |`);
  console.log(`| server RSS each minute | ${list(figures.rss_mb_by_minute)} MB |`);
  console.log(`| server V8 heap used each minute | ${list(figures.heap_used_mb_by_minute)} MB |`);
  console.log(`| server V8 heap committed; external (Buffers, WebAssembly) each minute | ${list(figures.heap_total_mb_by_minute)}; ${list(figures.external_mb_by_minute)} MB |`);
  console.log(`| server event-loop delay p99 / max each minute | ${list(figures.server_loop_delay_p99_ms_by_minute)} / ${list(figures.server_loop_delay_max_ms_by_minute)} ms |`);
  console.log(`| CPU, share of one core: server / this load generator (its event-loop delay p99) | ${serverCpuPct} % / ${figures.generator_cpu_pct} % (${figures.generator_loop_delay_p99_ms} ms) |`);
  console.log(`| time some task waited for a CPU (PSI cpu some), 1-min load average at the start / end (${os.cpus().length} cores) | ${figures.cpu_pressure_some_pct} %, ${loadAtStart} / ${loadAtEnd} |`);
  console.log(JSON.stringify(figures));
} finally {
  await bare?.stop();
  await server?.stop();
  await adminStatement(baseUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
}
