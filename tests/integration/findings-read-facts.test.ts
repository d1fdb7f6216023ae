import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InventoryCache, readHostFacts } from '../../lib/findings/read-facts';
import type { HostFacts } from '../../lib/findings/types';
import { ingestClient, reportSeries } from '../support/ingest-client';
import { makeReport } from '../support/report-factory';
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
    };
    // The agent's spool state was lost (a reinstall) between the third and fourth report, then it dropped 5 more.
    await client.send(hosts.reset.token, reportSeries(7, endMs, 10_000, withDropped([500, 500, 500, 0, 0, 2, 5])));
    await client.send(hosts.rising.token, reportSeries(4, endMs, 10_000, withDropped([3, 3, 7, 7])));
    // Reports every minute, the newest 20 minutes before the window ends: no samples in it.
    await client.send(hosts.quiet.token, reportSeries(5, endMs - 20 * 60_000, 60_000, (i, ts) => ({ ...makeReport({ seq: i, ts }), intervalMs: 60_000 })));
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

  test('a host that never reported has neither a report time nor an interval', () => {
    expect(facts.get('osl-never')).toMatchObject({ lastReportMs: null, lastIntervalMs: null, window: null });
  });
});
