// The ingest listener the benchmark measures: node:http → the ingest handler server.ts routes POST /api/v1/ingest to,
// over the same dependencies (createIngestDeps), without loading Next in the same process.
// GET /stats answers what happened since the last call, so each window can say where its tail came from:
// - reports answered as stored: a count(*) of the database between windows read it all through shared buffers and
//   stalled the next window's first flushes. /stats waits until the requests in flight are answered: wrk leaves some
//   behind when it stops, and their reports are stored all the same;
// - the requests answered, by status (a window that stored fewer reports than it sent fails), and the newest seq
//   acknowledged (the next window's seqs start after it);
// - each flush's queue wait and time;
// - what held the event loop: its delay, and V8's GC pauses.
import http from 'node:http';
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { closeDb, getDb } from '../lib/db';
import { createIngestHttpHandler } from '../lib/ingest/http/node-handler';
import { ingestRequest } from '../lib/ingest/ingest-request';
import { createIngestDeps } from '../lib/ingest/ingest-deps';
import { ingestLimits } from '../lib/ingest/limits';
import { GroupCommitWriter, type FlushOutcome } from '../lib/ingest/write/group-commit/group-commit-writer';
import type { IngestResponse } from '../lib/protocol';
import { serverEnvironment } from '../lib/server/environment';
import { provideServerSettings } from '../lib/server/provide-settings';

const port = Number(process.env.PORT ?? 3901);

let flushes: FlushOutcome[] = [];
// Reports answered as stored (not duplicate): since the last /stats, and in all (checked against the database's count).
let reportsAccepted = 0;
let reportsAcceptedTotal = 0;
let reportsDuplicate = 0;
let requestsInFlight = 0;
// "200", or the status and error code ("400 invalid_payload").
let requestsAnswered: Record<string, number> = {};
let maxSeqAcknowledged: number | null = null;

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const emptyGc = () => ({ scavenges: 0, scavengeMs: 0, majors: 0, majorMs: 0, maxMs: 0 });
let gc = emptyGc();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gc.scavenges++;
      gc.scavengeMs += entry.duration;
    } else {
      gc.majors++;
      gc.majorMs += entry.duration;
    }
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1));
}

function takeStats() {
  const ms = (ns: number) => Number((ns / 1e6).toFixed(1));
  const flushMs = flushes.map((f) => f.flushMs);
  const stats = {
    requestsInFlight,
    requestsAnswered,
    flushes: flushes.length,
    reportsAccepted,
    reportsAcceptedTotal,
    reportsDuplicate,
    maxSeqAcknowledged,
    reportsPerFlush: flushes.length === 0 ? 0 : Math.round(flushes.reduce((n, f) => n + f.reports, 0) / flushes.length),
    flushP50Ms: percentile(flushMs, 50),
    flushP99Ms: percentile(flushMs, 99),
    flushMaxMs: percentile(flushMs, 100),
    flushesOver50Ms: flushMs.filter((t) => t > 50).length,
    queuedMaxMs: percentile(flushes.map((f) => f.queuedMs), 100),
    loopDelayP50Ms: ms(loopDelay.percentile(50)),
    loopDelayP99Ms: ms(loopDelay.percentile(99)),
    loopDelayMaxMs: ms(loopDelay.max),
    gc: Object.fromEntries(Object.entries(gc).map(([k, v]) => [k, Number(v.toFixed(1))])),
  };
  loopDelay.reset();
  gc = emptyGc();
  flushes = [];
  reportsAccepted = 0;
  reportsDuplicate = 0;
  requestsAnswered = {};
  maxSeqAcknowledged = null;
  return stats;
}

provideServerSettings();
const db = await getDb();
const writer = new GroupCommitWriter(db.pool!, { onFlush: (flush) => flushes.push(flush) });
const { retentionDays, ingestRate } = serverEnvironment();
const deps = createIngestDeps(db, { writer, limits: ingestLimits({ rawRetentionDays: retentionDays.raw, rate: ingestRate }) });
const handleIngest = createIngestHttpHandler(async (input) => {
  requestsInFlight++;
  try {
    const output = await ingestRequest(input, deps);
    const answer = output.status === 200 ? '200' : `${output.status} ${(output.body as { error?: { code?: string } }).error?.code ?? ''}`.trim();
    requestsAnswered[answer] = (requestsAnswered[answer] ?? 0) + 1;
    if (output.status === 200) {
      const { accepted, duplicate, acknowledgedSeqs } = output.body as IngestResponse;
      reportsAccepted += accepted;
      reportsAcceptedTotal += accepted;
      reportsDuplicate += duplicate;
      for (const seq of acknowledgedSeqs) maxSeqAcknowledged = Math.max(maxSeqAcknowledged ?? seq, seq);
    }
    return output;
  } finally {
    requestsInFlight--;
  }
});

const IDLE_WAIT_MS = 10_000;

async function whenIdle(): Promise<void> {
  const deadline = performance.now() + IDLE_WAIT_MS;
  while (requestsInFlight > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

const server = http.createServer((req, res) => {
  if (req.url === '/api/v1/ingest') void handleIngest(req, res);
  else if (req.method === 'GET' && req.url === '/stats') void whenIdle().then(() => res.end(JSON.stringify(takeStats())));
  else {
    res.statusCode = 404;
    res.end();
  }
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => console.log(`ready ${port}`));

process.on('SIGTERM', async () => {
  server.close();
  server.closeAllConnections();
  await writer.close();
  await closeDb();
  process.exit(0);
});
