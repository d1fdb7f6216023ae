import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../lib/db/data-dir-lock';
import { applyMigrations, MigrationChecksumError, readMigrations } from '../../lib/db/migrate';
import { openDatabase, type Database } from '../../lib/db/open';
import { RAW_SERIES_TABLES } from '../../prisma/series-tables';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { rowsOf } from '../support/rows';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-db-'));

async function expectMigrated(db: Database) {
  const rows = await rowsOf<{ migration_name: string; checksum: string }>(db.sql,
    'SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name',
  );
  expect(rows).toEqual(readMigrations().map((m) => ({ migration_name: m.name, checksum: m.checksum })));
  const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');
  for (const table of RAW_SERIES_TABLES) {
    const [partition] = await rowsOf<{ name: string | null }>(db.sql, 'SELECT to_regclass($1)::text AS name', [`${table}_p${today}`]);
    expect(partition?.name, `${table} has today's partition`).toBe(`${table}_p${today}`);
  }
  // Retention drops the partitions of RAW_SERIES_TABLES; the database partitions the tables it lists.
  const partitioned = await rowsOf<{ parent: string }>(db.sql, 'SELECT parent FROM inferwatch_daily_partitioned ORDER BY parent');
  expect(partitioned.map((r) => r.parent)).toEqual([...RAW_SERIES_TABLES].sort());
  expect(await db.prisma.host.count()).toBe(0);
}

describe('on a PostgreSQL server', () => {
  let testDb: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ kind: 'server', url: testDb.url });
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  test('opening applies every migration, recorded as prisma migrate deploy records them', async () => {
    await expectMigrated(db);
  });

  test('applying again changes nothing', async () => {
    expect(await applyMigrations(db.sql)).toEqual([]);
  });

  test('a migration edited after it was applied is refused', async () => {
    const [first, ...rest] = readMigrations();
    const edited = { ...first!, checksum: 'f'.repeat(64) };
    await expect(applyMigrations(db.sql, [edited, ...rest])).rejects.toBeInstanceOf(MigrationChecksumError);
  });
});

describe('on embedded PostgreSQL (PGlite)', () => {
  test('opening a new data folder creates and migrates it; reopening keeps the data', async () => {
    const dataDir = path.join(tmp, 'embedded');
    const db = await openDatabase({ kind: 'embedded', dataDir });
    await expectMigrated(db);
    await db.prisma.enrollmentKey.create({ data: { name: 'k', tokenHash: 'h', tokenPrefix: 'iwk_', region: 'oslo' } });
    await db.close();

    const reopened = await openDatabase({ kind: 'embedded', dataDir });
    expect(await reopened.prisma.enrollmentKey.count()).toBe(1);
    await reopened.close();
  });

  test('a second process gets a clear error instead of opening a folder in use', async () => {
    const dataDir = path.join(tmp, 'locked');
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', '-e', `import('${path.resolve('lib/db/data-dir-lock.ts')}').then(m => { m.lockDataDir(${JSON.stringify(dataDir)}); console.log('locked'); setInterval(() => {}, 1000); })`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout!.on('data', (d) => String(d).includes('locked') && resolve()));
      const error = await openDatabase({ kind: 'embedded', dataDir }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect((error as Error).message).toMatch(new RegExp(`in use by another inferwatch process \\(pid ${holder.pid}\\)`));
    } finally {
      holder.kill('SIGKILL');
    }
  });

  test('a lock left by a dead process is taken over', () => {
    const dataDir = path.join(tmp, 'stale');
    fs.writeFileSync(`${dataDir}.lock`, '999999999');
    const release = lockDataDir(dataDir);
    expect(fs.readFileSync(`${dataDir}.lock`, 'utf8')).toBe(String(process.pid));
    release();
    expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);
  });
});
