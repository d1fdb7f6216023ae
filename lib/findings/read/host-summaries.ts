import { z } from 'zod';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import { SEVERITIES, type FindingCounts, type TopFinding } from '../../protocol/findings';
import { findRule } from '../registry';

export interface HostFindingSummary {
  counts: FindingCounts;
  top: TopFinding | null;
}

const openFindingRow = z.object({ host_id: column.id.nullable(), rule_id: z.string(), severity: z.enum(SEVERITIES), message: z.string(), acked: z.boolean() });
const openCountRow = z.object({ rule_id: z.string(), severity: z.enum(SEVERITIES), region: z.string(), n: z.number().int() });

const zero = (): FindingCounts => ({ critical: 0, warning: 0, info: 0 });

/**
 * Open findings per host (counts by severity and the most severe, unacknowledged first) and for the whole fleet,
 * in one pass over the open findings, for the fleet summary.
 */
export async function hostFindingSummaries(
  db: Pick<Database, 'sql'>,
  filter: { region?: string; hostId?: number } = {},
): Promise<{ byHost: Map<number, HostFindingSummary>; total: FindingCounts }> {
  const rows = await queryRows(
    db.sql,
    'findings',
    openFindingRow,
    `SELECT host_id, rule_id, severity, message, (ack_at IS NOT NULL AND (ack_expires_at IS NULL OR ack_expires_at > now())) AS acked
       FROM findings
      WHERE state = 'open' AND ($1::text IS NULL OR region = $1) AND ($2::int IS NULL OR host_id = $2)
      ORDER BY host_id, acked, CASE severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, first_seen_at`,
    [filter.region ?? null, filter.hostId ?? null],
  );
  const byHost = new Map<number, HostFindingSummary>();
  const total = zero();
  for (const row of rows) {
    total[row.severity]++;
    if (row.host_id === null) continue;
    let summary = byHost.get(row.host_id);
    if (!summary) {
      summary = {
        counts: zero(),
        top: { ruleId: row.rule_id, title: findRule(row.rule_id)?.title ?? row.rule_id, severity: row.severity, message: row.message },
      };
      byHost.set(row.host_id, summary);
    }
    summary.counts[row.severity]++;
  }
  return { byHost, total };
}

/** Open findings counted by rule, severity and region, for /metrics. */
export async function countOpenFindings(db: Pick<Database, 'sql'>) {
  const rows = await queryRows(
    db.sql,
    'findings',
    openCountRow,
    `SELECT rule_id, severity, region, count(*)::int AS n FROM findings WHERE state = 'open'
     GROUP BY rule_id, severity, region ORDER BY rule_id, severity, region`,
  );
  return rows.map((r) => ({ ruleId: r.rule_id, severity: r.severity, region: r.region, count: r.n }));
}
