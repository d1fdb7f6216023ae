import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeDb } from '../../lib/db';
import { openDatabase, type Database } from '../../lib/db/open';
import { compareRegions, getFleetPage, getFleetSparklines } from '../../lib/fleet';
import type { SketchWire } from '../../lib/protocol';
import { rollUp } from '../../lib/series';
import { LatencySketch, keyOf, mergeWires, quantileOfWire } from '../../lib/sketch';
import { fleetParamsSchema } from '../../lib/protocol/read-api/fleet';
import { GET as getFleet } from '../../app/api/v1/fleet/route';
import { GET as getSparklines } from '../../app/api/v1/fleet/sparklines/route';
import { GET as getHost } from '../../app/api/v1/hosts/[id]/route';
import { GET as getDemo } from '../../app/api/v1/fleet/demo/route';
import { PUT as putThreshold } from '../../app/api/v1/findings/thresholds/route';
import { DELETE as deleteThreshold } from '../../app/api/v1/findings/thresholds/[id]/route';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { MINUTE_MS, insertHost, insertLatency, seeded } from './series-support';

let testDb: TestDatabase;
let db: Database;
const now = new Date(Math.floor(Date.now() / 10_000) * 10_000);
const windowFrom = now.getTime() - 15 * MINUTE_MS;
// The rollups below reach this minute; the p99 column counts the rolled-up minutes of the last 15 whole ones.
const rolledUntil = Math.floor((now.getTime() - 6 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
const minutesFrom = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - 15 * MINUTE_MS;
const ids: Record<string, number> = {};
const wires = new Map<number, { ts: number; wire: SketchWire }[]>();

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  db = await openDatabase({ kind: 'server', url: testDb.url });
  ids.slow = await insertHost(db.sql, { hostname: 'slow', region: 'oslo', labels: { model: 'llama' }, lastSeenAt: now });
  ids.fast = await insertHost(db.sql, { hostname: 'fast', region: 'frankfurt', lastSeenAt: now });
  ids.fresh = await insertHost(db.sql, { hostname: 'fresh', region: 'frankfurt' });
  const from = new Date(now.getTime() - 25 * MINUTE_MS);
  await db.sql.query(
    `INSERT INTO host_samples (host_id, ts, interval_ms, cpu_steal_pct, cpu_iowait_pct, cpu_user_pct)
     SELECT h, t, 10000, s, 2, 10 FROM unnest($1::int[], $2::real[]) AS x(h, s),
       generate_series($3::timestamptz, $4::timestamptz, interval '10 seconds') t`,
    [[ids.slow, ids.fast], [8, 1], from, now],
  );
  // Older reports' disks were idle; only the newest report's deepest queue counts.
  await db.sql.query(
    `INSERT INTO disk_sample_arrays
     SELECT $1, t, '{vda,vdb}', '{1,1}', '{1,1}', '{1,1}', '{1,1}', '{1,1}', '{1,1}',
            CASE WHEN t = $3 THEN '{0.5,6}'::real[] ELSE '{9,9}'::real[] END, '{0,0}', '{10,90}'
       FROM generate_series($2::timestamptz, $3::timestamptz, interval '10 seconds') t`,
    [ids.slow, from, now],
  );
  const random = seeded(7);
  for (const [id, scale] of [[ids.slow, 200], [ids.fast, 10]] as const) {
    const list: { ts: number; wire: SketchWire }[] = [];
    for (let ts = from.getTime() + 5_000; ts < now.getTime(); ts += MINUTE_MS) {
      const sketch = new LatencySketch();
      for (let j = 0; j < 30; j++) sketch.add(scale * (0.5 + random()));
      list.push({ ts, wire: sketch.toWire() });
      await insertLatency(db.sql, id, new Date(ts), 'request', list.at(-1)!.wire);
    }
    wires.set(id, list);
  }
  await db.sql.query(
    `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
     VALUES ('cpu.steal-high', $1, 'frankfurt', 'critical', 'open', 'steal 31 %', 'move', '{}', $2, $2, $2)`,
    [ids.fast, now],
  );
  // Part of the window from the 1-minute and region rollups, the rest raw: the answers must not depend on which.
  await rollUp(db.sql, new Date(now.getTime() - 6 * MINUTE_MS), { startAt: from, settleMs: 0 });
});
afterAll(async () => {
  await closeDb();
  await db?.close();
  await testDb?.drop();
});

