import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { filterHosts } from './host-filter';

const hostRow = z.object({
  id: column.id,
  hostname: z.string(),
  machine_id: z.string().nullable(),
  region: z.string(),
  labels: column.labels,
  created_at: column.timestamp,
  last_seen_at: column.timestamp.nullable(),
  last_report_ts: column.timestamp.nullable(),
  /** When the server stored the host's newest report, by its own clock. */
  last_received_at: column.timestamp.nullable(),
  report_every_ms: z.number().int().nullable(),
  agent_version: z.string().nullable(),
});
export type HostRow = z.output<typeof hostRow>;

/** Every host (or the given ones) with when it was last heard, by each clock that can say. */
export function readHosts(sql: Sql, hostIds?: readonly number[]): Promise<HostRow[]> {
  return queryRows(
    sql,
    'hosts',
    hostRow,
    // last_seen_at is written only every few seconds, and last_report_ts is the agent's clock: a host whose clock is
    // behind would look silent between those writes. Its newest ledger row says when it was last heard.
    `SELECT h.id, h.hostname, h.machine_id, h.region, h.labels, h.created_at, h.last_seen_at, h.last_report_ts, h.report_every_ms,
            h.agent_version,
            r.received_at AS last_received_at
       FROM hosts h
       LEFT JOIN LATERAL (SELECT received_at FROM report_ledger WHERE host_id = h.id ORDER BY seq DESC LIMIT 1) r ON TRUE
      WHERE TRUE ${filterHosts(hostIds, 'h.id', 1)} ORDER BY h.id`,
    hostIds ? [hostIds] : [],
  );
}
