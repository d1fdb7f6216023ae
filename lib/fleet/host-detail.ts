import type { Database } from '../db';
import { hostFindingSummaries } from '../findings/read/host-summaries';
import { listThresholdOverrides } from '../findings/store/threshold-overrides';
import { NotFoundError } from '../errors';
import { readHostAgentFacts } from '../hosts/store';
import type { Inventory } from '../protocol/report';
import type { HostDetail } from '../protocol/read-api/host';
import { serverEnvironment } from '../server/environment';
import { colourLevelsResolver } from './colour-levels';
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
  const [inventory] = await sql.query<{ taken_at: Date; hash: string; data: Inventory }>(
    'SELECT taken_at, hash, data FROM inventory_snapshots WHERE host_id = $1 ORDER BY taken_at DESC LIMIT 1',
    [hostId],
  );
  const host = toFleetHost(row, now.getTime(), options.staleAfterMs ?? serverEnvironment().staleAfterMs, findings.byHost.get(hostId), colourLevelsResolver(overrides));
  const reportTimes = [host.latest?.ts ?? null, access?.last_report_ts?.toISOString() ?? null].filter((t) => t !== null);
  return {
    ...host,
    lastReportAt: reportTimes.length ? reportTimes.reduce((a, b) => (a > b ? a : b)) : null,
    createdAt: new Date(row.created_at).toISOString(),
    inventory: inventory
      ? { takenAt: new Date(inventory.taken_at).toISOString(), hash: inventory.hash, data: inventory.data }
      : null,
    agentAccess: {
      tokenRevokedAt: access?.token_revoked_at?.toISOString() ?? null,
      reenrollApprovedUntil: approvedUntil && approvedUntil.getTime() > now.getTime() ? approvedUntil.toISOString() : null,
    },
  };
}
