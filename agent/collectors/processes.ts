import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isAllowedEnvVar, type LogWarning, type ProcessContainer, type ProcessInventory, type ProcessSample } from '../../lib/protocol';
import { containerOf } from './cgroups/containers';
import { collectCgroupConfig } from './cgroups/limits';
import { parseCgroupFile } from './cgroups/parse';
import { parseCpuList } from './cpu-list';
import { parseProcessSelector, selectorMatches } from './process-selectors';
import { createReadingPairs } from './reading-pairs';
import { defineCollector } from './registration';
import { createRuntimeReader, runtimesKey, type RuntimeReader } from './runtimes';
import { readOptional, unavailableFrom } from './read';
import type { Collector, CollectorContext, WatchedProcess } from './types';
import { boundedText, isMeasurable, parseCount, parseCounter, unitsToBytes } from './values';

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux ABI the agent runs on. */
export const CLK_TCK = 100;
export const MAX_PIDS_PER_NAME = 16;

export interface WatchSpec {
  /** --watch-process values: process names, or container and pod selectors (see process-selectors.ts). */
  names: string[];
  pids: number[];
}

/** NUL-separated /proc/<pid>/cmdline into argv. */
export function parseCmdline(buffer: Uint8Array): string[] {
  const argv = Buffer.from(buffer).toString('utf8').split('\0');
  if (argv.at(-1) === '') argv.pop();
  return argv;
}

async function listPids(procRoot: string): Promise<number[]> {
  const entries = await readdir(procRoot);
  return entries.filter((entry) => /^\d+$/.test(entry)).map(Number).sort((a, b) => a - b);
}

function readContainer(procRoot: string, pid: number): ProcessContainer | null {
  const text = readOptional(procRoot, String(pid), 'cgroup');
  return text === undefined ? null : containerOf(parseCgroupFile(text));
}

/** Lists only thread-group leaders: /proc shows threads under /proc/<pid>/task, not as top-level entries. */
export async function resolveWatchedProcesses(procRoot: string, spec: WatchSpec): Promise<WatchedProcess[]> {
  const watched: WatchedProcess[] = [];
  const seen = new Set<number>();
  const add = (name: string, pid: number) => {
    if (seen.has(pid)) return;
    seen.add(pid);
    watched.push({ name, pid });
  };
  for (const pid of spec.pids) {
    if ((readOptional(procRoot, String(pid), 'stat')) !== undefined) add(`pid:${pid}`, pid);
  }
  if (spec.names.length === 0) return watched;
  const matches = new Map<string, number[]>(spec.names.map((name) => [name, []]));
  const selectors = new Map(spec.names.map((name) => [name, parseProcessSelector(name)]));
  for (const pid of await listPids(procRoot)) {
    const comm = readOptional(procRoot, String(pid), 'comm')?.trim();
    if (comm === undefined) continue;
    let argv: string[];
    try {
      argv = parseCmdline(readFileSync(path.join(procRoot, String(pid), 'cmdline')));
    } catch {
      continue;
    }
    let container: { of: ProcessContainer | null } | undefined;
    const containerOfPid = () => (container ??= { of: readContainer(procRoot, pid) }).of;
    for (const [name, pids] of matches) {
      if (pids.length < MAX_PIDS_PER_NAME && selectorMatches(selectors.get(name)!, comm, argv, containerOfPid)) pids.push(pid);
    }
  }
  for (const [name, pids] of matches) for (const pid of pids) add(name, pid);
  return watched;
}

/** Fields of /proc/<pid>/status; null where the line is missing or does not parse. */
export interface ProcStatus {
  threads: number | null;
  cpusAllowedList: string | null;
  voluntaryCtxSwitches: number | null;
  nonvoluntaryCtxSwitches: number | null;
  /** Kernel threads have no VmRSS line and hold no user memory: 0 for them, null for a line that does not parse. */
  rssBytes: number | null;
}

export function parseStatus(text: string): ProcStatus {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  const rss = fields.get('VmRSS');
  const rssKb = rss === undefined ? 0 : parseCounter(/^(\d+)\s*kB$/.exec(rss)?.[1]);
  return {
    threads: parseCount(fields.get('Threads')),
    cpusAllowedList: fields.get('Cpus_allowed_list') ?? null,
    voluntaryCtxSwitches: parseCounter(fields.get('voluntary_ctxt_switches')),
    nonvoluntaryCtxSwitches: parseCounter(fields.get('nonvoluntary_ctxt_switches')),
    rssBytes: unitsToBytes(rssKb, 1024),
  };
}

