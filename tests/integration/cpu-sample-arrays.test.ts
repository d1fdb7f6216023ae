import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { applyMigrations, readMigrations } from '../../lib/db/migrate';
import { poolSql, type Sql } from '../../lib/db/sql';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// The migration that turned per-CPU rows into one row of arrays per report must carry a database's rows over.
const ARRAYS_MIGRATION = '20261203000000_cpu_sample_arrays';
const DAY_MS = 86_400_000;

let testDb: TestDatabase;
let pool: pg.Pool;
let sql: Sql;

beforeAll(async () => {
  testDb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: testDb.url, max: 2 });
  sql = poolSql(pool);
});
afterAll(async () => {
  await pool?.end();
  await testDb?.drop();
});

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

test('per-CPU rows written before the arrays migration read back the same through the cpu_samples view', async () => {
  const migrations = readMigrations();
  const before = migrations.filter((m) => m.name < ARRAYS_MIGRATION);
  expect(before.length).toBe(migrations.findIndex((m) => m.name === ARRAYS_MIGRATION));
  await applyMigrations(sql, before);
  const now = Date.now();
  await sql.query('SELECT inferwatch_ensure_partitions($1::date, $2::date)', [day(now - DAY_MS), day(now)]);
  const yesterday = new Date(now - DAY_MS);
  const today = new Date(now);
  // Inserted out of CPU order: the arrays hold CPUs in ascending order.
  const oldRows: [number, Date, number, number][] = [[1, yesterday, 1, 12.5], [1, yesterday, 0, 2.25], [2, today, 0, 40]];
  for (const [hostId, ts, cpu, steal] of oldRows) {
    await sql.query('INSERT INTO cpu_samples VALUES ($1, $2, $3, 1, 2, 3, 4, 5, 6, $4, 7)', [hostId, ts, cpu, steal]);
  }

  await applyMigrations(sql, migrations);

  const arrays = await sql.query<{ host_id: number; cpu: number[]; steal_pct: number[]; user_pct: number[] }>(
    'SELECT host_id, cpu, steal_pct, user_pct FROM cpu_sample_arrays ORDER BY host_id');
  expect(arrays).toEqual([
    { host_id: 1, cpu: [0, 1], steal_pct: [2.25, 12.5], user_pct: [1, 1] },
    { host_id: 2, cpu: [0], steal_pct: [40], user_pct: [1] },
  ]);
  const viewed = await sql.query<{ host_id: number; ts: Date; cpu: number; steal_pct: number; idle_pct: number }>(
    'SELECT host_id, ts, cpu, steal_pct, idle_pct FROM cpu_samples ORDER BY host_id, cpu');
  expect(viewed).toEqual([
    { host_id: 1, ts: yesterday, cpu: 0, steal_pct: 2.25, idle_pct: 7 },
    { host_id: 1, ts: yesterday, cpu: 1, steal_pct: 12.5, idle_pct: 7 },
    { host_id: 2, ts: today, cpu: 0, steal_pct: 40, idle_pct: 7 },
  ]);
  // The rows moved into partitions of the new table, and new days get partitions of it.
  const [moved] = await sql.query<{ name: string | null }>('SELECT to_regclass($1)::text AS name', [
    `cpu_sample_arrays_p${day(now - DAY_MS).replaceAll('-', '')}`,
  ]);
  expect(moved!.name).not.toBeNull();
  await sql.query('SELECT inferwatch_ensure_partitions($1::date, $1::date)', [day(now + DAY_MS)]);
  const [next] = await sql.query<{ name: string | null }>('SELECT to_regclass($1)::text AS name', [
    `cpu_sample_arrays_p${day(now + DAY_MS).replaceAll('-', '')}`,
  ]);
  expect(next!.name).not.toBeNull();
});