const p99Within = (list: { ts: number; wire: SketchWire }[]) => quantileOfWire(mergeWires(list.filter((w) => w.ts >= windowFrom).map((w) => w.wire)), 0.99);
// One report a minute here, so a minute's p99 is its report's.
const worstMinuteP99 = (list: { ts: number; wire: SketchWire }[]) =>
  Math.max(...list.filter((w) => w.ts >= minutesFrom && w.ts < rolledUntil).map((w) => quantileOfWire(w.wire, 0.99)!));

describe('fleet page', () => {
  test('hosts with findings first; tiles count the whole fleet', async () => {
    const page = await getFleetPage(db, { limit: 50 }, { now, staleAfterMs: 30_000 });
    expect(page.hosts.map((h) => h.hostname)).toEqual(['fast', 'fresh', 'slow']);
    expect(page.tiles).toMatchObject({ hosts: 3, reporting: 2, stale: 0, neverReported: 1, misconfiguredHosts: { critical: 1, warning: 0, info: 0 } });
    expect(page.pageInfo).toEqual({ page: 1, limit: 50, total: 3, pages: 1, sort: 'attention', dir: 'asc' });
    expect(page.regions).toEqual(['frankfurt', 'oslo']);
    expect(page.latencyNames).toEqual(['request']);
  });

  test('a host\'s p99 is its worst rolled-up minute of the last 15; the tile merges the 15 minutes\' histograms', async () => {
    const page = await getFleetPage(db, { limit: 50 }, { now });
    const byName = Object.fromEntries(page.hosts.map((h) => [h.hostname, h]));
    expect(byName.slow!.p99Ms).toBe(worstMinuteP99(wires.get(ids.slow!)!));
    expect(byName.fast!.p99Ms).toBe(worstMinuteP99(wires.get(ids.fast!)!));
    expect(byName.fresh!.p99Ms).toBeNull();
    expect(page.tiles.p99Ms).toBe(p99Within([...wires.get(ids.slow!)!, ...wires.get(ids.fast!)!]));
    expect(page.tiles.latencyCount).toBe(2 * 30 * wires.get(ids.slow!)!.filter((w) => w.ts >= windowFrom).length);
    const none = await getFleetPage(db, { limit: 50, latency: 'no-such-series' }, { now });
    expect(none.tiles.p99Ms).toBeNull();
    expect(none.hosts.every((h) => h.p99Ms === null)).toBe(true);
  });

  test('disk queue is the deepest disk of the newest report', async () => {
    const page = await getFleetPage(db, { limit: 50 }, { now });
    expect(page.hosts.find((h) => h.hostname === 'slow')!.diskQueueDepth).toBeCloseTo(6, 5);
    expect(page.hosts.find((h) => h.hostname === 'fast')!.diskQueueDepth).toBeNull();
  });

  test('sorting by p99 ranks hosts as their p99 over the whole 15 minutes did', async () => {
    const exact = [ids.slow!, ids.fast!].sort((a, b) => p99Within(wires.get(b)!)! - p99Within(wires.get(a)!)!);
    const page = await getFleetPage(db, { sort: 'p99', limit: 50 }, { now });
    expect(page.hosts.map((h) => h.id)).toEqual([...exact, ids.fresh!]);
  });

  test('sorting by p99 or disk queue ranks the whole fleet, not just the page', async () => {
    const p99 = await getFleetPage(db, { sort: 'p99', limit: 1 }, { now });
    expect(p99.hosts.map((h) => h.hostname)).toEqual(['slow']);
    expect(p99.pageInfo).toMatchObject({ total: 3, pages: 3, dir: 'desc' });
    const fastest = await getFleetPage(db, { sort: 'p99', dir: 'asc', limit: 1 }, { now });
    expect(fastest.hosts.map((h) => h.hostname)).toEqual(['fast']);
    const disk = await getFleetPage(db, { sort: 'diskQueue', limit: 1 }, { now });
    expect(disk.hosts.map((h) => h.hostname)).toEqual(['slow']);
    const third = await getFleetPage(db, { sort: 'steal', limit: 1, page: 3 }, { now });
    expect(third.hosts.map((h) => h.hostname)).toEqual(['fresh']);
  });

  test('sparklines give a point per minute of the last hour', async () => {
    const steal = await getFleetSparklines(db, { ids: [ids.slow!, ids.fresh!], metric: 'steal' }, { now });
    const points = steal.hosts[String(ids.slow)]!;
    expect(points.length).toBeGreaterThanOrEqual(25);
    expect(points.every((p) => Math.abs(p.v! - 8) < 1e-4)).toBe(true);
    expect(points.map((p) => p.t)).toEqual([...points.map((p) => p.t)].sort((a, b) => a - b));
    expect(steal.hosts[String(ids.fresh)]).toBeUndefined();
    const p99 = await getFleetSparklines(db, { ids: [ids.slow!], metric: 'p99' }, { now });
    const expected = wires.get(ids.slow!)!.map((w) => ({ t: Math.floor(w.ts / MINUTE_MS) * MINUTE_MS, v: quantileOfWire(w.wire, 0.99) }));
    expect(p99.hosts[String(ids.slow)]).toEqual(expected.filter((p) => p.t >= Date.parse(p99.from)));
  });
});

