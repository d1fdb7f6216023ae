import 'server-only';
import type { Database } from '../db';
import { ForbiddenError, NotFoundError } from '../errors';
import type { ApiTokenInput, ApiTokenView, CreatedApiToken } from '../protocol/auth';
import { withArticle } from '../protocol/article';
import { hasRole, isRole, lesserRole, type Role } from '../protocol/roles';
import { API_TOKEN_PREFIX, generateToken, hashToken, tokenDisplayPrefix } from './tokens';
import { toStoredUser, type StoredUser } from './users';

type PrismaDb = Pick<Database, 'prisma'>;

interface TokenRow {
  id: number;
  name: string;
  tokenPrefix: string;
  role: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

const toView = (row: TokenRow): ApiTokenView => ({
  id: row.id,
  name: row.name,
  tokenPrefix: row.tokenPrefix,
  role: isRole(row.role) ? row.role : 'viewer',
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  expiresAt: row.expiresAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

/** A token for `user`, acting with at most the user's role; the token is in the answer once and never again. */
export async function createApiToken(db: PrismaDb, user: StoredUser, input: ApiTokenInput, now = new Date()): Promise<CreatedApiToken> {
  const role = input.role ?? user.role;
  if (!hasRole(user.role, role)) throw new ForbiddenError(`${withArticle(user.role)} cannot create a token with the ${role} role`);
  const token = generateToken(API_TOKEN_PREFIX);
  const row = await db.prisma.apiToken.create({
    data: {
      userId: user.id,
      name: input.name,
      tokenHash: hashToken(token),
      tokenPrefix: tokenDisplayPrefix(token),
      role,
      createdAt: now,
      expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null,
    },
  });
  return { ...toView(row), token };
}

export async function listApiTokens(db: PrismaDb, userId: number): Promise<ApiTokenView[]> {
  return (await db.prisma.apiToken.findMany({ where: { userId }, orderBy: { id: 'asc' } })).map(toView);
}

export async function revokeApiToken(db: PrismaDb, userId: number, id: number, now = new Date()): Promise<ApiTokenView> {
  const row = await db.prisma.apiToken.findFirst({ where: { id, userId } });
  if (!row) throw new NotFoundError(`token ${id} not found`);
  return toView(row.revokedAt ? row : await db.prisma.apiToken.update({ where: { id }, data: { revokedAt: now } }));
}

/** Used at most this often per token, so a scraper's every request does not write. */
const TOUCH_EVERY_MS = 5 * 60_000;

/** The user and role a presented API token acts as; null when it is unknown, revoked, expired or its user disabled. */
export async function authenticateApiToken(db: PrismaDb, token: string, now = new Date()): Promise<{ user: StoredUser; role: Role; tokenId: number } | null> {
  if (!token.startsWith(API_TOKEN_PREFIX)) return null;
  const row = await db.prisma.apiToken.findUnique({ where: { tokenHash: hashToken(token) }, include: { user: true } });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now) || !isRole(row.role)) return null;
  const user = toStoredUser(row.user);
  if (user.disabled) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
    await db.prisma.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  }
  return { user, role: lesserRole(row.role, user.role), tokenId: row.id };
}
