import type { ThresholdOverride } from '../../protocol/findings';
import type { StoredFinding } from '../store/findings';
import { thresholdResolver, type ResolvedThresholds } from '../thresholds';
import type { FleetFacts, HostFacts, HostRule, RegionFacts, RegionRule, Rule, Verdict } from '../types';

export interface EvaluatedVerdict {
  ruleId: string;
  hostId: number | null;
  region: string;
  subject: string;
  openAfterMs: number;
  verdict: Verdict;
}

export interface EvaluationInput {
  nowMs: number;
  rules: readonly Rule[];
  hosts: readonly HostFacts[];
  fleet: FleetFacts;
  /** Present on full cycles only; region rules are skipped (their findings left alone) without it. */
  regions?: readonly RegionFacts[];
  overrides: readonly ThresholdOverride[];
  active: readonly StoredFinding[];
}

export interface RuleFailure {
  ruleId: string;
  hostId: number | null;
  error: string;
}

export interface Evaluation {
  verdicts: EvaluatedVerdict[];
  /** Keys (see coverageKey) of the (rule, host) and (rule, region) pairs judged this cycle: only their findings may resolve. */
  covered: Set<string>;
  failures: RuleFailure[];
}

export const findingKey = (f: { ruleId: string; hostId: number | null; region: string; subject: string }) =>
  f.hostId !== null ? `${f.ruleId}|h${f.hostId}|${f.subject}` : `${f.ruleId}|r${f.region}|${f.subject}`;

export const coverageKey = (f: { ruleId: string; hostId: number | null; region: string }) =>
  f.hostId !== null ? `${f.ruleId}|h${f.hostId}` : `${f.ruleId}|r${f.region}`;

function hasInputs(rule: HostRule, facts: HostFacts): boolean {
  switch (rule.needs) {
    case 'inventory':
      return facts.inventory !== null;
    case 'window':
      return facts.window !== null;
    case 'both':
      return facts.inventory !== null && facts.window !== null;
    case 'latency':
      return facts.latency != null;
    case 'none':
      return true;
  }
}

/** Runs every rule over every host (and region) it has inputs for. Pure: the engine around it reads and writes. */
export function evaluateFindings(input: EvaluationInput): Evaluation {
  const openKeys = new Set(input.active.filter((f) => f.state === 'open').map(findingKey));
  const verdicts: EvaluatedVerdict[] = [];
  const covered = new Set<string>();
  const failures: RuleFailure[] = [];

  for (const rule of input.rules) {
    if (rule.scope === 'host') {
      const thresholdsOf = thresholdResolver(rule, input.overrides);
      for (const facts of input.hosts) evaluateHostRule(rule, facts, thresholdsOf);
    } else if (input.regions) {
      evaluateRegionRule(rule, input.regions);
    }
  }
  return { verdicts, covered, failures };

  function evaluateHostRule(rule: HostRule, facts: HostFacts, thresholdsOf: (target: { hostId: number; region: string; labels: Record<string, string> }) => ResolvedThresholds): void {
    const { id: hostId, region, labels } = facts.host;
    if (!hasInputs(rule, facts)) return;
    const thresholds = thresholdsOf({ hostId, region, labels });
    covered.add(coverageKey({ ruleId: rule.id, hostId, region }));
    if (thresholds.disabled) return;
    try {
      const ctx = {
        nowMs: input.nowMs,
        fleet: input.fleet,
        isOpen: (subject = '') => openKeys.has(findingKey({ ruleId: rule.id, hostId, region, subject })),
      };
      for (const verdict of rule.evaluate(facts, thresholds.values, ctx)) {
        verdicts.push({ ruleId: rule.id, hostId, region, subject: verdict.subject ?? '', openAfterMs: rule.openAfterMs, verdict });
      }
    } catch (err) {
      // A rule that throws judges nothing this cycle: its findings stay as they were.
      covered.delete(coverageKey({ ruleId: rule.id, hostId, region }));
      failures.push({ ruleId: rule.id, hostId, error: (err as Error).message });
    }
  }

  function evaluateRegionRule(rule: RegionRule, regions: readonly RegionFacts[]): void {
    const thresholds = thresholdResolver(rule, input.overrides)({ hostId: null, region: '', labels: {} });
    for (const r of regions) covered.add(coverageKey({ ruleId: rule.id, hostId: null, region: r.region }));
    if (thresholds.disabled) return;
    try {
      const ctx = {
        nowMs: input.nowMs,
        fleet: input.fleet,
        isOpen: (region: string, subject = '') => openKeys.has(findingKey({ ruleId: rule.id, hostId: null, region, subject })),
      };
      for (const verdict of rule.evaluate([...regions], thresholds.values, ctx)) {
        verdicts.push({ ruleId: rule.id, hostId: null, region: verdict.region, subject: verdict.subject ?? '', openAfterMs: rule.openAfterMs, verdict });
      }
    } catch (err) {
      for (const r of regions) covered.delete(coverageKey({ ruleId: rule.id, hostId: null, region: r.region }));
      failures.push({ ruleId: rule.id, hostId: null, error: (err as Error).message });
    }
  }
}
