import 'server-only';
import type { Database } from '../db';
import type { EnrollRequest, EnrollResponse } from '../protocol';
import { insertHost, lockEnrolledHost, rotateHostToken } from '../hosts/store';
import { tokenAuthFor } from './authenticate-host';
import { enrollmentKeyRefusal, findEnrollmentKey, type EnrollmentKeyGrant } from './enrollment-keys';
import { HOST_TOKEN_PREFIX, generateToken, hashToken } from './tokens';

/** The grant of a usable enrollment key; 401 for a missing or unknown key, 403 for a revoked or expired one. */
export async function requireEnrollmentKey(db: Pick<Database, 'prisma'>, key: string | null, now = new Date()): Promise<EnrollmentKeyGrant> {
  const grant = await findEnrollmentKey(db, key);
  const refusal = enrollmentKeyRefusal(grant, now);
  if (refusal) throw refusal;
  return grant!;
}

/**
 * The same machine (machine-id, or hostname when the agent has no machine-id) in the key's region is the same host:
 * it gets a new token, the old one stops working, and it continues after its last stored seq. A known hostname with
 * a new machine-id (a reinstalled machine) is the same host too, since hostnames are unique per region.
 */
export async function enrollHost(database: Database, key: string | null | EnrollmentKeyGrant, request: EnrollRequest): Promise<EnrollResponse> {
  const enrollmentKey = typeof key === 'object' && key !== null ? key : await requireEnrollmentKey(database, key);
  const token = generateToken(HOST_TOKEN_PREFIX);
  const tokenHash = hashToken(token);
  const machine = { region: enrollmentKey.region, hostname: request.hostname, machineId: request.machineId };
  const host = await database.sql.transaction(async (tx) => {
    const existing = await lockEnrolledHost(tx, machine);
    if (existing) return rotateHostToken(tx, existing.id, tokenHash, machine);
    return insertHost(tx, { ...machine, labels: enrollmentKey.labels, tokenHash, enrollmentKeyId: enrollmentKey.id });
  });
  tokenAuthFor(database).cache.forgetHost(host.id);
  return {
    hostId: host.id,
    token,
    region: enrollmentKey.region,
    nextSeq: host.last_seq === null ? 0 : host.last_seq + 1,
  };
}
