import { describe, expect, test } from 'vitest';
import { countFleetTiles, filterFleetHosts, pageOf, resolveSort, sortFleetHosts } from '../../../lib/fleet/fleet-query';
import { fleetParamsSchema, type FleetHost } from '../../../lib/protocol/read-api/fleet';

let nextId = 1;
function host(overrides: Partial<FleetHost> & { hostname: string }, latest: Partial<NonNullable<FleetHost['latest']>> | null = {}): FleetHost {
  return {
    id: nextId++,
    region: 'oslo',
    labels: {},
    lastSeenAt: '2026-12-01T10:00:00.000Z',
    status: 'ok',
    latest:
      latest === null
        ? null
        : { ts: '2026-12-01T10:00:00.000Z', stealPct: 1, iowaitPct: 1, userPct: 10, systemPct: 5, idlePct: 80, load1: 1, psiCpuSomeAvg10: null, psiIoSomeAvg10: null, ...latest },
    findings: { critical: 0, warning: 0, info: 0 },
    topFinding: null,
    ...overrides,
  };
}

const names = (hosts: FleetHost[]) => hosts.map((h) => h.hostname);
const params = (query: Record<string, string>) => fleetParamsSchema.parse(query);

describe('fleet params', () => {
  test('lists are comma-separated and checked item by item', () => {
    expect(params({ regions: 'oslo, frankfurt,', status: 'ok,stale' })).toMatchObject({ regions: ['oslo', 'frankfurt'], status: ['ok', 'stale'] });
    expect(() => params({ status: 'ok,sleeping' })).toThrow();
    expect(() => params({ sort: 'cpu' })).toThrow();
    expect(() => params({ limit: '501' })).toThrow();
    expect(params({ label: 'model:llama,env:prod' }).label).toEqual({ model: 'llama', env: 'prod' });
  });

  test('the sort direction defaults to worst first for measurements and A→Z for names', () => {
    expect(resolveSort({})).toEqual({ sort: 'attention', dir: 'asc' });
    expect(resolveSort({ sort: 'steal' })).toEqual({ sort: 'steal', dir: 'desc' });
    expect(resolveSort({ sort: 'hostname' })).toEqual({ sort: 'hostname', dir: 'asc' });
    expect(resolveSort({ sort: 'p99', dir: 'asc' })).toEqual({ sort: 'p99', dir: 'asc' });
  });
});

describe('filtering', () => {
  const hosts = [
    host({ hostname: 'gpu-a', region: 'oslo', labels: { model: 'llama', demo: 'true' } }),
    host({ hostname: 'gpu-b', region: 'frankfurt', labels: { model: 'mistral' }, status: 'stale' }),
    host({ hostname: 'cpu-c', region: 'frankfurt', labels: { model: 'llama' }, findings: { critical: 1, warning: 2, info: 0 } }),
    host({ hostname: 'cpu-d', region: 'paris', status: 'never_reported', findings: { critical: 0, warning: 0, info: 3 } }, null),
  ];

  test.each([
    [{ region: 'frankfurt' }, ['gpu-b', 'cpu-c']],
    [{ regions: 'oslo,paris' }, ['gpu-a', 'cpu-d']],
    [{ status: 'stale,never_reported' }, ['gpu-b', 'cpu-d']],
    [{ label: 'model:llama' }, ['gpu-a', 'cpu-c']],
    [{ label: 'model:llama,demo:true' }, ['gpu-a']],
    [{ q: 'GPU' }, ['gpu-a', 'gpu-b']],
    [{ q: 'mistral' }, ['gpu-b']],
    [{ q: 'paris' }, ['cpu-d']],
    [{ finding: 'any' }, ['cpu-c', 'cpu-d']],
    [{ finding: 'none' }, ['gpu-a', 'gpu-b']],
    [{ finding: 'critical' }, ['cpu-c']],
    [{ finding: 'warning' }, []],
    [{ finding: 'info' }, ['cpu-d']],
    [{ region: 'frankfurt', status: 'ok' }, ['cpu-c']],
  ])('%o keeps %o', (query, expected) => {
    expect(names(filterFleetHosts(hosts, params(query as Record<string, string>)))).toEqual(expected);
  });
});

