import type { CpuBreakdown, CpuSample, Unavailable } from '../../lib/protocol';
import { readRooted, unavailableFrom } from './read';
import { defineCollector } from './registration';
import { clampPct, createReadingPairs, WARMING_UP } from './reading-pairs';
import type { Collector } from './types';
import { isMeasurable, parseCount, parseCounter, parseDecimal } from './values';

export const JIFFY_FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal', 'guest', 'guestNice'] as const;
export type CpuJiffies = Record<(typeof JIFFY_FIELDS)[number], number>;

/** The fields that add up to a CPU's time: guest and guestNice are already inside user and nice. */
const TIME_FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'] as const;
type TimeDelta = Record<(typeof TIME_FIELDS)[number], number>;

export interface ProcStat {
  /** The aggregate "cpu" line; null when it is missing or does not parse (the total is then summed over CPUs). */
  total: CpuJiffies | null;
  /** One entry per online CPU whose line parses, as the kernel lists them. */
  perCpu: { cpu: number; jiffies: CpuJiffies }[];
  /** The number of per-CPU lines, parsed or not: a garbled line is still an online CPU. */
  onlineCpus: number;
  /** null when the line is missing or does not parse. */
  contextSwitches: number | null;
  procsRunning: number | null;
  procsBlocked: number | null;
}

export interface Loadavg {
  load1: number;
  load5: number;
  load15: number;
  runnableEntities: number | null;
  totalEntities: number | null;
}

/** user … softirq: every kernel since 2.6 prints at least these seven columns. */
const REQUIRED_JIFFY_COLUMNS = 7;
/** The server keys per-CPU rows by an int2 CPU number; Linux's NR_CPUS stays far below. */
const MAX_CPU_NUMBER = 32_767;
const MAX_PER_CPU = 4096;

function jiffiesFrom(values: string[]): CpuJiffies | null {
  if (values.length < REQUIRED_JIFFY_COLUMNS) return null;
  // Older kernels print fewer columns (no steal before 2.6.11, no guest before 2.6.24): missing ones are 0.
  const jiffies = {} as CpuJiffies;
  for (const [i, field] of JIFFY_FIELDS.entries()) {
    const value = values[i] === undefined ? 0 : parseCounter(values[i]);
    if (value === null) return null;
    jiffies[field] = value;
  }
  return jiffies;
}

export function parseProcStat(text: string): ProcStat {
  let total: CpuJiffies | null = null;
  let sawTotal = false;
  const perCpu: ProcStat['perCpu'] = [];
  const seen = new Set<number>();
  let onlineCpus = 0;
  let contextSwitches: number | null = null;
  let procsRunning: number | null = null;
  let procsBlocked: number | null = null;
  for (const line of text.split('\n')) {
    const [key, ...values] = line.trim().split(/\s+/);
    if (key === 'cpu') {
      sawTotal = true;
      total = jiffiesFrom(values);
    } else if (key !== undefined && /^cpu\d+$/.test(key)) {
      onlineCpus++;
      const cpu = parseCount(key.slice(3), MAX_CPU_NUMBER);
      const jiffies = jiffiesFrom(values);
      if (cpu !== null && jiffies !== null && !seen.has(cpu)) perCpu.push({ cpu, jiffies });
      if (cpu !== null) seen.add(cpu);
    } else if (key === 'ctxt') contextSwitches = parseCounter(values[0]);
    else if (key === 'procs_running') procsRunning = parseCount(values[0]);
    else if (key === 'procs_blocked') procsBlocked = parseCount(values[0]);
  }
  if (!sawTotal && onlineCpus === 0) throw new Error('/proc/stat has no "cpu" lines');
  return { total, perCpu, onlineCpus, contextSwitches, procsRunning, procsBlocked };
}

export function parseLoadavg(text: string): Loadavg {
  const [load1, load5, load15, entities] = text.trim().split(/\s+/);
  const [runnable, total] = (entities ?? '').split('/');
  const loads = { load1: parseDecimal(load1), load5: parseDecimal(load5), load15: parseDecimal(load15) };
  if (loads.load1 === null || loads.load5 === null || loads.load15 === null) throw new Error(`malformed /proc/loadavg: ${text.trim().slice(0, 100)}`);
  return { load1: loads.load1, load5: loads.load5, load15: loads.load15, runnableEntities: parseCount(runnable), totalEntities: parseCount(total) };
}

/** Per-field jiffy deltas of one CPU, or null when a counter went backwards (reset, CPU back online). */
export function jiffyDelta(prev: CpuJiffies, curr: CpuJiffies): TimeDelta | null {
  const delta = {} as TimeDelta;
  for (const field of TIME_FIELDS) {
    if (curr[field] < prev[field]) return null;
    delta[field] = curr[field] - prev[field];
  }
  return delta;
}

