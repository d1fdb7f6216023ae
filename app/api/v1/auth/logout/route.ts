import { secureCookies } from '@/lib/auth/principal';
import { SESSION_COOKIE, cookieValue, revokeSession, sessionCookie } from '@/lib/auth/sessions';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';

export const dynamic = 'force-dynamic';

/** Ends this browser's session on the server and clears its cookie. */
export async function POST(request: Request) {
  try {
    await revokeSession(await getDb(), cookieValue(request.headers.get('cookie'), SESSION_COOKIE));
    return new Response(null, { status: 204, headers: { 'Set-Cookie': sessionCookie(null, secureCookies(request)), 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
