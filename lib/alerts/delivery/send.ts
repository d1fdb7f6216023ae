import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_SIGNATURE_HEADER } from '../../protocol/alerts';
import { alertmanagerAlertsUrl, type PostableAlert } from '../channels/alertmanager';
import type { DeliverableChannel } from '../channels/channel-store';
import { signWebhook } from '../channels/signature';
import { slackPayload } from '../channels/slack';
import type { ClaimedDelivery } from '../store/deliveries';

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Alertmanager accepts any number of alerts per POST; batches keep each request small. */
export const ALERTMANAGER_BATCH = 500;

const USER_AGENT = 'inferwatch-alerts/1';

/** The HTTP requests that deliver one claimed row to its channel (several for a large Alertmanager sync). */
export function buildRequests(channel: DeliverableChannel, delivery: ClaimedDelivery, nowMs: number, state?: PostableAlert[]): HttpRequest[] {
  const json = { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT };
  switch (channel.kind) {
    case 'webhook': {
      const body = JSON.stringify(delivery.payload);
      return [
        {
          url: channel.url,
          headers: {
            ...json,
            [WEBHOOK_SIGNATURE_HEADER]: signWebhook(channel.secret ?? '', body, nowMs),
            [WEBHOOK_DELIVERY_HEADER]: String(delivery.id),
          },
          body,
        },
      ];
    }
    case 'slack':
      return [{ url: channel.url, headers: json, body: JSON.stringify(slackPayload(delivery.payload!)) }];
    case 'alertmanager': {
      const alerts = state ?? [];
      const headers = channel.secret ? { ...json, Authorization: `Bearer ${channel.secret}` } : json;
      const batches: HttpRequest[] = [];
      for (let i = 0; i < alerts.length; i += ALERTMANAGER_BATCH) {
        batches.push({ url: alertmanagerAlertsUrl(channel.url), headers, body: JSON.stringify(alerts.slice(i, i + ALERTMANAGER_BATCH)) });
      }
      return batches;
    }
  }
}

/** An error message with the channel's secret (a Slack URL, a token) cut down to its prefix. */
export function redact(message: string, secret: string | null): string {
  if (!secret || secret.length < 8) return message;
  return message.split(secret).join(`${secret.slice(0, Math.min(12, Math.floor(secret.length / 3)))}…`);
}
