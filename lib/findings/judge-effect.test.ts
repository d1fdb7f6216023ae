import { describe, expect, test } from 'vitest';
import { judgeEffect, latencyVerdict, measuringEffect, outcomeOf, type EffectMeasurements } from './judge-effect';

const at = (hhmm: string) => Date.parse(`2026-12-02T${hhmm}:00.000Z`);
const measured = (patch: Partial<EffectMeasurements> = {}): EffectMeasurements => ({
  resolvedAtMs: at('14:02'),
  measureAfterMs: at('15:02'),
  change: { atMs: at('14:01'), changes: ['serve.py restarted (pid 4242 → 4300)', 'serve.py OMP_NUM_THREADS 8 → 1', 'serve.py threads 15 → 3'] },
  before: { fromMs: at('13:01'), toMs: at('14:01') },
  after: { fromMs: at('14:02'), toMs: at('15:02') },
  latency: [{ name: 'inference.request', before: { p99Ms: 182.4, requests: 9812 }, after: { p99Ms: 41.2, requests: 10114 } }],
  gauges: [{ metric: 'process_threads', key: 'serve.py', unit: 'threads', before: 15, after: 3 }],
  ...patch,
});

describe('judgeEffect', () => {
  test('names the change that resolved it, settings first, with p99 before → after and the requests behind each', () => {
    const effect = judgeEffect(measured());
    expect(effect.summary).toBe(
      'Resolved at 14:02 UTC by serve.py OMP_NUM_THREADS 8 → 1, serve.py restarted (pid 4242 → 4300), serve.py threads 15 → 3: ' +
        'p99 `inference.request` 182 → 41.2 ms (9,812 / 10,114 requests); process_threads serve.py 15 → 3 threads.',
    );
    expect(effect).toMatchObject({ status: 'measured', resolvedAt: '2026-12-02T14:02:00.000Z', change: { at: '2026-12-02T14:01:00.000Z' } });
    expect(effect.latency[0]!.verdict).toBe('improved');
    expect(effect.outcome).toBe('improved');
  });

  test('too few requests in either hour: says so instead of inventing an effect', () => {
    const effect = judgeEffect(measured({ latency: [{ name: 'embed', before: { p99Ms: 90, requests: 150 }, after: { p99Ms: 20, requests: 4000 } }] }));
    expect(effect.latency[0]!.verdict).toBe('not-enough-requests');
    expect(effect.summary).toContain('embed: not enough requests to compare (150 / 4,000 requests)');
    expect(effect.summary).not.toMatch(/90 → 20/);
  });

  test('nothing moved: "no change seen"', () => {
    const effect = judgeEffect(measured({ change: null, gauges: [], latency: [{ name: 'rank', before: { p99Ms: 40, requests: 5000 }, after: { p99Ms: 41, requests: 5000 } }] }));
    expect(effect.summary).toBe('Resolved at 14:02 UTC with no inventory change: p99 `rank` 40 → 41 ms, no change seen (5,000 / 5,000 requests); no change seen in latency.');
    expect(effect.change).toBeNull();
  });

  test('no latency series in either hour is said, and gauges without data are left out', () => {
    const effect = judgeEffect(measured({ latency: [], gauges: [{ metric: 'cpu_steal', key: null, unit: '%', before: 12.5, after: null }] }));
    expect(effect.summary).toMatch(/: no latency series reported in either hour\.$/);
  });

  test('the series that moved most first, then the busiest; at most three in the sentence, every one in the data', () => {
    const series = ['a', 'b', 'c', 'd'].map((name, i) => ({ name, before: { p99Ms: 10, requests: 1000 * (i + 1) }, after: { p99Ms: 5, requests: 1000 * (i + 1) } }));
    const moved = { name: 'e', before: { p99Ms: 40, requests: 300 }, after: { p99Ms: 4, requests: 300 } };
    const effect = judgeEffect(measured({ latency: [...series, moved, { name: 'f', before: { p99Ms: 1, requests: 5 }, after: { p99Ms: 1, requests: 5 } }], gauges: [] }));
    expect(effect.latency.map((l) => l.name)).toEqual(['e', 'd', 'c', 'b', 'a', 'f']);
    expect(effect.summary).toContain('p99 `e` 40 → 4 ms');
    expect(effect.summary).not.toContain('`b`');
  });
});

describe('latencyVerdict', () => {
  const w = (p99Ms: number | null, requests = 1000) => ({ p99Ms, requests });
  test.each([
    [w(100), w(89), 'improved'],
    [w(100), w(91), 'no-change'],
    [w(100), w(109), 'no-change'],
    [w(100), w(110), 'worse'],
    [w(100, 199), w(50), 'not-enough-requests'],
    [w(null, 0), w(50), 'not-enough-requests'],
  ] as const)('%o → %o: %s', (before, after, verdict) => {
    expect(latencyVerdict(before, after)).toBe(verdict);
  });
});

test('the outcome of a fix: worse wins, then improved, then no change; nothing compared is not enough requests', () => {
  expect(outcomeOf(['improved', 'worse'])).toBe('worse');
  expect(outcomeOf(['no-change', 'improved', 'not-enough-requests'])).toBe('improved');
  expect(outcomeOf(['no-change', 'not-enough-requests'])).toBe('no-change');
  expect(outcomeOf([])).toBe('not-enough-requests');
});

test('measuringEffect says until when', () => {
  expect(measuringEffect(at('14:02'), at('15:02')).summary).toBe('Resolved at 14:02 UTC: measuring what it bought until 15:02 UTC.');
});
