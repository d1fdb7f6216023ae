import type { AlertRule } from '../protocol/alerts';
import type { MetricSource } from '../series/metrics';

// The label a keyed series' key becomes, by its raw table: the Alertmanager label an instance is told apart by.
const KEY_LABELS: Record<string, string> = {
  cpu_samples: 'cpu',
  disk_samples: 'device',
  process_samples: 'process',
  cgroup_samples: 'cgroup',
  probe_samples: 'probe',
};

export function keyLabelOf(source: Pick<MetricSource, 'raw' | 'key'>): string | null {
  return source.key === null ? null : (KEY_LABELS[source.raw] ?? 'key');
}

/** The labels that tell one instance of a rule from another, as `name=value` pairs in name order. */
export function fingerprintOf(identity: Record<string, string>): string {
  const names = Object.keys(identity);
  if (names.length === 1) return `${names[0]}=${identity[names[0]!]}`;
  return names
    .sort()
    .map((name) => `${name}=${identity[name]}`)
    .join(',');
}

/** Alertmanager's labels: alertname and severity, then what identifies the instance, then context (host, region). */
export function alertLabels(rule: Pick<AlertRule, 'id' | 'severity'>, identity: Record<string, string>, context: Record<string, string>): Record<string, string> {
  return { alertname: rule.id, severity: rule.severity, ...context, ...identity };
}
