import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { requireReader } from '@/lib/auth/require-reader';
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
    await requireReader(request);
    const { id } = alertRulePathSchema.parse(await context.params);
    return Response.json(await getRule(await getReadDb(), id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Changes what the body gives: title, severity, enabled, runbookUrl, spec (as a whole). Admin token. */
export async function PATCH(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = alertRulePathSchema.parse(await context.params);
    const patch = alertRulePatchSchema.parse(await readJsonBody(request));
    return Response.json(await updateRule(await getDb(), id, patch));
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Deletes a rule and its history; shipped rules answer 409 (disable them instead). Admin token. */
export async function DELETE(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = alertRulePathSchema.parse(await context.params);
    await deleteRule(await getDb(), id);
    return new Response(null, { status: 204 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
