import { z } from 'zod';
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
}

export interface RegionCompareResponse {
  from: string;
  to: string;
  regions: RegionComparison[];
}
