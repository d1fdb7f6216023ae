import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeDb } from '../../lib/db';
import { openDatabase, type Database } from '../../lib/db/open';
import { compareRegions, getFleetSummary } from '../../lib/fleet';
import { getHostSeries, getLatencyQuantiles, rollUp } from '../../lib/series';
import { LatencySketch, mergeWires, quantileOfWire } from '../../lib/sketch';
import type { SketchWire } from '../../lib/protocol';
import { GET as getFleet } from '../../app/api/v1/fleet/route';
import { GET as getHost } from '../../app/api/v1/hosts/[id]/route';
import { GET as getSeries } from '../../app/api/v1/hosts/[id]/series/route';
import { GET as getLatency } from '../../app/api/v1/latency/route';
import { GET as getCompare } from '../../app/api/v1/regions/compare/route';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { HOUR_MS, MINUTE_MS, hourBefore, insertHost, insertLatency, seeded, syncLastReportTs } from './series-support';

let testDb: TestDatabase;
let db: Database;
const now = new Date();
const base = hourBefore(now, 4);
const hosts: Record<string, number> = {};
const wiresByHost = new Map<number, { ts: number; wire: SketchWire }[]>();

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  db = await openDatabase({ kind: 'server', url: testDb.url });
  hosts.osloA = await insertHost(db.sql, { hostname: 'oslo-a', region: 'oslo', labels: { model: 'llama' }, lastSeenAt: new Date(now.getTime() - 5_000) });
  hosts.osloB = await insertHost(db.sql, { hostname: 'oslo-b', region: 'oslo', lastSeenAt: new Date(now.getTime() - 120_000) });
  hosts.fraA = await insertHost(db.sql, { hostname: 'fra-a', region: 'frankfurt', labels: { model: 'llama' }, lastSeenAt: new Date(now.getTime() - 1_000) });
  hosts.fresh = await insertHost(db.sql, { hostname: 'fresh', region: 'frankfurt' });
  const random = seeded(3);
  const stealOf: Record<number, number> = { [hosts.osloA]: 2, [hosts.osloB]: 4, [hosts.fraA]: 10 };
  const scale: Record<number, number> = { [hosts.osloA]: 20, [hosts.osloB]: 40, [hosts.fraA]: 200 };
  await db.sql.query(
    `INSERT INTO host_samples (host_id, ts, interval_ms, cpu_steal_pct, cpu_iowait_pct, cpu_user_pct)
     SELECT h, t, 10000, s, 1, 10 FROM unnest($1::int[], $2::real[]) AS x(h, s),
       generate_series($3::timestamptz, $4::timestamptz - interval '10 seconds', interval '10 seconds') t`,
    [Object.keys(stealOf).map(Number), Object.values(stealOf), new Date(base), new Date(base + 3 * HOUR_MS)],
  );
  for (const id of [hosts.osloA, hosts.osloB, hosts.fraA]) {
    const list: { ts: number; wire: SketchWire }[] = [];
    // One histogram per host every 5 minutes for 3 h, starting off the minute so raw edges matter.
    for (let ts = base + 30_000; ts < base + 3 * HOUR_MS; ts += 5 * MINUTE_MS) {
      const sketch = new LatencySketch();
      for (let j = 0; j < 40; j++) sketch.add(scale[id]! * (0.5 + random()));
      const wire = sketch.toWire();
      list.push({ ts, wire });
      await insertLatency(db.sql, id, new Date(ts), 'request', wire);
    }
    wiresByHost.set(id, list);
  }
  // Two disks of oslo-a, stored as ingest stores them: one row of arrays per report, read through the disk_samples view.
  await db.sql.query(
    `INSERT INTO disk_sample_arrays
     SELECT $1, t, '{nvme0n1,sda}', '{1,1}', '{1,1}', '{1,1}', '{1,1}', '{1,1}', '{1,1}', '{0.5,8}', '{0,0}', '{10,90}'
       FROM generate_series($2::timestamptz, $3::timestamptz - interval '10 seconds', interval '10 seconds') t`,
    [hosts.osloA, new Date(base), new Date(base + 3 * HOUR_MS)],
  );
  await db.sql.query(
    `INSERT INTO probe_samples (host_id, ts, name, target, ok, connect_ms, response_ms)
     SELECT h, t, 'oslo-users', 'https://x', true, c, c * 2 FROM unnest($1::int[], $2::real[]) AS x(h, c),
       generate_series($3::timestamptz, $4::timestamptz, interval '1 minute') t`,
    [[hosts.osloA, hosts.fraA], [3, 25], new Date(base), new Date(base + HOUR_MS)],
  );
  await syncLastReportTs(db.sql);
  await rollUp(db.sql, new Date(base + 2 * HOUR_MS + 10 * MINUTE_MS), { startAt: new Date(base - HOUR_MS) });
});
afterAll(async () => {
  await closeDb();
  await db?.close();
  await testDb?.drop();
});

