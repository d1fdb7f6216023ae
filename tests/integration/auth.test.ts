import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUser } from '../../lib/auth/users';
import { CLIENT_ADDRESS_HEADER } from '../../lib/http/client-address';
import type { ApiTokenView, CreatedApiToken, SessionInfo, UserView } from '../../lib/protocol/auth';
import { createServerDatabase, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

// Accounts, sessions, roles, API tokens and the audit log through the real route handlers and PostgreSQL, with local
// sign-in off: the server as it runs when it listens beyond loopback.
const ORIGIN = 'http://iw.example:3000';
const PASSWORD = 'a long enough passphrase';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- route modules type their context params per route
type Handler = (request: Request, context?: any) => Promise<Response>;

let t: TestDatabase;
const routes = {} as {
  login: Handler;
  logout: Handler;
  session: Handler;
  tokens: { GET: Handler; POST: Handler };
  token: { DELETE: Handler };
  users: { GET: Handler; POST: Handler };
  user: { PATCH: Handler };
  audit: Handler;
  fleet: Handler;
  rules: { POST: Handler };
};

function request(path: string, init: { method?: string; cookie?: string; token?: string; body?: unknown; origin?: string | null; ip?: string } = {}): Request {
  const headers: Record<string, string> = { host: 'iw.example:3000', [CLIENT_ADDRESS_HEADER]: init.ip ?? '192.0.2.7' };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const method = init.method ?? 'GET';
  if (method !== 'GET' && init.origin !== null) headers.origin = init.origin ?? ORIGIN;
  return new Request(`${ORIGIN}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

const params = (p: Record<string, string>) => ({ params: Promise.resolve(p) });

async function signIn(email: string, password = PASSWORD): Promise<string> {
  const response = await routes.login(request('/api/v1/auth/login', { method: 'POST', body: { email, password } }));
  expect(response.status).toBe(204);
  const cookie = response.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^iw_session=iws_[\w-]+; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
  return cookie.split(';')[0]!;
}

const rule = (id: string) => ({ id, title: id, severity: 'info', spec: { metric: { kind: 'series', series: 'cpu_iowait' }, windowMs: 60_000, threshold: 50, clearThreshold: 40 } });

beforeAll(async () => {
  t = await createServerDatabase();
  process.env.DATABASE_URL = t.url;
  process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
  process.env.INFERWATCH_ADMIN_TOKEN = 'bootstrap-secret';
  routes.login = (await import('../../app/api/v1/auth/login/route')).POST;
  routes.logout = (await import('../../app/api/v1/auth/logout/route')).POST;
  routes.session = (await import('../../app/api/v1/auth/session/route')).GET;
  routes.tokens = await import('../../app/api/v1/auth/tokens/route');
  routes.token = (await import('../../app/api/v1/auth/tokens/[id]/route')) as typeof routes.token;
  routes.users = await import('../../app/api/v1/admin/users/route');
  routes.user = (await import('../../app/api/v1/admin/users/[id]/route')) as typeof routes.user;
  routes.audit = (await import('../../app/api/v1/admin/audit/route')).GET;
  routes.fleet = (await import('../../app/api/v1/fleet/route')).GET as Handler;
  routes.rules = await import('../../app/api/v1/alerts/rules/route');
  await createUser(t.db, { email: 'ada@example.com', name: 'Ada', role: 'admin', password: PASSWORD });
});

afterAll(async () => {
  const { closeDb } = await import('../../lib/db');
  await closeDb();
  delete process.env.INFERWATCH_LOCAL_SIGN_IN;
  delete process.env.INFERWATCH_ADMIN_TOKEN;
  await t?.drop();
});

describe('accounts and roles', () => {
  let admin: string;
  let viewerId: number;

  test('without a session or token every read answers 401; a wrong token is refused, not ignored', async () => {
    expect((await routes.fleet(request('/api/v1/fleet'))).status).toBe(401);
    expect((await routes.fleet(request('/api/v1/fleet', { token: 'iwt_nope' }))).status).toBe(401);
    const session = (await (await routes.session(request('/api/v1/auth/session'))).json()) as SessionInfo;
    expect(session).toEqual({ principal: null, localSignIn: false, sso: false });
  });

  test('a password signs in: the session says who, a wrong one says nothing about which part was wrong', async () => {
    const wrong = await routes.login(request('/api/v1/auth/login', { method: 'POST', body: { email: 'ada@example.com', password: 'not it at all' } }));
    const unknown = await routes.login(request('/api/v1/auth/login', { method: 'POST', body: { email: 'nobody@example.com', password: PASSWORD } }));
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(await wrong.json()).toEqual(await unknown.json());
    admin = await signIn('ADA@example.com');
    const session = (await (await routes.session(request('/api/v1/auth/session', { cookie: admin }))).json()) as SessionInfo;
    expect(session.principal).toEqual({ kind: 'user', name: 'Ada', email: 'ada@example.com', role: 'admin' });
    expect((await routes.fleet(request('/api/v1/fleet', { cookie: admin }))).status).toBe(200);
  });

  test('an admin creates a viewer; the viewer reads but cannot write, and cannot administer', async () => {
    const created = await routes.users.POST(request('/api/v1/admin/users', { method: 'POST', cookie: admin, body: { email: 'vic@example.com', role: 'viewer', password: PASSWORD } }));
    expect(created.status).toBe(201);
    viewerId = ((await created.json()) as UserView).id;
    const viewer = await signIn('vic@example.com');
    expect((await routes.fleet(request('/api/v1/fleet', { cookie: viewer }))).status).toBe(200);
    const write = await routes.rules.POST(request('/api/v1/alerts/rules', { method: 'POST', cookie: viewer, body: rule('viewer-rule') }));
    expect(write.status).toBe(403);
    expect((await routes.users.GET(request('/api/v1/admin/users', { cookie: viewer }))).status).toBe(403);
  });

  test('a write from another site is refused even with a valid session cookie; from this origin it is done and audited', async () => {
    const crossSite = await routes.rules.POST(request('/api/v1/alerts/rules', { method: 'POST', cookie: admin, origin: 'https://evil.example', body: rule('csrf-rule') }));
    expect(crossSite.status).toBe(403);
    const done = await routes.rules.POST(request('/api/v1/alerts/rules', { method: 'POST', cookie: admin, body: rule('ada-rule') }));
    expect(done.status).toBe(201);
    const { entries } = (await (await routes.audit(request('/api/v1/admin/audit', { cookie: admin }))).json()) as { entries: { actorName: string; action: string; target: string; ip: string }[] };
    expect(entries[0]).toMatchObject({ actorName: 'Ada', action: 'alert-rule.create', target: 'alert rule ada-rule', ip: '192.0.2.7' });
    expect(entries.map((e) => e.action)).not.toContain('csrf-rule');
  });

  test('API tokens: shown once, hashed, acting with at most the user’s role, revoked at once', async () => {
    const viewer = await signIn('vic@example.com');
    const tooMuch = await routes.tokens.POST(request('/api/v1/auth/tokens', { method: 'POST', cookie: viewer, body: { name: 'grafana', role: 'admin' } }));
    expect(tooMuch.status).toBe(403);
    const created = (await (await routes.tokens.POST(request('/api/v1/auth/tokens', { method: 'POST', cookie: viewer, body: { name: 'grafana' } }))).json()) as CreatedApiToken;
    expect(created.token).toMatch(/^iwt_[\w-]{43}$/);
    expect(created.role).toBe('viewer');
    const stored = await rowsOf<{ token_hash: string }>(t.db.sql, 'SELECT token_hash FROM api_tokens WHERE id = $1', [created.id]);
    expect(stored[0]!.token_hash).not.toContain(created.token.slice(4));
    const listed = (await (await routes.tokens.GET(request('/api/v1/auth/tokens', { cookie: viewer }))).json()) as { tokens: ApiTokenView[] };
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect((await routes.fleet(request('/api/v1/fleet', { token: created.token }))).status).toBe(200);
    // A token cannot mint tokens, and writes with a token need no Origin (scripts send none).
    expect((await routes.tokens.POST(request('/api/v1/auth/tokens', { method: 'POST', token: created.token, body: { name: 'more' } }))).status).toBe(403);
    expect((await routes.token.DELETE(request(`/api/v1/auth/tokens/${created.id}`, { method: 'DELETE', cookie: viewer }), params({ id: String(created.id) }))).status).toBe(200);
    expect((await routes.fleet(request('/api/v1/fleet', { token: created.token }))).status).toBe(401);
  });

  test('the bootstrap token acts as admin for scripts, audited as such', async () => {
    const done = await routes.rules.POST(request('/api/v1/alerts/rules', { method: 'POST', token: 'bootstrap-secret', origin: null, body: rule('script-rule') }));
    expect(done.status).toBe(201);
    const { entries } = (await (await routes.audit(request('/api/v1/admin/audit', { cookie: admin }))).json()) as { entries: { actorName: string; action: string }[] };
    expect(entries[0]).toMatchObject({ actorName: 'bootstrap admin token', action: 'alert-rule.create' });
  });

  test('demoting or disabling a user ends their sessions; the last admin cannot be demoted', async () => {
    const viewer = await signIn('vic@example.com');
    const disabled = await routes.user.PATCH(request(`/api/v1/admin/users/${viewerId}`, { method: 'PATCH', cookie: admin, body: { disabled: true } }), params({ id: String(viewerId) }));
    expect(disabled.status).toBe(200);
    expect((await routes.fleet(request('/api/v1/fleet', { cookie: viewer }))).status).toBe(401);
    const again = await routes.login(request('/api/v1/auth/login', { method: 'POST', body: { email: 'vic@example.com', password: PASSWORD } }));
    expect(again.status).toBe(401);
    const { users } = (await (await routes.users.GET(request('/api/v1/admin/users', { cookie: admin }))).json()) as { users: UserView[] };
    const ada = users.find((u) => u.email === 'ada@example.com')!;
    const demote = await routes.user.PATCH(request(`/api/v1/admin/users/${ada.id}`, { method: 'PATCH', cookie: admin, body: { role: 'viewer' } }), params({ id: String(ada.id) }));
    expect(demote.status).toBe(409);
  });

  test('signing out ends the session on the server, not only in the browser', async () => {
    const session = await signIn('ada@example.com');
    const out = await routes.logout(request('/api/v1/auth/logout', { method: 'POST', cookie: session }));
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^iw_session=; Max-Age=0/);
    expect((await routes.fleet(request('/api/v1/fleet', { cookie: session }))).status).toBe(401);
  });

  test('five wrong passwords for an email refuse the next try, even the right one, for a while', async () => {
    await createUser(t.db, { email: 'rae@example.com', name: '', role: 'viewer', password: PASSWORD });
    const login = (password: string, ip: string) => routes.login(request('/api/v1/auth/login', { method: 'POST', ip, body: { email: 'rae@example.com', password } }));
    // From five addresses, so it is the email's count that refuses.
    for (let i = 0; i < 5; i++) expect((await login(`wrong guess ${i}`, `198.51.100.${i}`)).status).toBe(401);
    const limited = await login(PASSWORD, '198.51.100.99');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
