import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import type { HostInfo } from '../inputs';

const hostRow = z.object({ id: column.id, hostname: z.string(), region: z.string(), labels: column.labels });

/** Every host (or those of `hostIds`): what selectors match and notifications name. */
export async function readHosts(sql: Sql, hostIds?: readonly number[]): Promise<Map<number, HostInfo>> {
  const rows = hostIds
    ? await queryRows(sql, 'hosts', hostRow, 'SELECT id, hostname, region, labels FROM hosts WHERE id = ANY($1::int4[])', [hostIds])
    : await queryRows(sql, 'hosts', hostRow, 'SELECT id, hostname, region, labels FROM hosts');
  return new Map(rows.map((r) => [r.id, r]));
}
