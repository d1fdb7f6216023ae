import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GET as getAlerts } from '../../app/api/v1/alerts/route';
import { GET as getAlert } from '../../app/api/v1/alerts/[id]/route';
import { DELETE as unacknowledge, PUT as acknowledge } from '../../app/api/v1/alerts/[id]/acknowledgement/route';
import { GET as getRules, POST as postRule } from '../../app/api/v1/alerts/rules/route';
import { DELETE as deleteRule, GET as getRule, PATCH as patchRule } from '../../app/api/v1/alerts/rules/[id]/route';
import { GET as getSilences, POST as postSilence } from '../../app/api/v1/alerts/silences/route';
import { DELETE as expireSilence } from '../../app/api/v1/alerts/silences/[id]/route';
import { GET as getChannels, POST as postChannel } from '../../app/api/v1/alerts/channels/route';
import { DELETE as deleteChannel, GET as getChannel, PATCH as patchChannel } from '../../app/api/v1/alerts/channels/[id]/route';
import { GET as getDeliveries } from '../../app/api/v1/alerts/deliveries/route';
import { GET as getMetrics } from '../../app/metrics/route';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import { AlertEngine } from '../../lib/alerts/engine';
import { ensureDefaultRules } from '../../lib/alerts/store/rules';
import { closeDb } from '../../lib/db';
import { openDatabase, type Database } from '../../lib/db/open';
import type { Alert, AlertRule, Channel, DeliveriesResponse, Silence } from '../../lib/protocol/alerts';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { enableOnly, SECRET_KEY } from './alerts-helpers';
import { enrolledHost } from './ingest-helpers';
import { rowsOf } from '../support/rows';

const ADMIN = 'test-admin-token';
let testDb: TestDatabase;
let db: Database;

const url = (path: string) => `http://localhost${path}`;
/** The server as it runs beyond loopback, where a request without a session or token is nobody. */
async function withoutLocalSignIn<T>(fn: () => Promise<T>): Promise<T> {
  process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
  try {
    return await fn();
  } finally {
    delete process.env.INFERWATCH_LOCAL_SIGN_IN;
  }
}

const admin = (method: string, body?: unknown) => ({
  method,
  headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});
const params = <T extends Record<string, string>>(value: T) => ({ params: Promise.resolve(value) });
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string; details?: { path: string }[] } }).error;

beforeAll(async () => {
  // The receivers here listen on 127.0.0.1, which channels may send to only when the operator allows it.
  process.env.INFERWATCH_ALERT_ALLOW_PRIVATE = '1';
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  process.env.INFERWATCH_ADMIN_TOKEN = ADMIN;
  process.env.INFERWATCH_SECRET_KEY = SECRET_KEY.toString('base64');
  db = await openDatabase({ kind: 'server', url: testDb.url });
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
});

afterAll(async () => {
  await closeDb();
  await db?.close();
  await testDb?.drop();
});

