import { z } from 'zod';
import { queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { withoutJit } from '../../db/without-jit';
import { MINUTE_MS, floorTo } from '../../protocol/time';
import { keyOf } from '../../sketch';
import { burnRequestKey, type LatencyBurnRow } from '../inputs';

// Besides region and service, a total and a slow count per window (`l0t`, `l0b`, `s0t`, …): sums of float8, null
// when no row fell in the window.
const burnRow = z.object({ region: z.string(), service: z.string() }).catchall(z.number().nullable());

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
  const rows = await withoutJit(sql, (tx) => queryRows(
    tx,
    'latency_samples',
    burnRow,
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
        region: row.region,
        service: row.service,
        longTotal: row[`l${i}t`] ?? 0,
        longBad: row[`l${i}b`] ?? 0,
        shortTotal: row[`s${i}t`] ?? 0,
        shortBad: row[`s${i}b`] ?? 0,
      })),
    );
  });
  return out;
}
