import { z } from 'zod';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import { ConflictError, NotFoundError } from '../../errors';
import type { AcknowledgeAlertInput, Alert, AlertsQuery, AlertsResponse, AlertState } from '../../protocol/alerts';
import { SEVERITIES } from '../../protocol/findings';

const alertRow = z.object({
  id: column.int8,
  rule_id: z.string(),
  fingerprint: z.string(),
  state: z.enum(['pending', 'firing', 'resolved']),
  severity: z.enum(SEVERITIES),
  host_id: column.id.nullable(),
  region: z.string().nullable(),
  labels: column.labels,
  annotations: column.labels,
  value: z.number().nullable(),
  peak_value: z.number().nullable(),
  threshold: z.number().nullable(),
  pending_at: column.timestamp,
  fired_at: column.timestamp.nullable(),
  resolved_at: column.timestamp.nullable(),
  last_evaluated_at: column.timestamp,
  ack_at: column.timestamp.nullable(),
  ack_by: z.string().nullable(),
  ack_comment: z.string().nullable(),
});
type AlertRow = z.output<typeof alertRow>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

function toAlert(r: AlertRow): Alert {
  return {
    id: r.id,
    ruleId: r.rule_id,
    fingerprint: r.fingerprint,
    state: r.state,
    severity: r.severity,
    hostId: r.host_id,
    region: r.region,
    labels: r.labels,
    annotations: r.annotations,
    value: r.value,
    peakValue: r.peak_value,
    threshold: r.threshold,
    pendingAt: r.pending_at.toISOString(),
    firedAt: iso(r.fired_at),
    resolvedAt: iso(r.resolved_at),
    lastEvaluatedAt: r.last_evaluated_at.toISOString(),
    acknowledgement: r.ack_at ? { at: r.ack_at.toISOString(), by: r.ack_by ?? '', comment: r.ack_comment ?? '' } : null,
  };
}

const STATES: Record<AlertsQuery['state'], AlertState[]> = {
  active: ['pending', 'firing'],
  pending: ['pending'],
  firing: ['firing'],
  resolved: ['resolved'],
  all: ['pending', 'firing', 'resolved'],
};

/** Alerts by state (active by default), most severe and newest first; with from/to, those active in the range. */
export async function listAlerts(db: Pick<Database, 'sql'>, query: AlertsQuery): Promise<AlertsResponse> {
  const params: unknown[] = [STATES[query.state]];
  const conditions = ['state = ANY($1::text[])'];
  const add = (sqlText: string, value: unknown) => {
    params.push(value);
    conditions.push(sqlText.replaceAll('?', `$${params.length}`));
  };
  if (query.rule) add('rule_id = ?', query.rule);
  if (query.host) add('host_id = ?', query.host);
  if (query.region) add('region = ?', query.region);
  if (query.severity) add('severity = ?', query.severity);
  if (query.from) add('(resolved_at IS NULL OR resolved_at >= ?)', query.from);
  if (query.to) add('pending_at < ?', query.to);
  params.push(query.limit + 1);
  const rows = await queryRows(
    db.sql,
    'alerts',
    alertRow,
    `SELECT * FROM alerts WHERE ${conditions.join(' AND ')}
      ORDER BY CASE state WHEN 'firing' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END,
               CASE severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, COALESCE(resolved_at, pending_at) DESC, id DESC
      LIMIT $${params.length}`,
    params,
  );
  return { alerts: rows.slice(0, query.limit).map(toAlert), truncated: rows.length > query.limit };
}

export async function getAlert(db: Pick<Database, 'sql'>, id: number): Promise<Alert> {
  const [row] = await queryRows(db.sql, 'alerts', alertRow, 'SELECT * FROM alerts WHERE id = $1', [id]);
  if (!row) throw new NotFoundError(`alert ${id} not found`);
  return toAlert(row);
}

/** Says someone is on it: recorded on the occurrence and sent along to Alertmanager; it does not stop the alert. */
export async function acknowledgeAlert(db: Pick<Database, 'sql'>, id: number, input: AcknowledgeAlertInput, now = new Date()): Promise<Alert> {
  const [row] = await queryRows(
    db.sql,
    'alerts',
    alertRow,
    `UPDATE alerts SET ack_at = $2, ack_by = $3, ack_comment = $4 WHERE id = $1 AND state <> 'resolved' RETURNING *`,
    [id, now, input.by, input.comment],
  );
  if (!row) {
    await getAlert(db, id);
    throw new ConflictError(`alert ${id} is resolved`);
  }
  return toAlert(row);
}

export async function clearAcknowledgement(db: Pick<Database, 'sql'>, id: number): Promise<Alert> {
  const [row] = await queryRows(
    db.sql,
    'alerts',
    alertRow,
    'UPDATE alerts SET ack_at = NULL, ack_by = NULL, ack_comment = NULL WHERE id = $1 RETURNING *',
    [id],
  );
  if (!row) throw new NotFoundError(`alert ${id} not found`);
  return toAlert(row);
}