describe('/api/v1/alerts/rules', () => {
  test('lists the shipped rules, enabled', async () => {
    const { rules } = (await (await getRules(new Request(url('/api/v1/alerts/rules')))).json()) as { rules: AlertRule[] };
    expect(rules.map((r) => [r.id, r.enabled, r.builtin])).toEqual(
      expect.arrayContaining([
        ['steal-spike', true, true],
        ['host-silent', true, true],
        ['latency-slo-fast-burn', true, true],
        ['critical-finding', true, true],
      ]),
    );
    const steal = (await (await getRule(new Request(url('/api/v1/alerts/rules/steal-spike')), params({ id: 'steal-spike' }))).json()) as AlertRule;
    expect(steal.spec).toMatchObject({ windowMs: 60_000, threshold: 10, clearThreshold: 5, forMs: 120_000, relative: { factor: 3, minValue: 5 } });
  });

  test('writes need a principal: with local sign-in off and no token, 401', async () => {
    const response = await withoutLocalSignIn(() => postRule(new Request(url('/api/v1/alerts/rules'), { method: 'POST', body: '{}' })));
    expect(response.status).toBe(401);
  });

  test('refuses a clear threshold above the threshold, naming the field', async () => {
    const spec = { metric: { kind: 'series', series: 'cpu_iowait' }, windowMs: 60_000, threshold: 10, clearThreshold: 20 };
    const response = await postRule(new Request(url('/api/v1/alerts/rules'), admin('POST', { id: 'mine', title: 'Mine', severity: 'info', spec })));
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details?.map((d) => d.path)).toEqual(['spec.clearThreshold']);
  });

  test('creates, patches and deletes a rule of one’s own; a shipped rule can only be disabled', async () => {
    const spec = { metric: { kind: 'latency-quantile', quantile: 0.99 }, selector: { services: ['generate'] }, windowMs: 300_000, threshold: 500, clearThreshold: 300 };
    const created = await postRule(new Request(url('/api/v1/alerts/rules'), admin('POST', { id: 'p99-generate', title: 'p99 of generate', severity: 'warning', spec })));
    expect(created.status).toBe(201);
    expect(((await created.json()) as AlertRule).spec).toMatchObject({ forMs: 0, clearForMs: 0, selector: { services: ['generate'] } });
    const again = await postRule(new Request(url('/api/v1/alerts/rules'), admin('POST', { id: 'p99-generate', title: 'x', severity: 'info', spec })));
    expect(again.status).toBe(409);

    const patched = await patchRule(new Request(url('/api/v1/alerts/rules/p99-generate'), admin('PATCH', { severity: 'critical', enabled: false })), params({ id: 'p99-generate' }));
    expect(((await patched.json()) as AlertRule)).toMatchObject({ severity: 'critical', enabled: false, title: 'p99 of generate' });
    expect((await deleteRule(new Request(url('/'), admin('DELETE')), params({ id: 'p99-generate' }))).status).toBe(204);
    expect((await getRule(new Request(url('/')), params({ id: 'p99-generate' }))).status).toBe(404);

    const builtin = await deleteRule(new Request(url('/'), admin('DELETE')), params({ id: 'steal-spike' }));
    expect(builtin.status).toBe(409);
    expect((await errorOf(builtin)).message).toMatch(/disable it instead/);
  });
});

