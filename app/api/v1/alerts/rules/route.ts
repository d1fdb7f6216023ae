import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { requireReader } from '@/lib/auth/require-reader';
import { createRule, listRules } from '@/lib/alerts';
import { getDb, getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { alertRuleInputSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(request: Request) {
  try {
    await requireReader(request);
    return Response.json({ rules: await listRules(await getReadDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates a rule (see docs/alerts.md for the spec). Admin token. */
export async function POST(request: Request) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const input = alertRuleInputSchema.parse(await readJsonBody(request));
    return Response.json(await createRule(await getDb(), input), { status: 201 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
