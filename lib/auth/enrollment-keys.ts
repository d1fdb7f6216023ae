import 'server-only';
import { getDb, type Database } from '../db';
import { NotFoundError } from '../errors';
import { ENROLLMENT_KEY_PREFIX, generateToken, hashToken, tokenDisplayPrefix } from './tokens';

export interface EnrollmentKeyInput {
  name: string;
  region: string;
  labels: Record<string, string>;
  expiresAt?: Date | null;
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
}

function toSummary(row: EnrollmentKeyRow): EnrollmentKeySummary {
  return {
    id: row.id,
    name: row.name,
    tokenPrefix: row.tokenPrefix,
    region: row.region,
    labels: (row.labels ?? {}) as Record<string, string>,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
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
} as const;

export async function createEnrollmentKey(input: EnrollmentKeyInput, db?: Database): Promise<CreatedEnrollmentKey> {
  const { prisma } = db ?? (await getDb());
  const key = generateToken(ENROLLMENT_KEY_PREFIX);
  const row = await prisma.enrollmentKey.create({
    data: {
      name: input.name,
      region: input.region,
      labels: input.labels,
      expiresAt: input.expiresAt ?? null,
      tokenHash: hashToken(key),
      tokenPrefix: tokenDisplayPrefix(key),
    },
    select: summarySelect,
  });
  return { ...toSummary(row), key };
}

export async function listEnrollmentKeys(db?: Database): Promise<EnrollmentKeySummary[]> {
  const { prisma } = db ?? (await getDb());
  const rows = await prisma.enrollmentKey.findMany({ select: summarySelect, orderBy: { id: 'asc' } });
  return rows.map(toSummary);
}

/** Revoking twice keeps the first revocation time. Hosts already enrolled keep their own tokens. */
export async function revokeEnrollmentKey(id: number, db?: Database): Promise<EnrollmentKeySummary> {
  const { prisma } = db ?? (await getDb());
  const existing = await prisma.enrollmentKey.findUnique({ where: { id }, select: summarySelect });
  if (!existing) throw new NotFoundError(`enrollment key ${id} does not exist`);
  if (existing.revokedAt) return toSummary(existing);
  const row = await prisma.enrollmentKey.update({ where: { id }, data: { revokedAt: new Date() }, select: summarySelect });
  return toSummary(row);
}
