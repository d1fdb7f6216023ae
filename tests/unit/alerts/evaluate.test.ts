import { describe, expect, test } from 'vitest';
import { DEFAULT_ALERT_RULES } from '../../../lib/alerts/default-rules';
import { evaluateAlerts, rulesFor } from '../../../lib/alerts/evaluate';
import { burnRequestKey, seriesRequestKey, type HostInfo, type LatencyBurnRow } from '../../../lib/alerts/inputs';
import { planAlertChanges, type ActiveAlert } from '../../../lib/alerts/plan';
import { HOST, Simulation, emptyInputs, ruleOf } from './simulate';

const rule = (id: string) => ruleOf(DEFAULT_ALERT_RULES.find((r) => r.id === id)!);
const NOW = Date.parse('2026-12-07T12:00:00Z');

function burnInputs(rows: Partial<LatencyBurnRow>[], windowMs: number, shortWindowMs: number) {
  const inputs = emptyInputs(NOW);
  (inputs.latencyBurn as Map<string, LatencyBurnRow[]>).set(
    burnRequestKey(200, windowMs, shortWindowMs),
    rows.map((r) => ({ region: 'oslo', service: 'generate', longTotal: 10_000, longBad: 0, shortTotal: 1_000, shortBad: 0, ...r })),
  );
  return inputs;
}

describe('latency burn rate, multi-window', () => {
  const fast = rule('latency-slo-fast-burn');

  test('raises only when both the 1 h and the 5 min window burn faster than 14.4×', () => {
    const cases = [
      // 20 % slow over 1 h (burn 20×) and 5 min (20×): raise.
      { longBad: 2_000, shortBad: 200, breaching: true, value: 20 },
      // Over 1 h, but the last 5 minutes are fine (2×): the problem is over, do not page.
      { longBad: 2_000, shortBad: 20, breaching: false, value: 2 },
      // A fresh 5-minute spike (30×) that the hour does not show yet (5×): not yet.
      { longBad: 500, shortBad: 300, breaching: false, value: 5 },
    ];
    for (const c of cases) {
      const [o] = evaluateAlerts([fast], burnInputs([c], fast.spec.windowMs, 5 * 60_000)).observations;
      expect(o?.judgement.breaching).toBe(c.breaching);
      expect(o?.value).toBeCloseTo(c.value);
      expect(o?.labels).toMatchObject({ alertname: 'latency-slo-fast-burn', region: 'oslo', service: 'generate', severity: 'critical' });
    }
  });

  test('judges nothing with fewer requests than minRequests in the short window', () => {
    const inputs = burnInputs([{ shortTotal: 99, shortBad: 99, longBad: 5_000 }], fast.spec.windowMs, 5 * 60_000);
    expect(evaluateAlerts([fast], inputs).observations).toEqual([]);
  });

  test('the 6 h / 30 min rule reads its own windows and raises above 6×', () => {
    const slow = rule('latency-slo-slow-burn');
    const inputs = burnInputs([{ longBad: 700, shortBad: 70 }], slow.spec.windowMs, 30 * 60_000);
    const [o] = evaluateAlerts([slow], inputs).observations;
    expect(o?.value).toBeCloseTo(7);
    expect(o?.judgement.breaching).toBe(true);
    expect(evaluateAlerts([fast], inputs).observations).toEqual([]);
  });
});

describe('host silence', () => {
  const silent = rule('host-silent');

  test('counts missed intervals in the host’s own interval; hosts that never reported are not judged', () => {
    const other: HostInfo = { id: 2, hostname: 'new', region: 'oslo', labels: {} };
    const slow: HostInfo = { id: 3, hostname: 'slow', region: 'oslo', labels: {} };
    const inputs = emptyInputs(NOW, [HOST, other, slow]);
    const heard = inputs.heard as Map<number, { lastHeardMs: number | null; intervalMs: number | null }>;
    heard.set(HOST.id, { lastHeardMs: NOW - 45_000, intervalMs: 10_000 });
    heard.set(other.id, { lastHeardMs: null, intervalMs: null });
    heard.set(slow.id, { lastHeardMs: NOW - 45_000, intervalMs: 60_000 });
    const observations = evaluateAlerts([silent], inputs).observations;
    expect(observations.map((o) => [o.hostId, o.value, o.judgement.breaching])).toEqual([
      [HOST.id, 4.5, true],
      [slow.id, 0.75, false],
    ]);
  });
});

