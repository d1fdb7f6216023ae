import type { Database } from '../db/open';
import { escapeLabel } from '../fleet/prometheus';
import { readChannelCounters } from './channels/channel-store';
import { countFiringAlerts } from './store/active-alerts';
import { readEnabledRuleSeverities } from './store/rules';

/**
 * Prometheus text for /metrics, read from the database so every app process reports the same: alerts firing per
 * rule and severity (0 for enabled rules with none), and notification attempts failed per channel (a counter).
 */
export async function renderAlertMetrics(db: Pick<Database, 'sql'>): Promise<string> {
  const [enabled, firing, channels] = await Promise.all([readEnabledRuleSeverities(db.sql), countFiringAlerts(db.sql), readChannelCounters(db.sql)]);
  const byKey = new Map<string, { rule: string; severity: string; n: number }>();
  for (const row of [...enabled.map((r) => ({ ...r, n: 0 })), ...firing]) {
    const key = `${row.ruleId}\u0000${row.severity}`;
    const entry = byKey.get(key) ?? { rule: row.ruleId, severity: row.severity, n: 0 };
    entry.n += row.n;
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
    ...channels.map((c) => `inferwatch_alert_notification_failures_total{channel="${escapeLabel(c.name)}",kind="${c.kind}"} ${c.failures}`),
    '# HELP inferwatch_alert_notifications_delivered_total Notifications delivered, by channel.',
    '# TYPE inferwatch_alert_notifications_delivered_total counter',
    ...channels.map((c) => `inferwatch_alert_notifications_delivered_total{channel="${escapeLabel(c.name)}",kind="${c.kind}"} ${c.deliveries}`),
  ];
  return `${lines.join('\n')}\n`;
}
