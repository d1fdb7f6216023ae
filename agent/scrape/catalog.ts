/**
 * What the agent takes from a model server's /metrics, by metric name. Names, units and bucket layouts are the
 * servers' own (see docs/scrape.md for where each comes from); histograms not named here are read when the operator
 * names them with --scrape-histogram.
 */

export type TimeUnit = 's' | 'ms' | 'us';

export const MS_PER_UNIT: Record<TimeUnit, number> = { s: 1000, ms: 1, us: 0.001 };

/** Which of a server's per-interval means a source feeds: request latency or time in the queue. */
export type MeanRole = 'latency' | 'queue';

export interface HistogramSource {
  metric: string;
  unit: TimeUnit;
  /** Its _sum/_count also give the server's mean of this role (the counter pairs take precedence). */
  mean?: MeanRole;
}

export const KNOWN_HISTOGRAMS: readonly HistogramSource[] = [
  // vLLM (vllm/v1/metrics/loggers.py); time_per_output_token is the name before inter_token_latency.
  { metric: 'vllm:e2e_request_latency_seconds', unit: 's', mean: 'latency' },
  { metric: 'vllm:time_to_first_token_seconds', unit: 's' },
  { metric: 'vllm:inter_token_latency_seconds', unit: 's' },
  { metric: 'vllm:time_per_output_token_seconds', unit: 's' },
  { metric: 'vllm:request_queue_time_seconds', unit: 's', mean: 'queue' },
  // Text Generation Inference (docs/source/reference/metrics.md): seconds, without a unit suffix.
  { metric: 'tgi_request_duration', unit: 's', mean: 'latency' },
  { metric: 'tgi_request_queue_duration', unit: 's', mean: 'queue' },
  // BentoML (default metrics, namespace bentoml_service).
  { metric: 'bentoml_service_request_duration_seconds', unit: 's', mean: 'latency' },
  // Ray Serve (serve/_private/constants.py DEFAULT_LATENCY_BUCKET_MS): milliseconds.
  { metric: 'ray_serve_http_request_latency_ms', unit: 'ms', mean: 'latency' },
  { metric: 'ray_serve_deployment_processing_latency_ms', unit: 'ms' },
  // Triton's opt-in histogram (--metrics-config histogram_latencies=true).
  { metric: 'nv_inference_first_response_histogram_ms', unit: 'ms' },
];

/** A cumulative duration counter over a cumulative request counter: the mean over an interval, never a percentile. */
export interface CounterPairSource {
  duration: string;
  unit: TimeUnit;
  /** Summed: the requests the duration covers. */
  requests: readonly string[];
  mean: MeanRole;
}

export const KNOWN_COUNTER_PAIRS: readonly CounterPairSource[] = [
  // Triton (docs/user_guide/metrics.md): the durations include cached and failed requests, so they are divided by
  // requests (success + failure), not by nv_inference_count, which counts batch items and excludes cached ones.
  { duration: 'nv_inference_request_duration_us', unit: 'us', requests: ['nv_inference_request_success', 'nv_inference_request_failure'], mean: 'latency' },
  { duration: 'nv_inference_queue_duration_us', unit: 'us', requests: ['nv_inference_request_success', 'nv_inference_request_failure'], mean: 'queue' },
  // TorchServe frontend metrics (metrics_mode=prometheus).
  { duration: 'ts_inference_latency_microseconds', unit: 'us', requests: ['ts_inference_requests_total'], mean: 'latency' },
  { duration: 'ts_queue_latency_microseconds', unit: 'us', requests: ['ts_inference_requests_total'], mean: 'queue' },
];

/** Triton's mean dynamic batch size over an interval: inferences (batch items) per execution. */
export const BATCH_RATIO = { items: 'nv_inference_count', executions: 'nv_inference_exec_count' } as const;

export type GaugeRole = 'waiting' | 'running' | 'batchSize';

/** Gauges summed over their label sets (models, engines). */
export const KNOWN_GAUGES: Readonly<Record<string, GaugeRole>> = {
  'vllm:num_requests_waiting': 'waiting',
  'vllm:num_requests_running': 'running',
  tgi_queue_size: 'waiting',
  tgi_batch_current_size: 'batchSize',
  nv_inference_pending_request_count: 'waiting',
};

/** The client libraries' process start time: when it changes, the server restarted and every counter began again. */
export const PROCESS_START_METRIC = 'process_start_time_seconds';

/** The unit a histogram's name says, by the Prometheus naming conventions; null when it says none. */
export function unitFromName(metric: string): TimeUnit | null {
  if (/_seconds$/.test(metric)) return 's';
  if (/_(ms|milliseconds)$/.test(metric)) return 'ms';
  if (/_(us|microseconds)$/.test(metric)) return 'us';
  return null;
}

/** Parses `--scrape-histogram METRIC[@UNIT]`: the unit from the name's suffix unless given. */
export function parseHistogramSpec(text: string): HistogramSource {
  const at = text.lastIndexOf('@');
  const metric = (at === -1 ? text : text.slice(0, at)).trim();
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric) || metric.length > 200) {
    throw new Error(`"${text}" is not a metric name (expected METRIC or METRIC@s|ms|us)`);
  }
  if (at !== -1) {
    const unit = text.slice(at + 1).trim();
    if (unit !== 's' && unit !== 'ms' && unit !== 'us') throw new Error(`unknown unit "${unit}" in "${text}" (use s, ms or us)`);
    return { metric, unit };
  }
  const unit = unitFromName(metric);
  if (!unit) throw new Error(`the unit of "${metric}" is not in its name: give it as ${metric}@s, @ms or @us`);
  return { metric, unit };
}
