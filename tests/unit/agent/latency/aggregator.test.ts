import { describe, expect, test } from 'vitest';
import { latencySeriesSchema } from '../../../../lib/protocol';
import { quantileOfWire } from '../../../../lib/sketch';
import { createLatencyAggregator } from '../../../../agent/latency/aggregator';

describe('createLatencyAggregator', () => {
  test('timings with the same name and tags (in any order) share one series with sorted tags', () => {
    const aggregator = createLatencyAggregator();
    aggregator.record({ name: 'predict', valueMs: 10, tags: { route: '/p', model: 'resnet' } });
    aggregator.record({ name: 'predict', valueMs: 20, tags: { model: 'resnet', route: '/p' } });
    aggregator.record({ name: 'predict', valueMs: 30, tags: {} });
    const series = aggregator.drain();
    expect(series.map((s) => [s.name, JSON.stringify(s.tags), s.sketch.count])).toEqual([
      ['predict', '{"model":"resnet","route":"/p"}', 2],
      ['predict', '{}', 1],
    ]);
    for (const s of series) expect(latencySeriesSchema.safeParse(s).success).toBe(true);
  });

  test('a sample rate of 0.1 makes each timing count ten times', () => {
    const aggregator = createLatencyAggregator();
    aggregator.record({ name: 'predict', valueMs: 5, tags: {}, sampleRate: 0.1 });
    aggregator.record({ name: 'predict', valueMs: 50, tags: {} });
    const [series] = aggregator.drain();
    expect(series!.sketch.count).toBe(11);
    expect(series!.sketch.sum).toBeCloseTo(100, 9);
    expect(quantileOfWire(series!.sketch, 0.9)).toBeCloseTo(5, 1);
  });

  test('drain starts a new interval: series, malformed and dropped counts reset', () => {
    const aggregator = createLatencyAggregator({ maxSeries: 1 });
    aggregator.record({ name: 'a', valueMs: 1, tags: {} });
    aggregator.record({ name: 'b', valueMs: 1, tags: {} });
    aggregator.recordMalformed(3);
    expect(aggregator.malformedCount()).toBe(3);
    expect(aggregator.droppedSeries()).toBe(1);
    expect(aggregator.drain()).toHaveLength(1);
    expect([aggregator.malformedCount(), aggregator.droppedSeries(), aggregator.drain().length]).toEqual([0, 0, 0]);
  });

  test('over the series cap, new series are dropped and counted once each while existing ones keep recording', () => {
    const aggregator = createLatencyAggregator({ maxSeries: 2 });
    for (let round = 0; round < 3; round++) {
      for (const name of ['a', 'b', 'c', 'd']) aggregator.record({ name, valueMs: 1, tags: {} });
    }
    expect(aggregator.droppedSeries()).toBe(2);
    expect(aggregator.drain().map((s) => [s.name, s.sketch.count])).toEqual([['a', 3], ['b', 3]]);
  });

  test('record says whether the timing was counted: a new series past the cap is not', () => {
    const aggregator = createLatencyAggregator({ maxSeries: 1 });
    expect([
      aggregator.record({ name: 'a', valueMs: 1, tags: {} }),
      aggregator.record({ name: 'b', valueMs: 1, tags: {} }),
      aggregator.record({ name: 'a', valueMs: 2, tags: {} }),
    ]).toEqual([true, false, true]);
  });

  test('the default cap matches the 500 series a report may carry', () => {
    const aggregator = createLatencyAggregator();
    for (let i = 0; i < 600; i++) aggregator.record({ name: `s${i}`, valueMs: 1, tags: {} });
    expect(aggregator.drain()).toHaveLength(500);
  });
});
