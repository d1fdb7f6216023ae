import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { findingsQuerySchema } from '../../../lib/protocol/findings';
import { compareParamsSchema } from '../../../lib/protocol/read-api/compare';
import { sparklineParamsSchema } from '../../../lib/protocol/read-api/fleet';
import { hostInventoryParamsSchema } from '../../../lib/protocol/read-api/inventory';
import { latencyParamsSchema } from '../../../lib/protocol/read-api/latency';
import { READ_BUDGET, timeParamSchema } from '../../../lib/protocol/read-api/params';
import { regionCompareParamsSchema } from '../../../lib/protocol/read-api/regions';
import { hostSeriesParamsSchema } from '../../../lib/protocol/read-api/series';
import { DAY_MS, HOUR_MS } from '../../../lib/protocol/time';

const fromOf = (from: string) => z.object({ from: timeParamSchema }).safeParse({ from });

describe('a time parameter', () => {
  test.each([
    ['2026-01-31', Date.UTC(2026, 0, 31)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['2026-01-31T12:34Z', Date.UTC(2026, 0, 31, 12, 34)],
    ['2026-01-31T12:34:56Z', Date.UTC(2026, 0, 31, 12, 34, 56)],
    ['2026-01-31T12:34:56.789Z', Date.UTC(2026, 0, 31, 12, 34, 56, 789)],
    ['2026-01-31T12:34:56.7Z', Date.UTC(2026, 0, 31, 12, 34, 56, 700)],
    ['2026-01-31T12:34:56.123456Z', Date.UTC(2026, 0, 31, 12, 34, 56, 123)],
    ['2026-01-31T12:34:56+02:00', Date.UTC(2026, 0, 31, 10, 34, 56)],
    ['2026-01-31T00:30:00-01:30', Date.UTC(2026, 0, 31, 2, 0)],
    ['1769862896000', 1_769_862_896_000],
    ['0', 0],
  ])('%s is read as %d ms since the epoch', (text, ms) => {
    const parsed = fromOf(text);
    expect(parsed.success).toBe(true);
    expect(parsed.data!.from!.getTime()).toBe(ms);
  });

  test.each([
    ['-1'],
    ['yesterday'],
    ['2026-13-01'],
    ['2026-00-10'],
    ['2026-02-29'],
    ['2026-04-31'],
    ['1e12'],
    [''],
    [' 1769862896000'],
    ['12.5'],
    ['0x10'],
    ['99999999999999999'],
    ['2026-1-31'],
    ['+002026-01-31'],
    ['2026-01-31T12:34'],
    ['2026-01-31T12:34:56'],
    ['2026-01-31 12:34:56Z'],
    ['2026-01-31T24:00:00Z'],
    ['2026-01-31T12:60:00Z'],
    ['2026-01-31T12:34:60Z'],
    ['2026-01-31T12:34:56+2:00'],
    ['2026-01-31T12:34:56+24:00'],
    ['2026-01-31T12:34:56.Z'],
    ['Sat, 31 Jan 2026 12:34:56 GMT'],
  ])('%j is refused, naming the parameter', (text) => {
    const parsed = fromOf(text);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => issue.path.join('.'))).toEqual(['from']);
  });

  test('`to` is checked the same way, in every endpoint that takes a range', () => {
    const parsed = hostSeriesParamsSchema.safeParse({ metric: 'cpu_steal', from: '2026-01-31', to: '-1' });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => issue.path.join('.'))).toEqual(['to']);
  });
});

