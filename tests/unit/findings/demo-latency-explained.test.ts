import { describe, expect, test } from 'vitest';
import { DEMO_INTERVAL_MS, demoFleet, type DemoCondition, type DemoHost } from '../../../lib/demo/fleet';
import { demoReport } from '../../../lib/demo/report';
import { explainRegression, type ExplainInput } from '../../../lib/findings/latency/explain-regression';
import type { GaugeObservation } from '../../../lib/findings/latency/facts';
import { CAUSE_GAUGES } from '../../../lib/findings/latency/method';
import { median } from '../../../lib/findings/latency/rank-correlation';
import type { Report, SketchWire } from '../../../lib/protocol';
import { HOUR_MS, MINUTE_MS, floorTo } from '../../../lib/protocol/time';
import { mergeWires, quantileOfWire } from '../../../lib/sketch';

const TO_MS = Date.UTC(2026, 11, 5, 14, 0, 0);
const fleet = demoFleet({ epochMs: TO_MS - 30 * HOUR_MS });
const hostWith = (condition: DemoCondition | null) => fleet.find((h) => h.condition === condition)!;

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const p99 = (wires: readonly SketchWire[]) => quantileOfWire(mergeWires(wires), 0.99);
const stealOf = (r: Report) => ('total' in r.cpu ? r.cpu.total.stealPct : null);
const kvCacheOf = (r: Report) => r.servers?.[0]?.kvCachePct ?? null;
const preemptionsOf = (r: Report) => r.servers?.[0]?.preemptionsPerMin ?? null;
const psiCpuOf = (r: Report) => (r.pressure && 'cpu' in r.pressure && 'some' in r.pressure.cpu ? r.pressure.cpu.some.avg10 : null);

function group<T>(items: readonly T[], keyOf: (item: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const item of items) out.set(keyOf(item), [...(out.get(keyOf(item)) ?? []), item]);
  return out;
}

/**
 * What explainLatency reads for the hour before TO_MS, measured on the demo host's own reports: hourly p99s over the
 * 24 whole hours before it (their median the baseline), the hour's p99, p99 and gauges per minute.
 */
function demoExplainInput(host: DemoHost): ExplainInput {
  const fromMs = TO_MS - HOUR_MS;
  const baselineFromMs = floorTo(fromMs, HOUR_MS) - 24 * HOUR_MS;
  const reports: Report[] = [];
  for (let t = baselineFromMs + DEMO_INTERVAL_MS, seq = 0; t <= TO_MS; t += DEMO_INTERVAL_MS) reports.push(demoReport(host, t, seq++));
  const wiresOf = (rs: readonly Report[]) => rs.flatMap((r) => (r.latency ?? []).map((l) => l.sketch));
  // A report's samples cover the interval ending at its ts: it belongs to the minute its interval began in.
  const bucketOf = (size: number) => (r: Report) => floorTo(r.ts - DEMO_INTERVAL_MS, size);
  const baselineReports = reports.filter((r) => r.ts <= floorTo(fromMs, HOUR_MS));
  const current = reports.filter((r) => r.ts > fromMs);
  const hourly = [...group(baselineReports, bucketOf(HOUR_MS)).values()];
  const minutes = group(current, bucketOf(MINUTE_MS));
  const gauge = (metric: string, read: (r: Report) => number | null, key: string | null = null): GaugeObservation => {
    const perMinute = new Map([...minutes].map(([t, rs]) => [t, mean(rs.map((r) => read(r)!))]));
    return {
      gauge: CAUSE_GAUGES.find((g) => g.metric === metric)!,
      key,
      before: mean(hourly.map((rs) => mean(rs.map((r) => read(r)!)))),
      after: mean([...perMinute.values()]),
      perMinute,
    };
  };
  return {
    name: 'inference.request',
    fromMs,
    toMs: TO_MS,
    baseline: { p99Ms: median(hourly.map((rs) => p99(wiresOf(rs))!)), requests: wiresOf(baselineReports).reduce((n, w) => n + w.count, 0), hours: hourly.length, ofHours: 24 },
    current: { p99Ms: p99(wiresOf(current)), requests: wiresOf(current).reduce((n, w) => n + w.count, 0) },
    perMinuteP99: new Map([...minutes].map(([t, rs]) => [t, p99(wiresOf(rs))!])),
    gauges: [
      gauge('cpu_steal', stealOf),
      gauge('psi_cpu', psiCpuOf),
      ...(reports[0]!.servers ? [gauge('server_kv_cache', kvCacheOf, 'vllm'), gauge('server_preemptions', preemptionsOf, 'vllm')] : []),
    ],
    inventory: [],
    region: null,
  };
}

describe('latency explained on the demo fleet', () => {
  test('the noisy neighbour\'s p99 spikes with its steal every few minutes: steal explains them, though the hour is in line with its baseline', () => {
    const input = demoExplainInput(hostWith('noisy-neighbour'));
    const out = explainRegression(input);
    expect(out).toMatchObject({ verdict: 'recurring-spikes', regressed: false });
    expect(out.causes[0]).toMatchObject({ kind: 'steal', series: { metric: 'cpu_steal', key: null } });
    expect(out.causes[0]!.correlation).toBeGreaterThan(0.6);
    const typical = median([...input.perMinuteP99.values()])!;
    const peak = Math.max(...input.perMinuteP99.values());
    expect(peak).toBeGreaterThan(2 * typical);
    expect(out.summary).toMatch(/^p99 of inference\.request was \d+ ms, in line with its baseline of \d+ ms \(\d\.\d+×\), but in \d+ of 60 minutes it spiked above \d+ ms \(to \d+ ms; typically \d+ ms\), moving with steal /);
    expect(out.summary).toContain(`to ${Math.round(peak)} ms; typically ${Math.round(typical)} ms`);
  });

  test('the LLM host\'s p99 spikes with its engine\'s preemption bursts: latency explained names KV pressure, not the host', () => {
    const out = explainRegression(demoExplainInput(hostWith('kv-pressure')));
    expect(out).toMatchObject({ verdict: 'recurring-spikes', regressed: false });
    expect(out.causes.map((c) => [c.kind, c.subject, c.series?.metric])).toEqual([
      ['kv-cache', 'vllm', 'server_preemptions'],
      ['kv-cache', 'vllm', 'server_kv_cache'],
    ]);
    expect(out.causes[0]!.correlation).toBeGreaterThan(0.5);
    expect(out.causes[1]!.after).toBeGreaterThan(97);
    expect(out.summary).toMatch(/moving with vllm preemptions [\d.]+\/min → [\d.]+\/min from calm minutes to spiking ones \(ρ = 0\.\d\d\); also vllm KV cache [\d.]+ % → [\d.]+ % from calm minutes to spiking ones/);
    expect(out.summary).toMatch(/KV cache pressure .*raise `gpu_memory_utilization`/);
  });

  test('a demo host without a planted problem has nothing to explain', () => {
    const out = explainRegression(demoExplainInput(hostWith(null)));
    expect(out).toMatchObject({ verdict: 'no-regression', causes: [] });
  });
});
