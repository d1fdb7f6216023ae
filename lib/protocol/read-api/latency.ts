import { z } from 'zod';
import { HOUR_MS } from '../time';
import { checkRange, hostIdSchema, labelsSchema, rangeShape, regionSchema, withDefaultRange } from './params';
import { isoTimeSchema, labelValuesSchema } from '../response-fields';
import { SERIES_RESOLUTIONS } from './series';


const quantileErrorsShape = {
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  p999: z.number().nullable(),
};
export const quantileErrorsSchema = z.strictObject(quantileErrorsShape);
export type QuantileErrors = z.infer<typeof quantileErrorsSchema>;

/** GET /api/v1/latency: quantiles of one latency series over a host, region, label set or the fleet. */
export const latencyQuantilesSchema = z.strictObject({
  count: z.number(),
  ...quantileErrorsShape,
  minMs: z.number().nullable(),
  maxMs: z.number().nullable(),
  meanMs: z.number().nullable(),
  /**
   * Present when the series came, wholly or in part, from a model server's histogram (the agent's --scrape): a
   * quantile cannot be finer than the server's bucket it fell in. Per quantile, the relative error of that bucket
   * (0.41: the true value lies within ±41 % of the one shown); null when it fell in the server's open top bucket
   * (`le="+Inf"`: the true value is higher). Absent: the agent's own sketch, within 0.8 %.
   */
  bucketError: quantileErrorsSchema.optional(),
});
export type LatencyQuantiles = z.infer<typeof latencyQuantilesSchema>;

export const latencyBucketSchema = latencyQuantilesSchema.extend({
  /** Bucket start, ms since the epoch. */
  t: z.number(),
});
export type LatencyBucket = z.infer<typeof latencyBucketSchema>;

export const latencyScopeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('fleet') }),
  z.strictObject({ kind: z.literal('host'), hostId: z.number().int() }),
  z.strictObject({ kind: z.literal('region'), region: z.string() }),
  z.strictObject({ kind: z.literal('labels'), labels: labelValuesSchema }),
]);
export type LatencyScope = z.infer<typeof latencyScopeSchema>;

export const latencyResponseSchema = z.strictObject({
  scope: latencyScopeSchema,
  name: z.string(),
  from: isoTimeSchema,
  to: isoTimeSchema,
  /** Quantiles of the merged histogram of every matching host over [from, to) — never averaged percentiles. */
  total: latencyQuantilesSchema,
  /** Present when `points` was asked for. */
  series: z
    .strictObject({ resolution: z.enum(SERIES_RESOLUTIONS), bucketMs: z.number().int(), buckets: z.array(latencyBucketSchema) })
    .optional(),
});
export type LatencyResponse = z.infer<typeof latencyResponseSchema>;

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
