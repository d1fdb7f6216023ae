import type { Sql } from '../../db/sql';

/** The newest inventory snapshot's id, 0 when there is none: new snapshots are those after it. */
export async function readNewestSnapshotId(sql: Sql): Promise<number> {
  const [mark] = await sql.query<{ id: number | null }>('SELECT max(id) AS id FROM inventory_snapshots');
  return Number(mark?.id ?? 0);
}

/** The snapshots taken since `afterId`, oldest first, with their hosts (one indexed query). */
export async function listSnapshotsAfter(sql: Sql, afterId: number): Promise<{ id: number; hostId: number }[]> {
  const rows = await sql.query<{ id: number; host_id: number }>(
    'SELECT id, host_id FROM inventory_snapshots WHERE id > $1 ORDER BY id',
    [afterId],
  );
  return rows.map((r) => ({ id: Number(r.id), hostId: r.host_id }));
}
