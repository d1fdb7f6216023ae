import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { queryRow } from './rows';
import type { Sql } from './sql';
import { holdTransactionLock } from './locks';

const appliedRow = z.object({ checksum: z.string() });

// Prisma's own lock id, so this runner and `prisma migrate deploy` never run at the same time on one database.

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL,
    "logs" TEXT,
    "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  script: string;
  checksum: string;
}

export function defaultMigrationsDir(): string {
  return path.join(process.cwd(), 'prisma', 'migrations');
}

export function readMigrations(dir = defaultMigrationsDir()): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const script = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, script, checksum: createHash('sha256').update(script).digest('hex') };
    });
}

export class MigrationChecksumError extends Error {
  constructor(name: string) {
    super(`migration ${name} was changed after it was applied; add a new migration instead of editing it`);
    this.name = 'MigrationChecksumError';
  }
}

/**
 * Applies pending migrations in order, each in its own transaction, recorded in `_prisma_migrations` the way
 * `prisma migrate deploy` records them (so the two agree on what is applied). Returns the names applied now.
 */
export async function applyMigrations(sql: Sql, migrations = readMigrations()): Promise<string[]> {
  // CREATE TABLE IF NOT EXISTS is not safe against itself: processes starting at once on a fresh database collide.
  await sql.transaction(async (tx) => {
    await holdTransactionLock(tx, 'migrate');
    await tx.exec(CREATE_MIGRATIONS_TABLE);
  });
  const applied: string[] = [];
  for (const migration of migrations) {
    const didApply = await sql.transaction(async (tx) => {
      await holdTransactionLock(tx, 'migrate');
      const existing = await queryRow(
        tx,
        '_prisma_migrations',
        appliedRow,
        'SELECT checksum FROM "_prisma_migrations" WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL',
        [migration.name],
      );
      if (existing) {
        if (existing.checksum !== migration.checksum) throw new MigrationChecksumError(migration.name);
        return false;
      }
      await tx.exec(migration.script);
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
         VALUES ($1, $2, now(), $3, 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      return true;
    });
    if (didApply) applied.push(migration.name);
  }
  return applied;
}
