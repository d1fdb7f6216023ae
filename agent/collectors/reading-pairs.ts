import type { CollectorContext } from './types';

export interface Reading<T> {
  value: T;
  atMs: number;
}

export interface ReadingPair<T> {
  prev: Reading<T>;
  curr: Reading<T>;
}

/**
 * Turns a counter source into (previous, current) reading pairs, one per collect(), each stamped with the
 * collection's ctx.nowMs: a rate then covers exactly the time between two collections, which is what the report's
 * intervalMs states. The first call stores the baseline and yields undefined; a read that throws leaves it untouched.
 */
export function createReadingPairs<T>(
  read: (ctx: CollectorContext) => T | Promise<T>,
): (ctx: CollectorContext) => Promise<ReadingPair<T> | undefined> {
  let last: Reading<T> | undefined;
  return async (ctx) => {
    const curr = { value: await read(ctx), atMs: ctx.nowMs };
    const prev = last;
    last = curr;
    return prev && { prev, curr };
  };
}

export const WARMING_UP = { unavailable: 'warming up: baseline reading taken, rates start with the next interval' };

export function clampPct(value: number): number {
  return Math.min(100, Math.max(0, value));
}
