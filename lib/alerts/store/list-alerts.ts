import type { Database } from '../../db/open';
import { ConflictError, NotFoundError } from '../../errors';
import type { AcknowledgeAlertInput, Alert, AlertsQuery, AlertsResponse, AlertState } from '../../protocol/alerts';
import type { Severity } from '../../protocol/findings';

interface AlertRow {
  id: number;
  rule_id: string;
  fingerprint: string;
  state: AlertState;
  severity: Severity;
  host_id: number | null;
  region: string | null;
  labels: Record<string, string> | string;
  annotations: Record<string, string> | string;
  value: number | null;
  peak_value: number | null;
  threshold: number | null;
  pending_at: Date;
  fired_at: Date | null;
  resolved_at: Date | null;
  last_evaluated_at: Date;
  ack_at: Date | null;
  ack_by: string | null;
  ack_comment: string | null;
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());
const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

function toAlert(r: AlertRow): Alert {
  return {
    id: Number(r.id),
    ruleId: r.rule_id,
    fingerprint: r.fingerprint,
    state: r.state,
    severity: r.severity,
    hostId: r.host_id,
    region: r.region,
    labels: json(r.labels),
    annotations: json(r.annotations),
    value: r.value,
    peakValue: r.peak_value,
    threshold: r.threshold,
    pendingAt: iso(r.pending_at)!,
    firedAt: iso(r.fired_at),
    resolvedAt: iso(r.resolved_at),
    lastEvaluatedAt: iso(r.last_evaluated_at)!,
    acknowledgement: r.ack_at ? { at: iso(r.ack_at)!, by: r.ack_by ?? '', comment: r.ack_comment ?? '' } : null,
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
  const rows = await db.sql.query<AlertRow>(
    `SELECT * FROM alerts WHERE ${conditions.join(' AND ')}
      ORDER BY CASE state WHEN 'firing' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END,
               CASE severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, COALESCE(resolved_at, pending_at) DESC, id DESC
      LIMIT $${params.length}`,
    params,
  );
  return { alerts: rows.slice(0, query.limit).map(toAlert), truncated: rows.length > query.limit };
}

export async function getAlert(db: Pick<Database, 'sql'>, id: number): Promise<Alert> {
  const [row] = await db.sql.query<AlertRow>('SELECT * FROM alerts WHERE id = $1', [id]);
  if (!row) throw new NotFoundError(`alert ${id} not found`);
  return toAlert(row);
}

/** Says someone is on it: recorded on the occurrence and sent along to Alertmanager; it does not stop the alert. */
export async function acknowledgeAlert(db: Pick<Database, 'sql'>, id: number, input: AcknowledgeAlertInput, now = new Date()): Promise<Alert> {
  const [row] = await db.sql.query<AlertRow>(
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
  const [row] = await db.sql.query<AlertRow>('UPDATE alerts SET ack_at = NULL, ack_by = NULL, ack_comment = NULL WHERE id = $1 RETURNING *', [id]);
  if (!row) throw new NotFoundError(`alert ${id} not found`);
  return toAlert(row);
}
