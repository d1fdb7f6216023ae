import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { FINDING_STATES, SEVERITIES, type FindingEvidence, type FindingState, type Severity } from '../../protocol/findings';
import type { Verdict } from '../types';

/** An unresolved finding as the engine diffs against it. */
export interface StoredFinding {
  id: number;
  ruleId: string;
  hostId: number | null;
  region: string;
  subject: string;
  severity: Severity;
  state: Exclude<FindingState, 'resolved'>;
  peakValue: number | null;
  firstSeenAtMs: number;
  /** When a cycle last wrote it: tells an engine whether the row still holds what it wrote itself. */
  lastEvaluatedAtMs: number;
}

export interface FindingInsert {
  ruleId: string;
  hostId: number | null;
  region: string;
  subject: string;
  state: 'pending' | 'open';
  verdict: Verdict;
}

export interface FindingUpdate {
  id: number;
  /** Set when a pending finding has held long enough to open. */
  opens: boolean;
  peakValue: number | null;
  verdict: Verdict;
}

export interface FindingChanges {
  inserts: FindingInsert[];
  updates: FindingUpdate[];
  /** Open findings whose condition no longer holds. */
  resolves: number[];
  /** Pending findings whose condition went away before they opened: they never happened. */
  discards: number[];
}

/** A findings row as the table holds it: this store declares it, and readers pick the columns they select. */
export const findingRow = z.object({
  id: column.int8,
  rule_id: z.string(),
  host_id: column.id.nullable(),
  region: z.string(),
  subject: z.string(),
  severity: z.enum(SEVERITIES),
  state: z.enum(FINDING_STATES),
  message: z.string(),
  remedy: z.string(),
  evidence: column.document<FindingEvidence>(),
  value: z.number().nullable(),
  peak_value: z.number().nullable(),
  first_seen_at: column.timestamp,
  opened_at: column.timestamp.nullable(),
  resolved_at: column.timestamp.nullable(),
  last_evaluated_at: column.timestamp,
  ack_at: column.timestamp.nullable(),
  ack_reason: z.string().nullable(),
  ack_expires_at: column.timestamp.nullable(),
});

const activeRow = findingRow
  .pick({ id: true, rule_id: true, host_id: true, region: true, subject: true, severity: true, peak_value: true, first_seen_at: true, last_evaluated_at: true })
  .extend({ state: z.enum(['pending', 'open']) });

/** Unresolved findings, of some hosts (and no region findings) or of everything. */
export async function listActiveFindings(sql: Sql, hostIds?: readonly number[]): Promise<StoredFinding[]> {
  const rows = hostIds
    ? await queryRows(
        sql,
        'findings',
        activeRow,
        `SELECT id, rule_id, host_id, region, subject, severity, state, peak_value, first_seen_at, last_evaluated_at FROM findings
         WHERE state <> 'resolved' AND host_id = ANY($1::int4[])`,
        [hostIds],
      )
    : await queryRows(
        sql,
        'findings',
        activeRow,
        `SELECT id, rule_id, host_id, region, subject, severity, state, peak_value, first_seen_at, last_evaluated_at FROM findings
         WHERE state <> 'resolved'`,
      );
  return rows.map((r) => ({
    id: r.id,
    ruleId: r.rule_id,
    hostId: r.host_id,
    region: r.region,
    subject: r.subject,
    severity: r.severity,
    state: r.state,
    peakValue: r.peak_value,
    firstSeenAtMs: r.first_seen_at.getTime(),
    lastEvaluatedAtMs: r.last_evaluated_at.getTime(),
  }));
}

const INSERT_SQL = `
INSERT INTO findings (rule_id, host_id, region, subject, severity, state, message, remedy, evidence, value, peak_value,
                      first_seen_at, opened_at, last_evaluated_at)
SELECT v.rule_id, v.host_id, v.region, v.subject, v.severity, v.state, v.message, v.remedy, v.evidence::jsonb, v.value,
       v.value, $10::timestamptz, CASE WHEN v.state = 'open' THEN $10::timestamptz END, $10::timestamptz
  FROM unnest($1::text[], $2::int4[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
              $9::text[], $11::float8[])
       AS v(rule_id, host_id, region, subject, severity, state, message, remedy, evidence, value)
ON CONFLICT DO NOTHING`;

