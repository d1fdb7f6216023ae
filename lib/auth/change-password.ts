import 'server-only';
import type { Database } from '../db';
import { AppError, BadRequestError, ForbiddenError, RateLimitedError } from '../errors';
import type { PasswordChangeInput } from '../protocol/auth';
import { formatWait } from '../protocol/duration';
import type { LoginLimiter } from './login-limiter';
import { verifyPassword } from './passwords';
import type { Principal } from './principal';
import { revokeUserSessions } from './sessions';
import { findUserById, updateUser } from './users';

export interface PasswordChanged {
  userId: number;
  email: string;
  /** The user's other sessions, signed out by the change. */
  otherSessionsEnded: number;
}

/**
 * A signed-in user changes their own password, proving the current one (a borrowed browser must not be enough); its
 * guesses count against the same per-account back-off as sign-in. Every other session of the user ends, this one stays.
 */
export async function changeOwnPassword(
  db: Pick<Database, 'prisma'>,
  limiter: LoginLimiter,
  principal: Principal,
  input: PasswordChangeInput,
  client: { ip: string; sessionCookie: string | undefined },
  now = new Date(),
): Promise<PasswordChanged> {
  const user = principal.kind === 'user' && principal.userId !== null ? await findUserById(db, principal.userId) : null;
  if (!user || !client.sessionCookie) {
    throw new ForbiddenError('only a user signed in with a session changes their password (local sign-in, the bootstrap token and API tokens have none)');
  }
  if (!user.passwordHash) {
    throw new AppError(409, 'sso_only', 'this account signs in through SSO and has no password here: change it with your identity provider');
  }
  const verdict = limiter.admit(user.email, client.ip);
  if (!verdict.admitted) throw new RateLimitedError(verdict.retryAfterMs / 1000, `too many wrong passwords for this account; try again in ${formatWait(verdict.retryAfterMs)}`);
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    throw new AppError(403, 'wrong_password', 'the current password is wrong', [{ path: 'currentPassword', message: 'wrong password' }]);
  }
  limiter.succeeded(user.email, client.ip);
  if (input.newPassword === input.currentPassword) {
    throw new BadRequestError('the new password is the current one', [{ path: 'newPassword', message: 'must differ from the current password' }]);
  }
  await updateUser(db, user.id, { password: input.newPassword });
  const otherSessionsEnded = await revokeUserSessions(db, user.id, now, client.sessionCookie);
  return { userId: user.id, email: user.email, otherSessionsEnded };
}
