import { MAX_COLLECTOR_DURATION_MS, MAX_COLLECTOR_ERROR_CHARS, type CollectorRun } from '../../lib/protocol';
import type { Logger } from '../log';
import type { ActiveCollector, Collected } from './registration';
import type { CollectorContext } from './types';
import { boundedText } from './values';

export interface TimedRun {
  /** undefined when it threw and its part of the report stays as it was. */
  collected: Collected | undefined;
  run: CollectorRun;
}

/** The reason a report section carries when its collector threw (within unavailableSchema's 500 characters). */
export function failureReason(name: string, err: unknown): string {
  return `${name}: collector failed: ${(err as Error)?.message ?? String(err)}`.slice(0, 500);
}

/**
 * Runs one collector, as node_exporter times each of its own: how long it took on `monoMs`, and whether it gave data.
 * One that throws is logged and stands in with its fallback; it never stops the others.
 */
export async function runTimed(
  collector: ActiveCollector,
  ctx: CollectorContext,
  monoMs: () => number,
  log: Logger,
): Promise<TimedRun> {
  const startedMs = monoMs();
  // Clamped to the protocol's bound: a collector stuck for an hour is still reported, as taking an hour.
  const durationMs = () => Math.round(Math.min(MAX_COLLECTOR_DURATION_MS, Math.max(0, monoMs() - startedMs)) * 1000) / 1000;
  try {
    const collected = await collector.collect(ctx);
    return { collected, run: runOf(collector.name, durationMs(), collected.unavailable) };
  } catch (err) {
    const reason = failureReason(collector.name, err);
    log.error('collector failed', { collector: collector.name, error: reason });
    return { collected: collector.failed(reason), run: runOf(collector.name, durationMs(), reason) };
  }
}

function runOf(name: string, durationMs: number, problem: string | undefined): CollectorRun {
  if (problem === undefined) return { name, durationMs, ok: true };
  return { name, durationMs, ok: false, error: boundedText(problem, MAX_COLLECTOR_ERROR_CHARS) || 'failed' };
}
