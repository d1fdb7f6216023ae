import type { LatencyCauseKind } from '../../protocol/findings';
import type { SeriesMetric } from '../../protocol/read-api/series';

/** The numbers "latency explained" judges with (docs/findings/latency-explained.md explains each). */
export interface ExplainMethod {
  /** p99 regressed when above this multiple of its baseline … */
  ratio: number;
  /** … and at least this many milliseconds above it. */
  minRiseMs: number;
  /** Fewer requests in the current range than this judge nothing. */
  minRequests: number;
  /** A baseline needs at least this many hours with requests; fewer than its whole range judge all the same, and say so. */
  minBaselineHours: number;
  /** A gauge is a cause only if it rose to at least this multiple of its baseline (and by its minimum change). */
  causeRatio: number;
  /** Spearman's ρ needs at least this many minutes with both p99 and the gauge. */
  minCorrelationMinutes: number;
  /** Region-wide when the rest of the region rose by at least this share of the host's relative rise. */
  regionShare: number;
  /** Without a regression, minutes whose p99 spiked are explained only by a gauge moving with p99 at least this well (ρ). */
  spikeCorrelation: number;
}

export const DEFAULT_METHOD: ExplainMethod = {
  ratio: 1.5,
  minRiseMs: 5,
  minRequests: 200,
  minBaselineHours: 1,
  causeRatio: 1.5,
  minCorrelationMinutes: 5,
  regionShare: 0.5,
  spikeCorrelation: 0.5,
};

/** A gauge that may explain a regression: its series, and the smallest rise that counts as a change. */
export interface CauseGauge {
  kind: Exclude<LatencyCauseKind, 'region' | 'inventory'>;
  metric: SeriesMetric;
  /** How the summary names it: "steal", "write await". */
  label: string;
  unit: string;
  minChange: number;
  /**
   * A bounded gauge (a KV cache fills to 100 % and no further) is a cause once it reaches this level and rose by its
   * minimum change, instead of rising to `causeRatio` × its baseline.
   */
  atLeast?: number;
}

export const CAUSE_GAUGES: readonly CauseGauge[] = [
  { kind: 'steal', metric: 'cpu_steal', label: 'steal', unit: '%', minChange: 2 },
  { kind: 'iowait', metric: 'cpu_iowait', label: 'iowait', unit: '%', minChange: 2 },
  { kind: 'disk-await', metric: 'disk_read_await', label: 'read await', unit: 'ms', minChange: 2 },
  { kind: 'disk-await', metric: 'disk_write_await', label: 'write await', unit: 'ms', minChange: 2 },
  { kind: 'disk-queue', metric: 'disk_queue_depth', label: 'queue depth', unit: '', minChange: 1 },
  { kind: 'throttling', metric: 'cgroup_throttled_pct', label: 'CPU throttling', unit: '% of periods', minChange: 5 },
  { kind: 'pressure', metric: 'psi_cpu', label: 'CPU pressure', unit: '%', minChange: 5 },
  { kind: 'pressure', metric: 'psi_io', label: 'IO pressure', unit: '%', minChange: 5 },
  { kind: 'pressure', metric: 'psi_memory', label: 'memory pressure', unit: '%', minChange: 5 },
  // An LLM engine's KV cache (--scrape): full, it evicts running requests to compute them again (vLLM preemption,
  // SGLang retraction), which is the engine's memory budget, not the host and not plain queueing.
  { kind: 'kv-cache', metric: 'server_kv_cache', label: 'KV cache', unit: '%', minChange: 5, atLeast: 90 },
  { kind: 'kv-cache', metric: 'server_preemptions', label: 'preemptions', unit: '/min', minChange: 1 },
  // The model server's own queue (--scrape): a symptom of saturation, never outranking a host cause.
  { kind: 'queue', metric: 'server_queue_mean', label: 'mean queue time', unit: 'ms', minChange: 5 },
  { kind: 'queue', metric: 'server_waiting', label: 'requests waiting', unit: '', minChange: 2 },
];

/** vCPUs are named as where steal went when their own average is at least this multiple of the host's. */
export const STEAL_CONCENTRATION = 1.5;
export const MAX_NAMED_CPUS = 4;
