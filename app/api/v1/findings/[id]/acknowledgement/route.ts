import { audit, requireRole } from '@/lib/auth/principal';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { acknowledgeFinding, clearAcknowledgement } from '@/lib/findings/read/list-findings';
import { readJsonBody } from '@/lib/http/json-body';
import { acknowledgeInputSchema, findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

/** Acknowledges the finding: `{ "reason": "...", "expiresAt": "2026-12-08T00:00:00Z" }`. */
export async function PUT(request: Request, context: Context) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = findingPathSchema.parse(await context.params);
    const input = acknowledgeInputSchema.parse(await readJsonBody(request));
    const result = await acknowledgeFinding(await getDb(), id, input);
    await audit(request, principal, { action: 'finding.acknowledge', target: `finding ${id}` });
    return Response.json(result);
  } catch (err) {
    return toErrorResponse(err);
  }
}

export async function DELETE(request: Request, context: Context) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = findingPathSchema.parse(await context.params);
    const result = await clearAcknowledgement(await getDb(), id);
    await audit(request, principal, { action: 'finding.unacknowledge', target: `finding ${id}` });
    return Response.json(result);
  } catch (err) {
    return toErrorResponse(err);
  }
}
