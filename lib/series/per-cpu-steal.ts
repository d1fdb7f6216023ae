import { z } from 'zod';
import { column, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';

const cpuStealRow = z.object({ host_id: column.id, cpu: z.number().int(), steal: z.number() });

export interface CpuStealMean {
  cpu: number;
  stealPct: number;
}

/**
 * Mean steal per vCPU over [from, to] for the given hosts, most stolen first: what a steal alert names and what the
 * findings' steal rule judges one vCPU by.
 */
export async function readPerCpuSteal(sql: Sql, hostIds: readonly number[], from: Date, to: Date): Promise<Map<number, CpuStealMean[]>> {
  const byHost = new Map<number, CpuStealMean[]>();
  if (hostIds.length === 0) return byHost;
  const rows = await queryRows(
    sql,
    'cpu_sample_arrays',
    cpuStealRow,
    `SELECT a.host_id, u.cpu, avg(u.steal)::float8 AS steal
       FROM cpu_sample_arrays a CROSS JOIN LATERAL unnest(a.cpu, a.steal_pct) AS u(cpu, steal)
      WHERE a.ts > $1 AND a.ts <= $2 AND a.host_id = ANY($3::int4[])
      GROUP BY a.host_id, u.cpu
      ORDER BY a.host_id, steal DESC, u.cpu`,
    [from, to, hostIds],
  );
  for (const row of rows) {
    let list = byHost.get(row.host_id);
    if (!list) byHost.set(row.host_id, (list = []));
    list.push({ cpu: row.cpu, stealPct: row.steal });
  }
  return byHost;
}
