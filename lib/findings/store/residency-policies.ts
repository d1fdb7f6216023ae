import type { Database } from '../../db/open';
import { NotFoundError } from '../../errors';
import type { ResidencyPolicyInput, ResidencyPolicyView } from '../../protocol/findings';

interface PolicyRow {
  id: number;
  name: string;
  selector: Record<string, string> | string;
  allowed_regions: string[] | null;
  created_at: Date;
}

const toView = (r: PolicyRow): ResidencyPolicyView => ({
  id: r.id,
  name: r.name,
  selector: typeof r.selector === 'string' ? JSON.parse(r.selector) : r.selector,
  allowedRegions: r.allowed_regions ?? [],
  createdAt: new Date(r.created_at).toISOString(),
});

export async function listResidencyPolicies(db: Pick<Database, 'sql'>): Promise<ResidencyPolicyView[]> {
  return (await db.sql.query<PolicyRow>('SELECT * FROM residency_policies ORDER BY name')).map(toView);
}

/** Creates the policy, or replaces the one with the same name. */
export async function putResidencyPolicy(db: Pick<Database, 'sql'>, input: ResidencyPolicyInput): Promise<ResidencyPolicyView> {
  const [row] = await db.sql.query<PolicyRow>(
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
