import { audit, requireRole } from '@/lib/auth/principal';
import { expireSilence } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Expires the silence now; it stays listed as history. */
export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = idPathSchema.parse(await context.params);
    const result = await expireSilence(await getDb(), id);
    await audit(request, principal, { action: 'silence.expire', target: `silence ${id}` });
    return Response.json(result);
  } catch (err) {
    return toErrorResponse(err);
  }
}
