import { describe, expect, test } from 'vitest';
import { sketchSchema, type SketchWire } from '../../../lib/protocol';
import {
  LatencySketch,
  SKETCH_GAMMA,
  SKETCH_MIN_VALUE_MS,
  SKETCH_RELATIVE_ACCURACY,
  keyOf,
  mergeWires,
  quantileOfWire,
  quantileRank,
  valueOfKey,
} from '../../../lib/sketch';
import { seededRandom, standardNormal } from './random';

const SAMPLES = 200_000;
const QUANTILES = [0.5, 0.9, 0.95, 0.99, 0.999];
// α plus floating-point slack at bucket boundaries; the product promise is 1%.
const BOUND = SKETCH_RELATIVE_ACCURACY + 1e-9;

const distributions: Record<string, (random: () => number) => number> = {
  'lognormal (median 20 ms, σ = 1)': (r) => Math.exp(Math.log(20) + standardNormal(r)),
  'Pareto heavy tail (xm = 5 ms, α = 1.2)': (r) => 5 / Math.pow(1 - r(), 1 / 1.2),
  'bimodal cache hit 2 ms / miss 200 ms': (r) =>
    r() < 0.8 ? Math.max(0.05, 2 + 0.3 * standardNormal(r)) : Math.max(1, 200 + 20 * standardNormal(r)),
  'exponential (mean 30 ms)': (r) => -Math.log(1 - r()) * 30,
};

function sample(name: string, seed: number, n = SAMPLES): Float64Array {
  const random = seededRandom(seed);
  const draw = distributions[name]!;
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = draw(random);
  return values;
}

function exactQuantile(sorted: Float64Array, q: number): number {
  return sorted[quantileRank(q, sorted.length) - 1]!;
}

function sketchOf(values: ArrayLike<number>): LatencySketch {
  const sketch = new LatencySketch();
  for (let i = 0; i < values.length; i++) sketch.add(values[i]!);
  return sketch;
}

describe.each(Object.keys(distributions).map((name, i) => [name, 1000 + i] as const))('%s', (name, seed) => {
  const values = sample(name, seed);
  const sorted = values.slice().sort();
  const sketch = sketchOf(values);

  test.each(QUANTILES)('p%s is within the relative accuracy of the exact sorted-array quantile', (q) => {
    const exact = exactQuantile(sorted, q);
    const estimate = sketch.quantile(q)!;
    expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(BOUND);
    expect(Math.abs(quantileOfWire(sketch.toWire(), q)! - exact) / exact).toBeLessThanOrEqual(BOUND);
  });

  test('quantile(0) is the minimum, quantile(1) the maximum, and count and sum are exact', () => {
    expect(sketch.quantile(0)).toBe(sorted[0]);
    expect(sketch.quantile(1)).toBe(sorted[sorted.length - 1]);
    expect(sketch.count).toBe(SAMPLES);
    const exactSum = values.reduce((a, b) => a + b, 0);
    expect(sketch.toWire().sum).toBeCloseTo(exactSum, 3);
  });

  test('the wire form validates against sketchSchema and round-trips unchanged', () => {
    const wire = sketch.toWire();
    expect(sketchSchema.safeParse(wire).success).toBe(true);
    expect(LatencySketch.fromWire(wire).toWire()).toEqual(wire);
  });

  test('merging shards gives the sketch of the union, key by key', () => {
    const shards = Array.from({ length: 7 }, () => new LatencySketch());
    for (let i = 0; i < values.length; i++) shards[i % 7]!.add(values[i]!);
    const union = sketch.toWire();
    const viaWires = mergeWires(shards.map((s) => s.toWire()).reverse());
    const viaMethod = new LatencySketch();
    for (const shard of shards) viaMethod.merge(shard);
    for (const merged of [viaWires, viaMethod.toWire()]) {
      expect({ ...merged, sum: 0 }).toEqual({ ...union, sum: 0 });
      expect(merged.sum).toBeCloseTo(union.sum, 3);
    }
  });
});

describe('mapping', () => {
  test('gamma follows from the relative accuracy', () => {
    expect(SKETCH_GAMMA).toBeCloseTo(1.008 / 0.992, 15);
  });

  test('every value from 1 µs to 100 000 s maps to a key whose value is within α of it', () => {
    let worst = 0;
    for (let v = 1e-5; v < 1e8; v *= 1.0007) {
      worst = Math.max(worst, Math.abs(valueOfKey(keyOf(v)) - v) / v);
    }
    expect(worst).toBeLessThanOrEqual(BOUND);
    expect(worst).toBeGreaterThan(SKETCH_RELATIVE_ACCURACY * 0.99);
  });

  test('keys are monotonic in the value and fixed: 1 ms is key 0, 10 ms key 144, 1 s key 432', () => {
    expect([keyOf(1), keyOf(10), keyOf(1000)]).toEqual([0, 144, 432]);
    expect(keyOf(1.0001)).toBe(1);
    expect(keyOf(0.5)).toBeLessThan(keyOf(0.6));
  });

  test('the quantile rank is ⌈q·count⌉ without float noise pushing exact products up a rank', () => {
    expect([quantileRank(0.07, 100), quantileRank(0.999, 200_000), quantileRank(0.5, 3), quantileRank(0, 10)]).toEqual([7, 199_800, 2, 1]);
    expect(quantileRank(0.0701, 100)).toBe(8);
  });

  test('huge keys are clamped into the int16 range', () => {
    expect(keyOf(1e300)).toBe(32767);
    expect(keyOf(1e-300)).toBe(-32768);
  });
});

