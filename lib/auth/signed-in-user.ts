import 'server-only';
import type { Database } from '../db';
import { ForbiddenError } from '../errors';
import type { Principal } from './principal';
import { findUserById, type StoredUser } from './users';

/** The user behind a session: API tokens are made and revoked by a person signed in, never by another token. */
export async function signedInUser(db: Database, principal: Principal): Promise<StoredUser> {
  const user = principal.kind === 'user' && principal.userId !== null ? await findUserById(db, principal.userId) : null;
  if (!user) throw new ForbiddenError('API tokens belong to a user: sign in as one (local sign-in and tokens have none)');
  return user;
}
