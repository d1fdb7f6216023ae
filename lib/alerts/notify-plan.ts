import type { ChannelKind, LabelMatcher, WebhookPayload } from '../protocol/alerts';
import { SEVERITY_RANK, type Severity } from '../protocol/findings';
import { isSilenced, matchesAll, type SilenceWindow } from './matchers';

/** An occurrence that may owe a notification: firing and not yet told, or resolved after it was told. */
export interface NotifiableAlert {
  id: number;
  ruleId: string;
  state: 'firing' | 'resolved';
  severity: Severity;
  hostId: number | null;
  region: string | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  value: number | null;
  threshold: number | null;
  firedAtMs: number;
  resolvedAtMs: number | null;
  notified: 'none' | 'firing' | 'resolved';
  url: string;
}

export interface ChannelRoute {
  id: number;
  kind: ChannelKind;
  minSeverity: Severity;
  matchers: LabelMatcher[];
}

export interface NotificationPlan {
  events: { channelId: number; alertId: number; event: 'firing' | 'resolved'; payload: WebhookPayload }[];
  notified: { alertId: number; notified: 'firing' | 'resolved' }[];
}

export function routes(channel: ChannelRoute, alert: Pick<NotifiableAlert, 'severity' | 'labels'>): boolean {
  return SEVERITY_RANK[alert.severity] <= SEVERITY_RANK[channel.minSeverity] && matchesAll(channel.matchers, alert.labels);
}

export function webhookPayload(alert: NotifiableAlert, event: 'firing' | 'resolved'): WebhookPayload {
  return {
    version: 1,
    event,
    alert: {
      id: alert.id,
      ruleId: alert.ruleId,
      severity: alert.severity,
      labels: alert.labels,
      annotations: alert.annotations,
      value: alert.value,
      threshold: alert.threshold,
      startsAt: new Date(alert.firedAtMs).toISOString(),
      endsAt: alert.resolvedAtMs === null ? null : new Date(alert.resolvedAtMs).toISOString(),
      url: alert.url,
    },
  };
}

/**
 * Each occurrence tells the event channels (webhook, Slack) at most twice: once when it fires — unless a silence
 * matches, then once the silence is over if it still fires — and once when it resolves, only if it told them it
 * fired. Alertmanager channels are not in this plan: they are sent the whole current state instead (sync rows).
 */
export function planNotifications(
  alerts: readonly NotifiableAlert[],
  channels: readonly ChannelRoute[],
  silences: readonly SilenceWindow[],
  nowMs: number,
  /** Per alert, the channels its firing notification went to: its resolution goes to those alone. */
  firedTo: ReadonlyMap<number, ReadonlySet<number>> = new Map(),
): NotificationPlan {
  const plan: NotificationPlan = { events: [], notified: [] };
  const eventChannels = channels.filter((c) => c.kind !== 'alertmanager');
  for (const alert of alerts) {
    let event: 'firing' | 'resolved' | null = null;
    if (alert.state === 'firing' && alert.notified === 'none') {
      if (isSilenced(silences, alert.labels, nowMs)) continue;
      event = 'firing';
    } else if (alert.state === 'resolved' && alert.notified === 'firing') {
      event = 'resolved';
    }
    if (!event) continue;
    plan.notified.push({ alertId: alert.id, notified: event });
    const payload = webhookPayload(alert, event);
    for (const channel of eventChannels) {
      const owed = event === 'firing' ? routes(channel, alert) : (firedTo.get(alert.id)?.has(channel.id) ?? false);
      if (owed) plan.events.push({ channelId: channel.id, alertId: alert.id, event, payload });
    }
  }
  return plan;
}