function sumDeltas(deltas: TimeDelta[]): TimeDelta {
  const sum = Object.fromEntries(TIME_FIELDS.map((f) => [f, 0])) as TimeDelta;
  for (const delta of deltas) for (const f of TIME_FIELDS) sum[f] += delta[f];
  return sum;
}

/** Shares of the interval as mpstat computes them; null when no time elapsed. userPct/nicePct include guest time. */
export function breakdownFrom(delta: TimeDelta): CpuBreakdown | null {
  const totalJiffies = TIME_FIELDS.reduce((sum, f) => sum + delta[f], 0);
  if (totalJiffies <= 0) return null;
  const pct = (jiffies: number) => clampPct((jiffies / totalJiffies) * 100);
  return {
    userPct: pct(delta.user),
    nicePct: pct(delta.nice),
    systemPct: pct(delta.system),
    iowaitPct: pct(delta.iowait),
    irqPct: pct(delta.irq),
    softirqPct: pct(delta.softirq),
    stealPct: pct(delta.steal),
    idlePct: pct(delta.idle),
  };
}

export function computeCpuSample(prev: ProcStat, curr: ProcStat, elapsedMs: number, loadavg: Loadavg): CpuSample | Unavailable {
  const prevByCpu = new Map(prev.perCpu.map((c) => [c.cpu, c.jiffies]));
  const perCpu: CpuSample['perCpu'] = [];
  const validDeltas: TimeDelta[] = [];
  for (const { cpu, jiffies } of curr.perCpu) {
    const before = prevByCpu.get(cpu);
    const delta = before && jiffyDelta(before, jiffies);
    const breakdown = delta && breakdownFrom(delta);
    if (!delta || !breakdown) continue;
    validDeltas.push(delta);
    perCpu.push({ cpu, ...breakdown });
  }
  // The total comes from the kernel's aggregate line (its rounding differs from a sum of per-CPU lines, which
  // sysstat 12.6's mpstat uses, by a jiffy or so); only when a CPU went offline, reset or did not parse is it that sum.
  const everyCpuValid = validDeltas.length === curr.onlineCpus && curr.onlineCpus === prev.onlineCpus;
  const totalDelta = everyCpuValid && prev.total && curr.total ? jiffyDelta(prev.total, curr.total) : sumDeltas(validDeltas);
  const total = totalDelta && breakdownFrom(totalDelta);
  if (!total) return { unavailable: 'cpu: no CPU has a valid interval (counters went backwards or no time elapsed)' };
  // These fields are not nullable in the protocol: without them the sample would have to invent a value.
  if (prev.contextSwitches === null || curr.contextSwitches === null) return { unavailable: 'cpu: /proc/stat has no readable ctxt line' };
  if (curr.procsRunning === null || curr.procsBlocked === null) return { unavailable: 'cpu: /proc/stat has no readable procs_running/procs_blocked line' };
  const switches = Math.max(0, curr.contextSwitches - prev.contextSwitches);
  const contextSwitchesPerS = elapsedMs > 0 ? (switches * 1000) / elapsedMs : 0;
  if (!isMeasurable(contextSwitchesPerS)) return { unavailable: 'cpu: the ctxt counter of /proc/stat jumped past any real rate' };
  return {
    total,
    perCpu: perCpu.sort((a, b) => a.cpu - b.cpu).slice(0, MAX_PER_CPU),
    onlineCpus: curr.onlineCpus,
    contextSwitchesPerS,
    load1: loadavg.load1,
    load5: loadavg.load5,
    load15: loadavg.load15,
    procsRunning: curr.procsRunning,
    procsBlocked: curr.procsBlocked,
  };
}

/** The first collect() takes the baseline and says "warming up"; rates start with the second. */
export function createCpuCollector(): Collector<CpuSample | Unavailable> {
  const nextPair = createReadingPairs((ctx) => parseProcStat(readRooted(ctx.procRoot, 'stat')));
  return {
    async collect(ctx) {
      try {
        const pair = await nextPair(ctx);
        if (!pair) return WARMING_UP;
        const loadavg = parseLoadavg(readRooted(ctx.procRoot, 'loadavg'));
        return computeCpuSample(pair.prev.value, pair.curr.value, pair.curr.atMs - pair.prev.atMs, loadavg);
      } catch (err) {
        return unavailableFrom(err, 'cpu');
      }
    },
  };
}

export const cpuCollector = defineCollector({
  name: 'cpu',
  reads: ['/proc/stat', '/proc/loadavg'],
  cadence: 'rates',
  create: () => createCpuCollector(),
  whenFailed: (reason) => ({ unavailable: reason }),
  toReport: (cpu) => ({ sections: { cpu } }),
});