const UPDATE_SQL = `
UPDATE findings f
   SET severity = v.severity, message = v.message, remedy = v.remedy, evidence = v.evidence::jsonb, value = v.value,
       peak_value = v.peak_value, last_evaluated_at = $8::timestamptz,
       state = CASE WHEN v.opens THEN 'open' ELSE f.state END,
       opened_at = CASE WHEN v.opens THEN $8::timestamptz ELSE f.opened_at END
  FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[], $9::bool[])
       AS v(id, severity, message, remedy, evidence, value, peak_value, opens)
 WHERE f.id = v.id AND f.state <> 'resolved'`;

const RESOLVE_SQL = `
UPDATE findings SET state = 'resolved', resolved_at = $2, last_evaluated_at = $2
 WHERE id = ANY($1::int8[]) AND state = 'open'`;

const DISCARD_SQL = `DELETE FROM findings WHERE id = ANY($1::int8[]) AND state = 'pending'`;

export interface AppliedChanges {
  opened: number;
  updated: number;
  resolved: number;
}

/** Writes one cycle's changes in one transaction, a statement per kind of change. */
export async function applyFindingChanges(sql: Sql, changes: FindingChanges, now: Date): Promise<AppliedChanges> {
  return sql.transaction(async (tx) => {
    const { inserts, updates } = changes;
    if (inserts.length > 0) {
      await tx.query(INSERT_SQL, [
        inserts.map((i) => i.ruleId),
        inserts.map((i) => i.hostId),
        inserts.map((i) => i.region),
        inserts.map((i) => i.subject),
        inserts.map((i) => i.verdict.severity),
        inserts.map((i) => i.state),
        inserts.map((i) => i.verdict.message),
        inserts.map((i) => i.verdict.remedy),
        inserts.map((i) => JSON.stringify(i.verdict.evidence satisfies FindingEvidence)),
        now,
        inserts.map((i) => i.verdict.value ?? null),
      ]);
    }
    if (updates.length > 0) {
      await tx.query(UPDATE_SQL, [
        updates.map((u) => u.id),
        updates.map((u) => u.verdict.severity),
        updates.map((u) => u.verdict.message),
        updates.map((u) => u.verdict.remedy),
        updates.map((u) => JSON.stringify(u.verdict.evidence)),
        updates.map((u) => u.verdict.value ?? null),
        updates.map((u) => u.peakValue),
        now,
        updates.map((u) => u.opens),
      ]);
    }
    if (changes.resolves.length > 0) await tx.query(RESOLVE_SQL, [changes.resolves, now]);
    if (changes.discards.length > 0) await tx.query(DISCARD_SQL, [changes.discards]);
    return {
      opened: inserts.filter((i) => i.state === 'open').length + updates.filter((u) => u.opens).length,
      updated: updates.length,
      resolved: changes.resolves.length,
    };
  });
}

/** Forgets resolved occurrences older than `before`: the history the findings page shows is bounded. */
export async function deleteResolvedFindings(sql: Sql, before: Date): Promise<void> {
  await sql.query(`DELETE FROM findings WHERE state = 'resolved' AND resolved_at < $1`, [before]);
}

export interface FindingAcknowledgement {
  at: Date;
  reason: string;
  expiresAt: Date | null;
}

/** Acknowledges an unresolved finding; false when it is resolved or does not exist. */
export async function setFindingAcknowledgement(sql: Pick<Sql, 'query'>, id: number, ack: FindingAcknowledgement): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE findings SET ack_at = $2, ack_reason = $3, ack_expires_at = $4 WHERE id = $1 AND state <> 'resolved' RETURNING id`,
    [id, ack.at, ack.reason, ack.expiresAt],
  );
  return rows.length > 0;
}

export async function clearFindingAcknowledgement(sql: Pick<Sql, 'query'>, id: number): Promise<void> {
  await sql.query('UPDATE findings SET ack_at = NULL, ack_reason = NULL, ack_expires_at = NULL WHERE id = $1', [id]);
}
