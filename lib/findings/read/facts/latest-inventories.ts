import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { filterHosts } from './host-filter';

const latestInventoryRow = z.object({ host_id: column.id, id: column.int8, taken_at: column.timestamp });
export type LatestInventoryRow = z.output<typeof latestInventoryRow>;

/** Which inventory snapshot is each host's newest; the documents themselves are loaded through InventoryCache. */
export function readLatestInventories(sql: Sql, hostIds?: readonly number[]): Promise<LatestInventoryRow[]> {
  return queryRows(
    sql,
    'inventory_snapshots',
    latestInventoryRow,
    `SELECT DISTINCT ON (host_id) host_id, id, taken_at FROM inventory_snapshots
     WHERE TRUE ${filterHosts(hostIds, 'host_id', 1)} ORDER BY host_id, taken_at DESC, id DESC`,
    hostIds ? [hostIds] : [],
  );
}
