import { z } from 'zod';
import type { FleetHost } from './fleet';
import { hostIdSchema } from './params';

/** The `:id` of /api/v1/hosts/:id and the routes under it. */
export const hostPathSchema = z.object({ id: hostIdSchema });

/** GET /api/v1/hosts/:id — the fleet row of one host plus its newest inventory snapshot. */
export interface HostDetail extends FleetHost {
  createdAt: string;
  inventory: { takenAt: string; hash: string; data: unknown } | null;
}
