import 'server-only';
import type { Database } from '../db';
import { SESSION_PREFIX, generateToken, hashToken } from './tokens';
import { toStoredUser, type StoredUser } from './users';

type PrismaDb = Pick<Database, 'prisma'>;

export const SESSION_COOKIE = 'iw_session';
/** A session ends a week after sign-in, or after 12 hours unused, whichever comes first. */
export const SESSION_MAX_AGE_MS = 7 * 24 * 3_600_000;
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** last_seen_at is written at most this often per session, not on every request. */
const TOUCH_EVERY_MS = 5 * 60_000;

export interface NewSession {
  /** The cookie's value: only its hash is stored. */
  id: string;
  expiresAt: Date;
}

export async function createSession(db: PrismaDb, userId: number, client: { ip: string; userAgent: string }, now = new Date()): Promise<NewSession> {
  const id = generateToken(SESSION_PREFIX);
  const expiresAt = new Date(now.getTime() + SESSION_MAX_AGE_MS);
  await db.prisma.session.create({
    data: { idHash: hashToken(id), userId, createdAt: now, lastSeenAt: now, expiresAt, ip: client.ip.slice(0, 100), userAgent: client.userAgent.slice(0, 300) },
  });
  return { id, expiresAt };
}

/** The user a session cookie signs in, if the session is live and its user enabled; it is touched as it is used. */
export async function readSession(db: PrismaDb, cookie: string | undefined, now = new Date()): Promise<StoredUser | null> {
  if (!cookie || !cookie.startsWith(SESSION_PREFIX)) return null;
  const session = await db.prisma.session.findUnique({ where: { idHash: hashToken(cookie) }, include: { user: true } });
  if (!session || session.revokedAt || session.expiresAt <= now || now.getTime() - session.lastSeenAt.getTime() > SESSION_IDLE_MS) return null;
  const user = toStoredUser(session.user);
  if (user.disabled) return null;
  if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
    await db.prisma.session.update({ where: { idHash: session.idHash }, data: { lastSeenAt: now } });
  }
  return user;
}

export async function revokeSession(db: PrismaDb, cookie: string | undefined, now = new Date()): Promise<void> {
  if (!cookie) return;
  await db.prisma.session.updateMany({ where: { idHash: hashToken(cookie), revokedAt: null }, data: { revokedAt: now } });
}

/** Ends every session of a user (disabled, demoted, or a new password) but the one `keepCookie` holds; how many ended. */
export async function revokeUserSessions(db: PrismaDb, userId: number, now = new Date(), keepCookie?: string): Promise<number> {
  const keep = keepCookie ? { NOT: { idHash: hashToken(keepCookie) } } : {};
  const { count } = await db.prisma.session.updateMany({ where: { userId, revokedAt: null, ...keep }, data: { revokedAt: now } });
  return count;
}

/** The Set-Cookie value for a new session, or for clearing it (`session` null). */
export function sessionCookie(session: NewSession | null, secure: boolean): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  if (!session) return [`${SESSION_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ');
  return [`${SESSION_COOKIE}=${session.id}`, `Max-Age=${Math.floor(SESSION_MAX_AGE_MS / 1000)}`, ...attributes].join('; ');
}

/** A cookie header's value of `name`. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
