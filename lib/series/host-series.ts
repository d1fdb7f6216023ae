import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRows } from '../db/rows';
import { NotFoundError } from '../errors';
import { hostExists } from '../hosts/store';
import type { HostSeries, HostSeriesParams, HostSeriesResponse, SeriesMetric, SeriesResolution } from '../protocol/read-api/series';
import { METRIC_SOURCES, segmentColumns } from './metrics';
import { resolutionFor, segmentsAt, type ReadOptions } from './resolution';
import { readWatermarks } from './rollup';

const ORIGIN = "TIMESTAMPTZ '2000-01-01 00:00:00+00'";

const seriesPointRow = z.object({ key: z.string().nullable(), t: column.timestamp, avg: z.number().nullable(), max: z.number().nullable() });

export type HostSeriesQuery = HostSeriesParams & { hostId: number };

function segmentSql(metric: SeriesMetric, chosen: SeriesResolution, segment: SeriesResolution, p: number): string {
  const source = METRIC_SOURCES[metric];
  const cols = segmentColumns(source, segment);
  let table = cols.table;
  let key = cols.key;
  if (source.rolledUpAs && chosen !== 'raw' && segment === 'raw') {
    // Matches the rollups: one value per report (the most-stolen CPU), not one per item.
    table = `(SELECT host_id, ts, ${source.rolledUpAs.gauge.perReport('a')} AS ${source.column} FROM ${source.rolledUpAs.table} a
              WHERE host_id = $1 AND ts >= $${p} AND ts < $${p + 1})`;
    key = `'worst'::text`;
  }
  return `SELECT ${key} AS key, date_bin(make_interval(secs => $2), ts, ${ORIGIN}) AS t,
    ${cols.sum} AS s, ${cols.weight} AS w, ${cols.max} AS m
  FROM ${table} x WHERE host_id = $1 AND ts >= $${p} AND ts < $${p + 1} GROUP BY 1, 2`;
}

/** One metric of one host over [from, to) at the resolution the range calls for (≤ maxPoints per series). */
export async function getHostSeries(
  db: Pick<Database, 'sql'>,
  query: HostSeriesQuery,
  options: ReadOptions = {},
): Promise<HostSeriesResponse> {
  const { sql } = db;
  if (!(await hostExists(sql, query.hostId))) throw new NotFoundError(`host ${query.hostId} not found`);
  const { resolution, bucketMs } = resolutionFor(query.from, query.to, query.maxPoints, options);
  const marks = resolution === 'raw' ? {} : await readWatermarks(sql);
  const segments = segmentsAt(resolution, query.from.getTime(), query.to.getTime(), marks);
  const params: unknown[] = [query.hostId, bucketMs / 1000];
  const parts = segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    return segmentSql(query.metric, resolution, segment.resolution, params.length - 1);
  });
  const rows = parts.length
    ? await queryRows(
        sql,
        METRIC_SOURCES[query.metric].raw,
        seriesPointRow,
        `SELECT key, t, sum(s) / nullif(sum(w), 0) AS avg, max(m) AS max
         FROM (${parts.join('\nUNION ALL\n')}) u GROUP BY key, t ORDER BY key NULLS FIRST, t`,
        params,
      )
    : [];
  const byKey = new Map<string | null, HostSeries>();
  for (const row of rows) {
    let series = byKey.get(row.key);
    if (!series) byKey.set(row.key, (series = { key: row.key, points: [] }));
    series.points.push({ t: row.t.getTime(), avg: row.avg, max: row.max });
  }
  return {
    hostId: query.hostId,
    metric: query.metric,
    unit: METRIC_SOURCES[query.metric].unit,
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    resolution,
    bucketMs,
    series: [...byKey.values()],
  };
}
