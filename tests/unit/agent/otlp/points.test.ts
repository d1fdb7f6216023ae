import { describe, expect, test } from 'vitest';
import { PointError, exponentialDelta, readExplicitPoint, readExponentialPoint, type ExponentialReading } from '../../../../agent/otlp/points';
import type { OtlpExponentialPoint, OtlpHistogramPoint } from '../../../../agent/otlp/wire';

const explicit = (over: Partial<OtlpHistogramPoint>): OtlpHistogramPoint => ({
  attributes: [], startTimeUnixNano: 1, timeUnixNano: 2, count: 3, sum: 1.5, bucketCounts: [1, 1, 1], explicitBounds: [0.1, 1], ...over,
});
const exponential = (over: Partial<OtlpExponentialPoint>): OtlpExponentialPoint => ({
  attributes: [], startTimeUnixNano: 1, timeUnixNano: 2, count: 3, sum: 6, scale: 0, zeroCount: 1, zeroThreshold: 0, positive: { offset: 1, bucketCounts: [2] }, ...over,
});

describe('readExplicitPoint', () => {
  test('a well-formed point becomes a cumulative reading with an open top bucket', () => {
    expect(readExplicitPoint(explicit({}))).toEqual({ bounds: [0.1, 1, Infinity], cumulative: [1, 2, 3], sum: 1.5, created: 1 });
  });

  test.each([
    ['one count too few', { bucketCounts: [1, 2] }, /2 bucket counts for 2 bounds/],
    ['bounds out of order', { explicitBounds: [1, 0.1] }, /must increase/],
    ['a count that is not whole', { bucketCounts: [1, 0.5, 1.5] }, /not a whole number/],
    ['counts that do not add up', { count: 4 }, /add up to 3, not the point's count 4/],
    ['no sum', { sum: undefined }, /no sum/],
    ['a negative sum', { sum: -1 }, /not a finite number ≥ 0/],
    ['a bound that is not a number', { explicitBounds: [Number.NaN, 1] }, /not a finite number/],
  ])('refuses %s', (_, over, message) => {
    expect(() => readExplicitPoint(explicit(over))).toThrow(PointError);
    expect(() => readExplicitPoint(explicit(over))).toThrow(message);
  });
});

describe('readExponentialPoint', () => {
  test('a well-formed point keeps its non-empty buckets by index', () => {
    expect(readExponentialPoint(exponential({}))).toMatchObject({ scale: 0, counts: new Map([[1, 2]]), zeroCount: 1, count: 3, sum: 6 });
  });

  test.each([
    ['negative durations', { negative: { offset: 0, bucketCounts: [1] } }, /negative durations/],
    ['a scale past 20', { scale: 21 }, /scale 21 is outside/],
    ['counts that do not add up', { count: 9 }, /add up to 3/],
    ['a negative zero threshold', { zeroThreshold: -1 }, /zero threshold/],
  ])('refuses %s', (_, over, message) => {
    expect(() => readExponentialPoint(exponential(over))).toThrow(message);
  });

  test('empty negative buckets are no negative durations', () => {
    expect(readExponentialPoint(exponential({ negative: { offset: 0, bucketCounts: [0, 0] } })).count).toBe(3);
  });
});

describe('exponentialDelta', () => {
  const reading = (scale: number, counts: [number, number][], over: Partial<ExponentialReading> = {}): ExponentialReading => {
    const map = new Map(counts);
    const count = [...map.values()].reduce((a, b) => a + b, 0);
    return { scale, counts: map, zeroCount: 0, zeroThreshold: 0, count, sum: count, created: 7, ...over };
  };

  test('subtracts bucket by bucket at the same scale', () => {
    const delta = exponentialDelta(reading(2, [[4, 3], [5, 1]]), reading(2, [[4, 5], [5, 1], [9, 2]]))!;
    expect([...delta.counts]).toEqual([[4, 2], [9, 2]]);
    expect(delta.count).toBe(4);
  });

  test('a lowered scale merges the older buckets exactly before subtracting (negative indexes floor)', () => {
    // At scale 2 → 1, index i goes to ⌊i/2⌋: 4,5 → 2; −3 → −2.
    const delta = exponentialDelta(reading(2, [[4, 3], [5, 1], [-3, 2]]), reading(1, [[2, 6], [-2, 2], [3, 1]]))!;
    expect([...delta.counts]).toEqual([[2, 2], [3, 1]]);
  });

  test('a new start time, a raised scale or counts that went down mean a restart: null', () => {
    expect(exponentialDelta(reading(2, [[4, 3]]), reading(2, [[4, 3]], { created: 8 }))).toBeNull();
    expect(exponentialDelta(reading(1, [[4, 3]]), reading(2, [[8, 3]]))).toBeNull();
    expect(exponentialDelta(reading(2, [[4, 3]]), reading(2, [[4, 2]]))).toBeNull();
    expect(exponentialDelta(reading(2, [[4, 3]]), reading(2, [[5, 3]]))).toBeNull();
  });
});
