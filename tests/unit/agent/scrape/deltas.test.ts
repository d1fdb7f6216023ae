import { describe, expect, test } from 'vitest';
import { counterDelta, histogramDelta, type HistogramReading } from '../../../../agent/scrape/deltas';

const BOUNDS = [0.5, 1, Infinity];
const reading = (cumulative: number[], sum: number, created: number | null = 100): HistogramReading => ({ bounds: BOUNDS, cumulative, sum, created });

describe('histogramDelta', () => {
  test('between two readings of one process: the per-bucket counts and the sum observed in between', () => {
    expect(histogramDelta(reading([1, 3, 4], 5), reading([2, 6, 8], 9.5))).toEqual({ kind: 'delta', perBucket: [1, 2, 1], count: 4, sum: 4.5 });
  });

  test('a series that began since the previous scrape counts whole', () => {
    expect(histogramDelta(undefined, reading([1, 1, 2], 3))).toEqual({ kind: 'delta', perBucket: [1, 0, 1], count: 2, sum: 3 });
  });

  test('a count that went down is a restart: the new reading is what happened, never a negative count', () => {
    expect(histogramDelta(reading([5, 9, 10], 20), reading([1, 2, 2], 1.2))).toEqual({ kind: 'reset', perBucket: [1, 1, 0], count: 2, sum: 1.2 });
  });

  test('a restart that already counted past the old totals is caught by _created, so nothing is counted twice', () => {
    const before = reading([1, 2, 2], 1.5, 100);
    const after = reading([3, 5, 6], 6, 200);
    expect(histogramDelta(before, after)).toEqual({ kind: 'reset', perBucket: [3, 2, 1], count: 6, sum: 6 });
  });

  test('the same growth without _created, but with the target restarted (process start time), is a restart too', () => {
    expect(histogramDelta(reading([1, 2, 2], 1.5, null), reading([3, 5, 6], 6, null), true).kind).toBe('reset');
    expect(histogramDelta(reading([1, 2, 2], 1.5, null), reading([3, 5, 6], 6, null), false).kind).toBe('delta');
  });

  test('a new bucket layout means a new server version: a restart', () => {
    const other: HistogramReading = { bounds: [0.25, 1, Infinity], cumulative: [1, 3, 4], sum: 9, created: 100 };
    expect(histogramDelta(reading([1, 2, 3], 2), other).kind).toBe('reset');
  });

  test('a torn read (one bucket fell while the total rose) reports nothing and waits for the next reading', () => {
    expect(histogramDelta(reading([1, 3, 4], 5), reading([3, 3, 5], 6))).toEqual({ kind: 'inconsistent' });
  });
});

describe('counterDelta', () => {
  test('grows by the difference, restarts take the new value, a new series counts whole', () => {
    expect(counterDelta({ value: 10, created: null }, { value: 14, created: null })).toBe(4);
    expect(counterDelta({ value: 10, created: null }, { value: 3, created: null })).toBe(3);
    expect(counterDelta({ value: 10, created: 1 }, { value: 12, created: 2 })).toBe(12);
    expect(counterDelta({ value: 10, created: null }, { value: 12, created: null }, true)).toBe(12);
    expect(counterDelta(undefined, { value: 7, created: null })).toBe(7);
  });
});
