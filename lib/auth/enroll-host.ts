import 'server-only';
import type { Database } from '../db';
import { holdTransactionLock } from '../db/locks';
import { AppError, ForbiddenError, NotFoundError } from '../errors';
import type { EnrollRequest, EnrollResponse } from '../protocol';
import { DAY_MS, MINUTE_MS } from '../protocol/time';
import { approveHostReenrollment, countHostsOfEnrollmentKey, insertHost, lockEnrollCandidate, rotateHostToken, type EnrollCandidate } from '../hosts/store';
import { recordAudit } from './audit';
import { tokenAuthFor } from './authenticate-host';
import { enrollmentKeyRefusal, findEnrollmentKey, type EnrollmentKeyGrant } from './enrollment-keys';
import { HOST_TOKEN_PREFIX, generateToken, hashToken } from './tokens';
import type { ReenrollApproval } from '../protocol/admin';

/** A token replaced by a re-enrollment still proves the host on enroll this long: a retry whose answer was lost. */
export const ROTATED_TOKEN_PROOF_MS = 15 * MINUTE_MS;

/** How long an administrator's approval of a re-enrollment stays open (it is used up by the first enrollment). */
export const REENROLL_APPROVAL_MS = DAY_MS;

/** The grant of a usable enrollment key; 401 for a missing or unknown key, 403 for a revoked or expired one. */
export async function requireEnrollmentKey(db: Pick<Database, 'prisma'>, key: string | null, now = new Date()): Promise<EnrollmentKeyGrant> {
  const grant = await findEnrollmentKey(db, key);
  const refusal = enrollmentKeyRefusal(grant, now);
  if (refusal) throw refusal;
  return grant!;
}

const approveCommand = (hostId: number) => `npm run admin -- hosts approve-reenroll ${hostId} (or POST /api/v1/admin/hosts/${hostId}/reenroll-approval)`;

/**
 * Whether an enrollment may take an existing host. Hostnames are public (the fleet page, /metrics), so a hostname
 * is no proof: the host's token (or the one it just replaced), the machine-id it enrolled with, or an
 * administrator's approval is. A revoked host stays revoked until an administrator approves it.
 */
export function reenrollmentRefusal(candidate: EnrollCandidate, region: string, machineId: string | null): AppError | null {
  if (candidate.approved) return null;
  if (candidate.revoked) {
    return new AppError(403, 'host_revoked', `host ${candidate.id} in region ${region} was revoked by an administrator and stays revoked until one approves its re-enrollment (${approveCommand(candidate.id)})`);
  }
  if (candidate.token_match) return null;
  if (machineId !== null && candidate.machine_id === machineId) return null;
  return new AppError(
    409,
    'reenrollment_not_proven',
    `host ${candidate.id} in region ${region} is already enrolled under this name, and this request does not prove it is that host ` +
      `(neither its host token nor its machine id). If it is the same machine (its agent lost its state, or it was reinstalled), ` +
      `an administrator approves one re-enrollment: ${approveCommand(candidate.id)}. Otherwise give this machine another hostname.`,
  );
}

/**
 * The same machine in the key's region is the same host — proven by its token, its machine-id or an administrator's
 * approval (reenrollmentRefusal): it gets a new token, the old one stops working, and it continues after its last
 * stored seq. Anything else is a new host, within the key's max_hosts. Either is audited, with the address it came from.
 */
export async function enrollHost(database: Database, key: string | null | EnrollmentKeyGrant, request: EnrollRequest, clientIp = ''): Promise<EnrollResponse> {
  const enrollmentKey = typeof key === 'object' && key !== null ? key : await requireEnrollmentKey(database, key);
  const token = generateToken(HOST_TOKEN_PREFIX);
  const tokenHash = hashToken(token);
  const machine = { region: enrollmentKey.region, hostname: request.hostname, machineId: request.machineId };
  const presented = request.hostToken?.startsWith(HOST_TOKEN_PREFIX) ? hashToken(request.hostToken) : null;
  let reenrolled = false;
  const host = await database.sql.transaction(async (tx) => {
    // One enrollment at a time: a key's host count and a new hostname are checked and taken in one step.
    await holdTransactionLock(tx, 'enroll');
    const existing = await lockEnrollCandidate(tx, machine, presented, ROTATED_TOKEN_PROOF_MS);
    if (existing) {
      const refusal = reenrollmentRefusal(existing, machine.region, machine.machineId);
      if (refusal) throw refusal;
      reenrolled = true;
      return rotateHostToken(tx, existing.id, tokenHash, machine);
    }
    if (enrollmentKey.maxHosts !== null && (await countHostsOfEnrollmentKey(tx, enrollmentKey.id)) >= enrollmentKey.maxHosts) {
      throw new ForbiddenError(`enrollment key ${enrollmentKey.id} allows at most ${enrollmentKey.maxHosts} hosts, and they are enrolled: use another key`);
    }
    return insertHost(tx, { ...machine, labels: enrollmentKey.labels, tokenHash, enrollmentKeyId: enrollmentKey.id });
  });
  tokenAuthFor(database).cache.forgetHost(host.id);
  await recordAudit(database, { kind: 'agent', userId: null, name: `enrollment key ${enrollmentKey.id} (${enrollmentKey.name})` }, clientIp, {
    action: reenrolled ? 'host.reenroll' : 'host.enroll',
    target: `host ${host.id} (${request.hostname})`,
    detail: { hostId: host.id, hostname: request.hostname, region: enrollmentKey.region, keyId: enrollmentKey.id, keyName: enrollmentKey.name },
  });
  return {
    hostId: host.id,
    token,
    region: enrollmentKey.region,
    nextSeq: host.last_seq === null ? 0 : host.last_seq + 1,
  };
}

/**
 * Lets the next enrollment of this host (same hostname or machine-id in its region) through without proof, within
 * REENROLL_APPROVAL_MS: a machine that lost its agent state or was reinstalled, or a revoked host let back in.
 */
export async function approveReenrollment(database: Database, hostId: number, validMs = REENROLL_APPROVAL_MS): Promise<ReenrollApproval> {
  const row = await approveHostReenrollment(database.sql, hostId, validMs);
  if (!row) throw new NotFoundError(`host ${hostId} does not exist`);
  return { hostId: row.id, hostname: row.hostname, region: row.region, approvedUntil: row.reenroll_approved_until.toISOString() };
}
