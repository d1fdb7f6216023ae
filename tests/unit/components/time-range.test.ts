import { describe, expect, test } from 'vitest';
import { loadHostSearchParams, serializeHostUrl } from '../../../components/host/search-params';
import {
  explainRangeOf,
  frozenRange,
  fromLocalInputValue,
  rangeParams,
  refreshMsFor,
  resolveRange,
  scaledRange,
  shiftedRange,
  toLocalInputValue,
  toTimeRange,
  zoomSelection,
} from '../../../components/host/time-range';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 7, 500);
const HOUR = 3_600_000;

describe('the URL range', () => {
  test('both ends in order pin it; one end, reversed ends or a span past 400 days fall back to the preset', () => {
    const from = new Date(NOW - HOUR);
    const to = new Date(NOW);
    expect(toTimeRange({ range: '6h', from, to })).toEqual({ kind: 'absolute', fromMs: NOW - HOUR, toMs: NOW });
    expect(toTimeRange({ range: '6h', from, to: null })).toEqual({ kind: 'relative', preset: '6h' });
    expect(toTimeRange({ range: '6h', from: to, to: from })).toEqual({ kind: 'relative', preset: '6h' });
    expect(toTimeRange({ range: '1h', from: new Date(0), to })).toEqual({ kind: 'relative', preset: '1h' });
  });

  test('a relative range ends at now rounded up to 10 s: what just happened is in it, and charts polled together ask alike', () => {
    expect(resolveRange({ kind: 'relative', preset: '15m' }, NOW)).toEqual({ fromMs: Date.UTC(2026, 11, 1, 11, 45, 10), toMs: Date.UTC(2026, 11, 1, 12, 0, 10) });
    expect(rangeParams({ kind: 'relative', preset: '1h' }, NOW, 7 * 24 * HOUR)).toEqual({
      from: '2026-11-24T11:00:10.000Z',
      to: '2026-11-24T12:00:10.000Z',
    });
  });

  test('a shared link pins what the sender sees and survives a round trip through the URL', async () => {
    const pinned = frozenRange({ kind: 'relative', preset: '24h' }, NOW);
    const url = serializeHostUrl('/hosts/7', { range: '24h', ...pinned, lastWeek: true, latency: ['a,b', '<b>x</b>'] });
    const params = new URL(url, 'http://x').searchParams;
    const state = await loadHostSearchParams(params);
    expect(toTimeRange(state)).toEqual({ kind: 'absolute', fromMs: pinned.from.getTime(), toMs: pinned.to.getTime() });
    expect(state.lastWeek).toBe(true);
    expect(state.latency).toEqual(['a,b', '<b>x</b>']);
  });
});

describe('zooming and moving', () => {
  const oneHour = { kind: 'absolute', fromMs: NOW - 2 * HOUR, toMs: NOW - HOUR } as const;

  test('a drag either way is a range; narrower than a minute it is a click', () => {
    expect(zoomSelection(NOW, NOW - 120_000)).toEqual({ fromMs: NOW - 120_000, toMs: NOW });
    expect(zoomSelection(NOW, NOW + 59_999)).toBeNull();
    expect(zoomSelection(Number.NaN, NOW)).toBeNull();
  });

  test('zooming out doubles the range around its middle but never past now; zooming in halves it', () => {
    expect(scaledRange(oneHour, NOW, 2)).toEqual({ fromMs: NOW - 2.5 * HOUR, toMs: NOW - 0.5 * HOUR });
    expect(scaledRange({ kind: 'absolute', fromMs: NOW - HOUR, toMs: NOW }, NOW, 2)).toEqual({ fromMs: NOW - 2 * HOUR, toMs: NOW });
    expect(scaledRange(oneHour, NOW, 0.5)).toEqual({ fromMs: NOW - 1.75 * HOUR, toMs: NOW - 1.25 * HOUR });
  });

  test('moving shifts by half the range; later stops at now', () => {
    expect(shiftedRange(oneHour, NOW, -1)).toEqual({ fromMs: NOW - 2.5 * HOUR, toMs: NOW - 1.5 * HOUR });
    expect(shiftedRange({ kind: 'absolute', fromMs: NOW - 1.2 * HOUR, toMs: NOW - 0.2 * HOUR }, NOW, 1)).toEqual({ fromMs: NOW - HOUR, toMs: NOW });
  });

  test('latency explained judges at most the last 24 h of the range', () => {
    expect(explainRangeOf({ kind: 'relative', preset: '6h' })).toEqual({ kind: 'relative', preset: '6h' });
    expect(explainRangeOf({ kind: 'relative', preset: '30d' })).toEqual({ kind: 'relative', preset: '24h' });
    expect(explainRangeOf({ kind: 'absolute', fromMs: 0, toMs: 3 * 24 * HOUR })).toEqual({ kind: 'absolute', fromMs: 2 * 24 * HOUR, toMs: 3 * 24 * HOUR });
  });

  test('live ranges poll more often the shorter they are', () => {
    expect([15 * 60_000, HOUR, 6 * HOUR, 24 * HOUR, 30 * 24 * HOUR].map(refreshMsFor)).toEqual([10_000, 10_000, 30_000, 60_000, 300_000]);
  });
});

describe('the custom range inputs', () => {
  test('read and write the viewer-zone datetime-local format, refusing days a month does not have', () => {
    const ms = new Date(2026, 1, 3, 4, 5).getTime();
    expect(toLocalInputValue(ms)).toBe('2026-02-03T04:05');
    expect(fromLocalInputValue('2026-02-03T04:05')).toBe(ms);
    expect(fromLocalInputValue('2026-02-30T04:05')).toBeNull();
    expect(fromLocalInputValue('2026-02-03')).toBeNull();
  });
});
