import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { acknowledgeAlert, clearAcknowledgement } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { acknowledgeAlertInputSchema, idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Context = { params: Promise<{ id: string }> };

/** Acknowledges an unresolved alert: `{ "by": "oncall", "comment": "..." }`. Admin token. */
export async function PUT(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = idPathSchema.parse(await context.params);
    const input = acknowledgeAlertInputSchema.parse(await readJsonBody(request));
    return Response.json(await acknowledgeAlert(await getDb(), id, input));
  } catch (err) {
    return toErrorResponse(err);
  }
}

export async function DELETE(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = idPathSchema.parse(await context.params);
    return Response.json(await clearAcknowledgement(await getDb(), id));
  } catch (err) {
    return toErrorResponse(err);
  }
}
