import { z } from 'zod';
import { column, queryRow, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';

const newestIdRow = z.object({ id: column.int8.nullable() });
const snapshotRow = z.object({ id: column.int8, host_id: column.id });

/** The newest inventory snapshot's id, 0 when there is none: new snapshots are those after it. */
export async function readNewestSnapshotId(sql: Sql): Promise<number> {
  const mark = await queryRow(sql, 'inventory_snapshots', newestIdRow, 'SELECT max(id) AS id FROM inventory_snapshots');
  return mark?.id ?? 0;
}

/** The snapshots taken since `afterId`, oldest first, with their hosts (one indexed query). */
export async function listSnapshotsAfter(sql: Sql, afterId: number): Promise<{ id: number; hostId: number }[]> {
  const rows = await queryRows(sql, 'inventory_snapshots', snapshotRow, 'SELECT id, host_id FROM inventory_snapshots WHERE id > $1 ORDER BY id', [afterId]);
  return rows.map((r) => ({ id: r.id, hostId: r.host_id }));
}
