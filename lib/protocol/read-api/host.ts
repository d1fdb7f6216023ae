import { z } from 'zod';
import { DAY_MS } from '../time';
import type { FleetHost } from './fleet';
import { checkRange, hostIdSchema, rangeShape, withDefaultRange } from './params';

/** The `:id` of /api/v1/hosts/:id and the routes under it. */
export const hostPathSchema = z.object({ id: hostIdSchema });

/** GET /api/v1/hosts/:id — the fleet row of one host plus its newest inventory snapshot. */
export interface HostDetail extends FleetHost {
  createdAt: string;
  inventory: { takenAt: string; hash: string; data: unknown } | null;
}

/** GET /api/v1/hosts/:id/latency-series — the latency series the host reported in [from, to), busiest first. */
export interface HostLatencySeriesResponse {
  hostId: number;
  from: string;
  to: string;
  series: { name: string; count: number }[];
}

export const hostLatencySeriesParamsSchema = z.object({ ...rangeShape }).superRefine(checkRange).transform(withDefaultRange(DAY_MS));
export type HostLatencySeriesParams = z.infer<typeof hostLatencySeriesParamsSchema>;
