import type { PGlite, Transaction } from '@electric-sql/pglite';
import type pg from 'pg';

/**
 * The raw-SQL surface a PostgreSQL pool and embedded PGlite share. Stores query through it, checking rows with
 * lib/db/rows.ts; the Prisma client serves only enrollment keys (docs/data-layer.md says why).
 */
export interface Sql {
  /** Rows come back unknown: a store checks them with lib/db/rows.ts before it trusts a field. */
  query(text: string, params?: unknown[]): Promise<unknown[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

function pgClientSql(client: pg.PoolClient): Sql {
  const sql: Sql = {
    async query(text: string, params?: unknown[]) {
      return (await client.query(text, params)).rows as unknown[];
    },
    async exec(script) {
      await client.query(script);
    },
    transaction: (fn) => fn(sql),
  };
  return sql;
}

export function poolSql(pool: pg.Pool): Sql {
  return {
    async query(text: string, params?: unknown[]) {
      return (await pool.query(text, params)).rows as unknown[];
    },
    async exec(script) {
      await pool.query(script);
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(pgClientSql(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

function pgliteTxSql(tx: Transaction): Sql {
  const sql: Sql = {
    async query(text: string, params?: unknown[]) {
      return (await tx.query(text, params)).rows;
    },
    async exec(script) {
      await tx.exec(script);
    },
    transaction: (fn) => fn(sql),
  };
  return sql;
}

export function pgliteSql(db: PGlite): Sql {
  return {
    async query(text: string, params?: unknown[]) {
      return (await db.query(text, params)).rows;
    },
    async exec(script) {
      await db.exec(script);
    },
    transaction: (fn) => db.transaction((tx) => fn(pgliteTxSql(tx))),
  };
}
