import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeDb } from '../../lib/db';
import { openDatabase, type Database } from '../../lib/db/open';
import { getCompareChoices, getHostAnnotations, getHostDetail, getHostInventory } from '../../lib/fleet';
import { approveReenrollment } from '../../lib/auth/enroll-host';
import { revokeHostTokenRow } from '../../lib/hosts/store';
import { chartEmptiness } from '../../components/host/chart-empty';
import { compareHosts, getHostSeries, listHostLatencySeries, rollUp } from '../../lib/series';
import { LatencySketch, quantileOfWire } from '../../lib/sketch';
import type { Inventory, SketchWire } from '../../lib/protocol';
import { compareParamsSchema } from '../../lib/protocol/read-api/compare';
import { GET as getAnnotations } from '../../app/api/v1/hosts/[id]/annotations/route';
import { GET as getInventory } from '../../app/api/v1/hosts/[id]/inventory/route';
import { GET as getLatencySeries } from '../../app/api/v1/hosts/[id]/latency-series/route';
import { GET as getCompare } from '../../app/api/v1/compare/route';
import { GET as getChoices } from '../../app/api/v1/compare/choices/route';
import { cleanInventory, watchedProcess } from '../support/findings-facts';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { HOUR_MS, MINUTE_MS, hourBefore, insertHost, insertLatency, seeded } from './series-support';

let testDb: TestDatabase;
let db: Database;
const now = new Date();
const base = hourBefore(now, 4);
const at = (minutes: number) => new Date(base + minutes * MINUTE_MS);
const ids: Record<'a' | 'b' | 'c' | 'd', number> = { a: 0, b: 0, c: 0, d: 0 };
const wires = new Map<string, { ts: number; wire: SketchWire }[]>();

async function insertSnapshot(hostId: number, takenAt: Date, inventory: Inventory) {
  await db.sql.query('INSERT INTO inventory_snapshots (host_id, hash, taken_at, data) VALUES ($1, $2, $3, $4::jsonb)', [
    hostId,
    inventory.hash,
    takenAt,
    JSON.stringify(inventory),
  ]);
}

async function insertFinding(hostId: number, f: { rule: string; message: string; openedAt: Date; resolvedAt: Date | null }) {
  await db.sql.query(
    `INSERT INTO findings (rule_id, host_id, region, subject, severity, state, message, remedy, evidence, first_seen_at, opened_at, resolved_at, last_evaluated_at)
     VALUES ($1, $2, 'oslo', '', 'warning', $3, $4, 'do the thing', '{"values":[]}', $5, $5, $6, $5)`,
    [f.rule, hostId, f.resolvedAt ? 'resolved' : 'open', f.message, f.openedAt, f.resolvedAt],
  );
}

