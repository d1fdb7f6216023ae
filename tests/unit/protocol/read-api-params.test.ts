import { describe, expect, test } from 'vitest';
import { latencyParamsSchema } from '../../../lib/protocol/read-api/latency';
import { regionCompareParamsSchema } from '../../../lib/protocol/read-api/regions';
import { hostSeriesParamsSchema } from '../../../lib/protocol/read-api/series';
import { DAY_MS, HOUR_MS } from '../../../lib/protocol/time';

const fromOf = (from: string) => regionCompareParamsSchema.safeParse({ from });

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