describe('/api/v1/alerts/channels', () => {
  test('a channel’s secret is never returned: a prefix, on create, list and get', async () => {
    const secret = 'whsec-0123456789abcdefghijklmnop';
    const created = await postChannel(new Request(url('/api/v1/alerts/channels'), admin('POST', { kind: 'webhook', name: 'ops', url: 'https://hooks.example/ops', secret })));
    expect(created.status).toBe(201);
    const channel = (await created.json()) as Channel;
    expect(channel).toMatchObject({ name: 'ops', kind: 'webhook', url: 'https://hooks.example/ops', minSeverity: 'info', enabled: true, failuresTotal: 0 });
    expect(channel.secretPrefix).toBe('whse…');
    const listed = await (await getChannels(new Request(url('/api/v1/alerts/channels'), admin('GET')))).text();
    const one = await (await getChannel(new Request(url('/'), admin('GET')), params({ id: String(channel.id) }))).text();
    for (const text of [JSON.stringify(channel), listed, one]) expect(text).not.toContain(secret);
    const [row] = await rowsOf<Record<string, unknown>>(db.sql, 'SELECT * FROM alert_channels WHERE id = $1', [channel.id]);
    expect(JSON.stringify(row)).not.toContain(secret);

    const patched = await patchChannel(new Request(url('/'), admin('PATCH', { secret: 'another-secret-of-some-length', minSeverity: 'critical' })), params({ id: String(channel.id) }));
    expect((await patched.json()) as Channel).toMatchObject({ secretPrefix: 'anot…', minSeverity: 'critical' });
    expect((await withoutLocalSignIn(() => getChannels(new Request(url('/api/v1/alerts/channels'))))).status).toBe(401);
    expect((await deleteChannel(new Request(url('/'), admin('DELETE')), params({ id: String(channel.id) }))).status).toBe(204);
  });

  test('a new URL needs the secret again: an Alertmanager bearer token or a webhook key is not carried to it', async () => {
    const created = await postChannel(
      new Request(url('/'), admin('POST', { kind: 'alertmanager', name: 'am-moving', url: 'https://am.example/', bearerToken: 'bearer-token-0123456789' })),
    );
    const am = (await created.json()) as Channel;
    const moved = await patchChannel(new Request(url('/'), admin('PATCH', { url: 'https://elsewhere.example/' })), params({ id: String(am.id) }));
    expect(moved.status).toBe(400);
    expect((await errorOf(moved)).details?.map((d) => d.path)).toEqual(['secret']);
    expect(((await (await getChannel(new Request(url('/'), admin('GET')), params({ id: String(am.id) }))).json()) as Channel).url).toBe('https://am.example/');
    // The same URL again, or a new URL with a new secret (or none), is fine.
    expect((await patchChannel(new Request(url('/'), admin('PATCH', { url: 'https://am.example/', minSeverity: 'warning' })), params({ id: String(am.id) }))).status).toBe(200);
    const withToken = await patchChannel(new Request(url('/'), admin('PATCH', { url: 'https://elsewhere.example/', secret: 'another-token-0123' })), params({ id: String(am.id) }));
    expect((await withToken.json()) as Channel).toMatchObject({ url: 'https://elsewhere.example/', secretPrefix: 'anot…' });
    const dropped = await patchChannel(new Request(url('/'), admin('PATCH', { url: 'https://third.example/', secret: null })), params({ id: String(am.id) }));
    expect((await dropped.json()) as Channel).toMatchObject({ url: 'https://third.example/', secretPrefix: null });

    const hook = (await (
      await postChannel(new Request(url('/'), admin('POST', { kind: 'webhook', name: 'hook-moving', url: 'https://h.example/', secret: 'signing-secret-0123456789' })))
    ).json()) as Channel;
    const hookMoved = await patchChannel(new Request(url('/'), admin('PATCH', { url: 'https://other.example/' })), params({ id: String(hook.id) }));
    expect((await errorOf(hookMoved)).details?.map((d) => d.path)).toEqual(['secret']);
    for (const id of [am.id, hook.id]) await deleteChannel(new Request(url('/'), admin('DELETE')), params({ id: String(id) }));
  });

  test('a channel to the metadata service, loopback or a private network is refused unless the operator allows it', async () => {
    delete process.env.INFERWATCH_ALERT_ALLOW_PRIVATE;
    try {
      const bodies = [
        { kind: 'webhook', name: 'metadata', url: 'http://169.254.169.254/latest/meta-data/', secret: 'signing-secret-0123456789' },
        { kind: 'alertmanager', name: 'am-local', url: 'http://localhost:9093/' },
        { kind: 'alertmanager', name: 'am-v6', url: 'http://[fd00::5]:9093/' },
        { kind: 'slack', name: 'slack-lan', webhookUrl: 'http://192.168.1.10/services/x' },
      ];
      for (const body of bodies) {
        const refused = await postChannel(new Request(url('/'), admin('POST', body)));
        expect(refused.status, body.name).toBe(400);
        expect((await errorOf(refused)).details?.map((d) => d.path)).toEqual([body.kind === 'slack' ? 'webhookUrl' : 'url']);
      }
      const ok = (await (await postChannel(new Request(url('/'), admin('POST', { kind: 'alertmanager', name: 'am-public', url: 'https://am.example/' })))).json()) as Channel;
      const moved = await patchChannel(new Request(url('/'), admin('PATCH', { url: 'http://10.0.0.8:9093/' })), params({ id: String(ok.id) }));
      expect((await errorOf(moved)).details?.map((d) => d.path)).toEqual(['url']);

      process.env.INFERWATCH_ALERT_ALLOWED_NETWORKS = '10.0.0.0/24';
      expect((await patchChannel(new Request(url('/'), admin('PATCH', { url: 'http://10.0.0.8:9093/' })), params({ id: String(ok.id) }))).status).toBe(200);
      await deleteChannel(new Request(url('/'), admin('DELETE')), params({ id: String(ok.id) }));
    } finally {
      delete process.env.INFERWATCH_ALERT_ALLOWED_NETWORKS;
      process.env.INFERWATCH_ALERT_ALLOW_PRIVATE = '1';
    }
    const allowed = await postChannel(new Request(url('/'), admin('POST', { kind: 'alertmanager', name: 'am-local', url: 'http://localhost:9093/' })));
    expect(allowed.status).toBe(201);
    await deleteChannel(new Request(url('/'), admin('DELETE')), params({ id: String(((await allowed.json()) as Channel).id) }));
  });

  test('a short webhook secret and an unknown kind are refused', async () => {
    const short = await postChannel(new Request(url('/'), admin('POST', { kind: 'webhook', name: 'x', url: 'https://h.example/', secret: 'short' })));
    expect((await errorOf(short)).details?.map((d) => d.path)).toEqual(['secret']);
    expect((await postChannel(new Request(url('/'), admin('POST', { kind: 'email', name: 'x' })))).status).toBe(400);
  });
});

