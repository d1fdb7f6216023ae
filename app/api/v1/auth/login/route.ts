import { processLoginLimiter } from '@/lib/auth/login-limiter';
import { clientAddress, secureCookies } from '@/lib/auth/principal';
import { sessionCookie } from '@/lib/auth/sessions';
import { signInWithPassword } from '@/lib/auth/sign-in';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { loginInputSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** `{ email, password }` → a session cookie (HttpOnly, SameSite=Lax, Secure behind HTTPS); 401 for any mismatch. */
export const POST = route({
  body: loginInputSchema,
  bodyMaxBytes: 4096,
  handle: async ({ request, body }) => {
    const client = { ip: clientAddress(request), userAgent: request.headers.get('user-agent') ?? '' };
    const session = await signInWithPassword(await getDb(), processLoginLimiter(), body.email, body.password, client);
    return new Response(null, { status: 204, headers: { 'Set-Cookie': sessionCookie(session, secureCookies(request)) } });
  },
});
