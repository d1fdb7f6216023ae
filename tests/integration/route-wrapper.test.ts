import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { createApiToken } from '../../lib/auth/api-tokens';
import { listAudit } from '../../lib/auth/audit';
import { createUser, findUserById } from '../../lib/auth/users';
import { closeDb, getDb } from '../../lib/db';
import { route } from '../../lib/http/route';
import { freePort } from '../support/free-port';
import { createServerDatabase, type TestDatabase } from './ingest-helpers';

// route() against the real principal checks, audit log and PostgreSQL errors, with local sign-in off.
const ADMIN = 'bootstrap-secret';
let t: TestDatabase;
let viewerToken: string;

function request(path: string, init: { token?: string; method?: string; body?: string } = {}): Request {
  const headers: Record<string, string> = { host: 'iw.example:3000' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  return new Request(`http://iw.example:3000${path}`, { method: init.method ?? 'GET', headers, body: init.body });
}

const params = (p: Record<string, string>) => ({ params: Promise.resolve(p) });

async function envelope(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string; details?: { path: string; message: string }[] } }).error;
}

beforeAll(async () => {
  t = await createServerDatabase();
  process.env.DATABASE_URL = t.url;
  process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
  process.env.INFERWATCH_ADMIN_TOKEN = ADMIN;
  const viewer = await createUser(t.db, { email: 'viewer@example.com', name: '', role: 'viewer' });
  viewerToken = (await createApiToken(t.db, (await findUserById(t.db, viewer.id))!, { name: 'script', role: 'viewer' })).token;
  await t.db.sql.query('CREATE TABLE wrapper_parents (id int PRIMARY KEY)');
  await t.db.sql.query('CREATE TABLE wrapper_children (parent_id int NOT NULL REFERENCES wrapper_parents (id))');
  await t.db.sql.query('INSERT INTO wrapper_parents VALUES (1)');
});
afterAll(async () => {
  delete process.env.INFERWATCH_LOCAL_SIGN_IN;
  delete process.env.INFERWATCH_ADMIN_TOKEN;
  await closeDb();
  await t?.drop();
});

describe('who may call', () => {
  let ran = 0;
  const editorsOnly = route({ role: 'editor', handle: () => ++ran });

  test('nobody signed in: 401 with the envelope and WWW-Authenticate, and the handler does not run', async () => {
    const response = await editorsOnly(request('/x'));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect((await envelope(response)).code).toBe('unauthorized');
    expect(ran).toBe(0);
  });

  test('a viewer on an editor route: 403 naming the role it needs', async () => {
    const response = await editorsOnly(request('/x', { token: viewerToken }));
    expect(response.status).toBe(403);
    expect(await envelope(response)).toEqual({ code: 'forbidden', message: 'this needs the editor role; viewer@example.com (API token) is a viewer' });
    expect(ran).toBe(0);
  });

  test('a role that includes it: the handler runs', async () => {
    const response = await editorsOnly(request('/x', { token: ADMIN }));
    expect(response.status).toBe(200);
    expect(await response.json()).toBe(1);
  });
});

