import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRow } from '../db/rows';
import { DEMO_LABELS } from '../demo/fleet';
import type { DemoFleetResponse } from '../protocol/read-api/fleet';

const countsRow = z.object({ hosts: column.int8, reporting: column.int8 });

/** How many hosts carry the demo fleet's `demo` label, and how many of them still report. */
export async function countDemoHosts(db: Pick<Database, 'sql'>, options: { now: Date; staleAfterMs: number }): Promise<DemoFleetResponse> {
  const row = await queryRow(
    db.sql,
    'hosts',
    countsRow,
    `SELECT count(*) AS hosts,
            count(*) FILTER (WHERE GREATEST(last_seen_at, last_report_ts) >= $2) AS reporting
       FROM hosts WHERE labels ->> 'demo' = $1`,
    [DEMO_LABELS.demo, new Date(options.now.getTime() - options.staleAfterMs)],
  );
  return { hosts: row?.hosts ?? 0, reporting: row?.reporting ?? 0 };
}
