import type { Sql } from '../../db/sql';
import { withoutJit } from '../../db/without-jit';
import { MINUTE_MS, floorTo } from '../../protocol/time';
import { mergeHistograms } from '../../series/merge-histograms';
import { coverRange } from '../../series/resolution';
import { keyOf } from '../../sketch';
import { burnRequestKey, type LatencyBurnRow, type LatencyHistogramRow } from '../inputs';

export interface BurnRequest {
  latencyMs: number;
  windowMs: number;
  shortWindowMs: number;
}

/**
 * Per region and latency series: requests, and requests slower than each objective's latency, over each
 * request's long and short window. Closed minutes come from the region rollups, the rest from raw histograms
 * (read host by host through their primary key); a request is slow when its bucket lies wholly above the latency
 * (exact up to the sketch's relative error).
 */
export async function readLatencyBurn(
  sql: Sql,
  requests: readonly BurnRequest[],
  options: { to: Date; rollupMark: Date | null },
): Promise<Map<string, LatencyBurnRow[]>> {
  const out = new Map<string, LatencyBurnRow[]>();
  if (requests.length === 0) return out;
  const toMs = options.to.getTime();
  const starts = requests.flatMap((r) => [floorTo(toMs - r.windowMs, MINUTE_MS), floorTo(toMs - r.shortWindowMs, MINUTE_MS)]);
  const fromMs = Math.min(...starts);
  const markMs = Math.max(fromMs, Math.min(options.rollupMark?.getTime() ?? fromMs, floorTo(toMs, MINUTE_MS)));
  const latencies = [...new Set(requests.map((r) => r.latencyMs))];
  // $1 = to, $2 = from, $3 = mark, $4 + j = slow key of latency j, then each request's long and short start.
  const startParam = 4 + latencies.length;
  const windows = requests.flatMap((r, i) => [
    { name: `l${i}`, start: `$${startParam + 2 * i}`, slow: latencies.indexOf(r.latencyMs) },
    { name: `s${i}`, start: `$${startParam + 2 * i + 1}`, slow: latencies.indexOf(r.latencyMs) },
  ]);
  // Keys are stored ascending (ingest refuses others): the slow requests are the counts after the last key at or
  // below the slow key, which width_bucket finds by binary search, so only that short tail is summed.
  // An aggregate in a lateral subquery is evaluated once per row (a plain expression would be once per sum).
  const slowJoins = latencies
    .map((_, j) => `CROSS JOIN LATERAL (SELECT coalesce(sum(c), 0) AS slow FROM unnest(x.counts[width_bucket($${4 + j}::smallint, x.keys) + 1:]) c) b${j}`)
    .join(' ');
  const sums = windows.flatMap((w) => [
    `sum(x.count) FILTER (WHERE x.ts >= ${w.start})::float8 AS ${w.name}t`,
    `sum(b${w.slow}.slow) FILTER (WHERE x.ts >= ${w.start})::float8 AS ${w.name}b`,
  ]);
  const rows = await withoutJit(sql, (tx) => tx.query<Record<string, string | number | null>>(
    `WITH rolled AS (
       SELECT x.region, x.name AS service, ${sums.join(', ')}
         FROM latency_region_1m x ${slowJoins} WHERE x.ts >= $2 AND x.ts < $3 GROUP BY 1, 2
     ), raw AS (
       -- Host by host through the (host_id, ts, …) key; aggregated inside, so the planner cannot turn it into a
       -- scan of the whole day's partition.
       SELECT h.region, p.* FROM hosts h CROSS JOIN LATERAL (
         SELECT x.name AS service, ${sums.join(', ')}
           FROM latency_samples x ${slowJoins} WHERE x.host_id = h.id AND x.ts >= $3 AND x.ts <= $1 GROUP BY 1
       ) p
     )
     SELECT region, service, ${windows.flatMap((w) => [`sum(${w.name}t) AS ${w.name}t`, `sum(${w.name}b) AS ${w.name}b`]).join(', ')}
       FROM (SELECT * FROM rolled UNION ALL SELECT * FROM raw) u GROUP BY region, service`,
    [options.to, new Date(fromMs), new Date(markMs), ...latencies.map((ms) => keyOf(ms)), ...starts.map((ms) => new Date(ms))],
  ));
  requests.forEach((r, i) => {
    out.set(
      burnRequestKey(r.latencyMs, r.windowMs, r.shortWindowMs),
      rows.map((row) => ({
        region: String(row.region),
        service: String(row.service),
        longTotal: Number(row[`l${i}t`] ?? 0),
        longBad: Number(row[`l${i}b`] ?? 0),
        shortTotal: Number(row[`s${i}t`] ?? 0),
        shortBad: Number(row[`s${i}b`] ?? 0),
      })),
    );
  });
  return out;
}

/** The merged histogram of each region and latency series over each window ending at `to`. */
export async function readLatencyHistograms(
  sql: Sql,
  windowsMs: readonly number[],
  options: { to: Date; rollupMarks: { '1m'?: Date; '1h'?: Date } },
): Promise<Map<number, LatencyHistogramRow[]>> {
  const out = new Map<number, LatencyHistogramRow[]>();
  const toMs = options.to.getTime();
  for (const windowMs of new Set(windowsMs)) {
    const rows = await withoutJit(sql, (tx) => mergeHistograms(tx, {
      segments: coverRange(toMs - windowMs, toMs, options.rollupMarks),
      groups: ['h.region', 'x.name'],
      where: 'TRUE',
      params: [],
      byRegion: true,
    }));
    out.set(windowMs, rows.map((row) => ({ region: String(row.groups[0]), service: String(row.groups[1]), wire: row.wire })));
  }
  return out;
}

export interface LatencyAlertContext {
  region: string;
  service: string;
  /** Requests slower than this are the ones the alert is about. */
  slowMs: number;
  from: Date;
  to: Date;
}

/** The host of the region with the most slow requests of the service in the window. */
export async function readWorstLatencyHost(sql: Sql, context: LatencyAlertContext): Promise<number | null> {
  const [row] = await sql.query<{ host_id: number }>(
    `SELECT x.host_id FROM latency_samples x JOIN hosts h ON h.id = x.host_id
      WHERE h.region = $1 AND x.name = $2 AND x.ts > $3 AND x.ts <= $4
      GROUP BY x.host_id
      ORDER BY sum((SELECT coalesce(sum(c), 0) FROM unnest(x.keys, x.counts) u(k, c) WHERE k > $5)) DESC, x.host_id
      LIMIT 1`,
    [context.region, context.service, context.from, context.to, keyOf(context.slowMs)],
  );
  return row ? row.host_id : null;
}
