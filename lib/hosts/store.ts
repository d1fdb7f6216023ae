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

const tokenHostRow = z.object({ id: column.id, region: z.string() });

/** The host a token hash belongs to, unless its token was revoked. */
export function findHostByTokenHash(sql: Pick<Sql, 'query'>, tokenHash: string) {
  return queryRow(sql, 'hosts', tokenHostRow, 'SELECT id, region FROM hosts WHERE token_hash = $1 AND token_revoked_at IS NULL', [tokenHash]);
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

/**
 * The host this machine already is, locked for the enrolling transaction: the same machine-id in the region first,
 * else the same hostname (an agent without a machine-id, or a reinstalled machine).
 */
export function lockEnrolledHost(tx: Sql, machine: MachineIdentity) {
  return queryRow(
    tx,
    'hosts',
    enrolledRow,
    `SELECT id, last_seq FROM hosts
      WHERE region = $1 AND (($2::text IS NOT NULL AND machine_id = $2) OR hostname = $3)
      ORDER BY (machine_id IS NOT DISTINCT FROM $2) DESC, id
      FOR UPDATE`,
    [machine.region, machine.machineId, machine.hostname],
  );
}

// hosts.last_seq is written a few seconds behind ingest (see GroupCommitWriter): the ledger has every stored seq.
const LAST_SEQ = 'GREATEST(last_seq, (SELECT max(l.seq) FROM report_ledger l WHERE l.host_id = hosts.id)) AS last_seq';

/** Gives an enrolled host a new token (the old one stops at once) and returns its last stored seq. */
export async function rotateHostToken(tx: Sql, hostId: number, tokenHash: string, machine: MachineIdentity): Promise<EnrolledHost> {
  const [updated] = await queryRows(
    tx,
    'hosts',
    enrolledRow,
    `UPDATE hosts SET token_hash = $2, token_revoked_at = NULL, hostname = $3, machine_id = COALESCE($4, machine_id)
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
 * Ingest's progress per host, as five arrays (ids, seqs, ts and seen time in epoch ms, configured intervals or NULL;
 * lib/ingest/write/host-progress.ts builds them). Row locks in host-id order, so two writers touching the same hosts
 * at once (server processes, embedded transactions) cannot deadlock. Exported as text because the group-commit writer
 * sends it with its own query timeout.
 */
export const RECORD_HOST_PROGRESS_SQL = `
UPDATE hosts h
   SET last_seen_at = GREATEST(h.last_seen_at, to_timestamp(v.seen_ms / 1000)),
       last_seq = GREATEST(h.last_seq, v.seq),
       last_report_ts = GREATEST(h.last_report_ts, to_timestamp(v.ts_ms / 1000)),
       report_every_ms = COALESCE(v.report_every_ms, h.report_every_ms)
  FROM (SELECT id FROM hosts WHERE id = ANY($1::int4[]) ORDER BY id FOR UPDATE) l,
       unnest($1::int4[], $2::int8[], $3::float8[], $4::float8[], $5::int4[]) AS v(id, seq, ts_ms, seen_ms, report_every_ms)
 WHERE h.id = l.id AND h.id = v.id`;
