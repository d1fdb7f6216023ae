import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const ENROLLMENT_KEY_PREFIX = 'iwk_';
export const HOST_TOKEN_PREFIX = 'iwh_';
export const API_TOKEN_PREFIX = 'iwt_';
export const SESSION_PREFIX = 'iws_';
export const ADMIN_CLI_TOKEN_PREFIX = 'iwc_';

export type TokenPrefix =
  | typeof ENROLLMENT_KEY_PREFIX
  | typeof HOST_TOKEN_PREFIX
  | typeof API_TOKEN_PREFIX
  | typeof SESSION_PREFIX
  | typeof ADMIN_CLI_TOKEN_PREFIX;

/** 256 random bits, base64url, behind a prefix that says what the token is for. */
export function generateToken(prefix: TokenPrefix): string {
  return prefix + randomBytes(32).toString('base64url');
}

// A fast hash is right here: the tokens are 256-bit random, so there is nothing to brute-force offline.
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The part of a token that is safe to show in lists (prefix + 6 characters). */
export function tokenDisplayPrefix(token: string): string {
  return token.slice(0, token.indexOf('_') + 7);
}

export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1]! : null;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
