import { processLoginLimiter } from '@/lib/auth/login-limiter';
import { clientAddress, secureCookies } from '@/lib/auth/principal';
import { sessionCookie } from '@/lib/auth/sessions';
import { signInWithPassword } from '@/lib/auth/sign-in';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { loginInputSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** `{ email, password }` → a session cookie (HttpOnly, SameSite=Lax, Secure behind HTTPS); 401 for any mismatch. */
export async function POST(request: Request) {
  try {
    const input = loginInputSchema.parse(await readJsonBody(request, 4096));
    const client = { ip: clientAddress(request), userAgent: request.headers.get('user-agent') ?? '' };
    const session = await signInWithPassword(await getDb(), processLoginLimiter(), input.email, input.password, client);
    return new Response(null, { status: 204, headers: { 'Set-Cookie': sessionCookie(session, secureCookies(request)), 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
