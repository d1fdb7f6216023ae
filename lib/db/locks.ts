import type { Sql } from './sql';

/**
 * The advisory lock ids of every process on the database, in one table so two uses can never pick the same number.
 * The transaction locks keep one writer at a time and are held until the transaction ends; `leader` is held by a
 * session for as long as it leads (lib/db/leader.ts).
 */
const ADVISORY_LOCKS = {
  migrate: 72707369,
  rollup: 72707370,
  alerts: 72707371,
  enroll: 72707372,
  leader: 72707373,
  partitions: 72707374,
} as const;

type TransactionLock = Exclude<keyof typeof ADVISORY_LOCKS, 'leader'>;

export const LEADER_LOCK_ID = ADVISORY_LOCKS.leader;

export async function holdTransactionLock(tx: Pick<Sql, 'query'>, lock: TransactionLock): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS[lock]]);
}
