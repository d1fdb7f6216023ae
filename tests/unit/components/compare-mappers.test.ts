import { describe, expect, test } from 'vitest';
import { compareCaption, compareChartData, formatterFor, toCompareRequest } from '../../../components/compare/compare-mappers';
import { loadCompareSearchParams, type CompareUrlState } from '../../../components/compare/search-params';
import type { CompareResponse } from '../../../lib/protocol/read-api/compare';

const T0 = Date.UTC(2026, 11, 1, 10);
const MIN = 60_000;

async function state(query: string): Promise<CompareUrlState> {
  return loadCompareSearchParams(new URLSearchParams(query));
}

describe('URL state → compare query', () => {
  const defaults = { region: 'frankfurt', latency: 'request' };

  test('a region scope takes the URL’s region, else the first one there is', async () => {
    expect(toCompareRequest(await state('metric=cpu_iowait&region=oslo'), defaults)).toEqual({ request: { metric: 'cpu_iowait', rank: 'avg', limit: '20', region: 'oslo' } });
    expect(toCompareRequest(await state(''), defaults)).toEqual({ request: { metric: 'cpu_steal', rank: 'avg', limit: '20', region: 'frankfurt' } });
    expect(toCompareRequest(await state(''), { region: null, latency: null })).toHaveProperty('missing');
  });

  test('labels must parse; picked hosts are deduplicated and sorted; the fleet needs nothing', async () => {
    expect(toCompareRequest(await state('by=labels&labels=model'), defaults)).toEqual({ missing: 'Write labels as key:value, several separated by commas.' });
    expect(toCompareRequest(await state('by=labels&labels=model:llama'), defaults)).toMatchObject({ request: { labels: 'model:llama' } });
    expect(toCompareRequest(await state('by=hosts&hosts=9,3,9'), defaults)).toMatchObject({ request: { hosts: '3,9' } });
    expect(toCompareRequest(await state('by=hosts'), defaults)).toHaveProperty('missing');
    expect(toCompareRequest(await state('by=fleet&limit=50&rank=max'), defaults)).toEqual({ request: { metric: 'cpu_steal', rank: 'max', limit: '50' } });
  });

  test('a latency metric takes its series; a key is sent only for keyed metrics', async () => {
    expect(toCompareRequest(await state('metric=latency_p99'), defaults)).toMatchObject({ request: { latency: 'request' } });
    expect(toCompareRequest(await state('metric=latency_p99&latency=embed'), defaults)).toMatchObject({ request: { latency: 'embed' } });
    expect(toCompareRequest(await state('metric=disk_read_await&key=nvme0n1'), defaults)).toMatchObject({ request: { key: 'nvme0n1' } });
    expect(toCompareRequest(await state('metric=cpu_steal&key=nvme0n1'), defaults)).not.toHaveProperty('request.key');
  });
});

function response(patch: Partial<CompareResponse> = {}): CompareResponse {
  return {
    metric: 'cpu_steal',
    unit: '%',
    scope: { kind: 'region', region: 'oslo' },
    latency: null,
    key: null,
    rank: 'avg',
    from: new Date(T0).toISOString(),
    to: new Date(T0 + 4 * MIN).toISOString(),
    resolution: '1m',
    bucketMs: MIN,
    matchedHosts: 30,
    hostsWithData: 25,
    limit: 20,
    hosts: [
      { hostId: 1, hostname: '<b>oslo-1</b>', region: 'oslo', value: 9, points: [{ t: T0, avg: 9, max: 9 }, { t: T0 + MIN, avg: 7, max: 7 }, { t: T0 + 3 * MIN, avg: 8, max: 8 }] },
      { hostId: 2, hostname: 'oslo-2', region: 'oslo', value: 2, points: [{ t: T0 + MIN, avg: 2, max: 2 }, { t: T0 + 2 * MIN, avg: 3, max: 3 }] },
    ],
    ...patch,
  };
}

describe('compare answer → chart', () => {
  test('one line per host in rank order on the bucket grid, gaps where a host has no value', () => {
    const chart = compareChartData(response());
    expect(chart.series.map((s) => [s.key, s.label])).toEqual([['s0', '<b>oslo-1</b>'], ['s1', 'oslo-2']]);
    expect(chart.rows.map((r) => [r.s0, r.s1])).toEqual([[9, null], [7, 2], [null, 3], [8, null]]);
    expect(chart.hasData).toBe(true);
  });

  test('the caption says when the cap hides hosts and how many had no data', () => {
    expect(compareCaption(response())).toBe('Top 2 of 25 hosts in oslo with data, by their average; 5 without data in this range. Narrow the scope or raise the limit to see others.');
    expect(compareCaption(response({ matchedHosts: 2, hostsWithData: 2, rank: 'max', scope: { kind: 'labels', labels: { team: 'ml' } } }))).toBe(
      'All 2 hosts labelled team=ml with data, by their peak.',
    );
    const latency = { metric: 'latency_p99', unit: 'ms', latency: 'request', matchedHosts: 2, hostsWithData: 2 } as const;
    expect(compareCaption(response(latency))).toBe('All 2 hosts in oslo with data, by their mean per minute.');
    expect(compareCaption(response({ ...latency, rank: 'max' }))).toBe('All 2 hosts in oslo with data, by their worst minute.');
  });

  test('values read in their unit', () => {
    expect(formatterFor('%')(3.25)).toBe('3.3 %');
    expect(formatterFor('ms')(12.3)).toBe('12.3 ms');
    expect(formatterFor('IO/s')(1234.5)).toBe('1235 IO/s');
  });
});
