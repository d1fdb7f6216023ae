import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { SEVERITIES } from '../../protocol/findings';
import type { OpenFinding } from '../inputs';

const openFindingRow = z.object({
  id: column.int8,
  rule_id: z.string(),
  host_id: column.id.nullable(),
  region: z.string(),
  subject: z.string(),
  severity: z.enum(SEVERITIES),
  message: z.string(),
  remedy: z.string(),
});

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
