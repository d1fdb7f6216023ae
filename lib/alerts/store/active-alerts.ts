import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { SEVERITIES, type Severity } from '../../protocol/findings';
import type { NotifiableAlert, NotificationPlan } from '../notify-plan';
import type { ActiveAlert, AlertChanges } from '../plan';

const severity = z.enum(SEVERITIES);
const occurrence = {
  id: column.int8,
  rule_id: z.string(),
  host_id: column.id.nullable(),
  region: z.string().nullable(),
  severity,
  labels: column.labels,
  annotations: column.labels,
};

const activeRow = z.object({
  ...occurrence,
  fingerprint: z.string(),
  state: z.enum(['pending', 'firing']),
  pending_at: column.timestamp,
  fired_at: column.timestamp.nullable(),
  clear_since: column.timestamp.nullable(),
  peak_value: z.number().nullable(),
  notified: z.enum(['none', 'firing', 'resolved']),
});

const ms = (d: Date | null) => (d === null ? null : d.getTime());

const ACTIVE_COLUMNS = `id, rule_id, fingerprint, host_id, region, state, severity, labels, annotations, pending_at, fired_at,
  clear_since, peak_value, notified`;

/** The unresolved occurrences (of some hosts' alerts only, for a targeted cycle). */
export async function readActiveAlerts(sql: Sql, hostIds?: readonly number[]): Promise<ActiveAlert[]> {
  const rows = hostIds
    ? await queryRows(sql, 'alerts', activeRow, `SELECT ${ACTIVE_COLUMNS} FROM alerts WHERE state <> 'resolved' AND host_id = ANY($1::int4[])`, [hostIds])
    : await queryRows(sql, 'alerts', activeRow, `SELECT ${ACTIVE_COLUMNS} FROM alerts WHERE state <> 'resolved'`);
  return rows.map((r) => ({
    id: r.id,
    ruleId: r.rule_id,
    fingerprint: r.fingerprint,
    hostId: r.host_id,
    region: r.region,
    state: r.state,
    severity: r.severity,
    labels: r.labels,
    annotations: r.annotations,
    pendingAtMs: r.pending_at.getTime(),
    firedAtMs: ms(r.fired_at),
    clearSinceMs: ms(r.clear_since),
    peakValue: r.peak_value,
    notified: r.notified,
  }));
}

const unnotifiedRow = z.object({
  ...occurrence,
  state: z.enum(['firing', 'resolved']),
  value: z.number().nullable(),
  threshold: z.number().nullable(),
  fired_at: column.timestamp,
  resolved_at: column.timestamp.nullable(),
  notified: z.enum(['none', 'firing', 'resolved']),
});

/**
 * What a cycle owes notifications for: firing occurrences no channel was told of yet (of some hosts, for a targeted
 * cycle), and the occurrences it just resolved that channels were told fired.
 */
export async function readUnnotifiedAlerts(tx: Sql, resolvedIds: readonly number[], hostIds?: readonly number[]): Promise<Omit<NotifiableAlert, 'url'>[]> {
  const rows = await queryRows(
    tx,
    'alerts',
    unnotifiedRow,
    `SELECT id, rule_id, state, severity, host_id, region, labels, annotations, value, threshold, fired_at, resolved_at, notified
       FROM alerts
      WHERE (state = 'firing' AND notified = 'none' ${hostIds ? 'AND host_id = ANY($2::int4[])' : ''})
         OR (id = ANY($1::int8[]) AND notified = 'firing')`,
    hostIds ? [resolvedIds, hostIds] : [resolvedIds],
  );
  return rows.map((r) => ({
    id: r.id,
    ruleId: r.rule_id,
    state: r.state,
    severity: r.severity,
    hostId: r.host_id,
    region: r.region,
    labels: r.labels,
    annotations: r.annotations,
    value: r.value,
    threshold: r.threshold,
    firedAtMs: r.fired_at.getTime(),
    resolvedAtMs: ms(r.resolved_at),
    notified: r.notified,
  }));
}

/** Records which event each occurrence's channels were queued. */
export async function markNotified(tx: Sql, notified: NotificationPlan['notified']): Promise<void> {
  if (notified.length === 0) return;
  await tx.query(`UPDATE alerts a SET notified = v.notified FROM unnest($1::int8[], $2::text[]) AS v(id, notified) WHERE a.id = v.id`, [
    notified.map((n) => n.alertId),
    notified.map((n) => n.notified),
  ]);
}

const firingCountRow = z.object({ rule_id: z.string(), severity, n: z.number().int() });

/** Firing occurrences per rule and severity. */
export async function countFiringAlerts(sql: Pick<Sql, 'query'>): Promise<{ ruleId: string; severity: Severity; n: number }[]> {
  const rows = await queryRows(sql, 'alerts', firingCountRow, `SELECT rule_id, severity, count(*)::int AS n FROM alerts WHERE state = 'firing' GROUP BY rule_id, severity`);
  return rows.map((r) => ({ ruleId: r.rule_id, severity: r.severity, n: r.n }));
}

/** Forgets resolved occurrences older than `before`. */
export async function pruneResolvedAlerts(sql: Pick<Sql, 'query'>, before: Date): Promise<void> {
  await sql.query(`DELETE FROM alerts WHERE state = 'resolved' AND resolved_at < $1`, [before]);
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

const openedRow = z.object({ id: column.int8, rule_id: z.string(), fingerprint: z.string() });

const date = (msValue: number | null) => (msValue === null ? null : new Date(msValue));

/** Writes one cycle's changes, a statement per kind of change; returns the ids of the occurrences it opened. */
export async function writeAlertChanges(tx: Sql, changes: AlertChanges, now: Date): Promise<Map<string, number>> {
  const opened = new Map<string, number>();
  const { inserts, updates, resolves, discards } = changes;
  if (inserts.length > 0) {
    const rows = await queryRows(tx, 'alerts', openedRow, INSERT_SQL, [
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
    for (const r of rows) opened.set(`${r.rule_id}\u0000${r.fingerprint}`, r.id);
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
