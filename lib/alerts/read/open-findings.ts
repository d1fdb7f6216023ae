import type { Sql } from '../../db/sql';
import type { Severity } from '../../protocol/findings';
import type { OpenFinding } from '../inputs';

/** Open findings at `minSeverity` or worse, as the findings engine stored them (lib/findings). */
export async function readOpenFindings(sql: Sql, severities: readonly Severity[]): Promise<OpenFinding[]> {
  const rows = await sql.query<{
    id: number; rule_id: string; host_id: number | null; region: string; subject: string; severity: Severity; message: string; remedy: string;
  }>(
    `SELECT id, rule_id, host_id, region, subject, severity, message, remedy FROM findings
      WHERE state = 'open' AND severity = ANY($1::text[])`,
    [severities],
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
