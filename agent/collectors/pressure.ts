import type { PressureSample, Unavailable } from '../../lib/protocol';
import { readRooted, unavailable } from './read';
import { clampPct, createReadingPairs, WARMING_UP } from './reading-pairs';
import { defineCollector } from './registration';
import type { Collector } from './types';
import { parseCounter, parseDecimal } from './values';

export interface PressureLine {
  avg10: number;
  avg60: number;
  avg300: number;
  totalUs: number;
}

export interface Pressure {
  some: PressureLine;
  /** Absent on kernels before 5.13 for cpu. */
  full: PressureLine | null;
}

const RESOURCES = ['cpu', 'io', 'memory'] as const;
type Resource = (typeof RESOURCES)[number];
type PressureResource = Exclude<PressureSample[Resource], Unavailable>;
type PressureReadings = Record<Resource, Pressure | Unavailable>;

/** One "some"/"full" line's fields, or null when any of them does not parse. */
function parseLine(fields: string[]): PressureLine | null {
  const values = new Map(fields.map((f) => f.split('=') as [string, string | undefined]));
  const avg10 = parseDecimal(values.get('avg10'));
  const avg60 = parseDecimal(values.get('avg60'));
  const avg300 = parseDecimal(values.get('avg300'));
  const totalUs = parseCounter(values.get('total'));
  if (avg10 === null || avg60 === null || avg300 === null || totalUs === null) return null;
  return { avg10, avg60, avg300, totalUs };
}

/** A "full" line that does not parse becomes null (the field is nullable); a bad "some" line loses the resource. */
export function parsePressure(text: string): Pressure {
  let some: PressureLine | null | undefined;
  let full: PressureLine | null = null;
  for (const line of text.split('\n')) {
    const [kind, ...fields] = line.trim().split(/\s+/);
    if (kind === 'some') some = parseLine(fields);
    else if (kind === 'full') full = parseLine(fields);
  }
  if (some === undefined) throw new Error('PSI file has no "some" line');
  if (some === null) throw new Error('malformed PSI "some" line');
  return { some, full };
}

function reasonFor(err: unknown, resource: Resource): Unavailable {
  const code = (err as NodeJS.ErrnoException)?.code;
  const reason =
    code === 'ENOENT' ? 'no PSI on this kernel (needs 4.20+ with CONFIG_PSI)' :
    code === 'EOPNOTSUPP' ? 'PSI disabled (kernel booted with psi=0; add psi=1)' :
    code === 'EACCES' || code === 'EPERM' ? 'permission denied' :
    err instanceof Error ? err.message : String(err);
  return unavailable(`pressure ${resource}: ${reason}`);
}

function readPressure(procRoot: string): PressureReadings {
  const entries = RESOURCES.map((resource) => {
    try {
      return [resource, parsePressure(readRooted(procRoot, 'pressure', resource))] as const;
    } catch (err) {
      return [resource, reasonFor(err, resource)] as const;
    }
  });
  const readings = Object.fromEntries(entries) as PressureReadings;
  const failed = RESOURCES.map((r) => readings[r]).filter((r): r is Unavailable => 'unavailable' in r);
  if (failed.length === RESOURCES.length) throw new PressureUnavailable(failed[0]!);
  return readings;
}

class PressureUnavailable extends Error {
  constructor(readonly result: Unavailable) {
    super(result.unavailable);
  }
}

function stallPct(prev: PressureLine, curr: PressureLine, elapsedMs: number): number | null {
  if (curr.totalUs < prev.totalUs) return null;
  return clampPct(((curr.totalUs - prev.totalUs) / (elapsedMs * 1000)) * 100);
}

export function computePressureResource(prev: Pressure, curr: Pressure, elapsedMs: number): PressureResource | Unavailable {
  const someStall = stallPct(prev.some, curr.some, elapsedMs);
  const fullStall = curr.full && prev.full ? stallPct(prev.full, curr.full, elapsedMs) : undefined;
  if (someStall === null || fullStall === null) return { unavailable: 'PSI total went backwards (counter reset)' };
  const line = (l: PressureLine, stall: number) => ({ avg10: clampPct(l.avg10), avg60: clampPct(l.avg60), avg300: clampPct(l.avg300), stallPct: stall });
  return {
    some: line(curr.some, someStall),
    full: curr.full && fullStall !== undefined ? line(curr.full, fullStall) : null,
  };
}

export function computePressureSample(prev: PressureReadings, curr: PressureReadings, elapsedMs: number): PressureSample {
  const resource = (r: Resource): PressureResource | Unavailable => {
    const before = prev[r];
    const now = curr[r];
    if ('unavailable' in now) return now;
    if ('unavailable' in before) return { unavailable: `pressure ${r}: no previous reading yet` };
    return computePressureResource(before, now, elapsedMs);
  };
  return { cpu: resource('cpu'), io: resource('io'), memory: resource('memory') };
}

/** The first collect() takes the baseline and says "warming up"; rates start with the second. */
export function createPressureCollector(): Collector<PressureSample | Unavailable> {
  const nextPair = createReadingPairs((ctx) => readPressure(ctx.procRoot));
  return {
    async collect(ctx) {
      try {
        const pair = await nextPair(ctx);
        if (!pair) return WARMING_UP;
        const elapsedMs = pair.curr.atMs - pair.prev.atMs;
        if (elapsedMs <= 0) return { unavailable: 'pressure: no time elapsed between readings' };
        return computePressureSample(pair.prev.value, pair.curr.value, elapsedMs);
      } catch (err) {
        if (err instanceof PressureUnavailable) return err.result;
        return unavailable(`pressure: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}

export const pressureCollector = defineCollector({
  name: 'pressure',
  reads: RESOURCES.map((resource) => `/proc/pressure/${resource}`),
  cadence: 'rates',
  create: () => createPressureCollector(),
  whenFailed: (reason) => ({ unavailable: reason }),
  toReport: (pressure) => ({ sections: { pressure } }),
});
