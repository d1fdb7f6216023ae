import { afterAll, beforeAll, expect, test } from 'vitest';
import { CLIENT_ADDRESS_HEADER } from '../../lib/http/client-address';
import type { CreatedUser } from '../../lib/protocol/auth';
import { createServerDatabase, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

// The first user, made from Settings by the local admin (a server listening on loopback only): no CLI needed.
type Handler = (request: Request) => Promise<Response>;
let t: TestDatabase;
let routes: { users: Handler; login: Handler };

const post = (path: string, body: unknown, host = '127.0.0.1:3000') =>
  new Request(`http://${host}${path}`, {
    method: 'POST',
    headers: { host, origin: `http://${host}`, 'content-type': 'application/json', [CLIENT_ADDRESS_HEADER]: '127.0.0.1' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  t = await createServerDatabase();
  process.env.DATABASE_URL = t.url;
  delete process.env.INFERWATCH_LOCAL_SIGN_IN;
  delete process.env.HOST;
  routes = { users: (await import('../../app/api/v1/admin/users/route')).POST, login: (await import('../../app/api/v1/auth/login/route')).POST };
});

afterAll(async () => {
  const { closeDb } = await import('../../lib/db');
  await closeDb();
  await t?.drop();
});

test('the local admin creates the first admin with a generated password, answered once, that signs in', async () => {
  const created = await routes.users(post('/api/v1/admin/users', { email: 'first@example.com', role: 'admin', generatePassword: true }));
  expect(created.status, await created.clone().text()).toBe(201);
  const user = (await created.json()) as CreatedUser;
  expect(user).toMatchObject({ email: 'first@example.com', role: 'admin', password: true });
  expect(user.generatedPassword).toMatch(/^[\w-]{24}$/);
  const signedIn = await routes.login(post('/api/v1/auth/login', { email: 'first@example.com', password: user.generatedPassword }));
  expect(signedIn.status).toBe(204);
  const [row] = await rowsOf<{ detail: unknown }>(t.db.sql, "SELECT detail FROM audit_log WHERE action = 'user.create'");
  expect(JSON.stringify(row)).not.toContain(user.generatedPassword!);
});

test('a password and a request to generate one together are refused; without either no password is answered', async () => {
  const both = await routes.users(post('/api/v1/admin/users', { email: 'both@example.com', role: 'viewer', password: 'a long enough passphrase', generatePassword: true }));
  expect(both.status).toBe(400);
  const sso = (await (await routes.users(post('/api/v1/admin/users', { email: 'sso@example.com', role: 'viewer' }))).json()) as CreatedUser;
  expect(sso).toMatchObject({ password: false });
  expect(sso).not.toHaveProperty('generatedPassword');
});

test('a page on another name than loopback is not the local admin and creates nobody', async () => {
  const rebound = await routes.users(post('/api/v1/admin/users', { email: 'evil@example.com', role: 'admin', generatePassword: true }, 'evil.example:3000'));
  expect(rebound.status).toBe(401);
});