describe('LatencySketch edge cases', () => {
  test('an empty sketch has no quantiles and an empty, valid wire form', () => {
    const sketch = new LatencySketch();
    expect(sketch.quantile(0.5)).toBeNull();
    expect(sketch.count).toBe(0);
    const wire = sketch.toWire();
    expect(wire).toEqual({ count: 0, sum: 0, min: 0, max: 0, zeroCount: 0, keys: [], counts: [] });
    expect(sketchSchema.safeParse(wire).success).toBe(true);
    expect(quantileOfWire(wire, 0.99)).toBeNull();
  });

  test('values at or below the minimum land in zeroCount and quantiles there return the minimum', () => {
    const sketch = sketchOf([0, SKETCH_MIN_VALUE_MS, 0, 5]);
    const wire = sketch.toWire();
    expect(wire.zeroCount).toBe(3);
    expect(wire.keys).toEqual([keyOf(5)]);
    expect(sketch.quantile(0.5)).toBe(0);
    expect(sketch.quantile(0.75)).toBe(0);
    expect(Math.abs(sketch.quantile(0.76)! - 5) / 5).toBeLessThanOrEqual(BOUND);
  });

  test('non-finite, negative and absurdly large values are refused and leave the sketch unchanged', () => {
    const sketch = new LatencySketch();
    expect([NaN, Infinity, -1, 1e13].map((v) => sketch.add(v))).toEqual([false, false, false, false]);
    expect(sketch.add(1, 0)).toBe(false);
    expect(sketch.count).toBe(0);
  });

  test('a single value is every quantile exactly (clamped into [min, max])', () => {
    const sketch = sketchOf([12.345]);
    for (const q of [0, 0.01, 0.5, 0.99, 1]) expect(sketch.quantile(q)).toBe(12.345);
  });

  test('quantiles follow the rank ⌈q·count⌉: p50 of 1..10 is the 5th value, p51 the 6th', () => {
    const sketch = sketchOf([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(Math.abs(sketch.quantile(0.5)! - 5) / 5).toBeLessThanOrEqual(BOUND);
    expect(Math.abs(sketch.quantile(0.51)! - 6) / 6).toBeLessThanOrEqual(BOUND);
  });

  test('a quantile outside [0, 1] is a programming error', () => {
    expect(() => sketchOf([1]).quantile(1.5)).toThrow(RangeError);
    expect(() => quantileOfWire(sketchOf([1]).toWire(), -0.1)).toThrow(RangeError);
  });

  test('weights stand for several observations: add(v, 10) equals ten adds', () => {
    const weighted = new LatencySketch();
    weighted.add(7, 10);
    weighted.add(70, 10);
    const repeated = sketchOf([...Array(10).fill(7), ...Array(10).fill(70)]);
    expect(weighted.toWire()).toEqual(repeated.toWire());
  });

  test('fractional weights (sample rate 0.3) are rounded once, by largest remainder, to integer counts', () => {
    const sketch = new LatencySketch();
    for (const v of [1, 2, 3, 1, 2, 3, 1, 2, 3]) sketch.add(v, 1 / 0.3);
    const wire = sketch.toWire();
    expect(wire.count).toBe(30);
    expect(wire.counts).toEqual([10, 10, 10]);
    expect(wire.sum).toBeCloseTo(18 / 0.3, 9);
    expect(sketchSchema.safeParse(wire).success).toBe(true);

    const uneven = new LatencySketch();
    for (const v of [1, 2, 4]) uneven.add(v, 1 / 0.4);
    const unevenWire = uneven.toWire();
    expect(unevenWire.count).toBe(8);
    expect(unevenWire.counts.reduce((a, b) => a + b)).toBe(8);
    expect(unevenWire.counts.every((c) => c === 2 || c === 3)).toBe(true);
  });

  test('the bucket array grows both ways without losing counts', () => {
    const values = [1, 0.001, 1e6, 1e-5, 1e11, 3];
    const wire = sketchOf(values).toWire();
    expect(wire.keys).toEqual(values.map(keyOf).sort((a, b) => a - b));
    expect(wire.counts).toEqual([1, 1, 1, 1, 1, 1]);
  });

  test('merging wires whose keys span more than 4096 buckets folds the lowest ones and keeps the count', () => {
    const wide: SketchWire = {
      count: 5000,
      sum: 1,
      // Keys two apart from -8000: values from 1e-56 to 8e13 ms, within what a report may carry (10^18).
      min: valueOfKey(-8000),
      max: valueOfKey(5000 * 2 - 8000),
      zeroCount: 0,
      keys: Array.from({ length: 5000 }, (_, i) => i * 2 - 8000),
      counts: Array(5000).fill(1),
    };
    const merged = mergeWires([wide]);
    expect(merged.keys).toHaveLength(4096);
    expect(merged.count).toBe(5000);
    expect(merged.counts[0]).toBe(5000 - 4096 + 1);
    expect(sketchSchema.safeParse(merged).success).toBe(true);
  });

  test('merging an empty sketch or wire changes nothing', () => {
    const sketch = sketchOf([1, 2, 3]);
    const before = sketch.toWire();
    sketch.merge(new LatencySketch());
    sketch.merge(new LatencySketch().toWire());
    expect(sketch.toWire()).toEqual(before);
  });
});
