import { ConflictError, DatabaseUnavailableError, InvalidPayloadError, isDatabaseUnavailable } from '../../errors';

interface PgError {
  code?: string;
  table?: string;
  constraint?: string;
  message?: string;
}

const pgError = (err: unknown): PgError => (typeof err === 'object' && err !== null ? (err as PgError) : {});

export function isLedgerConflict(err: unknown): boolean {
  const e = pgError(err);
  return e.code === '23505' && (e.table?.startsWith('report_ledger') ?? false);
}

export function isMissingPartition(err: unknown): boolean {
  const e = pgError(err);
  return e.code === '23514' && /no partition of relation/.test(e.message ?? '');
}

export function isRetryableConflict(err: unknown): boolean {
  const code = pgError(err).code;
  return code === '40P01' || code === '40001';
}

/** A value PostgreSQL refused (class 22 data exception, 23 integrity): the request's fault, not the database's. */
export function isDataError(err: unknown): boolean {
  const code = pgError(err).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23')) && !isMissingPartition(err);
}

/** statement_timeout (57014) or pg's client-side read timeout: the database is hung or far too slow. */
function isTimeout(err: unknown): boolean {
  const e = pgError(err);
  return e.code === '57014' || e.message === 'Query read timeout';
}

/** What a request that failed alone in its flush is told. */
export function storageErrorFor(err: unknown): unknown {
  if (isDatabaseUnavailable(err) || isTimeout(err)) return new DatabaseUnavailableError();
  if (!isDataError(err)) return err;
  if (pgError(err).code === '23505') {
    return new ConflictError('a report with the same ts is already stored for this host under another seq');
  }
  return new InvalidPayloadError(`a value cannot be stored: ${pgError(err).message ?? 'rejected by the database'}`);
}