describe('filters and sorts, as PostgreSQL runs them', () => {
  const names = async (query: Record<string, string>) => {
    const page = await getFleetPage(db, { ...fleetParamsSchema.parse(query), limit: 50 }, { now, staleAfterMs: 30_000 });
    return page.hosts.map((h) => h.hostname);
  };

  test.each([
    [{ region: 'frankfurt' }, ['fast', 'fresh']],
    [{ regions: 'oslo,nowhere' }, ['slow']],
    [{ status: 'never_reported' }, ['fresh']],
    [{ status: 'ok,never_reported', sort: 'hostname' }, ['fast', 'fresh', 'slow']],
    [{ label: 'model:llama' }, ['slow']],
    [{ label: 'model:mistral' }, []],
    [{ q: 'FR', sort: 'hostname' }, ['fast', 'fresh']],
    [{ q: 'llama' }, ['slow']],
    [{ q: '%' }, []],
    [{ finding: 'any' }, ['fast']],
    [{ finding: 'none', sort: 'hostname' }, ['fresh', 'slow']],
    [{ finding: 'critical' }, ['fast']],
    [{ finding: 'warning' }, []],
    [{ region: 'frankfurt', status: 'ok' }, ['fast']],
  ])('%o keeps %o', async (query, expected) => {
    expect(await names(query as Record<string, string>)).toEqual(expected);
  });

  test.each([
    [{}, ['fast', 'fresh', 'slow']],
    [{ dir: 'desc' }, ['slow', 'fresh', 'fast']],
    [{ sort: 'hostname', dir: 'desc' }, ['slow', 'fresh', 'fast']],
    [{ sort: 'steal' }, ['slow', 'fast', 'fresh']],
    [{ sort: 'steal', dir: 'asc' }, ['fast', 'slow', 'fresh']],
    [{ sort: 'status' }, ['fresh', 'fast', 'slow']],
    [{ sort: 'findings' }, ['fast', 'fresh', 'slow']],
    [{ sort: 'lastSeen', dir: 'asc' }, ['fast', 'slow', 'fresh']],
    [{ sort: 'p99', dir: 'asc' }, ['fast', 'slow', 'fresh']],
  ])('sorted by %o: %o', async (query, expected) => {
    expect(await names(query as Record<string, string>)).toEqual(expected);
  });
});

