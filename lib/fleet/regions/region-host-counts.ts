import { z } from 'zod';
import { queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';

const regionHostCountRow = z.object({ region: z.string(), n: z.number().int() });

/** Every region with hosts, and how many. */
export function readRegionHostCounts(sql: Sql): Promise<z.output<typeof regionHostCountRow>[]> {
  return queryRows(sql, 'hosts', regionHostCountRow, 'SELECT region, count(*)::int AS n FROM hosts GROUP BY region ORDER BY region');
}
