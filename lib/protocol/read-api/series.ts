import { z } from 'zod';
import { HOUR_MS } from '../time';
import { checkRange, rangeShape, withDefaultRange } from './params';

/** The metrics GET /api/v1/hosts/:id/series serves. */
export const SERIES_METRICS = [
  'cpu_user',
  'cpu_system',
  'cpu_iowait',
  'cpu_steal',
  'cpu_idle',
  'load1',
  'psi_cpu',
  'psi_io',
  'psi_memory',
  'cpu_steal_per_cpu',
  'disk_queue_depth',
  'disk_read_await',
  'disk_write_await',
  'disk_util',
  'disk_read_iops',
  'disk_write_iops',
  'disk_read_bytes',
  'disk_write_bytes',
  'process_cpu',
  'process_threads',
  'process_voluntary_cs',
  'process_nonvoluntary_cs',
  'cgroup_throttled_pct',
  'cgroup_throttled_ms',
  'probe_connect',
  'probe_response',
] as const;
export type SeriesMetric = (typeof SERIES_METRICS)[number];

export type SeriesResolution = 'raw' | '1m' | '1h';

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