describe('/api/v1/alerts, silences, acknowledgements, deliveries and /metrics', () => {
  test('firing alerts, their acknowledgement, a silence, the delivery log and the metrics', async () => {
    await enableOnly(db, ['critical-finding']);
    const channel = (await (await postChannel(new Request(url('/'), admin('POST', { kind: 'webhook', name: 'hook', url: 'http://127.0.0.1:9/', secret: 'signing-secret-0123456789' })))).json()) as Channel;
    const host = await enrolledHost(db, 'gpu-api');
    await db.sql.query(
      `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
       VALUES ('cpu.avx512-hidden', $1, 'oslo', 'critical', 'open', 'AVX-512 hidden.', 'Pass it through.', '{"values":[]}', now(), now(), now())`,
      [host.hostId],
    );
    await new AlertEngine(db, { publicUrl: 'http://iw.test' }).runCycle(new Date());

    const { alerts } = (await (await getAlerts(new Request(url('/api/v1/alerts?state=firing')))).json()) as { alerts: Alert[] };
    expect(alerts.map((a) => [a.ruleId, a.state, a.hostId, a.labels.finding])).toEqual([['critical-finding', 'firing', host.hostId, 'cpu.avx512-hidden']]);
    const alert = alerts[0]!;
    expect((await getAlerts(new Request(url('/api/v1/alerts?state=resolved')))).status).toBe(200);
    expect((await getAlerts(new Request(url('/api/v1/alerts?state=nope')))).status).toBe(400);

    const acked = await acknowledge(new Request(url('/'), admin('PUT', { by: 'oncall', comment: 'looking' })), params({ id: String(alert.id) }));
    expect(((await acked.json()) as Alert).acknowledgement).toMatchObject({ by: 'oncall', comment: 'looking' });
    const cleared = await unacknowledge(new Request(url('/'), admin('DELETE')), params({ id: String(alert.id) }));
    expect(((await cleared.json()) as Alert).acknowledgement).toBeNull();
    expect((await getAlert(new Request(url('/')), params({ id: '999999' }))).status).toBe(404);

    const silence = await postSilence(
      new Request(url('/'), admin('POST', { matchers: [{ name: 'host', value: 'gpu-api' }], endsAt: new Date(Date.now() + 3_600_000).toISOString(), comment: 'maintenance', createdBy: 'oncall' })),
    );
    expect(silence.status).toBe(201);
    const created = (await silence.json()) as Silence;
    expect(created).toMatchObject({ state: 'active', matchers: [{ name: 'host', value: 'gpu-api', isRegex: false, isEqual: true }] });
    const expired = (await (await expireSilence(new Request(url('/'), admin('DELETE')), params({ id: String(created.id) }))).json()) as Silence;
    expect(expired.state).toBe('expired');
    const { silences } = (await (await getSilences(new Request(url('/api/v1/alerts/silences?state=expired')))).json()) as { silences: Silence[] };
    expect(silences.map((s) => s.id)).toEqual([created.id]);

    const log = (await (await getDeliveries(new Request(url(`/api/v1/alerts/deliveries?channel=${channel.id}`), admin('GET')))).json()) as DeliveriesResponse;
    expect(log.deliveries.map((d) => [d.channelName, d.alertId, d.event, d.status, d.attempts])).toEqual([['hook', alert.id, 'firing', 'pending', 0]]);

    const metrics = await (await getMetrics(new Request(url('/metrics')))).text();
    expect(metrics).toContain('inferwatch_alerts_firing{rule="critical-finding",severity="critical"} 1');
    expect(metrics).toContain('inferwatch_alert_notification_failures_total{channel="hook",kind="webhook"} 0');
  });
});

