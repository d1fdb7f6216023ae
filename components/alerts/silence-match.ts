import type { LabelMatcher, Silence } from '@/lib/protocol/alerts';
import { matcherMatches } from '@/lib/protocol/label-matchers';

/** The active silences that hold back this alert's notifications. */
export function silencesOf(silences: readonly Silence[], labels: Record<string, string>, nowMs: number): Silence[] {
  return silences.filter(
    // The server's state counts too: a silence made a moment ago starts after the page's clock last ticked.
    (s) => (s.state === 'active' || Date.parse(s.startsAt) <= nowMs) && nowMs < Date.parse(s.endsAt) && s.matchers.every((m) => matcherMatches(m, labels)),
  );
}

export function matcherText(m: LabelMatcher): string {
  const op = m.isRegex ? (m.isEqual === false ? '!~' : '=~') : m.isEqual === false ? '!=' : '=';
  return `${m.name}${op}"${m.value}"`;
}

/** The matchers a silence of one alert starts from: its rule and what identifies its instance. */
export function matchersForAlert(labels: Record<string, string>): LabelMatcher[] {
  const names = ['alertname', 'host', 'device', 'process', 'cgroup', 'probe', 'cpu', 'service'].filter((n) => labels[n] !== undefined);
  if (!names.includes('host') && labels.region !== undefined) names.push('region');
  return names.map((name) => ({ name, value: labels[name]!, isRegex: false, isEqual: true }));
}
