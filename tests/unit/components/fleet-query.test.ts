import { describe, expect, test } from 'vitest';
import { ariaSort, fleetQueryString, labelFilterError, nextSort, toFleetQuery } from '../../../components/fleet/fleet-query';
import { loadFleetSearchParams, serializeFleetUrl } from '../../../components/fleet/search-params';
import { fleetParamsSchema } from '../../../lib/protocol/read-api/fleet';
import { searchParamsObject } from '../../../lib/protocol/read-api/params';

const stateOf = (url: string) => loadFleetSearchParams(new URL(url, 'http://x'));

describe('fleet URL state → API query', () => {
  test('an empty URL asks for the default page: misconfigured first, 50 rows', () => {
    expect(toFleetQuery(stateOf('/'))).toEqual({ sort: 'attention', dir: 'asc', page: 1, limit: 50 });
  });

  test('filters carry over, empty ones are left out, lists are ordered so equal filters share one cache key', () => {
    const a = toFleetQuery(stateOf('/?q=+gpu+&region=oslo,frankfurt&status=stale&finding=critical&label=model:llama&sort=steal&page=3&limit=100'));
    const b = toFleetQuery(stateOf('/?region=frankfurt,oslo&q=gpu&status=stale&finding=critical&label=model:llama&sort=steal&page=3&limit=100'));
    expect(a).toEqual({ q: 'gpu', regions: ['frankfurt', 'oslo'], status: ['stale'], finding: 'critical', label: 'model:llama', sort: 'steal', dir: 'desc', page: 3, limit: 100 });
    expect(b).toEqual(a);
  });

  test('values the API would refuse fall back to defaults instead of breaking the page', () => {
    expect(toFleetQuery(stateOf('/?sort=cpu&limit=7&status=sleeping&page=0&label=nonsense'))).toEqual({ sort: 'attention', dir: 'asc', page: 1, limit: 50 });
  });

  test('the query string is one the API parses back to the same filters', () => {
    const query = toFleetQuery(stateOf('/?q=a%26b&region=oslo,frankfurt&status=ok,stale&label=team:ml,env:prod&sort=p99&dir=asc'));
    const parsed = fleetParamsSchema.parse(searchParamsObject(new URLSearchParams(fleetQueryString(query))));
    expect(parsed).toEqual({
      q: 'a&b',
      regions: ['frankfurt', 'oslo'],
      status: ['ok', 'stale'],
      label: { team: 'ml', env: 'prod' },
      sort: 'p99',
      dir: 'asc',
      page: 1,
      limit: 50,
    });
  });

  test('the URL round-trips through the serializer, defaults dropped', () => {
    const state = stateOf('/?region=oslo&sort=steal&dir=asc');
    expect(serializeFleetUrl('/', { ...state, page: 1 })).toBe('/?region=oslo&sort=steal&dir=asc');
  });
});

describe('column headers', () => {
  test('a click on the sorted column flips it; another column starts at its own default', () => {
    expect(nextSort({ sort: 'steal', dir: 'desc' }, 'steal')).toEqual({ sort: 'steal', dir: 'asc' });
    expect(nextSort({ sort: 'steal', dir: 'desc' }, 'hostname')).toEqual({ sort: 'hostname', dir: 'asc' });
    expect(nextSort({ sort: 'hostname', dir: 'asc' }, 'p99')).toEqual({ sort: 'p99', dir: 'desc' });
    expect(ariaSort({ sort: 'p99', dir: 'desc' }, 'p99')).toBe('descending');
    expect(ariaSort({ sort: 'p99', dir: 'desc' }, 'steal')).toBe('none');
  });

  test('the label filter explains what it accepts', () => {
    expect(labelFilterError('')).toBeNull();
    expect(labelFilterError('model:llama, env:prod')).toBeNull();
    expect(labelFilterError('model')).toMatch(/key:value/);
  });
});
