import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openDatabase, type Database } from '../../lib/db/open';
import type { SketchWire } from '../../lib/protocol';
import { lateMinutesOf, markLateMinutes, rollUp } from '../../lib/series';
import { readMinuteQuantiles, summarizeMinuteQuantiles, type MinuteQuantileQuery } from '../../lib/series/minute-quantiles';
import { readMinuteMarks } from '../../lib/series/rollup';
import { MINUTE_QUANTILES, type MinuteQuantile } from '../../lib/series/tables';
import { LatencySketch, SKETCH_MAX_VALUE_MS, SKETCH_MIN_VALUE_MS, keyOf, mergeWires, quantileOfWire, valueOfKey } from '../../lib/sketch';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { MINUTE_MS, hourBefore, insertHost, insertLatency, seeded } from './series-support';
import { rowsOf } from '../support/rows';

let testDb: TestDatabase;
let db: Database;
const now = new Date();
const base = hourBefore(now, 3);
const MINUTES = 10;
const rolledAt = new Date(base + (MINUTES + 5) * MINUTE_MS);
const ids: Record<'multi' | 'single' | 'zeros' | 'flat', number> = { multi: 0, single: 0, zeros: 0, flat: 0 };

interface Report {
  hostId: number;
  ts: number;
  name: string;
  tags: string;
  wire: SketchWire;
}
const reports: Report[] = [];

async function report(r: Report): Promise<void> {
  reports.push(r);
  await insertLatency(db.sql, r.hostId, new Date(r.ts), r.name, r.wire, r.tags);
}

function sketch(values: number[]): SketchWire {
  const s = new LatencySketch();
  for (const v of values) s.add(v);
  return s.toWire();
}

const QUANTILES = Object.entries(MINUTE_QUANTILES.quantiles) as [MinuteQuantile, number][];

/** What the read path answered before the quantiles were kept: the minute's histograms merged, then quantileOfWire. */
function expected(hostId: number, minuteMs: number, name?: string): Record<MinuteQuantile, number | null> {
  const wires = reports
    .filter((r) => r.hostId === hostId && Math.floor(r.ts / MINUTE_MS) * MINUTE_MS === minuteMs && (name === undefined || r.name === name))
    .map((r) => r.wire);
  const merged = mergeWires(wires);
  return Object.fromEntries(QUANTILES.map(([key, q]) => [key, quantileOfWire(merged, q)])) as Record<MinuteQuantile, number | null>;
}

/** Every (host, minute, name) that has reports, with '' for all the host's series. */
function expectedRows() {
  const seen = new Map<string, { host_id: number; ts: number; name: string }>();
  for (const r of reports) {
    const ts = Math.floor(r.ts / MINUTE_MS) * MINUTE_MS;
    for (const name of [r.name, MINUTE_QUANTILES.allSeries]) seen.set(`${r.hostId}/${ts}/${name}`, { host_id: r.hostId, ts, name });
  }
  return [...seen.values()]
    .map((row) => ({ ...row, ...expected(row.host_id, row.ts, row.name === MINUTE_QUANTILES.allSeries ? undefined : row.name) }))
    .sort((a, b) => a.host_id - b.host_id || a.ts - b.ts || a.name.localeCompare(b.name));
}

