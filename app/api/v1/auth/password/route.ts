import { changeOwnPassword } from '@/lib/auth/change-password';
import { processLoginLimiter } from '@/lib/auth/login-limiter';
import { audit, clientAddress, requireRole } from '@/lib/auth/principal';
import { SESSION_COOKIE, cookieValue } from '@/lib/auth/sessions';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { passwordChangeInputSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** `{ currentPassword, newPassword }` → 204: the signed-in user's new password; their other sessions end, this one stays. */
export async function POST(request: Request) {
  try {
    const principal = await requireRole(request, 'viewer');
    const input = passwordChangeInputSchema.parse(await readJsonBody(request, 4096));
    const client = { ip: clientAddress(request), sessionCookie: cookieValue(request.headers.get('cookie'), SESSION_COOKIE) };
    const changed = await changeOwnPassword(await getDb(), processLoginLimiter(), principal, input, client);
    await audit(request, principal, { action: 'user.change-password', target: `user ${changed.userId} (${changed.email})`, detail: { otherSessionsEnded: changed.otherSessionsEnded } });
    return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