describe('fleet routes', () => {
  const call = (handler: (r: Request) => Promise<Response>, path: string) => handler(new Request(`http://localhost${path}`));

  test('GET /api/v1/fleet pages and filters; bad parameters answer 400 naming the field', async () => {
    const response = await call(getFleet, '/api/v1/fleet?regions=frankfurt&status=ok&limit=10');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.hosts.map((h: { hostname: string }) => h.hostname)).toEqual(['fast']);
    expect(body.pageInfo).toMatchObject({ total: 1, limit: 10 });
    expect(body.tiles.hosts).toBe(3);
    const bad = await call(getFleet, '/api/v1/fleet?sort=cpu');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details).toContainEqual(expect.objectContaining({ path: 'sort' }));
  });

  test('the levels a host\'s values are coloured at are the rules\' thresholds with the overrides that apply to it', async () => {
    const levelsOf = async () => {
      const body = await (await call(getFleet, '/api/v1/fleet?limit=10&sort=hostname')).json();
      return Object.fromEntries(body.hosts.map((h: { hostname: string; levels: unknown }) => [h.hostname, h.levels]));
    };
    const defaults = { stealPct: { warn: 5, crit: 15 }, iowaitPct: { warn: 10, crit: 25 }, diskQueueDepth: { warn: 4, crit: null } };
    expect(await levelsOf()).toEqual({ fast: defaults, fresh: defaults, slow: defaults });

    const put = (body: object) =>
      putThreshold(new Request('http://localhost/api/v1/findings/thresholds', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    const region = await put({ scope: 'region', region: 'frankfurt', ruleId: 'cpu.steal-high', thresholds: { warningPct: 1, criticalPct: 3 } });
    expect(region.status).toBe(200);
    const host = await put({ scope: 'host', hostId: ids.fast, ruleId: 'storage.disk-saturated', thresholds: { queueDepth: 12 } });
    expect(host.status).toBe(200);
    try {
      const levels = await levelsOf();
      expect(levels.fast).toEqual({ ...defaults, stealPct: { warn: 1, crit: 3 }, diskQueueDepth: { warn: 12, crit: null } });
      expect(levels.fresh).toEqual({ ...defaults, stealPct: { warn: 1, crit: 3 } });
      expect(levels.slow).toEqual(defaults);
      const detail = await (await getHost(new Request(`http://localhost/api/v1/hosts/${ids.fast}`), { params: Promise.resolve({ id: String(ids.fast) }) })).json();
      expect(detail.levels).toEqual(levels.fast);
    } finally {
      for (const response of [region, host]) {
        const { id } = await response.json();
        await deleteThreshold(new Request(`http://localhost/api/v1/findings/thresholds/${id}`, { method: 'DELETE' }), { params: Promise.resolve({ id: String(id) }) });
      }
    }
    expect(await levelsOf()).toEqual({ fast: defaults, fresh: defaults, slow: defaults });
  });

  test('GET /api/v1/fleet/demo counts the hosts labelled demo=true, and those of them that still report', async () => {
    const demo = async () => (await call(getDemo, '/api/v1/fleet/demo')).json();
    expect(await demo()).toEqual({ hosts: 0, reporting: 0 });
    const demoIds = [
      await insertHost(db.sql, { hostname: 'demo-live', region: 'oslo', labels: { demo: 'true', service: 'nordic-recs' }, lastSeenAt: new Date() }),
      await insertHost(db.sql, { hostname: 'demo-gone', region: 'oslo', labels: { demo: 'true' }, lastSeenAt: new Date(Date.now() - 86_400_000) }),
      await insertHost(db.sql, { hostname: 'not-demo', region: 'oslo', labels: { demo: 'false' }, lastSeenAt: new Date() }),
    ];
    try {
      expect(await demo()).toEqual({ hosts: 2, reporting: 1 });
    } finally {
      await db.sql.query('DELETE FROM hosts WHERE id = ANY($1::int[])', [demoIds]);
    }
  });

  test('GET /api/v1/fleet/sparklines wants host ids and a metric', async () => {
    expect((await call(getSparklines, `/api/v1/fleet/sparklines?ids=${ids.slow}&metric=steal`)).status).toBe(200);
    expect((await call(getSparklines, '/api/v1/fleet/sparklines?ids=&metric=steal')).status).toBe(400);
    expect((await call(getSparklines, '/api/v1/fleet/sparklines?ids=1,x&metric=steal')).status).toBe(400);
  });
});

describe('region compare for the regions page', () => {
  test('each region carries its merged histogram as buckets that overlay, and its open findings', async () => {
    const from = new Date(now.getTime() - 30 * MINUTE_MS);
    const result = await compareRegions(db, { from, to: now });
    const oslo = result.regions.find((r) => r.region === 'oslo')!;
    const fra = result.regions.find((r) => r.region === 'frankfurt')!;
    const merged = mergeWires(wires.get(ids.slow!)!.map((w) => w.wire));
    const histogram = oslo.latencyHistograms.request!;
    expect(histogram.count).toBe(merged.count);
    expect(histogram.buckets.reduce((sum, b) => sum + b.count, 0) + histogram.zeroCount).toBe(merged.count);
    expect(histogram.buckets.map((b) => b.count)).toEqual(merged.counts);
    // Every stored value lies in the bucket its key names, the same bucket in every region.
    for (const [i, key] of merged.keys.entries()) {
      const bucket = histogram.buckets[i]!;
      expect(keyOf(bucket.upperMs * 0.999999)).toBe(key);
      expect(keyOf(bucket.lowerMs * 1.000001)).toBe(key);
    }
    expect(oslo.latency.request!.p99).toBe(quantileOfWire(merged, 0.99));
    expect(fra.findings).toEqual({ critical: 1, warning: 0, info: 0 });
    expect(oslo.findings).toEqual({ critical: 0, warning: 0, info: 0 });
  });
});
