import { describe, expect, test } from 'vitest';
import { DEFAULT_ALERT_RULES } from '../../../lib/alerts/default-rules';
import { instanceKey, seriesRequestKey } from '../../../lib/alerts/inputs';
import type { AlertRuleInput } from '../../../lib/protocol/alerts';
import { HOST, Simulation, ruleOf, seriesInputs } from './simulate';

const STEAL = ruleOf(DEFAULT_ALERT_RULES.find((r) => r.id === 'steal-spike')!);
const T0 = Date.parse('2026-12-07T10:00:00Z');
const SAMPLE_MS = 10_000;
const EVAL_MS = 15_000;

/** 10-second samples from `from` to `to` (ms after T0) of value(t). */
function samples(fromMs: number, toMs: number, value: (t: number) => number) {
  const out: { t: number; v: number }[] = [];
  for (let t = fromMs; t <= toMs; t += SAMPLE_MS) out.push({ t: T0 + t, v: value(t) });
  return out;
}

function runSteal(data: { t: number; v: number }[], untilMs: number, baseline: number | null, rule = STEAL) {
  const sim = new Simulation([rule]);
  for (let t = 0; t <= untilMs; t += EVAL_MS) {
    const inputs = seriesInputs(T0 + t, 'cpu_steal', rule.spec.windowMs, data);
    if (baseline !== null && rule.spec.relative) {
      (inputs.baselines as Map<string, unknown>).set(seriesRequestKey('cpu_steal', rule.spec.relative.baselineMs), new Map([[instanceKey(HOST.id, null), baseline]]));
    }
    sim.step(inputs);
  }
  return sim;
}

describe('the engine loop on literal series (injected clock)', () => {
  test('steal spike: 30 % for 5 minutes notifies firing once, after 2 minutes above, and resolved once', () => {
    const data = samples(0, 20 * 60_000, (t) => (t >= 5 * 60_000 && t < 10 * 60_000 ? 30 : 2));
    const sim = runSteal(data, 20 * 60_000, 4);
    expect(sim.sent.map((s) => s.event)).toEqual(['firing', 'resolved']);
    // The 1-minute average passes 10 % with the spike's second sample (evaluated at 5:15) and holds 2 minutes.
    expect(sim.sent[0]!.atMs - T0).toBe(7.25 * 60_000);
    // It clears (≤ 5 %) once no spike sample is left in the window (11:00) and resolves 2 minutes later.
    expect(sim.sent[1]!.atMs - T0).toBe(13 * 60_000);
    expect(sim.sent[0]!.annotations.summary).toMatch(/CPU steal spike on gpu-oslo-1: 30/);
  });

  test("a 1-minute spike is not an alert: the 1-minute average stays up 90 s, short of the 2-minute for-duration", () => {
    const data = samples(0, 10 * 60_000, (t) => (t >= 2 * 60_000 && t < 3 * 60_000 ? 40 : 1));
    const sim = runSteal(data, 10 * 60_000, 1);
    expect(sim.sent).toEqual([]);
    expect(sim.transitions.map((t) => t.transition)).toEqual(['pending', 'discarded']);
  });

  test("relative condition: 7 % steal alerts on a host whose own median is 0.5 %, not on one whose median is 4 %", () => {
    const data = samples(0, 10 * 60_000, (t) => (t >= 60_000 ? 7 : 0.5));
    expect(runSteal(data, 10 * 60_000, 0.5).sent.map((s) => s.event)).toEqual(['firing']);
    expect(runSteal(data, 10 * 60_000, 4).sent).toEqual([]);
    // Without a baseline (a host younger than a closed hour) only the absolute 10 % applies.
    expect(runSteal(data, 10 * 60_000, null).sent).toEqual([]);
  });

  test('a series hovering at the threshold, crossing it at every sample for an hour, notifies once', () => {
    const noisy = samples(0, 60 * 60_000, (t) => ((t / SAMPLE_MS) % 2 === 0 ? 8 : 12.5));
    const sim = runSteal(noisy, 60 * 60_000, 4);
    // The 1-minute average of alternating 8 / 12.5 sits at 10.25 ± 0.4: above 10, and far from the 5 % clear.
    expect(sim.sent.map((s) => s.event)).toEqual(['firing']);
  });

  test('the last sample crossing threshold and clear threshold every evaluation: one notification, not a storm', () => {
    const raw: AlertRuleInput = {
      id: 'raw-steal',
      title: 'raw steal',
      severity: 'warning',
      enabled: true,
      runbookUrl: null,
      spec: { metric: { kind: 'series', series: 'cpu_steal', aggregation: 'max' }, selector: {}, windowMs: SAMPLE_MS, threshold: 10, clearThreshold: 5, forMs: 0, clearForMs: 60_000 },
    };
    const flapping = samples(0, 60 * 60_000, (t) => ((t / SAMPLE_MS) % 2 === 0 ? 3 : 15));
    const sim = new Simulation([ruleOf(raw)]);
    for (let t = 0; t <= 60 * 60_000; t += SAMPLE_MS) sim.step(seriesInputs(T0 + t, 'cpu_steal', SAMPLE_MS, flapping));
    expect(sim.sent.length).toBeLessThanOrEqual(2);
    expect(sim.sent[0]?.event).toBe('firing');

    // The same series against a rule without hysteresis or clear-for: what the protection prevents.
    const naive = ruleOf({ ...raw, id: 'naive', spec: { ...raw.spec, clearThreshold: 10, clearForMs: 0 } });
    const storm = new Simulation([naive]);
    for (let t = 0; t <= 60 * 60_000; t += SAMPLE_MS) storm.step(seriesInputs(T0 + t, 'cpu_steal', SAMPLE_MS, flapping));
    expect(storm.sent.length).toBeGreaterThan(300);
  });

  test('a host that stops sending samples keeps its firing alert: no data is not a recovery', () => {
    const data = samples(0, 5 * 60_000, () => 30);
    const sim = runSteal(data, 15 * 60_000, 1);
    expect(sim.sent.map((s) => s.event)).toEqual(['firing']);
    expect(sim.activeAlerts()).toHaveLength(1);
  });
});
