import { z } from 'zod';
import { queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';

const regionProbeRow = z.object({
  region: z.string(),
  name: z.string(),
  target: z.string(),
  hosts: z.number().int(),
  samples: z.number().int(),
  connect: z.number().nullable(),
  response: z.number().nullable(),
});
export type RegionProbeRow = z.output<typeof regionProbeRow>;

/** Median probe RTT per region and probe over [from, to], from successful probes only. */
export function readRegionProbes(sql: Sql, from: Date, to: Date): Promise<RegionProbeRow[]> {
  return queryRows(
    sql,
    'probe_samples',
    regionProbeRow,
    `SELECT h.region, p.name, min(p.target) AS target, count(DISTINCT h.id)::int AS hosts, count(*)::int AS samples,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY p.connect_ms)::float8 AS connect,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY p.response_ms)::float8 AS response
     FROM hosts h CROSS JOIN LATERAL (
       SELECT name, target, connect_ms, response_ms FROM probe_samples
        WHERE host_id = h.id AND ts > $1 AND ts <= $2 AND ok) p
     GROUP BY h.region, p.name ORDER BY h.region, p.name`,
    [from, to],
  );
}
