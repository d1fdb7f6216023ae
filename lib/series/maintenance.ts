import { holdTransactionLock } from '../db/locks';
import type { Database } from '../db/open';
import { ensurePartitions, utcDay } from '../db/partitions';
import { expireInventorySnapshots } from '../ingest/write/inventory';
import { applyRetention } from './retention';
import { processRetentionSetting, type RetentionDays } from './retention-config';
import { rollUp, type RollUpOptions } from './rollup';
import { DAY_MS, HOUR_MS } from '../protocol/time';

export interface SeriesMaintenanceOptions {
  /** How often rollups run. */
  intervalMs?: number;
  /** How often partitions ahead are created and old ones dropped. */
  housekeepingIntervalMs?: number;
  retention?: RetentionDays;
  rollUp?: RollUpOptions;
  now?: () => Date;
  onError?: (err: unknown) => void;
}

export interface SeriesMaintenance {
  stop(): Promise<void>;
  /** Runs one tick now (rollups, plus housekeeping when due); resolves when done. */
  runOnce(): Promise<void>;
}

/** Partitions for the next days and retention (series partitions, inventory snapshots): at start, then every housekeeping interval. */
export async function runHousekeeping(db: Pick<Database, 'sql'>, now: Date, retention: RetentionDays): Promise<string[]> {
  await ensurePartitions(db.sql, now, Math.ceil(retention.raw), 2);
  // Under the rollup lock, as rollups create them: a leader stepping down may still be rolling up.
  await db.sql.transaction(async (tx) => {
    await holdTransactionLock(tx, 'rollup');
    await tx.query('SELECT inferwatch_ensure_rollup_partitions($1::date, $2::date)', [
      utcDay(new Date(now.getTime() - 2 * DAY_MS)),
      utcDay(new Date(now.getTime() + 2 * DAY_MS)),
    ]);
  });
  const dropped = await applyRetention(db.sql, now, retention);
  await expireInventorySnapshots(db.sql, now, retention.oneHour);
  return dropped;
}

/**
 * Keeps the series tables healthy in the background: rollups every `intervalMs` (default 15 s), partitions
 * ahead and retention by dropping partitions every `housekeepingIntervalMs` (default 1 h). Ticks never overlap.
 */
export function startSeriesMaintenance(
  db: Pick<Database, 'sql'>,
  options: SeriesMaintenanceOptions = {},
): SeriesMaintenance {
  const intervalMs = options.intervalMs ?? 15_000;
  const housekeepingIntervalMs = options.housekeepingIntervalMs ?? HOUR_MS;
  const retention = options.retention ?? processRetentionSetting.get();
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? ((err) => console.error('series maintenance failed:', err));
  let lastHousekeepingMs = -Infinity;
  let running: Promise<void> | null = null;
  let stopped = false;

  const tick = async () => {
    const at = now();
    if (at.getTime() - lastHousekeepingMs >= housekeepingIntervalMs) {
      await runHousekeeping(db, at, retention);
      lastHousekeepingMs = at.getTime();
    }
    await rollUp(db.sql, at, { startAt: new Date(at.getTime() - retention.raw * DAY_MS), ...options.rollUp });
  };
  const runOnce = () => {
    running ??= tick()
      .catch(onError)
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) void runOnce();
  }, intervalMs);
  timer.unref();
  void runOnce();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