// Before, the 400-day cap held only when both ends were given: `/api/v1/compare?metric=latency_p99&latency=…&from=0`
// read every row since 1970.
describe('the read budget, one rule for every read', () => {
  const DAYS_AGO = (days: number) => String(Date.now() - days * DAY_MS);
  const issuesOf = (parsed: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
    parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message]) ?? [];

  test.each([
    ['compare', (from: string) => compareParamsSchema.safeParse({ metric: 'latency_p99', latency: 'request', from })],
    ['host series', (from: string) => hostSeriesParamsSchema.safeParse({ metric: 'cpu_steal', from })],
    ['latency', (from: string) => latencyParamsSchema.safeParse({ name: 'request', from })],
    ['region compare', (from: string) => regionCompareParamsSchema.safeParse({ from })],
    ['host inventory', (from: string) => hostInventoryParamsSchema.safeParse({ from })],
    ['findings', (from: string) => findingsQuerySchema.safeParse({ from })],
  ])('%s: a range given only its start ends now, and is held to 400 days', (_, parse) => {
    expect(issuesOf(parse('0'))).toEqual([['from', 'range must be at most 400 days (to is now when not given)']]);
    expect(issuesOf(parse(DAYS_AGO(401)))).toEqual([['from', 'range must be at most 400 days (to is now when not given)']]);
    expect(parse(DAYS_AGO(399)).success).toBe(true);
    expect(issuesOf(parse(String(Date.now() + DAY_MS)))).toEqual([['from', 'must be before to (now, when to is not given)']]);
  });

  test('compare: named hosts times the range are held to the host-days budget', () => {
    const hosts = Array.from({ length: 200 }, (_, i) => i + 1).join(',');
    const compare = (days: number) => compareParamsSchema.safeParse({ metric: 'cpu_steal', hosts, from: DAYS_AGO(days) });
    expect(compare(READ_BUDGET.maxHostDays / 200 - 1).success).toBe(true);
    expect(issuesOf(compare(READ_BUDGET.maxHostDays / 200 + 1))).toEqual([['hosts', '200 hosts over 251 days: 50200 host-days, more than 50000; narrow the range or the hosts']]);
  });

  test('compare: hosts shown times points per host are held to the points budget', () => {
    expect(compareParamsSchema.safeParse({ metric: 'cpu_steal', limit: '50', maxPoints: '2000' }).success).toBe(true);
    expect(issuesOf(compareParamsSchema.safeParse({ metric: 'cpu_steal', limit: '50', maxPoints: '5000' }))).toEqual([
      ['maxPoints', 'the answer would hold 250000 points, more than 100000: ask for fewer hosts or points'],
    ]);
  });

  test('sparklines count their hosts\' points against the same budget', () => {
    expect(sparklineParamsSchema.safeParse({ ids: '1,2,3', metric: 'steal' }).success).toBe(true);
  });
});

describe('what a read query leaves out', () => {
  test.each([
    ['host series', () => hostSeriesParamsSchema.parse({ metric: 'cpu_steal' }), HOUR_MS],
    ['latency', () => latencyParamsSchema.parse({ name: 'request' }), HOUR_MS],
    ['region compare', () => regionCompareParamsSchema.parse({}), DAY_MS],
  ])('%s: the range ends now and spans its default', (_, parse, spanMs) => {
    const before = Date.now();
    const { from, to } = parse();
    expect(to.getTime()).toBeGreaterThanOrEqual(before);
    expect(to.getTime()).toBeLessThanOrEqual(Date.now());
    expect(to.getTime() - from.getTime()).toBe(spanMs);
  });

  test('a range given only its end starts the default span before it', () => {
    const { from, to } = hostSeriesParamsSchema.parse({ metric: 'cpu_steal', to: '2026-01-31T12:00:00Z' });
    expect([from.toISOString(), to.toISOString()]).toEqual(['2026-01-31T11:00:00.000Z', '2026-01-31T12:00:00.000Z']);
  });

  test.each([
    [{ host: '7' }, { kind: 'host', hostId: 7 }],
    [{ region: 'oslo' }, { kind: 'region', region: 'oslo' }],
    [{ labels: 'model:llama,tier:gpu' }, { kind: 'labels', labels: { model: 'llama', tier: 'gpu' } }],
    [{}, { kind: 'fleet' }],
  ])('latency over %j has the scope %j', (query, scope) => {
    const parsed = latencyParamsSchema.parse({ name: 'request', ...query });
    expect(parsed.scope).toEqual(scope);
    expect(parsed).not.toHaveProperty('host');
  });
});
