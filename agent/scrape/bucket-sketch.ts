import type { SketchWire } from '../../lib/protocol';
import { SKETCH_MAX_VALUE_MS, SKETCH_MIN_VALUE_MS, SKETCH_RELATIVE_ACCURACY, keyOf } from '../../lib/sketch';

/** One bucket of a server's histogram in ms: values in (lowerMs, upperMs], upperMs Infinity for `le="+Inf"`. */
export interface PlacedBucket {
  lowerMs: number;
  upperMs: number;
  count: number;
}

/**
 * Where a bucket's count is placed and how far that may be from each value it stands for, as a fraction of the
 * placed value (0.41: every true value lies within ±41 % of it); null when the bucket has no upper bound.
 *
 * (lo, hi] with lo > 0 goes to the geometric midpoint √(lo·hi), within ±(√(hi/lo) − 1); the lowest bucket (0, hi]
 * goes to hi/2, within ±100 %; the top bucket (lo, +Inf) goes to lo and bounds nothing above (the true values are
 * higher). Buckets ending at or below 0 hold zeros.
 */
export function placement(lowerMs: number, upperMs: number): { valueMs: number; error: number | null } {
  if (upperMs <= 0) return { valueMs: 0, error: 0 };
  if (upperMs === Infinity) return { valueMs: Math.max(lowerMs, 0), error: null };
  if (lowerMs <= 0) return { valueMs: upperMs / 2, error: 1 };
  return { valueMs: Math.sqrt(lowerMs * upperMs), error: Math.sqrt(upperMs / lowerMs) - 1 };
}

/** A bucket's error once its placed value is also rounded to the sketch's key: within α of the placed value. */
export function keyError(bucketError: number | null): number | null {
  if (bucketError === null) return null;
  const alpha = SKETCH_RELATIVE_ACCURACY;
  return (bucketError + alpha) / (1 - alpha);
}

export interface BucketSketch {
  sketch: SketchWire;
  /** For each sketch key, the relative error of the value it stands for; null for the open top bucket. */
  bucketErrors: (number | null)[];
}

/**
 * Turns one interval's per-bucket counts (not cumulative) into a latency sketch with each key's error. `sumMs` is the
 * server's own sum over the interval, so the mean stays exact. Null when the interval saw nothing.
 */
export function bucketSketch(buckets: readonly PlacedBucket[], sumMs: number): BucketSketch | null {
  let zeroCount = 0;
  let count = 0;
  let minMs = Infinity;
  let maxMs = -Infinity;
  const byKey = new Map<number, { count: number; error: number | null }>();
  for (const bucket of buckets) {
    if (bucket.count <= 0) continue;
    const { valueMs, error } = placement(bucket.lowerMs, bucket.upperMs);
    const placed = Math.min(valueMs, SKETCH_MAX_VALUE_MS);
    count += bucket.count;
    minMs = Math.min(minMs, placed);
    maxMs = Math.max(maxMs, placed);
    if (placed <= SKETCH_MIN_VALUE_MS) {
      zeroCount += bucket.count;
      continue;
    }
    const key = keyOf(placed);
    const entry = byKey.get(key);
    const err = keyError(error);
    if (!entry) byKey.set(key, { count: bucket.count, error: err });
    // Two server buckets narrower than a sketch key share it: the wider error stands for both.
    else byKey.set(key, { count: entry.count + bucket.count, error: entry.error === null || err === null ? null : Math.max(entry.error, err) });
  }
  if (count === 0) return null;
  const keys = [...byKey.keys()].sort((a, b) => a - b);
  return {
    sketch: {
      count,
      sum: Math.max(0, sumMs),
      min: minMs,
      max: maxMs,
      zeroCount,
      keys,
      counts: keys.map((k) => byKey.get(k)!.count),
    },
    bucketErrors: keys.map((k) => byKey.get(k)!.error),
  };
}
