import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { applyMigrations, readMigrations } from '../../lib/db/migrate';
import { poolSql, type Sql } from '../../lib/db/sql';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// The migration that narrowed raw histogram counts to int4 must keep every stored histogram as it was.
const INT4_MIGRATION = '20261204000000_latency_counts_int4';
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

test('histograms written before the int4 migration read back the same, in partitions of both days', async () => {
  const migrations = readMigrations();
  const before = migrations.filter((m) => m.name < INT4_MIGRATION);
  expect(before.length).toBe(migrations.findIndex((m) => m.name === INT4_MIGRATION));
  await applyMigrations(sql, before);
  const now = Date.now();
  await sql.query('SELECT inferwatch_ensure_partitions($1::date, $2::date)', [day(now - DAY_MS), day(now)]);
  const rows = [
    { host_id: 1, ts: new Date(now - DAY_MS), keys: [-3, 0, 200], counts: [1, 2_147_483_647, 5] },
    { host_id: 2, ts: new Date(now), keys: [], counts: [] },
  ];
  for (const r of rows) {
    const count = r.counts.reduce((a, b) => a + b, 0);
    await sql.query(
      `INSERT INTO latency_samples (host_id, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
       VALUES ($1, $2, 'inference.request', '{}', $3, 1, 1, 1, 0, $4::int2[], $5::int8[])`,
      [r.host_id, r.ts, count, r.keys, r.counts]);
  }

  await applyMigrations(sql, migrations);

  const [type] = await sql.query<{ type: string }>(
    "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'latency_samples'::regclass AND attname = 'counts'");
  expect(type!.type).toBe('integer[]');
  const after = await sql.query<{ host_id: number; ts: Date; keys: number[]; counts: number[] }>(
    'SELECT host_id, ts, keys, counts FROM latency_samples ORDER BY host_id');
  expect(after).toEqual(rows);
});
