import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCpuCollector } from '../../agent/collectors/cpu';
import { collectDataPaths, createDiskCollector } from '../../agent/collectors/disks';
import type { CollectorContext } from '../../agent/collectors/types';
import type { CpuSample, DiskSample } from '../../lib/protocol';

const run = promisify(execFile);
const REQUIRED_TOOLS = ['mpstat', 'iostat', 'stress-ng', 'fio'];
const MEASURE_S = 5;
const LOAD_WARMUP_MS = 2_000;

const missingTools = REQUIRED_TOOLS.filter((tool) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});

interface MpstatLoad { usr: number; sys: number; iowait: number; steal: number; idle: number }
interface IostatDisk { 'r/s': number; 'w/s': number; r_await: number; w_await: number; 'aqu-sz': number; util: number }

function within(actual: number, expected: number, relative: number, absoluteFloor: number): boolean {
  return Math.abs(actual - expected) <= Math.max(Math.abs(expected) * relative, absoluteFloor);
}

const liveCtx = (): CollectorContext => ({ procRoot: '/proc', sysRoot: '/sys', nowMs: performance.now(), watched: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function diskDirectory(): Promise<{ dir: string; device: string }> {
  for (const base of [os.tmpdir(), '/var/tmp', process.cwd()]) {
    const [found] = await collectDataPaths('/proc', '/sys', [base]);
    if (found?.device) return { dir: await mkdtemp(path.join(base, 'agent-live-')), device: found.device };
  }
  throw new Error('no temp directory on a block device (tmpfs everywhere?): cannot run fio against a disk');
}

describe('agent collectors against mpstat and iostat on this machine under load', () => {
  let workDir: string | undefined;
  let device = '';
  const load: ChildProcess[] = [];

  beforeAll(async () => {
    if (missingTools.length > 0) return;
    ({ dir: workDir, device } = await diskDirectory());
    const loadS = String(Math.ceil(LOAD_WARMUP_MS / 1000) + MEASURE_S + 3);
    // One CPU worker at 50% leaves idle time for iowait to show;
    // two synchronous direct-I/O jobs with large blocks keep a queue on the disk.
    load.push(spawn('stress-ng', ['--cpu', '1', '--cpu-load', '50', '--timeout', `${loadS}s`, '--quiet'], { stdio: 'ignore' }));
    load.push(spawn('fio', [
      '--name=agent-live', `--directory=${workDir}`, '--size=64M', '--direct=1', '--ioengine=psync', '--rw=randrw',
      '--rwmixread=50', '--bs=256k', '--numjobs=2', '--time_based', `--runtime=${loadS}`, '--output=/dev/null',
    ], { stdio: 'ignore' }));
    await sleep(LOAD_WARMUP_MS);
  }, 30_000);

  afterAll(async () => {
    for (const child of load) if (child.exitCode === null) child.kill('SIGKILL');
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  test('agrees with mpstat on iowait/steal (±0.5 pp) and with iostat -x on await/aqu-sz (±10%) over the same interval', async () => {
    expect(missingTools, `missing ${missingTools.join(', ')}: run apt-get install sysstat fio stress-ng`).toEqual([]);
    expect(load.every((child) => child.exitCode === null), 'stress-ng and fio must still be running').toBe(true);

    const cpuCollector = createCpuCollector();
    const diskCollector = createDiskCollector({ deviceFilter: new RegExp(`^${device}$`) });
    const mpstat = run('mpstat', ['-o', 'JSON', String(MEASURE_S), '1']);
    const iostat = run('iostat', ['-x', '-y', '-d', '-o', 'JSON', device, String(MEASURE_S), '1']);
    await Promise.all([cpuCollector.collect(liveCtx()), diskCollector.collect(liveCtx())]);
    await sleep(MEASURE_S * 1000);
    const [cpuResult, diskResult] = await Promise.all([cpuCollector.collect(liveCtx()), diskCollector.collect(liveCtx())]);

    const mpstatLoad: MpstatLoad = JSON.parse((await mpstat).stdout).sysstat.hosts[0].statistics[0]['cpu-load'][0];
    const iostatDisk: IostatDisk = JSON.parse((await iostat).stdout).sysstat.hosts[0].statistics[0].disk[0];
    const cpu = cpuResult as CpuSample;
    const [disk] = diskResult as DiskSample[];
    const figures = {
      device,
      iowaitPct: { agent: cpu.total.iowaitPct, mpstat: mpstatLoad.iowait },
      stealPct: { agent: cpu.total.stealPct, mpstat: mpstatLoad.steal },
      userPct: { agent: cpu.total.userPct, mpstat: mpstatLoad.usr },
      idlePct: { agent: cpu.total.idlePct, mpstat: mpstatLoad.idle },
      readIops: { agent: disk?.readIops, iostat: iostatDisk['r/s'] },
      writeIops: { agent: disk?.writeIops, iostat: iostatDisk['w/s'] },
      readAwaitMs: { agent: disk?.readAwaitMs, iostat: iostatDisk.r_await },
      writeAwaitMs: { agent: disk?.writeAwaitMs, iostat: iostatDisk.w_await },
      queueDepth: { agent: disk?.queueDepth, iostat: iostatDisk['aqu-sz'] },
      utilPct: { agent: disk?.utilPct, iostat: iostatDisk.util },
    };
    console.log('agent vs reference tools over the same interval:', JSON.stringify(figures, null, 2));

    expect(cpuResult).not.toHaveProperty('unavailable');
    expect(disk, `the agent reported no sample for ${device}: ${JSON.stringify(diskResult)}`).toBeDefined();
    // mpstat prints two decimals; 0.5 percentage points also absorbs the few ms the two intervals are shifted by.
    expect(Math.abs(cpu.total.iowaitPct - mpstatLoad.iowait)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(cpu.total.stealPct - mpstatLoad.steal)).toBeLessThanOrEqual(0.5);
    // iostat prints two decimals: near zero the 10% band is replaced by 0.05 (ms or requests in queue).
    expect(within(disk!.queueDepth, iostatDisk['aqu-sz'], 0.1, 0.05), `aqu-sz ${disk!.queueDepth} vs ${iostatDisk['aqu-sz']}`).toBe(true);
    expect(within(disk!.readAwaitMs, iostatDisk.r_await, 0.1, 0.05), `r_await ${disk!.readAwaitMs} vs ${iostatDisk.r_await}`).toBe(true);
    expect(within(disk!.writeAwaitMs, iostatDisk.w_await, 0.1, 0.05), `w_await ${disk!.writeAwaitMs} vs ${iostatDisk.w_await}`).toBe(true);
    expect(within(disk!.readIops, iostatDisk['r/s'], 0.1, 1), `r/s ${disk!.readIops} vs ${iostatDisk['r/s']}`).toBe(true);
    expect(within(disk!.writeIops, iostatDisk['w/s'], 0.1, 1), `w/s ${disk!.writeIops} vs ${iostatDisk['w/s']}`).toBe(true);
    // The load must really have exercised the disk, or the comparison above proves little.
    expect(disk!.readIops + disk!.writeIops).toBeGreaterThan(50);
  }, 60_000);
});
