import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import { requireEnrollmentKey, enrollHost } from '../../lib/auth/enroll-host';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { closeDb, getDb } from '../../lib/db';
import { DAY_MS } from '../../lib/protocol/time';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { enrolledHost, jsonBody } from './ingest-helpers';

// Before: the range cap held only with both ends given, reads had no statement timeout, and ingest wrote through the
// pool every read and engine shared, so a few slow reads made it wait for a connection.
const READ_TIMEOUT_MS = 500;
const POOL = 2;
let testDb: TestDatabase;

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  process.env.INFERWATCH_READ_TIMEOUT_MS = String(READ_TIMEOUT_MS);
  process.env.INFERWATCH_DB_POOL_SIZE = String(POOL);
  process.env.INFERWATCH_DB_READ_POOL_SIZE = String(POOL);
});

afterAll(async () => {
  await closeDb();
  for (const name of ['INFERWATCH_READ_TIMEOUT_MS', 'INFERWATCH_DB_POOL_SIZE', 'INFERWATCH_DB_READ_POOL_SIZE']) delete process.env[name];
  await testDb?.drop();
});

const get = async (path: string) => {
  const url = new URL(path, 'http://localhost');
  const routes: Record<string, () => Promise<{ GET: (request: Request) => Promise<Response> }>> = {
    '/api/v1/compare': () => import('../../app/api/v1/compare/route'),
    '/api/v1/fleet': () => import('../../app/api/v1/fleet/route'),
    '/api/v1/latency': () => import('../../app/api/v1/latency/route'),
  };
  const { GET } = await routes[url.pathname]!();
  return GET(new Request(url));
};

describe('read API cost', () => {
  test('the compare query from the issue (`from=0`, no `to`) is refused with 400 instead of reading since 1970', async () => {
    const answer = await get('/api/v1/compare?metric=latency_p99&latency=inference.request&from=0');
    expect(answer.status).toBe(400);
    const { error } = (await answer.json()) as { error: { details: { path: string; message: string }[] } };
    expect(error.details).toEqual([{ path: 'from', message: 'range must be at most 400 days (to is now when not given)' }]);
    expect((await get('/api/v1/latency?name=inference.request&from=0')).status).toBe(400);
  });

  test('a region\'s hosts times the range are held to the host-days budget once the region is matched', async () => {
    const db = await getDb();
    const key = await requireEnrollmentKey(db, (await createEnrollmentKey(db, { name: 'big', region: 'big', labels: {} })).key);
    for (let i = 0; i < 130; i++) await enrollHost(db, key, { hostname: `big-${i}`, machineId: `machine-big-${i}` });
    const daysAgo = (days: number) => String(Date.now() - days * DAY_MS);
    const refused = await get(`/api/v1/compare?metric=cpu_steal&region=big&from=${daysAgo(390)}`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'the region matches 130 hosts over 390 days: 50700 host-days, more than 50000; narrow the range or the hosts',
    );
    expect((await get(`/api/v1/compare?metric=cpu_steal&region=big&from=${daysAgo(300)}`)).status).toBe(200);
  });

  test('a read statement that runs past INFERWATCH_READ_TIMEOUT_MS is cancelled and answers 503', async () => {
    const db = await getDb();
    // Another session holds the hosts table: the fleet read waits for it until its statement times out.
    const blocker = new pg.Client({ connectionString: testDb.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE hosts IN ACCESS EXCLUSIVE MODE');
      const started = performance.now();
      const answer = await get('/api/v1/fleet');
      const elapsedMs = performance.now() - started;
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).not.toBeNull();
      expect(elapsedMs).toBeGreaterThanOrEqual(READ_TIMEOUT_MS * 0.9);
      expect(elapsedMs).toBeLessThan(READ_TIMEOUT_MS * 6);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    // Engines and writes (the main pool) have no such timeout.
    expect(await db.sql.query(`SELECT true AS slept FROM pg_sleep(${(READ_TIMEOUT_MS * 1.5) / 1000})`)).toEqual([{ slept: true }]);
    expect((await get('/api/v1/fleet')).status).toBe(200);
  });

  test('with every read and main connection busy, ingest still authenticates and stores at once on its own connections', async () => {
    const db = await getDb();
    const deps: IngestDeps = createIngestDeps(db);
    try {
      const host = await enrolledHost(db);
      const busyMs = 3_000;
      let busyDone = false;
      const busy = Promise.all([
        ...Array.from({ length: POOL }, () => db.sql.query(`SELECT pg_sleep(${busyMs / 1000})`)),
        ...Array.from({ length: POOL }, () => db.readSql.query(`SELECT pg_sleep(${READ_TIMEOUT_MS / 1000 - 0.05})`).catch(() => null)),
        ...Array.from({ length: POOL }, () => db.readSql.query(`SELECT pg_sleep(${READ_TIMEOUT_MS / 1000 - 0.05})`).catch(() => null)),
      ]).then(() => {
        busyDone = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = performance.now();
      const out = await ingestRequest({ authorization: `Bearer ${host.token}`, contentType: 'application/json', ...jsonBody(realisticReport(1, Date.now() - 60_000)) }, deps);
      expect(out.status).toBe(200);
      expect(busyDone).toBe(false);
      expect(performance.now() - started).toBeLessThan(busyMs / 2);
      await busy;
    } finally {
      await deps.writer.close();
    }
  });
});
