import { z } from 'zod';
import { column, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import { MINUTE_MS } from '../protocol/time';

/**
 * Reports at least this old may land in a minute the rollup has already passed, so ingest queues their minutes.
 * rollUp waits this long and 30 s more after a minute closes before rolling it, so every younger report is
 * stored before its minute is rolled.
 */
export const LATE_REPORT_AGE_MS = 60_000;

export interface LateMinute {
  hostId: number;
  minuteMs: number;
}

/** The distinct (host, minute) pairs of reports older than LATE_REPORT_AGE_MS at `nowMs`; none for fresh traffic. */
export function lateMinutesOf(reports: readonly { hostId: number; ts: number }[], nowMs: number): LateMinute[] {
  const seen = new Set<string>();
  const late: LateMinute[] = [];
  for (const { hostId, ts } of reports) {
    if (ts > nowMs - LATE_REPORT_AGE_MS) continue;
    const minuteMs = Math.floor(ts / MINUTE_MS) * MINUTE_MS;
    const key = `${hostId}:${minuteMs}`;
    if (seen.has(key)) continue;
    seen.add(key);
    late.push({ hostId, minuteMs });
  }
  return late;
}

export interface SqlStatement {
  text: string;
  params: unknown[];
}

/** The one statement that queues late (host, minute) pairs; a pair already queued is kept once. */
export function markLateMinutesStatement(minutes: readonly LateMinute[]): SqlStatement {
  return {
    text: `INSERT INTO rollup_dirty_minutes (host_id, minute)
     SELECT * FROM unnest($1::int[], $2::timestamptz[]) ON CONFLICT DO NOTHING`,
    params: [minutes.map((m) => m.hostId), minutes.map((m) => new Date(m.minuteMs))],
  };
}

/** Queues late (host, minute) pairs for the next rollUp pass to re-roll. */
export async function markLateMinutes(sql: Sql, minutes: readonly LateMinute[]): Promise<void> {
  if (minutes.length === 0) return;
  const { text, params } = markLateMinutesStatement(minutes);
  await sql.query(text, params);
}

const countRow = z.object({ n: z.number().int() });

/** How many late (host, minute) pairs wait to be rolled again. */
export async function countLateMinutes(sql: Pick<Sql, 'query'>): Promise<number> {
  const [row] = await queryRows(sql, 'rollup_dirty_minutes', countRow, 'SELECT count(*)::int AS n FROM rollup_dirty_minutes');
  return row?.n ?? 0;
}

const lateRow = z.object({ host_id: column.id, minute: column.timestamp });

/** Takes up to `limit` of the oldest late pairs off the queue, in the transaction that rolls them again. */
export async function takeLateMinutes(tx: Pick<Sql, 'query'>, limit: number): Promise<{ hostId: number; ms: number }[]> {
  const rows = await queryRows(
    tx,
    'rollup_dirty_minutes',
    lateRow,
    `DELETE FROM rollup_dirty_minutes WHERE (host_id, minute) IN
       (SELECT host_id, minute FROM rollup_dirty_minutes ORDER BY minute, host_id LIMIT $1)
     RETURNING host_id, minute`,
    [limit],
  );
  return rows.map((r) => ({ hostId: r.host_id, ms: r.minute.getTime() }));
}
