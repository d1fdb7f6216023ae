import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InventoryCache } from '../../lib/findings/read/facts/inventory-cache';
import { readFleetFacts, readHostFacts } from '../../lib/findings/read/read-facts';
import { agentOutdated } from '../../lib/findings/rules/agent.outdated';
import { stoppedReporting } from '../../lib/findings/rules/agent.stopped-reporting';
import type { HostFacts } from '../../lib/findings/types';
import { ingestClient, reportSeries } from '../support/ingest-client';
import { makeReport } from '../support/report-factory';
import { APP_VERSION } from '../../lib/version';
import { defaultsOf, ruleContext } from '../support/findings-facts';
import { createServerDatabase, enrolledHost, type TestDatabase } from './ingest-helpers';

const withDropped = (counts: number[]) => (i: number, ts: number) => {
  const r = makeReport({ seq: i, ts });
  r.agent.droppedReports = counts[i]!;
  return r;
};

describe('the facts the findings rules judge, read from ingested reports', () => {
  let t: TestDatabase;
  let facts: Map<string, HostFacts>;
  // Ten minutes ago, so every report is fresh for ingest and the 5-minute window is all in the past.
  const endMs = Math.floor(Date.now() / 1000) * 1000 - 10 * 60_000;

  beforeAll(async () => {
    t = await createServerDatabase();
    const client = ingestClient(t.db);
    const hosts = {
      reset: await enrolledHost(t.db, 'osl-reset'),
      rising: await enrolledHost(t.db, 'osl-rising'),
      quiet: await enrolledHost(t.db, 'osl-quiet'),
      never: await enrolledHost(t.db, 'osl-never'),
      fresh: await enrolledHost(t.db, 'osl-fresh'),
      restarted: await enrolledHost(t.db, 'osl-restarted'),
      oldAgent: await enrolledHost(t.db, 'osl-old-agent'),
    };
    const byOldAgent = (i: number, ts: number) => {
      const r = makeReport({ seq: i, ts });
      r.agent.version = '0.0.9';
      return r;
    };
    await client.send(hosts.oldAgent.token, reportSeries(2, endMs, 10_000, byOldAgent));
    // The agent's spool state was lost (a reinstall) between the third and fourth report, then it dropped 5 more.
    await client.send(hosts.reset.token, reportSeries(7, endMs, 10_000, withDropped([500, 500, 500, 0, 0, 2, 5])));
    await client.send(hosts.rising.token, reportSeries(4, endMs, 10_000, withDropped([3, 3, 7, 7])));
    // Reports every minute, the newest 20 minutes before the window ends: no samples in it.
    await client.send(hosts.quiet.token, reportSeries(5, endMs - 20 * 60_000, 60_000, (i, ts) => ({ ...makeReport({ seq: i, ts }), intervalMs: 60_000 })));
    // A new agent's only report so far: its 260 ms warm-up, 2 s before the window ends, sent every 10 s from then on.
    const warmUp = makeReport({ seq: 0, ts: endMs - 2_000 });
    await client.send(hosts.fresh.token, [{ ...warmUp, intervalMs: 260, agent: { ...warmUp.agent, reportEveryMs: 10_000 } }]);
    // An agent from before reportEveryMs, restarted: 10 s reports, then its warm-up report.
    await client.send(hosts.restarted.token, [
      ...reportSeries(3, endMs - 20_000, 10_000, (i, ts) => makeReport({ seq: i, ts })),
      { ...makeReport({ seq: 3, ts: endMs - 10_000 + 260 }), intervalMs: 260 },
    ]);
    await client.close();
    const all = await readHostFacts(t.db.sql, { now: new Date(endMs + 1_000), inventories: new InventoryCache() });
    facts = new Map(all.map((f) => [f.host.hostname, f]));
  });
  afterAll(async () => {
    await t.drop();
  });

  test('dropped reports are the counter\'s rises: a reset to 0 counts what came after it, not the fall', () => {
    expect(facts.get('osl-reset')!.window!.droppedReports).toBe(5);
    expect(facts.get('osl-rising')!.window!.droppedReports).toBe(4);
  });

  test('a host with no samples in the window keeps its newest report\'s interval', () => {
    const quiet = facts.get('osl-quiet')!;
    expect(quiet.window).toBeNull();
    expect(quiet.lastIntervalMs).toBe(60_000);
    expect(facts.get('osl-reset')!.lastIntervalMs).toBe(10_000);
  });

  test('reports that arrived late keep both times: when the newest arrived, and where its samples end', async () => {
    const newestSampleMs = endMs - 20 * 60_000;
    const quiet = facts.get('osl-quiet')!;
    expect(quiet.lastSampleMs).toBe(newestSampleMs);
    // Sent just now, 20 minutes after the newest was made: silence counts from the arrival, the message names both.
    expect(quiet.lastReportMs! - newestSampleMs).toBeGreaterThan(15 * 60_000);
    const later = await readHostFacts(t.db.sql, { now: new Date(quiet.lastReportMs! + 20 * 60_000), hostIds: [quiet.host.id], inventories: new InventoryCache() });
    const [v] = stoppedReporting.evaluate(later[0]!, { missedIntervals: 3, criticalAfterMin: 15 }, ruleContext());
    expect(v!.message).toMatch(/^No report for 20 min \(last received .*\): 20 reports missed at its 60 s interval\. Its samples end at /);
    expect(v!.message).toContain(`Its samples end at ${new Date(newestSampleMs).toISOString().slice(0, 19).replace('T', ' ')} UTC by its own clock`);
  });

  test('each host\'s agent version is read, and the fleet facts carry this server\'s: an older agent is judged outdated', async () => {
    expect(facts.get('osl-old-agent')!.agentVersion).toBe('0.0.9');
    expect(facts.get('osl-rising')!.agentVersion).toBe('0.1.0');
    expect(facts.get('osl-never')!.agentVersion).toBeNull();
    const fleet = await readFleetFacts(t.db.sql, [...facts.values()]);
    expect(fleet.serverVersion).toBe(APP_VERSION);
    const judged = [...facts.values()].filter((f) => agentOutdated.evaluate(f, defaultsOf(agentOutdated.defaults), ruleContext([], fleet)).length > 0);
    expect(judged.map((f) => f.host.hostname)).toEqual(['osl-old-agent']);
  });

  test('a host that never reported has neither a report time nor an interval', () => {
    expect(facts.get('osl-never')).toMatchObject({ lastReportMs: null, lastSampleMs: null, lastIntervalMs: null, reportEveryMs: null, window: null });
  });

  test('the agent\'s configured interval is read from its host, so its warm-up report is not taken for its interval', () => {
    const fresh = facts.get('osl-fresh')!;
    expect(fresh).toMatchObject({ reportEveryMs: 10_000, lastIntervalMs: 260, window: { samples: 1, longestIntervalMs: 260 } });
    expect(stoppedReporting.evaluate(fresh, { missedIntervals: 3, criticalAfterMin: 15 }, ruleContext())).toEqual([]);
  });

  test('without a configured interval (an older agent) the window\'s longest interval is read beside the newest', () => {
    expect(facts.get('osl-restarted')).toMatchObject({ reportEveryMs: null, lastIntervalMs: 260, window: { samples: 4, longestIntervalMs: 10_000 } });
  });
});
