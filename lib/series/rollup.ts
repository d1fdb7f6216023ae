import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRow, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import { holdTransactionLock } from '../db/locks';
import { utcDay } from '../db/partitions';
import { LATE_REPORT_AGE_MS, countLateMinutes, takeLateMinutes } from './late-minutes';
import { GAUGE_ROLLUPS, TABLES } from './tables';
import {
  LATE_LATENCY_1M_SQL,
  gaugeRollupSql,
  inHostBuckets,
  latencyRollupSql,
  regionLatencyRollupSql,
  type RollupLevel,
} from './rollup-sql';
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../protocol/time';

export interface RollUpOptions {
  /**
   * A minute is rolled once it closed this long ago, and then not again unless ingest queues it as late. Ingest
   * queues the minute of every report LATE_REPORT_AGE_MS or more old; every younger report's transaction commits
   * before its minute settles. The 30 s beyond that cover a flush in flight (≤ 5 s) and the clocks of several
   * app processes.
   */
  settleMs?: number;
  /** Buckets this far behind the watermark are rolled up again (a repair; maintenance relies on the late queue). */
  latenessMs?: number;
  /** Where rolling starts on a database that has never been rolled up. */
  startAt?: Date;
  /** Width of one transaction's time range, per level. */
  chunkMs?: Partial<Record<RollupLevel, number>>;
  /** At most this many chunks per call, so one call stays short; the next call continues. */
  maxChunks?: number;
  /** Late (host, minute) pairs re-rolled per transaction. */
  latePairsPerChunk?: number;
}

export interface RollUpResult {
  /** Watermarks after this call: every bucket ending at or before them is complete. */
  rolledUntil: Record<RollupLevel, Date>;
  chunks: number;
  caughtUp: boolean;
}

const STEP_MS: Record<RollupLevel, number> = { '1m': MINUTE_MS, '1h': HOUR_MS };

const ROLLUP_STATEMENTS: Record<RollupLevel, string[]> = {
  '1m': [...GAUGE_ROLLUPS.map((spec) => gaugeRollupSql(spec, '1m')), latencyRollupSql('1m'), regionLatencyRollupSql('1m')],
  '1h': [...GAUGE_ROLLUPS.map((spec) => gaugeRollupSql(spec, '1h')), latencyRollupSql('1h'), regionLatencyRollupSql('1h')],
};

// Over ($1, $2) = the pairs' time span, ($3, $4) = (host ids, minutes) resp. (host ids, hours).
const LATE_STATEMENTS: Record<RollupLevel, string[]> = {
  '1m': [...GAUGE_ROLLUPS.map((spec) => gaugeRollupSql(spec, '1m', inHostBuckets('1 minute'))), LATE_LATENCY_1M_SQL],
  '1h': [
    ...GAUGE_ROLLUPS.map((spec) => gaugeRollupSql(spec, '1h', inHostBuckets('1 hour'))),
    latencyRollupSql('1h', inHostBuckets('1 hour')),
    regionLatencyRollupSql('1h', true),
  ],
};

const watermarkRow = z.object({ resolution: z.enum(['1m', '1h']), rolled_until: column.timestamp });
const minuteMarksRow = z.object({ rolled_until: column.timestamp, latency_quantiles_from: column.timestamp.nullable() });

export async function readWatermarks(sql: Sql): Promise<Partial<Record<RollupLevel, Date>>> {
  const rows = await queryRows(sql, 'series_rollup_watermarks', watermarkRow, 'SELECT resolution, rolled_until FROM series_rollup_watermarks');
  return Object.fromEntries(rows.map((r) => [r.resolution, r.rolled_until]));
}

const firstSampleRow = z.object({ first: column.timestamp.nullable() });
const FIRST_SAMPLE_SQL = `SELECT min(ts) AS first FROM (${Object.values(TABLES)
  .map((t) => `SELECT min(ts) AS ts FROM ${t.name}`)
  .join(' UNION ALL ')}) s`;

/** The oldest raw sample of any series table; null while there is none. Scans every partition: run it only before the first watermark. */
async function readFirstSampleMs(sql: Sql): Promise<number | null> {
  const row = await queryRow(sql, 'series tables', firstSampleRow, FIRST_SAMPLE_SQL);
  return row?.first?.getTime() ?? null;
}

