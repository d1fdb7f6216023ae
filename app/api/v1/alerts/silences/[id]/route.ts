import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { expireSilence } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Expires the silence now; it stays listed as history. Admin token. */
export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = idPathSchema.parse(await context.params);
    return Response.json(await expireSilence(await getDb(), id));
  } catch (err) {
    return toErrorResponse(err);
  }
}
