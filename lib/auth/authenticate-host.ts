import 'server-only';
import { getDb, type Database } from '../db';
import { NotFoundError, UnauthorizedError } from '../errors';
import { hostTokenCache, type AuthenticatedHost } from './host-token-cache';
import { HOST_TOKEN_PREFIX, hashToken } from './tokens';

export type { AuthenticatedHost } from './host-token-cache';

/** The host a token belongs to; 401 when the token is missing, unknown or revoked. */
export async function authenticateHost(token: string | null, db?: Database): Promise<AuthenticatedHost> {
  if (!token || !token.startsWith(HOST_TOKEN_PREFIX)) throw new UnauthorizedError();
  const tokenHash = hashToken(token);
  const cache = hostTokenCache();
  const nowMs = Date.now();
  const cached = cache.get(tokenHash, nowMs);
  if (cached) return cached;
  const { sql } = db ?? (await getDb());
  const [row] = await sql.query<AuthenticatedHost>(
    'SELECT id, region FROM hosts WHERE token_hash = $1 AND token_revoked_at IS NULL',
    [tokenHash],
  );
  if (!row) throw new UnauthorizedError('invalid or revoked host token');
  const host = { id: row.id, region: row.region };
  cache.set(tokenHash, host, nowMs);
  return host;
}

/** Stops the host's current token at once in this process (other processes within the cache TTL, ≤ 5 s). */
export async function revokeHostToken(hostId: number, db?: Database): Promise<void> {
  const { sql } = db ?? (await getDb());
  const rows = await sql.query<{ id: number }>(
    'UPDATE hosts SET token_revoked_at = COALESCE(token_revoked_at, now()) WHERE id = $1 RETURNING id',
    [hostId],
  );
  hostTokenCache().forgetHost(hostId);
  if (rows.length === 0) throw new NotFoundError(`host ${hostId} does not exist`);
}
