import { afterEach, expect, test, vi } from 'vitest';
import { isSilenced, matchesAll } from '@/lib/alerts/matchers';

afterEach(() => vi.restoreAllMocks());

test('a stored silence whose regex RE2 refuses silences nothing and is logged once, not every cycle', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const silence = { id: 1, startsAtMs: 0, endsAtMs: 10_000, matchers: [{ name: 'host', value: '(?!db).*', isRegex: true, isEqual: true }] };
  for (let cycle = 0; cycle < 3; cycle++) expect(isSilenced([silence], { host: 'gpu-1' }, 5_000)).toBe(false);
  expect(warn).toHaveBeenCalledTimes(1);
  expect(warn.mock.calls[0]![0]).toContain('host=~"(?!db).*" matches nothing');
});

test('a channel\'s matchers route with RE2 in linear time', () => {
  const matchers = [{ name: 'host', value: '(a+)+$', isRegex: true, isEqual: false }, { name: 'region', value: 'oslo', isRegex: false, isEqual: true }];
  expect(matchesAll(matchers, { host: `${'a'.repeat(10_000)}b`, region: 'oslo' })).toBe(true);
});
