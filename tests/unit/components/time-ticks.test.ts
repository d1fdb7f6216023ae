import { describe, expect, test } from 'vitest';
import { timeTicks } from '../../../components/charts/time-ticks';

const HOUR = 3_600_000;

// Node re-reads TZ whenever it is assigned, so Date's local fields (what d3-time rounds by) follow it in this process.
function inZone<T>(timeZone: string, read: () => T): T {
  const before = process.env.TZ;
  process.env.TZ = timeZone;
  try {
    return read();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

describe('time ticks in the viewer’s zone', () => {
  test('day ticks fall at local midnight in New York, before and after the change to daylight time on 8 March', () => {
    const from = Date.UTC(2026, 2, 5, 17); // 5 March, 12:00 EST
    const to = Date.UTC(2026, 2, 11, 16); // 11 March, 12:00 EDT
    const ticks = inZone('America/New_York', () => timeTicks(from, to));
    expect(ticks).toEqual([
      Date.UTC(2026, 2, 6, 5),
      Date.UTC(2026, 2, 7, 5),
      Date.UTC(2026, 2, 8, 5),
      Date.UTC(2026, 2, 9, 4),
      Date.UTC(2026, 2, 10, 4),
      Date.UTC(2026, 2, 11, 4),
    ]);
  });

  test('three-hour ticks stay on local hours divisible by three in New York across the skipped 02:00', () => {
    const from = Date.UTC(2026, 2, 7, 23); // 7 March, 18:00 EST
    const to = Date.UTC(2026, 2, 8, 22); // 8 March, 18:00 EDT
    const ticks = inZone('America/New_York', () => timeTicks(from, to));
    expect(ticks).toEqual([Date.UTC(2026, 2, 7, 23), ...[2, 5, 7, 10, 13, 16, 19, 22].map((h) => Date.UTC(2026, 2, 8, h))]);
    expect(inZone('America/New_York', () => ticks.map((t) => new Date(t).getHours()))).toEqual([18, 21, 0, 3, 6, 9, 12, 15, 18]);
  });

  test('hour ticks fall on the local hour in India, half past the hour in UTC', () => {
    const from = Date.UTC(2026, 2, 8, 0, 10); // 05:40 IST
    const ticks = inZone('Asia/Kolkata', () => timeTicks(from, from + 6 * HOUR));
    expect(ticks).toEqual([0, 1, 2, 3, 4, 5].map((h) => Date.UTC(2026, 2, 8, h, 30)));
  });

  test('day ticks fall at local midnight in India', () => {
    const ticks = inZone('Asia/Kolkata', () => timeTicks(Date.UTC(2026, 10, 1), Date.UTC(2026, 10, 6)));
    expect(ticks).toEqual([1, 2, 3, 4, 5].map((d) => Date.UTC(2026, 10, d, 18, 30)));
  });

  test('an empty or reversed range has no ticks', () => {
    expect(timeTicks(5, 5)).toEqual([]);
    expect(timeTicks(10, 5)).toEqual([]);
  });
});
