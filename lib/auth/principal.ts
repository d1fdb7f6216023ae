import 'server-only';
import { getDb, type Database } from '../db';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { clientAddressOf } from '../http/client-address';
import type { PrincipalKind, PrincipalView } from '../protocol/auth';
import { isLoopbackHost } from '../protocol/loopback';
import { processSetting } from '../process-singleton';
import { isAdminCliToken } from './admin-cli-token';
import { authenticateApiToken } from './api-tokens';
import { recordAudit, type AuditEvent } from './audit';
import { withArticle } from '../protocol/article';
import { hasRole, type Role } from '../protocol/roles';
import { SESSION_COOKIE, cookieValue, readSession } from './sessions';
import { bearerToken, constantTimeEqual } from './tokens';

/** Who a request acts as. */
export interface Principal extends PrincipalView {
  kind: PrincipalKind;
  /** The user behind a session or an API token; null for the bootstrap token and local sign-in. */
  userId: number | null;
}

/** What the server's environment decides about who a request acts as (README.md, Configuration). */
export interface AuthSettings {
  /** The address the server listens on (HOST): local sign-in needs it to be loopback. */
  host: string;
  /** INFERWATCH_LOCAL_SIGN_IN. */
  localSignIn: boolean;
  /** INFERWATCH_ADMIN_TOKEN; undefined: none. */
  adminToken: string | undefined;
  /** INFERWATCH_PUBLIC_URL: its origin may write too, and https there makes cookies Secure. */
  publicUrl: string | undefined;
}

export const processAuthSetting = processSetting<AuthSettings>('auth');

/** A Host header's name: `host:port` without its port (a bracketed IPv6 literal keeps its colons). */
const hostName = (hostHeader: string) => (hostHeader.startsWith('[') ? hostHeader : hostHeader.split(':')[0]!);

/**
 * Local sign-in: a server that listens on loopback only (HOST, 127.0.0.1 by default) serves whoever can reach it as
 * the local admin, as the embedded `npm start` does, unless INFERWATCH_LOCAL_SIGN_IN=off. A request whose Host header
 * is not a loopback name (a DNS-rebinding page) never gets it.
 */
export function localSignInActive(request?: Request): boolean {
  const env = processAuthSetting.get();
  if (!env.localSignIn || !isLoopbackHost(env.host)) return false;
  const host = request?.headers.get('host');
  return host === null || host === undefined || isLoopbackHost(hostName(host));
}

const LOCAL: Principal = { kind: 'local', userId: null, name: 'local admin (loopback)', email: null, role: 'admin' };
const BOOTSTRAP: Principal = { kind: 'bootstrap', userId: null, name: 'bootstrap admin token', email: null, role: 'admin' };
const ADMIN_CLI: Principal = { kind: 'bootstrap', userId: null, name: "npm run admin (on the server's machine)", email: null, role: 'admin' };

/** Who the request acts as, or null for nobody; a presented token that is not valid is refused, never ignored. */
export async function authenticateRequest(request: Request, database?: Database): Promise<Principal | null> {
  const token = bearerToken(request.headers.get('authorization'));
  if (token) {
    const db = database ?? (await getDb());
    const api = await authenticateApiToken(db, token);
    if (api) return { kind: 'token', userId: api.user.id, name: `${api.user.email} (API token)`, email: api.user.email, role: api.role };
    const bootstrap = processAuthSetting.get().adminToken;
    if (bootstrap && constantTimeEqual(token, bootstrap)) return BOOTSTRAP;
    if (isAdminCliToken(token)) return ADMIN_CLI;
    throw new UnauthorizedError('invalid, expired or revoked token');
  }
  const cookie = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
  if (cookie) {
    const user = await readSession(database ?? (await getDb()), cookie);
    if (user) return { kind: 'user', userId: user.id, name: user.name || user.email, email: user.email, role: user.role };
  }
  return localSignInActive(request) ? LOCAL : null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A browser's write must come from this origin: browsers send Origin on every cross-site write (and Referer when a
 * privacy setting drops Origin), so a page elsewhere cannot ride on the session cookie or local sign-in. Scripts
 * authenticate with a token and are not checked.
 */
function checkSameOrigin(request: Request): void {
  const origin = request.headers.get('origin') ?? refererOrigin(request.headers.get('referer'));
  if (origin === null) return;
  const host = request.headers.get('host') ?? new URL(request.url).host;
  const allowed = new Set([`http://${host}`, `https://${host}`]);
  const publicUrl = processAuthSetting.get().publicUrl;
  if (publicUrl) allowed.add(new URL(publicUrl).origin);
  if (!allowed.has(origin)) throw new ForbiddenError(`cross-site request refused: ${origin} is not this server's origin`);
}

function refererOrigin(referer: string | null): string | null {
  if (!referer || !URL.canParse(referer)) return null;
  return new URL(referer).origin;
}

/** The principal, when it holds `role`: 401 for nobody, 403 for too small a role or a cross-site browser write. */
export async function requireRole(request: Request, role: Role, database?: Database): Promise<Principal> {
  const principal = await authenticateRequest(request, database);
  if (!principal) throw new UnauthorizedError('sign in, or send an API token (Authorization: Bearer iwt_…)');
  if (!SAFE_METHODS.has(request.method) && (principal.kind === 'user' || principal.kind === 'local')) checkSameOrigin(request);
  if (!hasRole(principal.role, role)) throw new ForbiddenError(`this needs the ${role} role; ${principal.name} is ${withArticle(principal.role)}`);
  return principal;
}

/** The address the request came from (the socket's, as server.ts stamps it), for the audit log and the sign-in limit. */
export const clientAddress = (request: Request): string => clientAddressOf(request.headers);

/** Cookies carry Secure when the browser reached us over HTTPS (directly, or through a proxy that says so). */
export function secureCookies(request: Request): boolean {
  const publicUrl = processAuthSetting.get().publicUrl;
  return (
    request.headers.get('x-forwarded-proto') === 'https' || new URL(request.url).protocol === 'https:' || (publicUrl !== undefined && publicUrl.startsWith('https:'))
  );
}

/** Records a write that succeeded: who did it, what to what, and from where. */
export async function audit(request: Request, principal: Principal, event: AuditEvent): Promise<void> {
  await recordAudit(await getDb(), principal, clientAddress(request), event);
}
