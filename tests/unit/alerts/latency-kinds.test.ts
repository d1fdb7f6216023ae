import { describe, expect, test } from 'vitest';
import { DEFAULT_ALERT_RULES } from '../../../lib/alerts/default-rules';
import { selectsLatency } from '../../../lib/alerts/selector';
import { alertRuleSpecSchema } from '../../../lib/protocol/alerts';
import { latencyKindOf } from '../../../lib/protocol/latency-kinds';

describe('latencyKindOf', () => {
  test.each([
    ['vllm:time_to_first_token_seconds', 'ttft'],
    ['gen_ai.server.time_to_first_token', 'ttft'],
    ['nv_inference_first_response_histogram_ms', 'ttft'],
    ['vllm:inter_token_latency_seconds', 'itl'],
    ['vllm:time_per_output_token_seconds', 'itl'],
    ['gen_ai.server.time_per_output_token', 'itl'],
    ['vllm:request_queue_time_seconds', 'queue'],
    ['tgi_request_queue_duration', 'queue'],
    ['vllm:e2e_request_latency_seconds', 'request'],
    ['predict', 'request'],
  ])('%s measures %s', (series, kind) => {
    expect(latencyKindOf(series)).toBe(kind);
  });
});

describe('selector kinds', () => {
  test('a rule on TTFT judges only first-token series; one on request latency leaves them out', () => {
    expect(selectsLatency({ kinds: ['ttft'] }, 'oslo', 'vllm:time_to_first_token_seconds')).toBe(true);
    expect(selectsLatency({ kinds: ['ttft'] }, 'oslo', 'vllm:e2e_request_latency_seconds')).toBe(false);
    expect(selectsLatency({ kinds: ['request'] }, 'oslo', 'vllm:time_to_first_token_seconds')).toBe(false);
    expect(selectsLatency({ kinds: ['request'], regions: ['fra'] }, 'oslo', 'predict')).toBe(false);
    expect(selectsLatency({}, 'oslo', 'vllm:time_to_first_token_seconds')).toBe(true);
  });

  test('only latency metrics select by kind', () => {
    const spec = { windowMs: 60_000, threshold: 1, clearThreshold: 0, selector: { kinds: ['ttft'] } };
    expect(alertRuleSpecSchema.safeParse({ ...spec, metric: { kind: 'series', series: 'cpu_steal' } }).error?.issues[0]?.message).toBe('only latency metrics select by kind');
    expect(alertRuleSpecSchema.safeParse({ ...spec, metric: { kind: 'latency-quantile', quantile: 0.99 } }).success).toBe(true);
  });

  test('the shipped latency objectives split TTFT, ITL and request latency, one pair of burn rules each', () => {
    const burns = DEFAULT_ALERT_RULES.filter((r) => r.spec.metric.kind === 'latency-burn');
    expect(burns.map((r) => [r.id, r.spec.selector.kinds, r.spec.metric.kind === 'latency-burn' && r.spec.metric.latencyMs])).toEqual([
      ['latency-slo-fast-burn', ['request'], 200],
      ['latency-slo-slow-burn', ['request'], 200],
      ['ttft-slo-fast-burn', ['ttft'], 1000],
      ['ttft-slo-slow-burn', ['ttft'], 1000],
      ['itl-slo-fast-burn', ['itl'], 100],
      ['itl-slo-slow-burn', ['itl'], 100],
    ]);
  });
});
