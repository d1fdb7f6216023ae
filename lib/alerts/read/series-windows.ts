import type { Sql } from '../../db/sql';
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
  const hosts = hostIds ? ` AND host_id = ANY(${p.add(hostIds, 'int4[]')})` : '';
  const to = p.add(bounds.to);
  const parts = [
    `SELECT host_id, ${source.key ? `${source.key}::text` : 'NULL::text'} AS key, ts, false AS rolled, ${rawSelect.join(', ')}
       FROM ${source.raw} WHERE ts >= ${p.add(bounds.rawFrom)} AND ts <= ${to}${hosts}`,
  ];
  const mark = bounds.mark && plan.requests.some((r) => r.rolled) ? p.add(bounds.mark) : null;
  if (mark) {
    parts.push(`SELECT host_id, ${rollupKey} AS key, ts, true AS rolled, ${rolledSelect.join(', ')}
       FROM ${source.rollupBase}_1m WHERE ts >= ${p.add(bounds.rolledFrom)} AND ts < ${mark}${hosts}`);
  }
  const aggregates = plan.requests.flatMap(({ column, rolled }, i) => {
    const start = p.add(bounds.starts[i]);
    // A rolled-up window takes closed minutes from the rollup and raw rows from its watermark on.
    const where = rolled && mark ? `(CASE WHEN rolled THEN ts >= ${start} ELSE ts >= ${mark} END)` : `(NOT rolled AND ts > ${start})`;
    return [
      `sum(v${column}) FILTER (WHERE ${where}) AS s${i}`,
      `sum(n${column}) FILTER (WHERE ${where})::float8 AS n${i}`,
      `max(m${column}) FILTER (WHERE ${where}) AS x${i}`,
      `count(*) FILTER (WHERE ${where})::int AS c${i}`,
    ];
  });
  return { text: `SELECT host_id, key, ${aggregates.join(', ')} FROM (${parts.join('\nUNION ALL\n')}) x GROUP BY host_id, key`, params: p.values };
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
      const rows = await sql.query<Record<string, number | string | null>>(text, params);
      plan.requests.forEach(({ request }, i) => {
        const windowRows: SeriesWindowRow[] = [];
        const covered = new Set<number>();
        for (const row of rows) {
          if (Number(row[`c${i}`]) === 0) continue;
          const hostId = Number(row.host_id);
          covered.add(hostId);
          const n = Number(row[`n${i}`] ?? 0);
          const sum = row[`s${i}`];
          const max = row[`x${i}`];
          windowRows.push({
            hostId,
            key: row.key === null ? null : String(row.key),
            avg: n > 0 && sum !== null ? Number(sum) / n : null,
            max: max === null ? null : Number(max),
          });
        }
        out.set(seriesRequestKey(request.series, request.windowMs), { rows: windowRows, coveredHosts: covered });
      });
    }),
  );
  return out;
}
