import { holdTransactionLock } from './locks';
import { z } from 'zod';
import { queryRow } from './rows';
import type { Sql } from './sql';
import { DAY_MS } from '../protocol/time';

const createdRow = z.object({ created: z.number().int() });

export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Daily partitions must exist before rows arrive: from the oldest accepted timestamp up to two days ahead,
 * so a clock a little in the future and a day rolling over never find a missing partition.
 */
export async function ensurePartitions(sql: Sql, now: Date, daysBack = 7, daysAhead = 2): Promise<number> {
  const first = utcDay(new Date(now.getTime() - daysBack * DAY_MS));
  const last = utcDay(new Date(now.getTime() + daysAhead * DAY_MS));
  // Every process creates them at start and ingest when a report finds one missing: two at once would both see it
  // missing and one CREATE would fail.
  const row = await sql.transaction(async (tx) => {
    await holdTransactionLock(tx, 'partitions');
    return queryRow(tx, 'partitions', createdRow, 'SELECT inferwatch_ensure_partitions($1::date, $2::date) AS created', [first, last]);
  });
  return row?.created ?? 0;
}
