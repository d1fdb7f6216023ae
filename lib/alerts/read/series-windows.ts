import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { withoutJit } from '../../db/without-jit';
import type { SeriesMetric } from '../../protocol/read-api/series';
import { MINUTE_MS, floorTo } from '../../protocol/time';
import { METRIC_SOURCES, type MetricSource } from '../../series/metrics';
import { seriesRequestKey, type SeriesWindow, type SeriesWindowRow } from '../inputs';

/** Windows at least this long read closed minutes from the 1-minute rollups and only the rest from raw rows. */
export const ROLLUP_WINDOW_MIN_MS = 5 * MINUTE_MS;

export interface SeriesRequest {
  series: SeriesMetric;
  windowMs: number;
}

interface Plan {
  source: MetricSource;
  columns: string[];
  requests: { request: SeriesRequest; column: number; rolled: boolean }[];
}

// Per-CPU rows are rolled up as the most-stolen CPU ('worst'), another key than the raw rows': read those raw.
const canRollUp = (source: MetricSource) => !(source.key !== null && source.rollupKey === null);

// Views of one row per array element, over the tables that store a report's CPUs and disks as arrays: unnesting
// just the columns a cycle needs costs a fraction of the view's unnest of every column.
const ARRAY_TABLES: Record<string, string> = { cpu_samples: 'cpu_sample_arrays', disk_samples: 'disk_sample_arrays' };

/** One host's raw rows in [from, to] with the key and `columns`, read by its (host_id, ts) primary key. */
function rawRowsOfHost(source: MetricSource, columns: readonly string[], from: string, to: string): string {
  const arrays = ARRAY_TABLES[source.raw];
  if (!arrays || !source.key) {
    return `SELECT ${source.key ? `${source.key}::text` : 'NULL::text'} AS key, ts, ${columns.join(', ')}
      FROM ${source.raw} WHERE host_id = h.id AND ts >= ${from} AND ts <= ${to}`;
  }
  const unnested = [source.key, ...columns];
  return `SELECT u.${source.key}::text AS key, a.ts, ${columns.map((c) => `u.${c}`).join(', ')}
      FROM ${arrays} a CROSS JOIN LATERAL unnest(${unnested.map((c) => `a.${c}`).join(', ')}) AS u(${unnested.join(', ')})
     WHERE a.host_id = h.id AND a.ts >= ${from} AND a.ts <= ${to}`;
}

/** One query per raw table for every request on it: sums, counts and maxima per (host, key) and window. */
function planByTable(requests: readonly SeriesRequest[], rollupMarkMs: number | null, toMs: number): Plan[] {
  const plans = new Map<string, Plan>();
  for (const request of requests) {
    const source = METRIC_SOURCES[request.series];
    let plan = plans.get(source.raw);
    if (!plan) plans.set(source.raw, (plan = { source, columns: [], requests: [] }));
    let column = plan.columns.indexOf(source.column);
    if (column < 0) column = plan.columns.push(source.column) - 1;
    const rolled =
      canRollUp(source) && request.windowMs >= ROLLUP_WINDOW_MIN_MS && rollupMarkMs !== null && rollupMarkMs > floorTo(toMs - request.windowMs, MINUTE_MS);
    if (!plan.requests.some((r) => seriesRequestKey(r.request.series, r.request.windowMs) === seriesRequestKey(request.series, request.windowMs))) {
      plan.requests.push({ request, column, rolled });
    }
  }
  return [...plans.values()];
}

// Besides host and key, per request i: s<i>, n<i> and x<i> (sum, count and max of a float8 column, null when no row
// of the window holds a value) and c<i>, the window's row count.
const windowRow = z.object({ host_id: column.id, key: z.string().nullable() }).catchall(z.number().nullable());

/** Numbered parameters, added as the statement uses them: a parameter no clause reads has no type to infer. */
function paramList() {
  const values: unknown[] = [];
  return { values, add: (value: unknown, type = 'timestamptz') => `$${values.push(value)}::${type}` };
}

interface Bounds {
  to: Date;
  rawFrom: Date;
  mark: Date | null;
  rolledFrom: Date;
  starts: Date[];
}

/**
 * Per host (a lateral join over hosts), its rows of the window from raw and rolled-up tables, each read through
 * its (host_id, ts, …) primary key: the cost follows the hosts and the window, not how full the day's partition
 * is (a time filter alone would scan the whole partition; the raw tables have no index on ts).
 */
