import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { createUser, upsertOidcUser } from '../../lib/auth/users';
import { CLIENT_ADDRESS_HEADER } from '../../lib/http/client-address';
import type { AuditEntryView } from '../../lib/protocol/auth';
import { createServerDatabase, type TestDatabase } from './ingest-helpers';

// What people expect of their accounts, through the real route handlers and PostgreSQL with local sign-in off:
// changing one's own password, sign-in throttling that never locks an office out, and what the audit log records.
const ORIGIN = 'http://iw.example:3000';
const PASSWORD = 'a long enough passphrase';
const NEW_PASSWORD = 'another long passphrase';

type Handler = (request: Request) => Promise<Response>;

let t: TestDatabase;
const routes = {} as { login: Handler; logout: Handler; password: Handler; fleet: Handler; audit: Handler; enroll: Handler; users: Handler };

function request(path: string, init: { method?: string; cookie?: string; token?: string; body?: unknown; ip?: string } = {}): Request {
  const headers: Record<string, string> = { host: 'iw.example:3000', [CLIENT_ADDRESS_HEADER]: init.ip ?? '192.0.2.7' };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const method = init.method ?? 'GET';
  if (method !== 'GET') headers.origin = ORIGIN;
  return new Request(`${ORIGIN}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

const login = (email: string, password: string, ip = '192.0.2.7') => routes.login(request('/api/v1/auth/login', { method: 'POST', ip, body: { email, password } }));

async function signIn(email: string, password = PASSWORD, ip = '192.0.2.7'): Promise<string> {
  const response = await login(email, password, ip);
  expect(response.status, await response.clone().text()).toBe(204);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

const changePassword = (cookie: string, body: unknown, ip = '192.0.2.7') => routes.password(request('/api/v1/auth/password', { method: 'POST', cookie, body, ip }));

async function auditEntries(action: string): Promise<AuditEntryView[]> {
  const admin = await signIn('root@example.com');
  const { entries } = (await (await routes.audit(request('/api/v1/admin/audit?limit=1000', { cookie: admin }))).json()) as { entries: AuditEntryView[] };
  return entries.filter((e) => e.action === action);
}

beforeAll(async () => {
  t = await createServerDatabase();
  process.env.DATABASE_URL = t.url;
  process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
  routes.login = (await import('../../app/api/v1/auth/login/route')).POST;
  routes.logout = (await import('../../app/api/v1/auth/logout/route')).POST;
  routes.password = (await import('../../app/api/v1/auth/password/route')).POST;
  routes.fleet = (await import('../../app/api/v1/fleet/route')).GET as Handler;
  routes.audit = (await import('../../app/api/v1/admin/audit/route')).GET;
  routes.enroll = (await import('../../app/api/v1/enroll/route')).POST;
  routes.users = (await import('../../app/api/v1/admin/users/route')).GET;
  await createUser(t.db, { email: 'root@example.com', name: 'Root', role: 'admin', password: PASSWORD });
});

afterAll(async () => {
  const { closeDb } = await import('../../lib/db');
  await closeDb();
  delete process.env.INFERWATCH_LOCAL_SIGN_IN;
  await t?.drop();
});

describe('changing your own password', () => {
  test('with the current password: the new one signs in, the old one not, other sessions end and this one stays, audited', async () => {
    await createUser(t.db, { email: 'pat@example.com', name: 'Pat', role: 'viewer', password: PASSWORD });
    const laptop = await signIn('pat@example.com');
    const phone = await signIn('pat@example.com');
    const changed = await changePassword(laptop, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed.status, await changed.clone().text()).toBe(204);
    expect((await routes.fleet(request('/api/v1/fleet', { cookie: laptop }))).status).toBe(200);
    expect((await routes.fleet(request('/api/v1/fleet', { cookie: phone }))).status).toBe(401);
    expect((await login('pat@example.com', PASSWORD)).status).toBe(401);
    await signIn('pat@example.com', NEW_PASSWORD);
    const [entry] = await auditEntries('user.change-password');
    expect(entry).toMatchObject({ actorName: 'Pat', actorKind: 'user', target: expect.stringContaining('pat@example.com'), ip: '192.0.2.7', detail: { otherSessionsEnded: 1 } });
    expect(JSON.stringify(entry)).not.toContain(NEW_PASSWORD);
  });

  test('a wrong current password changes nothing; a new one that user creation would refuse is refused the same way', async () => {
    await createUser(t.db, { email: 'quinn@example.com', name: '', role: 'editor', password: PASSWORD });
    const session = await signIn('quinn@example.com');
    const wrong = await changePassword(session, { currentPassword: 'not my password', newPassword: NEW_PASSWORD });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('wrong_password');
    const short = await changePassword(session, { currentPassword: PASSWORD, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(await short.json()).toMatchObject({ error: { code: 'invalid_payload', details: [{ path: 'newPassword', message: 'must be at least 12 characters' }] } });
    const same = await changePassword(session, { currentPassword: PASSWORD, newPassword: PASSWORD });
    expect(same.status).toBe(400);
    await signIn('quinn@example.com', PASSWORD);
  });

  test('a refusal names the role with the right article: “is an editor”', async () => {
    const session = await signIn('quinn@example.com');
    const refused = await routes.users(request('/api/v1/admin/users', { cookie: session }));
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('this needs the admin role; quinn@example.com is an editor');
  });

  test('guessing the current password through a stolen session is throttled like sign-in', async () => {
    await createUser(t.db, { email: 'ros@example.com', name: '', role: 'viewer', password: PASSWORD });
    const session = await signIn('ros@example.com');
    for (let i = 0; i < 5; i++) expect((await changePassword(session, { currentPassword: `guess number ${i}`, newPassword: NEW_PASSWORD })).status).toBe(403);
    const limited = await changePassword(session, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('a user who signs in through SSO only is told so; an API token cannot change the password', async () => {
    const { user } = await upsertOidcUser(t.db, { issuer: 'https://idp.example', subject: 'sub-sso', email: 'sso@example.com', emailVerified: true, name: 'Sso', role: 'viewer' });
    const { createSession } = await import('../../lib/auth/sessions');
    const session = await createSession(t.db, user.id, { ip: '192.0.2.7', userAgent: 'test' });
    const sso = await changePassword(`iw_session=${session.id}`, { currentPassword: 'whatever it is', newPassword: NEW_PASSWORD });
    expect(sso.status).toBe(409);
    expect(await sso.json()).toMatchObject({ error: { code: 'sso_only', message: expect.stringContaining('identity provider') } });
  });

  test('nobody signed in gets 401', async () => {
    const response = await routes.password(request('/api/v1/auth/password', { method: 'POST', body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } }));
    expect(response.status).toBe(401);
  });
});

describe('sign-in throttling', () => {
  test('a storm of wrong passwords for one account from an address makes it wait, and says how long; another account there signs in', async () => {
    await createUser(t.db, { email: 'amy@example.com', name: '', role: 'viewer', password: PASSWORD });
    await createUser(t.db, { email: 'ben@example.com', name: '', role: 'viewer', password: PASSWORD });
    const office = '203.0.113.50';
    for (let i = 0; i < 5; i++) expect((await login('amy@example.com', `wrong guess ${i}`, office)).status).toBe(401);
    for (let i = 0; i < 30; i++) {
      const limited = await login('amy@example.com', `wrong guess ${i}`, office);
      expect(limited.status).toBe(429);
      const wait = Number(limited.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(30);
      expect(await limited.json()).toEqual({ error: { code: 'rate_limited', message: `too many failed sign-ins for this account; try again in ${wait} s` } });
    }
    // Even her right password waits; her colleague behind the same address is not held up at all.
    expect((await login('amy@example.com', PASSWORD, office)).status).toBe(429);
    await signIn('ben@example.com', PASSWORD, office);
  });
});

describe('the audit log', () => {
  test('failed sign-ins: the email tried, the address and why, never the password; a throttled storm once', async () => {
    await createUser(t.db, { email: 'cat@example.com', name: '', role: 'viewer', password: PASSWORD });
    await login('cat@example.com', 'secret guess one', '198.51.100.20');
    await login('nobody-here@example.com', 'secret guess two', '198.51.100.21');
    for (let i = 0; i < 8; i++) await login('cat@example.com', 'secret guess three', '198.51.100.22');
    const refused = await auditEntries('session.sign-in-refused');
    const mine = refused.filter((e) => e.ip.startsWith('198.51.100.2')).reverse();
    expect(mine.map((e) => [e.ip, e.actorKind, e.target, e.detail.reason])).toEqual([
      ['198.51.100.20', 'anonymous', 'sign-in as cat@example.com', 'wrong-password'],
      ['198.51.100.21', 'anonymous', 'sign-in as nobody-here@example.com', 'unknown-email'],
      ...Array.from({ length: 4 }, () => ['198.51.100.22', 'anonymous', 'sign-in as cat@example.com', 'wrong-password']),
      ['198.51.100.22', 'anonymous', 'sign-in as cat@example.com', 'throttled'],
    ]);
    expect(mine.at(-1)!.detail).toMatchObject({ email: 'cat@example.com', scope: 'account', waitS: expect.any(Number) });
    expect(JSON.stringify(refused)).not.toContain('secret guess');
  });

  test('signing out is audited as the user, from their address', async () => {
    await createUser(t.db, { email: 'dan@example.com', name: 'Dan', role: 'viewer', password: PASSWORD });
    const session = await signIn('dan@example.com');
    expect((await routes.logout(request('/api/v1/auth/logout', { method: 'POST', cookie: session, ip: '198.51.100.30' }))).status).toBe(204);
    // A cookie that is no live session signs nobody out, and says nothing.
    expect((await routes.logout(request('/api/v1/auth/logout', { method: 'POST', cookie: session, ip: '198.51.100.31' }))).status).toBe(204);
    const entries = (await auditEntries('session.sign-out')).filter((e) => e.ip.startsWith('198.51.100.3'));
    expect(entries.map((e) => [e.actorName, e.actorKind, e.ip])).toEqual([['Dan', 'user', '198.51.100.30']]);
  });

  test('a host enrolling is audited with its id and name, the key, and the address it came from; its re-enrollment too', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'oslo-gpu', region: 'oslo', labels: {} });
    const enroll = (hostToken?: string) =>
      routes.enroll(
        new Request(`${ORIGIN}/api/v1/enroll`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json', [CLIENT_ADDRESS_HEADER]: '198.51.100.40' },
          body: JSON.stringify({ hostname: 'gpu-7', machineId: 'm-7', ...(hostToken ? { hostToken } : {}) }),
        }),
      );
    const first = (await (await enroll()).json()) as { hostId: number; token: string };
    expect((await enroll(first.token)).status).toBe(200);
    const entries = [...(await auditEntries('host.enroll')), ...(await auditEntries('host.reenroll'))].filter((e) => e.ip === '198.51.100.40');
    expect(entries.map((e) => [e.action, e.actorKind, e.actorName, e.target])).toEqual([
      ['host.enroll', 'agent', `enrollment key ${key.id} (oslo-gpu)`, `host ${first.hostId} (gpu-7)`],
      ['host.reenroll', 'agent', `enrollment key ${key.id} (oslo-gpu)`, `host ${first.hostId} (gpu-7)`],
    ]);
    expect(entries[0]!.detail).toEqual({ hostId: first.hostId, hostname: 'gpu-7', region: 'oslo', keyId: key.id, keyName: 'oslo-gpu' });
    expect(JSON.stringify(entries)).not.toContain(key.key);
  });
});
