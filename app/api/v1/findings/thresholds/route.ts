import { audit, requireRole } from '@/lib/auth/principal';
import { getDb, getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { listThresholdOverrides, putThresholdOverride } from '@/lib/findings/store/threshold-overrides';
import { readJsonBody } from '@/lib/http/json-body';
import { thresholdOverrideInputSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    return Response.json({ overrides: await listThresholdOverrides(await getReadDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates or replaces the override of (rule, scope, selector). */
export async function PUT(request: Request) {
  try {
    const principal = await requireRole(request, 'editor');
    const input = thresholdOverrideInputSchema.parse(await readJsonBody(request));
    const result = await putThresholdOverride(await getDb(), input);
    await audit(request, principal, { action: 'threshold-override.put', target: `threshold override ${result.id} (${input.ruleId})` });
    return Response.json(result);
  } catch (err) {
    return toErrorResponse(err);
  }
}
