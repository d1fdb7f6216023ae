import type { Sql } from '../../db/sql';
import type { Inventory } from '../../protocol';
import { HOUR_MS } from '../../protocol/time';
import { diffInventories } from './inventory-diff';
import type { InventoryObservation } from './explain';

/** Changes are looked for in the range and a lead-up before it: as long as the range, and at least an hour. */
export const inventoryLeadUpMs = (rangeMs: number) => Math.max(rangeMs, HOUR_MS);

interface SnapshotRow {
  host_id: number;
  taken_at: Date;
  data: Inventory | string;
}

/**
 * Per host, the inventory changes of [from, to): each snapshot taken then, diffed against the one before it (which
 * may be older than `from`). A host's first snapshot is its enrolment, not a change.
 */
export async function readInventoryChanges(sql: Sql, hostIds: readonly number[], from: Date, to: Date): Promise<Map<number, InventoryObservation[]>> {
  const changes = new Map<number, InventoryObservation[]>();
  if (hostIds.length === 0) return changes;
  const rows = await sql.query<SnapshotRow>(
    `SELECT host_id, taken_at, data FROM (
       SELECT DISTINCT ON (host_id) host_id, taken_at, id, data FROM inventory_snapshots
        WHERE host_id = ANY($1::int4[]) AND taken_at < $2 ORDER BY host_id, taken_at DESC, id DESC
     ) before
     UNION ALL
     SELECT host_id, taken_at, data FROM inventory_snapshots WHERE host_id = ANY($1::int4[]) AND taken_at >= $2 AND taken_at < $3
     ORDER BY host_id, taken_at`,
    [hostIds, from, to],
  );
  let previous: { hostId: number; data: Inventory } | null = null;
  for (const row of rows) {
    const data = typeof row.data === 'string' ? (JSON.parse(row.data) as Inventory) : row.data;
    const atMs = new Date(row.taken_at).getTime();
    if (previous && previous.hostId === row.host_id && atMs >= from.getTime()) {
      const list = changes.get(row.host_id) ?? [];
      list.push({ atMs, changes: diffInventories(previous.data, data) });
      changes.set(row.host_id, list);
    }
    previous = { hostId: row.host_id, data };
  }
  return changes;
}
