import { z } from 'zod';
import { column, queryRow } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { keyOf } from '../../sketch';

const worstHostRow = z.object({ host_id: column.id });

export interface LatencyAlertContext {
  region: string;
  service: string;
  /** Requests slower than this are the ones the alert is about. */
  slowMs: number;
  from: Date;
  to: Date;
}

/** The host of the region with the most slow requests of the service in the window. */
export async function readWorstLatencyHost(sql: Sql, context: LatencyAlertContext): Promise<number | null> {
  const row = await queryRow(
    sql,
    'latency_samples',
    worstHostRow,
    `SELECT x.host_id FROM latency_samples x JOIN hosts h ON h.id = x.host_id
      WHERE h.region = $1 AND x.name = $2 AND x.ts > $3 AND x.ts <= $4
      GROUP BY x.host_id
      ORDER BY sum((SELECT coalesce(sum(c), 0) FROM unnest(x.keys, x.counts) u(k, c) WHERE k > $5)) DESC, x.host_id
      LIMIT 1`,
    [context.region, context.service, context.from, context.to, keyOf(context.slowMs)],
  );
  return row ? row.host_id : null;
}
