import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCpuCollector } from '../../agent/collectors/cpu';
import { collectDataPaths, createDiskCollector } from '../../agent/collectors/disks';
import type { CpuSample, DiskSample } from '../../lib/protocol';

// The agent and sysstat read the same two captures of the live /proc, taken under load (the tools through bind mounts
// in a mount namespace). Each tool has an hour's interval and gets the SIGALRM its alarm would send once it sleeps in
// pause() after its first reading: no outcome depends on how fast the machine starts or schedules processes.
const REQUIRED_TOOLS = ['mpstat', 'iostat', 'stress-ng', 'fio', 'unshare', 'mount'];
const MEASURE_S = 5;
const LOAD_WARMUP_MS = 2_000;
/** Both ends of the window are captures of these /proc files. */
const CAPTURED = ['stat', 'loadavg', 'diskstats', 'uptime'] as const;

const missingTools = REQUIRED_TOOLS.filter((tool) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});

interface MpstatLoad { cpu: string; usr: number; sys: number; iowait: number; steal: number; idle: number }
interface IostatDisk { 'r/s': number; 'w/s': number; r_await: number; w_await: number; 'aqu-sz': number; util: number }

function within(actual: number, expected: number, relative: number, absoluteFloor: number): boolean {
  return Math.abs(actual - expected) <= Math.max(Math.abs(expected) * relative, absoluteFloor);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function diskDirectory(): Promise<{ dir: string; device: string }> {
  for (const base of [os.tmpdir(), '/var/tmp', process.cwd()]) {
    const [found] = await collectDataPaths('/proc', '/sys', [base]);
    if (found?.device) return { dir: await mkdtemp(path.join(base, 'agent-live-')), device: found.device };
  }
  throw new Error('no temp directory on a block device (tmpfs everywhere?): cannot run fio against a disk');
}

/** Copies the live /proc files into `dir`, back to back (read, not copyFile: procfs files report a size of 0). */
function capture(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const texts = CAPTURED.map((file) => readFileSync(path.join('/proc', file)));
  CAPTURED.forEach((file, i) => writeFileSync(path.join(dir, file), texts[i]!));
}

/** The counters of `device`'s line in a captured diskstats: the fields of /sys/block/<device>/stat. */
function diskstatsFields(dir: string, device: string): string {
  const line = readFileSync(path.join(dir, 'diskstats'), 'utf8').split('\n').find((l) => l.trim().split(/\s+/)[2] === device);
  if (!line) throw new Error(`${device} is not in /proc/diskstats`);
  return line.trim().split(/\s+/).slice(3).join(' ');
}

/** /proc/uptime in hundredths of a second, as iostat reads it for its interval. */
function uptimeCs(dir: string): number {
  const [seconds, hundredths] = readFileSync(path.join(dir, 'uptime'), 'utf8').split(/\s+/)[0]!.split('.');
  return Number(seconds) * 100 + Number(hundredths ?? 0);
}

interface Tool {
  child: ChildProcess;
  stdout: Promise<string>;
  stderr: string[];
}

/** Runs `command` with each [file, target] bind-mounted (file over target), in a mount namespace of its own. */
function startTool(command: string, args: string[], binds: [string, string][]): Tool {
  const mounts = binds.map(([file, target]) => `mount --bind '${file}' '${target}'`).join(' && ');
  const child = spawn('unshare', ['--mount', '--map-root-user', 'sh', '-c', `${mounts} && exec "$0" "$@"`, command, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString('utf8')));
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (d: Buffer) => chunks.push(d));
  const stdout = new Promise<string>((resolve) => child.once('close', () => resolve(Buffer.concat(chunks).toString('utf8'))));
  return { child, stdout, stderr };
}

const readProc = (pid: number, file: string) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
};

/** Waits until the tool has taken its first reading and sleeps in pause() for its interval. */
async function untilPaused(command: string, tool: Tool): Promise<void> {
  const pid = tool.child.pid!;
  for (;;) {
    if (tool.child.exitCode !== null) throw new Error(`${command} exited before its interval: ${tool.stderr.join('')}`);
    const paused = /pause|sigsuspend/.test(readProc(pid, 'wchan')) || (process.arch === 'x64' && readProc(pid, 'syscall').startsWith('34 '));
    if (readProc(pid, 'comm').trim() === command && paused) return;
    await sleep(10);
  }
}

