import { describe, expect, test } from 'vitest';
import { bucketStarts, formatTick, gridStepMs, nearestTickIndex } from '../../../components/charts/time-axis';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('time axis', () => {
  test('labels say the time within a day, the weekday over a few days, the date beyond', () => {
    const t = Date.UTC(2026, 11, 1, 14, 5, 9);
    expect(formatTick(t, HOUR, 'UTC')).toBe(new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(t));
    expect(formatTick(t, 10 * 60_000, 'UTC')).toContain('09');
    expect(formatTick(t, 2 * DAY, 'UTC')).toMatch(/Tue/);
    expect(formatTick(t, 30 * DAY, 'UTC')).toMatch(/Dec/);
  });

  test('the crosshair snaps to the nearest tick of the receiving chart, or none without a time', () => {
    const ticks = [0, 60_000, 120_000].map((value, index) => ({ value, index, coordinate: index * 10 }));
    expect(nearestTickIndex(ticks, '70000')).toBe(1);
    expect(nearestTickIndex(ticks, 119_000)).toBe(2);
    expect(nearestTickIndex(ticks, undefined)).toBe(-1);
    expect(nearestTickIndex([], 5)).toBe(-1);
  });

  test('buckets start where the server bins them, covering the range', () => {
    const from = Date.UTC(2026, 11, 1, 10, 0, 25);
    expect(bucketStarts(from, from + 60_000, 30_000)).toEqual([from - 25_000, from + 5_000, from + 35_000]);
    expect(bucketStarts(Date.UTC(2026, 11, 1, 1), Date.UTC(2026, 11, 1, 9), 2 * HOUR)).toEqual([0, 2, 4, 6, 8].map((h) => Date.UTC(2026, 11, 1, h)));
    expect(bucketStarts(0, 1000, 0)).toEqual([]);
  });
});

describe('grid step', () => {
  test('the bucket, or its multiple nearest the points’ typical spacing when they are sparser', () => {
    const every = (stepMs: number, n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i * stepMs);
    expect(gridStepMs([every(10_000, 30)], 10_000)).toBe(10_000);
    expect(gridStepMs([every(20_000, 30)], 10_000)).toBe(20_000);
    expect(gridStepMs([every(30_000, 10), every(30_000, 10, 5_000)], 10_000)).toBe(30_000);
    // An outage is one long gap among many short ones: it does not widen the step.
    expect(gridStepMs([[...every(10_000, 20), 3_600_000, ...every(10_000, 20, 3_610_000)]], 10_000)).toBe(10_000);
    expect(gridStepMs([[5]], 60_000)).toBe(60_000);
  });
});

describe('grid step fitted to the chart', () => {
  test('a day of minutes draws on two-minute rows, at most 720 of them; shorter ranges keep their buckets', () => {
    const day = 24 * HOUR;
    expect(gridStepMs([], 60_000, { spanMs: day, maxRows: 720 })).toBe(120_000);
    expect(gridStepMs([], 60_000, { spanMs: 6 * HOUR, maxRows: 720 })).toBe(60_000);
    expect(gridStepMs([], HOUR, { spanMs: 30 * day, maxRows: 720 })).toBe(HOUR);
  });
});
