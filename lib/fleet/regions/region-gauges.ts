import { z } from 'zod';
import { queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { METRIC_SOURCES, segmentColumns } from '../../series/metrics';
import type { Segment } from '../../series/resolution';

const num = z.number().nullable();
const regionGaugeRow = z.object({ region: z.string(), steal_s: num, steal_w: num, steal_m: num, iowait_s: num, iowait_w: num, iowait_m: num });

/** Per region over the segments: steal and iowait as weighted sums (sum, weight) and maxima. */
export async function readRegionGauges(sql: Sql, segments: readonly Segment[]): Promise<z.output<typeof regionGaugeRow>[]> {
  if (segments.length === 0) return [];
  const params: unknown[] = [];
  const parts = segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    const steal = segmentColumns(METRIC_SOURCES.cpu_steal, segment.resolution);
    const iowait = segmentColumns(METRIC_SOURCES.cpu_iowait, segment.resolution);
    return `SELECT h.region, ${steal.sum} AS steal_s, ${steal.weight} AS steal_w, ${steal.max} AS steal_m,
      ${iowait.sum} AS iowait_s, ${iowait.weight} AS iowait_w, ${iowait.max} AS iowait_m
      FROM ${steal.table} x JOIN hosts h ON h.id = x.host_id
      WHERE x.ts >= $${params.length - 1} AND x.ts < $${params.length} GROUP BY h.region`;
  });
  return queryRows(
    sql,
    'host_samples',
    regionGaugeRow,
    `SELECT region, sum(steal_s)::float8 AS steal_s, sum(steal_w)::float8 AS steal_w, max(steal_m)::float8 AS steal_m,
       sum(iowait_s)::float8 AS iowait_s, sum(iowait_w)::float8 AS iowait_w, max(iowait_m)::float8 AS iowait_m
     FROM (${parts.join('\nUNION ALL\n')}) u GROUP BY region`,
    params,
  );
}