async function startWatermark(sql: Sql, level: RollupLevel, at: number): Promise<void> {
  await sql.query(
    `INSERT INTO series_rollup_watermarks (resolution, rolled_until) VALUES ($1, $2)
     ON CONFLICT (resolution) DO UPDATE SET rolled_until = GREATEST(series_rollup_watermarks.rolled_until, EXCLUDED.rolled_until)`,
    [level, new Date(at)],
  );
}

export interface MinuteMarks {
  /** Every minute before this is rolled up; null before the first pass. */
  rolledUntil: Date | null;
  /** Every rolled minute from this one on has its latency quantiles stored; null until a pass has stored any. */
  quantilesFrom: Date | null;
}

/** What readers of the stored per-minute latency quantiles need to know of the 1-minute rollup. */
export async function readMinuteMarks(sql: Pick<Sql, 'query'>): Promise<MinuteMarks> {
  const [row] = await queryRows(
    sql,
    'series_rollup_watermarks',
    minuteMarksRow,
    `SELECT rolled_until, latency_quantiles_from FROM series_rollup_watermarks WHERE resolution = '1m'`,
  );
  return { rolledUntil: row?.rolled_until ?? null, quantilesFrom: row?.latency_quantiles_from ?? null };
}

export interface RollupBacklog {
  /** Every bucket ending at or before these is rolled up; absent before the first pass. */
  watermarks: Partial<Record<RollupLevel, Date>>;
  /** (host, minute) pairs of late reports waiting to be rolled again. */
  lateBucketsQueued: number;
}

/** How far the rollups are behind: what /metrics shows so operators can see whether they keep up. */
export async function readRollupBacklog(db: Pick<Database, 'sql'>): Promise<RollupBacklog> {
  const watermarks = await readWatermarks(db.sql);
  return { watermarks, lateBucketsQueued: await countLateMinutes(db.sql) };
}

async function rollChunk(sql: Sql, level: RollupLevel, fromMs: number, toMs: number, advanceTo: number): Promise<void> {
  await sql.transaction(async (tx) => {
    await holdTransactionLock(tx, 'rollup');
    await tx.query('SELECT inferwatch_ensure_rollup_partitions($1::date, $2::date)', [
      utcDay(new Date(fromMs)),
      utcDay(new Date(toMs - 1)),
    ]);
    const params = [new Date(fromMs), new Date(toMs)];
    for (const statement of ROLLUP_STATEMENTS[level]) await tx.query(statement, params);
    await tx.query(
      `INSERT INTO series_rollup_watermarks (resolution, rolled_until) VALUES ($1, $2)
       ON CONFLICT (resolution) DO UPDATE SET rolled_until = GREATEST(series_rollup_watermarks.rolled_until, EXCLUDED.rolled_until)`,
      [level, new Date(advanceTo)],
    );
    // The first pass that stores quantiles says from where on they are complete: minutes before it were rolled by a
    // version that kept none, and readers merge those.
    if (level === '1m') {
      await tx.query(
        `UPDATE series_rollup_watermarks SET latency_quantiles_from = $1 WHERE resolution = '1m' AND latency_quantiles_from IS NULL`,
        [new Date(fromMs)],
      );
    }
  });
}

function hostBucketParams(pairs: { hostId: number; ms: number }[], stepMs: number): unknown[] {
  const unique = new Map(pairs.map((p) => [`${p.hostId}:${floorTo(p.ms, stepMs)}`, { hostId: p.hostId, ms: floorTo(p.ms, stepMs) }]));
  const list = [...unique.values()];
  const times = list.map((p) => p.ms);
  return [
    new Date(Math.min(...times)),
    new Date(Math.max(...times) + stepMs),
    list.map((p) => p.hostId),
    list.map((p) => new Date(p.ms)),
  ];
}

