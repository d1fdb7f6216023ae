import { authenticateRequest, localSignInActive } from '@/lib/auth/principal';
import { route } from '@/lib/http/route';
import { serverEnvironment } from '@/lib/server/environment';
import type { SessionInfo } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';

/** Who this request acts as (null for nobody), and how one signs in here (loopback, SSO). */
export const GET = route({
  handle: async ({ request }): Promise<SessionInfo> => {
    const principal = await authenticateRequest(request);
    return {
      principal: principal && { kind: principal.kind, name: principal.name, email: principal.email, role: principal.role },
      localSignIn: localSignInActive(request),
      sso: serverEnvironment().oidc !== undefined,
    };
  },
});
