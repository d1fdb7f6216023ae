import { describe, expect, test } from 'vitest';
import { LatencySketch, mergeWires, quantileOfWire } from '../../sketch';
import { subtractWire } from './wire';

const sketchOf = (values: number[]) => {
  const sketch = new LatencySketch();
  for (const v of values) sketch.add(v);
  return sketch.toWire();
};

describe('subtractWire', () => {
  test('a region without one host has the other hosts\' histogram, key by key', () => {
    const slow = sketchOf(Array.from({ length: 300 }, (_, i) => 80 + (i % 40)));
    const others = sketchOf(Array.from({ length: 3000 }, (_, i) => 20 + (i % 15)));
    const rest = subtractWire(mergeWires([slow, others]), slow);
    expect(rest.count).toBe(others.count);
    expect(rest.keys).toEqual(others.keys);
    expect(rest.counts).toEqual(others.counts);
    // min and max stay the region's, so the quantile is the bucket's value unclamped: within the sketch's 0.8 %.
    const [p99, exact] = [quantileOfWire(rest, 0.99)!, quantileOfWire(others, 0.99)!];
    expect(Math.abs(p99 - exact) / exact).toBeLessThan(0.008);
  });

  test('nothing left is the empty histogram', () => {
    const wire = sketchOf([1, 2, 3]);
    expect(subtractWire(wire, wire).count).toBe(0);
  });
});
