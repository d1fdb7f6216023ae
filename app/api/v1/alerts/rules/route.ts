import { audit, requireRole } from '@/lib/auth/principal';
import { createRule, listRules } from '@/lib/alerts';
import { getDb, getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { alertRuleInputSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    return Response.json({ rules: await listRules(await getReadDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates a rule (see docs/alerts.md for the spec). */
export async function POST(request: Request) {
  try {
    const principal = await requireRole(request, 'editor');
    const input = alertRuleInputSchema.parse(await readJsonBody(request));
    const result = await createRule(await getDb(), input);
    await audit(request, principal, { action: 'alert-rule.create', target: `alert rule ${input.id}` });
    return Response.json(result, { status: 201 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
