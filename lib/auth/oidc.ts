import 'server-only';
import { hkdfSync } from 'node:crypto';
import * as client from 'openid-client';
import { SecretBox } from '../alerts/channels/secret-box';
import type { Database } from '../db';
import { AppError, BadRequestError, ForbiddenError } from '../errors';
import { recordAudit } from './audit';
import { hasRole, type Role } from '../protocol/roles';
import { createSession, cookieValue, type NewSession } from './sessions';
import { upsertOidcUser } from './users';
import { processSlot } from '../process-singleton';

/** A value of the role claim and the role it gives; `*` gives its role to whoever matches no other entry. */
export interface OidcRoleMapping {
  value: string;
  role: Role;
}

/** Single sign-on through an OpenID provider (INFERWATCH_OIDC_*). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  roleClaim: string;
  roles: OidcRoleMapping[];
}

export const CALLBACK_PATH = '/api/v1/auth/oidc/callback';
const FLOW_COOKIE = 'iw_oidc';
/** The time a person has at the provider between start and callback. */
const FLOW_MAX_AGE_S = 600;
const SCOPES = ['openid', 'email', 'profile'];

/** The standard scopes, and the role claim's own scope where the provider has one (Okta's and Keycloak's `groups`). */
function scopeFor(config: client.Configuration, roleClaim: string): string {
  const supported = config.serverMetadata().scopes_supported ?? [];
  return [...SCOPES, ...(supported.includes(roleClaim) && !SCOPES.includes(roleClaim) ? [roleClaim] : [])].join(' ');
}

/** Where to go after signing in: a path on this server only, never another site (an open redirect). */
export function localPath(next: string | null | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** The redirect URI registered at the provider: INFERWATCH_PUBLIC_URL's origin and path, else the request's origin. */
export function redirectUri(request: Request, publicUrl: string | undefined): URL {
  const base = publicUrl ? publicUrl.replace(/\/+$/, '') : new URL(request.url).origin;
  return new URL(`${base}${CALLBACK_PATH}`);
}

// ---- the provider's configuration: discovered once per process (and again after a failure or a changed setting)

const discovered = processSlot<{ key: string; config: Promise<client.Configuration> }>('oidc-configuration');

function providerConfiguration(settings: OidcSettings): Promise<client.Configuration> {
  const key = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret]);
  if (discovered.get()?.key !== key) {
    const issuer = new URL(settings.issuer);
    // The environment schema allows http:// only for a provider on loopback (a development or test provider).
    const options = issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined;
    // client_secret_basic: the method every provider must support (RFC 6749 §2.3.1) and oidc-provider's default.
    const config = client.discovery(issuer, settings.clientId, settings.clientSecret, client.ClientSecretBasic(settings.clientSecret), options);
    discovered.set({ key, config });
    config.catch(() => {
      if (discovered.get()?.config === config) discovered.set(undefined);
    });
  }
  return discovered.get()!.config.catch((err: unknown) => {
    throw new AppError(502, 'sso_unavailable', `the OpenID provider at ${settings.issuer} could not be reached or described itself wrongly: ${(err as Error).message}`);
  });
}

// ---- the flow cookie

/**
 * What the callback must check lives in a short-lived cookie rather than a table: state, nonce, PKCE verifier and
 * where to go next, sealed (AES-256-GCM) with a key derived from the server's secret key, so it needs no schema,
 * survives a restart and works across processes that share the key, and the browser can neither read the verifier
 * nor change `next`. HttpOnly; SameSite=Lax so it comes back on the provider's top-level redirect; its Path is the
 * callback's only; it expires with the flow and the callback clears it, so a code is exchanged at most once.
 */
interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  expiresAt: number;
}

/** Seals the flow cookie with a key derived from the server's secret key (INFERWATCH_SECRET_KEY or its key file). */
function flowBox(secretKey: Buffer): SecretBox {
  return new SecretBox(Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'inferwatch oidc sign-in flow', 32)));
}

