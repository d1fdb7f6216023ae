import 'server-only';
import type { Database } from '../db';
import { ConflictError, NotFoundError } from '../errors';
import type { UserInput, UserPatch, UserView } from '../protocol/auth';
import { isUniqueViolation } from '../db/errors';
import { hashPassword } from './passwords';
import { isRole, type Role } from '../protocol/roles';

type PrismaDb = Pick<Database, 'prisma'>;

interface UserRow {
  id: number;
  email: string;
  name: string;
  role: string;
  passwordHash: string | null;
  oidcSubject: string | null;
  createdAt: Date;
  disabledAt: Date | null;
}

export interface StoredUser {
  id: number;
  email: string;
  name: string;
  role: Role;
  passwordHash: string | null;
  disabled: boolean;
}

function roleOf(row: { role: string }): Role {
  // The column has a CHECK constraint; anything else is a bug, not a viewer.
  if (!isRole(row.role)) throw new Error(`user role ${JSON.stringify(row.role)} is not a role`);
  return row.role;
}

export const toUserView = (row: UserRow): UserView => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: roleOf(row),
  password: row.passwordHash !== null,
  sso: row.oidcSubject !== null,
  createdAt: row.createdAt.toISOString(),
  disabledAt: row.disabledAt?.toISOString() ?? null,
});

/** A user row as the auth code uses it (a session's or token's `include: { user: true }` gives one too). */
export const toStoredUser = (row: UserRow): StoredUser => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: roleOf(row),
  passwordHash: row.passwordHash,
  disabled: row.disabledAt !== null,
});

export async function createUser(db: PrismaDb, input: UserInput): Promise<UserView> {
  try {
    const row = await db.prisma.user.create({
      data: { email: input.email, name: input.name, role: input.role, passwordHash: input.password ? await hashPassword(input.password) : null },
    });
    return toUserView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`a user with email ${input.email} exists`);
    throw err;
  }
}

export async function listUsers(db: PrismaDb): Promise<UserView[]> {
  return (await db.prisma.user.findMany({ orderBy: { id: 'asc' } })).map(toUserView);
}

export async function findUserById(db: PrismaDb, id: number): Promise<StoredUser | null> {
  const row = await db.prisma.user.findUnique({ where: { id } });
  return row && toStoredUser(row);
}

export async function findUserByEmail(db: PrismaDb, email: string): Promise<StoredUser | null> {
  const row = await db.prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  return row && toStoredUser(row);
}

/** Changes what the patch gives; disabling a user or lowering their role also ends their sessions (the caller does). */
export async function updateUser(db: PrismaDb, id: number, patch: UserPatch): Promise<UserView> {
  const existing = await db.prisma.user.findUnique({ where: { id } });
  if (!existing) throw new NotFoundError(`user ${id} not found`);
  const row = await db.prisma.user.update({
    where: { id },
    data: {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.role !== undefined ? { role: patch.role } : {}),
      ...(patch.disabled !== undefined ? { disabledAt: patch.disabled ? (existing.disabledAt ?? new Date()) : null } : {}),
      ...(patch.password !== undefined ? { passwordHash: await hashPassword(patch.password) } : {}),
    },
  });
  return toUserView(row);
}

/** Admins who can still sign in: the last one may not be disabled or demoted, or nobody could administer. */
export async function countActiveAdmins(db: PrismaDb): Promise<number> {
  return db.prisma.user.count({ where: { role: 'admin', disabledAt: null } });
}

export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string;
  /** Whether the provider vouches for the email: only then may it link a user an admin created with that email. */
  emailVerified: boolean;
  name: string;
  role: Role;
}

/**
 * The user an OpenID provider signed in, by (issuer, subject): created on first sign-in, or an unlinked user an admin
 * made for that email linked when the provider verified it; the email, name and role follow the provider's claims on
 * every sign-in (the provider is where roles are managed). A disabled user stays refused.
 */
export async function upsertOidcUser(db: PrismaDb, identity: OidcIdentity): Promise<{ user: StoredUser; created: boolean }> {
  const email = identity.email.trim().toLowerCase();
  const data = { email, name: identity.name.slice(0, 200), role: identity.role };
  const key = { oidcIssuer: identity.issuer, oidcSubject: identity.subject };
  try {
    const linked = await db.prisma.user.findUnique({ where: { oidcIssuer_oidcSubject: key } });
    if (linked) return { user: toStoredUser(await db.prisma.user.update({ where: { id: linked.id }, data: linked.disabledAt ? {} : data })), created: false };
    const byEmail = await db.prisma.user.findUnique({ where: { email } });
    if (byEmail) {
      if (byEmail.oidcSubject !== null || !identity.emailVerified) {
        throw new ConflictError(`a user with email ${email} exists and is not linked to this sign-in; an admin can remove or rename it`);
      }
      return { user: toStoredUser(await db.prisma.user.update({ where: { id: byEmail.id }, data: byEmail.disabledAt ? key : { ...data, ...key } })), created: false };
    }
    return { user: toStoredUser(await db.prisma.user.create({ data: { ...data, ...key } })), created: true };
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`a user with email ${email} exists`);
    throw err;
  }
}
