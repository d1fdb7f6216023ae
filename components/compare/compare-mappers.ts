import type { CompareResponse } from '@/lib/protocol/read-api/compare';
import { MAX_COMPARE_LIMIT, isLatencyCompareMetric, type CompareMetric } from '@/lib/protocol/read-api/compare-metrics';
import { MAX_CHART_ROWS, bucketStarts, gridStepMs } from '../charts/time-axis';
import { seriesStyle, type TimeChartData, type TimeRow } from '../charts/time-chart-config';
import { formatMs, formatPct } from '../format';
import { formatBytes } from '../host/inventory-view';
import type { CompareUrlState } from './search-params';

/** Pure shaping of the compare page: the URL state → the API's query, and its answer → one line per host. */

export const compareChoicesQueryKey = (q: string) => ['compare-choices', { q }] as const;

export const COMPARE_METRIC_LABEL: Record<CompareMetric, string> = {
  cpu_user: 'CPU user',
  cpu_system: 'CPU system',
  cpu_iowait: 'CPU iowait',
  cpu_steal: 'CPU steal',
  cpu_idle: 'CPU idle',
  load1: 'load (1 min)',
  psi_cpu: 'CPU pressure',
  psi_io: 'I/O pressure',
  psi_memory: 'memory pressure',
  cpu_steal_per_cpu: 'steal on the most-stolen vCPU',
  disk_queue_depth: 'disk queue size',
  disk_read_await: 'disk read await',
  disk_write_await: 'disk write await',
  disk_util: 'disk utilisation',
  disk_read_iops: 'disk read IOPS',
  disk_write_iops: 'disk write IOPS',
  disk_read_bytes: 'disk read throughput',
  disk_write_bytes: 'disk write throughput',
  process_cpu: 'process CPU',
  process_threads: 'process threads',
  process_voluntary_cs: 'voluntary context switches',
  process_nonvoluntary_cs: 'involuntary context switches',
  cgroup_throttled_pct: 'cgroup throttling',
  cgroup_throttled_ms: 'cgroup throttled time',
  probe_connect: 'probe connect time',
  probe_response: 'probe response time',
  server_requests: 'model server requests',
  server_latency_mean: 'model server mean latency',
  server_queue_mean: 'model server mean queue time',
  server_waiting: 'model server requests waiting',
  server_running: 'model server requests running',
  server_batch_size: 'model server batch size',
  server_token_mean: 'model server mean time per output token',
  server_kv_cache: 'model server KV cache in use',
  server_preemptions: 'model server preemptions',
  latency_p50: 'latency p50',
  latency_p95: 'latency p95',
  latency_p99: 'latency p99',
};

/** Metrics with one series per device, process, cgroup or probe, whose `key` can narrow the comparison to one. */
export const KEYED_METRICS: readonly CompareMetric[] = [
  'disk_queue_depth', 'disk_read_await', 'disk_write_await', 'disk_util', 'disk_read_iops', 'disk_write_iops', 'disk_read_bytes', 'disk_write_bytes',
  'process_cpu', 'process_threads', 'process_voluntary_cs', 'process_nonvoluntary_cs',
  'cgroup_throttled_pct', 'cgroup_throttled_ms', 'probe_connect', 'probe_response',
  'server_requests', 'server_latency_mean', 'server_queue_mean', 'server_waiting', 'server_running', 'server_batch_size',
  'server_token_mean', 'server_kv_cache', 'server_preemptions',
];

