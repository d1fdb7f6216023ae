import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { requireReader } from '@/lib/auth/require-reader';
import { getDb, getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { listThresholdOverrides, putThresholdOverride } from '@/lib/findings/store/threshold-overrides';
import { readJsonBody } from '@/lib/http/json-body';
import { thresholdOverrideInputSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireReader(request);
    return Response.json({ overrides: await listThresholdOverrides(await getReadDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates or replaces the override of (rule, scope, selector). Admin token. */
export async function PUT(request: Request) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const input = thresholdOverrideInputSchema.parse(await readJsonBody(request));
    return Response.json(await putThresholdOverride(await getDb(), input));
  } catch (err) {
    return toErrorResponse(err);
  }
}
