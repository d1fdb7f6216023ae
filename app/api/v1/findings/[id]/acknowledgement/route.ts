import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { acknowledgeFinding, clearAcknowledgement } from '@/lib/findings/read/list-findings';
import { readJsonBody } from '@/lib/http/json-body';
import { acknowledgeInputSchema, findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

/** Acknowledges the finding: `{ "reason": "...", "expiresAt": "2026-12-08T00:00:00Z" }`. Admin token. */
export async function PUT(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = findingPathSchema.parse(await context.params);
    const input = acknowledgeInputSchema.parse(await readJsonBody(request));
    return Response.json(await acknowledgeFinding(await getDb(), id, input));
  } catch (err) {
    return toErrorResponse(err);
  }
}

export async function DELETE(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = findingPathSchema.parse(await context.params);
    return Response.json(await clearAcknowledgement(await getDb(), id));
  } catch (err) {
    return toErrorResponse(err);
  }
}
