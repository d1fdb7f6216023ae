import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { rowsOf } from './rows';

/**
 * The real ingest and enroll paths on a loopback port, over the database DATABASE_URL names (set it before calling):
 * what the live tests point the real agent CLI at. Writes an enrollment key for region oslo to `keyFile`.
 */
export async function startIngestServer(keyFile: string): Promise<{ url: string; close(): Promise<void> }> {
  const { handleIngestHttp, closeIngest } = await import('../../lib/server/process-ingest');
  const { POST: enroll } = await import('../../app/api/v1/enroll/route');
  const { createEnrollmentKey } = await import('../../lib/auth/enrollment-keys');
  const { getDb, closeDb } = await import('../../lib/db');
  const { key } = await createEnrollmentKey(await getDb(), { name: 'live', region: 'oslo', labels: {} });
  fs.writeFileSync(keyFile, key, { mode: 0o600 });

  const server = http.createServer((req, res) => {
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
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeIngest();
      await closeDb();
    },
  };
}

/**
 * The real agent CLI, reporting every `intervalS` to `serverUrl` and watching the processes named; `args` are more
 * flags, `stderrFd` a file descriptor for its log (discarded by default).
 */
export function startAgent(options: {
  serverUrl: string;
  keyFile: string;
  stateDir: string;
  intervalS: number;
  watch: string[];
  statsdPort?: number;
  args?: string[];
  stderrFd?: number;
}): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--import', 'tsx', 'agent/cli.ts', '--server', options.serverUrl, '--enroll-key-file', options.keyFile, '--state-dir', options.stateDir,
      '--interval', String(options.intervalS), '--statsd-addr', options.statsdPort ? `127.0.0.1:${options.statsdPort}` : 'off',
      // Off unless a test turns it on in `args` (the last value given wins): parallel agents would share port 4318.
      '--otlp-addr', 'off',
      ...options.watch.flatMap((name) => ['--watch-process', name]),
      ...(options.args ?? []),
    ],
    { cwd: process.cwd(), stdio: ['ignore', 'ignore', options.stderrFd ?? 'ignore'] },
  );
}

export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Polls until `check` returns a value, failing with `what` after a deadline generous enough for a loaded machine. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 90_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export interface WatchedInventory {
  pid: number;
  name: string;
  env: Record<string, string>;
  runtimes?: { id: string; library: string }[];
  threads: number;
}

/** The watched process of that pid in the newest inventory snapshot, once its runtimes have been read. */
export async function newestProcessInventory(pid: number): Promise<WatchedInventory | undefined> {
  const { getDb } = await import('../../lib/db');
  const db = await getDb();
  const [row] = await rowsOf<{ data: { processes: WatchedInventory[] } }>(db.sql, 'SELECT data FROM inventory_snapshots ORDER BY taken_at DESC, id DESC LIMIT 1');
  return row?.data.processes.find((p) => p.pid === pid && p.runtimes !== undefined);
}

/** One findings cycle now; the unresolved findings afterwards. */
export async function runFindingsCycle() {
  const { getDb } = await import('../../lib/db');
  const { FindingsEngine } = await import('../../lib/findings/engine/engine');
  const { listFindings } = await import('../../lib/findings/read/list-findings');
  const { findingsQuerySchema } = await import('../../lib/protocol/findings');
  const db = await getDb();
  await new FindingsEngine(db).runCycle(new Date());
  return (await listFindings(db, findingsQuerySchema.parse({}))).findings;
}

export const scriptPath = (name: string) => path.join(process.cwd(), 'tests', 'support', 'runtimes', name);
