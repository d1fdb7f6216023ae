import { z } from 'zod';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import { NotFoundError } from '../../errors';
import { hostExists } from '../../hosts/store';
import { THRESHOLD_SCOPES, type ThresholdOverride, type ThresholdOverrideInput } from '../../protocol/findings';
import { FINDING_RULES } from '../registry';
import { checkOverride } from '../thresholds';

const overrideRow = z.object({
  id: column.id,
  rule_id: z.string(),
  scope: z.enum(THRESHOLD_SCOPES),
  selector: z.string(),
  thresholds: z.record(z.string(), z.number()),
  disabled: z.boolean(),
  updated_at: column.timestamp,
});
type OverrideRow = z.output<typeof overrideRow>;

const toOverride = (r: OverrideRow): ThresholdOverride => ({
  id: r.id,
  ruleId: r.rule_id,
  scope: r.scope,
  selector: r.selector,
  thresholds: r.thresholds,
  disabled: r.disabled,
  updatedAt: r.updated_at.toISOString(),
});

export async function listThresholdOverrides(db: Pick<Database, 'sql'>): Promise<ThresholdOverride[]> {
  const rows = await queryRows(db.sql, 'finding_threshold_overrides', overrideRow, 'SELECT * FROM finding_threshold_overrides ORDER BY rule_id, id');
  return rows.map(toOverride);
}

/** A label selector is stored as JSON with sorted keys, so the same selector is the same row. */
function selectorOf(input: ThresholdOverrideInput): string {
  switch (input.scope) {
    case 'fleet':
      return '';
    case 'region':
      return input.region;
    case 'host':
      return String(input.hostId);
    case 'labels':
      return JSON.stringify(Object.fromEntries(Object.entries(input.labels).sort(([a], [b]) => a.localeCompare(b))));
  }
}

/** Creates the override for (rule, scope, selector), or replaces the one there is. */
export async function putThresholdOverride(db: Pick<Database, 'sql'>, input: ThresholdOverrideInput): Promise<ThresholdOverride> {
  const { sql } = db;
  checkOverride(FINDING_RULES, input);
  if (input.scope === 'host') {
    if (!(await hostExists(sql, input.hostId))) throw new NotFoundError(`host ${input.hostId} not found`);
  }
  const [row] = await queryRows(sql, 'finding_threshold_overrides', overrideRow, 
    `INSERT INTO finding_threshold_overrides (rule_id, scope, selector, thresholds, disabled, updated_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, now())
     ON CONFLICT (rule_id, scope, selector)
     DO UPDATE SET thresholds = EXCLUDED.thresholds, disabled = EXCLUDED.disabled, updated_at = now()
     RETURNING *`,
    [input.ruleId, input.scope, selectorOf(input), JSON.stringify(input.thresholds), input.disabled],
  );
  return toOverride(row!);
}

export async function deleteThresholdOverride(db: Pick<Database, 'sql'>, id: number): Promise<void> {
  const rows = await db.sql.query('DELETE FROM finding_threshold_overrides WHERE id = $1 RETURNING id', [id]);
  if (rows.length === 0) throw new NotFoundError(`threshold override ${id} not found`);
}
