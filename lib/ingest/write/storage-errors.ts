import { databaseErrorKind, errorTable, isUniqueViolation } from '../../db/errors';
import { ConflictError, DatabaseUnavailableError, InvalidPayloadError } from '../../errors';

export function isLedgerConflict(err: unknown): boolean {
  return isUniqueViolation(err) && (errorTable(err)?.startsWith('report_ledger') ?? false);
}

export const isMissingPartition = (err: unknown): boolean => databaseErrorKind(err) === 'missing_partition';

export const isRetryableConflict = (err: unknown): boolean => databaseErrorKind(err) === 'retryable';

/** A value PostgreSQL refused: the request's fault, not the database's. */
export function isDataError(err: unknown): boolean {
  const kind = databaseErrorKind(err);
  return kind === 'data' || kind === 'unique' || kind === 'foreign_key';
}

/** What a request that failed alone in its flush is told. */
export function storageErrorFor(err: unknown): unknown {
  const kind = databaseErrorKind(err);
  if (kind === 'unavailable' || kind === 'timeout') return new DatabaseUnavailableError();
  if (kind === 'unique') return new ConflictError('a report with the same ts is already stored for this host under another seq');
  if (isDataError(err)) {
    const message = err instanceof Error ? err.message : 'rejected by the database';
    return new InvalidPayloadError(`a value cannot be stored: ${message}`);
  }
  return err;
}
