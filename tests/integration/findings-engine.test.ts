import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FindingsEngine } from '../../lib/findings/engine/engine';
import { SelfLoad } from '../../lib/findings/self-load';
import { getFleetSummary } from '../../lib/fleet';
import { registerFindingMetrics } from '../../lib/findings/read/finding-metrics';
import { exposition } from '../support/exposition';
import { acknowledgeFinding, listFindings } from '../../lib/findings/read/list-findings';
import { deleteThresholdOverride, listThresholdOverrides, putThresholdOverride } from '../../lib/findings/store/threshold-overrides';
import { findingsQuerySchema, type FindingsQuery } from '../../lib/protocol/findings';
import { ingestClient, reportSeries } from '../support/ingest-client';
import { makeReport } from '../support/report-factory';
import { createServerDatabase, enrolledHost, type TestDatabase } from './ingest-helpers';

const INTERVAL_MS = 10_000;
const query = (q: Partial<Record<keyof FindingsQuery, string>> = {}) => findingsQuerySchema.parse(q);

/** Steal on every report of the series, spread over two vCPUs (cpu 1 loses twice what cpu 0 does). */
const withSteal = (steal: number) => (i: number, ts: number) => {
  const r = makeReport({ seq: i, ts });
  if ('total' in r.cpu) {
    r.cpu.total.stealPct = steal;
    r.cpu.total.idlePct = Math.max(0, 49 - steal);
    r.cpu.perCpu = r.cpu.perCpu.map((c) => ({ ...c, stealPct: c.cpu === 1 ? (steal * 4) / 3 : (steal * 2) / 3, idlePct: 10 }));
  }
  return r;
};

