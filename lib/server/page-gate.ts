import type { IncomingMessage } from 'node:http';
import { authenticateRequest } from '../auth/principal';

// What a browser or a new host may load before signing in: the sign-in page and what it is built from (the tab's icon
// too), and the agent's public downloads (install.sh, the bundle, its checksum). The API answers 401 itself.
const OPEN_PREFIXES = ['/login', '/_next/', '/api/', '/favicon', '/icon.svg', '/metrics', '/install.sh', '/agent/'];

/**
 * Where a page request without a principal is sent (the sign-in page, remembering where it was going), or null when
 * the request may go on. Pages render data on the server, so they are gated before Next sees them.
 */
export async function signInRedirect(req: IncomingMessage): Promise<string | null> {
  const url = req.url ?? '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') return null;
  if (OPEN_PREFIXES.some((prefix) => url.startsWith(prefix))) return null;
  const headers = new Headers();
  for (const name of ['cookie', 'host', 'authorization']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  const principal = await authenticateRequest(new Request(`http://localhost${url}`, { headers })).catch(() => null);
  return principal ? null : `/login?next=${encodeURIComponent(url)}`;
}
