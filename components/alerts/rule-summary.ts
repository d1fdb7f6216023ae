import type { AlertRuleSpec } from '@/lib/protocol/alerts';
import { formatDuration } from '@/lib/protocol/duration';

/** "avg cpu_steal over 1 min > 10 (clears ≤ 5), for 2 min": a rule's condition in one line. */
export function describeSpec(spec: AlertRuleSpec): string {
  const m = spec.metric;
  const what =
    m.kind === 'series'
      ? `${m.aggregation} ${m.series}`
      : m.kind === 'latency-quantile'
        ? `p${+(m.quantile * 100).toFixed(3)} latency (ms)`
        : m.kind === 'latency-burn'
          ? `error-budget burn of ${+(m.objective * 100).toFixed(3)} % ≤ ${m.latencyMs} ms (short window ${formatDuration(m.shortWindowMs)})`
          : m.kind === 'host-silence'
            ? 'report intervals missed'
            : `open finding${m.findingRuleId ? ` ${m.findingRuleId}` : ''} at ${m.minSeverity} or worse`;
  const relative = spec.relative ? `, or ${spec.relative.factor}× its ${formatDuration(spec.relative.baselineMs)} median (at least ${spec.relative.minValue})` : '';
  const forText = spec.forMs ? `, for ${formatDuration(spec.forMs)}` : '';
  return `${what} over ${formatDuration(spec.windowMs)} > ${spec.threshold} (clears ≤ ${spec.clearThreshold})${relative}${forText}`;
}
