import { InvalidPayloadError } from '../errors';
import type { ThresholdOverride, ThresholdScope } from '../protocol/findings';
import type { Rule } from './types';

/**
 * Hysteresis: a finding raises when the value passes `raise` and, once open, clears only below `clear`, so a
 * value hovering at the threshold does not open and resolve it every cycle.
 */
export function exceeds(value: number | null | undefined, raise: number, clear: number, open: boolean): boolean {
  if (value === null || value === undefined || !Number.isFinite(value)) return false;
  return open ? value > Math.min(clear, raise) : value > raise;
}

const SCOPE_ORDER: Record<ThresholdScope, number> = { fleet: 0, region: 1, labels: 2, host: 3 };

export interface ResolvedThresholds {
  values: Record<string, number>;
  disabled: boolean;
}

interface Target {
  hostId: number | null;
  region: string;
  labels: Record<string, string>;
}

function selectorLabels(override: ThresholdOverride): Record<string, string> {
  try {
    return JSON.parse(override.selector) as Record<string, string>;
  } catch {
    return {};
  }
}

function applies(override: ThresholdOverride, target: Target): boolean {
  switch (override.scope) {
    case 'fleet':
      return true;
    case 'region':
      return override.selector === target.region;
    case 'host':
      return target.hostId !== null && override.selector === String(target.hostId);
    case 'labels':
      return Object.entries(selectorLabels(override)).every(([key, value]) => target.labels[key] === value);
  }
}

function specificity(override: ThresholdOverride): [number, number, number] {
  const labelCount = override.scope === 'labels' ? Object.keys(selectorLabels(override)).length : 0;
  return [SCOPE_ORDER[override.scope], labelCount, override.id];
}

function compareSpecificity(a: ThresholdOverride, b: ThresholdOverride): number {
  const [sa, sb] = [specificity(a), specificity(b)];
  return sa[0] - sb[0] || sa[1] - sb[1] || sa[2] - sb[2];
}

/**
 * A rule's thresholds for one host (or region): its defaults, then every override that applies from the least to
 * the most specific (fleet → region → label selectors, fewer labels first → host), each replacing what it sets.
 */
export function resolveThresholds(rule: Rule, overrides: readonly ThresholdOverride[], target: Target): ResolvedThresholds {
  return thresholdResolver(rule, overrides)(target);
}

/**
 * resolveThresholds for many targets: the rule's overrides are picked and ordered once, and a rule without any
 * hands every target the same defaults.
 */
export function thresholdResolver(rule: Rule, overrides: readonly ThresholdOverride[]): (target: Target) => ResolvedThresholds {
  const defaults: Record<string, number> = {};
  for (const [name, spec] of Object.entries(rule.defaults)) defaults[name] = spec.value;
  const own = overrides.filter((o) => o.ruleId === rule.id).sort(compareSpecificity);
  if (own.length === 0) {
    const resolved = { values: defaults, disabled: false };
    return () => resolved;
  }
  return (target) => {
    const values = { ...defaults };
    let disabled = false;
    for (const override of own) {
      if (!applies(override, target)) continue;
      for (const [name, value] of Object.entries(override.thresholds)) if (name in values) values[name] = value;
      disabled = override.disabled;
    }
    return { values, disabled };
  };
}

/** Refuses an override for an unknown rule or naming a threshold the rule does not have. */
export function checkOverride(rules: readonly Rule[], input: { ruleId: string; thresholds: Record<string, number> }): Rule {
  const rule = rules.find((r) => r.id === input.ruleId);
  if (!rule) throw new InvalidPayloadError(`unknown rule ${input.ruleId}`, [{ path: 'ruleId', message: 'no such rule' }]);
  const unknown = Object.keys(input.thresholds).filter((name) => !(name in rule.defaults));
  if (unknown.length > 0) {
    const known = Object.keys(rule.defaults).join(', ') || 'none';
    throw new InvalidPayloadError(
      `rule ${rule.id} has no threshold ${unknown.join(', ')} (it has: ${known})`,
      unknown.map((name) => ({ path: `thresholds.${name}`, message: 'not a threshold of this rule' })),
    );
  }
  return rule;
}
