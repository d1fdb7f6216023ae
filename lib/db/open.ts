import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { lockDataDir } from './data-dir-lock';
import { applyMigrations } from './migrate';
import { ensurePartitions } from './partitions';
import { pgliteSql, poolSql, type Sql } from './sql';
import { serverEnvironment } from '../server/environment';
import type { DatabaseTarget } from './target';

export interface Database {
  target: DatabaseTarget;
  prisma: PrismaClient;
  sql: Sql;
  /** The server's connection pool (COPY on the ingest path); undefined on embedded PGlite. */
  pool?: pg.Pool;
  close(): Promise<void>;
}

// BIGINT columns and arrays come back as strings from pg by default (PGlite gives numbers); our bigints (seqs, counts)
// fit in a double, so both drivers hand stores the same numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
// int8[]: not among pg-types' named builtins.
const INT8_ARRAY_OID = 1016 as Parameters<typeof pg.types.getTypeParser>[0];
const parseTextArray = pg.types.getTypeParser(INT8_ARRAY_OID) as (value: string) => (string | null)[];
pg.types.setTypeParser(INT8_ARRAY_OID, (value: string) => parseTextArray(value).map((v) => (v === null ? null : Number(v))));

async function openServer(target: Extract<DatabaseTarget, { kind: 'server' }>): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: target.url,
    max: serverEnvironment().dbPoolSize,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', (err) => console.error(`database pool error: ${err.message}`));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    target,
    prisma,
    sql: poolSql(pool),
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}

async function openEmbedded(target: Extract<DatabaseTarget, { kind: 'embedded' }>): Promise<Database> {
  const release = lockDataDir(target.dataDir);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { PrismaPGlite } = await import('pglite-prisma-adapter');
    const pglite = await PGlite.create(target.dataDir);
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) as never });
    return {
      target,
      prisma,
      sql: pgliteSql(pglite),
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/** Opens the database `DATABASE_URL` selects and brings its schema up to date. */
export async function openDatabase(target = serverEnvironment().database): Promise<Database> {
  const db = target.kind === 'server' ? await openServer(target) : await openEmbedded(target);
  try {
    await applyMigrations(db.sql);
    await ensurePartitions(db.sql, new Date());
    return db;
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
