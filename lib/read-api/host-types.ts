import type { FleetHost } from './fleet-types';

/** GET /api/v1/hosts/:id — the fleet row of one host plus its newest inventory snapshot. Type-only. */
export interface HostDetail extends FleetHost {
  createdAt: string;
  inventory: { takenAt: string; hash: string; data: unknown } | null;
}
