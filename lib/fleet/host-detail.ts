import type { Database } from '../db';
import { hostFindingSummaries } from '../findings/read/host-summaries';
import { listThresholdOverrides } from '../findings/store/threshold-overrides';
import { NotFoundError } from '../errors';
import { readHostAgentFacts } from '../hosts/store';
import type { HostDetail } from '../protocol/read-api/host';
import { DEFAULT_STALE_AFTER_MS } from './staleness';
import { colourLevelsResolver } from './colour-levels';
import { readNewestInventory } from './newest-inventory';
import { selectFleetRows, toFleetHost, type FleetOptions } from './fleet-summary';

/** One host as the fleet summary shows it, plus its newest inventory snapshot and whether its agent may report. */
export async function getHostDetail(
  db: Pick<Database, 'sql'>,
  hostId: number,
  options: Omit<FleetOptions, 'lookbackMs'> = {},
): Promise<HostDetail> {
  const { sql } = db;
  const now = options.now ?? new Date();
  const [[row], findings, overrides, access] = await Promise.all([
    selectFleetRows(sql, { hostId, now }),
    hostFindingSummaries(db, { hostId }),
    listThresholdOverrides(db),
    readHostAgentFacts(sql, hostId),
  ]);
  if (!row) throw new NotFoundError(`host ${hostId} not found`);
  const approvedUntil = access?.reenroll_approved_until ?? null;
  const inventory = await readNewestInventory(sql, hostId);
  const host = toFleetHost(row, now.getTime(), options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS, findings.byHost.get(hostId), colourLevelsResolver(overrides));
  const reportTimes = [host.latest?.ts ?? null, access?.last_report_ts?.toISOString() ?? null].filter((t) => t !== null);
  return {
    ...host,
    lastReportAt: reportTimes.length ? reportTimes.reduce((a, b) => (a > b ? a : b)) : null,
    createdAt: new Date(row.created_at).toISOString(),
    inventory: inventory
      ? { takenAt: inventory.taken_at.toISOString(), hash: inventory.hash, data: inventory.data }
      : null,
    agentAccess: {
      tokenRevokedAt: access?.token_revoked_at?.toISOString() ?? null,
      reenrollApprovedUntil: approvedUntil && approvedUntil.getTime() > now.getTime() ? approvedUntil.toISOString() : null,
    },
  };
}
