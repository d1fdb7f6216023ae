import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';

const hostRegionRow = z.object({ id: column.id, region: z.string() });

/** Every host and its region; or, with `hostIds`, the hosts of those hosts' regions (their peers included). */
export function readHostRegions(sql: Sql, hostIds?: readonly number[]): Promise<z.output<typeof hostRegionRow>[]> {
  return queryRows(
    sql,
    'hosts',
    hostRegionRow,
    `SELECT id, region FROM hosts ${hostIds ? 'WHERE region IN (SELECT region FROM hosts WHERE id = ANY($1::int4[]))' : ''}`,
    hostIds ? [hostIds] : [],
  );
}
