import { z } from 'zod';
import { DAY_MS } from '../time';
import { isoTimeSchema } from '../response-fields';
import { fleetHostSchema } from './fleet';
import { inventorySnapshotViewSchema } from './inventory';
import { checkRange, hostIdSchema, rangeShape, withDefaultRange } from './params';

/** The `:id` of /api/v1/hosts/:id and the routes under it. */
export const hostPathSchema = z.object({ id: hostIdSchema });

/** Whether the host's agent may report: an administrator's revocation of its token, and a re-enrollment let through. */
export const hostAgentAccessSchema = z.strictObject({
  tokenRevokedAt: isoTimeSchema.nullable(),
  /** Until then one enrollment of this host needs no proof; null when none is approved (or it has passed or been used). */
  reenrollApprovedUntil: isoTimeSchema.nullable(),
});

/** GET /api/v1/hosts/:id — the fleet row of one host plus its newest inventory snapshot. */
export const hostDetailSchema = fleetHostSchema.extend({
  createdAt: isoTimeSchema,
  lastReportAt: isoTimeSchema.nullable().meta({ description: 'The measured time of its newest stored report, however old; null before its first.' }),
  inventory: inventorySnapshotViewSchema.nullable(),
  agentAccess: hostAgentAccessSchema,
});
export type HostDetail = z.infer<typeof hostDetailSchema>;

/** GET /api/v1/hosts/:id/latency-series — the latency series the host reported in [from, to), busiest first. */
export const hostLatencySeriesResponseSchema = z.strictObject({
  hostId: z.number().int(),
  from: isoTimeSchema,
  to: isoTimeSchema,
  series: z.array(z.strictObject({ name: z.string(), count: z.number().int() })),
});
export type HostLatencySeriesResponse = z.infer<typeof hostLatencySeriesResponseSchema>;

export const hostLatencySeriesParamsSchema = z.object({ ...rangeShape }).superRefine(checkRange).transform(withDefaultRange(DAY_MS));
export type HostLatencySeriesParams = z.infer<typeof hostLatencySeriesParamsSchema>;
