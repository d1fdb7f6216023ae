import { describe, expect, test } from 'vitest';
import {
  compareRangeOf,
  overlayHistograms,
  percentileRows,
  pickLatencySeries,
  pickRegions,
  probeRows,
  residencyRows,
  toRegionCompareQuery,
} from '../../../components/regions/region-mappers';
import { loadRegionSearchParams } from '../../../components/regions/search-params';
import type { Finding, ResidencyPolicyView } from '../../../lib/protocol/findings';
import type { LatencyQuantiles } from '../../../lib/protocol/read-api/latency';
import type { RegionComparison } from '../../../lib/protocol/read-api/regions';

const q = (p50: number, p99: number, count = 100): LatencyQuantiles => ({ count, p50, p90: p50 * 2, p95: p50 * 3, p99, p999: p99 * 2, minMs: 1, maxMs: p99 * 3, meanMs: p50 });

function region(name: string, overrides: Partial<RegionComparison> = {}): RegionComparison {
  return {
    region: name,
    hostCount: 1,
    stealPctAvg: null,
    stealPctMax: null,
    iowaitPctAvg: null,
    iowaitPctMax: null,
    latency: {},
    probes: [],
    latencyHistograms: {},
    findings: { critical: 0, warning: 0, info: 0 },
    ...overrides,
  };
}

describe('which regions and series', () => {
  const all = [region('Frankfurt', { hostCount: 3 }), region('helsinki', { hostCount: 9 }), region('Oslo', { hostCount: 2 }), region('paris', { hostCount: 5 })];

  test('Oslo vs Frankfurt by default when both exist, whatever their case', () => {
    expect(pickRegions(all, [])).toEqual(['Oslo', 'Frankfurt']);
  });

  test('otherwise the two largest; the URL wins, minus regions that do not exist', () => {
    expect(pickRegions(all.filter((r) => r.region !== 'Oslo'), [])).toEqual(['helsinki', 'paris']);
    expect(pickRegions(all, ['paris', 'gone', 'helsinki'])).toEqual(['paris', 'helsinki']);
  });

  test('the series with the most requests unless the URL names one that exists', () => {
    const regions = [region('a', { latency: { request: q(1, 2, 50), embed: q(1, 2, 10) } }), region('b', { latency: { embed: q(1, 2, 100) } })];
    expect(pickLatencySeries(regions, null)).toBe('embed');
    expect(pickLatencySeries(regions, 'request')).toBe('request');
    expect(pickLatencySeries(regions, 'nope')).toBe('embed');
    expect(pickLatencySeries([region('a')], null)).toBeNull();
  });
});

describe('range', () => {
  test('a link with both ends pins them; otherwise the range slides back from now', async () => {
    const pinned = await loadRegionSearchParams(new URL('http://x/regions?from=2026-12-01T08:00:00.000Z&to=2026-12-01T09:00:00.000Z&range=7d'));
    expect(toRegionCompareQuery(pinned)).toEqual({ kind: 'absolute', from: '2026-12-01T08:00:00.000Z', to: '2026-12-01T09:00:00.000Z' });
    const backwards = await loadRegionSearchParams(new URL('http://x/regions?from=2026-12-01T09:00:00.000Z&to=2026-12-01T08:00:00.000Z'));
    expect(toRegionCompareQuery(backwards)).toEqual({ kind: 'relative', range: '24h' });
    expect(compareRangeOf({ kind: 'relative', range: '1h' }, Date.parse('2026-12-01T10:00:00Z'))).toEqual({
      from: '2026-12-01T09:00:00.000Z',
      to: '2026-12-01T10:00:00.000Z',
    });
  });
});

describe('overlaid distributions', () => {
  test('each region becomes a share of its own requests in bins shared by all', () => {
    const small = { count: 10, zeroCount: 0, buckets: [{ lowerMs: 1, upperMs: 1.016, count: 10 }] };
    const big = { count: 1000, zeroCount: 0, buckets: [{ lowerMs: 1, upperMs: 1.016, count: 500 }, { lowerMs: 99, upperMs: 100, count: 500 }] };
    const rows = overlayHistograms([small, big], 10);
    expect(rows).toHaveLength(10);
    expect(rows[0]!.lowerMs).toBeCloseTo(1);
    expect(rows[9]!.upperMs).toBeCloseTo(100);
    expect(rows[0]).toMatchObject({ s0: 100, s1: 50 });
    expect(rows[9]).toMatchObject({ s0: 0, s1: 50 });
    for (const s of ['s0', 's1'] as const) expect(rows.reduce((sum, row) => sum + row[s]!, 0)).toBeCloseTo(100);
  });

  test('a region without requests is all zeros; nothing at all gives no rows', () => {
    const one = { count: 4, zeroCount: 1, buckets: [{ lowerMs: 2, upperMs: 2.03, count: 3 }] };
    const rows = overlayHistograms([one, undefined], 5);
    expect(rows.every((row) => row.s1 === 0)).toBe(true);
    expect(rows.reduce((sum, row) => sum + row.s0!, 0)).toBeCloseTo(100);
    expect(overlayHistograms([undefined, { count: 0, zeroCount: 0, buckets: [] }])).toEqual([]);
  });
});

describe('tables', () => {
  test('percentiles with the difference to the first region', () => {
    const rows = percentileRows([region('oslo', { latency: { r: q(10, 40) } }), region('fra', { latency: { r: q(15, 30) } }), region('x')], 'r');
    const p99 = rows.find((row) => row.label === 'p99')!;
    expect(p99.cells).toEqual([
      { valueMs: 40, deltaMs: null, deltaPct: null },
      { valueMs: 30, deltaMs: -10, deltaPct: -25 },
      { valueMs: null, deltaMs: null, deltaPct: null },
    ]);
    expect(rows.map((row) => row.label)).toEqual(['p50', 'p90', 'p95', 'p99', 'p99.9']);
  });

  test('probes by target, with a gap where a region did not probe it', () => {
    const probe = (name: string, connect: number) => ({ name, samples: 5, okRatio: 1, connectMsAvg: connect, connectMsMax: connect, responseMsAvg: connect * 2, responseMsMax: connect * 2 });
    const rows = probeRows([region('oslo', { probes: [probe('users-no', 3)] }), region('fra', { probes: [probe('users-no', 25), probe('users-de', 4)] })]);
    expect(rows.map((row) => row.name)).toEqual(['users-de', 'users-no']);
    expect(rows[0]!.cells[0]).toBeNull();
    expect(rows[1]!.cells.map((c) => c?.connectMsAvg)).toEqual([3, 25]);
  });

  test('residency: violations of each policy per region, from open region.residency findings', () => {
    const policy: ResidencyPolicyView = { id: 1, name: 'eu-only', selector: { data: 'eu' }, allowedRegions: ['frankfurt'], createdAt: '' };
    const finding = (regionName: string, subject: string, ruleId = 'region.residency') => ({ ruleId, subject, region: regionName }) as Finding;
    const rows = residencyRows([policy], [finding('oslo', 'eu-only'), finding('oslo', 'eu-only'), finding('oslo', 'other'), finding('oslo', 'eu-only', 'cpu.steal-high')], ['oslo', 'frankfurt']);
    expect(rows[0]).toMatchObject({ violations: [2, 0], allowed: [false, true] });
  });
});
