import 'server-only';
import type { Database } from '../db';
import { RateLimitedError, UnauthorizedError } from '../errors';
import { formatWait } from '../protocol/duration';
import { recordAudit } from './audit';
import type { LoginLimiter } from './login-limiter';
import { verifyPassword } from './passwords';
import { createSession, type NewSession } from './sessions';
import { findUserByEmail, type StoredUser } from './users';

export interface SignInClient {
  ip: string;
  userAgent: string;
}

/** Why a password sign-in was refused, as the audit log says it (the answer to the browser never does). */
export type SignInRefusal = 'unknown-email' | 'wrong-password' | 'disabled' | 'sso-only' | 'throttled';

// Verified against when the email is unknown, so an unknown email costs as long as a wrong password.
const UNKNOWN_USER_HASH = 'scrypt$32768$8$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

function refusal(user: StoredUser | null, passwordOk: boolean): SignInRefusal | null {
  if (!user) return 'unknown-email';
  if (!user.passwordHash) return 'sso-only';
  if (!passwordOk) return 'wrong-password';
  if (user.disabled) return 'disabled';
  return null;
}

async function auditRefusal(db: Pick<Database, 'prisma'>, email: string, client: SignInClient, reason: SignInRefusal, detail: Record<string, unknown> = {}) {
  await recordAudit(db, { kind: 'anonymous', userId: null, name: 'not signed in' }, client.ip, {
    action: 'session.sign-in-refused',
    target: `sign-in as ${email}`,
    detail: { email, reason, method: 'password', ...detail },
  });
}

/**
 * A password sign-in: a new session, 401 that never says whether the email exists, or 429 with how long to wait.
 * Each refusal is audited with the email tried and why (never the password); a throttled storm once per wait.
 */
export async function signInWithPassword(db: Database, limiter: LoginLimiter, email: string, password: string, client: SignInClient): Promise<NewSession> {
  const verdict = limiter.admit(email, client.ip);
  if (!verdict.admitted) {
    const wait = formatWait(verdict.retryAfterMs);
    if (verdict.firstRefusal) await auditRefusal(db, email, client, 'throttled', { scope: verdict.scope, waitS: Math.ceil(verdict.retryAfterMs / 1000) });
    const whose = verdict.scope === 'account' ? 'for this account' : 'from this address';
    throw new RateLimitedError(verdict.retryAfterMs / 1000, `too many failed sign-ins ${whose}; try again in ${wait}`);
  }
  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(password, user?.passwordHash ?? UNKNOWN_USER_HASH);
  const refused = refusal(user, ok);
  if (refused) {
    await auditRefusal(db, email, client, refused);
    throw new UnauthorizedError('wrong email or password');
  }
  limiter.succeeded(email, client.ip);
  const session = await createSession(db, user!.id, client);
  await recordAudit(db, { kind: 'user', userId: user!.id, name: user!.name || user!.email }, client.ip, { action: 'session.sign-in', target: `user ${user!.id}`, detail: { method: 'password' } });
  return session;
}
