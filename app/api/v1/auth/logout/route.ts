import { clientAddress, secureCookies } from '@/lib/auth/principal';
import { SESSION_COOKIE, cookieValue, sessionCookie } from '@/lib/auth/sessions';
import { signOut } from '@/lib/auth/sign-out';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';

export const dynamic = 'force-dynamic';

/** Ends this browser's session on the server (audited) and clears its cookie. */
export const POST = route({
  handle: async ({ request }) => {
    await signOut(await getDb(), cookieValue(request.headers.get('cookie'), SESSION_COOKIE), clientAddress(request));
    return new Response(null, { status: 204, headers: { 'Set-Cookie': sessionCookie(null, secureCookies(request)) } });
  },
});
