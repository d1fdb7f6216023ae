import { describe, expect, test } from 'vitest';
import { formatAge, formatDuration, formatElapsed, formatWait } from '../../../lib/protocol/duration';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;

describe('formatDuration: a configured span in the largest unit that divides it', () => {
  test.each([
    [0, '0 s'],
    [10 * S, '10 s'],
    [90 * S, '90 s'],
    [150 * S, '150 s'],
    [MIN, '1 min'],
    [90 * MIN, '90 min'],
    [H, '1 h'],
    [36 * H, '36 h'],
    [D, '1 d'],
    [7 * D, '7 d'],
    [1499, '1 s'],
  ])('%d ms → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('formatElapsed: a measured span in its two largest units, rounded down', () => {
  test.each([
    [-5 * S, '0 s'],
    [999, '0 s'],
    [45 * S + 999, '45 s'],
    [4 * MIN + 10 * S + 500, '4 min 10 s'],
    [4 * MIN, '4 min'],
    [2 * H + 5 * MIN + 59 * S, '2 h 5 min'],
    [3 * D + 4 * H + 59 * MIN, '3 d 4 h'],
    [3 * D + 30 * S, '3 d'],
  ])('%d ms → %s', (ms, text) => expect(formatElapsed(ms)).toBe(text));
});

describe('formatAge: how long ago, in one rounded unit', () => {
  const now = new Date('2026-12-01T12:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  test.each([
    [ago(12 * S), '12 s ago'],
    [ago(-5 * S), '0 s ago'],
    [ago(59 * S), '59 s ago'],
    [ago(90 * S), '2 min ago'],
    [ago(59 * MIN), '59 min ago'],
    [ago(47 * H), '47 h ago'],
    [ago(48 * H), '2 d ago'],
  ])('%s → %s', (iso, text) => expect(formatAge(iso, now)).toBe(text));

  test('a time never seen reads "never"', () => expect(formatAge(null, now)).toBe('never'));
});

test('a wait is rounded up, in seconds below two minutes and in minutes from there', () => {
  expect([1, 999, 1000, 1001, 40_000, 119_000, 119_001, 120_000, 900_000].map(formatWait)).toEqual(['1 s', '1 s', '1 s', '2 s', '40 s', '119 s', '2 min', '2 min', '15 min']);
});
