import type { DiskSample, Unavailable } from '../../lib/protocol';
import { listWholeDisks, SKIPPED_BY_DEFAULT, sysfsName } from './block-devices';
import { readRooted, unavailableFrom } from './read';
import { clampPct, createReadingPairs, WARMING_UP } from './reading-pairs';
import type { Collector } from './types';

export { collectDiskInventory } from './disk-inventory';
export { collectDataPaths, parseMountinfo } from './data-paths';

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

export function parseDiskstats(text: string): DiskStats[] {
  const disks: DiskStats[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // 2.6-era partition lines carry only 4 counters; they are never whole disks, so they are skipped.
    if (fields.length < 14) continue;
    const n = (i: number) => Number(fields[i]);
    const optional = (i: number) => (fields[i] === undefined ? null : Number(fields[i]));
    disks.push({
      major: n(0),
      minor: n(1),
      name: fields[2]!,
      readsCompleted: n(3),
      readsMerged: n(4),
      sectorsRead: n(5),
      readTimeMs: n(6),
      writesCompleted: n(7),
      writesMerged: n(8),
      sectorsWritten: n(9),
      writeTimeMs: n(10),
      inFlight: n(11),
      ioTimeMs: n(12),
      weightedIoTimeMs: n(13),
      discardsCompleted: optional(14),
      discardsMerged: optional(15),
      sectorsDiscarded: optional(16),
      discardTimeMs: optional(17),
      flushesCompleted: optional(18),
      flushTimeMs: optional(19),
    });
  }
  return disks;
}

const TICKS_MODULO = 2 ** 32;

/** The kernel prints the millisecond fields as 32-bit unsigned, so they wrap after ~49.7 days of busy time. */
function tickDelta(prev: number, curr: number): number {
  return curr >= prev ? curr - prev : curr + TICKS_MODULO - prev;
}

const EVENT_COUNTERS = ['readsCompleted', 'readsMerged', 'sectorsRead', 'writesCompleted', 'writesMerged', 'sectorsWritten'] as const;

/** iostat -x figures for one device over the interval; null when its counters were reset (device re-added). */
export function computeDiskSample(prev: DiskStats, curr: DiskStats, elapsedMs: number): DiskSample | null {
  if (EVENT_COUNTERS.some((c) => curr[c] < prev[c])) return null;
  const perS = (delta: number) => (delta * 1000) / elapsedMs;
  const reads = curr.readsCompleted - prev.readsCompleted;
  const writes = curr.writesCompleted - prev.writesCompleted;
  const readTicks = tickDelta(prev.readTimeMs, curr.readTimeMs);
  const writeTicks = tickDelta(prev.writeTimeMs, curr.writeTimeMs);
  return {
    device: curr.name,
    readIops: perS(reads),
    writeIops: perS(writes),
    readBytesPerS: perS((curr.sectorsRead - prev.sectorsRead) * SECTOR_BYTES),
    writeBytesPerS: perS((curr.sectorsWritten - prev.sectorsWritten) * SECTOR_BYTES),
    readAwaitMs: reads > 0 ? readTicks / reads : 0,
    writeAwaitMs: writes > 0 ? writeTicks / writes : 0,
    queueDepth: tickDelta(prev.weightedIoTimeMs, curr.weightedIoTimeMs) / elapsedMs,
    inFlight: curr.inFlight,
    utilPct: clampPct((tickDelta(prev.ioTimeMs, curr.ioTimeMs) / elapsedMs) * 100),
  };
}

export interface DiskCollectorOptions {
  /** Also report loop, ram and zram devices. */
  includeVirtual?: boolean;
  /** Report only devices whose name matches. */
  deviceFilter?: RegExp;
  /** The first collect() reads twice this far apart; 0 makes it return "warming up" instead. */
  warmupMs?: number;
}

export function createDiskCollector(options: DiskCollectorOptions = {}): Collector<DiskSample[] | Unavailable> {
  const nextPair = createReadingPairs(async (ctx) => parseDiskstats(await readRooted(ctx.procRoot, 'diskstats')), options.warmupMs);
  const wanted = (name: string, wholeDisks: Set<string>) =>
    wholeDisks.has(sysfsName(name)) &&
    (options.includeVirtual || !SKIPPED_BY_DEFAULT.test(name)) &&
    (!options.deviceFilter || options.deviceFilter.test(name));
  return {
    name: 'disks',
    async collect(ctx) {
      try {
        const pair = await nextPair(ctx);
        if (!pair) return WARMING_UP;
        const elapsedMs = pair.curr.atMs - pair.prev.atMs;
        if (elapsedMs <= 0) return { unavailable: 'disks: no time elapsed between readings' };
        const wholeDisks = await listWholeDisks(ctx.sysRoot);
        const prevByName = new Map(pair.prev.value.map((d) => [d.name, d]));
        const samples: DiskSample[] = [];
        for (const curr of pair.curr.value) {
          const prev = prevByName.get(curr.name);
          if (!prev || !wanted(curr.name, wholeDisks)) continue;
          const sample = computeDiskSample(prev, curr, elapsedMs);
          if (sample) samples.push(sample);
        }
        return samples;
      } catch (err) {
        return unavailableFrom(err, 'disks');
      }
    },
  };
}
