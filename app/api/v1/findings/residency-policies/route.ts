import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { requireReader } from '@/lib/auth/require-reader';
import { getDb, getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { listResidencyPolicies, putResidencyPolicy } from '@/lib/findings/store/residency-policies';
import { readJsonBody } from '@/lib/http/json-body';
import { residencyPolicyInputSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireReader(request);
    return Response.json({ policies: await listResidencyPolicies(await getReadDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates or replaces the policy of that name. Admin token. */
export async function PUT(request: Request) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const input = residencyPolicyInputSchema.parse(await readJsonBody(request));
    return Response.json(await putResidencyPolicy(await getDb(), input));
  } catch (err) {
    return toErrorResponse(err);
  }
}
