import { z } from 'zod';
import { column, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import { withoutJit } from '../db/without-jit';
import { quantileAt, quantileCtes } from './quantile-sql';
import { readMinuteMarks, type MinuteMarks } from './rollup';
import { binExpr } from './rollup-sql';
import { MINUTE_QUANTILES, type MinuteQuantile } from './tables';

export interface MinuteQuantileQuery {
  hostIds: readonly number[];
  /** One latency series, its tags merged; absent: all the host's series merged. */
  name?: string;
  quantile: MinuteQuantile;
  /** The minutes starting in [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  /** Also the minutes not rolled up yet, merged from raw reports here: keep it to a page of hosts or a region. */
  openMinutes?: boolean;
}

/**
 * Rows (host_id, t, v): each host's quantile per minute. Minutes from `quantilesFrom` on are read as the rollup
 * stored them; older rolled minutes, and open ones, are merged from their histograms by the same SQL the rollup runs.
 */
function minuteQuantilesSql(query: MinuteQuantileQuery, marks: MinuteMarks): { text: string; params: unknown[] } | null {
  if (query.hostIds.length === 0) return null;
  const params: unknown[] = [[...query.hostIds]];
  let nameParam: string | undefined;
  const name = () => (nameParam ??= `$${params.push(query.name ?? MINUTE_QUANTILES.allSeries)}::text`);
  const range = (fromMs: number, toMs: number) => `x.ts >= $${params.push(new Date(fromMs))} AND x.ts < $${params.push(new Date(toMs))}`;
  const rolledUntil = Math.min(query.toMs, marks.rolledUntil?.getTime() ?? -Infinity);
  const storedFrom = Math.max(query.fromMs, marks.quantilesFrom?.getTime() ?? Infinity);
  const merged = (table: string, minute: string, fromMs: number, toMs: number) => `(WITH src AS (
      SELECT x.host_id, ${minute} AS ts, x.count, x.min, x.max, x.zero_count, x.keys, x.counts FROM ${table} x
       WHERE x.host_id = ANY($1::int4[]) AND ${query.name === undefined ? 'TRUE' : `x.name = ${name()}`} AND ${range(fromMs, toMs)}
    ), ${quantileCtes('m', 'src', ['host_id', 'ts'])}
    SELECT host_id, ts AS t, ${quantileAt(query.quantile)} AS v FROM m)`;
  const parts: string[] = [];
  if (storedFrom < rolledUntil) {
    parts.push(`SELECT x.host_id, x.ts AS t, x.${query.quantile} AS v FROM ${MINUTE_QUANTILES.table} x
       WHERE x.host_id = ANY($1::int4[]) AND x.name = ${name()} AND ${range(storedFrom, rolledUntil)}`);
  }
  const mergedTo = Math.min(rolledUntil, storedFrom);
  if (query.fromMs < mergedTo) parts.push(merged('latency_1m', 'x.ts', query.fromMs, mergedTo));
  const openFrom = Math.max(query.fromMs, rolledUntil);
  if (query.openMinutes && openFrom < query.toMs) parts.push(merged('latency_samples', binExpr('1 minute', 'x.ts'), openFrom, query.toMs));
  if (parts.length === 0) return null;
  return { text: parts.join('\nUNION ALL\n'), params };
}

export interface HostMinuteQuantile {
  hostId: number;
  /** Minute start, epoch ms. */
  t: number;
  /** Null for a minute whose histograms hold no requests. */
  value: number | null;
}

const minuteQuantileRow = z.object({ host_id: column.id, t: z.number(), v: z.number().nullable() });

/** Each host's quantile in every minute it reported latency, by host and minute. */
export async function readMinuteQuantiles(sql: Sql, query: MinuteQuantileQuery): Promise<HostMinuteQuantile[]> {
  const statement = minuteQuantilesSql(query, await readMinuteMarks(sql));
  if (!statement) return [];
  // Epoch milliseconds rather than timestamptz: parsing dates was half the time of reading a day of minutes.
  const rows = await withoutJit(sql, (tx) =>
    queryRows(
      tx,
      MINUTE_QUANTILES.table,
      minuteQuantileRow,
      `SELECT host_id, (extract(epoch FROM t) * 1000)::float8 AS t, v FROM (${statement.text}) u ORDER BY 1, 2`,
      statement.params,
    ),
  );
  return rows.map((row) => ({ hostId: row.host_id, t: row.t, value: row.v }));
}

export interface MinuteQuantileSummary {
  /** Mean over the minutes with requests, each minute weighing the same. */
  mean: number;
  /** The worst minute's. */
  max: number;
}

// Over the minutes whose quantile IS NOT NULL, grouped by host: each group has one, so neither is null.
const quantileSummaryRow = z.object({ host_id: column.id, mean: z.number(), max: z.number() });

/** Each host's quantile per minute, summarised over the range; hosts without a minute with requests are left out. */
export async function summarizeMinuteQuantiles(sql: Sql, query: MinuteQuantileQuery): Promise<Map<number, MinuteQuantileSummary>> {
  const statement = minuteQuantilesSql(query, await readMinuteMarks(sql));
  if (!statement) return new Map();
  const rows = await withoutJit(sql, (tx) =>
    queryRows(
      tx,
      MINUTE_QUANTILES.table,
      quantileSummaryRow,
      `SELECT host_id, avg(v) AS mean, max(v) AS max FROM (${statement.text}) u WHERE v IS NOT NULL GROUP BY host_id`,
      statement.params,
    ),
  );
  return new Map(rows.map((row) => [row.host_id, { mean: row.mean, max: row.max }]));
}
