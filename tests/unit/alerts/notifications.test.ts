import { describe, expect, test } from 'vitest';
import { postableAlert } from '../../../lib/alerts/channels/alertmanager';
import { SecretBox, secretPrefix } from '../../../lib/alerts/channels/secret-box';
import { signWebhook, verifyWebhookSignature } from '../../../lib/alerts/channels/signature';
import { slackPayload } from '../../../lib/alerts/channels/slack';
import { backoffDelayMs, isPermanentStatus, nextAttemptAt, DEFAULT_BACKOFF } from '../../../lib/alerts/delivery/backoff';
import { redact } from '../../../lib/alerts/delivery/send';
import { dashboardUrl, describeStolenCpus } from '../../../lib/alerts/describe';
import { isSilenced, matchesAll } from '../../../lib/alerts/matchers';
import { planNotifications, webhookPayload, type NotifiableAlert } from '../../../lib/alerts/notify-plan';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const alert = (overrides: Partial<NotifiableAlert> = {}): NotifiableAlert => ({
  id: 1, ruleId: 'steal-spike', state: 'firing', severity: 'warning', hostId: 3, region: 'oslo',
  labels: { alertname: 'steal-spike', severity: 'warning', host: 'gpu-1', host_id: '3', region: 'oslo' },
  annotations: { summary: 'CPU steal spike on gpu-1: 14 %', description: 'Lost most: vCPUs 2 (31 %), 3 (27 %).' },
  value: 14, threshold: 10, firedAtMs: NOW - 60_000, resolvedAtMs: null, notified: 'none', url: 'http://iw.test/hosts/3', ...overrides,
});
const webhook = { id: 1, kind: 'webhook' as const, minSeverity: 'info' as const, matchers: [] };
const pager = { id: 2, kind: 'slack' as const, minSeverity: 'critical' as const, matchers: [] };
const am = { id: 3, kind: 'alertmanager' as const, minSeverity: 'info' as const, matchers: [] };

describe('which notifications an occurrence owes', () => {
  test('firing goes to every event channel it routes to (severity, matchers), never to Alertmanager as an event', () => {
    const plan = planNotifications([alert()], [webhook, pager, am], [], NOW);
    expect(plan.events.map((e) => [e.channelId, e.event])).toEqual([[1, 'firing']]);
    expect(plan.notified).toEqual([{ alertId: 1, notified: 'firing' }]);
  });

  test('a silenced firing alert notifies nobody and stays owed; once the silence ends it notifies', () => {
    const silence = { id: 1, matchers: [{ name: 'host', value: 'gpu-.*', isRegex: true, isEqual: true }], startsAtMs: NOW - 1, endsAtMs: NOW + 60_000 };
    expect(planNotifications([alert()], [webhook], [silence], NOW)).toEqual({ events: [], notified: [] });
    expect(planNotifications([alert()], [webhook], [silence], NOW + 60_000).events).toHaveLength(1);
  });

  test('resolved is sent only to the channels that were told it fired, and only if they were', () => {
    const resolved = alert({ state: 'resolved', notified: 'firing', resolvedAtMs: NOW });
    const plan = planNotifications([resolved], [webhook, pager], [], NOW, new Map([[1, new Set([1])]]));
    expect(plan.events.map((e) => [e.channelId, e.event, e.payload.alert.endsAt])).toEqual([[1, 'resolved', new Date(NOW).toISOString()]]);
    expect(planNotifications([alert({ state: 'resolved', notified: 'none' })], [webhook], [], NOW)).toEqual({ events: [], notified: [] });
  });

  test('an occurrence already told it fired is not told again', () => {
    expect(planNotifications([alert({ notified: 'firing' })], [webhook], [], NOW).events).toEqual([]);
  });
});

describe('matchers (Alertmanager semantics)', () => {
  const labels = { alertname: 'steal-spike', region: 'oslo' };
  test('equality, anchored regexes, negation, and missing labels as the empty string', () => {
    expect(matchesAll([{ name: 'region', value: 'oslo', isRegex: false, isEqual: true }], labels)).toBe(true);
    expect(matchesAll([{ name: 'region', value: 'os', isRegex: true, isEqual: true }], labels)).toBe(false);
    expect(matchesAll([{ name: 'region', value: 'os.*', isRegex: true, isEqual: true }], labels)).toBe(true);
    expect(matchesAll([{ name: 'region', value: 'oslo', isRegex: false, isEqual: false }], labels)).toBe(false);
    expect(matchesAll([{ name: 'device', value: '', isRegex: false, isEqual: true }], labels)).toBe(true);
  });
  test('a silence counts from its start to before its end', () => {
    const s = [{ id: 1, matchers: [], startsAtMs: 10, endsAtMs: 20 }];
    expect([9, 10, 19, 20].map((t) => isSilenced(s, labels, t))).toEqual([false, true, true, false]);
  });
});

describe('retry backoff', () => {
  test('doubles from 1 s up to 5 min, with jitter between half and all of it', () => {
    expect([1, 2, 3, 10, 30].map((n) => backoffDelayMs(n, DEFAULT_BACKOFF, () => 1))).toEqual([1_000, 2_000, 4_000, 300_000, 300_000]);
    expect(backoffDelayMs(4, DEFAULT_BACKOFF, () => 0)).toBe(4_000);
  });
  test('an event gives up after maxAttempts or maxAge; a sync never does', () => {
    const policy = { ...DEFAULT_BACKOFF, maxAttempts: 3 };
    expect(nextAttemptAt({ kind: 'event', attempts: 3, createdAtMs: NOW }, NOW, policy, () => 0)).toBeNull();
    expect(nextAttemptAt({ kind: 'event', attempts: 1, createdAtMs: NOW - policy.maxAgeMs }, NOW, policy, () => 0)).toBeNull();
    expect(nextAttemptAt({ kind: 'sync', attempts: 99, createdAtMs: 0 }, NOW, policy, () => 0)).toBe(NOW + 150_000);
  });
  test('4xx other than 408 and 429 are not retried', () => {
    expect([400, 401, 404, 408, 429, 500, 503].map(isPermanentStatus)).toEqual([true, true, true, false, false, false, false]);
  });
});