function flowCookie(value: string | null, secure: boolean): string {
  const attributes = [`Path=${CALLBACK_PATH}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  return [`${FLOW_COOKIE}=${value ?? ''}`, `Max-Age=${value ? FLOW_MAX_AGE_S : 0}`, ...attributes].join('; ');
}

/** Clears the flow cookie, on success and on refusal alike. */
export const clearFlowCookie = (secure: boolean) => flowCookie(null, secure);

function readFlow(request: Request, secretKey: Buffer, now: number): Flow {
  const sealed = cookieValue(request.headers.get('cookie'), FLOW_COOKIE);
  if (!sealed) throw new BadRequestError('no sign-in is under way in this browser (cookies off, or it took over 10 minutes): start again');
  let flow: Flow;
  try {
    flow = JSON.parse(flowBox(secretKey).open(decodeURIComponent(sealed))) as Flow;
  } catch {
    throw new BadRequestError('the sign-in cookie is not one this server made: start again');
  }
  if (flow.expiresAt <= now) throw new BadRequestError('the sign-in took over 10 minutes: start again');
  return flow;
}

// ---- start and callback

/** The provider's authorization URL (code flow, PKCE S256, state, nonce) and the flow cookie to set. */
export async function startSignIn(settings: OidcSettings, request: Request, options: { publicUrl: string | undefined; secretKey: Buffer; next: string | null; secure: boolean }, now = Date.now()) {
  const config = await providerConfiguration(settings);
  const verifier = client.randomPKCECodeVerifier();
  const flow: Flow = { state: client.randomState(), nonce: client.randomNonce(), verifier, next: localPath(options.next), expiresAt: now + FLOW_MAX_AGE_S * 1000 };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(request, options.publicUrl).href,
    scope: scopeFor(config, settings.roleClaim),
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: flow.state,
    nonce: flow.nonce,
  });
  return { url, cookie: flowCookie(encodeURIComponent(flowBox(options.secretKey).seal(JSON.stringify(flow))), options.secure) };
}

/** The role a claim's values map to: the highest any value maps to, else `*`'s, else none. */
export function mapRole(claim: unknown, mappings: OidcRoleMapping[]): Role | null {
  const values = Array.isArray(claim) ? claim.filter((v): v is string => typeof v === 'string') : typeof claim === 'string' ? [claim] : [];
  let best: Role | null = null;
  for (const { value, role } of mappings) {
    if (value !== '*' && values.includes(value) && (best === null || hasRole(role, best))) best = role;
  }
  return best ?? mappings.find((m) => m.value === '*')?.role ?? null;
}

export interface SignedIn {
  session: NewSession;
  next: string;
}

/**
 * The callback: the state against this browser's flow, the code exchanged with its PKCE verifier, the ID token's
 * signature, issuer, audience, expiry and nonce checked (openid-client), the role mapped, the user upserted by
 * (issuer, subject), a session made and the sign-in audited.
 */
export async function finishSignIn(
  db: Database,
  settings: OidcSettings,
  request: Request,
  options: { publicUrl: string | undefined; secretKey: Buffer; client: { ip: string; userAgent: string } },
  now = Date.now(),
): Promise<SignedIn> {
  const flow = readFlow(request, options.secretKey, now);
  const params = new URL(request.url).searchParams;
  if (params.get('state') !== flow.state) throw new BadRequestError('the sign-in answer is not for this browser’s sign-in (state mismatch): start again');
  if (params.has('error')) throw new ForbiddenError(`the OpenID provider refused the sign-in: ${params.get('error_description') ?? params.get('error')}`);
  const config = await providerConfiguration(settings);
  // The URL the provider redirected to, as registered (behind a proxy request.url may name another origin).
  const current = redirectUri(request, options.publicUrl);
  current.search = params.toString();
  let claims: Record<string, unknown>;
  try {
    const tokens = await client.authorizationCodeGrant(config, current, { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true });
    claims = { ...tokens.claims() };
    // Providers that keep profile claims out of the ID token (oidc-provider does by default) give them at userinfo.
    if (typeof claims.email !== 'string' || !(settings.roleClaim in claims)) {
      Object.assign(claims, await client.fetchUserInfo(config, tokens.access_token, String(claims.sub)), { ...tokens.claims() });
    }
  } catch (err) {
    throw new AppError(502, 'sso_failed', `the sign-in with the OpenID provider failed: ${(err as Error).message}`);
  }
  const email = typeof claims.email === 'string' ? claims.email : '';
  if (!email) throw new ForbiddenError('the OpenID provider gave no email for this account; inferwatch needs one (the email scope)');
  const role = mapRole(claims[settings.roleClaim], settings.roles);
  if (!role) throw new ForbiddenError(`${email} has no role here: no value of its "${settings.roleClaim}" claim is in INFERWATCH_OIDC_ROLES`);
  const name = typeof claims.name === 'string' ? claims.name : '';
  const { user, created } = await upsertOidcUser(db, {
    issuer: String(claims.iss),
    subject: String(claims.sub),
    email,
    emailVerified: claims.email_verified === true,
    name,
    role,
  });
  if (user.disabled) throw new ForbiddenError(`${user.email} is disabled here`);
  const session = await createSession(db, user.id, options.client, new Date(now));
  await recordAudit(db, { kind: 'user', userId: user.id, name: user.name || user.email }, options.client.ip, {
    action: 'session.sign-in',
    target: `user ${user.id}`,
    detail: { method: 'oidc', issuer: settings.issuer, role, created },
  });
  return { session, next: flow.next };
}
