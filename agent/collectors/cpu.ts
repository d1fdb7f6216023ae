import type { CpuBreakdown, CpuSample, Unavailable } from '../../lib/protocol';
import { readRooted, unavailableFrom } from './read';
import { clampPct, createReadingPairs, WARMING_UP } from './reading-pairs';
import type { Collector } from './types';

export const JIFFY_FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal', 'guest', 'guestNice'] as const;
export type CpuJiffies = Record<(typeof JIFFY_FIELDS)[number], number>;

/** The fields that add up to a CPU's time: guest and guestNice are already inside user and nice. */
const TIME_FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'] as const;
type TimeDelta = Record<(typeof TIME_FIELDS)[number], number>;

export interface ProcStat {
  /** The aggregate "cpu" line. */
  total: CpuJiffies;
  /** One entry per online CPU, as the kernel lists them. */
  perCpu: { cpu: number; jiffies: CpuJiffies }[];
  contextSwitches: number;
  procsRunning: number;
  procsBlocked: number;
}

export interface Loadavg {
  load1: number;
  load5: number;
  load15: number;
  runnableEntities: number;
  totalEntities: number;
}

function jiffiesFrom(values: string[]): CpuJiffies {
  // Older kernels print fewer columns (no steal before 2.6.11, no guest before 2.6.24): missing ones are 0.
  const jiffies = {} as CpuJiffies;
  JIFFY_FIELDS.forEach((field, i) => {
    jiffies[field] = Number(values[i] ?? 0);
  });
  return jiffies;
}

export function parseProcStat(text: string): ProcStat {
  let total: CpuJiffies | undefined;
  const perCpu: ProcStat['perCpu'] = [];
  let contextSwitches = 0;
  let procsRunning = 0;
  let procsBlocked = 0;
  for (const line of text.split('\n')) {
    const [key, ...values] = line.trim().split(/\s+/);
    if (key === 'cpu') total = jiffiesFrom(values);
    else if (key !== undefined && /^cpu\d+$/.test(key)) perCpu.push({ cpu: Number(key.slice(3)), jiffies: jiffiesFrom(values) });
    else if (key === 'ctxt') contextSwitches = Number(values[0]);
    else if (key === 'procs_running') procsRunning = Number(values[0]);
    else if (key === 'procs_blocked') procsBlocked = Number(values[0]);
  }
  if (total === undefined) throw new Error('/proc/stat has no aggregate "cpu" line');
  return { total, perCpu, contextSwitches, procsRunning, procsBlocked };
}

export function parseLoadavg(text: string): Loadavg {
  const [load1, load5, load15, entities] = text.trim().split(/\s+/);
  const [runnable, total] = (entities ?? '').split('/');
  const loadavg = {
    load1: Number(load1),
    load5: Number(load5),
    load15: Number(load15),
    runnableEntities: Number(runnable),
    totalEntities: Number(total),
  };
  if (Object.values(loadavg).some((v) => !Number.isFinite(v))) throw new Error(`malformed /proc/loadavg: ${text.trim()}`);
  return loadavg;
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
  // Like mpstat, the total comes from the kernel's aggregate line (its own rounding differs from a sum of per-CPU
  // lines by a jiffy or so); only when a CPU went offline or reset is it the sum over CPUs with a valid interval.
  const everyCpuValid = validDeltas.length === curr.perCpu.length && curr.perCpu.length === prev.perCpu.length;
  const totalDelta = everyCpuValid ? jiffyDelta(prev.total, curr.total) : sumDeltas(validDeltas);
  const total = totalDelta && breakdownFrom(totalDelta);
  if (!total) return { unavailable: 'cpu: no CPU has a valid interval (counters went backwards or no time elapsed)' };
  const switches = Math.max(0, curr.contextSwitches - prev.contextSwitches);
  return {
    total,
    perCpu: perCpu.sort((a, b) => a.cpu - b.cpu),
    onlineCpus: curr.perCpu.length,
    contextSwitchesPerS: elapsedMs > 0 ? (switches * 1000) / elapsedMs : 0,
    load1: loadavg.load1,
    load5: loadavg.load5,
    load15: loadavg.load15,
    procsRunning: curr.procsRunning,
    procsBlocked: curr.procsBlocked,
  };
}

export interface CpuCollectorOptions {
  /** The first collect() reads /proc/stat twice this far apart; 0 makes it return "warming up" instead. */
  warmupMs?: number;
}

export function createCpuCollector(options: CpuCollectorOptions = {}): Collector<CpuSample | Unavailable> {
  const nextPair = createReadingPairs(async (ctx) => parseProcStat(await readRooted(ctx.procRoot, 'stat')), options.warmupMs);
  return {
    name: 'cpu',
    async collect(ctx) {
      try {
        const pair = await nextPair(ctx);
        if (!pair) return WARMING_UP;
        const loadavg = parseLoadavg(await readRooted(ctx.procRoot, 'loadavg'));
        return computeCpuSample(pair.prev.value, pair.curr.value, pair.curr.atMs - pair.prev.atMs, loadavg);
      } catch (err) {
        return unavailableFrom(err, 'cpu');
      }
    },
  };
}
