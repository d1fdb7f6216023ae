import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// A real BLAS service (Debian's python3-numpy over OpenBLAS's pthreads build): two workers pinned to CPUs 0-1 with
// two BLAS threads each, watched by the real agent CLI reporting to the real ingest path. The thread finding must name
// the service and its runtime, the OpenMP rules must stay silent (it loads no OpenMP), and a restart with one thread
// per worker resolves it. (OpenBLAS caps its pool at the affinity mask, so one worker alone cannot oversubscribe.)
const PYTHON = '/usr/bin/python3';
const WORKER = `import numpy, time
a = numpy.random.rand(200, 200)
while True:
    a @ a
    time.sleep(0.02)
`;
const WATCH_NAME = 'iw-blas-worker.py';
const AGENT_INTERVAL_S = 1;

let testDb: TestDatabase;
let workDir: string;
let server: http.Server;
let serverUrl: string;
let agent: ChildProcess | undefined;
let workers: ChildProcess[] = [];

function startWorker(blasThreads: number): ChildProcess {
  const child = spawn('taskset', ['-c', '0,1', PYTHON, path.join(workDir, WATCH_NAME)], {
    // Only what the worker needs (NODE_ENV only because Next's types require it): the test expects exactly the
    // allow-listed OPENBLAS_NUM_THREADS in the agent's report.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', OPENBLAS_NUM_THREADS: String(blasThreads) },
    stdio: 'ignore',
  });
  child.unref();
  return child;
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Polls until `check` returns a value, failing with `what` after a deadline generous enough for a loaded machine. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 90_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

interface ProcessInventoryRow {
  pid: number;
  env: Record<string, string>;
  runtimes?: { id: string }[];
}

async function newestWorkerInventory(pid: number): Promise<ProcessInventoryRow | undefined> {
  const { getDb } = await import('../../lib/db');
  const db = await getDb();
  const [row] = await db.sql.query<{ data: { processes: ProcessInventoryRow[] } }>(
    'SELECT data FROM inventory_snapshots ORDER BY taken_at DESC, id DESC LIMIT 1',
  );
  return row?.data.processes.find((p) => p.pid === pid && p.runtimes !== undefined);
}

async function runCycle() {
  const { getDb } = await import('../../lib/db');
  const { FindingsEngine } = await import('../../lib/findings/engine');
  const { listFindings } = await import('../../lib/findings/list-findings');
  const { findingsQuerySchema } = await import('../../lib/protocol/findings');
  const db = await getDb();
  await new FindingsEngine(db).runCycle(new Date());
  return (await listFindings(db, findingsQuerySchema.parse({}))).findings.filter((f) => f.subject.includes(WATCH_NAME));
}

beforeAll(async () => {
  testDb = await createTestDatabase('iw_findings_live');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-findings-live-'));
  fs.writeFileSync(path.join(workDir, WATCH_NAME), WORKER);

  const { handleIngestHttp } = await import('../../lib/server/process-ingest');
  const { POST: enroll } = await import('../../app/api/v1/enroll/route');
  const { createEnrollmentKey } = await import('../../lib/auth/enrollment-keys');
  const { getDb } = await import('../../lib/db');
  const { key } = await createEnrollmentKey(await getDb(), { name: 'live', region: 'oslo', labels: {} });
  fs.writeFileSync(path.join(workDir, 'enroll-key'), key, { mode: 0o600 });

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
  await Promise.all(workers.map(stop));
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  const { closeIngest } = await import('../../lib/server/process-ingest');
  const { closeDb } = await import('../../lib/db');
  await closeIngest();
  await closeDb();
  await testDb?.drop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('findings on a live BLAS workload watched by the real agent', () => {
  test('two workers × two OpenBLAS threads on two CPUs open the thread finding naming OpenBLAS, no OpenMP finding; one thread each resolves it', { timeout: 240_000 }, async () => {
    workers = [startWorker(2), startWorker(2)];
    // taskset execs python in place, so a worker's pid is its child's.
    const firstPid = workers[1]!.pid!;
    agent = spawn(
      process.execPath,
      ['--import', 'tsx', 'agent/cli.ts', '--server', serverUrl, '--enroll-key-file', path.join(workDir, 'enroll-key'),
        '--state-dir', path.join(workDir, 'agent'), '--interval', String(AGENT_INTERVAL_S), '--watch-process', WATCH_NAME],
      { cwd: process.cwd(), stdio: 'ignore' },
    );

    const inventory = await eventually('the worker with its runtimes in an inventory snapshot', () => newestWorkerInventory(firstPid));
    expect(inventory.runtimes!.map((r) => r.id)).toContain('openblas-pthreads');
    expect(inventory.env).toEqual({ OPENBLAS_NUM_THREADS: '2' });

    const opened = await eventually('the thread finding', async () => {
      const findings = await runCycle();
      return findings.some((f) => f.ruleId === 'threads.oversubscribed') ? findings : undefined;
    });
    const oversubscribed = opened.find((f) => f.ruleId === 'threads.oversubscribed')!;
    expect(oversubscribed).toMatchObject({ subject: WATCH_NAME, severity: 'critical', value: 2 });
    expect(oversubscribed.message).toMatch(/OPENBLAS_NUM_THREADS=2/);
    expect(oversubscribed.message).toMatch(/× 2 workers on 2 usable CPUs/);
    expect(oversubscribed.message).toMatch(/OpenBLAS \(pthreads\)/);
    expect(opened.filter((f) => f.ruleId.startsWith('openmp.'))).toEqual([]);

    await Promise.all(workers.map(stop));
    workers = [startWorker(1), startWorker(1)];
    const secondPid = workers[1]!.pid!;
    await eventually('the restarted worker in an inventory snapshot', () => newestWorkerInventory(secondPid));
    const after = await eventually('the thread finding to resolve', async () => {
      const findings = await runCycle();
      return findings.some((f) => f.ruleId === 'threads.oversubscribed') ? undefined : findings;
    });
    expect(after.filter((f) => f.ruleId.startsWith('threads.') || f.ruleId.startsWith('openmp.'))).toEqual([]);
  });
});
