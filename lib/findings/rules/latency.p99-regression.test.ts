import { describe, expect, test } from 'vitest';
import { NOW_MS, cleanWindow, defaultsOf, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import type { ThresholdOverride } from '../../protocol/findings';
import type { HostLatencyFacts, LatencySeriesFacts, PeerP99 } from '../latency/facts';
import { CAUSE_GAUGES } from '../latency/method';
import type { HostFacts } from '../types';
import { p99Regression, p99RegressionScreen } from './latency.p99-regression';

const t = defaultsOf(p99Regression.defaults);
const MINUTE = 60_000;
const WINDOW_TO = NOW_MS - 2 * MINUTE;
const WINDOW_FROM = WINDOW_TO - 15 * MINUTE;
const minutes = Array.from({ length: 15 }, (_, i) => WINDOW_FROM + i * MINUTE);

/** One series whose window p99 is `currentMs` against a 40 ms baseline, judged with nothing on the host moving. */
function series(currentMs: number, patch: Partial<LatencySeriesFacts> = {}): LatencySeriesFacts {
  return {
    name: 'inference.request',
    window: { fromMs: WINDOW_FROM, toMs: WINDOW_TO },
    current: { p99Ms: currentMs, requests: 6000, minutes: 15 },
    baseline: { p99Ms: 40, requests: 500_000, hours: 24, ofHours: 24 },
    baselineRange: { fromMs: WINDOW_FROM - 25 * 3_600_000, toMs: WINDOW_FROM - 3_600_000 },
    perMinuteP99: new Map(minutes.map((m, i) => [m, currentMs + (i % 3)])),
    observed: { gauges: [], inventory: [] },
    peers: [],
    ...patch,
  };
}

function withLatency(latency: HostLatencyFacts, window = cleanWindow()): HostFacts {
  return { ...hostFacts({ window }), latency };
}

const stealRise = (): LatencySeriesFacts['observed'] => ({
  gauges: [
    {
      gauge: CAUSE_GAUGES.find((g) => g.metric === 'cpu_steal')!,
      key: null,
      before: 0.4,
      after: 14,
      perMinute: new Map(minutes.map((m, i) => [m, 13 + (i % 3)])),
    },
  ],
  inventory: [],
});

const peer = (hostId: number, currentP99Ms: number): PeerP99 => ({ hostId, currentP99Ms, requests: 6000, baselineP99Ms: 40, baselineHours: 24 });

describe('latency.p99-regression', () => {
  test('a series at its baseline raises nothing', () => {
    expect(p99Regression.evaluate(withLatency({ series: [series(42)] }), t, ruleContext())).toEqual([]);
  });

  test('a host without latency series raises nothing', () => {
    expect(p99Regression.evaluate(withLatency({ series: [] }), t, ruleContext())).toEqual([]);
  });

  test('a regression with a planted steal rise names steal and the vCPUs it went to, and carries the causes', () => {
    const window = cleanWindow({ stealPct: { avg: 14, max: 20 }, perCpuStealPct: [{ cpu: 3, avg: 40 }, { cpu: 2, avg: 38 }, { cpu: 0, avg: 2 }] });
    const [v, ...rest] = p99Regression.evaluate(withLatency({ series: [series(100, { observed: stealRise() })] }, window), t, ruleContext());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ subject: 'inference.request', severity: 'warning', value: 2.5 });
    expect(v!.message).toBe('p99 of inference.request rose from 40 ms to 100 ms (2.5×); likely cause: steal 0.4 % → 14 % (most on vCPUs 2–3).');
    expect(v!.remedy).toMatch(/live-migrate/);
    expect(v!.evidence.causes).toHaveLength(1);
    expect(v!.evidence.causes![0]).toMatchObject({ kind: 'steal', before: 0.4, after: 14 });
    expect(v!.evidence.series).toEqual([{ metric: 'cpu_steal', key: null }]);
    expect(v!.evidence.window).toEqual({ from: new Date(WINDOW_FROM).toISOString(), to: new Date(WINDOW_TO).toISOString() });
    expect(v!.evidence.values).toContainEqual({ label: 'likely cause: steal', value: 'steal 0.4 % → 14 % (most on vCPUs 2–3)' });
  });

  test('a regression with only the model server’s queue rising is saturation: the remedy is replicas, not the host', () => {
    const queue: LatencySeriesFacts['observed'] = {
      gauges: [{ gauge: CAUSE_GAUGES.find((g) => g.metric === 'server_queue_mean')!, key: 'vllm', before: 3, after: 55, perMinute: new Map(minutes.map((m, i) => [m, 54 + (i % 3)])) }],
      inventory: [],
    };
    const [v] = p99Regression.evaluate(withLatency({ series: [series(100, { observed: queue })] }), t, ruleContext());
    expect(v!.message).toBe('p99 of inference.request rose from 40 ms to 100 ms (2.5×) with the model server’s queue (vllm mean queue time 3 → 55 ms) and no host cause: saturation — add replicas.');
    expect(v!.remedy).toMatch(/^The model server vllm is saturated: .*Add replicas/);
    expect(v!.evidence.series).toEqual([{ metric: 'server_queue_mean', key: 'vllm' }]);
  });

  test('a regression with an LLM engine preempting for KV cache is KV pressure: the remedy is its memory budget, not the host', () => {
    const kv: LatencySeriesFacts['observed'] = {
      gauges: [
        { gauge: CAUSE_GAUGES.find((g) => g.metric === 'server_preemptions')!, key: 'vllm', before: 0, after: 40, perMinute: new Map(minutes.map((m, i) => [m, 39 + (i % 3)])) },
        { gauge: CAUSE_GAUGES.find((g) => g.metric === 'server_kv_cache')!, key: 'vllm', before: 70, after: 98, perMinute: new Map(minutes.map((m, i) => [m, 97 + (i % 3)])) },
      ],
      inventory: [],
    };
    const [v] = p99Regression.evaluate(withLatency({ series: [series(100, { observed: kv })] }), t, ruleContext());
    expect(v!.message).toMatch(/^p99 of inference\.request rose from 40 ms to 100 ms \(2\.5×\) with vllm: KV cache at 98 % and 40 preemptions\/min \(from 0\), and no host cause: KV cache pressure/);
    expect(v!.remedy).toMatch(/^The LLM engine vllm ran out of KV cache: .*--gpu-memory-utilization.*--max-num-seqs.*add a replica/);
    expect(v!.evidence.series).toEqual([{ metric: 'server_preemptions', key: 'vllm' }, { metric: 'server_kv_cache', key: 'vllm' }]);
  });

  test('a regression with nothing moving says "no host-level cause found" and points at the service', () => {
    const [v] = p99Regression.evaluate(withLatency({ series: [series(100)] }), t, ruleContext());
    expect(v!.message).toBe('p99 of inference.request rose from 40 ms to 100 ms (2.5×); no host-level cause found.');
    expect(v!.remedy).toMatch(/^Nothing on the host moved with it/);
    expect(v!.evidence.causes).toEqual([]);
  });

  test('a new host with 2 h of baseline is judged, and the finding says how much baseline it stood on', () => {
    const young = series(100, { baseline: { p99Ms: 40, requests: 40_000, hours: 2, ofHours: 24 } });
    const [v] = p99Regression.evaluate(withLatency({ series: [young] }), t, ruleContext());
    expect(v!.message).toBe('p99 of inference.request rose from 40 ms to 100 ms (2.5×; baseline: 2 h of 24); no host-level cause found.');
    expect(v!.evidence.values).toContainEqual({ label: 'baseline hours with requests', value: '2 of 24' });
  });

  test('a planted inventory change is the cause and its remedy', () => {
    const observed = { gauges: [], inventory: [{ atMs: WINDOW_FROM + 5 * MINUTE, changes: ['serve.py OMP_NUM_THREADS 4 → 16'] }] };
    const [v] = p99Regression.evaluate(withLatency({ series: [series(100, { observed })] }), t, ruleContext());
    expect(v!.message).toMatch(/likely cause: inventory change at \d\d:\d\d UTC: serve.py OMP_NUM_THREADS 4 → 16\.$/);
    expect(v!.remedy).toMatch(/^The regression began with the inventory change/);
  });

  test('exactly at 1.5 × its baseline does not raise', () => {
    expect(p99Regression.evaluate(withLatency({ series: [series(60)] }), t, ruleContext())).toEqual([]);
  });

  test('hysteresis: an open finding stays open between 1.2 × and 1.5 ×, and clears below', () => {
    const at = (p99: number, open: string[]) => p99Regression.evaluate(withLatency({ series: [series(p99)] }), t, ruleContext(open));
    expect(at(52, [])).toEqual([]);
    expect(at(52, ['inference.request'])).toHaveLength(1);
    expect(at(47, ['inference.request'])).toEqual([]);
  });

  test('a handful of requests cannot raise it', () => {
    const few = series(400, { current: { p99Ms: 400, requests: 199, minutes: 3 } });
    expect(p99Regression.evaluate(withLatency({ series: [few] }), t, ruleContext())).toEqual([]);
  });

  test('when at least half of the region\'s other hosts regressed too it is region-wide: not this host\'s finding', () => {
    const region = (others: PeerP99[]) => withLatency({ series: [series(100, { peers: [peer(1, 100), ...others] })] });
    expect(p99Regression.evaluate(region([peer(2, 95), peer(3, 99), peer(4, 41), peer(5, 40)]), t, ruleContext())).toEqual([]);
    expect(p99Regression.evaluate(region([peer(2, 95), peer(3, 41), peer(4, 41), peer(5, 40)]), t, ruleContext())).toHaveLength(1);
  });

  test('each series is its own subject', () => {
    const out = p99Regression.evaluate(withLatency({ series: [series(100), series(41, { name: 'tokenizer.encode' }), series(90, { name: 'inference.queue' })] }), t, ruleContext());
    expect(out.map((v) => v.subject)).toEqual(['inference.request', 'inference.queue']);
  });

  test('thresholds come from the caller (overrides)', () => {
    expect(p99Regression.evaluate(withLatency({ series: [series(52)] }), { ...t, ratio: 1.25 }, ruleContext())).toHaveLength(1);
  });

  test('the screen for reading causes is the loosest of the defaults, the clear ratio and every enabled override', () => {
    const override = (thresholds: Record<string, number>, disabled = false) => ({ ruleId: 'latency.p99-regression', thresholds, disabled }) as ThresholdOverride;
    expect(p99RegressionScreen([])).toEqual({ ratio: 1.2, minRiseMs: 5, minRequests: 200 });
    expect(p99RegressionScreen([override({ ratio: 1.1, minRiseMs: 2 }), override({ minRequests: 50 }, true), { ...override({ ratio: 1 }), ruleId: 'cpu.steal-high' }])).toEqual({
      ratio: 1.1,
      minRiseMs: 2,
      minRequests: 200,
    });
  });
});