export interface PidStat {
  comm: string;
  utimeTicks: number;
  stimeTicks: number;
  /** Ticks after boot at which the process started: with the pid, it tells a reused pid apart. */
  startTicks: number;
}

/** /proc/<pid>/stat; comm may hold spaces and parentheses, so fields are counted after the last ")". */
export function parsePidStat(text: string): PidStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).trim().split(/\s+/);
  // rest[0] is field 3 (state): utime is field 14, stime 15, starttime 22.
  const utime = parseCounter(rest[11]);
  const stime = parseCounter(rest[12]);
  const start = parseCounter(rest[19]);
  if (utime === null || stime === null || start === null) return null;
  return { comm: text.slice(open + 1, close), utimeTicks: utime, stimeTicks: stime, startTicks: start };
}

/**
 * Keeps only allow-listed variables. Other entries are skipped before their value is decoded, so secrets in a
 * process's environment are never turned into strings, logged or returned.
 */
export function parseEnviron(buffer: Uint8Array): Record<string, string> {
  const env: Record<string, string> = {};
  let start = 0;
  while (start < buffer.length) {
    let end = buffer.indexOf(0, start);
    if (end < 0) end = buffer.length;
    const equals = buffer.indexOf(0x3d, start);
    if (equals > start && equals < end) {
      const key = Buffer.from(buffer.subarray(start, equals)).toString('latin1');
      if (isAllowedEnvVar(key)) env[key] = Buffer.from(buffer.subarray(equals + 1, end)).toString('utf8').slice(0, 1000);
    }
    start = end + 1;
  }
  return env;
}

export function readEnviron(procRoot: string, pid: number): { env: Record<string, string>; unreadable?: string } {
  let buffer: Buffer;
  try {
    buffer = readFileSync(path.join(procRoot, String(pid), 'environ'));
  } catch (err) {
    return { env: {}, unreadable: unavailableFrom(err, 'environ').unavailable };
  }
  try {
    return { env: parseEnviron(buffer) };
  } finally {
    buffer.fill(0);
  }
}

interface ProcessReading {
  name: string;
  pid: number;
  stat: PidStat;
  status: ProcStatus;
}

async function readProcesses(ctx: CollectorContext): Promise<Map<string, ProcessReading>> {
  const readings = new Map<string, ProcessReading>();
  await Promise.all(
    ctx.watched.map(async ({ name, pid }) => {
      const [statText, statusText] = await Promise.all([
        readOptional(ctx.procRoot, String(pid), 'stat'),
        readOptional(ctx.procRoot, String(pid), 'status'),
      ]);
      const stat = statText === undefined ? null : parsePidStat(statText);
      if (stat === null || statusText === undefined) return;
      readings.set(`${pid}@${stat.startTicks}`, { name, pid, stat, status: parseStatus(statusText) });
    }),
  );
  return readings;
}

/** null when a status field the sample needs does not parse: every field of a sample is required. */
export function processSampleFrom(prev: ProcessReading, curr: ProcessReading, elapsedS: number): ProcessSample | null {
  const perS = (a: number, b: number) => Math.max(0, b - a) / elapsedS;
  const ticks = (stat: PidStat) => stat.utimeTicks + stat.stimeTicks;
  const { threads, rssBytes, voluntaryCtxSwitches: voluntary, nonvoluntaryCtxSwitches: nonvoluntary } = curr.status;
  const { voluntaryCtxSwitches: prevVoluntary, nonvoluntaryCtxSwitches: prevNonvoluntary } = prev.status;
  if (threads === null || rssBytes === null || voluntary === null || nonvoluntary === null) return null;
  if (prevVoluntary === null || prevNonvoluntary === null) return null;
  const voluntaryCtxSwitchesPerS = perS(prevVoluntary, voluntary);
  const nonvoluntaryCtxSwitchesPerS = perS(prevNonvoluntary, nonvoluntary);
  if (!isMeasurable(voluntaryCtxSwitchesPerS) || !isMeasurable(nonvoluntaryCtxSwitchesPerS)) return null;
  return {
    name: curr.name,
    pid: curr.pid,
    threads,
    cpuCores: perS(ticks(prev.stat), ticks(curr.stat)) / CLK_TCK,
    rssBytes,
    voluntaryCtxSwitchesPerS,
    nonvoluntaryCtxSwitchesPerS,
  };
}

