import 'server-only';
import type { Database } from '../db';
import { recordAudit } from './audit';
import { readSession, revokeSession } from './sessions';

/** Ends a browser's session on the server; a session that was live is audited as its user signing out. */
export async function signOut(db: Pick<Database, 'prisma'>, cookie: string | undefined, clientIp: string): Promise<void> {
  const user = await readSession(db, cookie);
  await revokeSession(db, cookie);
  if (user) await recordAudit(db, { kind: 'user', userId: user.id, name: user.name || user.email }, clientIp, { action: 'session.sign-out', target: `user ${user.id}` });
}
