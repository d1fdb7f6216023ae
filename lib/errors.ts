import { ZodError } from 'zod';
import { databaseErrorKind, errorCode } from './db/errors';
import type { ErrorDetail, ErrorEnvelope } from './protocol/errors';

/** An error the caller can act on: its status, code and message are safe to show. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'bad_request', message, details);
  }
}

/** A body that parsed but breaks the protocol's rules; details name each offending field. */
export class InvalidPayloadError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'invalid_payload', message, details);
  }
}

export class InvalidJsonError extends AppError {
  constructor(message: string) {
    super(400, 'invalid_json', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'missing or invalid bearer token', code = 'unauthorized') {
    super(401, code, message, undefined, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super(413, 'payload_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string) {
    super(415, 'unsupported_media_type', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterS: number, message = 'too many requests for this host') {
    super(429, 'rate_limited', message, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
  }
}

export class DatabaseUnavailableError extends AppError {
  constructor(retryAfterS = 5) {
    super(503, 'database_unavailable', 'the database is unavailable; retry later', undefined, {
      'Retry-After': String(retryAfterS),
    });
  }
}

type Issue = ZodError['issues'][number];

const isUnavailableBranch = (branch: readonly Issue[]) =>
  branch.length > 0 && branch.every((issue) => issue.path[0] === 'unavailable');

// A union such as orUnavailable(x) fails as "Invalid input" at its own path; the useful detail is inside the
// branch that was meant (not the `{ unavailable }` one), so descend into it to name the real field.
function flattenIssues(issues: readonly Issue[], prefix: PropertyKey[]): { path: PropertyKey[]; message: string }[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const meant = issue.errors.filter((branch) => !isUnavailableBranch(branch));
      if (meant.length === 1) return flattenIssues(meant[0]!, path);
    }
    return [{ path, message: issue.message }];
  });
}

export function zodDetails(err: ZodError, pathPrefix: (string | number)[] = []): ErrorDetail[] {
  return flattenIssues(err.issues, pathPrefix).map(({ path, message }) => ({
    path: path.map(String).join('.') || '(root)',
    message,
  }));
}

export function toErrorEnvelope(err: unknown): { status: number; body: ErrorEnvelope; headers?: Record<string, string> } {
  if (err instanceof ZodError) {
    const details = zodDetails(err);
    return {
      status: 400,
      body: { error: { code: 'invalid_payload', message: `invalid ${details[0]?.path ?? 'payload'}: ${details[0]?.message ?? ''}`, details } },
    };
  }
  if (err instanceof AppError) {
    return {
      status: err.status,
      body: { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } },
      headers: err.headers,
    };
  }
  const mapped = fromDatabaseError(err);
  if (mapped) return toErrorEnvelope(mapped);
  console.error('unhandled error', err);
  return { status: 500, body: { error: { code: 'internal', message: 'internal server error' } } };
}

/** A database error the caller can act on, by its SQLSTATE (lib/db/errors); undefined for one that is a bug. */
function fromDatabaseError(err: unknown): AppError | undefined {
  switch (databaseErrorKind(err)) {
    case 'unavailable':
    case 'timeout':
      return new DatabaseUnavailableError();
    case 'unique':
      return new ConflictError('it already exists');
    case 'foreign_key':
      return new ConflictError('it refers to something that does not exist, or something else still refers to it');
    case 'data':
      return new InvalidPayloadError('a value cannot be stored');
  }
  // Prisma's "record to update or delete not found" (enrollment keys go through its client).
  if (errorCode(err) === 'P2025') return new NotFoundError('not found');
  return undefined;
}

/** The one place an error becomes an HTTP response. */
export function toErrorResponse(err: unknown): Response {
  const { status, body, headers } = toErrorEnvelope(err);
  return Response.json(body, { status, headers });
}