describe('what it parses', () => {
  const echo = route({
    role: 'viewer',
    params: z.object({ id: z.coerce.number().int().positive() }),
    query: z.object({ limit: z.coerce.number().int().max(100).default(10) }),
    body: z.object({ name: z.string().min(1) }).optional(),
    bodyMaxBytes: 64,
    handle: ({ params: p, query, body }) => ({ id: p.id, limit: query.limit, name: body?.name ?? null }),
  });
  const reader = route({ role: 'viewer', params: z.object({ id: z.coerce.number().int().positive() }), query: z.object({ limit: z.coerce.number().int().max(100).default(10) }), handle: ({ params: p, query }) => ({ id: p.id, limit: query.limit }) });

  test('path, query and body parsed and typed by their schemas', async () => {
    const response = await echo(request('/things/7?limit=5', { token: viewerToken, method: 'POST', body: '{"name":"gpu"}' }), params({ id: '7' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 7, limit: 5, name: 'gpu' });
  });

  test.each([
    ['a query field', () => reader(request('/things/7?limit=1000', { token: viewerToken }), params({ id: '7' })), 'limit'],
    ['a path segment', () => reader(request('/things/x', { token: viewerToken }), params({ id: 'x' })), 'id'],
    ['a body field', () => echo(request('/things/7', { token: viewerToken, method: 'POST', body: '{"name":""}' }), params({ id: '7' })), 'name'],
  ])('%s out of its schema: 400 invalid_payload naming the field', async (_, call, field) => {
    const response = await call();
    expect(response.status).toBe(400);
    const error = await envelope(response);
    expect(error.code).toBe('invalid_payload');
    expect(error.message).toMatch(new RegExp(`^invalid ${field}: `));
    expect(error.details?.map((d) => d.path)).toEqual([field]);
  });

  test('a body that is not JSON: 400 invalid_json; one past bodyMaxBytes: 413', async () => {
    const notJson = await echo(request('/things/7', { token: viewerToken, method: 'POST', body: '{name' }), params({ id: '7' }));
    expect([notJson.status, (await envelope(notJson)).code]).toEqual([400, 'invalid_json']);
    const tooLarge = await echo(request('/things/7', { token: viewerToken, method: 'POST', body: JSON.stringify({ name: 'x'.repeat(100) }) }), params({ id: '7' }));
    expect([tooLarge.status, (await envelope(tooLarge)).code]).toEqual([413, 'payload_too_large']);
  });
});

describe('what a database error answers', () => {
  const failing = (statement: string) => route({ role: 'viewer', handle: async () => (await getDb()).sql.query(statement) });

  test.each([
    ['a unique violation', 'INSERT INTO wrapper_parents VALUES (1)', 409, 'conflict'],
    ['a foreign key violation', 'INSERT INTO wrapper_children VALUES (2)', 409, 'conflict'],
    ['a value PostgreSQL refuses', "SELECT 'many'::int", 400, 'invalid_payload'],
    ['a bug (no such table)', 'SELECT * FROM no_such_table', 500, 'internal'],
  ])('%s (%s): %i %s', async (_, statement, status, code) => {
    const response = await failing(statement)(request('/x', { token: viewerToken }));
    expect(response.status).toBe(status);
    expect((await envelope(response)).code).toBe(code);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  test('a database that refuses connections: 503 with Retry-After', async () => {
    const port = await freePort();
    const unreachable = route({
      role: 'viewer',
      handle: async () => {
        const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres' });
        client.on('error', () => {});
        await client.connect();
      },
    });
    const response = await unreachable(request('/x', { token: viewerToken }));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect((await envelope(response)).code).toBe('database_unavailable');
  });
});

describe('what it answers and records', () => {
  test('a creation: 201 with the result, and the audit row built from it', async () => {
    const create = route({
      role: 'editor',
      status: 201,
      handle: () => ({ id: 42, name: 'thing' }),
      audit: (_, created) => ({ action: 'thing.create', target: `thing ${created.id} (${created.name})` }),
    });
    const response = await create(request('/x', { token: ADMIN, method: 'POST' }));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: 42, name: 'thing' });
    const [entry] = await listAudit(t.db, { limit: 1 });
    expect(entry).toMatchObject({ action: 'thing.create', target: 'thing 42 (thing)', actorName: 'bootstrap admin token' });
  });

  test('a refused write records no audit row', async () => {
    const before = (await listAudit(t.db, { limit: 1000 })).length;
    const refused = route({ role: 'editor', handle: () => 1, audit: () => ({ action: 'thing.update', target: 'thing' }) });
    expect((await refused(request('/x', { token: viewerToken, method: 'POST' }))).status).toBe(403);
    expect(await listAudit(t.db, { limit: 1000 })).toHaveLength(before);
  });

  test('204 answers no body', async () => {
    const response = await route({ role: 'viewer', status: 204, handle: () => ({ ignored: true }) })(request('/x', { token: viewerToken }));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  test('no-store on every answer, unless the handler built a Response with a cache policy of its own', async () => {
    const answers = [
      await route({ handle: () => ({ ok: true }) })(request('/x')),
      await route({ handle: () => new Response('text', { status: 202 }) })(request('/x')),
      await route({ role: 'admin', handle: () => 1 })(request('/x')),
      await route({ handle: () => Promise.reject(new Error('boom')) })(request('/x')),
    ];
    expect(answers.map((r) => [r.status, r.headers.get('cache-control')])).toEqual([
      [200, 'no-store'],
      [202, 'no-store'],
      [401, 'no-store'],
      [500, 'no-store'],
    ]);
    const download = await route({ handle: () => new Response('bytes', { headers: { 'Cache-Control': 'public, no-cache' } }) })(request('/x'));
    expect(download.headers.get('cache-control')).toBe('public, no-cache');
  });

  test('a route that records an audit row must name a role: nobody would be recorded', () => {
    expect(() => route({ handle: () => 1, audit: () => ({ action: 'x', target: 'y' }) })).toThrow(/needs a role/);
  });
});
