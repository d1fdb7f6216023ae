// One replica as server.ts runs it, without Next: ingest and /metrics on a port of its own, and the background jobs
// with the short intervals a test injects (REPLICA_RETRY_MS, REPLICA_CHECK_TIMEOUT_MS, REPLICA_CYCLE_MS). Run with
// `node --import tsx --import ./lib/node/register-server-runtime.mjs`; the database is DATABASE_URL's. Prints one
// JSON line per event on stdout: {"event":"listening","port"}, then "elected" / "deposed", each with its atMs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { processSecretBox } from '../../lib/alerts';
import { closeDb, getDb } from '../../lib/db';
import { startBackgroundJobs } from '../../lib/server/background';
import { closeIngest, handleIngestHttp } from '../../lib/server/process-ingest';
import { processMetrics } from '../../lib/server/process-metrics';

const env = (name: string) => {
  const value = Number(process.env[name]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of milliseconds`);
  return value;
};
const retryMs = env('REPLICA_RETRY_MS');
const checkTimeoutMs = env('REPLICA_CHECK_TIMEOUT_MS');
const cycleMs = env('REPLICA_CYCLE_MS');
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ ...event, atMs: Date.now() })}\n`);

const db = await getDb();
const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/api/v1/ingest') return void handleIngestHttp(req, res);
  if (req.method === 'GET' && req.url === '/metrics') {
    void processMetrics().registry.metrics().then((text) => res.writeHead(200, { 'content-type': 'text/plain' }).end(text));
    return;
  }
  res.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
say({ event: 'listening', port: (server.address() as AddressInfo).port });

const jobs = startBackgroundJobs(db, {
  publicUrl: 'http://inferwatch.test',
  box: processSecretBox(),
  explainer: null,
  leadership: { retryMs, checkTimeoutMs },
  maintenance: { intervalMs: cycleMs },
  findings: { intervalMs: cycleMs, inventoryPollMs: cycleMs },
  alerting: { intervalMs: cycleMs, ingestDelayMs: cycleMs, worker: { pollMs: cycleMs } },
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
