// The server `npm start` runs (bundled by `npm run build` into dist/server.mjs) and `npm run dev` runs from source with
// hot reload: open and migrate the database, serve the dashboard and the ingest listener on one port, keep the series
// maintained, and run a local agent so the first page already shows this machine (and, on the embedded database, a
// simulated demo fleet beside it).
import http from 'node:http';
import path from 'node:path';
import next from 'next';
import { findingsLatencyExplainer } from './lib/alerts';
import { issueAdminCliToken } from './lib/auth/admin-cli-token';
import { ensureLocalEnrollmentKey } from './lib/auth/ensure-local-enrollment-key';
import { closeDb, getDb } from './lib/db';
import { DataDirLockedError } from './lib/db/data-dir-lock';
import { describeTarget } from './lib/db/target';
import { demoEnabled, startDemoFleet } from './lib/demo/start';
import { selfLoadOfThisProcess } from './lib/findings/self-load';
import { serverEnvironmentOrExit } from './lib/server/environment';
import { provideServerSettings } from './lib/server/provide-settings';
import { processSecretBox } from './lib/server/process-secret-box';
import { startBackgroundJobs, type BackgroundJobs } from './lib/server/background';
import { exitUnlessPortFree, listenOrExit } from './lib/server/listen';
import { startLocalAgent } from './lib/server/local-agent';
import { writeServerFile } from './lib/admin/server-file';
import { stampClientAddress, trustProxies } from './lib/http/client-address';
import { NO_STORE } from './lib/http/no-store';
import { signInRedirect } from './lib/server/page-gate';
import { guardLogStreams } from './lib/server/log-stream-guard';
import { processMetrics } from './lib/server/process-metrics';
import { allowScriptsByNonce, withSecurityHeaders } from './lib/server/security-headers';
import { closeIngest, handleIngestHttp } from './lib/server/process-ingest';

const root = process.cwd();
const dev = process.env.NODE_ENV === 'development';
// The environment is parsed here, once; lib/ gets what it needs from this file or from provideServerSettings().
const env = serverEnvironmentOrExit();
const { port, host, stateDir } = env;
provideServerSettings();

// A monitoring server must outlive its log reader (a closed terminal, a restarted log shipper).
guardLogStreams((stream) => processMetrics().logWritesDropped.inc({ stream }));

await exitUnlessPortFree(port, host);
// The build `npm start` may just have run, opening the database and Next load this machine: its local agent's first
// minute measures inferwatch, not the machine (lib/findings/self-load.ts).
const endStartLoad = selfLoadOfThisProcess().begin();
const db = await getDb().catch((err: unknown) => {
  if (!(err instanceof DataDirLockedError)) throw err;
  console.error(`inferwatch: ${err.message}`);
  process.exit(1);
});
console.log(`inferwatch: database: ${describeTarget(db.target)}`);

const app = next({ dev, webpack: dev, dir: root, hostname: host, port });
await app.prepare();
const handleWithNext = app.getRequestHandler();

const clientAddress = trustProxies(env.trustedProxies);
// Ingest is the one path whose cost grows with the fleet, so it skips Next's routing. Every response, ingest's and the
// redirect's included, carries the security headers.
const server = http.createServer(
  withSecurityHeaders((req, res) => {
    stampClientAddress(req, clientAddress);
    if (req.method === 'POST' && req.url?.split('?')[0] === '/api/v1/ingest') {
      void handleIngestHttp(req, res);
      return;
    }
    allowScriptsByNonce(req, res, dev);
    void signInRedirect(req).then((location) => {
      if (location === null) return handleWithNext(req, res);
      res.writeHead(302, { Location: location, ...NO_STORE }).end();
    });
  }),
);
await listenOrExit(server, port, host);
const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
console.log(`inferwatch: dashboard on ${url}`);
// Tells `npm run admin` on this machine which database this server holds, and lets it write through this server.
const removeServerFile = writeServerFile(stateDir, { url, database: db.target, adminToken: issueAdminCliToken() });
// Handlers go in before the rest starts, so a stop during start-up still shuts down cleanly.
let background: BackgroundJobs | undefined;
let localAgent: { stop(): Promise<void> } | undefined;
let demo: ReturnType<typeof startDemoFleet> | undefined;
let shuttingDown = false;
async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log(`inferwatch: ${signal} received, shutting down`);
  await localAgent?.stop();
  await demo?.stop();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 2_000).unref();
  await closed;
  await background?.stop();
  await closeIngest();
  await closeDb();
  removeServerFile();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

// Rollups and retention, the findings cycle and fix effects, alert evaluation and the outbox: on one replica at a time
// (the leader; the embedded database's one process always leads), with the hosts every replica ingested.
background = startBackgroundJobs(db, {
  publicUrl: env.publicUrl ?? url,
  box: processSecretBox(),
  explainer: findingsLatencyExplainer(db.sql),
  effects: { windowMs: env.fixWindowMs },
  maintenance: { retention: env.retentionDays },
  alerting: { worker: { targets: env.alertTargets } },
});

if (!shuttingDown && env.localAgent.enabled) {
  const enrollKeyFile = path.join(stateDir, 'local-enroll-key');
  await ensureLocalEnrollmentKey(db, enrollKeyFile);
  if (!shuttingDown) {
    localAgent = startLocalAgent({
      root,
      serverUrl: url,
      enrollKeyFile,
      stateDir: path.join(stateDir, 'agent'),
      intervalS: env.localAgent.intervalS,
      fromSource: dev,
    });
  }
}

endStartLoad();

// Hosts labelled demo=true that report through this server's own enroll and ingest API, as agents do (docs/demo.md).
if (!shuttingDown && demoEnabled(env.demo, db.target)) {
  demo = startDemoFleet({ db, serverUrl: url, stateDir: path.join(stateDir, 'demo') });
}

