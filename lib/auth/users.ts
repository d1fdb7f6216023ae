import 'server-only';
import type { Database } from '../db';
import { ConflictError, NotFoundError } from '../errors';
import type { Role, UserInput, UserPatch, UserView } from '../protocol/auth';
import { isUniqueViolation } from '../db/errors';
import { hashPassword } from './passwords';
import { isRole } from './roles';

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

const toStored = (row: UserRow): StoredUser => ({
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
    if (isUniqueViolation(err) || (err as { code?: string }).code === 'P2002') throw new ConflictError(`a user with email ${input.email} exists`);
    throw err;
  }
}

export async function listUsers(db: PrismaDb): Promise<UserView[]> {
  return (await db.prisma.user.findMany({ orderBy: { id: 'asc' } })).map(toUserView);
}

export async function findUserById(db: PrismaDb, id: number): Promise<StoredUser | null> {
  const row = await db.prisma.user.findUnique({ where: { id } });
  return row && toStored(row);
}

export async function findUserByEmail(db: PrismaDb, email: string): Promise<StoredUser | null> {
  const row = await db.prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  return row && toStored(row);
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
