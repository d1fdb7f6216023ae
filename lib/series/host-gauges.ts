import { z } from 'zod';
import { column, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import type { SeriesMetric, SeriesResolution } from '../protocol/read-api/series';
import { METRIC_SOURCES, segmentColumns, type MetricSource } from './metrics';
import type { Segment } from './resolution';

const ORIGIN = "TIMESTAMPTZ '2000-01-01 00:00:00+00'";

const gaugeTotalRow = z.object({ host_id: column.id, avg: z.number().nullable(), max: z.number().nullable() });
const gaugeBucketRow = gaugeTotalRow.extend({ t: column.timestamp });
export type GaugeTotalRow = z.output<typeof gaugeTotalRow>;
export type GaugeBucketRow = z.output<typeof gaugeBucketRow>;

/** Rollups fold a report's items into one value (the most-stolen CPU); raw rows are folded the same way here. */
export const isFolded = (source: MetricSource) => source.key !== null && source.rollupKey === null;

/**
 * One segment of a gauge for the hosts in $1, per host (and per bucket of `bucketParam` seconds when given), each
 * host's keys combined: weighted average and peak. `keyParam` keeps one device, process, cgroup or probe.
 */
function gaugeSegmentSql(source: MetricSource, segment: SeriesResolution, p: number, bucketParam: string | null, keyParam: string | null): string {
  const cols = segmentColumns(source, segment);
  const range = `host_id = ANY($1::int4[]) AND ts >= $${p} AND ts < $${p + 1}`;
  let table = cols.table;
  let keyFilter = '';
  if (segment === 'raw' && isFolded(source)) {
    table = `(SELECT host_id, ts, max(${source.column}) AS ${source.column} FROM ${source.raw} WHERE ${range} GROUP BY host_id, ts)`;
  } else if (keyParam) {
    keyFilter = ` AND ${segment === 'raw' ? source.key : source.rollupKey}::text = ${keyParam}`;
  }
  const bucket = bucketParam ? `, date_bin(make_interval(secs => ${bucketParam}::float8), ts, ${ORIGIN}) AS t` : '';
  return `SELECT host_id${bucket}, ${cols.sum} AS s, ${cols.weight} AS w, ${cols.max} AS m
    FROM ${table} x WHERE ${range}${keyFilter} GROUP BY host_id${bucketParam ? ', 2' : ''}`;
}

function gaugeSql(
  metric: SeriesMetric,
  hostIds: readonly number[],
  segments: readonly Segment[],
  bucketMs: number | null,
  key: string | null,
): { text: string; params: unknown[] } {
  const source = METRIC_SOURCES[metric];
  const params: unknown[] = [hostIds];
  const next = (value: unknown) => `$${params.push(value)}`;
  const bucketParam = bucketMs !== null ? next(bucketMs / 1000) : null;
  const keyParam = key !== null ? next(key) : null;
  const parts = segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    return gaugeSegmentSql(source, segment.resolution, params.length - 1, bucketParam, keyParam);
  });
  const by = bucketMs !== null ? 'host_id, t' : 'host_id';
  return {
    text: `SELECT ${by}, sum(s) / nullif(sum(w), 0) AS avg, max(m) AS max
       FROM (${parts.join('\nUNION ALL\n')}) u GROUP BY ${by}${bucketMs !== null ? ' ORDER BY host_id, t' : ''}`,
    params,
  };
}

/** A gauge of each host over the segments: its average and peak. */
export function readGaugeTotals(
  sql: Sql,
  metric: SeriesMetric,
  hostIds: readonly number[],
  segments: readonly Segment[],
  key: string | null,
): Promise<GaugeTotalRow[]> {
  if (segments.length === 0 || hostIds.length === 0) return Promise.resolve([]);
  const { text, params } = gaugeSql(metric, hostIds, segments, null, key);
  return queryRows(sql, METRIC_SOURCES[metric].raw, gaugeTotalRow, text, params);
}

/** A gauge of each host per bucket of `bucketMs` over the segments, by host and time. */
export function readGaugeBuckets(
  sql: Sql,
  metric: SeriesMetric,
  hostIds: readonly number[],
  segments: readonly Segment[],
  bucketMs: number,
  key: string | null,
): Promise<GaugeBucketRow[]> {
  if (segments.length === 0 || hostIds.length === 0) return Promise.resolve([]);
  const { text, params } = gaugeSql(metric, hostIds, segments, bucketMs, key);
  return queryRows(sql, METRIC_SOURCES[metric].raw, gaugeBucketRow, text, params);
}
