import { z } from 'zod';
import { HOUR_MS } from '../time';
import { checkRange, hostIdSchema, labelsSchema, rangeShape, regionSchema, withDefaultRange } from './params';
import type { SeriesResolution } from './series';

/** GET /api/v1/latency: quantiles of one latency series over a host, region, label set or the fleet. */
export interface LatencyQuantiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
  minMs: number | null;
  maxMs: number | null;
  meanMs: number | null;
  /**
   * Present when the series came, wholly or in part, from a model server's histogram (the agent's --scrape): a
   * quantile cannot be finer than the server's bucket it fell in. Per quantile, the relative error of that bucket
   * (0.41: the true value lies within ±41 % of the one shown); null when it fell in the server's open top bucket
   * (`le="+Inf"`: the true value is higher). Absent: the agent's own sketch, within 0.8 %.
   */
  bucketError?: QuantileErrors;
}

export interface QuantileErrors {
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
}

export interface LatencyBucket extends LatencyQuantiles {
  /** Bucket start, ms since the epoch. */
  t: number;
}

export type LatencyScope =
  | { kind: 'fleet' }
  | { kind: 'host'; hostId: number }
  | { kind: 'region'; region: string }
  | { kind: 'labels'; labels: Record<string, string> };

export interface LatencyResponse {
  scope: LatencyScope;
  name: string;
  from: string;
  to: string;
  /** Quantiles of the merged histogram of every matching host over [from, to) — never averaged percentiles. */
  total: LatencyQuantiles;
  /** Present when `points` was asked for. */
  series?: { resolution: SeriesResolution; bucketMs: number; buckets: LatencyBucket[] };
}

/** The one of host, region or labels a query names; the whole fleet when it names none. */
function scopeOf(host?: number, region?: string, labels?: Record<string, string>): LatencyScope {
  if (host !== undefined) return { kind: 'host', hostId: host };
  if (region !== undefined) return { kind: 'region', region };
  if (labels !== undefined) return { kind: 'labels', labels };
  return { kind: 'fleet' };
}

export const latencyParamsSchema = z
  .object({
    host: hostIdSchema.optional(),
    region: regionSchema.optional(),
    labels: labelsSchema.optional(),
    name: z.string().trim().min(1).max(200),
    ...rangeShape,
    points: z.coerce.number().int().min(1).max(5000).optional(),
  })
  .superRefine((value, ctx) => {
    checkRange(value, ctx);
    const scopes = [value.host, value.region, value.labels].filter((v) => v !== undefined);
    if (scopes.length > 1) {
      ctx.addIssue({ code: 'custom', path: ['host'], message: 'give at most one of host, region, labels' });
    }
  })
  .transform(({ host, region, labels, ...rest }) => ({ ...withDefaultRange(HOUR_MS)(rest), scope: scopeOf(host, region, labels) }));
export type LatencyParams = z.infer<typeof latencyParamsSchema>;
