import type { Sql } from '../../db/sql';
import type { CpuSteal } from '../describe';

/** Average steal per vCPU over [from, to] for a few hosts, most stolen first: what a steal alert names. */
export async function readStolenCpus(sql: Sql, hostIds: readonly number[], from: Date, to: Date): Promise<Map<number, CpuSteal[]>> {
  const out = new Map<number, CpuSteal[]>();
  if (hostIds.length === 0) return out;
  const rows = await sql.query<{ host_id: number; cpu: number; steal: number }>(
    `SELECT a.host_id, u.cpu, avg(u.steal)::float8 AS steal
       FROM cpu_sample_arrays a CROSS JOIN LATERAL unnest(a.cpu, a.steal_pct) AS u(cpu, steal)
      WHERE a.ts > $1 AND a.ts <= $2 AND a.host_id = ANY($3::int4[])
      GROUP BY a.host_id, u.cpu
      ORDER BY a.host_id, steal DESC, u.cpu`,
    [from, to, hostIds],
  );
  for (const row of rows) {
    let list = out.get(row.host_id);
    if (!list) out.set(row.host_id, (list = []));
    list.push({ cpu: Number(row.cpu), stealPct: Number(row.steal) });
  }
  return out;
}
