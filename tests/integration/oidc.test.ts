import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUser } from '../../lib/auth/users';
import { CLIENT_ADDRESS_HEADER } from '../../lib/http/client-address';
import type { SessionInfo } from '../../lib/protocol/auth';
import { LOGIN_FIELD } from '../support/oidc-login-page';
import { startOidcProvider, type OidcAccount, type RunningOidcProvider } from '../support/oidc-provider';
import { createServerDatabase, type TestDatabase } from './ingest-helpers';

// Single sign-on end to end against a real, certified OpenID provider (panva's oidc-provider) running in this
// process on loopback: the start and callback route handlers, the provider's own authorization, interaction, token,
// JWKS and userinfo endpoints over HTTP, and PostgreSQL. The test plays a browser with a cookie jar and manual
// redirects, and the person who submits the provider's login form with the account it chooses.
const ORIGIN = 'http://iw.example:3000';
const CLIENT_ID = 'inferwatch';
const CLIENT_SECRET = 'a test client secret, long enough';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- route modules type their context params per route
type Handler = (request: Request, context?: any) => Promise<Response>;

/** The provider's directory: the test changes it between sign-ins as an IdP admin would. */
const accounts = new Map<string, OidcAccount>([
  ['sub-ada', { email: 'ada@example.com', name: 'Ada', groups: ['ops-admins', 'staff'] }],
  ['sub-bob', { email: 'bob@example.com', name: 'Bob', groups: ['ops'] }],
  ['sub-eve', { email: 'eve@example.com', name: 'Eve', groups: ['sales'] }],
  ['sub-cy', { email: 'Cy@Example.com', name: 'Cy', groups: ['ops'] }],
]);

let t: TestDatabase;
let provider: RunningOidcProvider;
let issuer: string;
const routes = {} as { start: Handler; callback: Handler; session: Handler };

/** A browser's cookies, per origin (paths ignored: sending a few extra cookies to the same server is harmless). */
class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();
  store(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const jar = this.cookies.get(origin) ?? new Map<string, string>();
    this.cookies.set(origin, jar);
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      if (/max-age=0\b/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, pair!.slice(eq + 1).trim());
    }
  }
  header(url: string): string {
    return [...(this.cookies.get(new URL(url).origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  get(url: string, name: string): string | undefined {
    return this.cookies.get(new URL(url).origin)?.get(name);
  }
}

/** A request to the app's route handlers, as the custom server hands it over. */
function appRequest(url: string, jar: CookieJar): Request {
  return new Request(url, { headers: { host: new URL(url).host, [CLIENT_ADDRESS_HEADER]: '192.0.2.9', 'user-agent': 'vitest', cookie: jar.header(url) } });
}

/** The person at the provider's login page: types the account id into its form and submits it. */
async function submitLoginPage(pageUrl: string, page: Response, jar: CookieJar, account: string): Promise<Response> {
  const action = /<form method="post" action="([^"]+)"/.exec(await page.text())?.[1];
  expect(action, 'the login page has a form').toBeDefined();
  const url = new URL(action!, pageUrl).href;
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: jar.header(url), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ [LOGIN_FIELD]: account }),
  });
}

/** Start → the provider (authorization, login page, resume) → the URL the provider sends the browser back to. */
async function toProviderAndBack(jar: CookieJar, next: string, account: string): Promise<{ callbackUrl: string; authorizeUrl: URL }> {
  const start = await routes.start(appRequest(`${ORIGIN}/api/v1/auth/oidc/start?next=${encodeURIComponent(next)}`, jar));
  expect(start.status).toBe(302);
  jar.store(ORIGIN, start);
  const authorizeUrl = new URL(start.headers.get('location')!);
  let location = authorizeUrl.href;
  for (let hop = 0; hop < 10 && !location.startsWith(ORIGIN); hop++) {
    let response = await fetch(location, { redirect: 'manual', headers: { cookie: jar.header(location) } });
    jar.store(location, response);
    if (response.status === 200 && new URL(location).pathname.startsWith('/interaction/')) {
      response = await submitLoginPage(location, response, jar, account);
      jar.store(location, response);
    }
    expect([302, 303], `${location} answered ${response.status}: ${await response.clone().text()}`).toContain(response.status);
    location = new URL(response.headers.get('location')!, location).href;
  }
  expect(location.startsWith(`${ORIGIN}/api/v1/auth/oidc/callback?`)).toBe(true);
  return { callbackUrl: location, authorizeUrl };
}

