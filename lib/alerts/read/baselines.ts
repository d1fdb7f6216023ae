import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { withoutJit } from '../../db/without-jit';
import type { SeriesMetric } from '../../protocol/read-api/series';
import { HOUR_MS, floorTo } from '../../protocol/time';
import { METRIC_SOURCES } from '../../series/metrics';
import { instanceKey, seriesRequestKey } from '../inputs';

// Each group holds a row whose value IS NOT NULL, so its median is never null.
const baselineRow = z.object({ host_id: column.id, key: z.string().nullable(), median: z.number() });

export interface BaselineRequest {
  series: SeriesMetric;
  baselineMs: number;
}

/**
 * Each instance's median over the baseline window: the median of its hourly means over the closed hours in the
 * window (1-hour rollups). A spike of minutes moves an hourly mean little and the median of 24 of them not at all.
 */
export async function readBaselines(sql: Sql, requests: readonly BaselineRequest[], to: Date): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  const end = new Date(floorTo(to.getTime(), HOUR_MS));
  await Promise.all(
    requests.map(async ({ series, baselineMs }) => {
      const source = METRIC_SOURCES[series];
      const key = source.rollupKey ? `${source.rollupKey}::text` : source.key ? `'worst'::text` : 'NULL::text';
      const avgColumn = `${source.rollupColumn}_avg`;
      const rows = await withoutJit(sql, (tx) => queryRows(
        tx,
        `${source.rollupBase}_1h`,
        baselineRow,
        `SELECT h.id AS host_id, b.key, b.median FROM hosts h CROSS JOIN LATERAL (
           SELECT ${key} AS key, percentile_cont(0.5) WITHIN GROUP (ORDER BY ${avgColumn})::float8 AS median
             FROM ${source.rollupBase}_1h WHERE host_id = h.id AND ts >= $1 AND ts < $2 AND ${avgColumn} IS NOT NULL
            GROUP BY 1) b`,
        [new Date(end.getTime() - baselineMs), end],
      ));
      out.set(seriesRequestKey(series, baselineMs), new Map(rows.map((r) => [instanceKey(r.host_id, r.key), r.median])));
    }),
  );
  return out;
}
