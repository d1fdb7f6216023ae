import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { alertRows, enableOnly } from './alerts-helpers';
import { rowsOf } from '../support/rows';

// Issue #20: a freshly enrolled agent's first report covers only its ≈ 250 ms warm-up, and silence was counted in
// that interval, so "Agent stopped reporting" (and the host-silent alert) opened a second later on every new host.
// The real agent CLI at its default 10 s interval reports to the real ingest path (the group-commit writer, which
// writes host progress every 30 s) while the findings and alert engines judge the fleet every few hundred ms, as a
// server's cycles might land at any moment. The loop ends on the reports stored, not on a time.
const AGENT_INTERVAL_S = 10;
/** The warm-up report, then three full intervals: long enough for any silence to count as three missed reports. */
const REPORTS_TO_WAIT_FOR = 4;
const CYCLE_PAUSE_MS = 250;

let testDb: TestDatabase;
let workDir: string;
let server: http.Server;
let serverUrl: string;
let agent: ChildProcess | undefined;

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function storedReports(): Promise<number> {
  const { getDb } = await import('../../lib/db');
  const [row] = await rowsOf<{ n: number }>((await getDb()).sql, 'SELECT count(*)::int AS n FROM report_ledger');
  return row!.n;
}

beforeAll(async () => {
  testDb = await createTestDatabase('iw_fresh_agent');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-fresh-agent-'));

  const { handleIngestHttp } = await import('../../lib/server/process-ingest');
  const { POST: enroll } = await import('../../app/api/v1/enroll/route');
  const { createEnrollmentKey } = await import('../../lib/auth/enrollment-keys');
  const { ensureDefaultRules } = await import('../../lib/alerts/store/rules');
  const { DEFAULT_ALERT_RULES } = await import('../../lib/alerts/default-rules');
  const { getDb } = await import('../../lib/db');
  const db = await getDb();
  const { key } = await createEnrollmentKey(db, { name: 'fresh', region: 'oslo', labels: {} });
  fs.writeFileSync(path.join(workDir, 'enroll-key'), key, { mode: 0o600 });
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
  await enableOnly(db, ['host-silent']);

  server = http.createServer((req, res) => {
    if (req.url === '/api/v1/ingest') return void handleIngestHttp(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const response = await enroll(new Request(`http://127.0.0.1${req.url}`, { method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) }));
      res.writeHead(response.status, { 'content-type': 'application/json' });
      res.end(await response.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await stop(agent);
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  const { closeIngest } = await import('../../lib/server/process-ingest');
  const { closeDb } = await import('../../lib/db');
  await closeIngest();
  await closeDb();
  await testDb?.drop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('a freshly enrolled real agent', () => {
  test('raises no "agent stopped reporting" finding and no host-silent alert over its warm-up and first intervals', { timeout: 180_000 }, async () => {
    const { getDb } = await import('../../lib/db');
    const { FindingsEngine } = await import('../../lib/findings/engine/engine');
    const { AlertEngine } = await import('../../lib/alerts/engine');
    const { GET: listFindings } = await import('../../app/api/v1/findings/route');
    const db = await getDb();
    const findings = new FindingsEngine(db);
    const alerts = new AlertEngine(db, { publicUrl: 'http://inferwatch.test' });

    agent = spawn(
      process.execPath,
      ['--import', 'tsx', 'agent/cli.ts', '--server', serverUrl, '--enroll-key-file', path.join(workDir, 'enroll-key'),
        '--state-dir', path.join(workDir, 'agent'), '--interval', String(AGENT_INTERVAL_S), '--statsd-addr', 'off', '--http-intake-addr', 'off'],
      { cwd: process.cwd(), stdio: 'ignore' },
    );

    const deadline = Date.now() + 150_000;
    let warmUpStoredAt: number | undefined;
    // Cycles that judged the host while its warm-up report was its only one, over a second after it was stored.
    let cyclesOnWarmUpAlone = 0;
    for (let stored = 0; stored < REPORTS_TO_WAIT_FOR; stored = await storedReports()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${REPORTS_TO_WAIT_FOR} reports (${stored} stored)`);
      if (agent.exitCode !== null) throw new Error(`the agent exited with ${agent.exitCode}`);
      if (stored === 1) warmUpStoredAt ??= Date.now();
      const now = new Date();
      await findings.runCycle(now);
      await alerts.runCycle(now);
      if (stored === 1 && now.getTime() - warmUpStoredAt! > 1_000 && (await storedReports()) === 1) cyclesOnWarmUpAlone++;
      await new Promise((resolve) => setTimeout(resolve, CYCLE_PAUSE_MS));
    }
    expect(cyclesOnWarmUpAlone).toBeGreaterThan(0);

    const response = await listFindings(new Request('http://127.0.0.1/api/v1/findings?state=all'));
    expect(response.status).toBe(200);
    const { findings: all } = (await response.json()) as { findings: { ruleId: string; message: string }[] };
    const silence = {
      findings: all.filter((f) => f.ruleId === 'agent.stopped-reporting').map((f) => f.message),
      alerts: (await alertRows(db, 'host-silent')).map((a) => `${a.state}: ${a.annotations.summary}`),
    };
    expect(silence).toEqual({ findings: [], alerts: [] });
    const [host] = await rowsOf<{ report_every_ms: number | null }>(db.sql, 'SELECT report_every_ms FROM hosts');
    expect(host!.report_every_ms).toBe(AGENT_INTERVAL_S * 1000);
  });
});
