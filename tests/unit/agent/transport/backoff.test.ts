import { expect, test } from 'vitest';
import { backoffDelayMs, parseRetryAfterMs } from '../../../../agent/transport/backoff';

test('backoff doubles from 1 s and caps at 60 s, scaled by the jitter draw', () => {
  const settings = { initialMs: 1000, maxMs: 60_000 };
  expect([1, 2, 3, 7, 8, 30].map((n) => backoffDelayMs(n, settings, () => 1))).toEqual([1000, 2000, 4000, 60_000, 60_000, 60_000]);
  expect(backoffDelayMs(3, settings, () => 0.5)).toBe(2000);
  expect(backoffDelayMs(3, settings, () => 0)).toBe(0);
});

test('Retry-After is read as seconds or as an HTTP date', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  expect(parseRetryAfterMs('7', now)).toBe(7000);
  expect(parseRetryAfterMs('Sun, 29 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
  expect(parseRetryAfterMs('Sun, 29 Nov 2026 11:00:00 GMT', now)).toBe(0);
  expect(parseRetryAfterMs(null, now)).toBeUndefined();
  expect(parseRetryAfterMs('soon', now)).toBeUndefined();
});
