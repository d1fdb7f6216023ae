import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createChannel } from '../../lib/alerts/channels/channel-store';
import type { TargetPolicy } from '../../lib/alerts/channels/target-policy';
import { SecretBox } from '../../lib/alerts/channels/secret-box';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import { createIngestFeed } from '../../lib/alerts/ingest-feed';
import type { AlertCycleResult } from '../../lib/alerts/engine';
import { startAlerting, type Alerting } from '../../lib/alerts/scheduler';
import { ensureDefaultRules } from '../../lib/alerts/store/rules';
import type { Database } from '../../lib/db/open';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { ingestLimits } from '../../lib/ingest/limits';
import { floorTo } from '../../lib/protocol/time';
import type { Report } from '../../lib/protocol';
import { alertRows, enableOnly, reportsBetween, SECRET_KEY } from './alerts-helpers';
import { ManualClock } from './alerts-receiver';
import { createServerDatabase, enrolledHost, jsonBody, type TestDatabase } from './ingest-helpers';
import { freePort } from '../support/free-port';
import { until } from '../support/until';

// The receivers here listen on 127.0.0.1, which channels may send to only when the operator allows it.
const LOOPBACK_ALLOWED: TargetPolicy = { allowPrivate: true, allowedNetworks: [] };
const PUBLIC_URL = 'http://inferwatch.test:3000';
const INTERVAL_MS = 15_000;

interface GettableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  status: { state: string };
}



/** prometheus-alertmanager on loopback with the minimal config: one route to one receiver that sends nowhere. */
class Alertmanager {
  private child: ChildProcess | null = null;
  private dir = '';
  url = '';