async function signIn(account: string, next = '/hosts/7'): Promise<{ response: Response; jar: CookieJar; authorizeUrl: URL }> {
  const jar = new CookieJar();
  const { callbackUrl, authorizeUrl } = await toProviderAndBack(jar, next, account);
  const response = await routes.callback(appRequest(callbackUrl, jar));
  jar.store(ORIGIN, response);
  return { response, jar, authorizeUrl };
}

async function sessionOf(jar: CookieJar): Promise<SessionInfo> {
  return (await (await routes.session(appRequest(`${ORIGIN}/api/v1/auth/session`, jar))).json()) as SessionInfo;
}

beforeAll(async () => {
  t = await createServerDatabase();
  provider = await startOidcProvider({
    clients: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: `${ORIGIN}/api/v1/auth/oidc/callback` }],
    accounts,
  });
  issuer = provider.issuer;
  process.env.DATABASE_URL = t.url;
  process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
  process.env.INFERWATCH_SECRET_KEY = 'cd'.repeat(32);
  process.env.INFERWATCH_OIDC_ISSUER = issuer;
  process.env.INFERWATCH_OIDC_CLIENT_ID = CLIENT_ID;
  process.env.INFERWATCH_OIDC_CLIENT_SECRET = CLIENT_SECRET;
  process.env.INFERWATCH_OIDC_ROLES = 'ops-admins=admin,ops=editor';
  routes.start = (await import('../../app/api/v1/auth/oidc/start/route')).GET;
  routes.callback = (await import('../../app/api/v1/auth/oidc/callback/route')).GET;
  routes.session = (await import('../../app/api/v1/auth/session/route')).GET;
});

afterAll(async () => {
  const { closeDb } = await import('../../lib/db');
  await closeDb();
  for (const name of ['INFERWATCH_LOCAL_SIGN_IN', 'INFERWATCH_SECRET_KEY', 'INFERWATCH_OIDC_ISSUER', 'INFERWATCH_OIDC_CLIENT_ID', 'INFERWATCH_OIDC_CLIENT_SECRET', 'INFERWATCH_OIDC_ROLES']) {
    delete process.env[name];
  }
  await provider?.close();
  await t?.drop();
});

