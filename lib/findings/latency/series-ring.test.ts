import { describe, expect, test } from 'vitest';
import { SeriesRing } from './series-ring';

const MINUTE = 60_000;

describe('SeriesRing', () => {
  test('keeps the newest buckets, each write replacing the one that fell out of range', () => {
    const ring = new SeriesRing(MINUTE, 3);
    for (let m = 0; m < 5; m++) ring.set(m * MINUTE, 10 + m, 100);
    expect(ring.within(0, 5 * MINUTE).map((b) => b.t / MINUTE)).toEqual([2, 3, 4]);
    expect(ring.summary(0, 5 * MINUTE)).toEqual({ p99Ms: 13, buckets: 3, count: 300 });
  });

  test('summary is the median of the range\'s bucket p99s, skipping buckets without requests', () => {
    const ring = new SeriesRing(MINUTE, 15);
    [40, 10, 30, 20].forEach((p99, m) => ring.set(m * MINUTE, p99, 50));
    ring.set(4 * MINUTE, null, 0);
    expect(ring.summary(0, 15 * MINUTE)).toEqual({ p99Ms: 25, buckets: 4, count: 200 });
    expect(ring.summary(MINUTE, 3 * MINUTE)).toEqual({ p99Ms: 20, buckets: 2, count: 100 });
    expect(ring.summary(10 * MINUTE, 15 * MINUTE)).toEqual({ p99Ms: null, buckets: 0, count: 0 });
  });
});