describe('ordering', () => {
  test('by default hosts with the most severe findings come first, then more of them, then by name', () => {
    const hosts = [
      host({ hostname: 'zeta' }),
      host({ hostname: 'info-only', findings: { critical: 0, warning: 0, info: 5 } }),
      host({ hostname: 'one-warning', findings: { critical: 0, warning: 1, info: 0 } }),
      host({ hostname: 'two-critical', findings: { critical: 2, warning: 0, info: 0 } }),
      host({ hostname: 'alpha' }),
      host({ hostname: 'one-critical', findings: { critical: 1, warning: 3, info: 0 } }),
    ];
    expect(names(sortFleetHosts(hosts, 'attention', 'asc'))).toEqual(['two-critical', 'one-critical', 'one-warning', 'info-only', 'alpha', 'zeta']);
    expect(names(sortFleetHosts(hosts, 'attention', 'desc'))[0]).toBe('zeta');
  });

  test('hosts without a value go last in either direction, ties broken by name', () => {
    const hosts = [
      host({ hostname: 'b' }, { stealPct: 5 }),
      host({ hostname: 'none' }, null),
      host({ hostname: 'a' }, { stealPct: 5 }),
      host({ hostname: 'c' }, { stealPct: 20 }),
      host({ hostname: 'null-steal' }, { stealPct: null }),
    ];
    expect(names(sortFleetHosts(hosts, 'steal', 'desc'))).toEqual(['c', 'a', 'b', 'none', 'null-steal']);
    expect(names(sortFleetHosts(hosts, 'steal', 'asc'))).toEqual(['a', 'b', 'c', 'none', 'null-steal']);
  });

  test('p99 and disk queue sort on the values read for them', () => {
    const hosts = [host({ hostname: 'slow', p99Ms: 250 }), host({ hostname: 'fast', p99Ms: 12 }), host({ hostname: 'quiet', p99Ms: null })];
    expect(names(sortFleetHosts(hosts, 'p99', 'desc'))).toEqual(['slow', 'fast', 'quiet']);
    const disks = [host({ hostname: 'deep', diskQueueDepth: 9 }), host({ hostname: 'shallow', diskQueueDepth: 0.1 })];
    expect(names(sortFleetHosts(disks, 'diskQueue', 'asc'))).toEqual(['shallow', 'deep']);
  });

  test('names sort case- and accent-aware, not by code point', () => {
    const hosts = [host({ hostname: 'b-host' }), host({ hostname: 'A-host' }), host({ hostname: 'a-host' })];
    expect(names(sortFleetHosts(hosts, 'hostname', 'asc'))).toEqual(['a-host', 'A-host', 'b-host']);
  });
});

describe('paging and tiles', () => {
  const items = Array.from({ length: 120 }, (_, i) => i);

  test('a page past the last is the last page; no page or limit means everything', () => {
    expect(pageOf(items, { page: 2, limit: 50 })).toMatchObject({ page: 2, pages: 3, items: items.slice(50, 100) });
    expect(pageOf(items, { page: 9, limit: 50 })).toMatchObject({ page: 3, items: items.slice(100) });
    expect(pageOf(items, {}).items).toHaveLength(120);
    expect(pageOf([], { page: 1, limit: 50 })).toMatchObject({ page: 1, pages: 1, items: [] });
  });

  test('tiles count each host once, by its most severe finding', () => {
    const tiles = countFleetTiles([
      host({ hostname: 'a', findings: { critical: 1, warning: 4, info: 1 } }),
      host({ hostname: 'b', status: 'stale', findings: { critical: 0, warning: 1, info: 0 } }),
      host({ hostname: 'c', status: 'never_reported' }),
      host({ hostname: 'd' }),
    ]);
    expect(tiles).toEqual({ hosts: 4, reporting: 2, stale: 1, neverReported: 1, misconfiguredHosts: { critical: 1, warning: 1, info: 0 } });
  });
});
