import type { Sql } from '../../db/sql';
import type { Inventory } from '../../protocol';
import { DAY_MS } from '../../protocol/time';
import type { PlannedReport } from './plan';

/**
 * A host's snapshots are bounded two ways: a host keeps its newest MAX_SNAPSHOTS_PER_HOST and at most
 * MAX_SNAPSHOT_BYTES_PER_HOST of them, and retention drops those older than the coarsest series. A host's newest
 * snapshot — its current inventory — is always kept. Each change keeps its own time, even seconds after the one
 * before: a restart moments after a warm-up is the change a fix's effect is measured from (lib/findings/effects).
 */
export const MAX_SNAPSHOTS_PER_HOST = 200;
export const MAX_SNAPSHOT_BYTES_PER_HOST = 64 * 1024 * 1024;

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

// Each host's first change is judged against its stored newest: the same hash is no change. The host's later changes
// in this batch already differ from the one before.
const INSERT_INVENTORY_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::int4[], $2::text[], $3::timestamptz[], $4::text[]) WITH ORDINALITY AS v(host_id, hash, taken_at, data, n)
), newest AS (
  SELECT DISTINCT ON (s.host_id) s.host_id, s.id, s.hash, s.taken_at FROM inventory_snapshots s
   WHERE s.host_id = ANY($1::int4[]) ORDER BY s.host_id, s.taken_at DESC, s.id DESC
), judged AS (
  SELECT v.*, COALESCE(v.hash = nw.hash, false) AS unchanged
    FROM v
    LEFT JOIN newest nw ON nw.host_id = v.host_id AND v.n = (SELECT min(f.n) FROM v f WHERE f.host_id = v.host_id)
)
INSERT INTO inventory_snapshots (host_id, hash, taken_at, data)
SELECT host_id, hash, taken_at, data::jsonb FROM judged WHERE NOT unchanged ORDER BY n`;

/** The snapshots of the hosts in $1 (all hosts without it) beyond the per-host caps, or older than $2; never a host's newest. */
const capSql = (hosts: boolean) => `
DELETE FROM inventory_snapshots s USING (
  SELECT id, taken_at, row_number() OVER w AS rank, sum(pg_column_size(data)) OVER w AS bytes
    FROM inventory_snapshots ${hosts ? 'WHERE host_id = ANY($1::int4[])' : ''}
  WINDOW w AS (PARTITION BY host_id ORDER BY taken_at DESC, id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
) r
 WHERE s.id = r.id AND r.rank > 1
   AND (r.rank > ${MAX_SNAPSHOTS_PER_HOST} OR r.bytes > ${MAX_SNAPSHOT_BYTES_PER_HOST}${hosts ? '' : ' OR r.taken_at < $1'})`;
const CAP_HOSTS_SQL = capSql(true);
const CAP_ALL_SQL = capSql(false);

/** The statements that store a flush's inventory changes and keep their hosts within the caps (array params only). */
export function inventoryStatements(changes: readonly InventoryChange[]): { text: string; params: unknown[][] }[] {
  if (changes.length === 0) return [];
  const hostIds = [...new Set(changes.map((c) => c.hostId))];
  return [
    {
      text: INSERT_INVENTORY_SQL,
      params: [
        changes.map((c) => c.hostId),
        changes.map((c) => c.inventory.hash),
        changes.map((c) => new Date(c.takenAtMs).toISOString()),
        changes.map((c) => JSON.stringify(c.inventory)),
      ],
    },
    { text: CAP_HOSTS_SQL, params: [hostIds] },
  ];
}

/**
 * Retention for snapshots (series maintenance runs it with the partitions'): every host within the caps, and no
 * snapshot older than `retentionDays` (the 1-hour rollups', so a chart's whole range can still be explained) unless
 * it is the host's current inventory. Returns how many it deleted.
 */
export async function expireInventorySnapshots(sql: Pick<Sql, 'query'>, now: Date, retentionDays: number): Promise<number> {
  const deleted = await sql.query(`${CAP_ALL_SQL} RETURNING s.id`, [new Date(now.getTime() - retentionDays * DAY_MS)]);
  return deleted.length;
}
