import { audit, requireRole } from '@/lib/auth/principal';
import { acknowledgeAlert, clearAcknowledgement } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { acknowledgeAlertInputSchema, idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Context = { params: Promise<{ id: string }> };

/** Acknowledges an unresolved alert: `{ "by": "oncall", "comment": "..." }`. */
export async function PUT(request: Request, context: Context) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = idPathSchema.parse(await context.params);
    const input = acknowledgeAlertInputSchema.parse(await readJsonBody(request));
    const result = await acknowledgeAlert(await getDb(), id, input);
    await audit(request, principal, { action: 'alert.acknowledge', target: `alert ${id}` });
    return Response.json(result);
  } catch (err) {
    return toErrorResponse(err);
  }
}

export async function DELETE(request: Request, context: Context) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = idPathSchema.parse(await context.params);
    const result = await clearAcknowledgement(await getDb(), id);
    await audit(request, principal, { action: 'alert.unacknowledge', target: `alert ${id}` });
    return Response.json(result);
  } catch (err) {
    return toErrorResponse(err);
  }
}
