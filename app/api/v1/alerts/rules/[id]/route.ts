import { audit, requireRole } from '@/lib/auth/principal';
import { deleteRule, getRule, updateRule } from '@/lib/alerts';
import { getDb, getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { alertRulePatchSchema, alertRulePathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Context = { params: Promise<{ id: string }> };

export async function GET(request: Request, context: Context) {
  try {
    await requireRole(request, 'viewer');
    const { id } = alertRulePathSchema.parse(await context.params);
    return Response.json(await getRule(await getReadDb(), id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Changes what the body gives: title, severity, enabled, runbookUrl, spec (as a whole). */
export async function PATCH(request: Request, context: Context) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = alertRulePathSchema.parse(await context.params);
    const patch = alertRulePatchSchema.parse(await readJsonBody(request));
    const result = await updateRule(await getDb(), id, patch);
    await audit(request, principal, { action: 'alert-rule.update', target: `alert rule ${id}` });
    return Response.json(result);
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Deletes a rule and its history; shipped rules answer 409 (disable them instead). */
export async function DELETE(request: Request, context: Context) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = alertRulePathSchema.parse(await context.params);
    await deleteRule(await getDb(), id);
    await audit(request, principal, { action: 'alert-rule.delete', target: `alert rule ${id}` });
    return new Response(null, { status: 204 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
