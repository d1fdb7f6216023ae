import type { Sql } from '../../db/sql';
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
 * request's long and short window. Closed minutes come from the region rollups, the rest from raw histograms;
 * a request is slow when its bucket lies wholly above the latency (exact up to the sketch's relative error).
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
  // $1 = to, $2 = from, $3 = mark, $4 + j = slow key of latency j, then the window starts.
  const startParam = 4 + latencies.length;
  const badColumns = latencies.map((_, j) => `(SELECT coalesce(sum(c), 0) FROM unnest(s.keys, s.counts) u(k, c) WHERE k > $${4 + j})::float8 AS b${j}`);
  const aggregates = requests.flatMap((r, i) => {
    const bad = latencies.indexOf(r.latencyMs);
    const long = `ts >= $${startParam + 2 * i}`;
    const short = `ts >= $${startParam + 2 * i + 1}`;
    return [
      `sum(count) FILTER (WHERE ${long}) AS lt${i}`,
      `sum(b${bad}) FILTER (WHERE ${long}) AS lb${i}`,
      `sum(count) FILTER (WHERE ${short}) AS st${i}`,
      `sum(b${bad}) FILTER (WHERE ${short}) AS sb${i}`,
    ];
  });
  const rows = await sql.query<Record<string, string | number | null>>(
    `WITH s AS (
       SELECT x.region, x.name AS service, x.ts, x.count::float8 AS count, x.keys, x.counts
         FROM latency_region_1m x WHERE x.ts >= $2 AND x.ts < $3
       UNION ALL
       SELECT h.region, x.name, x.ts, x.count::float8, x.keys, x.counts
         FROM latency_samples x JOIN hosts h ON h.id = x.host_id WHERE x.ts >= $3 AND x.ts <= $1
     ), y AS (SELECT s.region, s.service, s.ts, s.count, ${badColumns.join(', ')} FROM s)
     SELECT region, service, ${aggregates.join(', ')} FROM y GROUP BY region, service`,
    [options.to, new Date(fromMs), new Date(markMs), ...latencies.map((ms) => keyOf(ms)), ...starts.map((ms) => new Date(ms))],
  );
  requests.forEach((r, i) => {
    out.set(
      burnRequestKey(r.latencyMs, r.windowMs, r.shortWindowMs),
      rows.map((row) => ({
        region: String(row.region),
        service: String(row.service),
        longTotal: Number(row[`lt${i}`] ?? 0),
        longBad: Number(row[`lb${i}`] ?? 0),
        shortTotal: Number(row[`st${i}`] ?? 0),
        shortBad: Number(row[`sb${i}`] ?? 0),
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
    const rows = await mergeHistograms(sql, {
      segments: coverRange(toMs - windowMs, toMs, options.rollupMarks),
      groups: ['h.region', 'x.name'],
      where: 'TRUE',
      params: [],
      byRegion: true,
    });
    out.set(windowMs, rows.map((row) => ({ region: String(row.groups[0]), service: String(row.groups[1]), wire: row.wire })));
  }
  return out;
}
