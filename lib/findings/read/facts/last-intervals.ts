import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';

const lastIntervalRow = z.object({ host_id: column.id, interval_ms: z.number().int() });

/** The newest report's interval of hosts with no samples in the window (a long interval, or gone quiet). */
export async function readLastIntervals(sql: Sql, hostIds: readonly number[]): Promise<Map<number, number>> {
  if (hostIds.length === 0) return new Map();
  const rows = await queryRows(
    sql,
    'host_samples',
    lastIntervalRow,
    `SELECT s.host_id, s.interval_ms FROM hosts h JOIN host_samples s ON s.host_id = h.id AND s.ts = h.last_report_ts
      WHERE h.id = ANY($1::int4[])`,
    [hostIds],
  );
  return new Map(rows.map((row) => [row.host_id, row.interval_ms]));
}
