import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCgroupCollector } from '../../../../agent/collectors/cgroups';
import { collectProcessInventory, createProcessCollector, resolveWatchedProcesses } from '../../../../agent/collectors/processes';
import type { CollectorContext, WatchedProcess } from '../../../../agent/collectors/types';
import { processInventorySchema } from '../../../../lib/protocol';

// Runs against this machine's real /proc and /sys with a child process the test owns.
const SCRIPT = 'inferwatch-live-busy-worker.mjs';
let dir: string;
let child: ChildProcess;

const live = (watched: WatchedProcess[]): CollectorContext => ({ procRoot: '/proc', sysRoot: '/sys', nowMs: performance.now(), watched });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'inferwatch-live-'));
  await writeFile(path.join(dir, SCRIPT), 'for (;;) {}\n');
  child = spawn(process.execPath, [path.join(dir, SCRIPT)], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'test', OMP_NUM_THREADS: '3', SECRET_TOKEN: 'x' },
    stdio: 'ignore',
  });
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  await sleep(200);
});

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('watched processes on the live /proc', () => {
  test('resolves the child by its script name and reads OMP_NUM_THREADS but never SECRET_TOKEN', async () => {
    const watched = await resolveWatchedProcesses('/proc', { names: [SCRIPT], pids: [] });
    expect(watched).toEqual([{ name: SCRIPT, pid: child.pid }]);

    const [inventory] = await collectProcessInventory(live(watched));
    expect(inventory).toMatchObject({ name: SCRIPT, pid: child.pid, comm: 'node', env: { OMP_NUM_THREADS: '3' } });
    expect(inventory?.env).toEqual({ OMP_NUM_THREADS: '3' });
    expect(JSON.stringify(inventory)).not.toContain('SECRET_TOKEN');
    expect(inventory?.threads).toBeGreaterThan(1);
    expect(inventory?.cpusAllowedCount).toBe(os.availableParallelism());
    expect(inventory?.cgroup).not.toBeNull();
    expect(processInventorySchema.parse(inventory)).toEqual(inventory);
  });

  test('measures the busy child at close to one core, then drops it once it is killed', async () => {
    const watched: WatchedProcess[] = [{ name: SCRIPT, pid: child.pid! }];
    const processes = createProcessCollector();
    const cgroups = createCgroupCollector();
    await processes.collect(live(watched));
    await cgroups.collect(live(watched));
    await sleep(1000);
    const [sample] = await processes.collect(live(watched));
    expect(sample?.pid).toBe(child.pid);
    expect(sample!.cpuCores).toBeGreaterThan(0.3);
    expect(sample!.cpuCores).toBeLessThan(1.1);
    const groups = await cgroups.collect(live(watched));
    expect(Array.isArray(groups) && groups[0]!.usageCores).toBeGreaterThan(0.3);

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    await sleep(50);
    expect(await processes.collect(live(watched))).toEqual([]);
    expect(await collectProcessInventory(live(watched))).toEqual([]);
  });
});