describe('the findings engine over ingested reports', () => {
  let t: TestDatabase;
  let client: ReturnType<typeof ingestClient>;
  let engine: FindingsEngine;
  let quiet: Awaited<ReturnType<typeof enrolledHost>>;
  let noisy: Awaited<ReturnType<typeof enrolledHost>>;
  // Ten minutes ago, so every report is fresh for ingest and the 5-minute window is all in the past.
  const endMs = Math.floor(Date.now() / 1000) * 1000 - 10 * 60_000;

  beforeAll(async () => {
    t = await createServerDatabase();
    client = ingestClient(t.db);
    engine = new FindingsEngine(t.db);
    quiet = await enrolledHost(t.db, 'osl-quiet');
    noisy = await enrolledHost(t.db, 'osl-noisy');
    await client.send(quiet.token, reportSeries(30, endMs, INTERVAL_MS, withSteal(0.5)));
    await client.send(noisy.token, reportSeries(30, endMs, INTERVAL_MS, withSteal(12)));
    await client.settle();
  });
  afterAll(async () => {
    await client.close();
    await t.drop();
  });

  test('a cycle opens a steal finding for the noisy host only, naming its most-stolen vCPU', async () => {
    const result = await engine.runCycle(new Date(endMs + 1_000));
    expect(result).toMatchObject({ hosts: 2, opened: 1, resolved: 0, failures: [] });
    const { findings } = await listFindings(t.db, query());
    expect(findings.map((f) => [f.hostname, f.ruleId, f.severity, f.state])).toEqual([['osl-noisy', 'cpu.steal-high', 'warning', 'open']]);
    expect(findings[0]!.message).toMatch(/^CPU steal averaged 12 % over 5 min \(peak 12 %\); most from vCPU 1 \(16 %\), 0 \(8 %\)\.$/);
    expect(findings[0]!.evidence.window).toEqual({ from: new Date(endMs + 1_000 - 300_000).toISOString(), to: new Date(endMs + 1_000).toISOString() });
  });

  test('the fleet summary counts open findings and names each host\'s top one; /metrics counts them by rule, severity and region', async () => {
    const summary = await getFleetSummary(t.db);
    expect(summary.findings).toEqual({ critical: 0, warning: 1, info: 0 });
    const byName = Object.fromEntries(summary.hosts.map((h) => [h.hostname, h]));
    expect(byName['osl-noisy']).toMatchObject({ findings: { critical: 0, warning: 1, info: 0 }, topFinding: { ruleId: 'cpu.steal-high', severity: 'warning', title: 'Noisy neighbour: CPU steal' } });
    expect(byName['osl-quiet']).toMatchObject({ findings: { critical: 0, warning: 0, info: 0 }, topFinding: null });
    expect(await exposition(registerFindingMetrics, t.db)).toContain('inferwatch_findings_open{rule="cpu.steal-high",severity="warning",region="oslo"} 1\n');
  });

  test('the next cycle over the same data changes nothing; one without samples in its window leaves the finding open', async () => {
    expect(await engine.runCycle(new Date(endMs + 2_000))).toMatchObject({ opened: 0, updated: 1, resolved: 0 });
    // Ten minutes on, the window holds no samples: the host may just be offline, so steal cannot be judged.
    expect(await engine.runCycle(new Date(endMs + 10 * 60_000))).toMatchObject({ opened: 0, resolved: 0 });
    expect((await listFindings(t.db, query())).findings).toHaveLength(1);
  });

  test('hosts the server has not heard from for three intervals are reported stopped, by a later clock', async () => {
    const later = new Date(Date.now() + 10 * 60_000);
    await engine.runCycle(later);
    const stopped = (await listFindings(t.db, query({ rule: 'agent.stopped-reporting' }))).findings;
    expect(stopped.map((f) => [f.hostname, f.severity]).sort()).toEqual([['osl-noisy', 'warning'], ['osl-quiet', 'warning']]);
    // Their steal finding stays open: without samples in the window it cannot be judged either way.
    expect((await listFindings(t.db, query({ rule: 'cpu.steal-high' }))).findings).toHaveLength(1);
    await engine.runCycle(new Date(endMs + 2_500));
    expect((await listFindings(t.db, query({ rule: 'agent.stopped-reporting' }))).findings).toEqual([]);
  });

  test('a host override raises the threshold above the measured steal and the finding resolves, keeping its history', async () => {
    await putThresholdOverride(t.db, { scope: 'host', hostId: noisy.hostId, ruleId: 'cpu.steal-high', thresholds: { warningPct: 20, clearPct: 15 }, disabled: false });
    expect(await engine.runCycle(new Date(endMs + 3_000))).toMatchObject({ resolved: 1 });
    expect((await listFindings(t.db, query())).findings).toEqual([]);
    const history = (await listFindings(t.db, query({ state: 'all', host: String(noisy.hostId), rule: 'cpu.steal-high' }))).findings;
    expect(history.map((f) => [f.state, f.peakValue, f.resolvedAt])).toEqual([['resolved', 12, new Date(endMs + 3_000).toISOString()]]);
  });

  test('when the condition holds again it is a new occurrence, which can be acknowledged with a reason and an expiry', async () => {
    await putThresholdOverride(t.db, { scope: 'host', hostId: noisy.hostId, ruleId: 'cpu.steal-high', thresholds: {}, disabled: false });
    expect(await engine.runCycle(new Date(endMs + 4_000))).toMatchObject({ opened: 1 });
    const [open] = (await listFindings(t.db, query())).findings;
    const acked = await acknowledgeFinding(t.db, open!.id, { reason: 'provider ticket 4711', expiresAt: new Date(endMs + 86_400_000).toISOString() }, new Date(endMs + 5_000));
    expect(acked.acknowledgement).toEqual({ at: new Date(endMs + 5_000).toISOString(), reason: 'provider ticket 4711', expiresAt: new Date(endMs + 86_400_000).toISOString() });
    const lapsed = await listFindings(t.db, query(), new Date(endMs + 2 * 86_400_000));
    expect(lapsed.findings[0]!.acknowledgement).toBeNull();
    expect((await listFindings(t.db, query({ state: 'all', host: String(noisy.hostId), rule: 'cpu.steal-high' }))).findings).toHaveLength(2);
  });

  test('a rule disabled for a region raises nothing there, unless a more specific override enables it', async () => {
    await putThresholdOverride(t.db, { scope: 'region', region: 'oslo', ruleId: 'cpu.steal-high', thresholds: {}, disabled: true });
    expect(await engine.runCycle(new Date(endMs + 6_000))).toMatchObject({ resolved: 0 });
    const [hostOverride] = (await listThresholdOverrides(t.db)).filter((o) => o.scope === 'host');
    await deleteThresholdOverride(t.db, hostOverride!.id);
    expect(await engine.runCycle(new Date(endMs + 7_000))).toMatchObject({ resolved: 1 });
    expect((await listFindings(t.db, query())).findings).toEqual([]);
  });

  test('the server\'s own machine is not judged on a window in which inferwatch loaded it; once that window has passed it is', async () => {
    for (const o of await listThresholdOverrides(t.db)) await deleteThresholdOverride(t.db, o.id);
    const own = await enrolledHost(t.db, 'osl-own');
    await client.send(own.token, reportSeries(30, endMs, INTERVAL_MS, withSteal(12)));
    await client.settle();
    let nowMs = endMs - 20 * 60_000;
    const selfLoad = new SelfLoad({ hostname: 'osl-own', machineId: null }, () => nowMs);
    const endBackfill = selfLoad.begin();
    const ownEngine = new FindingsEngine(t.db, { selfLoad });
    const ownFindings = async () => (await listFindings(t.db, query())).findings.filter((f) => f.hostname === 'osl-own').map((f) => f.ruleId);

    await ownEngine.runCycle(new Date(endMs + 8_000));
    expect(await ownFindings()).toEqual([]);
    expect((await listFindings(t.db, query())).findings.map((f) => f.hostname)).toEqual(['osl-noisy']);
    nowMs = endMs - 10 * 60_000;
    endBackfill();
    await ownEngine.runCycle(new Date(endMs + 9_000));
    expect(await ownFindings()).toEqual(['cpu.steal-high']);
  });
});
