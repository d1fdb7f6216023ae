import type { Sql } from '../../db/sql';
import type { Severity } from '../../protocol/findings';
import type { OpenFinding } from '../inputs';

/** Every open finding, as the findings engine stored them (lib/findings). */
export async function readOpenFindings(sql: Sql): Promise<OpenFinding[]> {
  const rows = await sql.query<{
    id: number; rule_id: string; host_id: number | null; region: string; subject: string; severity: Severity; message: string; remedy: string;
  }>(
    `SELECT id, rule_id, host_id, region, subject, severity, message, remedy FROM findings
      WHERE state = 'open'`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    ruleId: r.rule_id,
    hostId: r.host_id,
    region: r.region,
    subject: r.subject,
    severity: r.severity,
    message: r.message,
    remedy: r.remedy,
  }));
}
