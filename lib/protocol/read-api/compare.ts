import { z } from 'zod';
import { HOUR_MS } from '../time';
import { checkReadCost, hostIdSchema, labelsSchema, rangeShape, regionSchema, withDefaultRange } from './params';
import {
  COMPARE_METRICS,
  COMPARE_RANKS,
  DEFAULT_COMPARE_LIMIT,
  MAX_COMPARE_LIMIT,
  isLatencyCompareMetric,
} from './compare-metrics';
import { DEFAULT_MAX_POINTS, SERIES_RESOLUTIONS, seriesPointSchema } from './series';
import { isoTimeSchema, labelValuesSchema } from '../response-fields';

export * from './compare-metrics';
const MAX_PICKED_HOSTS = 200;

export const compareScopeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('fleet') }),
  z.strictObject({ kind: z.literal('region'), region: z.string() }),
  z.strictObject({ kind: z.literal('labels'), labels: labelValuesSchema }),
  z.strictObject({ kind: z.literal('hosts'), hostIds: z.array(z.number().int()) }),
]);
export type CompareScope = z.infer<typeof compareScopeSchema>;

const hostIdList = z.preprocess(
  (value) => (typeof value === 'string' ? value.split(',').map((p) => p.trim()).filter((p) => p.length > 0) : value),
  z.array(hostIdSchema).min(1).max(MAX_PICKED_HOSTS),
);

/** GET /api/v1/compare: one metric of many hosts (a region's, a label set's, picked ones, or the fleet's) over one range. */
export const compareParamsSchema = z
  .object({
    metric: z.enum(COMPARE_METRICS),
    region: regionSchema.optional(),
    labels: labelsSchema.optional(),
    hosts: hostIdList.optional(),
    /** The latency series, for latency metrics. */
    latency: z.string().trim().min(1).max(200).optional(),
    /** Only this device, process, cgroup or probe of keyed metrics; else each host's keys are combined. */
    key: z.string().trim().min(1).max(1000).optional(),
    rank: z.enum(COMPARE_RANKS).default('avg'),
    limit: z.coerce.number().int().min(1).max(MAX_COMPARE_LIMIT).default(DEFAULT_COMPARE_LIMIT),
    ...rangeShape,
    maxPoints: z.coerce.number().int().min(10).max(5000).optional(),
  })
  .superRefine(
    // Named hosts count against the read budget here; a region's, labels' or the fleet's once matched (lib/series).
    checkReadCost({ hosts: (v) => v.hosts?.length, points: (v) => v.limit * (v.maxPoints ?? DEFAULT_MAX_POINTS), paths: { points: 'maxPoints' } }),
  )
  .superRefine((value, ctx) => {
    if ([value.region, value.labels, value.hosts].filter((v) => v !== undefined).length > 1) {
      ctx.addIssue({ code: 'custom', path: ['region'], message: 'give at most one of region, labels, hosts' });
    }
    if (isLatencyCompareMetric(value.metric) && value.latency === undefined) {
      ctx.addIssue({ code: 'custom', path: ['latency'], message: 'latency metrics need the latency series name' });
    }
  })
  .transform(({ region, labels, hosts, ...rest }) => ({ ...withDefaultRange(HOUR_MS)(rest), scope: compareScopeOf(region, labels, hosts) }));
export type CompareParams = z.infer<typeof compareParamsSchema>;

function compareScopeOf(region?: string, labels?: Record<string, string>, hosts?: number[]): CompareScope {
  if (region !== undefined) return { kind: 'region', region };
  if (labels !== undefined) return { kind: 'labels', labels };
  if (hosts !== undefined) return { kind: 'hosts', hostIds: [...new Set(hosts)] };
  return { kind: 'fleet' };
}

export const comparedHostSchema = z.strictObject({
  hostId: z.number().int(),
  hostname: z.string(),
  region: z.string(),
  /**
   * What the hosts are ranked by over the whole range: the average (or peak) of the metric; for a latency quantile, the
   * mean (or worst) of the host's per-minute quantile.
   */
  value: z.number().nullable(),
  points: z.array(seriesPointSchema),
});
export type ComparedHost = z.infer<typeof comparedHostSchema>;

export const compareResponseSchema = z.strictObject({
  metric: z.enum(COMPARE_METRICS),
  unit: z.string(),
  scope: compareScopeSchema,
  latency: z.string().nullable(),
  key: z.string().nullable(),
  rank: z.enum(COMPARE_RANKS).meta({ description: 'For a latency quantile: the mean of its per-minute values (avg) or the worst minute (max).' }),
  from: isoTimeSchema,
  to: isoTimeSchema,
  resolution: z.enum(SERIES_RESOLUTIONS),
  bucketMs: z.number().int(),
  /** Hosts the scope matched, and how many of them had data in the range. */
  matchedHosts: z.number().int(),
  hostsWithData: z.number().int(),
  limit: z.number().int(),
  /** The top `limit` hosts with data, highest value first. */
  hosts: z.array(comparedHostSchema),
});
export type CompareResponse = z.infer<typeof compareResponseSchema>;

/** GET /api/v1/compare/choices — what the compare page's pickers offer: regions, latency series, hosts matching `q`. */
export const compareChoicesParamsSchema = z.object({
  q: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});
export type CompareChoicesParams = z.infer<typeof compareChoicesParamsSchema>;

export const compareChoicesSchema = z.strictObject({
  /** Every region with hosts, by name. */
  regions: z.array(z.string()),
  /** The latency series the fleet reported in the last 7 days, by name. */
  latencyNames: z.array(z.string()),
  /** Hosts whose hostname or region contains `q` (all hosts without it), by hostname, at most `limit`. */
  hosts: z.array(z.strictObject({ id: z.number().int(), hostname: z.string(), region: z.string() })),
});
export type CompareChoices = z.infer<typeof compareChoicesSchema>;
