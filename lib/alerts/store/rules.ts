import { z } from 'zod';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { ConflictError, NotFoundError } from '../../errors';
import { alertRuleSpecSchema, type AlertRule, type AlertRuleInput, type AlertRulePatch } from '../../protocol/alerts';
import { SEVERITIES, type Severity } from '../../protocol/findings';

const ruleRow = z.object({
  id: z.string(),
  title: z.string(),
  severity: z.enum(SEVERITIES),
  // Parsed on the way out too: fills defaults added since the row was written.
  spec: alertRuleSpecSchema,
  enabled: z.boolean(),
  builtin: z.boolean(),
  runbook_url: z.string().nullable(),
  created_at: column.timestamp,
  updated_at: column.timestamp,
});
type RuleRow = z.output<typeof ruleRow>;

function toRule(r: RuleRow): AlertRule {
  return {
    id: r.id,
    title: r.title,
    severity: r.severity,
    enabled: r.enabled,
    builtin: r.builtin,
    runbookUrl: r.runbook_url,
    spec: r.spec,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Inserts the shipped rules that are missing; never overwrites an edited one. */
export async function ensureDefaultRules(sql: Sql, defaults: readonly AlertRuleInput[]): Promise<void> {
  if (defaults.length === 0) return;
  await sql.query(
    `INSERT INTO alert_rules (id, title, severity, spec, enabled, builtin, runbook_url)
     SELECT v.id, v.title, v.severity, v.spec::jsonb, v.enabled, true, v.runbook_url
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bool[], $6::text[]) AS v(id, title, severity, spec, enabled, runbook_url)
     ON CONFLICT (id) DO NOTHING`,
    [
      defaults.map((r) => r.id),
      defaults.map((r) => r.title),
      defaults.map((r) => r.severity),
      defaults.map((r) => JSON.stringify(r.spec)),
      defaults.map((r) => r.enabled),
      defaults.map((r) => r.runbookUrl),
    ],
  );
}

export async function listRules(db: Pick<Database, 'sql'>): Promise<AlertRule[]> {
  const rows = await queryRows(db.sql, 'alert_rules', ruleRow, 'SELECT * FROM alert_rules ORDER BY builtin DESC, id');
  return rows.map(toRule);
}

export async function getRule(db: Pick<Database, 'sql'>, id: string): Promise<AlertRule> {
  const [row] = await queryRows(db.sql, 'alert_rules', ruleRow, 'SELECT * FROM alert_rules WHERE id = $1', [id]);
  if (!row) throw new NotFoundError(`alert rule ${id} not found`);
  return toRule(row);
}

export async function createRule(db: Pick<Database, 'sql'>, input: AlertRuleInput): Promise<AlertRule> {
  const [row] = await queryRows(
    db.sql,
    'alert_rules',
    ruleRow,
    `INSERT INTO alert_rules (id, title, severity, spec, enabled, runbook_url) VALUES ($1, $2, $3, $4::jsonb, $5, $6)
     ON CONFLICT (id) DO NOTHING RETURNING *`,
    [input.id, input.title, input.severity, JSON.stringify(input.spec), input.enabled, input.runbookUrl],
  );
  if (!row) throw new ConflictError(`alert rule ${input.id} exists`);
  return toRule(row);
}

/** Replaces what the patch gives (the spec as a whole). Changing a rule applies from the next cycle on. */
export async function updateRule(db: Pick<Database, 'sql'>, id: string, patch: AlertRulePatch): Promise<AlertRule> {
  const [row] = await queryRows(
    db.sql,
    'alert_rules',
    ruleRow,
    `UPDATE alert_rules SET title = COALESCE($2, title), severity = COALESCE($3, severity), spec = COALESCE($4::jsonb, spec),
            enabled = COALESCE($5, enabled), runbook_url = CASE WHEN $6 THEN $7 ELSE runbook_url END, updated_at = now()
      WHERE id = $1 RETURNING *`,
    [
      id,
      patch.title ?? null,
      patch.severity ?? null,
      patch.spec ? JSON.stringify(patch.spec) : null,
      patch.enabled ?? null,
      patch.runbookUrl !== undefined,
      patch.runbookUrl ?? null,
    ],
  );
  if (!row) throw new NotFoundError(`alert rule ${id} not found`);
  return toRule(row);
}

/** Deletes a rule of one's own with its history; a shipped rule can only be disabled. */
export async function deleteRule(db: Pick<Database, 'sql'>, id: string): Promise<void> {
  const rule = await getRule(db, id);
  if (rule.builtin) throw new ConflictError(`alert rule ${id} ships with inferwatch: disable it instead (PATCH {"enabled": false})`);
  await db.sql.query('DELETE FROM alert_rules WHERE id = $1', [id]);
}

/** The rules a cycle evaluates. */
export async function readEnabledRules(sql: Sql): Promise<AlertRule[]> {
  const rows = await queryRows(sql, 'alert_rules', ruleRow, 'SELECT * FROM alert_rules WHERE enabled ORDER BY id');
  return rows.map(toRule);
}

const severityRow = z.object({ id: z.string(), severity: z.enum(SEVERITIES) });

/** Each enabled rule's id and severity, for /metrics (which reports 0 firing for them). */
export async function readEnabledRuleSeverities(sql: Pick<Sql, 'query'>): Promise<{ ruleId: string; severity: Severity }[]> {
  const rows = await queryRows(sql, 'alert_rules', severityRow, 'SELECT id, severity FROM alert_rules WHERE enabled');
  return rows.map((r) => ({ ruleId: r.id, severity: r.severity }));
}
