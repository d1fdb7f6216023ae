import type { AlertRuleSpec } from '../protocol/alerts';
import type { Judgement } from './state-machine';

export interface EffectiveThresholds {
  threshold: number;
  clearThreshold: number;
  /** The instance's own median when a relative condition applies, else null. */
  baseline: number | null;
  /** True when the relative condition set the threshold below the absolute one. */
  relative: boolean;
}

/**
 * "Above the threshold, or above factor × the instance's median and minValue": the lower of the two raise
 * thresholds wins, and the clear threshold keeps its ratio to the raise threshold, so hysteresis scales with it.
 */
export function effectiveThresholds(spec: Pick<AlertRuleSpec, 'threshold' | 'clearThreshold' | 'relative'>, baseline: number | null): EffectiveThresholds {
  const absolute = { threshold: spec.threshold, clearThreshold: spec.clearThreshold, baseline: null, relative: false };
  if (!spec.relative || baseline === null || !Number.isFinite(baseline)) return absolute;
  const relativeThreshold = Math.max(spec.relative.factor * baseline, spec.relative.minValue);
  if (relativeThreshold >= spec.threshold || spec.threshold <= 0) return { ...absolute, baseline };
  const ratio = spec.clearThreshold / spec.threshold;
  return { threshold: relativeThreshold, clearThreshold: relativeThreshold * ratio, baseline, relative: true };
}

/** A value of null means the instance is gone (a device no longer reported): it counts as cleared. */
export function judge(value: number | null, thresholds: Pick<EffectiveThresholds, 'threshold' | 'clearThreshold'>): Judgement {
  if (value === null) return { breaching: false, clear: true };
  return { breaching: value > thresholds.threshold, clear: value <= thresholds.clearThreshold };
}

/** How many times faster than the objective allows the error budget is being spent: 1 spends it exactly. */
export function burnRate(total: number, bad: number, objective: number): number {
  if (total <= 0) return 0;
  return bad / total / (1 - objective);
}
