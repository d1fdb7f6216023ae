import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually, newestProcessInventory, runFindingsCycle, startAgent, startIngestServer, stopProcess } from '../support/live-agent';
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
// The agent watches by name: a name of this run only, so a worker left behind by a killed run is not counted here.
const WATCH_NAME = `iw-blas-worker-${process.pid.toString(36)}.py`;
const AGENT_INTERVAL_S = 1;

let testDb: TestDatabase;
let workDir: string;
let server: Awaited<ReturnType<typeof startIngestServer>>;
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

beforeAll(async () => {
  testDb = await createTestDatabase('iw_findings_live');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-findings-live-'));
  fs.writeFileSync(path.join(workDir, WATCH_NAME), WORKER);
  server = await startIngestServer(path.join(workDir, 'enroll-key'));
});

afterAll(async () => {
  await stopProcess(agent);
  await Promise.all(workers.map(stopProcess));
  await server?.close();
  await testDb?.drop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('findings on a live BLAS workload watched by the real agent', () => {
  test('two workers × two OpenBLAS threads on two CPUs open the thread finding naming OpenBLAS, no OpenMP finding; one thread each resolves it', { timeout: 240_000 }, async () => {
    workers = [startWorker(2), startWorker(2)];
    // taskset execs python in place, so a worker's pid is its child's.
    const firstPid = workers[1]!.pid!;
    agent = startAgent({ serverUrl: server.url, keyFile: path.join(workDir, 'enroll-key'), stateDir: path.join(workDir, 'agent'), intervalS: AGENT_INTERVAL_S, watch: [WATCH_NAME] });

    const inventory = await eventually('the worker with its runtimes in an inventory snapshot', () => newestProcessInventory(firstPid));
    expect(inventory.runtimes!.map((r) => r.id)).toContain('openblas-pthreads');
    expect(inventory.env).toEqual({ OPENBLAS_NUM_THREADS: '2' });

    const opened = await eventually('the thread finding', async () => {
      const findings = (await runFindingsCycle()).filter((f) => f.subject.includes(WATCH_NAME));
      return findings.some((f) => f.ruleId === 'threads.oversubscribed') ? findings : undefined;
    });
    const oversubscribed = opened.find((f) => f.ruleId === 'threads.oversubscribed')!;
    expect(oversubscribed).toMatchObject({ subject: WATCH_NAME, severity: 'critical', value: 2 });
    expect(oversubscribed.message).toMatch(/OPENBLAS_NUM_THREADS=2/);
    expect(oversubscribed.message).toMatch(/× 2 workers on 2 usable CPUs/);
    expect(oversubscribed.message).toMatch(/OpenBLAS \(pthreads\)/);
    expect(opened.filter((f) => f.ruleId.startsWith('openmp.'))).toEqual([]);

    await Promise.all(workers.map(stopProcess));
    workers = [startWorker(1), startWorker(1)];
    const secondPid = workers[1]!.pid!;
    await eventually('the restarted worker in an inventory snapshot', () => newestProcessInventory(secondPid));
    const after = await eventually('the thread finding to resolve', async () => {
      const findings = (await runFindingsCycle()).filter((f) => f.subject.includes(WATCH_NAME));
      return findings.some((f) => f.ruleId === 'threads.oversubscribed') ? undefined : findings;
    });
    expect(after.filter((f) => f.ruleId.startsWith('threads.') || f.ruleId.startsWith('openmp.'))).toEqual([]);
  });
});
