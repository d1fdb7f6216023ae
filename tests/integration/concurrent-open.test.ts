import { afterAll, describe, expect, test } from 'vitest';
import { openDatabase, type Database } from '../../lib/db/open';
import { ensurePartitions } from '../../lib/db/partitions';
import { DAY_MS } from '../../lib/protocol/time';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { rowsOf } from '../support/rows';

// Replicas start together (a deploy, a restart of the whole service): each opens the database, applies the migrations
// and creates partitions. Three handles are three sets of sessions, as three processes would be.
const PROCESSES = 3;

const created: TestDatabase[] = [];
const opened: Database[] = [];

afterAll(async () => {
  for (const db of opened) await db.close();
  for (const database of created) await database.drop();
});

describe('processes opening one PostgreSQL database at once', () => {
  test('all start on a fresh database: one applies the migrations, the others wait for it', async () => {
    const database = await createTestDatabase('iw_concurrent_open');
    created.push(database);
    const results = await Promise.allSettled(Array.from({ length: PROCESSES }, () => openDatabase({ kind: 'server', url: database.url })));
    for (const result of results) if (result.status === 'fulfilled') opened.push(result.value);
    expect(results.map((r) => (r.status === 'fulfilled' ? 'opened' : String(r.reason)))).toEqual(Array(PROCESSES).fill('opened'));
    const [row] = await rowsOf<{ n: number }>(opened[0]!.sql, 'SELECT count(*)::int AS n FROM _prisma_migrations');
    expect(row!.n).toBeGreaterThan(0);
  });

  test('all create the same missing partitions at once without failing, and each partition exists once', async () => {
    const handles = opened.slice(-PROCESSES);
    const day = new Date(Date.now() + 30 * DAY_MS);
    const results = await Promise.allSettled(handles.map((db) => ensurePartitions(db.sql, day, 0, 2)));
    expect(results.map((r) => r.status)).toEqual(Array(PROCESSES).fill('fulfilled'));
    const createdCounts = results.map((r) => (r.status === 'fulfilled' ? r.value : -1));
    expect(createdCounts.filter((n) => n > 0)).toHaveLength(1);
    const suffix = day.toISOString().slice(0, 10).replaceAll('-', '');
    const [row] = await rowsOf<{ n: number }>(handles[0]!.sql, `SELECT count(*)::int AS n FROM pg_class WHERE relname = $1`, [`host_samples_p${suffix}`]);
    expect(row!.n).toBe(1);
  });
});
