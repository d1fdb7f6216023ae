import type { LabelMatcher } from '../protocol/alerts';
import { matcherMatches, type MatcherLike } from '../protocol/label-matchers';

const reportedPatterns = new Set<string>();

// A stored regex RE2 refuses was accepted before matchers were RE2; it is said once per process, not every cycle.
function reportUnusable(matcher: MatcherLike, reason: string): void {
  if (reportedPatterns.has(matcher.value)) return;
  reportedPatterns.add(matcher.value);
  console.warn(`alerts: the matcher ${matcher.name}${matcher.isEqual ? '=~' : '!~'}${JSON.stringify(matcher.value)} matches nothing: ${reason}`);
}

/** Alertmanager's semantics (lib/protocol/label-matchers): RE2 regexes, anchored; a missing label is the empty string. */
function matches(matcher: LabelMatcher, labels: Record<string, string>): boolean {
  return matcherMatches(matcher, labels, reportUnusable);
}

export function matchesAll(matchers: readonly LabelMatcher[], labels: Record<string, string>): boolean {
  return matchers.every((m) => matches(m, labels));
}

export interface SilenceWindow {
  id: number;
  matchers: LabelMatcher[];
  startsAtMs: number;
  endsAtMs: number;
}

export function isSilenced(silences: readonly SilenceWindow[], labels: Record<string, string>, nowMs: number): boolean {
  return silences.some((s) => s.startsAtMs <= nowMs && nowMs < s.endsAtMs && matchesAll(s.matchers, labels));
}
