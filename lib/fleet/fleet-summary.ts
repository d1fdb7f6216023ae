import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import { hostFindingSummaries, type HostFindingSummary } from '../findings/read/host-summaries';
import { listThresholdOverrides } from '../findings/store/threshold-overrides';
import type { FleetHost, FleetParams, FleetSummary, HostColourLevels, HostStatus } from '../protocol/read-api/fleet';
import { colourLevelsResolver, type ColourTarget } from './colour-levels';
import { DAY_MS, MINUTE_MS } from '../protocol/time';
import { DEFAULT_STALE_AFTER_MS } from './staleness';
import { withoutJit } from '../db/without-jit';

/** How far back a host's newest sample is looked for. */
export const DEFAULT_LOOKBACK_MS = 7 * DAY_MS;

const LATEST_COLUMNS = `s.ts, s.cpu_steal_pct, s.cpu_iowait_pct, s.cpu_user_pct, s.cpu_system_pct, s.cpu_idle_pct,
  s.load1, s.psi_cpu_some_avg10, s.psi_io_some_avg10`;

const gauge = z.number().nullable();
const fleetRow = z.object({
  id: column.id,
  hostname: z.string(),
  region: z.string(),
  labels: column.labels,
  created_at: column.timestamp,
  last_seen_at: column.timestamp.nullable(),
  agent_version: z.string().nullable(),
  ts: column.timestamp.nullable(),
  cpu_steal_pct: gauge,
  cpu_iowait_pct: gauge,
  cpu_user_pct: gauge,
  cpu_system_pct: gauge,
  cpu_idle_pct: gauge,
  load1: gauge,
  psi_cpu_some_avg10: gauge,
  psi_io_some_avg10: gauge,
});
type FleetRow = z.output<typeof fleetRow>;

/** What the environment decides for a fleet read: the clock, the stale window (INFERWATCH_STALE_AFTER_MS). */
export interface FleetOptions {
  now?: Date;
  staleAfterMs?: number;
  /** How far back to look for a host's newest sample. */
  lookbackMs?: number;
}

interface FleetRowsQuery extends FleetParams {
  hostId?: number;
  hostIds?: readonly number[];
  now: Date;
  lookbackMs?: number;
}

// A bounded backward index scan per host beats the equality on hosts.last_report_ts, whose parameterized lookup is
// not pruned to one partition — and last_report_ts is written a few seconds behind ingest.
export async function selectFleetRows(sql: Sql, query: FleetRowsQuery): Promise<FleetRow[]> {
  const now = query.now;
  const lookbackFrom = new Date(now.getTime() - (query.lookbackMs ?? DEFAULT_LOOKBACK_MS));
  const aheadTo = new Date(now.getTime() + 5 * MINUTE_MS);
  return withoutJit(sql, (tx) => queryRows(tx, 'hosts', fleetRow,
    `SELECT h.id, h.hostname, h.region, h.labels, h.created_at, h.last_seen_at, h.agent_version, l.*
     FROM hosts h LEFT JOIN LATERAL (
       SELECT ${LATEST_COLUMNS} FROM host_samples s WHERE s.host_id = h.id AND s.ts >= $3 AND s.ts <= $4
        ORDER BY s.ts DESC LIMIT 1
     ) l ON TRUE
     WHERE ($1::text IS NULL OR h.region = $1) AND ($2::int IS NULL OR h.id = $2) AND ($5::int[] IS NULL OR h.id = ANY($5))
     ORDER BY h.region, h.hostname, h.id`,
    [query.region ?? null, query.hostId ?? null, lookbackFrom, aheadTo, query.hostIds ? [...query.hostIds] : null],
  ));
}

function hostStatus(lastHeardMs: number | null, nowMs: number, staleAfterMs: number): HostStatus {
  if (lastHeardMs === null) return 'never_reported';
  return nowMs - lastHeardMs > staleAfterMs ? 'stale' : 'ok';
}

export function toFleetHost(
  row: FleetRow,
  nowMs: number,
  staleAfterMs: number,
  findings: HostFindingSummary | undefined,
  levelsOf: (target: ColourTarget) => HostColourLevels,
): FleetHost {
  const lastSeenAt = row.last_seen_at;
  const latestTs = row.ts;
  // last_seen_at is written a few seconds behind ingest; the newest sample may be fresher.
  const lastHeard = lastSeenAt && latestTs ? (lastSeenAt > latestTs ? lastSeenAt : latestTs) : (lastSeenAt ?? latestTs);
  return {
    id: row.id,
    hostname: row.hostname,
    region: row.region,
    labels: row.labels,
    lastSeenAt: lastSeenAt?.toISOString() ?? null,
    agentVersion: row.agent_version,
    status: hostStatus(lastHeard?.getTime() ?? null, nowMs, staleAfterMs),
    latest: latestTs
      ? {
          ts: latestTs.toISOString(),
          stealPct: row.cpu_steal_pct,
          iowaitPct: row.cpu_iowait_pct,
          userPct: row.cpu_user_pct,
          systemPct: row.cpu_system_pct,
          idlePct: row.cpu_idle_pct,
          load1: row.load1,
          psiCpuSomeAvg10: row.psi_cpu_some_avg10,
          psiIoSomeAvg10: row.psi_io_some_avg10,
        }
      : null,
    findings: findings?.counts ?? { critical: 0, warning: 0, info: 0 },
    topFinding: findings?.top ?? null,
    levels: levelsOf({ hostId: row.id, region: row.region, labels: row.labels }),
  };
}

/** Every host (optionally of one region) with the values of its newest stored report and its status. */
export async function getFleetSummary(
  db: Pick<Database, 'sql'>,
  params: FleetParams = {},
  options: FleetOptions = {},
): Promise<FleetSummary> {
  const now = options.now ?? new Date();
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const [rows, findings, overrides] = await Promise.all([
    selectFleetRows(db.sql, { region: params.region, now, lookbackMs: options.lookbackMs }),
    hostFindingSummaries(db, { region: params.region }),
    listThresholdOverrides(db),
  ]);
  const levelsOf = colourLevelsResolver(overrides);
  return {
    generatedAt: now.toISOString(),
    staleAfterMs,
    hosts: rows.map((row) => toFleetHost(row, now.getTime(), staleAfterMs, findings.byHost.get(row.id), levelsOf)),
    findings: findings.total,
  };
}
