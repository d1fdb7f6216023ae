import { describe, expect, test } from 'vitest';
import { cleanInventory, watchedProcess } from '../../../tests/support/findings-facts';
import { explainRegression, type ExplainInput } from './explain-regression';
import type { GaugeObservation } from './facts';
import { diffInventories } from './inventory-diff';
import { CAUSE_GAUGES, DEFAULT_METHOD } from './method';

const MINUTE = 60_000;
const FROM = Date.UTC(2026, 11, 1, 11, 0);
const TO = FROM + 60 * MINUTE;
/** The regression begins 20 minutes into the hour. */
const STEP = FROM + 20 * MINUTE;
const minutes = Array.from({ length: 60 }, (_, i) => FROM + i * MINUTE);
const wobble = (i: number) => ((i * 7) % 5) / 10;

/** Per minute: `low` before the step and `high` from it, with a little noise so ranks are not all tied. */
const stepSeries = (low: number, high: number) => new Map(minutes.map((t, i) => [t, (t < STEP ? low : high) + wobble(i)]));
const flatSeries = (value: number) => new Map(minutes.map((t, i) => [t, value + wobble(i)]));
const mean = (series: Map<number, number>) => [...series.values()].reduce((a, b) => a + b, 0) / series.size;

const gauge = (metric: string) => CAUSE_GAUGES.find((g) => g.metric === metric)!;

/** A host whose gauges all stayed where they were: steal, iowait, one disk, one cgroup, pressure. */
function quietGauges(): GaugeObservation[] {
  const flat = (metric: string, key: string | null, value: number): GaugeObservation => ({
    gauge: gauge(metric),
    key,
    before: value,
    after: mean(flatSeries(value)),
    perMinute: flatSeries(value),
  });
  return [
    flat('cpu_steal', null, 0.4),
    flat('cpu_iowait', null, 0.8),
    flat('disk_read_await', 'nvme0n1', 0.3),
    flat('disk_write_await', 'nvme0n1', 0.6),
    flat('disk_queue_depth', 'nvme0n1', 0.2),
    flat('cgroup_throttled_pct', '/system.slice/inference.service', 0),
    flat('psi_cpu', null, 2),
    flat('psi_io', null, 0.5),
    flat('psi_memory', null, 0),
  ];
}

function regressedHost(patch: Partial<ExplainInput> = {}): ExplainInput {
  const p99 = stepSeries(30, 80);
  return {
    name: 'inference.request',
    fromMs: FROM,
    toMs: TO,
    baseline: { p99Ms: 31, requests: 200_000, hours: 24, ofHours: 24 },
    current: { p99Ms: 76, requests: 9_000 },
    perMinuteP99: p99,
    gauges: quietGauges(),
    inventory: [],
    region: { method: 'region-p99', region: 'oslo', otherHosts: 19, baseline: { p99Ms: 30, requests: 4e6, hours: 24, ofHours: 24 }, current: { p99Ms: 31.5, requests: 180_000 } },
    ...patch,
  };
}

function withGauge(input: ExplainInput, metric: string, key: string | null, observation: Partial<GaugeObservation>): ExplainInput {
  return {
    ...input,
    gauges: input.gauges.map((o) => (o.gauge.metric === metric && o.key === key ? { ...o, ...observation } : o)),
  };
}

