/**
 * Cumulative readings → what happened since the previous reading. A server that restarted starts its counters
 * again from zero: any counter that went down, a changed `_created` or a new bucket layout means a restart, and then
 * the new reading itself is what happened (never a negative count, never the old total counted twice).
 */

export interface HistogramReading {
  /** Upper bounds in the server's unit, ascending, the last one Infinity. */
  bounds: number[];
  /** Cumulative counts per bound. */
  cumulative: number[];
  sum: number;
  /** The series' `_created` timestamp when the server publishes one. */
  created: number | null;
}

export interface CounterReading {
  value: number;
  created: number | null;
}

export type HistogramDelta =
  | { kind: 'delta' | 'reset'; perBucket: number[]; count: number; sum: number }
  /** The counts moved in a way no sequence of observations can produce (a torn read): wait for the next reading. */
  | { kind: 'inconsistent' };

const sameBounds = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

function perBucket(cumulative: readonly number[]): number[] {
  return cumulative.map((c, i) => c - (i === 0 ? 0 : cumulative[i - 1]!));
}

function restarted(prevCreated: number | null, created: number | null): boolean {
  return prevCreated !== null && created !== null && prevCreated !== created;
}

/** What a histogram saw since `prev`; `prev` undefined means the series began since the previous scrape. */
export function histogramDelta(prev: HistogramReading | undefined, cur: HistogramReading, targetRestarted = false): HistogramDelta {
  const fresh = (kind: 'reset' | 'delta'): HistogramDelta => ({
    kind,
    perBucket: perBucket(cur.cumulative),
    count: cur.cumulative.at(-1) ?? 0,
    sum: cur.sum,
  });
  if (!prev) return fresh('delta');
  if (targetRestarted || restarted(prev.created, cur.created) || !sameBounds(prev.bounds, cur.bounds)) return fresh('reset');
  const diff = cur.cumulative.map((c, i) => c - prev.cumulative[i]!);
  if (diff.some((d) => d < 0) || cur.sum < prev.sum) return fresh('reset');
  const buckets = perBucket(diff);
  if (buckets.some((d) => d < 0)) return { kind: 'inconsistent' };
  return { kind: 'delta', perBucket: buckets, count: diff.at(-1) ?? 0, sum: cur.sum - prev.sum };
}

/** What a counter counted since `prev`; `prev` undefined means the series began since the previous scrape. */
export function counterDelta(prev: CounterReading | undefined, cur: CounterReading, targetRestarted = false): number {
  if (!prev) return cur.value;
  if (targetRestarted || restarted(prev.created, cur.created) || cur.value < prev.value) return cur.value;
  return cur.value - prev.value;
}
