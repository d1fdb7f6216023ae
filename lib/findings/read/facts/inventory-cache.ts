import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import type { Inventory } from '../../../protocol';

/** Inventory snapshots are immutable: each is parsed once and kept while it is a host's newest. */
const snapshotRow = z.object({ id: column.int8, data: column.document<Inventory>() });

export class InventoryCache {
  private readonly byId = new Map<number, Inventory>();

  async load(sql: Sql, ids: readonly number[]): Promise<Map<number, Inventory>> {
    const missing = ids.filter((id) => !this.byId.has(id));
    for (let i = 0; i < missing.length; i += 1000) {
      const chunk = missing.slice(i, i + 1000);
      const rows = await queryRows(sql, 'inventory_snapshots', snapshotRow, 'SELECT id, data FROM inventory_snapshots WHERE id = ANY($1::int8[])', [chunk]);
      for (const row of rows) this.byId.set(row.id, row.data);
    }
    return new Map(ids.flatMap((id) => (this.byId.has(id) ? [[id, this.byId.get(id)!] as const] : [])));
  }

  /** Forgets snapshots no longer anyone's newest. */
  retainOnly(ids: Iterable<number>): void {
    const keep = new Set(ids);
    for (const id of this.byId.keys()) if (!keep.has(id)) this.byId.delete(id);
  }
}
