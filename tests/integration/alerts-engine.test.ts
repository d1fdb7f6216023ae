import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SecretBox } from '../../lib/alerts/channels/secret-box';
import { createChannel } from '../../lib/alerts/channels/channel-store';
import type { TargetPolicy } from '../../lib/alerts/channels/target-policy';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import { AlertEngine } from '../../lib/alerts/engine';
import { hostLatencyExplainer } from '../../lib/alerts/explain';
import { readSeriesWindows } from '../../lib/alerts/read/series-windows';
import { seriesRequestKey } from '../../lib/alerts/inputs';
import { ensureDefaultRules } from '../../lib/alerts/store/rules';
import { registerAlertMetrics } from '../../lib/alerts/metrics';
import { exposition } from '../support/exposition';
import type { Database } from '../../lib/db/open';
import { MINUTE_MS, floorTo } from '../../lib/protocol/time';
import { readWatermarks, rollUp } from '../../lib/series/rollup';
import { runHousekeeping } from '../../lib/series/maintenance';
import { serverEnvironment } from '../../lib/server/environment';
import { ingestClient } from '../support/ingest-client';
import { alertRows, deliveryRows, enableOnly, reportsBetween, SECRET_KEY, shapedReport } from './alerts-helpers';
import { createEmbeddedDatabase, createServerDatabase, enrolledHost, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

// The receivers here listen on 127.0.0.1, which channels may send to only when the operator allows it.
const LOOPBACK_ALLOWED: TargetPolicy = { allowPrivate: true, allowedNetworks: [] };
const PUBLIC_URL = 'http://inferwatch.test:3000';

describe.each([
  ['PostgreSQL server', createServerDatabase],
  ['embedded PGlite', createEmbeddedDatabase],
] as const)('alert engine on %s', (_, createDatabase) => {
  let testDb: TestDatabase;
  let db: Database;
  let client: ReturnType<typeof ingestClient>;
  let engine: AlertEngine;
  const box = new SecretBox(SECRET_KEY);
  // Everything happens in the recent past, so the engine's clock can be set anywhere up to now.
  const END = floorTo(Date.now(), 10_000) - 10_000;

  beforeAll(async () => {
    testDb = await createDatabase();
    db = testDb.db;
    client = ingestClient(db);
    await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
    engine = new AlertEngine(db, { publicUrl: PUBLIC_URL });
    await createChannel(db, box, { kind: 'webhook', name: 'hook', url: 'http://127.0.0.1:9/hook', secret: 'webhook-signing-secret', minSeverity: 'info', matchers: [], enabled: true }, LOOPBACK_ALLOWED);
  });

  afterAll(async () => {
    await client?.close();
    await testDb?.drop();
  });

  test('a steal spike ingested through the ingest API: pending, then firing after 2 minutes, naming the vCPUs that lost most', async () => {
    await enableOnly(db, ['steal-spike']);
    const host = await enrolledHost(db, 'gpu-steal');
    await client.send(host.token, reportsBetween(1, END - 170_000, END, { stealPct: 30, perCpuStealPct: [2, 1, 62, 55] }));

    const first = await engine.runCycle(new Date(END - 110_000));
    expect(first.transitions.pending).toBe(1);
    expect((await alertRows(db, 'steal-spike')).map((a) => a.state)).toEqual(['pending']);

    const second = await engine.runCycle(new Date(END + 10_000));
    expect(second.transitions.firing).toBe(1);
    const [alert] = await alertRows(db, 'steal-spike');
    expect(alert).toMatchObject({
      state: 'firing',
      fingerprint: `host_id=${host.hostId}`,
      notified: 'firing',
      labels: { alertname: 'steal-spike', severity: 'warning', host: 'gpu-steal', host_id: String(host.hostId), region: 'oslo' },
    });
    expect(alert!.annotations.summary).toBe('CPU steal spike on gpu-steal: 30.0 %');
    expect(alert!.annotations.vcpus).toBe('vCPUs 2 (62.0 %), 3 (55.0 %)');
    expect(alert!.annotations.runbook_url).toBe(`${PUBLIC_URL}/api/v1/alerts/rules/steal-spike`);
    // The cycle that fired it queued its notification in the same transaction.
    const deliveries = await deliveryRows(db);
    expect(deliveries.map((d) => [d.alert_id, d.kind, d.event, d.status])).toEqual([[alert!.id, 'event', 'firing', 'pending']]);
    // A second cycle that changes nothing queues nothing.
    await engine.runCycle(new Date(END + 15_000));
    expect(await deliveryRows(db)).toHaveLength(1);
    expect(await exposition(registerAlertMetrics, db)).toContain('inferwatch_alerts_firing{rule="steal-spike",severity="warning"} 1');
  });

  test('a targeted cycle judges just the hosts it names', async () => {
    const quiet = await enrolledHost(db, 'gpu-quiet');
    await client.send(quiet.token, reportsBetween(1, END - 170_000, END, { stealPct: 30 }));
    const targeted = await engine.runCycle(new Date(END - 110_000), [quiet.hostId]);
    expect(targeted).toMatchObject({ targeted: true, hosts: 1 });
    expect((await alertRows(db, 'steal-spike')).map((a) => [a.labels.host, a.state])).toEqual([
      ['gpu-steal', 'firing'],
      ['gpu-quiet', 'pending'],
    ]);
  });

  test('a host that stops reporting: host-silent fires after 3 of its intervals, by the server’s receive time', async () => {
    await enableOnly(db, ['host-silent']);
    const [heard] = await rowsOf<{ at: Date }>(db.sql,
      `SELECT max(GREATEST(h.last_seen_at, (SELECT max(received_at) FROM report_ledger r WHERE r.host_id = h.id))) AS at FROM hosts h`,
    );
    const lastMs = new Date(heard!.at).getTime();
    const result = await engine.runCycle(new Date(lastMs + 25_000));
    expect(result.transitions.firing).toBe(0);
    await engine.runCycle(new Date(lastMs + 35_000));
    const silent = (await alertRows(db, 'host-silent')).map((a) => [a.labels.host, a.state]);
    expect(silent).toEqual([
      ['gpu-steal', 'firing'],
      ['gpu-quiet', 'firing'],
    ]);
  });

  test('host-silent counts in the agent\'s configured interval: a new host\'s 260 ms warm-up report is not its interval', async () => {
    await enableOnly(db, ['host-silent']);
    const host = await enrolledHost(db, 'gpu-new');
    const warmUp = shapedReport(0, END);
    await client.send(host.token, [{ ...warmUp, intervalMs: 260, agent: { ...warmUp.agent, reportEveryMs: 10_000 } }]);
    await client.settle();
    const [ledger] = await rowsOf<{ at: Date }>(db.sql, 'SELECT received_at AS at FROM report_ledger WHERE host_id = $1', [host.hostId]);
    const heardMs = new Date(ledger!.at).getTime();
    const silentOf = async () => (await alertRows(db, 'host-silent')).filter((a) => a.labels.host === 'gpu-new').map((a) => a.state);

    await engine.runCycle(new Date(heardMs + 2_000));
    await engine.runCycle(new Date(heardMs + 30_000));
    expect(await silentOf()).toEqual([]);
    await engine.runCycle(new Date(heardMs + 31_000));
    expect(await silentOf()).toEqual(['firing']);
  });

  test('host-silent counts an older agent (no configured interval) in its longest recent interval, not its restart\'s warm-up', async () => {
    await enableOnly(db, ['host-silent']);
    const host = await enrolledHost(db, 'gpu-old-agent');
    await client.send(host.token, [...reportsBetween(0, END - 30_000, END - 260, {}), { ...shapedReport(4, END), intervalMs: 260 }]);
    await client.settle();
    const [ledger] = await rowsOf<{ at: Date }>(db.sql, 'SELECT max(received_at) AS at FROM report_ledger WHERE host_id = $1', [host.hostId]);
    const heardMs = new Date(ledger!.at).getTime();
    const silentOf = async () => (await alertRows(db, 'host-silent')).filter((a) => a.labels.host === 'gpu-old-agent').map((a) => a.state);

    await engine.runCycle(new Date(heardMs + 20_000));
    expect(await silentOf()).toEqual([]);
    await engine.runCycle(new Date(heardMs + 31_000));
    expect(await silentOf()).toEqual(['firing']);
  });

  test('a critical finding opened fires at once, and resolves when the finding does', async () => {
    await enableOnly(db, ['critical-finding']);
    const host = await enrolledHost(db, 'gpu-finding');
    const [finding] = await rowsOf<{ id: number }>(db.sql,
      `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
       VALUES ('cpu.avx512-hidden', $1, 'oslo', 'critical', 'open', 'AVX-512 is hidden from the guest.', 'Use host-passthrough.', '{"values":[]}', now(), now(), now())
       RETURNING id`,
      [host.hostId],
    );
    await engine.runCycle(new Date(END));
    let [alert] = await alertRows(db, 'critical-finding');
    expect(alert).toMatchObject({ state: 'firing', labels: { finding: 'cpu.avx512-hidden', host: 'gpu-finding' } });
    expect(alert!.annotations.description).toBe('AVX-512 is hidden from the guest. Remedy: Use host-passthrough.');
    await db.sql.query(`UPDATE findings SET state = 'resolved', resolved_at = now() WHERE id = $1`, [finding!.id]);
    await engine.runCycle(new Date(END + 15_000));
    [alert] = await alertRows(db, 'critical-finding');
    expect(alert!.state).toBe('resolved');
    const events = (await deliveryRows(db)).filter((d) => d.alert_id === alert!.id).map((d) => d.event);
    expect(events).toEqual(['firing', 'resolved']);
  });

  test('a critical finding that eases to warning and back keeps its one alert firing: one notification, no resolve', async () => {
    await enableOnly(db, ['critical-finding']);
    const host = await enrolledHost(db, 'gpu-finding-swings');
    const [finding] = await rowsOf<{ id: number }>(db.sql,
      `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
       VALUES ('cpu.steal-high', $1, 'oslo', 'critical', 'open', 'Steal 18 %.', 'Move the VM.', '{"values":[]}', now(), now(), now())
       RETURNING id`,
      [host.hostId],
    );
    const ours = async () => (await alertRows(db, 'critical-finding')).filter((a) => a.labels.host === 'gpu-finding-swings');
    for (let cycle = 0; cycle < 6; cycle++) {
      await db.sql.query(`UPDATE findings SET severity = $2 WHERE id = $1`, [finding!.id, cycle % 2 === 0 ? 'critical' : 'warning']);
      await engine.runCycle(new Date(END - 60_000 + cycle * 10_000));
    }
    const alerts = await ours();
    expect(alerts.map((a) => a.state)).toEqual(['firing']);
    expect((await deliveryRows(db)).filter((d) => d.alert_id === alerts[0]!.id).map((d) => d.event)).toEqual(['firing']);
    await db.sql.query(`UPDATE findings SET state = 'resolved', resolved_at = now() WHERE id = $1`, [finding!.id]);
    await engine.runCycle(new Date(END));
    expect((await ours()).map((a) => a.state)).toEqual(['resolved']);
  });

  test('disk queue over 10 minutes reads closed minutes from the rollups and the rest raw, agreeing with raw alone', async () => {
    await enableOnly(db, ['disk-queue-saturated']);
    const host = await enrolledHost(db, 'gpu-disk');
    await client.send(host.token, reportsBetween(1, END - 12 * MINUTE_MS, END, (ts) => ({ queueDepth: ts < END - 6 * MINUTE_MS ? 9 : 6 })));
    await runHousekeeping(db, new Date(END), serverEnvironment().retentionDays);
    await rollUp(db.sql, new Date(END), { settleMs: 0, startAt: new Date(END - 20 * MINUTE_MS) });
    const mark = (await readWatermarks(db.sql))['1m']!;
    expect(mark.getTime()).toBeGreaterThan(END - 2 * MINUTE_MS);
    const request = [{ series: 'disk_queue_depth' as const, windowMs: 10 * MINUTE_MS }];
    const key = seriesRequestKey('disk_queue_depth', 10 * MINUTE_MS);
    const at = new Date(floorTo(END, MINUTE_MS));
    const rolled = (await readSeriesWindows(db.sql, request, { to: at, rollupMark: mark, hostIds: [host.hostId] })).get(key)!;
    const raw = (await readSeriesWindows(db.sql, request, { to: at, rollupMark: null, hostIds: [host.hostId] })).get(key)!;
    const vda = (w: typeof rolled) => w.rows.find((r) => r.key === 'vda')!;
    // The same 10 minutes but for the boundary sample at to − 10 min (a rolled minute holds it, (to − 10 min, to] not).
    expect(Math.abs(vda(rolled).avg! - vda(raw).avg!)).toBeLessThan(0.05);
    expect(vda(rolled).avg).not.toBe(vda(raw).avg);
    expect(vda(rolled).max).toBe(9);

    await engine.runCycle(at);
    const alerts = await alertRows(db, 'disk-queue-saturated');
    expect(alerts.map((a) => [a.labels.device, a.state])).toEqual([['vda', 'firing']]);
  });

  test('latency SLO burn: both multi-window rules fire from merged histograms (region rollups + raw), per region and service', async () => {
    await enableOnly(db, ['latency-slo-fast-burn', 'latency-slo-slow-burn']);
    const a = await enrolledHost(db, 'gpu-lat-a');
    const b = await enrolledHost(db, 'gpu-lat-b');
    const shape = { latency: { name: 'generate', count: 20, slowShare: 0.3 } };
    await client.send(a.token, reportsBetween(1, END - 60 * MINUTE_MS, END, shape));
    await client.send(b.token, reportsBetween(1, END - 60 * MINUTE_MS, END, { latency: { name: 'generate', count: 20, slowShare: 0 } }));
    await rollUp(db.sql, new Date(END), { settleMs: 0, startAt: new Date(END - 70 * MINUTE_MS) });
    // The explainer is asked about the host that served the most slow requests, once, as the alert fires.
    const asked: number[] = [];
    const explainer = hostLatencyExplainer(db.sql, async ({ hostId }) => (asked.push(hostId), 'steal 0.4 % → 14 % (most on vCPUs 2–3)'));
    await new AlertEngine(db, { publicUrl: PUBLIC_URL, explainer }).runCycle(new Date(END));
    expect(asked).toEqual([a.hostId, a.hostId]);
    const alerts = await alertRows(db);
    const burn = alerts.filter((x) => x.rule_id.startsWith('latency-slo')).map((x) => [x.rule_id, x.fingerprint, x.state]);
    expect(burn).toEqual([
      ['latency-slo-fast-burn', 'region=oslo,service=generate', 'firing'],
      ['latency-slo-slow-burn', 'region=oslo,service=generate', 'firing'],
    ]);
    // Half of the region's requests come from the host with 30 % slow: 15 % slow is a burn of 15× a 1 % budget.
    const fast = alerts.find((x) => x.rule_id === 'latency-slo-fast-burn')!;
    expect(fast.value).toBeCloseTo(15, 0);
    expect(fast.labels).toMatchObject({ alertname: 'latency-slo-fast-burn', severity: 'critical', region: 'oslo', service: 'generate' });
    expect(fast.annotations.likely_cause).toBe('steal 0.4 % → 14 % (most on vCPUs 2–3)');
    expect(fast.annotations.description).toMatch(/ Likely cause: steal 0\.4 % → 14 % \(most on vCPUs 2–3\)$/);
  });
});
