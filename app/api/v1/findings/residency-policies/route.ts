import { audit, requireRole } from '@/lib/auth/principal';
import { getDb, getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { listResidencyPolicies, putResidencyPolicy } from '@/lib/findings/store/residency-policies';
import { readJsonBody } from '@/lib/http/json-body';
import { residencyPolicyInputSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    return Response.json({ policies: await listResidencyPolicies(await getReadDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates or replaces the policy of that name. */
export async function PUT(request: Request) {
  try {
    const principal = await requireRole(request, 'admin');
    const input = residencyPolicyInputSchema.parse(await readJsonBody(request));
    const result = await putResidencyPolicy(await getDb(), input);
    await audit(request, principal, { action: 'residency-policy.put', target: `residency policy ${input.name}` });
    return Response.json(result);
  } catch (err) {
    return toErrorResponse(err);
  }
}
