import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import { SPARKLINE_WINDOW_MS, type SparklineParams, type SparklinePoint, type SparklinesResponse } from '../protocol/read-api/fleet';
import { MINUTE_MS, floorTo } from '../protocol/time';
import { segmentsAt, type Segment } from '../series/resolution';
import { readWatermarks } from '../series/rollup';
import { readMinuteQuantiles } from '../series/minute-quantiles';
import { withoutJit } from '../db/without-jit';

const MINUTE_BIN = "date_bin(INTERVAL '60 seconds', x.ts, TIMESTAMPTZ '2000-01-01 00:00:00+00')";

const minuteRow = z.object({ host_id: column.id, t: column.timestamp, v: z.number().nullable() });
type Row = z.output<typeof minuteRow>;

/** Average steal per host and minute: closed minutes from the 1-minute rollup, the open edge from raw samples. */
async function stealPerMinute(sql: Sql, hostIds: number[], segments: Segment[]): Promise<Row[]> {
  if (segments.length === 0) return [];
  const params: unknown[] = [hostIds];
  const parts = segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    const [table, sum, weight] =
      segment.resolution === 'raw'
        ? ['host_samples', 'sum(x.cpu_steal_pct)', 'count(x.cpu_steal_pct)']
        : [`host_samples_${segment.resolution}`, 'sum(x.cpu_steal_pct_avg * x.samples)', 'sum(x.samples) FILTER (WHERE x.cpu_steal_pct_avg IS NOT NULL)'];
    return `SELECT x.host_id, ${MINUTE_BIN} AS t, ${sum}::float8 AS s, ${weight}::float8 AS w FROM ${table} x
      WHERE x.host_id = ANY($1::int[]) AND x.ts >= $${params.length - 1} AND x.ts < $${params.length} GROUP BY 1, 2`;
  });
  return withoutJit(sql, (tx) =>
    queryRows(tx, 'host_samples', minuteRow, `SELECT host_id, t, (sum(s) / nullif(sum(w), 0))::float8 AS v FROM (${parts.join('\nUNION ALL\n')}) u GROUP BY 1, 2`, params),
  );
}

async function p99PerMinute(sql: Sql, hostIds: number[], range: { fromMs: number; toMs: number }, latency: string | undefined): Promise<Row[]> {
  const minutes = await readMinuteQuantiles(sql, { hostIds, name: latency, quantile: 'p99', ...range, openMinutes: true });
  return minutes.map((m) => ({ host_id: m.hostId, t: new Date(m.t), v: m.value }));
}

/** The last hour of one metric per host, one point per minute, for the fleet table's sparklines. */
export async function getFleetSparklines(
  db: Pick<Database, 'sql'>,
  params: SparklineParams,
  options: { now?: Date } = {},
): Promise<SparklinesResponse> {
  const toMs = (options.now ?? new Date()).getTime();
  const fromMs = floorTo(toMs - SPARKLINE_WINDOW_MS, MINUTE_MS);
  const ids = [...new Set(params.ids)];
  const rows =
    params.metric === 'steal'
      ? await stealPerMinute(db.sql, ids, segmentsAt('1m', fromMs, toMs, await readWatermarks(db.sql)))
      : await p99PerMinute(db.sql, ids, { fromMs, toMs }, params.latency);
  const hosts: Record<string, SparklinePoint[]> = {};
  for (const row of rows) (hosts[String(row.host_id)] ??= []).push({ t: new Date(row.t).getTime(), v: row.v });
  for (const points of Object.values(hosts)) points.sort((a, b) => a.t - b.t);
  return { metric: params.metric, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), hosts };
}
