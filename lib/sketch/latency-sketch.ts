import type { SketchWire } from '../protocol';
import {
  SKETCH_MAX_BUCKETS,
  SKETCH_MAX_VALUE_MS,
  SKETCH_MIN_VALUE_MS,
  keyOf,
  quantileRank,
  valueOfKey,
} from './mapping';

const INITIAL_BINS = 256;

/**
 * A mergeable latency histogram with relative-error quantiles (DDSketch-style, see ./mapping).
 *
 * Weights may be fractional (a StatsD sample rate of 0.3 weighs 3.33…): they are kept exact inside the sketch and
 * rounded once in `toWire()` by largest remainder, so the wire count is round(Σ weights) and every bucket is off by
 * less than 1. `sum` is Σ value·weight with the exact weights.
 */
export class LatencySketch {
  private bins = new Float64Array(0);
  /** Key of bins[0]. */
  private offset = 0;
  private zeroWeight = 0;
  private totalWeight = 0;
  private sumMs = 0;
  private minMs = Infinity;
  private maxMs = -Infinity;
  private fractional = false;

  /** Adds a value with a weight. Values that are not finite, negative or above SKETCH_MAX_VALUE_MS are ignored. */
  add(valueMs: number, count = 1): boolean {
    if (!(valueMs >= 0 && valueMs <= SKETCH_MAX_VALUE_MS && count > 0 && count < Infinity)) return false;
    if (valueMs <= SKETCH_MIN_VALUE_MS) this.zeroWeight += count;
    else this.addToBin(keyOf(valueMs), count);
    if (!Number.isInteger(count)) this.fractional = true;
    this.totalWeight += count;
    this.sumMs += valueMs * count;
    if (valueMs < this.minMs) this.minMs = valueMs;
    if (valueMs > this.maxMs) this.maxMs = valueMs;
    return true;
  }

  merge(other: LatencySketch | SketchWire): void {
    if (other instanceof LatencySketch) {
      if (other.totalWeight === 0) return;
      other.forEachBucket((key, weight) => this.addToBin(key, weight));
      this.absorbSummary(other.zeroWeight, other.totalWeight, other.sumMs, other.minMs, other.maxMs);
      this.fractional ||= other.fractional;
      return;
    }
    if (other.count === 0) return;
    for (let i = 0; i < other.keys.length; i++) {
      this.addToBin(other.keys[i]!, other.counts[i]!);
    }
    this.absorbSummary(other.zeroCount, other.count, other.sum, other.min, other.max);
  }

  /** The value at rank ⌈q·count⌉ (see quantileRank), clamped into [min, max]; null when empty. */
  quantile(q: number): number | null {
    assertQuantile(q);
    if (this.totalWeight === 0) return null;
    if (q === 0) return this.minMs;
    if (q === 1) return this.maxMs;
    const rank = quantileRank(q, this.count) - 1e-9;
    let seen = this.zeroWeight;
    if (seen >= rank) return this.minMs;
    for (let i = 0; i < this.bins.length; i++) {
      seen += this.bins[i]!;
      if (seen >= rank) return clamp(valueOfKey(this.offset + i), this.minMs, this.maxMs);
    }
    return this.maxMs;
  }

  get count(): number {
    return Math.round(this.totalWeight);
  }

