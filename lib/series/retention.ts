import { z } from 'zod';
import { queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import { RAW_SERIES_TABLES, ROLLUP_1H_TABLES, ROLLUP_1M_TABLES } from '../../prisma/series-tables';
import type { RetentionDays } from './retention-config';
import { DAY_MS } from '../protocol/time';

/** The exclusive upper bound of a partition named `<parent>_pYYYYMMDD` (a day) or `<parent>_pYYYYMM` (a month). */
export function partitionEnd(partition: string): Date | null {
  const match = /_p(\d{4})(\d{2})(\d{2})?$/.exec(partition);
  if (!match) return null;
  const [, year, month, day] = match;
  return day === undefined
    ? new Date(Date.UTC(Number(year), Number(month), 1))
    : new Date(Date.UTC(Number(year), Number(month) - 1, Number(day) + 1));
}

const partitionRow = z.object({ name: z.string() });

async function listPartitions(sql: Sql, parent: string): Promise<string[]> {
  const rows = await queryRows(
    sql,
    'pg_inherits',
    partitionRow,
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass($1) ORDER BY c.relname`,
    [parent],
  );
  return rows.map((r) => r.name);
}

/** Drops every partition whose whole time range is older than its table's horizon; never deletes rows. */
export async function applyRetention(sql: Sql, now: Date, retention: RetentionDays): Promise<string[]> {
  const horizons: [readonly string[], number][] = [
    [RAW_SERIES_TABLES, retention.raw],
    [ROLLUP_1M_TABLES, retention.oneMinute],
    [ROLLUP_1H_TABLES, retention.oneHour],
  ];
  const dropped: string[] = [];
  for (const [parents, days] of horizons) {
    const horizon = now.getTime() - days * DAY_MS;
    for (const parent of parents) {
      for (const partition of await listPartitions(sql, parent)) {
        const end = partitionEnd(partition);
        if (end && end.getTime() <= horizon) {
          await sql.query(`DROP TABLE IF EXISTS "${partition}"`);
          dropped.push(partition);
        }
      }
    }
  }
  return dropped;
}
