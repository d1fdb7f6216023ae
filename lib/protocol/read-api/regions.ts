import { z } from 'zod';
import type { FindingCounts } from '../findings';
import type { LatencyQuantiles } from './latency';
import { DAY_MS } from '../time';
import { checkRange, rangeShape, withDefaultRange } from './params';

/** GET /api/v1/regions/compare: the regions side by side over one range. */
export const regionCompareParamsSchema = z
  .object({ ...rangeShape })
  .superRefine(checkRange)
  .transform(withDefaultRange(DAY_MS));
export type RegionCompareParams = z.infer<typeof regionCompareParamsSchema>;

export interface RegionProbe {
  name: string;
  samples: number;
  okRatio: number | null;
  connectMsAvg: number | null;
  connectMsMax: number | null;
  responseMsAvg: number | null;
  responseMsMax: number | null;
}

export interface RegionComparison {
  region: string;
  hostCount: number;
  stealPctAvg: number | null;
  stealPctMax: number | null;
  iowaitPctAvg: number | null;
  iowaitPctMax: number | null;
  /** Per latency series name. */
  latency: Record<string, LatencyQuantiles>;
  /** Per probe name: the RTT this region's hosts measured to each target. */
  probes: RegionProbe[];
  /** Per latency series name: the merged histogram's buckets, the same boundaries in every region, so they overlay. */
  latencyHistograms: Record<string, LatencyHistogram>;
  /** Open findings about this region's hosts and the region itself, by severity. */
  findings: FindingCounts;
}

/** A merged sketch as buckets: values in (lowerMs, upperMs], fixed by the sketch's mapping (lib/sketch). */
export interface LatencyHistogram {
  count: number;
  /** Values at or below the sketch's smallest (≈ 0 ms). */
  zeroCount: number;
  buckets: { lowerMs: number; upperMs: number; count: number }[];
}

export interface RegionCompareResponse {
  from: string;
  to: string;
  regions: RegionComparison[];
}
