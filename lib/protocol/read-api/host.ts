import { z } from 'zod';
import { DAY_MS } from '../time';
import type { FleetHost } from './fleet';
import { checkRange, hostIdSchema, rangeShape, withDefaultRange } from './params';

/** The `:id` of /api/v1/hosts/:id and the routes under it. */
export const hostPathSchema = z.object({ id: hostIdSchema });

/** GET /api/v1/hosts/:id — the fleet row of one host plus its newest inventory snapshot. */
export interface HostDetail extends FleetHost {
  createdAt: string;
  /** The measured time of its newest stored report, however old; null before its first. */
  lastReportAt: string | null;
  inventory: { takenAt: string; hash: string; data: unknown } | null;
  agentAccess: HostAgentAccess;
}

/** Whether the host's agent may report: an administrator's revocation of its token, and a re-enrollment let through. */
export interface HostAgentAccess {
  tokenRevokedAt: string | null;
  /** Until then one enrollment of this host needs no proof; null when none is approved (or it has passed or been used). */
  reenrollApprovedUntil: string | null;
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
