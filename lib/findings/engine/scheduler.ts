import type { Database } from '../../db/open';
import { DAY_MS } from '../../protocol/time';
import { measureFixEffects, type EffectOptions } from '../effects/measure-effects';
import { listSnapshotsAfter, readNewestSnapshotId } from '../read/inventory-snapshots';
import { deleteResolvedFindings } from '../store/findings';
import { FindingsEngine, type CycleResult } from './engine';

export interface FindingsSchedulerOptions {
  /** Full cycles: every rule over every host and region. */
  intervalMs?: number;
  /** How often new inventory snapshots are looked for, to judge those hosts at once. */
  inventoryPollMs?: number;
  /** Resolved occurrences older than this are deleted. */
  historyDays?: number;
  now?: () => Date;
  onCycle?: (result: CycleResult, hostIds?: readonly number[]) => void;
  onError?: (err: unknown) => void;
  engine?: FindingsEngine;
  /** How what a fix bought is measured (lib/findings/effects); after each full cycle. */
  effects?: EffectOptions;
}

export interface FindingsScheduler {
  engine: FindingsEngine;
  /** Runs a full cycle now; resolves when it is written. */
  runOnce(): Promise<CycleResult>;
  stop(): Promise<void>;
}

/**
 * Series rules need at least one cycle a minute; inventory rules should answer as soon as a host's inventory
 * changes, so new snapshots are polled for (one indexed query) and their hosts judged in a targeted cycle.
 */
export function startFindingsScheduler(db: Pick<Database, 'sql'>, options: FindingsSchedulerOptions = {}): FindingsScheduler {
  const engine = options.engine ?? new FindingsEngine(db);
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? ((err) => console.error('findings cycle failed:', err));
  const historyMs = (options.historyDays ?? 90) * DAY_MS;
  let lastSnapshotId: number | null = null;
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;

  const track = <T>(work: Promise<T>) => {
    const settled = work.catch(() => {}).finally(() => inFlight.delete(settled));
    inFlight.add(settled);
    return work;
  };

  // A rule that throws judges nothing that cycle (its findings stay as they were); say so, once per rule per cycle.
  const reportFailures = (result: CycleResult) => {
    const byRule = new Map<string, { hosts: number; error: string }>();
    for (const f of result.failures) byRule.set(f.ruleId, { hosts: (byRule.get(f.ruleId)?.hosts ?? 0) + 1, error: f.error });
    for (const [ruleId, { hosts, error }] of byRule) console.error(`findings: rule ${ruleId} failed on ${hosts} host(s): ${error}`);
  };

  const full = async () => {
    const at = now();
    const mark = await readNewestSnapshotId(db.sql);
    const result = await engine.runCycle(at);
    reportFailures(result);
    lastSnapshotId = Math.max(lastSnapshotId ?? 0, mark);
    await deleteResolvedFindings(db.sql, new Date(at.getTime() - historyMs));
    // A failure to measure a fix must not hold back the next cycle's judgements: it is reported and tried again.
    await measureFixEffects(db, at, options.effects).catch(onError);
    options.onCycle?.(result);
    return result;
  };

  const pollInventories = async () => {
    if (lastSnapshotId === null) return;
    const snapshots = await listSnapshotsAfter(db.sql, lastSnapshotId);
    if (snapshots.length === 0) return;
    lastSnapshotId = snapshots.at(-1)!.id;
    const hostIds = [...new Set(snapshots.map((s) => s.hostId))];
    const result = await engine.runCycle(now(), hostIds);
    reportFailures(result);
    options.onCycle?.(result, hostIds);
  };

  const fullTimer = setInterval(() => {
    if (!stopped) void track(full()).catch(onError);
  }, options.intervalMs ?? 60_000);
  const pollTimer = setInterval(() => {
    if (!stopped) void track(pollInventories()).catch(onError);
  }, options.inventoryPollMs ?? 10_000);
  fullTimer.unref();
  pollTimer.unref();
  void track(full()).catch(onError);

  return {
    engine,
    runOnce: () => track(full()),
    async stop() {
      stopped = true;
      clearInterval(fullTimer);
      clearInterval(pollTimer);
      await Promise.all(inFlight);
    },
  };
}
