import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { bucketSketch, placement } from '../../../../agent/scrape/bucket-sketch';
import { latencySeriesSchema } from '../../../../lib/protocol';
import { quantileOfWire, quantileRank } from '../../../../lib/sketch';

// vLLM's e2e request latency buckets in ms (vllm/v1/metrics/loggers.py, request_latency_buckets).
const VLLM_E2E_MS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0].map((s) => s * 1000);

/** The server's buckets for a set of observations, as the client library counts them (le: value ≤ bound). */
function bucketsOf(values: readonly number[], bounds: readonly number[]) {
  const all = [...bounds, Infinity];
  return all.map((upperMs, i) => ({
    lowerMs: i === 0 ? 0 : all[i - 1]!,
    upperMs,
    count: values.filter((v) => v <= upperMs && (i === 0 || v > all[i - 1]!)).length,
  }));
}

/** numpy's `inverted_cdf`: the value at rank ⌈q·n⌉, the same definition the sketch uses. */
function exactQuantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[quantileRank(q, sorted.length) - 1]!;
}

/** The error of the key a quantile fell in, found as the sketch finds the quantile. */
function errorAt(sketch: NonNullable<ReturnType<typeof bucketSketch>>, q: number): number | null {
  const rank = quantileRank(q, sketch.sketch.count);
  let seen = sketch.sketch.zeroCount;
  for (let i = 0; i < sketch.sketch.keys.length; i++) {
    seen += sketch.sketch.counts[i]!;
    if (seen >= rank) return sketch.bucketErrors[i]!;
  }
  return sketch.bucketErrors.at(-1)!;
}

describe('placement', () => {
  test('an inner bucket goes to its geometric midpoint, within ±(√(hi/lo) − 1)', () => {
    expect(placement(500, 800)).toEqual({ valueMs: Math.sqrt(500 * 800), error: Math.sqrt(800 / 500) - 1 });
    expect(placement(2500, 5000).error).toBeCloseTo(0.4142, 4);
  });

  test('the lowest bucket (0, hi] goes to hi/2 within ±100 %; the +Inf bucket to its lower bound, unbounded', () => {
    expect(placement(0, 300)).toEqual({ valueMs: 150, error: 1 });
    expect(placement(7_680_000, Infinity)).toEqual({ valueMs: 7_680_000, error: null });
    expect(placement(-1, 0)).toEqual({ valueMs: 0, error: 0 });
  });
});

describe('bucketSketch', () => {
  test('keeps the count, the server’s exact sum, and one error per key; the series is a valid wire series', () => {
    const values = [210, 420, 900, 1700, 3300, 12500];
    const placed = bucketSketch(bucketsOf(values, VLLM_E2E_MS), 19030)!;
    expect(placed.sketch.count).toBe(6);
    expect(placed.sketch.sum).toBe(19030);
    expect(placed.bucketErrors).toHaveLength(placed.sketch.keys.length);
    expect(latencySeriesSchema.safeParse({ name: 'vllm:e2e_request_latency_seconds', tags: {}, ...placed }).success).toBe(true);
  });

  test('an interval with no observations gives no sketch', () => {
    expect(bucketSketch(bucketsOf([], VLLM_E2E_MS), 0)).toBeNull();
  });

  test('every quantile agrees with the exact quantile of the observations within the error of the bucket it fell in', () => {
    const quantiles = [0.5, 0.9, 0.95, 0.99, 0.999];
    fc.assert(
      fc.property(fc.array(fc.double({ min: 1, max: 7_000_000, noNaN: true }), { minLength: 1, maxLength: 400 }), (values) => {
        const placed = bucketSketch(bucketsOf(values, VLLM_E2E_MS), values.reduce((a, b) => a + b, 0))!;
        for (const q of quantiles) {
          const reported = quantileOfWire(placed.sketch, q)!;
          const error = errorAt(placed, q)!;
          expect(Math.abs(reported - exactQuantile(values, q))).toBeLessThanOrEqual(error * reported * (1 + 1e-9));
        }
      }),
      { numRuns: 300 },
    );
  });
});
