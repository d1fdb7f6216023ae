import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCgroupCollector } from '../../../../agent/collectors/cgroups/collector';
import { CLK_TCK, collectProcessInventory, createProcessCollector, resolveWatchedProcesses } from '../../../../agent/collectors/processes';
import type { CollectorContext, WatchedProcess } from '../../../../agent/collectors/types';
import { processInventorySchema } from '../../../../lib/protocol';

// Runs against this machine's real /proc and /sys with a child process the test owns. The child keeps a core busy
// and reports its own CPU time (getrusage) on request, so the agent is checked against the kernel's accounting of
// the same process rather than against "about one core", which a busy machine need not give it.
const SCRIPT = 'inferwatch-live-busy-worker.mjs';
const WORKER = `
process.on('message', () => process.send(process.cpuUsage()));
const spin = () => { const until = Date.now() + 20; while (Date.now() < until); setImmediate(spin); };
spin();
process.send('ready');
`;
let dir: string;
let child: ChildProcess;

const live = (watched: WatchedProcess[], nowMs: number): CollectorContext => ({ procRoot: '/proc', sysRoot: '/sys', nowMs, watched });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The child's CPU time so far, in seconds, as it measures it itself. */
function childCpuS(): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (usage: NodeJS.CpuUsage) => resolve((usage.user + usage.system) / 1e6));
    child.send('usage');
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'inferwatch-live-'));
  await writeFile(path.join(dir, SCRIPT), WORKER);
  child = spawn(process.execPath, [path.join(dir, SCRIPT)], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'test', OMP_NUM_THREADS: '3', SECRET_TOKEN: 'x' },
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  await new Promise((resolve, reject) => child.once('message', resolve).once('error', reject));
});

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('watched processes on the live /proc', () => {
  test('resolves the child by its script name and reads OMP_NUM_THREADS but never SECRET_TOKEN', async () => {
    const watched = await resolveWatchedProcesses('/proc', { names: [SCRIPT], pids: [] });
    expect(watched).toEqual([{ name: SCRIPT, pid: child.pid }]);

    const [inventory] = await collectProcessInventory(live(watched, performance.now()));
    expect(inventory).toMatchObject({ name: SCRIPT, pid: child.pid, comm: 'node', env: { OMP_NUM_THREADS: '3' } });
    expect(inventory?.env).toEqual({ OMP_NUM_THREADS: '3' });
    expect(JSON.stringify(inventory)).not.toContain('SECRET_TOKEN');
    expect(inventory?.threads).toBeGreaterThan(1);
    expect(inventory?.cpusAllowedCount).toBe(os.availableParallelism());
    expect(inventory?.cgroup).not.toBeNull();
    expect(processInventorySchema.parse(inventory)).toEqual(inventory);
  });

  test('reads the runtimes a live python3 has mapped: numpy\'s OpenBLAS (Debian python3-numpy)', async () => {
    const script = 'import numpy, sys; numpy.dot(numpy.ones((50, 50)), numpy.ones((50, 50))); print("ready", flush=True); sys.stdin.read()';
    const python = spawn('/usr/bin/python3', ['-c', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      let stderr = '';
      python.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      await new Promise<void>((resolve, reject) => {
        python.stdout!.once('data', () => resolve());
        python.once('exit', () => reject(new Error(`python3 with numpy did not start (apt-get install -y python3-numpy): ${stderr}`)));
      });
      const [inventory] = await collectProcessInventory(live([{ name: 'python3', pid: python.pid! }], performance.now()));
      expect(inventory?.runtimesUnreadable).toBeUndefined();
      expect(inventory?.runtimes?.filter((r) => r.id.startsWith('openblas')), JSON.stringify(inventory?.runtimes)).toEqual([
        { id: 'openblas-pthreads', library: expect.stringMatching(/^libopenblasp-r/) },
      ]);
      expect(processInventorySchema.parse(inventory)).toEqual(inventory);
    } finally {
      python.kill('SIGKILL');
    }
  });

  test('measures the child\'s CPU as the child itself does, its group at least that much, then drops it once killed', async () => {
    const watched: WatchedProcess[] = [{ name: SCRIPT, pid: child.pid! }];
    const processes = createProcessCollector();
    const cgroups = createCgroupCollector();
    const [beforeFirst, firstAt] = [await childCpuS(), performance.now()];
    await Promise.all([processes.collect(live(watched, firstAt)), cgroups.collect(live(watched, firstAt))]);
    const afterFirst = await childCpuS();
    await sleep(1000);
    const [beforeSecond, secondAt] = [await childCpuS(), performance.now()];
    const [[sample], groups] = await Promise.all([processes.collect(live(watched, secondAt)), cgroups.collect(live(watched, secondAt))]);
    const afterSecond = await childCpuS();

    expect(sample?.pid).toBe(child.pid);
    // The agent's CPU seconds between its two readings lie between what the child used in the inner and the outer
    // window, give or take one clock tick per reading (/proc/<pid>/stat counts in ticks).
    const elapsedS = (secondAt - firstAt) / 1000;
    const agentCpuS = sample!.cpuCores * elapsedS;
    const tickS = 1 / CLK_TCK;
    expect(agentCpuS).toBeGreaterThanOrEqual(beforeSecond - afterFirst - 2 * tickS);
    expect(agentCpuS).toBeLessThanOrEqual(afterSecond - beforeFirst + 2 * tickS);
    expect(Array.isArray(groups), JSON.stringify(groups)).toBe(true);
    // The first group is the host's (the root of the visible hierarchy), which holds the child; its usage is in µs or ns.
    const hostGroupCpuS = (groups as { usageCores: number }[])[0]!.usageCores * elapsedS;
    expect(hostGroupCpuS).toBeGreaterThanOrEqual(beforeSecond - afterFirst - 0.001);

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    // 'exit' comes after the child was reaped, so its /proc entry is already gone.
    expect(await processes.collect(live(watched, performance.now()))).toEqual([]);
    expect(await collectProcessInventory(live(watched, performance.now()))).toEqual([]);
  });
});
