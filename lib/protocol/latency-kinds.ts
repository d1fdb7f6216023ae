/**
 * What a latency series measures, by its name: LLM servers publish time to first token and the time between tokens
 * beside whole-request latency, and each needs its own objective (a 1 s TTFT is fine where a 1 s gap between tokens
 * is not). Names are the servers' own (docs/scrape.md, docs/otlp.md); any other series is a request latency.
 * Client-safe.
 */
export const LATENCY_KINDS = ['request', 'ttft', 'itl', 'queue'] as const;
export type LatencyKind = (typeof LATENCY_KINDS)[number];

export const LATENCY_KIND_LABELS: Record<LatencyKind, string> = {
  request: 'request latency',
  ttft: 'time to first token',
  itl: 'inter-token latency',
  queue: 'queue time',
};

const NAMED: Readonly<Record<string, LatencyKind>> = {
  'vllm:time_to_first_token_seconds': 'ttft',
  'sglang:time_to_first_token_seconds': 'ttft',
  'dynamo_frontend_time_to_first_token_seconds': 'ttft',
  'gen_ai.server.time_to_first_token': 'ttft',
  nv_inference_first_response_histogram_ms: 'ttft',
  'vllm:inter_token_latency_seconds': 'itl',
  'vllm:time_per_output_token_seconds': 'itl',
  'sglang:inter_token_latency_seconds': 'itl',
  'dynamo_frontend_inter_token_latency_seconds': 'itl',
  'gen_ai.server.time_per_output_token': 'itl',
  'vllm:request_queue_time_seconds': 'queue',
  'sglang:queue_time_seconds': 'queue',
  tgi_request_queue_duration: 'queue',
};

export function latencyKindOf(series: string): LatencyKind {
  return NAMED[series] ?? 'request';
}