export function formatterFor(unit: string): (value: number) => string {
  if (unit === '%') return (v) => formatPct(v, v >= 10 ? 0 : 1);
  if (unit === 'B/s') return (v) => `${formatBytes(v)}/s`;
  if (unit === 'ms') return formatMs;
  const digits = (v: number) => (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  return (v) => `${v.toFixed(digits(v))}${unit ? ` ${unit}` : ''}`;
}

export type CompareRequest = Record<string, string>;

/** `key:value` pairs separated by commas, as the API's labels parameter takes them (checked here without zod). */
export function isLabelSelector(text: string): boolean {
  return text.split(',').every((pair) => pair.indexOf(':') > 0);
}

/**
 * The query of GET /api/v1/compare, or why there is none yet: the scope needs its region, labels or hosts, and a
 * latency metric its series. `defaults` fill the region and latency series when the URL names none.
 */
export function toCompareRequest(
  state: CompareUrlState,
  defaults: { region: string | null; latency: string | null },
): { request: CompareRequest } | { missing: string } {
  const limit = Math.min(MAX_COMPARE_LIMIT, Math.max(1, Math.trunc(state.limit)));
  const request: CompareRequest = { metric: state.metric, rank: state.rank, limit: String(limit) };
  if (state.by === 'region') {
    const region = state.region ?? defaults.region;
    if (!region) return { missing: 'No regions yet: enrol a host first.' };
    request.region = region;
  } else if (state.by === 'labels') {
    const labels = state.labels?.trim() ?? '';
    if (!labels) return { missing: 'Type a label set such as model:llama or team:ml,tier:gpu.' };
    if (!isLabelSelector(labels)) return { missing: 'Write labels as key:value, several separated by commas.' };
    request.labels = labels;
  } else if (state.by === 'hosts') {
    if (state.hosts.length === 0) return { missing: 'Pick one or more hosts below.' };
    request.hosts = [...new Set(state.hosts)].sort((a, b) => a - b).join(',');
  }
  if (isLatencyCompareMetric(state.metric)) {
    const latency = state.latency ?? defaults.latency;
    if (!latency) return { missing: 'No request latency reported yet: send timings to the agents to compare p99.' };
    request.latency = latency;
  } else if (state.key?.trim() && KEYED_METRICS.includes(state.metric)) {
    request.key = state.key.trim();
  }
  return { request };
}

/** One line per host, in the answer's order (highest first), on the answer's bucket grid. */
export function compareChartData(response: CompareResponse): TimeChartData & { hasData: boolean } {
  const fromMs = new Date(response.from).getTime();
  const toMs = new Date(response.to).getTime();
  const stepMs = gridStepMs(response.hosts.map((h) => h.points.filter((p) => p.avg !== null).map((p) => p.t)), response.bucketMs, {
    spanMs: toMs - fromMs,
    maxRows: MAX_CHART_ROWS,
  });
  const rows = bucketStarts(fromMs, toMs, stepMs).map((t) => ({ t }) as TimeRow);
  const first = rows[0]?.t ?? fromMs;
  const series = response.hosts.map((host, i) => ({ key: `s${i}` as const, label: host.hostname, ...seriesStyle(i) }));
  response.hosts.forEach((host, i) => {
    const key = `s${i}` as const;
    const sums = new Map<number, { sum: number; n: number }>();
    for (const p of host.points) {
      const index = Math.floor((p.t - first) / stepMs);
      if (index < 0 || index >= rows.length || p.avg === null) continue;
      const acc = sums.get(index) ?? { sum: 0, n: 0 };
      sums.set(index, { sum: acc.sum + p.avg, n: acc.n + 1 });
    }
    rows.forEach((row, j) => {
      const acc = sums.get(j);
      row[key] = acc ? acc.sum / acc.n : null;
    });
  });
  return { rows, series, fromMs, toMs, bucketMs: stepMs, hasData: response.hosts.some((h) => h.points.some((p) => p.avg !== null)) };
}

/** "Top 20 of 134 hosts in oslo, by average" — says when the cap hides hosts. */
export function compareCaption(response: CompareResponse): string {
  const where =
    response.scope.kind === 'region'
      ? `in ${response.scope.region}`
      : response.scope.kind === 'labels'
        ? `labelled ${Object.entries(response.scope.labels).map(([k, v]) => `${k}=${v}`).join(', ')}`
        : response.scope.kind === 'hosts'
          ? 'picked'
          : 'in the fleet';
  const by = isLatencyCompareMetric(response.metric)
    ? response.rank === 'max'
      ? 'by their worst minute'
      : 'by their mean per minute'
    : response.rank === 'max'
      ? 'by their peak'
      : 'by their average';
  const withData = response.hostsWithData;
  const noData = response.matchedHosts - withData;
  const silent = noData > 0 ? `; ${noData} without data in this range` : '';
  if (withData > response.hosts.length) {
    return `Top ${response.hosts.length} of ${withData} hosts ${where} with data, ${by}${silent}. Narrow the scope or raise the limit to see others.`;
  }
  return `All ${withData} host${withData === 1 ? '' : 's'} ${where} with data, ${by}${silent}.`;
}
