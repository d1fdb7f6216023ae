import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRows } from '../db/rows';
import { NotFoundError } from '../errors';
import { diffInventories } from '../findings/latency/inventory-diff';
import { hostExists } from '../hosts/store';
import type { Inventory } from '../protocol';
import type { HostInventoryParams, HostInventoryResponse, InventoryChange } from '../protocol/read-api/inventory';

export type HostInventoryQuery = HostInventoryParams & { hostId: number };

const snapshotRow = z.object({ taken_at: column.timestamp, hash: z.string(), data: column.document<Inventory>(), before_range: z.boolean() });

/**
 * The host's inventory as of `to`, and its snapshots of [from, to) newest first, each diffed against the one before
 * it (which may be older than `from`). One indexed query: the range's newest `limit + 1` and the last before it.
 */
export async function getHostInventory(db: Pick<Database, 'sql'>, query: HostInventoryQuery): Promise<HostInventoryResponse> {
  const { sql } = db;
  const { hostId, from, to, limit } = query;
  if (!(await hostExists(sql, hostId))) throw new NotFoundError(`host ${hostId} not found`);
  const rows = await queryRows(
    sql,
    'inventory_snapshots',
    snapshotRow,
    `(SELECT taken_at, hash, data, false AS before_range FROM inventory_snapshots
       WHERE host_id = $1 AND taken_at >= $2 AND taken_at < $3 ORDER BY taken_at DESC, id DESC LIMIT $4)
     UNION ALL
     (SELECT taken_at, hash, data, true FROM inventory_snapshots
       WHERE host_id = $1 AND taken_at < $2 ORDER BY taken_at DESC, id DESC LIMIT 1)`,
    [hostId, from, to, limit + 1],
  );
  const inRange = rows.filter((r) => !r.before_range);
  const before = rows.find((r) => r.before_range) ?? null;
  const truncated = inRange.length > limit;
  const kept = inRange.slice(0, limit);
  // The predecessor of each kept snapshot: the next older one read (the extra one when truncated), or the one before.
  const predecessors = [...inRange.slice(1), before];
  const changes: InventoryChange[] = [];
  let firstSeenAt: string | null = null;
  kept.forEach((row, i) => {
    const previous = predecessors[i] ?? null;
    const takenAt = row.taken_at.toISOString();
    if (!previous) {
      firstSeenAt = takenAt;
      return;
    }
    changes.push({ takenAt, hash: row.hash, changes: diffInventories(previous.data, row.data) });
  });
  const newest = kept[0] ?? before;
  return {
    hostId,
    from: from.toISOString(),
    to: to.toISOString(),
    current: newest ? { takenAt: newest.taken_at.toISOString(), hash: newest.hash, data: newest.data } : null,
    changes,
    firstSeenAt,
    truncated,
  };
}
