import { alertRuleInputSchema, type AlertRuleInput } from '../protocol/alerts';
import { HOUR_MS, MINUTE_MS } from '../protocol/time';

/**
 * The rules inferwatch ships, enabled and notifying: each number is explained in docs/alerts.md. They are
 * inserted into alert_rules when missing and are data from then on (edit or disable them through the API).
 */
/**
 * The same fast and slow burn pair for an LLM server's time to first token or time between tokens: each has its own
 * latency, so a chat model's 600 ms first token does not spend a 200 ms request budget.
 */
function tokenSloRules(kind: 'ttft' | 'itl', short: string, latencyMs: number): AlertRuleInput[] {
  const rule = (speed: 'fast' | 'slow', windowMs: number, shortWindowMs: number, threshold: number, clearForMs: number): AlertRuleInput => ({
    id: `${kind}-slo-${speed}-burn`,
    title: `${short} SLO burning${speed === 'fast' ? ' fast' : ''}`,
    severity: speed === 'fast' ? 'critical' : 'warning',
    enabled: true,
    runbookUrl: null,
    spec: {
      metric: { kind: 'latency-burn', objective: 0.99, latencyMs, shortWindowMs, minRequests: 100 },
      selector: { kinds: [kind] },
      windowMs,
      threshold,
      clearThreshold: threshold / 2,
      forMs: 0,
      clearForMs,
    },
  });
  return [rule('fast', HOUR_MS, 5 * MINUTE_MS, 14.4, 2 * MINUTE_MS), rule('slow', 6 * HOUR_MS, 30 * MINUTE_MS, 6, 5 * MINUTE_MS)];
}

export const DEFAULT_ALERT_RULES: readonly AlertRuleInput[] = [
  {
    id: 'steal-spike',
    title: 'CPU steal spike',
    severity: 'warning',
    spec: {
      metric: { kind: 'series', series: 'cpu_steal', aggregation: 'avg' },
      windowMs: MINUTE_MS,
      threshold: 10,
      clearThreshold: 5,
      forMs: 2 * MINUTE_MS,
      clearForMs: 2 * MINUTE_MS,
      relative: { factor: 3, minValue: 5, baselineMs: 24 * HOUR_MS },
    },
  },
  {
    id: 'iowait-high',
    title: 'CPU iowait high',
    severity: 'warning',
    spec: {
      metric: { kind: 'series', series: 'cpu_iowait', aggregation: 'avg' },
      windowMs: 5 * MINUTE_MS,
      threshold: 20,
      clearThreshold: 10,
      forMs: 5 * MINUTE_MS,
      clearForMs: 5 * MINUTE_MS,
    },
  },
  {
    id: 'disk-queue-saturated',
    title: 'Disk queue saturated',
    severity: 'warning',
    spec: {
      metric: { kind: 'series', series: 'disk_queue_depth', aggregation: 'avg' },
      windowMs: 10 * MINUTE_MS,
      threshold: 5,
      clearThreshold: 3.5,
      forMs: 0,
      clearForMs: 5 * MINUTE_MS,
    },
  },
  {
    id: 'disk-read-await-high',
    title: 'Disk read latency high',
    severity: 'warning',
    spec: {
      metric: { kind: 'series', series: 'disk_read_await', aggregation: 'avg' },
      windowMs: 5 * MINUTE_MS,
      threshold: 50,
      clearThreshold: 20,
      forMs: 5 * MINUTE_MS,
      clearForMs: 5 * MINUTE_MS,
    },
  },
  {
    id: 'disk-write-await-high',
    title: 'Disk write latency high',
    severity: 'warning',
    spec: {
      metric: { kind: 'series', series: 'disk_write_await', aggregation: 'avg' },
      windowMs: 5 * MINUTE_MS,
      threshold: 50,
      clearThreshold: 20,
      forMs: 5 * MINUTE_MS,
      clearForMs: 5 * MINUTE_MS,
    },
  },
  {
    id: 'latency-slo-fast-burn',
    title: 'Latency SLO burning fast',
    severity: 'critical',
    spec: {
      metric: { kind: 'latency-burn', objective: 0.99, latencyMs: 200, shortWindowMs: 5 * MINUTE_MS, minRequests: 100 },
      selector: { kinds: ['request'] },
      windowMs: HOUR_MS,
      threshold: 14.4,
      clearThreshold: 7.2,
      forMs: 0,
      clearForMs: 2 * MINUTE_MS,
    },
  },
  {
    id: 'latency-slo-slow-burn',
    title: 'Latency SLO burning',
    severity: 'warning',
    spec: {
      metric: { kind: 'latency-burn', objective: 0.99, latencyMs: 200, shortWindowMs: 30 * MINUTE_MS, minRequests: 100 },
      selector: { kinds: ['request'] },
      windowMs: 6 * HOUR_MS,
      threshold: 6,
      clearThreshold: 3,
      forMs: 0,
      clearForMs: 5 * MINUTE_MS,
    },
  },
  ...tokenSloRules('ttft', 'TTFT', 1000),
  ...tokenSloRules('itl', 'ITL', 100),
  {
    id: 'host-silent',
    title: 'Host stopped reporting',
    severity: 'critical',
    spec: {
      metric: { kind: 'host-silence', defaultIntervalMs: 10_000 },
      windowMs: 5 * MINUTE_MS,
      threshold: 3,
      clearThreshold: 1,
      forMs: 0,
      clearForMs: MINUTE_MS,
    },
  },
  {
    id: 'critical-finding',
    title: 'Critical finding opened',
    severity: 'critical',
    spec: {
      metric: { kind: 'finding', minSeverity: 'critical' },
      windowMs: MINUTE_MS,
      threshold: 0,
      clearThreshold: 0,
      forMs: 0,
      clearForMs: 0,
    },
  },
].map((rule) => alertRuleInputSchema.parse(rule));
