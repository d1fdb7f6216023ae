import { z } from 'zod';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import type { FindingRuleSummary, FindingsSummaryQuery, FindingsSummaryResponse } from '../../protocol/findings';
import { SEVERITY_RANK } from '../../protocol/findings';
import { findingsWhere } from './list-findings';
import { findRule } from '../registry';

const count = z.number().int();
const summaryRow = z.object({
  rule_id: z.string(),
  critical: count,
  warning: count,
  info: count,
  hosts: count,
  acknowledged: count,
  newest_at: column.timestamp,
});

/** The matching findings counted per rule, so the page can group a fleet's findings without fetching them all. */
export async function summarizeFindings(
  db: Pick<Database, 'sql'>,
  query: FindingsSummaryQuery,
  now = new Date(),
): Promise<FindingsSummaryResponse> {
  const params: unknown[] = [now];
  const where = findingsWhere(query, params);
  const rows = await queryRows(
    db.sql,
    'findings',
    summaryRow,
    `SELECT f.rule_id,
            count(*) FILTER (WHERE f.severity = 'critical')::int AS critical,
            count(*) FILTER (WHERE f.severity = 'warning')::int AS warning,
            count(*) FILTER (WHERE f.severity = 'info')::int AS info,
            count(DISTINCT f.host_id)::int AS hosts,
            count(*) FILTER (WHERE f.ack_at IS NOT NULL AND (f.ack_expires_at IS NULL OR f.ack_expires_at > $1))::int AS acknowledged,
            max(f.first_seen_at) AS newest_at
       FROM findings f LEFT JOIN hosts h ON h.id = f.host_id
      ${where}
      GROUP BY f.rule_id`,
    params,
  );
  const rules = rows.map(toSummary).sort(byWorstThenCount);
  return { rules, total: rules.reduce((sum, rule) => sum + rule.total, 0) };
}

function toSummary(row: z.output<typeof summaryRow>): FindingRuleSummary {
  const rule = findRule(row.rule_id);
  const counts = { critical: row.critical, warning: row.warning, info: row.info };
  return {
    ruleId: row.rule_id,
    title: rule?.title ?? row.rule_id,
    category: rule?.category ?? 'agent',
    counts,
    total: counts.critical + counts.warning + counts.info,
    hosts: Number(row.hosts),
    acknowledged: Number(row.acknowledged),
    newestAt: new Date(row.newest_at).toISOString(),
  };
}

const worstRank = (rule: FindingRuleSummary) =>
  rule.counts.critical > 0 ? SEVERITY_RANK.critical : rule.counts.warning > 0 ? SEVERITY_RANK.warning : SEVERITY_RANK.info;

function byWorstThenCount(a: FindingRuleSummary, b: FindingRuleSummary): number {
  return worstRank(a) - worstRank(b) || b.total - a.total || a.ruleId.localeCompare(b.ruleId);
}
