import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bucketSketch, type PlacedBucket } from '../../agent/scrape/bucket-sketch';
import { openDatabase, type Database } from '../../lib/db/open';
import { appendReportRows, emptyRowBatch } from '../../lib/ingest/write/report-rows';
import type { LatencySeries } from '../../lib/protocol';
import { getLatencyQuantiles, lateMinutesOf, markLateMinutes, rollUp } from '../../lib/series';
import { LatencySketch, SKETCH_RELATIVE_ACCURACY } from '../../lib/sketch';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { HOUR_MS, MINUTE_MS, hourBefore, insertHost, seeded } from './series-support';
import { rowsOf } from '../support/rows';

// Histograms from a model server's buckets keep, per sketch key, the error of the bucket it came from: through the
// 1-minute, 1-hour and region rollups (late reports included) every quantile reads the same value and error as from
// the raw rows, and an open top bucket reads as unbounded (null).
let testDb: TestDatabase;
let db: Database;
const now = new Date();
const base = hourBefore(now, 3);
const hourMs = base + HOUR_MS;
let hostA: number;
let hostB: number;

// vLLM's request latency buckets (seconds → ms), the first few.
const BOUNDS_MS = [300, 500, 800, 1000, 1500, 2000, 2500, 5000, 10_000, Infinity];

function scraped(random: () => number, withTop: boolean): LatencySeries {
  const values = Array.from({ length: 40 }, () => 200 + random() * 4000);
  if (withTop) values.push(12_000, 12_500, 13_000);
  const buckets: PlacedBucket[] = BOUNDS_MS.map((upperMs, i) => ({
    lowerMs: i === 0 ? 0 : BOUNDS_MS[i - 1]!,
    upperMs,
    count: values.filter((v) => v <= upperMs && (i === 0 || v > BOUNDS_MS[i - 1]!)).length,
  }));
  const placed = bucketSketch(buckets, values.reduce((a, b) => a + b, 0))!;
  return { name: 'vllm:e2e_request_latency_seconds', tags: { scrape: 'vllm' }, ...placed };
}

function ownSketch(random: () => number): LatencySeries {
  const sketch = new LatencySketch();
  for (let i = 0; i < 5; i++) sketch.add(30 + random() * 20);
  return { name: 'vllm:e2e_request_latency_seconds', tags: { via: 'statsd' }, sketch: sketch.toWire() };
}

/** Writes series rows the way ingest builds them (report-rows), so the wire's null becomes the stored Infinity. */
async function insert(hostId: number, tsMs: number, series: LatencySeries[]): Promise<void> {
  const batch = emptyRowBatch();
  appendReportRows(batch, hostId, {
    v: 1, seq: 0, ts: tsMs, intervalMs: 10_000, host: { hostname: 'h', machineId: null },
    agent: { version: 't', droppedReports: 0, spoolBytes: 0, malformedStatsdPackets: 0 },
    cpu: { unavailable: 'test' }, pressure: { unavailable: 'test' }, disks: [], cgroups: [], processes: [], probes: [], latency: series,
  });
  const { width, values } = batch.latency;
  for (let i = 0; i < values.length; i += width) {
    const row = values.slice(i, i + width);
    await db.sql.query(
      `INSERT INTO latency_samples VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::smallint[], $11::int[], $12::real[])`,
      row.map((v) => (Array.isArray(v) ? v.map((x) => (x === Infinity ? 'Infinity' : x)) : v)),
    );
  }
}

const read = (scope: { kind: 'host'; hostId: number } | { kind: 'region'; region: string }) =>
  getLatencyQuantiles(db, { scope, name: 'vllm:e2e_request_latency_seconds', from: new Date(hourMs), to: new Date(hourMs + HOUR_MS), points: 4 });

beforeAll(async () => {
  testDb = await createTestDatabase('iw_bucket_errors');
  db = await openDatabase({ kind: 'server', url: testDb.url });
  hostA = await insertHost(db.sql, { hostname: 'gpu-a', region: 'oslo' });
  hostB = await insertHost(db.sql, { hostname: 'gpu-b', region: 'oslo' });
  const random = seeded(5);
  for (let i = 0; i < 30; i++) await insert(hostA, hourMs + i * 60_000 + 5_000, [scraped(random, i === 7)]);
  await insert(hostA, hourMs + 3 * MINUTE_MS + 7_000, [ownSketch(random)]);
  for (let i = 0; i < 10; i++) await insert(hostB, hourMs + i * 60_000 + 9_000, [scraped(random, false)]);
});

afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

describe('bucket errors through storage and rollups', () => {
  let rawHost: Awaited<ReturnType<typeof read>>;
  let rawRegion: Awaited<ReturnType<typeof read>>;

  test('raw rows: each quantile carries the error of its bucket; the open top bucket reads as unbounded', async () => {
    rawHost = await read({ kind: 'host', hostId: hostA });
    rawRegion = await read({ kind: 'region', region: 'oslo' });
    const { bucketError, p50, p999 } = rawHost.total;
    expect(p50).toBeGreaterThan(300);
    // Somewhere in (300, 5000] ms: a vLLM bucket's geometric half-width, widened by the sketch key.
    expect(bucketError!.p50).toBeGreaterThan(0.05);
    expect(bucketError!.p50).toBeLessThan(0.5);
    // 3 of 1,208 requests took over 10 s, beyond the last finite bucket: p99.9 is a lower bound.
    expect(Math.abs(p999! - 10_000) / 10_000).toBeLessThan(SKETCH_RELATIVE_ACCURACY);
    expect(bucketError!.p999).toBeNull();
    // The agent's own sketch alone filled the lowest keys (30–50 ms): the minimum reads there, and host B has none.
    expect(rawHost.total.minMs).toBeLessThan(50);
  });

  test('the 1-minute, 1-hour and region rollups answer the same quantiles with the same errors', async () => {
    await rollUp(db.sql, new Date(base + 2 * HOUR_MS + 40_000), { latenessMs: 3 * HOUR_MS });
    const host = await read({ kind: 'host', hostId: hostA });
    const region = await read({ kind: 'region', region: 'oslo' });
    expect(host.series!.resolution).not.toBe('raw');
    expect(host.total).toEqual(rawHost.total);
    expect(region.total).toEqual(rawRegion.total);
  });

  test('a late report’s errors reach the rolled-up rows as a full re-roll would give them', async () => {
    const late = hourMs + 20 * MINUTE_MS + 30_000;
    const random = seeded(9);
    await insert(hostB, late, [scraped(random, true)]);
    await markLateMinutes(db.sql, lateMinutesOf([{ hostId: hostB, ts: late }], base + 2 * HOUR_MS + 50_000));
    await rollUp(db.sql, new Date(base + 2 * HOUR_MS + 50_000));
    const fromRollups = await read({ kind: 'region', region: 'oslo' });
    const rows = await rowsOf<{ bucket_errors: number[] | null }>(db.sql,
      `SELECT bucket_errors FROM latency_region_1m WHERE ts = $1`, [new Date(hourMs + 20 * MINUTE_MS)],
    );
    expect(rows[0]!.bucket_errors!.at(-1)).toBe(Infinity);
    await rollUp(db.sql, new Date(base + 2 * HOUR_MS + 60_000), { latenessMs: 3 * HOUR_MS });
    expect((await read({ kind: 'region', region: 'oslo' })).total).toEqual(fromRollups.total);
  });
});
