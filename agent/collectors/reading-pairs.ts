import type { CollectorContext } from './types';

export interface Reading<T> {
  value: T;
  atMs: number;
}

export interface ReadingPair<T> {
  prev: Reading<T>;
  curr: Reading<T>;
}

export const DEFAULT_WARMUP_MS = 250;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Turns a counter source into (previous, current) reading pairs, one per collect().
 * The first call reads twice `warmupMs` apart so it can already yield a rate; with warmupMs 0 it only
 * stores the baseline and yields undefined. A read that throws leaves the stored baseline untouched.
 */
export function createReadingPairs<T>(
  read: (ctx: CollectorContext) => Promise<T>,
  warmupMs: number = DEFAULT_WARMUP_MS,
): (ctx: CollectorContext) => Promise<ReadingPair<T> | undefined> {
  let last: Reading<T> | undefined;
  return async (ctx) => {
    if (last === undefined) {
      const startedMs = performance.now();
      last = { value: await read(ctx), atMs: ctx.nowMs };
      if (warmupMs <= 0) return undefined;
      await sleep(warmupMs);
      const value = await read(ctx);
      return advance({ value, atMs: ctx.nowMs + (performance.now() - startedMs) });
    }
    return advance({ value: await read(ctx), atMs: ctx.nowMs });
  };

  function advance(curr: Reading<T>): ReadingPair<T> {
    const pair = { prev: last!, curr };
    last = curr;
    return pair;
  }
}

export const WARMING_UP = { unavailable: 'warming up: baseline reading taken, rates start with the next interval' };

export function clampPct(value: number): number {
  return Math.min(100, Math.max(0, value));
}
