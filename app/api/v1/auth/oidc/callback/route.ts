import { clearFlowCookie, finishSignIn } from '@/lib/auth/oidc';
import { clientAddress, secureCookies } from '@/lib/auth/principal';
import { sessionCookie } from '@/lib/auth/sessions';
import { getDb } from '@/lib/db';
// eslint-disable-next-line no-restricted-imports -- a browser's refusal is a redirect, not an envelope: not a route()
import { NotFoundError, toErrorEnvelope, toErrorResponse } from '@/lib/errors';
import { noStore } from '@/lib/http/no-store';
import { serverEnvironment } from '@/lib/server/environment';
import { processSecretKey } from '@/lib/server/process-secret-box';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * The provider's answer: checked against this browser's flow cookie, then a session cookie and a redirect to `next`;
 * a refusal redirects a browser to /login?sso_error=… and answers anyone else the error envelope (so not a route()).
 */
export async function GET(request: Request) {
  const secure = secureCookies(request);
  try {
    const env = serverEnvironment();
    if (!env.oidc) throw new NotFoundError('single sign-on is not configured here (INFERWATCH_OIDC_ISSUER)');
    const client = { ip: clientAddress(request), userAgent: request.headers.get('user-agent') ?? '' };
    const { session, next } = await finishSignIn(await getDb(), env.oidc, request, { publicUrl: env.publicUrl, secretKey: processSecretKey(), client });
    const headers = new Headers({ Location: next });
    headers.append('Set-Cookie', sessionCookie(session, secure));
    headers.append('Set-Cookie', clearFlowCookie(secure));
    return noStore(new Response(null, { status: 303, headers }));
  } catch (err) {
    // A browser (it arrived here from the provider) goes back to the sign-in page, which shows why; a script gets JSON.
    if (request.headers.get('accept')?.includes('text/html')) {
      const message = toErrorEnvelope(err).body.error.message;
      const headers = new Headers({ Location: `/login?sso_error=${encodeURIComponent(message)}` });
      headers.append('Set-Cookie', clearFlowCookie(secure));
      return noStore(new Response(null, { status: 303, headers }));
    }
    const response = noStore(toErrorResponse(err));
    response.headers.append('Set-Cookie', clearFlowCookie(secure));
    return response;
  }
}
