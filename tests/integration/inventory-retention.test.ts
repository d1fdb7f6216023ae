import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import { readInventoryChanges, readNewestChange } from '../../lib/findings/latency/read/inventory-changes';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { ingestLimits } from '../../lib/ingest/limits';
import { MAX_SNAPSHOTS_PER_HOST } from '../../lib/ingest/write/inventory';
import type { Inventory, Report } from '../../lib/protocol';
import { DAY_MS, MINUTE_MS, floorTo } from '../../lib/protocol/time';
import { runHousekeeping } from '../../lib/series/maintenance';
import { DEFAULT_RETENTION_DAYS } from '../../lib/series/retention-config';
import { cleanInventory, watchedProcess } from '../support/findings-facts';
import { createEmbeddedDatabase, createServerDatabase, enrolledHost, jsonBody, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

const NOW = floorTo(Date.now(), MINUTE_MS);

const inventoryWith = (threads: string): Inventory => ({
  ...cleanInventory({ processes: [watchedProcess({ name: 'triton', env: { OMP_NUM_THREADS: threads } })] }),
  hash: `omp-${threads}`,
});

function reportAt(seq: number, ts: number, inventory: Inventory): Report {
  const report = realisticReport(seq, ts);
  report.inventory = inventory;
  return report;
}

// Before: every new hash was a new snapshot, kept forever — a host whose hash flips every report stored an inventory
// every 10 s, and no retention touched them.
describe.each([
  ['PostgreSQL server', createServerDatabase],
  ['embedded PGlite', createEmbeddedDatabase],
] as const)('inventory snapshots are bounded per host (%s)', (_, createDatabase) => {
  let t: TestDatabase;
  let deps: IngestDeps;
  beforeAll(async () => {
    t = await createDatabase();
    const limits = ingestLimits();
    deps = createIngestDeps(t.db, { limits: { ...limits, rate: { ...limits.rate, requestBurst: 1e9, reportBurst: 1e9 } } });
  });
  afterAll(async () => {
    await deps.writer.close();
    await t.drop();
  });

  const post = async (token: string, reports: Report[]) => {
    for (let i = 0; i < reports.length; i += 500) {
      const out = await ingestRequest({ authorization: `Bearer ${token}`, contentType: 'application/json', ...jsonBody({ reports: reports.slice(i, i + 500) }) }, deps);
      expect(out.status).toBe(200);
    }
  };
  const snapshots = (hostId: number) =>
    rowsOf<{ hash: string; taken_at: Date }>(t.db.sql, 'SELECT hash, taken_at FROM inventory_snapshots WHERE host_id = $1 ORDER BY taken_at, id', [hostId]);

  test('a hash that flips every report (10 s) keeps each change with its own time, up to the cap', async () => {
    const host = await enrolledHost(t.db);
    const start = NOW - 60 * MINUTE_MS;
    const reports = Array.from({ length: 180 }, (_, i) => reportAt(i, start + i * 10_000, inventoryWith(String(i))));
    // One request with the first half; the rest one report at a time, as an agent sends them live.
    await post(host.token, reports.slice(0, 90));
    for (const report of reports.slice(90)) await post(host.token, [report]);
    const kept = await snapshots(host.hostId);
    expect(kept).toHaveLength(180);
    expect(kept.map((s) => new Date(s.taken_at).getTime())).toEqual(Array.from({ length: 180 }, (_, i) => start + i * 10_000));
    expect(kept.at(-1)!.hash).toBe('omp-179');
  });

  test(`a host keeps its newest ${MAX_SNAPSHOTS_PER_HOST} changes`, async () => {
    const host = await enrolledHost(t.db);
    const start = NOW - 300 * MINUTE_MS;
    const count = MAX_SNAPSHOTS_PER_HOST + 50;
    await post(host.token, Array.from({ length: count }, (_, i) => reportAt(i, start + i * MINUTE_MS, inventoryWith(String(i)))));
    const kept = await snapshots(host.hostId);
    expect(kept).toHaveLength(MAX_SNAPSHOTS_PER_HOST);
    expect(kept[0]!.hash).toBe(`omp-${count - MAX_SNAPSHOTS_PER_HOST}`);
    expect(kept.at(-1)!.hash).toBe(`omp-${count - 1}`);
  });

  test('what changed before latency went up still reads: a change after a quiet hour, and a restart\'s burst as one change', async () => {
    const host = await enrolledHost(t.db);
    const start = NOW - 90 * MINUTE_MS;
    await post(host.token, [reportAt(0, start, inventoryWith('8'))]);
    // 45 minutes later the process restarts: gone, then back with new settings, within half a minute.
    const gone: Inventory = { ...cleanInventory({ processes: [] }), hash: 'gone' };
    const change = start + 45 * MINUTE_MS;
    await post(host.token, [reportAt(1, change, gone), reportAt(2, change + 10_000, inventoryWith('1')), reportAt(3, change + 20_000, inventoryWith('1'))]);
    // Each snapshot is a change of its own; the newest change reads the burst as one, from when the process went.
    const changes = await readInventoryChanges(t.db.sql, [host.hostId], new Date(start + MINUTE_MS), new Date(NOW));
    expect(changes.get(host.hostId)!.map((c) => c.atMs)).toEqual([change, change + 10_000]);
    const newest = await readNewestChange(t.db.sql, host.hostId, new Date(start + MINUTE_MS), new Date(NOW));
    expect(newest).toMatchObject({ atMs: change, changes: expect.arrayContaining([expect.stringContaining('OMP_NUM_THREADS 8 → 1')]) });
  });

  test('retention drops snapshots older than the 1-hour rollups\' retention, but never a host\'s current inventory', async () => {
    const quiet = await enrolledHost(t.db);
    const busy = await enrolledHost(t.db);
    await post(quiet.token, [reportAt(0, NOW - 30 * MINUTE_MS, inventoryWith('4'))]);
    await post(busy.token, [0, 1, 2].map((i) => reportAt(i, NOW - (30 - 5 * i) * MINUTE_MS, inventoryWith(String(i)))));
    const later = new Date(NOW + (DEFAULT_RETENTION_DAYS.oneHour + 1) * DAY_MS);
    await runHousekeeping(t.db, later, DEFAULT_RETENTION_DAYS);
    expect((await snapshots(quiet.hostId)).map((s) => s.hash)).toEqual(['omp-4']);
    expect((await snapshots(busy.hostId)).map((s) => s.hash)).toEqual(['omp-2']);
  });
});
