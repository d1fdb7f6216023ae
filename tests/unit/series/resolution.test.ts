import { describe, expect, test } from 'vitest';
import { chooseResolution, coverRange, segmentsAt } from '../../../lib/series/resolution';
import { DEFAULT_RETENTION_DAYS } from '../../../lib/series/retention-config';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 29, 12, 0, 0);
const choose = (rangeMs: number, agoMs = 0, maxPoints?: number) =>
  chooseResolution({ fromMs: now - agoMs - rangeMs, toMs: now - agoMs, nowMs: now, retention: DEFAULT_RETENTION_DAYS, maxPoints });

describe('chooseResolution', () => {
  test.each([
    [HOUR, 'raw', 10_000],
    [2.5 * HOUR, 'raw', 10_000],
    [6 * HOUR, '1m', MIN],
    [16 * HOUR, '1m', MIN],
    [DAY, '1h', HOUR],
    [30 * DAY, '1h', HOUR],
    [90 * DAY, '1h', 3 * HOUR],
  ])('a range of %d ms is read at %s in %d ms buckets', (rangeMs, resolution, bucketMs) => {
    expect(choose(rangeMs)).toEqual({ resolution, bucketMs });
  });

  test('an hour ten days ago is read from 1-minute rows, raw rows being gone', () => {
    expect(choose(HOUR, 10 * DAY)).toEqual({ resolution: '1m', bucketMs: MIN });
  });

  test('a smaller point budget picks a coarser resolution', () => {
    expect(choose(HOUR, 0, 100)).toEqual({ resolution: '1m', bucketMs: MIN });
  });
});

describe('segmentsAt and coverRange', () => {
  const marks = { '1m': new Date(now - 2 * MIN), '1h': new Date(now - HOUR) };

  test('a rollup resolution reads its rollup up to the watermark, then finer levels', () => {
    expect(segmentsAt('1h', now - 5 * HOUR, now, marks)).toEqual([
      { resolution: '1h', fromMs: now - 5 * HOUR, toMs: now - HOUR },
      { resolution: '1m', fromMs: now - HOUR, toMs: now - 2 * MIN },
      { resolution: 'raw', fromMs: now - 2 * MIN, toMs: now },
    ]);
  });

  test('totals read whole hours, whole minutes around them and raw edges, covering the range once', () => {
    const from = now - 3 * HOUR - 90_500;
    const segments = coverRange(from, now - 30_000, marks);
    expect(segments.map((s) => s.resolution)).toEqual(['raw', '1m', '1h', '1m', 'raw']);
    for (let i = 1; i < segments.length; i++) expect(segments[i]!.fromMs).toBe(segments[i - 1]!.toMs);
    expect(segments[0]!.fromMs).toBe(from);
    expect(segments.at(-1)!.toMs).toBe(now - 30_000);
  });

  test('without rollups everything is raw', () => {
    expect(coverRange(now - DAY, now, {})).toEqual([{ resolution: 'raw', fromMs: now - DAY, toMs: now }]);
  });
});
