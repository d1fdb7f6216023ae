import { z } from 'zod';
import { HOUR_MS } from '../time';
import { checkReadCost, hostIdSchema, labelsSchema, rangeShape, regionSchema, withDefaultRange } from './params';
import {
  COMPARE_METRICS,
  COMPARE_RANKS,
  DEFAULT_COMPARE_LIMIT,
  MAX_COMPARE_LIMIT,
  isLatencyCompareMetric,
  type CompareMetric,
  type CompareRank,
} from './compare-metrics';
import { DEFAULT_MAX_POINTS, type SeriesPoint, type SeriesResolution } from './series';

export * from './compare-metrics';
const MAX_PICKED_HOSTS = 200;

export type CompareScope =
  | { kind: 'fleet' }
  | { kind: 'region'; region: string }
  | { kind: 'labels'; labels: Record<string, string> }
  | { kind: 'hosts'; hostIds: number[] };

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

export interface ComparedHost {
  hostId: number;
  hostname: string;
  region: string;
  /**
   * What the hosts are ranked by over the whole range: the average (or peak) of the metric; for a latency quantile, the
   * mean (or worst) of the host's per-minute quantile.
   */
  value: number | null;
  points: SeriesPoint[];
}

export interface CompareResponse {
  metric: CompareMetric;
  unit: string;
  scope: CompareScope;
  latency: string | null;
  key: string | null;
  rank: CompareRank;
  from: string;
  to: string;
  resolution: SeriesResolution;
  bucketMs: number;
  /** Hosts the scope matched, and how many of them had data in the range. */
  matchedHosts: number;
  hostsWithData: number;
  limit: number;
  /** The top `limit` hosts with data, highest value first. */
  hosts: ComparedHost[];
}


/** GET /api/v1/compare/choices — what the compare page's pickers offer: regions, latency series, hosts matching `q`. */
export const compareChoicesParamsSchema = z.object({
  q: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});
export type CompareChoicesParams = z.infer<typeof compareChoicesParamsSchema>;

export interface CompareChoices {
  /** Every region with hosts, by name. */
  regions: string[];
  /** The latency series the fleet reported in the last 7 days, by name. */
  latencyNames: string[];
  /** Hosts whose hostname or region contains `q` (all hosts without it), by hostname, at most `limit`. */
  hosts: { id: number; hostname: string; region: string }[];
}
