import { expect, test } from 'vitest';
import { matcherText, matchersForAlert, silencesOf } from '@/components/alerts/silence-match';
import { describeSpec } from '@/components/alerts/rule-summary';
import type { Silence } from '@/lib/protocol/alerts';

const labels = { alertname: 'steal-spike', severity: 'warning', host: 'gpu-1', region: 'oslo' };

test('an alert is silenced only by silences in force whose matchers all match', () => {
  const base: Omit<Silence, 'id' | 'matchers' | 'startsAt' | 'endsAt'> = { comment: 'x', createdBy: 'y', createdAt: '2026-01-01T00:00:00Z', state: 'active' };
  const now = Date.parse('2026-01-01T12:00:00Z');
  const silences: Silence[] = [
    { ...base, id: 1, matchers: [{ name: 'host', value: 'gpu-1', isRegex: false, isEqual: true }], startsAt: '2026-01-01T11:00:00Z', endsAt: '2026-01-01T13:00:00Z' },
    { ...base, id: 2, state: 'pending', matchers: [{ name: 'host', value: 'gpu-1', isRegex: false, isEqual: true }], startsAt: '2026-01-01T13:00:00Z', endsAt: '2026-01-01T14:00:00Z' },
    { ...base, id: 3, matchers: [{ name: 'host', value: 'gpu-1', isRegex: false, isEqual: true }, { name: 'region', value: 'fra', isRegex: false, isEqual: true }], startsAt: '2026-01-01T11:00:00Z', endsAt: '2026-01-01T13:00:00Z' },
  ];
  expect(silencesOf(silences, labels, now).map((s) => s.id)).toEqual([1]);
});

test('a silence the server calls active holds the alert even if it starts after the page’s clock last ticked', () => {
  const justMade: Silence = {
    id: 4, comment: 'x', createdBy: 'y', createdAt: '2026-01-01T12:00:05Z', state: 'active',
    matchers: [{ name: 'host', value: 'gpu-1', isRegex: false, isEqual: true }], startsAt: '2026-01-01T12:00:05Z', endsAt: '2026-01-01T13:00:00Z',
  };
  expect(silencesOf([justMade], labels, Date.parse('2026-01-01T12:00:00Z')).map((s) => s.id)).toEqual([4]);
  expect(silencesOf([justMade], labels, Date.parse('2026-01-01T13:00:00Z'))).toEqual([]);
});

test('a silence started from an alert matches its rule and instance, not its severity', () => {
  expect(matchersForAlert({ ...labels, device: 'vda' })).toEqual([
    { name: 'alertname', value: 'steal-spike', isRegex: false, isEqual: true },
    { name: 'host', value: 'gpu-1', isRegex: false, isEqual: true },
    { name: 'device', value: 'vda', isRegex: false, isEqual: true },
  ]);
  expect(matchersForAlert({ alertname: 'region-p99', region: 'oslo', service: 'api' }).map(matcherText)).toEqual([
    'alertname="region-p99"',
    'service="api"',
    'region="oslo"',
  ]);
});

test('a rule condition reads as one line', () => {
  expect(
    describeSpec({
      metric: { kind: 'series', series: 'cpu_steal', aggregation: 'avg' },
      selector: {},
      windowMs: 60_000,
      threshold: 10,
      clearThreshold: 5,
      forMs: 120_000,
      clearForMs: 0,
      relative: { factor: 3, minValue: 5, baselineMs: 86_400_000 },
    }),
  ).toBe('avg cpu_steal over 1 min > 10 (clears ≤ 5), or 3× its 1 d median (at least 5), for 2 min');
});
