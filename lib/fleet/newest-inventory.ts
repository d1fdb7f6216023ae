import { z } from 'zod';
import { column, queryRow } from '../db/rows';
import type { Sql } from '../db/sql';
import type { Inventory } from '../protocol/report';

const newestInventoryRow = z.object({ taken_at: column.timestamp, hash: z.string(), data: column.document<Inventory>() });

/** A host's newest inventory snapshot, as stored; undefined before its first. */
export function readNewestInventory(sql: Sql, hostId: number): Promise<z.output<typeof newestInventoryRow> | undefined> {
  return queryRow(
    sql,
    'inventory_snapshots',
    newestInventoryRow,
    'SELECT taken_at, hash, data FROM inventory_snapshots WHERE host_id = $1 ORDER BY taken_at DESC LIMIT 1',
    [hostId],
  );
}