  async start(): Promise<void> {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-am-'));
    fs.writeFileSync(path.join(this.dir, 'am.yml'), 'route:\n  receiver: hook\nreceivers:\n  - name: hook\n');
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    this.child = spawn(
      'prometheus-alertmanager',
      [`--config.file=${path.join(this.dir, 'am.yml')}`, `--storage.path=${path.join(this.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    this.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<never>((_, reject) => this.child!.once('exit', (code) => reject(new Error(`alertmanager exited (${code}): ${stderr.slice(-500)}`))));
    const ready = until('alertmanager ready', () => fetch(`${this.url}/-/ready`).then((r) => (r.ok ? true : undefined), () => undefined), 30_000);
    await Promise.race([ready, exited]);
  }

  async alerts(alertname: string): Promise<GettableAlert[]> {
    const response = await fetch(`${this.url}/api/v2/alerts?filter=${encodeURIComponent(`alertname="${alertname}"`)}`);
    return (await response.json()) as GettableAlert[];
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child!.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('alerts end to end with a real Alertmanager', () => {
  const am = new Alertmanager();
  let testDb: TestDatabase;
  let db: Database;
  let alerting: Alerting;
  let deps: IngestDeps;
  let clock: ManualClock;
  const feed = createIngestFeed();
  const cycles: AlertCycleResult[] = [];
  // The scenario lies in the last seven minutes; the engine's clock walks through it, Alertmanager's is real.
  const R = floorTo(Date.now(), 10_000);

  async function send(token: string, reports: Report[]) {
    const out = await ingestRequest({ authorization: `Bearer ${token}`, contentType: 'application/json', ...jsonBody({ reports }) }, deps);
    expect(out.status).toBe(200);
  }

  beforeAll(async () => {
    await am.start();
    testDb = await createServerDatabase();
    db = testDb.db;
    const limits = ingestLimits();
    // The ingest path with its hook wired as the server wires it: stored hosts go to the alert engine's feed.
    deps = createIngestDeps(db, { limits: { ...limits, rate: { ...limits.rate, requestBurst: 1e9, reportBurst: 1e9 } }, onStored: (id) => feed.publish([id]) });
    await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
    await enableOnly(db, ['steal-spike']);
    const box = new SecretBox(SECRET_KEY);
    await createChannel(db, box, { kind: 'alertmanager', name: 'am', url: am.url, minSeverity: 'info', matchers: [], enabled: true }, LOOPBACK_ALLOWED);
    clock = new ManualClock(R - 360_000);
    alerting = await startAlerting(db, {
      publicUrl: PUBLIC_URL,
      box,
      intervalMs: INTERVAL_MS,
      now: clock.now,
      // Alertmanager judges endsAt by its own clock: the worker sends by real time.
      deliveryNow: () => new Date(),
      ingestFeed: feed,
      worker: { pollMs: 250, targets: LOOPBACK_ALLOWED },
      onCycle: (result) => cycles.push(result),
    });
  });

  afterAll(async () => {
    await alerting?.stop();
    await deps?.writer.close();
    await testDb?.drop();
    await am.stop();
  });

  test('a steal spike ingested through the ingest API appears in Alertmanager with its labels and annotations; when it ends, it resolves there', { timeout: 180_000 }, async () => {
    const host = await enrolledHost(db, 'gpu-am-1');
    await send(host.token, reportsBetween(1, R - 420_000, R - 240_000, { stealPct: 30, perCpuStealPct: [2, 1, 62, 55] }));
    // The ingest hook has the host evaluated within a second of its reports being stored: pending.
    await until('a targeted cycle after the ingest', async () => (cycles.some((c) => c.targeted && c.transitions.pending === 1) ? true : undefined), 10_000);
    expect((await alertRows(db, 'steal-spike')).map((a) => a.state)).toEqual(['pending']);

    // 125 s later the for-duration has passed: a scheduled cycle (not one the ingest hook targeted) fires it, and it
    // reaches Alertmanager. Deadlines only: a slow machine takes longer, it does not answer differently.
    const cyclesBefore = cycles.length;
    clock.ms = R - 235_000;
    await until('a scheduled cycle that fires the alert', async () => (cycles.slice(cyclesBefore).some((c) => !c.targeted && c.transitions.firing === 1) ? true : undefined), 4 * INTERVAL_MS);
    const [alert] = await until('the alert in Alertmanager', async () => {
      const found = await am.alerts('steal-spike');
      return found.length > 0 ? found : undefined;
    }, 30_000);
    expect(alert!.labels).toEqual({ alertname: 'steal-spike', severity: 'warning', host: 'gpu-am-1', host_id: String(host.hostId), region: 'oslo' });
    expect(alert!.annotations.summary).toBe('CPU steal spike on gpu-am-1: 30.0 %');
    expect(alert!.annotations.description).toMatch(/^1 min average 30\.0 %, threshold 10\.0 %.*for 2 min; clears at 5\.0 %\. Lost most: vCPUs 2 \(62\.0 %\), 3 \(55\.0 %\)\.$/);
    expect(alert!.annotations.runbook_url).toBe(`${PUBLIC_URL}/api/v1/alerts/rules/steal-spike`);
    expect(alert!.generatorURL).toBe(`${PUBLIC_URL}/hosts/${host.hostId}`);
    expect(alert!.status.state).toBe('active');
    expect(Date.parse(alert!.startsAt)).toBe(R - 235_000);
    // Firing alerts are sent with endsAt four re-send periods ahead, so Alertmanager keeps them active between re-sends.
    expect(Date.parse(alert!.endsAt)).toBeGreaterThan(Date.now() + 3 * 60_000);

    // The spike ends: quiet reports arrive (through the hook, evaluated within a second), the clock moves on.
    await send(host.token, reportsBetween(19, R - 230_000, R - 10_000, { stealPct: 1 }));
    clock.ms = R - 170_000;
    await alerting.runOnce();
    clock.ms = R - 45_000;
    await alerting.runOnce();
    expect((await alertRows(db, 'steal-spike')).map((a) => a.state)).toEqual(['resolved']);
    await until('the alert resolved in Alertmanager', async () => ((await am.alerts('steal-spike')).length === 0 ? true : undefined), 10_000);
  });

  test('the periodic re-send keeps Alertmanager in step: an alert it lost comes back within a re-send', async () => {
    const host = await enrolledHost(db, 'gpu-am-2');
    await send(host.token, reportsBetween(1, R - 200_000, R - 10_000, { stealPct: 40, perCpuStealPct: [40, 40, 40, 40] }));
    clock.ms = R - 140_000;
    await alerting.runOnce();
    clock.ms = R - 15_000;
    await alerting.runOnce();
    await until('the second alert in Alertmanager', async () => ((await am.alerts('steal-spike')).length === 1 ? true : undefined), 10_000);
    // Alertmanager restarts with empty storage: only a re-send can tell it again.
    await am.stop();
    await am.start();
    await db.sql.query(`UPDATE alert_channels SET url = $1`, [am.url]);
    expect(await am.alerts('steal-spike')).toEqual([]);
    await alerting.resend();
    const [back] = await until('the alert re-sent', async () => {
      const found = await am.alerts('steal-spike');
      return found.length === 1 ? found : undefined;
    }, 10_000);
    expect(back!.labels.host).toBe('gpu-am-2');
  });
});
