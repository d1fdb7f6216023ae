import 'server-only';
import type { Database } from '../db';
import { column } from '../db/rows';
import { AppError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors';
import { ENROLLMENT_KEY_PREFIX, generateToken, hashToken, tokenDisplayPrefix } from './tokens';

export interface EnrollmentKeyInput {
  name: string;
  region: string;
  labels: Record<string, string>;
  expiresAt?: Date | null;
  maxHosts?: number | null;
}

export interface EnrollmentKeySummary {
  id: number;
  name: string;
  tokenPrefix: string;
  region: string;
  labels: Record<string, string>;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /** At most this many hosts may enroll with the key; null: no cap. */
  maxHosts: number | null;
}

export interface CreatedEnrollmentKey extends EnrollmentKeySummary {
  /** The plaintext key: shown once, only its hash is stored. */
  key: string;
}

interface EnrollmentKeyRow {
  id: number;
  name: string;
  tokenPrefix: string;
  region: string;
  labels: unknown;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  maxHosts: number | null;
}

function toSummary(row: EnrollmentKeyRow): EnrollmentKeySummary {
  return {
    id: row.id,
    name: row.name,
    tokenPrefix: row.tokenPrefix,
    region: row.region,
    labels: column.labels.parse(row.labels ?? {}),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    maxHosts: row.maxHosts,
  };
}

const summarySelect = {
  id: true,
  name: true,
  tokenPrefix: true,
  region: true,
  labels: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  maxHosts: true,
} as const;

type PrismaDb = Pick<Database, 'prisma'>;

export async function createEnrollmentKey(db: PrismaDb, input: EnrollmentKeyInput): Promise<CreatedEnrollmentKey> {
  const { prisma } = db;
  const key = generateToken(ENROLLMENT_KEY_PREFIX);
  const row = await prisma.enrollmentKey.create({
    data: {
      name: input.name,
      region: input.region,
      labels: input.labels,
      expiresAt: input.expiresAt ?? null,
      maxHosts: input.maxHosts ?? null,
      tokenHash: hashToken(key),
      tokenPrefix: tokenDisplayPrefix(key),
    },
    select: summarySelect,
  });
  return { ...toSummary(row), key };
}

export async function listEnrollmentKeys(db: PrismaDb): Promise<EnrollmentKeySummary[]> {
  const { prisma } = db;
  const rows = await prisma.enrollmentKey.findMany({ select: summarySelect, orderBy: { id: 'asc' } });
  return rows.map(toSummary);
}

/** Revoking twice keeps the first revocation time. Hosts already enrolled keep their own tokens. */
export async function revokeEnrollmentKey(db: PrismaDb, id: number): Promise<EnrollmentKeySummary> {
  const { prisma } = db;
  const existing = await prisma.enrollmentKey.findUnique({ where: { id }, select: summarySelect });
  if (!existing) throw new NotFoundError(`enrollment key ${id} does not exist`);
  if (existing.revokedAt) return toSummary(existing);
  const row = await prisma.enrollmentKey.update({ where: { id }, data: { revokedAt: new Date() }, select: summarySelect });
  return toSummary(row);
}

export interface EnrollmentKeyGrant {
  id: number;
  name: string;
  region: string;
  labels: Record<string, string>;
  expiresAt: Date | null;
  revokedAt: Date | null;
  maxHosts: number | null;
}

/** The stored key a plaintext enrollment key stands for; null for anything that is not one. */
export async function findEnrollmentKey(db: PrismaDb, key: string | null): Promise<EnrollmentKeyGrant | null> {
  if (!key || !key.startsWith(ENROLLMENT_KEY_PREFIX)) return null;
  const row = await db.prisma.enrollmentKey.findUnique({
    where: { tokenHash: hashToken(key) },
    select: { id: true, name: true, region: true, labels: true, expiresAt: true, revokedAt: true, maxHosts: true },
  });
  return row && { ...row, labels: column.labels.parse(row.labels ?? {}) };
}

/** Why a key cannot enroll a host at `now` (401 unknown, 403 revoked or expired); null when it can. */
export function enrollmentKeyRefusal(grant: EnrollmentKeyGrant | null, now: Date): AppError | null {
  if (!grant) return new UnauthorizedError('missing or invalid enrollment key');
  if (grant.revokedAt) return new ForbiddenError('enrollment key has been revoked');
  if (grant.expiresAt && grant.expiresAt.getTime() <= now.getTime()) return new ForbiddenError('enrollment key has expired');
  return null;
}
