import { describe, expect, test } from 'vitest';
import { quantilesOf } from '../../../lib/series/latency';
import { LatencySketch, SKETCH_RELATIVE_ACCURACY } from '../../../lib/sketch';

describe('quantilesOf with the errors of a server’s buckets', () => {
  const sketch = new LatencySketch();
  for (let i = 0; i < 50; i++) sketch.add(40);
  for (let i = 0; i < 45; i++) sketch.add(650);
  for (let i = 0; i < 5; i++) sketch.add(10_000);
  const wire = sketch.toWire();

  test('each quantile takes its key’s error: a bucket’s, the sketch’s 0.8 % where none was merged, null beyond the top bucket', () => {
    const { bucketError } = quantilesOf(wire, [null, 0.27, Infinity]);
    expect(bucketError).toEqual({ p50: SKETCH_RELATIVE_ACCURACY, p90: 0.27, p95: 0.27, p99: null, p999: null });
  });

  test('rows that all came from the agent’s own sketch carry no bucket errors', () => {
    expect(quantilesOf(wire).bucketError).toBeUndefined();
    expect(quantilesOf(wire, null)).not.toHaveProperty('bucketError');
  });
});