/** Takes up to `limit` late (host, minute) pairs off the queue and re-rolls them, all in one transaction. */
async function rollLateChunk(sql: Sql, limit: number): Promise<number> {
  return sql.transaction(async (tx) => {
    await holdTransactionLock(tx, 'rollup');
    const pairs = await takeLateMinutes(tx, limit);
    if (pairs.length === 0) return 0;
    const minutes = hostBucketParams(pairs, MINUTE_MS);
    await tx.query('SELECT inferwatch_ensure_rollup_partitions($1::date, $2::date)', [
      utcDay(minutes[0] as Date),
      utcDay(new Date((minutes[1] as Date).getTime() - 1)),
    ]);
    for (const statement of LATE_STATEMENTS['1m']) await tx.query(statement, minutes);
    const hours = hostBucketParams(pairs, HOUR_MS);
    for (const statement of LATE_STATEMENTS['1h']) await tx.query(statement, hours);
    return pairs.length;
  });
}

/**
 * Rolls up every settled minute (from raw) and then every closed hour (from minutes) since the persisted
 * watermarks, after re-rolling the (host, minute) pairs ingest queued for late reports (see markLateMinutes).
 * Each minute is rolled once: re-rolling a window behind the watermark on every pass, as before, rolled each
 * minute about nine times at a 15 s maintenance interval. Idempotent: buckets are upserted, so running it again,
 * or from two processes, gives the same rows.
 */
export async function rollUp(sql: Sql, now: Date, options: RollUpOptions = {}): Promise<RollUpResult> {
  const settleMs = options.settleMs ?? LATE_REPORT_AGE_MS + 30_000;
  const latenessMs = options.latenessMs ?? 0;
  const maxChunks = options.maxChunks ?? 48;
  const chunkMs: Record<RollupLevel, number> = { '1m': HOUR_MS, '1h': DAY_MS, ...options.chunkMs };
  const start = options.startAt?.getTime() ?? now.getTime() - 7 * DAY_MS;
  const marks = await readWatermarks(sql);
  const rolledUntil = {} as Record<RollupLevel, Date>;
  let chunks = 0;
  let caughtUp = true;
  const latePairs = options.latePairsPerChunk ?? 2_000;
  while (chunks < maxChunks) {
    const taken = await rollLateChunk(sql, latePairs);
    if (taken > 0) chunks++;
    if (taken < latePairs) break;
  }
  if (chunks >= maxChunks) caughtUp = false;
  let closedEnd = floorTo(now.getTime() - settleMs, MINUTE_MS);
  // Late raw rows are re-rolled into minutes; the hours holding those minutes must follow.
  let changedFrom = Infinity;
  let firstSampleMs: number | null | undefined;
  for (const level of ['1m', '1h'] as const) {
    const step = STEP_MS[level];
    let mark = marks[level]?.getTime();
    if (mark === undefined) {
      // A database never rolled up starts at its first sample, not at `start`: walking empty days from there made
      // the watermark (and the age /metrics shows) days old on every fresh install. Without samples there is
      // nothing to roll and no watermark yet.
      firstSampleMs = firstSampleMs === undefined ? await readFirstSampleMs(sql) : firstSampleMs;
      if (firstSampleMs !== null) {
        // Not past what has settled: a first report stamped ahead of the clock must not mark later minutes done.
        mark = floorTo(Math.min(Math.max(start, firstSampleMs), closedEnd), step);
        await startWatermark(sql, level, mark);
      }
    }
    const resumeAt = mark === undefined ? floorTo(closedEnd, step) : level === '1m' ? mark - latenessMs : Math.min(mark, changedFrom);
    let from = floorTo(Math.max(floorTo(start, step), resumeAt), step);
    changedFrom = from;
    // Hours are rolled from minutes, so they may not pass the minute watermark.
    const end = floorTo(closedEnd, step);
    while (from < end && chunks < maxChunks) {
      const to = Math.min(end, floorTo(from, chunkMs[level]) + chunkMs[level]);
      await rollChunk(sql, level, from, to, to);
      chunks++;
      from = to;
    }
    if (from < end) caughtUp = false;
    rolledUntil[level] = new Date(Math.max(from, mark ?? 0));
    closedEnd = rolledUntil[level].getTime();
  }
  return { rolledUntil, chunks, caughtUp };
}
