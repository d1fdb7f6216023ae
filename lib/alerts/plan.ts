import type { AlertRule } from '../protocol/alerts';
import type { Severity } from '../protocol/findings';
import type { Coverage, Observation } from './evaluate';
import { samePhase, stepAlert, type ActivePhase, type Transition } from './state-machine';

/** An unresolved occurrence as stored. */
export interface ActiveAlert {
  id: number;
  ruleId: string;
  fingerprint: string;
  hostId: number | null;
  region: string | null;
  state: 'pending' | 'firing';
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  pendingAtMs: number;
  firedAtMs: number | null;
  clearSinceMs: number | null;
  peakValue: number | null;
  notified: 'none' | 'firing' | 'resolved';
}

export interface AlertWrite {
  ruleId: string;
  fingerprint: string;
  hostId: number | null;
  region: string | null;
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  value: number | null;
  peakValue: number | null;
  threshold: number | null;
  phase: ActivePhase;
}

export interface AlertChanges {
  inserts: AlertWrite[];
  updates: (AlertWrite & { id: number })[];
  /** Firing occurrences that cleared for long enough: resolved with their last value. */
  resolves: { id: number; value: number | null; annotations: Record<string, string> }[];
  /** Pending occurrences whose condition went away before they fired: they never happened. */
  discards: number[];
  transitions: { ruleId: string; fingerprint: string; transition: Transition }[];
}

const alertKey = (a: { ruleId: string; fingerprint: string }) => `${a.ruleId}\u0000${a.fingerprint}`;

function peakOf(previous: number | null, value: number | null): number | null {
  if (value === null) return previous;
  return previous === null ? value : Math.max(previous, value);
}

/**
 * What to write so the stored occurrences follow the state machine: each observation steps its instance; a
 * stored occurrence without an observation steps as cleared only if this cycle covered it, else it is left alone.
 */
export function planAlertChanges(input: {
  rules: ReadonlyMap<string, AlertRule>;
  active: readonly ActiveAlert[];
  observations: readonly Observation[];
  coverage: Coverage;
  nowMs: number;
  annotate: (o: Observation, current: ActiveAlert | undefined) => Record<string, string>;
  /** Full cycles end the occurrences of rules that are no longer enabled (`rules` holds the enabled ones). */
  endOrphans?: boolean;
}): AlertChanges {
  const { rules, nowMs } = input;
  const byKey = new Map(input.active.map((a) => [alertKey(a), a]));
  const seen = new Set<string>();
  const changes: AlertChanges = { inserts: [], updates: [], resolves: [], discards: [], transitions: [] };

  for (const o of input.observations) {
    const key = alertKey(o);
    const rule = rules.get(o.ruleId);
    if (seen.has(key) || !rule) continue;
    seen.add(key);
    const current = byKey.get(key);
    const step = stepAlert(current ?? null, o.judgement, rule.spec, nowMs);
    if (step.transition) changes.transitions.push({ ruleId: o.ruleId, fingerprint: o.fingerprint, transition: step.transition });
    if (step.transition === 'discarded') {
      changes.discards.push(current!.id);
      continue;
    }
    const annotations = input.annotate(o, current);
    if (step.transition === 'resolved') {
      changes.resolves.push({ id: current!.id, value: o.value, annotations });
      continue;
    }
    if (!step.next) continue;
    const write: AlertWrite = {
      ruleId: o.ruleId,
      fingerprint: o.fingerprint,
      hostId: o.hostId,
      region: o.region,
      severity: rule.severity,
      labels: o.labels,
      annotations,
      value: o.value,
      peakValue: peakOf(current?.peakValue ?? null, o.value),
      threshold: o.thresholds.threshold,
      phase: step.next,
    };
    if (current) changes.updates.push({ ...write, id: current.id });
    else changes.inserts.push(write);
  }

  for (const a of input.active) {
    const key = alertKey(a);
    const rule = rules.get(a.ruleId);
    if (seen.has(key)) continue;
    if (!rule) {
      if (!input.endOrphans) continue;
      changes.transitions.push({ ruleId: a.ruleId, fingerprint: a.fingerprint, transition: a.state === 'firing' ? 'resolved' : 'discarded' });
      if (a.state === 'firing') changes.resolves.push({ id: a.id, value: null, annotations: a.annotations });
      else changes.discards.push(a.id);
      continue;
    }
    if (!input.coverage.covers(a)) continue;
    const step = stepAlert(a, { breaching: false, clear: true }, rule.spec, nowMs);
    if (step.transition) changes.transitions.push({ ruleId: a.ruleId, fingerprint: a.fingerprint, transition: step.transition });
    if (step.transition === 'discarded') changes.discards.push(a.id);
    else if (step.transition === 'resolved') changes.resolves.push({ id: a.id, value: null, annotations: a.annotations });
    else if (step.next && !samePhase(step.next, a)) {
      changes.updates.push({ ...a, value: null, threshold: null, phase: step.next });
    }
  }
  return changes;
}
