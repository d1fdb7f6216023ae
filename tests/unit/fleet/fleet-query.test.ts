import { describe, expect, test } from 'vitest';
import { orderBySql } from '../../../lib/fleet/fleet-page-sql';
import { pageOf, resolveSort } from '../../../lib/fleet/fleet-query';
import { fleetParamsSchema } from '../../../lib/protocol/read-api/fleet';

// What the filters and sorts select is tested on PostgreSQL itself: tests/integration/fleet-page.test.ts.
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

describe('ordering', () => {
  test('attention flips whole; a measurement flips but keeps names A→Z under equal values; nulls last always', () => {
    expect(orderBySql('attention', 'desc')).toBe(
      'worst_rank DESC NULLS LAST, fc ASC NULLS LAST, fw ASC NULLS LAST, fi ASC NULLS LAST, hostname DESC NULLS LAST, region DESC NULLS LAST, id DESC NULLS LAST',
    );
    expect(orderBySql('steal', 'desc')).toBe('cpu_steal_pct DESC NULLS LAST, hostname ASC NULLS LAST, region ASC NULLS LAST, id ASC NULLS LAST');
    expect(orderBySql('hostname', 'desc').startsWith('hostname DESC NULLS LAST, ')).toBe(true);
  });
});

describe('paging', () => {
  const items = Array.from({ length: 120 }, (_, i) => i);

  test('a page past the last is the last page; no page or limit means everything', () => {
    expect(pageOf(items, { page: 2, limit: 50 })).toMatchObject({ page: 2, pages: 3, items: items.slice(50, 100) });
    expect(pageOf(items, { page: 9, limit: 50 })).toMatchObject({ page: 3, items: items.slice(100) });
    expect(pageOf(items, {}).items).toHaveLength(120);
    expect(pageOf([], { page: 1, limit: 50 })).toMatchObject({ page: 1, pages: 1, items: [] });
  });
});
