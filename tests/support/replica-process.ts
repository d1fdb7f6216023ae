// One replica as server.ts runs it, without Next: ingest and /metrics on a port of its own, and the background jobs
// with the short intervals a test injects (REPLICA_RETRY_MS, REPLICA_CHECK_TIMEOUT_MS, REPLICA_CYCLE_MS), and the
// enroll route Next serves; on REPLICA_PORT when set (a restarted server keeps its address), else any. Run with
// `node --import tsx --import ./scripts/register-server-runtime.mjs`; the database is DATABASE_URL's. Prints one
// JSON line per event on stdout: {"event":"listening","port"}, then "elected" / "deposed", each with its atMs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { POST as enroll } from '../../app/api/v1/enroll/route';
import { closeDb, getDb } from '../../lib/db';
import { startBackgroundJobs } from '../../lib/server/background';
import { closeIngest, handleIngestHttp } from '../../lib/server/process-ingest';
import { serverEnvironment } from '../../lib/server/environment';
import { processMetrics } from '../../lib/server/process-metrics';
import { processSecretBox } from '../../lib/server/process-secret-box';
import { provideServerSettings } from '../../lib/server/provide-settings';

const env = (name: string) => {
  const value = Number(process.env[name]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of milliseconds`);
  return value;
};
const retryMs = env('REPLICA_RETRY_MS');
const checkTimeoutMs = env('REPLICA_CHECK_TIMEOUT_MS');
const cycleMs = env('REPLICA_CYCLE_MS');
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ ...event, atMs: Date.now() })}\n`);

async function enrollThroughRoute(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const request = new Request(`http://127.0.0.1${req.url}`, { method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) });
  const response = await enroll(request);
  res.writeHead(response.status, { 'content-type': 'application/json' }).end(await response.text());
}

provideServerSettings();
const db = await getDb();
const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/api/v1/ingest') return void handleIngestHttp(req, res);
  if (req.method === 'POST' && req.url === '/api/v1/enroll') return void enrollThroughRoute(req, res);
  if (req.method === 'GET' && req.url === '/metrics') {
    void processMetrics().registry.metrics().then((text) => res.writeHead(200, { 'content-type': 'text/plain' }).end(text));
    return;
  }
  res.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(Number(process.env.REPLICA_PORT ?? 0), '127.0.0.1', resolve));
say({ event: 'listening', port: (server.address() as AddressInfo).port });

const jobs = startBackgroundJobs(db, {
  publicUrl: 'http://inferwatch.test',
  box: processSecretBox(),
  explainer: null,
  leadership: { retryMs, checkTimeoutMs },
  maintenance: { intervalMs: cycleMs },
  findings: { intervalMs: cycleMs, inventoryPollMs: cycleMs },
  alerting: { intervalMs: cycleMs, ingestDelayMs: cycleMs, worker: { pollMs: cycleMs, targets: serverEnvironment().alertTargets } },
  ingestForwardMs: cycleMs,
  onLeadershipChange: (leading) => say({ event: leading ? 'elected' : 'deposed' }),
});

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void jobs
    .stop()
    .then(closeIngest)
    .then(closeDb)
    .then(() => process.exit(0));
});
