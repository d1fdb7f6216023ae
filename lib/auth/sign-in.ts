import 'server-only';
import type { Database } from '../db';
import { UnauthorizedError } from '../errors';
import { recordAudit } from './audit';
import type { LoginLimiter } from './login-limiter';
import { verifyPassword } from './passwords';
import { createSession, type NewSession } from './sessions';
import { findUserByEmail } from './users';

export interface SignInClient {
  ip: string;
  userAgent: string;
}

// Verified against when the email is unknown, so an unknown email costs as long as a wrong password.
const UNKNOWN_USER_HASH = 'scrypt$32768$8$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** A password sign-in: a new session, or 401 that never says whether the email exists. */
export async function signInWithPassword(db: Database, limiter: LoginLimiter, email: string, password: string, client: SignInClient): Promise<NewSession> {
  limiter.check(email, client.ip);
  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(password, user?.passwordHash ?? UNKNOWN_USER_HASH);
  if (!user || !ok || user.disabled || !user.passwordHash) {
    limiter.fail(email, client.ip);
    throw new UnauthorizedError('wrong email or password');
  }
  const session = await createSession(db, user.id, client);
  await recordAudit(db, { kind: 'user', userId: user.id, name: user.name || user.email }, client.ip, { action: 'session.sign-in', target: `user ${user.id}`, detail: { method: 'password' } });
  return session;
}