describe('label matchers are RE2, as Alertmanager\'s', () => {
  const lookahead = { name: 'host', value: '(?=gpu).*', isRegex: true };

  test('a regex RE2 refuses is a 400 naming the field: a silence, a new channel, a channel\'s patch', async () => {
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const silence = await postSilence(new Request(url('/'), admin('POST', { matchers: [{ name: 'region', value: 'oslo' }, lookahead], endsAt, comment: 'x', createdBy: 'oncall' })));
    expect(silence.status).toBe(400);
    const error = await errorOf(silence);
    expect(error.details?.map((d) => d.path)).toEqual(['matchers.1.value']);
    expect(error.message).toMatch(/^invalid matchers\.1\.value: is not an RE2 regular expression: .*`\(\?=`/);

    const backreference = { kind: 'webhook', name: 're2', url: 'https://h.example/', secret: 'signing-secret-0123456789', matchers: [{ name: 'host', value: '(a)\\1', isRegex: true, isEqual: false }] };
    const channel = await postChannel(new Request(url('/'), admin('POST', backreference)));
    expect((await errorOf(channel)).details?.map((d) => d.path)).toEqual(['matchers.0.value']);
    const created = (await (await postChannel(new Request(url('/'), admin('POST', { ...backreference, matchers: [] })))).json()) as Channel;
    const patched = await patchChannel(new Request(url('/'), admin('PATCH', { matchers: [lookahead] })), params({ id: String(created.id) }));
    expect(patched.status).toBe(400);
    expect((await errorOf(patched)).details?.map((d) => d.path)).toEqual(['matchers.0.value']);
    await deleteChannel(new Request(url('/'), admin('DELETE')), params({ id: String(created.id) }));
  });

  test('a silence stored before, with a lookahead, is listed and silences nothing, and the alert cycle runs', async () => {
    await enableOnly(db, ['critical-finding']);
    const host = await enrolledHost(db, 'gpu-stored');
    const channel = (await (
      await postChannel(new Request(url('/'), admin('POST', { kind: 'webhook', name: 'stored', url: 'http://127.0.0.1:9/', secret: 'signing-secret-0123456789', matchers: [{ name: 'host', value: 'gpu-stored' }] })))
    ).json()) as Channel;
    const [stored] = await rowsOf<{ id: number }>(db.sql,
      `INSERT INTO alert_silences (matchers, starts_at, ends_at, comment, created_by) VALUES ($1::jsonb, now(), now() + interval '1 hour', 'old', 'oncall') RETURNING id`,
      [JSON.stringify([{ ...lookahead, isEqual: true }])],
    );
    await db.sql.query(
      `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
       VALUES ('cpu.avx512-hidden', $1, 'oslo', 'critical', 'open', 'AVX-512 hidden.', 'Pass it through.', '{"values":[]}', now(), now(), now())`,
      [host.hostId],
    );
    const listed = await getSilences(new Request(url('/api/v1/alerts/silences?state=active')));
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { silences: Silence[] }).silences.map((s) => s.id)).toContain(stored!.id);

    await new AlertEngine(db, { publicUrl: 'http://iw.test' }).runCycle(new Date());
    const log = (await (await getDeliveries(new Request(url(`/api/v1/alerts/deliveries?channel=${channel.id}`), admin('GET')))).json()) as DeliveriesResponse;
    expect(log.deliveries.map((d) => [d.event, d.status])).toEqual([['firing', 'pending']]);
  });
});
