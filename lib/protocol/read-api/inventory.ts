import { z } from 'zod';
import type { Inventory } from '../report';
import { DAY_MS } from '../time';
import { checkRange, rangeShape, withDefaultRange } from './params';

export interface InventorySnapshotView {
  takenAt: string;
  hash: string;
  data: Inventory;
}

/** One new snapshot and what it changed against the one before (empty when only unjudged details changed). */
export interface InventoryChange {
  takenAt: string;
  hash: string;
  changes: string[];
}

/** GET /api/v1/hosts/:id/inventory */
export interface HostInventoryResponse {
  hostId: number;
  from: string;
  to: string;
  /** The newest snapshot taken before `to`; null when the host has sent none. */
  current: InventorySnapshotView | null;
  /** Snapshots taken in [from, to), newest first, each against its predecessor; the first snapshot is the enrolment. */
  changes: InventoryChange[];
  /** When the host sent its first inventory, if in the range: its enrolment, not a change. */
  firstSeenAt: string | null;
  truncated: boolean;
}

export const hostInventoryParamsSchema = z
  .object({ ...rangeShape, limit: z.coerce.number().int().min(1).max(500).default(100) })
  .superRefine(checkRange)
  .transform(withDefaultRange(90 * DAY_MS));
export type HostInventoryParams = z.infer<typeof hostInventoryParamsSchema>;
