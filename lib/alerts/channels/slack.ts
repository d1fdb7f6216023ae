import type { WebhookPayload } from '../../protocol/alerts';

const ICON = { firing: { critical: ':red_circle:', warning: ':large_orange_circle:', info: ':large_blue_circle:' }, resolved: ':large_green_circle:' };

/** Slack's incoming-webhook body (also what Mattermost and Rocket.Chat accept): `text` plus one mrkdwn section. */
export function slackPayload(payload: WebhookPayload): { text: string; blocks: unknown[] } {
  const { alert, event } = payload;
  const icon = event === 'resolved' ? ICON.resolved : ICON.firing[alert.severity];
  const head = `${icon} *[${event.toUpperCase()}] ${alert.severity}* ${alert.annotations.summary ?? alert.ruleId}`;
  const lines = [head];
  if (alert.annotations.description) lines.push(alert.annotations.description);
  lines.push(`<${alert.url}|Open in inferwatch>`);
  const text = lines.join('\n');
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
