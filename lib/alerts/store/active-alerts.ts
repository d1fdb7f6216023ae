import type { Sql } from '../../db/sql';
import type { Severity } from '../../protocol/findings';
import type { ActiveAlert, AlertChanges } from '../plan';

interface ActiveRow {
  id: number;
  rule_id: string;
  fingerprint: string;
  host_id: number | null;
  region: string | null;
  state: 'pending' | 'firing';
  severity: Severity;
  labels: Record<string, string> | string;
  annotations: Record<string, string> | string;
  pending_at: Date;
  fired_at: Date | null;
  clear_since: Date | null;
  peak_value: number | null;
  notified: ActiveAlert['notified'];
}

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
const ms = (d: Date | null) => (d === null ? null : new Date(d).getTime());

const ACTIVE_COLUMNS = `id, rule_id, fingerprint, host_id, region, state, severity, labels, annotations, pending_at, fired_at,
  clear_since, peak_value, notified`;

/** The unresolved occurrences (of some hosts' alerts only, for a targeted cycle). */
export async function readActiveAlerts(sql: Sql, hostIds?: readonly number[]): Promise<ActiveAlert[]> {
  const rows = hostIds
    ? await sql.query<ActiveRow>(`SELECT ${ACTIVE_COLUMNS} FROM alerts WHERE state <> 'resolved' AND host_id = ANY($1::int4[])`, [hostIds])
    : await sql.query<ActiveRow>(`SELECT ${ACTIVE_COLUMNS} FROM alerts WHERE state <> 'resolved'`);
  return rows.map((r) => ({
    id: Number(r.id),
    ruleId: r.rule_id,
    fingerprint: r.fingerprint,
    hostId: r.host_id,
    region: r.region,
    state: r.state,
    severity: r.severity,
    labels: json(r.labels),
    annotations: json(r.annotations),
    pendingAtMs: ms(r.pending_at)!,
    firedAtMs: ms(r.fired_at),
    clearSinceMs: ms(r.clear_since),
    peakValue: r.peak_value,
    notified: r.notified,
  }));
}

const INSERT_SQL = `
INSERT INTO alerts (rule_id, fingerprint, host_id, region, labels, annotations, severity, state, value, peak_value, threshold,
                    pending_at, fired_at, last_evaluated_at)
SELECT v.rule_id, v.fingerprint, v.host_id, v.region, v.labels::jsonb, v.annotations::jsonb, v.severity, v.state, v.value,
       v.value, v.threshold, v.pending_at, v.fired_at, $13
  FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
              $9::float8[], $10::float8[], $11::timestamptz[], $12::timestamptz[])
       AS v(rule_id, fingerprint, host_id, region, labels, annotations, severity, state, value, threshold, pending_at, fired_at)
ON CONFLICT DO NOTHING
RETURNING id, rule_id, fingerprint`;

const UPDATE_SQL = `
UPDATE alerts a
   SET labels = v.labels::jsonb, annotations = v.annotations::jsonb, severity = v.severity, state = v.state, value = v.value,
       peak_value = v.peak_value, threshold = v.threshold, fired_at = v.fired_at, clear_since = v.clear_since,
       last_evaluated_at = $11
  FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[], $8::float8[],
              $9::timestamptz[], $10::timestamptz[])
       AS v(id, labels, annotations, severity, state, value, peak_value, threshold, fired_at, clear_since)
 WHERE a.id = v.id AND a.state <> 'resolved'`;

const RESOLVE_SQL = `
UPDATE alerts a
   SET state = 'resolved', resolved_at = $4, last_evaluated_at = $4, clear_since = NULL, value = v.value,
       annotations = v.annotations::jsonb
  FROM unnest($1::int8[], $2::float8[], $3::text[]) AS v(id, value, annotations)
 WHERE a.id = v.id AND a.state = 'firing'`;

const DISCARD_SQL = `DELETE FROM alerts WHERE id = ANY($1::int8[]) AND state = 'pending'`;

const date = (msValue: number | null) => (msValue === null ? null : new Date(msValue));

/** Writes one cycle's changes, a statement per kind of change; returns the ids of the occurrences it opened. */
export async function writeAlertChanges(tx: Sql, changes: AlertChanges, now: Date): Promise<Map<string, number>> {
  const opened = new Map<string, number>();
  const { inserts, updates, resolves, discards } = changes;
  if (inserts.length > 0) {
    const rows = await tx.query<{ id: number; rule_id: string; fingerprint: string }>(INSERT_SQL, [
      inserts.map((i) => i.ruleId),
      inserts.map((i) => i.fingerprint),
      inserts.map((i) => i.hostId),
      inserts.map((i) => i.region),
      inserts.map((i) => JSON.stringify(i.labels)),
      inserts.map((i) => JSON.stringify(i.annotations)),
      inserts.map((i) => i.severity),
      inserts.map((i) => i.phase.state),
      inserts.map((i) => i.value),
      inserts.map((i) => i.threshold),
      inserts.map((i) => date(i.phase.pendingAtMs)),
      inserts.map((i) => date(i.phase.firedAtMs)),
      now,
    ]);
    for (const r of rows) opened.set(`${r.rule_id}\u0000${r.fingerprint}`, Number(r.id));
  }
  if (updates.length > 0) {
    await tx.query(UPDATE_SQL, [
      updates.map((u) => u.id),
      updates.map((u) => JSON.stringify(u.labels)),
      updates.map((u) => JSON.stringify(u.annotations)),
      updates.map((u) => u.severity),
      updates.map((u) => u.phase.state),
      updates.map((u) => u.value),
      updates.map((u) => u.peakValue),
      updates.map((u) => u.threshold),
      updates.map((u) => date(u.phase.firedAtMs)),
      updates.map((u) => date(u.phase.clearSinceMs)),
      now,
    ]);
  }
  if (resolves.length > 0) {
    await tx.query(RESOLVE_SQL, [resolves.map((r) => r.id), resolves.map((r) => r.value), resolves.map((r) => JSON.stringify(r.annotations)), now]);
  }
  if (discards.length > 0) await tx.query(DISCARD_SQL, [discards]);
  return opened;
}
