import type { Sql } from './sql';

/**
 * Runs `fn` in a transaction with PostgreSQL's JIT off. The fleet reads cross its cost threshold at a few thousand
 * hosts, and compiling them anew on every call costs more than the short queries it speeds up.
 */
export function withoutJit<T>(sql: Sql, fn: (tx: Sql) => Promise<T>): Promise<T> {
  return sql.transaction(async (tx) => {
    await tx.exec('SET LOCAL jit = off');
    return fn(tx);
  });
}
