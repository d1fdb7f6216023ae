import { z } from 'zod';
import { queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { METRIC_SOURCES, segmentColumns } from '../../series/metrics';
import type { Segment } from '../../series/resolution';

const num = z.number().nullable();
const regionProbeRow = z.object({ region: z.string(), name: z.string(), n: z.number(), ok: z.number(), c_s: num, c_w: num, c_m: num, r_s: num, r_w: num, r_m: num });

/** Per region and probe over the segments: samples, successes, and connect/response RTT as weighted sums and maxima. */
export async function readRegionProbes(sql: Sql, segments: readonly Segment[]): Promise<z.output<typeof regionProbeRow>[]> {
  if (segments.length === 0) return [];
  const params: unknown[] = [];
  const parts = segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    const connect = segmentColumns(METRIC_SOURCES.probe_connect, segment.resolution);
    const response = segmentColumns(METRIC_SOURCES.probe_response, segment.resolution);
    const [samples, ok] =
      segment.resolution === 'raw' ? ['count(*)', 'sum(x.ok::int)'] : ['sum(x.samples)', 'sum(x.ok_count)'];
    return `SELECT h.region, x.name, ${samples}::float8 AS n, ${ok}::float8 AS ok,
      ${connect.sum} AS c_s, ${connect.weight} AS c_w, ${connect.max} AS c_m,
      ${response.sum} AS r_s, ${response.weight} AS r_w, ${response.max} AS r_m
      FROM ${connect.table} x JOIN hosts h ON h.id = x.host_id
      WHERE x.ts >= $${params.length - 1} AND x.ts < $${params.length} GROUP BY h.region, x.name`;
  });
  return queryRows(
    sql,
    'probe_samples',
    regionProbeRow,
    `SELECT region, name, sum(n)::float8 AS n, sum(ok)::float8 AS ok, sum(c_s)::float8 AS c_s, sum(c_w)::float8 AS c_w,
       max(c_m)::float8 AS c_m, sum(r_s)::float8 AS r_s, sum(r_w)::float8 AS r_w, max(r_m)::float8 AS r_m
     FROM (${parts.join('\nUNION ALL\n')}) u GROUP BY region, name ORDER BY region, name`,
    params,
  );
}
