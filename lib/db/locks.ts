import type { Sql } from './sql';

/**
 * The advisory locks that keep one writer at a time across every process on the database, by name so two jobs can
 * never pick the same number. Held until the transaction ends.
 */
const TRANSACTION_LOCKS = {
  migrate: 72707369,
  rollup: 72707370,
  alerts: 72707371,
  enroll: 72707372,
} as const;

export async function holdTransactionLock(tx: Pick<Sql, 'query'>, lock: keyof typeof TRANSACTION_LOCKS): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [TRANSACTION_LOCKS[lock]]);
}
