import { afterAll, beforeAll, expect, test } from 'vitest';
import { openDatabase, type Database } from '../../lib/db/open';
import { mergeHistograms } from '../../lib/series/merge-histograms';
import { LatencySketch } from '../../lib/sketch';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { HOUR_MS, hourBefore, insertHost, insertLatency } from './series-support';

// mergeHistograms sums a group's counts and its buckets in two parts and joins them on the group: a group whose value
// is NULL (a series without the tag grouped by) must keep its buckets, not come back with a count and no keys.
let testDb: TestDatabase;
let db: Database;
const hourMs = hourBefore(new Date(), 2);

const wireOf = (values: number[]) => {
  const sketch = new LatencySketch();
  for (const v of values) sketch.add(v);
  return sketch.toWire();
};

beforeAll(async () => {
  testDb = await createTestDatabase('iw_merge_histograms');
  db = await openDatabase({ kind: 'server', url: testDb.url });
  const host = await insertHost(db.sql, { hostname: 'gpu-a', region: 'oslo' });
  await insertLatency(db.sql, host, new Date(hourMs + 5_000), 'ttft', wireOf([100, 200, 300]), JSON.stringify({ model: 'llama' }));
  await insertLatency(db.sql, host, new Date(hourMs + 15_000), 'ttft', wireOf([400, 500]), JSON.stringify({ scrape: 'vllm' }));
  await insertLatency(db.sql, host, new Date(hourMs + 25_000), 'ttft', wireOf([600]), JSON.stringify({ scrape: 'vllm' }));
});

afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

test('a group whose value is NULL keeps its buckets beside the named groups', async () => {
  const rows = await mergeHistograms(db.sql, {
    segments: [{ resolution: 'raw', fromMs: hourMs, toMs: hourMs + HOUR_MS }],
    groups: [`(x.tags::jsonb)->>'model'`],
    where: 'TRUE',
    params: [],
  });
  const byModel = new Map(rows.map((r) => [r.groups[0], r.wire]));
  expect([...byModel.keys()].sort()).toEqual(['llama', null]);
  expect(byModel.get('llama')).toEqual(wireOf([100, 200, 300]));
  const untagged = byModel.get(null)!;
  expect(untagged.count).toBe(3);
  expect(untagged.counts.reduce((a, b) => a + b, 0) + untagged.zeroCount).toBe(3);
  expect(untagged.keys).toEqual(wireOf([400, 500, 600]).keys);
});
