import { z } from 'zod';
import { inventorySchema } from '../report';
import { isoTimeSchema } from '../response-fields';
import { DAY_MS } from '../time';
import { checkRange, rangeShape, withDefaultRange } from './params';

export const inventorySnapshotViewSchema = z.strictObject({ takenAt: isoTimeSchema, hash: z.string(), data: inventorySchema });

/** One new snapshot and what it changed against the one before (empty when only unjudged details changed). */
export const inventoryChangeSchema = z.strictObject({ takenAt: isoTimeSchema, hash: z.string(), changes: z.array(z.string()) });
export type InventoryChange = z.infer<typeof inventoryChangeSchema>;

/** GET /api/v1/hosts/:id/inventory */
export const hostInventoryResponseSchema = z.strictObject({
  hostId: z.number().int(),
  from: isoTimeSchema,
  to: isoTimeSchema,
  /** The newest snapshot taken before `to`; null when the host has sent none. */
  current: inventorySnapshotViewSchema.nullable(),
  /** Snapshots taken in [from, to), newest first, each against its predecessor; the first snapshot is the enrolment. */
  changes: z.array(inventoryChangeSchema),
  /** When the host sent its first inventory, if in the range: its enrolment, not a change. */
  firstSeenAt: isoTimeSchema.nullable(),
  truncated: z.boolean(),
});
export type HostInventoryResponse = z.infer<typeof hostInventoryResponseSchema>;

export const hostInventoryParamsSchema = z
  .object({ ...rangeShape, limit: z.coerce.number().int().min(1).max(500).default(100) })
  .superRefine(checkRange)
  .transform(withDefaultRange(90 * DAY_MS));
export type HostInventoryParams = z.infer<typeof hostInventoryParamsSchema>;
