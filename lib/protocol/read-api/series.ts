import { z } from 'zod';
import { HOUR_MS } from '../time';
import { checkRange, rangeShape, withDefaultRange } from './params';
import { SERIES_METRICS, type SeriesMetric } from './series-metrics';

export { SERIES_METRICS, type SeriesMetric } from './series-metrics';

export type SeriesResolution = 'raw' | '1m' | '1h';

/** How many points a series read answers with when it does not say (`maxPoints`). */
export const DEFAULT_MAX_POINTS = 1000;

export interface SeriesPoint {
  /** Bucket start, ms since the epoch. */
  t: number;
  avg: number | null;
  max: number | null;
}

export interface HostSeries {
  /** The device, CPU, process, cgroup or probe name; null for host-wide metrics. */
  key: string | null;
  points: SeriesPoint[];
}

/** GET /api/v1/hosts/:id/series */
export interface HostSeriesResponse {
  hostId: number;
  metric: SeriesMetric;
  unit: string;
  from: string;
  to: string;
  resolution: SeriesResolution;
  bucketMs: number;
  series: HostSeries[];
}

export const hostSeriesParamsSchema = z
  .object({
    metric: z.enum(SERIES_METRICS),
    ...rangeShape,
    maxPoints: z.coerce.number().int().min(10).max(5000).optional(),
  })
  .superRefine(checkRange)
  .transform(withDefaultRange(HOUR_MS));
export type HostSeriesParams = z.infer<typeof hostSeriesParamsSchema>;
