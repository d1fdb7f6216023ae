import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { withoutJit } from '../../db/without-jit';
import type { HostHeard } from '../inputs';

const heardRow = z.object({ id: column.id, last_heard: column.timestamp.nullable(), interval_ms: z.number().int().nullable() });

/**
 * When the server last received a report from each host, by its own clock: the received_at of the host's newest
 * ledger row (or its last-seen time, written a few seconds behind ingest, if later); and the interval "missed
 * intervals" counts in: the agent's configured one, else (an older agent) the longest report interval over the
 * 5 minutes up to its newest report, since a first report covers only a warm-up. Each is a backward index probe or a
 * short range per host, however long the host has been silent; the range is skipped when the configured one is known.
 */
export async function readHostsHeard(sql: Sql, hostIds?: readonly number[]): Promise<Map<number, HostHeard>> {
  const rows = await withoutJit(sql, (tx) => queryRows(
    tx,
    'hosts',
    heardRow,
    `SELECT h.id, GREATEST(h.last_seen_at, r.received_at) AS last_heard, COALESCE(h.report_every_ms, s.interval_ms) AS interval_ms
       FROM hosts h
       LEFT JOIN LATERAL (SELECT received_at FROM report_ledger WHERE host_id = h.id ORDER BY seq DESC LIMIT 1) r ON TRUE
       LEFT JOIN LATERAL (SELECT ts FROM host_samples WHERE host_id = h.id AND h.report_every_ms IS NULL ORDER BY ts DESC LIMIT 1) n ON TRUE
       LEFT JOIN LATERAL (SELECT max(interval_ms) AS interval_ms FROM host_samples
                           WHERE host_id = h.id AND ts > n.ts - interval '5 minutes' AND ts <= n.ts) s ON TRUE
      ${hostIds ? 'WHERE h.id = ANY($1::int4[])' : ''}`,
    hostIds ? [hostIds] : [],
  ));
  return new Map(rows.map((r) => [r.id, { lastHeardMs: r.last_heard?.getTime() ?? null, intervalMs: r.interval_ms }]));
}
