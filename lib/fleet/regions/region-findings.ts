import { z } from 'zod';
import { queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { SEVERITIES } from '../../protocol/findings';

const regionFindingsRow = z.object({ region: z.string(), severity: z.enum(SEVERITIES), n: z.number().int() });

/** Open findings per region and severity. */
export function readOpenFindingsByRegion(sql: Sql): Promise<z.output<typeof regionFindingsRow>[]> {
  return queryRows(
    sql,
    'findings',
    regionFindingsRow,
    `SELECT region, severity, count(*)::int AS n FROM findings WHERE state = 'open' GROUP BY region, severity`,
  );
}