const kernelChanged = cleanInventory({ hash: 'k2', host: { kernel: '6.8.0-40-amd64', memTotalBytes: 32e9, onlineCpus: 8 } });
const threadsChanged: Inventory = {
  ...kernelChanged,
  hash: 'k2-omp',
  processes: [watchedProcess({ env: { OMP_NUM_THREADS: '16', KMP_BLOCKTIME: '1', KMP_AFFINITY: 'granularity=fine,compact,1,0' } })],
};

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  db = await openDatabase({ kind: 'server', url: testDb.url });
  ids.a = await insertHost(db.sql, { hostname: 'oslo-a', region: 'oslo', labels: { team: 'ml' } });
  ids.b = await insertHost(db.sql, { hostname: 'oslo-b', region: 'oslo' });
  ids.c = await insertHost(db.sql, { hostname: 'fra-c', region: 'frankfurt', labels: { team: 'ml' } });
  ids.d = await insertHost(db.sql, { hostname: 'oslo-quiet', region: 'oslo' });
  // Steal for 3 h every 10 s: oslo-a 2 %, oslo-b 4 % with one 50 % sample, fra-c 10 %.
  await db.sql.query(
    `INSERT INTO host_samples (host_id, ts, interval_ms, cpu_steal_pct, cpu_user_pct)
     SELECT h, t, 10000, s, 10 FROM unnest($1::int[], $2::real[]) AS x(h, s),
       generate_series($3::timestamptz, $4::timestamptz - interval '10 seconds', interval '10 seconds') t`,
    [[ids.a, ids.b, ids.c], [2, 4, 10], at(0), at(180)],
  );
  await db.sql.query('UPDATE host_samples SET cpu_steal_pct = 50 WHERE host_id = $1 AND ts = $2', [ids.b, at(61)]);
  await db.sql.query(
    `INSERT INTO disk_sample_arrays
     SELECT $1, t, '{nvme0n1,sda}', '{1,1}', '{1,1}', '{2500000,40000}', '{1,1}', '{1,1}', '{1,1}', '{0.5,8}', '{0,0}', '{10,90}'
       FROM generate_series($2::timestamptz, $3::timestamptz - interval '10 seconds', interval '10 seconds') t`,
    [ids.a, at(0), at(180)],
  );
  const random = seeded(11);
  for (const [host, name, scale] of [[ids.a, 'request', 20], [ids.b, 'request', 80], [ids.a, 'embed', 5]] as const) {
    const list: { ts: number; wire: SketchWire }[] = [];
    for (let ts = base + 30_000; ts < base + 3 * HOUR_MS; ts += 5 * MINUTE_MS) {
      const sketch = new LatencySketch();
      for (let j = 0; j < (name === 'embed' ? 10 : 40); j++) sketch.add(scale * (0.5 + random()));
      list.push({ ts, wire: sketch.toWire() });
      await insertLatency(db.sql, host, new Date(ts), name, sketch.toWire());
    }
    wires.set(`${host}/${name}`, list);
  }
  await insertSnapshot(ids.a, at(-60), cleanInventory({ hash: 'k1' }));
  await insertSnapshot(ids.a, at(30), kernelChanged);
  await insertSnapshot(ids.a, at(90), threadsChanged);
  await insertFinding(ids.a, { rule: 'cpu.steal-high', message: 'steal 14 % on <b>vCPU 2</b>', openedAt: at(40), resolvedAt: at(100) });
  await insertFinding(ids.a, { rule: 'cpu.avx2-missing', message: 'long open', openedAt: at(-120), resolvedAt: null });
  await db.sql.query(
    `INSERT INTO alert_rules (id, title, severity, spec) VALUES ('test-steal', 'Steal spike', 'warning', '{}') ON CONFLICT (id) DO NOTHING`,
  );
  await db.sql.query(
    `INSERT INTO alerts (rule_id, fingerprint, host_id, region, labels, annotations, severity, state, pending_at, fired_at, resolved_at, last_evaluated_at)
     VALUES ('test-steal', 'host=oslo-a', $1, 'oslo', '{}', '{"summary":"steal 30 % on oslo-a"}', 'warning', 'resolved', $2, $3, $4, $4)`,
    [ids.a, at(44), at(45), at(50)],
  );
  await rollUp(db.sql, at(130), { startAt: at(-60) });
});

afterAll(async () => {
  await closeDb();
  await db?.close();
  await testDb?.drop();
});

const call = (handler: (r: Request, c: never) => Promise<Response>, path: string, params: Record<string, string> = {}) =>
  handler(new Request(`http://localhost${path}`), { params: Promise.resolve(params) } as never);