function expectedQuantiles(ids: number[], fromMs: number, toMs: number) {
  const wires = ids.flatMap((id) => wiresByHost.get(id)!.filter((w) => w.ts >= fromMs && w.ts < toMs).map((w) => w.wire));
  const merged = mergeWires(wires);
  return { count: merged.count, p50: quantileOfWire(merged, 0.5), p99: quantileOfWire(merged, 0.99), p999: quantileOfWire(merged, 0.999) };
}

describe('latency quantiles', () => {
  test.each([
    ['whole hours from 1-hour rows', 0, 2 * HOUR_MS],
    ['ragged edges from 1-minute and raw rows', 7 * MINUTE_MS + 15_000, 2 * HOUR_MS + 47 * MINUTE_MS],
  ])('over %s equal the quantiles of the union of the raw histograms', async (_, fromOffset, toOffset) => {
    const from = new Date(base + fromOffset);
    const to = new Date(base + toOffset);
    for (const [scope, ids] of [
      [{ kind: 'region', region: 'oslo' }, [hosts.osloA!, hosts.osloB!]],
      [{ kind: 'fleet' }, [hosts.osloA!, hosts.osloB!, hosts.fraA!]],
      [{ kind: 'host', hostId: hosts.fraA! }, [hosts.fraA!]],
      [{ kind: 'labels', labels: { model: 'llama' } }, [hosts.osloA!, hosts.fraA!]],
    ] as const) {
      const { total } = await getLatencyQuantiles(db, { scope, name: 'request', from, to });
      const expected = expectedQuantiles([...ids], from.getTime(), to.getTime());
      expect({ count: total.count, p50: total.p50, p99: total.p99, p999: total.p999 }).toEqual(expected);
    }
  });

  test('region and fleet quantiles are read from the region rollups, not the per-host ones', async () => {
    const from = new Date(base);
    const to = new Date(base + 2 * HOUR_MS);
    const expected = [expectedQuantiles([hosts.osloA!, hosts.osloB!], base, base + 2 * HOUR_MS), expectedQuantiles([...wiresByHost.keys()], base, base + 2 * HOUR_MS)];
    const rolledBack = new Error('rolled back');
    await expect(
      db.sql.transaction(async (tx) => {
        await tx.query('DELETE FROM latency_1h');
        await tx.query('DELETE FROM latency_1m');
        const results = [];
        for (const scope of [{ kind: 'region', region: 'oslo' }, { kind: 'fleet' }] as const) {
          const { total } = await getLatencyQuantiles({ sql: tx }, { scope, name: 'request', from, to });
          results.push({ count: total.count, p50: total.p50, p99: total.p99, p999: total.p999 });
        }
        expect(results).toEqual(expected);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });

  test('a time series gives quantiles per bucket', async () => {
    const from = new Date(base);
    const to = new Date(base + 2 * HOUR_MS);
    const result = await getLatencyQuantiles(db, { scope: { kind: 'fleet' }, name: 'request', from, to, points: 2 }, { now });
    expect(result.series?.bucketMs).toBe(HOUR_MS);
    expect(result.series?.buckets.map((b) => b.count)).toEqual([
      expectedQuantiles([...wiresByHost.keys()], base, base + HOUR_MS).count,
      expectedQuantiles([...wiresByHost.keys()], base + HOUR_MS, base + 2 * HOUR_MS).count,
    ]);
  });
});

describe('host series', () => {
  test.each([
    [30 * MINUTE_MS, 'raw', 10_000],
    [3 * HOUR_MS, '1m', MINUTE_MS],
    [20 * HOUR_MS, '1h', HOUR_MS],
    [60 * 86_400_000, '1h', 2 * HOUR_MS],
  ])('a %d ms range is served at %s with %d ms buckets', async (rangeMs, resolution, bucketMs) => {
    const to = new Date(base + 3 * HOUR_MS);
    const series = await getHostSeries(db, { hostId: hosts.osloB!, metric: 'cpu_steal', from: new Date(to.getTime() - rangeMs), to }, { now });
    expect(series.resolution).toBe(resolution);
    expect(series.bucketMs).toBe(bucketMs);
    const points = series.series[0]!.points;
    expect(points.length).toBeLessThanOrEqual(1000);
    expect(points.every((p) => Math.abs(p.avg! - 4) < 1e-6 && p.max === 4)).toBe(true);
  });

  test.each([
    [30 * MINUTE_MS, 'raw'],
    [3 * HOUR_MS, '1m'],
    [20 * HOUR_MS, '1h'],
  ])('disk series over %d ms (%s) read one series per device from the arrays', async (rangeMs, resolution) => {
    const to = new Date(base + 3 * HOUR_MS);
    const series = await getHostSeries(db, { hostId: hosts.osloA!, metric: 'disk_queue_depth', from: new Date(to.getTime() - rangeMs), to }, { now });
    expect(series.resolution).toBe(resolution);
    expect(series.series.map((s) => s.key)).toEqual(['nvme0n1', 'sda']);
    for (const [i, depth] of [0.5, 8].entries()) {
      const points = series.series[i]!.points;
      expect(points.length).toBeGreaterThan(0);
      expect(points.every((p) => Math.abs(p.avg! - depth) < 1e-6 && p.max === depth)).toBe(true);
    }
  });

  test('buckets past the rollup watermark come from raw rows', async () => {
    const series = await getHostSeries(
      db,
      { hostId: hosts.fraA!, metric: 'cpu_steal', from: new Date(base), to: new Date(base + 3 * HOUR_MS) },
      { now },
    );
    expect(series.resolution).toBe('1m');
    expect(series.series[0]!.points).toHaveLength(180);
  });
});

describe('fleet summary and region compare', () => {
  test('hosts carry their newest values; stale after the window, never_reported without reports', async () => {
    const summary = await getFleetSummary(db, {}, { now, staleAfterMs: 30_000 });
    const byName = Object.fromEntries(summary.hosts.map((h) => [h.hostname, h]));
    expect(byName['oslo-a']!.status).toBe('ok');
    expect(byName['oslo-b']!.status).toBe('stale');
    expect(byName['fresh']).toMatchObject({ status: 'never_reported', latest: null });
    expect(byName['fra-a']!.latest).toMatchObject({ ts: new Date(base + 3 * HOUR_MS - 10_000).toISOString(), stealPct: 10 });
    const oslo = await getFleetSummary(db, { region: 'oslo' }, { now });
    expect(oslo.hosts.map((h) => h.hostname)).toEqual(['oslo-a', 'oslo-b']);
  });

  test('regions compare host counts, steal, latency and probe RTT', async () => {
    const result = await compareRegions(db, { from: new Date(base), to: new Date(base + 3 * HOUR_MS) });
    const oslo = result.regions.find((r) => r.region === 'oslo')!;
    const fra = result.regions.find((r) => r.region === 'frankfurt')!;
    expect(oslo.hostCount).toBe(2);
    expect(fra.hostCount).toBe(2);
    expect(oslo.stealPctAvg).toBeCloseTo(3, 5);
    expect(oslo.stealPctMax).toBe(4);
    expect(fra.stealPctMax).toBe(10);
    expect(oslo.latency.request!.p99).toBe(expectedQuantiles([hosts.osloA!, hosts.osloB!], base, base + 3 * HOUR_MS).p99);
    expect(oslo.probes).toEqual([
      expect.objectContaining({ name: 'oslo-users', okRatio: 1, connectMsAvg: 3, responseMsMax: 6 }),
    ]);
    expect(fra.probes[0]!.connectMsAvg).toBe(25);
  });

  test('a host\'s newest sample wins, found days back but never beyond the lookback', async () => {
    const bergen = await insertHost(db.sql, { hostname: 'bergen-a', region: 'bergen' });
    const sample = (ts: number, steal: number) => db.sql.query(
      'INSERT INTO host_samples (host_id, ts, interval_ms, cpu_steal_pct) VALUES ($1, $2, 10000, $3)', [bergen, new Date(ts), steal]);
    await sample(now.getTime() - 2 * 86_400_000, 30);
    const older = await getFleetSummary(db, { region: 'bergen' }, { now });
    expect(older.hosts[0]!.latest).toMatchObject({ ts: new Date(now.getTime() - 2 * 86_400_000).toISOString(), stealPct: 30 });
    await sample(now.getTime() - 3 * HOUR_MS, 20);
    await sample(now.getTime() - 10 * MINUTE_MS, 7);
    const newer = await getFleetSummary(db, { region: 'bergen' }, { now });
    expect(newer.hosts[0]!.latest).toMatchObject({ ts: new Date(now.getTime() - 10 * MINUTE_MS).toISOString(), stealPct: 7 });
    const withinTwoHours = await getFleetSummary(db, { region: 'bergen' }, { now, lookbackMs: 2 * HOUR_MS });
    expect(withinTwoHours.hosts[0]!.latest).toMatchObject({ stealPct: 7 });
    await db.sql.query('DELETE FROM host_samples WHERE host_id = $1 AND ts > $2', [bergen, new Date(now.getTime() - HOUR_MS)]);
    const withinTwoHoursOnlyOlder = await getFleetSummary(db, { region: 'bergen' }, { now, lookbackMs: 2 * HOUR_MS });
    expect(withinTwoHoursOnlyOlder.hosts[0]!.latest).toBeNull();
  });
});

describe('route handlers', () => {
  const call = (handler: (r: Request, c: never) => Promise<Response>, path: string, params?: Record<string, string>) =>
    handler(new Request(`http://localhost${path}`), { params: Promise.resolve(params ?? {}) } as never);

  test('GET /api/v1/fleet answers the fleet summary', async () => {
    const response = await call(getFleet, '/api/v1/fleet?region=frankfurt');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.hosts.map((h: { hostname: string }) => h.hostname)).toEqual(['fra-a', 'fresh']);
  });

  test('GET /api/v1/hosts/:id, its series, latency and region compare answer 200', async () => {
    const id = String(hosts.fraA);
    expect((await call(getHost, `/api/v1/hosts/${id}`, { id })).status).toBe(200);
    const series = await call(getSeries, `/api/v1/hosts/${id}/series?metric=cpu_steal&from=${base}&to=${base + HOUR_MS}`, { id });
    expect((await series.json()).resolution).toBe('raw');
    const latency = await call(getLatency, `/api/v1/latency?region=oslo&name=request&from=${base}&to=${base + HOUR_MS}`);
    expect((await latency.json()).total.count).toBeGreaterThan(0);
    expect((await call(getCompare, `/api/v1/regions/compare?from=${base}&to=${base + HOUR_MS}`)).status).toBe(200);
  });

  test('an unknown host is 404', async () => {
    const response = await call(getHost, '/api/v1/hosts/999999', { id: '999999' });
    expect(response.status).toBe(404);
  });

  test.each([
    ['fleet: empty region', getFleet, '/api/v1/fleet?region=', {}, 'region'],
    ['host: id not a number', getHost, '/api/v1/hosts/abc', { id: 'abc' }, 'id'],
    ['series: unknown metric', getSeries, '/api/v1/hosts/1/series?metric=nope', { id: '1' }, 'metric'],
    ['series: missing metric', getSeries, '/api/v1/hosts/1/series', { id: '1' }, 'metric'],
    ['series: bad from', getSeries, '/api/v1/hosts/1/series?metric=cpu_steal&from=yesterday', { id: '1' }, 'from'],
    ['series: from after to', getSeries, '/api/v1/hosts/1/series?metric=cpu_steal&from=2000&to=1000', { id: '1' }, 'from'],
    ['series: range over 400 days', getSeries, '/api/v1/hosts/1/series?metric=cpu_steal&from=0&to=40000000000', { id: '1' }, 'from'],
    ['series: maxPoints too small', getSeries, '/api/v1/hosts/1/series?metric=cpu_steal&maxPoints=1', { id: '1' }, 'maxPoints'],
    ['latency: missing name', getLatency, '/api/v1/latency?region=oslo', {}, 'name'],
    ['latency: two scopes', getLatency, '/api/v1/latency?region=oslo&host=1&name=request', {}, 'host'],
    ['latency: bad labels', getLatency, '/api/v1/latency?labels=model&name=request', {}, 'labels'],
    ['latency: bad host', getLatency, '/api/v1/latency?host=-3&name=request', {}, 'host'],
    ['latency: too many points', getLatency, '/api/v1/latency?name=request&points=5001', {}, 'points'],
    ['compare: bad to', getCompare, '/api/v1/regions/compare?to=soon', {}, 'to'],
    ['compare: from=-1 (no year-2001 guess)', getCompare, '/api/v1/regions/compare?from=-1', {}, 'from'],
    ['compare: from an exponent', getCompare, '/api/v1/regions/compare?from=1e12', {}, 'from'],
    ['series: a day February does not have', getSeries, '/api/v1/hosts/1/series?metric=cpu_steal&from=2026-02-30', { id: '1' }, 'from'],
    ['latency: a time without its zone', getLatency, '/api/v1/latency?name=request&to=2026-01-31T12:00:00', {}, 'to'],
  ] as const)('%s → 400 naming the parameter', async (_, handler, path, params, field) => {
    const response = await call(handler as never, path, params);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe('invalid_payload');
    expect(body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});
