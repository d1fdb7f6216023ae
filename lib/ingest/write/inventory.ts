import type { Inventory } from '../../protocol';
import type { PlannedReport } from './plan';

interface InventoryChange {
  hostId: number;
  takenAtMs: number;
  inventory: Inventory;
}

/** Per host in ts order, the inventories whose hash differs from the one before (the database checks the first). */
export function inventoryChanges(stored: readonly PlannedReport[]): InventoryChange[] {
  const withInventory = stored.filter((entry) => entry.report.inventory !== undefined);
  if (withInventory.length === 0) return [];
  withInventory.sort((a, b) => a.hostId - b.hostId || a.report.ts - b.report.ts);
  const changes: InventoryChange[] = [];
  let previous: InventoryChange | undefined;
  for (const { hostId, report } of withInventory) {
    const inventory = report.inventory!;
    if (previous && previous.hostId === hostId && previous.inventory.hash === inventory.hash) continue;
    previous = { hostId, takenAtMs: report.ts, inventory };
    changes.push(previous);
  }
  return changes;
}

export const INSERT_INVENTORY_SQL = `
INSERT INTO inventory_snapshots (host_id, hash, taken_at, data)
SELECT v.host_id, v.hash, v.taken_at, v.data::jsonb
  FROM unnest($1::int4[], $2::text[], $3::timestamptz[], $4::text[]) WITH ORDINALITY AS v(host_id, hash, taken_at, data, n)
 WHERE v.hash IS DISTINCT FROM (SELECT s.hash FROM inventory_snapshots s WHERE s.host_id = v.host_id
                                 ORDER BY s.taken_at DESC, s.id DESC LIMIT 1)
 ORDER BY v.n`;

export function inventoryParams(changes: readonly InventoryChange[]): unknown[] {
  return [
    changes.map((c) => c.hostId),
    changes.map((c) => c.inventory.hash),
    changes.map((c) => new Date(c.takenAtMs).toISOString()),
    changes.map((c) => JSON.stringify(c.inventory)),
  ];
}
