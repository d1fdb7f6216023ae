import type { Database } from '../db/open';
import { escapeLabel } from '../fleet/prometheus';

/**
 * Prometheus text for /metrics, read from the database so every app process reports the same: alerts firing per
 * rule and severity (0 for enabled rules with none), and notification attempts failed per channel (a counter).
 */
export async function renderAlertMetrics(db: Pick<Database, 'sql'>): Promise<string> {
  const [firing, channels] = await Promise.all([
    db.sql.query<{ rule_id: string; severity: string; n: number }>(
      `SELECT r.id AS rule_id, r.severity, 0 AS n FROM alert_rules r WHERE r.enabled
       UNION ALL
       SELECT rule_id, severity, count(*)::int FROM alerts WHERE state = 'firing' GROUP BY rule_id, severity`,
    ),
    db.sql.query<{ name: string; kind: string; failures: number; deliveries: number }>(
      'SELECT name, kind, failures_total AS failures, deliveries_total AS deliveries FROM alert_channels ORDER BY name',
    ),
  ]);
  const byKey = new Map<string, { rule: string; severity: string; n: number }>();
  for (const row of firing) {
    const key = `${row.rule_id}\u0000${row.severity}`;
    const entry = byKey.get(key) ?? { rule: row.rule_id, severity: row.severity, n: 0 };
    entry.n += Number(row.n);
    byKey.set(key, entry);
  }
  const lines = [
    '# HELP inferwatch_alerts_firing Alerts firing now, by rule and severity.',
    '# TYPE inferwatch_alerts_firing gauge',
    ...[...byKey.values()]
      .sort((a, b) => a.rule.localeCompare(b.rule) || a.severity.localeCompare(b.severity))
      .map((e) => `inferwatch_alerts_firing{rule="${escapeLabel(e.rule)}",severity="${e.severity}"} ${e.n}`),
    '# HELP inferwatch_alert_notification_failures_total Notification attempts that failed, by channel.',
    '# TYPE inferwatch_alert_notification_failures_total counter',
    ...channels.map((c) => `inferwatch_alert_notification_failures_total{channel="${escapeLabel(c.name)}",kind="${c.kind}"} ${Number(c.failures)}`),
    '# HELP inferwatch_alert_notifications_delivered_total Notifications delivered, by channel.',
    '# TYPE inferwatch_alert_notifications_delivered_total counter',
    ...channels.map((c) => `inferwatch_alert_notifications_delivered_total{channel="${escapeLabel(c.name)}",kind="${c.kind}"} ${Number(c.deliveries)}`),
  ];
  return `${lines.join('\n')}\n`;
}