/** Ends the tool's interval now and returns what it printed. */
async function wake(tool: Tool): Promise<string> {
  tool.child.kill('SIGALRM');
  const out = await tool.stdout;
  expect(tool.child.exitCode, tool.stderr.join('')).toBe(0);
  return out;
}

describe('agent collectors against mpstat and iostat on this machine under load', () => {
  let workDir: string | undefined;
  let captures = '';
  let device = '';
  const load: ChildProcess[] = [];

  beforeAll(async () => {
    if (missingTools.length > 0) return;
    ({ dir: workDir, device } = await diskDirectory());
    captures = await mkdtemp(path.join(os.tmpdir(), 'agent-live-proc-'));
    // Both run until afterAll kills them (or their own timeout, should this process die first). One CPU worker at
    // 50% leaves idle time for iowait to show; two synchronous direct-I/O jobs with large blocks keep a queue on the
    // disk. fio runs its jobs as threads (its job processes would setsid away from a kill); stress-ng gets its own
    // process group, so killing the group takes its workers too.
    const group = { stdio: 'ignore', detached: true } as const;
    load.push(spawn('stress-ng', ['--cpu', '1', '--cpu-load', '50', '--timeout', '300s', '--quiet'], group));
    load.push(spawn('fio', [
      '--name=agent-live', `--directory=${workDir}`, '--size=64M', '--direct=1', '--ioengine=psync', '--rw=randrw',
      '--rwmixread=50', '--bs=256k', '--numjobs=2', '--thread', '--time_based', '--runtime=300', '--output=/dev/null',
    ], group));
    await sleep(LOAD_WARMUP_MS);
  }, 30_000);

  afterAll(async () => {
    for (const child of load) if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    if (workDir) await rm(workDir, { recursive: true, force: true });
    if (captures) await rm(captures, { recursive: true, force: true });
  });

  test('agrees with mpstat on the CPU shares and with iostat -x on IOPS, await, aqu-sz and util over the same two readings', async () => {
    expect(missingTools, `missing ${missingTools.join(', ')}: run apt-get install sysstat fio stress-ng util-linux mount`).toEqual([]);
    expect(load.every((child) => child.exitCode === null), 'stress-ng and fio must still be running').toBe(true);

    const [t0, t1, served] = ['t0', 't1', 'served'].map((name) => path.join(captures, name)) as [string, string, string];
    const proc = (file: string): [string, string] => [path.join(served, file), `/proc/${file}`];
    // iostat reads a named device's counters from sysfs: it gets the same numbers as the captured diskstats line.
    const sysfsStat: [string, string] = [path.join(served, 'sysfs-stat'), `/sys/block/${device}/stat`];
    const serve = (from: string) => {
      for (const file of CAPTURED) copyFileSync(path.join(from, file), path.join(served, file));
      writeFileSync(sysfsStat[0], `${diskstatsFields(from, device)}\n`);
    };
    capture(t0);
    mkdirSync(served);
    serve(t0);
    const mpstat = startTool('mpstat', ['-P', 'ALL', '-o', 'JSON', '3600', '1'], [proc('stat'), proc('uptime')]);
    const iostat = startTool('iostat', ['-x', '-y', '-d', '-o', 'JSON', device, '3600', '1'], [proc('diskstats'), proc('stat'), proc('uptime'), sysfsStat]);
    await Promise.all([untilPaused('mpstat', mpstat), untilPaused('iostat', iostat)]);
    await sleep(MEASURE_S * 1000);
    capture(t1);
    // The tools sleep in pause(): rewriting the served files in place is what their second reading will see.
    serve(t1);
    const [mpstatOut, iostatOut] = await Promise.all([wake(mpstat), wake(iostat)]);

    // The agent's rates over the interval iostat uses: the /proc/uptime difference of the two captures.
    const elapsedMs = (uptimeCs(t1) - uptimeCs(t0)) * 10;
    const cpuCollector = createCpuCollector();
    const diskCollector = createDiskCollector({ deviceFilter: new RegExp(`^${device}$`) });
    const at = (procRoot: string, nowMs: number) => ({ procRoot, sysRoot: '/sys', nowMs, watched: [] });
    await Promise.all([cpuCollector.collect(at(t0, 0)), diskCollector.collect(at(t0, 0))]);
    const [cpuResult, diskResult] = await Promise.all([cpuCollector.collect(at(t1, elapsedMs)), diskCollector.collect(at(t1, elapsedMs))]);

    const [mpstatAll, ...mpstatPerCpu]: MpstatLoad[] = JSON.parse(mpstatOut).sysstat.hosts[0].statistics[0]['cpu-load'];
    const mpstatLoad = mpstatAll!;
    const iostatDisk: IostatDisk = JSON.parse(iostatOut).sysstat.hosts[0].statistics[0].disk[0];
    const cpu = cpuResult as CpuSample;
    const [disk] = diskResult as DiskSample[];
    const figures = {
      device,
      elapsedMs,
      iowaitPct: { agent: cpu.total.iowaitPct, mpstat: mpstatLoad.iowait },
      stealPct: { agent: cpu.total.stealPct, mpstat: mpstatLoad.steal },
      systemPct: { agent: cpu.total.systemPct, mpstat: mpstatLoad.sys },
      userPct: { agent: cpu.total.userPct, mpstat: mpstatLoad.usr },
      idlePct: { agent: cpu.total.idlePct, mpstat: mpstatLoad.idle },
      readIops: { agent: disk?.readIops, iostat: iostatDisk['r/s'] },
      writeIops: { agent: disk?.writeIops, iostat: iostatDisk['w/s'] },
      readAwaitMs: { agent: disk?.readAwaitMs, iostat: iostatDisk.r_await },
      writeAwaitMs: { agent: disk?.writeAwaitMs, iostat: iostatDisk.w_await },
      queueDepth: { agent: disk?.queueDepth, iostat: iostatDisk['aqu-sz'] },
      utilPct: { agent: disk?.utilPct, iostat: iostatDisk.util },
    };
    console.log('agent vs reference tools over the same two readings:', JSON.stringify(figures, null, 2));

    expect(cpuResult).not.toHaveProperty('unavailable');
    expect(disk, `the agent reported no sample for ${device}: ${JSON.stringify(diskResult)}`).toBeDefined();
    // Same readings, so only the tools' two printed decimals separate the figures.
    const ROUNDING = 0.0051;
    const shares = (agent: CpuSample['total'], tool: MpstatLoad) => [
      [agent.iowaitPct, tool.iowait],
      [agent.stealPct, tool.steal],
      [agent.systemPct, tool.sys],
      [agent.idlePct, tool.idle],
    ] as const;
    expect(mpstatPerCpu.map((c) => Number(c.cpu))).toEqual(cpu.perCpu.map((c) => c.cpu));
    cpu.perCpu.forEach((agentCpu, i) => {
      for (const [agent, tool] of shares(agentCpu, mpstatPerCpu[i]!)) expect(Math.abs(agent - tool), `cpu${agentCpu.cpu}: ${JSON.stringify(figures)}`).toBeLessThanOrEqual(ROUNDING);
    });
    // mpstat 12.6 sums the per-CPU lines for "all"; the agent takes the kernel's aggregate line, whose own rounding
    // differs from that sum by about a jiffy per CPU and field.
    for (const [agent, tool] of shares(cpu.total, mpstatLoad)) expect(Math.abs(agent - tool), JSON.stringify(figures)).toBeLessThanOrEqual(0.5);
    for (const [agent, tool] of [
      [disk!.readIops, iostatDisk['r/s']],
      [disk!.writeIops, iostatDisk['w/s']],
      [disk!.readAwaitMs, iostatDisk.r_await],
      [disk!.writeAwaitMs, iostatDisk.w_await],
      [disk!.queueDepth, iostatDisk['aqu-sz']],
      [disk!.utilPct, iostatDisk.util],
    ] as const) expect(within(agent, tool, 1e-9, ROUNDING), JSON.stringify(figures)).toBe(true);
    // The load must really have exercised the disk in the window, or the comparison above proves little.
    expect(disk!.readIops).toBeGreaterThan(0);
    expect(disk!.writeIops).toBeGreaterThan(0);
  }, 60_000);
});
