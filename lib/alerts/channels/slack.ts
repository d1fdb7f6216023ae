import type { WebhookPayload } from '../../protocol/alerts';

const ICON = { firing: { critical: ':red_circle:', warning: ':large_orange_circle:', info: ':large_blue_circle:' }, resolved: ':large_green_circle:' };

/**
 * Slack's escaping (api.slack.com/reference/surfaces/formatting#escaping): `&`, `<` and `>` as HTML entities, and only
 * those three. Every value interpolated into mrkdwn comes from an agent (hostnames, label values) or a rule, so none of it
 * may open a `<!channel>` mention or a `<http://elsewhere|disguised>` link.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack's incoming-webhook body (also what Mattermost and Rocket.Chat accept): `text` plus one mrkdwn section. */
export function slackPayload(payload: WebhookPayload): { text: string; blocks: unknown[] } {
  const { alert, event } = payload;
  const icon = event === 'resolved' ? ICON.resolved : ICON.firing[alert.severity];
  const head = `${icon} *[${event.toUpperCase()}] ${alert.severity}* ${escapeMrkdwn(alert.annotations.summary ?? alert.ruleId)}`;
  const lines = [head];
  if (alert.annotations.description) lines.push(escapeMrkdwn(alert.annotations.description));
  // The link's own URL: escaped as well (Slack decodes the entities), with `|` encoded so it cannot end the URL early.
  lines.push(`<${escapeMrkdwn(alert.url).replace(/\|/g, '%7C')}|Open in inferwatch>`);
  const text = lines.join('\n');
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
