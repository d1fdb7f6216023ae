import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { hostSource, windowParams } from './host-filter';

const diskWindowRow = z.object({
  host_id: column.id,
  device: z.string(),
  q_avg: z.number(), q_max: z.number(),
  ra_avg: z.number(), ra_max: z.number(),
  wa_avg: z.number(), wa_max: z.number(),
  util_avg: z.number(), util_max: z.number(),
  iops: z.number(),
});
export type DiskWindowRow = z.output<typeof diskWindowRow>;

/** Each host's disks over [from, to]: queue depth, await, utilisation and IOPS. */
export function readDiskWindows(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]): Promise<DiskWindowRow[]> {
  return queryRows(
    sql,
    'disk_sample_arrays',
    diskWindowRow,
    `SELECT h.id AS host_id, d.* FROM ${hostSource(hostIds, 3)} CROSS JOIN LATERAL (
       SELECT u.device,
         avg(u.q)::float8 AS q_avg, max(u.q)::float8 AS q_max, avg(u.ra)::float8 AS ra_avg, max(u.ra)::float8 AS ra_max,
         avg(u.wa)::float8 AS wa_avg, max(u.wa)::float8 AS wa_max, avg(u.util)::float8 AS util_avg,
         max(u.util)::float8 AS util_max, avg(u.ri + u.wi)::float8 AS iops
       FROM disk_sample_arrays a
       CROSS JOIN LATERAL unnest(a.device, a.queue_depth, a.read_await_ms, a.write_await_ms, a.util_pct, a.read_iops, a.write_iops)
            AS u(device, q, ra, wa, util, ri, wi)
       WHERE a.host_id = h.id AND a.ts > $1 AND a.ts <= $2
       GROUP BY u.device) d`,
    windowParams(from, to, hostIds),
  );
}
