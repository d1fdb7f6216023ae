import { revokeApiToken } from '@/lib/auth/api-tokens';
import { audit, requireRole } from '@/lib/auth/principal';
import { signedInUser } from '@/lib/auth/signed-in-user';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { idParamSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';

/** Revokes one of the signed-in user's tokens; it stops working at once. */
export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const db = await getDb();
    const principal = await requireRole(request, 'viewer');
    const user = await signedInUser(db, principal);
    const { id } = idParamSchema.parse(await context.params);
    const result = await revokeApiToken(db, user.id, id);
    await audit(request, principal, { action: 'api-token.revoke', target: `API token ${id} (${result.name})` });
    return Response.json(result, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