/**
 * Per watched process: CPU in cores and context-switch rates over the interval. A process shows up from its
 * second reading; one that exited (or whose pid was reused) is simply left out.
 */
export function createProcessCollector(): Collector<ProcessSample[]> {
  const pairs = createReadingPairs(readProcesses);
  return {
    async collect(ctx) {
      const pair = await pairs(ctx);
      if (!pair) return [];
      const elapsedS = (pair.curr.atMs - pair.prev.atMs) / 1000;
      if (!(elapsedS > 0)) return [];
      const samples: ProcessSample[] = [];
      for (const [key, curr] of pair.curr.value) {
        const prev = pair.prev.value.get(key);
        const sample = prev && processSampleFrom(prev, curr, elapsedS);
        if (sample) samples.push(sample);
      }
      return samples.sort((a, b) => a.pid - b.pid).slice(0, 64);
    },
  };
}

/**
 * Thread, environment and runtime configuration of each watched process; `logs` maps a watched name to its
 * warnings, `runtimes` keeps what /proc/<pid>/maps said between calls (a fresh reader reads it every time).
 */
export async function collectProcessInventory(
  ctx: CollectorContext,
  logs?: Map<string, LogWarning[]>,
  runtimes: RuntimeReader = createRuntimeReader(),
): Promise<ProcessInventory[]> {
  const seen = new Set<string>();
  const inventories = await Promise.all(
    ctx.watched.map(async ({ name, pid }): Promise<ProcessInventory | null> => {
      const dir = String(pid);
      const [comm, statusText, cgroupText, statText] = await Promise.all([
        readOptional(ctx.procRoot, dir, 'comm'),
        readOptional(ctx.procRoot, dir, 'status'),
        readOptional(ctx.procRoot, dir, 'cgroup'),
        readOptional(ctx.procRoot, dir, 'stat'),
      ]);
      if (comm === undefined || statusText === undefined) return null;
      const status = parseStatus(statusText);
      // threads is required and is what the oversubscription findings read: no guess, the process is left out.
      if (status.threads === null) return null;
      const { env, unreadable } = readEnviron(ctx.procRoot, pid);
      const membership = cgroupText === undefined ? null : parseCgroupFile(cgroupText);
      const cgroup = membership === null ? null : await collectCgroupConfig(ctx, membership);
      const container = membership === null ? null : containerOf(membership);
      const cpusAllowedList = boundedText(status.cpusAllowedList ?? '', 1000);
      // The start time tells a reused pid apart; without a readable stat the pid alone keys the cache.
      const startTicks = (statText === undefined ? null : parsePidStat(statText))?.startTicks ?? -1;
      seen.add(runtimesKey(pid, startTicks));
      const loaded = runtimes.read(ctx.procRoot, pid, startTicks, ctx.nowMs);
      return {
        name: name.slice(0, 200),
        pid,
        comm: boundedText(comm, 64),
        threads: status.threads,
        cpusAllowedList,
        cpusAllowedCount: parseCpuList(cpusAllowedList).length,
        env,
        ...(unreadable === undefined ? {} : { envUnreadable: unreadable.slice(0, 500) }),
        cgroup: cgroup === null || 'unavailable' in cgroup ? null : cgroup,
        ...(container === null ? {} : { container }),
        ...('runtimes' in loaded ? { runtimes: loaded.runtimes } : { runtimesUnreadable: loaded.runtimesUnreadable.slice(0, 500) }),
        logWarnings: (logs?.get(name) ?? []).slice(0, 50),
      };
    }),
  );
  runtimes.retain(seen);
  return inventories.filter((inventory) => inventory !== null).slice(0, 64);
}

export const processCollector = defineCollector({
  name: 'processes',
  reads: ['/proc/<pid>/stat', '/proc/<pid>/status'],
  cadence: 'rates',
  create: () => createProcessCollector(),
  whenFailed: () => [],
  toReport: (processes) => ({ sections: { processes } }),
});
