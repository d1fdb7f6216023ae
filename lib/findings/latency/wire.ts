import type { SketchWire } from '../../protocol';

export const EMPTY_WIRE: SketchWire = { count: 0, sum: 0, min: 0, max: 0, zeroCount: 0, keys: [], counts: [] };

/**
 * `whole` without `part`, where `part`'s rows are among those merged into `whole` (a region without one of its
 * hosts): counts subtract key by key. min and max stay `whole`'s, which still bound what is left.
 */
export function subtractWire(whole: SketchWire, part: SketchWire): SketchWire {
  const partCounts = new Map(part.keys.map((k, i) => [k, part.counts[i]!]));
  const keys: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < whole.keys.length; i++) {
    const left = whole.counts[i]! - (partCounts.get(whole.keys[i]!) ?? 0);
    if (left > 0) {
      keys.push(whole.keys[i]!);
      counts.push(left);
    }
  }
  const zeroCount = Math.max(0, whole.zeroCount - part.zeroCount);
  const count = counts.reduce((a, b) => a + b, zeroCount);
  if (count === 0) return EMPTY_WIRE;
  return { count, sum: Math.max(0, whole.sum - part.sum), min: whole.min, max: whole.max, zeroCount, keys, counts };
}