describe('explainRegression', () => {
  test('a regression with nothing moving on the host says "no host-level cause found" and names no cause', () => {
    const out = explainRegression(regressedHost());
    expect(out).toMatchObject({ verdict: 'regressed', regressed: true, ratio: 2.45, causes: [] });
    expect(out.region).toMatchObject({ method: 'region-p99', regressed: false });
    expect(out.summary).toBe('p99 of inference.request rose from 31 ms to 76 ms (2.5×); no host-level cause found.');
  });

  test('a planted steal rise is the likely cause, with its vCPUs, before and after, and its minute-by-minute correlation', () => {
    const steal = stepSeries(0.5, 14);
    const out = explainRegression(withGauge(regressedHost(), 'cpu_steal', null, { before: 0.4, after: mean(steal), perMinute: steal, cpus: [2, 3] }));
    expect(out.causes).toHaveLength(1);
    const [cause] = out.causes;
    expect(cause).toMatchObject({ kind: 'steal', subject: null, before: 0.4, unit: '%', series: { metric: 'cpu_steal', key: null } });
    expect(cause!.after).toBeCloseTo(mean(steal));
    expect(cause!.correlation).toBeGreaterThan(0.7);
    expect(cause!.strength).toBeGreaterThan(0.8);
    expect(out.summary).toBe('p99 of inference.request rose from 31 ms to 76 ms (2.5×); likely cause: steal 0.4 % → 9.7 % (most on vCPUs 2–3).');
  });

  test('a planted disk write-await rise names the device', () => {
    const wait = stepSeries(0.6, 22);
    const out = explainRegression(withGauge(regressedHost(), 'disk_write_await', 'nvme0n1', { before: 0.6, after: mean(wait), perMinute: wait }));
    expect(out.causes.map((c) => [c.kind, c.subject])).toEqual([['disk-await', 'nvme0n1']]);
    expect(out.causes[0]!.summary).toBe('nvme0n1 write await 0.6 → 15 ms');
    expect(out.causes[0]!.series).toEqual({ metric: 'disk_write_await', key: 'nvme0n1' });
  });

  test('a planted inventory change (OMP_NUM_THREADS 4 → 16) at the step is named with what changed', () => {
    const before = cleanInventory({ processes: [watchedProcess({ env: { OMP_NUM_THREADS: '4' } })] });
    const after = cleanInventory({ processes: [watchedProcess({ env: { OMP_NUM_THREADS: '16' } })] });
    const out = explainRegression(regressedHost({ inventory: [{ atMs: STEP, changes: diffInventories(before, after) }] }));
    expect(out.causes).toHaveLength(1);
    expect(out.causes[0]).toMatchObject({ kind: 'inventory', correlation: 1, strength: 1 });
    expect(out.summary).toBe('p99 of inference.request rose from 31 ms to 76 ms (2.5×); likely cause: inventory change at 11:20 UTC: serve.py OMP_NUM_THREADS 4 → 16.');
  });

  test('an inventory change after which p99 did not step ranks below a gauge that moved with p99', () => {
    const steal = stepSeries(0.5, 14);
    const input = withGauge(regressedHost({ inventory: [{ atMs: FROM + 50 * MINUTE, changes: ['kernel 6.1.0-17 → 6.1.0-18'] }] }), 'cpu_steal', null, {
      before: 0.4,
      after: mean(steal),
      perMinute: steal,
    });
    const out = explainRegression(input);
    expect(out.causes.map((c) => c.kind)).toEqual(['steal', 'inventory']);
    expect(out.causes[1]!.correlation).toBe(0);
    expect(out.summary).toMatch(/likely cause: steal .*; also inventory change at 11:50 UTC: kernel 6.1.0-17 → 6.1.0-18\.$/);
  });

  test('p99 rising with the model server’s queue and nothing on the host is saturation: add replicas', () => {
    const queue = stepSeries(2, 45);
    const waiting = stepSeries(0.3, 12);
    const input = regressedHost({
      gauges: [
        ...quietGauges(),
        { gauge: gauge('server_queue_mean'), key: 'vllm', before: 2, after: mean(queue), perMinute: queue },
        { gauge: gauge('server_waiting'), key: 'vllm', before: 0.3, after: mean(waiting), perMinute: waiting },
      ],
    });
    const out = explainRegression(input);
    expect(out.verdict).toBe('saturated');
    expect(out.causes.map((c) => [c.kind, c.subject, c.series?.metric])).toEqual([
      ['queue', 'vllm', 'server_queue_mean'],
      ['queue', 'vllm', 'server_waiting'],
    ]);
    expect(out.summary).toBe(
      'p99 of inference.request rose from 31 ms to 76 ms (2.5×) with the model server’s queue (vllm mean queue time 2 → 31 ms; also vllm requests waiting 0.3 → 8.3) and no host cause: saturation — add replicas.',
    );
  });

  test('p99 rising with a full KV cache and steady preemptions is KV pressure, named apart from the queue it also grows', () => {
    // It filled at the step: judged by its level while p99 was slow, not by its average over the hour.
    const cache = stepSeries(62, 97.5);
    const preemptions = stepSeries(0, 40);
    const waiting = stepSeries(0.3, 12);
    const input = regressedHost({
      gauges: [
        ...quietGauges(),
        { gauge: gauge('server_waiting'), key: 'vllm', before: 0.3, after: mean(waiting), perMinute: waiting },
        { gauge: gauge('server_kv_cache'), key: 'vllm', before: 62, after: mean(cache), perMinute: cache },
        { gauge: gauge('server_preemptions'), key: 'vllm', before: 0, after: mean(preemptions), perMinute: preemptions },
      ],
    });
    const out = explainRegression(input);
    expect(out.verdict).toBe('kv-pressure');
    expect(out.causes.map((c) => [c.kind, c.series?.metric])).toEqual([
      ['kv-cache', 'server_preemptions'],
      ['kv-cache', 'server_kv_cache'],
      ['queue', 'server_waiting'],
    ]);
    expect(out.summary).toBe(
      'p99 of inference.request rose from 31 ms to 76 ms (2.5×) with vllm: KV cache at 98 % and 26.9 preemptions/min (from 0); also vllm requests waiting 0.3 → 8.3, and no host cause: KV cache pressure (evicted requests are computed again) — raise `gpu_memory_utilization` (vLLM) or `--mem-fraction-static` (SGLang), lower `max_num_seqs`, or add a replica.',
    );
  });

  test('a KV cache that filled to a steady 80 % is no cause (below 90 %), nor one already full in the baseline', () => {
    const filled = stepSeries(40, 80);
    const alwaysFull = flatSeries(97);
    const input = regressedHost({
      gauges: [
        ...quietGauges(),
        { gauge: gauge('server_kv_cache'), key: 'vllm', before: 40, after: mean(filled), perMinute: filled },
        { gauge: gauge('server_kv_cache'), key: 'sglang', before: 96.8, after: mean(alwaysFull), perMinute: alwaysFull },
      ],
    });
    const out = explainRegression(input);
    expect(out.verdict).toBe('regressed');
    expect(out.causes).toEqual([]);
  });

  test('a noisy neighbour with the KV cache filling as its requests pile up: steal is the cause, the KV cache follows it', () => {
    const steal = stepSeries(0.5, 14);
    const cache = flatSeries(96);
    const input = regressedHost({
      gauges: [
        ...withGauge(regressedHost(), 'cpu_steal', null, { before: 0.4, after: mean(steal), perMinute: steal }).gauges,
        { gauge: gauge('server_kv_cache'), key: 'vllm', before: 70, after: mean(cache), perMinute: cache },
      ],
    });
    const out = explainRegression(input);
    expect(out.verdict).toBe('regressed');
    expect(out.causes.map((c) => c.kind)).toEqual(['steal', 'kv-cache']);
  });

  test('a noisy neighbour slows the server and so grows its queue: steal is the cause, the queue only follows it', () => {
    const steal = stepSeries(0.5, 14);
    const queue = stepSeries(2, 60);
    const input = regressedHost({
      gauges: [
        ...withGauge(regressedHost(), 'cpu_steal', null, { before: 0.4, after: mean(steal), perMinute: steal }).gauges,
        { gauge: gauge('server_queue_mean'), key: 'vllm', before: 2, after: mean(queue), perMinute: queue },
      ],
    });
    const out = explainRegression(input);
    expect(out.verdict).toBe('regressed');
    expect(out.causes.map((c) => c.kind)).toEqual(['steal', 'queue']);
    expect(out.summary).toMatch(/likely cause: steal 0\.4 % → 9\.7 %; also vllm mean queue time 2 → 41 ms\.$/);
  });

  test('an inventory snapshot with nothing that matters changed is not a cause', () => {
    const out = explainRegression(regressedHost({ inventory: [{ atMs: STEP, changes: [] }] }));
    expect(out.causes).toEqual([]);
  });

  test('when the rest of the region regressed as much it is region-wide, not this host', () => {
    const out = explainRegression(
      regressedHost({ region: { method: 'region-p99', region: 'oslo', otherHosts: 19, baseline: { p99Ms: 30, requests: 4e6, hours: 24, ofHours: 24 }, current: { p99Ms: 70, requests: 180_000 } } }),
    );
    expect(out.verdict).toBe('region-wide');
    expect(out.regressed).toBe(true);
    expect(out.causes[0]).toMatchObject({ kind: 'region', subject: 'oslo', before: 30, after: 70, strength: 1 });
    expect(out.summary).toBe('p99 of inference.request rose from 31 ms to 76 ms (2.5×), and the rest of oslo rose as well (p99 30 → 70 ms): region-wide, not this host.');
  });

  test('a region that rose by less than half as much is not region-wide', () => {
    // The host rose 145 %, the region 40 %: less than half.
    const region = { method: 'region-p99' as const, region: 'oslo', otherHosts: 19, baseline: { p99Ms: 30, requests: 4e6, hours: 24, ofHours: 24 }, current: { p99Ms: 42, requests: 180_000 } };
    expect(explainRegression(regressedHost({ region })).verdict).toBe('regressed');
  });

  test('counted by hosts: region-wide when at least half of the other hosts regressed too', () => {
    const count = (otherHostsRegressed: number) =>
      explainRegression(regressedHost({ region: { method: 'host-count', region: 'oslo', otherHosts: 20, otherHostsRegressed } }));
    expect(count(10).verdict).toBe('region-wide');
    expect(count(10).summary).toMatch(/, and 10 of 20 other hosts in oslo regressed at the same time: region-wide, not this host\.$/);
    expect(count(9).verdict).toBe('regressed');
  });

  test('a gauge below its minimum change is not a cause, however large its relative rise', () => {
    const steal = stepSeries(0.1, 1.9);
    const out = explainRegression(withGauge(regressedHost(), 'cpu_steal', null, { before: 0.1, after: 1.9, perMinute: steal }));
    expect(out.causes).toEqual([]);
  });

  test('a gauge that rose by its minimum change but not to 1.5× its baseline is not a cause', () => {
    const out = explainRegression(withGauge(regressedHost(), 'cpu_steal', null, { before: 10, after: 13, perMinute: flatSeries(13) }));
    expect(out.causes).toEqual([]);
  });

  test('a gauge that stepped before the range and stayed flat in it is a cause with no correlation either way', () => {
    const out = explainRegression(withGauge(regressedHost(), 'cpu_iowait', null, { before: 0.8, after: 9, perMinute: flatSeries(9) }));
    expect(out.causes[0]).toMatchObject({ kind: 'iowait', correlation: null });
    expect(out.causes[0]!.summary).toBe('iowait 0.8 % → 9 %');
  });

  test('causes rank by strength: one that moved with p99 minute by minute beats a larger one that did not', () => {
    const tracking = stepSeries(1, 12);
    const untracked = new Map(minutes.map((t, i) => [t, i % 2 ? 30 : 2]));
    let input = withGauge(regressedHost(), 'psi_cpu', null, { before: 2, after: mean(tracking), perMinute: tracking });
    input = withGauge(input, 'cgroup_throttled_pct', '/system.slice/inference.service', { before: 0, after: 16, perMinute: untracked });
    const out = explainRegression(input);
    expect(out.causes.map((c) => c.kind)).toEqual(['pressure', 'throttling']);
    expect(out.causes[0]!.subject).toBe('cpu');
    expect(out.causes[1]!.summary).toBe('CPU throttling of /system.slice/inference.service 0 → 16 % of periods');
  });

  test('p99 exactly at 1.5 × its baseline is not a regression', () => {
    const out = explainRegression(regressedHost({ baseline: { p99Ms: 40, requests: 1e5, hours: 24, ofHours: 24 }, current: { p99Ms: 60, requests: 9000 } }));
    expect(out.verdict).toBe('no-regression');
    expect(out.summary).toBe('p99 of inference.request was 60 ms against a baseline of 40 ms (1.5×): no regression.');
    expect(out.causes).toEqual([]);
  });

  test('a rise above the ratio but under the minimum in milliseconds is not a regression', () => {
    const out = explainRegression(regressedHost({ baseline: { p99Ms: 2, requests: 1e5, hours: 24, ofHours: 24 }, current: { p99Ms: 6.5, requests: 9000 } }));
    expect(out.verdict).toBe('no-regression');
  });

  test('a handful of requests cannot raise it', () => {
    const out = explainRegression(regressedHost({ current: { p99Ms: 900, requests: DEFAULT_METHOD.minRequests - 1 } }));
    expect(out).toMatchObject({ verdict: 'insufficient-data', regressed: false, causes: [] });
    expect(out.summary).toBe('Too few requests of inference.request to judge: 199 in the range (at least 200).');
  });

  test('an hour of baseline is enough to judge: a new install need not wait out its first day', () => {
    const out = explainRegression(regressedHost({ baseline: { p99Ms: 31, requests: 5000, hours: 1, ofHours: 24 } }));
    expect(out).toMatchObject({ verdict: 'regressed', ratio: 2.45 });
    expect(out.summary).toBe('p99 of inference.request rose from 31 ms to 76 ms (2.5×; baseline: 1 h of 24); no host-level cause found.');
  });

  test('a baseline short of its day says how much it had, whatever the verdict', () => {
    const partial = { p99Ms: 31, requests: 9000, hours: 2, ofHours: 24 };
    expect(explainRegression(regressedHost({ baseline: partial })).summary).toContain('(2.5×; baseline: 2 h of 24)');
    const calm = explainRegression(regressedHost({ baseline: partial, current: { p99Ms: 33, requests: 9000 } }));
    expect(calm.summary).toBe('p99 of inference.request was 33 ms against a baseline of 31 ms (1.1×; baseline: 2 h of 24): no regression.');
    const regionWide = explainRegression(regressedHost({
      baseline: partial,
      region: { method: 'region-p99', region: 'oslo', otherHosts: 19, baseline: { p99Ms: 30, requests: 4e6, hours: 24, ofHours: 24 }, current: { p99Ms: 70, requests: 180_000 } },
    }));
    expect(regionWide).toMatchObject({ verdict: 'region-wide' });
    expect(regionWide.summary).toMatch(/^p99 of inference\.request rose from 31 ms to 76 ms \(2\.5×; baseline: 2 h of 24\), and the rest of oslo/);
  });

  test('under an hour of baseline it does not judge, and says what it has and what it needs', () => {
    const out = explainRegression(regressedHost({ baseline: { p99Ms: null, requests: 0, hours: 0, ofHours: 24 } }));
    expect(out).toMatchObject({ verdict: 'insufficient-data', regressed: false, ratio: null, causes: [] });
    expect(out.summary).toBe('No baseline for inference.request yet: 0 h of 24 with requests (it needs at least 1 h).');
    const halfHour = explainRegression(regressedHost({ baseline: { p99Ms: 31, requests: 900, hours: 0.5, ofHours: 24 } }));
    expect(halfHour.summary).toBe('No baseline for inference.request yet: 0.5 h of 24 with requests (it needs at least 1 h).');
  });

  test('spikes in a range in line with its baseline: a gauge spiking in the same minutes explains them; one that does not, nothing', () => {
    // Every sixth minute p99 spikes from ~100 ms to ~250 ms; the hour's p99 (182 ms) matches its baseline (175 ms).
    const spikesAt = (i: number) => i % 6 === 3;
    const p99 = new Map(minutes.map((t, i) => [t, (spikesAt(i) ? 250 : 100) + wobble(i)]));
    const steady = regressedHost({ baseline: { p99Ms: 175, requests: 1e5, hours: 24, ofHours: 24 }, current: { p99Ms: 182, requests: 9000 }, perMinuteP99: p99 });
    expect(explainRegression(steady)).toMatchObject({ verdict: 'no-regression', causes: [] });

    const steal = new Map(minutes.map((t, i) => [t, (spikesAt(i) ? 30 : 8) + wobble(i)]));
    const out = explainRegression(withGauge(steady, 'cpu_steal', null, { before: 11, after: mean(steal), perMinute: steal }));
    expect(out).toMatchObject({ verdict: 'recurring-spikes', regressed: false, causes: [{ kind: 'steal', before: expect.closeTo(8.2, 1), after: expect.closeTo(30.2, 1) }] });
    expect(out.summary).toBe(
      'p99 of inference.request was 182 ms, in line with its baseline of 175 ms (1.0×), but in 10 of 60 minutes it spiked above ' +
        '150 ms (to 250 ms; typically 100 ms), moving with steal 8.2 % → 30.2 % from calm minutes to spiking ones (ρ = 1.00). ' +
        'Its baseline hours held such spikes too: a standing problem, not a new one.',
    );
    // Two spiking minutes are a slow moment, not a pattern.
    const twice = new Map(minutes.map((t, i) => [t, (i === 10 || i === 40 ? 250 : 100) + wobble(i)]));
    expect(explainRegression(withGauge({ ...steady, perMinuteP99: twice }, 'cpu_steal', null, { before: 11, after: mean(steal), perMinute: steal })).verdict).toBe('no-regression');
  });

  test('the method comes from the caller', () => {
    expect(explainRegression(regressedHost(), { ...DEFAULT_METHOD, ratio: 3 }).verdict).toBe('no-regression');
  });
});
