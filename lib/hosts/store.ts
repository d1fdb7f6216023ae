import { z } from 'zod';
import { column, queryRow, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';

/**
 * The `hosts` table and its companion `token_revocation_version`: every write to them, and the reads that identify a
 * host (by token, by machine). Pages and engines that join hosts to their series read it through their own read
 * models (see docs/data-layer.md).
 */

/** Whether a host with this id exists (a read API's 404 before it reads the host's series). */
export async function hostExists(sql: Pick<Sql, 'query'>, hostId: number): Promise<boolean> {
  return (await sql.query('SELECT 1 FROM hosts WHERE id = $1', [hostId])).length > 0;
}

const tokenHostRow = z.object({ id: column.id, region: z.string(), revoked: z.boolean() });

/** The host a token hash belongs to, and whether an administrator revoked that token. */
export function findHostByTokenHash(sql: Pick<Sql, 'query'>, tokenHash: string) {
  return queryRow(sql, 'hosts', tokenHostRow, 'SELECT id, region, token_revoked_at IS NOT NULL AS revoked FROM hosts WHERE token_hash = $1', [tokenHash]);
}

const agentFactsRow = z.object({
  token_revoked_at: column.timestamp.nullable(),
  reenroll_approved_until: column.timestamp.nullable(),
  last_report_ts: column.timestamp.nullable(),
});

/**
 * Whether an administrator revoked the host's token, until when a re-enrollment of it is approved, and the time of
 * its newest stored report (written a few seconds behind ingest); undefined: no such host.
 */
export function readHostAgentFacts(sql: Pick<Sql, 'query'>, hostId: number) {
  return queryRow(sql, 'hosts', agentFactsRow, 'SELECT token_revoked_at, reenroll_approved_until, last_report_ts FROM hosts WHERE id = $1', [hostId]);
}

const versionRow = z.object({ version: column.int8 });

/** Bumped by every transaction that stops a token; other processes drop their cached lookups when it moves. */
export async function readRevocationVersion(sql: Pick<Sql, 'query'>): Promise<number> {
  const row = await queryRow(sql, 'token_revocation_version', versionRow, 'SELECT version FROM token_revocation_version WHERE id = 1');
  return row?.version ?? 0;
}

async function bumpRevocationVersion(tx: Sql): Promise<void> {
  await tx.query('UPDATE token_revocation_version SET version = version + 1 WHERE id = 1');
}

/** Stops the host's current token; false when there is no such host. */
export function revokeHostTokenRow(sql: Sql, hostId: number): Promise<boolean> {
  return sql.transaction(async (tx) => {
    const revoked = await tx.query('UPDATE hosts SET token_revoked_at = COALESCE(token_revoked_at, now()) WHERE id = $1 RETURNING id', [hostId]);
    if (revoked.length > 0) await bumpRevocationVersion(tx);
    return revoked.length > 0;
  });
}

const enrolledRow = z.object({ id: column.id, last_seq: column.int8.nullable() });
export type EnrolledHost = z.output<typeof enrolledRow>;

export interface MachineIdentity {
  region: string;
  hostname: string;
  machineId: string | null;
}

const candidateRow = z.object({
  id: column.id,
  hostname: z.string(),
  machine_id: z.string().nullable(),
  revoked: z.boolean(),
  token_match: z.boolean(),
  approved: z.boolean(),
});
/** The host an enrollment would take over, with what the request proved about it. */
export type EnrollCandidate = z.output<typeof candidateRow>;

/**
 * The host in the region this enrollment is about, locked for its transaction: the one whose current token (or the
 * token it replaced less than `rotatedTokenProofMs` ago) was presented first, else the same machine-id, else the same
 * hostname. Whether the request may take it (token, machine-id, an administrator's approval) is the caller's call.
 */
export function lockEnrollCandidate(tx: Sql, machine: MachineIdentity, tokenHash: string | null, rotatedTokenProofMs: number) {
  return queryRow(
    tx,
    'hosts',
    candidateRow,
    `SELECT id, hostname, machine_id, token_revoked_at IS NOT NULL AS revoked,
            COALESCE(token_hash = $4 OR (previous_token_hash = $4 AND token_rotated_at > now() - make_interval(secs => $5 / 1000.0)), false) AS token_match,
            COALESCE(reenroll_approved_until > now(), false) AS approved
       FROM hosts
      WHERE region = $1 AND (($2::text IS NOT NULL AND machine_id = $2) OR hostname = $3 OR ($4::text IS NOT NULL AND (token_hash = $4 OR previous_token_hash = $4)))
      ORDER BY token_match DESC, (machine_id IS NOT DISTINCT FROM $2) DESC, id
      LIMIT 1
      FOR UPDATE`,
    [machine.region, machine.machineId, machine.hostname, tokenHash, rotatedTokenProofMs],
  );
}

/** How many hosts enrolled with this enrollment key (its max_hosts cap counts them). */
export async function countHostsOfEnrollmentKey(sql: Pick<Sql, 'query'>, enrollmentKeyId: number): Promise<number> {
  const row = await queryRow(sql, 'hosts', z.object({ n: column.int8 }), 'SELECT count(*) AS n FROM hosts WHERE enrollment_key_id = $1', [enrollmentKeyId]);
  return row?.n ?? 0;
}

const approvalRow = z.object({ id: column.id, hostname: z.string(), region: z.string(), reenroll_approved_until: column.timestamp });

/** Lets one enrollment take the host without proof until `validMs` from now (also after a revocation); undefined: no such host. */
export function approveHostReenrollment(sql: Pick<Sql, 'query'>, hostId: number, validMs: number) {
  return queryRow(
    sql,
    'hosts',
    approvalRow,
    `UPDATE hosts SET reenroll_approved_until = now() + make_interval(secs => $2 / 1000.0) WHERE id = $1
     RETURNING id, hostname, region, reenroll_approved_until`,
    [hostId, validMs],
  );
}

// hosts.last_seq is written a few seconds behind ingest (see GroupCommitWriter): the ledger has every stored seq.
const LAST_SEQ = 'GREATEST(last_seq, (SELECT max(l.seq) FROM report_ledger l WHERE l.host_id = hosts.id)) AS last_seq';

/**
 * Gives an enrolled host a new token (the old one stops at once, and stays proof on enroll for a while unless it had
 * been revoked), uses up an approval, and returns the host's last stored seq.
 */
export async function rotateHostToken(tx: Sql, hostId: number, tokenHash: string, machine: MachineIdentity): Promise<EnrolledHost> {
  const [updated] = await queryRows(
    tx,
    'hosts',
    enrolledRow,
    `UPDATE hosts SET previous_token_hash = CASE WHEN token_revoked_at IS NULL THEN token_hash END, token_rotated_at = now(),
                      token_hash = $2, token_revoked_at = NULL, reenroll_approved_until = NULL,
                      hostname = $3, machine_id = COALESCE($4, machine_id)
      WHERE id = $1 RETURNING id, ${LAST_SEQ}`,
    [hostId, tokenHash, machine.hostname, machine.machineId],
  );
  await bumpRevocationVersion(tx);
  return updated!;
}

export interface NewHost extends MachineIdentity {
  labels: Record<string, string>;
  tokenHash: string;
  enrollmentKeyId: number;
}

export async function insertHost(tx: Sql, host: NewHost): Promise<EnrolledHost> {
  const [created] = await queryRows(
    tx,
    'hosts',
    enrolledRow,
    `INSERT INTO hosts (hostname, machine_id, region, labels, token_hash, enrollment_key_id)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6) RETURNING id, last_seq`,
    [host.hostname, host.machineId, host.region, JSON.stringify(host.labels), host.tokenHash, host.enrollmentKeyId],
  );
  return created!;
}

/**
 * Ingest's progress per host, as six arrays (ids, seqs, ts and seen time in epoch ms, configured intervals or NULL,
 * agent versions or NULL; lib/ingest/write/host-progress.ts builds them). Row locks in host-id order, so two writers touching the same hosts
 * at once (server processes, embedded transactions) cannot deadlock. Exported as text because the group-commit writer
 * sends it with its own query timeout.
 */
export const RECORD_HOST_PROGRESS_SQL = `
UPDATE hosts h
   SET last_seen_at = GREATEST(h.last_seen_at, to_timestamp(v.seen_ms / 1000)),
       last_seq = GREATEST(h.last_seq, v.seq),
       last_report_ts = GREATEST(h.last_report_ts, to_timestamp(v.ts_ms / 1000)),
       report_every_ms = COALESCE(v.report_every_ms, h.report_every_ms),
       agent_version = COALESCE(v.agent_version, h.agent_version)
  FROM (SELECT id FROM hosts WHERE id = ANY($1::int4[]) ORDER BY id FOR UPDATE) l,
       unnest($1::int4[], $2::int8[], $3::float8[], $4::float8[], $5::int4[], $6::text[])
         AS v(id, seq, ts_ms, seen_ms, report_every_ms, agent_version)
 WHERE h.id = l.id AND h.id = v.id`;
