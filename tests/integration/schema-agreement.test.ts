import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { applyMigrations } from '../../lib/db/migrate';
import { poolSql, type Sql } from '../../lib/db/sql';
import {
  GAUGE_ROLLUPS,
  MINUTE_QUANTILES,
  REPORT_LEDGER,
  TABLES,
  storedColumns,
  type ColumnType,
  type HistogramRollup,
  type SeriesTable,
} from '../../lib/series/tables';
import { diffMigrationsToSchema } from '../../prisma/schema-engine';
import { ROLLUP_1H_TABLES, ROLLUP_1M_TABLES } from '../../prisma/series-tables';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { rowsOf } from '../support/rows';

describe('prisma/schema.prisma and prisma/migrations', () => {
  test('agree: applying every migration yields exactly the schema (no diff)', async () => {
    expect(await diffMigrationsToSchema()).toBe('');
  });

  test('a model missing from the migrations shows up as a diff', async () => {
    const schema = fs.readFileSync('prisma/schema.prisma', 'utf8');
    const drifted = `${schema}\nmodel Drift {\n  id Int @id\n  @@map("drift")\n}\n`;
    expect(await diffMigrationsToSchema(drifted)).toMatch(/CREATE TABLE "drift"/);
  });
});

// The series tables live in SQL migrations only; lib/series/tables.ts must describe what they create.
describe('lib/series/tables.ts and the migrated database', () => {
  let testDb: TestDatabase;
  let pool: pg.Pool;
  let sql: Sql;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    pool = new pg.Pool({ connectionString: testDb.url, max: 2 });
    sql = poolSql(pool);
    await applyMigrations(sql);
  });
  afterAll(async () => {
    await pool?.end();
    await testDb?.drop();
  });

  const PG_TYPE: Record<ColumnType, string> = {
    int2: 'smallint', int4: 'integer', int8: 'bigint', float4: 'real', float8: 'double precision', text: 'text',
    bool: 'boolean', timestamptz: 'timestamp with time zone', 'int2[]': 'smallint[]', 'int4[]': 'integer[]',
    'float4[]': 'real[]', 'float8[]': 'double precision[]', 'text[]': 'text[]',
  };
  const element = (type: ColumnType) => type.replace('[]', '') as ColumnType;
  const typesOf = (columns: readonly { name: string; type: ColumnType }[]) =>
    Object.fromEntries(columns.map((c) => [c.name, PG_TYPE[c.type]]));

  async function columnsOf(relation: string): Promise<Record<string, string>> {
    const rows = await rowsOf<{ name: string; type: string }>(sql,
      `SELECT attname AS name, atttypid::regtype::text AS type FROM pg_attribute
        WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      [relation],
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.type]));
  }

  const tables = Object.values(TABLES) as SeriesTable[];

  test.each([...tables.map((t) => [t.name, storedColumns(t)] as const), [REPORT_LEDGER.name, REPORT_LEDGER.columns] as const])(
    '%s has exactly the defined columns and types',
    async (name, columns) => {
      expect(await columnsOf(name)).toEqual(typesOf(columns));
    },
  );

  test.each(tables.filter((t) => t.view).map((t) => [t.view!, t] as const))('the view %s has one row per array element', async (view, t) => {
    const perItem = storedColumns(t).map((c) => ({ name: c.name, type: element(c.type) }));
    expect(await columnsOf(view)).toEqual(typesOf(perItem));
  });

  const rollupTables = GAUGE_ROLLUPS.flatMap((r) => ['1m', '1h'].map((level) => [`${r.base}_${level}`, r] as const));
  test.each(rollupTables)('the gauge rollup %s keeps samples, counts and each gauge\'s avg and max', async (name, rollup) => {
    const source = tables.find((t) => (t.view ?? t.name) === rollup.raw)!;
    const keys = rollup.keys.map((key) => ({ name: key, type: element(source.columns.find((c) => c.name === key)!.type) }));
    const expected = {
      ...typesOf([{ name: 'host_id', type: 'int4' }, { name: 'ts', type: 'timestamptz' }, ...keys, { name: 'samples', type: 'int4' }]),
      ...Object.fromEntries(Object.keys(rollup.counts ?? {}).map((count) => [count, 'integer'])),
      ...Object.fromEntries(rollup.gauges.flatMap((g) => [[`${g}_avg`, 'real'], [`${g}_max`, 'real']])),
    };
    expect(await columnsOf(name)).toEqual(expected);
  });

  const histogram = TABLES.latency.rollup as HistogramRollup;
  test.each([
    ...['1m', '1h'].map((level) => [`${histogram.base}_${level}`, 'host_id', 'int4'] as const),
    ...['1m', '1h'].map((level) => [`${histogram.byRegion}_${level}`, 'region', 'text'] as const),
  ])('the histogram rollup %s keeps the raw histogram columns, per %s', async (name, owner, ownerType) => {
    const expected = typesOf([{ name: owner, type: ownerType }, { name: 'ts', type: 'timestamptz' }, ...TABLES.latency.columns]);
    expect(await columnsOf(name)).toEqual({ ...expected, ...histogram.widened });
  });

  test('the per-minute quantile rollup keeps each of MINUTE_QUANTILES per host, name and minute', async () => {
    const quantiles = Object.keys(MINUTE_QUANTILES.quantiles).map((name) => ({ name, type: 'float8' as const }));
    const expected = typesOf([{ name: 'host_id', type: 'int4' }, { name: 'ts', type: 'timestamptz' }, { name: 'name', type: 'text' }, ...quantiles]);
    expect(await columnsOf(MINUTE_QUANTILES.table)).toEqual(expected);
  });

  test('the rollup partition function partitions every rollup table', async () => {
    await sql.query('SELECT inferwatch_ensure_rollup_partitions($1::date, $1::date)', ['2026-01-31']);
    for (const name of [...ROLLUP_1M_TABLES.map((t) => `${t}_p20260131`), ...ROLLUP_1H_TABLES.map((t) => `${t}_p202601`)]) {
      expect(await columnsOf(name), name).not.toEqual({});
    }
  });
});