describe('annotations', () => {
  test('inventory changes say what changed; findings and alerts mark when they opened and ended, oldest first', async () => {
    const result = await getHostAnnotations(db, { hostId: ids.a, from: at(0), to: at(120) });
    expect(result.annotations.map((a) => [a.t - base, a.kind, a.title])).toEqual([
      [30 * MINUTE_MS, 'inventory', 'Inventory changed'],
      [40 * MINUTE_MS, 'finding-opened', expect.any(String)],
      [45 * MINUTE_MS, 'alert-fired', 'Steal spike'],
      [50 * MINUTE_MS, 'alert-resolved', 'Steal spike'],
      [90 * MINUTE_MS, 'inventory', 'Inventory changed'],
      [100 * MINUTE_MS, 'finding-resolved', expect.any(String)],
    ]);
    expect(result.annotations[0]!.detail).toBe('kernel 6.1.0-18-amd64 → 6.8.0-40-amd64');
    expect(result.annotations[4]!.detail).toBe('serve.py OMP_NUM_THREADS 8 → 16');
    expect(result.annotations[1]).toMatchObject({ severity: 'warning', detail: 'steal 14 % on <b>vCPU 2</b>' });
    expect(result.annotations[2]!.detail).toBe('steal 30 % on oslo-a');
    expect(result.truncated).toBe(false);
  });

  test('the enrolment snapshot and events outside the range are not marked; a cap keeps the newest', async () => {
    const early = await getHostAnnotations(db, { hostId: ids.a, from: at(-90), to: at(35) });
    expect(early.annotations.map((a) => a.kind)).toEqual(['inventory']);
    const capped = await getHostAnnotations(db, { hostId: ids.a, from: at(0), to: at(120), limit: 2 });
    expect(capped.annotations.map((a) => a.kind)).toEqual(['inventory', 'finding-resolved']);
    expect(capped.truncated).toBe(true);
  });

  test('GET /api/v1/hosts/:id/annotations answers, 404 for an unknown host, 400 naming a bad range', async () => {
    const id = String(ids.a);
    const ok = await call(getAnnotations, `/api/v1/hosts/${id}/annotations?from=${base}&to=${base + 2 * HOUR_MS}`, { id });
    expect(ok.status).toBe(200);
    expect((await ok.json()).annotations).toHaveLength(6);
    expect((await call(getAnnotations, '/api/v1/hosts/999999/annotations', { id: '999999' })).status).toBe(404);
    const bad = await call(getAnnotations, `/api/v1/hosts/${id}/annotations?from=${base + 1}&to=${base}`, { id });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details.map((d: { path: string }) => d.path)).toContain('from');
  });
});

describe('inventory history', () => {
  test('the newest snapshot, and each one in the range against the one before it, newest first', async () => {
    const result = await getHostInventory(db, { hostId: ids.a, from: at(-120), to: at(120), limit: 100 });
    expect(result.current).toMatchObject({ hash: 'k2-omp', takenAt: at(90).toISOString() });
    expect(result.current!.data.processes[0]!.env.OMP_NUM_THREADS).toBe('16');
    expect(result.changes).toEqual([
      { takenAt: at(90).toISOString(), hash: 'k2-omp', changes: ['serve.py OMP_NUM_THREADS 8 → 16'] },
      { takenAt: at(30).toISOString(), hash: 'k2', changes: ['kernel 6.1.0-18-amd64 → 6.8.0-40-amd64'] },
    ]);
    expect(result.firstSeenAt).toBe(at(-60).toISOString());
    expect(result.truncated).toBe(false);
  });

  test('a range after a snapshot diffs against the one before the range; a limit truncates', async () => {
    const later = await getHostInventory(db, { hostId: ids.a, from: at(60), to: at(120), limit: 100 });
    expect(later.changes.map((c) => c.changes)).toEqual([['serve.py OMP_NUM_THREADS 8 → 16']]);
    expect(later.firstSeenAt).toBeNull();
    const limited = await getHostInventory(db, { hostId: ids.a, from: at(-120), to: at(120), limit: 1 });
    expect(limited.changes.map((c) => c.hash)).toEqual(['k2-omp']);
    expect(limited.truncated).toBe(true);
    expect(limited.firstSeenAt).toBeNull();
    const asOf = await getHostInventory(db, { hostId: ids.a, from: at(0), to: at(60), limit: 100 });
    expect(asOf.current!.hash).toBe('k2');
  });

  test('GET /api/v1/hosts/:id/inventory: nothing before the first snapshot, 404 for an unknown host', async () => {
    const id = String(ids.b);
    const response = await call(getInventory, `/api/v1/hosts/${id}/inventory`, { id });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ current: null, changes: [], firstSeenAt: null });
    expect((await call(getInventory, '/api/v1/hosts/999999/inventory', { id: '999999' })).status).toBe(404);
  });
});

describe('latency series names', () => {
  test('every series the host reported, busiest first, counting rolled-up and raw rows alike', async () => {
    const from = at(7);
    const to = at(173);
    const result = await listHostLatencySeries(db, { hostId: ids.a, from, to });
    const expected = (name: string) =>
      wires.get(`${ids.a}/${name}`)!.filter((w) => w.ts >= from.getTime() && w.ts < to.getTime()).reduce((n, w) => n + w.wire.count, 0);
    expect(result.series).toEqual([
      { name: 'request', count: expected('request') },
      { name: 'embed', count: expected('embed') },
    ]);
    const id = String(ids.c);
    const none = await call(getLatencySeries, `/api/v1/hosts/${id}/latency-series`, { id });
    expect((await none.json()).series).toEqual([]);
  });
});

