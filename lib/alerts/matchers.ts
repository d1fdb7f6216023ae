import type { LabelMatcher } from '../protocol/alerts';

const regexCache = new Map<string, RegExp>();

function regexOf(pattern: string): RegExp {
  let re = regexCache.get(pattern);
  if (!re) {
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, (re = new RegExp(`^(?:${pattern})$`)));
  }
  return re;
}

/** Alertmanager's semantics: a missing label is the empty string, regexes are anchored, isEqual false negates. */
export function matches(matcher: LabelMatcher, labels: Record<string, string>): boolean {
  const value = labels[matcher.name] ?? '';
  const hit = matcher.isRegex ? regexOf(matcher.value).test(value) : value === matcher.value;
  return matcher.isEqual === false ? !hit : hit;
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
