import { z } from 'zod';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { NotFoundError } from '../../errors';
import type { ResidencyPolicyInput, ResidencyPolicyView } from '../../protocol/findings';
import type { ResidencyPolicy } from '../types';

const policyRow = z.object({
  id: column.id,
  name: z.string(),
  selector: column.labels,
  allowed_regions: z.array(z.string()).nullable(),
  created_at: column.timestamp,
});
type PolicyRow = z.output<typeof policyRow>;

const toView = (r: PolicyRow): ResidencyPolicyView => ({
  id: r.id,
  name: r.name,
  selector: r.selector,
  allowedRegions: r.allowed_regions ?? [],
  createdAt: r.created_at.toISOString(),
});

export async function listResidencyPolicies(db: Pick<Database, 'sql'>): Promise<ResidencyPolicyView[]> {
  return (await queryRows(db.sql, 'residency_policies', policyRow, 'SELECT * FROM residency_policies ORDER BY name')).map(toView);
}

/** Creates the policy, or replaces the one with the same name. */
export async function putResidencyPolicy(db: Pick<Database, 'sql'>, input: ResidencyPolicyInput): Promise<ResidencyPolicyView> {
  const [row] = await queryRows(
    db.sql,
    'residency_policies',
    policyRow,
    `INSERT INTO residency_policies (name, selector, allowed_regions) VALUES ($1, $2::jsonb, $3::text[])
     ON CONFLICT (name) DO UPDATE SET selector = EXCLUDED.selector, allowed_regions = EXCLUDED.allowed_regions
     RETURNING *`,
    [input.name, JSON.stringify(input.selector), input.allowedRegions],
  );
  return toView(row!);
}

export async function deleteResidencyPolicy(db: Pick<Database, 'sql'>, id: number): Promise<void> {
  const rows = await db.sql.query('DELETE FROM residency_policies WHERE id = $1 RETURNING id', [id]);
  if (rows.length === 0) throw new NotFoundError(`residency policy ${id} not found`);
}

/** Every policy, for the findings engine's region.residency rule. */
export async function readResidencyPolicies(sql: Pick<Sql, 'query'>): Promise<ResidencyPolicy[]> {
  const rows = await queryRows(sql, 'residency_policies', policyRow, 'SELECT * FROM residency_policies ORDER BY id');
  return rows.map((r) => ({ id: r.id, name: r.name, selector: r.selector, allowedRegions: r.allowed_regions ?? [] }));
}
