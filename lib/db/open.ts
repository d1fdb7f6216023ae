import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { lockDataDir } from './data-dir-lock';
import { applyMigrations } from './migrate';
import { ensurePartitions } from './partitions';
import { EMBEDDED_START_PARAMS } from './embedded-settings';
import { pgliteSql, poolSql, type Sql } from './sql';
import { DEFAULT_DATABASE_POOLS, type DatabasePools } from './pools';
import type { DatabaseTarget } from './target';

export interface Database {
  target: DatabaseTarget;
  prisma: PrismaClient;
  /** Engines, maintenance and writes through the API. */
  sql: Sql;
  /** The server's main connection pool; undefined on embedded PGlite. */
  pool?: pg.Pool;
  /**
   * Pages and the read API (lib/db's getReadDb): on a server a pool of their own, INFERWATCH_DB_READ_POOL_SIZE
   * connections whose every statement times out after INFERWATCH_READ_TIMEOUT_MS. On PGlite, `sql`.
   */
  readSql: Sql;
  /**
   * Ingest's own pool on a server (INFERWATCH_DB_INGEST_POOL_SIZE): group-commit flushes with COPY and host token
   * lookups, so reads and engines holding every other connection never make ingest wait. Undefined on PGlite.
   */
  ingestPool?: pg.Pool;
  /** Ingest's queries: `ingestPool` on a server, `sql` on PGlite (its one connection serves everything). */
  ingestSql: Sql;
  close(): Promise<void>;
}

// BIGINT columns and arrays come back as strings from pg by default (PGlite gives numbers); our bigints (seqs, counts)
// fit in a double, so both drivers hand stores the same numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
// int8[]: not among pg-types' named builtins.
const INT8_ARRAY_OID = 1016 as Parameters<typeof pg.types.getTypeParser>[0];
const parseTextArray = pg.types.getTypeParser(INT8_ARRAY_OID) as (value: string) => (string | null)[];
pg.types.setTypeParser(INT8_ARRAY_OID, (value: string) => parseTextArray(value).map((v) => (v === null ? null : Number(v))));

function serverPool(url: string, max: number, name: string, options?: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5_000, ...(options ? { options } : {}) });
  pool.on('error', (err) => console.error(`database ${name} pool error: ${err.message}`));
  return pool;
}

async function openServer(target: Extract<DatabaseTarget, { kind: 'server' }>, pools: DatabasePools): Promise<Database> {
  const pool = serverPool(target.url, pools.poolSize, 'main');
  const readPool = serverPool(target.url, pools.readPoolSize, 'read', `-c statement_timeout=${pools.readTimeoutMs}`);
  const ingestPool = serverPool(target.url, pools.ingestPoolSize, 'ingest');
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    target,
    prisma,
    sql: poolSql(pool),
    pool,
    readSql: poolSql(readPool),
    ingestPool,
    ingestSql: poolSql(ingestPool),
    async close() {
      await prisma.$disconnect();
      await Promise.all([pool, readPool, ingestPool].map((p) => p.end().catch(() => {})));
    },
  };
}

async function openEmbedded(target: Extract<DatabaseTarget, { kind: 'embedded' }>): Promise<Database> {
  const release = lockDataDir(target.dataDir);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { PrismaPGlite } = await import('pglite-prisma-adapter');
    const pglite = await PGlite.create(target.dataDir, { startParams: [...PGlite.defaultStartParams, ...EMBEDDED_START_PARAMS] });
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) as never });
    const sql = pgliteSql(pglite);
    // One connection: reads, ingest and everything else take turns on it, and PGlite cannot time a statement out.
    return {
      target,
      prisma,
      sql,
      readSql: sql,
      ingestSql: sql,
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

/** Opens the database (the one `DATABASE_URL` selects, for the server) and brings its schema up to date. */
export async function openDatabase(target: DatabaseTarget, pools: DatabasePools = DEFAULT_DATABASE_POOLS): Promise<Database> {
  const db = target.kind === 'server' ? await openServer(target, pools) : await openEmbedded(target);
  try {
    await applyMigrations(db.sql);
    await ensurePartitions(db.sql, new Date());
    return db;
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
