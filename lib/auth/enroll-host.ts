import 'server-only';
import type { Database } from '../db';
import type { EnrollRequest, EnrollResponse } from '../protocol';
import { BUMP_REVOCATION_VERSION_SQL, tokenAuthFor } from './authenticate-host';
import { enrollmentKeyRefusal, findEnrollmentKey, type EnrollmentKeyGrant } from './enrollment-keys';
import { HOST_TOKEN_PREFIX, generateToken, hashToken } from './tokens';

interface HostRow {
  id: number;
  last_seq: number | null;
}

async function findValidKey(db: Database, key: string | null, now: Date): Promise<EnrollmentKeyGrant> {
  const grant = await findEnrollmentKey(db, key);
  const refusal = enrollmentKeyRefusal(grant, now);
  if (refusal) throw refusal;
  return grant!;
}

// hosts.last_seq is written a few seconds behind ingest (see GroupCommitWriter): the ledger has every stored seq.
const LAST_SEQ = 'GREATEST(last_seq, (SELECT max(l.seq) FROM report_ledger l WHERE l.host_id = hosts.id)) AS last_seq';

/**
 * The same machine (machine-id, or hostname when the agent has no machine-id) in the key's region is the same host:
 * it gets a new token, the old one stops working, and it continues after its last stored seq. A known hostname with
 * a new machine-id (a reinstalled machine) is the same host too, since hostnames are unique per region.
 */
export async function enrollHost(database: Database, key: string | null, request: EnrollRequest): Promise<EnrollResponse> {
  const now = new Date();
  const enrollmentKey = await findValidKey(database, key, now);
  const token = generateToken(HOST_TOKEN_PREFIX);
  const tokenHash = hashToken(token);
  const host = await database.sql.transaction(async (tx) => {
    const candidates = await tx.query<HostRow & { machine_id: string | null; hostname: string }>(
      `SELECT id, last_seq, machine_id, hostname FROM hosts
        WHERE region = $1 AND (($2::text IS NOT NULL AND machine_id = $2) OR hostname = $3)
        ORDER BY (machine_id IS NOT DISTINCT FROM $2) DESC, id
        FOR UPDATE`,
      [enrollmentKey.region, request.machineId, request.hostname],
    );
    const existing = candidates[0];
    if (existing) {
      const [updated] = await tx.query<HostRow>(
        `UPDATE hosts SET token_hash = $2, token_revoked_at = NULL, hostname = $3, machine_id = COALESCE($4, machine_id)
          WHERE id = $1 RETURNING id, ${LAST_SEQ}`,
        [existing.id, tokenHash, request.hostname, request.machineId],
      );
      await tx.query(BUMP_REVOCATION_VERSION_SQL);
      return updated!;
    }
    const [created] = await tx.query<HostRow>(
      `INSERT INTO hosts (hostname, machine_id, region, labels, token_hash, enrollment_key_id)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6) RETURNING id, last_seq`,
      [request.hostname, request.machineId, enrollmentKey.region, JSON.stringify(enrollmentKey.labels ?? {}), tokenHash, enrollmentKey.id],
    );
    return created!;
  });
  tokenAuthFor(database).cache.forgetHost(host.id);
  return {
    hostId: host.id,
    token,
    region: enrollmentKey.region,
    nextSeq: host.last_seq === null ? 0 : Number(host.last_seq) + 1,
  };
}
