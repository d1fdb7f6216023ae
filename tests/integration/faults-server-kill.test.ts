import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { isEverySeqOnce, killAgent, producedReports, spawnDrillAgent, type DrillAgent } from '../support/fault-drill';
import { eventually } from '../support/live-agent';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';
import { rowsOf } from '../support/rows';

// Fault drill: the server is SIGKILLed while a real agent reports every 0.5 s, twice, and started again on the same
// address. Whatever was in flight at the kill either was stored (its acknowledgement lost: sent again, stored once) or
// was not (sent again, stored then); reports made while the server was down wait in the spool.
let testDb: TestDatabase;
let workDir: string;
let port: number;
let keyFile: string;
let server: ChildProcess | undefined;
const agents: DrillAgent[] = [];


/** The server's ingest and enroll (tests/support/replica-process.ts, as server.ts serves them) in a process of its own. */
async function startServer(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/register-server-runtime.mjs', 'tests/support/replica-process.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: testDb.url,
      INFERWATCH_STATE_DIR: path.join(workDir, 'server'),
      REPLICA_PORT: String(port),
      REPLICA_RETRY_MS: '1000',
      REPLICA_CHECK_TIMEOUT_MS: '5000',
      REPLICA_CYCLE_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  await eventually('the server to listen', async () => (out.includes('"listening"') ? true : undefined));
  return child;
}

async function killServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function storedSeqs(): Promise<number[]> {
  const { getDb } = await import('../../lib/db');
  const rows = await rowsOf<{ seq: number }>((await getDb()).sql, 'SELECT seq FROM report_ledger ORDER BY seq');
  return rows.map((row) => Number(row.seq));
}

beforeAll(async () => {
  testDb = await createTestDatabase('iw_fault_server_kill');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-fault-server-kill-'));
  port = await freePort();
  const { getDb } = await import('../../lib/db');
  const { createEnrollmentKey } = await import('../../lib/auth/enrollment-keys');
  const { key } = await createEnrollmentKey(await getDb(), { name: 'drill', region: 'oslo', labels: {} });
  keyFile = path.join(workDir, 'enroll-key');
  fs.writeFileSync(keyFile, key, { mode: 0o600 });
});

afterAll(async () => {
  for (const agent of agents) await killAgent(agent);
  await killServer(server);
  const { closeDb } = await import('../../lib/db');
  await closeDb();
  await testDb?.drop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

test('the server SIGKILLed twice while an agent reports, and restarted: every report stored exactly once', { timeout: 240_000 }, async () => {
  const stateDir = path.join(workDir, 'agent');
  const start = (args: string[] = []) => {
    const agent = spawnDrillAgent({ serverUrl: `http://127.0.0.1:${port}`, keyFile, stateDir, intervalS: 0.5, args: ['--retry-max', '1', ...args] });
    agents.push(agent);
    return agent;
  };
  server = await startServer();
  const agent = start();

  for (let kill = 1; kill <= 2; kill++) {
    const before = (await storedSeqs()).length;
    await eventually(`reports stored before kill ${kill}`, async () => ((await storedSeqs()).length >= before + 3 ? true : undefined));
    await killServer(server);
    // The agent keeps making reports while nothing answers: wait for two to be made, then bring the server back.
    const madeAtKill = producedReports(stateDir);
    await eventually('reports made while the server is down', async () => (producedReports(stateDir) >= madeAtKill + 2 ? true : undefined));
    server = await startServer();
    await eventually(`the backlog stored after restart ${kill}`, async () => {
      const seqs = await storedSeqs();
      return seqs.length > 0 && seqs.at(-1)! >= madeAtKill + 2 ? true : undefined;
    });
  }

  agent.child.kill('SIGTERM');
  expect(await agent.exited).toBe(0);
  // A last --once run sends whatever the stopped agent left in its spool, then its own report.
  expect(await start(['--once']).exited).toBe(0);
  const seqs = await storedSeqs();
  const produced = producedReports(stateDir);
  expect({ produced, everySeqOnce: isEverySeqOnce(seqs, produced) }).toEqual({ produced, everySeqOnce: true });
  const { getDb } = await import('../../lib/db');
  const [samples] = await rowsOf<{ n: number }>((await getDb()).sql, 'SELECT count(*)::int AS n FROM host_samples');
  expect(samples!.n).toBe(produced);
});
