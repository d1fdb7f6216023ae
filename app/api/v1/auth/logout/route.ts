import { clientAddress, secureCookies } from '@/lib/auth/principal';
import { SESSION_COOKIE, cookieValue, sessionCookie } from '@/lib/auth/sessions';
import { signOut } from '@/lib/auth/sign-out';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';

export const dynamic = 'force-dynamic';

/** Ends this browser's session on the server (audited) and clears its cookie. */
export async function POST(request: Request) {
  try {
    await signOut(await getDb(), cookieValue(request.headers.get('cookie'), SESSION_COOKIE), clientAddress(request));
    return new Response(null, { status: 204, headers: { 'Set-Cookie': sessionCookie(null, secureCookies(request)), 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
