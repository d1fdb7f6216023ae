import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';

const droppedRow = z.object({ host_id: column.id, dropped: z.number() });

/** Reports each host's agent dropped over [from, to] (its spool was full). */
export async function readDroppedReports(sql: Sql, from: Date, to: Date, hostIds: readonly number[]): Promise<Map<number, number>> {
  if (hostIds.length === 0) return new Map();
  // The counter lives in the agent's spool state and survives restarts, but starts again from 0 when that state is
  // lost: a fall is a restart, after which the new value is the count since.
  const rows = await queryRows(
    sql,
    'host_samples',
    droppedRow,
    `SELECT host_id, sum(CASE WHEN d >= prev THEN d - prev ELSE d END)::float8 AS dropped
       FROM (SELECT host_id, dropped_reports AS d, lag(dropped_reports) OVER (PARTITION BY host_id ORDER BY ts) AS prev
               FROM host_samples WHERE ts > $1 AND ts <= $2 AND host_id = ANY($3::int4[])) s
      WHERE prev IS NOT NULL
      GROUP BY host_id`,
    [from, to, hostIds],
  );
  return new Map(rows.map((row) => [row.host_id, row.dropped]));
}
