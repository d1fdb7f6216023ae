import 'server-only';
import type { Database } from '../db';
import type { Sql } from '../db/sql';
import { NotFoundError, UnauthorizedError } from '../errors';
import { UNKNOWN_HOST_TOKEN } from '../protocol/errors';
import { findHostByTokenHash, readRevocationVersion, revokeHostTokenRow } from '../hosts/store';
import { HostTokenCache, type AuthenticatedHost } from './host-token-cache';
import { REVOCATION_CHECK_MS, RevocationWatch } from './revocation-watch';
import { HOST_TOKEN_PREFIX, hashToken } from './tokens';
import { processSingleton } from '../process-singleton';

export type { AuthenticatedHost } from './host-token-cache';

export interface TokenAuth {
  cache: HostTokenCache;
  watch: RevocationWatch;
}

/** `clock` times the revocation checks; tests pass one they move by hand. */
export function createTokenAuth(sql: Sql, cache = new HostTokenCache(), clock: () => number = Date.now): TokenAuth {
  return { cache, watch: new RevocationWatch(() => readRevocationVersion(sql), () => cache.clear(), REVOCATION_CHECK_MS, clock) };
}

/** This process's token cache for a database handle (a second handle behaves like another process). */
export function tokenAuthFor(db: Database): TokenAuth {
  const byDb = processSingleton('token-auth', () => new WeakMap<Database, TokenAuth>());
  let auth = byDb.get(db);
  if (!auth) {
    auth = createTokenAuth(db.ingestSql);
    byDb.set(db, auth);
  }
  return auth;
}

/**
 * The host a token belongs to; 401 when the token is missing, unknown or revoked (saying which, and what to do). Lookups are cached for 10 min;
 * a revocation is seen at once through the same handle and within REVOCATION_CHECK_MS (1 s) everywhere else.
 */
export async function authenticateHost(database: Database, token: string | null, auth?: TokenAuth): Promise<AuthenticatedHost> {
  if (!token || !token.startsWith(HOST_TOKEN_PREFIX)) throw new UnauthorizedError();
  const { cache, watch } = auth ?? tokenAuthFor(database);
  const tokenHash = hashToken(token);
  const checking = watch.whenFresh();
  if (checking) await checking;
  const cached = cache.get(tokenHash, Date.now());
  if (cached) return cached;
  const generation = cache.generation;
  const row = await findHostByTokenHash(database.ingestSql, tokenHash);
  if (!row) {
    throw new UnauthorizedError(
      'unknown host token: never issued by this server, replaced when this host enrolled again, or issued by another database',
      UNKNOWN_HOST_TOKEN,
    );
  }
  if (row.revoked) {
    throw new UnauthorizedError(
      `this host token (host ${row.id}) was revoked by an administrator; once one approves its re-enrollment ` +
        `(npm run admin -- hosts approve-reenroll ${row.id}), delete host-token.json in the agent's state directory and restart it with its enrollment key`,
    );
  }
  const host = { id: row.id, region: row.region };
  cache.set(tokenHash, host, Date.now(), generation);
  return host;
}

/** Stops the host's current token: at once through this handle, within 1 s in other processes. */
export async function revokeHostToken(database: Database, hostId: number): Promise<void> {
  const revoked = await revokeHostTokenRow(database.sql, hostId);
  tokenAuthFor(database).cache.forgetHost(hostId);
  if (!revoked) throw new NotFoundError(`host ${hostId} does not exist`);
}
