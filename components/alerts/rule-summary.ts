import type { AlertRuleSpec } from '@/lib/protocol/alerts';

export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0 s';
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** "avg cpu_steal over 1 min > 10 (clears ≤ 5), for 2 min": a rule's condition in one line. */
export function describeSpec(spec: AlertRuleSpec): string {
  const m = spec.metric;
  const what =
    m.kind === 'series'
      ? `${m.aggregation} ${m.series}`
      : m.kind === 'latency-quantile'
        ? `p${+(m.quantile * 100).toFixed(3)} latency (ms)`
        : m.kind === 'latency-burn'
          ? `error-budget burn of ${+(m.objective * 100).toFixed(3)} % ≤ ${m.latencyMs} ms (short window ${formatDurationMs(m.shortWindowMs)})`
          : m.kind === 'host-silence'
            ? 'report intervals missed'
            : `open finding${m.findingRuleId ? ` ${m.findingRuleId}` : ''} at ${m.minSeverity} or worse`;
  const relative = spec.relative ? `, or ${spec.relative.factor}× its ${formatDurationMs(spec.relative.baselineMs)} median (at least ${spec.relative.minValue})` : '';
  const forText = spec.forMs ? `, for ${formatDurationMs(spec.forMs)}` : '';
  return `${what} over ${formatDurationMs(spec.windowMs)} > ${spec.threshold} (clears ≤ ${spec.clearThreshold})${relative}${forText}`;
}
