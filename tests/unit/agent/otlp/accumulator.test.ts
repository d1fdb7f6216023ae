import { describe, expect, test } from 'vitest';
import { createOtlpAccumulator } from '../../../../agent/otlp/accumulator';
import type { OtlpExponentialPoint, OtlpHistogramPoint, OtlpMetric, OtlpRequest } from '../../../../agent/otlp/wire';
import { quantileOfWire } from '../../../../lib/sketch';

const STARTED_NS = 1_000_000;
const MODEL = [{ key: 'gen_ai.request.model', value: { stringValue: 'llama' } }];

function explicit(counts: number[], sum: number, times: { start: number; end: number }, bounds = [0.1, 1]): OtlpHistogramPoint {
  return { attributes: MODEL, startTimeUnixNano: times.start, timeUnixNano: times.end, count: counts.reduce((a, b) => a + b, 0), sum, bucketCounts: counts, explicitBounds: bounds };
}

function request(metric: OtlpMetric, service = 'vllm'): OtlpRequest {
  return { resourceMetrics: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeMetrics: [{ metrics: [metric] }] }] };
}

const histogram = (points: OtlpHistogramPoint[], temporality: 1 | 2, name = 'gen_ai.server.request.duration', unit = 's'): OtlpMetric => ({
  name,
  unit,
  histogram: { dataPoints: points, aggregationTemporality: temporality },
});

