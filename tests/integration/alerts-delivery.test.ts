import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createChannel, listChannels } from '../../lib/alerts/channels/channel-store';
import { SecretBox } from '../../lib/alerts/channels/secret-box';
import type { TargetPolicy } from '../../lib/alerts/channels/target-policy';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import { DeliveryWorker } from '../../lib/alerts/delivery/worker';
import { AlertEngine } from '../../lib/alerts/engine';
import { registerAlertMetrics } from '../../lib/alerts/metrics';
import { exposition } from '../support/exposition';
import { claimDeliveries } from '../../lib/alerts/store/deliveries';
import { ensureDefaultRules } from '../../lib/alerts/store/rules';
import { openDatabase, type Database } from '../../lib/db/open';
import { webhookPayloadSchema } from '../../lib/protocol/alerts';
import { expectMatches } from '../support/expect-matches';
import { deliveryRows, enableOnly, SECRET_KEY } from './alerts-helpers';
import { ManualClock, Receiver } from './alerts-receiver';
import { createServerDatabase, enrolledHost, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';
import { until } from '../support/until';

const PUBLIC_URL = 'http://inferwatch.test:3000';
const SIGNING_SECRET = 'test-signing-secret-0123456789';
// The receivers here listen on 127.0.0.1, which channels may send to only when the operator allows it.
const LOOPBACK_ALLOWED: TargetPolicy = { allowPrivate: true, allowedNetworks: [] };
const box = new SecretBox(SECRET_KEY);

let testDb: TestDatabase;
let db: Database;
let clock: ManualClock;
const receivers: Receiver[] = [];
const workers: DeliveryWorker[] = [];

function worker(on: Database = db, extra: Partial<ConstructorParameters<typeof DeliveryWorker>[1]> = {}) {
  const w = new DeliveryWorker(on.sql, { box, publicUrl: PUBLIC_URL, now: clock.now, random: () => 0.5, timeoutMs: 5_000, targets: LOOPBACK_ALLOWED, ...extra });
  workers.push(w);
  return w;
}

async function receiver(mode: Receiver['mode'] = 'ok') {
  const r = await new Receiver().start();
  r.mode = mode;
  receivers.push(r);
  return r;
}

async function webhookChannel(r: Receiver, name = `hook-${receivers.length}-${Date.now()}`) {
  return createChannel(db, box, { kind: 'webhook', name, url: r.url, secret: SIGNING_SECRET, minSeverity: 'info', matchers: [], enabled: true }, LOOPBACK_ALLOWED);
}

/** A critical finding on a new host: the critical-finding rule fires at once, queuing one event per channel. */
async function fireAlert(engine: AlertEngine): Promise<number> {
  const host = await enrolledHost(db);
  await db.sql.query(
    `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
     VALUES ('cpu.avx512-hidden', $1, 'oslo', 'critical', 'open', 'AVX-512 is hidden.', 'Pass the host CPU.', '{"values":[]}', now(), now(), now())`,
    [host.hostId],
  );
  await engine.runCycle(clock.now());
  const [row] = await rowsOf<{ id: number }>(db.sql, 'SELECT id FROM alerts WHERE host_id = $1', [host.hostId]);
  return Number(row!.id);
}

/** Steps the worker through `ms` of the manual clock, one second at a time, running `each` before every step. */
async function stepThrough(w: DeliveryWorker, ms: number, each: () => Promise<void> | void = () => {}) {
  for (let t = 0; t <= ms; t += 1_000) {
    await each();
    await w.runOnce();
    clock.advance(1_000);
  }
}


beforeAll(async () => {
  testDb = await createServerDatabase();
  db = testDb.db;
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
  await enableOnly(db, ['critical-finding']);
});

afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  for (const r of receivers.splice(0)) await r.stop();
  // Each test starts with no channels and no alerts of its own to deliver.
  await db.sql.query('DELETE FROM alert_channels');
  await db.sql.query('DELETE FROM findings');
  await db.sql.query('DELETE FROM alerts');
});

afterAll(async () => {
  await testDb?.drop();
});

