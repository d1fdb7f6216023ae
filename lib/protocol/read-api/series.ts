import { z } from 'zod';
import { HOUR_MS } from '../time';
import { isoTimeSchema } from '../response-fields';
import { checkRange, rangeShape, withDefaultRange } from './params';
import { SERIES_METRICS } from './series-metrics';

export { SERIES_METRICS, type SeriesMetric } from './series-metrics';

export const SERIES_RESOLUTIONS = ['raw', '1m', '1h'] as const;
export type SeriesResolution = (typeof SERIES_RESOLUTIONS)[number];

/** How many points a series read answers with when it does not say (`maxPoints`). */
export const DEFAULT_MAX_POINTS = 1000;

export const seriesPointSchema = z.strictObject({
  /** Bucket start, ms since the epoch. */
  t: z.number(),
  avg: z.number().nullable(),
  max: z.number().nullable(),
});
export type SeriesPoint = z.infer<typeof seriesPointSchema>;

export const hostSeriesSchema = z.strictObject({
  /** The device, CPU, process, cgroup or probe name; null for host-wide metrics. */
  key: z.string().nullable(),
  points: z.array(seriesPointSchema),
});
export type HostSeries = z.infer<typeof hostSeriesSchema>;

/** GET /api/v1/hosts/:id/series */
export const hostSeriesResponseSchema = z.strictObject({
  hostId: z.number().int(),
  metric: z.enum(SERIES_METRICS),
  unit: z.string(),
  from: isoTimeSchema,
  to: isoTimeSchema,
  resolution: z.enum(SERIES_RESOLUTIONS),
  bucketMs: z.number().int(),
  series: z.array(hostSeriesSchema),
});
export type HostSeriesResponse = z.infer<typeof hostSeriesResponseSchema>;

export const hostSeriesParamsSchema = z
  .object({
    metric: z.enum(SERIES_METRICS),
    ...rangeShape,
    maxPoints: z.coerce.number().int().min(10).max(5000).optional(),
  })
  .superRefine(checkRange)
  .transform(withDefaultRange(HOUR_MS));
export type HostSeriesParams = z.infer<typeof hostSeriesParamsSchema>;
