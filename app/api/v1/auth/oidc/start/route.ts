import { startSignIn } from '@/lib/auth/oidc';
import { secureCookies } from '@/lib/auth/principal';
import { NotFoundError } from '@/lib/errors';
import { route } from '@/lib/http/route';
import { serverEnvironment } from '@/lib/server/environment';
import { processSecretKey } from '@/lib/server/process-secret-box';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** `?next=/path` → a redirect to the OpenID provider (code flow with PKCE, state and nonce kept in a sealed cookie). */
export const GET = route({
  handle: async ({ request }) => {
    const env = serverEnvironment();
    if (!env.oidc) throw new NotFoundError('single sign-on is not configured here (INFERWATCH_OIDC_ISSUER)');
    const next = new URL(request.url).searchParams.get('next');
    const { url, cookie } = await startSignIn(env.oidc, request, { publicUrl: env.publicUrl, secretKey: processSecretKey(), next, secure: secureCookies(request) });
    return new Response(null, { status: 302, headers: { Location: url.href, 'Set-Cookie': cookie } });
  },
});
