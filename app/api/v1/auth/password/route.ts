import { changeOwnPassword } from '@/lib/auth/change-password';
import { processLoginLimiter } from '@/lib/auth/login-limiter';
import { clientAddress } from '@/lib/auth/principal';
import { SESSION_COOKIE, cookieValue } from '@/lib/auth/sessions';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { passwordChangeInputSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** `{ currentPassword, newPassword }` → 204: the signed-in user's new password; their other sessions end, this one stays. */
export const POST = route({
  role: 'viewer',
  body: passwordChangeInputSchema,
  bodyMaxBytes: 4096,
  status: 204,
  handle: async ({ request, principal, body }) => {
    const client = { ip: clientAddress(request), sessionCookie: cookieValue(request.headers.get('cookie'), SESSION_COOKIE) };
    return changeOwnPassword(await getDb(), processLoginLimiter(), principal, body, client);
  },
  audit: (_, changed) => ({ action: 'user.change-password', target: `user ${changed.userId} (${changed.email})`, detail: { otherSessionsEnded: changed.otherSessionsEnded } }),
});
