import type { SketchWire } from '../../protocol';
import { quantileOfWire, quantileRank, valueOfKey } from '../../sketch';

/**
 * One histogram row with only its highest buckets: at least the ⌈1 %⌉ + 1 of its group's requests ranked highest
 * (each non-empty bucket holds one or more). `keys` and `counts` as comma-separated text, which PostgreSQL writes and
 * JavaScript splits several times faster than it parses array literals.
 */
export interface TailRow {
  host_id: number;
  name: string;
  /** Bucket start, epoch ms. */
  ts: number;
  count: number;
  zero_count: number;
  min: number;
  max: number;
  keys: string;
  counts: string;
}

/** How many top buckets of each row a group of rows totalling `count` requests needs for its p99 (with one spare). */
export const TAIL_NEED_SQL = (count: string) => `(${count} - ceil(0.99 * ${count}) + 2)`;

const numbers = (text: string) => (text === '' ? [] : text.split(',').map(Number));

/**
 * The p99 of one row from its tail, read from the end of its text without splitting it: the bucket in which the
 * requests counted from the top reach count − rank + 1 (rank as quantileOfWire takes it), clamped into [min, max].
 * Reached nowhere, the p99 is among the requests below the tail's buckets, which only the zero bucket can be.
 */
function p99OfTail(row: TailRow): number {
  const fromTop = row.count - quantileRank(0.99, row.count) + 1;
  const { keys, counts } = row;
  let ki = keys.length;
  let ci = counts.length;
  let seen = 0;
  while (ci > 0 && ki > 0) {
    let count = 0;
    let scale = 1;
    let j = ci - 1;
    for (; j >= 0 && counts.charCodeAt(j) !== 44; j--, scale *= 10) count += (counts.charCodeAt(j) - 48) * scale;
    ci = j;
    let key = 0;
    scale = 1;
    let k = ki - 1;
    for (; k >= 0 && keys.charCodeAt(k) !== 44; k--) {
      const c = keys.charCodeAt(k);
      if (c === 45) key = -key;
      else {
        key += (c - 48) * scale;
        scale *= 10;
      }
    }
    ki = k;
    seen += count;
    if (seen >= fromTop) return Math.min(row.max, Math.max(row.min, valueOfKey(key)));
  }
  return row.min;
}

/**
 * The p99 of rows merged (one series' tags of one bucket) from their tails alone: the requests below the tails
 * stand in as the zero bucket, which only shifts the rank the walk starts from. Every bucket at or above the p99's
 * is in every row's tail (fewer than `need` requests rank above it), so the result is the merged histogram's p99.
 */
export function p99OfTails(rows: readonly TailRow[]): { p99Ms: number | null; count: number } {
  if (rows.length === 1) return { p99Ms: rows[0]!.count > 0 ? p99OfTail(rows[0]!) : null, count: rows[0]!.count };
  const merged = new Map<number, number>();
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const row of rows) {
    count += row.count;
    if (row.count === 0) continue;
    min = Math.min(min, row.min);
    max = Math.max(max, row.max);
    const keys = numbers(row.keys);
    const counts = numbers(row.counts);
    for (let i = 0; i < keys.length; i++) merged.set(keys[i]!, (merged.get(keys[i]!) ?? 0) + counts[i]!);
  }
  if (count === 0) return { p99Ms: null, count };
  const keys = [...merged.keys()].sort((a, b) => a - b);
  const counts = keys.map((k) => merged.get(k)!);
  const tail = counts.reduce((a, b) => a + b, 0);
  const wire: SketchWire = { count, sum: 0, min, max, zeroCount: count - tail, keys, counts };
  return { p99Ms: quantileOfWire(wire, 0.99), count };
}
