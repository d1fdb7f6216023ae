import pg from 'pg';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { applyMigrations, readMigrations } from '../../lib/db/migrate';
import { poolSql, type Sql } from '../../lib/db/sql';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { rowsOf } from '../support/rows';

// Migrations that reshape stored series (per-CPU and per-disk rows into one row of arrays per report, histogram
// counts into int4) must carry a database's rows over, and partition new days for new tables.
const DAY_MS = 86_400_000;

let testDb: TestDatabase;
let pool: pg.Pool;
let sql: Sql;

beforeEach(async () => {
  testDb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: testDb.url, max: 2 });
  sql = poolSql(pool);
});
afterEach(async () => {
  await pool?.end();
  await testDb?.drop();
});

const now = Date.now();
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const yesterday = new Date(now - DAY_MS);
const today = new Date(now);

/** Applies the migrations before `name`, with partitions for yesterday and today. */
async function migrateUpTo(name: string): Promise<void> {
  const migrations = readMigrations();
  const before = migrations.filter((m) => m.name < name);
  expect(before.length).toBe(migrations.findIndex((m) => m.name === name));
  await applyMigrations(sql, before);
  await sql.query('SELECT inferwatch_ensure_partitions($1::date, $2::date)', [day(now - DAY_MS), day(now)]);
}

async function expectPartitions(table: string): Promise<void> {
  await sql.query('SELECT inferwatch_ensure_partitions($1::date, $1::date)', [day(now + DAY_MS)]);
  for (const ms of [now - DAY_MS, now + DAY_MS]) {
    const [partition] = await rowsOf<{ name: string | null }>(sql, 'SELECT to_regclass($1)::text AS name', [
      `${table}_p${day(ms).replaceAll('-', '')}`,
    ]);
    expect(partition!.name).not.toBeNull();
  }
}

test('per-CPU rows written before the arrays migration read back the same through the cpu_samples view', async () => {
  await migrateUpTo('20261203000000_cpu_sample_arrays');
  // Inserted out of CPU order: the arrays hold CPUs in ascending order.
  const oldRows: [number, Date, number, number][] = [[1, yesterday, 1, 12.5], [1, yesterday, 0, 2.25], [2, today, 0, 40]];
  for (const [hostId, ts, cpu, steal] of oldRows) {
    await sql.query('INSERT INTO cpu_samples VALUES ($1, $2, $3, 1, 2, 3, 4, 5, 6, $4, 7)', [hostId, ts, cpu, steal]);
  }

  await applyMigrations(sql, readMigrations());

  const arrays = await rowsOf<{ host_id: number; cpu: number[]; steal_pct: number[]; user_pct: number[] }>(sql,
    'SELECT host_id, cpu, steal_pct, user_pct FROM cpu_sample_arrays ORDER BY host_id');
  expect(arrays).toEqual([
    { host_id: 1, cpu: [0, 1], steal_pct: [2.25, 12.5], user_pct: [1, 1] },
    { host_id: 2, cpu: [0], steal_pct: [40], user_pct: [1] },
  ]);
  const viewed = await rowsOf<{ host_id: number; ts: Date; cpu: number; steal_pct: number; idle_pct: number }>(sql,
    'SELECT host_id, ts, cpu, steal_pct, idle_pct FROM cpu_samples ORDER BY host_id, cpu');
  expect(viewed).toEqual([
    { host_id: 1, ts: yesterday, cpu: 0, steal_pct: 2.25, idle_pct: 7 },
    { host_id: 1, ts: yesterday, cpu: 1, steal_pct: 12.5, idle_pct: 7 },
    { host_id: 2, ts: today, cpu: 0, steal_pct: 40, idle_pct: 7 },
  ]);
  await expectPartitions('cpu_sample_arrays');
});

test('per-disk rows written before the arrays migration read back the same through the disk_samples view', async () => {
  await migrateUpTo('20261205000000_disk_sample_arrays');
  // Inserted out of device order: the arrays hold devices in sorted order.
  const oldRows: [number, Date, string, number][] = [[1, yesterday, 'vdb', 12.5], [1, yesterday, 'nvme0n1', 2.25], [2, today, 'sda', 40]];
  for (const [hostId, ts, device, util] of oldRows) {
    await sql.query('INSERT INTO disk_samples VALUES ($1, $2, $3, 1, 2, 3e10, 4, 5, 6, 0.5, 3, $4)', [hostId, ts, device, util]);
  }

  await applyMigrations(sql, readMigrations());

  const arrays = await rowsOf<{ host_id: number; device: string[]; util_pct: number[]; read_bytes_per_s: number[] }>(sql,
    'SELECT host_id, device, util_pct, read_bytes_per_s FROM disk_sample_arrays ORDER BY host_id');
  expect(arrays).toEqual([
    { host_id: 1, device: ['nvme0n1', 'vdb'], util_pct: [2.25, 12.5], read_bytes_per_s: [3e10, 3e10] },
    { host_id: 2, device: ['sda'], util_pct: [40], read_bytes_per_s: [3e10] },
  ]);
  const viewed = await sql.query('SELECT * FROM disk_samples ORDER BY host_id, device');
  const row = (hostId: number, ts: Date, device: string, util: number) => ({
    host_id: hostId, ts, device, read_iops: 1, write_iops: 2, read_bytes_per_s: 3e10, write_bytes_per_s: 4,
    read_await_ms: 5, write_await_ms: 6, queue_depth: 0.5, in_flight: 3, util_pct: util,
  });
  expect(viewed).toEqual([row(1, yesterday, 'nvme0n1', 2.25), row(1, yesterday, 'vdb', 12.5), row(2, today, 'sda', 40)]);
  await expectPartitions('disk_sample_arrays');
});

test('histograms written before the int4 migration read back the same, in partitions of both days', async () => {
  await migrateUpTo('20261204000000_latency_counts_int4');
  const rows = [
    { host_id: 1, ts: yesterday, keys: [-3, 0, 200], counts: [1, 2_147_483_647, 5] },
    { host_id: 2, ts: today, keys: [], counts: [] },
  ];
  for (const r of rows) {
    await sql.query(
      `INSERT INTO latency_samples (host_id, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
       VALUES ($1, $2, 'inference.request', '{}', $3, 1, 1, 1, 0, $4::int2[], $5::int8[])`,
      [r.host_id, r.ts, r.counts.reduce((a, b) => a + b, 0), r.keys, r.counts]);
  }

  await applyMigrations(sql, readMigrations());

  const [type] = await rowsOf<{ type: string }>(sql,
    "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'latency_samples'::regclass AND attname = 'counts'");
  expect(type!.type).toBe('integer[]');
  expect(await sql.query('SELECT host_id, ts, keys, counts FROM latency_samples ORDER BY host_id')).toEqual(rows);
});
