/**
 * What a database error means for the request that met it, read from its SQLSTATE (PostgreSQL's five-character
 * error code, the same from pg and PGlite) or a driver's connection error. The one place SQLSTATEs are named:
 * stores ask `isUniqueViolation`, lib/errors turns the kind into the error envelope.
 */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  queryCanceled: '57014',
  adminShutdown: '57P01',
  cannotConnectNow: '57P03',
  tooManyConnections: '53300',
  deadlockDetected: '40P01',
  serializationFailure: '40001',
} as const;

// Prisma's client (enrollment keys, users, sessions, tokens) reports the same violations under its own codes.
const PRISMA_UNIQUE = 'P2002';
const PRISMA_FOREIGN_KEY = 'P2003';

export type DatabaseErrorKind =
  /** A row with the same unique key exists. */
  | 'unique'
  /** A key names a row that does not exist, or a row others still name. */
  | 'foreign_key'
  /** A row for a day or month whose partition does not exist yet: create it and retry. */
  | 'missing_partition'
  /** A value PostgreSQL refused (class 22 data exception, other class 23 integrity): the request's fault. */
  | 'data'
  /** statement_timeout or the driver's read timeout: the database is hung or far too slow. */
  | 'timeout'
  /** The database is away: refused, reset, shutting down, out of connections. */
  | 'unavailable'
  /** Two transactions collided; running it again may succeed. */
  | 'retryable';

interface DriverError {
  code?: unknown;
  table?: unknown;
  constraint?: unknown;
  message?: unknown;
}

const driverError = (err: unknown): DriverError => (typeof err === 'object' && err !== null ? (err as DriverError) : {});

/** The SQLSTATE or driver code of an error, when it has one. */
export function errorCode(err: unknown): string | undefined {
  const code = driverError(err).code;
  return typeof code === 'string' ? code : undefined;
}

const UNAVAILABLE = new Set<string>([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  SQLSTATE.adminShutdown,
  SQLSTATE.cannotConnectNow,
  SQLSTATE.tooManyConnections,
]);

export function databaseErrorKind(err: unknown): DatabaseErrorKind | undefined {
  const code = errorCode(err);
  const message = driverError(err).message;
  const text = typeof message === 'string' ? message : '';
  if ((code && UNAVAILABLE.has(code)) || /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(text)) {
    return 'unavailable';
  }
  if (code === SQLSTATE.queryCanceled || text === 'Query read timeout') return 'timeout';
  if (code === SQLSTATE.deadlockDetected || code === SQLSTATE.serializationFailure) return 'retryable';
  if (code === SQLSTATE.checkViolation && /no partition of relation/.test(text)) return 'missing_partition';
  if (code === SQLSTATE.uniqueViolation || code === PRISMA_UNIQUE) return 'unique';
  if (code === SQLSTATE.foreignKeyViolation || code === PRISMA_FOREIGN_KEY) return 'foreign_key';
  if (code?.startsWith('22') || code?.startsWith('23')) return 'data';
  return undefined;
}

/** A unique-key violation, of `constraint` when named (an index name, as the migration created it). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (constraint === undefined) return databaseErrorKind(err) === 'unique';
  return errorCode(err) === SQLSTATE.uniqueViolation && driverError(err).constraint === constraint;
}

/** The table (a partition's own name for partitioned tables) an integrity error was raised on. */
export function errorTable(err: unknown): string | undefined {
  const table = driverError(err).table;
  return typeof table === 'string' ? table : undefined;
}
