import { authenticateRequest, localSignInActive } from '@/lib/auth/principal';
import { toErrorResponse } from '@/lib/errors';
import { serverEnvironment } from '@/lib/server/environment';
import type { SessionInfo } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';

/** Who this request acts as (null for nobody), and how one signs in here (loopback, SSO). */
export async function GET(request: Request) {
  try {
    const principal = await authenticateRequest(request);
    const body: SessionInfo = {
      principal: principal && { kind: principal.kind, name: principal.name, email: principal.email, role: principal.role },
      localSignIn: localSignInActive(request),
      sso: serverEnvironment().oidc !== undefined,
    };
    return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
