import type { Database } from '../db';
import { SKETCH_RELATIVE_ACCURACY, quantileKeyIndex, quantileOfWire } from '../sketch';
import type { SketchWire } from '../protocol';
import type { LatencyParams, LatencyQuantiles, LatencyResponse, LatencyScope, QuantileErrors } from '../protocol/read-api/latency';
import { mergeHistograms } from './merge-histograms';
import { coverRange, resolutionFor, segmentsAt, type ReadOptions } from './resolution';
import { readWatermarks } from './rollup';

const ORIGIN = "TIMESTAMPTZ '2000-01-01 00:00:00+00'";

const QUANTILES = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 } as const;

/** Each quantile's error from the bucket errors merged with the histogram (see LatencyQuantiles.bucketError). */
function quantileErrors(wire: SketchWire, bucketErrors: readonly (number | null)[]): QuantileErrors {
  const errorAt = (q: number): number | null => {
    const index = quantileKeyIndex(wire, q);
    const error = index === null || index < 0 ? null : (bucketErrors[index] ?? null);
    if (error === null) return SKETCH_RELATIVE_ACCURACY;
    return Number.isFinite(error) ? error : null;
  };
  return {
    p50: errorAt(QUANTILES.p50),
    p90: errorAt(QUANTILES.p90),
    p95: errorAt(QUANTILES.p95),
    p99: errorAt(QUANTILES.p99),
    p999: errorAt(QUANTILES.p999),
  };
}

export function quantilesOf(wire: SketchWire | undefined, bucketErrors: readonly (number | null)[] | null = null): LatencyQuantiles {
  if (!wire || wire.count === 0) {
    return { count: 0, p50: null, p90: null, p95: null, p99: null, p999: null, minMs: null, maxMs: null, meanMs: null };
  }
  return {
    ...(bucketErrors ? { bucketError: quantileErrors(wire, bucketErrors) } : {}),
    count: wire.count,
    p50: quantileOfWire(wire, 0.5),
    p90: quantileOfWire(wire, 0.9),
    p95: quantileOfWire(wire, 0.95),
    p99: quantileOfWire(wire, 0.99),
    p999: quantileOfWire(wire, 0.999),
    minMs: wire.min,
    maxMs: wire.max,
    meanMs: wire.sum / wire.count,
  };
}

/** The host condition of a scope over `h` (hosts), with its parameters numbered from `first`. */
function scopeCondition(scope: LatencyScope, first: number): { where: string; params: unknown[] } {
  switch (scope.kind) {
    case 'fleet':
      return { where: 'TRUE', params: [] };
    case 'host':
      return { where: `h.id = $${first}`, params: [scope.hostId] };
    case 'region':
      return { where: `h.region = $${first}`, params: [scope.region] };
    case 'labels':
      return { where: `h.labels @> $${first}::jsonb`, params: [JSON.stringify(scope.labels)] };
  }
}

/**
 * p50…p99.9 of one latency series over a host, region, label set or the fleet, from merged histograms; with
 * `points`, also per time bucket (at most that many).
 */
export async function getLatencyQuantiles(
  db: Pick<Database, 'sql'>,
  query: LatencyParams,
  options: ReadOptions = {},
): Promise<LatencyResponse> {
  const { sql } = db;
  const marks = await readWatermarks(sql);
  const scope = scopeCondition(query.scope, 2);
  const where = `x.name = $1 AND ${scope.where}`;
  const params = [query.name, ...scope.params];
  const byRegion = query.scope.kind === 'region' || query.scope.kind === 'fleet';
  const fromMs = query.from.getTime();
  const toMs = query.to.getTime();
  const [total] = await mergeHistograms(sql, { segments: coverRange(fromMs, toMs, marks), groups: [], where, params, byRegion });
  const response: LatencyResponse = {
    scope: query.scope,
    name: query.name,
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    total: quantilesOf(total?.wire, total?.bucketErrors),
  };
  if (query.points !== undefined) {
    const { resolution, bucketMs } = resolutionFor(query.from, query.to, query.points, options);
    const rows = await mergeHistograms(sql, {
      segments: segmentsAt(resolution, fromMs, toMs, marks),
      groups: [`date_bin(INTERVAL '${bucketMs / 1000} seconds', x.ts, ${ORIGIN})`],
      where,
      params,
      byRegion,
    });
    const buckets = rows
      .map((row) => ({ t: new Date(row.groups[0] as Date).getTime(), ...quantilesOf(row.wire, row.bucketErrors) }))
      .sort((a, b) => a.t - b.t);
    response.series = { resolution, bucketMs, buckets };
  }
  return response;
}
