import { queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { findingRow } from '../../findings/store/findings';
import type { OpenFinding } from '../inputs';

const openFindingRow = findingRow.pick({ id: true, rule_id: true, host_id: true, region: true, subject: true, severity: true, message: true, remedy: true });

/** Every open finding, as the findings engine stored them (lib/findings). */
export async function readOpenFindings(sql: Sql): Promise<OpenFinding[]> {
  const rows = await queryRows(
    sql,
    'findings',
    openFindingRow,
    `SELECT id, rule_id, host_id, region, subject, severity, message, remedy FROM findings
      WHERE state = 'open'`,
  );
  return rows.map((r) => ({
    id: r.id,
    ruleId: r.rule_id,
    hostId: r.host_id,
    region: r.region,
    subject: r.subject,
    severity: r.severity,
    message: r.message,
    remedy: r.remedy,
  }));
}
