import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { hostSource, windowParams } from './host-filter';

const cgroupWindowRow = z.object({
  host_id: column.id,
  path: z.string(),
  quota: z.number().nullable(),
  usage: z.number(),
  thr_avg: z.number(),
  thr_max: z.number(),
  thr_ms: z.number(),
  thr_first: z.number().nullable(),
  thr_second: z.number().nullable(),
});
export type CgroupWindowRow = z.output<typeof cgroupWindowRow>;

/** Each host's cgroups over [from, to]: the newest quota, usage, and throttling in each half of the window. */
export function readCgroupWindows(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]): Promise<CgroupWindowRow[]> {
  const mid = new Date((from.getTime() + to.getTime()) / 2);
  return queryRows(
    sql,
    'cgroup_samples',
    cgroupWindowRow,
    `SELECT h.id AS host_id, g.* FROM ${hostSource(hostIds, 4)} CROSS JOIN LATERAL (
       SELECT path, (array_agg(quota_cores ORDER BY ts DESC))[1]::float8 AS quota, avg(usage_cores)::float8 AS usage,
         avg(throttled_pct)::float8 AS thr_avg, max(throttled_pct)::float8 AS thr_max,
         avg(throttled_ms_per_s)::float8 AS thr_ms,
         (avg(throttled_pct) FILTER (WHERE ts <= $3))::float8 AS thr_first,
         (avg(throttled_pct) FILTER (WHERE ts > $3))::float8 AS thr_second
       FROM cgroup_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2
       GROUP BY path) g`,
    windowParams(from, to, hostIds, mid),
  );
}
