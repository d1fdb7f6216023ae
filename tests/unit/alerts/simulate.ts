import { evaluateAlerts, type Observation } from '../../../lib/alerts/evaluate';
import { describeObservation } from '../../../lib/alerts/describe';
import { seriesRequestKey, type AlertInputs, type HostInfo } from '../../../lib/alerts/inputs';
import { planNotifications, type NotifiableAlert } from '../../../lib/alerts/notify-plan';
import { planAlertChanges, type ActiveAlert } from '../../../lib/alerts/plan';
import type { AlertRule, AlertRuleInput } from '../../../lib/protocol/alerts';
import type { SeriesMetric } from '../../../lib/protocol/read-api/series';

export const HOST: HostInfo = { id: 1, hostname: 'gpu-oslo-1', region: 'oslo', labels: { team: 'ml' } };

export function ruleOf(input: AlertRuleInput): AlertRule {
  return { ...input, builtin: true, createdAt: '2026-12-01T00:00:00.000Z', updatedAt: '2026-12-01T00:00:00.000Z' };
}

export function emptyInputs(nowMs: number, hosts: HostInfo[] = [HOST]): AlertInputs {
  return {
    nowMs,
    hosts: new Map(hosts.map((h) => [h.id, h])),
    series: new Map(),
    baselines: new Map(),
    heard: new Map(),
    latencyBurn: new Map(),
    latencyHistograms: new Map(),
    findings: [],
  };
}

/** The window average and maximum of literal samples, as readSeriesWindows computes them from raw rows. */
export function windowOf(samples: readonly { t: number; v: number }[], toMs: number, windowMs: number) {
  const inside = samples.filter((s) => s.t > toMs - windowMs && s.t <= toMs);
  if (inside.length === 0) return null;
  return { avg: inside.reduce((a, s) => a + s.v, 0) / inside.length, max: Math.max(...inside.map((s) => s.v)) };
}

interface Stored extends ActiveAlert {
  state: 'pending' | 'firing';
}

export interface Sent {
  atMs: number;
  event: 'firing' | 'resolved';
  fingerprint: string;
  annotations: Record<string, string>;
}

/**
 * The engine's loop without a database: evaluate → plan → apply to an in-memory store → plan notifications to one
 * webhook channel, at each evaluation time. What it returns is what a receiver would have been sent.
 */
export class Simulation {
  private readonly active = new Map<string, Stored>();
  private readonly resolved: { id: number; fingerprint: string }[] = [];
  private nextId = 1;
  readonly sent: Sent[] = [];
  readonly transitions: { atMs: number; transition: string }[] = [];

  constructor(private readonly rules: AlertRule[]) {}

  step(inputs: AlertInputs): Observation[] {
    const nowMs = inputs.nowMs;
    const evaluation = evaluateAlerts(this.rules, inputs);
    const ruleMap = new Map(this.rules.map((r) => [r.id, r]));
    const changes = planAlertChanges({
      rules: ruleMap,
      active: [...this.active.values()],
      observations: evaluation.observations,
      coverage: evaluation,
      nowMs,
      annotate: (o) => describeObservation(ruleMap.get(o.ruleId)!, o),
      endOrphans: inputs.targetHosts === undefined,
    });
    for (const t of changes.transitions) this.transitions.push({ atMs: nowMs, transition: t.transition });
    for (const w of changes.inserts) {
      const id = this.nextId++;
      this.active.set(`${w.ruleId}|${w.fingerprint}`, { ...w, ...w.phase, id, notified: 'none' });
    }
    for (const w of changes.updates) {
      const key = `${w.ruleId}|${w.fingerprint}`;
      const current = this.active.get(key)!;
      this.active.set(key, { ...current, ...w, ...w.phase });
    }
    const resolvedNow: NotifiableAlert[] = [];
    for (const r of changes.resolves) {
      const [key, alert] = [...this.active.entries()].find(([, a]) => a.id === r.id)!;
      this.active.delete(key);
      resolvedNow.push(this.notifiable({ ...alert, annotations: r.annotations }, 'resolved', nowMs));
    }
    for (const id of changes.discards) {
      const [key] = [...this.active.entries()].find(([, a]) => a.id === id)!;
      this.active.delete(key);
    }
    const candidates = [
      ...[...this.active.values()].filter((a) => a.state === 'firing').map((a) => this.notifiable(a, 'firing', nowMs)),
      ...resolvedNow,
    ];
    const plan = planNotifications(candidates, [{ id: 1, kind: 'webhook', minSeverity: 'info', matchers: [] }], [], nowMs, new Map(candidates.map((c) => [c.id, new Set([1])])));
    for (const e of plan.events) this.sent.push({ atMs: nowMs, event: e.event, fingerprint: e.payload.alert.labels.host_id ?? '', annotations: e.payload.alert.annotations });
    for (const n of plan.notified) {
      const alert = [...this.active.values()].find((a) => a.id === n.alertId);
      if (alert) alert.notified = n.notified;
    }
    return evaluation.observations;
  }

  activeAlerts(): Stored[] {
    return [...this.active.values()];
  }

  private notifiable(a: Stored, state: 'firing' | 'resolved', nowMs: number): NotifiableAlert {
    return {
      id: a.id,
      ruleId: a.ruleId,
      state,
      severity: a.severity,
      hostId: a.hostId,
      region: a.region,
      labels: a.labels,
      annotations: a.annotations,
      value: null,
      threshold: null,
      firedAtMs: a.firedAtMs ?? nowMs,
      resolvedAtMs: state === 'resolved' ? nowMs : null,
      notified: a.notified,
      url: 'http://inferwatch.test/',
    };
  }
}

/** Inputs holding one host series window computed from literal samples. */
export function seriesInputs(nowMs: number, series: SeriesMetric, windowMs: number, samples: readonly { t: number; v: number }[], host = HOST): AlertInputs {
  const inputs = emptyInputs(nowMs, [host]);
  const w = windowOf(samples, nowMs, windowMs);
  (inputs.series as Map<string, unknown>).set(seriesRequestKey(series, windowMs), {
    rows: w ? [{ hostId: host.id, key: null, avg: w.avg, max: w.max }] : [],
    coveredHosts: new Set(w ? [host.id] : []),
  });
  return inputs;
}
