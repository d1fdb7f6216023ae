import { z } from 'zod';
import { queryRow } from '../../../db/rows';
import type { Sql } from '../../../db/sql';

const hostPeersRow = z.object({ hostname: z.string(), region: z.string(), others: z.number().int() });

/** A host's name and region, and how many other hosts its region has (its peers for a regional baseline). */
export function readHostPeers(sql: Sql, hostId: number): Promise<z.output<typeof hostPeersRow> | undefined> {
  return queryRow(
    sql,
    'hosts',
    hostPeersRow,
    `SELECT hostname, region, (SELECT count(*)::int FROM hosts o WHERE o.region = h.region AND o.id <> h.id) AS others
       FROM hosts h WHERE id = $1`,
    [hostId],
  );
}
