/**
 * What the agent takes from a model server's /metrics, by metric name. Names, units and bucket layouts are the
 * servers' own (see docs/scrape.md for where each comes from); histograms not named here are read when the operator
 * names them with --scrape-histogram.
 */

export type TimeUnit = 's' | 'ms' | 'us';

export const MS_PER_UNIT: Record<TimeUnit, number> = { s: 1000, ms: 1, us: 0.001 };

/**
 * Which of a server's per-interval means a source feeds: request latency, time in the queue, or time per generated
 * token (llama.cpp, which publishes no per-request durations).
 */
export type MeanRole = 'latency' | 'queue' | 'token';

export interface HistogramSource {
  metric: string;
  unit: TimeUnit;
  /** Its _sum/_count also give the server's mean of this role (the counter pairs take precedence). */
  mean?: MeanRole;
}

export const KNOWN_HISTOGRAMS: readonly HistogramSource[] = [
  // vLLM (vllm/v1/metrics/loggers.py). inter_token_latency is one observation per token gap; it was published as
  // time_per_output_token before (now deprecated). request_time_per_output_token is TPOT proper, one per request.
  { metric: 'vllm:e2e_request_latency_seconds', unit: 's', mean: 'latency' },
  { metric: 'vllm:time_to_first_token_seconds', unit: 's' },
  { metric: 'vllm:inter_token_latency_seconds', unit: 's' },
  { metric: 'vllm:time_per_output_token_seconds', unit: 's' },
  { metric: 'vllm:request_time_per_output_token_seconds', unit: 's' },
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
  // SGLang (python/sglang/srt/metrics/collector.py): the tokenizer's TTFT, ITL and e2e, the scheduler's queue time.
  { metric: 'sglang:e2e_request_latency_seconds', unit: 's', mean: 'latency' },
  { metric: 'sglang:time_to_first_token_seconds', unit: 's' },
  { metric: 'sglang:inter_token_latency_seconds', unit: 's' },
  { metric: 'sglang:queue_time_seconds', unit: 's', mean: 'queue' },
  // NVIDIA Dynamo's frontend (lib/runtime/src/metrics/prometheus_names.rs, prefix dynamo_frontend_).
  { metric: 'dynamo_frontend_request_duration_seconds', unit: 's', mean: 'latency' },
  { metric: 'dynamo_frontend_time_to_first_token_seconds', unit: 's' },
  { metric: 'dynamo_frontend_inter_token_latency_seconds', unit: 's' },
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
  // llama.cpp server --metrics (tools/server): counters and gauges only. Generation seconds over generated tokens is
  // the mean time per output token; nothing there gives a request's latency or any percentile.
  { duration: 'llamacpp:tokens_predicted_seconds_total', unit: 's', requests: ['llamacpp:tokens_predicted_total'], mean: 'token' },
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
  'sglang:num_queue_reqs': 'waiting',
  'sglang:num_running_reqs': 'running',
  dynamo_frontend_queued_requests: 'waiting',
  dynamo_frontend_inflight_requests: 'running',
  'llamacpp:requests_deferred': 'waiting',
  'llamacpp:requests_processing': 'running',
};

/**
 * KV cache in use as a fraction 0–1, whatever the name says: vLLM kv_cache_usage_perc (gpu_cache_usage_perc before
 * it), SGLang token_usage (tokens held in the KV pool over its size), trtllm-serve trtllm_kv_cache_utilization (named
 * as the Gateway API Inference Extension's model-server table gives it). Over several engines the fullest one counts:
 * one full cache is enough to preempt.
 */
export const KV_CACHE_GAUGES: readonly string[] = [
  'vllm:kv_cache_usage_perc',
  'vllm:gpu_cache_usage_perc',
  'sglang:token_usage',
  'trtllm_kv_cache_utilization',
];

/**
 * Triton's TensorRT-LLM backend publishes its KV blocks as one gauge family split by `kv_cache_block_type`: in use is
 * `used` ÷ `max` of the same model. Its `fraction` member is not read: NVIDIA's own example shows it at 0.4875 with 1
 * block of 6,239 used, so it is not the share in use.
 */
export const TRTLLM_KV_BLOCKS = { metric: 'nv_trt_llm_kv_cache_block_metrics', label: 'kv_cache_block_type', used: 'used', max: 'max' } as const;

/**
 * Requests the engine evicted from the KV cache to be recomputed later, as cumulative counters: vLLM preemptions,
 * SGLang retractions (its counter; the older gauge sglang:num_retracted_reqs is a per-log-interval value, not read).
 */
export const PREEMPTION_COUNTERS: readonly string[] = ['vllm:num_preemptions_total', 'sglang:num_retracted_requests_total'];

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
