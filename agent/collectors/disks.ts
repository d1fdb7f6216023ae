import type { DiskSample, Unavailable } from '../../lib/protocol';
import { listWholeDisks, SKIPPED_BY_DEFAULT, sysfsName } from './block-devices';
import { MAX_DISKS } from './disk-inventory';
import { readRooted, unavailableFrom } from './read';
import { clampPct, createReadingPairs, WARMING_UP } from './reading-pairs';
import { defineCollector } from './registration';
import type { Collector } from './types';
import { fittingText, isMeasurable, parseCount, parseCounter } from './values';

export { collectDiskInventory } from './disk-inventory';
export { collectDataPaths } from './data-paths';

export const SECTOR_BYTES = 512;

/** One /proc/diskstats line. Discard fields appear in 4.18+ (18 fields), flush fields in 5.5+ (20 fields). */
export interface DiskStats {
  major: number;
  minor: number;
  name: string;
  readsCompleted: number;
  readsMerged: number;
  sectorsRead: number;
  readTimeMs: number;
  writesCompleted: number;
  writesMerged: number;
  sectorsWritten: number;
  writeTimeMs: number;
  inFlight: number;
  ioTimeMs: number;
  weightedIoTimeMs: number;
  discardsCompleted: number | null;
  discardsMerged: number | null;
  sectorsDiscarded: number | null;
  discardTimeMs: number | null;
  flushesCompleted: number | null;
  flushTimeMs: number | null;
}

const REQUIRED_COUNTERS = [
  'readsCompleted', 'readsMerged', 'sectorsRead', 'readTimeMs', 'writesCompleted', 'writesMerged', 'sectorsWritten',
  'writeTimeMs', 'inFlight', 'ioTimeMs', 'weightedIoTimeMs',
] as const;
const OPTIONAL_COUNTERS = ['discardsCompleted', 'discardsMerged', 'sectorsDiscarded', 'discardTimeMs', 'flushesCompleted', 'flushTimeMs'] as const;

/** One DiskStats per device; a line with a counter that does not parse is left out (that device alone). */
export function parseDiskstats(text: string): DiskStats[] {
  const disks: DiskStats[] = [];
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // 2.6-era partition lines carry only 4 counters; they are never whole disks, so they are skipped.
    if (fields.length < 14) continue;
    const name = fittingText(fields[2], 200);
    const major = parseCount(fields[0]);
    const minor = parseCount(fields[1]);
    // The kernel lists each device once, so a second line with the same name is not that device's.
    if (name === null || major === null || minor === null || names.has(name)) continue;
    names.add(name);
    const required = REQUIRED_COUNTERS.map((counter, i) => (counter === 'inFlight' ? parseCount : parseCounter)(fields[3 + i]));
    if (required.some((value) => value === null)) continue;
    const disk = { major, minor, name } as DiskStats;
    REQUIRED_COUNTERS.forEach((counter, i) => (disk[counter] = required[i]!));
    OPTIONAL_COUNTERS.forEach((counter, i) => (disk[counter] = parseCounter(fields[14 + i])));
    disks.push(disk);
  }
  return disks;
}

const TICKS_MODULO = 2 ** 32;

/**
 * The kernel prints the millisecond fields as 32-bit unsigned, so they wrap after ~49.7 days of busy time;
 * a drop larger than one wrap is a reset, and null.
 */
function tickDelta(prev: number, curr: number): number | null {
  const delta = curr >= prev ? curr - prev : curr + TICKS_MODULO - prev;
  return delta >= 0 ? delta : null;
}

const EVENT_COUNTERS = ['readsCompleted', 'readsMerged', 'sectorsRead', 'writesCompleted', 'writesMerged', 'sectorsWritten'] as const;

/** iostat -x figures for one device over the interval; null when its counters were reset (device re-added) or jumped. */
export function computeDiskSample(prev: DiskStats, curr: DiskStats, elapsedMs: number): DiskSample | null {
  if (EVENT_COUNTERS.some((c) => curr[c] < prev[c])) return null;
  const perS = (delta: number) => (delta * 1000) / elapsedMs;
  const reads = curr.readsCompleted - prev.readsCompleted;
  const writes = curr.writesCompleted - prev.writesCompleted;
  const readTicks = tickDelta(prev.readTimeMs, curr.readTimeMs);
  const writeTicks = tickDelta(prev.writeTimeMs, curr.writeTimeMs);
  const weightedTicks = tickDelta(prev.weightedIoTimeMs, curr.weightedIoTimeMs);
  const ioTicks = tickDelta(prev.ioTimeMs, curr.ioTimeMs);
  if (readTicks === null || writeTicks === null || weightedTicks === null || ioTicks === null) return null;
  const rates = {
    readIops: perS(reads),
    writeIops: perS(writes),
    readBytesPerS: perS((curr.sectorsRead - prev.sectorsRead) * SECTOR_BYTES),
    writeBytesPerS: perS((curr.sectorsWritten - prev.sectorsWritten) * SECTOR_BYTES),
  };
  if (!Object.values(rates).every(isMeasurable)) return null;
  return {
    device: curr.name,
    ...rates,
    readAwaitMs: reads > 0 ? readTicks / reads : 0,
    writeAwaitMs: writes > 0 ? writeTicks / writes : 0,
    queueDepth: weightedTicks / elapsedMs,
    inFlight: curr.inFlight,
    utilPct: clampPct((ioTicks / elapsedMs) * 100),
  };
}

export interface DiskCollectorOptions {
  /** Also report loop, ram and zram devices. */
  includeVirtual?: boolean;
  /** Report only devices whose name matches. */
  deviceFilter?: RegExp;
}

export function createDiskCollector(options: DiskCollectorOptions = {}): Collector<DiskSample[] | Unavailable> {
  const nextPair = createReadingPairs((ctx) => parseDiskstats(readRooted(ctx.procRoot, 'diskstats')));
  const wanted = (name: string, wholeDisks: Set<string>) =>
    wholeDisks.has(sysfsName(name)) &&
    (options.includeVirtual || !SKIPPED_BY_DEFAULT.test(name)) &&
    (!options.deviceFilter || options.deviceFilter.test(name));
  return {
    async collect(ctx) {
      try {
        const pair = await nextPair(ctx);
        if (!pair) return WARMING_UP;
        const elapsedMs = pair.curr.atMs - pair.prev.atMs;
        if (elapsedMs <= 0) return { unavailable: 'disks: no time elapsed between readings' };
        const wholeDisks = listWholeDisks(ctx.sysRoot);
        const prevByName = new Map(pair.prev.value.map((d) => [d.name, d]));
        const samples: DiskSample[] = [];
        for (const curr of pair.curr.value) {
          const prev = prevByName.get(curr.name);
          if (!prev || !wanted(curr.name, wholeDisks)) continue;
          const sample = computeDiskSample(prev, curr, elapsedMs);
          if (sample) samples.push(sample);
        }
        return samples.slice(0, MAX_DISKS);
      } catch (err) {
        return unavailableFrom(err, 'disks');
      }
    },
  };
}

export const diskCollector = defineCollector({
  name: 'disks',
  reads: ['/proc/diskstats', '/sys/block'],
  cadence: 'rates',
  create: () => createDiskCollector(),
  whenFailed: (reason) => ({ unavailable: reason }),
  toReport: (disks) => ({ sections: { disks } }),
});