describe('critical findings', () => {
  const findingRule = rule('critical-finding');
  const finding = { id: 7, ruleId: 'cpu.avx512-hidden', hostId: HOST.id, region: 'oslo', subject: '', severity: 'critical' as const, message: 'AVX-512 is hidden.', remedy: 'Pass the host CPU model.' };

  test('fires at once for an open critical finding and resolves once it is no longer open', () => {
    const sim = new Simulation([findingRule]);
    sim.step({ ...emptyInputs(NOW), findings: [finding, { ...finding, id: 8, ruleId: 'threads.oversubscribed', severity: 'warning' }] });
    expect(sim.sent.map((s) => [s.event, s.annotations.description])).toEqual([['firing', 'AVX-512 is hidden. Remedy: Pass the host CPU model.']]);
    sim.step({ ...emptyInputs(NOW + 15_000), findings: [] });
    expect(sim.sent.map((s) => s.event)).toEqual(['firing', 'resolved']);
  });

  test('a finding whose severity swings between warning and critical keeps one firing alert until the finding resolves', () => {
    const sim = new Simulation([findingRule]);
    for (let cycle = 0; cycle < 12; cycle++) {
      const severity = cycle % 2 === 0 ? ('critical' as const) : ('warning' as const);
      sim.step({ ...emptyInputs(NOW + cycle * 60_000), findings: [{ ...finding, severity }] });
    }
    expect(sim.activeAlerts()).toHaveLength(1);
    expect(sim.transitions.map((t) => t.transition)).toEqual(['firing']);
    expect(sim.sent.map((s) => s.event)).toEqual(['firing']);
    sim.step({ ...emptyInputs(NOW + 12 * 60_000), findings: [] });
    expect(sim.sent.map((s) => s.event)).toEqual(['firing', 'resolved']);
  });

  test('a finding that opens at warning and stays there raises nothing', () => {
    const sim = new Simulation([findingRule]);
    sim.step({ ...emptyInputs(NOW), findings: [{ ...finding, severity: 'warning' }] });
    sim.step({ ...emptyInputs(NOW + 60_000), findings: [{ ...finding, severity: 'warning' }] });
    expect(sim.activeAlerts()).toEqual([]);
    expect(sim.sent).toEqual([]);
  });

  test('a targeted cycle (after one host’s ingest) leaves finding alerts alone', () => {
    const sim = new Simulation([findingRule]);
    sim.step({ ...emptyInputs(NOW), findings: [finding] });
    sim.step({ ...emptyInputs(NOW + 1_000), findings: undefined, targetHosts: new Set([HOST.id]) });
    expect(sim.activeAlerts()).toHaveLength(1);
  });
});

describe('targeted cycles', () => {
  test('judge the short-window series rules only: what one report can change at once', () => {
    const all = DEFAULT_ALERT_RULES.map(ruleOf);
    expect(rulesFor(all, true).map((r) => r.id)).toEqual(['steal-spike']);
    expect(rulesFor(all, false)).toHaveLength(all.length);
    expect(rulesFor([{ ...all[0]!, enabled: false }], false)).toEqual([]);
  });
});

describe('coverage and selectors', () => {
  const disk = rule('disk-queue-saturated');
  const active = (overrides: Partial<ActiveAlert>): ActiveAlert => ({
    id: 1, ruleId: disk.id, fingerprint: 'device=vdb,host_id=1', hostId: HOST.id, region: 'oslo', state: 'firing', severity: 'warning',
    labels: {}, annotations: {}, pendingAtMs: NOW - 60_000, firedAtMs: NOW - 60_000, clearSinceMs: null, peakValue: 9, notified: 'firing', ...overrides,
  });

  function diskInputs(rows: { hostId: number; key: string; avg: number }[], covered: number[]) {
    const inputs = emptyInputs(NOW, [HOST, { id: 2, hostname: 'b', region: 'frankfurt', labels: {} }]);
    (inputs.series as Map<string, unknown>).set(seriesRequestKey('disk_queue_depth', disk.spec.windowMs), {
      rows: rows.map((r) => ({ ...r, max: r.avg })),
      coveredHosts: new Set(covered),
    });
    return inputs;
  }

  test('one instance per (host, device), labelled with the device', () => {
    const inputs = diskInputs([{ hostId: 1, key: 'vda', avg: 0.2 }, { hostId: 1, key: 'vdb', avg: 9 }], [1]);
    const observations = evaluateAlerts([disk], inputs).observations;
    expect(observations.map((o) => [o.fingerprint, o.judgement.breaching])).toEqual([
      ['device=vda,host_id=1', false],
      ['device=vdb,host_id=1', true],
    ]);
    expect(observations[1]!.labels).toMatchObject({ device: 'vdb', host: HOST.hostname, host_id: '1', region: 'oslo' });
  });

  test('a device its host no longer reports clears; a host that sent nothing keeps its alert', () => {
    const rules = new Map([[disk.id, { ...disk, spec: { ...disk.spec, clearForMs: 0 } }]]);
    const plan = (covered: number[]) => {
      const evaluation = evaluateAlerts([...rules.values()], diskInputs([{ hostId: 1, key: 'vda', avg: 0.2 }].filter(() => covered.length > 0), covered));
      return planAlertChanges({ rules, active: [active({})], observations: evaluation.observations, coverage: evaluation, nowMs: NOW, annotate: () => ({}) });
    };
    expect(plan([1]).resolves.map((r) => r.id)).toEqual([1]);
    expect(plan([]).resolves).toEqual([]);
  });

  test('a selector by region or labels restricts the hosts a rule watches', () => {
    const scoped = { ...disk, spec: { ...disk.spec, selector: { regions: ['frankfurt'] } } };
    const inputs = diskInputs([{ hostId: 1, key: 'vda', avg: 9 }, { hostId: 2, key: 'vda', avg: 9 }], [1, 2]);
    expect(evaluateAlerts([scoped], inputs).observations.map((o) => o.hostId)).toEqual([2]);
    const byLabel = { ...disk, spec: { ...disk.spec, selector: { labels: { team: 'ml' } } } };
    expect(evaluateAlerts([byLabel], inputs).observations.map((o) => o.hostId)).toEqual([1]);
  });

  test('disabling a rule ends its occurrences on the next full cycle, not on a targeted one', () => {
    const evaluation = evaluateAlerts([], emptyInputs(NOW));
    const base = { rules: new Map(), active: [active({}), active({ id: 2, state: 'pending', firedAtMs: null })], observations: [], coverage: evaluation, nowMs: NOW, annotate: () => ({}) };
    const full = planAlertChanges({ ...base, endOrphans: true });
    expect([full.resolves.map((r) => r.id), full.discards]).toEqual([[1], [2]]);
    const targeted = planAlertChanges({ ...base, endOrphans: false });
    expect([targeted.resolves, targeted.discards]).toEqual([[], []]);
  });
});
