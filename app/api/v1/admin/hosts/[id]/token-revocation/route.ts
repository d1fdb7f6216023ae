import { audit, requireRole } from '@/lib/auth/principal';
import { revokeHostToken } from '@/lib/auth/authenticate-host';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { hostPathSchema } from '@/lib/protocol/read-api/host';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Stops the host's token (a stolen token, a decommissioned machine); it stays revoked until a re-enrollment is approved. */
export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const principal = await requireRole(request, 'admin');
    const { id } = hostPathSchema.parse(await context.params);
    await revokeHostToken(await getDb(), id);
    await audit(request, principal, { action: 'host.revoke-token', target: `host ${id}` });
    return new Response(null, { status: 204 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