function planSql(plan: Plan, bounds: Bounds, hostIds: readonly number[] | undefined): { text: string; params: unknown[] } {
  const { source } = plan;
  const p = paramList();
  const rollupColumns = plan.columns.map((c) => Object.values(METRIC_SOURCES).find((s) => s.raw === source.raw && s.column === c)!.rollupColumn);
  const rawSelect = plan.columns.flatMap((c, j) => [`${c}::float8 AS v${j}`, `(${c} IS NOT NULL)::int AS n${j}`, `${c}::float8 AS m${j}`]);
  const rolledSelect = rollupColumns.flatMap((c, j) => [
    `(${c}_avg * samples)::float8 AS v${j}`,
    `CASE WHEN ${c}_avg IS NULL THEN 0 ELSE samples END AS n${j}`,
    `${c}_max::float8 AS m${j}`,
  ]);
  const rollupKey = source.rollupKey ? `${source.rollupKey}::text` : 'NULL::text';
  const to = p.add(bounds.to);
  const rawFrom = p.add(bounds.rawFrom);
  const mark = bounds.mark && plan.requests.some((r) => r.rolled) ? p.add(bounds.mark) : null;
  const starts = plan.requests.map((_, i) => p.add(bounds.starts[i]));
  // Whether a row is in request i's window, computed once per row: a rolled-up window takes closed minutes from
  // the rollup and raw rows from its watermark on; any other window, raw rows after its start.
  const inRaw = plan.requests.map(({ rolled }, i) => `${rolled && mark ? `ts >= ${mark}` : `ts > ${starts[i]}`} AS w${i}`);
  const inRolled = plan.requests.map(({ rolled }, i) => `${rolled ? `ts >= ${starts[i]}` : 'false'} AS w${i}`);
  const parts = [`SELECT key, ${[...inRaw, ...rawSelect].join(', ')} FROM (${rawRowsOfHost(source, plan.columns, rawFrom, to)}) r`];
  if (mark) {
    parts.push(`SELECT ${rollupKey} AS key, ${[...inRolled, ...rolledSelect].join(', ')}
       FROM ${source.rollupBase}_1m WHERE host_id = h.id AND ts >= ${p.add(bounds.rolledFrom)} AND ts < ${mark}`);
  }
  const aggregates = plan.requests.flatMap(({ column }, i) => [
    `sum(v${column}) FILTER (WHERE w${i}) AS s${i}`,
    `sum(n${column}) FILTER (WHERE w${i})::float8 AS n${i}`,
    `max(m${column}) FILTER (WHERE w${i}) AS x${i}`,
    `count(*) FILTER (WHERE w${i})::int AS c${i}`,
  ]);
  const hosts = hostIds ? `WHERE h.id = ANY(${p.add(hostIds, 'int4[]')})` : '';
  return {
    text: `SELECT h.id AS host_id, x.* FROM hosts h CROSS JOIN LATERAL (
      SELECT key, ${aggregates.join(', ')} FROM (${parts.join('\nUNION ALL\n')}) y GROUP BY key
    ) x ${hosts}`,
    params: p.values,
  };
}

/**
 * avg and max of every requested series per host (and key) over each request's window, ending at `to`: one query
 * per raw table whatever the number of rules and hosts.
 */
export async function readSeriesWindows(
  sql: Sql,
  requests: readonly SeriesRequest[],
  options: { to: Date; rollupMark: Date | null; hostIds?: readonly number[] },
): Promise<Map<string, SeriesWindow>> {
  const toMs = options.to.getTime();
  // A clock in the past (a replay, a test) must not read rollups of minutes after `to`.
  const markMs = options.rollupMark ? Math.min(options.rollupMark.getTime(), floorTo(toMs, MINUTE_MS)) : null;
  const out = new Map<string, SeriesWindow>();
  await Promise.all(
    planByTable(requests, markMs, toMs).map(async (plan) => {
      const starts = plan.requests.map(({ request, rolled }) => new Date(rolled ? floorTo(toMs - request.windowMs, MINUTE_MS) : toMs - request.windowMs));
      const rawFrom = plan.requests.reduce((min, { request, rolled }) => Math.min(min, rolled ? markMs! : toMs - request.windowMs), toMs);
      const rolledFrom = Math.min(...starts.filter((_, i) => plan.requests[i]!.rolled).map((d) => d.getTime()), toMs);
      const bounds = { to: options.to, rawFrom: new Date(rawFrom), mark: markMs === null ? null : new Date(markMs), rolledFrom: new Date(rolledFrom), starts };
      const { text, params } = planSql(plan, bounds, options.hostIds);
      const rows = await withoutJit(sql, (tx) => queryRows(tx, plan.source.raw, windowRow, text, params));
      plan.requests.forEach(({ request }, i) => {
        const windowRows: SeriesWindowRow[] = [];
        const covered = new Set<number>();
        for (const row of rows) {
          if (row[`c${i}`] === 0) continue;
          covered.add(row.host_id);
          const n = row[`n${i}`] ?? 0;
          const sum = row[`s${i}`] ?? null;
          windowRows.push({ hostId: row.host_id, key: row.key, avg: n > 0 && sum !== null ? sum / n : null, max: row[`x${i}`] ?? null });
        }
        out.set(seriesRequestKey(request.series, request.windowMs), { rows: windowRows, coveredHosts: covered });
      });
    }),
  );
  return out;
}
