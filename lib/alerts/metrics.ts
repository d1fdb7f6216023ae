import { Counter, Gauge, type Registry } from 'prom-client';
import type { Database } from '../db/open';
import { sharedRead } from '../metrics/shared-read';
import { readChannelCounters } from './channels/channel-store';
import { countFiringAlerts } from './store/active-alerts';
import { readEnabledRuleSeverities } from './store/rules';

type ReadDb = () => Promise<Pick<Database, 'sql'>>;

/**
 * Read from the database at each scrape, so every app process reports the same: alerts firing per rule and severity
 * (0 for enabled rules with none), and notification attempts failed and delivered per channel (counters the outbox
 * keeps in alert_channels).
 */
export function registerAlertMetrics(registry: Registry, readDb: ReadDb): void {
  new Gauge({
    name: 'inferwatch_alerts_firing',
    help: 'Alerts firing now, by rule and severity.',
    labelNames: ['rule', 'severity'],
    registers: [registry],
    async collect() {
      const db = await readDb();
      const [enabled, firing] = await Promise.all([readEnabledRuleSeverities(db.sql), countFiringAlerts(db.sql)]);
      const byKey = new Map<string, { rule: string; severity: string; n: number }>();
      for (const row of [...enabled.map((r) => ({ ...r, n: 0 })), ...firing]) {
        const key = `${row.ruleId}\u0000${row.severity}`;
        const entry = byKey.get(key) ?? { rule: row.ruleId, severity: row.severity, n: 0 };
        entry.n += row.n;
        byKey.set(key, entry);
      }
      this.reset();
      for (const e of [...byKey.values()].sort((a, b) => a.rule.localeCompare(b.rule) || a.severity.localeCompare(b.severity))) {
        this.set({ rule: e.rule, severity: e.severity }, e.n);
      }
    },
  });
  const channels = sharedRead(async () => readChannelCounters((await readDb()).sql));
  const perChannel = (name: string, help: string, value: (c: Awaited<ReturnType<typeof readChannelCounters>>[number]) => number) =>
    new Counter({
      name,
      help,
      labelNames: ['channel', 'kind'],
      registers: [registry],
      async collect() {
        const rows = await channels();
        this.reset();
        for (const c of rows) this.inc({ channel: c.name, kind: c.kind }, value(c));
      },
    });
  perChannel('inferwatch_alert_notification_failures_total', 'Notification attempts that failed, by channel.', (c) => c.failures);
  perChannel('inferwatch_alert_notifications_delivered_total', 'Notifications delivered, by channel.', (c) => c.deliveries);
}