describe('notification delivery', () => {
  test('the webhook is signed: HMAC-SHA256 of "<t>.<body>" with the channel secret, t within 5 minutes', async () => {
    clock = new ManualClock(Date.now());
    const r = await receiver();
    await webhookChannel(r);
    const alertId = await fireAlert(new AlertEngine(db, { publicUrl: PUBLIC_URL }));
    await worker().runOnce();

    expect(r.requests).toHaveLength(1);
    const { headers, body } = r.requests[0]!;
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(headers['x-inferwatch-signature']))!;
    expect(createHmac('sha256', SIGNING_SECRET).update(`${t}.${body}`).digest('hex')).toBe(v1);
    expect(Math.abs(Number(t) * 1000 - clock.ms)).toBeLessThan(5 * 60_000);
    expect(createHmac('sha256', 'not-the-secret').update(`${t}.${body}`).digest('hex')).not.toBe(v1);
    const payload = expectMatches(webhookPayloadSchema, JSON.parse(body), 'the webhook body');
    expect(payload).toMatchObject({ version: 1, event: 'firing', alert: { id: alertId, ruleId: 'critical-finding', severity: 'critical' } });
    expect(payload.alert.url).toMatch(new RegExp(`^${PUBLIC_URL}/hosts/\\d+$`));
    const [delivery] = await deliveryRows(db);
    expect(headers['x-inferwatch-delivery']).toBe(String(delivery!.id));
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  test('a receiver that is down for a minute, then returns, gets the notification exactly once', async () => {
    clock = new ManualClock(Date.now());
    const r = await receiver();
    await r.stop();
    const channel = await webhookChannel(r);
    await fireAlert(new AlertEngine(db, { publicUrl: PUBLIC_URL }));
    const w = worker();
    const downUntil = clock.ms + 60_000;
    await stepThrough(w, 3 * 60_000, async () => {
      if (clock.ms >= downUntil && !r.running) await r.start();
    });
    // And for a long while after: nothing more.
    await stepThrough(w, 10 * 60_000);

    expect(r.accepted()).toHaveLength(1);
    const [delivery] = await deliveryRows(db);
    expect(delivery!.status).toBe('delivered');
    // Refused connections at 0, 0.75, 2.25, 5.25, 11.25, 23.25 and 47.25 s (1 s doubling, jitter fixed at ½), then 95.25 s.
    expect(delivery!.attempts).toBe(8);
    const [counts] = await rowsOf<{ failures_total: number; deliveries_total: number }>(db.sql, 'SELECT failures_total, deliveries_total FROM alert_channels WHERE id = $1', [channel.id]);
    expect(counts).toEqual({ failures_total: 7, deliveries_total: 1 });
    expect(await exposition(registerAlertMetrics, db)).toMatch(new RegExp(`inferwatch_alert_notification_failures_total\\{channel="${channel.name}",kind="webhook"\\} 7`));
  });

  test('the server restarted while a delivery is being retried still delivers it, exactly once', async () => {
    clock = new ManualClock(Date.now());
    const r = await receiver('fail');
    await webhookChannel(r);
    // The first "server": its own database handle, engine and worker.
    const before = await openDatabase({ kind: 'server', url: testDb.url! });
    await fireAlert(new AlertEngine(before, { publicUrl: PUBLIC_URL }));
    const first = worker(before);
    await stepThrough(first, 3_000);
    expect(r.requests.length).toBeGreaterThanOrEqual(2);
    expect(r.accepted()).toHaveLength(0);
    await first.stop();
    await before.close();

    r.mode = 'ok';
    const after = await openDatabase({ kind: 'server', url: testDb.url! });
    try {
      await stepThrough(worker(after), 10 * 60_000);
      expect(r.accepted()).toHaveLength(1);
      // Every attempt carried the same delivery id, so a receiver could also drop repeats itself.
      expect(new Set(r.requests.map((q) => q.headers['x-inferwatch-delivery'])).size).toBe(1);
    } finally {
      await after.close();
    }
  });

  test('a delivery claimed by a process that died mid-send is sent again once its lease runs out, and only once', async () => {
    clock = new ManualClock(Date.now());
    const r = await receiver();
    const channel = await webhookChannel(r);
    await fireAlert(new AlertEngine(db, { publicUrl: PUBLIC_URL }));
    const [claimed] = await claimDeliveries(db.sql, channel.id, 1, clock.now(), 60_000);
    expect(claimed).toBeDefined();
    const w = worker();
    await stepThrough(w, 30_000);
    expect(r.requests).toHaveLength(0);
    await stepThrough(w, 60_000);
    expect(r.accepted()).toHaveLength(1);
    expect((await deliveryRows(db))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  test('a receiver that hangs holds only its own lane: other channels and evaluation go on', async () => {
    clock = new ManualClock(Date.now());
    const slow = await receiver('hang');
    const fast = await receiver('ok');
    await webhookChannel(slow, 'slow');
    await webhookChannel(fast, 'fast');
    const engine = new AlertEngine(db, { publicUrl: PUBLIC_URL });
    for (let i = 0; i < 3; i++) await fireAlert(engine);
    const w = worker(db, { timeoutMs: 60_000 });
    void w.poll();
    await until('the fast receiver to get all three', async () => fast.accepted().length === 3);
    // Two attempts hang on the slow receiver (its lane is two wide); the third waits behind them.
    expect(slow.requests).toHaveLength(2);
    expect(w.inFlight((await listChannels(db)).find((c) => c.name === 'slow')!.id)).toBe(2);
    // An evaluation cycle meanwhile completes (it never waits on a receiver).
    const cycle = await engine.runCycle(clock.now());
    expect(cycle.rules).toBe(1);
    slow.release();
    await until('the third attempt after the lane freed', async () => slow.requests.length === 3);
    slow.release();
    await w.drain();
    const statuses = (await deliveryRows(db)).map((d) => d.status);
    expect(statuses).toEqual(Array(6).fill('delivered'));
  });

  test('stopping the worker mid-send puts the notification back, due at once, without counting it as a failure', async () => {
    clock = new ManualClock(Date.now());
    const slow = await receiver('hang');
    const channel = await webhookChannel(slow);
    await fireAlert(new AlertEngine(db, { publicUrl: PUBLIC_URL }));
    const w = worker(db, { timeoutMs: 60_000 });
    void w.poll();
    await until('the request to hang', async () => slow.requests.length === 1);
    await w.stop();
    const [delivery] = await rowsOf<{ status: string; next_attempt_at: Date; last_error: string }>(db.sql, 'SELECT status, next_attempt_at, last_error FROM alert_deliveries');
    expect(delivery).toMatchObject({ status: 'pending', last_error: 'shutting down' });
    expect(new Date(delivery!.next_attempt_at).getTime()).toBe(clock.ms);
    const [counts] = await rowsOf<{ failures_total: number }>(db.sql, 'SELECT failures_total FROM alert_channels WHERE id = $1', [channel.id]);
    expect(counts!.failures_total).toBe(0);
  });

  test('Slack: the incoming-webhook URL is stored sealed, shown as a prefix, and kept out of errors', async () => {
    clock = new ManualClock(Date.now());
    const r = await receiver();
    const webhookUrl = `${r.url}/services/T0001/B0001/${'x'.repeat(24)}`;
    const channel = await createChannel(db, box, { kind: 'slack', name: 'slack', webhookUrl, minSeverity: 'info', matchers: [], enabled: true }, LOOPBACK_ALLOWED);
    expect(channel.url).toBeNull();
    expect(channel.secretPrefix!.length).toBeLessThan(webhookUrl.length / 2 + 2);
    const [stored] = await rowsOf<Record<string, unknown>>(db.sql, 'SELECT * FROM alert_channels WHERE id = $1', [channel.id]);
    expect(JSON.stringify(stored)).not.toContain('/services/');

    await fireAlert(new AlertEngine(db, { publicUrl: PUBLIC_URL }));
    await worker().runOnce();
    const body = JSON.parse(r.accepted()[0]!.body) as { text: string; blocks: { text: { text: string } }[] };
    expect(body.text).toMatch(/^:red_circle: \*\[FIRING\] critical\* Critical finding opened: cpu\.avx512-hidden on /);
    expect(body.blocks[0]!.text.text).toBe(body.text);

    await r.stop();
    await fireAlert(new AlertEngine(db, { publicUrl: PUBLIC_URL }));
    await worker().runOnce();
    const failed = (await deliveryRows(db)).find((d) => d.status === 'pending')!;
    expect(failed.last_error).toBe('could not connect');
    expect(failed.last_error).not.toContain(webhookUrl);
  });

  test('without the operator’s allowance a loopback receiver is never connected to, and the log says so without port detail', async () => {
    clock = new ManualClock(Date.now());
    const r = await receiver();
    await webhookChannel(r);
    await fireAlert(new AlertEngine(db, { publicUrl: PUBLIC_URL }));
    await worker(db, { targets: { allowPrivate: false, allowedNetworks: [] } }).runOnce();
    expect(r.requests).toHaveLength(0);
    expect((await deliveryRows(db))[0]).toMatchObject({ status: 'pending', last_error: 'could not connect: target refused (127.0.0.1 is a loopback address)' });
  });

  test('a receiver that refuses the request itself (4xx) is not retried', async () => {
    clock = new ManualClock(Date.now());
    const r = await receiver();
    await webhookChannel(r);
    await fireAlert(new AlertEngine(db, { publicUrl: PUBLIC_URL }));
    const refusing = worker(db, { post: async () => ({ status: 404, body: 'unknown hook' }) });
    await stepThrough(refusing, 60_000);
    expect((await deliveryRows(db))[0]).toMatchObject({ status: 'failed', attempts: 1, last_error: 'HTTP 404' });
  });
});
