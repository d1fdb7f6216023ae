import { describe, expect, test } from 'vitest';
import { seededRandom } from '../../../bench/_ingest-report';
import type { SketchWire } from '../../protocol';
import { LatencySketch, mergeWires, quantileOfWire } from '../../sketch';
import { p99OfTails, type TailRow } from './tail-p99';

/** What the tail query sends for one row of a group totalling `total` requests: its top `need` buckets. */
function tailOf(wire: SketchWire, total: number): TailRow {
  const need = total - Math.ceil(0.99 * total) + 2;
  const from = Math.max(0, wire.keys.length - need);
  return {
    host_id: 1,
    name: 'x',
    ts: 0,
    count: wire.count,
    zero_count: wire.zeroCount,
    min: wire.min,
    max: wire.max,
    keys: wire.keys.slice(from).join(','),
    counts: wire.counts.slice(from).join(','),
  };
}

function randomWire(random: () => number, n: number, medianMs: number, tailShare: number): SketchWire {
  const sketch = new LatencySketch();
  for (let i = 0; i < n; i++) sketch.add(random() < tailShare ? medianMs * (5 + 20 * random()) : medianMs * Math.exp((random() - 0.5) * 1.2));
  return sketch.toWire();
}

describe('p99 of tails', () => {
  test('equals the merged histogram\'s p99 for one row and for several tags of one bucket', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 300; trial++) {
      const rows = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        randomWire(random, 1 + Math.floor(random() * 3000), 1 + random() * 80, random() * 0.05),
      );
      const total = rows.reduce((n, w) => n + w.count, 0);
      const expected = quantileOfWire(mergeWires(rows), 0.99);
      expect(p99OfTails(rows.map((w) => tailOf(w, total)))).toEqual({ p99Ms: expected, count: total });
    }
  });

  test('one row read from the end of its text gives quantileOfWire\'s p99, negative keys (under 1 ms) too', () => {
    const random = seededRandom(11);
    for (let trial = 0; trial < 300; trial++) {
      const wire = randomWire(random, 1 + Math.floor(random() * 5000), random() < 0.3 ? 0.05 + random() : 1 + random() * 200, random() * 0.05);
      expect(p99OfTails([tailOf(wire, wire.count)]).p99Ms).toBe(quantileOfWire(wire, 0.99));
      expect(p99OfTails([tailOf(wire, wire.count), { ...tailOf(wire, 0), count: 0, keys: '', counts: '' }]).p99Ms).toBe(quantileOfWire(wire, 0.99));
    }
  });

  test('the tail is a small part of a minute of a busy series', () => {
    const wire = randomWire(seededRandom(3), 2400, 30, 0);
    expect(tailOf(wire, wire.count).keys.split(',').length).toBeLessThan(wire.keys.length / 2);
  });

  test('no requests, no p99', () => {
    expect(p99OfTails([])).toEqual({ p99Ms: null, count: 0 });
  });
});
