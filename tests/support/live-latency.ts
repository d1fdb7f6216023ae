import { quantileRank } from '../../lib/sketch';
import { eventually } from './live-agent';
import { rowsOf } from './rows';

/** Log-normal durations around `median` (in its unit), capped at `max`, from a seeded `random` so a failure reproduces. */
export function logNormalDurations(random: () => number, n: number, median: number, sigma: number, max = Infinity): number[] {
  return Array.from({ length: n }, () => {
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.min(max, median * Math.exp(sigma * normal));
  });
}

/** The exact q-quantile of what was observed, at the rank the sketches use. */
export function exactQuantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[quantileRank(q, sorted.length) - 1]!;
}

/** Observations of a latency series stored so far, in the database DATABASE_URL names. */
export async function storedLatencyCount(name: string): Promise<number> {
  const { getDb } = await import('../../lib/db');
  const [row] = await rowsOf<{ n: number }>((await getDb()).sql, 'SELECT coalesce(sum(count), 0)::int AS n FROM latency_samples WHERE name = $1', [name]);
  return row!.n;
}

/** Resolves once exactly `expected` observations of `name` are stored; more than that fails at once (counted twice). */
export async function countReaches(name: string, expected: number): Promise<void> {
  await eventually(`${expected} ${name} observations stored`, async () => {
    const n = await storedLatencyCount(name);
    if (n > expected) throw new Error(`${name}: ${n} stored, more than the ${expected} observed`);
    return n === expected ? true : undefined;
  });
}
