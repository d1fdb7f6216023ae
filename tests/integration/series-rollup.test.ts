import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openDatabase, type Database } from '../../lib/db/open';
import {
  LATE_REPORT_AGE_MS,
  applyRetention,
  getLatencyQuantiles,
  lateMinutesOf,
  markLateMinutes,
  partitionEnd,
  readWatermarks,
  rollUp,
} from '../../lib/series';
import type { SketchWire } from '../../lib/protocol';
import { LatencySketch, mergeWires, quantileOfWire } from '../../lib/sketch';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { HOUR_MS, MINUTE_MS, hourBefore, insertHost, insertHostSample, insertLatency, seeded } from './series-support';
import { rowsOf } from '../support/rows';

let testDb: TestDatabase;
let db: Database;
const now = new Date();
const base = hourBefore(now, 3);
const at = (ms: number) => new Date(base + ms);
let hostId: number;
const steal: number[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = await openDatabase({ kind: 'server', url: testDb.url });
  hostId = await insertHost(db.sql, { hostname: 'gpu-1', region: 'oslo' });
  const random = seeded(7);
  for (let i = 0; i < 360; i++) {
    // One 80 % steal spike among quiet samples: the max must keep it.
    const value = i === 123 ? 80 : Math.round(random() * 500) / 100;
    steal.push(value);
    await insertHostSample(db.sql, hostId, at(i * 10_000), { steal: value });
  }
  // Four CPUs in one report, stolen from 0, 10, 20 and 30 %.
  const zeros = '{0,0,0,0}';
  await db.sql.query(
    `INSERT INTO cpu_sample_arrays VALUES ($1, $2, '{0,1,2,3}', $3, $3, $3, $3, $3, $3, '{0,10,20,30}', '{90,90,90,90}')`,
    [hostId, at(0), zeros],
  );
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('rollUp', () => {
  test('1-minute and 1-hour rows equal the hand-computed avg and max of the raw samples', async () => {
    const result = await rollUp(db.sql, new Date(base + HOUR_MS + 5 * MINUTE_MS), { startAt: at(-HOUR_MS) });
    expect(result.caughtUp).toBe(true);
    const minutes = await rowsOf<{ ts: Date; samples: number; cpu_steal_pct_avg: number; cpu_steal_pct_max: number; cpu_steal_worst_cpu_pct_max: number | null }>(db.sql,
      'SELECT * FROM host_samples_1m WHERE host_id = $1 ORDER BY ts',
      [hostId],
    );
    expect(minutes).toHaveLength(60);
    minutes.forEach((row, minute) => {
      const slice = steal.slice(minute * 6, minute * 6 + 6);
      expect(row.samples).toBe(6);
      expect(row.cpu_steal_pct_avg).toBeCloseTo(avg(slice), 4);
      expect(row.cpu_steal_pct_max).toBeCloseTo(Math.max(...slice), 4);
    });
    expect(minutes[0]!.cpu_steal_worst_cpu_pct_max).toBe(30);
    const [hour] = await rowsOf<{ samples: number; cpu_steal_pct_avg: number; cpu_steal_pct_max: number }>(db.sql,
      'SELECT * FROM host_samples_1h WHERE host_id = $1',
      [hostId],
    );
    expect(hour!.samples).toBe(360);
    expect(hour!.cpu_steal_pct_avg).toBeCloseTo(avg(steal), 3);
    expect(hour!.cpu_steal_pct_max).toBe(80);
  });

  test('running again changes nothing', async () => {
    const before = await db.sql.query('SELECT * FROM host_samples_1m ORDER BY host_id, ts');
    const hoursBefore = await db.sql.query('SELECT * FROM host_samples_1h ORDER BY host_id, ts');
    await rollUp(db.sql, new Date(base + HOUR_MS + 5 * MINUTE_MS));
    await rollUp(db.sql, new Date(base + HOUR_MS + 5 * MINUTE_MS), { startAt: at(-HOUR_MS), latenessMs: 2 * HOUR_MS });
    expect(await db.sql.query('SELECT * FROM host_samples_1m ORDER BY host_id, ts')).toEqual(before);
    expect(await db.sql.query('SELECT * FROM host_samples_1h ORDER BY host_id, ts')).toEqual(hoursBefore);
  });

  test('a minute is rolled once, after it settles; only a queued late report rolls it again', async () => {
    const minuteMs = base + 2 * HOUR_MS - MINUTE_MS;
    const minuteRow = () =>
      rowsOf<{ samples: number; cpu_steal_pct_max: number }>(db.sql,
        'SELECT samples, cpu_steal_pct_max FROM host_samples_1m WHERE host_id = $1 AND ts = $2',
        [hostId, new Date(minuteMs)],
      );
    // 30 s after the last minute of the second hour closed it has not settled: the watermark stops before it.
    await rollUp(db.sql, new Date(minuteMs + MINUTE_MS + 30_000));
    expect((await readWatermarks(db.sql))['1m']!.getTime()).toBe(minuteMs);
    // A report of that minute arriving 50 s after its ts is not late: ingest queues nothing, the minute takes it.
    const ts = minuteMs + 40_000;
    expect(lateMinutesOf([{ hostId, ts }], ts + 50_000)).toEqual([]);
    await insertHostSample(db.sql, hostId, new Date(ts), { steal: 95 });
    await rollUp(db.sql, new Date(minuteMs + MINUTE_MS + LATE_REPORT_AGE_MS + 30_000));
    expect((await readWatermarks(db.sql))['1m']!.getTime()).toBe(minuteMs + MINUTE_MS);
    expect(await minuteRow()).toEqual([{ samples: 1, cpu_steal_pct_max: 95 }]);
    const [hour] = await rowsOf<{ cpu_steal_pct_max: number }>(db.sql,
      'SELECT cpu_steal_pct_max FROM host_samples_1h WHERE host_id = $1 AND ts = $2',
      [hostId, new Date(base + HOUR_MS)],
    );
    expect(hour!.cpu_steal_pct_max).toBe(95);
    // Later passes leave a rolled minute alone; a report ingest queued as late brings it back once.
    const lateTs = minuteMs + 50_000;
    await insertHostSample(db.sql, hostId, new Date(lateTs), { steal: 97 });
    await rollUp(db.sql, new Date(minuteMs + 3 * MINUTE_MS));
    expect(await minuteRow()).toEqual([{ samples: 1, cpu_steal_pct_max: 95 }]);
    await markLateMinutes(db.sql, lateMinutesOf([{ hostId, ts: lateTs }], lateTs + 2 * MINUTE_MS));
    await rollUp(db.sql, new Date(minuteMs + 3 * MINUTE_MS + 15_000));
    expect(await minuteRow()).toEqual([{ samples: 2, cpu_steal_pct_max: 97 }]);
  });

  test('latency rollups merge histograms by summing counts per key', async () => {
    const random = seeded(11);
    const wires = [];
    for (let i = 0; i < 12; i++) {
      const sketch = new LatencySketch();
      for (let j = 0; j < 50; j++) sketch.add(1 + random() * 200);
      const wire = sketch.toWire();
      wires.push(wire);
      await insertLatency(db.sql, hostId, at(i * 10_000), 'request', wire);
    }
    // Alone in its minute: the 1-minute row is that histogram unchanged (the rollup's one-row shortcut).
    const lone = new LatencySketch();
    for (let j = 0; j < 40; j++) lone.add(5 + random() * 900);
    await insertLatency(db.sql, hostId, at(5 * MINUTE_MS + 10_000), 'lone', lone.toWire());
    await rollUp(db.sql, new Date(base + 2 * HOUR_MS + 40_000), { latenessMs: 3 * HOUR_MS });
    const minuteRows = await rowsOf<HistogramRow & { name: string }>(db.sql,
      'SELECT name, count, sum, min, max, keys, counts FROM latency_1m WHERE host_id = $1 AND ts = ANY($2) ORDER BY ts, name',
      [hostId, [at(0), at(5 * MINUTE_MS)]],
    );
    expect(minuteRows.map((row) => [row.name, comparable(row)])).toEqual([
      ['request', comparable(mergeWires(wires.slice(0, 6)))],
      ['lone', comparable(lone.toWire())],
    ]);
    const expected = mergeWires(wires);
    const [row] = await rowsOf<{ count: number; sum: number; min: number; max: number; keys: number[]; counts: number[] }>(db.sql,
      'SELECT count, sum, min, max, keys, counts FROM latency_1h WHERE host_id = $1 AND name = $2',
      [hostId, 'request'],
    );
    expect({ ...row, sum: Math.round(row!.sum * 1e6), counts: row!.counts.map(Number) }).toEqual({
      count: expected.count,
      sum: Math.round(expected.sum * 1e6),
      min: expected.min,
      max: expected.max,
      keys: expected.keys,
      counts: expected.counts,
    });
  });
});

type HistogramRow = { count: number; sum: number; min: number; max: number; keys: number[]; counts: number[] };

function comparable(row: HistogramRow | SketchWire | undefined) {
  if (!row) return row;
  return { count: Number(row.count), sum: Math.round(row.sum * 1e6), min: row.min, max: row.max, keys: row.keys, counts: row.counts.map(Number) };
}

function sketchOf(random: () => number, scaleMs: number): SketchWire {
  const sketch = new LatencySketch();
  for (let j = 0; j < 30; j++) sketch.add(scaleMs * (0.5 + random()));
  return sketch.toWire();
}

describe('late reports', () => {
  const minuteMs = base + HOUR_MS + 30 * MINUTE_MS;
  const hourMs = base + HOUR_MS;
  const nowMs = base + 2 * HOUR_MS + 50_000;
  const histogram = (table: string, where: string, params: unknown[]) =>
    rowsOf<HistogramRow>(db.sql, `SELECT count, sum, min, max, keys, counts FROM ${table} WHERE name = 'late' AND ${where}`, params);

  test('a report an hour late, queued by markLateMinutes, reaches the 1 m, 1 h and region rollups on the next pass', async () => {
    const random = seeded(23);
    const onTime = sketchOf(random, 20);
    await insertLatency(db.sql, hostId, new Date(minuteMs + 1_000), 'late', onTime);
    await rollUp(db.sql, new Date(nowMs), { latenessMs: 3 * HOUR_MS });
    const otherId = await insertHost(db.sql, { hostname: 'gpu-2', region: 'oslo' });
    const lateSame = sketchOf(random, 40);
    const lateOther = sketchOf(random, 400);
    const late = [
      { hostId, ts: minuteMs + 20_000, wire: lateSame },
      { hostId: otherId, ts: minuteMs + 40_000, wire: lateOther },
    ];
    for (const r of late) await insertLatency(db.sql, r.hostId, new Date(r.ts), 'late', r.wire);
    await insertHostSample(db.sql, otherId, new Date(minuteMs + 40_000), { steal: 42 });
    await rollUp(db.sql, new Date(nowMs + 5_000));
    expect((await histogram('latency_region_1m', 'ts = $1', [new Date(minuteMs)])).map(comparable)).toEqual([comparable(onTime)]);

    await markLateMinutes(db.sql, lateMinutesOf(late, nowMs + 10_000));
    await rollUp(db.sql, new Date(nowMs + 10_000));

    const all = mergeWires([onTime, lateSame, lateOther]);
    expect(comparable((await histogram('latency_1m', 'host_id = $1 AND ts = $2', [hostId, new Date(minuteMs)]))[0])).toEqual(
      comparable(mergeWires([onTime, lateSame])),
    );
    expect(comparable((await histogram('latency_1h', 'host_id = $1 AND ts = $2', [otherId, new Date(hourMs)]))[0])).toEqual(
      comparable(lateOther),
    );
    expect(comparable((await histogram('latency_region_1m', 'region = $1 AND ts = $2', ['oslo', new Date(minuteMs)]))[0])).toEqual(
      comparable(all),
    );
    expect(comparable((await histogram('latency_region_1h', 'region = $1 AND ts = $2', ['oslo', new Date(hourMs)]))[0])).toEqual(
      comparable(all),
    );
    const [minute] = await db.sql.query('SELECT samples, cpu_steal_pct_max FROM host_samples_1m WHERE host_id = $1 AND ts = $2', [
      otherId,
      new Date(minuteMs),
    ]);
    expect(minute).toEqual({ samples: 1, cpu_steal_pct_max: 42 });
    const [hour] = await db.sql.query('SELECT samples FROM host_samples_1h WHERE host_id = $1 AND ts = $2', [otherId, new Date(hourMs)]);
    expect(hour).toEqual({ samples: 1 });
    expect(await db.sql.query('SELECT * FROM rollup_dirty_minutes')).toEqual([]);
    const { total } = await getLatencyQuantiles(db, {
      scope: { kind: 'region', region: 'oslo' },
      name: 'late',
      from: new Date(hourMs),
      to: new Date(hourMs + HOUR_MS),
    });
    expect([total.count, total.p50, total.p99]).toEqual([all.count, quantileOfWire(all, 0.5), quantileOfWire(all, 0.99)]);
  });

  test('region rows updated from late reports equal a full re-roll of the hosts', async () => {
    const before = await histogram('latency_region_1m', 'TRUE ORDER BY region, ts', []);
    const hoursBefore = await histogram('latency_region_1h', 'TRUE ORDER BY region, ts', []);
    await rollUp(db.sql, new Date(nowMs + 20_000), { latenessMs: 3 * HOUR_MS });
    expect((await histogram('latency_region_1m', 'TRUE ORDER BY region, ts', [])).map(comparable)).toEqual(before.map(comparable));
    expect((await histogram('latency_region_1h', 'TRUE ORDER BY region, ts', [])).map(comparable)).toEqual(hoursBefore.map(comparable));
  });
});

describe('applyRetention', () => {
  test('partition names give their exclusive end', () => {
    expect(partitionEnd('host_samples_p20261129')?.toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(partitionEnd('latency_1h_p202612')?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(partitionEnd('hosts')).toBeNull();
  });

  test('drops exactly the partitions wholly older than each horizon, and nothing newer', async () => {
    const old = ['2026-10-01', '2026-11-18'];
    for (const day of old) {
      await db.sql.query('SELECT inferwatch_ensure_partitions($1::date, $1::date)', [day]);
      await db.sql.query('SELECT inferwatch_ensure_rollup_partitions($1::date, $1::date)', [day]);
    }
    const rawBefore = await rowsOf<{ n: number }>(db.sql,
      "SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'host_samples'::regclass",
    );
    const dropped = await applyRetention(db.sql, new Date('2026-11-29T12:00:00Z'), { raw: 7, oneMinute: 35, oneHour: 400 });
    // raw horizon 2026-11-22T12:00: the 18th and 1st of Nov go, 1m horizon 2026-10-25T12:00: only October 1st goes.
    expect(dropped).toContain('host_samples_p20261118');
    expect(dropped).toContain('host_samples_p20261001');
    expect(dropped).toContain('host_samples_1m_p20261001');
    expect(dropped).not.toContain('host_samples_1m_p20261118');
    expect(dropped.filter((name) => name.includes('_1h_'))).toEqual([]);
    const rawAfter = await rowsOf<{ n: number }>(db.sql,
      "SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'host_samples'::regclass",
    );
    expect(rawAfter[0]!.n).toBe(rawBefore[0]!.n - 2);
    expect(await db.sql.query('SELECT to_regclass($1) AS t', ['host_samples_1m_p20261118'])).toEqual([
      { t: 'host_samples_1m_p20261118' },
    ]);
  });
});
