import type { HistogramReading } from '../scrape/deltas';
import type { OtlpAttribute, OtlpExponentialPoint, OtlpHistogramPoint } from './wire';

/**
 * One OTLP histogram data point, checked and reduced to what the deltas need. A point that breaks the data model
 * (counts that do not add up, bounds out of order, negative durations) is refused with the reason: none of it is used.
 */

/** An exponential histogram's buckets at one scale: index i holds values in (base^i, base^(i+1)], base = 2^(2^-scale). */
export interface ExponentialReading {
  scale: number;
  /** Bucket index → count (cumulative over time when the temporality is, per bucket never). */
  counts: Map<number, number>;
  zeroCount: number;
  zeroThreshold: number;
  count: number;
  sum: number;
  /** The point's start time: a new one means the exporter started again. */
  created: number;
}

export type PointReading = { kind: 'explicit'; reading: HistogramReading } | { kind: 'exponential'; reading: ExponentialReading };

/** The SDKs keep at most 160 buckets by default; a point with more than this is refused to bound the work per point. */
const MAX_POINT_BUCKETS = 4096;
const MIN_SCALE = -10;
const MAX_SCALE = 20;

const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;

export class PointError extends Error {}

export function readExplicitPoint(point: OtlpHistogramPoint): HistogramReading {
  const { explicitBounds: bounds, bucketCounts: counts } = point;
  if (counts.length > MAX_POINT_BUCKETS) throw new PointError(`more than ${MAX_POINT_BUCKETS} buckets`);
  if (counts.length !== bounds.length + 1) throw new PointError(`${counts.length} bucket counts for ${bounds.length} bounds (must be one more)`);
  for (let i = 0; i < bounds.length; i++) {
    if (!Number.isFinite(bounds[i]!)) throw new PointError(`bound ${bounds[i]} is not a finite number`);
    if (i > 0 && !(bounds[i]! > bounds[i - 1]!)) throw new PointError('explicit bounds must increase');
  }
  const sum = checkedSum(point.sum);
  let total = 0;
  const cumulative = counts.map((c) => {
    if (!isCount(c)) throw new PointError(`bucket count ${c} is not a whole number ≥ 0`);
    return (total += c);
  });
  if (total !== point.count) throw new PointError(`bucket counts add up to ${total}, not the point's count ${point.count}`);
  return { bounds: [...bounds, Infinity], cumulative, sum, created: point.startTimeUnixNano };
}

export function readExponentialPoint(point: OtlpExponentialPoint): ExponentialReading {
  const { scale, zeroCount, zeroThreshold } = point;
  if (!Number.isInteger(scale) || scale < MIN_SCALE || scale > MAX_SCALE) throw new PointError(`scale ${scale} is outside ${MIN_SCALE}…${MAX_SCALE}`);
  if (!isCount(zeroCount)) throw new PointError(`zero count ${zeroCount} is not a whole number ≥ 0`);
  if (!(zeroThreshold >= 0) || !Number.isFinite(zeroThreshold)) throw new PointError(`zero threshold ${zeroThreshold} is not a finite number ≥ 0`);
  if (point.negative?.bucketCounts.some((c) => c !== 0)) throw new PointError('negative durations (non-empty negative buckets)');
  const positive = point.positive ?? { offset: 0, bucketCounts: [] };
  if (positive.bucketCounts.length > MAX_POINT_BUCKETS) throw new PointError(`more than ${MAX_POINT_BUCKETS} buckets`);
  const sum = checkedSum(point.sum);
  const counts = new Map<number, number>();
  let total = zeroCount;
  positive.bucketCounts.forEach((c, i) => {
    if (!isCount(c)) throw new PointError(`bucket count ${c} is not a whole number ≥ 0`);
    if (c > 0) counts.set(positive.offset + i, c);
    total += c;
  });
  if (total !== point.count) throw new PointError(`bucket and zero counts add up to ${total}, not the point's count ${point.count}`);
  return { scale, counts, zeroCount, zeroThreshold, count: total, sum, created: point.startTimeUnixNano };
}

function checkedSum(sum: number | undefined): number {
  // OTLP makes the sum optional for histograms that saw negative values; a duration histogram always has one.
  if (sum === undefined) throw new PointError('no sum');
  if (!Number.isFinite(sum) || sum < 0) throw new PointError(`sum ${sum} is not a finite number ≥ 0`);
  return sum;
}

/** A data point's attributes as tags: scalar values as text; lists, maps and bytes are not tag values and are left out. */
export function attributeTags(attributes: readonly OtlpAttribute[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const { key, value } of attributes) {
    if (!value) continue;
    const scalar = value.stringValue ?? value.boolValue ?? value.intValue ?? value.doubleValue;
    if (scalar !== undefined) tags[key] = String(scalar);
  }
  return tags;
}

/**
 * What an exponential histogram saw since `prev`; the same rules as a scraped one (agent/scrape/deltas.ts). A
 * cumulative series may lower its scale as its range grows (the SDK merges neighbouring buckets), so `prev` is first
 * brought down to the current scale, which is exact: bucket i at scale s is inside bucket ⌊i/2^d⌋ at scale s − d.
 * Null when `prev` cannot be brought to the current scale or the counts went down: the exporter restarted.
 */
export function exponentialDelta(prev: ExponentialReading, cur: ExponentialReading): ExponentialReading | null {
  if (prev.created !== cur.created || cur.scale > prev.scale || prev.zeroThreshold !== cur.zeroThreshold) return null;
  const shift = prev.scale - cur.scale;
  const before = new Map<number, number>();
  for (const [index, count] of prev.counts) {
    const at = Math.floor(index / 2 ** shift);
    before.set(at, (before.get(at) ?? 0) + count);
  }
  const counts = new Map<number, number>();
  for (const [index, count] of cur.counts) {
    const diff = count - (before.get(index) ?? 0);
    if (diff < 0) return null;
    if (diff > 0) counts.set(index, diff);
    before.delete(index);
  }
  // A bucket that held counts before and is gone now went down to zero.
  if ([...before.values()].some((c) => c > 0)) return null;
  const zeroCount = cur.zeroCount - prev.zeroCount;
  if (zeroCount < 0 || cur.sum < prev.sum) return null;
  return { ...cur, counts, zeroCount, count: cur.count - prev.count, sum: cur.sum - prev.sum };
}
