import { z } from 'zod';
import { findingCountsSchema } from '../findings';
import { isoTimeSchema } from '../response-fields';
import { latencyQuantilesSchema } from './latency';
import { DAY_MS } from '../time';
import { checkRange, rangeShape, withDefaultRange } from './params';

/** GET /api/v1/regions/compare: the regions side by side over one range. */
export const regionCompareParamsSchema = z
  .object({ ...rangeShape })
  .superRefine(checkRange)
  .transform(withDefaultRange(DAY_MS));
export type RegionCompareParams = z.infer<typeof regionCompareParamsSchema>;

export const regionProbeSchema = z.strictObject({
  name: z.string(),
  samples: z.number().int(),
  okRatio: z.number().nullable(),
  connectMsAvg: z.number().nullable(),
  connectMsMax: z.number().nullable(),
  responseMsAvg: z.number().nullable(),
  responseMsMax: z.number().nullable(),
});
export type RegionProbe = z.infer<typeof regionProbeSchema>;

/** A merged sketch as buckets: values in (lowerMs, upperMs], fixed by the sketch's mapping (lib/sketch). */
export const latencyHistogramSchema = z.strictObject({
  count: z.number(),
  /** Values at or below the sketch's smallest (≈ 0 ms). */
  zeroCount: z.number(),
  buckets: z.array(z.strictObject({ lowerMs: z.number(), upperMs: z.number(), count: z.number() })),
});
export type LatencyHistogram = z.infer<typeof latencyHistogramSchema>;

export const regionComparisonSchema = z.strictObject({
  region: z.string(),
  hostCount: z.number().int(),
  stealPctAvg: z.number().nullable(),
  stealPctMax: z.number().nullable(),
  iowaitPctAvg: z.number().nullable(),
  iowaitPctMax: z.number().nullable(),
  /** Per latency series name. */
  latency: z.record(z.string(), latencyQuantilesSchema),
  /** Per probe name: the RTT this region's hosts measured to each target. */
  probes: z.array(regionProbeSchema),
  /** Per latency series name: the merged histogram's buckets, the same boundaries in every region, so they overlay. */
  latencyHistograms: z.record(z.string(), latencyHistogramSchema),
  /** Open findings about this region's hosts and the region itself, by severity. */
  findings: findingCountsSchema,
});
export type RegionComparison = z.infer<typeof regionComparisonSchema>;

export const regionCompareResponseSchema = z.strictObject({ from: isoTimeSchema, to: isoTimeSchema, regions: z.array(regionComparisonSchema) });
export type RegionCompareResponse = z.infer<typeof regionCompareResponseSchema>;