describe('webhook signature', () => {
  const body = JSON.stringify(webhookPayload(alert(), 'firing'));
  test('verifies with the secret, within the tolerance, for exactly this body', () => {
    const header = signWebhook('s3cret-signing-key', body, NOW);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature('s3cret-signing-key', header, body, NOW + 1_000)).toBe(true);
    expect(verifyWebhookSignature('another-key-entirely', header, body, NOW)).toBe(false);
    expect(verifyWebhookSignature('s3cret-signing-key', header, `${body} `, NOW)).toBe(false);
    // A replay ten minutes later is refused by its signed timestamp.
    expect(verifyWebhookSignature('s3cret-signing-key', header, body, NOW + 10 * 60_000)).toBe(false);
  });
});

describe('channel secrets', () => {
  test('are sealed with AES-GCM: another key cannot open them, nor can a flipped byte pass', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const sealed = box.seal('https://hooks.slack.com/services/T000/B000/XXXXXXXX');
    expect(sealed).not.toContain('hooks.slack.com');
    expect(box.open(sealed)).toBe('https://hooks.slack.com/services/T000/B000/XXXXXXXX');
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow();
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[20] = bytes[20]! ^ 1;
    const tampered = `v1:${bytes.toString('base64')}`;
    expect(() => box.open(tampered)).toThrow();
  });
  test('show a prefix that cannot be used', () => {
    expect(secretPrefix('0123456789abcdef0123')).toBe('0123…');
    const url = 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXX';
    expect(secretPrefix(url).length).toBeLessThan(url.length / 2 + 2);
    expect(redact(`connect ECONNREFUSED ${url}`, url)).not.toContain(url);
  });
});

describe('payloads', () => {
  test('Slack: one mrkdwn section with the summary, description and a link', () => {
    const slack = slackPayload(webhookPayload(alert(), 'firing'));
    expect(slack.text).toContain('[FIRING] warning* CPU steal spike on gpu-1: 14 %');
    expect(slack.text).toContain('<http://iw.test/hosts/3|Open in inferwatch>');
    expect(slackPayload(webhookPayload(alert({ resolvedAtMs: NOW }), 'resolved')).text).toMatch(/^:large_green_circle: \*\[RESOLVED\]/);
  });
  test('Slack: agent-sent hostnames and label values cannot mention the channel or disguise a link', () => {
    const host = '<!channel> <http://x|y> & more';
    const slack = slackPayload(
      webhookPayload(alert({ annotations: { summary: `CPU steal spike on ${host}: 14 %`, description: `service <@U123> on ${host}` }, url: 'http://iw.test/hosts/3?service=a|b&x=<y>' }), 'firing'),
    );
    expect(slack.text).toContain('CPU steal spike on &lt;!channel&gt; &lt;http://x|y&gt; &amp; more: 14 %');
    expect(slack.text).toContain('service &lt;@U123&gt; on &lt;!channel&gt;');
    expect(slack.text).toContain('<http://iw.test/hosts/3?service=a%7Cb&amp;x=&lt;y&gt;|Open in inferwatch>');
    expect(slack.text).not.toContain('<!channel>');
    expect(slack.text).not.toContain('<http://x');
    // The only `<` left is the one link of our own.
    expect(slack.text.match(/</g)).toHaveLength(1);
    expect(JSON.stringify(slack.blocks)).not.toContain('<!channel>');
  });
  test('Alertmanager: firing alerts end 4 re-send periods ahead, resolved ones at their resolution', () => {
    const state = { labels: { alertname: 'x' }, annotations: {}, firedAtMs: NOW - 60_000, url: 'http://iw.test/' };
    expect(postableAlert({ ...state, resolvedAtMs: null }, NOW, 60_000).endsAt).toBe(new Date(NOW + 240_000).toISOString());
    expect(postableAlert({ ...state, resolvedAtMs: NOW - 5_000 }, NOW, 60_000)).toMatchObject({
      startsAt: new Date(NOW - 60_000).toISOString(),
      endsAt: new Date(NOW - 5_000).toISOString(),
      generatorURL: 'http://iw.test/',
    });
  });
  test('links go to the host’s dashboard page, or to its region’s with the latency series', () => {
    expect(dashboardUrl('http://iw.test:3000/', { hostId: 12, region: 'oslo' })).toBe('http://iw.test:3000/hosts/12');
    expect(dashboardUrl('http://iw.test:3000', { hostId: null, region: 'frankfurt', service: 'generate' })).toBe('http://iw.test:3000/regions?regions=frankfurt&latency=generate');
  });
  test('a steal alert names at most three vCPUs, those that lost at least half as much as the most', () => {
    expect(describeStolenCpus([{ cpu: 2, stealPct: 31 }, { cpu: 3, stealPct: 27.4 }, { cpu: 0, stealPct: 1.2 }, { cpu: 1, stealPct: 1.1 }])).toBe('vCPUs 2 (31.0 %), 3 (27.4 %)');
    expect(describeStolenCpus([4, 5, 6, 7, 8].map((s, cpu) => ({ cpu, stealPct: 20 - s })))).toBe('vCPUs 0 (16.0 %), 1 (15.0 %), 2 (14.0 %)');
    expect(describeStolenCpus([{ cpu: 0, stealPct: 0.4 }])).toBeNull();
  });
});
