import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { hostSource, windowParams } from './host-filter';

const num = z.number().nullable();
const hostWindowRow = z.object({
  host_id: column.id,
  n: z.number().int(),
  last_ts: column.timestamp,
  interval_ms: z.number().int(),
  longest_interval_ms: z.number().int(),
  steal_avg: num, steal_max: num,
  iowait_avg: num, iowait_max: num,
  busy_avg: num, busy_max: num,
  psi_cpu_avg: num, psi_cpu_max: num,
  psi_io_avg: num, psi_io_max: num,
  dropped_range: num,
});
export type HostWindowRow = z.output<typeof hostWindowRow>;

/** Each host's CPU, pressure and delivery figures over [from, to]; hosts without samples there are left out. */
export function readHostWindows(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]): Promise<HostWindowRow[]> {
  return queryRows(
    sql,
    'host_samples',
    hostWindowRow,
    `SELECT h.id AS host_id, w.* FROM ${hostSource(hostIds, 3)} CROSS JOIN LATERAL (
       SELECT count(*)::int AS n, max(ts) AS last_ts, (array_agg(interval_ms ORDER BY ts DESC))[1] AS interval_ms,
         max(interval_ms) AS longest_interval_ms,
         avg(cpu_steal_pct)::float8 AS steal_avg, max(cpu_steal_pct)::float8 AS steal_max,
         avg(cpu_iowait_pct)::float8 AS iowait_avg, max(cpu_iowait_pct)::float8 AS iowait_max,
         avg(cpu_user_pct + cpu_nice_pct + cpu_system_pct + cpu_irq_pct + cpu_softirq_pct)::float8 AS busy_avg,
         max(cpu_user_pct + cpu_nice_pct + cpu_system_pct + cpu_irq_pct + cpu_softirq_pct)::float8 AS busy_max,
         avg(psi_cpu_some_avg10)::float8 AS psi_cpu_avg, max(psi_cpu_some_avg10)::float8 AS psi_cpu_max,
         avg(psi_io_some_avg10)::float8 AS psi_io_avg, max(psi_io_some_avg10)::float8 AS psi_io_max,
         (max(dropped_reports) - min(dropped_reports))::float8 AS dropped_range
       FROM host_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2) w
     WHERE w.n > 0`,
    windowParams(from, to, hostIds),
  );
}
