import type { Sql } from '../../db/sql';
import type { HostHeard } from '../inputs';

/** Receipts are looked for this far back; a host silent for longer is judged by its last-seen time. */
export const HEARD_LOOKBACK_MS = 5 * 60_000;

/**
 * When the server last received a report from each host, by its own clock (the ledger's received_at, not the
 * agent's ts), and the longest report interval lately: "missed intervals" counts in the host's own interval.
 */
export async function readHostsHeard(sql: Sql, now: Date, hostIds?: readonly number[]): Promise<Map<number, HostHeard>> {
  const from = new Date(now.getTime() - HEARD_LOOKBACK_MS);
  const filter = (column: string) => (hostIds ? `AND ${column} = ANY($2::int4[])` : '');
  const rows = await sql.query<{ id: number; last_heard: Date | null; interval_ms: number | null }>(
    `SELECT h.id, GREATEST(h.last_seen_at, r.last_received) AS last_heard, s.interval_ms
       FROM hosts h
       LEFT JOIN (SELECT host_id, max(received_at) AS last_received FROM report_ledger
                   WHERE ts > $1 ${filter('host_id')} GROUP BY host_id) r ON r.host_id = h.id
       LEFT JOIN (SELECT host_id, max(interval_ms) AS interval_ms FROM host_samples
                   WHERE ts > $1 ${filter('host_id')} GROUP BY host_id) s ON s.host_id = h.id
      WHERE TRUE ${filter('h.id')}`,
    hostIds ? [from, hostIds] : [from],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      { lastHeardMs: r.last_heard ? new Date(r.last_heard).getTime() : null, intervalMs: r.interval_ms === null ? null : Number(r.interval_ms) },
    ]),
  );
}