  toWire(): SketchWire {
    const keys: number[] = [];
    const weights: number[] = [];
    this.forEachBucket((key, weight) => {
      keys.push(key);
      weights.push(weight);
    });
    const target = this.count;
    const rounded = this.fractional ? roundLargestRemainder([this.zeroWeight, ...weights], target) : [this.zeroWeight, ...weights];
    const zeroCount = rounded[0]!;
    const outKeys: number[] = [];
    const outCounts: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const c = rounded[i + 1]!;
      if (c > 0) {
        outKeys.push(keys[i]!);
        outCounts.push(c);
      }
    }
    collapseLowest(outKeys, outCounts);
    const count = outCounts.reduce((a, b) => a + b, zeroCount);
    if (count === 0) return { count: 0, sum: 0, min: 0, max: 0, zeroCount: 0, keys: [], counts: [] };
    return { count, sum: this.sumMs, min: this.minMs, max: this.maxMs, zeroCount, keys: outKeys, counts: outCounts };
  }

  static fromWire(wire: SketchWire): LatencySketch {
    const sketch = new LatencySketch();
    sketch.merge(wire);
    return sketch;
  }

  private absorbSummary(zeroWeight: number, totalWeight: number, sumMs: number, minMs: number, maxMs: number): void {
    this.zeroWeight += zeroWeight;
    this.totalWeight += totalWeight;
    this.sumMs += sumMs;
    if (minMs < this.minMs) this.minMs = minMs;
    if (maxMs > this.maxMs) this.maxMs = maxMs;
  }

  private forEachBucket(visit: (key: number, weight: number) => void): void {
    for (let i = 0; i < this.bins.length; i++) {
      const weight = this.bins[i]!;
      if (weight > 0) visit(this.offset + i, weight);
    }
  }

  private addToBin(key: number, weight: number): void {
    // indexFor may replace this.bins, so it must run before this.bins is read.
    const index = this.indexFor(key);
    this.bins[index]! += weight;
  }

  /** Index of `key` in bins, growing the array (doubling, so adds stay O(1) amortized) when it falls outside. */
  private indexFor(key: number): number {
    const index = key - this.offset;
    if (index >= 0 && index < this.bins.length) return index;
    if (this.bins.length === 0) {
      this.bins = new Float64Array(INITIAL_BINS);
      this.offset = key - INITIAL_BINS / 2;
      return INITIAL_BINS / 2;
    }
    const low = Math.min(key, this.offset);
    const high = Math.max(key, this.offset + this.bins.length - 1);
    const size = Math.max(this.bins.length * 2, high - low + 1);
    const grown = new Float64Array(size);
    const newOffset = key < this.offset ? high - size + 1 : low;
    grown.set(this.bins, this.offset - newOffset);
    this.bins = grown;
    this.offset = newOffset;
    return key - newOffset;
  }
}

/** Merges wire sketches by summing counts key by key — the same operation the server does in SQL. */
export function mergeWires(wires: readonly SketchWire[]): SketchWire {
  const merged = new LatencySketch();
  for (const wire of wires) merged.merge(wire);
  return merged.toWire();
}

/** The q-quantile of a wire sketch, with the same definition as LatencySketch.quantile. */
export function quantileOfWire(wire: SketchWire, q: number): number | null {
  assertQuantile(q);
  if (wire.count === 0) return null;
  if (q === 0) return wire.min;
  if (q === 1) return wire.max;
  const rank = quantileRank(q, wire.count);
  let seen = wire.zeroCount;
  if (seen >= rank) return wire.min;
  for (let i = 0; i < wire.keys.length; i++) {
    seen += wire.counts[i]!;
    if (seen >= rank) return clamp(valueOfKey(wire.keys[i]!), wire.min, wire.max);
  }
  return wire.max;
}

/**
 * Which key holds the q-quantile of a wire sketch, by the walk quantileOfWire makes: an index into `keys`, -1 for
 * `zeroCount`, null when the sketch is empty.
 */
export function quantileKeyIndex(wire: SketchWire, q: number): number | null {
  assertQuantile(q);
  if (wire.count === 0) return null;
  const rank = quantileRank(q, wire.count);
  let seen = wire.zeroCount;
  if (seen >= rank && q < 1) return -1;
  for (let i = 0; i < wire.keys.length; i++) {
    seen += wire.counts[i]!;
    if (seen >= rank) return i;
  }
  return wire.keys.length - 1;
}

function assertQuantile(q: number): void {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be within [0, 1], got ${q}`);
}

function clamp(value: number, low: number, high: number): number {
  return value < low ? low : value > high ? high : value;
}

/** Integers that sum to `target` with each within 1 of its weight (Hamilton's method). */
function roundLargestRemainder(weights: readonly number[], target: number): number[] {
  const floors = weights.map(Math.floor);
  let missing = target - floors.reduce((a, b) => a + b, 0);
  const byRemainder = weights.map((w, i) => i).sort((a, b) => weights[b]! - floors[b]! - (weights[a]! - floors[a]!));
  for (const i of byRemainder) {
    if (missing <= 0) break;
    if (weights[i]! - floors[i]! > 0) {
      floors[i]! += 1;
      missing--;
    }
  }
  return floors;
}

/** Folds the lowest buckets into the first kept one so the wire stays within sketchSchema's bucket limit. */
function collapseLowest(keys: number[], counts: number[]): void {
  const excess = keys.length - SKETCH_MAX_BUCKETS;
  if (excess <= 0) return;
  let folded = 0;
  for (let i = 0; i < excess; i++) folded += counts[i]!;
  keys.splice(0, excess);
  counts.splice(0, excess);
  counts[0]! += folded;
}