describe('disk throughput', () => {
  test.each([
    [30 * MINUTE_MS, 'raw'],
    [3 * HOUR_MS, '1m'],
    [20 * HOUR_MS, '1h'],
  ])('bytes read per second per disk over %d ms read alike from raw rows and rollups (%s)', async (rangeMs, resolution) => {
    const to = at(120);
    const series = await getHostSeries(db, { hostId: ids.a, metric: 'disk_read_bytes', from: new Date(to.getTime() - rangeMs), to }, { now });
    expect(series).toMatchObject({ resolution, unit: 'B/s' });
    expect(series.series.map((s) => s.key)).toEqual(['nvme0n1', 'sda']);
    for (const [i, bytes] of [2_500_000, 40_000].entries()) {
      const points = series.series[i]!.points;
      expect(points.length).toBeGreaterThan(0);
      expect(points.every((p) => Math.abs(p.avg! - bytes) < 1e-6 * bytes && p.max === bytes)).toBe(true);
    }
  });
});

describe('compare', () => {
  const params = (query: Record<string, string>) => compareParamsSchema.parse({ from: String(base), to: String(base + 2 * HOUR_MS), ...query });

  test('a region ranks its hosts by the average over the range; each host is its own series', async () => {
    const result = await compareHosts(db, params({ metric: 'cpu_steal', region: 'oslo', maxPoints: '100' }), { now });
    expect(result.hosts.map((h) => h.hostname)).toEqual(['oslo-b', 'oslo-a']);
    expect(result).toMatchObject({ matchedHosts: 3, hostsWithData: 2, unit: '%', resolution: '1h', bucketMs: HOUR_MS });
    expect(result.hosts[1]!.value).toBeCloseTo(2, 5);
    for (const host of result.hosts) {
      const single = await getHostSeries(db, { hostId: host.hostId, metric: 'cpu_steal', from: at(0), to: at(120), maxPoints: 100 }, { now });
      expect(host.points).toEqual(single.series[0]!.points);
    }
  });

  test('the peak ranks differently from the average; the limit caps the hosts shown and says how many had data', async () => {
    const byAvg = await compareHosts(db, params({ metric: 'cpu_steal' }), { now });
    expect(byAvg.hosts.map((h) => h.hostname)).toEqual(['fra-c', 'oslo-b', 'oslo-a']);
    const byMax = await compareHosts(db, params({ metric: 'cpu_steal', rank: 'max' }), { now });
    expect(byMax.hosts.map((h) => [h.hostname, h.value])).toEqual([['oslo-b', 50], ['fra-c', 10], ['oslo-a', 2]]);
    const capped = await compareHosts(db, params({ metric: 'cpu_steal', limit: '1' }), { now });
    expect(capped).toMatchObject({ matchedHosts: 4, hostsWithData: 3, limit: 1 });
    expect(capped.hosts.map((h) => h.hostname)).toEqual(['fra-c']);
  });

  test('labels and picked hosts choose the hosts', async () => {
    const labelled = await compareHosts(db, params({ metric: 'cpu_steal', labels: 'team:ml' }), { now });
    expect(labelled.hosts.map((h) => h.hostname)).toEqual(['fra-c', 'oslo-a']);
    const picked = await compareHosts(db, params({ metric: 'cpu_steal', hosts: `${ids.a},${ids.d}` }), { now });
    expect(picked).toMatchObject({ matchedHosts: 2, hostsWithData: 1 });
    expect(picked.hosts.map((h) => h.hostname)).toEqual(['oslo-a']);
  });

  test('a keyed metric combines each host\'s devices, or keeps one', async () => {
    const combined = await compareHosts(db, params({ metric: 'disk_queue_depth', region: 'oslo', maxPoints: '100' }), { now });
    expect(combined.hosts).toHaveLength(1);
    expect(combined.hosts[0]!.value).toBeCloseTo(4.25, 5);
    expect(combined.hosts[0]!.points.every((p) => Math.abs(p.avg! - 4.25) < 1e-5 && p.max === 8)).toBe(true);
    const sda = await compareHosts(db, params({ metric: 'disk_queue_depth', region: 'oslo', key: 'sda' }), { now });
    expect(sda.hosts[0]!.value).toBeCloseTo(8, 5);
    expect(sda.key).toBe('sda');
  });

  test('a latency quantile ranks each host by the mean, or the worst, of its per-minute quantile', async () => {
    const from = at(7);
    const to = at(113);
    const latency = (more: Record<string, string> = {}) =>
      compareHosts(db, compareParamsSchema.parse({ metric: 'latency_p99', latency: 'request', region: 'oslo', from: String(from.getTime()), to: String(to.getTime()), ...more }), { now });
    // One report in a minute here, so a minute's p99 is its report's.
    const perMinute = (hostId: number) =>
      wires
        .get(`${hostId}/request`)!
        .map((w) => ({ t: Math.floor(w.ts / MINUTE_MS) * MINUTE_MS, v: quantileOfWire(w.wire, 0.99)! }))
        .filter((m) => m.t >= from.getTime() && m.t < to.getTime());
    const mean = (hostId: number) => perMinute(hostId).reduce((sum, m) => sum + m.v, 0) / perMinute(hostId).length;
    const worst = (hostId: number) => Math.max(...perMinute(hostId).map((m) => m.v));

    const byMean = await latency();
    expect(byMean).toMatchObject({ unit: 'ms', rank: 'avg', hostsWithData: 2 });
    expect(byMean.hosts.map((h) => h.hostname)).toEqual(['oslo-b', 'oslo-a']);
    for (const host of byMean.hosts) expect(host.value).toBeCloseTo(mean(host.hostId), 9);
    expect(byMean.hosts[0]!.points.length).toBeGreaterThan(0);

    const byWorst = await latency({ rank: 'max' });
    expect(byWorst.rank).toBe('max');
    expect(byWorst.hosts.map((h) => [h.hostname, h.value])).toEqual([['oslo-b', worst(ids.b)], ['oslo-a', worst(ids.a)]]);

    // Minute points are the per-minute quantiles themselves.
    const minutes = await latency({ maxPoints: '120' });
    expect(minutes.bucketMs).toBe(MINUTE_MS);
    expect(minutes.hosts.find((h) => h.hostId === ids.a)!.points).toEqual(perMinute(ids.a).map((m) => ({ t: m.t, avg: m.v, max: null })));
  });

  test.each([
    ['a latency metric without its series', '/api/v1/compare?metric=latency_p99&region=oslo', 'latency'],
    ['two scopes', '/api/v1/compare?metric=cpu_steal&region=oslo&hosts=1', 'region'],
    ['an unknown metric', '/api/v1/compare?metric=nope', 'metric'],
    ['a limit past the cap', '/api/v1/compare?metric=cpu_steal&limit=500', 'limit'],
    ['a host id that is not one', '/api/v1/compare?metric=cpu_steal&hosts=1,x', 'hosts.1'],
  ])('GET /api/v1/compare with %s → 400 naming it', async (_, path, field) => {
    const response = await call(getCompare, path);
    expect(response.status).toBe(400);
    expect((await response.json()).error.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  test('GET /api/v1/compare answers; a key on the folded per-CPU metric is refused', async () => {
    const ok = await call(getCompare, `/api/v1/compare?metric=cpu_steal&region=frankfurt&from=${base}&to=${base + HOUR_MS}`);
    expect(ok.status).toBe(200);
    expect((await ok.json()).hosts.map((h: { hostname: string }) => h.hostname)).toEqual(['fra-c']);
    const folded = await call(getCompare, '/api/v1/compare?metric=cpu_steal_per_cpu&key=2');
    expect(folded.status).toBe(400);
  });
});

describe('compare choices', () => {
  test('regions with hosts, latency series from the region rollups, and hosts matching a search', async () => {
    const all = await getCompareChoices(db, { limit: 25 }, now);
    expect(all).toEqual({
      regions: ['frankfurt', 'oslo'],
      latencyNames: ['embed', 'request'],
      hosts: [
        { id: ids.c, hostname: 'fra-c', region: 'frankfurt' },
        { id: ids.a, hostname: 'oslo-a', region: 'oslo' },
        { id: ids.b, hostname: 'oslo-b', region: 'oslo' },
        { id: ids.d, hostname: 'oslo-quiet', region: 'oslo' },
      ],
    });
    expect((await getCompareChoices(db, { q: 'OSLO-', limit: 2 }, now)).hosts.map((h) => h.hostname)).toEqual(['oslo-a', 'oslo-b']);
    expect((await getCompareChoices(db, { q: 'frank', limit: 25 }, now)).hosts.map((h) => h.hostname)).toEqual(['fra-c']);
    // LIKE's wildcards are searched for, not matched with.
    expect((await getCompareChoices(db, { q: 'oslo_', limit: 25 }, now)).hosts).toEqual([]);
    expect((await getCompareChoices(db, { limit: 25 }, new Date(now.getTime() + 8 * 24 * HOUR_MS))).latencyNames).toEqual([]);
  });

  test('GET /api/v1/compare/choices answers; a limit past 100 is refused', async () => {
    const ok = await call(getChoices, '/api/v1/compare/choices?q=quiet');
    expect((await ok.json()).hosts.map((h: { hostname: string }) => h.hostname)).toEqual(['oslo-quiet']);
    expect((await call(getChoices, '/api/v1/compare/choices?limit=101')).status).toBe(400);
  });
});

describe('agent access on the host', () => {
  test('a revoked token and an approved re-enrollment show on the host; nothing before, and the approval lapses', async () => {
    const id = await insertHost(db.sql, { hostname: 'oslo-levers', region: 'oslo', lastSeenAt: now });
    expect((await getHostDetail(db, id, { now })).agentAccess).toEqual({ tokenRevokedAt: null, reenrollApprovedUntil: null });

    await revokeHostTokenRow(db.sql, id);
    const revoked = (await getHostDetail(db, id, { now: new Date() })).agentAccess;
    expect(revoked.tokenRevokedAt).not.toBeNull();
    expect(revoked.reenrollApprovedUntil).toBeNull();

    const approval = await approveReenrollment(db, id, 10 * MINUTE_MS);
    expect((await getHostDetail(db, id, { now: new Date() })).agentAccess).toEqual({ tokenRevokedAt: revoked.tokenRevokedAt, reenrollApprovedUntil: approval.approvedUntil });
    const later = new Date(new Date(approval.approvedUntil).getTime() + 1);
    expect((await getHostDetail(db, id, { now: later })).agentAccess.reenrollApprovedUntil).toBeNull();
  });
});

describe('why a host chart is empty', () => {
  const read = (hostId: number, metric: 'cpu_user' | 'psi_cpu', from: Date, to: Date, maxPoints?: number) =>
    getHostSeries(db, { hostId, metric, from, to, maxPoints }, { now });

  test.each([
    ['raw', 1000],
    ['1m', 200],
    ['1h', 100],
  ] as const)('a host reporting without PSI: its PSI read is empty and the reports read says it reported (%s)', async (resolution, maxPoints) => {
    const [reports, psi] = await Promise.all([read(ids.a, 'cpu_user', at(0), at(120), maxPoints), read(ids.a, 'psi_cpu', at(0), at(120), maxPoints)]);
    expect(reports.resolution).toBe(resolution);
    expect(psi.series.length).toBeGreaterThan(0);
    expect(psi.series.every((s) => s.points.every((p) => p.avg === null))).toBe(true);
    expect(chartEmptiness({ data: reports, isPlaceholderData: false }, null)).toEqual({ kind: 'not-in-reports' });
  });

  test('a range without reports, before the host’s first or from a host that never reported, is no data in the range, with the newest report', async () => {
    const detail = await getHostDetail(db, ids.a, { now });
    expect(detail.lastReportAt).toBe(new Date(at(180).getTime() - 10_000).toISOString());
    const before = await read(ids.a, 'cpu_user', at(-50), at(-10));
    expect(chartEmptiness({ data: before, isPlaceholderData: false }, detail.lastReportAt)).toEqual({ kind: 'no-reports', lastReportAt: detail.lastReportAt });

    const quiet = await getHostDetail(db, ids.d, { now });
    expect(quiet.lastReportAt).toBeNull();
    const none = await read(ids.d, 'cpu_user', at(0), at(120));
    expect(chartEmptiness({ data: none, isPlaceholderData: false }, quiet.lastReportAt)).toEqual({ kind: 'no-reports', lastReportAt: null });
  });
});
