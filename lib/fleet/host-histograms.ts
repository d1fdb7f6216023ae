import type { Sql } from '../db/sql';
import type { SketchWire } from '../protocol';
import type { Segment } from '../series/resolution';
import { mergeWires, quantileOfWire } from '../sketch';

const LATENCY_TABLE = { raw: 'latency_samples', '1m': 'latency_1m', '1h': 'latency_1h' } as const;
const MINUTE_BIN = "date_bin(INTERVAL '60 seconds', x.ts, TIMESTAMPTZ '2000-01-01 00:00:00+00')";

type HistogramRow = { host_id: number; t: Date | null; count: number; sum: number; min: number; max: number; zero_count: number; keys: number[]; counts: number[] };

export interface HostQuantile {
  hostId: number;
  /** Minute start (ms) when read per minute. */
  t: number | null;
  value: number | null;
}

/**
 * p99 of each host's latency histograms over `segments`, overall or per minute. Rollup rows are read as stored and
 * merged here: for a page of hosts this moves fewer values than merging key by key in SQL.
 */
export async function readHostQuantiles(
  sql: Sql,
  query: { hostIds: readonly number[]; segments: readonly Segment[]; latency?: string; perMinute: boolean; q?: number },
): Promise<HostQuantile[]> {
  if (query.hostIds.length === 0 || query.segments.length === 0) return [];
  const params: unknown[] = query.latency === undefined ? [[...query.hostIds]] : [[...query.hostIds], query.latency];
  const parts = query.segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    return `SELECT x.host_id, ${query.perMinute ? MINUTE_BIN : 'NULL::timestamptz'} AS t, x.count::float8 AS count, x.sum, x.min, x.max,
        x.zero_count::float8 AS zero_count, x.keys, x.counts
      FROM ${LATENCY_TABLE[segment.resolution]} x
      WHERE x.host_id = ANY($1::int[]) ${query.latency === undefined ? '' : 'AND x.name = $2'}
        AND x.ts >= $${params.length - 1} AND x.ts < $${params.length}`;
  });
  const rows = await sql.query<HistogramRow>(parts.join('\nUNION ALL\n'), params);
  const groups = new Map<string, { hostId: number; t: number | null; wires: SketchWire[] }>();
  for (const row of rows) {
    const t = row.t === null ? null : new Date(row.t).getTime();
    const key = `${row.host_id}:${t}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { hostId: Number(row.host_id), t, wires: [] }));
    group.wires.push({
      count: Number(row.count),
      sum: Number(row.sum),
      min: Number(row.min),
      max: Number(row.max),
      zeroCount: Number(row.zero_count),
      keys: row.keys.map(Number),
      counts: row.counts.map(Number),
    });
  }
  return [...groups.values()].map(({ hostId, t, wires }) => ({
    hostId,
    t,
    value: quantileOfWire(wires.length === 1 ? wires[0]! : mergeWires(wires), query.q ?? 0.99),
  }));
}
