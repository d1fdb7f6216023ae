import path from 'node:path';
import type { Collector, CollectorContext } from '../../../../agent/collectors/types';

export const FIXTURES = path.resolve(import.meta.dirname, '../../../fixtures');

export function fixture(...parts: string[]): string {
  return path.join(FIXTURES, ...parts);
}

export interface ReadingAt {
  procRoot: string;
  sysRoot?: string;
  nowMs: number;
}

export function contextAt(reading: ReadingAt): CollectorContext {
  return { procRoot: reading.procRoot, sysRoot: reading.sysRoot ?? fixture('debian-kvm', 'sys'), nowMs: reading.nowMs, watched: [] };
}

/** Runs a collector twice: the baseline from the first tree, the sample from the second. */
export async function collectTwice<T>(collector: Collector<T>, first: ReadingAt, second: ReadingAt): Promise<{ baseline: T; sample: T }> {
  const baseline = await collector.collect(contextAt(first));
  const sample = await collector.collect(contextAt(second));
  return { baseline, sample };
}

/** Asserts a collector result is data, not `{ unavailable }`, and narrows its type. */
export function expectData<T>(value: T | { unavailable: string }): T {
  if (typeof value === 'object' && value !== null && 'unavailable' in value) {
    throw new Error(`expected data, got unavailable: ${value.unavailable}`);
  }
  return value as T;
}