async function storedRows() {
  const rows = await rowsOf<{ host_id: number; ts: Date; name: string; p50: number | null; p95: number | null; p99: number | null }>(db.sql,
    `SELECT host_id, ts, name, p50, p95, p99 FROM ${MINUTE_QUANTILES.table} ORDER BY host_id, ts, name COLLATE "C"`,
  );
  return rows.map((row) => ({ ...row, ts: new Date(row.ts).getTime() }));
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = await openDatabase({ kind: 'server', url: testDb.url });
  for (const key of Object.keys(ids) as (keyof typeof ids)[]) ids[key] = await insertHost(db.sql, { hostname: key, region: 'oslo' });
  const random = seeded(5);
  const values = (n: number, scaleMs: number) => Array.from({ length: n }, () => scaleMs * (0.2 + random() * random() * 5));
  for (let minute = 0; minute < MINUTES; minute++) {
    for (const offsetMs of [5_000, 25_000, 45_000]) {
      const ts = base + minute * MINUTE_MS + offsetMs;
      // A model server's host: two series, one of them with two tag sets; in the last minute only one series.
      if (minute < MINUTES - 1) {
        await report({ hostId: ids.multi, ts, name: 'e2e', tags: 'model=a', wire: sketch(values(40, 80)) });
        await report({ hostId: ids.multi, ts, name: 'e2e', tags: 'model=b', wire: sketch(values(15, 300)) });
      }
      await report({ hostId: ids.multi, ts, name: 'ttft', tags: 'model=a', wire: sketch(values(40, 12)) });
      await report({ hostId: ids.single, ts, name: 'e2e', tags: '', wire: sketch(values(30, 25)) });
      // Zeros below the sketch's minimum and a tail near its maximum.
      await report({ hostId: ids.zeros, ts, name: 'e2e', tags: '', wire: sketch([0, 0, 1e-7, ...values(3, 0.5), ...(minute % 3 === 0 ? [5e9] : [])]) });
    }
    // One value many times: its key's representative value lies outside [min, max] and is clamped.
    await report({ hostId: ids.flat, ts: base + minute * MINUTE_MS + 30_000, name: 'e2e', tags: '', wire: sketch(Array(20).fill(10.3)) });
  }
  await rollUp(db.sql, rolledAt, { startAt: new Date(base - MINUTE_MS), settleMs: 0 });
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

describe('the stored per-minute quantiles', () => {
  test('every key a sketch can produce has the value valueOfKey gives it, bit for bit', async () => {
    const [lowest, highest] = [keyOf(SKETCH_MIN_VALUE_MS * (1 + 1e-12)), keyOf(SKETCH_MAX_VALUE_MS)];
    expect([lowest, highest]).toEqual([-863, 1727]);
    const rows = await rowsOf<{ k: number; v: number }>(db.sql,
      'SELECT k, inferwatch_sketch_key_value(k::int2) AS v FROM generate_series($1::int, $2::int) k ORDER BY k',
      [lowest, highest],
    );
    const mismatches = rows.filter((row) => row.v !== valueOfKey(row.k)).map((row) => row.k);
    expect(rows).toHaveLength(highest - lowest + 1);
    expect(mismatches).toEqual([]);
  });

  test('are, per series name and over all of a host\'s series, the quantiles of the minute\'s merged histograms', async () => {
    const stored = await storedRows();
    expect(stored).toEqual(expectedRows());
    expect(stored.some((row) => row.host_id === ids.zeros && row.p50 === 0)).toBe(true);
    expect(stored.filter((row) => row.host_id === ids.flat).every((row) => row.p50 === 10.3 && row.p99 === 10.3)).toBe(true);
  });

  test('a late report re-rolls its minute\'s quantiles, and only that minute\'s', async () => {
    const minuteMs = base + 4 * MINUTE_MS;
    const before = await storedRows();
    const late: Report = { hostId: ids.multi, ts: minuteMs + 50_000, name: 'e2e', tags: 'model=c', wire: sketch(Array.from({ length: 30 }, (_, i) => 900 + i)) };
    await report(late);
    await markLateMinutes(db.sql, lateMinutesOf([late], rolledAt.getTime() + MINUTE_MS));
    await rollUp(db.sql, new Date(rolledAt.getTime() + MINUTE_MS), { settleMs: 0 });
    const after = await storedRows();
    expect(after).toEqual(expectedRows());
    const changed = after.filter((row, i) => JSON.stringify(row) !== JSON.stringify(before[i]));
    expect(changed.map((row) => [row.host_id, row.ts, row.name])).toEqual([
      [ids.multi, minuteMs, ''],
      [ids.multi, minuteMs, 'e2e'],
    ]);
  });
});

describe('reading per-minute quantiles', () => {
  const hostIds = () => Object.values(ids);
  const query = (more: Partial<MinuteQuantileQuery> = {}): MinuteQuantileQuery => ({
    hostIds: hostIds(),
    quantile: 'p99',
    fromMs: base,
    toMs: base + MINUTES * MINUTE_MS,
    ...more,
  });
  const expectedMinutes = (q: MinuteQuantileQuery) =>
    q.hostIds.flatMap((hostId) =>
      Array.from({ length: MINUTES }, (_, i) => base + i * MINUTE_MS)
        .filter((ts) => reports.some((r) => r.hostId === hostId && Math.floor(r.ts / MINUTE_MS) * MINUTE_MS === ts && (q.name === undefined || r.name === q.name)))
        .map((t) => ({ hostId, t, value: expected(hostId, t, q.name)[q.quantile] })),
    );
  const answers = async () => ({
    all: await readMinuteQuantiles(db.sql, query()),
    e2e: await readMinuteQuantiles(db.sql, query({ name: 'e2e', quantile: 'p95' })),
    summary: await summarizeMinuteQuantiles(db.sql, query({ name: 'ttft' })),
  });

  test('answer from the stored rows what merging the minutes answered', async () => {
    const read = await answers();
    expect(read.all).toEqual(expectedMinutes(query()));
    expect(read.e2e).toEqual(expectedMinutes(query({ name: 'e2e', quantile: 'p95' })));
    const ttft = expectedMinutes(query({ name: 'ttft' })).map((m) => m.value!);
    expect(read.summary).toEqual(new Map([[ids.multi, { mean: expect.closeTo(ttft.reduce((a, b) => a + b) / ttft.length, 9), max: Math.max(...ttft) }]]));
  });

  test('minutes rolled before quantiles were kept (no rows, before the mark) are merged, with the same answers', async () => {
    const stored = await answers();
    const marks = await readMinuteMarks(db.sql);
    expect(marks.quantilesFrom!.getTime()).toBeLessThanOrEqual(base);
    await db.sql.query(`DELETE FROM ${MINUTE_QUANTILES.table} WHERE ts < $1`, [new Date(base + 6 * MINUTE_MS)]);
    await db.sql.query(`UPDATE series_rollup_watermarks SET latency_quantiles_from = $1 WHERE resolution = '1m'`, [new Date(base + 6 * MINUTE_MS)]);
    expect(await answers()).toEqual(stored);
    await db.sql.query(`DELETE FROM ${MINUTE_QUANTILES.table}`);
    await db.sql.query(`UPDATE series_rollup_watermarks SET latency_quantiles_from = NULL WHERE resolution = '1m'`);
    expect(await answers()).toEqual(stored);
  });

  test('open minutes come from raw reports when asked for, and are left out otherwise', async () => {
    const all = await readMinuteQuantiles(db.sql, query());
    await db.sql.query(`UPDATE series_rollup_watermarks SET rolled_until = $1 WHERE resolution = '1m'`, [new Date(base + 7 * MINUTE_MS)]);
    expect(await readMinuteQuantiles(db.sql, query({ openMinutes: true }))).toEqual(all);
    expect(await readMinuteQuantiles(db.sql, query())).toEqual(all.filter((m) => m.t < base + 7 * MINUTE_MS));
  });
});
