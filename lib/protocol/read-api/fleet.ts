import { z } from 'zod';
import type { FindingCounts, TopFinding } from '../findings';
import { regionSchema } from './params';

/** GET /api/v1/fleet — the fleet summary the home page shows. */
export const fleetParamsSchema = z.object({ region: regionSchema.optional() });
export type FleetParams = z.infer<typeof fleetParamsSchema>;

export interface FleetHostLatest {
  ts: string;
  stealPct: number | null;
  iowaitPct: number | null;
  userPct: number | null;
  systemPct: number | null;
  idlePct: number | null;
  load1: number | null;
  psiCpuSomeAvg10: number | null;
  psiIoSomeAvg10: number | null;
}

export type HostStatus = 'ok' | 'stale' | 'never_reported';

export interface FleetHost {
  id: number;
  hostname: string;
  region: string;
  labels: Record<string, string>;
  lastSeenAt: string | null;
  status: HostStatus;
  latest: FleetHostLatest | null;
  /** Open findings about this host, by severity. */
  findings: FindingCounts;
  /** Its most severe open finding, unacknowledged ones first; null when it has none. */
  topFinding: TopFinding | null;
}

export interface FleetSummary {
  generatedAt: string;
  /** A host is stale when it has not reported for this long. */
  staleAfterMs: number;
  hosts: FleetHost[];
  /** Open findings of the whole fleet (hosts and regions), by severity. */
  findings: FindingCounts;
}