describe('single sign-on with OpenID Connect', () => {
  test('the session says SSO is on; start asks the provider for a code with PKCE (S256), state and nonce', async () => {
    expect(await sessionOf(new CookieJar())).toEqual({ principal: null, localSignIn: false, sso: true });
    const jar = new CookieJar();
    const start = await routes.start(appRequest(`${ORIGIN}/api/v1/auth/oidc/start?next=/fleet`, jar));
    expect(start.status).toBe(302);
    const url = new URL(start.headers.get('location')!);
    expect(url.origin).toBe(issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: CLIENT_ID,
      response_type: 'code',
      redirect_uri: `${ORIGIN}/api/v1/auth/oidc/callback`,
      scope: 'openid email profile groups',
      code_challenge_method: 'S256',
    });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(name)).toMatch(/^[\w-]{43}$/);
    const cookie = start.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^iw_oidc=[^;]+; Max-Age=600; Path=\/api\/v1\/auth\/oidc\/callback; HttpOnly; SameSite=Lax$/);
    // Sealed: neither the state nor the verifier can be read from it.
    expect(cookie).not.toContain(url.searchParams.get('state')!);
  });

  test('a sign-in creates the user with the mapped role, a session, an audit entry, and returns to `next`', async () => {
    const { response, jar } = await signIn('sub-ada', '/hosts/7?range=1h');
    expect(response.status, await response.clone().text()).toBe(303);
    expect(response.headers.get('location')).toBe('/hosts/7?range=1h');
    expect(response.headers.getSetCookie().find((c) => c.startsWith('iw_session='))).toMatch(/^iw_session=iws_[\w-]+; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(jar.get(ORIGIN, 'iw_oidc')).toBeUndefined();
    expect((await sessionOf(jar)).principal).toEqual({ kind: 'user', name: 'Ada', email: 'ada@example.com', role: 'admin' });
    const users = await t.db.prisma.user.findMany({ where: { email: 'ada@example.com' } });
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ role: 'admin', name: 'Ada', oidcIssuer: issuer, oidcSubject: 'sub-ada', passwordHash: null });
    const entries = await t.db.prisma.auditEntry.findMany({ where: { actorId: users[0]!.id }, orderBy: { id: 'asc' } });
    expect(entries.map((e) => [e.action, e.actorKind, e.ip, e.detail])).toEqual([
      ['session.sign-in', 'user', '192.0.2.9', { method: 'oidc', issuer, role: 'admin', created: true }],
    ]);
  });

  test('a second sign-in updates the same user (name, role from the provider) rather than adding one', async () => {
    const first = await signIn('sub-bob');
    expect(first.response.status).toBe(303);
    expect((await sessionOf(first.jar)).principal?.role).toBe('editor');
    const before = await t.db.prisma.user.findMany({ where: { oidcSubject: 'sub-bob' } });
    accounts.set('sub-bob', { email: 'bob@example.com', name: 'Bob B.', groups: ['ops', 'ops-admins'] });
    const second = await signIn('sub-bob');
    expect(second.response.status).toBe(303);
    expect((await sessionOf(second.jar)).principal).toEqual({ kind: 'user', name: 'Bob B.', email: 'bob@example.com', role: 'admin' });
    const after = await t.db.prisma.user.findMany({ where: { email: 'bob@example.com' } });
    expect(after.map((u) => u.id)).toEqual(before.map((u) => u.id));
    expect(after[0]).toMatchObject({ name: 'Bob B.', role: 'admin' });
    const entries = await t.db.prisma.auditEntry.findMany({ where: { actorId: after[0]!.id, action: 'session.sign-in' } });
    expect(entries.map((e) => (e.detail as { created: boolean }).created)).toEqual([true, false]);
  });

  test('an answer whose state is not this browser’s is refused, and signs nobody in', async () => {
    const jar = new CookieJar();
    const { callbackUrl } = await toProviderAndBack(jar, '/', 'sub-ada');
    const forged = new URL(callbackUrl);
    forged.searchParams.set('state', 'not-the-state-this-browser-was-given-at-start');
    const response = await routes.callback(appRequest(forged.href, jar));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/state mismatch/);
    expect(response.headers.getSetCookie().some((c) => c.startsWith('iw_session='))).toBe(false);
    // Nor does a callback without the flow cookie (another browser, or the code replayed after it was cleared).
    const replay = await routes.callback(appRequest(callbackUrl, new CookieJar()));
    expect(replay.status).toBe(400);
  });

  test('a user whose groups map to no role is refused with a clear message, and not created', async () => {
    const { response, jar } = await signIn('sub-eve');
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'eve@example.com has no role here: no value of its "groups" claim is in INFERWATCH_OIDC_ROLES',
    );
    expect((await sessionOf(jar)).principal).toBeNull();
    expect(await t.db.prisma.user.count({ where: { email: 'eve@example.com' } })).toBe(0);
    // A browser is sent back to the sign-in page, which shows the same message.
    const browser = new CookieJar();
    const { callbackUrl } = await toProviderAndBack(browser, '/', 'sub-eve');
    const request = appRequest(callbackUrl, browser);
    request.headers.set('accept', 'text/html,application/xhtml+xml');
    const refused = await routes.callback(request);
    expect(refused.status).toBe(303);
    expect(new URL(refused.headers.get('location')!, ORIGIN).searchParams.get('sso_error')).toMatch(/^eve@example.com has no role here/);
    expect(refused.headers.getSetCookie()).toEqual([expect.stringMatching(/^iw_oidc=; Max-Age=0/)]);
  });

  test('a user an admin created for SSO (no password) is linked by the verified email, not duplicated', async () => {
    const made = await createUser(t.db, { email: 'cy@example.com', name: '', role: 'viewer' });
    const { response, jar } = await signIn('sub-cy');
    expect(response.status).toBe(303);
    expect((await sessionOf(jar)).principal).toEqual({ kind: 'user', name: 'Cy', email: 'cy@example.com', role: 'editor' });
    const users = await t.db.prisma.user.findMany({ where: { email: 'cy@example.com' } });
    expect(users.map((u) => [u.id, u.oidcSubject])).toEqual([[made.id, 'sub-cy']]);
  });

  test('`next` is a local path only: another site falls back to /', async () => {
    const { response } = await signIn('sub-ada', '//evil.example/phish');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
  });
});