describe('createOtlpAccumulator', () => {
  test('delta points add up over the interval; a retried point (same end time) counts once', () => {
    const acc = createOtlpAccumulator({ startedAtNs: STARTED_NS });
    const point = explicit([2, 3, 1], 2.5, { start: 2e6, end: 3e6 });
    expect(acc.accept(request(histogram([point], 1)))).toEqual({ accepted: 1, rejected: 0, reason: null });
    acc.accept(request(histogram([point], 1)));
    acc.accept(request(histogram([explicit([1, 0, 0], 0.05, { start: 3e6, end: 4e6 })], 1)));
    const [series] = acc.drain();
    expect(series!.tags).toEqual({ 'gen_ai.request.model': 'llama', service: 'vllm' });
    expect(series!.sketch.count).toBe(7);
    expect(series!.sketch.sum).toBeCloseTo(2550, 9);
    // (1 s, +Inf) is the open top bucket: its error is unbounded.
    expect(series!.bucketErrors.at(-1)).toBeNull();
    expect(acc.drain()).toEqual([]);
  });

  test('cumulative: the first point is a baseline when it began before the agent, then differences are counted', () => {
    const acc = createOtlpAccumulator({ startedAtNs: STARTED_NS });
    acc.accept(request(histogram([explicit([5, 5, 0], 3, { start: 10, end: 2e6 })], 2)));
    expect(acc.drain()).toEqual([]);
    acc.accept(request(histogram([explicit([6, 8, 0], 5, { start: 10, end: 3e6 })], 2)));
    const [series] = acc.drain();
    expect(series!.sketch.count).toBe(4);
    expect(series!.sketch.sum).toBeCloseTo(2000, 9);
  });

  test('cumulative: a series that began after the agent counts whole; a restart (new start time) never counts twice', () => {
    const acc = createOtlpAccumulator({ startedAtNs: STARTED_NS });
    acc.accept(request(histogram([explicit([2, 0, 0], 0.1, { start: 2e6, end: 3e6 })], 2)));
    acc.accept(request(histogram([explicit([3, 0, 0], 0.15, { start: 2e6, end: 4e6 })], 2)));
    // The exporter restarted: its counts began again (lower than before) under a new start time.
    acc.accept(request(histogram([explicit([1, 0, 0], 0.05, { start: 5e6, end: 6e6 })], 2)));
    const [series] = acc.drain();
    expect(series!.sketch.count).toBe(4);
    expect(series!.sketch.sum).toBeCloseTo(200, 9);
  });

  test('exponential: buckets land on their values, the zero bucket holds zeros, the mean stays exact', () => {
    const acc = createOtlpAccumulator({ startedAtNs: STARTED_NS });
    // Scale 3: base 2^(1/8); index 8 holds (2, 2.1810] ms, index 24 holds (8, 8.7241] ms.
    const point: OtlpExponentialPoint = {
      attributes: [], startTimeUnixNano: 2e6, timeUnixNano: 3e6, count: 11, sum: 2 * 10 + 8.5, scale: 3, zeroCount: 1, zeroThreshold: 0,
      positive: { offset: 8, bucketCounts: [9, ...Array(15).fill(0), 1] },
    };
    acc.accept(request({ name: 'llm.step', unit: 'ms', exponentialHistogram: { dataPoints: [point], aggregationTemporality: 1 } }));
    expect(acc.drain()).toEqual([]);
    const named = createOtlpAccumulator({ startedAtNs: STARTED_NS, histograms: [{ metric: 'llm.step', unit: null }] });
    named.accept(request({ name: 'llm.step', unit: 'ms', exponentialHistogram: { dataPoints: [point], aggregationTemporality: 1 } }));
    const [series] = named.drain();
    expect(series!.sketch.zeroCount).toBe(1);
    expect(series!.sketch.count).toBe(11);
    const median = quantileOfWire(series!.sketch, 0.5)!;
    expect(median).toBeGreaterThan(2);
    expect(median).toBeLessThan(2.19);
    expect(Math.max(...series!.bucketErrors.map((e) => e!))).toBeLessThan(0.06);
  });

  test('a histogram in no duration unit is refused with how to name it; other metrics are ignored, not refused', () => {
    const acc = createOtlpAccumulator({ startedAtNs: STARTED_NS });
    const result = acc.accept(request(histogram([explicit([1, 0, 0], 0.05, { start: 2e6, end: 3e6 })], 1, 'gen_ai.server.request.duration', '{token}')));
    expect(result.rejected).toBe(1);
    expect(result.reason).toMatch(/not a duration unit .*--otlp-histogram gen_ai.server.request.duration@UNIT/);
    expect(acc.accept(request(histogram([explicit([1, 0, 0], 0.05, { start: 2e6, end: 3e6 })], 1, 'http.server.request.duration')))).toEqual({ accepted: 0, rejected: 0, reason: null });
    expect(acc.accept(request({ name: 'gen_ai.server.request.duration', unit: 's' }))).toEqual({ accepted: 0, rejected: 0, reason: null });
  });

  test('a malformed point is refused alone; the good one beside it is used', () => {
    const acc = createOtlpAccumulator({ startedAtNs: STARTED_NS });
    const bad = { ...explicit([1, 1, 0], 0.5, { start: 2e6, end: 3e6 }), count: 5 };
    const good = { ...explicit([1, 0, 0], 0.05, { start: 2e6, end: 3e6 }), attributes: [] };
    const result = acc.accept(request(histogram([bad, good], 1)));
    expect(result).toEqual({ accepted: 1, rejected: 1, reason: 'gen_ai.server.request.duration: bucket counts add up to 2, not the point\'s count 5' });
    expect(acc.drain().map((s) => s.sketch.count)).toEqual([1]);
  });

  test('series past the bound are refused and counted; the service attribute of a point steps aside for the resource', () => {
    const acc = createOtlpAccumulator({ startedAtNs: STARTED_NS, maxSeries: 1 });
    acc.accept(request(histogram([explicit([1, 0, 0], 0.05, { start: 2e6, end: 3e6 })], 1), 'a'));
    const over = acc.accept(request(histogram([explicit([1, 0, 0], 0.05, { start: 2e6, end: 3e6 })], 1), 'b'));
    expect(over).toMatchObject({ rejected: 1, reason: expect.stringMatching(/over the bound of 1 series/) });
    const own = createOtlpAccumulator({ startedAtNs: STARTED_NS });
    own.accept(request(histogram([{ ...explicit([1, 0, 0], 0.05, { start: 2e6, end: 3e6 }), attributes: [{ key: 'service', value: { stringValue: 'x' } }] }], 1)));
    expect(own.drain()[0]!.tags).toEqual({ exported_service: 'x', service: 'vllm' });
  });
});
