import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import type { Inventory } from '../../../protocol';
import type { InventoryObservation } from '../facts';
import { changesOf, newestChangeOf, type Snapshot } from '../inventory-bursts';

const snapshotRow = z.object({ host_id: column.id, taken_at: column.timestamp, data: column.document<Inventory>() });

async function readSnapshots(sql: Sql, hostIds: readonly number[], from: Date, to: Date): Promise<Snapshot[]> {
  const rows = await queryRows(
    sql,
    'inventory_snapshots',
    snapshotRow,
    `SELECT host_id, taken_at, data FROM (
       SELECT DISTINCT ON (host_id) host_id, taken_at, id, data FROM inventory_snapshots
        WHERE host_id = ANY($1::int4[]) AND taken_at < $2 ORDER BY host_id, taken_at DESC, id DESC
     ) before
     UNION ALL
     SELECT host_id, taken_at, data FROM inventory_snapshots WHERE host_id = ANY($1::int4[]) AND taken_at >= $2 AND taken_at < $3
     ORDER BY host_id, taken_at`,
    [hostIds, from, to],
  );
  return rows.map((row) => ({
    hostId: row.host_id,
    atMs: row.taken_at.getTime(),
    data: row.data,
  }));
}

/**
 * Per host, the inventory changes of [from, to): each snapshot taken then, diffed against the one before it (which
 * may be older than `from`). A host's first snapshot is its enrolment, not a change.
 */
export async function readInventoryChanges(sql: Sql, hostIds: readonly number[], from: Date, to: Date): Promise<Map<number, InventoryObservation[]>> {
  if (hostIds.length === 0) return new Map();
  return changesOf(await readSnapshots(sql, hostIds, from, to), from.getTime());
}

/** The newest change of one host in [from, to) as a person made it (newestChangeOf); null when there is none. */
export async function readNewestChange(sql: Sql, hostId: number, from: Date, to: Date): Promise<InventoryObservation | null> {
  return newestChangeOf(await readSnapshots(sql, [hostId], from, to), from.getTime());
}
